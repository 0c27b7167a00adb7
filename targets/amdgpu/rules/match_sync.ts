/**
 * @fileoverview `match.any.sync` / `match.all.sync` → AMDGPU (one PTX warp per wavefront:
 * laneid i = wave lane i; on wave64 lanes 32..63 are inactive, `exec[63:32]` = 0).
 *
 * What the reference (src/sem/match_sync.ts) asks of a lane i whose result is *defined*:
 * i executes, i ∈ membermask_i, and every non-exited lane named by membermask_i executes
 * with the same membermask. Let E = the executing lanes (exec at entry, & the guard in a
 * guarded routine). For a defined lane the members are M_i = membermask_i ∩ active
 * = membermask_i ∩ E, so
 *   .any: d_i = {j ∈ E : a_j = a_i} ∩ membermask_i       (a waterfall over E, then & mask)
 *   .all: p_i = (M_i ⊆ {j ∈ E : a_j = a_i}),  d_i = p_i ? M_i : 0.
 * With a uniform membermask every defined lane has the same M = E ∩ membermask, so `.all`
 * is one ballot over exec = M, compared with exec, no loop. Exited lanes are not in exec,
 * so they drop out of every ballot — the point the old §10.3 sketch missed (it compared
 * with the membermask itself; see amdgpu.md "Corrections").
 *
 * Guarded routines (lower.ts does not wrap match): the guard is the lane mask
 * `m.layout.guard`; lanes whose guard is false keep v0 = prior d (`m.layout.dPrior`) and
 * their bit of p (vcc at entry). Every rule handles `spec.guarded` itself.
 *
 * Only the low 32 lanes matter: where a wave64 routine needs just the PTX lanes it uses the
 * 32-bit halves (`exec_lo`, `vcc_lo`, the low SGPR of a pair), which are valid on every
 * mcpu; where it changes exec it uses the wave-sized form (`m.w(...)`, `m.exec()`).
 * `s_and_saveexec_b32` exists on gfx10+ only, which are exactly the wave32 targets here.
 */
import type { MatchForm } from "../../../src/ir/forms.js";
import { formWrites } from "../../../src/ir/forms.js";
import type { OperandKind } from "../../../src/ir/ir.js";
import type { MOp } from "../minst.js";
import { imm, s } from "../minst.js";
import type { Builder } from "../routine.js";
import type { AmdRule, RuleCtx } from "./rule.js";

/** The form writes d (v0). `.any` always does; `.all` unless d is the sink. */
export const writesD = (f: MatchForm): boolean => formWrites(f).d;
/** The form writes p (vcc / vcc_lo): `.all` with `d|p` or `_|p`. */
export const writesP = (f: MatchForm): boolean => formWrites(f).p;

/** The low 32 lanes of a lane-mask operand: `s[n:n+1]` → `sn`, `vcc` → `vcc_lo`, `exec` → `exec_lo`. */
export function lo(o: MOp): MOp {
  if (o.k === "s") return s(o.n);
  if (o.k === "vcc") return { k: "vcc_lo" };
  if (o.k === "exec") return { k: "exec_lo" };
  if (o.k === "imm") return imm(o.value & 0xffffffffn);
  return o;
}

/**
 * A 32-bit membermask read as a wave-sized lane mask: itself on wave32; on wave64 an
 * immediate (its high half is don't-care, exec[63:32] = 0) or the aligned pair starting at
 * its SGPR (high SGPR don't-care, routine.ts contract). null when the SGPR is odd.
 */
function maskAsWave(m: Builder, mm: MOp): MOp | null {
  if (m.wave === 32 || mm.k === "imm") return mm;
  if (mm.k === "s" && mm.n % 2 === 0) return s(mm.n, 2);
  return null;
}

/** An immediate membermask naming all 32 lanes: `& membermask` is then the identity on d. */
const isFullImm = (k: OperandKind | undefined): boolean => k?.kind === "imm" && (k.value & 0xffffffffn) === 0xffffffffn;
const fullImm = (m: Builder): boolean => isFullImm(m.spec.kinds.membermask);
/** a is uniform: an SGPR or an immediate. */
const uniformA = (c: RuleCtx): boolean => c.spec.kinds.a?.kind === "s" || c.spec.kinds.a?.kind === "imm";
/** The membermask is uniform: an SGPR or an immediate. */
const uniformMask = (c: RuleCtx): boolean => (c.spec.kinds.membermask?.kind ?? "v") !== "v";
const EXEC_LO: MOp = { k: "exec_lo" };
const VCC_LO: MOp = { k: "vcc_lo" };

/**
 * Guarded d for a uniform a: E = exec ∩ guard, the members E ∩ mask (an s_and with a uniform
 * mask, else a v_and into a scratch VGPR), and the guard rule's select with the prior d.
 */
function guardedUniformD(m: Builder): void {
  const g = m.layout.guard!;
  const mm = m.src("membermask");
  const e = m.stmp();
  m.emit("s_and_b32", e, EXEC_LO, lo(g));
  if (mm.k !== "v") {
    if (!fullImm(m)) m.emit("s_and_b32", e, e, mm);
    m.emit("v_cndmask_b32", m.d(), m.layout.dPrior!, e, g);
  } else {
    const t = m.vtmp();
    m.emit("v_and_b32", t, e, mm);
    m.emit("v_cndmask_b32", m.d(), m.layout.dPrior!, t, g);
  }
}

/**
 * The end of the .all waterfall (match_all_divergent_via_any and its guarded form): M = the
 * lane's membermask over the lanes that execute (exec_lo), p = (the any-result t restricted to
 * M) == M into the lane mask `c`, and d = p ? M : 0 where the form writes d.
 */
function allEqualTail(f: MatchForm, m: Builder, t: MOp, mem: MOp, mm: MOp, c: MOp): void {
  m.emit("v_and_b32", mem, EXEC_LO, mm);
  m.emit("v_and_b32", t, t, mem);
  m.emit("v_cmp_eq_u32", c, t, mem);
  if (writesD(f)) m.emit("v_cndmask_b32", m.d(), imm(0), mem, c);
}

/**
 * The rounds of the waterfall over the current exec; leaves exec = 0. With `saluCopies` each
 * SGPR a VALU writes in the round is copied by a SALU before a VALU reads it: on gfx942 a
 * VALU that reads an SGPR another VALU wrote needs 2 wait states (hazards.ts
 * `valu-reads-valu-sgpr`), which a one-cycle `s_mov` (no VALU producer for the copy) avoids
 * where an `s_nop 1` would cost two.
 */
function waterfallRounds(f: MatchForm, m: Builder, ballotLanes: MOp, saluCopies = false): void {
  const a = m.src("a");
  const first = f.type === "b64" ? m.stmp(2) : m.stmp();
  const firstCopy = saluCopies ? (f.type === "b64" ? m.stmp(2) : m.stmp()) : first;
  const k = m.mask();
  const kCopy = saluCopies ? m.stmp() : lo(k);
  const loop = m.newLabel();
  m.place(loop);
  if (first.k !== "s" || a.k !== "v") throw new Error("match waterfall: a must be a VGPR");
  // readfirstlane of the remaining lanes: the value of this round.
  m.emit("v_readfirstlane_b32", s(first.n), { k: "v", n: a.n, count: 1 });
  if (f.type === "b64") m.emit("v_readfirstlane_b32", s(first.n + 1), { k: "v", n: a.n + 1, count: 1 });
  if (saluCopies && f.type === "b64" && m.wave === 64) m.emit("s_mov_b64", firstCopy, first);
  else if (saluCopies && firstCopy.k === "s") for (let i = 0; i < firstCopy.count; i++) m.emit("s_mov_b32", s(firstCopy.n + i), s(first.n + i));
  // The compare is the ballot: the remaining lanes holding that value (0 in other lanes).
  m.emit(f.type === "b64" ? "v_cmp_eq_u64" : "v_cmp_eq_u32", k, firstCopy, a);
  if (saluCopies) m.emit("s_mov_b32", kCopy, lo(k));
  // Every remaining lane gets this round's ballot; the matched ones keep it (they retire).
  m.emit("v_mov_b32", ballotLanes, kCopy);
  // Retire the matched lanes; SCC = (exec != 0) loops while lanes remain.
  m.emit(m.w("s_andn2"), m.exec(), m.exec(), k);
  m.emit("s_cbranch_scc1", { k: "label", name: loop });
}

/**
 * `.any` with a divergent a: the waterfall (see `match_any_waterfall`), its rounds with or
 * without the SALU copies of `waterfallRounds`.
 */
function anyWaterfall(f: MatchForm, m: Builder, saluCopies: boolean): void {
  const sv = m.mask();
  const t = m.vtmp();
  const g = m.layout.guard;
  if (g) m.emit(m.w("s_and_saveexec"), sv, g);
  else m.emit(m.w("s_mov"), sv, m.exec());
  waterfallRounds(f, m, t, saluCopies);
  m.emit(m.w("s_mov"), m.exec(), sv);
  const mm = m.src("membermask");
  if (!g) {
    if (fullImm(m)) m.emit("v_mov_b32", m.d(), t);
    else m.emit("v_and_b32", m.d(), mm, t);
    return;
  }
  if (!fullImm(m)) m.emit("v_and_b32", t, mm, t);
  m.emit("v_cndmask_b32", m.d(), m.layout.dPrior!, t, g);
}

export const matchRules: AmdRule<MatchForm>[] = [
  {
    name: "match_all_no_result",
    prio: 10,
    why: "`match.all.sync _, a, membermask` writes nothing. Its only remaining effect is the synchronisation, which a wavefront (lanes in lockstep) has by construction: the empty sequence is exact and free.",
    when: (f) => f.mode === "all" && f.dest === "_",
    emit: () => {},
  },
  // A uniform (SGPR or immediate) a: every executing lane holds the same value, so .any's d
  // and .all's d are both E ∩ membermask_i (E = exec, & guard), and .all's p is true in every
  // defined lane. No ballot, no loop. Five rules, one per sequence:
  //   unguarded .all, SGPR or immediate mask:   s_and_b32 vcc_lo, exec_lo, mask
  //                                             v_mov_b32 d, vcc_lo          ; vcc_lo is p too
  //   unguarded otherwise (d):                  v_and_b32 d, exec_lo, mask
  //                                             (gfx9, SGPR mask: + v_mov, one scalar per VALU op)
  //              (p, per-lane mask):            s_mov_b32 vcc_lo, -1
  //   guarded (g = guard):  s_and_b32 e, exec_lo, g_lo   ; E
  //                         d: v_cndmask_b32 d, prior, (e & mask), g
  //                         p: s_or_b32 vcc_lo, vcc_lo, g_lo   ; guard-off lanes keep p
  {
    name: "match_uniform_value_all_uniform_mask",
    prio: 5,
    why: "Unguarded .all with a uniform a and an SGPR or immediate membermask: every member holds the same value, so p is true and d is the members M = exec ∩ mask in every defined lane. One s_and computes M straight into p's register (vcc_lo, or a scratch SGPR when p is sunk) and d is its copy: no ballot, no loop.",
    when: (f, c) => f.dest !== "_" && uniformA(c) && !c.spec.guarded && f.mode === "all" && uniformMask(c),
    emit: (f, m) => {
      const t = writesP(f) ? VCC_LO : m.stmp();
      m.emit("s_and_b32", t, EXEC_LO, m.src("membermask"));
      if (writesD(f)) m.emit("v_mov_b32", m.d(), t);
    },
  },
  {
    name: "match_uniform_value",
    prio: 5,
    why: "Unguarded, uniform a, and .any or .all with a per-lane membermask: d = exec ∩ membermask_i per lane is one v_and (a v_mov when the mask names all 32 lanes), and .all's p, true in every defined lane, is one s_mov of -1 into vcc_lo. Loop-free; the cheapest rule for a uniform a.",
    when: (f, c) => f.dest !== "_" && uniformA(c) && !c.spec.guarded && !(f.mode === "all" && uniformMask(c)),
    emit: (f, m) => {
      if (writesD(f)) {
        if (fullImm(m)) m.emit("v_mov_b32", m.d(), EXEC_LO);
        else m.emit("v_and_b32", m.d(), EXEC_LO, m.src("membermask"));
      }
      if (writesP(f)) m.emit("s_mov_b32", VCC_LO, imm(-1));
    },
  },
  {
    name: "match_uniform_value_guarded_d",
    prio: 5,
    why: "Guarded, uniform a, a form that writes d only: E = exec ∩ guard (s_and), the members E ∩ mask in the guarded-on lanes, and v_cndmask gives the lanes whose guard is false their prior d (the guard rule). Loop-free.",
    when: (f, c) => uniformA(c) && c.spec.guarded && writesD(f) && !writesP(f),
    emit: (_f, m) => guardedUniformD(m),
  },
  {
    name: "match_uniform_value_guarded_p",
    prio: 5,
    why: "Guarded .all, uniform a, d sunk (_|p): p is true in every executing defined lane and guard-off lanes keep their bit, so p = prior p | guard: one s_or into vcc_lo.",
    when: (f, c) => uniformA(c) && c.spec.guarded && writesP(f) && !writesD(f),
    emit: (_f, m) => m.emit("s_or_b32", VCC_LO, VCC_LO, lo(m.layout.guard!)),
  },
  {
    name: "match_uniform_value_guarded_dp",
    prio: 5,
    why: "Guarded .all, uniform a, d|p: the guarded d sequence of match_uniform_value_guarded_d, then p = prior p | guard (s_or), the two results written together.",
    when: (f, c) => uniformA(c) && c.spec.guarded && writesD(f) && writesP(f),
    emit: (_f, m) => {
      guardedUniformD(m);
      m.emit("s_or_b32", VCC_LO, VCC_LO, lo(m.layout.guard!));
    },
  },
  {
    name: "match_any_waterfall",
    prio: 0,
    why: ".any with a divergent a: a waterfall over the executing lanes, one round per distinct value, each balloting the remaining lanes equal to the first one's value and retiring them; then the membermask per lane. Exact for every defined lane (file comment); the general .any rule on every processor but gfx942.",
    // .any with a divergent a: a waterfall over the executing lanes. Each round takes the
    // first remaining lane's value (v_readfirstlane), ballots the remaining lanes equal to
    // it (v_cmp_eq, 0 in inactive lanes), hands that ballot to them, and retires them from
    // exec; after k rounds (k distinct values) exec is empty. Then exec is restored and the
    // membermask applied per lane, which is exact for every defined lane (see the file
    // comment). d = v0 aliases a (b32), so the rounds write a scratch VGPR t.
    //     s_mov_b64           sv, exec            ; guarded: s_and_saveexec_b64 sv, g
    //   L:
    //     v_readfirstlane_b32 sl, a               ; b64: two, into s[l:l+1]
    //     v_cmp_eq_u32_e64    k, sl, a            ; b64: v_cmp_eq_u64_e64 k, s[l:l+1], a
    //     v_mov_b32           t, k_lo
    //     s_andn2_b64         exec, exec, k       ; SCC = exec != 0
    //     s_cbranch_scc1      L
    //     s_mov_b64           exec, sv
    //     v_and_b32           d, mask, t          ; guarded: t &= mask; v_cndmask d, prior, t, g
    // Dynamic: 3 + 5k (b64: 3 + 6k); guarded 4 + 5k. Wave32: the _b32 forms, exec_lo.
    when: (f, c) => f.mode === "any" && (c.spec.kinds.a?.kind ?? "v") === "v",
    emit: (f, m) => anyWaterfall(f, m, false),
  },
  {
    name: "match_any_waterfall_salu_copy",
    prio: 0,
    why: "The same waterfall with each VALU-written SGPR copied by a SALU before the next VALU reads it: exact for the same reason (an s_mov copies the value). On gfx942 it replaces the two 2-cycle waits per round by two 1-cycle copies and wins there; elsewhere the copies only cost, so it is shadowed (and still checked).",
    // The waits it replaces on gfx942: v_readfirstlane → v_cmp and v_cmp → v_mov, 2 each.
    //   L:  v_readfirstlane_b32 sl, a ; s_mov_b32 sc, sl ; v_cmp_eq_u32_e64 k, sc, a
    //       s_mov_b32 kc, k_lo ; v_mov_b32 t, kc ; s_andn2_b64 exec, exec, k ; s_cbranch_scc1 L
    // Dynamic: 3 + 7k (b64: 3 + 8k) cycles on every processor, no waits inside the loop.
    when: (f, c) => f.mode === "any" && (c.spec.kinds.a?.kind ?? "v") === "v",
    emit: (f, m) => anyWaterfall(f, m, true),
  },
  {
    name: "match_all_full_mask",
    prio: 2,
    why: "Unguarded .all, divergent a, an immediate membermask naming all 32 lanes: the members are exactly exec, so one ballot against the first lane's value, compared with exec, gives p and d's mask with no exec change at all: 5 instructions, the cheapest .all.",
    //   v_readfirstlane_b32 sl, a           ; b64: two
    //   v_cmp_eq_u32_e32    vcc, sl, a      ; the ballot
    //   s_cmp_eq_u64        vcc, exec       ; all executing lanes agree?
    //   s_cselect_b64       vcc, exec, 0    ; p (true in every executing lane) and d's mask
    //   v_mov_b32           d, vcc_lo
    // 5 (b64: 6); wave32: s_cmp_eq_u32 / s_cselect_b32 on vcc_lo, exec_lo.
    when: (f, c) => f.mode === "all" && f.dest !== "_" && (c.spec.kinds.a?.kind ?? "v") === "v" && !c.spec.guarded && isFullImm(c.spec.kinds.membermask),
    emit: (f, m) => allBallot(f, m, m.vcc()),
  },
  {
    name: "match_all_uniform_saveexec",
    prio: 1,
    why: "Unguarded .all, divergent a, uniform (SGPR or immediate) membermask: s_and_saveexec makes exec the executing members M (exited lanes are not in E); one ballot over M equals M iff all members agree, and d = p-mask = SCC ? M : 0 is right in every defined lane. Unlike the corrected sketch in amdgpu.md, p and d share that one select, so SCC need not survive the exec restore. Loop-free: 7 (b64: 8).",
    //   s_and_saveexec_b64  sv, mask        ; exec = M, sv = exec
    //   v_readfirstlane_b32 sl, a           ; b64: two
    //   v_cmp_eq_u32_e32    vcc, sl, a      ; ballot over M
    //   s_cmp_eq_u64        vcc, exec
    //   s_cselect_b64       vcc, exec, 0    ; p, and d's mask
    //   s_mov_b64           exec, sv
    //   v_mov_b32           d, vcc_lo
    // Wave32: the _b32 forms on exec_lo / vcc_lo (gfx10+ has the b32 saveexec). A wave64 mask
    // in an odd SGPR (no aligned pair to read) is applied as s_mov sv, exec ; s_and exec_lo.
    when: (f, c) => f.mode === "all" && f.dest !== "_" && (c.spec.kinds.a?.kind ?? "v") === "v" && uniformMask(c) && !c.spec.guarded,
    emit: (f, m) => {
      const mm = m.src("membermask");
      const sv = m.mask();
      const wide = maskAsWave(m, mm);
      if (wide) m.emit(m.w("s_and_saveexec"), sv, wide);
      else {
        m.emit(m.w("s_mov"), sv, m.exec());
        m.emit("s_and_b32", EXEC_LO, EXEC_LO, mm);
      }
      allBallot(f, m, m.vcc(), () => m.emit(m.w("s_mov"), m.exec(), sv));
    },
  },
  {
    name: "match_all_uniform_saveexec_guarded",
    prio: 1,
    why: "Guarded .all, divergent a, uniform membermask: the loop-free ballot of match_all_uniform_saveexec over the members of the guarded-on lanes (s_and_saveexec with the guard, then & mask), its result in an SGPR mask e and d written before the restore; then the guard rule: guard-off lanes get the prior d back and keep their bit of p. Loop-free: 11 (b64: 12).",
    //   s_and_saveexec_b64 sv, g ; s_and_b32 exec_lo, exec_lo, mask ; <ballot into e> ;
    //   v_mov d, e_lo ; s_mov_b64 exec, sv
    //   v_cndmask_b32 d, prior, d, g ; s_andn2_b64 vcc, vcc, g ; s_or_b64 vcc, vcc, e
    when: (f, c) => f.mode === "all" && f.dest !== "_" && (c.spec.kinds.a?.kind ?? "v") === "v" && uniformMask(c) && c.spec.guarded,
    emit: (f, m) => {
      const mm = m.src("membermask");
      const sv = m.mask();
      const g = m.layout.guard!;
      m.emit(m.w("s_and_saveexec"), sv, g);
      if (!fullImm(m)) m.emit("s_and_b32", EXEC_LO, EXEC_LO, mm);
      const e = m.mask();
      allBallot(f, m, e, () => m.emit(m.w("s_mov"), m.exec(), sv), true);
      guardTail(f, m, e);
    },
  },
  {
    name: "match_all_divergent_via_any",
    prio: 0,
    why: "Unguarded .all with a per-lane membermask (also valid for a uniform one): the .any waterfall's unmasked ballot B_i = {j ∈ E : a_j = a_i}, then per lane M = mask & E, p = ((B & M) == M) and d = p ? M : 0. The general unguarded .all rule; the loop-free rules win wherever they apply. 6 + 5k (b64: 6 + 6k).",
    //     s_mov_b64 sv, exec
    //     <waterfall rounds into t>               ; 5k (b64: 6k)
    //     s_mov_b64 exec, sv
    //     v_and_b32 m, exec_lo, mask              ; M
    //     v_and_b32 t, t, m                       ; B & M
    //     v_cmp_eq_u32_e32 vcc, t, m              ; p
    //     v_cndmask_b32 d, 0, m, vcc              ; d
    // Wave32: _b32 forms.
    when: (f, c) => f.mode === "all" && f.dest !== "_" && (c.spec.kinds.a?.kind ?? "v") === "v" && !c.spec.guarded,
    emit: (f, m) => {
      const mm = m.src("membermask");
      const sv = m.mask();
      const t = m.vtmp();
      const mem = m.vtmp();
      m.emit(m.w("s_mov"), sv, m.exec());
      waterfallRounds(f, m, t);
      m.emit(m.w("s_mov"), m.exec(), sv);
      allEqualTail(f, m, t, mem, mm, m.vcc());
    },
  },
  {
    name: "match_all_divergent_via_any_guarded",
    prio: 0,
    why: "Guarded .all, per-lane (or any) membermask: match_all_divergent_via_any over the guarded-on lanes (s_and_saveexec with the guard, the executing set saved in se for M), p into an SGPR mask c, then exec restored and the guard rule: guard-off lanes get the prior d back and keep their bit of p. The general guarded .all rule. 11 + 5k.",
    //     s_and_saveexec_b64 sv, g ; s_mov_b64 se, exec
    //     <waterfall rounds into t> ; s_mov_b64 exec, se
    //     v_and_b32 m, exec_lo, mask ; v_and_b32 t, t, m ; v_cmp_eq_u32_e64 c, t, m
    //     v_cndmask_b32 d, 0, m, c ; s_mov_b64 exec, sv ; v_cndmask_b32 d, prior, d, g
    //     s_andn2_b64 vcc, vcc, g ; s_or_b64 vcc, vcc, c
    when: (f, c) => f.mode === "all" && f.dest !== "_" && (c.spec.kinds.a?.kind ?? "v") === "v" && c.spec.guarded,
    emit: (f, m) => {
      const mm = m.src("membermask");
      const g = m.layout.guard!;
      const sv = m.mask();
      const se = m.mask();
      const t = m.vtmp();
      const mem = m.vtmp();
      m.emit(m.w("s_and_saveexec"), sv, g);
      m.emit(m.w("s_mov"), se, m.exec());
      waterfallRounds(f, m, t);
      m.emit(m.w("s_mov"), m.exec(), se);
      const c = m.mask();
      allEqualTail(f, m, t, mem, mm, c);
      m.emit(m.w("s_mov"), m.exec(), sv);
      guardTail(f, m, c);
    },
  },
];

/**
 * The loop-free .all core over the current exec (the members): ballot into `p`, compare
 * with exec, `p = SCC ? exec : 0`, then `restore()` (if any) and d. With `dBeforeRestore`
 * d is written while exec is still the members (the guarded tail fixes the other lanes).
 */
function allBallot(f: MatchForm, m: Builder, p: MOp, restore?: () => void, dBeforeRestore = false): void {
  const a = m.src("a");
  if (a.k !== "v") throw new Error("match .all ballot: a must be a VGPR");
  const first = f.type === "b64" ? m.stmp(2) : m.stmp();
  if (first.k !== "s") throw new Error("match .all ballot: scratch is not an SGPR");
  m.emit("v_readfirstlane_b32", s(first.n), { k: "v", n: a.n, count: 1 });
  if (f.type === "b64") m.emit("v_readfirstlane_b32", s(first.n + 1), { k: "v", n: a.n + 1, count: 1 });
  m.emit(f.type === "b64" ? "v_cmp_eq_u64" : "v_cmp_eq_u32", p, first, a);
  m.emit(m.wave === 64 ? "s_cmp_eq_u64" : "s_cmp_eq_u32", p, m.exec());
  m.emit(m.w("s_cselect"), p, m.exec(), imm(0));
  if (dBeforeRestore && writesD(f)) m.emit("v_mov_b32", m.d(), lo(p));
  restore?.();
  if (!dBeforeRestore && writesD(f)) m.emit("v_mov_b32", m.d(), lo(p));
}

/**
 * Guarded .all tail, after exec is restored: `res` is a lane mask holding p in every defined
 * lane and 0 in every lane outside the executing set; v0 holds d in the executing lanes.
 * Guard-off lanes get the prior d back and keep their bit of vcc.
 */
function guardTail(f: MatchForm, m: Builder, res: MOp): void {
  const g = m.layout.guard!;
  if (writesD(f)) m.emit("v_cndmask_b32", m.d(), m.layout.dPrior!, m.d(), g);
  if (writesP(f)) {
    m.emit(m.w("s_andn2"), m.vcc(), m.vcc(), g);
    m.emit(m.w("s_or"), m.vcc(), m.vcc(), res);
  }
}
