/**
 * @fileoverview A second concrete interpretation of the BV algebra (src/sem/bv.ts), on
 * JavaScript numbers: `concreteNumber`. It defines no instruction: every record, the
 * interpreter and the references run over it unchanged, exactly as over `concrete` — it is
 * the same generic definitions instantiated at another carrier, which is what lets the
 * checkers (the hip/llvm rows of `verify --all`, scripts/verify-all-warp.ts) run millions of
 * warps without a bigint allocation per operation.
 *
 * Representation: `{ w, n, b }`. Up to 32 bits the value is the number `n` in [0, 2^w)
 * (exact: a double holds every u32) and `b` is unused (0n); wider values (a wave64 mask, a
 * 64-bit pair, a 128-bit intermediate) are the bigint `b` in [0, 2^w), with `n` = -1, and
 * each operation on them is `concrete`'s own (the bigint interpretation), so only the u32
 * paths are new. Those are the algebra's definitions on u32 written with the 32-bit
 * operators — ToUint32/ToInt32 are reduction modulo 2^32, so `(x + y) >>> 0` is
 * `(x + y) mod 2^32`, `Math.imul(x, y) >>> 0` is `(x · y) mod 2^32`, `x & (2^w − 1)` is
 * `x mod 2^w` for w < 32 — with the same shift meaning (an amount ≥ the width gives 0, or
 * the sign fill for `ashr`) and the same width errors. test/bv_number.test.ts checks every
 * operation against `concrete` on random and edge values of widths 1–128.
 */
import type { BV, CV } from "./bv.js";
import { concrete } from "./bv.js";

/** A concrete bit-vector on a number (≤ 32 bits: `n`) or a bigint (wider: `b`). */
export interface NV {
  readonly w: number;
  /** The value for w ≤ 32, in [0, 2^w); -1 for wider values. */
  readonly n: number;
  /** The value for w > 32, in [0, 2^w); 0n for narrower ones. */
  readonly b: bigint;
}

/** 2^w − 1 for w in 0..31 (as an int32-safe number). */
const MASK: number[] = Array.from({ length: 32 }, (_, w) => 2 ** w - 1);
const POW2: number[] = Array.from({ length: 33 }, (_, w) => 2 ** w);

/** x mod 2^w for an integer-valued number x (any sign, |x| < 2^53) and w ≤ 32. */
const wrap = (x: number, w: number): number => (w === 32 ? x >>> 0 : (x & MASK[w]!) >>> 0);

const small = (n: number, w: number): NV => ({ w, n, b: 0n });
const big = (x: bigint, w: number): NV => (w <= 32 ? { w, n: Number(BigInt.asUintN(w, x)), b: 0n } : { w, n: -1, b: BigInt.asUintN(w, x) });

/** The value as a bigint. */
const toBig = (a: NV): bigint => (a.w <= 32 ? BigInt(a.n) : a.b);
const toCV = (a: NV): CV => ({ w: a.w, x: toBig(a) });
const fromCV = (a: CV): NV => big(a.x, a.w);

function same(a: NV, b: NV, op: string): number {
  if (a.w !== b.w) throw new Error(`BV width mismatch in ${op}: ${a.w} vs ${b.w}`);
  return a.w;
}

/** The two's-complement value of a ≤ 32-bit value. */
const signedN = (a: NV): number => (a.w === 32 ? a.n | 0 : a.n >= POW2[a.w - 1]! ? a.n - POW2[a.w]! : a.n);

/** A binary operation: `f` on u32 paths, `concrete`'s on wider values. */
function bin(op: keyof BV<CV, boolean>, f: (x: number, y: number, w: number) => number) {
  const c = concrete[op] as unknown as (x: CV, y: CV) => CV;
  return (a: NV, b: NV): NV => {
    const w = same(a, b, op);
    return w <= 32 ? small(f(a.n, b.n, w), w) : fromCV(c(toCV(a), toCV(b)));
  };
}

function cmp(op: "ult" | "ule" | "slt" | "sle", f: (x: number, y: number) => boolean, signedOp: boolean) {
  const c = concrete[op];
  return (a: NV, b: NV): boolean => {
    const w = same(a, b, op);
    if (w > 32) return c(toCV(a), toCV(b));
    return signedOp ? f(signedN(a), signedN(b)) : f(a.n, b.n);
  };
}

/** The concrete interpretation on numbers (see the file overview). */
export const concreteNumber: BV<NV, boolean> = {
  k: (value, width) => {
    if (width <= 32 && typeof value === "number" && Number.isSafeInteger(value)) return small(wrap(value, width), width);
    return big(BigInt(value), width);
  },
  width: (x) => x.w,
  true: true,
  false: false,
  add: bin("add", (x, y, w) => wrap(x + y, w)),
  sub: bin("sub", (x, y, w) => wrap(x - y, w)),
  mul: bin("mul", (x, y, w) => wrap(Math.imul(x, y), w)),
  and: bin("and", (x, y) => (x & y) >>> 0),
  or: bin("or", (x, y) => (x | y) >>> 0),
  xor: bin("xor", (x, y) => (x ^ y) >>> 0),
  not: (a) => (a.w <= 32 ? small(wrap(~a.n, a.w), a.w) : fromCV(concrete.not(toCV(a)))),
  neg: (a) => (a.w <= 32 ? small(wrap(-a.n, a.w), a.w) : fromCV(concrete.neg(toCV(a)))),
  shl: bin("shl", (x, y, w) => (y >= w ? 0 : wrap(x << y, w))),
  lshr: bin("lshr", (x, y, w) => (y >= w ? 0 : x >>> y)),
  ashr: (a, b) => {
    const w = same(a, b, "ashr");
    if (w > 32) return fromCV(concrete.ashr(toCV(a), toCV(b)));
    return small(wrap(signedN(a) >> Math.min(b.n, w - 1), w), w);
  },
  eq: (a, b) => (same(a, b, "eq"), a.w <= 32 ? a.n === b.n : a.b === b.b),
  ult: cmp("ult", (x, y) => x < y, false),
  ule: cmp("ule", (x, y) => x <= y, false),
  slt: cmp("slt", (x, y) => x < y, true),
  sle: cmp("sle", (x, y) => x <= y, true),
  ite: (c, t, e) => (same(t, e, "ite"), c ? t : e),
  iteB: (c, t, e) => (c ? t : e),
  andB: (a, b) => a && b,
  orB: (a, b) => a || b,
  notB: (a) => !a,
  eqB: (a, b) => a === b,
  extract: (a, hi, lo) => {
    if (hi < lo || hi >= a.w || lo < 0) throw new Error(`BV extract [${hi}:${lo}] of ${a.w} bits`);
    const w = hi - lo + 1;
    if (a.w <= 32) return small(wrap(a.n >>> lo, w), w);
    return big(a.b >> BigInt(lo), w);
  },
  zext: (a, width) => {
    if (width < a.w) throw new Error(`BV zext ${a.w} → ${width}`);
    return width <= 32 ? small(a.n, width) : { w: width, n: -1, b: toBig(a) };
  },
  sext: (a, width) => {
    if (width < a.w) throw new Error(`BV sext ${a.w} → ${width}`);
    if (a.w <= 32 && width <= 32) return small(wrap(signedN(a), width), width);
    return fromCV(concrete.sext(toCV(a), width));
  },
  concat: (hi, lo) => {
    const w = hi.w + lo.w;
    if (w <= 32) return small(hi.n * POW2[lo.w]! + lo.n, w);
    return { w, n: -1, b: (toBig(hi) << BigInt(lo.w)) | toBig(lo) };
  },
  bitAt: (a, i) => (a.w <= 32 ? i >= 0 && i < 32 && ((a.n >>> i) & 1) === 1 : i >= 0 && ((a.b >> BigInt(i)) & 1n) === 1n),
  fromB: (b) => small(b ? 1 : 0, 1),
  asBigint: (a) => toBig(a),
  asBool: (b) => b,
};

/** The bigint value of a `concreteNumber` value (any width). */
export const nvValue = toBig;
