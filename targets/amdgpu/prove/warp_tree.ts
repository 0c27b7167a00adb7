/**
 * @fileoverview Two value reductions of the warp-level prover (./warp.ts) for the loop-free
 * reductions (the DPP butterfly of rules/redux_tree.ts), whose full-width 32-lane queries are
 * past the per-query timeout: z3 does not see that a tree and the reference's sequential fold
 * agree when they combine the 32 values in different orders.
 *
 * The linear-form reduction, for `redux.add`. Fix every input but a (the active mask, the membermask, the guard, every other
 * register). Call a value *affine* when, as a function of a's register (its lanes a_0 … a_{W−1},
 * each in Z/2^32), it is c_0 + Σ c_i·a_i mod 2^32 with c_i fixed by the other inputs; a value
 * that does not depend on a is affine (c_i = 0). `linearOnly` checks, conservatively and from
 * the instructions' records (not from the rule), that every value the routine derives from a
 * is affine:
 *   - a sum (v_add_u32, v_add_nc_u32 and their DPP forms, v_add_co_u32's vdst, s_add_u32's
 *     sdst) of affine values is affine (the records have no clamp operand: addition mod 2^32);
 *   - a copy (v_mov, s_mov, v_readlane's value, a DPP move), either data arm of a select
 *     (v_cndmask, s_cselect) and a lane-masked write (the old value kept where exec is off) is
 *     a choice between affine values made by a-independent conditions (exec, the select's
 *     mask or SCC, v_readlane's lane, DPP's lane pattern, row/bank masks and bound control),
 *     so, the other inputs fixed, one of them: affine;
 *   - a carry out of a sum of a-values (s_add_u32's SCC, v_add_co_u32's sdst) is not affine: it
 *     is "poison", which no instruction may read and which may be left at the end only in SCC
 *     or vcc (scratch: the contract, ../contract.ts, compares neither; redux writes no p);
 *   - every other use of a value of a (a lane index, a mask, exec, a condition, an operand of
 *     any other instruction) fails the check.
 * The walk runs over the straight-line sequence in order (flow-sensitive: an SGPR or SCC write
 * replaces its state; a VGPR write, lane-masked, joins the old state).
 *
 * The reference's `.add` (src/sem/warp.ts `reduceInt`) is Σ_{j member} a_j: a fold of `bv.add`
 * under member selects that depend on the mask and the active and executing lanes only, so
 * affine too. Every condition of the proof (./warp.ts: `warpLaneBads`, ../contract.ts) is then,
 * per lane, C ∧ ¬(X = Y) with C a-independent and X, Y affine (a lane's d against the
 * reference's or its prior d; a watched register against its value at entry). X − Y is affine:
 * c_0 + Σ c_i·a_i. It is 0 for every a iff c_0 = 0 (a = 0) and c_0 + c_i = 0 for each i (a = the
 * unit vector e_i, a_i = 1, the other lanes 0) — exactly, mod 2^32, with no bound on the c_i.
 * So the condition is satisfiable over all values of a iff it is over the W + 1 vectors 0, e_0,
 * …, e_{W−1}, and ./warp.ts proves the routine on those (a_l = [l = k] for a symbolic lane
 * number k, k ≥ W giving 0); a counterexample found there is a real input.
 *
 * The threshold reduction, for a loop-free `redux.min` / `.max` (the same butterfly with
 * v_min/v_max, whose full-width query is past the timeout as well). Fix every input but a's
 * lanes 0–31 and take one order ⊑ (signed for .s32, unsigned for .u32) with its ends ⊥, ⊤.
 * A *lattice polynomial* is built from a's values and ⊥, ⊤ by min and max in ⊑ and by choices
 * under a-independent conditions. For a monotone map φ with φ(⊥) = ⊥, φ(⊤) = ⊤,
 * P(φ(a)) = φ(P(a)) for every such P (φ commutes with min, max and a fixed choice). Here φ is
 * a threshold map φ_t(x) = ⊤ if t ⊑ x else ⊥, for ⊥ ⊏ t ⊑ ⊤. The check is not syntactic: the
 * whole run — the interpreter on the routine and the reference on the same inputs — goes
 * through `LatticeBV`, which gives every value and condition a kind from its operands' (VK,
 * BK) and so sees what each output is as a term: min/max only in the pattern
 * ite(p ⊑ q, p, q) / ite(p ⊑ q, q, p) of `lat` values or ends; a-independent choices between
 * `lat` values (`lat`) or with a-independent ones (`mix`: a lane-masked write keeping an old
 * value); any other use of a value of a, a comparison in the other order, or another constant
 * among them is `bad`. The run must end with every condition of the proof `c` or a disjunction
 * of C ∧ ¬(X = Y), C a-independent, X, Y `lat`, `mix` or a-independent (`latticeOnly`).
 * Then a counterexample (a, the rest) of one disjunct — C holds, X(a) ≠ Y(a), each of X, Y
 * being, for the fixed conditions, a lattice polynomial or an a-independent value z — gives one
 * with a's lanes in {⊥, ⊤}: for two polynomials take t = the larger of X(a), Y(a) (⊥ ⊏ t, as
 * they differ), so φ_t(X(a)) ≠ φ_t(Y(a)); for a polynomial P against z, take t = P(a) when
 * z = ⊥ (φ_t(P(a)) = ⊤, and P(a) ≠ ⊥ so t is allowed), t = the successor of P(a) when z = ⊤
 * (φ_t(P(a)) = ⊥, P(a) ≠ ⊤), any t otherwise; then X(φ_t(a)) = φ_t(X(a)) ≠ … as C is
 * unchanged. So proving the routine for a's lanes 0–31 in {⊥, ⊤} (one bit each,
 * `orderValue`; lanes 32–63 of a wave64 keep full-width symbols, `c`: a use of them among the
 * polynomials is `bad`) proves it for all values; a counterexample found there is a real input.
 *
 * The bit-slice reduction, for a loop-free `redux.and` / `.or` / `.xor` (the same algebra in
 * its "bitwise" mode). A value built from a's values and a-independent values by and, or, xor,
 * not and choices under a-independent conditions (`lat` there) has, in each bit i, a value
 * that is one and the same boolean function of bit i of its operands — of a's lanes and of the
 * a-independent values (constants, old values) alike. Every other use of a value of a (a
 * comparison, an add, a shift, a bit of it as a condition) is `bad`, and the run must end as
 * above (`c`, or C ∧ ¬(X = Y)). A counterexample differs in some bit i of X and Y; replacing
 * each lane a_l by a'_l = (bit i of a_l ? 0xffffffff : 0) keeps bit i of every input, so bit i
 * of X and Y, and C: it is a counterexample with a's lanes in {0, 0xffffffff} (`orderValue`,
 * unsigned).
 */
import type { MOp, MLine } from "../minst.js";
import { isLabel, printOp } from "../minst.js";
import type { Mnemonic } from "../isa/index.js";
import { record } from "../isa/index.js";
import type { BV } from "../../../src/sem/bv.js";
import type { Init, Verdict } from "../../../src/check/prove_types.js";
import { symbolicInit } from "../../../src/check/prove_types.js";
import type { WarpForm } from "../../../src/ir/warp_forms.js";
import { membership } from "../../../src/sem/members.js";
import { LANES } from "../../../src/check/prove_warp.js";
import type { BitVec, Bool, Z3Env } from "../../../src/check/smt.js";
import { solve } from "../../../src/check/smt.js";
import type { AmdRoutine } from "../lower.js";
import { contractBads } from "../contract.js";
import { cloneState, execPaths } from "./paths.js";
import { warpInit, warpLaneBads } from "./warp.js";
import { generalise, keyChain, refOver } from "./warp_loop.js";

/** The sums whose data output is affine in affine operands (file comment); their other outputs are carries. */
const SUMS = new Set<string>(["v_add_u32", "v_add_nc_u32", "v_add_co_u32", "s_add_u32"]);

/** A register key of an operand (`v5`, `s3`; both of a pair), for the walk. */
function keysOf(o: MOp): string[] {
  if (o.k === "v" || o.k === "s") return Array.from({ length: o.count }, (_, i) => `${o.k}${o.n + i}`);
  if (o.k === "vcc" || o.k === "vcc_lo" || o.k === "vcc_hi") return ["vcc"];
  if (o.k === "exec" || o.k === "exec_lo" || o.k === "exec_hi") return ["exec"];
  return [];
}

type State = "affine" | "poison";

/**
 * Whether every value a straight-line routine derives from a (in `aReg`) is affine in a's lane
 * values (file comment), a carry of such a sum being read by nothing.
 * @returns null when it is, else the first offending instruction and why.
 */
export function linearOnly(lines: readonly MLine[], aReg: MOp): string | null {
  const st = new Map<string, State>();
  for (const k of keysOf(aReg)) st.set(k, "affine");
  const join = (xs: (State | undefined)[]): State | undefined => (xs.includes("poison") ? "poison" : xs.includes("affine") ? "affine" : undefined);
  for (const l of lines) {
    if (isLabel(l)) return `a label (${l.label}): not straight-line`;
    const rec = record(l.op);
    if (rec.ops.some((s) => s.name === "clamp")) return `${l.op}: a clamp operand`;
    const where = `${l.op} ${l.ops.map(printOp).join(", ")}`;
    const base = (l.op.endsWith("_dpp") ? l.op.slice(0, -4) : l.op) as Mnemonic;
    const baseRec = record(base);
    // Operand indices read (a tied output is read: DPP's kept old value), and which carry data.
    const ins = rec.ops.map((s, i) => (s.out && !s.tied ? -1 : i)).filter((i) => i >= 0);
    const sources = ins.filter((i) => !rec.ops[i]!.out);
    const data = new Set<number>(ins.filter((i) => rec.ops[i]!.out));
    const sum = SUMS.has(base);
    if (sum) sources.forEach((i) => data.add(i));
    else if (baseRec.move === "copy") data.add(sources[0]!);
    else if (baseRec.move === "select") sources.slice(0, 2).forEach((i) => data.add(i));
    else data.clear();
    const stateOf = (i: number) => join(keysOf(l.ops[i]!).map((k) => st.get(k)));
    for (const i of ins) {
      const s = stateOf(i);
      if (s === "poison") return `${where}: reads the carry of a sum of values of a`;
      if (s === "affine" && !data.has(i)) return `${where}: a value of a is ${sum || baseRec.move ? "its lane index, mask or condition" : `an operand of ${l.op}, which neither adds nor moves it`}`;
    }
    for (const k of rec.uses ?? []) if (st.get(k)) return `${where}: reads ${k}, which depends on a`;
    const got = join([...data].map(stateOf));
    const firstOut = rec.ops.findIndex((s) => s.out);
    rec.ops.forEach((s, i) => {
      if (!s.out) return;
      const o = l.ops[i]!;
      const val: State | undefined = i === firstOut ? got : sum && got ? "poison" : undefined;
      const masked = o.k === "v" || o.k === "vcc_lo" || o.k === "vcc_hi" || o.k === "exec_lo" || o.k === "exec_hi";
      for (const k of keysOf(o)) {
        const next = masked ? join([st.get(k), val]) : val;
        if (next) st.set(k, next);
        else st.delete(k);
      }
    });
    for (const k of rec.defs ?? []) {
      if (sum && got) st.set(k, "poison");
      else st.delete(k);
    }
    if (st.get("exec")) return `${where}: exec depends on a`;
  }
  const left = [...st].filter(([k, s]) => s === "poison" && k !== "scc" && k !== "vcc").map(([k]) => k);
  return left.length ? `a carry of a sum of values of a is left in ${left.join(", ")}` : null;
}

// ---------------------------------------------------------------------------------------
// The threshold reduction (redux.min / .max: the DPP butterfly's v_min/v_max)

/**
 * What a value of a lattice-tracked run is, as a function of a's lane values (the other inputs
 * fixed): `c` does not depend on a; `lat` is a lattice polynomial — built from a's values and
 * the order's ends ⊥, ⊤ by min, max (in one order: unsigned or signed) and by choices between
 * `lat` values under a-independent conditions; `mix` is a choice, under a-independent
 * conditions, between `lat` values and a-independent ones; `bad` anything else.
 */
type VK = "c" | "lat" | "mix" | "bad";
/**
 * A condition: `c` independent of a; `cmp` a comparison p ⊑ q (< or ≤ in the order) of two
 * `lat` values or ends, usable only as the condition of ite(p ⊑ q, p, q) = min(p, q) or
 * ite(p ⊑ q, q, p) = max(p, q); `eq` an equality X = Y of `lat`/`mix`/`c` values; `neq` a
 * disjunction of conjunctions C ∧ ¬E, C `c`, E an `eq`, at most one per disjunct; `bad` else.
 */
type BK = "c" | "cmp" | "eq" | "neq" | "bad";

/** A value of the lattice-tracked algebra. */
export interface OV<V> {
  v: V;
  k: VK;
}
/** A condition of the lattice-tracked algebra; `cmp`: it holds iff p ⊑ q. */
export interface OB<B> {
  b: B;
  k: BK;
  p?: OV<unknown>;
  q?: OV<unknown>;
}

/**
 * The lattice-tracked algebra over `inner` (file comment, the threshold reduction), for the
 * order `signed` (slt/sle) or unsigned (ult/ule): each value carries its kind (VK/BK), computed
 * from its operands' by the rules of the argument; the terms are `inner`'s, unchanged. Only
 * min/max in the pattern ite(p ⊑ q, p, q), choices under a-independent conditions, one
 * equality under a negation and the connectives over those keep an a-dependent value anything
 * but `bad`; a comparison in the other order, or an arithmetic operation on a value of a, is
 * `bad`.
 */
export class LatticeBV<V, B> implements BV<OV<V>, OB<B>> {
  readonly true: OB<B>;
  readonly false: OB<B>;
  readonly bottom: bigint;
  readonly top: bigint;
  constructor(
    readonly inner: BV<V, B>,
    readonly signed: boolean,
    readonly mode: "lattice" | "bitwise" = "lattice",
  ) {
    this.true = { b: inner.true, k: "c" };
    this.false = { b: inner.false, k: "c" };
    [this.bottom, this.top] = signed ? [0x80000000n, 0x7fffffffn] : [0n, 0xffffffffn];
  }
  /** `lat`, or ⊥ / ⊤ (a 32-bit constant), the operands of min and max. */
  private latOrEnd(x: OV<V>): boolean {
    if (x.k === "lat") return true;
    const n = this.inner.asBigint(x.v);
    return x.k === "c" && this.inner.width(x.v) === 32 && (n === this.bottom || n === this.top);
  }
  private pure(xs: OV<V>[], v: V): OV<V> {
    return { v, k: xs.every((x) => x.k === "c") ? "c" : "bad" };
  }
  /** and/or/xor/not: in the bit-slice mode a tracked value (`lat`) of tracked or a-independent operands. */
  private bitwise(xs: OV<V>[], v: V): OV<V> {
    if (this.mode !== "bitwise" || xs.some((x) => x.k === "bad") || xs.every((x) => x.k === "c")) return this.pure(xs, v);
    return { v, k: "lat" };
  }
  private order(x: OV<V>, y: OV<V>, b: B, signed: boolean): OB<B> {
    if (x.k === "c" && y.k === "c") return { b, k: "c" };
    if (this.mode === "lattice" && signed === this.signed && this.latOrEnd(x) && this.latOrEnd(y)) return { b, k: "cmp", p: x, q: y };
    return { b, k: "bad" };
  }
  private conn(x: OB<B>, y: OB<B>, b: B, or: boolean): OB<B> {
    if (this.inner.asBool(b) !== undefined) return { b, k: "c" };
    // A constant operand decides nothing but passes the other one's kind on.
    if (x.k === "c" && this.inner.asBool(x.b) !== undefined) return y.k === "c" || y.k === "neq" ? { b, k: y.k } : { b, k: "bad" };
    if (y.k === "c" && this.inner.asBool(y.b) !== undefined) return x.k === "c" || x.k === "neq" ? { b, k: x.k } : { b, k: "bad" };
    if (x.k === "c" && y.k === "c") return { b, k: "c" };
    if ((x.k === "neq" && (y.k === "c" || (or && y.k === "neq"))) || (y.k === "neq" && x.k === "c")) return { b, k: "neq" };
    return { b, k: "bad" };
  }
  k(value: bigint | number, width: number): OV<V> {
    return { v: this.inner.k(value, width), k: "c" };
  }
  width(x: OV<V>): number {
    return this.inner.width(x.v);
  }
  add(x: OV<V>, y: OV<V>) { return this.pure([x, y], this.inner.add(x.v, y.v)); }
  sub(x: OV<V>, y: OV<V>) { return this.pure([x, y], this.inner.sub(x.v, y.v)); }
  mul(x: OV<V>, y: OV<V>) { return this.pure([x, y], this.inner.mul(x.v, y.v)); }
  and(x: OV<V>, y: OV<V>) { return this.bitwise([x, y], this.inner.and(x.v, y.v)); }
  or(x: OV<V>, y: OV<V>) { return this.bitwise([x, y], this.inner.or(x.v, y.v)); }
  xor(x: OV<V>, y: OV<V>) { return this.bitwise([x, y], this.inner.xor(x.v, y.v)); }
  not(x: OV<V>) { return this.bitwise([x], this.inner.not(x.v)); }
  neg(x: OV<V>) { return this.pure([x], this.inner.neg(x.v)); }
  shl(x: OV<V>, y: OV<V>) { return this.pure([x, y], this.inner.shl(x.v, y.v)); }
  lshr(x: OV<V>, y: OV<V>) { return this.pure([x, y], this.inner.lshr(x.v, y.v)); }
  ashr(x: OV<V>, y: OV<V>) { return this.pure([x, y], this.inner.ashr(x.v, y.v)); }
  eq(x: OV<V>, y: OV<V>): OB<B> {
    const b = this.inner.eq(x.v, y.v);
    return { b, k: x.k === "c" && y.k === "c" ? "c" : x.k === "bad" || y.k === "bad" ? "bad" : "eq" };
  }
  ult(x: OV<V>, y: OV<V>) { return this.order(x, y, this.inner.ult(x.v, y.v), false); }
  ule(x: OV<V>, y: OV<V>) { return this.order(x, y, this.inner.ule(x.v, y.v), false); }
  slt(x: OV<V>, y: OV<V>) { return this.order(x, y, this.inner.slt(x.v, y.v), true); }
  sle(x: OV<V>, y: OV<V>) { return this.order(x, y, this.inner.sle(x.v, y.v), true); }
  ite(c: OB<B>, t: OV<V>, e: OV<V>): OV<V> {
    const known = this.inner.asBool(c.b);
    if (known !== undefined) return known ? t : e;
    const v = this.inner.ite(c.b, t.v, e.v);
    if (c.k === "cmp") {
      // min(p, q) or max(p, q): the arms are the compared values themselves.
      const minmax = (c.p === t && c.q === e) || (c.p === e && c.q === t);
      return { v, k: minmax ? "lat" : "bad" };
    }
    if (c.k !== "c") return { v, k: "bad" };
    if (t.k === "bad" || e.k === "bad") return { v, k: "bad" };
    if (t.k === "c" && e.k === "c") return { v, k: "c" };
    return { v, k: this.mode === "bitwise" || (this.latOrEnd(t) && this.latOrEnd(e)) ? "lat" : "mix" };
  }
  iteB(c: OB<B>, t: OB<B>, e: OB<B>): OB<B> {
    const known = this.inner.asBool(c.b);
    if (known !== undefined) return known ? t : e;
    return { b: this.inner.iteB(c.b, t.b, e.b), k: c.k === "c" && t.k === "c" && e.k === "c" ? "c" : "bad" };
  }
  andB(x: OB<B>, y: OB<B>) { return this.conn(x, y, this.inner.andB(x.b, y.b), false); }
  orB(x: OB<B>, y: OB<B>) { return this.conn(x, y, this.inner.orB(x.b, y.b), true); }
  notB(x: OB<B>): OB<B> {
    const b = this.inner.notB(x.b);
    // ¬(p ⊑ q) is q ⊏ p: a comparison with its operands swapped.
    if (x.k === "cmp") return { b, k: "cmp", p: x.q, q: x.p };
    return { b, k: x.k === "c" ? "c" : x.k === "eq" ? "neq" : "bad" };
  }
  eqB(x: OB<B>, y: OB<B>): OB<B> {
    return { b: this.inner.eqB(x.b, y.b), k: x.k === "c" && y.k === "c" ? "c" : "bad" };
  }
  private same(x: OV<V>, v: V): OV<V> {
    return { v, k: this.inner.width(v) === this.inner.width(x.v) ? x.k : x.k === "c" ? "c" : "bad" };
  }
  extract(x: OV<V>, hi: number, lo: number) { return lo === 0 ? this.same(x, this.inner.extract(x.v, hi, lo)) : this.pure([x], this.inner.extract(x.v, hi, lo)); }
  zext(x: OV<V>, width: number) { return this.same(x, this.inner.zext(x.v, width)); }
  sext(x: OV<V>, width: number) { return this.same(x, this.inner.sext(x.v, width)); }
  concat(hi: OV<V>, lo: OV<V>) { return this.pure([hi, lo], this.inner.concat(hi.v, lo.v)); }
  bitAt(x: OV<V>, i: number): OB<B> {
    return { b: this.inner.bitAt(x.v, i), k: x.k === "c" ? "c" : "bad" };
  }
  fromB(b: OB<B>): OV<V> {
    return { v: this.inner.fromB(b.b), k: b.k === "c" ? "c" : "bad" };
  }
  asBigint(x: OV<V>) { return this.inner.asBigint(x.v); }
  asBool(b: OB<B>) { return this.inner.asBool(b.b); }
}

/** An `Init` whose values are lattice-tracked (`LatticeBV`); `ordered` makes a's values (`orderValue`). */
export function latticeInit<V, B>(init: Init<V, B>, signed: boolean, mode: "lattice" | "bitwise" = "lattice"): Init<OV<V>, OB<B>> & { ordered(name: string, signed: boolean): OV<V> } {
  const bv = new LatticeBV(init.bv, signed, mode);
  return {
    bv,
    mk: (name, w) => ({ v: init.mk(name, w), k: "c" }),
    mkB: (name) => ({ b: init.mkB(name), k: "c" }),
    ordered: (name, s) => ({ v: orderValue(init, name, s), k: "lat" }),
  };
}

/**
 * One lane of a in the threshold reduction: ⊥ or ⊤ of the order (`signed`: 0x80000000 /
 * 0x7fffffff; else 0 / 0xffffffff), by the 1-bit symbol `name`. A lattice-tracked `init` tags
 * it `lat`.
 */
export function orderValue<V, B>(init: Init<V, B>, name: string, signed: boolean): V {
  if ("ordered" in init) return (init as unknown as { ordered(name: string, signed: boolean): V }).ordered(name, signed);
  const bv = init.bv;
  return bv.ite(init.mkB(name), bv.k(signed ? 0x7fffffffn : 0xffffffffn, 32), bv.k(signed ? 0x80000000n : 0n, 32));
}

/**
 * Whether every condition of a lattice-tracked run has a kind the reduction covers (`c`,
 * `neq`; file comment).
 * @returns null when it does, else the first that does not and its kind.
 */
export function latticeOnly<B>(bads: readonly { what: string; cond: OB<B> }[]): string | null {
  const b = bads.find((x) => x.cond.k !== "c" && x.cond.k !== "neq");
  return b ? `${b.what}: its condition is not a lattice condition in a (${b.cond.k})` : null;
}

// ---------------------------------------------------------------------------------------
// The .f32 key tree: a VALU key prologue, the butterfly over the keys, the decode

/**
 * Proves a loop-free `.f32` redux that folds keys (rules/redux_f32.ts on the butterfly), or
 * null where the shape does not fit (the caller goes on). The prologue P is the lines before
 * the first write of exec; the rest R. Two steps:
 *   A. (the threshold reduction in u32 order on the keys) R run, on the lattice-tracked
 *      algebra, from P's state with a VGPR kv written by P replaced by ⊥/⊤ key lanes: some
 *      SGPR s left `lat` at the end equals REF_g(kv's lanes, the lanes of an SGPR m written by P)
 *      wherever m ≠ 0 (g: the u32 min/max, ./warp_loop.ts `refOver`). Proved for every value
 *      of kv and of the rest of P's state, so for the value P gives kv.
 *   B. (the exit, as for the key loop: ./warp_loop.ts `keyChain`) the plain run's conditions,
 *      with s's final term (the tree's fold) replaced by ite(m = 0, x, REF_g(keys, U(G_i)))
 *      for lane i's outputs and by a fresh x elsewhere (sound: A, and "for every x" covers the
 *      fold's value), under the key chain's H_32(G_i) and "where lane i executes with a defined
 *      d, m = lane i's number members"; the outputs' query generalised over the folds' 32-lane
 *      terms (./warp_loop.ts `keyChain`, "The generalisation").
 */
export async function proveKeyTree(env: Z3Env, r: AmdRoutine, timeoutMs: number, t0: number): Promise<Verdict | null> {
  const f = r.spec.form as unknown as WarpForm;
  const aReg = r.layout.src.a;
  if (f.op !== "redux" || f.type !== "f32" || aReg?.k !== "v" || r.lines.some((l) => isLabel(l))) return null;
  const lines = r.lines as Exclude<MLine, { label: string }>[];
  const writesExec = (l: (typeof lines)[number]) => record(l.op).ops.some((s, i) => s.out && keysOf(l.ops[i]!).includes("exec"));
  const cut = lines.findIndex(writesExec);
  if (cut <= 0) return null;
  const P = lines.slice(0, cut);
  const R = lines.slice(cut);
  const outs = (k: "v" | "s") => [...new Set(P.flatMap((l) => record(l.op).ops.flatMap((s, i) => (s.out && l.ops[i]!.k === k ? [(l.ops[i] as { n: number }).n] : []))))];
  const g: WarpForm = { op: "redux", reduxOp: f.reduxOp, type: "u32" };
  const bv = env.bv;
  const base = symbolicInit(env);
  // A, for each key and mask candidate.
  let found: { kv: number; s: number; m: number; queries: number } | null = null;
  let queries = 0;
  for (const kv of outs("v")) {
    const li = latticeInit(base, false);
    const lb = li.bv;
    const { st } = warpInit(li, r);
    const Sc = execPaths(lb, P, st, { maxBack: 0 }).final!;
    const lanes = Sc.vgpr.get(kv)!;
    const keys = lanes.slice(0, LANES).map((_, l) => li.ordered(`k.ord.${l}`, false));
    keys.forEach((k, l) => (lanes[l] = k));
    const fin = execPaths(lb, R, Sc, { maxBack: 0 }).final;
    if (!fin) continue;
    for (const [s, x] of fin.sgpr) {
      if (x.k !== "lat") continue;
      for (const m of outs("s")) {
        const M = Sc.sgpr.get(m)!;
        const bits = keys.map((_, l) => lb.bitAt(M, l));
        const bad = lb.andB(lb.notB(lb.eq(M, lb.k(0, 32))), lb.notB(lb.eq(x, refOver(lb, g, keys, bits))));
        if (latticeOnly([{ what: "the fold", cond: bad }]) !== null) continue;
        queries++;
        const res = await solve(env, [bad.b], timeoutMs);
        if (process.env.PROVE_DEBUG) console.log("key tree A", `v${kv} s${s} s${m}`, res.status, Math.round(res.ms));
        if (res.status === "unsat") {
          found = { kv, s, m, queries };
          break;
        }
      }
      if (found) break;
    }
    if (found) break;
  }
  if (!found) return null;
  // B.
  const init = symbolicInit(env);
  const { st, before, w } = warpInit(init, r);
  const Sc = execPaths(bv, P, cloneState(st), { maxBack: 0 }).final!;
  const fin = execPaths(bv, lines, st, { maxBack: 0 }).final!;
  const fold = fin.sgpr.get(found.s)!;
  const M = Sc.sgpr.get(found.m)!;
  const keysH = Sc.vgpr.get(found.kv)!.slice(0, LANES);
  const chain = await keyChain(env, r, f, g, P, { k: "v", n: found.kv, count: 1 }, M, keysH, Sc, timeoutMs);
  if (!chain.ok) return { verdict: "unknown", ms: performance.now() - t0, reason: chain.reason, ...(chain.fault ? { fault: true } : {}) };
  const x = init.mk("x.acc", 32);
  const sub = (b: Bool, to: BitVec) => env.ctx.substitute(b, [fold, to]) as Bool;
  const bitsM = keysH.map((_, l) => bv.bitAt(M, l));
  const sameQ: Bool[] = [];
  const laneBads: Bool[] = [];
  const assume: Bool[] = [];
  const hs = new Map<string, Bool>();
  const pairs: [BitVec, BitVec][] = [];
  const contract = contractBads(bv, r, before, fin, (l) => (l < LANES ? w.activeB[l]! : bv.false));
  for (let i = 0; i < LANES; i++) {
    const Gi = membership(bv, w.lanes, i).members;
    const on = bv.andB(w.lanes.executes[i]!, w.ref.dDefined[i]!);
    const U = Gi.map((gl, l) => bv.andB(gl, chain.number[l]!));
    const same = bv.all(U.map((u, l) => bv.eqB(u, bitsM[l]!)));
    sameQ.push(bv.andB(on, bv.notB(same)));
    const acc = bv.ite(bv.eq(M, bv.k(0, 32)), x, refOver(bv, g, keysH, U));
    for (const b of warpLaneBads(bv, f, w, fin, i)) laneBads.push(sub(b.cond, b.what.startsWith("Value mismatch") ? acc : x));
    const gk = Gi.map((y) => y.id()).join(",");
    if (!hs.has(gk)) {
      hs.set(gk, chain.H(Gi));
      pairs.push(...chain.gen(Gi));
    }
    assume.push(bv.implies(on, same), hs.get(gk)!);
  }
  // The outputs' query generalised over the folds' terms (./warp_loop.ts `keyChain`, "The
  // generalisation": a proof of the generalised query is one of the query).
  const [outBad, ...outAssume] = generalise(env, [bv.any(laneBads), ...assume], pairs);
  const goals = [
    { what: "every lane's number members are the mask", bad: bv.any(sameQ), assume: [] as Bool[] },
    { what: "every lane's outputs", bad: outBad!, assume: outAssume },
    { what: "the contract", bad: bv.any(contract.map((b) => sub(b.cond, x))), assume: [] as Bool[] },
  ];
  for (const goal of goals) {
    queries++;
    const res = await solve(env, [...goal.assume, goal.bad], timeoutMs);
    if (process.env.PROVE_DEBUG) console.log("key tree B", goal.what, res.status, Math.round(res.ms));
    if (res.status !== "unsat")
      return { verdict: "unknown", ms: performance.now() - t0, reason: res.status === "sat" ? `key tree: ${goal.what} fails (not proved, not a counterexample)` : `key tree (${goal.what}): ${res.reason ?? "unknown"} (per-query timeout ${timeoutMs / 1000} s)`, ...(res.fault ? { fault: true } : {}) };
  }
  return {
    verdict: "proved",
    ms: performance.now() - t0,
    method: `z3 key tree: the fold of v${found.kv} (keys) by the threshold reduction (s${found.s} = the reference's u32 fold over s${found.m}), the exit by the key chain (${chain.text}; the folds' terms generalised), 32 lanes, full-width values, ${queries} more queries`,
    queries: queries + chain.queries,
  };
}
