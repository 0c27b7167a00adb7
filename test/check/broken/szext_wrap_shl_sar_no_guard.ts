// The classic (a << (32 - n)) >> (32 - n) without the n == 0 guard: the hardware masks the
// count to 5 bits, so n = 0 shifts by 0 and returns a instead of 0.
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";
import { imm } from "../../../targets/amdgpu/minst.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx1100",
  spec: { form: { op: "szext", mode: "wrap", type: "s32" }, kinds: { a: v, b: v }, guarded: false },
  profile: "isa",
  why: "missing b = 0 guard: 32 - 0 = 32 is masked to a shift by 0",
  expect: { kind: "value" },
  rule: {
    name: "szext_wrap_shl_sar_no_guard",
    prio: 0,
    why: "broken on purpose: " + "missing b = 0 guard: 32 - 0 = 32 is masked to a shift by 0",
    when: () => true,
    emit: (_f, m) => {
      const n = m.vtmp();
      const t = m.vtmp();
      m.emit(m.vSub, n, imm(32), m.src("b"));
      m.emit("v_lshlrev_b32", t, n, m.src("a"));
      m.emit("v_ashrrev_i32", m.d(), n, t);
    },
  },
};
