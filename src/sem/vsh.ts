/**
 * @fileoverview The scalar video pipeline — PTX ISA 9.0 §9.7.18.1 "Scalar video instructions"
 * (overview: partSelectSignExtend, optSaturate, optSecOp, optMerge) — and the seven scalar
 * instructions on it: `vshl`/`vshr` (§9.7.18.1.3, `vsh`), `vadd vsub vabsdiff vmin vmax`
 * (§9.7.18.1.1) and `vset` (§9.7.18.1.4), both `vop`. One definition, two profiles, staged as the ISA is:
 *   extract and extend to 33 bits → operation → 34-bit intermediate → saturate →
 *   secondary op or merge → low 32 bits.
 * The stages every instruction shares are written once here: `partSelectSignExtend`,
 * `clampSigned`/`satRange`, and `scalarTail` (optSecOp or optMerge, with sm_90's `.h1` merge).
 *
 * Repairs of the ISA text (../shared/notes/ptx-semantics.md §2.2, §2.4; video-semantics.md §1.8):
 *   (i)   `d = optSecondaryOp(...); d = optMerge(...)` overwrites d; op2 and dsel are exclusive,
 *         so d = dsel ? optMerge : optSecOp (video-semantics R2).
 *   (iii) the helpers' `.s33` return types cannot hold U32 sums: computed wide enough (R3).
 *   (iv)  partSelectSignExtend is undefined in the ISA: `.bK` = bits [8K+7:8K], `.hK` = bits
 *         [16K+15:16K], none = the word, then sign-extended iff the type is .s32 (R1).
 *   A1    "the sign of the intermediate result depends on dtype": `isa` keeps the
 *         intermediate signed and exact (the shifts: wrapped to .s34) for `.sat` and op2 (R4).
 *   R6    optMerge `.h1`: `((tmp & 0xffff) << 16) | (c & 0xffff)` (the text's parentheses
 *         do not balance).
 *
 * Profile `sm90` is what ptxas 13.0 emits for sm_75…sm_120 (../shared/vectors/FORMAT.md).
 * The shifts depart from `isa` in four places, marked D1, D2, D3, A1 below (ptx-semantics.md
 * §2.4); vadd…vmax in five, marked D2, S1, S2, S3, A1, and vset in two, D2 and V1
 * (video-semantics.md §4.3, from the sm_90 SASS as decoded and executed there). D2 is the
 * shared merge.
 */
import type { BV, Defined } from "./bv.js";
import { note } from "./bv.js";

/**
 * Marks the place where the `sm90` profile departs from the ISA reading, by the notes' name
 * (D1 … V1): a traced evaluation (src/check/departures.ts) records it as `sm90 ID`; for
 * every other algebra it does nothing.
 */
function departs<V, B>(bv: BV<V, B>, id: string): void {
  note(bv, `sm90 ${id}`, bv.true);
}
import type { Profile, Sel, VopForm, VsetCmp, VshForm, VshTail } from "../ir/forms.js";

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
export function clampSigned<V, B>(bv: BV<V, B>, t: V, min: bigint, max: bigint): V {
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
    if (profile === "sm90" && f.tail.kind === "merge") departs(bv, "D1");
    const { min, max } = satRange(f.dtype === "s32", satBits(f, profile));
    tmp = note(bv, "tmp_sat", clampSigned(bv, tmp, min, max));
  }
  return { exact, tmp };
}

/**
 * optSecOp or optMerge, shared by every scalar video instruction:
 *   none      d = t32
 *   `.add`    d = (tmp + c) mod 2^32, c extended per dtype: only t32 matters
 *   `.min/.max` the compared value `lhs` (64 bits: the profile's choice) against c extended
 *             per dtype, signed or unsigned as `signedCmp` says
 *   merge     ((t32 & fieldmask) << lo) | (c & ~(fieldmask << lo)); sm90 `.h1` (D2): ptxas
 *             merges as PRMT(tmp, 0x3254, c), tmp[31:16] over c[15:0] (video-semantics §4.3)
 * @param t32 the intermediate's low word (after saturation), 32 bits
 * @param minMax the `.min/.max` compared value (64 bits) and signedness; read only by those tails
 * @param c the u32 third operand
 * @returns the 32-bit result before "the lower 32-bits are written to the destination"
 */
export function scalarTail<V, B>(bv: BV<V, B>, tail: VshTail, profile: Profile, dsigned: boolean, t32: V, minMax: () => { lhs: V; signedCmp: boolean }, c: V): V {
  const k = (x: bigint | number, w: number) => bv.k(x, w);
  if (tail.kind === "merge") {
    const { lo, width } = selField(tail.dsel);
    const field = BigInt((1 << width) - 1) << BigInt(lo);
    const keepC = bv.and(c, k(~field & 0xffffffffn, 32));
    // D2: ptxas merges d.h1 as PRMT(tmp, 0x3254, c): the upper half of tmp, not its lower half.
    if (profile === "sm90" && tail.dsel === "h1") {
      departs(bv, "D2");
      return bv.or(bv.and(t32, k(0xffff0000, 32)), keepC);
    }
    const low = bv.and(t32, k((1 << width) - 1, 32));
    return bv.or(bv.shl(low, k(lo, 32)), keepC);
  }
  if (tail.kind === "op2") {
    // The third operand is sign- or zero-extended per dtype; `.add` reads the low words only.
    if (tail.op2 === "add") return bv.add(t32, c);
    const cc = dsigned ? bv.sext(c, 64) : bv.zext(c, 64);
    const { lhs, signedCmp } = minMax();
    const less = signedCmp ? bv.slt(lhs, cc) : bv.ult(lhs, cc);
    const pick = tail.op2 === "min" ? bv.ite(less, lhs, cc) : bv.ite(less, cc, lhs);
    return bv.extract(pick, 31, 0);
  }
  return t32;
}

/**
 * `vop.dtype.atype.u32{.sat}.mode{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}` (vshl, vshr).
 * @param a, b, c u32 register values (c is read only when the tail uses it)
 * @returns d (u32); the video shifts are defined for every input.
 */
export function vsh<V, B>(bv: BV<V, B>, f: VshForm, profile: Profile, a: V, b: V, c: V): Defined<V, B> {
  const { exact, tmp } = vshIntermediate(bv, f, profile, a, b);
  const t32 = bv.extract(tmp, 31, 0);
  // isa: the signed .s34 tmp; sm90: sext(t32) with .sat (D3), else exact (A1), compared
  // signed for dtype .s32 and unsigned for .u32 (minMaxOperand, minMaxSigned).
  const r = scalarTail(bv, f.tail, profile, f.dtype === "s32", t32, () => {
    if (profile === "sm90") departs(bv, f.sat ? "D3" : "A1");
    return { lhs: minMaxLhs(bv, f, profile, { tmp, t32, exact }), signedCmp: minMaxSigned(f, profile) };
  }, c);
  return { value: note(bv, "d", r), defined: bv.true };
}

/**
 * optSaturate of vadd…vmax: the exact intermediate (64 bits, signed) clamped as the profile does.
 *   isa (R5):      to dtype's range over the dsel subword (8/16 bits) or 32 bits
 *   sm90 S1:       with a dsel, *unsigned* min(tmp as u64, MAX), MAX = 0x7f/0x7fff (dtype .s32)
 *                  or 0xff/0xffff (.u32): a negative tmp gives MAX (IMAD.X high word ≠ 0 →
 *                  0xffffffff, then ISETP.GT.U32 + SEL against MAX)
 *   sm90 S2:       dtype .u32 without dsel: negative → 0 and no upper clamp (the high-word
 *                  test is missing: `vadd.u32.u32.u32.sat 0xffffffff, 1` = 0)
 *   sm90, dtype .s32 without dsel: the ISA's clamp.
 */
export function vopSaturate<V, B>(bv: BV<V, B>, f: VopForm, profile: Profile, exact: V): V {
  const dsigned = f.dtype === "s32";
  const dsel = f.tail.kind === "merge" ? f.tail.dsel : null;
  if (profile === "sm90" && dsel !== null) {
    const width = selField(dsel).width;
    const max = bv.k((1n << BigInt(dsigned ? width - 1 : width)) - 1n, 64);
    departs(bv, "S1");
    return bv.ite(bv.ult(exact, max), exact, max);
  }
  if (profile === "sm90" && !dsigned) {
    departs(bv, "S2");
    return bv.ite(bv.slt(exact, bv.k(0, 64)), bv.k(0, 64), exact);
  }
  const { min, max } = satRange(dsigned, dsel !== null ? selField(dsel).width : 32);
  return clampSigned(bv, exact, min, max);
}

/**
 * Whether optSecOp extends c signed for `.min/.max` ("the sign of the third operand is based on
 * dtype"): dtype .s32 for vadd…vmax. vset: never in `isa` — "the intermediate result of the
 * comparison is always unsigned, and therefore destination d and operand c are also
 * unsigned" (R7); sm90 V1: when **atype** is .s32 (btype plays no part), decoded from ptxas's
 * SASS (video-semantics.md §4.3: `vset.s32.s32.lt.max 1, 2, c=0xffffffff` is 1, ISA 0xffffffff).
 */
export function vopCSigned(f: VopForm, profile: Profile): boolean {
  if (f.op === "vset") return profile === "sm90" && f.atype === "s32";
  return f.dtype === "s32";
}

/**
 * The value vadd…vmax and vset `.min/.max` compare with c, and how:
 *   isa (R4):  the exact (saturated) intermediate, signed (vset's 0/1 against zero-extended c
 *              is then the unsigned compare R7 reads)
 *   sm90 S3:   vadd/vsub compute in 32 bits and sign-extend (SHF.R.S32.HI): sext(t32)
 *   sm90 A1:   vabsdiff/vmin/vmax: the exact 64-bit (saturated) value
 *   sm90:      signed compare where c is sign-extended (vopCSigned: dtype .s32; vset V1:
 *              atype .s32), unsigned (u64, c zero-extended) otherwise
 */
export function vopMinMax<V, B>(bv: BV<V, B>, f: VopForm, profile: Profile, tmp: V, t32: V): { lhs: V; signedCmp: boolean } {
  if (profile === "isa") return { lhs: tmp, signedCmp: true };
  const s3 = f.op === "vadd" || f.op === "vsub";
  const signedCmp = vopCSigned(f, profile);
  if (s3) departs(bv, "S3");
  else if (f.op === "vset") {
    if (signedCmp) departs(bv, "V1");
  } else if (!signedCmp) departs(bv, "A1");
  return { lhs: s3 ? bv.sext(t32, 64) : tmp, signedCmp };
}

/**
 * `vop.dtype.atype.btype{.sat}{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}` for vop ∈ vadd vsub
 * vabsdiff vmin vmax (PTX ISA 9.0 §9.7.18.1.1), and `vset.atype.btype.cmp{.op2} d{.dsel}, …`
 * (§9.7.18.1.4):
 *   ta = partSelectSignExtend(a, atype, asel); tb = partSelectSignExtend(b, btype, bsel);
 *   tmp = ta + tb | ta − tb | |ta − tb| | MIN(ta, tb) | MAX(ta, tb) | compare(ta, tb, cmp) ? 1 : 0;
 *   tmp = optSaturate(tmp, sat, isSigned(dtype), dsel);          (not vset: no .sat)
 *   d = dsel ? optMerge(dsel, tmp, c) : optSecOp(op2, tmp, c)   (R2)
 * With 33-bit inputs every result is exact in 35 bits (|ta ± tb| ≤ 2^33), so the `.s34`
 * intermediate never wraps here (video-semantics.md §1.2); it is kept to 64 bits. vset
 * compares the exact .s33 values (sm_90 agrees across mixed signedness, §4.3).
 * @param a, b, c u32 register values (c is read only when the tail uses it)
 * @returns d (u32); defined for every input.
 */
export function vop<V, B>(bv: BV<V, B>, f: VopForm, profile: Profile, a: V, b: V, c: V): Defined<V, B> {
  const ta = note(bv, "ta", bv.sext(partSelectSignExtend(bv, a, f.atype === "s32", f.asel, 33), 64));
  const tb = note(bv, "tb", bv.sext(partSelectSignExtend(bv, b, f.btype === "s32", f.bsel, 33), 64));
  const exact = note(bv, "tmp", vopOperation(bv, f, ta, tb));
  const tmp = f.sat ? note(bv, "tmp_sat", vopSaturate(bv, f, profile, exact)) : exact;
  const t32 = bv.extract(tmp, 31, 0);
  const r = scalarTail(bv, f.tail, profile, vopCSigned(f, profile), t32, () => vopMinMax(bv, f, profile, tmp, t32), c);
  return { value: note(bv, "d", r), defined: bv.true };
}

/** compare(ta, tb, cmp) of vset on the exact values (64-bit sign-extended .s33 inputs). */
export function vsetCompare<V, B>(bv: BV<V, B>, cmp: VsetCmp, ta: V, tb: V): B {
  switch (cmp) {
    case "eq":
      return bv.eq(ta, tb);
    case "ne":
      return bv.notB(bv.eq(ta, tb));
    case "lt":
      return bv.slt(ta, tb);
    case "le":
      return bv.sle(ta, tb);
    case "gt":
      return bv.slt(tb, ta);
    case "ge":
      return bv.sle(tb, ta);
  }
}

/** The operation of vadd…vmax and vset on 64-bit sign-extended .s33 inputs: exact. */
export function vopOperation<V, B>(bv: BV<V, B>, f: Pick<VopForm, "op" | "cmp">, ta: V, tb: V): V {
  switch (f.op) {
    case "vadd":
      return bv.add(ta, tb);
    case "vsub":
      return bv.sub(ta, tb);
    case "vabsdiff":
      return bv.ite(bv.slt(ta, tb), bv.sub(tb, ta), bv.sub(ta, tb));
    case "vmin":
      return bv.ite(bv.slt(ta, tb), ta, tb);
    case "vmax":
      return bv.ite(bv.slt(ta, tb), tb, ta);
    case "vset":
      return bv.ite(vsetCompare(bv, f.cmp!, ta, tb), bv.k(1, 64), bv.k(0, 64));
  }
}
