/**
 * @fileoverview `--prove` for the compiled warp-level functions of the `hip` header and the
 * `llvm` module (issue 15 item 5): the code clang-19 / llc-19 made of a shfl, vote, redux,
 * activemask or bar.warp.sync function (targets/hip/print.ts `warpLevelBody`,
 * targets/llvm/print.ts `warpLevelFunction`), extracted (./compiled.ts), proved against the
 * reference (src/sem/warp.ts `warpLevel`, its lanes read by src/check/prove_warp.ts
 * `proverWarpLanes` as the AMDGPU prover reads them: the semantics are not restated here).
 *
 * The contract is the compiled function's own (LLVM's calling convention, as ./compiled.ts
 * runs it), not the AMDGPU routine contract:
 *   - arguments per thread in VGPRs in `cf.args` order (PTX operand order: a, b, c, membermask,
 *     each form's sources that are not immediates); the `sgpr` variant's arguments are uniform:
 *     llvm's `inreg` ones in the SGPRs `inregRegisters` names, hip's in VGPRs holding one value
 *     in every active lane (inactive lanes arbitrary: the wrapper's `readfirstlane` must not
 *     look there); vote's predicate `a` is an `i1`/`bool`: 0 or 1 in its register;
 *   - d in `cf.dReg` (v0), p in `cf.pReg` (v1) where the form has one; a predicate d and p are
 *     the low bit of their VGPR (what ./compiled.ts compares);
 *   - two CUDA warps per wave64: lane i of the wave is laneid i & 31 of warp i >> 5. Both
 *     layouts the compiled check runs are proved: `one warp` (wave64 lanes 32–63 inactive,
 *     exec[63:32] = 0) and `two warps` (lanes 32–63 a second, independent CUDA warp: its own
 *     sources, membermasks and active mask; the `sgpr` variant's uniform arguments are the
 *     wave's, so both warps see them). Wave32 has one layout, one warp;
 *   - the function is the instruction without its guard (the caller's `if`): executing lanes
 *     = active lanes = exec; `exec` at exit equals `exec` at entry, no DS result outstanding
 *     (the interpreter's LDS wait model: a read of a DS destination before its `s_waitcnt`
 *     throws, a refutation of every input), every path reaches the end. Other registers are
 *     the compiled code's to clobber (the hazard check under LLVM's function boundary runs
 *     first, in ./prove_compiled.ts).
 * Conditions (Alive2's refinement): in each active lane whose result the reference defines
 * (`dDefined` / `pDefined`; `null` results impose nothing), the function's d / p equal the
 * reference's.
 *
 * Loop-free code (shfl by ds_bpermute, vote by a ballot shifted to the own half, activemask,
 * bar.warp.sync): straight symbolic execution through the interpreter's records
 * (targets/amdgpu/prove/paths.ts `execPaths`), one query per wave lane (its outputs) and one
 * for the rest (exec, LDS, paths); where a's values only move (targets/amdgpu/prove/warp.ts
 * `shuffleOnly`) and the reference is a selection of a (shfl), on log2(wave)-bit values of a
 * (the small-value reduction argued there). A refutation is reported only once the model has
 * been re-run concretely and fails there.
 *
 * Loops (redux's uniform `readlane` loop over exec): targets/amdgpu/prove/warp_loop.ts's
 * induction proves a loop whose body is a scalar fold in SGPRs over the AMDGPU routine
 * contract's registers; clang's and llc's loop is not that shape (see `loopWhy`): a 64-bit
 * mask and a per-thread VGPR accumulator. ./prove_compiled_loop.ts has the induction for the
 * compiled shape (per-thread fold invariant, with lane-mask facts for `.f32`, argued there); it
 * is sound but, per function × variant × layout, costs minutes (measured there), 476 loop
 * functions per processor, so it runs only when asked (`induction: true`); otherwise the verdict is
 * `unknown` with the reason. A
 * bug-finder — the loop unrolled over `COMPILED_BUG_LANES` possibly active lanes per CUDA warp
 * — refutes what it can.
 */
import type { Profile } from "../../src/ir/forms.js";
import { formName } from "../../src/ir/forms.js";
import type { WarpForm } from "../../src/ir/warp_forms.js";
import { warpPredicateDest, warpPredicateSource, warpWrites } from "../../src/ir/warp_forms.js";
import type { SourceName } from "../../src/ir/ir.js";
import type { BV, CV } from "../../src/sem/bv.js";
import type { WarpLanes, WarpResult } from "../../src/sem/warp.js";
import { warpLevel } from "../../src/sem/warp.js";
import type { Bad, Init, Verdict } from "../../src/check/prove_types.js";
import { concreteInit, modelValues, symbolicInit } from "../../src/check/prove_types.js";
import { fmt } from "../../src/check/prove_text.js";
import { LANES, proverWarpLanes } from "../../src/check/prove_warp.js";
import type { Bool, Z3Env } from "../../src/check/smt.js";
import { solve } from "../../src/check/smt.js";
import type { AmdRoutine } from "../amdgpu/lower.js";
import type { WaveState } from "../amdgpu/interp.js";
import { InterpError, outstandingDs } from "../amdgpu/interp.js";
import type { MLine, MOp } from "../amdgpu/minst.js";
import { isLabel, s, v } from "../amdgpu/minst.js";
import { record } from "../amdgpu/isa/index.js";
import type { PathsResult } from "../amdgpu/prove/paths.js";
import { amdTraceLines, execPaths, initialState, showLine } from "../amdgpu/prove/paths.js";
import { loopShape } from "../amdgpu/prove/match.js";
import { shuffleOnly } from "../amdgpu/prove/warp.js";
import type { Mcpu } from "../amdgpu/regs.js";
import { TARGETS } from "../amdgpu/regs.js";
import type { CompiledFunction } from "./compiled.js";
import { proveCompiledLoop } from "./prove_compiled_loop.js";
import { proveCompiledMatchLayout } from "./prove_compiled_match.js";

/**
 * The bug-finder's lanes per CUDA warp that may be active (loops; the others exited): 2 by
 * default (an unrolled compiled redux loop over 2 + 2 lanes solves in seconds, over 3 + 3 in
 * tens of seconds, over 4 + 4 past 30 s on gfx942).
 */
export const COMPILED_BUG_LANES = 2;

/** A wave64 layout of the compiled check (file comment); wave32 has `one warp` only. */
export type CompiledWarpLayout = "one warp" | "two warps";

/** The layouts a processor's wave runs. */
export function compiledWarpLayouts(mcpu: Mcpu): CompiledWarpLayout[] {
  return TARGETS[mcpu].wave === 64 ? ["one warp", "two warps"] : ["one warp"];
}

/** One run's inputs, as the reference and the counterexample see them, per CUDA warp (half). */
export interface Half<V, B> {
  base: number;
  active: V;
  activeB: B[];
  /** Per source name, the 32 lanes' values (vote's a: 0/1 as 1-bit values; uniform: the same term). */
  src: Partial<Record<SourceName, V[]>>;
  /** The reference's lanes (src/check/prove_warp.ts `proverWarpLanes`): the members of each lane. */
  lanes: WarpLanes<V, B>;
  ref: WarpResult<V, B>;
}

interface Run<V, B> {
  halves: Half<V, B>[];
  paths: PathsResult<V, B>;
  bads: Bad<B>[];
}

/** The extracted lines' register ends: one past the highest VGPR and SGPR they name (the interpreter's initial state covers them; prove_compiled.ts's scratch windows too). */
export function registerEnds(lines: readonly MLine[]): { v: number; s: number } {
  let vEnd = 0;
  let sEnd = 0;
  for (const l of lines)
    if (!isLabel(l))
      for (const o of l.ops) {
        if (o.k === "v") vEnd = Math.max(vEnd, o.n + o.count);
        if (o.k === "s") sEnd = Math.max(sEnd, o.n + o.count);
      }
  return { v: vEnd, s: sEnd };
}

/** Where argument `name` arrives (file comment): its VGPR, or for llvm's `inreg` its SGPR. */
function argRegister(cf: CompiledFunction, name: SourceName, sregs: readonly number[]): MOp | undefined {
  let vn = 0;
  let sn = 0;
  for (const a of cf.args) {
    const here = a.inreg ? s(sregs[sn]!) : v(vn);
    if (a.inreg) sn++;
    else vn++;
    if (a.name === name) return here;
  }
  return undefined;
}

/** The inputs of one run (`compiledWarpSetup`): the machine state at entry, the reference per CUDA warp. */
export interface CompiledSetup<V, B> {
  st: WaveState<V, B>;
  halves: Half<V, B>[];
  before: { exec: V };
  nHalves: number;
}

/**
 * The inputs of one run of the extracted code (symbolic or concrete by `init`) in `layout`:
 * the entry state and the reference per CUDA warp (file comment). `bits`: a's lanes hold
 * `bits`-bit values (the small-value reduction); `activeLanes` < 32: only the lowest lanes of
 * each warp may be active (the bug-finder).
 */
export function compiledWarpSetup<V, B>(
  init: Init<V, B>,
  cf: CompiledFunction,
  lines: MLine[],
  mcpu: Mcpu,
  sregs: readonly number[],
  layout: CompiledWarpLayout,
  opts: { bits: number | null; activeLanes: number },
): CompiledSetup<V, B> {
  const bv = init.bv;
  const f = cf.fn.spec.form as WarpForm;
  const t = TARGETS[mcpu];
  const W = t.wave;
  const nHalves = layout === "two warps" ? 2 : 1;
  const actives = Array.from({ length: nHalves }, (_, h) => {
    const x = init.mk(`active.${h}`, 32);
    return opts.activeLanes < LANES ? bv.and(x, bv.k((1n << BigInt(opts.activeLanes)) - 1n, 32)) : x;
  });
  const exec = W === 32 ? actives[0]! : bv.concat(actives[1] ?? bv.k(0, 32), actives[0]!);
  const execOn = Array.from({ length: W }, (_, l) => bv.bitAt(exec, l));
  const ends = registerEnds(lines);
  // paths.ts's initial state reads only the wave, generation and register ends of a routine.
  const st = initialState(init, { target: t, vEnd: Math.max(ends.v, 1), sEnd: ends.s } as AmdRoutine, exec);
  const before = { exec: st.exec };
  // The arguments (file comment): per wave lane, or one uniform term.
  const wave: Partial<Record<SourceName, V[]>> = {};
  const predA = warpPredicateSource(f);
  const value = (name: string, n: SourceName) => {
    if (n === "a" && predA) return bv.zext(init.mk(`${name}.bit`, 1), 32);
    if (n === "a" && opts.bits !== null) return bv.zext(init.mk(`${name}.small`, opts.bits), 32);
    return init.mk(name, 32);
  };
  for (const a of cf.args) {
    const n = a.name as SourceName;
    const reg = argRegister(cf, n, sregs)!;
    if (cf.variant === "vgpr") {
      const lanes = Array.from({ length: W }, (_, l) => value(`${n}.${l}`, n));
      st.vgpr.set((reg as { n: number }).n, lanes);
      wave[n] = lanes;
    } else {
      const u = value(n, n);
      if (reg.k === "s") st.sgpr.set(reg.n, u);
      else st.vgpr.set((reg as { n: number }).n, Array.from({ length: W }, (_, l) => bv.ite(execOn[l]!, u, value(`${n}.${l}.inactive`, n))));
      wave[n] = Array.from({ length: W }, () => u);
    }
  }
  const halves: Half<V, B>[] = actives.map((active, h) => {
    const base = 32 * h;
    const activeB = Array.from({ length: LANES }, (_, l) => bv.bitAt(active, l));
    const src: Partial<Record<SourceName, V[]>> = {};
    for (const n of Object.keys(wave) as SourceName[]) src[n] = wave[n]!.slice(base, base + LANES);
    const src32 = (n: SourceName): V[] => {
      const k = cf.fn.spec.kinds[n];
      if (k?.kind === "imm") return Array.from({ length: LANES }, () => bv.k(k.value & 0xffffffffn, 32));
      return src[n]!;
    };
    // vote's a as a lane mask (bit l = lane l), as proverWarpLanes takes it.
    const predicateA = () => src.a!.map((x) => bv.extract(x, 0, 0)).reduce((m, x) => bv.concat(x, m));
    const lanes = proverWarpLanes(bv, f, cf.fn.spec.kinds, src32, predicateA, activeB, activeB);
    return { base, active, activeB, src, lanes, ref: warpLevel(bv, f, lanes) };
  });
  return { st, halves, before, nHalves };
}

/**
 * The conditions (file comment) on a final state `fin` of the extracted code (null: no path
 * reaches the end), each a `Bad` (lane: the wave lane whose outputs it reads), unconditioned
 * by the paths that reach the end.
 */
export function compiledWarpBads<V, B>(bv: BV<V, B>, cf: CompiledFunction, su: CompiledSetup<V, B>, fin: WaveState<V, B> | null, opts: { want?: ReadonlyMap<number, V>; everyActive?: boolean } = {}): Bad<B>[] {
  const f = cf.fn.spec.form as WarpForm;
  const bads: Bad<B>[] = [];
  if (!fin) return bads;
  const writes = warpWrites(f);
  const reg = (n: number | undefined, what: string): V[] | null => {
    if (n !== undefined && fin.vgpr.has(n)) return fin.vgpr.get(n)!;
    bads.push({ what: `the function has no ${what} result`, cond: bv.true });
    return null;
  };
  const dOut = writes.d ? reg(cf.dReg, "d") : null;
  const pOut = writes.p ? reg(cf.pReg, "p") : null;
  const tag = (hf: Half<V, B>, l: number) => (su.nHalves > 1 ? ` (warp ${hf.base ? "lanes 32-63" : "lanes 0-31"}, laneid ${l})` : "");
  for (const hf of su.halves)
    for (let l = 0; l < LANES; l++) {
      const lane = hf.base + l;
      const on = hf.activeB[l]!;
      if (dOut) {
        const pred = warpPredicateDest(f);
        const got = pred ? bv.extract(dOut[lane]!, 0, 0) : dOut[lane]!;
        const refD = opts.want?.get(lane) ?? hf.ref.d[l]!;
        const wantD = pred ? bv.extract(refD, 0, 0) : refD;
        bads.push({ what: `Value mismatch: d in wave lane ${lane}${tag(hf, l)}`, cond: bv.andB(opts.everyActive ? on : bv.andB(on, hf.ref.dDefined[l]!), bv.notB(bv.eq(got, wantD))), lane });
      }
      if (pOut) {
        const got = bv.bitAt(pOut[lane]!, 0);
        bads.push({ what: `Value mismatch: p in wave lane ${lane}${tag(hf, l)}`, cond: bv.andB(bv.andB(on, hf.ref.pDefined[l]!), bv.notB(bv.eqB(got, hf.ref.p[l]!))), lane });
      }
    }
  bads.push({ what: "exec is not restored", cond: fin.exec === su.before.exec ? bv.false : bv.notB(bv.eq(fin.exec, su.before.exec)) });
  for (const what of outstandingDs(fin)) bads.push({ what, cond: bv.true });
  return bads;
}

/**
 * One run of the extracted code (symbolic or concrete by `init`) in `layout`, the reference
 * per CUDA warp and every condition (file comment). `bits`, `activeLanes`: `compiledWarpSetup`;
 * `maxBack`: back-edges per path.
 */
function compiledWarpRun<V, B>(
  init: Init<V, B>,
  cf: CompiledFunction,
  lines: MLine[],
  mcpu: Mcpu,
  sregs: readonly number[],
  layout: CompiledWarpLayout,
  opts: { bits: number | null; maxBack: number; trace: boolean; activeLanes: number },
): Run<V, B> {
  const bv = init.bv;
  const su = compiledWarpSetup(init, cf, lines, mcpu, sregs, layout, opts);
  let paths: PathsResult<V, B>;
  try {
    paths = execPaths(bv, lines, su.st, { maxBack: opts.maxBack, trace: opts.trace, stepLimit: 1_000_000 });
  } catch (e) {
    if (!(e instanceof InterpError)) throw e;
    paths = { final: null, done: bv.false, stuck: bv.false, error: e.message, trace: [], steps: 0 };
  }
  const bads: Bad<B>[] = [];
  if (paths.error) bads.push({ what: `the interpreter rejects the code: ${paths.error}`, cond: bv.true });
  if (opts.maxBack === 0 && bv.asBool(paths.stuck) !== false) bads.push({ what: "a path does not reach the end", cond: paths.stuck });
  bads.push(...compiledWarpBads(bv, cf, su, paths.final));
  const reached = (b: Bad<B>) => (opts.maxBack === 0 ? b : { ...b, cond: bv.andB(paths.done, b.cond) });
  return { halves: su.halves, paths, bads: bads.map(reached).filter((b) => bv.asBool(b.cond) !== false) };
}

/** One goal per wave lane (its outputs) and one for the rest: many small queries solve faster. */
function goalsOf<B>(bads: Bad<B>[], any: (xs: B[]) => B): { what: string; bad: B }[] {
  const groups = new Map<string, B[]>();
  const rest: Bad<B>[] = [];
  for (const b of bads) {
    if (b.lane === undefined) rest.push(b);
    else groups.set(`wave lane ${b.lane}`, [...(groups.get(`wave lane ${b.lane}`) ?? []), b.cond]);
  }
  const goals = [...groups].map(([what, cs]) => ({ what, bad: any(cs) }));
  if (rest.length) goals.push({ what: rest.length === 1 ? rest[0]!.what : "exec, LDS, paths", bad: any(rest.map((b) => b.cond)) });
  return goals;
}

/**
 * Why warp_loop.ts's induction does not fit the extracted code's loop (file comment), named
 * from the instructions: the loop's shape (targets/amdgpu/prove/match.ts `loopShape`), and a
 * body that writes a VGPR (the per-thread fold: each thread selects the lane's value by its own
 * member bit). Null when the code has no loop.
 */
export function loopWhy(lines: readonly MLine[]): string | null {
  const shape = loopShape(lines);
  if (shape.kind === "none") return null;
  const why: string[] = [];
  if (shape.kind === "unsupported") why.push(`its loop shape: ${shape.why}`);
  // The body: between a back-edge's target and the back-edge.
  const labels = new Map(lines.flatMap((l, k) => (isLabel(l) ? [[l.label, k] as const] : [])));
  const vWrites = new Set<string>();
  lines.forEach((l, k) => {
    if (isLabel(l) || !("branch" in record(l.op).sem) || l.ops[0]?.k !== "label") return;
    const to = labels.get((l.ops[0] as { name: string }).name);
    if (to === undefined || to > k) return;
    for (const x of lines.slice(to, k))
      if (!isLabel(x))
        record(x.op).ops.forEach((sp, i) => {
          const o = x.ops[i]!;
          if (sp.out && o.k === "v") vWrites.add(`${x.op} v${o.n}`);
        });
  });
  if (vWrites.size) why.push(`the loop body writes VGPRs (a per-thread fold: ${[...vWrites].slice(0, 3).join(", ")}), not a scalar fold in SGPRs`);
  return `no induction: targets/amdgpu/prove/warp_loop.ts's loop-fold invariant does not fit the compiled loop (${why.join("; ") || "a loop over the compiled contract's registers"})`;
}

/**
 * Whether `cf`'s code has a loop (targets/amdgpu/prove/match.ts `loopShape`): the only code on
 * which `proveCompiledWarpLayout` runs ./prove_compiled_loop.ts (and code not extracted, an
 * `unknown` never stored, counts as a loop). scripts/prove-all.ts keys the loop-free verdicts
 * by a source fingerprint without that file (./prove_compiled_matrix.ts `loopFreeCache`).
 */
export function compiledHasLoop(cf: CompiledFunction): boolean {
  return !Array.isArray(cf.lines) || loopShape(cf.lines).kind !== "none";
}

/**
 * Proves one extracted warp-level function in one layout (file comment). Never throws for
 * wrong code: every failure is a verdict. `sregs`: llvm's `inreg` SGPRs; `induction`: run
 * ./prove_compiled_loop.ts's induction on a loop before the bug-finder (slow: file comment);
 * `"trips"`: without its one symbolic trip, the trips one l at a time only (tests, measurements).
 */
export async function proveCompiledWarpLayout(
  env: Z3Env,
  cf: CompiledFunction,
  mcpu: Mcpu,
  target: "hip" | "llvm",
  sregs: readonly number[],
  layout: CompiledWarpLayout,
  opts: { profile?: Profile; timeoutMs?: number; bugLanes?: number; induction?: boolean | "trips" } = {},
): Promise<Verdict> {
  // match.sync's functions: the same contract and layouts, their own prover (./prove_compiled_match.ts).
  if (cf.fn.spec.form.op === "match") return proveCompiledMatchLayout(env, cf, mcpu, target, sregs, layout, opts);
  const t0 = performance.now();
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const BUG_LANES = opts.bugLanes ?? COMPILED_BUG_LANES;
  if (!Array.isArray(cf.lines)) return { verdict: "unknown", ms: 0, reason: cf.lines.error };
  const lines = cf.lines;
  const f = cf.fn.spec.form as WarpForm;
  const loops = compiledHasLoop(cf);
  // Loops: the bug-finder over BUG_LANES lanes per warp (each trip retires one lane of exec).
  const maxBack = loops ? BUG_LANES * (layout === "two warps" ? 2 : 1) + 2 : 0;
  const activeLanes = loops ? BUG_LANES : LANES;
  const aReg = argRegister(cf, "a", sregs);
  const di = f.op !== "shfl" ? "the reference is not a selection of a" : aReg ? shuffleOnly(lines, aReg) : "a is not an argument";
  const bits = di === null && !loops ? (TARGETS[mcpu].wave === 64 ? 6 : 5) : null;
  const runOpts = { bits, maxBack, trace: false, activeLanes };
  // Loops: the induction (./prove_compiled_loop.ts) first; where it does not prove, the
  // bug-finder below refutes or the verdict is unknown with the induction's reason.
  let why = loops ? `${loopWhy(lines)!}; the compiled loop induction (./prove_compiled_loop.ts) not run: it is asked for (prove:all --compiled-induction)` : "";
  if (loops && opts.induction) {
    const ind = await proveCompiledLoop(env, cf, lines, mcpu, sregs, layout, timeoutMs, opts.induction !== "trips");
    if ("verdict" in ind && ind.verdict.verdict === "proved") return { ...ind.verdict, ms: performance.now() - t0, method: `${ind.verdict.method} (${target} ${mcpu}, ${cf.variant}, ${layout})` };
    why = "verdict" in ind ? (ind.verdict as { reason: string }).reason : `no induction: ${ind.notApplicable}`;
    await env.recycle(1);
  }
  const init = symbolicInit(env);
  const q = compiledWarpRun(init, cf, lines, mcpu, sregs, layout, runOpts);
  let goals = goalsOf(q.bads, (xs) => env.bv.any(xs as Bool[]));
  if (loops) goals = [{ what: `any lane (bug-finder: ${BUG_LANES} lanes per warp, loops unrolled to ${maxBack} trips)`, bad: env.bv.any(goals.map((g) => g.bad as Bool)) }];
  let n = 0;
  if (process.env.PROVE_DEBUG) console.log("built", Math.round(performance.now() - t0), "ms;", goals.length, "goals");
  for (const g of goals) {
    n++;
    const res = await solve(env, [g.bad as Bool], timeoutMs);
    if (process.env.PROVE_DEBUG) console.log(g.what, res.status, Math.round(res.ms));
    if (res.status === "unsat") continue;
    if (res.status === "unknown") {
      const reason = loops ? `${why}; bug-finder (${BUG_LANES} lanes per warp): ${res.reason ?? "unknown"}` : `${res.reason ?? "unknown"} on the query for ${g.what} (per-query timeout ${timeoutMs / 1000} s)`;
      return { verdict: "unknown", ms: performance.now() - t0, reason, ...(res.fault ? { fault: true } : {}) };
    }
    const values = modelValues(env, res.model!, init.symbols);
    const c = compiledWarpRun(concreteInit(values), cf, lines, mcpu, sregs, layout, { ...runOpts, trace: true });
    const hit = c.bads.find((b) => b.cond === true);
    if (!hit) return { verdict: "unknown", ms: performance.now() - t0, reason: `z3 model did not replay concretely (${g.what})` };
    return { verdict: "refuted", ms: performance.now() - t0, reason: hit.what, counterexample: counterexample(cf, mcpu, target, layout, opts.profile ?? "isa", c, hit, performance.now() - t0) };
  }
  if (loops) return { verdict: "unknown", ms: performance.now() - t0, reason: `${why}; bug-finder (${BUG_LANES} lanes per warp, full width): no bug` };
  const vals = bits === null ? "full-width values" : `${bits}-bit values of a (data-independent)`;
  return { verdict: "proved", ms: performance.now() - t0, method: `z3 compiled warp-level (${target} ${mcpu}, ${cf.variant}, ${layout}), ${vals}, loop-free, ${n} queries`, queries: n };
}

/**
 * Proves one extracted warp-level function in every layout of `layouts` (default: its wave's,
 * `compiledWarpLayouts`), each verdict in `layouts`' order. The one-warp layout is subsumed by
 * the two-warps one: its runs are the two-warps runs whose warp 1 has active mask 0 (exec[63:32]
 * = 0 and lanes 32–63 inactive in both; warp 0's arguments, membermasks, active mask and
 * reference are built the same way, the `sgpr` variant's uniform values too; the same small-value
 * width and, for loops, at least as many unrolled trips), and its conditions (warp 0's lanes,
 * exec, LDS, paths) are a subset of the two-warps ones. So `two warps` is proved first, and
 * where it is proved `one warp` is proved without queries; otherwise `one warp` runs itself
 * (it may hold where the two-warps layout does not: a bug across the halves).
 */
export async function proveCompiledWarpLayouts(
  env: Z3Env,
  cf: CompiledFunction,
  mcpu: Mcpu,
  target: "hip" | "llvm",
  sregs: readonly number[],
  opts: { profile?: Profile; timeoutMs?: number; bugLanes?: number; induction?: boolean | "trips" } = {},
  layouts: readonly CompiledWarpLayout[] = compiledWarpLayouts(mcpu),
): Promise<Partial<Record<CompiledWarpLayout, Verdict>>> {
  const out: Partial<Record<CompiledWarpLayout, Verdict>> = {};
  const order = [...layouts].sort((x, y) => (x === "two warps" ? -1 : y === "two warps" ? 1 : 0));
  for (const layout of order) {
    const two = out["two warps"];
    if (layout === "one warp" && two?.verdict === "proved") {
      out[layout] = { verdict: "proved", ms: 0, method: `subsumed by the two-warps proof (the one-warp runs are its runs with warp 1's active mask 0): ${two.method}`, queries: 0 };
      continue;
    }
    await env.recycle(1);
    out[layout] = await proveCompiledWarpLayout(env, cf, mcpu, target, sregs, layout, opts);
  }
  return Object.fromEntries(layouts.map((l) => [l, out[l]!]));
}

/**
 * Proves one extracted warp-level function in every layout of its processor's wave
 * (`proveCompiledWarpLayouts`): proved when every layout is; else the first refutation (in
 * layout order), or the first unknown. Per-layout verdicts in `layouts`.
 */
export async function proveCompiledWarp(
  env: Z3Env,
  cf: CompiledFunction,
  mcpu: Mcpu,
  target: "hip" | "llvm",
  sregs: readonly number[],
  opts: { profile?: Profile; timeoutMs?: number; bugLanes?: number } = {},
): Promise<Verdict & { layouts: Partial<Record<CompiledWarpLayout, Verdict>> }> {
  const t0 = performance.now();
  const layouts = await proveCompiledWarpLayouts(env, cf, mcpu, target, sregs, opts);
  const vs = Object.entries(layouts) as [CompiledWarpLayout, Verdict][];
  const refuted = vs.find(([, v]) => v.verdict === "refuted");
  if (refuted) return { ...refuted[1], ms: performance.now() - t0, layouts };
  const unknown = vs.find(([, v]) => v.verdict !== "proved");
  if (unknown) return { ...unknown[1], ms: performance.now() - t0, ...(unknown[1].verdict === "unknown" ? { reason: `${unknown[0]}: ${unknown[1].reason}` } : {}), layouts } as Verdict & { layouts: typeof layouts };
  const queries = vs.reduce((k, [, v]) => k + (v.verdict === "proved" ? v.queries : 0), 0);
  return { verdict: "proved", ms: performance.now() - t0, method: vs.map(([, v]) => (v as { method: string }).method).join("; "), queries, layouts };
}

function counterexample(cf: CompiledFunction, mcpu: Mcpu, target: "hip" | "llvm", layout: CompiledWarpLayout, profile: Profile, c: Run<CV, boolean>, hit: Bad<boolean>, ms: number): string {
  const f = cf.fn.spec.form as WarpForm;
  const rule = `${target === "hip" ? "clang" : "llc"}:${cf.symbol}`;
  const out = [`check ${formName(f)} → ${target} ${mcpu} (compiled, ${cf.variant}, ${layout})  rule ${rule}  (${profile})  REFUTED (z3, ${(ms / 1000).toFixed(2)} s)`, `ERROR: ${hit.what}`, "", "Example:"];
  const bits = (xs: boolean[]) => xs.map((x) => (x ? "1" : "0")).join("");
  for (const hf of c.halves) {
    const tag = c.halves.length > 1 ? ` (warp lanes ${hf.base}-${hf.base + 31})` : "";
    out.push(`  active${tag} = ${fmt(hf.active)}: ${bits(hf.activeB)} (laneid 0 first)`);
    for (const [n, xs] of Object.entries(hf.src) as [SourceName, CV[]][]) out.push(cf.variant === "vgpr" ? `  ${n}${tag} = [${xs.map((x) => fmt(x)).join(", ")}]` : `  ${n} = ${fmt(xs[0]!)}  (uniform)`);
  }
  const lane = hit.lane ?? 0;
  const hf = c.halves[lane >= 32 ? 1 : 0]!;
  const l = lane - hf.base;
  out.push(`Spec  src/sem/warp.ts (wave lane ${lane} = laneid ${l}: active ${hf.activeB[l] ? 1 : 0}, d ${hf.ref.dDefined[l] ? "defined" : "undefined"}, p ${hf.ref.pDefined[l] ? "defined" : "undefined"})`);
  out.push(`Compiled  ${rule} on ${mcpu} (VGPR values of wave lane ${lane} shown):`);
  if (c.paths.trace.length) out.push(...amdTraceLines(c.paths.trace, lane));
  else out.push(...(cf.lines as MLine[]).map((x) => `  ${showLine(x)}`));
  if (c.paths.error) out.push(`  (stopped: ${c.paths.error})`);
  const fin = c.paths.final;
  if (fin && hit.lane !== undefined) {
    const writes = warpWrites(f);
    if (writes.d && cf.dReg !== undefined) {
      const pred = warpPredicateDest(f);
      const got = fin.vgpr.get(cf.dReg)![lane]!;
      out.push(`Spec value:      d = ${hf.ref.dDefined[l] ? fmt(pred ? hf.ref.d[l]!.x === 1n : hf.ref.d[l]!) : "undefined"}`);
      out.push(`Compiled value:  d = ${pred ? fmt((got.x & 1n) === 1n) : fmt(got)}  (v${cf.dReg})`);
    }
    if (writes.p && cf.pReg !== undefined) {
      out.push(`Spec value:      p = ${hf.ref.pDefined[l] ? fmt(hf.ref.p[l]!) : "undefined"}`);
      out.push(`Compiled value:  p = ${fmt((fin.vgpr.get(cf.pReg)![lane]!.x & 1n) === 1n)}  (v${cf.pReg})`);
    }
  }
  return out.join("\n");
}
