/**
 * @fileoverview `vote.sync.{all,any,uni}.pred` / `vote.sync.ballot.b32` (and the deprecated
 * `vote`) → AMDGPU (PTX ISA §9.7.13.9; src/sem/warp.ts `vote`). The predicate `a` is a lane
 * mask A (routine.ts contract, predicates), the `.pred` d a lane mask in vcc_lo. With the
 * members M = membermask ∩ E (warp_common.ts), B = A ∩ M (`!a`: M & ~A) is the ballot, and
 *   ballot: d = B;  any: B ≠ 0;  all: M & ~A = 0 (`!a`: M & A = 0);  uni: B = 0 or B = M.
 * All of it is SALU work on masks: no v_cmp is needed (A is already the ballot of a over exec),
 * and SCC carries the reductions into s_cselect. A divergent membermask: the waterfall.
 */
import type { VoteForm } from "../../../src/ir/warp_forms.js";
import type { MOp } from "../minst.js";
import { imm } from "../minst.js";
import type { Builder } from "../routine.js";
import { lo } from "./match_sync.js";
import type { AmdRule } from "./rule.js";
import type { BodyResult } from "./warp_common.js";
import { divergentMask, uniformRoutine, waterfallRoutine } from "./warp_common.js";

/** A as a 32-bit mask operand: the low SGPR of the predicate's lane mask, or an immediate predicate folded to all/no lanes. */
function predMask(m: Builder): MOp {
  const k = m.spec.kinds.a;
  if (k?.kind === "imm") return imm((k.value & 1n) !== 0n ? -1 : 0);
  return lo(m.src("a"));
}

/** The vote over the members M (see the file comment). */
function voteBody(f: VoteForm, m: Builder, M: MOp): BodyResult {
  const A = predMask(m);
  const t = m.stmp();
  // M ∩ pred (`and`) and M ∖ pred (`andn2`) with `!a` folded in.
  const withPred = (x: MOp) => m.emit(f.negA ? "s_andn2_b32" : "s_and_b32", x, M, A);
  const withoutPred = (x: MOp) => m.emit(f.negA ? "s_and_b32" : "s_andn2_b32", x, M, A);
  switch (f.mode) {
    case "ballot":
      withPred(t);
      return { value: t };
    case "any":
      withPred(t); // SCC = B ≠ 0
      return { sccIs: true };
    case "all":
      withoutPred(t); // SCC = some member's predicate is false
      return { sccIs: false };
    case "uni":
      // B ∈ {0, M}: SCC = (B ≠ M and B ≠ 0) after the select.
      m.emit("s_and_b32", t, M, A);
      m.emit("s_cmp_eq_u32", t, M);
      m.emit("s_cselect_b32", t, imm(0), t);
      m.emit("s_cmp_lg_u32", t, imm(0));
      return { sccIs: false };
  }
}

export const voteRules: AmdRule<VoteForm>[] = [
  {
    name: "vote_uniform_mask_salu",
    prio: 0,
    why: "Uniform (SGPR or immediate) membermask, or none (deprecated vote: the executing lanes): M = exec_lo ∩ mask (∩ guard) by s_and, the vote as SALU ops on the predicate's lane mask (file comment), SCC into vcc_lo by s_cselect, or the ballot into v0 by v_mov. Loop-free: measured 2–6 cycles unguarded (uni the most), 3–9 guarded, on every processor. M ∩ exec, not the membermask alone, is what makes exited lanes drop out (HIP's __all_sync compares the ballot with the whole mask).",
    when: (f, c) => !divergentMask(f, c),
    emit: (f, m, c) => uniformRoutine(f, m, c, (M) => voteBody(f, m, M)),
  },
  {
    name: "vote_divergent_mask_waterfall",
    prio: 0,
    why: "Per-lane membermask: the waterfall over its distinct values (warp_common.ts), the same SALU vote per round on M = value ∩ E; exact for every defined lane (its round's value is its own membermask). Measured 11–387 cycles (mean 52 over the random warps; k distinct membermask values, up to 32).",
    when: (f, c) => divergentMask(f, c),
    emit: (f, m) => waterfallRoutine(m, (M) => voteBody(f, m, M)),
  },
];
