/**
 * @fileoverview Runs a lowered AMDGPU routine under its contract (targets/amdgpu/routine.ts):
 * lays the inputs out, fills everything else with garbage, runs the interpreter, reads `d`
 * and `p`, and checks that the routine changed nothing it may not (exec, registers outside
 * its scratch window, inactive lanes of v0).
 */
import type { BV } from "../../src/sem/bv.js";
import type { SourceName } from "../../src/ir/ir.js";
import { routineSources } from "./routine.js";
import type { AmdRoutine } from "./lower.js";
import type { RunResult, WaveState } from "./interp.js";
import { run } from "./interp.js";
import { formatViolation, hazardTarget } from "./hazards.js";
import { contractBads, dVgpr, regSpan } from "./contract.js";
import type { MOp } from "./minst.js";

/**
 * Inputs of one run: per-lane values (32 lanes) for divergent sources, one value for uniform
 * ones; a predicate source (routine.ts `Layout.masks`) per lane (bit 0 of each value), laid
 * out as its lane mask.
 */
export interface RoutineInputs<V, B> {
  src: Partial<Record<SourceName, V | V[]>>;
  /** Lanes that execute (bit i = laneid i); becomes exec (high half 0 in wave64). */
  active: V;
  /** Guarded routines: the guard per lane, the prior d per lane (bit 0 for a predicate d, which is vcc at entry), the prior p per lane. */
  guard?: B[];
  dPrior?: V[];
  pPrior?: B[];
}

export interface RoutineRun<V, B> {
  status: RunResult<V>["status"];
  steps: number;
  /** Issue cycles (`RunResult.cycles`): the dynamic count the reports use. */
  cycles: number;
  /** The part of `cycles` spent in waits (`RunResult.waitCycles`). */
  waitCycles: number;
  /** v0 per lane (lanes 0..31), or for a predicate d its vcc bit as 0/1 (32-bit); p = vcc bit per lane. */
  d: V[];
  p: B[];
  /** Contract violations found (empty when the routine changed only what it may). */
  violations: string[];
  /**
   * Hazard violations (targets/amdgpu/hazards.ts) of the routine on its processor under the
   * contract's boundary, one line each naming the two instructions, the register and the
   * wait states missing; when there are any, the routine was not run (`status: "hazard"`).
   */
  hazards: string[];
  trace: RunResult<V>["trace"];
}

/** A deterministic garbage word for register n, lane l (distinct per slot, never 0). */
function garbage(n: number, lane: number, salt: number): number {
  let x = (n * 0x9e3779b1 + lane * 0x85ebca6b + salt * 0xc2b2ae35) >>> 0;
  x ^= x >>> 15;
  x = Math.imul(x, 0x2c1b3c6d) >>> 0;
  return (x ^ (x >>> 12) ^ 0xa5a5a5a5) >>> 0 || 1;
}

// Garbage register contents are immutable values: one template per (register, wave, salt)
// and interpretation, copied by reference into each run.
const garbageCache = new WeakMap<object, Map<number, Map<number, unknown[]>>>();
function garbageLanes<V, B>(bv: BV<V, B>, n: number, lanes: number, salt: number): V[] {
  let bySalt = garbageCache.get(bv);
  if (!bySalt) garbageCache.set(bv, (bySalt = new Map()));
  let m = bySalt.get(salt);
  if (!m) bySalt.set(salt, (m = new Map()));
  // A number key per (register, lanes ≤ 64): no string built per register and run.
  const key = n * 128 + lanes;
  let xs = m.get(key) as V[] | undefined;
  if (!xs) {
    xs = Array.from({ length: lanes }, (_, l) => bv.k(garbage(n, l, salt), 32));
    m.set(key, xs);
  }
  return xs;
}

function place<V, B>(bv: BV<V, B>, st: WaveState<V, B>, o: MOp, value: V | V[]): void {
  if (o.k === "v") {
    const lanes = Array.isArray(value) ? value : new Array<V>(32).fill(value);
    for (let part = 0; part < o.count; part++) {
      // A new array (the state's arrays are shared templates: never written in place).
      const regLanes = st.vgpr.get(o.n + part)!.slice();
      lanes.forEach((x, lane) => {
        regLanes[lane] = o.count === 1 ? x : bv.extract(x, 32 * part + 31, 32 * part);
      });
      st.vgpr.set(o.n + part, regLanes);
    }
  } else if (o.k === "s") {
    if (Array.isArray(value)) throw new Error("uniform operand given per-lane values");
    if (o.count === 1) st.sgpr.set(o.n, value);
    else {
      st.sgpr.set(o.n, bv.extract(value, 31, 0));
      st.sgpr.set(o.n + 1, bv.extract(value, 63, 32));
    }
  }
}

function maskOf<V, B>(bv: BV<V, B>, bits: B[], wave: number): V {
  // Concrete bits: the mask as one constant (a bigint per bit costs more than a short run).
  let lo = 0;
  let hi = 0;
  let known = true;
  bits.forEach((b, i) => {
    const x = bv.asBool(b);
    if (x === undefined) known = false;
    else if (x) {
      if (i < 32) lo = (lo | (1 << i)) >>> 0;
      else hi = (hi | (1 << (i - 32))) >>> 0;
    }
  });
  if (known) return bv.k((BigInt(hi) << 32n) | BigInt(lo), wave);
  let m = bv.k(0, wave);
  bits.forEach((b, i) => {
    m = bv.or(m, bv.ite(b, bv.k(1n << BigInt(i), wave), bv.k(0, wave)));
  });
  return m;
}

/**
 * Runs routine `r` once. Registers v0..v(vEnd+7) and s0..s(sEnd+7) exist (under a caller's
 * register assignment, up to 8 past the highest it names; d read from its `d` register); everything not an
 * input holds garbage, as do lanes 32..63 on wave64.
 */
export function execRoutine<V, B>(
  bv: BV<V, B>,
  r: AmdRoutine,
  inp: RoutineInputs<V, B>,
  opts: { stepLimit?: number; trace?: boolean; salt?: number } = {},
): RoutineRun<V, B> {
  const W = r.target.wave;
  const salt = opts.salt ?? 1;
  const span = regSpan(r);
  const vCount = span.v + 8;
  const sCount = span.s + 8;
  const st: WaveState<V, B> = {
    wave: W,
    gen: r.target.gen,
    vgpr: new Map(),
    sgpr: new Map(),
    vcc: bv.k(0, W),
    exec: bv.zext(inp.active, W),
    scc: bv.false,
  };
  // The garbage templates themselves: a VGPR's lane array is never written in place (the
  // interpreter puts a new array on every write, ./interp.ts `WaveState`; `place` too).
  for (let n = 0; n < vCount; n++) st.vgpr.set(n, garbageLanes(bv, n, W, salt));
  for (let n = 0; n < sCount; n++) st.sgpr.set(n, garbageLanes(bv, 1000 + n, 1, salt)[0]!);
  for (const name of routineSources(r.spec.form)) {
    const o = r.layout.src[name];
    const x = inp.src[name];
    if (!o || o.k === "imm") continue;
    if (x === undefined) throw new Error(`no input for ${name}`);
    if (r.layout.masks.includes(name)) {
      const per = Array.isArray(x) ? x : new Array<V>(32).fill(x);
      place(bv, st, o, maskOf(bv, per.map((y) => bv.bitAt(y, 0)), W));
    } else place(bv, st, o, x);
  }
  const predD = r.layout.d.k !== "v";
  if (r.spec.guarded) {
    place(bv, st, r.layout.guard!, maskOf(bv, inp.guard!, W));
    if (predD) st.vcc = maskOf(bv, inp.dPrior!.map((y) => bv.bitAt(y, 0)), W);
    else {
      place(bv, st, r.layout.dPrior!, inp.dPrior!);
      if (inp.pPrior) st.vcc = maskOf(bv, inp.pPrior, W);
    }
  }
  // The arrays themselves: the run replaces a register's array, never changes it (above).
  // Copied by plain loops (a Map built from a Map's iterator costs several times more, per run).
  const before = { vgpr: new Map<number, V[]>(), sgpr: new Map<number, V>(), exec: st.exec };
  for (let n = 0; n < vCount; n++) before.vgpr.set(n, st.vgpr.get(n)!);
  for (let n = 0; n < sCount; n++) before.sgpr.set(n, st.sgpr.get(n)!);
  const res = run(bv, r.lines, st, {
    stepLimit: opts.stepLimit ?? 100_000,
    trace: opts.trace ?? false,
    hazards: { target: hazardTarget(r.target), boundary: r.boundary },
  });
  if (res.status === "hazard") {
    const hazards = res.hazards!.map(formatViolation);
    return { status: "hazard", steps: 0, cycles: 0, waitCycles: 0, d: [], p: [], violations: [], hazards, trace: [] };
  }

  // Contract (./contract.ts): exec restored; registers outside scratch and v0 unchanged;
  // inactive lanes of v0 unchanged. Here the conditions that hold, the first lane per
  // register; the prover asserts the same conditions as terms.
  const violations = contractBads(bv, r, before, st, (l) => bv.bitAt(before.exec, l), "exec").map((b) => b.what);
  const p = laneBits(bv, st.vcc);
  const d = predD ? p.map((b) => bv.ite(b, bv.k(1, 32), bv.k(0, 32))) : st.vgpr.get(dVgpr(r) ?? 0)!.slice(0, 32);
  return { status: res.status, steps: res.steps, cycles: res.cycles, waitCycles: res.waitCycles, d, p, violations, hazards: [], trace: res.trace };
}

/**
 * Bits 0..31 of `mask`, as `bv`'s booleans: from two numbers when the mask is concrete (a
 * bigint shift per lane costs more than the rest of a short run), `bitAt` otherwise.
 */
function laneBits<V, B>(bv: BV<V, B>, mask: V): B[] {
  const out = new Array<B>(32);
  const x = bv.asBigint(mask);
  if (x === undefined) {
    for (let l = 0; l < 32; l++) out[l] = bv.bitAt(mask, l);
    return out;
  }
  const lo = Number(BigInt.asUintN(32, x));
  for (let l = 0; l < 32; l++) out[l] = ((lo >>> l) & 1) === 1 ? bv.true : bv.false;
  return out;
}

/**
 * Why a checked run of a routine is not a value to compare, or null: a hazard of the
 * sequence (`hazard: …`, the kind of error the broken corpus pins), a step limit, or a
 * contract violation.
 */
export function runFailure<V, B>(run: RoutineRun<V, B>): string | null {
  if (run.status === "hazard") return `hazard: ${run.hazards.join("; ")}`;
  if (run.status === "step-limit") return `step limit exceeded after ${run.steps} steps`;
  if (run.violations.length) return `contract violation: ${run.violations.join("; ")}`;
  return null;
}
