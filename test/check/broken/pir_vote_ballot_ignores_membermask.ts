// PIR vote.sync.ballot: the membermask unused (ZLUDA marks it unused in vote, shfl, match and
// redux): the ballot of every executing lane, where the ISA's names only the lanes of the
// reading lane's membermask.
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";
import { warpLevelRoutine } from "../../../targets/portable/rules/warp.js";

export const broken: BrokenCase = {
  target: "pir",
  spec: { form: { op: "vote", sync: true, mode: "ballot", type: "b32", negA: false }, kinds: { a: v, membermask: v }, guarded: false },
  profile: "isa",
  why: "the membermask is ignored: the ballot names every executing lane",
  expect: { kind: "value", what: "Value mismatch (d[" },
  rule: {
    name: "pir_vote_ballot_executing",
    prio: 0,
    why: "broken on purpose: the membermask is ignored",
    when: () => true,
    build: (spec) => warpLevelRoutine(spec, (P, x) => ({ d: P.and(x.aMask, x.executing) })),
  },
};
