/**
 * @fileoverview Small helpers the record semantics share: AMD's pseudocode idioms written
 * over the BV algebra (`S1[4:0]`, `signext_from_bit`, ff1 over a lane mask).
 */
import type { BV } from "../../../src/sem/bv.js";

/** x[hi:lo] zero-extended back to x's width: the manual's `S1[4:0]`. */
export function bits<V, B>(bv: BV<V, B>, x: V, hi: number, lo = 0): V {
  return bv.zext(bv.extract(x, hi, lo), bv.width(x));
}

/** `signext_from_bit(t, w)`: 0 when w = 0, else the low w bits of t sign-extended (RDNA3 pseudocode). */
export function signextFromBit<V, B>(bv: BV<V, B>, t: V, w: V): V {
  const n = bv.width(t);
  const sh = bv.sub(bv.k(n, n), w); // n - w, in 1..n when w in 1..n-1
  return bv.ite(bv.eq(w, bv.k(0, n)), bv.k(0, n), bv.ashr(bv.shl(t, sh), sh));
}

/** `(1 << w) - 1` for w < width (the manual's bit-field mask). */
export function lowMask<V, B>(bv: BV<V, B>, w: V): V {
  const n = bv.width(w);
  return bv.sub(bv.shl(bv.k(1, n), w), bv.k(1, n));
}

/** Index of the lowest set bit of `mask`, or −1 (as u32) when none: `s_ff1_i32_b*`. */
export function ff1<V, B>(bv: BV<V, B>, mask: V): V {
  let r = bv.k(-1, 32);
  for (let i = bv.width(mask) - 1; i >= 0; i--) r = bv.ite(bv.bitAt(mask, i), bv.k(i, 32), r);
  return r;
}

/** Lane `lane` of `lanes` selected by a possibly symbolic index (an If-chain). */
export function pick<V, B>(bv: BV<V, B>, lanes: V[], index: V): V {
  const concrete = bv.asBigint(index);
  if (concrete !== undefined) return lanes[Number(concrete) % lanes.length]!;
  let r: V = lanes[0]!;
  for (let i = 1; i < lanes.length; i++) r = bv.ite(bv.eq(index, bv.k(i, bv.width(index))), lanes[i]!, r);
  return r;
}

export const nonzero = <V, B>(bv: BV<V, B>, x: V): B => bv.notB(bv.eq(x, bv.k(0, bv.width(x))));

/** Bit i of x moved to bit width-1-i (`s_brev_b32`, `v_bfrev_b32`). */
export function bitReverse<V, B>(bv: BV<V, B>, x: V): V {
  const n = bv.width(x);
  let r = bv.extract(x, 0, 0); // becomes the top bit
  for (let i = 1; i < n; i++) r = bv.concat(r, bv.extract(x, i, i));
  return r;
}

/**
 * Thrown by a record's semantics for an input the manuals leave undefined or that this
 * project does not model (a DPP source the manual does not name, `ds_bpermute_b32` on a
 * gfx10+ wave64): the run stops with the reason instead of inventing a value. The
 * interpreter turns it into an `InterpError`.
 */
export class InterpRefusal extends Error {}
