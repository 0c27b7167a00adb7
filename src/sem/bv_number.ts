/**
 * @fileoverview A second concrete interpretation of the BV algebra (src/sem/bv.ts), on
 * JavaScript numbers: `concreteNumber`. It defines no instruction: every record, the
 * interpreter and the references run over it unchanged, exactly as over `concrete` — it is
 * the same generic definitions instantiated at another carrier, which is what lets the
 * checkers (the hip/llvm rows of `verify --all`, scripts/verify-all-warp.ts) run millions of
 * warps without a bigint allocation per operation.
 *
 * Representation: `{ w, n, h, b }`. Up to 32 bits the value is the number `n` in [0, 2^w)
 * (exact: a double holds every u32); from 33 to 64 bits (a wave64 mask, a 64-bit pair) it is
 * two words, `n` = bits [31:0] and `h` = bits [w−1:32]; wider values (a 128-bit intermediate)
 * are the bigint `b` in [0, 2^w). The u32 paths are the algebra's definitions written with
 * the 32-bit operators — ToUint32/ToInt32 are reduction modulo 2^32, so `(x + y) >>> 0` is
 * `(x + y) mod 2^32`, `Math.imul(x, y) >>> 0` is `(x · y) mod 2^32`, `x & (2^w − 1)` is
 * `x mod 2^w` for w < 32 — with the same shift meaning (an amount ≥ the width gives 0, or
 * the sign fill for `ashr`) and the same width errors; on two words `and/or/xor/not`, `add`
 * and `sub` with their carry/borrow, `shl`/`lshr`, the unsigned compares, `extract`,
 * `concat` and `bitAt` word by word; every other operation on 33–64 bits (mul, ashr, the
 * signed compares, sext) and all of them above 64 bits convert to bigint and apply
 * `concrete`'s own definition. test/bv_number.test.ts checks every operation against
 * `concrete` on random and edge values of widths 1–128.
 */
import type { BV, CV } from "./bv.js";
import { concrete } from "./bv.js";

/** A concrete bit-vector on numbers (≤ 64 bits: the words `n`, `h`) or a bigint (wider: `b`). */
export interface NV {
  readonly w: number;
  /** Bits [31:0] for w ≤ 64 (the whole value for w ≤ 32), in [0, 2^min(w, 32)); -1 for wider values. */
  readonly n: number;
  /** Bits [w−1:32] for 32 < w ≤ 64, in [0, 2^(w−32)); 0 otherwise. */
  readonly h: number;
  /** The value for w > 64, in [0, 2^w); 0n for narrower ones. */
  readonly b: bigint;
}

/** 2^w − 1 for w in 0..31 (as an int32-safe number). */
const MASK: number[] = Array.from({ length: 32 }, (_, w) => 2 ** w - 1);
const POW2: number[] = Array.from({ length: 65 }, (_, w) => 2 ** w);

/** x mod 2^w for an integer-valued number x (any sign, |x| < 2^53) and w ≤ 32. */
const wrap = (x: number, w: number): number => (w === 32 ? x >>> 0 : (x & MASK[w]!) >>> 0);

/**
 * Every value is made by this one constructor, so all of them share one hidden class (V8's
 * map): object literals at several sites, with a word first stored as a small integer and
 * later as a double, leave values of several maps behind, and the property loads of every
 * operation (each reads `w`) then go megamorphic — a third of a warp run's time in
 * `verify`'s hip/llvm rows. The words are first stored as `null` (below), so their
 * representation is generic from the start: small integers inline, larger words boxed, no
 * map change later.
 */
class NVal implements NV {
  constructor(
    readonly w: number,
    readonly n: number,
    readonly h: number,
    readonly b: bigint,
  ) {}
}
void new NVal(0, null as unknown as number, null as unknown as number, 0n);
const nv = (w: number, n: number, h: number, b: bigint): NV => new NVal(w, n, h, b);

const small = (n: number, w: number): NV => nv(w, n, 0, 0n);
/** A 33–64-bit value from its words (`lo` any int32/uint32, `hi` wrapped here). */
const mid = (lo: number, hi: number, w: number): NV => nv(w, lo >>> 0, wrap(hi, w - 32), 0n);
const big = (x: bigint, w: number): NV => {
  if (w <= 32) return small(Number(BigInt.asUintN(w, x)), w);
  if (w <= 64) return mid(Number(BigInt.asUintN(32, x)), Number(BigInt.asUintN(w - 32, x >> 32n)), w);
  return nv(w, -1, 0, BigInt.asUintN(w, x));
};

/** The value as a bigint. */
const toBig = (a: NV): bigint => (a.w <= 32 ? BigInt(a.n) : a.w <= 64 ? (BigInt(a.h) << 32n) | BigInt(a.n) : a.b);
const toCV = (a: NV): CV => ({ w: a.w, x: toBig(a) });
const fromCV = (a: CV): NV => big(a.x, a.w);

function same(a: NV, b: NV, op: string): number {
  if (a.w !== b.w) throw new Error(`BV width mismatch in ${op}: ${a.w} vs ${b.w}`);
  return a.w;
}

/** The two's-complement value of a ≤ 32-bit value. */
const signedN = (a: NV): number => (a.w === 32 ? a.n | 0 : a.n >= POW2[a.w - 1]! ? a.n - POW2[a.w]! : a.n);

/** A shift amount of a 33–64-bit value, capped at 64 (every amount ≥ the width acts alike). */
const amount = (s: NV): number => (s.h !== 0 ? 64 : s.n);

type Bin = (x: NV, y: NV, w: number) => NV;

/**
 * A binary operation: `f` on ≤ 32-bit values, `g` (if given) on 33–64-bit ones, `concrete`'s
 * (the bigint definition) otherwise.
 */
function bin(op: keyof BV<CV, boolean>, f: (x: number, y: number, w: number) => number, g?: Bin) {
  const c = concrete[op] as unknown as (x: CV, y: CV) => CV;
  return (a: NV, b: NV): NV => {
    const w = same(a, b, op);
    if (w <= 32) return small(f(a.n, b.n, w), w);
    if (g && w <= 64) return g(a, b, w);
    return fromCV(c(toCV(a), toCV(b)));
  };
}

function cmp(op: "ult" | "ule" | "slt" | "sle", f: (x: number, y: number) => boolean, signedOp: boolean) {
  const c = concrete[op];
  return (a: NV, b: NV): boolean => {
    const w = same(a, b, op);
    if (w <= 32) return signedOp ? f(signedN(a), signedN(b)) : f(a.n, b.n);
    // Unsigned on two words: the high words decide unless equal.
    if (!signedOp && w <= 64) return a.h !== b.h ? a.h < b.h : f(a.n, b.n);
    return c(toCV(a), toCV(b));
  };
}

/** The concrete interpretation on numbers (see the file overview). */
export const concreteNumber: BV<NV, boolean> = {
  k: (value, width) => {
    if (typeof value === "number" && Number.isSafeInteger(value)) {
      if (width <= 32) return small(wrap(value, width), width);
      // floor division keeps two's complement for negative values.
      if (width <= 64) return mid(value >>> 0, wrap(Math.floor(value / POW2[32]!), 32), width);
    }
    // A u32 bigint (a checker's input): its number, without BigInt.asUintN.
    if (typeof value === "bigint" && width === 32 && value >= 0n && value <= 0xffffffffn) return small(Number(value), 32);
    return big(BigInt(value), width);
  },
  width: (x) => x.w,
  true: true,
  false: false,
  add: bin(
    "add",
    (x, y, w) => wrap(x + y, w),
    (a, b, w) => {
      const lo = a.n + b.n;
      return mid(lo, a.h + b.h + (lo >= POW2[32]! ? 1 : 0), w);
    },
  ),
  sub: bin(
    "sub",
    (x, y, w) => wrap(x - y, w),
    (a, b, w) => {
      const lo = a.n - b.n;
      return mid(lo, a.h - b.h - (lo < 0 ? 1 : 0), w);
    },
  ),
  mul: bin("mul", (x, y, w) => wrap(Math.imul(x, y), w)),
  and: bin("and", (x, y) => (x & y) >>> 0, (a, b, w) => mid(a.n & b.n, a.h & b.h, w)),
  or: bin("or", (x, y) => (x | y) >>> 0, (a, b, w) => mid(a.n | b.n, a.h | b.h, w)),
  xor: bin("xor", (x, y) => (x ^ y) >>> 0, (a, b, w) => mid(a.n ^ b.n, a.h ^ b.h, w)),
  not: (a) => (a.w <= 32 ? small(wrap(~a.n, a.w), a.w) : a.w <= 64 ? mid(~a.n, ~a.h, a.w) : fromCV(concrete.not(toCV(a)))),
  neg: (a) => (a.w <= 32 ? small(wrap(-a.n, a.w), a.w) : a.w <= 64 ? concreteNumber.sub(mid(0, 0, a.w), a) : fromCV(concrete.neg(toCV(a)))),
  shl: bin(
    "shl",
    (x, y, w) => (y >= w ? 0 : wrap(x << y, w)),
    (a, s, w) => {
      const k = amount(s);
      if (k >= w) return mid(0, 0, w);
      if (k === 0) return a;
      if (k >= 32) return mid(0, a.n << (k - 32), w);
      return mid(a.n << k, (a.h << k) | (a.n >>> (32 - k)), w);
    },
  ),
  lshr: bin(
    "lshr",
    (x, y, w) => (y >= w ? 0 : x >>> y),
    (a, s, w) => {
      const k = amount(s);
      if (k >= w) return mid(0, 0, w);
      if (k === 0) return a;
      if (k >= 32) return mid(a.h >>> (k - 32), 0, w);
      return mid((a.n >>> k) | (a.h << (32 - k)), a.h >>> k, w);
    },
  ),
  ashr: (a, b) => {
    const w = same(a, b, "ashr");
    if (w > 32) return fromCV(concrete.ashr(toCV(a), toCV(b)));
    return small(wrap(signedN(a) >> Math.min(b.n, w - 1), w), w);
  },
  eq: (a, b) => (same(a, b, "eq"), a.w <= 64 ? a.n === b.n && a.h === b.h : a.b === b.b),
  ult: cmp("ult", (x, y) => x < y, false),
  ule: cmp("ule", (x, y) => x <= y, false),
  slt: cmp("slt", (x, y) => x < y, true),
  sle: cmp("sle", (x, y) => x <= y, true),
  ite: (c, t, e) => (same(t, e, "ite"), c ? t : e),
  // Booleans are plain JS booleans in both algebras: concrete's own operations.
  iteB: concrete.iteB,
  andB: concrete.andB,
  orB: concrete.orB,
  notB: concrete.notB,
  eqB: concrete.eqB,
  extract: (a, hi, lo) => {
    if (hi < lo || hi >= a.w || lo < 0) throw new Error(`BV extract [${hi}:${lo}] of ${a.w} bits`);
    const w = hi - lo + 1;
    if (a.w <= 32) return small(wrap(a.n >>> lo, w), w);
    if (a.w > 64) return big(a.b >> BigInt(lo), w);
    // Two words: below 32, above 32, or across.
    if (hi < 32) return small(wrap(a.n >>> lo, w), w);
    if (lo >= 32) return small(wrap(a.h >>> (lo - 32), w), w);
    const low = lo === 0 ? a.n : (a.n >>> lo) | (a.h << (32 - lo));
    return w <= 32 ? small(wrap(low, w), w) : mid(low, a.h >>> lo, w);
  },
  zext: (a, width) => {
    if (width < a.w) throw new Error(`BV zext ${a.w} → ${width}`);
    if (width <= 32) return small(a.n, width);
    if (width <= 64) return nv(width, a.n, a.h, 0n);
    return nv(width, -1, 0, toBig(a));
  },
  sext: (a, width) => {
    if (width < a.w) throw new Error(`BV sext ${a.w} → ${width}`);
    if (a.w <= 32 && width <= 32) return small(wrap(signedN(a), width), width);
    return fromCV(concrete.sext(toCV(a), width));
  },
  concat: (hi, lo) => {
    const w = hi.w + lo.w;
    if (w <= 32) return small(hi.n * POW2[lo.w]! + lo.n, w);
    // The common pair: a 32-bit low word under ≤ 32 high bits.
    if (w <= 64 && lo.w === 32) return nv(w, lo.n, hi.n, 0n);
    return big((toBig(hi) << BigInt(lo.w)) | toBig(lo), w);
  },
  bitAt: (a, i) => {
    if (i < 0 || i >= a.w) return false;
    if (a.w <= 64) return i < 32 ? ((a.n >>> i) & 1) === 1 : ((a.h >>> (i - 32)) & 1) === 1;
    return ((a.b >> BigInt(i)) & 1n) === 1n;
  },
  fromB: (b) => small(b ? 1 : 0, 1),
  asBigint: (a) => toBig(a),
  asBool: (b) => b,
};

/** The bigint value of a `concreteNumber` value (any width). */
export const nvValue = toBig;
