/**
 * @fileoverview Proofs of match.sync lowerings on AMDGPU, all 32 lanes (moved from
 * src/check/prove_match.ts; the AMDGPU prover model, ./model.ts, calls `proveAmdMatch`).
 *
 * AMDGPU routines come in two shapes:
 *   - loop-free (uniform-value and uniform-membermask `.all` rules): straight symbolic
 *     execution at full width over 32 symbolic lanes, one query;
 *   - one waterfall loop (`L: body; s_cbranch L`): an inductive proof with lane values
 *     reduced to log2(wave) bits, plus a full-width bug-finding query.
 *
 * The reduction (toolchain.md §1c). The reference depends on the lane values only through
 * equalities between them. If the lowering is *data-independent* — every value derived from
 * `a` reaches nothing but full-width moves (v_mov, s_mov, v_cndmask's data operands),
 * v_readlane / v_readfirstlane (as the value read, never the lane index) and equality
 * compares of a value against another value from the same half of `a` (v_cmp_eq/ne, s_cmp_eq/lg,
 * 32- or 64-bit) — then its whole run (control flow, masks, every output) is a function of
 * the equality pattern of the values in the a register's lanes, taken per half for `.b64`.
 * A wave holds at most `wave` lanes, so `log2(wave)` bits per half realise every such
 * pattern: proving the lowering on those small values proves it on all values. The check
 * (`dataIndependence`) runs on the instruction list first, by a taint analysis to a fixed
 * point over the control flow; a lowering that masks, shifts, adds or compares part of a
 * value — the low 16 bits, or only the low half of a `.b64` against the high half, or
 * against a constant — fails it and is not reduced (its verdict then comes from the
 * full-width bug-finder, or is unknown). Comparing only the low half of a `.b64` passes
 * the check but is still caught, because the two halves are independent small values.
 *
 * The induction (one loop, body straight-line, back-edge at its end). Let S_h be the state
 * when the loop head is first reached and rem0 its exec (the executing lanes E). The
 * invariant I(S) at the head, with rem = exec:
 *   (1) rem ⊆ rem0, and rem is a union of equality classes of a within rem0;
 *   (2) every VGPR R the body writes holds, in each retired lane k ∈ rem0 \ rem, the value
 *       E_k(R) — lane k of R after one run of the body from S_h with exec = class(k)
 *       = {j ∈ rem0 : a_j = a_k} — and in each lane outside rem0 its value in S_h;
 *       lanes still in rem, and every scalar register the body writes, are arbitrary;
 *   (3) every register the body does not write has its value in S_h.
 * Queries: I(S_h) holds by construction (rem = rem0, no lane retired). Preserve: I(S) and
 * the back-edge taken ⇒ I(S') and rem' ⊊ rem (progress: the loop ends within 32 rounds).
 * Exit: I(S) and the back-edge not taken ⇒ after the epilogue every defined lane is right
 * and the contract holds. A failing inductive query is `unknown`, never a refutation (the
 * invariant may be too weak): only a model that replays concretely refutes.
 *
 * The bug-finder: the loop unrolled by predicated execution (`execPaths`) with up to 16
 * executing lanes (the others exited) holding full-width values, 60 s. It can only refute;
 * its timeouts are reported beside the verdict, not as unknown.
 *
 * PIR routines (JS and C): targets/portable/prove.ts. The warp (inputs, reference, output
 * conditions) both share is src/check/prove_warp.ts.
 */
import type { MatchForm, Profile } from "../../../src/ir/forms.js";
import { formWrites } from "../../../src/ir/forms.js";
import type { BV } from "../../../src/sem/bv.js";
import { matchSync } from "../../../src/sem/match_sync.js";
import { guardOff, guardOn } from "../../../src/sem/guard.js";
import type { Bad, BugFinderReport, Init, ProveOptions, Verdict } from "../../../src/check/prove_types.js";
import { amdgpu, concreteInit, modelValues, symbolicInit } from "../../../src/check/prove_types.js";
import { fmt, hash, header } from "../../../src/check/prove_text.js";
import type { Warp } from "../../../src/check/prove_warp.js";
import { LANES, TaintError, concreteBit, resultBads, warpInputLines, warpSpecLines } from "../../../src/check/prove_warp.js";
import type { Bool, BitVec, Z3Env } from "../../../src/check/smt.js";
import { solve } from "../../../src/check/smt.js";
import type { AmdRoutine } from "../lower.js";
import type { WaveState } from "../interp.js";
import { InterpError } from "../interp.js";
import { contractBads, dVgpr } from "../contract.js";
import { record } from "../isa/index.js";
import type { IsaRecord } from "../isa/record.js";
import type { MLine, MOp } from "../minst.js";
import { isLabel, printOp } from "../minst.js";
import type { PathsResult } from "./paths.js";
import { amdTraceLines, cloneState, execPaths, initialState, readSource } from "./paths.js";


/** Preserve results of this thread's loops, by loop key (see proveInductive). */
const loopFacts = new Map<string, Promise<LoopFacts>>();
/** Whether a loop's exit summary holds, by loop key. */
const loopSummary = new Map<string, Promise<LoopFacts>>();

// ---------------------------------------------------------------------------------------
// Data independence (the soundness condition of the small-value reduction)

type Tag = "lo" | "hi";
type Taint = Map<string, Tag>;

/** An equality compare of whole operands: `==`/`!=` on all the bits of its 32- or 64-bit sources, into a lane mask or SCC. */
const fullEqualityCompare = (rec: IsaRecord): boolean =>
  rec.cmp !== undefined && (rec.cmp.rel === "eq" || rec.cmp.rel === "ne") && rec.cmp.bits === rec.ops.find((o) => !o.out)?.w && !rec.defs?.includes("exec");

function regKeys(o: MOp): string[] {
  if (o.k === "v" || o.k === "s") return Array.from({ length: o.count }, (_, i) => `${o.k}${o.n + i}`);
  if (o.k === "vcc" || o.k === "vcc_lo" || o.k === "vcc_hi") return ["vcc"];
  if (o.k === "exec" || o.k === "exec_lo" || o.k === "exec_hi") return ["exec"];
  return [];
}

/**
 * Checks that values derived from `a` (in `aReg`, a VGPR or VGPR pair) reach only moves,
 * lane reads and same-half equality compares, on every path (a may-taint fixed point).
 * @returns null when data-independent, else the first offending use.
 */
export function dataIndependence(lines: readonly MLine[], aReg: MOp): string | null {
  return taintScan(lines, aReg).error;
}

/**
 * Whether a data-independent routine compares the halves of a `.b64` value separately
 * (a 32-bit compare of a half). If it never does, only whole-value equality matters and one
 * small value per lane (high half 0) realises every pattern; otherwise the halves get
 * independent small values (so comparing only the low halves is still caught).
 */
export function comparesHalves(lines: readonly MLine[], aReg: MOp): boolean {
  return taintScan(lines, aReg).halves;
}

function taintScan(lines: readonly MLine[], aReg: MOp): { error: string | null; halves: boolean } {
  let halves = false;
  const labels = new Map<string, number>();
  lines.forEach((l, i) => {
    if (isLabel(l)) labels.set(l.label, i);
  });
  const init: Taint = new Map();
  regKeys(aReg).forEach((k, i) => init.set(k, i === 0 ? "lo" : "hi"));
  const at: (Taint | undefined)[] = new Array(lines.length + 1);
  const join = (pc: number, t: Taint): boolean => {
    const cur = at[pc];
    if (!cur) {
      at[pc] = new Map(t);
      return true;
    }
    let changed = false;
    for (const [k, tag] of t) {
      const old = cur.get(k);
      if (old === undefined) {
        cur.set(k, tag);
        changed = true;
      } else if (old !== tag) throw new TaintError(`${k} holds both halves of a on different paths`);
    }
    return changed;
  };
  try {
    join(0, init);
    const work = [0];
    while (work.length) {
      const pc = work.pop()!;
      if (pc >= lines.length) continue;
      const t = new Map(at[pc]!);
      const line = lines[pc]!;
      const succ: number[] = [];
      if (isLabel(line)) succ.push(pc + 1);
      else {
        const rec = record(line.op);
        const tagsOf = (i: number) => regKeys(line.ops[i]!).map((k) => t.get(k));
        const outs = rec.ops.map((s, i) => (s.out ? i : -1)).filter((i) => i >= 0);
        const ins = rec.ops.map((s, i) => (s.out ? -1 : i)).filter((i) => i >= 0);
        const tainted = ins.filter((i) => tagsOf(i).some((x) => x !== undefined));
        const where = `${line.op} ${line.ops.map(printOp).join(", ")}`;
        const result: Map<string, Tag | undefined> = new Map();
        if (tainted.length && rec.move) {
          // Data operands only: never a lane index or a lane mask.
          const dataIdx = rec.move === "select" ? [ins[0]!, ins[1]!] : [ins[0]!];
          for (const i of tainted) if (!dataIdx.includes(i)) throw new TaintError(`${where}: a value of a used as a lane index or mask`);
          if (rec.move === "select") {
            const [x, y] = [tagsOf(ins[0]!), tagsOf(ins[1]!)];
            if (x.join() !== y.join()) throw new TaintError(`${where}: selects between a value of a and another value`);
          }
          const src = tagsOf(dataIdx[0]!);
          regKeys(line.ops[outs[0]!]!).forEach((k, i) => result.set(k, src[i]));
        } else if (tainted.length && fullEqualityCompare(rec)) {
          const [x, y] = [tagsOf(ins[0]!), tagsOf(ins[1]!)];
          if (x.some((v) => v === undefined) || y.some((v) => v === undefined) || x.join() !== y.join())
            throw new TaintError(`${where}: compares a value of a with something other than the same part of another value of a`);
          if (aReg.k === "v" && aReg.count === 2 && x.length === 1) halves = true;
          for (const i of outs) for (const k of regKeys(line.ops[i]!)) result.set(k, undefined);
        } else if (tainted.length) {
          throw new TaintError(`${where}: a value of a reaches ${line.op} (only moves, lane reads and full-width equality compares are data-independent)`);
        } else {
          for (const i of outs) for (const k of regKeys(line.ops[i]!)) result.set(k, undefined);
        }
        for (const d of rec.defs ?? []) result.set(d, undefined);
        for (const [k, v] of result) {
          if (v === undefined) t.delete(k);
          else t.set(k, v);
        }
        if ("branch" in rec.sem) {
          const lab = line.ops[0];
          if (lab?.k === "label" && labels.has(lab.name)) succ.push(labels.get(lab.name)!);
          if (line.op !== "s_branch") succ.push(pc + 1);
        } else succ.push(pc + 1);
      }
      for (const s of succ) if (join(s, t)) work.push(s);
    }
  } catch (e) {
    if (e instanceof TaintError) return { error: e.message, halves: true };
    throw e;
  }
  return { error: null, halves };
}


// ---------------------------------------------------------------------------------------
// Loop shape

type LoopShape = { kind: "none" } | { kind: "one"; label: number; branch: number } | { kind: "unsupported"; why: string };

/** Finds the routine's loop: none, one do-while loop with a straight-line body, or other. */
export function loopShape(lines: readonly MLine[]): LoopShape {
  const labels = new Map<string, number>();
  lines.forEach((l, i) => {
    if (isLabel(l)) labels.set(l.label, i);
  });
  const back: { from: number; to: number }[] = [];
  lines.forEach((l, i) => {
    if (isLabel(l) || !("branch" in record(l.op).sem)) return;
    const lab = l.ops[0];
    const to = lab?.k === "label" ? labels.get(lab.name) : undefined;
    if (to !== undefined && to <= i) back.push({ from: i, to });
  });
  if (back.length === 0) return { kind: "none" };
  if (back.length > 1) return { kind: "unsupported", why: `${back.length} back-edges` };
  const { from, to } = back[0]!;
  const br = lines[from]!;
  if (!isLabel(br) && br.op === "s_branch") return { kind: "unsupported", why: "unconditional back-edge" };
  for (let i = 0; i < to; i++) {
    const l = lines[i]!;
    if (isLabel(l) || "branch" in record(l.op).sem) return { kind: "unsupported", why: "control flow before the loop" };
  }
  for (let i = to + 1; i < from; i++) {
    const l = lines[i]!;
    if (isLabel(l) || "branch" in record(l.op).sem) return { kind: "unsupported", why: "control flow inside the loop body" };
  }
  return { kind: "one", label: to, branch: from };
}

/** Register keys an instruction list writes (outputs and implicit defs). */
function writtenRegs(lines: readonly MLine[]): { v: Set<number>; s: Set<number>; vcc: boolean } {
  const v = new Set<number>();
  const s = new Set<number>();
  let vcc = false;
  for (const l of lines) {
    if (isLabel(l)) continue;
    const rec = record(l.op);
    rec.ops.forEach((sp, i) => {
      if (!sp.out) return;
      const o = l.ops[i]!;
      if (o.k === "v") for (let k = 0; k < o.count; k++) v.add(o.n + k);
      if (o.k === "s") for (let k = 0; k < o.count; k++) s.add(o.n + k);
      if (o.k === "vcc" || o.k === "vcc_lo") vcc = true;
    });
    if (rec.defs?.includes("vcc")) vcc = true;
  }
  return { v, s, vcc };
}

/**
 * The key of a loop's cached facts: the lines up to the back-edge with registers renamed in
 * order of first appearance (a's register and the special registers kept), the value width
 * and the wave size. Every register other than a's starts symbolic and is treated alike, so
 * a consistent renaming maps a proof to a proof: routines whose loops differ only in
 * register allocation (membermask kinds, guards) share one. `canon` names a VGPR the same
 * way, for facts stored per register.
 */
function loopCanon(r: AmdRoutine, shape: { branch: number }): { text: string; canon: (n: number) => string } {
  const a = r.layout.src.a!;
  const fixed = new Set(a.k === "v" ? Array.from({ length: a.count }, (_, i) => `v${a.n + i}`) : []);
  const names = new Map<string, string>();
  const counts = { v: 0, s: 0 };
  const name = (k: "v" | "s", n: number) => {
    const key = `${k}${n}`;
    if (fixed.has(key)) return key.toUpperCase();
    let x = names.get(key);
    if (!x) names.set(key, (x = `${k}'${counts[k]++}`));
    return x;
  };
  const op = (o: MOp) => (o.k === "v" || o.k === "s" ? Array.from({ length: o.count }, (_, i) => name(o.k as "v" | "s", o.n + i)).join(":") : printOp(o));
  const text = r.lines.slice(0, shape.branch + 1).map((l) => (isLabel(l) ? `${l.label}:` : `${l.op} ${l.ops.map(op).join(",")}`));
  return { text: [r.target.wave, printOp(a), ...text].join("\n"), canon: (n) => name("v", n) };
}

function loopKey(r: AmdRoutine, shape: { branch: number }, bits: number | null): string {
  // The reduction (one small value per lane, or per half) is part of what was proved.
  const halves = bits !== null && comparesHalves(r.lines, r.layout.src.a!);
  return hash(`${bits} ${halves}\n${loopCanon(r, shape).text}`);
}

/** Routines with the same loop (so the same cached loop facts) share an affinity string. */
export function loopAffinity(r: AmdRoutine): string {
  const shape = loopShape(r.lines);
  return shape.kind === "one" ? loopKey(r, shape, null) : "";
}

// ---------------------------------------------------------------------------------------
// The warp: inputs, reference, checks


/**
 * Reads the routine's inputs from the initial state (per the routine contract) and runs the
 * reference. `reduce`: the a register's lanes are replaced by small values (per half).
 */
function warpOf<V, B>(init: Init<V, B>, r: AmdRoutine, st: WaveState<V, B>, active: V): Warp<V, B> {
  const bv = init.bv;
  const f = r.spec.form as MatchForm;
  const W = r.target.wave;
  const aw = f.type === "b64" ? 64 : 32;
  const lanes = Array.from({ length: LANES }, (_, l) => l);
  const a = lanes.map((l) => readSource(bv, st, r.layout.src.a!, aw, l));
  const membermask = lanes.map((l) => readSource(bv, st, r.layout.src.membermask!, 32, l));
  const activeB = lanes.map((l) => bv.bitAt(active, l));
  let executes = activeB;
  const w: Partial<Warp<V, B>> = {};
  if (r.spec.guarded) {
    const gm = readSource(bv, st, r.layout.guard!, W, 0);
    w.g = lanes.map((l) => bv.bitAt(gm, l));
    w.dPrior = lanes.map((l) => st.vgpr.get((r.layout.dPrior as { n: number }).n)![l]!);
    w.pPrior = lanes.map((l) => bv.bitAt(st.vcc, l));
    executes = lanes.map((l) => guardOn(bv, activeB[l]!, w.g![l]!));
  }
  const ref = matchSync(bv, f, { a, membermask, active: activeB, executes });
  return { active, a, membermask, activeB, executes, ref, ...w } as Warp<V, B>;
}

/** Output conditions: d and p right in every defined lane; guard-off lanes keep d and p. */
function outputBads<V, B>(bv: BV<V, B>, f: MatchForm, w: Warp<V, B>, after: WaveState<V, B>, lanes: number, dn: number): Bad<B>[] {
  const bads: Bad<B>[] = [];
  for (let l = 0; l < lanes; l++) {
    const on = bv.andB(w.executes[l]!, w.ref.defined[l]!);
    const off = guardOff(bv, w.activeB[l]!, w.g?.[l]);
    bads.push(...resultBads(bv, f, w, l, on, off, { d: () => after.vgpr.get(dn)![l]!, p: () => bv.bitAt(after.vcc, l) }));
  }
  return bads.filter((b) => bv.asBool(b.cond) !== false);
}

/** The initial state of a match routine; `activeLanes` < 32 makes the upper lanes exited. */
function matchInit<V, B>(init: Init<V, B>, r: AmdRoutine, activeLanes: number, reduceBits: number | null): { st: WaveState<V, B>; active: V } {
  const halves = reduceBits !== null && comparesHalves(r.lines, r.layout.src.a!);
  const bv = init.bv;
  const W = r.target.wave;
  let active = init.mk("active", 32);
  if (activeLanes < LANES) active = bv.and(active, bv.k((1n << BigInt(activeLanes)) - 1n, 32));
  const st = initialState(init, r, bv.zext(active, W));
  const aReg = r.layout.src.a!;
  if (reduceBits !== null && aReg.k === "v") {
    for (let part = 0; part < aReg.count; part++) {
      const lanes = st.vgpr.get(aReg.n + part)!;
      for (let l = 0; l < W; l++) lanes[l] = part && !halves ? bv.k(0, 32) : bv.zext(init.mk(`a${part ? "hi" : "lo"}.${l}`, reduceBits), 32);
    }
  }
  return { st, active };
}

// ---------------------------------------------------------------------------------------
// AMDGPU

export async function proveAmdMatch(env: Z3Env, r: AmdRoutine, profile: Profile, opts: ProveOptions & { timeoutMs: number }, t0: number): Promise<Verdict> {
  const shape = loopShape(r.lines);
  if (shape.kind === "none") return proveLoopFree(env, r, profile, opts.timeoutMs, t0);
  const mode = opts.bugFinder === undefined || opts.bugFinder === true ? "first" : opts.bugFinder;
  const runBug = () => bugFinder(env, r, profile, opts.bugLanes ?? 16, opts.bugTimeoutMs ?? 60_000, t0);
  // "first": the bug-finder before the proof — on a broken routine it is usually the fastest
  // way to a counterexample. "fallback": only when the proof fails (it can only refute, so a
  // proved routine does not need it). false: never.
  let bug = mode === "first" ? await runBug() : null;
  if (bug?.refuted) return bug.refuted;
  const notes: string[] = [];
  let proof: Verdict | null = null;
  const aReg = r.layout.src.a!;
  if (shape.kind === "unsupported") notes.push(`loop shape not handled by the induction: ${shape.why}`);
  else {
    const di = aReg.k === "v" ? dataIndependence(r.lines, aReg) : null;
    if (di) notes.push(`not data-independent, so not proved on small values: ${di}`);
    else {
      try {
        proof = await proveInductive(env, r, profile, shape, aReg.k === "v" ? (r.target.wave === 64 ? 6 : 5) : null, opts.timeoutMs, t0);
      } catch (e) {
        if (!(e instanceof InterpError)) throw e;
        notes.push(`the interpreter rejects the sequence: ${e.message}`);
      }
    }
  }
  const report = (): { bugFinder?: BugFinderReport } => (bug ? { bugFinder: { lanes: bug.lanes, status: bug.status, ms: bug.ms } } : {});
  const bugNote = () => (bug ? `bug-finder (${bug.lanes} lanes, full width): ${bug.status} in ${(bug.ms / 1000).toFixed(1)} s` : "bug-finder not run (proved)");
  if (proof && proof.verdict === "proved") return { ...proof, method: `${proof.method}; ${bugNote()}`, ...report() };
  if (mode === "fallback") {
    bug = await runBug();
    if (bug.refuted) return bug.refuted;
  }
  const why = [proof && proof.verdict === "unknown" ? proof.reason : null, ...notes].filter(Boolean).join("; ");
  return { verdict: "unknown", ms: performance.now() - t0, reason: `${why}; ${bugNote()}`, ...(proof?.verdict === "unknown" && proof.fault ? { fault: true } : {}), ...report() };
}

async function proveLoopFree(env: Z3Env, r: AmdRoutine, profile: Profile, timeoutMs: number, t0: number): Promise<Verdict> {
  // The small-value reduction is sound here too when the routine is data-independent;
  // otherwise the values stay full width.
  const aReg = r.layout.src.a!;
  const di = aReg.k === "v" ? dataIndependence(r.lines, aReg) : "a is not a VGPR";
  const bits = di === null ? (r.target.wave === 64 ? 6 : 5) : null;
  const q = fullRun(symbolicInit(env), r, profile, LANES, 0, false, bits);
  const method = `z3 loop-free, 32 lanes, ${bits === null ? "full-width values" : `${bits}-bit lane values (data-independent)`}`;
  // One query per lane's outputs, one for the rest: far faster than one query for all.
  const byLane = new Map<number, Bool[]>();
  const rest: Bool[] = [];
  for (const b of q.bads) {
    if (b.lane !== undefined && b.lane < LANES && !/^v\d+ lane/.test(b.what)) {
      if (!byLane.has(b.lane)) byLane.set(b.lane, []);
      byLane.get(b.lane)!.push(b.cond);
    } else rest.push(b.cond);
  }
  const goals = [...[...byLane.values()].map((cs) => env.bv.any(cs)), env.bv.any(rest)];
  let n = 0;
  for (const g of goals) {
    if (env.bv.asBool(g) === false) continue;
    n++;
    const res = await solve(env, [g], timeoutMs);
    if (res.status === "unsat") continue;
    if (res.status === "unknown") return { verdict: "unknown", ms: performance.now() - t0, reason: res.reason ?? "unknown", ...(res.fault ? { fault: true } : {}) };
    return (await replayMatch(env, r, profile, q.symbols, res.model!, LANES, t0, bits)) ?? { verdict: "unknown", ms: performance.now() - t0, reason: "z3 model did not replay concretely" };
  }
  return { verdict: "proved", ms: performance.now() - t0, method: `${method}, ${n} queries`, queries: n };
}

/** A whole run (predicated execution), the reference and every check; `bits`: small values. */
function fullRun<V, B>(init: Init<V, B>, r: AmdRoutine, profile: Profile, lanes: number, maxBack: number, traceRun = false, bits: number | null = null) {
  void profile;
  const bv = init.bv;
  const { st, active } = matchInit(init, r, lanes, bits);
  const before = cloneState(st);
  const w = warpOf(init, r, before, active);
  let paths: PathsResult<V, B>;
  try {
    paths = execPaths(bv, r.lines, st, { maxBack, trace: traceRun, stepLimit: 100_000 });
  } catch (e) {
    if (!(e instanceof InterpError)) throw e;
    paths = { final: null, done: bv.false, stuck: bv.false, error: e.message, trace: [], steps: 0 };
  }
  const bads: Bad<B>[] = [];
  if (paths.error) bads.push({ what: `the interpreter rejects the sequence: ${paths.error}`, cond: bv.true });
  if (bv.asBool(paths.stuck) !== false) bads.push({ what: `the loop does not end within ${maxBack} rounds`, cond: paths.stuck });
  if (paths.final) {
    bads.push(...outputBads(bv, r.spec.form as MatchForm, w, paths.final, lanes, dVgpr(r) ?? 0));
    bads.push(...contractBads(bv, r, before, paths.final, (l) => (l < LANES ? w.activeB[l]! : bv.false)));
  }
  return { before, after: paths.final, paths, w, bads, symbols: (init as { symbols?: Map<string, BitVec | Bool> }).symbols };
}

/**
 * The match.sync bug-finder: the whole routine at full width over `lanes` active lanes (each
 * loop unrolled `lanes` + 1 times), one query for every check; it can only refute.
 *
 * Deepening: with `lanes` > 4 it asks 4 lanes first (a fifth of the budget, at most 15 s),
 * then `lanes`. Most broken waterfalls fail on two or three distinct values (a lane left out
 * of a round, a round too few), and the 4-lane query is small: `match_any_one_round_short`
 * (test/check/broken) ran into the 16-lane query's 60 s timeout on a loaded 2-core machine
 * (then unknown, not refuted); at 4 lanes it is refuted in 5.7 s, a prover worker's start
 * included. A 4-lane "no bug" or timeout proves nothing, so the
 * full query still runs; the report names the lanes of the query that answered.
 */
async function bugFinder(env: Z3Env, r: AmdRoutine, profile: Profile, lanes: number, timeoutMs: number, t0: number): Promise<BugFinderReport & { refuted?: Verdict }> {
  if (lanes > SMALL_BUG_LANES) {
    const small = await bugFinderAt(env, r, profile, SMALL_BUG_LANES, Math.min(timeoutMs / 5, 15_000), t0);
    if (small.refuted) return small;
  }
  return bugFinderAt(env, r, profile, lanes, timeoutMs, t0);
}

/** The lanes of `bugFinder`'s first, small query. */
const SMALL_BUG_LANES = 4;

async function bugFinderAt(env: Z3Env, r: AmdRoutine, profile: Profile, lanes: number, timeoutMs: number, t0: number): Promise<BugFinderReport & { refuted?: Verdict }> {
  const t1 = performance.now();
  const q = fullRun(symbolicInit(env), r, profile, lanes, lanes + 1);
  const res = await solve(env, [env.bv.any(q.bads.map((b) => b.cond))], timeoutMs);
  const ms = performance.now() - t1;
  if (res.status === "unsat") return { status: "no bug", ms, lanes };
  if (res.status === "unknown") return { status: res.fault ? "solver fault" : "timeout", ms, lanes };
  const refuted = await replayMatch(env, r, profile, q.symbols!, res.model!, lanes, t0);
  return refuted ? { status: "counterexample", ms, lanes, refuted } : { status: "model did not replay", ms, lanes };
}

/** Re-runs a model concretely and prints the counterexample (null if it does not fail). */
async function replayMatch(env: Z3Env, r: AmdRoutine, profile: Profile, symbols: Map<string, BitVec | Bool> | undefined, model: NonNullable<Awaited<ReturnType<typeof solve>>["model"]>, lanes: number, t0: number, bits: number | null = null): Promise<Verdict | null> {
  const values = modelValues(env, model, symbols!);
  const c = fullRun(concreteInit(values), r, profile, lanes, 1000, true, bits);
  const hit = c.bads.find((b) => b.cond === true);
  if (!hit) return null;
  const f = r.spec.form as MatchForm;
  const target = amdgpu(r.target.mcpu);
  const ms = performance.now() - t0;
  const lane = hit.lane ?? 0;
  const out = [header(f, target, r.rule, profile, ms), `ERROR: ${hit.what}`, "", "Example:", ...warpInputLines(r.spec, c.w)];
  out.push("Spec  src/sem/match_sync.ts (per lane: executes, defined, d, p):", ...warpSpecLines(f, c.w));
  out.push(`Lowering  ${target.kind === "amdgpu" ? `amdgpu ${target.mcpu}` : ""} (exec = ${fmt(c.before.exec)}; VGPR values of lane ${lane} shown):`, ...amdTraceLines(c.paths.trace, lane));
  if (c.paths.error) out.push(`  (stopped: ${c.paths.error})`);
  if (c.after) {
    if (formWrites(f).d) {
      out.push(`Spec value:     d[${lane}] = ${c.w.ref.defined[lane] ? fmt(c.w.ref.d[lane]!) : "undefined"}`);
      out.push(`Lowered value:  d[${lane}] = ${fmt(c.after.vgpr.get(dVgpr(r) ?? 0)![lane]!)}`);
    }
    if (formWrites(f).p) {
      out.push(`Spec value:     p[${lane}] = ${c.w.ref.defined[lane] ? fmt(c.w.ref.p[lane]!) : "undefined"}`);
      out.push(`Lowered value:  p[${lane}] = ${fmt(concreteBit(c.after.vcc, lane))}`);
    }
    if (hit.what.startsWith("exec")) out.push(`  exec: before ${fmt(c.before.exec)}, after ${fmt(c.after.exec)}`);
  }
  return { verdict: "refuted", ms, reason: hit.what, counterexample: out.join("\n") };
}

/** A cached per-loop result: the facts proved about a loop, independent of its epilogue. */
interface LoopFacts {
  ok: boolean;
  ms: number;
  queries: number;
  reason: string;
  fault: boolean;
}
/** Per loop key: which E_k(v_n) equal the class-mask candidate ("k:n"). */
const simpleE = new Map<string, Promise<{ set: Set<string>; ms: number; queries: number; fault?: string }>>();

/** Runs goals one query each (after `base`); the first that is not unsat stops. */
async function solveGoals(env: Z3Env, base: Bool[], goals: { what: string; bad: Bool }[], timeoutMs: number, tag: string): Promise<LoopFacts> {
  const t1 = performance.now();
  let n = 0;
  for (const g of goals) {
    if (env.bv.asBool(g.bad) === false) continue;
    n++;
    const res = await solve(env, [...base, g.bad], timeoutMs, "QF_BV");
    if (process.env.PROVE_DEBUG) console.log(tag, g.what, res.status, Math.round(res.ms));
    if (res.status !== "unsat")
      return {
        ok: false,
        ms: performance.now() - t1,
        queries: n,
        reason: res.status === "sat" ? `${tag} query fails at ${g.what} (the invariant is not strong enough: not proved, not a counterexample)` : `${tag} query (${g.what}): ${res.reason}`,
        fault: !!res.fault,
      };
  }
  return { ok: true, ms: performance.now() - t1, queries: n, reason: "", fault: false };
}

/**
 * The inductive proof of a one-loop routine (see the file comment). `bits`: the small lane
 * values (null: a is uniform, kept at full width).
 *
 * Everything about the loop alone — the simplification of E_k and the preserve queries —
 * reads only the prologue, the body and the branch, so it is cached per loop key (the
 * canonical text of those lines, the a register and the value width) and shared by every
 * routine with the same loop: `.any` and `.all`, every destination shape and membermask kind.
 * Only the exit query (epilogue, spec, contract) is per routine.
 */
async function proveInductive(env: Z3Env, r: AmdRoutine, profile: Profile, shape: { label: number; branch: number }, bits: number | null, timeoutMs: number, t0: number): Promise<Verdict> {
  void profile;
  const bv = env.bv;
  const init = symbolicInit(env);
  const W = r.target.wave;
  const { st, active } = matchInit(init, r, LANES, bits);
  const before = cloneState(st);
  const w = warpOf(init, r, before, active);
  const pro = r.lines.slice(0, shape.label);
  const body = r.lines.slice(shape.label + 1, shape.branch);
  const epi = r.lines.slice(shape.branch + 1);
  const br = r.lines[shape.branch]! as Exclude<MLine, { label: string }>;
  const key = loopKey(r, shape, bits);
  const { canon } = loopCanon(r, shape);

  // Prologue → S_h (no branches in it, by the loop shape).
  const ph = execPaths(bv, pro, cloneState(st), { maxBack: 0 });
  if (!ph.final) return { verdict: "unknown", ms: performance.now() - t0, reason: "prologue does not reach the loop" };
  const Sh = ph.final;
  const rem0 = Sh.exec;
  const lane = (x: BitVec, l: number) => bv.bitAt(x, l);
  const same = (i: number, j: number) => bv.eq(w.a[i]!, w.a[j]!);
  const classMask = (k: number): BitVec => {
    let m = bv.k(0, W);
    for (let j = 0; j < LANES; j++) m = bv.or(m, bv.ite(bv.andB(lane(rem0, j), same(j, k)), bv.k(1n << BigInt(j), W), bv.k(0, W)));
    return m;
  };
  const wr = writtenRegs(body);
  const runBody = (s: WaveState<BitVec, Bool>) => execPaths(bv, body, s, { maxBack: 0 }).final!;
  const lanesIn0 = Array.from({ length: W }, (_, l) => l).filter((l) => bv.asBool(lane(rem0, l)) !== false);

  // E_k: lane k of every body-written VGPR after one body run from S_h with exec = class(k).
  const rawE = new Map<number, Map<number, BitVec>>();
  const Eraw = (k: number): Map<number, BitVec> => {
    let m = rawE.get(k);
    if (!m) {
      const s = cloneState(Sh);
      s.exec = classMask(k);
      const out = runBody(s);
      m = new Map([...wr.v].map((n) => [n, out.vgpr.get(n)![k]!]));
      rawE.set(k, m);
    }
    return m;
  };
  // Simplification, proved per lane: for k ∈ rem0, E_k(v_n) = the low 32 bits of class(k),
  // which is what a waterfall round hands to its lanes; where it holds, the queries below
  // use that (much smaller) term instead.
  const cand = (k: number) => bv.extract(classMask(k), 31, 0);
  let simp = simpleE.get(key);
  if (!simp) {
    simp = (async () => {
      const t1 = performance.now();
      const set = new Set<string>();
      let queries = 0;
      for (const k of lanesIn0) {
        for (const n of wr.v) {
          const e = Eraw(k).get(n)!;
          if (bv.width(e) !== 32) continue;
          queries++;
          // Only used where k ∈ rem0 (a retired lane), so that may be assumed.
          const res = await solve(env, [lane(rem0, k), bv.notB(bv.eq(e, cand(k)))], timeoutMs, "QF_BV");
          if (process.env.PROVE_DEBUG) console.log("E", k, n, res.status, Math.round(res.ms));
          if (res.fault) return { set, ms: performance.now() - t1, queries, fault: res.reason ?? "fault" };
          if (res.status === "unsat") set.add(`${k}:${canon(n)}`);
        }
      }
      return { set, ms: performance.now() - t1, queries };
    })();
    simpleE.set(key, simp);
  }
  const simpRes = await simp;
  if (simpRes.fault) {
    simpleE.delete(key);
    return { verdict: "unknown", ms: performance.now() - t0, reason: `solver fault: ${simpRes.fault}`, fault: true };
  }
  const Ek = (k: number, n: number): BitVec => (simpRes.set.has(`${k}:${canon(n)}`) ? cand(k) : Eraw(k).get(n)!);

  // The havoc'd loop-head state S.
  const rem = W === 64 ? bv.zext(init.mk("rem", 32), 64) : init.mk("rem", 32);
  const S = cloneState(Sh);
  S.exec = rem;
  for (const n of wr.s) S.sgpr.set(n, init.mk(`h.s${n}`, 32));
  if (wr.vcc) S.vcc = init.mk("h.vcc", W);
  S.scc = init.mkB("h.scc");
  for (const n of wr.v) {
    const lanes = S.vgpr.get(n)!.map((old, l) => {
      const in0 = lane(rem0, l);
      if (bv.asBool(in0) === false) return old;
      const retired = bv.andB(in0, bv.notB(lane(rem, l)));
      return bv.ite(retired, Ek(l, n), bv.ite(in0, init.mk(`h.v${n}.${l}`, 32), old));
    });
    S.vgpr.set(n, lanes);
  }
  const subset = (x: BitVec, y: BitVec) => bv.eq(bv.and(x, bv.not(y)), bv.k(0, W));
  const classes = (x: BitVec): Bool => {
    const cs: Bool[] = [];
    for (let i = 0; i < LANES; i++)
      for (let j = i + 1; j < LANES; j++) {
        const both = bv.andB(bv.andB(lane(rem0, i), lane(rem0, j)), same(i, j));
        if (bv.asBool(both) === false) continue;
        cs.push(bv.implies(both, bv.eqB(lane(x, i), lane(x, j))));
      }
    return bv.all(cs);
  };
  const inv = bv.andB(subset(rem, rem0), classes(rem));

  // One body run from S, then the back-edge condition.
  const S1 = runBody(cloneState(S));
  const rec = record(br.op);
  if (!("branch" in rec.sem)) throw new Error("loop does not end in a branch");
  const c = rec.sem.branch(bv, {
    wave: W,
    gen: S1.gen,
    writeLanes: () => {
      throw new InterpError("branch writes an operand");
    },
    exec: () => S1.exec,
    scc: () => S1.scc,
    read: () => {
      throw new InterpError("branch reads an operand");
    },
    readLanes: () => [],
    write: () => {},
    setExec: () => {},
    setScc: () => {},
  });
  const rem1 = S1.exec;

  // Preserve (cached per loop), split into one query for rem and one per lane.
  let facts = loopFacts.get(key);
  const cached = !!facts;
  if (!facts) {
    const goals: { what: string; bad: Bool }[] = [
      { what: "rem' ⊆ rem0, rem' a union of classes, rem' ⊊ rem", bad: bv.notB(bv.all([subset(rem1, rem0), classes(rem1), subset(rem1, rem), bv.notB(bv.eq(rem1, rem))])) },
    ];
    for (let l = 0; l < W; l++) {
      const cs: Bool[] = [];
      const in0 = lane(rem0, l);
      for (const n of wr.v) {
        const x = S1.vgpr.get(n)![l]!;
        if (bv.asBool(in0) === false) {
          cs.push(bv.eq(x, Sh.vgpr.get(n)![l]!));
          continue;
        }
        cs.push(bv.implies(bv.andB(in0, bv.notB(lane(rem1, l))), bv.eq(x, Ek(l, n))));
        cs.push(bv.implies(bv.notB(in0), bv.eq(x, Sh.vgpr.get(n)![l]!)));
      }
      goals.push({ what: `lane ${l} of v${[...wr.v].join(",v")}`, bad: bv.notB(bv.all(cs)) });
    }
    facts = solveGoals(env, [inv, c], goals, timeoutMs, "preserve");
    loopFacts.set(key, facts);
  }
  const preserve = await facts;
  if (!preserve.ok) {
    if (preserve.fault) loopFacts.delete(key);
    return { verdict: "unknown", ms: performance.now() - t0, reason: preserve.reason, ...(preserve.fault ? { fault: true } : {}) };
  }

  // The loop's summary (cached per loop, like preserve): when the back-edge is not taken,
  // exec is empty and every body-written VGPR holds E_k in each lane k ∈ rem0 and its S_h
  // value elsewhere. Then the epilogue runs once from that summary state (body-written
  // scalars arbitrary) — small terms, one cheap query per routine. If the summary does not
  // hold, the epilogue runs from the state after the last round, under the invariant.
  let sum = loopSummary.get(key);
  if (!sum) {
    const goals: { what: string; bad: Bool }[] = [{ what: "exec empty at exit", bad: bv.notB(bv.eq(rem1, bv.k(0, W))) }];
    for (let l = 0; l < W; l++) {
      const in0 = lane(rem0, l);
      const cs: Bool[] = [];
      for (const n of wr.v) {
        const x = S1.vgpr.get(n)![l]!;
        cs.push(bv.asBool(in0) === false ? bv.eq(x, Sh.vgpr.get(n)![l]!) : bv.eq(x, bv.ite(in0, Ek(l, n), Sh.vgpr.get(n)![l]!)));
      }
      goals.push({ what: `lane ${l} at exit`, bad: bv.notB(bv.all(cs)) });
    }
    sum = solveGoals(env, [inv, bv.notB(c)], goals, timeoutMs, "summary");
    loopSummary.set(key, sum);
  }
  const summary = await sum;
  if (summary.fault) loopSummary.delete(key);
  const runEpilogue = (from: WaveState<BitVec, Bool>): PathsResult<BitVec, Bool> | string => {
    try {
      const fin = execPaths(bv, epi, from, { maxBack: 0 });
      if (!fin.final || bv.asBool(fin.stuck) !== false) return "epilogue has a loop";
      return fin;
    } catch (e) {
      if (!(e instanceof InterpError)) throw e;
      return `epilogue: ${e.message}`;
    }
  };
  const exitBads = (fin: PathsResult<BitVec, Bool>) => [
    ...outputBads(bv, r.spec.form as MatchForm, w, fin.final!, LANES, dVgpr(r) ?? 0),
    ...contractBads(bv, r, before, fin.final!, (l) => (l < LANES ? w.activeB[l]! : bv.false)),
  ];
  // One query per lane's outputs, one for the rest (the contract): 33 small queries solve
  // faster than their disjunction (a guarded .all.b64 exit: 22.6 s as one query).
  const laneGoals = (bads: ReturnType<typeof exitBads>) => {
    const byLane = new Map<number, Bool[]>();
    const rest: Bool[] = [];
    for (const b of bads) {
      if (b.lane !== undefined && b.lane < LANES && !/^v\d+ lane/.test(b.what)) {
        if (!byLane.has(b.lane)) byLane.set(b.lane, []);
        byLane.get(b.lane)!.push(b.cond);
      } else rest.push(b.cond);
    }
    return [...[...byLane.entries()].map(([l, cs]) => ({ what: `outputs of lane ${l}`, bad: bv.any(cs) })), { what: "the contract", bad: bv.any(rest) }];
  };
  let exit: LoopFacts;
  let exitHow: string;
  if (summary.ok) {
    const Sx = cloneState(Sh);
    Sx.exec = bv.k(0, W);
    for (const n of wr.s) Sx.sgpr.set(n, init.mk(`x.s${n}`, 32));
    if (wr.vcc) Sx.vcc = init.mk("x.vcc", W);
    Sx.scc = init.mkB("x.scc");
    for (const n of wr.v) Sx.vgpr.set(n, Sh.vgpr.get(n)!.map((old, l) => (bv.asBool(lane(rem0, l)) === false ? old : bv.ite(lane(rem0, l), Ek(l, n), old))));
    const fin = runEpilogue(Sx);
    if (typeof fin === "string") return { verdict: "unknown", ms: performance.now() - t0, reason: fin };
    exit = await solveGoals(env, [], laneGoals(exitBads(fin)), timeoutMs, "exit");
    exitHow = `exit from the loop summary, ${exit.queries} queries ${(exit.ms / 1000).toFixed(1)} s`;
  } else {
    const fin = runEpilogue(cloneState(S1));
    if (typeof fin === "string") return { verdict: "unknown", ms: performance.now() - t0, reason: fin };
    exit = await solveGoals(env, [inv, bv.notB(c)], laneGoals(exitBads(fin)), timeoutMs, "exit");
    exitHow = `exit under the invariant, ${exit.queries} queries ${(exit.ms / 1000).toFixed(1)} s`;
  }
  if (!exit.ok) return { verdict: "unknown", ms: performance.now() - t0, reason: exit.reason, ...(exit.fault ? { fault: true } : {}) };
  const how = bits === null ? "full-width values" : `${bits}-bit lane values (data-independent)`;
  const lemma = cached
    ? `loop lemma ${key.slice(0, 8)} (shared)`
    : `loop lemma ${key.slice(0, 8)}: ${simpRes.set.size}/${simpRes.queries} E_k simplified in ${(simpRes.ms / 1000).toFixed(1)} s, preserve ${preserve.queries} queries ${(preserve.ms / 1000).toFixed(1)} s, summary ${summary.ok ? "holds" : "fails"} (${(summary.ms / 1000).toFixed(1)} s)`;
  return {
    verdict: "proved",
    ms: performance.now() - t0,
    method: `z3 inductive waterfall invariant, 32 lanes, ${how} (${lemma}; ${exitHow})`,
    queries: (cached ? 0 : preserve.queries + simpRes.queries + summary.queries) + exit.queries,
  };
}

