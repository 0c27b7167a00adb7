/**
 * @fileoverview The inductive proof of a compiled warp-level function's one loop (issue 15
 * item 5): clang's / llc's per-thread fold for redux.sync (./prove_compiled_warp.ts's contract
 * and conditions; the reference src/sem/warp.ts). The loop walks a lane mask L in an SGPR pair
 * (s_ff1 / v_readlane / s_and L, L & (L − 1)), and every thread accumulates, in a VGPR, the
 * value read when the lane is one of its own members (v_cndmask on its member bit). Neither
 * targets/amdgpu/prove/warp_loop.ts's `foldLoopLemma` (a 32-bit mask and an SGPR accumulator
 * over the AMDGPU routine contract) nor the waterfall's induction fits: the mask is 64 bits
 * (the wave's exec, both CUDA warps' lanes on wave64), the accumulator is per thread.
 *
 * The shape, recognised from the instructions (`compiledLoopShape`): B is the lowest label a
 * back-edge jumps to, the loop region the lines from B to the last back-edge, and every
 * back-edge lies in the region (one back-edge in the integer loops; llc's `.f32` loop has two:
 * the test at the bottom jumps back to the body's top B, and its exit path back to the latch
 * above it). The region writes no exec and issues no DS instruction; the registers it reads
 * before it writes them (in line order, which is the order a trip from B runs them: a path from
 * B back to B runs only region lines, since every back-edge is in the region and jumps into it)
 * are the SGPR pair `mem` the region's s_ff1_i32_b64 reads, the accumulator `acc` (one VGPR,
 * or with no VGPR one SGPR: clang's wave32 code for the `sgpr` variant, whose uniform
 * membermask gives every thread the same fold) and any number of lane masks (the other SGPRs;
 * on wave64 the even-aligned pair holding one). Both the rotated loop llc emits (entry
 * `s_branch` to a test at the bottom, the back-edge to the body's top) and clang's do-while (a
 * guard, then the body ending in the back-edge) have it. Which registers these are only picks
 * the invariant's terms: every claim below is a query, so a wrong pick is an `unknown`, never a
 * false proof.
 *
 * Cutting the loop at B. The lines are instrumented (never changed otherwise): B's label is
 * followed by `s_mov_b32 sM, 1; s_branch END` (sM a marker SGPR above every register the
 * lines name, 0 at the start; END the end of the code). `entry` runs them from the function's
 * entry (the inputs of ./prove_compiled_warp.ts `compiledWarpSetup`); `trip` runs them from B
 * (a leading `s_branch` past B's stub): each path ends either at the stub (sM = 1: it came back
 * to B, one trip) or at the function's end (sM = 0: it left the loop). Paths are merged
 * (targets/amdgpu/prove/paths.ts `execPaths`); sM tells them apart, and where sM = 1 the merged
 * state is the state at B.
 *
 * The invariant. S_B = the state at the first arrival at B (`entry`, sM = 1), L0 = its mem.
 * For lane t of CUDA warp h (wave lane 32h + t), active_t its exec bit, G_t its members
 * (src/sem/members.ts `membership`: membermask bit j ∧ active_j, at wave positions 32h + j),
 * REF(G) the reference's own fold over a lane set (warp_loop.ts `refOver`: nothing of the
 * operation is restated) and G_t<l = G_t ∩ [0, l) (wave positions). J_l (l = 0 .. wave − 1):
 * bit l of L0 set, mem = L0 ∩ [l, wave), acc = REF(G_t<l) in every active lane t, every register
 * the region writes other than mem and acc (and vcc, scc) arbitrary, every other register,
 * exec and LDS as in S_B. The accumulator is claimed in every active lane, not only where d is
 * defined: the thread folds its own members whatever the others' membermasks (a stronger claim,
 * and the reference's well-formedness stays out of the step queries, which it slowed).
 * The accumulator's claim is the reference's fold state, not its d, where they differ: for
 * `.f32`, src/sem/warp.ts `reduceF32State`'s acc over G_t<l (the best number so far, 0x7fffffff
 * before one), whose d the code makes at the exit from it and two flags, as the reference
 * does; for the integer forms REF(G_t<l) itself.
 *
 * Lane-mask facts (the `.f32` loops). The code keeps the fold's flags as lane masks (bit t:
 * thread t's), and copies of them whose bits outside exec it preserves. A fact about a mask
 * register R is one of: "bit t of R = haveNumber of the fold state over G_t<l" (`have`), "…
 * = sawNaN" (`saw`), in every active lane t; "R's bits outside exec are S_B's" (`keep`).
 * Which facts hold is found, not assumed: every candidate (`keep` for every mask, and `have`
 * and `saw` for `.f32`) is asked at the entry (with G_t<l0 = ∅ by (M), as for acc), and then
 * Houdini: for each trip index, each fact must hold after the trip under all the current facts
 * (as hypotheses on the trip's start, beside J_l's other claims); a fact that does not is
 * dropped, and the trips checked under a larger set are checked again, until every trip holds
 * every fact left under exactly those facts — they are then carried by every trip, so J_l with
 * them is inductive. They are hypotheses of every later query of the
 * trip (per lane: that lane's bit). A fact that is needed but dropped leaves a later query
 * failing: `unknown`.
 *
 * The queries:
 *   (E) from the entry: where no path reaches B the conditions hold at the end; where one does,
 *       L0 ≠ 0, every active lane's members lie in L0 (M), and acc = REF(∅) in every active lane
 *       — which is J_l for l = ff1(L0), since by (M) no member lies below ff1(L0);
 *   (R) REF(G_t) is the reference's d of lane t wherever that is defined (one query);
 *   (T_l) for each l with bit l of L0 possibly set, one trip from J_l (assuming (M)): where it
 *       comes back to B, mem' = L0 ∩ [l + 1, wave) ≠ 0 (one query) and acc' = REF(G_t<l+1) (one
 *       query per lane); where it leaves, no active lane has a member above l (a query: L0 has
 *       none, by (M)) and, per lane, d = REF(G_t<l+1), which is then REF(G_t) (the same set: a
 *       function of equal arguments) — the reference's d by (R); then exec, LDS (one query).
 * Then every arrival at B satisfies J_l for l = ff1(mem) (by induction over the trips: a trip
 * from J_l that comes back has mem' = L0 ∩ [l', wave) for l' = ff1(mem') > l, because L0 has no
 * bit in [l + 1, l'), and by (M) no member lies there either, so G_t<l+1 = G_t<l' — J_{l'}); l
 * grows each trip, so there are at most `wave` trips; every way out of the loop (T_l's, or
 * (E)'s without it) satisfies the conditions. The havocked registers make J_l cover every real
 * state at B (it claims nothing of them), so each query is over a superset of the reachable
 * states: a proof is a proof; a failing query is `unknown` (not a counterexample: the caller's
 * unrolled bug-finder refutes).
 *
 * Bit-level terms (`bitLevelView`). The trips run on a view of the solver's term algebra that
 * remembers, for the terms it builds by or / and / not / ite / concat / extract / zext / shl by
 * a constant, each bit as a Bool term (and constants' bits), and answers `bitAt` with it. Each
 * such Bool is that bit of the term by the operation's own bitwise definition, so nothing
 * changes in meaning; what changes is the terms: a lane's read of a VOPC mask is that lane's
 * compare (not an extract of every lane's), and J_l's mem, built as L0 ∩ [l + 1, wave) ∪ {l},
 * has bits below l known 0 and bit l known 1 — so the trip's s_ff1 is the constant l and its
 * v_readlane reads lane l. Without it every lane's query held all 32 lanes' terms and timed out.
 *
 * Lane-sliced queries. Two changes make a lane's query of a trip hold that lane's
 * terms alone and no fold. (1) The known-bits view fills: a bitwise operation with one
 * operand's bits known spells every bit of its result (a bit not known is an extract of its own
 * operand), so lane t's bit of `s_or_b64 s[0:1], s[0:1], s[6:7]` with s[0:1] havocked is lane
 * t's compare, not an extract of a term over every lane's; the lane-mask facts read lane t's bit
 * through it too. (2) Generalized queries (`generalized`): the lane's fold state over G_t<l
 * (REF, or `.f32`'s acc / haveNumber / sawNaN) is replaced in the query by fresh symbols
 * (z3 `substitute`), the lane's own, and the query is asked first that way, then as it is. A
 * term replaced by a fresh symbol is a generalization: a model of the query is one of the
 * generalized query with the symbol set to the term's value, so unsat there is unsat here. It
 * proves because the reference's state over G_t<l+1 is built from its state over G_t<l (a left
 * fold: src/sem/warp.ts), so the claim becomes "the code's step and the reference's step agree
 * from any state", with no 32-step fold to bit-blast. Neither alone helps (clang's gfx1100
 * redux.add.u32, sgpr: fill only 804 s, generalization only 768 s, both 35–53 s).
 *
 * One symbolic trip (`symbolicTrip`, asked first). The trips T_l differ only in l, so one trip
 * proves them all when l is a symbol: l < wave, bit l of L0 set, mem = L0 ∩ [l, wave) (no bit
 * known: the trip's s_ff1 is a priority encoder of it, its v_readlane a choice among the
 * lanes), and each active lane's fold state over G_t<l a fresh symbol S_t (the generalization
 * above, taken from the start). The claim of a trip is then the reference's own step: acc' =
 * step(S_t, a at lane l, lane l ∈ G_t) with src/sem/warp.ts `reduceIntStep` / `reduceF32Step`,
 * the functions its fold is made of (the fold over G_t<l+1 is the step over lane l from the
 * fold over G_t<l: the fold runs the steps in lane order and a step over a non-member returns
 * the state it was given), the flags' lane-mask facts the same, and the exit's d is
 * `reduceF32Result` of the stepped state (REF(G_t) when no member is above l; (R) below). What
 * the trips T_l need of each other is what they needed before: the state at l' (the next bit
 * of L0) is the state at l + 1, since by (M) no member lies between. Where a query of it does
 * not prove (a step that needs more than "the state is any state": clang's `.f32` loop with an
 * SGPR accumulator before the shared symbols below), the trips are asked one l at a time as
 * below. These things make its queries small: (a) a lemma, one query, that the trip's s_ff1 of
 * mem is l under the hypotheses every query of the trip has; the queries then have that term
 * replaced by l (an equal term under their own hypotheses: the same models), so no query
 * bit-blasts the priority encoder against the lane choices again (clang's gfx1100
 * redux.min.f32 lane queries 34 s → 6 s in all); (e) likewise a lemma that the trip's
 * v_readlane of lane s_ff1 (from a VGPR the loop does not write) is a at lane l, the
 * reference's term, which then replaces it: the lane queries no longer choose among the 64
 * lanes' a twice (the code's choice and the reference's) — clang's gfx900 redux.xor.b32,
 * vgpr, two warps: 128 lane queries 79 s → 13 s (the term is the interpreter's: the
 * v_readlane run alone with the s_ff1 term as its lane select); (b) the flag facts asked
 * lane by lane under that lane's bit and the keep facts alone (such a fact is inductive whatever other flag fact
 * is dropped, so Houdini does not ask it again), the whole wave only where a lane's does not
 * prove; (c) lanes of a warp whose members are the same terms (a uniform membermask) share one
 * fold-state symbol — the same term, so one symbol is still a generalization — which is what
 * clang's uniform `.f32` code needs (one flag bit for every lane); (d) the state's bits that
 * every state of the fold has (Houdini over the start state's bits — acc's 32 and the flags —
 * on the reference's step alone, from any state with the bits left, by any lane's a, member
 * or not) hold of the fresh symbols too: `.abs` keeps acc's sign bit 0, which clang's gfx9
 * `.abs` code relies on when it makes acc's key (clang's gfx900 redux.max.abs.NaN.f32, vgpr,
 * two warps: 560 s by the trips, 50 s so), and an immediate a that is not a NaN keeps "a NaN
 * was seen" false, which clang's code for it no longer tracks (the same with a = 5 and
 * membermask 0xffff: 612 s by the trips, 18 s); (f) one query per lane for all of that
 * lane's claims — `.f32`'s flag facts' bits, acc on the way back, d at the exit — its bad their
 * disjunction, under the lane's own hypotheses (the keep facts, proved first on their own, in
 * one query where it proves; the
 * lane's bits of the flag facts whose lane-0 bit is inductive alone, the candidates; an SGPR
 * accumulator's claim for the lane). Every lane unsat makes the keep facts, the candidates and
 * acc an inductive invariant (each lane's claims follow from that invariant at the trip's
 * start, of which its hypotheses are a part); where a lane's is not unsat, the separate
 * queries decide as before. The lane-specific part of a query (the lane's membership test
 * against the reference's, at a symbolic l) is most of its cost, and the joint query pays it
 * once, not four times: clang's gfx900 redux.max.abs.NaN.f32, sgpr, two warps 318 queries /
 * 39 s → 126 / 23 s of CPU, llc's gfx942 redux.min.abs.f32, sgpr, two warps 26 s → 16 s,
 * llc's gfx1100 redux.max.NaN.f32 16.5 s → 10.3 s; the keep facts in one query, not one
 * each: the first of these 23 s → 15 s. The integer loops' two claims joined, two runs each:
 * clang's gfx900 redux.xor.b32, vgpr, two warps 16.5 / 15.1 s → 11.9 / 12.7 s of CPU, clang's
 * gfx942 redux.max.u32, sgpr 14.6 / 13.9 s → 10.7 / 9.6 s, llc's gfx900 redux.and.b32, sgpr
 * 12.1 / 10.8 s → 8.0 / 8.1 s, but llc's gfx942 redux.add.u32, vgpr 15.3 / 12.6 s → 16.0 /
 * 15.3 s: redux.add keeps the separate queries (a cost rule). Measured on this 2-core
 * machine, nothing else running (queries / wall; the trips one l at a time in brackets):
 * clang's gfx1100 redux.add.u32, sgpr 70 / 12 s (23 s); redux.min.f32, vgpr 83 / 10 s (50 s);
 * redux.min.f32, sgpr 149 / 30 s (161 s); llc's gfx1100 redux.max.NaN.f32 118 / 9 s; clang's
 * gfx942 redux.min.f32, vgpr, two warps 210 / 36 s (346 s; ~25 min before the release of
 * trips' terms); clang's gfx900 redux.add.u32 with an immediate a, two warps 134 / 11 s (144 s).
 *
 * Releasing a trip's terms (`forgetTrip`). z3's check costs more the more terms are alive, and
 * the filled bits and generalized copies of every trip, held to the proof's end, made every
 * query of a wave64 two-warps proof take ~1.2 s (3.4 GB; clang's gfx942 redux.min.f32; clang's
 * gfx900 redux.add.u32 with an immediate a, two warps, 132 s → 566 s). So once a trip is
 * checked its terms are dropped (rebuilt if a later pass asks again) and the solver's released
 * when enough are held: possible mid-proof since src/check/smt.ts defers z3-solver's
 * finalizers while a check runs (before that, a release mid-proof crashed z3-solver: "memory
 * access out of bounds").
 *
 * Cost (measured 2026-12-05 on this project's 2-core machine, one or two other proofs beside
 * it; `PROVE_DEBUG=1` prints each query; queries / wall):
 *   - llc's gfx1100 redux.add.u32, vgpr, one warp: 2,114 / 26 s (the test);
 *   - clang's gfx900 redux.add.u32 with an immediate a, vgpr, two warps: 8,322 / 132 s;
 *   - clang's gfx1100 redux.add.u32, sgpr (the SGPR accumulator): 2,114 / 731 s — its lane
 *     queries take 0.3–2.7 s where the VGPR accumulator's take ~15 ms (the accumulator's
 *     claim a hypothesis per lane; running each lane's trip from ite(on_t, REF, havoc) instead
 *     was measured no faster);
 *   - clang's gfx1100 redux.min.f32, vgpr: 2,313 / 208 s (facts: s1 = a number was taken);
 *     sgpr: 2,184 / 166 s; redux.max.NaN.f32, vgpr: 2,512 / 296 s (s4 = taken, s1 = NaN seen);
 *   - llc's gfx1100 redux.min.f32 (two back-edges), vgpr: 2,315 / 193 s;
 *   - a broken clang min.f32 loop: not proved at the second trip, then refuted, 20 s.
 *   With lane-sliced queries, wave32 only and no release (the same machine, two or three
 *   other jobs beside): llc's redux.add.u32, vgpr 2,114 / 31 s; clang's redux.add.u32, sgpr
 *   2,114 / 53–74 s; clang's redux.min.f32, vgpr 2,220 / 64–70 s; clang's redux.max.NaN.f32,
 *   vgpr 71 s; but clang's redux.min.f32, sgpr 2,633 / 228 s — slower than without (its acc
 *   queries do not prove generalized: the SGPR accumulator's step needs more of the fold state
 *   than the claim).
 *   With the release too, every wave (one other job beside): clang's gfx1100 redux.add.u32,
 *   sgpr 2,114 / 23 s (389 MB); redux.min.f32, vgpr 2,220 / 50 s; clang's gfx942
 *   redux.min.f32, vgpr, two warps 8,524 / 346 s (699 MB; ~25 min before); clang's gfx900
 *   redux.add.u32 with an immediate a, two warps 8,322 / 144 s (538 MB).
 * Two changes made the per-lane queries cheap: the reference's fold over a lane set builds one
 * lane, not 32 (src/sem/warp.ts `warpLevel`'s `which`), and each lane's REF(G_t<l) is built
 * once; and they are asked under the light hypotheses first (`askLane`). Every compiled redux
 * loop of the matrix has this shape (238 functions per kind × processor, measured with
 * `compiledLoopShape` over the matrix's compiles on all five processors), but at minutes each
 * the induction is too slow to run on every prove:all, so ./prove_compiled_warp.ts runs it
 * only when asked (`induction: true`; prove:all `--compiled-induction`).
 */
import type { WarpForm } from "../../src/ir/warp_forms.js";
import { membership } from "../../src/sem/members.js";
import { reduceF32Result, reduceF32State, reduceF32Step, reduceIntStep } from "../../src/sem/warp.js";
import type { Bad, Verdict } from "../../src/check/prove_types.js";
import { symbolicInit } from "../../src/check/prove_types.js";
import { LANES } from "../../src/check/prove_warp.js";
import type { Bool, BitVec, Z3Env } from "../../src/check/smt.js";
import { solve } from "../../src/check/smt.js";
import type { WaveState } from "../amdgpu/interp.js";
import { InterpError } from "../amdgpu/interp.js";
import { record } from "../amdgpu/isa/index.js";
import { ff1 } from "../amdgpu/isa/util.js";
import type { MInst, MLine } from "../amdgpu/minst.js";
import { imm, isLabel, s } from "../amdgpu/minst.js";
import { cloneState, execPaths } from "../amdgpu/prove/paths.js";
import { flow, refOver } from "../amdgpu/prove/warp_loop.js";
import type { Mcpu } from "../amdgpu/regs.js";
import { TARGETS } from "../amdgpu/regs.js";
import type { CompiledFunction } from "./compiled.js";
import type { CompiledSetup, CompiledWarpLayout } from "./prove_compiled_warp.js";
import { compiledWarpBads, compiledWarpSetup, registerEnds } from "./prove_compiled_warp.js";

type Line = Exclude<MLine, { label: string }>;

/** A lane-mask fact's kind (file comment): bit t = the fold state's haveNumber / sawNaN over G_t<l, or the bits outside exec kept. */
type FlagKind = "have" | "saw";
interface Fact {
  reg: number;
  kind: FlagKind | "keep";
}
const showFact = (x: Fact): string => `s${x.reg} ${x.kind === "keep" ? "keeps its bits outside exec" : x.kind === "have" ? "= a number was taken" : "= a NaN was seen"}`;

/** Which carried register is the accumulator, and the lane masks that are left. */
export interface AccChoice {
  acc: number;
  accSgpr: boolean;
  masks: number[];
}

/** The loop of `compiledLoopShape`: B's line index, the back-edge's, the carried registers. */
export interface CompiledLoop {
  b: number;
  k: number;
  label: string;
  /** mem: the SGPR pair s[mem:mem+1]; acc: the accumulator's register number, a VGPR or (`accSgpr`) an SGPR. */
  mem: number;
  acc: number;
  /** The accumulator is one SGPR (clang's wave32 code for uniform arguments), not a VGPR. */
  accSgpr: boolean;
  /**
   * The other carried SGPRs, as lane masks of the wave (their first SGPR; on wave64 the
   * even-aligned pair): the `.f32` loops' "a number was taken" / "a NaN was seen" masks and
   * their copies (file comment, "Lane-mask facts").
   */
  masks: number[];
  /** Every choice of accumulator (the fields above are the first). */
  choices: AccChoice[];
  /** Registers the region writes (warp_loop.ts `flow` keys: `s4`, `v5`, `vcc`). */
  written: Set<string>;
}

/**
 * The compiled loop's shape (file comment), or why the lines do not have it. Null when the
 * lines have no back-edge.
 */
export function compiledLoopShape(lines: readonly MLine[], wave: 32 | 64): CompiledLoop | string | null {
  const labels = new Map(lines.flatMap((l, i) => (isLabel(l) ? [[l.label, i] as const] : [])));
  const back: { k: number; b: number }[] = [];
  lines.forEach((l, i) => {
    if (isLabel(l) || !("branch" in record(l.op).sem)) return;
    const to = l.ops[0]?.k === "label" ? labels.get(l.ops[0].name) : undefined;
    if (to !== undefined && to <= i) back.push({ k: i, b: to });
  });
  if (back.length === 0) return null;
  // B: the lowest back-edge target; the region ends at the last back-edge, and every other
  // back-edge lies in it and jumps into it (llc's `.f32` loop: the latch's test jumps back to
  // the body's top, the exit path back to the latch).
  const b = Math.min(...back.map((x) => x.b));
  const k = Math.max(...back.map((x) => x.k));
  const region = lines.slice(b + 1, k + 1).filter((l): l is Line => !isLabel(l));
  const fl = flow(region);
  if (fl.ds) return "the loop issues a DS instruction";
  if (fl.written.has("exec")) return "the loop writes exec";
  const carried = [...fl.readFirst].filter((x) => fl.written.has(x));
  const sg = carried.filter((x) => /^s\d+$/.test(x)).map((x) => Number(x.slice(1))).sort((x, y) => x - y);
  const vg = carried.filter((x) => /^v\d+$/.test(x)).map((x) => Number(x.slice(1)));
  const other = carried.filter((x) => !/^[sv]\d+$/.test(x));
  const why = `the loop carries ${carried.join(", ") || "nothing"}, not a mask in an SGPR pair, an accumulator in a VGPR or one SGPR, and lane masks`;
  if (other.length || vg.length > 1) return why;
  // The mask: the SGPR pair the region's s_ff1_i32_b64 reads or, in a loop without one (an
  // immediate a: no lane is read, the member test is L & −L), the pair it takes L − 1 of (the
  // low half in s_add_u32 _, sN, −1: L & (L − 1) retires the lowest bit); carried.
  const ff1 = region.find((l) => l.op === "s_ff1_i32_b64")?.ops[1];
  const dec = region.find((l) => l.op === "s_add_u32" && l.ops[1]?.k === "s" && l.ops[2]?.k === "imm" && (l.ops[2].value & 0xffffffffn) === 0xffffffffn)?.ops[1];
  const memOp = ff1 ?? dec;
  if (!memOp || memOp.k !== "s" || memOp.n % 2 !== 0 || !sg.includes(memOp.n) || !sg.includes(memOp.n + 1)) return why;
  const mem = memOp.n;
  const restS = sg.filter((x) => x !== mem && x !== mem + 1);
  const label = (lines[b] as { label: string }).label;
  // The other carried SGPRs: lane masks (wave64: the even-aligned pair holding each).
  const masksOf = (xs: number[]) => [...new Set(xs.map((x) => (wave === 64 ? x & ~1 : x)))];
  // No VGPR: the accumulator is one of the SGPRs left (clang's wave32 `sgpr` variant), each a
  // choice in turn (the prover takes the first whose claim holds at the entry), the others masks.
  const choices: AccChoice[] = vg.length === 1 ? [{ acc: vg[0]!, accSgpr: false, masks: masksOf(restS) }] : restS.map((x) => ({ acc: x, accSgpr: true, masks: masksOf(restS.filter((y) => y !== x)) }));
  if (choices.length === 0) return why;
  return { b, k, label, mem, ...choices[0]!, choices, written: fl.written };
}

/**
 * `bv` that keeps, for the terms it builds, each bit as a Bool term where the operation
 * spells it (file comment, "Bit-level terms"): `bitAt` answers that term (not an `extract` of
 * the whole), so a lane's bit of a lane mask (VOPC's `mask | ite(c, 1 << lane, 0)` chain,
 * `v_cndmask`'s read of it) is that lane's condition, and a bit that is constant by
 * construction is the constant. Every value is still `bv`'s own term.
 */
function bitLevelView(bv: Z3Env["bv"], known: WeakMap<BitVec, (Bool | undefined)[]>): Z3Env["bv"] {
  type B = (Bool | undefined)[];
  const bitsOf = (x: BitVec): B | undefined => {
    const k = known.get(x);
    if (k) return k;
    const c = bv.asBigint(x);
    const w = bv.width(x);
    if (c !== undefined) return Array.from({ length: w }, (_, i) => (((c >> BigInt(i)) & 1n) === 1n ? bv.true : bv.false));
    if (w === 1) return [bv.bitAt(x, 0)];
    return undefined;
  };
  const note = (r: BitVec, bits: B | undefined): BitVec => {
    if (bits && bv.asBigint(r) === undefined && !known.has(r) && bits.some((b) => b !== undefined)) known.set(r, bits);
    return r;
  };
  // The fill (file comment, "Lane-sliced queries"): a bitwise operation with one operand's bits
  // known spells every bit of its result, a bit not known being `bv.bitAt` of its operand (an
  // extract of that operand alone, its own definition). Without it, `s_or_b64 s[0:1], s[0:1],
  // s[6:7]` with s[0:1] havocked loses the bits of s[6:7] (lane t's compare), and lane t's read
  // of the result is an extract of the whole 64-bit term: every lane's compares in every
  // lane's query (clang's gfx942 redux.min.f32, two warps, trip from bit 31: a lane's query
  // 854 KB of SMT-LIB without, 9.7 KB with).
  const both = (x: BitVec, y: BitVec, op: (a: Bool, b: Bool) => Bool): B | undefined => {
    const a = bitsOf(x);
    const b = bitsOf(y);
    return a || b ? Array.from({ length: bv.width(x) }, (_, i) => op(a?.[i] ?? bv.bitAt(x, i), b?.[i] ?? bv.bitAt(y, i))) : undefined;
  };
  const view: Partial<Record<keyof Z3Env["bv"], unknown>> = {
    bitAt: (x: BitVec, i: number): Bool => bitsOf(x)?.[i] ?? bv.bitAt(x, i),
    or: (x: BitVec, y: BitVec) => note(bv.or(x, y), both(x, y, (a, b) => bv.orB(a, b))),
    and: (x: BitVec, y: BitVec) => note(bv.and(x, y), both(x, y, (a, b) => bv.andB(a, b))),
    xor: (x: BitVec, y: BitVec) => note(bv.xor(x, y), both(x, y, (a, b) => bv.notB(bv.eqB(a, b)))),
    not: (x: BitVec) => note(bv.not(x), bitsOf(x)?.map((a) => (a === undefined ? undefined : bv.notB(a)))),
    ite: (c: Bool, x: BitVec, y: BitVec) => note(bv.ite(c, x, y), both(x, y, (a, b) => bv.iteB(c, a, b))),
    concat: (hi: BitVec, lo: BitVec) => {
      const a = bitsOf(lo);
      const b = bitsOf(hi);
      return note(bv.concat(hi, lo), a || b ? [...(a ?? Array.from({ length: bv.width(lo) }, () => undefined)), ...(b ?? Array.from({ length: bv.width(hi) }, () => undefined))] : undefined);
    },
    extract: (x: BitVec, hi: number, lo: number) => note(bv.extract(x, hi, lo), bitsOf(x)?.slice(lo, hi + 1)),
    zext: (x: BitVec, w: number) => {
      const a = bitsOf(x);
      return note(bv.zext(x, w), a ? [...a, ...Array.from({ length: w - bv.width(x) }, () => bv.false)] : undefined);
    },
    shl: (x: BitVec, y: BitVec) => {
      const a = bitsOf(x);
      const n = bv.asBigint(y);
      const w = bv.width(x);
      return note(bv.shl(x, y), a && n !== undefined ? Array.from({ length: w }, (_, i) => (BigInt(i) < n ? bv.false : a[i - Number(n)])) : undefined);
    },
  };
  return new Proxy(bv, {
    get(target, p) {
      if (typeof p === "string" && p in view) return view[p as keyof Z3Env["bv"]];
      const v = Reflect.get(target, p, target) as unknown;
      return typeof v === "function" ? (v as (...xs: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** The instrumented lines (file comment, "Cutting the loop at B"): from the entry, or from B. */
function cutLines(lines: readonly MLine[], loop: CompiledLoop, sM: number, from: "entry" | "B"): MLine[] {
  const END = ".Lcr_end";
  const BODY = ".Lcr_body";
  const stub: MLine[] = [{ op: "s_mov_b32", ops: [s(sM), imm(1)], rule: "cut" } as MInst, { op: "s_branch", ops: [{ k: "label", name: END }], rule: "cut" } as MInst, { label: BODY }];
  const out: MLine[] = [...lines.slice(0, loop.b + 1), ...stub, ...lines.slice(loop.b + 1), { label: END }];
  return from === "entry" ? out : [{ op: "s_branch", ops: [{ k: "label", name: BODY }], rule: "cut" } as MInst, ...out];
}

/**
 * Proves the function's one loop by the induction of the file comment, in `layout`; or says
 * why it does not apply (`notApplicable`: the caller's bug-finder and `unknown` follow).
 */
export async function proveCompiledLoop(
  env: Z3Env,
  cf: CompiledFunction,
  lines: MLine[],
  mcpu: Mcpu,
  sregs: readonly number[],
  layout: CompiledWarpLayout,
  timeoutMs: number,
  oneTripFirst = true,
): Promise<{ verdict: Verdict } | { notApplicable: string }> {
  const t0 = performance.now();
  const bv = env.bv;
  const f = cf.fn.spec.form as WarpForm;
  if (f.op !== "redux") return { notApplicable: "the loop invariant is the reference's fold, which only redux has" };
  const W = TARGETS[mcpu].wave;
  const shape = compiledLoopShape(lines, W);
  if (shape === null) return { notApplicable: "no loop" };
  if (typeof shape === "string") return { notApplicable: shape };
  // The accumulator's choice (`AccChoice`): the first, or the first whose claim holds at the entry.
  let loop: CompiledLoop = shape;
  const sM = registerEnds(lines).s + 8;
  const init = symbolicInit(env);
  const su: CompiledSetup<BitVec, Bool> = compiledWarpSetup(init, cf, lines, mcpu, sregs, layout, { bits: null, activeLanes: LANES });
  // (Weak: a trip's terms are released once the trip is proved, `forgetTrip`.)
  const known = new WeakMap<BitVec, (Bool | undefined)[]>();
  const kv = bitLevelView(bv, known);
  const run = (code: MLine[], st: WaveState<BitVec, Bool>, view = kv) => {
    st.sgpr.set(sM, bv.k(0, 32));
    const p = execPaths(view, code, st, { maxBack: 1 });
    if (p.error) throw new InterpError(p.error);
    if (!p.final || bv.asBool(p.stuck) !== false) throw new InterpError("a path neither comes back to the loop head nor reaches the end");
    return { fin: p.final, atB: bv.eq(p.final.sgpr.get(sM)!, bv.k(1, 32)) };
  };
  const memOf = (st: WaveState<BitVec, Bool>) => bv.concat(st.sgpr.get(loop.mem + 1)!, st.sgpr.get(loop.mem)!);
  const exitBads = (fin: WaveState<BitVec, Bool>): Bool => bv.any(compiledWarpBads(bv, cf, su, fin).map((x: Bad<Bool>) => x.cond));
  // Per wave lane: on_t, G_t within L0, REF(G_t ∩ [0, l)) (file comment).
  type LaneOn = { lane: number; on: Bool; G: Bool[]; base: number; ref: (l: number) => BitVec; acc: (l: number) => BitVec; flag: (l: number, k: FlagKind) => Bool; fold: (l: number) => { acc: BitVec; flags: Bool[] }; forget: (below: number) => void };
  const lanesOn: LaneOn[] = [];
  for (const hf of su.halves)
    for (let t = 0; t < LANES; t++) {
      const G = membership(bv, hf.lanes, t).members;
      // a per lane as the reference reads it (an immediate a: the constant in every lane).
      const a = hf.lanes.a;
      const below = (l: number) => G.map((g, j) => (hf.base + j < l ? g : bv.false));
      // REF(G_t<l), built once per l (each trip asks for l and l + 1, the exit for l + 1 again).
      const refs = new Map<number, BitVec>();
      const ref = (l: number): BitVec => {
        let x = refs.get(l);
        if (x === undefined) refs.set(l, (x = refOver(bv, f, a, below(l))));
        return x;
      };
      // `.f32`: the reference's fold state over G_t<l (src/sem/warp.ts `reduceF32State`: its
      // members are G_t<l, as in `refOver`), once per l; the integer forms' fold state is REF.
      const states = new Map<number, ReturnType<typeof reduceF32State<BitVec, Bool>>>();
      const state = (l: number) => {
        let x = states.get(l);
        if (x === undefined) states.set(l, (x = reduceF32State(bv, f.reduxOp as "min" | "max", f.type === "f32" && f.abs, a, below(l))));
        return x;
      };
      const acc = f.type === "f32" ? (l: number) => state(l).acc : ref;
      const flag = (l: number, k: FlagKind): Bool => (f.type !== "f32" ? bv.false : k === "have" ? state(l).haveNumber : state(l).sawNaN);
      // The fold state over G_t<l, the terms a query is generalized over (`generalized`).
      const fold = (l: number) => ({ acc: acc(l), flags: f.type === "f32" ? [flag(l, "have"), flag(l, "saw")] : [] });
      // Drops the terms built for l < below (`forgetTrip`; rebuilt if asked for again).
      const forget = (below: number) => {
        for (const m of [refs, states]) for (const k of m.keys()) if (k < below) m.delete(k);
      };
      lanesOn.push({ lane: hf.base + t, on: hf.activeB[t]!, G, base: hf.base, ref, acc, flag, fold, forget });
    }
  // The accumulator as lane `lane` sees it: its VGPR's entry, or the one SGPR every lane shares.
  const accOf = (st: WaveState<BitVec, Bool>, lane: number): BitVec => (loop.accSgpr ? st.sgpr.get(loop.acc)! : st.vgpr.get(loop.acc)![lane]!);
  const accHolds = (st: WaveState<BitVec, Bool>, l: number): Bool => bv.all(lanesOn.map((x) => bv.implies(x.on, bv.eq(accOf(st, x.lane), x.acc(l)))));
  // Lane-mask facts (file comment): a mask register's value, the wave's width.
  const maskOf = (st: WaveState<BitVec, Bool>, r: number): BitVec => (W === 32 ? st.sgpr.get(r)! : bv.concat(st.sgpr.get(r + 1)!, st.sgpr.get(r)!));
  // (Lane-sliced: lane t's bit through the known-bits view, that lane's term, not an extract of the wave's.)
  const factLane = (fact: Fact, st: WaveState<BitVec, Bool>, l: number, x: LaneOn): Bool => bv.implies(x.on, bv.eqB(kv.bitAt(maskOf(st, fact.reg), x.lane), x.flag(l, fact.kind as FlagKind)));
  const factAt = (fact: Fact, st: WaveState<BitVec, Bool>, SB: WaveState<BitVec, Bool>, l: number): Bool => {
    if (fact.kind === "keep") {
      const off = bv.not(SB.exec);
      return bv.eq(bv.and(maskOf(st, fact.reg), off), bv.and(maskOf(SB, fact.reg), off));
    }
    return bv.all(lanesOn.map((x) => factLane(fact, st, l, x)));
  };
  const within = (L0: BitVec): Bool => bv.all(lanesOn.map((x) => bv.implies(x.on, bv.all(x.G.map((g, j) => bv.implies(g, bv.bitAt(L0, x.base + j)))))));
  let queries = 0;
  const ask = async (what: string, assume: Bool[], bad: Bool): Promise<{ verdict: Verdict } | null> => {
    if (bv.asBool(bad) === false) return null;
    queries++;
    const res = await solve(env, [...assume, bad], timeoutMs);
    if (process.env.PROVE_DEBUG) console.log("compiled loop", what, res.status, Math.round(res.ms));
    if (res.status === "unsat") return null;
    const reason = res.status === "sat" ? `compiled loop induction fails at ${what} (not proved, not a counterexample)` : `compiled loop induction (${what}): ${res.reason ?? "unknown"} (per-query timeout ${timeoutMs / 1000} s)`;
    return { verdict: { verdict: "unknown", ms: performance.now() - t0, reason, ...(res.fault ? { fault: true } : {}) } };
  };
  // The fold state generalized (file comment, "Generalized queries"): the query with every
  // lane's fold state over G_t<l (`fold`, for the lanes `xs`) replaced by that lane's fresh
  // symbols; null where no term is left to replace (constants are not: the state over no lane).
  const fresh = new Map<number, { acc: BitVec; flags: Bool[] }>();
  // Where the code's step needs more of the state than the claim gives (clang's `.f32` loop
  // with an SGPR accumulator: the generalized queries failed, each then asked again), they cost
  // a query each for nothing (redux.min.f32, sgpr: 3,640 queries / 318 s against 2,184 / 166 s
  // without): a kind of query (`what` without its numbers) that has failed generalized 8 times
  // more than it proved is asked only as it is.
  const genScore = new Map<string, number>();
  let genProved = 0;
  const kindOf = (what: string) => what.replace(/\d+/g, "N");
  const generalizedTried = (what: string, proved: boolean) => {
    const k = kindOf(what);
    genScore.set(k, (genScore.get(k) ?? 0) + (proved ? -1 : 1));
    if (proved) genProved++;
  };
  const generalized = (l: number, xs: readonly LaneOn[], qs: Bool[], what: string): Bool[] | null => {
    if ((genScore.get(kindOf(what)) ?? 0) >= 8) return null;
    const pairs: [BitVec, BitVec][] = [];
    const seen = new Set<number>();
    const put = (from: BitVec | Bool, to: BitVec | Bool, constant: boolean) => {
      if (constant || seen.has(from.id())) return;
      seen.add(from.id());
      pairs.push([from as BitVec, to as BitVec]);
    };
    for (const x of xs) {
      const st = x.fold(l);
      let v = fresh.get(x.lane);
      if (!v) fresh.set(x.lane, (v = { acc: init.mk(`fold${x.lane}.acc`, 32), flags: st.flags.map((_, i) => init.mkB(`fold${x.lane}.flag${i}`)) }));
      put(st.acc, v.acc, bv.asBigint(st.acc) !== undefined);
      st.flags.forEach((b, i) => put(b, v.flags[i]!, bv.asBool(b) !== undefined));
    }
    // (Held as every term is: src/check/smt.ts `Z3BV.keep`.)
    return pairs.length ? qs.map((q) => bv.hold(env.ctx.substitute(q, ...pairs) as Bool)) : null;
  };
  // A per-lane query of a trip (`T_l`'s acc and exit): first under `light` alone, a subset of
  // its hypotheses — an unsat there is unsat under all of them (fewer hypotheses, a stronger
  // claim), so a proof is a proof — and only where that does not prove, under `light` and
  // `rest`. The lane's own step (acc' = REF(G_t<l+1) from acc = REF(G_t<l)) does not use
  // bit l of L0 or (M) in the code llc and clang emit, and leaving out (M), a term over every
  // lane's members, halved these queries (measured: llc's gfx1100 redux.add.u32, vgpr, one
  // warp, 2,048 lane queries 57.8 s → 29.0 s of solver time).
  const askLane = async (what: string, l: number, x: LaneOn, light: Bool[], rest: Bool[], bad: Bool): Promise<{ verdict: Verdict } | null> => {
    if (bv.asBool(bad) === false) return null;
    const g = generalized(l, [x], [...light, bad], what);
    if (g) {
      queries++;
      const res = await solve(env, g, timeoutMs);
      if (process.env.PROVE_DEBUG) console.log("compiled loop", what, "(light, generalized)", res.status, Math.round(res.ms));
      generalizedTried(what, res.status === "unsat");
      if (res.status === "unsat") return null;
    }
    queries++;
    const res = await solve(env, [...light, bad], timeoutMs);
    if (process.env.PROVE_DEBUG) console.log("compiled loop", what, "(light)", res.status, Math.round(res.ms));
    if (res.status === "unsat") return null;
    return ask(what, [...light, ...rest], bad);
  };
  let factsDone: Fact[] = [];
  let method = "lane-sliced trips";
  let readlaneLemma = false;
  let jointLanes = false;
  try {
    // (E) the entry.
    const E = run(cutLines(lines, loop, sM, "entry"), cloneState(su.st));
    const SB = E.fin;
    if (SB.lds?.length) return { notApplicable: "a DS result is outstanding at the loop head" };
    const L0 = memOf(SB);
    const zero = bv.k(0, 64);
    let r = await ask("the exit before the loop", [bv.notB(E.atB)], exitBads(SB));
    if (r) return r;
    // (M): every active lane's members lie in L0 (one term, built once).
    const M = within(L0);
    if (shape.choices.length > 1)
      for (const c of shape.choices) {
        loop = { ...shape, ...c };
        queries++;
        const res = await solve(env, [E.atB, bv.notB(accHolds(SB, 0))], timeoutMs);
        if (process.env.PROVE_DEBUG) console.log("compiled loop", `the accumulator ${c.accSgpr ? "s" : "v"}${c.acc} at the entry`, res.status, Math.round(res.ms));
        if (res.status === "unsat") break;
      }
    r = await ask("the loop entry (mask ≠ 0, members within it, acc = the fold over no lane)", [E.atB], bv.notB(bv.all([bv.notB(bv.eq(L0, zero)), M, accHolds(SB, 0)])));
    if (r) return r;
    // (R) REF(G_t) is the reference's d where d is defined.
    r = await ask("the reference's d is the fold over the members", [], bv.any(su.halves.flatMap((hf) => Array.from({ length: LANES }, (_, t) => bv.andB(bv.andB(hf.activeB[t]!, hf.ref.dDefined[t]!), bv.notB(bv.eq(lanesOn[hf.base / 32 * LANES + t]!.ref(W), hf.ref.d[t]!)))))));
    if (r) return r;
    // (T_l) one trip from J_l: its start state H and the trip's end T, built once per l.
    const trip = cutLines(lines, loop, sM, "B");
    // One symbolic trip (file comment): l a symbol (l < wave, bit l of L0 set), mem = L0 ∩ [l,
    // wave), each active lane's fold state over G_t<l a fresh symbol; the trip must take it
    // to the reference's own step (src/sem/warp.ts `reduceIntStep` / `reduceF32Step`, the
    // steps its fold is made of) over lane l. Returns null when every query is unsat.
    const symbolicTrip = async (): Promise<string | null> => {
      const l = init.mk("l", 32);
      const l64 = bv.zext(l, 64);
      const one64 = bv.k(1, 64);
      const ones64 = bv.k((1n << 64n) - 1n, 64);
      const inRange = bv.ult(l, bv.k(W, 32));
      const bitL = bv.eq(bv.and(bv.lshr(L0, l64), one64), one64);
      const isLane = (i: number) => bv.eq(l, bv.k(i, 32));
      // a at lane l (any value where lane l is in no warp: no lane's member there).
      let aL = su.halves[0]!.lanes.a[0]!;
      for (const hf of su.halves) for (let j = 0; j < LANES; j++) aL = bv.ite(isLane(hf.base + j), hf.lanes.a[j]!, aL);
      type St = { acc: BitVec; flags: Bool[] };
      const f32 = f.type === "f32";
      // Lanes of a warp whose members are the same terms (a uniform membermask) have the same
      // fold state: one symbol for them all (a generalization still — each distinct term is
      // replaced by its own symbol — and it keeps what clang's uniform code needs: every
      // lane's flag is the same bit).
      const byMembers = new Map<string, St>();
      const S = new Map<number, St>(
        lanesOn.map((x) => {
          const key = `${x.base}:${x.G.map((g) => g.id()).join(",")}`;
          let st = byMembers.get(key);
          if (!st) byMembers.set(key, (st = { acc: init.mk(`S${x.lane}.acc`, 32), flags: f32 ? [init.mkB(`S${x.lane}.have`), init.mkB(`S${x.lane}.saw`)] : [] }));
          return [x.lane, st];
        }),
      );
      const memberL = (x: LaneOn): Bool => bv.any(x.G.map((g, j) => bv.andB(isLane(x.base + j), g)));
      const stepOf = (st: St, a: BitVec, member: Bool): St => {
        if (!f32) return { acc: reduceIntStep(bv, f.reduxOp as "add", f.type as "u32", st.acc, a, member), flags: [] };
        const r = reduceF32Step(bv, f.reduxOp as "min" | "max", f.type === "f32" && f.abs, { acc: st.acc, haveNumber: st.flags[0]!, sawNaN: st.flags[1]! }, a, member);
        return { acc: r.acc, flags: [r.haveNumber, r.sawNaN] };
      };
      const step = (x: LaneOn): St => stepOf(S.get(x.lane)!, aL, memberL(x));
      // The fold state's constant bits (file comment, (d)): a bit of the state (acc's 32, then
      // the flags) that has the start state's value and that every step keeps (Houdini: each
      // step from any state with the bits left, by any lane's a, member or not — queries on
      // the reference's step alone) is that bit of every state over G_t<l, so the fresh
      // symbols may have it (still a generalization of the states). `.abs`: acc's sign bit 0.
      const start = lanesOn[0]!.fold(0);
      type Cand = { name: string; of: (st: St) => Bool; want: Bool };
      const startBits = bv.asBigint(start.acc);
      let cands: Cand[] = [
        ...(startBits === undefined ? [] : Array.from({ length: 32 }, (_, i): Cand => ({ name: `acc[${i}]`, of: (st) => bv.bitAt(st.acc, i), want: ((startBits >> BigInt(i)) & 1n) === 1n ? bv.true : bv.false }))),
        ...start.flags.flatMap((b, i): Cand[] => (bv.asBool(b) === undefined ? [] : [{ name: i === 0 ? "a number was taken" : "a NaN was seen", of: (st) => st.flags[i]!, want: b }])),
      ];
      {
        const g: St = { acc: init.mk("Sany.acc", 32), flags: f32 ? [init.mkB("Sany.have"), init.mkB("Sany.saw")] : [] };
        // Any lane's a (aL with l free: some lane's value), member or not.
        const next = stepOf(g, aL, init.mkB("any.member"));
        const holds = (c: Cand, st: St) => bv.eqB(c.of(st), c.want);
        for (let dropped = true; dropped; ) {
          dropped = false;
          for (const c of [...cands]) {
            queries++;
            const res = await solve(env, [...cands.map((d) => holds(d, g)), bv.notB(holds(c, next))], timeoutMs);
            if (res.status === "unsat") continue;
            cands = cands.filter((d) => d !== c);
            dropped = true;
          }
        }
        if (process.env.PROVE_DEBUG) console.log("compiled loop", "one symbolic trip: the fold state's constant bits", cands.map((c) => c.name).join(", ") || "none");
      }
      const stateFacts = [...new Set(S.values())].flatMap((st) => cands.map((c) => bv.eqB(c.of(st), c.want)));
      const result = (st: St): BitVec => (f.type === "f32" ? reduceF32Result(bv, f.NaN, { acc: st.acc, haveNumber: st.flags[0]!, sawNaN: st.flags[1]! }) : st.acc);
      const H = cloneState(SB);
      for (const x of loop.written) {
        if (/^s\d+$/.test(x)) H.sgpr.set(Number(x.slice(1)), init.mk(`hS.${x}`, 32));
        if (/^v\d+$/.test(x)) H.vgpr.set(Number(x.slice(1)), Array.from({ length: W }, (_, t) => init.mk(`hS.${x}.${t}`, 32)));
      }
      H.vcc = init.mk("hS.vcc", W);
      H.scc = init.mkB("hS.scc");
      const mem = bv.and(L0, bv.shl(ones64, l64));
      H.sgpr.set(loop.mem, bv.extract(mem, 31, 0));
      H.sgpr.set(loop.mem + 1, bv.extract(mem, 63, 32));
      const accHyp = new Map<number, Bool>();
      if (loop.accSgpr) for (const x of lanesOn) accHyp.set(x.lane, bv.implies(x.on, bv.eq(H.sgpr.get(loop.acc)!, S.get(x.lane)!.acc)));
      else {
        const accL = H.vgpr.get(loop.acc)!;
        for (const x of lanesOn) accL[x.lane] = bv.ite(x.on, S.get(x.lane)!.acc, accL[x.lane]!);
      }
      const T = run(trip, H, kv);
      const stepped = new Map(lanesOn.map((x) => [x.lane, step(x)]));
      const flagAt = (fact: Fact, sts: Map<number, St>, x: LaneOn) => sts.get(x.lane)!.flags[fact.kind === "have" ? 0 : 1]!;
      const factOne = (fact: Fact, st: WaveState<BitVec, Bool>, sts: Map<number, St>, x: LaneOn): Bool => bv.implies(x.on, bv.eqB(kv.bitAt(maskOf(st, fact.reg), x.lane), flagAt(fact, sts, x)));
      const factSym = (fact: Fact, st: WaveState<BitVec, Bool>, sts: Map<number, St>): Bool => (fact.kind === "keep" ? factAt(fact, st, SB, 0) : bv.all(lanesOn.map((x) => factOne(fact, st, sts, x))));
      const base = [E.atB, inRange, bitL, ...stateFacts];
      // The trip's s_ff1 of mem is l (under base: a lemma, one query); where it is, the
      // queries below have the s_ff1 term replaced by l (an equal term under their base).
      const ff1Term = ff1(kv, kv.concat(H.sgpr.get(loop.mem + 1)!, H.sgpr.get(loop.mem)!));
      let ffPairs: [BitVec, BitVec][] = [];
      {
        queries++;
        const res = await solve(env, [...base, bv.notB(bv.eq(ff1Term, l))], timeoutMs);
        if (process.env.PROVE_DEBUG) console.log("compiled loop", "one symbolic trip: s_ff1 of mem is l", res.status, Math.round(res.ms));
        if (res.status === "unsat") ffPairs = [[ff1Term, l]];
      }
      // (e) The trip's v_readlane of lane s_ff1 from a VGPR the loop does not write is a at
      // lane l (under base: a lemma, one query each); where it is, that term is replaced by
      // aL too, so the lane queries do not bit-blast the code's choice among the lanes against
      // the reference's. The term is the interpreter's own: the instruction run alone on H
      // with its lane select the s_ff1 term (no second copy of v_readlane's semantics).
      const ffAt = trip.findIndex((x) => !isLabel(x) && x.op === "s_ff1_i32_b64");
      const ffDst = ffAt >= 0 ? (trip[ffAt] as MInst).ops[0] : undefined;
      const regsOf = (w: number | "wave") => (w === "wave" ? W / 32 : Math.ceil(w / 32));
      for (let i = ffAt + 1; ffPairs.length && ffDst?.k === "s" && i < trip.length; i++) {
        const x = trip[i]!;
        if (isLabel(x)) continue;
        const [dst, src, sel] = x.ops;
        if (x.op === "v_readlane_b32" && dst?.k === "s" && src?.k === "v" && sel?.k === "s" && sel.n === ffDst.n && !loop.written.has(`v${src.n}`)) {
          const st = cloneState(H);
          st.sgpr.set(ffDst.n, ff1Term);
          const p = execPaths(kv, [x], st, { maxBack: 0 });
          const term = p.final?.sgpr.get(dst.n);
          if (term !== undefined && !p.error) {
            const termL = bv.hold(env.ctx.substitute(term, ...ffPairs) as BitVec);
            queries++;
            const res = await solve(env, [...base, bv.notB(bv.eq(termL, aL))], timeoutMs);
            if (process.env.PROVE_DEBUG) console.log("compiled loop", "one symbolic trip: v_readlane of s_ff1 is a at lane l", res.status, Math.round(res.ms));
            if (res.status === "unsat") {
              ffPairs = [...ffPairs, [term, aL], [termL, aL]];
              readlaneLemma = true;
            }
          }
        }
        // (Past a write of the s_ff1 result's register, a lane select is not that term.)
        if (x.ops.some((o, k) => { const sp = record(x.op).ops[k]; return sp?.out && o.k === "s" && o.n <= ffDst.n && ffDst.n < o.n + regsOf(sp.w); })) break;
      }
      // (The same query asked again — a keep fact's, after (f) did not prove — has its answer.
      // Keyed by z3's term ids, which z3 reuses only once a term is freed: the entry holds its
      // terms, so none of them is freed while the key stands. What else a query is made of —
      // ffPairs, base — is fixed for the trip before the first `tell`.)
      const told = new Map<string, { qs: Bool[]; unsat: boolean }>();
      const keyOf = (qs: Bool[]) => qs.map((q) => q.id()).join(",");
      const remember = (qs: Bool[], unsat: boolean) => told.set(keyOf(qs), { qs, unsat });
      const tell = async (what: string, qs: Bool[]): Promise<boolean> => {
        if (qs.some((q) => bv.asBool(q) === false)) return true;
        const known = told.get(keyOf(qs));
        if (known !== undefined) return known.unsat;
        queries++;
        const body = qs.slice(base.length).map((q) => (ffPairs.length ? bv.hold(env.ctx.substitute(q, ...ffPairs) as Bool) : q));
        const res = await solve(env, [...qs.slice(0, base.length), ...body], timeoutMs);
        if (process.env.PROVE_DEBUG) console.log("compiled loop", `one symbolic trip: ${what}`, res.status, Math.round(res.ms));
        remember(qs, res.status === "unsat");
        return res.status === "unsat";
      };
      // The claims every path below ends with, besides the lanes' own: mem comes back as
      // L0 ∩ [l + 1, wave) (M), no member is left at the exit, and d where no lane of ours
      // is (`bads` with no lane or another's).
      const mem1 = bv.and(L0, bv.shl(ones64, bv.add(l64, one64)));
      const none = bv.all(lanesOn.map((x) => bv.implies(x.on, bv.all(x.G.map((g, j) => bv.implies(bv.ult(l, bv.k(x.base + j, 32)), bv.notB(g)))))));
      const want = new Map(lanesOn.map((x) => [x.lane, result(stepped.get(x.lane)!)]));
      const bads = compiledWarpBads(bv, cf, su, T.fin, { want, everyActive: true });
      const laneBad = (x: LaneOn): Bool => bv.any(bads.filter((b) => b.lane === x.lane).map((b) => b.cond));
      const accBad = (x: LaneOn): Bool => bv.notB(bv.eq(accOf(T.fin, x.lane), stepped.get(x.lane)!.acc));
      // (The first two need no fact and no lane's claim: asked first, they fail a wrong mask
      // update before any lane query.)
      if (!(await tell("coming back (the mask)", [...base, M, T.atB, bv.notB(bv.andB(bv.eq(memOf(T.fin), mem1), bv.notB(bv.eq(mem1, zero))))]))) return "coming back (the mask)";
      if (!(await tell("no member left at the exit", [...base, M, bv.notB(T.atB), bv.notB(none)]))) return "no member left at the exit";
      const theExit = (factsH: Bool[]) => tell("the exit", [...base, M, bv.notB(T.atB), ...factsH, bv.any(bads.filter((b) => b.lane === undefined || !lanesOn.some((x) => x.lane === b.lane)).map((b) => b.cond))]);
      // (f) One query per lane for all that lane's claims (file comment). The keep
      // facts first, together in one query (one by one where that does not prove); the flag facts whose lane-0 bit is inductive alone are the
      // candidates; then each lane's query: its bad the disjunction of its candidates' bits
      // and its acc on the way back and its d at the exit, under its own hypotheses (the keep
      // facts, its candidates' bits, an SGPR accumulator's claim for it). Unsat in every lane
      // makes the keep facts and the candidates, with acc, an inductive invariant; else the
      // separate queries below decide (the keep facts' answers kept: `told`).
      // (A cost rule: redux.add's joint query costs more than its two separate ones.)
      if (f.reduxOp !== "add") {
        const keeps = keptAtEntry.filter((g) => g.kind === "keep");
        const keepH = keeps.map((g) => factSym(g, H, S));
        // (The keep facts in one query, their bad the disjunction: the trip's bit-blast once.
        // Unsat, so is each one's own query — the same hypotheses, one disjunct — which
        // Houdini below then finds answered.)
        const keepQ = (fact: Fact) => [...base, T.atB, ...keepH, bv.notB(factSym(fact, T.fin, stepped))];
        let ok = await tell("the keep facts (together)", [...base, T.atB, ...keepH, bv.any(keeps.map((g) => bv.notB(factSym(g, T.fin, stepped))))]);
        if (ok) for (const fact of keeps) remember(keepQ(fact), true);
        for (const fact of ok ? [] : keeps) if (!(ok = await tell(`fact ${showFact(fact)} (alone)`, keepQ(fact)))) break;
        const cands: Fact[] = [];
        const x0 = lanesOn[0]!;
        for (const fact of ok ? keptAtEntry.filter((g) => g.kind !== "keep") : []) if (await tell(`fact ${showFact(fact)} (lane ${x0.lane}, candidate)`, [...base, T.atB, ...keepH, factOne(fact, H, S, x0), bv.notB(factOne(fact, T.fin, stepped, x0))])) cands.push(fact);
        for (const x of ok ? lanesOn : []) {
          const own = [...(accHyp.has(x.lane) ? [accHyp.get(x.lane)!] : []), ...keepH, ...cands.map((g) => factOne(g, H, S, x))];
          const bad = bv.any([bv.andB(T.atB, bv.any([...cands.map((g) => bv.notB(factOne(g, T.fin, stepped, x))), bv.andB(x.on, accBad(x))])), bv.andB(bv.notB(T.atB), laneBad(x))]);
          if (!(ok = await tell(`every claim (lane ${x.lane}, joint)`, [...base, ...own, bad]))) break;
        }
        // (Where the exit's rest does not prove under these facts, Houdini's may keep more.)
        if (ok && (await theExit([...keeps, ...cands].map((g) => factSym(g, H, S))))) {
          factsDone = [...keeps, ...cands];
          jointLanes = true;
          return null;
        }
      }
      // Houdini over the lane-mask facts that held at the entry, on this one trip.
      let fs = [...keptAtEntry];
      const alone = new Set<Fact>();
      const keeps = fs.filter((g) => g.kind === "keep").length;
      for (let dropped = true; dropped; ) {
        dropped = false;
        for (const fact of [...fs]) {
          // A flag mask's bit, lane by lane under that bit and the keep facts alone first: a
          // query of one lane's terms, and, proved so, inductive whatever other flag fact is
          // dropped (`alone`: not asked again while the keep facts stand). Else the whole wave's.
          if (alone.has(fact) && fs.filter((g) => g.kind === "keep").length === keeps) continue;
          // (A keep fact: the whole wave's, under the keep facts alone.)
          const keepH = fs.filter((g) => g.kind === "keep").map((g) => factSym(g, H, S));
          let byLane = fact.kind !== "keep" || (await tell(`fact ${showFact(fact)} (alone)`, [...base, T.atB, ...keepH, bv.notB(factSym(fact, T.fin, stepped))]));
          for (const x of fact.kind !== "keep" ? lanesOn : []) if (!(byLane = await tell(`fact ${showFact(fact)} (lane ${x.lane}, alone)`, [...base, T.atB, ...keepH, factOne(fact, H, S, x), bv.notB(factOne(fact, T.fin, stepped, x))]))) break;
          if (byLane) {
            alone.add(fact);
            continue;
          }
          if (await tell(`fact ${showFact(fact)}`, [...base, M, T.atB, ...fs.map((g) => factSym(g, H, S)), bv.notB(factSym(fact, T.fin, stepped))])) continue;
          fs = fs.filter((g) => g !== fact);
          dropped = true;
        }
      }
      const factsH = fs.map((g) => factSym(g, H, S));
      const own = (x: LaneOn): Bool[] => [...(accHyp.has(x.lane) ? [accHyp.get(x.lane)!] : []), ...fs.map((g) => (g.kind === "keep" ? factSym(g, H, S) : factOne(g, H, S, x)))];
      const rest = [M, ...accHyp.values(), ...factsH];
      // A lane's query under its own hypotheses first, then under every lane's; once the light
      // one has failed 4 times more than it proved for a claim, only the full one (a cost rule).
      const lightScore = new Map<string, number>();
      const lane = async (what: string, x: LaneOn, hyps: Bool[], bad: Bool) => {
        if ((lightScore.get(what) ?? 0) < 4) {
          const ok = await tell(`${what} (lane ${x.lane}, light)`, [...base, ...hyps, ...own(x), bad]);
          lightScore.set(what, (lightScore.get(what) ?? 0) + (ok ? -1 : 1));
          if (ok) return true;
        }
        return tell(`${what} (lane ${x.lane})`, [...base, ...hyps, ...own(x), ...rest, bad]);
      };
      for (const x of lanesOn) if (!(await lane("coming back (acc)", x, [T.atB, x.on], accBad(x)))) return `coming back (acc, lane ${x.lane})`;
      for (const x of lanesOn) if (!(await lane("the exit", x, [bv.notB(T.atB)], laneBad(x)))) return `the exit (lane ${x.lane})`;
      if (!(await theExit(factsH))) return "the exit";
      factsDone = fs;
      return null;
    };
    const above = (n: number) => (n >= 64 ? zero : bv.and(L0, bv.k(((1n << 64n) - 1n) ^ ((1n << BigInt(n)) - 1n), 64)));
    const trips = new Map<number, { H: WaveState<BitVec, Bool>; T: { fin: WaveState<BitVec, Bool>; atB: Bool }; accHyp: Map<number, Bool> }>();
    // A trip's terms (its states, the lanes' fold states for l and below, their bit views) are
    // dropped once it is checked, and the solver's terms released when enough are held
    // (src/check/smt.ts `recycle`; safe between checks since smt.ts defers z3-solver's
    // finalizers while a check runs): z3's check costs more the more terms are alive, and a
    // wave64 two-warps proof held ~3.4 GB of them without this (file comment).
    const forgetTrip = async (l: number) => {
      trips.delete(l);
      for (const x of lanesOn) x.forget(l + 1);
      await env.recycle(0);
    };
    const tripAt = (l: number) => {
      let x = trips.get(l);
      if (x === undefined) trips.set(l, (x = buildTrip(l)));
      return x;
    };
    const buildTrip = (l: number) => {
      const H = cloneState(SB);
      for (const x of loop.written) {
        if (/^s\d+$/.test(x)) H.sgpr.set(Number(x.slice(1)), init.mk(`h${l}.${x}`, 32));
        if (/^v\d+$/.test(x)) H.vgpr.set(Number(x.slice(1)), Array.from({ length: W }, (_, t) => init.mk(`h${l}.${x}.${t}`, 32)));
      }
      H.vcc = init.mk(`h${l}.vcc`, W);
      H.scc = init.mkB(`h${l}.scc`);
      // mem = L0 ∩ [l, wave) with bit l of L0 set, written as L0 ∩ [l + 1, wave) ∪ {l}: its
      // bits below l are 0 and bit l is 1 by construction (the known-bits view).
      const mem = bv.or(above(l + 1), bv.k(1n << BigInt(l), 64));
      known.set(mem, Array.from({ length: 64 }, (_, i) => (i < l ? bv.false : i === l ? bv.true : undefined)));
      H.sgpr.set(loop.mem, kv.extract(mem, 31, 0));
      H.sgpr.set(loop.mem + 1, kv.extract(mem, 63, 32));
      // acc = REF(G_t<l) in every active lane t: a VGPR's entries are set to it (inactive
      // lanes' stay havocked); an SGPR, one value for every lane, stays havocked and the claim
      // is a hypothesis per lane (`accHyp`). (Running each lane's trip from the SGPR set to
      // ite(on_t, REF(G_t<l), havoc) instead was measured no faster.)
      const accHyp = new Map<number, Bool>();
      if (loop.accSgpr) for (const x of lanesOn) accHyp.set(x.lane, bv.implies(x.on, bv.eq(H.sgpr.get(loop.acc)!, x.acc(l))));
      else {
        const accL = H.vgpr.get(loop.acc)!;
        for (const x of lanesOn) accL[x.lane] = bv.ite(x.on, x.acc(l), accL[x.lane]!);
      }
      return { H, T: run(trip, H, kv), accHyp };
    };
    const lows = Array.from({ length: W }, (_, l) => l).filter((l) => bv.asBool(bv.bitAt(L0, l)) !== false);
    // The lane-mask facts (file comment): candidates, those that hold at the entry, then
    // Houdini — drop every fact a trip does not carry to l + 1 under all the others, until
    // every trip holds the facts left under exactly those (they are then inductive).
    let facts: Fact[] = loop.masks.flatMap((reg) => [{ reg, kind: "keep" as const }, ...(f.type === "f32" ? (["have", "saw"] as const).map((kind) => ({ reg, kind })) : [])]);
    const keptAtEntry: Fact[] = [];
    for (const fact of facts) {
      queries++;
      const res = await solve(env, [E.atB, bv.notB(factAt(fact, SB, SB, 0))], timeoutMs);
      if (process.env.PROVE_DEBUG) console.log("compiled loop", `fact ${showFact(fact)} at the entry`, res.status, Math.round(res.ms));
      if (res.status === "unsat") keptAtEntry.push(fact);
    }
    facts = keptAtEntry;
    // (S) One trip for every l at once (file comment, "One symbolic trip"); where a query of it
    // does not prove, the trips one l at a time (T_l) below.
    const symbolic = oneTripFirst ? await symbolicTrip() : "not asked";
    const oneTrip = symbolic === null;
    if (process.env.PROVE_DEBUG && !oneTrip) console.log("compiled loop", "one symbolic trip: not proved at", symbolic);
    // `version` counts the drops; a trip is done when all its facts held under the current set
    // (no drop since its check began), so a drop rechecks only the trips checked before it.
    let version = 0;
    const checkedAt = new Map<number, number>();
    for (let todo = facts.length && !oneTrip ? lows : []; todo.length; todo = lows.filter((l) => checkedAt.get(l) !== version))
      for (const l of todo) {
        const { H, T } = tripAt(l);
        const v0 = version;
        for (const fact of [...facts]) {
          const qs = [E.atB, bv.bitAt(L0, l), M, T.atB, ...facts.map((g) => factAt(g, H, SB, l)), bv.notB(factAt(fact, T.fin, SB, l + 1))];
          // Generalized first (`generalized`), then as it is.
          const kind = `fact ${showFact(fact)}`;
          const g = generalized(l, lanesOn, qs, kind);
          let res = g ? (queries++, await solve(env, g, timeoutMs)) : undefined;
          if (res) generalizedTried(kind, res.status === "unsat");
          if (process.env.PROVE_DEBUG && res) console.log("compiled loop", `fact ${showFact(fact)}, a trip from lowest bit ${l}`, "(generalized)", res.status, Math.round(res.ms));
          if (res?.status !== "unsat") {
            queries++;
            res = await solve(env, qs, timeoutMs);
            if (process.env.PROVE_DEBUG) console.log("compiled loop", `fact ${showFact(fact)}, a trip from lowest bit ${l}`, res.status, Math.round(res.ms));
          }
          if (res.status !== "unsat") {
            facts = facts.filter((g) => g !== fact);
            version++;
          }
        }
        if (version === v0) checkedAt.set(l, version);
        await forgetTrip(l);
      }
    for (const l of oneTrip ? [] : lows) {
      const bitL = bv.bitAt(L0, l);
      const { H, T, accHyp } = tripAt(l);
      const mem1 = above(l + 1);
      const factsH = facts.map((g) => factAt(g, H, SB, l));
      const factsLane = (x: LaneOn) => facts.map((g) => (g.kind === "keep" ? factAt(g, H, SB, l) : factLane(g, H, l, x)));
      // The hypotheses of T_l: E.atB and, as `rest` of the per-lane queries (askLane), bit l
      // of L0, (M) and an SGPR accumulator's claims for every lane (each lane's own is light).
      // The mask's and the exit's whole-wave queries do not read the accumulator: its claims
      // are left out there (fewer hypotheses, a stronger claim).
      const rest = [bitL, M];
      const restLane = [...rest, ...accHyp.values(), ...factsH];
      const own = (x: LaneOn): Bool[] => [...(accHyp.has(x.lane) ? [accHyp.get(x.lane)!] : []), ...factsLane(x)];
      const assume = [E.atB, ...rest];
      r = await ask(`a trip from lowest bit ${l}: coming back (the mask)`, [...assume, T.atB], bv.notB(bv.andB(bv.eq(memOf(T.fin), mem1), bv.notB(bv.eq(mem1, zero)))));
      if (r) return r;
      for (const x of lanesOn) {
        r = await askLane(`a trip from lowest bit ${l}: coming back (acc, lane ${x.lane})`, l, x, [E.atB, T.atB, x.on, ...own(x)], restLane, bv.notB(bv.eq(accOf(T.fin, x.lane), x.acc(l + 1))));
        if (r) return r;
      }
      // The exit: no member above l (L0 has none: mem' = 0), so G_t ∩ [0, l + 1) = G_t and
      // REF(G_t ∩ [0, l + 1)) = REF(G_t), the reference's d (query (R)): d is compared with it.
      const none = bv.all(lanesOn.map((x) => bv.implies(x.on, bv.all(x.G.map((g, j) => (x.base + j <= l ? bv.true : bv.notB(g)))))));
      r = await ask(`a trip from lowest bit ${l}: no member left at the exit`, [...assume, bv.notB(T.atB)], bv.notB(none));
      if (r) return r;
      const want = new Map(lanesOn.map((x) => [x.lane, x.ref(l + 1)]));
      // Per wave lane, in every active lane (stronger than where d is defined), then the rest.
      const bads = compiledWarpBads(bv, cf, su, T.fin, { want, everyActive: true });
      for (const x of lanesOn) {
        r = await askLane(`a trip from lowest bit ${l}: the exit (lane ${x.lane})`, l, x, [E.atB, bv.notB(T.atB), ...own(x)], restLane, bv.any(bads.filter((b) => b.lane === x.lane).map((b) => b.cond)));
        if (r) return r;
      }
      r = await ask(`a trip from lowest bit ${l}: the exit`, [...assume, bv.notB(T.atB), ...factsH], bv.any(bads.filter((b) => b.lane === undefined || !lanesOn.some((x) => x.lane === b.lane)).map((b) => b.cond)));
      if (r) return r;
      await forgetTrip(l);
    }
    if (!oneTrip) factsDone = facts;
    else method = `one symbolic trip${readlaneLemma ? " (its v_readlane is a at lane l)" : ""}${jointLanes ? ", one query per lane" : ""}`;
  } catch (e) {
    if (!(e instanceof InterpError)) throw e;
    return { notApplicable: `the interpreter: ${e.message}` };
  }
  return {
    verdict: {
      verdict: "proved",
      ms: performance.now() - t0,
      method: `z3 inductive per-thread fold invariant (acc ${loop.accSgpr ? "s" : "v"}${loop.acc} = the reference's fold over the members retired from the mask s[${loop.mem}:${loop.mem + 1}]${factsDone.length ? `; lane masks: ${factsDone.map(showFact).join(", ")}` : ""}), full-width values, ${queries} queries, ${method.startsWith("one symbolic trip") ? method : `${method} (${genProved} proved generalized)`}`,
      queries,
    },
  };
}
