/**
 * @fileoverview Reference semantics of `szext` — PTX ISA 9.0 §9.7.1.21 "szext".
 *
 * Follows the ISA pseudocode line by line, with the ISA's temporaries. Deliberate deviation:
 * the last line is printed garbled in every copy of the ISA (`sign_bit ? mask | 0`); it is
 * repaired to `sign_bit ? mask : 0`, the only reading that type-checks and the one the
 * prose, the ISA's own example and ptxas's constant folding agree with
 * (../shared/notes/ptx-semantics.md §1).
 */
import type { BV, Defined } from "./bv.js";
import { note } from "./bv.js";
import type { SzextForm } from "../ir/forms.js";

/**
 * `szext.mode.type d, a, b`: sign- (`.s32`) or zero-extends (`.u32`) the low N bits of `a`,
 * N = b & 31 under `.wrap`, N = min(b, 32) under `.clamp`.
 * @param a u32 source
 * @param b u32 bit count
 * @returns d (u32); szext is defined for every input.
 */
export function szext<V, B>(bv: BV<V, B>, f: SzextForm, a: V, b: V): Defined<V, B> {
  const k = (x: number) => bv.k(x, 32);
  const b1 = note(bv, "b1", bv.and(b, k(0x1f)));
  const too_large = note(bv, "too_large", f.mode === "clamp" ? bv.notB(bv.ult(b, k(32))) : bv.false);
  const mask = note(bv, "mask", bv.ite(too_large, k(0), bv.shl(k(0xffffffff), b1)));
  const sign_pos = note(bv, "sign_pos", bv.and(bv.sub(b1, k(1)), k(0x1f)));
  const sign_bit = note(
    bv,
    "sign_bit",
    f.type === "s32"
      ? bv.andB(bv.notB(bv.orB(bv.eq(b1, k(0)), too_large)), bv.eq(bv.and(bv.lshr(a, sign_pos), k(1)), k(1)))
      : bv.false,
  );
  // The repaired last line: (a & ~mask) | (sign_bit ? mask : 0).
  const d = note(bv, "d", bv.or(bv.and(a, bv.not(mask)), bv.ite(sign_bit, mask, k(0))));
  return { value: d, defined: bv.true };
}
