/**
 * @fileoverview What the warp-level rules (issue 15: shfl.sync, vote.sync, redux.sync,
 * activemask) share on AMDGPU: the executing set, the members of a uniform membermask, the
 * contract's outputs (a value in v0, a predicate as a lane mask in vcc / vcc_lo, both under the
 * guard rule), and the waterfall over distinct values of a divergent membermask.
 *
 * One PTX warp per wavefront (laneid i = wave lane i; on wave64 lanes 32..63 are inactive,
 * exec[63:32] = 0), so lane masks are computed on their low 32 bits (`exec_lo`, `vcc_lo`, the
 * low SGPR of a pair: `lo` of match_sync.ts), and only a change of exec uses the wave-sized form.
 *
 * Why the members are `membermask ∩ E` (E = exec at entry ∩ guard): src/sem/members.ts — lane
 * i's members are the named lanes that have not exited, and its result is defined only when
 * every one of them executes with the same membermask; so for every defined lane they are
 * exactly membermask_i ∩ E. Exited lanes are not in exec, which is what HIP's `__all_sync`
 * (ballot compared with the whole membermask) gets wrong (warp-semantics.md §9.1).
 */
import type { WarpForm } from "../../../src/ir/warp_forms.js";
import { warpSources } from "../../../src/ir/warp_forms.js";
import type { MOp } from "../minst.js";
import { imm } from "../minst.js";
import type { Builder } from "../routine.js";
import { lo } from "./match_sync.js";
import type { RuleCtx } from "./rule.js";

export const EXEC_LO: MOp = { k: "exec_lo" };
export const VCC_LO: MOp = { k: "vcc_lo" };

/** The form has a membermask (the `.sync` forms and redux; not the deprecated shfl/vote, not activemask). */
export const hasMask = (f: WarpForm): boolean => warpSources(f).includes("membermask");
/** The membermask is divergent (a VGPR): the waterfall rules. */
export const divergentMask = (f: WarpForm, c: RuleCtx): boolean => hasMask(f) && (c.spec.kinds.membermask?.kind ?? "v") === "v";
/** An immediate membermask naming all 32 lanes: `& membermask` is the identity. */
export const fullImmMask = (c: RuleCtx): boolean => {
  const k = c.spec.kinds.membermask;
  return k?.kind === "imm" && (k.value & 0xffffffffn) === 0xffffffffn;
};

/**
 * E = the executing lanes (exec_lo, & the guard's low half in a guarded routine), as an
 * operand: exec_lo itself when unguarded, else a scratch SGPR.
 */
export function executing(m: Builder): MOp {
  const g = m.layout.guard;
  if (!g) return EXEC_LO;
  const e = m.stmp();
  m.emit("s_and_b32", e, EXEC_LO, lo(g));
  return e;
}

/**
 * The members of a uniform (SGPR or immediate) membermask, or of a form without one (the
 * executing lanes, warp-semantics.md D12): M = membermask ∩ E in a scratch SGPR; SCC = M ≠ 0
 * unless M is E itself (returned as is: exec_lo or E's SGPR).
 */
export function uniformMembers(f: WarpForm, m: Builder, c: RuleCtx): MOp {
  const e = executing(m);
  if (!hasMask(f) || fullImmMask(c)) return e;
  const mm = m.src("membermask");
  const t = m.stmp();
  m.emit("s_and_b32", t, e, mm);
  return t;
}

/** d = r (a uniform value: SGPR or immediate) in v0 under the guard rule: guarded-off lanes get the prior d. */
export function writeValue(m: Builder, r: MOp): void {
  const g = m.layout.guard;
  if (g) m.emit("v_cndmask_b32", m.layout.d, m.layout.dPrior!, r, g);
  else m.emit("v_mov_b32", m.layout.d, r);
}

/**
 * A predicate result decided by SCC (`sccIs` = the value SCC = 1 means) into vcc_lo, for every
 * lane of the lane mask `lanes` (exec_lo when unguarded: then all of vcc_lo, whose other bits
 * are don't-care); lanes outside `lanes` keep their bit (guarded-off lanes, or lanes a later
 * waterfall round decides). wave64: vcc_hi is don't-care (lanes 32..63 are not PTX lanes).
 */
export function writePredicate(m: Builder, sccIs: boolean, lanes: MOp | null): void {
  const [yes, no] = sccIs ? [imm(-1), imm(0)] : [imm(0), imm(-1)];
  if (!lanes) {
    m.emit("s_cselect_b32", VCC_LO, yes, no);
    return;
  }
  const t = m.stmp();
  m.emit("s_cselect_b32", t, sccIs ? lanes : imm(0), sccIs ? imm(0) : lanes);
  m.emit("s_andn2_b32", VCC_LO, VCC_LO, lanes);
  m.emit("s_or_b32", VCC_LO, VCC_LO, t);
}

/** What a uniform-membermask body computes from the members M: a uniform value (v0) or a predicate decided by SCC. */
export type BodyResult = { value: MOp } | { sccIs: boolean };

/**
 * A whole routine for a uniform membermask (or none): M, the body, the contract's output.
 */
export function uniformRoutine(f: WarpForm, m: Builder, c: RuleCtx, body: (M: MOp) => BodyResult): void {
  const M = uniformMembers(f, m, c);
  const r = body(M);
  if ("value" in r) writeValue(m, r.value);
  else writePredicate(m, r.sccIs, m.layout.guard ? lo(m.layout.guard) : null);
}

/**
 * The waterfall over distinct values of a divergent membermask (the idea of match_sync.ts's
 * `.any` waterfall, over the membermask instead of `a`): each round takes the first remaining
 * lane's membermask (v_readfirstlane), the remaining lanes with that value (v_cmp_eq → k), the
 * members M = value ∩ E, runs the uniform body on M, hands the result to the remaining lanes
 * (a value: a scratch VGPR t, which lanes of later rounds overwrite; a predicate: vcc_lo's
 * bits of k), and retires k from exec; exec is restored after the last round. Exact for every
 * defined lane: its round's value is its own membermask (file comment). Guarded: the rounds
 * run over E (s_and_saveexec with the guard), guard-off lanes keep the prior d / their vcc bit.
 * Dynamic: 3 + (5 + body + out)·k (k = distinct membermask values among E), + 1 for a value.
 */
export function waterfallRoutine(m: Builder, body: (M: MOp) => BodyResult): void {
  const mm = m.src("membermask");
  if (mm.k !== "v") throw new Error("warp waterfall: membermask must be a VGPR");
  const g = m.layout.guard;
  const sv = m.mask();
  const e = m.stmp();
  const sm = m.stmp();
  const k = m.mask();
  const M = m.stmp();
  if (g) m.emit(m.w("s_and_saveexec"), sv, g);
  else m.emit(m.w("s_mov"), sv, m.exec());
  m.emit("s_mov_b32", e, EXEC_LO);
  let t: MOp | null = null;
  const loop = m.newLabel();
  m.place(loop);
  m.emit("v_readfirstlane_b32", sm, mm);
  m.emit("v_cmp_eq_u32", k, sm, mm);
  m.emit("s_and_b32", M, sm, e);
  const r = body(M);
  if ("value" in r) {
    t ??= m.vtmp();
    m.emit("v_mov_b32", t, r.value);
  } else writePredicate(m, r.sccIs, lo(k));
  m.emit(m.w("s_andn2"), m.exec(), m.exec(), k);
  m.emit("s_cbranch_scc1", { k: "label", name: loop });
  m.emit(m.w("s_mov"), m.exec(), sv);
  if (t) writeValue(m, t);
}
