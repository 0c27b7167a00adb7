// PIR vote.sync.all: HIP's `__all_sync` reading (ROCm's amd_warp_sync_functions.h compares the
// ballot with the whole mask): all = (ballot == membermask) instead of ballot == the mask's
// non-exited lanes. Wrong when the mask names a lane that has exited: every member holds the
// predicate, yet the comparison fails.
import type { BrokenCase } from "./case.js";
import { s, v } from "./case.js";
import { warpLevelRoutine } from "../../../targets/portable/rules/warp.js";

export const broken: BrokenCase = {
  target: "pir",
  spec: { form: { op: "vote", sync: true, mode: "all", type: "pred", negA: false }, kinds: { a: v, membermask: s }, guarded: false },
  profile: "isa",
  why: "the ballot is compared with the whole membermask, exited lanes included (HIP's __all_sync)",
  expect: { kind: "value", what: "Value mismatch (d[" },
  rule: {
    name: "pir_vote_all_ballot_eq_mask",
    prio: 0,
    why: "broken on purpose: the ballot is compared with the whole membermask, exited lanes included",
    when: () => true,
    build: (spec) =>
      warpLevelRoutine(spec, (P, x) => {
        const ballot = P.and(x.aMask, x.members);
        return { d: P.select(P.cmp("eq", ballot, x.mm!), P.c(1, 32), P.c(0, 32)) };
      }),
  },
};
