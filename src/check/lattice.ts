/**
 * @fileoverview The lattice-tracked algebra (`LatticeBV`) and the two value reductions it
 * checks, used by the warp-level provers of AMDGPU (targets/amdgpu/prove/warp.ts, on the DPP
 * butterfly of rules/redux_tree.ts and the .f32 key tree of ./warp_tree.ts) and of the portable
 * IR (targets/portable/prove.ts): each makes a redux's full-width 32-lane query, past the
 * per-query timeout, a query over one bit per lane of a. The linear-form reduction for
 * `redux.add` is targets/amdgpu/prove/warp_tree.ts's `linearOnly` (a walk over AMDGPU lines)
 * and targets/portable/prove.ts's `pirLinearOnly`.
 *
 * The threshold reduction, for a loop-free `redux.min` / `.max` (a butterfly with v_min/v_max,
 * whose full-width query is past the timeout). Fix every input but a's
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
import type { BV } from "../sem/bv.js";
import type { Init } from "./prove_types.js";

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

