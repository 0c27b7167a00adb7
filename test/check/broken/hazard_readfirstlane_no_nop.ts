// gfx942 match.any waterfall with every wait but the one after v_readfirstlane: the compare
// reads the SGPR the VALU v_readfirstlane wrote in the instruction before; MI300 needs 2.
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";
import { hazardWaterfall } from "./hazard_waterfall.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx942",
  spec: { form: { op: "match", mode: "any", type: "b32", dest: "d" }, kinds: { a: v, membermask: v }, guarded: false },
  profile: "isa",
  why: "no s_nop between v_readfirstlane (writes s4) and the v_cmp that reads it",
  expect: { kind: "hazard", rule: "valu-reads-valu-sgpr", producer: "v_readfirstlane_b32 s2, v0", consumer: "v_cmp_eq_u32_e64 s[4:5], s2, v0" },
  rule: {
    name: "match_any_waterfall_no_readfirstlane_wait",
    prio: 0,
    why: "broken on purpose: " + "no s_nop between v_readfirstlane (writes s4) and the v_cmp that reads it",
    waits: "as-emitted",
    when: () => true,
    emit: (_f, m) => hazardWaterfall(m, "noReadfirstlaneWait"),
  },
};
