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
 * The shape, recognised from the instructions (`compiledLoopShape`): exactly one back-edge, to
 * label B; the loop region (the lines from B to the back-edge) writes no exec and issues no DS
 * instruction; the registers the region reads before it writes them (in line order, which is the
 * order a trip from B runs them: a path from B back to B runs only region lines, since the one
 * back-edge is the region's end) are one SGPR pair `mem` and one VGPR `acc`. Both the rotated
 * loop llc emits (entry `s_branch` to a test at the bottom, the back-edge to the body's top) and
 * clang's do-while (a guard, then the body ending in the back-edge) have it. Which registers
 * these are only picks the invariant's terms: every claim below is a query, so a wrong pick is
 * an `unknown`, never a false proof.
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
 * Cost (measured 2026-12-05 on this project's 2-core machine, another job niced beside it;
 * `PROVE_DEBUG=1` prints each query): llc's gfx1100 redux.add.u32, vgpr, one warp: 2,114
 * queries, 29–42 s of solver time, 37–85 s wall; gfx942, two warps: 8,322 queries, 117 s
 * wall. Two changes made it so: the reference's fold over a lane set builds one lane, not 32
 * (src/sem/warp.ts `warpLevel`'s `which`), and each lane's REF(G_t<l) is built once (before
 * them, about 5 s wall per trip index, most of it building terms; this comment said 35 s); the
 * per-lane queries are asked under the light hypotheses first (`askLane`). Still too slow for
 * every compiled loop of the matrix (238 per kind × processor), so ./prove_compiled_warp.ts
 * runs it only when asked (`induction: true`). The `.f32` functions' loops are not this shape
 * (`notApplicable`): llc's have two back-edges, clang's carry more SGPRs than the mask; nor is
 * clang's wave32 (gfx1030, gfx1100) `sgpr` variant of the integer forms, whose accumulator is an
 * SGPR.
 */
import type { WarpForm } from "../../src/ir/warp_forms.js";
import { membership } from "../../src/sem/members.js";
import type { Bad, Verdict } from "../../src/check/prove_types.js";
import { symbolicInit } from "../../src/check/prove_types.js";
import { LANES } from "../../src/check/prove_warp.js";
import type { Bool, BitVec, Z3Env } from "../../src/check/smt.js";
import { solve } from "../../src/check/smt.js";
import type { WaveState } from "../amdgpu/interp.js";
import { InterpError } from "../amdgpu/interp.js";
import { record } from "../amdgpu/isa/index.js";
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

/** The loop of `compiledLoopShape`: B's line index, the back-edge's, the carried registers. */
export interface CompiledLoop {
  b: number;
  k: number;
  label: string;
  /** mem: the SGPR pair s[mem:mem+1]; acc: the VGPR. */
  mem: number;
  acc: number;
  /** Registers the region writes (warp_loop.ts `flow` keys: `s4`, `v5`, `vcc`). */
  written: Set<string>;
}

/**
 * The compiled loop's shape (file comment), or why the lines do not have it. Null when the
 * lines have no back-edge.
 */
export function compiledLoopShape(lines: readonly MLine[]): CompiledLoop | string | null {
  const labels = new Map(lines.flatMap((l, i) => (isLabel(l) ? [[l.label, i] as const] : [])));
  const back: { k: number; b: number }[] = [];
  lines.forEach((l, i) => {
    if (isLabel(l) || !("branch" in record(l.op).sem)) return;
    const to = l.ops[0]?.k === "label" ? labels.get(l.ops[0].name) : undefined;
    if (to !== undefined && to <= i) back.push({ k: i, b: to });
  });
  if (back.length === 0) return null;
  if (back.length > 1) return `${back.length} back-edges`;
  const { k, b } = back[0]!;
  const region = lines.slice(b + 1, k + 1).filter((l): l is Line => !isLabel(l));
  const fl = flow(region);
  if (fl.ds) return "the loop issues a DS instruction";
  if (fl.written.has("exec")) return "the loop writes exec";
  const carried = [...fl.readFirst].filter((x) => fl.written.has(x));
  const sg = carried.filter((x) => /^s\d+$/.test(x)).map((x) => Number(x.slice(1))).sort((x, y) => x - y);
  const vg = carried.filter((x) => /^v\d+$/.test(x)).map((x) => Number(x.slice(1)));
  const other = carried.filter((x) => !/^[sv]\d+$/.test(x));
  if (sg.length !== 2 || sg[1] !== sg[0]! + 1 || vg.length !== 1 || other.length) return `the loop carries ${carried.join(", ") || "nothing"}, not a mask in an SGPR pair and a per-thread accumulator in a VGPR`;
  return { b, k, label: (lines[b] as { label: string }).label, mem: sg[0]!, acc: vg[0]!, written: fl.written };
}

/**
 * `bv` that keeps, for the terms it builds, each bit as a Bool term where the operation
 * spells it (file comment, "Bit-level terms"): `bitAt` answers that term (not an `extract` of
 * the whole), so a lane's bit of a lane mask (VOPC's `mask | ite(c, 1 << lane, 0)` chain,
 * `v_cndmask`'s read of it) is that lane's condition, and a bit that is constant by
 * construction is the constant. Every value is still `bv`'s own term.
 */
function bitLevelView(bv: Z3Env["bv"], known: Map<BitVec, (Bool | undefined)[]>): Z3Env["bv"] {
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
  const both = (x: BitVec, y: BitVec, op: (a: Bool, b: Bool) => Bool): B | undefined => {
    const a = bitsOf(x);
    const b = bitsOf(y);
    return a && b ? a.map((p, i) => (p !== undefined && b[i] !== undefined ? op(p, b[i]!) : undefined)) : undefined;
  };
  const view: Partial<Record<keyof Z3Env["bv"], unknown>> = {
    bitAt: (x: BitVec, i: number): Bool => bitsOf(x)?.[i] ?? bv.bitAt(x, i),
    or: (x: BitVec, y: BitVec) => note(bv.or(x, y), both(x, y, (a, b) => bv.orB(a, b))),
    and: (x: BitVec, y: BitVec) => note(bv.and(x, y), both(x, y, (a, b) => bv.andB(a, b))),
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
): Promise<{ verdict: Verdict } | { notApplicable: string }> {
  const t0 = performance.now();
  const bv = env.bv;
  const f = cf.fn.spec.form as WarpForm;
  if (f.op !== "redux") return { notApplicable: "the loop invariant is the reference's fold, which only redux has" };
  const loop = compiledLoopShape(lines);
  if (loop === null) return { notApplicable: "no loop" };
  if (typeof loop === "string") return { notApplicable: loop };
  const W = TARGETS[mcpu].wave;
  const sM = registerEnds(lines).s + 8;
  const init = symbolicInit(env);
  const su: CompiledSetup<BitVec, Bool> = compiledWarpSetup(init, cf, lines, mcpu, sregs, layout, { bits: null, activeLanes: LANES });
  const known = new Map<BitVec, (Bool | undefined)[]>();
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
  const lanesOn: { lane: number; on: Bool; G: Bool[]; base: number; ref: (l: number) => BitVec }[] = [];
  for (const hf of su.halves)
    for (let t = 0; t < LANES; t++) {
      const G = membership(bv, hf.lanes, t).members;
      const a = hf.src.a!;
      // REF(G_t<l), built once per l (each trip asks for l and l + 1, the exit for l + 1 again).
      const refs = new Map<number, BitVec>();
      const ref = (l: number): BitVec => {
        let x = refs.get(l);
        if (x === undefined) refs.set(l, (x = refOver(bv, f, a, G.map((g, j) => (hf.base + j < l ? g : bv.false)))));
        return x;
      };
      lanesOn.push({ lane: hf.base + t, on: hf.activeB[t]!, G, base: hf.base, ref });
    }
  const accHolds = (st: WaveState<BitVec, Bool>, l: number): Bool => bv.all(lanesOn.map((x) => bv.implies(x.on, bv.eq(st.vgpr.get(loop.acc)![x.lane]!, x.ref(l)))));
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
  // A per-lane query of a trip (`T_l`'s acc and exit): first under `light` alone, a subset of
  // its hypotheses — an unsat there is unsat under all of them (fewer hypotheses, a stronger
  // claim), so a proof is a proof — and only where that does not prove, under `light` and
  // `rest`. The lane's own step (acc' = REF(G_t<l+1) from acc = REF(G_t<l)) does not use
  // bit l of L0 or (M) in the code llc and clang emit, and leaving out (M), a term over every
  // lane's members, halved these queries (measured: llc's gfx1100 redux.add.u32, vgpr, one
  // warp, 2,048 lane queries 57.8 s → 29.0 s of solver time).
  const askLane = async (what: string, light: Bool[], rest: Bool[], bad: Bool): Promise<{ verdict: Verdict } | null> => {
    if (bv.asBool(bad) === false) return null;
    queries++;
    const res = await solve(env, [...light, bad], timeoutMs);
    if (process.env.PROVE_DEBUG) console.log("compiled loop", what, "(light)", res.status, Math.round(res.ms));
    if (res.status === "unsat") return null;
    return ask(what, [...light, ...rest], bad);
  };
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
    r = await ask("the loop entry (mask ≠ 0, members within it, acc = the fold over no lane)", [E.atB], bv.notB(bv.all([bv.notB(bv.eq(L0, zero)), M, accHolds(SB, 0)])));
    if (r) return r;
    // (R) REF(G_t) is the reference's d where d is defined.
    r = await ask("the reference's d is the fold over the members", [], bv.any(su.halves.flatMap((hf) => Array.from({ length: LANES }, (_, t) => bv.andB(bv.andB(hf.activeB[t]!, hf.ref.dDefined[t]!), bv.notB(bv.eq(lanesOn[hf.base / 32 * LANES + t]!.ref(W), hf.ref.d[t]!)))))));
    if (r) return r;
    // (T_l) one trip from J_l.
    const trip = cutLines(lines, loop, sM, "B");
    for (let l = 0; l < W; l++) {
      const bitL = bv.bitAt(L0, l);
      if (bv.asBool(bitL) === false) continue;
      const H = cloneState(SB);
      for (const x of loop.written) {
        if (/^s\d+$/.test(x)) H.sgpr.set(Number(x.slice(1)), init.mk(`h${l}.${x}`, 32));
        if (/^v\d+$/.test(x)) H.vgpr.set(Number(x.slice(1)), Array.from({ length: W }, (_, t) => init.mk(`h${l}.${x}.${t}`, 32)));
      }
      H.vcc = init.mk(`h${l}.vcc`, W);
      H.scc = init.mkB(`h${l}.scc`);
      const above = (n: number) => (n >= 64 ? zero : bv.and(L0, bv.k(((1n << 64n) - 1n) ^ ((1n << BigInt(n)) - 1n), 64)));
      // mem = L0 ∩ [l, wave) with bit l of L0 set, written as L0 ∩ [l + 1, wave) ∪ {l}: its
      // bits below l are 0 and bit l is 1 by construction (the known-bits view).
      const mem = bv.or(above(l + 1), bv.k(1n << BigInt(l), 64));
      known.set(mem, Array.from({ length: 64 }, (_, i) => (i < l ? bv.false : i === l ? bv.true : undefined)));
      H.sgpr.set(loop.mem, kv.extract(mem, 31, 0));
      H.sgpr.set(loop.mem + 1, kv.extract(mem, 63, 32));
      const accL = H.vgpr.get(loop.acc)!;
      for (const x of lanesOn) accL[x.lane] = bv.ite(x.on, x.ref(l), accL[x.lane]!);
      const T = run(trip, H, kv);
      const mem1 = above(l + 1);
      // The hypotheses of T_l: E.atB and, as `rest` of the per-lane queries (askLane), bit l of L0 and (M).
      const rest = [bitL, M];
      const assume = [E.atB, ...rest];
      r = await ask(`a trip from lowest bit ${l}: coming back (the mask)`, [...assume, T.atB], bv.notB(bv.andB(bv.eq(memOf(T.fin), mem1), bv.notB(bv.eq(mem1, zero)))));
      if (r) return r;
      for (const x of lanesOn) {
        r = await askLane(`a trip from lowest bit ${l}: coming back (acc, lane ${x.lane})`, [E.atB, T.atB, x.on], rest, bv.notB(bv.eq(T.fin.vgpr.get(loop.acc)![x.lane]!, x.ref(l + 1))));
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
        r = await askLane(`a trip from lowest bit ${l}: the exit (lane ${x.lane})`, [E.atB, bv.notB(T.atB)], rest, bv.any(bads.filter((b) => b.lane === x.lane).map((b) => b.cond)));
        if (r) return r;
      }
      r = await ask(`a trip from lowest bit ${l}: the exit`, [...assume, bv.notB(T.atB)], bv.any(bads.filter((b) => b.lane === undefined || !lanesOn.some((x) => x.lane === b.lane)).map((b) => b.cond)));
      if (r) return r;
    }
  } catch (e) {
    if (!(e instanceof InterpError)) throw e;
    return { notApplicable: `the interpreter: ${e.message}` };
  }
  return {
    verdict: {
      verdict: "proved",
      ms: performance.now() - t0,
      method: `z3 inductive per-thread fold invariant (acc v${loop.acc} = the reference's fold over the members retired from the mask s[${loop.mem}:${loop.mem + 1}]), full-width values, ${queries} queries`,
      queries,
    },
  };
}
