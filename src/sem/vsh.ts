/**
 * @fileoverview Reference semantics of `vshl` / `vshr` — PTX ISA 9.0 §9.7.18.1 "Scalar video
 * instructions" (overview, optSaturate/optSecOp/optMerge) and §9.7.18.1.3 "vshl, vshr".
 *
 * One definition, two profiles, staged as the ISA is:
 *   extract and extend to 33 bits → shift → 34-bit intermediate → saturate →
 *   secondary op or merge → low 32 bits.
 *
 * Repairs of the ISA text (../shared/notes/ptx-semantics.md §2.2, §2.4):
 *   (i)   `d = optSecondaryOp(...); d = optMerge(...)` overwrites d; op2 and dsel are exclusive,
 *         so d = dsel ? optMerge : optSecOp.
 *   (iii) the helpers' `.s33` return types cannot hold U32 sums: computed wide enough.
 *   (iv)  partSelectSignExtend is undefined in the ISA: `.bK` = bits [8K+7:8K], `.hK` = bits
 *         [16K+15:16K], none = the word, then sign-extended iff the type is .s32.
 *   A1    "the sign of the intermediate result depends on dtype": `isa` keeps the `.s34`
 *         intermediate signed (the exact result wrapped to 34 bits) for `.sat` and op2.
 *
 * Profile `sm90` is what ptxas 13.0 emits for sm_75…sm_120 (../shared/vectors/FORMAT.md),
 * departing from `isa` in four places, each marked D1, D2, D3, A1 below.
 */
import type { BV, Defined } from "./bv.js";
import { note } from "./bv.js";
import type { Profile, Sel, VshForm } from "../ir/forms.js";

/** Bit offset and width of a selector; `null` selects the whole word. */
export function selField(sel: Sel | null): { lo: number; width: number } {
  if (sel === null) return { lo: 0, width: 32 };
  const n = Number(sel[1]);
  return sel[0] === "b" ? { lo: 8 * n, width: 8 } : { lo: 16 * n, width: 16 };
}

/** partSelectSignExtend(x, type, sel), extended to `width` bits (33 in the ISA). */
export function partSelectSignExtend<V, B>(bv: BV<V, B>, x: V, signed: boolean, sel: Sel | null, width: number): V {
  const { lo, width: w } = selField(sel);
  const field = w === 32 ? x : bv.extract(x, lo + w - 1, lo);
  return signed ? bv.sext(field, width) : bv.zext(field, width);
}

/** CLAMP(t, max, min) on a signed `t`. */
function clampSigned<V, B>(bv: BV<V, B>, t: V, min: bigint, max: bigint): V {
  const w = bv.width(t);
  const lo = bv.k(min, w);
  const hi = bv.k(max, w);
  return bv.ite(bv.slt(t, lo), lo, bv.ite(bv.slt(hi, t), hi, t));
}

/** The range optSaturate clamps to: dtype's signedness, over `bits` (8, 16 or 32). */
export function satRange(signed: boolean, bits: number): { min: bigint; max: bigint } {
  const n = BigInt(bits);
  return signed ? { min: -(1n << (n - 1n)), max: (1n << (n - 1n)) - 1n } : { min: 0n, max: (1n << n) - 1n };
}

/**
 * Bits of the saturation range, optSaturate(tmp, sat, isSigned(dtype), dsel): isa, the
 * subword with a merge; sm90 (D1), always the 32-bit range.
 */
export function satBits(f: VshForm, profile: Profile): number {
  return profile === "isa" && f.tail.kind === "merge" ? selField(f.tail.dsel).width : 32;
}

/**
 * The value `.min`/`.max` compares against c:
 *   `tmp`   isa: the signed .s34 intermediate (after saturation);
 *   `t32s`  sm90 with .sat (D3): the saturated 32-bit value, sign-extended;
 *   `exact` sm90 without .sat (A1): the exact shift result modulo 2^64.
 */
export type MinMaxOperand = "tmp" | "t32s" | "exact";

export function minMaxOperand(f: VshForm, profile: Profile): MinMaxOperand {
  return profile === "isa" ? "tmp" : f.sat ? "t32s" : "exact";
}

/**
 * Whether `.min`/`.max` compares signed: always in isa (the .s34 tmp is signed); in sm90,
 * signed for dtype .s32 and unsigned for .u32 (D3, A1: as s64 or u64).
 */
export function minMaxSigned(f: VshForm, profile: Profile): boolean {
  return profile === "isa" || f.dtype === "s32";
}

/** The operand `minMaxOperand` names, as a 64-bit value, from the stages' values. */
export function minMaxLhs<V>(
  bv: { sext(x: V, w: number): V },
  f: VshForm,
  profile: Profile,
  s: { tmp: V; t32: V; exact: V },
): V {
  const which = minMaxOperand(f, profile);
  return which === "tmp" ? s.tmp : which === "t32s" ? bv.sext(s.t32, 64) : s.exact;
}

/**
 * The stages before the tail: extract and extend a and b, shift, wrap to the .s34
 * intermediate, saturate. Returns `exact` (the shift result modulo 2^64) and `tmp` (the
 * .s34 intermediate after saturation, sign-extended to 64 bits).
 */
export function vshIntermediate<V, B>(bv: BV<V, B>, f: VshForm, profile: Profile, a: V, b: V): { exact: V; tmp: V } {
  const k = (x: bigint | number, w: number) => bv.k(x, w);

  // Extract and extend: ta, tb are the ISA's .s33 inputs (tb is always .u32, so ≥ 0).
  const ta = note(bv, "ta", partSelectSignExtend(bv, a, f.atype === "s32", f.asel, 33));
  const tb0 = partSelectSignExtend(bv, b, false, f.bsel, 33);
  // if (mode == .clamp && tb > 32) tb = 32;  if (mode == .wrap) tb = tb & 0x1f;
  const tb = note(
    bv,
    "tb",
    f.mode === "clamp" ? bv.ite(bv.ult(k(32, 33), tb0), k(32, 33), tb0) : bv.and(tb0, k(0x1f, 33)),
  );

  // The exact shift, kept to 64 bits: ta is 33 bits and tb ≤ 32, so vshl needs ≤ 65 bits;
  // modulo 2^64 is all that any consumer below reads (the ISA's .s34 keeps 34 of them).
  const ta64 = bv.sext(ta, 64);
  const tb64 = bv.zext(tb, 64);
  const exact = note(bv, "exact", f.op === "vshl" ? bv.shl(ta64, tb64) : bv.ashr(ta64, tb64));
  // tmp: the ISA's ".s34 intermediate result": the exact value wrapped to 34 bits, signed.
  let tmp = note(bv, "tmp", bv.sext(bv.extract(exact, 33, 0), 64));

  if (f.sat) {
    // optSaturate(tmp, sat, isSigned(dtype), dsel): the range of satBits (D1).
    const { min, max } = satRange(f.dtype === "s32", satBits(f, profile));
    tmp = note(bv, "tmp_sat", clampSigned(bv, tmp, min, max));
  }
  return { exact, tmp };
}

/**
 * `vop.dtype.atype.u32{.sat}.mode{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}`.
 * @param a, b, c u32 register values (c is read only when the tail uses it)
 * @returns d (u32); the video shifts are defined for every input.
 */
export function vsh<V, B>(bv: BV<V, B>, f: VshForm, profile: Profile, a: V, b: V, c: V): Defined<V, B> {
  const k = (x: bigint | number, w: number) => bv.k(x, w);
  const dsigned = f.dtype === "s32";

  const { exact, tmp } = vshIntermediate(bv, f, profile, a, b);

  let r: V; // the result before "the lower 32-bits are written to the destination"
  const t32 = bv.extract(tmp, 31, 0);
  if (f.tail.kind === "merge") {
    const { lo, width } = selField(f.tail.dsel);
    const field = BigInt((1 << width) - 1) << BigInt(lo);
    const keepC = bv.and(c, k(~field & 0xffffffffn, 32));
    if (profile === "sm90" && f.tail.dsel === "h1") {
      // D2: ptxas merges d.h1 as PRMT(tmp, 0x3254, c): the upper half of tmp, not its lower half.
      r = bv.or(bv.and(t32, k(0xffff0000, 32)), keepC);
    } else {
      // optMerge: ((tmp & fieldmask) << lo) | (c & ~(fieldmask << lo))
      const low = bv.and(t32, k((1 << width) - 1, 32));
      r = bv.or(bv.shl(low, k(lo, 32)), keepC);
    }
  } else if (f.tail.kind === "op2") {
    // The third operand is sign- or zero-extended per dtype.
    const cc = dsigned ? bv.sext(c, 64) : bv.zext(c, 64);
    if (f.tail.op2 === "add") {
      r = bv.extract(bv.add(tmp, cc), 31, 0);
    } else {
      const isMin = f.tail.op2 === "min";
      // isa: the signed .s34 tmp; sm90: sext(t32) with .sat (D3), else exact (A1), compared
      // signed for dtype .s32 and unsigned for .u32 (minMaxOperand, minMaxSigned).
      const lhs = minMaxLhs(bv, f, profile, { tmp, t32, exact });
      const less = minMaxSigned(f, profile) ? bv.slt(lhs, cc) : bv.ult(lhs, cc);
      const pick = isMin ? bv.ite(less, lhs, cc) : bv.ite(less, cc, lhs);
      r = bv.extract(pick, 31, 0);
    }
  } else {
    r = t32;
  }
  return { value: note(bv, "d", r), defined: bv.true };
}
