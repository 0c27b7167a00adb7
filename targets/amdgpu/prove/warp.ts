/**
 * @fileoverview Proofs of the warp-level family's AMDGPU lowerings (issue 15: shfl.sync, vote.sync,
 * redux.sync, activemask, bar.warp.sync and the deprecated shfl/vote) against the reference
 * (src/sem/warp.ts), over all 32 PTX lanes (wave64: lanes 32–63 inactive, exec[63:32] = 0).
 * Nothing here is per rule: the routine's instructions run through the interpreter's records
 * (targets/amdgpu/interp.ts via ./paths.ts) on the symbolic algebra, so a rule added later is
 * proved the same way.
 *
 * The state: every register symbolic (./paths.ts initialState), exec = a symbolic 32-bit
 * active mask; the inputs are read from it by the routine contract (targets/amdgpu/routine.ts):
 * a divergent source per lane from its VGPR, a uniform one from its SGPR, an immediate folded,
 * vote's predicate `a` as bit l of its lane mask, the guard as a lane mask, the prior d in its
 * VGPR (a predicate d: vcc at entry, as the prior p is). The reference gets the same terms.
 * Conditions (Alive2's refinement): in each lane that executes and whose result the reference
 * defines (`dDefined` / `pDefined`: `null` results impose nothing), the lowered d / p equal the
 * reference's; a lane whose guard is false keeps its prior d and p; the contract's "changes
 * nothing else" (./contract.ts: exec restored, no DS result outstanding, registers outside the
 * scratch window unchanged, v0 unchanged in lanes that do not execute). The LDS wait model is the
 * interpreter's: a read of a DS destination before `s_waitcnt` covers it throws, and that is a
 * refutation of every input (`ds_bpermute` with a symbolic lane index is a symbolic lane
 * select, its record's own semantics).
 *
 * Shapes:
 *   - loop-free (shfl by ds_bpermute / v_readlane / DPP, vote over a uniform membermask,
 *     activemask, bar.warp.sync): straight symbolic execution, one query per condition (each
 *     lane's outputs, its lane of every register the contract watches, the rest; `laneGoals`); where a's
 *     values only move (a shuffle, `shuffleOnly`), on log2(wave)-bit values of a;
 *   - loop-free redux (the DPP butterfly), whose full-width queries are past the timeout: on
 *     a's values reduced by ./warp_tree.ts, each reduction checked on the routine and the
 *     reference — add on 0 and the unit vectors (linear in a), min/max on ⊥/⊤ (a lattice
 *     polynomial: the threshold reduction), and/or/xor on 0/0xffffffff (bit slices), .f32 by
 *     the key tree (the keys' fold by the threshold reduction, the exit by the key chain);
 *   - one loop that is a scalar fold over a lane mask (redux's s_ff1/v_readlane loop): the
 *     inductive proof of ./warp_loop.ts (the invariant: the accumulator is the reference's
 *     fold over the retired lanes of the mask);
 *   - the waterfall over a divergent membermask (with the fold loop nested for redux): the
 *     inductive proof of ./warp_waterfall.ts (the invariant: the retired lanes hold their
 *     round's values), tried first for every routine with a loop;
 *   - any other loop, or one those inductions do not prove: `unknown`, named with the reason;
 *     a bug-finder runs first — every loop unrolled over a warp of BUG_LANES possibly active
 *     lanes — and refutes what it can. A query past the per-query timeout is `unknown`, named
 *     with the query.
 * A refutation is reported only once the model has been re-run concretely and fails there.
 */
import type { Profile } from "../../../src/ir/forms.js";
import type { WarpForm } from "../../../src/ir/warp_forms.js";
import { warpPredicateDest, warpPredicateSource, warpSources, warpWrites } from "../../../src/ir/warp_forms.js";
import type { SourceName } from "../../../src/ir/ir.js";
import type { CV } from "../../../src/sem/bv.js";
import { guardOff, guardOn } from "../../../src/sem/guard.js";
import type { WarpLanes, WarpResult } from "../../../src/sem/warp.js";
import { warpLevel } from "../../../src/sem/warp.js";
import type { Bad, Init, Verdict } from "../../../src/check/prove_types.js";
import { amdgpu, concreteInit, modelValues, symbolicInit } from "../../../src/check/prove_types.js";
import { fmt, header } from "../../../src/check/prove_text.js";
import { LANES, proverWarpLanes } from "../../../src/check/prove_warp.js";
import type { Bool, BitVec, Z3Env } from "../../../src/check/smt.js";
import { LIGHT_BV, solve } from "../../../src/check/smt.js";
import type { AmdRoutine } from "../lower.js";
import type { WaveState } from "../interp.js";
import { InterpError } from "../interp.js";
import { contractBads, dVgpr } from "../contract.js";
import type { MOp } from "../minst.js";
import type { PathsResult } from "./paths.js";
import { amdTraceLines, cloneState, execPaths, initialState, readSource, showLine } from "./paths.js";
import { loopShape } from "./match.js";
import { record } from "../isa/index.js";
import type { Mnemonic } from "../isa/index.js";
import type { MLine } from "../minst.js";
import { isLabel, printOp } from "../minst.js";
import { proveScalarLoop } from "./warp_loop.js";
import { proveWaterfall } from "./warp_waterfall.js";
import { linearOnly, proveKeyTree } from "./warp_tree.js";
import { latticeInit, latticeOnly, orderValue } from "../../../src/check/lattice.js";

/** a's values in a proof: full width (null), `n`-bit, or 0 and the unit vectors ("unit"). */
export type Bits = number | "unit" | "order" | null;

/** The bug-finder's warp (./warp.ts, loops): lanes that may be active (the others exited). */
const BUG_LANES = 4;

/** The warp a warp-level routine sees, read from its initial state by the contract. */
export interface AmdWarp<V, B> {
  active: V;
  activeB: B[];
  lanes: WarpLanes<V, B>;
  g?: B[];
  /** The prior d per lane (a predicate d: bit 0 of a 1-bit value). */
  dPrior?: V[];
  pPrior?: B[];
  ref: WarpResult<V, B>;
  /** The VGPR of d (v0 under the contract; ../contract.ts `dVgpr`). */
  dVgpr: number;
}

/** Reads the routine's inputs from `st` (the contract, file comment) and runs the reference on them. */
export function amdWarpOf<V, B>(init: Init<V, B>, r: AmdRoutine, st: WaveState<V, B>, active: V): AmdWarp<V, B> {
  const bv = init.bv;
  const f = r.spec.form as unknown as WarpForm;
  const W = r.target.wave;
  const lanes = Array.from({ length: LANES }, (_, l) => l);
  const sources = warpSources(f);
  const src32 = (name: SourceName): V[] => {
    const k = r.spec.kinds[name] ?? { kind: "v" };
    if (k.kind === "imm") return lanes.map(() => bv.k(k.value & 0xffffffffn, 32));
    const o = r.layout.src[name]!;
    return lanes.map((l) => readSource(bv, st, o, 32, l));
  };
  const activeB = lanes.map((l) => bv.bitAt(active, l));
  let g: B[] | undefined;
  if (r.spec.guarded) {
    const gm = readSource(bv, st, r.layout.guard!, W, 0);
    g = lanes.map((l) => bv.bitAt(gm, l));
  }
  const executes = g ? lanes.map((l) => guardOn(bv, activeB[l]!, g![l]!)) : activeB;
  const w = proverWarpLanes(bv, f, r.spec.kinds, src32, () => readSource(bv, st, r.layout.src.a!, W, 0), activeB, executes);

  const out: AmdWarp<V, B> = { active, activeB, lanes: w, ref: warpLevel(bv, f, w), dVgpr: dVgpr(r) ?? 0 };
  if (g) {
    out.g = g;
    out.pPrior = lanes.map((l) => bv.bitAt(st.vcc, l));
    out.dPrior = warpPredicateDest(f) ? lanes.map((l) => bv.extract(st.vcc, l, l)) : lanes.map((l) => st.vgpr.get((r.layout.dPrior as Extract<MOp, { k: "v" }>).n)![l]!);
  }
  return out;
}

/**
 * The output conditions of lane `l` after a run (file comment): d (v0, or bit l of vcc for a
 * predicate d) and p (bit l of vcc), where the reference defines them; the prior values where
 * the guard is false. `got` overrides the lowered d of the lane (a loop summary's term).
 */
export function warpLaneBads<V, B>(bv: Init<V, B>["bv"], f: WarpForm, w: AmdWarp<V, B>, after: WaveState<V, B>, l: number): Bad<B>[] {
  const bads: Bad<B>[] = [];
  const writes = warpWrites(f);
  const on = w.lanes.executes[l]!;
  const off = guardOff(bv, w.activeB[l]!, w.g?.[l]);
  if (writes.d) {
    const got = warpPredicateDest(f) ? bv.extract(after.vcc, l, l) : after.vgpr.get(w.dVgpr)![l]!;
    const want = warpPredicateDest(f) ? bv.extract(w.ref.d[l]!, 0, 0) : w.ref.d[l]!;
    bads.push({ what: `Value mismatch: d in lane ${l}`, cond: bv.andB(bv.andB(on, w.ref.dDefined[l]!), bv.notB(bv.eq(got, want))), lane: l });
    if (w.dPrior) bads.push({ what: `lane ${l} (guard false) does not keep its prior d`, cond: bv.andB(off, bv.notB(bv.eq(got, w.dPrior[l]!))), lane: l });
  }
  if (writes.p) {
    const got = bv.bitAt(after.vcc, l);
    bads.push({ what: `Value mismatch: p in lane ${l}`, cond: bv.andB(bv.andB(on, w.ref.pDefined[l]!), bv.notB(bv.eqB(got, w.ref.p[l]!))), lane: l });
    if (w.pPrior) bads.push({ what: `lane ${l} (guard false) does not keep its prior p`, cond: bv.andB(off, bv.notB(bv.eqB(got, w.pPrior[l]!))), lane: l });
  }
  return bads;
}

/**
 * The initial state and the warp of a routine (exec = the symbolic active mask, upper wave64
 * half 0). `bits`: a's register holds `bits`-bit values in every lane (the small-value reduction),
 * or for "unit" a unit vector or 0 (the linear-form reduction, ./warp_tree.ts).
 */
export function warpInit<V, B>(init: Init<V, B>, r: AmdRoutine, bits: Bits = null, activeLanes = LANES): { st: WaveState<V, B>; before: WaveState<V, B>; w: AmdWarp<V, B> } {
  let active = init.mk("active", 32);
  if (activeLanes < LANES) active = init.bv.and(active, init.bv.k((1n << BigInt(activeLanes)) - 1n, 32));
  const st = initialState(init, r, init.bv.zext(active, r.target.wave));
  const aReg = r.layout.src.a;
  if (bits === "unit" && aReg && aReg.k !== "imm") {
    const k = init.mk("a.unit", 7);
    const unit = (l: number) => init.bv.ite(init.bv.eq(k, init.bv.k(l, 7)), init.bv.k(1, 32), init.bv.k(0, 32));
    if (aReg.k === "v") st.vgpr.set(aReg.n, st.vgpr.get(aReg.n)!.map((_, l) => unit(l)));
    else if (aReg.k === "s") st.sgpr.set(aReg.n, unit(0));
  } else if (bits === "order" && aReg?.k === "v") {
    st.vgpr.set(aReg.n, st.vgpr.get(aReg.n)!.map((x, l) => (l < LANES ? orderValue(init, `a.ord.${l}`, (r.spec.form as unknown as WarpForm as { type?: string }).type === "s32") : x)));
  } else if (typeof bits === "number" && aReg?.k === "v") {
    const lanes = st.vgpr.get(aReg.n)!;
    for (let l = 0; l < lanes.length; l++) lanes[l] = init.bv.zext(init.mk(`a.small.${l}`, bits), 32);
  } else if (typeof bits === "number" && aReg?.k === "s") st.sgpr.set(aReg.n, init.bv.zext(init.mk("a.small", bits), 32));
  const before = cloneState(st);
  return { st, before, w: amdWarpOf(init, r, before, active) };
}

interface WarpRun<V, B> {
  before: WaveState<V, B>;
  paths: PathsResult<V, B>;
  w: AmdWarp<V, B>;
  bads: Bad<B>[];
}

/**
 * One whole run (predicated execution, back-edges up to `maxBack`), the reference and every
 * condition; `activeLanes` < 32: the upper lanes exited (the bug-finder's warp).
 */
function warpRun<V, B>(init: Init<V, B>, r: AmdRoutine, maxBack: number, bits: Bits, trace = false, activeLanes = LANES): WarpRun<V, B> {
  const bv = init.bv;
  const f = r.spec.form as unknown as WarpForm;
  const { st, before, w } = warpInit(init, r, bits, activeLanes);
  let paths: PathsResult<V, B>;
  try {
    paths = execPaths(bv, r.lines, st, { maxBack, trace, stepLimit: 1_000_000 });
  } catch (e) {
    if (!(e instanceof InterpError)) throw e;
    paths = { final: null, done: bv.false, stuck: bv.false, error: e.message, trace: [], steps: 0 };
  }
  const bads: Bad<B>[] = [];
  if (paths.error) bads.push({ what: `the interpreter rejects the sequence: ${paths.error}`, cond: bv.true });
  // The bug-finder (loops) looks for wrong outputs of the executions its bound covers; a run
  // the bound cuts off is not one (paths merged at a loop exit carry the larger trip count).
  if (maxBack === 0 && bv.asBool(paths.stuck) !== false) bads.push({ what: "a path does not reach the end", cond: paths.stuck });
  if (paths.final) {
    for (let l = 0; l < LANES; l++) bads.push(...warpLaneBads(bv, f, w, paths.final, l));
    bads.push(...contractBads(bv, r, before, paths.final, (l) => (l < LANES ? w.activeB[l]! : bv.false)));
  }
  // With loops, only the executions that reach the end within the bound are looked at.
  const reached = (b: Bad<B>) => (maxBack === 0 ? b : { ...b, cond: bv.andB(paths.done, b.cond) });
  return { before, paths, w, bads: bads.map(reached).filter((b) => bv.asBool(b.cond) !== false) };
}

/**
 * Groups conditions into goals (queries): `perLane`, one goal per PTX lane (its outputs and its
 * lane of every register the contract watches), one for wave64's upper lanes and one for the
 * rest (exec, SGPRs, the loop bound); else one goal per condition, each a conjunction (the lane
 * executes, the reference defines it, the values differ) whose conjuncts z3 then holds as
 * units, where a lane's disjunction of its conditions gives it none. Many small queries solve
 * far faster than their disjunction (all lanes' disjunction of a shfl_bpermute routine is past
 * a 60 s timeout). Measured (CPU, z3-solver's WASM build): per condition is 15–35 % cheaper than per lane
 * on the shuffles and vote, the contract's conditions folding to ~10 ms queries; per lane 15 %
 * cheaper on the reduced redux trees. The routine is proved when every goal is unsat, however
 * they are grouped: the grouping is only speed.
 */
export function laneGoals<B>(bads: Bad<B>[], any: (xs: B[]) => B, perLane = true): { what: string; bad: B }[] {
  if (!perLane) return bads.map((b) => ({ what: b.what, bad: b.cond }));
  const groups = new Map<string, B[]>();
  const rest: { what: string; cond: B }[] = [];
  for (const b of bads) {
    if (b.lane === undefined) {
      rest.push(b);
      continue;
    }
    const k = b.lane < LANES ? `lane ${b.lane}` : "the upper lanes of the wave";
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(b.cond);
  }
  const goals = [...groups].map(([k, cs]) => ({ what: k, bad: any(cs) }));
  if (rest.length) goals.push({ what: rest.length === 1 ? rest[0]!.what : "the contract (exec, SGPRs, LDS)", bad: any(rest.map((b) => b.cond)) });
  return goals;
}

/** A register key of an operand (`v5`, `s3`; both of a pair), for the taint walk. */
function regKeys(o: MOp): string[] {
  if (o.k === "v" || o.k === "s") return Array.from({ length: o.count }, (_, i) => `${o.k}${o.n + i}`);
  if (o.k === "vcc" || o.k === "vcc_lo" || o.k === "vcc_hi") return ["vcc"];
  if (o.k === "exec" || o.k === "exec_lo" || o.k === "exec_hi") return ["exec"];
  return [];
}

/**
 * Whether values of a (in `aReg`) only move (the shuffle argument, `proveAmdWarp`): a tainted
 * value may be an operand of an instruction only as the data it moves — the source of a copy
 * (`move: "copy"`: v_mov, s_mov, v_readlane's value), either data arm of a select (v_cndmask,
 * s_cselect), the fetched source and the kept old value of a DPP form of a move, the `data0`
 * of a cross-lane DS permute — never as a lane index, address, lane mask, condition or an
 * operand of anything else, and never as implicit state an instruction reads (`uses`: exec,
 * scc, vcc; so a copy of a into exec is refused at the next VALU).
 *
 * Taint only grows: an instruction that reads a tainted register taints everything it writes
 * (explicit and implicit), and nothing is untainted (a VALU write is exec-masked, so the old
 * value may survive in some lanes). Where every branch goes forward (loop-free code), one pass
 * in program order is flow-sensitive and sound: a path reaching line i runs only lines before
 * i, so the set at line i contains every register that may hold a value of a there on any
 * path — a register read before a's value reaches it (b's v0 in ds_bpermute's index, later
 * ds_bpermute's destination) is no use of a. With a back-edge, the pass repeats over the whole
 * code to a fixed point (flow-insensitive: the set at every line is the final one).
 * @returns null when a only moves, else the first offending use.
 */
export function shuffleOnly(lines: readonly MLine[], aReg: MOp): string | null {
  const taint = new Set(regKeys(aReg));
  const labelAt = new Map<string, number>();
  lines.forEach((l, i) => {
    if (isLabel(l)) labelAt.set(l.label, i);
  });
  const backEdge = lines.some((l, i) => !isLabel(l) && l.ops.some((o) => o.k === "label" && (labelAt.get(o.name) ?? Infinity) <= i));
  for (let changed = true; changed; ) {
    changed = false;
    for (const l of lines) {
      if (isLabel(l)) continue;
      const rec = record(l.op);
      const ins = rec.ops.map((s, i) => (s.out && !s.tied ? -1 : i)).filter((i) => i >= 0);
      const tainted = ins.filter((i) => regKeys(l.ops[i]!).some((k) => taint.has(k)));
      const where = `${l.op} ${l.ops.map(printOp).join(", ")}`;
      const implicit = (rec.uses ?? []).find((k) => taint.has(k));
      if (implicit) return `${where}: reads ${implicit}, which may hold a value of a`;
      if (!tainted.length) continue;
      const baseMove = l.op.endsWith("_dpp") ? record(l.op.slice(0, -4) as Mnemonic).move : undefined;
      const data = new Set<number>();
      const named = (n: string) => rec.ops.findIndex((s) => s.name === n);
      if (rec.move === "copy") data.add(ins.find((i) => !rec.ops[i]!.out)!);
      else if (rec.move === "select") ins.filter((i) => !rec.ops[i]!.out).slice(0, 2).forEach((i) => data.add(i));
      else if (baseMove === "copy") [named("vdst"), named("src0")].forEach((i) => data.add(i));
      else if (rec.enc === "DS" && rec.crossLane) data.add(named("data0"));
      const bad = tainted.find((i) => !data.has(i));
      if (bad !== undefined) return `${where}: a value of a is ${data.size ? "its lane index, address or mask" : `an operand of ${l.op}, which does not only move it`}`;
      const outs = [...rec.ops.flatMap((s, i) => (s.out ? regKeys(l.ops[i]!) : [])), ...(rec.defs ?? [])];
      for (const k of outs) if (!taint.has(k)) (taint.add(k), (changed = true));
    }
    if (!backEdge) break;
  }
  return null;
}

/**
 * Proves a warp-level AMDGPU routine (file comment). Never throws for a wrong lowering: every
 * failure is a verdict.
 */
export async function proveAmdWarp(env: Z3Env, r: AmdRoutine, profile: Profile, timeoutMs: number, t0: number): Promise<Verdict> {
  // A waterfall over a divergent key (./warp_waterfall.ts): its induction first.
  const wf = r.lines.some(isLabel) ? await proveWaterfall(env, r, profile, timeoutMs, t0) : null;
  if (wf && "verdict" in wf && wf.verdict.verdict === "proved") return wf.verdict;
  const shape = loopShape(r.lines);
  let loopNote = "";
  if (shape.kind === "one") {
    // A one-loop routine whose loop is a scalar fold over a lane mask: the inductive proof
    // (./warp_loop.ts). Where it is unknown, the unrolled run below can still refute.
    const v = await proveScalarLoop(env, r, profile, shape, timeoutMs, t0);
    if ("verdict" in v && v.verdict.verdict === "proved") return v.verdict;
    loopNote = "verdict" in v && v.verdict.verdict === "unknown" ? v.verdict.reason : "notApplicable" in v ? `no induction: ${v.notApplicable}` : "";
  } else if (shape.kind === "unsupported") loopNote = `no induction: loop shape ${shape.why}`;
  if (wf && "verdict" in wf) loopNote = wf.verdict.verdict === "unknown" ? wf.verdict.reason : loopNote;
  const loops = r.lines.filter((l) => "label" in l).length;
  // Loops the induction did not prove: only a refutation can come of them here — the
  // bug-finder, every loop unrolled over a warp of BUG_LANES possibly active lanes (each trip
  // of a loop over a lane mask, or of a waterfall round, retires one of them).
  const bug = loops > 0;
  const maxBack = !bug ? 0 : loops === 1 ? BUG_LANES + 1 : BUG_LANES + BUG_LANES * BUG_LANES + 2;
  const lanes = bug ? BUG_LANES : LANES;
  // The small-value reduction (as match.ts's, toolchain.md §1c): when values of a only move
  // (`shuffleOnly`), every output lane, and every register the contract watches, holds either
  // a value of a from a lane chosen independently of a's values, or a value independent of
  // a. A wrong choice (a[j'] where the reference has a[j], or a value X where it has a[j]) is
  // then caught by some assignment of small values (a[j'] ≠ a[j], a[j] ≠ X), so proving on
  // log2(wave)-bit lane values proves on all values.
  const f = r.spec.form as unknown as WarpForm;
  const aReg = r.layout.src.a;
  // (The reference must be a selection of a too: shfl's d = a[src]; a reduction's is not.)
  const di = f.op !== "shfl" ? "the reference is not a selection of a" : aReg && aReg.k !== "imm" ? shuffleOnly(r.lines, aReg) : "a is not a value register";
  // The linear-form reduction (./warp_tree.ts): a redux.add whose values of a are only added
  // and moved is proved on a = 0 and the unit vectors.
  const lin = f.op === "redux" && f.reduxOp === "add" && !bug && aReg && aReg.k !== "imm" ? linearOnly(r.lines, aReg) : "not a loop-free redux.add";
  // A .f32 redux that folds keys without a loop (./warp_tree.ts `proveKeyTree`).
  if (!bug && f.op === "redux" && f.type === "f32") {
    const v = await proveKeyTree(env, r, timeoutMs, t0);
    if (v?.verdict === "proved") return v;
    if (v && "reason" in v) loopNote = v.reason;
  }
  let bits: Bits = di === null ? (r.target.wave === 64 ? 6 : 5) : lin === null ? "unit" : null;
  const init = symbolicInit(env);
  // The order-type reduction (./warp_tree.ts): a loop-free redux.min/.max whose every
  // condition is order-only in a (checked on the run itself) is proved on a's values in a
  // small set; else the full-width run.
  let bads: Bad<Bool>[] | null = null;
  if (bits === null && !bug && f.op === "redux" && f.type !== "f32" && f.reduxOp !== "add" && aReg?.k === "v") {
    const o = warpRun(latticeInit(init, f.type === "s32", f.reduxOp === "min" || f.reduxOp === "max" ? "lattice" : "bitwise"), r, 0, "order");
    const why = latticeOnly(o.bads);
    if (process.env.PROVE_DEBUG) console.log("lattice:", why ?? "yes");
    if (why === null) [bits, bads] = ["order", o.bads.map((b) => ({ ...b, cond: b.cond.b }))];
  }
  bads ??= warpRun(init, r, maxBack, bits, false, lanes).bads;
  let goals = laneGoals(bads, (xs) => env.bv.any(xs as Bool[]), bits === "unit" || bits === "order");
  if (bug) goals = [{ what: `any lane (bug-finder: ${BUG_LANES} lanes, loops unrolled to ${maxBack} trips)`, bad: env.bv.any(goals.map((g) => g.bad)) }];
  if (process.env.PROVE_DEBUG) console.log("built", Math.round(performance.now() - t0), "ms; di:", di);
  let n = 0;
  for (const g of goals) {
    n++;
    // A shuffle's queries (small values of a, only selected) first on the lighter pipeline
    // (src/check/smt.ts LIGHT_BV: faster on them), with a quarter of the timeout; where that
    // does not decide, QF_BV's with the whole timeout. Either's unsat is a proof, and a sat is
    // replayed concretely below, so the verdict does not depend on which one answered.
    let res = typeof bits === "number" && !bug ? await solve(env, [g.bad as Bool], Math.max(1000, timeoutMs / 4), LIGHT_BV) : null;
    if (!res || res.status === "unknown") res = await solve(env, [g.bad as Bool], timeoutMs);
    if (process.env.PROVE_DEBUG) console.log(g.what, res.status, Math.round(res.ms));
    if (res.status === "unsat") continue;
    if (res.status === "unknown") {
      const why = bug ? `${loopNote}; bug-finder (${BUG_LANES} lanes): ${res.reason ?? "unknown"}` : `${loopNote ? `${loopNote}; ` : ""}${res.reason ?? "unknown"} on the query for ${g.what} (loop-free, per-query timeout ${timeoutMs / 1000} s)`;
      return { verdict: "unknown", ms: performance.now() - t0, reason: why, ...(res.fault ? { fault: true } : {}) };
    }
    const values = modelValues(env, res.model!, init.symbols);
    return replayWarp(r, profile, values, maxBack, bits, t0, lanes) ?? { verdict: "unknown", ms: performance.now() - t0, reason: `z3 model did not replay concretely (${g.what})` };
  }
  if (bug) return { verdict: "unknown", ms: performance.now() - t0, reason: `${loopNote}; bug-finder (${BUG_LANES} lanes, full width): no bug` };
  const vals = bits === null ? "full-width values" : bits === "unit" ? "a = 0 and the unit vectors (linear in a, ./warp_tree.ts)" : bits === "order" ? (f.op === "redux" && (f.reduxOp === "min" || f.reduxOp === "max") ? "a's values ⊥ and ⊤ of the order (min/max of a only, the threshold reduction, ./warp_tree.ts)" : "a's values 0 and 0xffffffff (bitwise in a, the bit-slice reduction, ./warp_tree.ts)") : `${bits}-bit values of a (data-independent)`;
  return { verdict: "proved", ms: performance.now() - t0, method: `z3 warp-level, 32 lanes, ${vals}, loop-free, ${n} queries`, queries: n };
}

/** Re-runs a model concretely; the Alive2-style counterexample, or null when it does not fail. */
export function replayWarp(r: AmdRoutine, profile: Profile, values: Map<string, bigint | boolean>, maxBack: number, bits: Bits, t0: number, lanes = LANES): Verdict | null {
  const c = warpRun(concreteInit(values), r, maxBack, bits, true, lanes);
  const hit = c.bads.find((b) => b.cond === true);
  if (!hit) return null;
  return { verdict: "refuted", ms: performance.now() - t0, reason: hit.what, counterexample: warpCounterexample(r, profile, c as unknown as WarpRun<CV, boolean>, hit, t0) };
}

function warpCounterexample(r: AmdRoutine, profile: Profile, c: WarpRun<CV, boolean>, hit: Bad<boolean>, t0: number): string {
  const f = r.spec.form as unknown as WarpForm;
  const w = c.w;
  const lane = hit.lane ?? 0;
  const bits = (xs: boolean[]) => xs.map((x) => (x ? "1" : "0")).join("");
  const out = [header(r.spec.form, amdgpu(r.target.mcpu), r.rule, profile, performance.now() - t0), `ERROR: ${hit.what}`];
  // Every other condition the same input breaks (one wrong lane index breaks d and p alike;
  // which of them z3's model shows first is the solver's choice).
  const also = c.bads.filter((b) => b !== hit && b.cond === true).map((b) => b.what);
  if (also.length) out.push(`  also: ${also.slice(0, 6).join("; ")}${also.length > 6 ? `; … (${also.length - 6} more)` : ""}`);
  out.push("", "Example:");
  out.push(`  active = ${fmt(w.active)}: ${bits(w.activeB)} (lane 0 first)`);
  if (w.g) out.push(`  guard = ${bits(w.g)}`);
  const kind = (n: SourceName) => r.spec.kinds[n]?.kind ?? "v";
  const show = (n: SourceName, xs: CV[]) => {
    if (!xs.length) return;
    const k = kind(n);
    out.push(k === "v" ? `  ${n} = [${xs.map((x) => fmt(x)).join(", ")}]` : `  ${n} = ${fmt(xs[0]!)}  (${k === "imm" ? "immediate" : "uniform"})`);
  };
  show("a", w.lanes.a);
  show("b", w.lanes.b);
  show("c", w.lanes.c);
  if (w.lanes.membermask) show("membermask", w.lanes.membermask);
  if (w.dPrior) out.push(`  d (prior) = [${w.dPrior.map((x) => fmt(x)).join(", ")}]`);
  out.push(`Spec  src/sem/warp.ts (lane ${lane}: executes ${w.lanes.executes[lane] ? 1 : 0}, d ${w.ref.dDefined[lane] ? "defined" : "undefined"}, p ${w.ref.pDefined[lane] ? "defined" : "undefined"})`);
  out.push(`Lowering  amdgpu ${r.target.mcpu} (VGPR values of lane ${lane} shown):`);
  if (c.paths.trace.length) out.push(...amdTraceLines(c.paths.trace, lane));
  else out.push(...r.lines.map((l) => `  ${showLine(l)}`));
  if (c.paths.error) out.push(`  (stopped: ${c.paths.error})`);
  const fin = c.paths.final;
  if (fin && hit.lane !== undefined) {
    const writes = warpWrites(f);
    if (writes.d) {
      const got = warpPredicateDest(f) ? fmt(concreteBitOf(fin.vcc, lane)) : fmt(fin.vgpr.get(dVgpr(r) ?? 0)![lane]!);
      const want = w.ref.d[lane]!;
      out.push(`Spec value:     d[${lane}] = ${w.ref.dDefined[lane] ? fmt(warpPredicateDest(f) ? want.x === 1n : want) : "undefined"}`);
      out.push(`Lowered value:  d[${lane}] = ${got}`);
    }
    if (writes.p) {
      out.push(`Spec value:     p[${lane}] = ${w.ref.pDefined[lane] ? fmt(w.ref.p[lane]!) : "undefined"}`);
      out.push(`Lowered value:  p[${lane}] = ${fmt(concreteBitOf(fin.vcc, lane))}`);
    }
  }
  return out.join("\n");
}

const concreteBitOf = (x: CV, i: number): boolean => ((x.x >> BigInt(i)) & 1n) === 1n;
