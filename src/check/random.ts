/**
 * @fileoverview The one seeded PRNG (mulberry32) of the checker, the fuzzer and the input
 * generator, and the one string hash (FNV-1a) that turns names into seeds.
 */

/** How `below` (and so `pick`) maps a draw into [0, n). */
export type BelowRule =
  /** floor(u32 / 2^32 · n): the checker's inputs (the default). */
  | "scale"
  /** u32 % n (`belowMod`): scripts/gen-ptx.ts. */
  | "mod"
  /** u32 % n, but n ≤ 1 gives 0 without drawing: scripts/fuzz.ts. */
  | "mod-nodraw1";

export interface RngOptions {
  /** The state a seed of 0 (mod 2^32) starts from; default 0x6d2b79f5. */
  zeroSeed?: number;
  /** Default "scale". Each rule is its own stream: changing it changes every input drawn. */
  below?: BelowRule;
}

/** A seeded generator of u32 values; the same seed and options give the same sequence. */
export class Rng {
  private state: number;
  private readonly rule: BelowRule;
  constructor(seed: number, opts: RngOptions = {}) {
    this.state = seed >>> 0 || (opts.zeroSeed ?? 0x6d2b79f5);
    this.rule = opts.below ?? "scale";
  }
  /** Next u32 in [0, 2^32). */
  u32(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** Integer in [0, n), by the generator's `below` rule. */
  below(n: number): number {
    if (this.rule === "scale") return Math.floor((this.u32() / 0x100000000) * n);
    if (this.rule === "mod-nodraw1" && n <= 1) return 0;
    return this.belowMod(n);
  }
  /** Integer in [0, n) as u32 % n (slightly biased unless n is a power of two). */
  belowMod(n: number): number {
    return this.u32() % n;
  }
  /** A u64 as bigint. */
  u64(): bigint {
    return (BigInt(this.u32()) << 32n) | BigInt(this.u32());
  }
  bool(): boolean {
    return (this.u32() & 1) === 1;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.below(xs.length)]!;
  }
  /** A random value of `w` bits, as bigint. */
  bits(w: number): bigint {
    let x = 0n;
    for (let i = 0; i < w; i += 32) x = (x << 32n) | BigInt(this.u32());
    return BigInt.asUintN(w, x);
  }
  /** True with probability p. */
  chance(p: number): boolean {
    return this.u32() / 2 ** 32 < p;
  }
}

/** FNV-1a (32 bits) of the UTF-16 code units of `s`: a stable seed from a name. */
export function hashString(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}
