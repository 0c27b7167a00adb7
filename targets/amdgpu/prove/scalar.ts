/**
 * @fileoverview The AMDGPU prover for the scalar forms (szext, vshl/vshr), moved from
 * src/check/prove.ts: static refutations (availability, hazards' text), the lane-coupling
 * analysis that lets one active lane stand for the wave, the symbolic run and its
 * counterexample, the routine's canonical text for query keys, and the AMDGPU half of the
 * selector-stage reduction with its one-instruction lemmas. The model (./model.ts) ties
 * these to src/target/prover.ts.
 */
import type { Profile, Sel } from "../../../src/ir/forms.js";
import type { RoutineSpec, SourceName } from "../../../src/ir/ir.js";
import { sourcesOf } from "../../../src/ir/ir.js";
import type { CV } from "../../../src/sem/bv.js";
import { keep } from "../../../src/sem/guard.js";
import { scalarSemantics } from "../../../src/check/scalar.js";
import type { Bad, Init, ProveTarget, Reduction, SelectorLemma, SelectorStage, Verdict } from "../../../src/check/prove_types.js";
import { amdgpu, concreteInit, modelValues, symbolicInit, targetName } from "../../../src/check/prove_types.js";
import { fmt, hash, header, inputLines, referenceLines } from "../../../src/check/prove_text.js";
import type { Fp, FpBV } from "../../../src/check/prove_fp.js";
import { selected } from "../../../src/check/prove_fp.js";
import type { Bool, BitVec, Z3Env } from "../../../src/check/smt.js";
import { solve } from "../../../src/check/smt.js";
import type { AmdRoutine } from "../lower.js";
import { lowerWithRule } from "../lower.js";
import type { WaveState } from "../interp.js";
import { InterpError, run } from "../interp.js";
import { contractBads, dVgpr, isScratch } from "../contract.js";
import { record } from "../isa/index.js";
import type { MInst, MLine, MOp } from "../minst.js";
import { isLabel, printOp } from "../minst.js";
import type { Target } from "../regs.js";
import type { AmdRule } from "../rules/rule.js";
import type { PathsResult } from "./paths.js";
import { amdTraceLines, cloneState, execPaths, initialState, readSource, showLine } from "./paths.js";

/** An instruction the target's generation does not have (records' `only`), or null. */
export function availability(r: AmdRoutine): string | null {
  for (const l of r.lines) {
    if (isLabel(l)) continue;
    const rec = record(l.op);
    if (rec.only && !rec.only.includes(r.target.gen)) return `${l.op} is not an instruction of ${r.target.mcpu} (it exists on gfx${rec.only.join("/")} generations only)`;
  }
  return null;
}

/** A refutation without a model: the reason and the lowering's lines. */
export function refutedStatic(spec: RoutineSpec, target: ProveTarget, profile: Profile, rule: string, r: AmdRoutine, why: string, t0: number): Verdict {
  const text = [header(spec.form, target, rule, profile, performance.now() - t0), `ERROR: ${why}`, "", "Lowering:", ...r.lines.map((l) => `  ${showLine(l)}`)].join("\n");
  return { verdict: "refuted", ms: performance.now() - t0, reason: why, counterexample: text };
}

// ---------------------------------------------------------------------------------------
// Scalar forms (szext, vshl/vshr) on AMDGPU

/**
 * Whether lanes of a scalar routine interact. A sequence is lane-local when every VGPR value
 * is computed per lane and lane masks (VOPC results) are only combined bitwise with other
 * lane masks and consumed as v_cndmask's lane mask. Then a wave of two lanes — one active,
 * one inactive — with symbolic initial registers covers every wave and every exec:
 *   - an active lane i computes, from its own inputs and the uniform (SGPR) values, exactly
 *     what lane 0 computes from the same values under exec = {0}: VALU records run per lane,
 *     VOPC writes the lane's own bit, bitwise SALU ops on masks act bit by bit, and
 *     v_cndmask reads the lane's own bit — nothing depends on which lane it is;
 *   - an inactive lane is never read (nothing crosses lanes) and never written (VALU writes
 *     only exec lanes), so one symbolic inactive lane stands for all of them, and "inactive
 *     lanes unchanged" is checked on it;
 *   - registers start symbolic, so a read of a register the routine did not set, or a
 *     write outside its scratch window, shows up as a wrong value or a contract violation.
 * (The prover's wave is the target's, 32 or 64 lanes, with lane 0 active and one shared
 * symbol per register for every other lane: the same two-lane argument.) Anything that moves
 * data across lanes — readlane/readfirstlane, a lane mask read as data, combined with data or
 * summarised by SCC, an exec write, a branch — makes the prover use a symbolic exec over the
 * 32 PTX lanes, every lane with its own inputs, instead.
 * @returns the reason the routine is lane-coupled, or null.
 */
export function laneCoupling(lines: readonly MLine[], wave: 32 | 64): string | null {
  const masks = new Set<string>(["vcc", "vcc_lo", "exec", "exec_lo"]);
  const regsOf = (o: MOp): string[] => {
    if (o.k === "s") return o.count === 2 ? [`s${o.n}`, `s${o.n + 1}`] : [`s${o.n}`];
    if (o.k === "vcc" || o.k === "vcc_lo" || o.k === "vcc_hi") return ["vcc"];
    if (o.k === "exec" || o.k === "exec_lo" || o.k === "exec_hi") return ["exec"];
    return [];
  };
  const isMask = (o: MOp) => regsOf(o).some((x) => masks.has(x) || (x === "vcc" && masks.has("vcc")));
  let sccFromMask = false;
  for (const l of lines) {
    if (isLabel(l)) return "labels (control flow)";
    const rec = record(l.op);
    if ("branch" in rec.sem) return `${l.op} (control flow)`;
    if (rec.crossLane) return `${l.op} reads another lane`;
    const outs = rec.ops.map((s, i) => (s.out ? i : -1)).filter((i) => i >= 0);
    const ins = rec.ops.map((s, i) => (s.out ? -1 : i)).filter((i) => i >= 0);
    for (const i of outs) if (regsOf(l.ops[i]!).includes("exec")) return `${l.op} writes exec`;
    if (rec.defs?.includes("exec")) return `${l.op} writes exec`;
    if (rec.uses?.includes("scc") && sccFromMask) return `${l.op} reads SCC computed from a lane mask`;
    const maskIns = ins.filter((i) => isMask(l.ops[i]!));
    if ("cmp" in rec.sem) {
      for (const i of outs) for (const x of regsOf(l.ops[i]!)) masks.add(x);
      if (maskIns.length) return `${l.op} compares a lane mask`;
      continue;
    }
    if ("lane" in rec.sem) {
      for (const i of maskIns) if (rec.ops[i]!.w !== "wave") return `${l.op} reads a lane mask as data`;
      continue;
    }
    // SALU
    if (maskIns.length) {
      if (!rec.bitwise) return `${l.op} reads a lane mask`;
      // Mixing a mask with data (bit i of a uniform value, or of a constant other than 0 and
      // ~0) would make lane i's result depend on bit i: not lane-symmetric.
      for (const i of ins) {
        const o = l.ops[i]!;
        if (isMask(o)) continue;
        if (o.k === "imm" && (BigInt.asUintN(64, o.value) === 0n || BigInt.asIntN(64, o.value) === -1n)) continue;
        return `${l.op} combines a lane mask with ${printOp(o)}`;
      }
      if (rec.ops[maskIns[0]!]!.w !== wave && rec.ops[maskIns[0]!]!.w !== "wave") return `${l.op} reads part of a lane mask`;
      for (const i of outs) for (const x of regsOf(l.ops[i]!)) masks.add(x);
      if (rec.defs?.includes("scc") || "scalar" in rec.sem) sccFromMask = true;
    } else {
      for (const i of outs) for (const x of regsOf(l.ops[i]!)) masks.delete(x);
      if (rec.defs?.includes("scc")) sccFromMask = false;
    }
  }
  return null;
}

interface ScalarRun<V, B> {
  before: WaveState<V, B>;
  after: WaveState<V, B> | null;
  paths: PathsResult<V, B>;
  /** Lanes checked, each with its inputs and the expected and lowered d. */
  lanes: { lane: number; active: B; a: V; b: V; c: V; g?: B; dPrior?: V; expected: V; got: V }[];
  bads: Bad<B>[];
}

/**
 * Builds one run of a scalar routine over `init`: the state, the reference per checked lane
 * and the failure conditions. `mode` "lane0": exec = {lane 0} (lane-local routines);
 * "all": exec = a symbolic mask of the 32 PTX lanes, every lane checked.
 */
function scalarRun<V, B>(init: Init<V, B>, r: AmdRoutine, profile: Profile, mode: "lane0" | "all", traceRun = false): ScalarRun<V, B> {
  const bv = init.bv;
  const W = r.target.wave;
  const exec = mode === "lane0" ? bv.k(1, W) : bv.zext(init.mk("active", 32), W);
  const st = initialState(init, r, exec, mode === "lane0");
  const before = cloneState(st);
  const f = r.spec.form;
  const src = (name: SourceName, lane: number): V => {
    const o = r.layout.src[name];
    return o ? readSource(bv, before, o, 32, lane) : bv.k(0, 32);
  };
  const activeBit = (l: number): B => bv.bitAt(exec, l);
  const laneList = mode === "lane0" ? [0] : Array.from({ length: 32 }, (_, l) => l);
  let paths: PathsResult<V, B>;
  try {
    paths = execPaths(bv, r.lines, st, { maxBack: 64, trace: traceRun, stepLimit: 100_000 });
  } catch (e) {
    if (e instanceof InterpError) {
      paths = { final: null, done: bv.false, stuck: bv.false, error: e.message, trace: [], steps: 0 };
    } else throw e;
  }
  const after = paths.final;
  const lanes: ScalarRun<V, B>["lanes"] = [];
  const bads: Bad<B>[] = [];
  if (paths.error) bads.push({ what: `the interpreter rejects the sequence: ${paths.error}`, cond: bv.true });
  if (bv.asBool(paths.stuck) !== false) bads.push({ what: "the routine does not reach its end (loop bound exceeded)", cond: paths.stuck });
  if (after) {
    for (const l of laneList) {
      const a = src("a", l);
      const b = src("b", l);
      const c = sourcesOf(f).includes("c") ? src("c", l) : bv.k(0, 32);
      const ref = scalarSemantics(bv, f, profile, a, b, c);
      let expected = ref.value;
      let g: B | undefined;
      let dPrior: V | undefined;
      if (r.spec.guarded) {
        g = bv.bitAt(readSource(bv, before, r.layout.guard!, W, 0), l);
        dPrior = before.vgpr.get((r.layout.dPrior as { n: number }).n)![l]!;
        expected = keep(bv, g, expected, dPrior);
      }
      const got = after.vgpr.get(dVgpr(r) ?? 0)![l]!;
      const mismatch = bv.andB(bv.andB(activeBit(l), bv.orB(ref.defined, g === undefined ? bv.false : bv.notB(g))), bv.notB(bv.eq(got, expected)));
      lanes.push({ lane: l, active: activeBit(l), a, b, c, ...(g !== undefined ? { g, dPrior: dPrior! } : {}), expected, got });
      bads.push({ what: `Value mismatch (lane ${l})`, cond: mismatch, lane: l });
    }
    bads.push(...contractBads(bv, r, before, after, activeBit));
  }
  return { before, after, paths, lanes, bads };
}

/** Proves a scalar routine (one query; one active lane when lane-local, else 32 symbolic lanes). */
export async function proveAmdScalar(env: Z3Env, r: AmdRoutine, profile: Profile, timeoutMs: number, t0: number): Promise<Verdict> {
  const coupled = laneCoupling(r.lines, r.target.wave);
  const mode = coupled ? "all" : "lane0";
  const init = symbolicInit(env);
  const q = scalarRun(init, r, profile, mode);
  const target = amdgpu(r.target.mcpu);
  const bad = env.bv.any(q.bads.map((b) => b.cond));
  let res = await solve(env, [bad], timeoutMs);
  let method = `z3 ${mode === "lane0" ? "one active lane (lane-local)" : `32 symbolic lanes (${coupled})`}`;
  let queries = 1;
  // Past the timeout: split on lane 0's b (b = 0, …, 31, b ≥ 32 — a complete partition of b,
  // so the query holds iff every part does). A constant b makes the variable shifts and bit
  // positions that szext and the video shifts take from b constant (a uniform compiled szext
  // computes b's sign extension with s_lshl/s_ashr by 32 - b, which z3 does not finish in 30 s).
  if (res.status === "unknown" && !res.fault && r.layout.src.b && q.lanes[0]) {
    const b = q.lanes[0].b;
    const bv = env.bv;
    const parts = [...Array.from({ length: 32 }, (_, k) => bv.eq(b, bv.k(k, 32))), bv.ule(bv.k(32, 32), b)];
    const split = await solveParts(env, bad, parts, timeoutMs);
    if (split) {
      res = split.res;
      queries += split.queries;
      if (res.status === "unsat") method += `, split on b (33 parts, after a timeout of the whole query)`;
    }
  }
  if (res.status === "unsat") return { verdict: "proved", ms: performance.now() - t0, method, queries };
  if (res.status === "unknown") return { verdict: "unknown", ms: performance.now() - t0, reason: res.reason ?? "unknown", ...(res.fault ? { fault: true } : {}) };
  // A model: re-run concretely with its values and print the counterexample.
  const values = modelValues(env, res.model!, init.symbols);
  const c = scalarRun(concreteInit(values), r, profile, mode, true);
  const hit = c.bads.find((b) => b.cond === true);
  if (!hit) return { verdict: "unknown", ms: performance.now() - t0, reason: "z3 model did not replay concretely" };
  const text = scalarAmdCounterexample(r, profile, target, c, hit, performance.now() - t0);
  return { verdict: "refuted", ms: performance.now() - t0, reason: hit.what, counterexample: text };
}

/**
 * Solves `bad ∧ part` for each part of a partition: unsat when every part is; the first sat
 * (with its model) or unknown otherwise. Each part gets `timeoutMs`.
 */
async function solveParts(env: Z3Env, bad: Bool, parts: readonly Bool[], timeoutMs: number): Promise<{ res: Awaited<ReturnType<typeof solve>>; queries: number } | null> {
  let queries = 0;
  for (const part of parts) {
    const res = await solve(env, [bad, part], timeoutMs);
    queries++;
    if (res.status !== "unsat") return { res, queries };
  }
  return { res: { status: "unsat", ms: 0 }, queries };
}

function scalarAmdCounterexample(r: AmdRoutine, profile: Profile, target: ProveTarget, c: ScalarRun<CV, boolean>, hit: Bad<boolean>, ms: number): string {
  const lane = hit.lane ?? c.lanes[0]?.lane ?? 0;
  const L = c.lanes.find((x) => x.lane === lane) ?? c.lanes[0];
  const lines = [header(r.spec.form, target, r.rule, profile, ms), `ERROR: ${hit.what}`, "", "Example:"];
  if (L) {
    lines.push(...inputLines(r.spec, { a: L.a.x, b: L.b.x, c: L.c.x }));
    if (L.g !== undefined) lines.push(`  g = ${fmt(L.g)}`, `  d (prior) = ${fmt(L.dPrior!)}`);
    lines.push(`Spec  src/sem (profile ${profile}):`, ...referenceLines(r.spec.form, profile, L.a, L.b, L.c));
  }
  lines.push(`Lowering  ${targetName(target)} (exec = ${fmt(c.before.exec)}; lane ${lane} shown):`, ...amdTraceLines(c.paths.trace, lane));
  if (c.paths.error) lines.push(`  (stopped: ${c.paths.error})`);
  if (L && c.after) {
    lines.push(`Spec value:     ${fmt(L.expected)}`);
    lines.push(`Lowered value:  ${fmt(L.got)}`);
  }
  const m = /^(v|s)(\d+) lane (\d+) changed|^s(\d+) changed/.exec(hit.what);
  if (m && c.after) {
    if (m[1] === "v") {
      const n = Number(m[2]);
      const l = Number(m[3]);
      lines.push(`  v${n} lane ${l}: before ${fmt(c.before.vgpr.get(n)![l]!)}, after ${fmt(c.after.vgpr.get(n)![l]!)}`);
    } else {
      const n = Number(m[4]);
      lines.push(`  s${n}: before ${fmt(c.before.sgpr.get(n)!)}, after ${fmt(c.after.sgpr.get(n)!)}`);
    }
  }
  if (hit.what.startsWith("exec") && c.after) lines.push(`  exec: before ${fmt(c.before.exec)}, after ${fmt(c.after.exec)}`);
  return lines.join("\n");
}



/** The canonical text of an AMDGPU routine: everything its proof reads besides the spec. */
export function routineText(r: AmdRoutine): string {
  const lay = r.layout;
  const src = Object.entries(lay.src).map(([k, o]) => `${k}=${printOp(o)}`).join(",");
  return [
    `w${r.target.wave}`,
    `src ${src}`,
    lay.guard ? `guard ${printOp(lay.guard)} prior ${printOp(lay.dPrior!)}` : "unguarded",
    `scratch v${lay.vScratch}-${r.vEnd} s${lay.sScratch}-${r.sEnd}`,
    ...r.lines.map(showLine),
  ].join("\n");
}


/**
 * A one-instruction lemma: after `inst`, VGPR `dst` (lane 0) holds `selected(src)`, the
 * field `sel` of source register `src`, extended (`signed`) to 32 bits.
 */
export interface AmdSelectorLemma extends SelectorLemma {
  wave: 32 | 64;
  inst: MInst;
  src: MOp;
  dst: number;
  sel: Sel;
  signed: boolean;
}

/**
 * The AMDGPU half of the selector-stage reduction (src/check/prove.ts reduceSelectors): both
 * routines lane-local with a syntactic contract (they write only v0, their scratch window,
 * vcc and scc), the routine for F starts with instructions that extract the fields (each
 * proved by an `AmdSelectorLemma`), and after replacing their results by α(a), β(b) it
 * computes the same term for d as the routine for F0 on α(a), β(b). null: no reduction.
 * @throws Error when a lowering fails (the driver treats it as no reduction).
 */
export function reduceAmdSelectors(spec: RoutineSpec, t: Target, profile: Profile, ar: AmdRule, stage: SelectorStage): Reduction | null {
  const { asel, bsel, base, P, alpha, beta, aSigned, bSigned } = stage;
  const f0 = base.form;
  if (!ar.when(f0, { spec: base, t, profile })) return null;
  const rF = lowerWithRule(spec, t, profile, ar);
  const r0 = lowerWithRule(base, t, profile, ar);
  if (laneCoupling(rF.lines, t.wave) || laneCoupling(r0.lines, t.wave)) return null;
  if (!writesOnlyScratch(rF) || !writesOnlyScratch(r0)) return null;
  // The extraction prefix: leading VALU instructions reading only a, b and immediates.
  const lemmas: AmdSelectorLemma[] = [];
  const want: { which: "a" | "b"; src: MOp; sel: Sel; signed: boolean; to: (x: Fp) => Fp }[] = [];
  if (asel) want.push({ which: "a", src: rF.layout.src.a!, sel: asel, signed: aSigned, to: alpha });
  if (bsel) want.push({ which: "b", src: rF.layout.src.b!, sel: bsel, signed: bSigned, to: beta });
  const subst = new Map<number, { dst: number; to: (x: Fp) => Fp; src: MOp }>(); // line index → substitution
  for (let i = 0; i < rF.lines.length && want.length; i++) {
    const l = rF.lines[i]!;
    if (isLabel(l)) return null;
    const rec = record(l.op);
    if (!("lane" in rec.sem)) break;
    const ins = rec.ops.map((sp, j) => (sp.out ? null : l.ops[j]!)).filter((o): o is MOp => o !== null);
    const regs = ins.filter((o) => o.k !== "imm");
    const out = l.ops[rec.ops.findIndex((sp) => sp.out)]!;
    if (out.k !== "v" || out.count !== 1 || regs.length !== 1) break;
    const k = want.findIndex((w) => printOp(w.src) === printOp(regs[0]!));
    if (k < 0) break;
    const w = want[k]!;
    const lemma: AmdSelectorLemma = { key: "", wave: t.wave, inst: l, src: w.src, dst: out.n, sel: w.sel, signed: w.signed };
    lemma.key = hash(`sel\n${t.wave}\n${showLine(l)}\n${printOp(w.src)}\n${w.sel}\n${w.signed}`);
    lemmas.push(lemma);
    subst.set(i, { dst: out.n, to: w.to, src: w.src });
    want.splice(k, 1);
  }
  if (want.length) return null;
  const dF = fpRun(P, rF, subst, null);
  const d0 = fpRun(P, r0, new Map(), (st) => {
    // F0's inputs: a := α(a), b := β(b) (lane 0 of a VGPR, or the SGPR).
    for (const w of [asel ? { o: r0.layout.src.a!, to: alpha } : null, bsel ? { o: r0.layout.src.b!, to: beta } : null]) {
      if (!w) continue;
      if (w.o.k === "v") st.vgpr.get(w.o.n)![0] = w.to(st.vgpr.get(w.o.n)![0]!);
      else if (w.o.k === "s") st.sgpr.set(w.o.n, w.to(st.sgpr.get(w.o.n)!));
      else return false;
    }
    return true;
  });
  if (!dF || !d0 || dF !== d0) return null;
  return { base, lemmas };
}

function writesOnlyScratch(r: AmdRoutine): boolean {
  for (const l of r.lines) {
    if (isLabel(l)) return false;
    const rec = record(l.op);
    if (rec.defs?.includes("exec")) return false;
    for (let j = 0; j < rec.ops.length; j++) {
      if (!rec.ops[j]!.out) continue;
      const o = l.ops[j]!;
      if (o.k === "vcc" || o.k === "vcc_lo" || o.k === "scc") continue;
      if (o.k === "v") {
        for (let n = o.n; n < o.n + o.count; n++) if (n !== dVgpr(r) && !isScratch(r, "v", n)) return false;
      } else if (o.k === "s") {
        for (let n = o.n; n < o.n + o.count; n++) if (!isScratch(r, "s", n)) return false;
      } else return false;
    }
  }
  return true;
}

/**
 * Runs a lane-local routine over FpBV with one active lane; `subst` replaces, right after
 * line i, lane 0 of VGPR dst by `to(initial value of src)`. Returns the term of d (lane 0).
 */
function fpRun(P: FpBV, r: AmdRoutine, subst: Map<number, { dst: number; to: (x: Fp) => Fp; src: MOp }>, prepare: ((st: WaveState<Fp, Fp>) => boolean) | null): Fp | null {
  const init: Init<Fp, Fp> = { bv: P, mk: (name, w) => P.sym(name, w), mkB: (name) => P.sym(name, 1) };
  const st = initialState(init, r, P.k(1, r.target.wave), true);
  const before = cloneState(st);
  if (prepare && !prepare(st)) return null;
  for (let i = 0; i < r.lines.length; i++) {
    run(P, [r.lines[i]!], st);
    const s = subst.get(i);
    if (s) st.vgpr.get(s.dst)![0] = s.to(readSource(P, before, s.src, 32, 0));
  }
  return st.vgpr.get(dVgpr(r) ?? 0)![0]!;
}

/** Proves a selector lemma with z3 (one active lane; the instruction is lane-local). */
export async function proveSelectorLemma(env: Z3Env, lemma: AmdSelectorLemma, timeoutMs = 30_000): Promise<boolean> {
  await env.recycle(1);
  const bv = env.bv;
  const W = lemma.wave;
  const st: WaveState<BitVec, Bool> = { wave: W, vgpr: new Map(), sgpr: new Map(), vcc: bv.sym("vcc", W), exec: bv.k(1, W), scc: bv.symB("scc") };
  for (const o of lemma.inst.ops) {
    if (o.k === "v") for (let n = o.n; n < o.n + o.count; n++) st.vgpr.set(n, new Array<BitVec>(W).fill(bv.sym(`v${n}.x`, 32)).map((x, l) => (l === 0 ? bv.sym(`v${n}.0`, 32) : x)));
    if (o.k === "s") for (let n = o.n; n < o.n + o.count; n++) st.sgpr.set(n, bv.sym(`s${n}`, 32));
  }
  const x = readSource(bv, st, lemma.src, 32, 0);
  run(bv, [lemma.inst], st);
  const got = st.vgpr.get(lemma.dst)![0]!;
  const res = await solve(env, [bv.notB(bv.eq(got, selected(bv, x, lemma.sel, lemma.signed)))], timeoutMs);
  return res.status === "unsat";
}
