/**
 * @fileoverview `vadd vsub vabsdiff vmin vmax vset` → AMDGPU, built from the scalar video stages
 * the shifts share (video_stages.ts) and following the ISA's pipeline (src/sem/vsh.ts `vop`):
 *
 *   extract a (atype, asel) and b (btype, bsel) → operation → saturate → tail
 *   (nothing, `.add`, `.min`/`.max` against c, or a merge into c at `dsel`).
 *
 * ta and tb are .s33 values held as `Word`s: a 32-bit operand and whether bit 32 is a sign
 * copy or zero. What each stage needs of the exact intermediate T (|T| ≤ 2^33, so T is an
 * .s34 value and never wraps):
 *   - only its low word (no .sat, no .min/.max): 32-bit arithmetic; vmin/vmax/vabsdiff need
 *     the 33-bit compare of ta and tb, which `minMax32` does on words of any extension;
 *   - vmin/vmax: T is ta or tb, so it is a word itself, saturated by word clamps;
 *   - vadd/vsub/vabsdiff with .sat or .min/.max: T as a 64-bit VGPR pair
 *       vadd:      v_add_co_u32 lo, vcc, ta, tb ; v_addc_co_u32 hi, vcc, ext(ta), ext(tb), vcc
 *       vsub:      v_sub_u32 lo, ta, tb ; v_cmp_ge_u32 vcc, ta, tb   ; vcc = no borrow
 *                  v_addc_co_u32 hi, vcc, ext(ta), ~ext(tb), vcc     ; = ext(ta) − ext(tb) − borrow
 *       vabsdiff:  vsub of max(ta, tb) and min(ta, tb)
 *     (gfx10+: `v_add_co_ci_u32` for the carry-in add), then the shifts' `satFromPair`, or a
 *     64-bit compare with c.
 *
 * The profiles differ in five places (../shared/notes/video-semantics.md §4.3), each handled
 * where marked: D2 (`.h1` merge, in `merge`), S1 (.sat with dsel: unsigned min with MAX),
 * S2 (.sat, dtype .u32, no dsel: negative → 0, no upper clamp), S3 (vadd/vsub .min/.max
 * compare the sign-extended low word), A1 (.min/.max with dtype .u32 compare unsigned).
 *
 * d lives in v0, which is `a` when a is divergent: every stage writes a fresh scratch VGPR
 * and only the last instruction is retargeted to d (`finish`).
 */
import type { Profile, Sel, VopForm } from "../../../src/ir/forms.js";
import { concrete, u } from "../../../src/sem/bv.js";
import {
  partSelectSignExtend,
  satRange,
  selField,
  vop,
  vopCSigned,
  vopMinMax,
  vopOperation,
  vopSaturate,
} from "../../../src/sem/vsh.js";
import type { MOp } from "../minst.js";
import type { Builder } from "../routine.js";
import type { AmdRule, RuleCtx } from "./rule.js";
import type { Cond, Ext, Word } from "./video_stages.js";
import {
  cWord,
  cmp,
  constWord,
  finish,
  hi,
  isImm,
  k32,
  lo,
  M32,
  merge,
  minMax32,
  op,
  satFromPair,
  satWord,
  select,
  sLike,
  uLike,
  widenC,
} from "./video_stages.js";

// ---------------------------------------------------------------------------------------
// Stage 1: ta = partSelectSignExtend(a, atype, asel), tb likewise

/** An operand as a word: itself (no selector), or `v_bfe_{i,u}32 t, x, 8k|16k, 8|16`. */
function extract(
  m: Builder,
  name: "a" | "b",
  signed: boolean,
  sel: Sel | null,
): Word {
  const x = m.src(name);
  if (isImm(x))
    return constWord(
      BigInt.asIntN(
        33,
        partSelectSignExtend(concrete, u(x.value), signed, sel, 33).x,
      ),
    );
  if (!sel) return { x, ext: signed ? "s" : "u" };
  const { lo: off, width } = selField(sel);
  return {
    x: op(m, signed ? "v_bfe_i32" : "v_bfe_u32", [x, k32(off), k32(width)]),
    ext: signed ? "s" : "both",
  };
}

const operands = (f: VopForm, m: Builder): [Word, Word] => [
  extract(m, "a", f.atype === "s32", f.asel),
  extract(m, "b", f.btype === "s32", f.bsel),
];

// ---------------------------------------------------------------------------------------
// Stage 2: the operation

/** The extension of min(x, y) and max(x, y) of two words compared as .s33 values. */
const minExt = (x: Ext, y: Ext): Ext =>
  x === "s" || y === "s" ? "s" : x === "both" || y === "both" ? "both" : "u";
const maxExt = (x: Ext, y: Ext): Ext =>
  x === "u" || y === "u" ? "u" : x === "s" && y === "s" ? "s" : "both";

/** min or max of ta and tb (the exact 33-bit compare), a word. */
function minMaxWord(m: Builder, isMin: boolean, x: Word, y: Word): Word {
  return {
    x: minMax32(m, isMin, x, y, true),
    ext: (isMin ? minExt : maxExt)(x.ext, y.ext),
  };
}

/** The low word of T = ta op tb (vadd…vmax; vset has its own rule). */
function lowWord(m: Builder, f: VopForm, x: Word, y: Word): MOp {
  switch (f.op) {
    case "vset":
      throw new Error("lowWord: vset is lowered by vset_cmp");
    case "vadd":
      return op(m, m.vAdd, [x.x, y.x]);
    case "vsub":
      return op(m, m.vSub, [x.x, y.x]);
    case "vmin":
    case "vmax":
      return minMaxWord(m, f.op === "vmin", x, y).x;
    case "vabsdiff":
      return op(m, m.vSub, [
        minMaxWord(m, false, x, y).x,
        minMaxWord(m, true, x, y).x,
      ]);
  }
}

/** Bits 63..32 of a word's value: its sign fill, or 0; `inverted`: the complement. */
function fill(m: Builder, w: Word, inverted: boolean): MOp {
  if (isImm(w.x))
    return k32(
      BigInt.asIntN(32, w.x.value) < 0n && w.ext === "s"
        ? inverted
          ? 0n
          : -1n
        : inverted
          ? -1n
          : 0n,
    );
  if (w.ext !== "s") return k32(inverted ? -1n : 0n);
  return op(m, "v_ashrrev_i32", [
    k32(31),
    inverted ? op(m, "v_not_b32", [w.x]) : w.x,
  ]);
}

/** The carry-in add of this generation: `v_addc_co_u32` (gfx9), `v_add_co_ci_u32` (gfx10+). */
const addc = (m: Builder) =>
  m.t.gen === 9 ? "v_addc_co_u32" : "v_add_co_ci_u32";

/**
 * T = x + y or x − y exactly, as a fresh VGPR pair {lo, hi} (hi = bits 63..32: the full
 * 64-bit two's complement value of the .s34 T).
 */
function pairOf(m: Builder, x: Word, y: Word, sub: boolean): MOp {
  const p = m.vtmp(2);
  const vcc = m.vcc();
  if (sub) {
    op(m, m.vSub, [x.x, y.x], lo(p));
    const noBorrow = cmp(m, "v_cmp_ge_u32", x.x, y.x);
    const [hx, hy] = [fill(m, x, false), fill(m, y, true)];
    m.emit(
      addc(m),
      hi(p),
      vcc,
      hx,
      hy,
      typeof noBorrow === "boolean" ? k32(noBorrow ? -1 : 0) : noBorrow,
    );
    return p;
  }
  m.emit("v_add_co_u32", lo(p), vcc, x.x, y.x);
  m.emit(addc(m), hi(p), vcc, fill(m, x, false), fill(m, y, false), vcc);
  return p;
}

/** T exactly: a word (vmin/vmax) or a 64-bit pair (vadd/vsub/vabsdiff). */
type Exact = { w: Word } | { p: MOp };

function exactOf(m: Builder, f: VopForm, x: Word, y: Word): Exact {
  if (f.op === "vmin" || f.op === "vmax")
    return { w: minMaxWord(m, f.op === "vmin", x, y) };
  if (f.op === "vabsdiff") {
    const mx = minMaxWord(m, false, x, y);
    const mn = minMaxWord(m, true, x, y);
    return { p: pairOf(m, mx, mn, true) };
  }
  return { p: pairOf(m, x, y, f.op === "vsub") };
}

/**
 * vset's compare(ta, tb, cmp) of two words as .s33 values, a lane mask:
 *   both sign-extended (or either way) → one v_cmp_*_i32; both zero-extended → v_cmp_*_u32;
 *   a sign-extended x and a zero-extended y → each mapped to an unsigned key that keeps their
 *   order and equality, then v_cmp_*_u32:
 *     signed s:   max(s, −1) + 1 ∈ [0, 2^31]       (every negative s is below every u ≥ 0)
 *     unsigned u: min(u, 2^31) + 1 ∈ [1, 2^31 + 1]  (every u ≥ 2^31 is above every s < 2^31)
 */
function compare33(m: Builder, rel: NonNullable<VopForm["cmp"]>, x: Word, y: Word): Cond {
  const mn = (signed: boolean) => `v_cmp_${rel}_${signed ? "i" : "u"}32` as const;
  if (sLike(x.ext) && sLike(y.ext)) return cmp(m, mn(!(uLike(x.ext) && uLike(y.ext))), x.x, y.x);
  if (uLike(x.ext) && uLike(y.ext)) return cmp(m, mn(false), x.x, y.x);
  const key = (w: Word) =>
    op(m, m.vAdd, [k32(1), w.ext === "s" ? op(m, "v_max_i32", [k32(-1), w.x]) : op(m, "v_min_u32", [k32(0x80000000), w.x])]);
  return cmp(m, mn(false), key(x), key(y));
}

// ---------------------------------------------------------------------------------------
// Stage 3: optSaturate (src/sem/vsh.ts vopSaturate)

const dselOf = (f: VopForm): Sel | null =>
  f.tail.kind === "merge" ? f.tail.dsel : null;

/**
 * The saturated T. isa: dtype's range over the dsel subword or 32 bits (a word clamp, or the
 * shifts' `satFromPair`); sm90 S1 (dsel): min(T as u64, MAX) — a word's negative value is a
 * huge u32 too; sm90 S2 (dtype .u32, no dsel): max(T, 0) without an upper clamp (a pair keeps
 * its high word, which only vabsdiff's .min/.max read, and its T is never negative).
 */
function saturate(m: Builder, f: VopForm, profile: Profile, t: Exact): Exact {
  const dsigned = f.dtype === "s32";
  const dsel = dselOf(f);
  if (profile === "sm90" && dsel !== null) {
    const width = selField(dsel).width;
    const max = (1n << BigInt(dsigned ? width - 1 : width)) - 1n;
    if ("w" in t)
      return { w: { x: op(m, "v_min_u32", [k32(max), t.w.x]), ext: "both" } }; // S1
    const fits = cmp(m, "v_cmp_eq_u32", k32(0), hi(t.p));
    return {
      w: {
        x: select(m, fits, op(m, "v_min_u32", [k32(max), lo(t.p)]), k32(max)),
        ext: "both",
      },
    }; // S1
  }
  if (profile === "sm90" && !dsigned) {
    // S2: negative → 0, no upper clamp.
    if ("w" in t)
      return t.w.ext === "s"
        ? { w: { x: op(m, "v_max_i32", [k32(0), t.w.x]), ext: "both" } }
        : t;
    if (f.op === "vabsdiff") return t; // T ≥ 0
    const sign = op(m, "v_ashrrev_i32", [k32(31), hi(t.p)]);
    return { w: { x: op(m, "v_bfi_b32", [sign, k32(0), lo(t.p)]), ext: "s" } }; // low word only (S3 reads no more)
  }
  const bits = dsel !== null ? selField(dsel).width : 32;
  if ("w" in t) return { w: satWord(m, t.w, satRange(dsigned, bits)) };
  return { w: satFromPair(m, dsigned, bits, t.p) };
}

// ---------------------------------------------------------------------------------------
// Stage 4: optSecOp / optMerge (src/sem/vsh.ts scalarTail, vopMinMax)

const low = (t: Exact): MOp => ("w" in t ? t.w.x : lo(t.p));

function tail(m: Builder, f: VopForm, profile: Profile, t: Exact): MOp {
  const tl = f.tail;
  if (tl.kind === "none") return low(t);
  if (tl.kind === "merge") return merge(m, tl.dsel, profile, low(t));
  if (tl.op2 === "add") return op(m, m.vAdd, [m.src("c"), low(t)]);
  const isMin = tl.op2 === "min";
  // c's extension: dtype's (vset: unsigned; sm90 V1: atype's).
  const dsigned = vopCSigned(f, profile);
  // isa: the exact (saturated) T, signed; sm90: S3 for vadd/vsub (the low word, sign-extended),
  // else the exact value (A1), signed only where c is sign-extended.
  const signedCmp = profile === "isa" || dsigned;
  if (profile === "sm90" && (f.op === "vadd" || f.op === "vsub"))
    return minMax32(
      m,
      isMin,
      { x: low(t), ext: "s" },
      cWord(m, dsigned),
      signedCmp,
    );
  if ("w" in t) return minMax32(m, isMin, t.w, cWord(m, dsigned), signedCmp);
  const cc = widenC(m, dsigned);
  const less = cmp(m, signedCmp ? "v_cmp_lt_i64" : "v_cmp_lt_u64", t.p, cc);
  const c = m.src("c");
  return isMin ? select(m, less, lo(t.p), c) : select(m, less, c, lo(t.p));
}

// ---------------------------------------------------------------------------------------
// Constant a and b: T is folded by the reference's own stages

/** The tail on a constant T (after saturation) and a register c. */
function emitConst(f: VopForm, m: Builder, c: RuleCtx): void {
  const A = u(m.immOf("a")!);
  const B = u(m.immOf("b")!);
  const C = m.immOf("c");
  if (f.tail.kind === "none" || C !== undefined)
    return finish(
      m,
      k32(vop(concrete, f, c.profile, A, B, u(C ?? 0n)).value.x),
    );
  const ta = concrete.sext(
    partSelectSignExtend(concrete, A, f.atype === "s32", f.asel, 33),
    64,
  );
  const tb = concrete.sext(
    partSelectSignExtend(concrete, B, f.btype === "s32", f.bsel, 33),
    64,
  );
  const exact = vopOperation(concrete, f, ta, tb);
  const tmp = f.sat ? vopSaturate(concrete, f, c.profile, exact) : exact;
  const t32 = tmp.x & M32;
  const tl = f.tail;
  if (tl.kind === "merge")
    return finish(m, merge(m, tl.dsel, c.profile, k32(t32)));
  if (tl.op2 === "add") return finish(m, op(m, m.vAdd, [m.src("c"), k32(t32)]));
  const { lhs, signedCmp } = vopMinMax(
    concrete,
    f,
    c.profile,
    tmp,
    concrete.extract(tmp, 31, 0),
  );
  const L = signedCmp ? BigInt.asIntN(64, lhs.x) : BigInt.asUintN(64, lhs.x);
  const dsigned = vopCSigned(f, c.profile);
  const { min: cmin, max: cmax } = satRange(dsigned, 32);
  const isMin = tl.op2 === "min";
  const cop = m.src("c");
  // c extended per dtype (vopCSigned) lies in [cmin, cmax]; with an unsigned compare of a
  // sign-extended c the negative c are huge, which the signed range test would misplace: not
  // reachable, since signedCmp is false only where c is zero-extended (vopMinMax).
  if (L < cmin) return finish(m, isMin ? k32(L) : cop);
  if (L > cmax) return finish(m, isMin ? cop : k32(L));
  return finish(
    m,
    op(m, `v_${tl.op2}_${dsigned ? "i" : "u"}32`, [k32(L), cop]),
  );
}

// ---------------------------------------------------------------------------------------
// The rules

const isMinMax = (f: VopForm) => f.tail.kind === "op2" && f.tail.op2 !== "add";
/** Only the low word of T matters: no .sat and no .min/.max. */
const lowWordOnly = (f: VopForm) => !f.sat && !isMinMax(f);
const isVset = (f: VopForm) => f.op === "vset";
const immAB = (c: RuleCtx) =>
  c.spec.kinds.a?.kind === "imm" && c.spec.kinds.b?.kind === "imm";

export const vopRules: AmdRule<VopForm>[] = [
  {
    name: "vop_const_ab",
    prio: 10,
    why: "a and b immediate: T (and its saturation) is a constant computed by the reference's own stages (src/sem/vsh.ts), as ptxas folds it; only the tail on c remains: a v_mov, one add, a v_perm/and-or merge, or one v_min/v_max (or a copy where c's range decides the compare).",
    when: (_f, c) => immAB(c),
    emit: (f, m, c) => emitConst(f, m, c),
  },
  {
    name: "vset_cmp",
    prio: 7,
    why: "vset: T = compare(ta, tb) ? 1 : 0 is one v_cmp on the extracted words (compare33: i32 or u32 by their extensions; a signed/unsigned pair through order-keeping keys) and a v_cndmask of 1 and 0; the tail is the shared one on a word in [0, 1] (.add one add, .min/.max one v_min/v_max of c's extension, a merge one v_perm or and-or).",
    when: (f) => isVset(f),
    emit: (f, m, c) => {
      const [x, y] = operands(f, m);
      const t = select(m, compare33(m, f.cmp!, x, y), k32(1), k32(0));
      finish(m, tail(m, f, c.profile, { w: { x: t, ext: "both" } }));
    },
  },
  {
    name: "vop_low32",
    prio: 5,
    why: "No .sat and no .min/.max: d reads only T's low word (tail none, .add, or a merge of its low byte/half; sm90's .h1 its high half, D2), so 32-bit arithmetic on the extracted words is exact: v_add/v_sub, the 33-bit min/max of minMax32, and max − min for vabsdiff (no borrow crosses into the low word's meaning mod 2^32).",
    when: (f) => !isVset(f) && lowWordOnly(f),
    emit: (f, m, c) => {
      const [x, y] = operands(f, m);
      const t = lowWord(m, f, x, y);
      finish(m, tail(m, f, c.profile, { w: { x: t, ext: "s" } }));
    },
  },
  {
    name: "vop_add3",
    prio: 6,
    why: "vadd …add without .sat (CUB's three-input add, `vadd.u32.u32.u32.add`): (ta + tb + c) mod 2^32 reads only low words, which one v_add3_u32 adds.",
    when: (f) =>
      f.op === "vadd" &&
      !f.sat &&
      f.tail.kind === "op2" &&
      f.tail.op2 === "add",
    emit: (f, m) => {
      const [x, y] = operands(f, m);
      finish(m, op(m, "v_add3_u32", [x.x, y.x, m.src("c")]));
    },
  },
  {
    name: "vop_minmax3",
    prio: 6,
    why: "The BVH idiom `vmin.s32.s32.s32.min` / `vmax.….max` (and the all-.u32 forms): without .sat and selectors, T = min(a, b) of one signedness compared with c of that signedness (dtype's extension; sm90's S3/A1 do not apply to vmin/vmax, and its unsigned compare for dtype .u32 is this one) is a three-input min or max: one v_min3/v_max3.",
    when: (f) =>
      (f.op === "vmin" || f.op === "vmax") && !f.sat && f.asel === null && f.bsel === null && f.tail.kind === "op2" && f.tail.op2 === (f.op === "vmin" ? "min" : "max") && f.atype === f.dtype && f.btype === f.dtype,
    emit: (f, m) => finish(m, op(m, `v_${f.op === "vmin" ? "min" : "max"}3_${f.dtype === "s32" ? "i" : "u"}32`, [m.src("a"), m.src("b"), m.src("c")])),
  },
  {
    name: "vop_narrow",
    prio: 4,
    why: "Both a and b selected (a byte or a half each): |ta|, |tb| < 2^16, so T = ta op tb fits a signed 32-bit word and every stage works on words: one v_add/v_sub (vabsdiff: max − min), word clamps for .sat (sm90 S1/S2 on words), a word compare for .min/.max. The pair of vop_stages (carry add, 64-bit clamp) is not needed.",
    when: (f) => !isVset(f) && f.asel !== null && f.bsel !== null,
    emit: (f, m, c) => {
      const [x, y] = operands(f, m);
      let t: Exact = { w: f.op === "vmin" || f.op === "vmax" ? minMaxWord(m, f.op === "vmin", x, y) : { x: lowWord(m, f, x, y), ext: f.op === "vabsdiff" ? "both" : "s" } };
      if (f.sat) t = saturate(m, f, c.profile, t);
      finish(m, tail(m, f, c.profile, t));
    },
  },
  {
    name: "vop_stages",
    prio: 0,
    why: "Every form: the exact T as a word (vmin/vmax) or a 64-bit VGPR pair from carry adds (vadd/vsub/vabsdiff), saturated per profile (isa ranges; sm90 S1, S2), then the tail (.min/.max: a word compare, or v_cmp_lt_{i,u}64 against c widened per dtype; sm90 S3, A1). The fallback where the low word is not enough.",
    when: (f) => !isVset(f),
    emit: (f, m, c) => {
      const [x, y] = operands(f, m);
      let t = exactOf(m, f, x, y);
      if (f.sat) t = saturate(m, f, c.profile, t);
      finish(m, tail(m, f, c.profile, t));
    },
  },
];
