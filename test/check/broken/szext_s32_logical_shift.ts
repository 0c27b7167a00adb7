// A logical instead of an arithmetic right shift for .s32: the sign is not extended.
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx90a",
  spec: { form: { op: "szext", mode: "wrap", type: "s32" }, kinds: { a: v, b: v }, guarded: false },
  profile: "isa",
  why: "v_lshrrev_b32 (logical) where .s32 needs v_ashrrev_i32",
  expect: { kind: "value" },
  rule: {
    name: "szext_wrap_s32_lshr",
    prio: 0,
    why: "broken on purpose: " + "v_lshrrev_b32 (logical) where .s32 needs v_ashrrev_i32",
    when: () => true,
    emit: (_f, m) => {
      const n = m.vtmp();
      const k = m.vtmp();
      const t = m.vtmp();
      m.emit("v_and_b32", n, imm(31), m.src("b"));
      m.emit(m.vSub, k, imm(32), n);
      m.emit("v_lshlrev_b32", t, k, m.src("a"));
      m.emit("v_lshrrev_b32", t, k, t);
      m.emit("v_cmp_eq_u32", m.vcc(), imm(0), n);
      m.emit("v_cndmask_b32", m.d(), t, imm(0), m.vcc());
    },
  },
};
