/**
 * @fileoverview SMT refinement proofs of lowerings against the PTX reference (src/sem), in
 * Alive2's terms: wherever the reference is defined, the lowering's value equals it, and the
 * lowering changes nothing else. One query per form × operand kinds × rule × target ×
 * profile, shadowed rules included (correctness never depends on which rule wins).
 *
 * Targets:
 *   - AMDGPU, per mcpu: the emitted lines run through targets/amdgpu/interp.ts over the
 *     symbolic algebra (src/check/smt.ts); each instruction's record states its own shift
 *     masking. Branches are followed by the predicated executor `execPaths` below (both
 *     arms merged, back-edges unrolled to a bound); match.sync loops are proved inductively
 *     in ./prove_match.ts.
 *   - PIR (targets/portable): the portable IR is evaluated by `evalPir` over the same
 *     algebra, with its poison shifts; JS and C are printed from the same PIR, so one PIR
 *     proof covers both. Poison must never reach an output.
 *
 * Verdicts (design.md §2.5): `proved` (z3 unsat over every input), `refuted` (a model that
 * replays concretely, printed in Alive2's layout), `tested(n)` (never produced by a proof),
 * `unknown` (timeout, solver fault, or a shape the prover does not handle). A refutation is
 * only reported once the model has been re-run concretely and shows the failure.
 */
import { createHash } from "node:crypto";
import type { Form, MatchForm, Profile, Sel, VshForm } from "../ir/forms.js";
import { selField } from "../sem/vsh.js";
import { formId, formName } from "../ir/forms.js";
import type { RoutineSpec, SourceName } from "../ir/ir.js";
import { sourcesOf } from "../ir/ir.js";
import type { BV, CV } from "../sem/bv.js";
import { concrete, traced } from "../sem/bv.js";
import type { AmdRoutine } from "../../targets/amdgpu/lower.js";
import { applicableRules, lowerWithRule } from "../../targets/amdgpu/lower.js";
import type { RunResult, StepTrace, WaveState } from "../../targets/amdgpu/interp.js";
import { InterpError, run } from "../../targets/amdgpu/interp.js";
import { contractBads } from "../../targets/amdgpu/contract.js";
import { record } from "../../targets/amdgpu/isa/index.js";
import { checkHazards, formatViolation, hazardTarget } from "../../targets/amdgpu/hazards.js";
import type { WaveIO } from "../../targets/amdgpu/isa/record.js";
import type { MInst, MLine, MOp } from "../../targets/amdgpu/minst.js";
import { isLabel, printOp } from "../../targets/amdgpu/minst.js";
import type { Mcpu } from "../../targets/amdgpu/regs.js";
import { TARGETS } from "../../targets/amdgpu/regs.js";
import type { AmdRule } from "../../targets/amdgpu/rules/rule.js";
import type { Arg, PExpr, PirFunction, PType, Scalar, Slot } from "../../targets/portable/pir.js";
import { applyOp, evalPir, kids, widthOf } from "../../targets/portable/pir.js";
import type { PortableRule } from "../../targets/portable/rules/index.js";
import { portableRulesFor } from "../../targets/portable/rules/index.js";
import { scalarSemantics } from "./scalar.js";
import { keep } from "../sem/guard.js";
import type { Bool, BitVec, Z3Env } from "./smt.js";
import { loadZ3, modelBool, modelValue, solve } from "./smt.js";
import { proveAmdMatch, provePirMatch } from "./prove_match.js";

// ---------------------------------------------------------------------------------------
// Verdicts and targets

export type Verdict =
  | { verdict: "proved"; ms: number; method: string; queries: number; bugFinder?: BugFinderReport }
  | { verdict: "refuted"; ms: number; reason: string; counterexample: string }
  | { verdict: "tested"; ms: number; n: number; detail: string }
  | { verdict: "unknown"; ms: number; reason: string; fault?: boolean; bugFinder?: BugFinderReport };

/**
 * What the match.sync bug-finder (full width, up to 16 lanes) did beside a proof. It can
 * only refute: "no bug" and "timeout" never change a verdict, and its timeouts are reported
 * here, not as unknown.
 */
export interface BugFinderReport {
  lanes: number;
  status: "no bug" | "counterexample" | "timeout" | "solver fault" | "model did not replay";
  ms: number;
}

/** Where a lowering runs: an AMDGPU processor, or the portable IR (which JS and C share). */
export type ProveTarget = { kind: "amdgpu"; mcpu: Mcpu } | { kind: "pir" };

export const PIR: ProveTarget = { kind: "pir" };
export const amdgpu = (mcpu: Mcpu): ProveTarget => ({ kind: "amdgpu", mcpu });

export function targetName(t: ProveTarget): string {
  return t.kind === "amdgpu" ? `amdgpu ${t.mcpu}` : "pir (js, c)";
}

export interface ProveOptions {
  /** Per-query solver timeout (default 30 s). */
  timeoutMs?: number;
  /** The thread's z3 (loaded when absent). */
  env?: Z3Env;
  /**
   * match.sync loops: the full-width bug-finder runs `"first"` (default; true), as a
   * `"fallback"` when the proof fails, or not at all (false). It can only refute.
   */
  bugFinder?: boolean | "first" | "fallback";
  /** match.sync bug-finder: lanes (≤ 16) and its timeout (default 16, 60 s). */
  bugLanes?: number;
  bugTimeoutMs?: number;
}

/** A rule for either kind of target. */
export type AnyRule = AmdRule | PortableRule;

/** Every rule that applies to a routine on a target, shadowed ones included. */
export function rulesFor(spec: RoutineSpec, target: ProveTarget, profile: Profile): AnyRule[] {
  return target.kind === "amdgpu" ? applicableRules(spec, TARGETS[target.mcpu], profile) : portableRulesFor(spec);
}

/**
 * Proves one rule's lowering of a routine against the reference at `profile`.
 * Never throws for a wrong lowering: every failure is a verdict.
 */
export async function proveRoutine(spec: RoutineSpec, target: ProveTarget, profile: Profile, rule: AnyRule, opts: ProveOptions = {}): Promise<Verdict> {
  const t0 = performance.now();
  const env = opts.env ?? (await loadZ3());
  await env.recycle(spec.form.op === "match" ? 100 : 1);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  try {
    if (target.kind === "pir") {
      const fn = (rule as PortableRule).build(spec, profile);
      return spec.form.op === "match" ? await provePirMatch(env, spec, profile, rule.name, fn, timeoutMs, t0) : await provePirScalar(env, spec, profile, rule.name, fn, timeoutMs, t0);
    }
    const t = TARGETS[target.mcpu];
    let r: AmdRoutine;
    try {
      r = lowerWithRule(spec, t, profile, rule as AmdRule);
    } catch (e) {
      return { verdict: "unknown", ms: performance.now() - t0, reason: `emission failed: ${(e as Error).message}` };
    }
    const gen = availability(r);
    if (gen) return refutedStatic(spec, target, profile, rule.name, r, gen, t0);
    // Wait states first: a sequence that violates its processor's hazard rules is wrong on
    // the chip whatever its values (targets/amdgpu/hazards.ts), so it is refuted as such.
    const hz = checkHazards(r.lines, hazardTarget(t), r.boundary);
    if (hz.length) return refutedStatic(spec, target, profile, rule.name, r, `Hazard: ${hz.map(formatViolation).join("; ")}`, t0);
    return spec.form.op === "match" ? await proveAmdMatch(env, r, profile, { ...opts, timeoutMs }, t0) : await proveAmdScalar(env, r, profile, timeoutMs, t0);
  } catch (e) {
    return { verdict: "unknown", ms: performance.now() - t0, reason: `prover error: ${(e as Error).stack ?? String(e)}` };
  }
}

/** An instruction the target's generation does not have (records' `only`), or null. */
function availability(r: AmdRoutine): string | null {
  for (const l of r.lines) {
    if (isLabel(l)) continue;
    const rec = record(l.op);
    if (rec.only && !rec.only.includes(r.target.gen)) return `${l.op} is not an instruction of ${r.target.mcpu} (it exists on gfx${rec.only.join("/")} generations only)`;
  }
  return null;
}

function refutedStatic(spec: RoutineSpec, target: ProveTarget, profile: Profile, rule: string, r: AmdRoutine, why: string, t0: number): Verdict {
  const text = [header(spec.form, target, rule, profile, performance.now() - t0), `ERROR: ${why}`, "", "Lowering:", ...r.lines.map((l) => `  ${showLine(l)}`)].join("\n");
  return { verdict: "refuted", ms: performance.now() - t0, reason: why, counterexample: text };
}

// ---------------------------------------------------------------------------------------
// The symbolic machine: initial state, predicated execution, contract conditions

/** Makes the initial values: fresh symbols (proof) or model values (concrete replay). */
export interface Init<V, B> {
  bv: BV<V, B>;
  mk(name: string, width: number): V;
  mkB(name: string): B;
}

/** A symbolic `Init` over z3 that remembers every symbol by name. */
export function symbolicInit(env: Z3Env): Init<BitVec, Bool> & { symbols: Map<string, BitVec | Bool> } {
  const symbols = new Map<string, BitVec | Bool>();
  return {
    bv: env.bv,
    symbols,
    mk: (name, w) => {
      const x = env.bv.sym(name, w);
      symbols.set(name, x);
      return x;
    },
    mkB: (name) => {
      const x = env.bv.symB(name);
      symbols.set(name, x);
      return x;
    },
  };
}

/** A concrete `Init` reading a model's values by symbol name (absent: 0 / false). */
export function concreteInit(values: Map<string, bigint | boolean>): Init<CV, boolean> {
  return {
    bv: concrete,
    mk: (name, w) => concrete.k((values.get(name) as bigint | undefined) ?? 0n, w),
    mkB: (name) => (values.get(name) as boolean | undefined) ?? false,
  };
}

/** Evaluates every symbol of a symbolic run in `model`. */
export function modelValues(env: Z3Env, model: NonNullable<Awaited<ReturnType<typeof solve>>["model"]>, symbols: Map<string, BitVec | Bool>): Map<string, bigint | boolean> {
  const out = new Map<string, bigint | boolean>();
  for (const [name, x] of symbols) out.set(name, env.ctx.isBool(x) ? modelBool(env, model, x as Bool) : modelValue(env, model, x as BitVec));
  return out;
}

/**
 * The routine's initial machine state: VGPRs v0..v(vEnd+7) and SGPRs s0..s(sEnd+7), every
 * lane, plus vcc and scc, all from `init` (symbolic: arbitrary values, so a read of a
 * register the routine did not set is caught). `exec` is given.
 */
export function initialState<V, B>(init: Init<V, B>, r: AmdRoutine, exec: V, oneActiveLane = false): WaveState<V, B> {
  const W = r.target.wave;
  const st: WaveState<V, B> = { wave: W, vgpr: new Map(), sgpr: new Map(), vcc: init.mk("vcc", W), exec, scc: init.mkB("scc") };
  for (let n = 0; n < r.vEnd + 8; n++) {
    // One active lane (lane-local routines, see laneCoupling): no instruction reads the
    // other lanes, so one value per register stands for all of them (and stays unchanged).
    const other = oneActiveLane ? init.mk(`v${n}.x`, 32) : undefined;
    st.vgpr.set(n, Array.from({ length: W }, (_, l) => (l > 0 && other !== undefined ? other : init.mk(`v${n}.${l}`, 32))));
  }
  for (let n = 0; n < r.sEnd + 8; n++) st.sgpr.set(n, init.mk(`s${n}`, 32));
  return st;
}

export function cloneState<V, B>(st: WaveState<V, B>): WaveState<V, B> {
  return { wave: st.wave, vgpr: new Map([...st.vgpr].map(([k, x]) => [k, [...x]])), sgpr: new Map(st.sgpr), vcc: st.vcc, exec: st.exec, scc: st.scc };
}

/** ite(c, a, b) over whole states. */
export function mergeState<V, B>(bv: BV<V, B>, c: B, a: WaveState<V, B>, b: WaveState<V, B>): WaveState<V, B> {
  const W = a.wave;
  const vgpr = new Map<number, V[]>();
  for (const n of new Set([...a.vgpr.keys(), ...b.vgpr.keys()])) {
    const x = a.vgpr.get(n);
    const y = b.vgpr.get(n);
    const zero = Array.from({ length: W }, () => bv.k(0, 32));
    const xa = x ?? zero;
    const ya = y ?? zero;
    vgpr.set(n, xa.map((v, l) => bv.ite(c, v, ya[l]!)));
  }
  const sgpr = new Map<number, V>();
  for (const n of new Set([...a.sgpr.keys(), ...b.sgpr.keys()])) {
    const x = a.sgpr.get(n) ?? bv.k(0, 32);
    const y = b.sgpr.get(n) ?? bv.k(0, 32);
    sgpr.set(n, bv.ite(c, x, y));
  }
  return { wave: W, vgpr, sgpr, vcc: bv.ite(c, a.vcc, b.vcc), exec: bv.ite(c, a.exec, b.exec), scc: bv.iteB(c, a.scc, b.scc) };
}

/** Reads a source operand of the routine (VGPR: lane `lane`; SGPR: uniform; immediate). */
export function readSource<V, B>(bv: BV<V, B>, st: WaveState<V, B>, o: MOp, width: number, lane: number): V {
  if (o.k === "imm") return bv.k(o.value, width);
  if (o.k === "v") {
    const lo = st.vgpr.get(o.n)![lane]!;
    return o.count === 2 ? bv.concat(st.vgpr.get(o.n + 1)![lane]!, lo) : lo;
  }
  if (o.k === "s") {
    const lo = st.sgpr.get(o.n)!;
    return o.count === 2 ? bv.concat(st.sgpr.get(o.n + 1)!, lo) : lo;
  }
  throw new Error(`source operand ${printOp(o)}`);
}

/** Outcome of `execPaths`: the state at the end (paths merged), and when it is reached. */
export interface PathsResult<V, B> {
  /** The merged final state (null when no path reaches the end). */
  final: WaveState<V, B> | null;
  /** Condition under which the end is reached. */
  done: B;
  /** Condition under which some path exceeded the back-edge bound (or step limit). */
  stuck: B;
  /** An interpreter error on some path (ill-formed code), if any. */
  error?: string;
  trace: StepTrace<V>[];
  steps: number;
}

/**
 * Runs `code` on every path at once (predicated execution): forward branches split the path
 * condition and the states merge (`ite`) where paths meet; a back-edge re-enters its target
 * with the path's iteration count + 1, up to `maxBack` back-edges per path (beyond that the
 * path is `stuck`). Pending states are processed in program order, so a loop unrolls
 * iteration by iteration and every exit merges into the state after it. With a concrete
 * algebra there is one path and this is the interpreter's `run`.
 */
export function execPaths<V, B>(bv: BV<V, B>, code: readonly MLine[], st0: WaveState<V, B>, opts: { maxBack: number; trace?: boolean; stepLimit?: number }): PathsResult<V, B> {
  const labels = new Map<string, number>();
  code.forEach((l, i) => {
    if (isLabel(l)) labels.set(l.label, i);
  });
  type P = { st: WaveState<V, B>; cond: B; back: number };
  const pending = new Map<number, P>();
  const add = (pc: number, p: P) => {
    if (bv.asBool(p.cond) === false) return;
    const q = pending.get(pc);
    if (!q) pending.set(pc, p);
    else pending.set(pc, { st: mergeState(bv, p.cond, p.st, q.st), cond: bv.orB(p.cond, q.cond), back: Math.max(p.back, q.back) });
  };
  add(0, { st: st0, cond: bv.true, back: 0 });
  let stuck: B = bv.false;
  let final: P | null = null;
  const trace: StepTrace<V>[] = [];
  let steps = 0;
  const limit = opts.stepLimit ?? 1_000_000;
  while (pending.size) {
    const pc0 = Math.min(...pending.keys());
    const p = pending.get(pc0)!;
    pending.delete(pc0);
    if (pc0 >= code.length) {
      final = p;
      continue;
    }
    let pc = pc0;
    let st = p.st;
    for (;;) {
      if (pc >= code.length) {
        add(code.length, { st, cond: p.cond, back: p.back });
        break;
      }
      const line = code[pc]!;
      if (isLabel(line)) {
        pc++;
        // A label another pending path also reaches: merge there first.
        if (pending.has(pc)) {
          add(pc, { st, cond: p.cond, back: p.back });
          break;
        }
        continue;
      }
      if (++steps > limit) {
        stuck = bv.orB(stuck, p.cond);
        break;
      }
      const rec = record(line.op);
      if ("branch" in rec.sem) {
        const io = branchIO(bv, st);
        const c = rec.sem.branch(bv, io);
        const label = line.ops[0];
        if (!label || label.k !== "label") throw new InterpError(`${line.op}: operand must be a label`);
        const to = labels.get(label.name);
        if (to === undefined) throw new InterpError(`unknown label ${label.name}`);
        if (opts.trace) trace.push({ inst: line, writes: [] });
        const taken = bv.andB(p.cond, c);
        const fall = bv.andB(p.cond, bv.notB(c));
        if (to <= pc) {
          if (p.back + 1 > opts.maxBack) stuck = bv.orB(stuck, taken);
          else add(to, { st: cloneState(st), cond: taken, back: p.back + 1 });
        } else add(to, { st: cloneState(st), cond: taken, back: p.back });
        add(pc + 1, { st, cond: fall, back: p.back });
        break;
      }
      const res: RunResult<V> = run(bv, [line], st, { trace: opts.trace ?? false });
      if (opts.trace) trace.push(...res.trace);
      pc++;
      st = st; // run mutates st in place
    }
  }
  return { final: final?.st ?? null, done: final?.cond ?? bv.false, stuck, trace, steps };
}

function branchIO<V, B>(bv: BV<V, B>, st: WaveState<V, B>): WaveIO<V, B> {
  const no = (): never => {
    throw new InterpError("branch semantics read an operand");
  };
  return {
    wave: st.wave,
    read: no,
    readLanes: no,
    write: no,
    exec: () => st.exec,
    setExec: no,
    scc: () => st.scc,
    setScc: no,
  };
}

/** One way a run can be wrong, as a condition over the inputs. */
export interface Bad<B> {
  what: string;
  cond: B;
  /** Lane the failure is about (for traces), if any. */
  lane?: number;
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
    if (o.k === "vcc" || o.k === "vcc_lo" || o.k === "exec" || o.k === "exec_lo") return [o.k === "vcc_lo" ? "vcc" : o.k === "exec_lo" ? "exec" : o.k];
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
      const got = after.vgpr.get(0)![l]!;
      const mismatch = bv.andB(bv.andB(activeBit(l), bv.orB(ref.defined, g === undefined ? bv.false : bv.notB(g))), bv.notB(bv.eq(got, expected)));
      lanes.push({ lane: l, active: activeBit(l), a, b, c, ...(g !== undefined ? { g, dPrior: dPrior! } : {}), expected, got });
      bads.push({ what: `Value mismatch (lane ${l})`, cond: mismatch, lane: l });
    }
    bads.push(...contractBads(bv, r, before, after, activeBit));
  }
  return { before, after, paths, lanes, bads };
}

/**
 * Proves one scalar AMDGPU sequence, as given (waits kept; hazards are the caller's check),
 * against the reference under its layout and scratch windows. Also the prover of the
 * compiled `hip`/`llvm` functions (targets/llvm/prove_compiled.ts). Never throws for wrong code.
 */
export async function proveAmdScalar(env: Z3Env, r: AmdRoutine, profile: Profile, timeoutMs: number, t0: number): Promise<Verdict> {
  const coupled = laneCoupling(r.lines, r.target.wave);
  const mode = coupled ? "all" : "lane0";
  const init = symbolicInit(env);
  const q = scalarRun(init, r, profile, mode);
  const target = amdgpu(r.target.mcpu);
  const res = await solve(env, [env.bv.any(q.bads.map((b) => b.cond))], timeoutMs);
  const method = `z3 ${mode === "lane0" ? "one active lane (lane-local)" : `32 symbolic lanes (${coupled})`}`;
  if (res.status === "unsat") return { verdict: "proved", ms: performance.now() - t0, method, queries: 1 };
  if (res.status === "unknown") return { verdict: "unknown", ms: performance.now() - t0, reason: res.reason ?? "unknown", ...(res.fault ? { fault: true } : {}) };
  // A model: re-run concretely with its values and print the counterexample.
  const values = modelValues(env, res.model!, init.symbols);
  const c = scalarRun(concreteInit(values), r, profile, mode, true);
  const hit = c.bads.find((b) => b.cond === true);
  if (!hit) return { verdict: "unknown", ms: performance.now() - t0, reason: "z3 model did not replay concretely" };
  const text = scalarAmdCounterexample(r, profile, target, c, hit, performance.now() - t0);
  return { verdict: "refuted", ms: performance.now() - t0, reason: hit.what, counterexample: text };
}

// ---------------------------------------------------------------------------------------
// Scalar forms through the portable IR (JS and C)

/** Symbolic (or concrete) arguments for a PIR function's parameters, by name. */
export function pirArgs<V, B>(init: Init<V, B>, fn: PirFunction, prefix = ""): Record<string, Arg<V, B>> {
  const one = (name: string, t: Scalar): V | B => (t.t === "bool" ? init.mkB(name) : init.mk(name, t.w));
  const out: Record<string, Arg<V, B>> = {};
  for (const p of fn.params) {
    const t: PType = p.type;
    out[p.name] = t.t === "arr" ? Array.from({ length: t.n }, (_, i) => one(`${prefix}${p.name}[${i}]`, t.elem)) : one(`${prefix}${p.name}`, t);
  }
  return out;
}

interface PirScalarRun<V, B> {
  args: Record<string, Arg<V, B>>;
  a: V;
  b: V;
  c: V;
  expected: V;
  got: Slot<V, B>;
  bads: Bad<B>[];
}

function pirScalarRun<V, B>(init: Init<V, B>, spec: RoutineSpec, profile: Profile, fn: PirFunction): PirScalarRun<V, B> {
  const bv = init.bv;
  const args = pirArgs(init, fn);
  const src = (name: SourceName): V => {
    const k = spec.kinds[name] ?? { kind: "v" };
    if (!sourcesOf(spec.form).includes(name)) return bv.k(0, 32);
    return k.kind === "imm" ? bv.k(k.value, 32) : (args[name] as V);
  };
  const a = src("a");
  const b = src("b");
  const c = src("c");
  const ref = scalarSemantics(bv, spec.form, profile, a, b, c);
  let expected = ref.value;
  if (spec.guarded) expected = keep(bv, args.g as B, expected, args.dPrior as V);
  const out = evalPir(fn, bv, args);
  const got = out.d as Slot<V, B>;
  const bads: Bad<B>[] = [
    { what: "Target is more poisonous than source (d is poison)", cond: bv.notB(got.defined) },
    { what: "Value mismatch", cond: bv.andB(ref.defined, bv.notB(bv.eq(got.value as V, expected))) },
  ];
  return { args, a, b, c, expected, got, bads };
}

async function provePirScalar(env: Z3Env, spec: RoutineSpec, profile: Profile, rule: string, fn: PirFunction, timeoutMs: number, t0: number): Promise<Verdict> {
  const init = symbolicInit(env);
  const q = pirScalarRun(init, spec, profile, fn);
  const res = await solve(env, [env.bv.any(q.bads.map((b) => b.cond))], timeoutMs);
  if (res.status === "unsat") return { verdict: "proved", ms: performance.now() - t0, method: "z3 (PIR, poison-tracked; covers js and c)", queries: 1 };
  if (res.status === "unknown") return { verdict: "unknown", ms: performance.now() - t0, reason: res.reason ?? "unknown", ...(res.fault ? { fault: true } : {}) };
  const values = modelValues(env, res.model!, init.symbols);
  const c = pirScalarRun(concreteInit(values), spec, profile, fn);
  const hit = c.bads.find((b) => b.cond === true);
  if (!hit) return { verdict: "unknown", ms: performance.now() - t0, reason: "z3 model did not replay concretely" };
  const lines = [header(spec.form, PIR, rule, profile, performance.now() - t0), `ERROR: ${hit.what}`, "", "Example:"];
  lines.push(...inputLines(spec, { a: c.a.x, b: c.b.x, c: c.c.x }, c.args as Record<string, Arg<CV, boolean>>));
  lines.push(`Spec  src/sem (profile ${profile}):`, ...referenceLines(spec.form, profile, c.a, c.b, c.c));
  lines.push(`Lowering  PIR ${fn.name}:`, ...pirTraceLines(fn, c.args as Record<string, Arg<CV, boolean>>));
  lines.push(`Spec value:     ${fmt(c.expected)}`);
  lines.push(`Lowered value:  ${c.got.defined ? fmt(c.got.value as CV) : "poison"}`);
  return { verdict: "refuted", ms: performance.now() - t0, reason: hit.what, counterexample: lines.join("\n") };
}

// ---------------------------------------------------------------------------------------
// Counterexample printing (Alive2's layout: inputs, spec trace, lowering trace, values)

/** `#x0000002a (42)`, with the signed reading too when the top bit is set. */
export function fmt(x: CV | boolean): string {
  if (typeof x === "boolean") return x ? "true" : "false";
  if (x.w === 1) return x.x ? "#b1" : "#b0";
  const hex = x.x.toString(16).padStart(Math.ceil(x.w / 4), "0");
  const s = x.x >> BigInt(x.w - 1) ? `, ${x.x - (1n << BigInt(x.w))}` : "";
  return `#x${hex} (${x.x}${s})`;
}

export function header(f: Form, target: ProveTarget, rule: string, profile: Profile, ms: number): string {
  return `check ${formName(f)} → ${targetName(target)}  rule ${rule}  (${profile})  REFUTED (z3, ${(ms / 1000).toFixed(2)} s)`;
}

function showLine(l: MLine): string {
  if (isLabel(l)) return `${l.label}:`;
  return `${l.op}${l.enc ? "_" + l.enc : ""} ${l.ops.map(printOp).join(", ")}`.trimEnd();
}

/** The reference's traced intermediates (its pseudocode temporaries) for one scalar case. */
function referenceLines(f: Form, profile: Profile, a: CV, b: CV, c: CV): string[] {
  const t = traced(concrete);
  scalarSemantics(t, f, profile, a, b, c);
  return t.log.map((e) => `  ${e.name} = ${fmt(e.value as CV | boolean)}`);
}

function inputLines(spec: RoutineSpec, x: { a: bigint; b: bigint; c: bigint }, args?: Record<string, Arg<CV, boolean>>): string[] {
  const out: string[] = [];
  for (const s of sourcesOf(spec.form)) {
    const k = spec.kinds[s] ?? { kind: "v" };
    const v = x[s as "a" | "b" | "c"];
    out.push(`  ${s} = ${fmt(concrete.k(v, 32))}${k.kind === "imm" ? "  (immediate)" : k.kind === "s" ? "  (uniform)" : ""}`);
  }
  if (args && spec.guarded) {
    out.push(`  g = ${fmt(args.g as boolean)}`, `  d (prior) = ${fmt(args.dPrior as CV)}`);
  }
  return out;
}

/** The lowering's trace, instruction by instruction, showing lane `lane`'s values. */
export function amdTraceLines(trace: StepTrace<CV>[], lane: number): string[] {
  return trace.map((s) => {
    const text = showLine(s.inst);
    const w = s.writes.map((wr) => `${wr.what} = ${fmt(Array.isArray(wr.value) ? wr.value[lane]! : wr.value)}`).join("  ");
    return `  ${text.padEnd(40)} ${w}`.trimEnd();
  });
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

/** A concrete PIR trace of a straight-line function: every node with its value (or poison). */
export function pirTraceLines(fn: PirFunction, args: Record<string, Arg<CV, boolean>>): string[] {
  const hasLoops = fn.body.some((s) => s.s === "for" || s.s === "if");
  if (hasLoops) return ["  (loops: per-lane results only)"];
  const env = new Map<string, Slot<CV, boolean>>();
  for (const [k, v] of Object.entries(args)) if (!Array.isArray(v)) env.set(k, { value: v, defined: true });
  const memo = new Map<number, Slot<CV, boolean>>();
  const out: string[] = [];
  const show = (s: Slot<CV, boolean>) => (s.defined ? fmt(s.value as CV | boolean) : "poison");
  const ev = (e: PExpr): Slot<CV, boolean> => {
    const hit = memo.get(e.id);
    if (hit) return hit;
    let r: Slot<CV, boolean>;
    if (e.op === "const") r = { value: e.type.t === "bool" ? e.value === 1n : concrete.k(e.value, widthOf(e.type)), defined: true };
    else if (e.op === "ref") r = env.get(e.name) ?? { value: concrete.k(0, widthOf(e.type)), defined: false };
    else if (e.op === "elem") r = { value: concrete.k(0, widthOf(e.type)), defined: false };
    else {
      r = applyOp(concrete, e, kids(e).map(ev));
      const ref = (k: PExpr) => (k.op === "const" ? String(k.value) : k.op === "ref" ? k.name : `%${k.id}`);
      out.push(`  %${e.id} = ${e.op} ${kids(e).map(ref).join(", ")}${e.op === "extract" ? ` @${e.lo}` : ""}`.padEnd(42) + ` ${show(r)}`);
    }
    memo.set(e.id, r);
    return r;
  };
  for (const st of fn.body) {
    if (st.s === "let" || st.s === "var" || st.s === "set") env.set(st.name, ev(st.value));
    else if (st.s === "return") for (const e of Object.values(st.values)) ev(e);
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Query identity: what a proof depends on, so identical queries are proved once

/** A term of the fingerprinting algebra: a hash-consed node id, its width, its value if constant. */
export interface Fp {
  id: number;
  w: number;
  k?: bigint;
}

/**
 * A fingerprinting interpretation of the BV algebra: every operation builds a hash-consed
 * term, so two computations that perform the same operations on the same inputs get the
 * same node. Constants fold (by `concrete`), and a few identities are normalised —
 * sext∘sext, zext∘zext, extract of a whole value or of the low part of an extension,
 * extract∘extract, ite with equal arms, and/or with 0 or all ones — each an identity of
 * the algebra, so equal nodes always mean equal functions of the inputs (used as proof of
 * equivalence; unequal nodes mean nothing).
 */
export class FpBV implements BV<Fp, Fp> {
  private readonly table = new Map<string, Fp>();
  private readonly defs: string[] = [];
  readonly true: Fp;
  readonly false: Fp;
  constructor() {
    this.true = this.k(1, 1);
    this.false = this.k(0, 1);
  }
  private node(key: string, w: number, k?: bigint): Fp {
    let x = this.table.get(key);
    if (!x) {
      x = k === undefined ? { id: this.defs.length, w } : { id: this.defs.length, w, k };
      this.table.set(key, x);
      this.defs.push(key);
    }
    return x;
  }
  /** An input (a named symbol). */
  sym(name: string, w: number): Fp {
    return this.node(`sym ${name} ${w}`, w);
  }
  /** The defining text of the term, recursively (for hashing across processes). */
  text(x: Fp): string {
    const seen = new Set<number>();
    const out: string[] = [];
    const walk = (id: number) => {
      if (seen.has(id)) return;
      seen.add(id);
      const key = this.defs[id]!;
      for (const m of key.matchAll(/#(\d+)/g)) walk(Number(m[1]));
      out.push(`${id}=${key}`);
    };
    walk(x.id);
    return out.join(";");
  }
  private c(x: Fp): CV | undefined {
    return x.k === undefined ? undefined : concrete.k(x.k, x.w);
  }
  private lift(r: CV | boolean): Fp {
    return typeof r === "boolean" ? (r ? this.true : this.false) : this.k(r.x, r.w);
  }
  private op(name: string, w: number, ...xs: Fp[]): Fp {
    return this.node(`${name} ${xs.map((x) => `#${x.id}`).join(" ")}`, w);
  }
  private fold(f: (...cs: CV[]) => CV | boolean, ...xs: Fp[]): Fp | undefined {
    const cs = xs.map((x) => this.c(x));
    return cs.every((c) => c !== undefined) ? this.lift(f(...(cs as CV[]))) : undefined;
  }
  private bin(name: "add" | "sub" | "mul" | "and" | "or" | "xor" | "shl" | "lshr" | "ashr", x: Fp, y: Fp): Fp {
    return this.fold((a, b) => concrete[name](a, b), x, y) ?? this.op(name, x.w, x, y);
  }
  private ones(w: number) {
    return (1n << BigInt(w)) - 1n;
  }
  k(value: bigint | number, width: number): Fp {
    const v = BigInt.asUintN(width, BigInt(value));
    return this.node(`k ${width} ${v}`, width, v);
  }
  width(x: Fp) {
    return x.w;
  }
  add(x: Fp, y: Fp) {
    return y.k === 0n ? x : x.k === 0n ? y : this.bin("add", x, y);
  }
  sub(x: Fp, y: Fp) {
    return y.k === 0n ? x : this.bin("sub", x, y);
  }
  mul(x: Fp, y: Fp) {
    return this.bin("mul", x, y);
  }
  and(x: Fp, y: Fp) {
    if (x.k === 0n || y.k === 0n) return this.k(0, x.w);
    if (x.k === this.ones(x.w)) return y;
    if (y.k === this.ones(y.w) || x === y) return x;
    return this.bin("and", x, y);
  }
  or(x: Fp, y: Fp) {
    if (x.k === 0n) return y;
    if (y.k === 0n || x === y) return x;
    return this.bin("or", x, y);
  }
  xor(x: Fp, y: Fp) {
    return y.k === 0n ? x : x.k === 0n ? y : this.bin("xor", x, y);
  }
  not(x: Fp) {
    return this.fold((a) => concrete.not(a), x) ?? this.op("not", x.w, x);
  }
  neg(x: Fp) {
    return this.fold((a) => concrete.neg(a), x) ?? this.op("neg", x.w, x);
  }
  shl(x: Fp, y: Fp) {
    return y.k === 0n ? x : this.bin("shl", x, y);
  }
  lshr(x: Fp, y: Fp) {
    return y.k === 0n ? x : this.bin("lshr", x, y);
  }
  ashr(x: Fp, y: Fp) {
    return y.k === 0n ? x : this.bin("ashr", x, y);
  }
  eq(x: Fp, y: Fp) {
    if (x === y) return this.true;
    return this.fold((a, b) => concrete.eq(a, b), x, y) ?? this.op("eq", 1, x, y);
  }
  ult(x: Fp, y: Fp) {
    return this.fold((a, b) => concrete.ult(a, b), x, y) ?? this.op("ult", 1, x, y);
  }
  ule(x: Fp, y: Fp) {
    return this.fold((a, b) => concrete.ule(a, b), x, y) ?? this.op("ule", 1, x, y);
  }
  slt(x: Fp, y: Fp) {
    return this.fold((a, b) => concrete.slt(a, b), x, y) ?? this.op("slt", 1, x, y);
  }
  sle(x: Fp, y: Fp) {
    return this.fold((a, b) => concrete.sle(a, b), x, y) ?? this.op("sle", 1, x, y);
  }
  ite(c: Fp, t: Fp, e: Fp) {
    if (c.k !== undefined) return c.k ? t : e;
    return t === e ? t : this.op("ite", t.w, c, t, e);
  }
  iteB(c: Fp, t: Fp, e: Fp) {
    return this.ite(c, t, e);
  }
  andB(x: Fp, y: Fp) {
    if (x.k === 0n || y.k === 0n) return this.false;
    if (x.k === 1n) return y;
    if (y.k === 1n) return x;
    return this.op("and", 1, x, y);
  }
  orB(x: Fp, y: Fp) {
    if (x.k === 1n || y.k === 1n) return this.true;
    if (x.k === 0n) return y;
    if (y.k === 0n) return x;
    return this.op("or", 1, x, y);
  }
  notB(x: Fp) {
    return x.k !== undefined ? (x.k ? this.false : this.true) : this.op("not", 1, x);
  }
  eqB(x: Fp, y: Fp) {
    return this.eq(x, y);
  }
  extract(x: Fp, hi: number, lo: number): Fp {
    const w = hi - lo + 1;
    if (lo === 0 && w === x.w) return x;
    if (x.k !== undefined) return this.k(x.k >> BigInt(lo), w);
    const d = this.defs[x.id]!;
    const m = /^(zext|sext|extract) #(\d+) (\d+)(?: (\d+))?$/.exec(d);
    if (m) {
      const inner = this.byId(Number(m[2]));
      if (m[1] !== "extract" && hi < inner.w) return this.extract(inner, hi, lo);
      if (m[1] === "extract") return this.extract(inner, hi + Number(m[4]), lo + Number(m[4]));
    }
    return this.node(`extract #${x.id} ${hi} ${lo}`, w);
  }
  private byId(id: number): Fp {
    return this.table.get(this.defs[id]!)!;
  }
  zext(x: Fp, w: number): Fp {
    if (w === x.w) return x;
    if (x.k !== undefined) return this.k(x.k, w);
    const m = /^zext #(\d+) \d+$/.exec(this.defs[x.id]!);
    if (m) return this.zext(this.byId(Number(m[1])), w);
    return this.node(`zext #${x.id} ${w}`, w);
  }
  sext(x: Fp, w: number): Fp {
    if (w === x.w) return x;
    if (x.k !== undefined) return this.k(concrete.sext(concrete.k(x.k, x.w), w).x, w);
    const m = /^sext #(\d+) \d+$/.exec(this.defs[x.id]!);
    if (m) return this.sext(this.byId(Number(m[1])), w);
    return this.node(`sext #${x.id} ${w}`, w);
  }
  concat(hi: Fp, lo: Fp) {
    return this.fold((a, b) => concrete.concat(a, b), hi, lo) ?? this.op("concat", hi.w + lo.w, hi, lo);
  }
  bitAt(x: Fp, i: number) {
    if (x.k !== undefined) return ((x.k >> BigInt(i)) & 1n) === 1n ? this.true : this.false;
    return this.op(`bit${i}`, 1, x);
  }
  fromB(b: Fp) {
    return b;
  }
  asBigint(x: Fp) {
    return x.k;
  }
  asBool(b: Fp) {
    return b.k === undefined ? undefined : b.k === 1n;
  }
}

/**
 * The spec's terms (value and definedness) as text: two specs with the same text perform
 * the same operations on the same inputs.
 */
export function specFingerprint(f: Form, profile: Profile): string {
  if (f.op === "match") return `match:${f.mode}:${f.type}:${f.dest}`;
  const P = new FpBV();
  const r = scalarSemantics(P, f, profile, P.sym("a", 32), P.sym("b", 32), P.sym("c", 32));
  return `${P.text(r.value)}|${P.text(r.defined)}`;
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
 * The identity of a proof query: identical keys are identical queries (same lines, same
 * contract layout, same wave size, same spec terms), so one proof covers every combination
 * that maps to the key. PIR keys use the printed PIR instead of the lines.
 */
export function queryKey(spec: RoutineSpec, target: ProveTarget, profile: Profile, rule: AnyRule): string {
  const specPart = specFingerprint(spec.form, profile);
  if (target.kind === "pir") {
    const fn = (rule as PortableRule).build(spec, profile);
    return hash(`pir\n${spec.form.op === "match" ? `${formId(spec.form)} ${JSON.stringify(spec.kinds, big)} ${spec.guarded}` : ""}\n${JSON.stringify(fn, big)}\n${specPart}`);
  }
  const r = lowerWithRule(spec, TARGETS[target.mcpu], profile, rule as AmdRule);
  const gen = availability(r) ?? "";
  const formPart = spec.form.op === "match" ? `${formId(spec.form)}` : "";
  return hash(`amd\n${formPart}\n${gen}\n${routineText(r)}\n${specPart}`);
}

const big = (_k: string, v: unknown) => (typeof v === "bigint" ? `${v}n` : v);

/** SHA-1 of the canonical text, hex. */
export function hash(s: string): string {
  return createHash("sha1").update(s).digest("hex");
}

export type { MInst, MatchForm };

// ---------------------------------------------------------------------------------------
// Proving by stages: video selectors

/** A field selected from a source and extended to 32 bits: stage 1 of the video pipeline. */
function selected<V, B>(bv: BV<V, B>, x: V, sel: Sel, signed: boolean): V {
  const { lo, width } = selField(sel);
  const field = bv.extract(x, lo + width - 1, lo);
  return signed ? bv.sext(field, 32) : bv.zext(field, 32);
}

/**
 * A one-instruction lemma: after `inst`, VGPR `dst` (lane 0) holds `selected(src)`, the
 * field `sel` of source register `src`, extended (`signed`) to 32 bits.
 */
export interface SelectorLemma {
  key: string;
  wave: 32 | 64;
  inst: MInst;
  src: MOp;
  dst: number;
  sel: Sel;
  signed: boolean;
}

/** How an item's proof reduces to another routine's (the same form without selectors). */
export interface Reduction {
  base: RoutineSpec;
  lemmas: SelectorLemma[];
}

/**
 * Reduces a video routine with `asel`/`bsel` to the same routine without selectors (F0):
 *   spec:     spec_F(a, b, c) = spec_F0(α(a), β(b), c), α/β = the selected field extended
 *             to 32 bits, checked as equal terms (FpBV) — true of src/sem/vsh.ts's stage 1;
 *   PIR:      the routine for F and the routine for F0 applied to α(a), β(b) are equal terms
 *             (value and poison): F0's proof is F's;
 *   AMDGPU:   both routines lane-local with a syntactic contract (they write only v0, their
 *             scratch window, vcc and scc), the routine for F starts with instructions that
 *             extract the fields (each proved by a `SelectorLemma`), and after replacing
 *             their results by α(a), β(b) it computes the same term for d as the routine
 *             for F0 on α(a), β(b).
 * Then F0 proved ⇒ F proved: d_F = d_F0(α(a), β(b), c) = spec_F0(α(a), β(b), c) = spec_F.
 * Sharing the F0 proof across the 6 × 6 selector choices is what makes the video matrix
 * (15,680 forms) provable in minutes. null: no reduction (prove F itself).
 */
export function reduceSelectors(spec: RoutineSpec, target: ProveTarget, profile: Profile, rule: AnyRule): Reduction | null {
  const f = spec.form;
  if (f.op !== "vshl" && f.op !== "vshr") return null;
  if (f.asel === null && f.bsel === null) return null;
  const f0: VshForm = { ...f, asel: null, bsel: null };
  const base: RoutineSpec = { ...spec, form: f0 };
  const aSigned = f.atype === "s32";
  const P = new FpBV();
  const A = P.sym("a", 32);
  const B = P.sym("b", 32);
  const C = P.sym("c", 32);
  const alpha = (x: Fp) => (f.asel ? selected(P, x, f.asel, aSigned) : x);
  const beta = (x: Fp) => (f.bsel ? selected(P, x, f.bsel, false) : x);
  const sF = scalarSemantics(P, f, profile, A, B, C);
  const s0 = scalarSemantics(P, f0, profile, alpha(A), beta(B), C);
  if (sF.value !== s0.value || sF.defined !== s0.defined) return null;
  try {
    if (target.kind === "pir") {
      const pr = rule as PortableRule;
      if (!pr.when(base)) return null;
      const fnF = pr.build(spec, profile);
      const fn0 = pr.build(base, profile);
      const args = (fn: PirFunction, subst: boolean): Record<string, Arg<Fp, Fp>> =>
        Object.fromEntries(
          fn.params.map((p) => {
            if (p.type.t === "arr") throw new Error("array parameter");
            const w = p.type.t === "bool" ? 1 : p.type.w;
            let x = P.sym(p.name, w);
            if (subst && p.name === "a") x = alpha(A);
            else if (subst && p.name === "b") x = beta(B);
            else if (p.name === "a") x = A;
            else if (p.name === "b") x = B;
            else if (p.name === "c") x = C;
            return [p.name, x];
          }),
        );
      if (JSON.stringify(fnF.params) !== JSON.stringify(fn0.params)) return null;
      const oF = evalPir(fnF, P, args(fnF, false));
      const o0 = evalPir(fn0, P, args(fn0, true));
      for (const [k, x] of Object.entries(oF)) {
        const y = o0[k];
        if (Array.isArray(x) || !y || Array.isArray(y) || x.value !== y.value || x.defined !== y.defined) return null;
      }
      return { base, lemmas: [] };
    }
    const t = TARGETS[target.mcpu];
    const ar = rule as AmdRule;
    if (!ar.when(f0, { spec: base, t, profile })) return null;
    const rF = lowerWithRule(spec, t, profile, ar);
    const r0 = lowerWithRule(base, t, profile, ar);
    if (laneCoupling(rF.lines, t.wave) || laneCoupling(r0.lines, t.wave)) return null;
    if (!writesOnlyScratch(rF) || !writesOnlyScratch(r0)) return null;
    // The extraction prefix: leading VALU instructions reading only a, b and immediates.
    const lemmas: SelectorLemma[] = [];
    const want: { which: "a" | "b"; src: MOp; sel: Sel; signed: boolean; to: (x: Fp) => Fp }[] = [];
    if (f.asel) want.push({ which: "a", src: rF.layout.src.a!, sel: f.asel, signed: aSigned, to: alpha });
    if (f.bsel) want.push({ which: "b", src: rF.layout.src.b!, sel: f.bsel, signed: false, to: beta });
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
      const lemma: SelectorLemma = { key: "", wave: t.wave, inst: l, src: w.src, dst: out.n, sel: w.sel, signed: w.signed };
      lemma.key = hash(`sel\n${t.wave}\n${showLine(l)}\n${printOp(w.src)}\n${w.sel}\n${w.signed}`);
      lemmas.push(lemma);
      subst.set(i, { dst: out.n, to: w.to, src: w.src });
      want.splice(k, 1);
    }
    if (want.length) return null;
    const dF = fpRun(P, rF, subst, null);
    const d0 = fpRun(P, r0, new Map(), (st) => {
      // F0's inputs: a := α(a), b := β(b) (lane 0 of a VGPR, or the SGPR).
      for (const w of [f.asel ? { o: r0.layout.src.a!, to: alpha } : null, f.bsel ? { o: r0.layout.src.b!, to: beta } : null]) {
        if (!w) continue;
        if (w.o.k === "v") st.vgpr.get(w.o.n)![0] = w.to(st.vgpr.get(w.o.n)![0]!);
        else if (w.o.k === "s") st.sgpr.set(w.o.n, w.to(st.sgpr.get(w.o.n)!));
        else return false;
      }
      return true;
    });
    if (!dF || !d0 || dF !== d0) return null;
    return { base, lemmas };
  } catch {
    return null;
  }
}

/** The routine writes only v0, its scratch window, vcc and scc (explicit outputs; no exec). */
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
        for (let n = o.n; n < o.n + o.count; n++) if (n !== 0 && !(n >= r.layout.vScratch && n < r.vEnd)) return false;
      } else if (o.k === "s") {
        for (let n = o.n; n < o.n + o.count; n++) if (!(n >= r.layout.sScratch && n < r.sEnd)) return false;
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
  return st.vgpr.get(0)![0]!;
}

/** Proves a selector lemma with z3 (one active lane; the instruction is lane-local). */
export async function proveSelectorLemma(env: Z3Env, lemma: SelectorLemma, timeoutMs = 30_000): Promise<boolean> {
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
