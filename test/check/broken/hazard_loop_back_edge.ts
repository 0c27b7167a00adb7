// gfx942 match.any waterfall rotated so that the next round's v_readfirstlane ends the loop
// body: every wait inside one pass of the body is there, but on the back-edge the v_cmp at
// the loop head reads s2 one wait state (the s_cbranch) after v_readfirstlane wrote it.
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";
import { hazardWaterfall } from "./hazard_waterfall.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx942",
  spec: { form: { op: "match", mode: "any", type: "b32", dest: "d" }, kinds: { a: v, membermask: v }, guarded: false },
  profile: "isa",
  why: "v_readfirstlane at the end of the loop body, read by the v_cmp at its head across the back-edge with 1 wait state",
  expect: { kind: "hazard", rule: "valu-reads-valu-sgpr", producer: "v_readfirstlane_b32 s2, v0", consumer: "v_cmp_eq_u32_e64 s[4:5], s2, v0" },
  rule: {
    name: "match_any_waterfall_back_edge_hazard",
    prio: 0,
    why: "broken on purpose: " + "v_readfirstlane at the end of the loop body, read by the v_cmp at its head across the back-edge with 1 wait state",
    waits: "as-emitted",
    when: () => true,
    emit: (_f, m) => hazardWaterfall(m, "rotated"),
  },
};
