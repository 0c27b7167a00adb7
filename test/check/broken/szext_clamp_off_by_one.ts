// The clamp test as b > 32 instead of b ≥ 32: b = 32 takes v_bfe's width 0 and gives 0.
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx1030",
  spec: { form: { op: "szext", mode: "clamp", type: "u32" }, kinds: { a: v, b: v }, guarded: false },
  profile: "isa",
  why: "v_cmp_lt_u32 32, b is b > 32: b = 32 must keep a",
  expect: { kind: "value" },
  rule: {
    name: "szext_clamp_cmp_off_by_one",
    prio: 0,
    why: "broken on purpose: " + "v_cmp_lt_u32 32, b is b > 32: b = 32 must keep a",
    when: () => true,
    emit: (_f, m) => {
      const t = m.vtmp();
      m.emit("v_bfe_u32", t, m.src("a"), imm(0), m.src("b"));
      m.emit("v_cmp_lt_u32", m.vcc(), imm(32), m.src("b"));
      m.emit("v_cndmask_b32", m.d(), t, m.src("a"), m.vcc());
    },
  },
};
