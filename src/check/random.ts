/**
 * @fileoverview A small seeded PRNG (mulberry32) for reproducible checker inputs.
 */

/** A seeded generator of u32 values; the same seed gives the same sequence. */
export class Rng {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x6d2b79f5;
  }
  /** Next u32 in [0, 2^32). */
  u32(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** Integer in [0, n). */
  below(n: number): number {
    return Math.floor((this.u32() / 0x100000000) * n);
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
