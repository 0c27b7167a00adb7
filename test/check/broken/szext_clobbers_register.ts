// Right value, but a temporary outside the routine's scratch window: the caller's v6 is lost.
import { imm, v as vreg } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx900",
  spec: { form: { op: "szext", mode: "wrap", type: "u32" }, kinds: { a: v, b: v }, guarded: false },
  profile: "isa",
  why: "writes v6, which is not in the routine's scratch window",
  expect: { kind: "contract", what: "v6 lane 0 changed (not scratch)" },
  rule: {
    name: "szext_wrap_bfe_via_v6",
    prio: 0,
    why: "broken on purpose: " + "writes v6, which is not in the routine's scratch window",
    when: () => true,
    emit: (_f, m) => {
      m.emit("v_bfe_u32", vreg(6), m.src("a"), imm(0), m.src("b"));
      m.emit("v_mov_b32", m.d(), vreg(6));
    },
  },
};
