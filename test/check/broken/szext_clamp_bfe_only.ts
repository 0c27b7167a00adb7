// .clamp with v_bfe alone: v_bfe masks its width to b[4:0], so b ≥ 32 extends b & 31 bits
// instead of keeping a (design.md §3 ex. 5).
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx900",
  spec: { form: { op: "szext", mode: "clamp", type: "s32" }, kinds: { a: v, b: v }, guarded: false },
  profile: "isa",
  why: "v_bfe_i32 alone ignores .clamp: b ≥ 32 must keep a",
  expect: { kind: "value" },
  rule: {
    name: "szext_clamp_bfe_only",
    prio: 0,
    why: "broken on purpose: " + "v_bfe_i32 alone ignores .clamp: b ≥ 32 must keep a",
    when: () => true,
    emit: (_f, m) => m.emit("v_bfe_i32", m.d(), m.src("a"), imm(0), m.src("b")),
  },
};
