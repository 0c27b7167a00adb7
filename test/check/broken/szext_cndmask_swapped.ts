// v_cndmask's operands swapped: D = VCC ? S1 : S0, so the select picks the wrong arm.
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx942",
  spec: { form: { op: "szext", mode: "clamp", type: "s32" }, kinds: { a: v, b: v }, guarded: true },
  profile: "sm90",
  why: "v_cndmask_b32 d, a, t, vcc picks a when b < 32",
  expect: { kind: "value" },
  rule: {
    name: "szext_clamp_cndmask_swapped",
    prio: 0,
    why: "broken on purpose: " + "v_cndmask_b32 d, a, t, vcc picks a when b < 32",
    when: () => true,
    emit: (_f, m) => {
      const t = m.vtmp();
      m.emit("v_bfe_i32", t, m.src("a"), imm(0), m.src("b"));
      m.emit("v_cmp_lt_u32", m.vcc(), imm(31), m.src("b"));
      m.emit("v_cndmask_b32", m.d(), m.src("a"), t, m.vcc());
    },
  },
};
