/**
 * @fileoverview `--prove` for the compiled match.sync functions of the `hip` header and the
 * `llvm` module (issue 37 item 5): the code clang-19 / llc-19 made of a match function
 * (targets/hip/print.ts `matchBody`, targets/llvm/print.ts `matchFunction`: a waterfall over
 * the wave, its ballot shifted to the thread's own CUDA warp), extracted (./compiled.ts) and
 * proved against the reference the family registry holds for the form
 * (src/families/index.ts `familyOf(f).semantics`, src/sem/match_sync.ts: not restated here).
 *
 * The contract is the compiled functions' one, as ./prove_compiled_warp.ts states it for the
 * warp-level family (arguments per thread in VGPRs in `cf.args` order, a `.b64` a in a VGPR
 * pair; the `sgpr` variant's uniform arguments in llvm's `inreg` SGPRs or, for hip, in VGPRs
 * holding one value in every active lane; d in `cf.dReg`, p the low bit of `cf.pReg`; two
 * CUDA warps per wave64 in the `two warps` layout, lanes 32–63 inactive in `one warp`; exec
 * restored at exit, no DS result outstanding), with one assumption more: exec ≠ 0 at entry
 * (a function runs because a thread called it; `v_readfirstlane` of an empty exec reads lane
 * 0, which the uniform wrappers never wrote).
 * Conditions: in each active lane whose result the reference defines, d and p equal the
 * reference's (each CUDA warp against its own reference).
 *
 * Two ways to a proof, tried in order:
 *   - **Exact unrolling** (loop-free code, and the `sgpr` variant's loop, which a uniform a
 *     leaves after its first round): the code run symbolically with at most `UNROLL`
 *     back-edges per path (targets/amdgpu/prove/paths.ts `execPaths`), a path that would take
 *     one more a failing condition: where every condition is unsatisfiable, no path loops
 *     longer and the run covers every execution.
 *   - **Induction** (the `vgpr` variant's divergent waterfall: `L: readfirstlane; v_cmp_eq;
 *     break |= eq; v_ret = eq; exec &= ~break; s_cbranch_execnz L`), the invariant of
 *     targets/amdgpu/prove/match.ts (`proveInductive`, argued there) over every lane of the
 *     wave (two CUDA warps share one waterfall), with rem = exec at the loop head:
 *       (1) rem ⊆ rem0 and rem a union of equality classes of a within rem0;
 *       (2) each VGPR the body writes holds, in a retired lane k, E_k — lane k after one run
 *           of the body from the loop's entry state with exec = class(k) — and its entry
 *           value outside rem0; lanes in rem arbitrary;
 *       (3) the structurizer's break mask (a body-written SGPR (pair) that is 0 on entry to
 *           the loop) equals rem0 ∧ ¬rem; every other scalar the body writes arbitrary.
 *     Initiation holds by construction; preserve, the exit summary and the exit (epilogue,
 *     reference, exec, LDS) are queries. A failing inductive query is `unknown`, never a
 *     refutation. Values of a are log2(wave)-bit where the code is data-independent in a
 *     (targets/amdgpu/prove/match.ts `dataIndependence`: the small-value reduction argued
 *     there; per half for a `.b64` that compares its halves apart).
 * A refutation comes only from the exact unrolling, after its model is re-run concretely.
 */
import type { MatchForm, Profile } from "../../src/ir/forms.js";
import { formName } from "../../src/ir/forms.js";
import type { SourceName } from "../../src/ir/ir.js";
import type { BV, CV } from "../../src/sem/bv.js";
import type { MatchResult } from "../../src/sem/match_sync.js";
import { familyOf } from "../../src/families/index.js";
import type { Bad, Init, Verdict } from "../../src/check/prove_types.js";
import { concreteInit, modelValues, symbolicInit } from "../../src/check/prove_types.js";
import { fmt, hash } from "../../src/check/prove_text.js";
import { LANES } from "../../src/check/prove_warp.js";
import type { Bool, BitVec, Z3Env } from "../../src/check/smt.js";
import { solve } from "../../src/check/smt.js";
import type { AmdRoutine } from "../amdgpu/lower.js";
import type { WaveState } from "../amdgpu/interp.js";
import { InterpError, outstandingDs } from "../amdgpu/interp.js";
import type { MLine, MOp } from "../amdgpu/minst.js";
import { isLabel, printOp, s, v } from "../amdgpu/minst.js";
import { record } from "../amdgpu/isa/index.js";
import type { PathsResult } from "../amdgpu/prove/paths.js";
import { amdTraceLines, cloneState, execPaths, initialState, showLine } from "../amdgpu/prove/paths.js";
import { comparesHalves, dataIndependence, loopShape } from "../amdgpu/prove/match.js";
import type { Mcpu } from "../amdgpu/regs.js";
import { TARGETS } from "../amdgpu/regs.js";
import type { CompiledFunction } from "./compiled.js";
import type { CompiledWarpLayout } from "./prove_compiled_warp.js";
import { registerEnds } from "./prove_compiled_warp.js";

/** Back-edges per path the exact unrolling allows (the uniform loop leaves after its first round). */
export const UNROLL = 1;

/** The induction's per-query timeout, as a multiple of the caller's (`proveCompiledMatchLayout`). */
export const INDUCTION_TIMEOUT_FACTOR = 4;

/** One CUDA warp's inputs and reference. */
interface MHalf<V, B> {
  base: number;
  active: V;
  activeB: B[];
  a: V[];
  membermask: V[];
  ref: MatchResult<V, B>;
}

/** The inputs of one run: the entry state, the wave's a per lane (full width), the halves. */
interface MSetup<V, B> {
  st: WaveState<V, B>;
  exec: V;
  aWave: V[];
  halves: MHalf<V, B>[];
  /** Where a arrives (the reduction's register), when in VGPRs. */
  aReg: MOp | undefined;
}

/** Where each argument arrives (per 32-bit part): VGPRs in order, llvm's `inreg` ones in `sregs`. */
function argRegisters(cf: CompiledFunction, sregs: readonly number[]): Map<string, MOp> {
  const out = new Map<string, MOp>();
  let vn = 0;
  let sn = 0;
  for (const a of cf.args) {
    const parts = a.width / 32;
    if (a.inreg) {
      out.set(a.name, s(sregs[sn]!, parts as 1 | 2));
      sn += parts;
    } else {
      out.set(a.name, v(vn, parts as 1 | 2));
      vn += parts;
    }
  }
  return out;
}

/**
 * The entry state and the reference per CUDA warp (file comment). `bits`: a's lanes hold
 * `bits`-bit values (per half where `halves`).
 */
function matchSetup<V, B>(init: Init<V, B>, cf: CompiledFunction, lines: MLine[], mcpu: Mcpu, sregs: readonly number[], layout: CompiledWarpLayout, bits: number | null, halvesApart: boolean): MSetup<V, B> {
  const bv = init.bv;
  const f = cf.fn.spec.form as MatchForm;
  const aw = f.type === "b64" ? 64 : 32;
  const t = TARGETS[mcpu];
  const W = t.wave;
  const nHalves = layout === "two warps" ? 2 : 1;
  const actives = Array.from({ length: nHalves }, (_, h) => init.mk(`active.${h}`, 32));
  const exec = W === 32 ? actives[0]! : bv.concat(actives[1] ?? bv.k(0, 32), actives[0]!);
  const execOn = Array.from({ length: W }, (_, l) => bv.bitAt(exec, l));
  const ends = registerEnds(lines);
  const st = initialState(init, { target: t, vEnd: Math.max(ends.v, 4), sEnd: Math.max(ends.s, ...sregs.map((x) => x + 2)) } as AmdRoutine, exec);
  const regs = argRegisters(cf, sregs);
  // One value of a source (a: full width, small where reduced; membermask: 32 bits).
  const value = (name: string, n: string): V => {
    if (n !== "a") return init.mk(name, 32);
    if (bits === null) return init.mk(name, aw);
    const lo = bv.zext(init.mk(`${name}.lo`, bits), 32);
    if (aw === 32) return lo;
    return bv.concat(halvesApart ? bv.zext(init.mk(`${name}.hi`, bits), 32) : bv.k(0, 32), lo);
  };
  const part = (x: V, p: number, width: number) => (width === 32 ? x : bv.extract(x, 32 * p + 31, 32 * p));
  const wave: Record<string, V[]> = {};
  for (const a of cf.args) {
    const reg = regs.get(a.name)!;
    const parts = a.width / 32;
    let lanes: V[];
    if (cf.variant === "vgpr") lanes = Array.from({ length: W }, (_, l) => value(`${a.name}.${l}`, a.name));
    else {
      const u = value(a.name, a.name);
      lanes = Array.from({ length: W }, () => u);
      if (reg.k === "s") for (let p = 0; p < parts; p++) st.sgpr.set(reg.n + p, part(u, p, a.width));
    }
    if (reg.k === "v")
      for (let p = 0; p < parts; p++)
        st.vgpr.set(
          reg.n + p,
          // hip's uniform variant: one value in every active lane, inactive lanes arbitrary.
          lanes.map((x, l) => (cf.variant === "vgpr" ? part(x, p, a.width) : bv.ite(execOn[l]!, part(x, p, a.width), init.mk(`${a.name}.${l}.${p}.inactive`, 32)))),
        );
    wave[a.name] = lanes;
  }
  const kinds = cf.fn.spec.kinds;
  const src = (n: SourceName, width: number): V[] => {
    const k = kinds[n];
    if (k?.kind === "imm") return Array.from({ length: W }, () => bv.k(k.value & ((1n << BigInt(width)) - 1n), width));
    return wave[n]!;
  };
  const aWave = src("a", aw);
  const mWave = src("membermask", 32);
  // The reference, from the family registry (one definition of match.sync's semantics).
  const semantics = familyOf(f).semantics as <V2, B2>(bv: BV<V2, B2>, f: MatchForm, w: { a: V2[]; membermask: V2[]; active: B2[]; executes: B2[] }) => MatchResult<V2, B2>;
  const halves = actives.map((active, h) => {
    const base = 32 * h;
    const activeB = Array.from({ length: LANES }, (_, l) => bv.bitAt(active, l));
    const a = aWave.slice(base, base + LANES);
    const membermask = mWave.slice(base, base + LANES);
    return { base, active, activeB, a, membermask, ref: semantics(bv, f, { a, membermask, active: activeB, executes: activeB }) };
  });
  return { st, exec, aWave, halves, aReg: regs.get("a")?.k === "v" ? regs.get("a") : undefined };
}

/** The conditions on a final state (file comment), each a `Bad` (lane: the wave lane whose outputs it reads). */
function matchBads<V, B>(bv: BV<V, B>, cf: CompiledFunction, su: MSetup<V, B>, fin: WaveState<V, B>): Bad<B>[] {
  const w = familyOf(cf.fn.spec.form).writes(cf.fn.spec.form) as { d: boolean; p: boolean };
  const bads: Bad<B>[] = [];
  const reg = (n: number | undefined, what: string): V[] | null => {
    if (n !== undefined && fin.vgpr.has(n)) return fin.vgpr.get(n)!;
    bads.push({ what: `the function has no ${what} result`, cond: bv.true });
    return null;
  };
  const dOut = w.d ? reg(cf.dReg, "d") : null;
  const pOut = w.p ? reg(cf.pReg, "p") : null;
  const two = su.halves.length > 1;
  for (const hf of su.halves)
    for (let l = 0; l < LANES; l++) {
      const lane = hf.base + l;
      const tag = two ? ` (warp ${hf.base ? "lanes 32-63" : "lanes 0-31"}, laneid ${l})` : "";
      const on = bv.andB(hf.activeB[l]!, hf.ref.defined[l]!);
      if (dOut) bads.push({ what: `Value mismatch: d in wave lane ${lane}${tag}`, cond: bv.andB(on, bv.notB(bv.eq(dOut[lane]!, hf.ref.d[l]!))), lane });
      if (pOut) bads.push({ what: `Value mismatch: p in wave lane ${lane}${tag}`, cond: bv.andB(on, bv.notB(bv.eqB(bv.bitAt(pOut[lane]!, 0), hf.ref.p[l]!))), lane });
    }
  bads.push({ what: "exec is not restored", cond: fin.exec === su.exec ? bv.false : bv.notB(bv.eq(fin.exec, su.exec)) });
  for (const what of outstandingDs(fin)) bads.push({ what, cond: bv.true });
  return bads.filter((b) => bv.asBool(b.cond) !== false);
}

/** exec ≠ 0 at entry (file comment). */
const called = <V, B>(bv: BV<V, B>, su: MSetup<V, B>): B => bv.notB(bv.eq(su.exec, bv.k(0, bv.width(su.exec))));

/** One goal per wave lane's outputs and one for the rest. */
function laneGoals<B>(bads: Bad<B>[], any: (xs: B[]) => B): { what: string; bad: B }[] {
  const byLane = new Map<number, B[]>();
  const rest: B[] = [];
  for (const b of bads) {
    if (b.lane === undefined) rest.push(b.cond);
    else byLane.set(b.lane, [...(byLane.get(b.lane) ?? []), b.cond]);
  }
  return [...[...byLane].map(([l, cs]) => ({ what: `wave lane ${l}`, bad: any(cs) })), ...(rest.length ? [{ what: "exec, LDS, paths", bad: any(rest) }] : [])];
}

/** The exact unrolling's run (symbolic or concrete by `init`). */
function unrolledRun<V, B>(init: Init<V, B>, cf: CompiledFunction, lines: MLine[], mcpu: Mcpu, sregs: readonly number[], layout: CompiledWarpLayout, bits: number | null, halvesApart: boolean, trace: boolean) {
  const bv = init.bv;
  const su = matchSetup(init, cf, lines, mcpu, sregs, layout, bits, halvesApart);
  const before = cloneState(su.st);
  let paths: PathsResult<V, B>;
  try {
    paths = execPaths(bv, lines, su.st, { maxBack: UNROLL, trace, stepLimit: 200_000 });
  } catch (e) {
    if (!(e instanceof InterpError)) throw e;
    paths = { final: null, done: bv.false, stuck: bv.false, error: e.message, trace: [], steps: 0 };
  }
  const bads: Bad<B>[] = [];
  if (paths.error) bads.push({ what: `the interpreter rejects the code: ${paths.error}`, cond: bv.true });
  const stuck = bv.asBool(paths.stuck) === false ? null : paths.stuck;
  if (paths.final) bads.push(...matchBads(bv, cf, su, paths.final).map((b) => ({ ...b, cond: bv.andB(paths.done, b.cond) })));
  return { su, before, paths, stuck, bads: bads.filter((b) => bv.asBool(b.cond) !== false) };
}

/** Body-written registers (outputs and implicit defs). */
function writtenRegs(lines: readonly MLine[]): { v: Set<number>; s: Set<number>; vcc: boolean } {
  const out = { v: new Set<number>(), s: new Set<number>(), vcc: false };
  for (const l of lines) {
    if (isLabel(l)) continue;
    const rec = record(l.op);
    rec.ops.forEach((sp, i) => {
      if (!sp.out) return;
      const o = l.ops[i]!;
      if (o.k === "v") for (let k = 0; k < o.count; k++) out.v.add(o.n + k);
      if (o.k === "s") for (let k = 0; k < o.count; k++) out.s.add(o.n + k);
      if (o.k === "vcc" || o.k === "vcc_lo" || o.k === "vcc_hi") out.vcc = true;
    });
    if (rec.defs?.includes("vcc")) out.vcc = true;
  }
  return out;
}

/**
 * The loop lemma of this thread's proofs, by loop key: the E_k simplifications and whether
 * preserve and the summary hold. They read only the prologue, the body, the back-edge, the
 * argument registers, the layout and the value reduction (all in the key), so every function
 * with the same loop — `.any` and `.all`, each destination shape, alias or not — shares them;
 * only the exit queries are per function (as targets/amdgpu/prove/match.ts caches its own).
 */
const loopLemmas = new Map<string, Promise<LoopLemma>>();
interface LoopLemma {
  /** `k:n` → which 32-bit part of class(k) E_k(v_n) equals. */
  simple: Map<string, number>;
  queries: number;
  preserve: { ok: true; queries: number } | { ok: false; reason: string; fault: boolean };
  summary: boolean;
  summaryQueries: number;
}

/** The lines up to the back-edge `branch` as text, labels renamed in order (`L0`, …): functions of one module name theirs apart. */
function loopText(lines: readonly MLine[], branch: number): string[] {
  const part = lines.slice(0, branch + 1);
  const names = new Map(part.flatMap((l) => (isLabel(l) ? [l.label] : [])).map((x, i) => [x, `L${i}`]));
  return part.map((l) => (isLabel(l) ? `${names.get(l.label)}:` : `${l.op}${l.enc ? `_${l.enc}` : ""} ${l.ops.map((o) => (o.k === "label" ? (names.get(o.name) ?? o.name) : printOp(o))).join(", ")}`));
}

/**
 * The affinity of a match function's proof (targets/llvm/prove_compiled_matrix.ts runs one
 * affinity on one worker): its loop as the lemma's key reads it (wave, variant, argument
 * registers, the lines up to the back-edge); "" for another family or code without a loop.
 */
export function loopAffinity(cf: CompiledFunction, sregs: readonly number[]): string {
  if (cf.fn.spec.form.op !== "match" || !Array.isArray(cf.lines)) return "";
  const shape = loopShape(cf.lines);
  if (shape.kind !== "one") return "";
  return hash([cf.variant, JSON.stringify(cf.args), sregs.join(","), ...loopText(cf.lines, shape.branch)].join("\n"));
}

/** Runs goals one query each under `base`; the first that is not unsat stops. */
async function solveAll(env: Z3Env, base: Bool[], goals: { what: string; bad: Bool }[], timeoutMs: number, tag: string): Promise<{ ok: true; queries: number } | { ok: false; reason: string; fault: boolean }> {
  let n = 0;
  for (const g of goals) {
    if (env.bv.asBool(g.bad) === false) continue;
    n++;
    const res = await solve(env, [...base, g.bad], timeoutMs, "QF_BV");
    if (process.env.PROVE_DEBUG) console.log(tag, g.what, res.status, Math.round(res.ms));
    if (res.status !== "unsat")
      return { ok: false, fault: !!res.fault, reason: res.status === "sat" ? `${tag} query fails at ${g.what} (the invariant is not strong enough: not proved, not a counterexample)` : `${tag} query (${g.what}): ${res.reason ?? "unknown"} (per-query timeout ${timeoutMs / 1000} s)` };
  }
  return { ok: true, queries: n };
}

/** The induction (file comment) on the divergent waterfall; null where the loop is not its shape. */
async function proveWaterfall(env: Z3Env, cf: CompiledFunction, target: "hip" | "llvm", lines: MLine[], mcpu: Mcpu, sregs: readonly number[], layout: CompiledWarpLayout, timeoutMs: number, t0: number): Promise<Verdict> {
  const bv = env.bv;
  const shape = loopShape(lines);
  if (shape.kind !== "one") return { verdict: "unknown", ms: performance.now() - t0, reason: shape.kind === "none" ? "no loop" : `loop shape not handled by the induction: ${shape.why}` };
  const W = TARGETS[mcpu].wave;
  const regs = argRegisters(cf, sregs);
  const aReg = regs.get("a");
  const di = aReg?.k === "v" ? dataIndependence(lines, aReg) : "a is not in VGPRs";
  const bits = di === null ? (W === 64 ? 6 : 5) : null;
  const halvesApart = bits !== null && comparesHalves(lines, aReg!);
  const init = symbolicInit(env);
  const su = matchSetup(init, cf, lines, mcpu, sregs, layout, bits, halvesApart);
  const pro = lines.slice(0, shape.label);
  const body = lines.slice(shape.label + 1, shape.branch);
  const epi = lines.slice(shape.branch + 1);
  const br = lines[shape.branch]! as Exclude<MLine, { label: string }>;
  const unknown = (reason: string, fault = false): Verdict => ({ verdict: "unknown", ms: performance.now() - t0, reason, ...(fault ? { fault: true } : {}) });
  let ph: PathsResult<BitVec, Bool>;
  try {
    ph = execPaths(bv, pro, cloneState(su.st), { maxBack: 0 });
  } catch (e) {
    if (!(e instanceof InterpError)) throw e;
    return unknown(`the interpreter rejects the prologue: ${e.message}`);
  }
  if (!ph.final) return unknown("the prologue does not reach the loop");
  const Sh = ph.final;
  const rem0 = Sh.exec;
  const lane = (x: BitVec, l: number) => bv.bitAt(x, l);
  const same = (i: number, j: number) => bv.eq(su.aWave[i]!, su.aWave[j]!);
  const k0 = bv.k(0, W);
  const classMask = (k: number): BitVec => {
    let m = k0;
    for (let j = 0; j < W; j++) m = bv.or(m, bv.ite(bv.andB(lane(rem0, j), same(j, k)), bv.k(1n << BigInt(j), W), k0));
    return m;
  };
  const wr = writtenRegs(body);
  const runBody = (st: WaveState<BitVec, Bool>) => {
    const r = execPaths(bv, body, st, { maxBack: 0 });
    if (!r.final) throw new InterpError("the loop body does not reach its back-edge");
    return r.final;
  };
  // (3): the break mask: a body-written SGPR (pair on wave64) that is 0 at the loop's entry.
  const parts = W / 32;
  const breakRegs = [...wr.s].filter((n) => n % parts === 0 && Array.from({ length: parts }, (_, p) => wr.s.has(n + p) && Sh.sgpr.has(n + p) && bv.asBool(bv.eq(Sh.sgpr.get(n + p)!, bv.k(0, 32))) === true).every(Boolean));
  const setMask = (st: WaveState<BitVec, Bool>, n: number, m: BitVec) => {
    for (let p = 0; p < parts; p++) st.sgpr.set(n + p, parts === 1 ? m : bv.extract(m, 32 * p + 31, 32 * p));
  };
  const getMask = (st: WaveState<BitVec, Bool>, n: number): BitVec => (parts === 1 ? st.sgpr.get(n)! : bv.concat(st.sgpr.get(n + 1)!, st.sgpr.get(n)!));
  const key = hash([W, layout, bits, halvesApart, cf.variant, JSON.stringify(cf.args), sregs.join(","), ...loopText(lines, shape.branch)].join("\n"));
  let abandon: (reason: string, fault: boolean) => void = () => {};
  try {
    // E_k (2), simplified where it is a 32-bit part of class(k) (what a waterfall round hands its lanes).
    const rawE = new Map<number, Map<number, BitVec>>();
    const Eraw = (k: number) => {
      let m = rawE.get(k);
      if (!m) {
        const st = cloneState(Sh);
        st.exec = classMask(k);
        const out = runBody(st);
        rawE.set(k, (m = new Map([...wr.v].map((n) => [n, out.vgpr.get(n)![k]!]))));
      }
      return m;
    };
    const lanesIn0 = Array.from({ length: W }, (_, l) => l).filter((l) => bv.asBool(lane(rem0, l)) !== false);
    const cached = loopLemmas.get(key);
    let lemma: LoopLemma | undefined = cached ? await cached : undefined;
    let settle: ((l: LoopLemma) => void) | undefined;
    if (!lemma) loopLemmas.set(key, new Promise<LoopLemma>((r) => (settle = r)));
    // A lemma given up: the waiting proofs get its reason, later ones try again.
    abandon = (reason, fault) => {
      loopLemmas.delete(key);
      settle?.({ simple: new Map(), queries: 0, preserve: { ok: false, reason, fault }, summary: false, summaryQueries: 0 });
      settle = undefined;
    };
    const simple = lemma?.simple ?? new Map<string, number>();
    let simpQ = 0;
    if (!lemma)
      for (const k of lanesIn0)
        for (const n of wr.v) {
          const e = Eraw(k).get(n)!;
          if (bv.width(e) !== 32) continue;
          for (let p = 0; p < parts; p++) {
            const cand = bv.extract(classMask(k), 32 * p + 31, 32 * p);
            simpQ++;
            const res = await solve(env, [lane(rem0, k), bv.notB(bv.eq(e, cand))], timeoutMs, "QF_BV");
            if (res.fault) {
              abandon(`solver fault: ${res.reason ?? "fault"}`, true);
              return unknown(`solver fault: ${res.reason ?? "fault"}`, true);
            }
            if (res.status === "unsat") {
              simple.set(`${k}:${n}`, p);
              break;
            }
          }
        }
    const Ek = (k: number, n: number) => {
      const p = simple.get(`${k}:${n}`);
      return p === undefined ? Eraw(k).get(n)! : bv.extract(classMask(k), 32 * p + 31, 32 * p);
    };
    // The havoc'd loop-head state S.
    const rem = init.mk("rem", W);
    const S = cloneState(Sh);
    S.exec = rem;
    for (const n of wr.s) S.sgpr.set(n, init.mk(`h.s${n}`, 32));
    for (const n of breakRegs) setMask(S, n, bv.and(rem0, bv.not(rem)));
    if (wr.vcc) S.vcc = init.mk("h.vcc", W);
    S.scc = init.mkB("h.scc");
    for (const n of wr.v)
      S.vgpr.set(
        n,
        Sh.vgpr.get(n)!.map((old, l) => {
          const in0 = lane(rem0, l);
          if (bv.asBool(in0) === false) return old;
          return bv.ite(bv.andB(in0, bv.notB(lane(rem, l))), Ek(l, n), bv.ite(in0, init.mk(`h.v${n}.${l}`, 32), old));
        }),
      );
    const subset = (x: BitVec, y: BitVec) => bv.eq(bv.and(x, bv.not(y)), k0);
    const classes = (x: BitVec): Bool => {
      const cs: Bool[] = [];
      for (let i = 0; i < W; i++)
        for (let j = i + 1; j < W; j++) {
          const both = bv.andB(bv.andB(lane(rem0, i), lane(rem0, j)), same(i, j));
          if (bv.asBool(both) !== false) cs.push(bv.implies(both, bv.eqB(lane(x, i), lane(x, j))));
        }
      return bv.all(cs);
    };
    const inv = bv.andB(subset(rem, rem0), classes(rem));
    const S1 = runBody(cloneState(S));
    const rec = record(br.op);
    if (!("branch" in rec.sem)) {
      abandon("the loop does not end in a branch", false);
      return unknown("the loop does not end in a branch");
    }
    const noOperand = () => {
      throw new InterpError("the back-edge reads or writes an operand");
    };
    const c = rec.sem.branch(bv, { wave: W, gen: S1.gen, writeLanes: noOperand, exec: () => S1.exec, scc: () => S1.scc, read: noOperand, readLanes: () => [], write: () => {}, setExec: () => {}, setScc: () => {} });
    const rem1 = S1.exec;
    // Preserve.
    const pres: { what: string; bad: Bool }[] = [
      { what: "rem' ⊆ rem", bad: bv.notB(subset(rem1, rem)) },
      { what: "rem' ≠ rem (progress)", bad: bv.eq(rem1, rem) },
    ];
    // rem' a union of classes, one query per lane i (its pairs i < j).
    for (let i = 0; i < W; i++) {
      const cs: Bool[] = [];
      for (let j = i + 1; j < W; j++) {
        const both = bv.andB(bv.andB(lane(rem0, i), lane(rem0, j)), same(i, j));
        if (bv.asBool(both) !== false) cs.push(bv.implies(both, bv.eqB(lane(rem1, i), lane(rem1, j))));
      }
      if (cs.length) pres.push({ what: `rem' a union of classes at lane ${i}`, bad: bv.notB(bv.all(cs)) });
    }
    for (const n of breakRegs) pres.push({ what: `the break mask s${n}`, bad: bv.notB(bv.eq(getMask(S1, n), bv.and(rem0, bv.not(rem1)))) });
    const vgprAt = (st: WaveState<BitVec, Bool>, l: number, retired: Bool): Bool[] =>
      [...wr.v].map((n) => {
        const x = st.vgpr.get(n)![l]!;
        const in0 = lane(rem0, l);
        if (bv.asBool(in0) === false) return bv.eq(x, Sh.vgpr.get(n)![l]!);
        return bv.andB(bv.implies(bv.andB(in0, retired), bv.eq(x, Ek(l, n))), bv.implies(bv.notB(in0), bv.eq(x, Sh.vgpr.get(n)![l]!)));
      });
    for (let l = 0; l < W; l++) pres.push({ what: `lane ${l} of v${[...wr.v].join(",v")}`, bad: bv.notB(bv.all(vgprAt(S1, l, bv.notB(lane(rem1, l))))) });
    const preserve = lemma?.preserve ?? (await solveAll(env, [inv, c], pres, timeoutMs, "preserve"));
    if (!preserve.ok) {
      if (preserve.fault) abandon(preserve.reason, true);
      else settle?.({ simple, queries: simpQ, preserve, summary: false, summaryQueries: 0 });
      return unknown(preserve.reason, preserve.fault);
    }
    // The summary: at exit exec is empty, every body-written VGPR is E_k in rem0's lanes.
    const sums: { what: string; bad: Bool }[] = [{ what: "exec empty at exit", bad: bv.notB(bv.eq(rem1, k0)) }];
    for (let l = 0; l < W; l++) sums.push({ what: `lane ${l} at exit`, bad: bv.notB(bv.all(vgprAt(S1, l, bv.true))) });
    const summary = lemma ? { ok: lemma.summary, queries: lemma.summaryQueries } : await solveAll(env, [inv, bv.notB(c)], sums, timeoutMs, "summary");
    if (!lemma) {
      lemma = { simple, queries: simpQ, preserve, summary: summary.ok, summaryQueries: summary.ok ? summary.queries : 0 };
      settle?.(lemma);
      settle = undefined;
      if ("fault" in summary && summary.fault) loopLemmas.delete(key);
    }
    const runEpi = (from: WaveState<BitVec, Bool>) => {
      const fin = execPaths(bv, epi, from, { maxBack: 0 });
      if (!fin.final || bv.asBool(fin.stuck) !== false) throw new InterpError("the epilogue has a loop");
      return fin.final;
    };
    let exit: Awaited<ReturnType<typeof solveAll>>;
    let how: string;
    if (summary.ok) {
      const Sx = cloneState(Sh);
      Sx.exec = k0;
      for (const n of wr.s) Sx.sgpr.set(n, init.mk(`x.s${n}`, 32));
      for (const n of breakRegs) setMask(Sx, n, rem0);
      if (wr.vcc) Sx.vcc = init.mk("x.vcc", W);
      Sx.scc = init.mkB("x.scc");
      for (const n of wr.v) Sx.vgpr.set(n, Sh.vgpr.get(n)!.map((old, l) => (bv.asBool(lane(rem0, l)) === false ? old : bv.ite(lane(rem0, l), Ek(l, n), old))));
      exit = await solveAll(env, [], laneGoals(matchBads(bv, cf, su, runEpi(Sx)), (xs) => bv.any(xs)), timeoutMs, "exit");
      how = "exit from the loop summary";
    } else {
      exit = await solveAll(env, [inv, bv.notB(c)], laneGoals(matchBads(bv, cf, su, runEpi(cloneState(S1))), (xs) => bv.any(xs)), timeoutMs, "exit");
      how = "exit under the invariant";
    }
    if (!exit.ok) return unknown(exit.reason, exit.fault);
    const vals = bits === null ? "full-width values" : `${bits}-bit values of a${halvesApart ? " per half" : ""} (data-independent)`;
    const queries = (cached ? 0 : simpQ + preserve.queries + (summary.ok ? summary.queries : 0)) + exit.queries;
    const lemmaText = `loop lemma ${key.slice(0, 8)}${cached ? " (shared)" : `: ${simple.size}/${simpQ} E_k simplified, preserve ${preserve.queries} queries, summary ${summary.ok ? "holds" : "fails"}`}`;
    return { verdict: "proved", ms: performance.now() - t0, method: `z3 compiled waterfall induction (${target} ${mcpu}, ${cf.variant}, ${layout}), ${W} lanes, ${vals}, break mask ${breakRegs.length ? breakRegs.map((n) => `s${n}`).join(",") : "none"} (${lemmaText}; ${how}), ${queries} queries`, queries };
  } catch (e) {
    abandon(`the interpreter rejects the code: ${(e as Error).message}`, false);
    if (!(e instanceof InterpError)) throw e;
    return unknown(`the interpreter rejects the code: ${e.message}`);
  }
}

/**
 * Proves one extracted match.sync function in one layout (file comment). Never throws for
 * wrong code: every failure is a verdict (`unknown` with the reason where neither way proves).
 */
export async function proveCompiledMatchLayout(
  env: Z3Env,
  cf: CompiledFunction,
  mcpu: Mcpu,
  target: "hip" | "llvm",
  sregs: readonly number[],
  layout: CompiledWarpLayout,
  opts: { profile?: Profile; timeoutMs?: number } = {},
): Promise<Verdict> {
  const t0 = performance.now();
  const timeoutMs = opts.timeoutMs ?? 30_000;
  if (!Array.isArray(cf.lines)) return { verdict: "unknown", ms: 0, reason: cf.lines.error };
  const lines = cf.lines;
  const W = TARGETS[mcpu].wave;
  const regs = argRegisters(cf, sregs);
  const aReg = regs.get("a");
  const di = aReg?.k === "v" ? dataIndependence(lines, aReg) : "a is not in VGPRs";
  const bits = di === null ? (W === 64 ? 6 : 5) : null;
  const halvesApart = bits !== null && comparesHalves(lines, aReg!);
  // Exact unrolling first: is there a path that loops longer than UNROLL rounds?
  const init = symbolicInit(env);
  const q = unrolledRun(init, cf, lines, mcpu, sregs, layout, bits, halvesApart, false);
  const assume = called(env.bv, q.su);
  let exact = q.stuck === null;
  let why = "";
  if (!exact) {
    const r = await solve(env, [assume, q.stuck as Bool], timeoutMs);
    exact = r.status === "unsat";
    if (!exact) why = r.status === "sat" ? `a path loops past ${UNROLL} round${UNROLL > 1 ? "s" : ""}` : `the unrolling's query: ${r.reason ?? "unknown"}`;
  }
  if (exact) {
    let n = 0;
    for (const g of laneGoals(q.bads, (xs) => env.bv.any(xs as Bool[]))) {
      n++;
      const res = await solve(env, [assume, g.bad as Bool], timeoutMs);
      if (res.status === "unsat") continue;
      if (res.status === "unknown") return { verdict: "unknown", ms: performance.now() - t0, reason: `${res.reason ?? "unknown"} on the query for ${g.what} (per-query timeout ${timeoutMs / 1000} s)`, ...(res.fault ? { fault: true } : {}) };
      const values = modelValues(env, res.model!, init.symbols);
      const c = unrolledRun(concreteInit(values), cf, lines, mcpu, sregs, layout, bits, halvesApart, true);
      const hit = c.bads.find((b) => b.cond === true);
      if (!hit) return { verdict: "unknown", ms: performance.now() - t0, reason: `z3 model did not replay concretely (${g.what})` };
      return { verdict: "refuted", ms: performance.now() - t0, reason: hit.what, counterexample: counterexample(cf, mcpu, target, layout, c, hit, performance.now() - t0) };
    }
    const vals = bits === null ? "full-width values" : `${bits}-bit values of a${halvesApart ? " per half" : ""} (data-independent)`;
    const loops = loopShape(lines).kind !== "none";
    return { verdict: "proved", ms: performance.now() - t0, method: `z3 compiled match.sync (${target} ${mcpu}, ${cf.variant}, ${layout}), ${vals}, ${loops ? `exact unrolling (no path past ${UNROLL} round${UNROLL > 1 ? "s" : ""}; exec ≠ 0 at entry)` : "loop-free"}, ${n + 1} queries`, queries: n + 1 };
  }
  // The induction's queries are many and each unsat by a short argument, but large (every pair of
  // the wave's lanes): INDUCTION_TIMEOUT_FACTOR times the per-query timeout each.
  const ind = await proveWaterfall(env, cf, target, lines, mcpu, sregs, layout, timeoutMs * INDUCTION_TIMEOUT_FACTOR, t0);
    return ind.verdict === "unknown" ? { ...ind, reason: `exact unrolling: ${why}; induction: ${ind.reason}` } : ind;
}

function counterexample(cf: CompiledFunction, mcpu: Mcpu, target: "hip" | "llvm", layout: CompiledWarpLayout, c: ReturnType<typeof unrolledRun<CV, boolean>>, hit: Bad<boolean>, ms: number): string {
  const f = cf.fn.spec.form as MatchForm;
  const rule = `${target === "hip" ? "clang" : "llc"}:${cf.symbol}`;
  const out = [`check ${formName(f)} → ${target} ${mcpu} (compiled, ${cf.variant}, ${layout})  rule ${rule}  REFUTED (z3, ${(ms / 1000).toFixed(2)} s)`, `ERROR: ${hit.what}`, "", "Example:"];
  const bits = (xs: boolean[]) => xs.map((x) => (x ? "1" : "0")).join("");
  for (const hf of c.su.halves) {
    const tag = c.su.halves.length > 1 ? ` (warp lanes ${hf.base}-${hf.base + 31})` : "";
    out.push(`  active${tag} = ${fmt(hf.active)}: ${bits(hf.activeB)} (laneid 0 first)`);
    out.push(`  a${tag} = [${hf.a.map((x) => fmt(x)).join(", ")}]`, `  membermask${tag} = [${hf.membermask.map((x) => fmt(x)).join(", ")}]`);
  }
  const lane = hit.lane ?? 0;
  out.push(`Compiled  ${rule} on ${mcpu} (VGPR values of wave lane ${lane} shown):`);
  if (c.paths.trace.length) out.push(...amdTraceLines(c.paths.trace, lane));
  else out.push(...(cf.lines as MLine[]).map((x) => `  ${showLine(x)}`));
  if (c.paths.error) out.push(`  (stopped: ${c.paths.error})`);
  return out.join("\n");
}
