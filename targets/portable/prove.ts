/**
 * @fileoverview The portable IR's prover model (moved from src/check/prove.ts and
 * src/check/prove_match.ts): the PIR is evaluated by `evalPir` over the symbolic algebra,
 * with its poison shifts; JS and C are printed from the same PIR, so one PIR proof covers
 * both. Poison must never reach an output. Scalar forms: one query; match.sync: the
 * constant-bound loops unroll, one full-width query over all 32 lanes (5-bit lane values
 * when the routine is data-independent, as for AMDGPU). Warp-level routines: one query per lane
 * (or per condition), on a's values reduced where a check on the run licenses it, with lemmas
 * on the lane's members (`provePirWarpLevel`). Registered as
 * `targetServices().prover.pir` by src/compose.ts (interface: src/target/prover.ts).
 */
import type { MatchForm, Profile } from "../../src/ir/forms.js";
import { formId, formWrites } from "../../src/ir/forms.js";
import type { RoutineSpec, SourceName } from "../../src/ir/ir.js";
import { sourcesOf } from "../../src/ir/ir.js";
import type { CV } from "../../src/sem/bv.js";
import { concrete } from "../../src/sem/bv.js";
import { keep, guardOff, guardOn } from "../../src/sem/guard.js";
import { matchSync } from "../../src/sem/match_sync.js";
import type { WarpLanes, WarpResult } from "../../src/sem/warp.js";
import { warpLevel } from "../../src/sem/warp.js";
import { membership } from "../../src/sem/members.js";
import type { WarpForm } from "../../src/ir/warp_forms.js";
import { warpPredicateDest, warpSources } from "../../src/ir/warp_forms.js";
import { isWarpLevel } from "../../src/check/verify.js";
import { scalarSemantics } from "../../src/check/scalar.js";
import type { Bad, Init, PirProveTarget, Reduction, SelectorStage, Verdict } from "../../src/check/prove_types.js";
import { PIR, concreteInit, modelValues, symbolicInit } from "../../src/check/prove_types.js";
import { fmt, header, inputLines, referenceLines } from "../../src/check/prove_text.js";
import type { Fp } from "../../src/check/prove_fp.js";
import type { Warp } from "../../src/check/prove_warp.js";
import { LANES, TaintError, resultBads, warpInputLines, warpSpecLines, proverWarpLanes } from "../../src/check/prove_warp.js";
import type { BitVec, Bool, Z3Env } from "../../src/check/smt.js";
import { solve } from "../../src/check/smt.js";
import type { ProverModel } from "../../src/target/prover.js";
import type { Arg, PExpr, PirFunction, PStmt, PType, Scalar, Slot } from "./pir.js";
import { applyOp, arr, bool, evalPir, kids, nodesOf, stmtRoots, u32, widthOf } from "./pir.js";
import type { PortableRule } from "./rules/index.js";
import { portableRulesFor } from "./rules/index.js";
import type { OB, OV } from "../../src/check/lattice.js";
import { latticeInit, latticeOnly, orderValue } from "../../src/check/lattice.js";

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

/** Proves a scalar PIR routine: one query, poison tracked. */
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

interface PirWarpRun<V, B> {
  args: Record<string, Arg<V, B>>;
  w: Warp<V, B>;
  out: Record<string, Slot<V, B> | Slot<V, B>[]>;
  bads: Bad<B>[];
}

/**
 * Data independence of a PIR routine (the same soundness condition as `dataIndependence`):
 * values of `a` (its elements or itself) reach only `eq`/`ne` against other values of `a`
 * and the arms of selects between values of `a`; never an output, an index, a condition or
 * any other operation. Names are tracked flow-insensitively, to a fixed point.
 * @returns null when data-independent, else the first offending use.
 */
export function pirDataIndependence(fn: PirFunction): string | null {
  const names = new Set<string>(["a"]);
  for (;;) {
    const before = names.size;
    const memo = new Map<number, boolean>();
    const taint = (e: PExpr): boolean => {
      const hit = memo.get(e.id);
      if (hit !== undefined) return hit;
      let t: boolean;
      const ks = kids(e);
      if (e.op === "ref") t = names.has(e.name);
      else if (e.op === "elem") {
        if (taint(e.index)) throw new TaintError(`a value of a used as an index (%${e.id})`);
        t = names.has(e.array);
      } else if (e.op === "select") {
        if (taint(e.c)) throw new TaintError(`a value of a used as a condition (%${e.id})`);
        const [x, y] = [taint(e.x), taint(e.y)];
        if (x !== y) throw new TaintError(`a select between a value of a and another value (%${e.id})`);
        t = x;
      } else if (e.op === "eq" || e.op === "ne") {
        const [x, y] = [taint(e.x), taint(e.y)];
        if (x !== y) throw new TaintError(`${e.op} of a value of a against another value (%${e.id})`);
        t = false;
      } else {
        if (ks.some(taint)) throw new TaintError(`a value of a reaches ${e.op} (%${e.id})`);
        t = false;
      }
      memo.set(e.id, t);
      return t;
    };
    try {
      const walk = (stmts: PStmt[]): void => {
        for (const st of stmts) {
          if (st.s === "let" || st.s === "var" || st.s === "set") {
            if (taint(st.value)) names.add(st.name);
          } else if (st.s === "store") {
            if (taint(st.index) || taint(st.value)) throw new TaintError(`a value of a stored into ${st.array}`);
          } else if (st.s === "return") {
            if (Object.values(st.values).some(taint)) throw new TaintError("a value of a returned");
          } else if (st.s === "if") {
            if (taint(st.c)) throw new TaintError("a value of a used as a condition");
            walk(st.then);
            walk(st.else);
          } else if (st.s === "for") walk(st.body);
        }
      };
      walk(fn.body);
    } catch (e) {
      if (e instanceof TaintError) return e.message;
      throw e;
    }
    if (names.size === before) return null;
  }
}

/**
 * The linear-form check of a PIR routine (the argument: targets/amdgpu/prove/warp_tree.ts's
 * file comment, and `provePirWarpLevel`): values of `a` (its elements or itself) reach only
 * 32-bit `add`/`sub` (with each other or with values independent of a), either arm of a select
 * whose condition does not depend on a, variables, stores into a result array at an
 * a-independent index and the returned values; never an index, a condition, a comparison or any
 * other operation. Then every result is, the other inputs fixed, c_0 + Σ c_i·a_i mod 2^32.
 * Names are tracked flow-insensitively, to a fixed point (a join of affine values is affine).
 * @returns null when linear, else the first offending use.
 */
export function pirLinearOnly(fn: PirFunction): string | null {
  const names = new Set<string>(["a"]);
  for (;;) {
    const before = names.size;
    const memo = new Map<number, boolean>();
    const taint = (e: PExpr): boolean => {
      const hit = memo.get(e.id);
      if (hit !== undefined) return hit;
      let t: boolean;
      if (e.op === "const") t = false;
      else if (e.op === "ref") t = names.has(e.name);
      else if (e.op === "elem") {
        if (taint(e.index)) throw new TaintError(`a value of a used as an index (%${e.id})`);
        t = names.has(e.array);
      } else if (e.op === "select") {
        if (taint(e.c)) throw new TaintError(`a value of a used as a condition (%${e.id})`);
        t = [taint(e.x), taint(e.y)].includes(true);
      } else if ((e.op === "add" || e.op === "sub") && widthOf(e.type) === 32) t = [taint(e.x), taint(e.y)].includes(true);
      else {
        if (kids(e).some(taint)) throw new TaintError(`a value of a reaches ${e.op} (%${e.id})`);
        t = false;
      }
      memo.set(e.id, t);
      return t;
    };
    try {
      const walk = (stmts: PStmt[]): void => {
        for (const st of stmts) {
          if (st.s === "let" || st.s === "var" || st.s === "set") {
            if (taint(st.value)) names.add(st.name);
          } else if (st.s === "store") {
            if (taint(st.index)) throw new TaintError(`a value of a used as an index of ${st.array}`);
            if (taint(st.value)) names.add(st.array);
          } else if (st.s === "return") Object.values(st.values).forEach(taint);
          else if (st.s === "if") {
            if (taint(st.c)) throw new TaintError("a value of a used as a condition");
            walk(st.then);
            walk(st.else);
          } else if (st.s === "for") walk(st.body);
        }
      };
      walk(fn.body);
    } catch (e) {
      if (e instanceof TaintError) return e.message;
      throw e;
    }
    if (names.size === before) return null;
  }
}

function pirWarpRun<V, B>(init: Init<V, B>, spec: RoutineSpec, fn: PirFunction, bits: number | null = null): PirWarpRun<V, B> {
  const bv = init.bv;
  const f = spec.form as MatchForm;
  const aw = f.type === "b64" ? 64 : 32;
  const args = pirArgs(init, fn);
  // The small-value reduction (data-independent routines): one small value per lane.
  const pa = fn.params.find((p) => p.name === "a");
  if (bits !== null && pa) {
    if (pa.type.t === "arr") args.a = Array.from({ length: pa.type.n }, (_, i) => bv.zext(init.mk(`a.small.${i}`, bits), aw));
    else args.a = bv.zext(init.mk("a.small", bits), aw);
  }
  const lanes = Array.from({ length: LANES }, (_, l) => l);
  const operand = (name: "a" | "membermask", w: number): V[] => {
    const k = spec.kinds[name] ?? { kind: "v" };
    if (k.kind === "imm") return lanes.map(() => bv.k(k.value, w));
    const x = args[name];
    return Array.isArray(x) ? (x as V[]) : lanes.map(() => x as V);
  };
  const active = args.active as V;
  const activeB = lanes.map((l) => bv.bitAt(active, l));
  const a = operand("a", aw);
  const membermask = operand("membermask", 32);
  const g = spec.guarded ? (args.g as B[]) : undefined;
  const executes = g ? lanes.map((l) => guardOn(bv, activeB[l]!, g[l]!)) : activeB;
  const ref = matchSync(bv, f, { a, membermask, active: activeB, executes });
  const w: Warp<V, B> = { active, a, membermask, activeB, executes, ref };
  if (g) {
    w.g = g;
    w.dPrior = args.dPrior as V[];
    if (args.pPrior) w.pPrior = args.pPrior as B[];
  }
  const out = evalPir(fn, bv, args) as Record<string, Slot<V, B> | Slot<V, B>[]>;
  const bads: Bad<B>[] = [];
  const d = out.d as Slot<V, B>[] | undefined;
  const p = out.p as Slot<V, B>[] | undefined;
  for (let l = 0; l < LANES; l++) {
    const on = bv.andB(executes[l]!, ref.defined[l]!);
    const off = guardOff(bv, activeB[l]!, g?.[l]);
    for (const [name, res] of [
      ["d", d],
      ["p", p],
    ] as const) {
      if (!res) continue;
      bads.push({ what: `Target is more poisonous than source (${name}[${l}] is poison)`, cond: bv.notB(res[l]!.defined), lane: l });
    }
    bads.push(...resultBads(bv, f, w, l, on, off, { d: () => (d ? (d[l]!.value as V) : null), p: () => (p ? (p[l]!.value as B) : null) }));
  }
  return { args, w, out, bads: bads.filter((b) => bv.asBool(b.cond) !== false) };
}

/** Proves a match.sync PIR routine over all 32 lanes (loops unrolled by evalPir). */
async function provePirMatch(env: Z3Env, spec: RoutineSpec, profile: Profile, rule: string, fn: PirFunction, timeoutMs: number, t0: number): Promise<Verdict> {
  const init = symbolicInit(env);
  const di = pirDataIndependence(fn);
  const bits = di === null ? 5 : null;
  const q = pirWarpRun(init, spec, fn, bits);
  const res = await solve(env, [env.bv.any(q.bads.map((b) => b.cond))], timeoutMs);
  const how = bits === null ? `full-width values (${di})` : "5-bit lane values (data-independent)";
  if (res.status === "unsat") return { verdict: "proved", ms: performance.now() - t0, method: `z3 (PIR, 32 lanes, ${how}, poison-tracked; covers js and c)`, queries: 1 };
  if (res.status === "unknown") return { verdict: "unknown", ms: performance.now() - t0, reason: res.reason ?? "unknown", ...(res.fault ? { fault: true } : {}) };
  const values = modelValues(env, res.model!, init.symbols);
  const c = pirWarpRun(concreteInit(values), spec, fn, bits);
  const hit = c.bads.find((b) => b.cond === true);
  if (!hit) return { verdict: "unknown", ms: performance.now() - t0, reason: "z3 model did not replay concretely" };
  const f = spec.form as MatchForm;
  const lane = hit.lane ?? 0;
  const ms = performance.now() - t0;
  const out = [header(f, PIR, rule, profile, ms), `ERROR: ${hit.what}`, "", "Example:", ...warpInputLines(spec, c.w)];
  out.push("Spec  src/sem/match_sync.ts (per lane: executes, defined, d, p):", ...warpSpecLines(f, c.w));
  out.push(`Lowering  PIR ${fn.name} (loops unrolled; lane ${lane}):`);
  const d = c.out.d as Slot<CV, boolean>[] | undefined;
  const p = c.out.p as Slot<CV, boolean>[] | undefined;
  if (d) out.push(`  d[${lane}] = ${d[lane]!.defined ? fmt(d[lane]!.value as CV) : "poison"}`);
  if (p) out.push(`  p[${lane}] = ${p[lane]!.defined ? fmt(p[lane]!.value as boolean) : "poison"}`);
  if (formWrites(f).d) {
    out.push(`Spec value:     d[${lane}] = ${c.w.ref.defined[lane] ? fmt(c.w.ref.d[lane]!) : "undefined"}`);
    out.push(`Lowered value:  d[${lane}] = ${d?.[lane]?.defined ? fmt(d[lane]!.value as CV) : "poison"}`);
  }
  if (formWrites(f).p) {
    out.push(`Spec value:     p[${lane}] = ${c.w.ref.defined[lane] ? fmt(c.w.ref.p[lane]!) : "undefined"}`);
    out.push(`Lowered value:  p[${lane}] = ${p?.[lane]?.defined ? fmt(p[lane]!.value as boolean) : "poison"}`);
  }
  return { verdict: "refuted", ms, reason: hit.what, counterexample: out.join("\n") };
}

// ---------------------------------------------------------------------------------------
// The warp-level family (issue 15)

interface PirWarpLevelRun<V, B> {
  args: Record<string, Arg<V, B>>;
  ref: WarpResult<V, B>;
  lanes: WarpLanes<V, B>;
  out: Record<string, Slot<V, B> | Slot<V, B>[]>;
  bads: Bad<B>[];
  /** The hints of `provePirWarpLevel` (instrumented runs only). */
  hints: Hint<V, B>[];
}

/**
 * A condition H ∧ ¬(X = Y) of lane `lane` (the bad named `what`) with a term s of the routine
 * inside X and a term t: where H ⇒ s = t (the lemma, proved first), the condition is
 * H ∧ ¬(X[s := t] = Y). Two per lane: the value condition (H: the lane executes with a defined
 * result; s: the routine's `members` word, t: the reference's members as a word) and the
 * guard's (H: the guard is false; s: the routine's `executes`, t: false).
 */
interface Hint<V, B> {
  lane: number;
  what: string;
  H: B;
  X: V;
  Y: V;
  s: V | B;
  t: V | B;
}

/** The lane loop's values the instrumented run stores (`withLaneOuts`). */
const LANE_OUTS = [
  { name: "members", out: "__members", type: u32 },
  { name: "executes", out: "__executes", type: bool },
] as const;

/**
 * `fn` with lane i's `let members` (u32) and `let executes` (bool) also stored into result
 * arrays (`LANE_OUTS`; the lane loop: the top-level `for` whose body has them), or null where
 * there are none. The stores read only values already bound and write fresh arrays, so every
 * other result is the same function of the inputs.
 */
function withLaneOuts(fn: PirFunction): PirFunction | null {
  let top = 0;
  for (const e of nodesOf(stmtRoots(fn.body))) top = Math.max(top, e.id);
  const results = [...fn.results];
  const body = fn.body.map((st): PStmt => {
    if (st.s !== "for" || results.length > fn.results.length) return st;
    const out: PStmt[] = [];
    for (const b of st.body) {
      out.push(b);
      const hit = LANE_OUTS.find((o) => b.s === "let" && b.name === o.name && JSON.stringify(b.value.type) === JSON.stringify(o.type));
      if (!hit || fn.results.some((r) => r.name === hit.out)) continue;
      const value = { op: "ref", name: hit.name, type: hit.type, id: ++top } as PExpr;
      const index = { op: "ref", name: st.index, type: u32, id: ++top } as PExpr;
      out.push({ s: "store", array: hit.out, index, value });
      results.push({ name: hit.out, type: arr(hit.type) });
    }
    return { ...st, body: out };
  });
  return results.length > fn.results.length ? { ...fn, body, results } : null;
}

/**
 * The values a warp-level PIR run gives `a` (`provePirWarpLevel`): null full-width symbols;
 * "unit" 0 or a unit vector (the linear-form reduction); "order-s" / "order-u" one bit per
 * lane, ⊥ or ⊤ of the signed / unsigned order (the threshold reduction; "order-u", 0 or
 * 0xffffffff, is also the bit-slice reduction's).
 */
type AValues = null | "unit" | "order-s" | "order-u";

function pirWarpLevelRun<V, B>(init: Init<V, B>, spec: RoutineSpec, fn: PirFunction, values: AValues = null, hinted = false): PirWarpLevelRun<V, B> {
  const bv = init.bv;
  const f = spec.form as WarpForm;
  const args = pirArgs(init, fn);
  const pa = fn.params.find((p) => p.name === "a");
  if (values === "unit" && pa) {
    // The linear-form reduction: a = 0 or a unit vector, lane k of a.unit.
    const k = init.mk("a.unit", 6);
    const one = (i: number) => bv.ite(bv.eq(k, bv.k(i, 6)), bv.k(1, 32), bv.k(0, 32));
    args.a = pa.type.t === "arr" ? Array.from({ length: pa.type.n }, (_, i) => one(i)) : one(0);
  } else if ((values === "order-s" || values === "order-u") && pa) {
    // The threshold / bit-slice reductions: one bit per lane (a lattice-tracked `init` tags them `lat`).
    const signed = values === "order-s";
    args.a = pa.type.t === "arr" ? Array.from({ length: pa.type.n }, (_, i) => orderValue(init, `a.ord.${i}`, signed)) : orderValue(init, "a.ord", signed);
  }
  const lanes = Array.from({ length: LANES }, (_, l) => l);
  const sources = warpSources(f);
  const src32 = (name: SourceName): V[] => {
    const k = spec.kinds[name] ?? { kind: "v" };
    if (k.kind === "imm") return lanes.map(() => bv.k(k.value & 0xffffffffn, 32));
    const x = args[name];
    return Array.isArray(x) ? (x as V[]) : lanes.map(() => x as V);
  };
  const active = args.active as V;
  const activeB = lanes.map((l) => bv.bitAt(active, l));
  const g = spec.guarded ? (args.g as B[]) : undefined;
  const executes = g ? lanes.map((l) => guardOn(bv, activeB[l]!, g[l]!)) : activeB;
  const w = proverWarpLanes(bv, f, spec.kinds, src32, () => args.a as V, activeB, executes);

  const ref = warpLevel(bv, f, w);
  const predD = warpPredicateDest(f);
  const instrumented = hinted && !predD ? withLaneOuts(fn) : null;
  const out = evalPir(instrumented ?? fn, bv, args) as Record<string, Slot<V, B> | Slot<V, B>[]>;
  const hints: Hint<V, B>[] = [];
  const [mw, ew] = LANE_OUTS.map((o) => out[o.out] as Slot<V, B>[] | undefined);
  for (const o of LANE_OUTS) delete out[o.out];
  const bads: Bad<B>[] = [];
  const d = out.d;
  const p = out.p as Slot<V, B>[] | undefined;
  if (d && !Array.isArray(d)) bads.push({ what: "Target is more poisonous than source (d is poison)", cond: bv.notB(d.defined) });
  for (let l = 0; l < LANES; l++) {
    const on = executes[l]!;
    const off = guardOff(bv, activeB[l]!, g?.[l]);
    if (d) {
      let got: V;
      let want: V;
      let prior: V | undefined;
      if (predD) {
        got = bv.extract((d as Slot<V, B>).value as V, l, l);
        want = ref.d[l]!;
        if (g) prior = bv.extract(args.dPrior as V, l, l);
      } else {
        const s = (d as Slot<V, B>[])[l]!;
        bads.push({ what: `Target is more poisonous than source (d[${l}] is poison)`, cond: bv.notB(s.defined), lane: l });
        got = s.value as V;
        want = ref.d[l]!;
        if (g) prior = (args.dPrior as V[])[l]!;
      }
      const H = bv.andB(on, ref.dDefined[l]!);
      const what = `Value mismatch (d[${l}])`;
      bads.push({ what, cond: bv.andB(H, bv.notB(bv.eq(got, want))), lane: l });
      if (mw) {
        const { members } = membership(bv, w, l);
        let t = bv.fromB(members[0]!);
        for (let j = 1; j < LANES; j++) t = bv.concat(bv.fromB(members[j]!), t);
        hints.push({ lane: l, what, H, X: got, Y: want, s: mw[l]!.value as V, t });
      }
      if (prior !== undefined) {
        const what = `lane ${l} (guard false) does not keep its prior d`;
        bads.push({ what, cond: bv.andB(off, bv.notB(bv.eq(got, prior))), lane: l });
        if (ew) hints.push({ lane: l, what, H: off, X: got, Y: prior, s: ew[l]!.value as B, t: bv.false });
      }
    }
    if (p) {
      const s = p[l]!;
      bads.push({ what: `Target is more poisonous than source (p[${l}] is poison)`, cond: bv.notB(s.defined), lane: l });
      bads.push({ what: `Value mismatch (p[${l}])`, cond: bv.andB(bv.andB(on, ref.pDefined[l]!), bv.notB(bv.eqB(s.value as B, ref.p[l]!))), lane: l });
      if (g) bads.push({ what: `lane ${l} (guard false) does not keep its prior p`, cond: bv.andB(off, bv.notB(bv.eqB(s.value as B, (args.pPrior as B[])[l]!))), lane: l });
    }
  }
  return { args, ref, lanes: w, out, bads: bads.filter((b) => bv.asBool(b.cond) !== false), hints };
}

/**
 * `init` on an algebra whose u32 `ult(0x7fffffff, e)` is built as `bitAt(e, 31)`, the same
 * value for every e (e >u 2^31 − 1 iff e ≥ 2^31 iff bit 31 of e is set), so every term has the
 * value the plain algebra's has: the proof is about the same routine and reference. Why: the
 * PIR's .f32 key tests the sign by the comparison, the reference (src/sem/warp.ts `reduceF32`)
 * by the bit; built alike, the two keys — and with the lane lemmas the two folds — are one term.
 */
function signBitInit(init: ReturnType<typeof symbolicInit>): ReturnType<typeof symbolicInit> {
  const inner = init.bv;
  const bv = Object.create(inner) as typeof inner;
  bv.ult = (x: BitVec, y: BitVec) => (inner.width(x) === 32 && inner.asBigint(x) === 0x7fffffffn ? inner.bitAt(y, 31) : inner.ult(x, y));
  return { ...init, bv };
}

/**
 * Proves a warp-level PIR routine over all 32 lanes (loops unrolled by evalPir), one query per
 * lane (its outputs' conditions; the lanes share the inputs, the executing mask and the
 * members' terms, not each other's folds). Where the routine and the reference use a's values
 * in a restricted way, checked on the run itself, a's values are reduced as the AMDGPU prover's
 * (targets/amdgpu/prove/warp_tree.ts's file comment gives the linear form's argument in full, src/check/lattice.ts's the threshold and bit-slice ones):
 *   - redux.add whose values of a are only added and chosen (`pirLinearOnly`): a = 0 and the
 *     unit vectors. Its results and the reference's (src/sem/warp.ts `reduceInt`, Σ over the
 *     members) are affine in a, and an affine function mod 2^32 that vanishes there vanishes
 *     everywhere (the linear-form reduction);
 *   - redux.min / .max (integer): the whole run — `evalPir` on the routine and `warpLevel` on
 *     the same inputs — goes through src/check/lattice.ts's `LatticeBV` in the form's order (signed for
 *     .s32, unsigned for .u32), which tags every value and condition by what it is as a term.
 *     When every condition of the proof ends `c` or C ∧ ¬(X = Y) with C a-independent and X, Y
 *     lattice polynomials in a (min/max in that one order, the identity ⊥/⊤, choices under
 *     a-independent conditions: the member selects, the guard's keep of dPrior) or
 *     a-independent (`latticeOnly`), a counterexample maps through a threshold map
 *     φ_t(x) = (t ⊑ x ? ⊤ : ⊥) to one with every lane of a in {⊥, ⊤}: so one bit per lane is
 *     a proof for all values (the threshold reduction). A fold that compares in the other
 *     order (ult for .s32), does arithmetic on a or branches on it fails the check and is run
 *     on full-width values instead;
 *   - redux.and / .or / .xor: the same run in `LatticeBV`'s bit-slice mode — values of a reach
 *     only and/or/xor/not and choices under a-independent conditions, so bit i of every value
 *     is one boolean function of bit i of the inputs, and a counterexample differing in bit i
 *     of X and Y stays one with a_l replaced by (bit i of a_l ? 0xffffffff : 0): one bit per
 *     lane again (the bit-slice reduction). (shfl would pass the same check — a's values are
 *     only chosen — but its queries are the lane arithmetic's, not a's: measured on a sample,
 *     the reduction made them slower, so shfl stays at full width);
 *   - anything else (vote: a is a lane mask whose bits are conditions; activemask,
 *     bar.warp.sync: no a; .f32, whose keys do arithmetic on a): full-width values — for .f32
 *     on `signBitInit`'s algebra, so that with the lane lemmas below its fold and the
 *     reference's are one term.
 * A counterexample found on reduced values is a real input (each reduction maps into a subset
 * of the inputs), replayed concretely before it is reported.
 *
 * The lane lemmas (redux, where the lane loop binds `members` and `executes`: `withLaneOuts`,
 * `Hint`). Lane l's value condition is H ∧ ¬(X = Y) with H = "lane l executes and the
 * reference defines its d", X the routine's d[l], Y the reference's. A first, small query
 * proves H ⇒ s = t for s the routine's members word of lane l and t the reference's members
 * (src/sem/members.ts `membership`, the same function the reference folds over) as a word. Then
 * X and X[s := t] (every occurrence of the term s in X replaced by t) are equal wherever H
 * holds — a term's value depends only on its subterms' values — so H ∧ ¬(X = Y) and
 * H ∧ ¬(X[s := t] = Y) are satisfied by the same inputs, and the second is what is solved: the
 * routine's fold now runs over the reference's member bits, and z3 sees the two folds agree
 * by rewriting instead of by search. Likewise the guard's condition off ∧ ¬(X = dPrior[l]) with
 * s = the routine's `executes` of lane l, t = false (off ⇒ lane l does not execute). A lemma
 * that fails (sat or unknown) is dropped and the plain condition solved: a lemma only ever
 * replaces a condition by an equisatisfiable one. With lemmas, each condition is its own
 * query (the substituted ones are near-trivial; their disjunction is not).
 */
async function provePirWarpLevel(env: Z3Env, spec: RoutineSpec, profile: Profile, rule: string, fn: PirFunction, timeoutMs: number, t0: number): Promise<Verdict> {
  const tb = performance.now();
  const init = symbolicInit(env);
  const f = spec.form as WarpForm;
  const aVar = spec.kinds.a?.kind !== "imm" && fn.params.some((p) => p.name === "a");
  let values: AValues = null;
  let bads: Bad<Bool>[] | null = null;
  let hints: Hint<BitVec, Bool>[] = [];
  let note = "full-width values";
  const hinted = f.op === "redux";
  if (aVar && f.op === "redux" && f.type !== "f32" && f.reduxOp === "add") {
    const why = pirLinearOnly(fn);
    if (why === null) [values, note] = ["unit", "a = 0 and the unit vectors (linear in a)"];
    else note = `full-width values (${why})`;
  } else if (aVar && f.op === "redux" && f.type !== "f32") {
    const lattice = f.reduxOp === "min" || f.reduxOp === "max";
    const signed = f.type === "s32";
    const o = pirWarpLevelRun(latticeInit(init, signed, lattice ? "lattice" : "bitwise"), spec, fn, signed ? "order-s" : "order-u", hinted);
    const why = latticeOnly(o.bads);
    if (why === null) {
      values = signed ? "order-s" : "order-u";
      bads = o.bads.map((b) => ({ ...b, cond: b.cond.b }));
      const inner = (x: OV<BitVec> | OB<Bool>) => ("v" in x ? x.v : x.b);
      hints = o.hints.map((h) => ({ lane: h.lane, what: h.what, H: h.H.b, X: h.X.v, Y: h.Y.v, s: inner(h.s), t: inner(h.t) }));
      note = lattice ? "a's values ⊥ and ⊤ of the order (min/max of a only, the threshold reduction)" : "a's values 0 and 0xffffffff (a only combined bitwise and chosen, the bit-slice reduction)";
    } else note = `full-width values (${why})`;
  }
  if (!bads) {
    const f32 = f.op === "redux" && f.type === "f32";
    if (f32) note += ", the key's sign test built as bit 31";
    const q = pirWarpLevelRun(f32 ? signBitInit(init) : init, spec, fn, values, hinted);
    [bads, hints] = [q.bads, q.hints];
  }
  if (process.env.PROVE_DEBUG) console.log("built", Math.round(performance.now() - tb), "ms;", note);
  if (bads.length === 0) return { verdict: "proved", ms: performance.now() - t0, method: "z3 (PIR, 32 lanes; every condition folded to false; covers js and c)", queries: 0 };
  // One query per lane (the lanes' conditions share the inputs, not each other's terms): a
  // reduction's 32-step folds make the all-lanes query too large for the per-query timeout.
  const groups = new Map<number, Bad<Bool>[]>();
  for (const bad of bads) groups.set(bad.lane ?? -1, [...(groups.get(bad.lane ?? -1) ?? []), bad]);
  const hintOf = new Map(hints.map((h) => [`${h.lane} ${h.what}`, h]));
  let res: Awaited<ReturnType<typeof solve>> | null = null;
  let queries = 0;
  let lemmas = 0;
  const bv = env.bv;
  for (const [lane, group] of groups) {
    const hinted = group.some((b) => hintOf.has(`${lane} ${b.what}`));
    const parts: { what: string; cond: Bool }[] = [];
    for (const b of group) {
      const h = hintOf.get(`${lane} ${b.what}`);
      let cond = b.cond;
      if (h) {
        // The lemma H ⇒ s = t; then H ∧ ¬(X = Y) ≡ H ∧ ¬(X[s := t] = Y) (`Hint`).
        queries++;
        const same = env.ctx.isBool(h.s) ? bv.eqB(h.s as Bool, h.t as Bool) : bv.eq(h.s as BitVec, h.t as BitVec);
        const lemma = await solve(env, [bv.andB(h.H, bv.notB(same))], timeoutMs);
        if (process.env.PROVE_DEBUG) console.log("lemma", lane, b.what, lemma.status, Math.round(lemma.ms));
        if (lemma.status === "unsat") {
          lemmas++;
          const X = env.ctx.substitute(h.X, [h.s as BitVec, h.t as BitVec]) as BitVec;
          cond = bv.andB(h.H, bv.notB(bv.eq(X, h.Y)));
        }
      }
      parts.push({ what: b.what, cond });
    }
    // With the lemmas, one query per condition (each is near-trivial, their disjunction is
    // not); else one per lane.
    const goals = hinted ? parts : [{ what: "its conditions", cond: bv.any(parts.map((x) => x.cond)) }];
    for (const { cond, what } of goals) {
      queries++;
      const r = await solve(env, [cond], timeoutMs);
      if (process.env.PROVE_DEBUG) console.log("lane", lane, what, r.status, Math.round(r.ms));
      if (r.status === "unknown") return { verdict: "unknown", ms: performance.now() - t0, reason: `${r.reason ?? "unknown"} (lane ${lane} of the per-lane queries: ${what}; ${note})`, ...(r.fault ? { fault: true } : {}) };
      if (r.status === "sat") {
        res = r;
        break;
      }
    }
    if (res) break;
  }
  if (res === null) return { verdict: "proved", ms: performance.now() - t0, method: `z3 (PIR, 32 lanes one query each, ${note}${lemmas ? `, ${lemmas} lane lemmas (members, guard) substituted` : ""}, poison-tracked; covers js and c)`, queries };
  const model = modelValues(env, res.model!, init.symbols);
  const c = pirWarpLevelRun(concreteInit(model), spec, fn, values);
  const hit = c.bads.find((b) => b.cond === true);
  if (!hit) return { verdict: "unknown", ms: performance.now() - t0, reason: "z3 model did not replay concretely" };
  const ms = performance.now() - t0;
  const lane = hit.lane ?? 0;
  const hex = (x: CV) => fmt(x);
  const w = c.lanes as WarpLanes<CV, boolean>;
  const bits = (xs: boolean[]) => xs.map((x) => (x ? 1 : 0)).join("");
  const lines = [header(spec.form, PIR, rule, profile, ms), `ERROR: ${hit.what}`, "", "Example:"];
  lines.push(`  active = ${fmt(c.args.active as CV)}: ${bits(w.active)} (lane 0 first)`, ...(spec.guarded ? [`  executes = ${bits(w.executes)}`] : []));
  lines.push(`  a = [${w.a.map(hex).join(", ")}]`);
  if (w.b.length) lines.push(`  b = [${w.b.map(hex).join(", ")}]`);
  if (w.c.length) lines.push(`  c = [${w.c.map(hex).join(", ")}]`);
  if (w.membermask) lines.push(`  membermask = [${w.membermask.map(hex).join(", ")}]`);
  const r = c.ref as WarpResult<CV, boolean>;
  const d = c.out.d;
  const dl = d === undefined ? "none" : Array.isArray(d) ? (d[lane]!.defined ? fmt(d[lane]!.value as CV) : "poison") : d.defined ? `${fmt(d.value as CV)} (lane mask), bit ${lane} = ${((d.value as CV).x >> BigInt(lane)) & 1n}` : "poison";
  const pl = (c.out.p as Slot<CV, boolean>[] | undefined)?.[lane];
  lines.push(`Spec  src/sem/warp.ts (lane ${lane}: executes ${w.executes[lane] ? 1 : 0}, d ${r.dDefined[lane] ? "defined" : "undefined"}, p ${r.pDefined[lane] ? "defined" : "undefined"})`);
  lines.push(`Lowering  PIR ${fn.name} (loops unrolled; lane ${lane})`);
  if (d !== undefined) {
    lines.push(`Spec value:     d[${lane}] = ${r.dDefined[lane] ? hex(r.d[lane]!) : "undefined"}`);
    lines.push(`Lowered value:  d[${lane}] = ${dl}`);
  }
  if (pl) {
    lines.push(`Spec value:     p[${lane}] = ${r.pDefined[lane] ? String(r.p[lane]) : "undefined"}`);
    lines.push(`Lowered value:  p[${lane}] = ${pl.defined ? String(pl.value) : "poison"}`);
  }
  return { verdict: "refuted", ms, reason: hit.what, counterexample: lines.join("\n") };
}

// ---------------------------------------------------------------------------------------
// Proving by stages: video selectors

/**
 * The PIR half of the selector-stage reduction (src/check/prove.ts reduceSelectors): the
 * routine for F and the routine for F0 applied to α(a), β(b) are equal terms (value and
 * poison), so F0's proof is F's. null: no reduction.
 * @throws Error for an array parameter (the driver treats it as no reduction).
 */
function reducePirSelectors(spec: RoutineSpec, profile: Profile, rule: PortableRule, stage: SelectorStage): Reduction | null {
  const { base, P, A, B, C, alpha, beta } = stage;
  const pr = rule;
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

// ---------------------------------------------------------------------------------------
// The model

const big = (_k: string, v: unknown) => (typeof v === "bigint" ? `${v}n` : v);

/** The portable IR's prover model (src/target/prover.ts ProverModel). */
export const pirProver: ProverModel<PirProveTarget> = {
  rulesFor: (spec) => portableRulesFor(spec),
  async prove(env, spec, _target, profile, rule, opts, t0) {
    const fn = (rule as PortableRule).build(spec, profile);
    if (isWarpLevel(spec.form)) return await provePirWarpLevel(env, spec, profile, rule.name, fn, opts.timeoutMs, t0);
    return spec.form.op === "match" ? await provePirMatch(env, spec, profile, rule.name, fn, opts.timeoutMs, t0) : await provePirScalar(env, spec, profile, rule.name, fn, opts.timeoutMs, t0);
  },
  keyText(spec, _target, profile, rule) {
    const fn = (rule as PortableRule).build(spec, profile);
    return `pir\n${spec.form.op === "match" || isWarpLevel(spec.form) ? `${formId(spec.form)} ${JSON.stringify(spec.kinds, big)} ${spec.guarded}` : ""}\n${JSON.stringify(fn, big)}`;
  },
  reduceSelectors: (spec, _target, profile, rule, stage) => reducePirSelectors(spec, profile, rule as PortableRule, stage),
  proveLemma: () => Promise.reject(new Error("the PIR reduction has no lemmas")),
  affinity: () => "",
};
