/**
 * @fileoverview The fingerprinting algebra (FpBV): hash-consed terms over the BV interface,
 * used for query identity (src/check/prove.ts specFingerprint) and for the selector-stage
 * reduction's term equalities (src/check/prove.ts reduceSelectors and the targets' halves).
 */
import type { Sel } from "../ir/forms.js";
import type { BV, CV } from "../sem/bv.js";
import { concrete } from "../sem/bv.js";
import { selField } from "../sem/vsh.js";

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

/** A field selected from a source and extended to 32 bits: stage 1 of the video pipeline. */
export function selected<V, B>(bv: BV<V, B>, x: V, sel: Sel, signed: boolean): V {
  const { lo, width } = selField(sel);
  const field = bv.extract(x, lo + width - 1, lo);
  return signed ? bv.sext(field, 32) : bv.zext(field, 32);
}
