/**
 * @fileoverview The bit-vector algebra every semantics in ptx-lower is written in.
 *
 * One definition of each PTX instruction (src/sem), each AMDGPU instruction record
 * (targets/amdgpu/isa) and the portable IR (targets/portable) is a function over `BV<V, B>`.
 * It is then run:
 *   - concretely, with `concrete` below (bigint values masked to their width);
 *   - traced, with `traced(concrete)`, which records named intermediates for reports;
 *   - symbolically, with the z3 interpretation in src/check/smt.ts;
 *   - staged, with the portable-IR builder in targets/portable/stage.ts.
 *
 * Shift meaning is SMT's: an amount ≥ the width gives 0 (`shl`, `lshr`) or the sign fill
 * (`ashr`). Targets whose shifts mask the count (AMDGPU `S0[4:0]`, JS `& 31`) or make it
 * undefined (C) say so in their own records, explicitly, never by borrowing this meaning.
 */

/** A value with its definedness, in Alive2's style: `value` matters only where `defined`. */
export interface Defined<V, B> {
  value: V;
  defined: B;
}

/**
 * The algebra. `V` is a bit-vector of a fixed width (1..128 bits), `B` a boolean.
 * Binary operations require equal widths; the width is carried by the value.
 */
export interface BV<V, B> {
  /** A constant of `width` bits; `value` is taken modulo 2^width (negative numbers wrap). */
  k(value: bigint | number, width: number): V;
  /** The width of x in bits. */
  width(x: V): number;
  readonly true: B;
  readonly false: B;

  add(x: V, y: V): V;
  sub(x: V, y: V): V;
  mul(x: V, y: V): V;
  and(x: V, y: V): V;
  or(x: V, y: V): V;
  xor(x: V, y: V): V;
  not(x: V): V;
  neg(x: V): V;
  /** x << y; y ≥ width gives 0 (SMT bvshl). */
  shl(x: V, y: V): V;
  /** Logical x >> y; y ≥ width gives 0 (SMT bvlshr). */
  lshr(x: V, y: V): V;
  /** Arithmetic x >> y; y ≥ width gives the sign fill (SMT bvashr). */
  ashr(x: V, y: V): V;

  eq(x: V, y: V): B;
  ult(x: V, y: V): B;
  ule(x: V, y: V): B;
  slt(x: V, y: V): B;
  sle(x: V, y: V): B;

  ite(c: B, t: V, e: V): V;
  iteB(c: B, t: B, e: B): B;
  andB(x: B, y: B): B;
  orB(x: B, y: B): B;
  notB(x: B): B;
  eqB(x: B, y: B): B;

  /** Bits [hi:lo] of x, width hi-lo+1. */
  extract(x: V, hi: number, lo: number): V;
  /** Zero- / sign-extend (or keep) x to `width` bits (width ≥ width(x)). */
  zext(x: V, width: number): V;
  sext(x: V, width: number): V;
  /** {hi, lo}: hi in the upper bits. */
  concat(hi: V, lo: V): V;
  /** Bit i (a constant index) as a boolean. */
  bitAt(x: V, i: number): B;
  /** A 1-bit vector from a boolean, and back. */
  fromB(b: B): V;

  /** For concrete interpretations: the value as a bigint (undefined if symbolic). */
  asBigint(x: V): bigint | undefined;
  /** For concrete interpretations: the boolean's value (undefined if symbolic). */
  asBool(b: B): boolean | undefined;
}

// ---------------------------------------------------------------------------------------
// Concrete interpretation

/** A concrete bit-vector: `x` is in [0, 2^w). */
export interface CV {
  readonly w: number;
  readonly x: bigint;
}

const masks: bigint[] = [];
for (let w = 0; w <= 128; w++) masks.push((1n << BigInt(w)) - 1n);

function cv(x: bigint, w: number): CV {
  return { w, x: x & masks[w]! };
}

function same(a: CV, b: CV, op: string): number {
  if (a.w !== b.w) throw new Error(`BV width mismatch in ${op}: ${a.w} vs ${b.w}`);
  return a.w;
}

function signed(a: CV): bigint {
  return a.x >> BigInt(a.w - 1) ? a.x - (1n << BigInt(a.w)) : a.x;
}

/** The concrete interpretation: bigint values masked to their width. */
export const concrete: BV<CV, boolean> = {
  k: (value, width) => cv(BigInt(value), width),
  width: (x) => x.w,
  true: true,
  false: false,
  add: (a, b) => cv(a.x + b.x, same(a, b, "add")),
  sub: (a, b) => cv(a.x - b.x, same(a, b, "sub")),
  mul: (a, b) => cv(a.x * b.x, same(a, b, "mul")),
  and: (a, b) => cv(a.x & b.x, same(a, b, "and")),
  or: (a, b) => cv(a.x | b.x, same(a, b, "or")),
  xor: (a, b) => cv(a.x ^ b.x, same(a, b, "xor")),
  not: (a) => cv(~a.x, a.w),
  neg: (a) => cv(-a.x, a.w),
  shl: (a, b) => {
    const w = same(a, b, "shl");
    return b.x >= BigInt(w) ? cv(0n, w) : cv(a.x << b.x, w);
  },
  lshr: (a, b) => {
    const w = same(a, b, "lshr");
    return b.x >= BigInt(w) ? cv(0n, w) : cv(a.x >> b.x, w);
  },
  ashr: (a, b) => {
    const w = same(a, b, "ashr");
    const s = signed(a);
    return cv(s >> (b.x >= BigInt(w) ? BigInt(w) : b.x), w);
  },
  eq: (a, b) => (same(a, b, "eq"), a.x === b.x),
  ult: (a, b) => (same(a, b, "ult"), a.x < b.x),
  ule: (a, b) => (same(a, b, "ule"), a.x <= b.x),
  slt: (a, b) => (same(a, b, "slt"), signed(a) < signed(b)),
  sle: (a, b) => (same(a, b, "sle"), signed(a) <= signed(b)),
  ite: (c, t, e) => (same(t, e, "ite"), c ? t : e),
  iteB: (c, t, e) => (c ? t : e),
  andB: (a, b) => a && b,
  orB: (a, b) => a || b,
  notB: (a) => !a,
  eqB: (a, b) => a === b,
  extract: (a, hi, lo) => {
    if (hi < lo || hi >= a.w || lo < 0) throw new Error(`BV extract [${hi}:${lo}] of ${a.w} bits`);
    return cv(a.x >> BigInt(lo), hi - lo + 1);
  },
  zext: (a, width) => {
    if (width < a.w) throw new Error(`BV zext ${a.w} → ${width}`);
    return { w: width, x: a.x };
  },
  sext: (a, width) => {
    if (width < a.w) throw new Error(`BV sext ${a.w} → ${width}`);
    return cv(signed(a), width);
  },
  concat: (hi, lo) => cv((hi.x << BigInt(lo.w)) | lo.x, hi.w + lo.w),
  // Up to 32 bits, on a Number (the checkers test lane bits of u32 masks in their inner loops).
  bitAt: (a, i) => (a.w <= 32 ? i >= 0 && i < 32 && ((Number(a.x) >>> i) & 1) === 1 : ((a.x >> BigInt(i)) & 1n) === 1n),
  fromB: (b) => ({ w: 1, x: b ? 1n : 0n }),
  asBigint: (a) => a.x,
  asBool: (b) => b,
};
// Exported by the library: frozen, so that no caller can change the algebra every checker runs on.
Object.freeze(concrete);

/** Shorthand for a concrete u32 (or other width) value. */
export function u(x: bigint | number, w = 32): CV {
  return cv(BigInt(x), w);
}

// ---------------------------------------------------------------------------------------
// Traced interpretation: the same algebra, plus a log of named intermediates.

/** One named intermediate recorded by `note`. */
export interface TraceEntry<V> {
  name: string;
  value: V;
}

/** A BV that also records named intermediates (see `note`). */
export interface Traced<V, B> extends BV<V, B> {
  readonly log: TraceEntry<V | B>[];
}

/**
 * Records `value` under `name` when `bv` is a traced interpretation; returns `value`.
 * Semantics call it for the ISA's pseudocode temporaries (`b1`, `too_large`, `tmp`, …);
 * on an untraced algebra it costs nothing.
 */
export function note<T>(bv: BV<unknown, unknown>, name: string, value: T): T {
  const log = (bv as Partial<Traced<unknown, unknown>>).log;
  if (log) log.push({ name, value });
  return value;
}

/** Wraps an interpretation so that `note` records into a fresh log. */
export function traced<V, B>(base: BV<V, B>): Traced<V, B> {
  return Object.assign(Object.create(base) as BV<V, B>, { log: [] as TraceEntry<V | B>[] }) as Traced<V, B>;
}

/** Formats a concrete value in Alive2's style: `#x0000002a (42)`. */
export function showCV(x: CV | boolean): string {
  if (typeof x === "boolean") return x ? "true" : "false";
  const digits = Math.max(1, Math.ceil(x.w / 4));
  const hex = x.x.toString(16).padStart(digits, "0");
  return x.w === 1 ? (x.x ? "#b1" : "#b0") : `#x${hex} (${x.x})`;
}
