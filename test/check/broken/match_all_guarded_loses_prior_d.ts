// The shipped guarded match.all (match_all_uniform_saveexec_guarded, targets/amdgpu/rules/match_sync.ts)
// without its v_cndmask_b32 that keeps d where the guard is false: those lanes lose their
// prior d. Moved here from test/match_amdgpu.test.ts.
import type { AmdRule } from "../../../targets/amdgpu/rules/rule.js";
import { matchRules } from "../../../targets/amdgpu/rules/match_sync.js";
import type { BrokenCase } from "./case.js";
import { s, v } from "./case.js";

const saveexec = matchRules.find((r) => r.name === "match_all_uniform_saveexec_guarded")! as AmdRule;

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx942",
  spec: { form: { op: "match", mode: "all", type: "b64", dest: "d|p" }, kinds: { a: v, membermask: s }, guarded: true },
  profile: "isa",
  why: "the guard's select for d dropped: a lane whose guard is false loses its prior d",
  expect: { kind: "value", what: "(guard false) does not keep its prior d" },
  rule: {
    ...saveexec,
    name: "match_all_loses_prior_d",
    why: "broken on purpose: " + "the guard's select for d dropped: a lane whose guard is false loses its prior d",
    emit: (f, m, c) => {
      saveexec.emit(f, m, c);
      const i = m.lines.findIndex((l) => "op" in l && l.op === "v_cndmask_b32");
      if (i < 0) throw new Error("match_all_uniform_saveexec_guarded no longer selects d with v_cndmask_b32");
      m.lines.splice(i, 1);
    },
  },
};
