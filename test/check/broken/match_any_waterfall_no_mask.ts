// The shipped match.any waterfall (targets/amdgpu/rules/match_sync.ts) with its final
// `v_and_b32 d, membermask, t` turned into `v_mov_b32 d, t`: lanes outside the membermask
// are counted, as in ZLUDA's match.any. Moved here from test/match_amdgpu.test.ts; unlike
// match_any_ignores_membermask.ts it mutates the real rule, on wave64, with a VGPR mask.
import type { AmdRule } from "../../../targets/amdgpu/rules/rule.js";
import { matchRules } from "../../../targets/amdgpu/rules/match_sync.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

const waterfall = matchRules.find((r) => r.name === "match_any_waterfall")! as AmdRule;

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx942",
  spec: { form: { op: "match", mode: "any", type: "b32", dest: "d" }, kinds: { a: v, membermask: v }, guarded: false },
  profile: "isa",
  why: "the waterfall's final & membermask dropped: lanes outside the mask are counted",
  expect: { kind: "value", what: "Value mismatch: d in lane" },
  rule: {
    ...waterfall,
    name: "match_any_waterfall_no_mask",
    why: "broken on purpose: " + "the waterfall's final & membermask dropped: lanes outside the mask are counted",
    emit: (f, m, c) => {
      waterfall.emit(f, m, c);
      const last = m.lines[m.lines.length - 1]!;
      if (!("op" in last) || last.op !== "v_and_b32") throw new Error("match_any_waterfall no longer ends with v_and_b32 d, membermask, t");
      m.lines[m.lines.length - 1] = { ...last, op: "v_mov_b32", ops: [last.ops[0]!, last.ops[2]!] };
    },
  },
};
