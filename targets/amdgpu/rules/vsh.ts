/**
 * @fileoverview `vshl` / `vshr` → AMDGPU, built from stages that follow the ISA's pipeline
 * (src/sem/vsh.ts, ../shared/notes/amdgpu.md §10.2):
 *
 *   extract a (asel) → shift amount (bsel, clamp/wrap) → shift → saturate → tail
 *   (nothing, `.add`, `.min`/`.max` against c, or a merge into c at `dsel`).
 *
 * Each stage is a small function that emits through the Builder and returns the operand
 * holding its result; every stage folds when its inputs are immediates (by running the
 * instruction's own record, so folding cannot disagree with the interpreter). Stages pass
 * values around as `Word`s: a 32-bit operand plus how it stands for the wider value the
 * ISA means (`ext`: sign-extended, zero-extended, or either, for 0 ≤ x < 2^31).
 *
 * Why a 32-bit path is enough almost everywhere:
 *   - vshr: ta is 33 bits and is only shifted right, so tmp = exact fits a 32-bit word with
 *     a known extension (signed for atype .s32, unsigned for .u32, either with asel). The
 *     .s34 wrap never bites; saturation and min/max are then 32-bit min/max/med3.
 *   - vshl without .sat and without .min/.max: only the low 32 bits of tmp are read.
 * The wide value is needed only by vshl with .sat (the .s34 wrap, then a clamp) or with
 * .min/.max (a 34-bit or 64-bit compare):
 *   - `vsh_stages_q`: when tb ≤ 31 is certain (.wrap, or an immediate b), bits 33..31 of
 *     the exact shift are bits (33-tb)..(31-tb) of ta: one `v_bfe_i32 q, ta, ~tb, 3` gives
 *     q = T >> 31 with the .s34 sign extension included; clamping is then a test of q.
 *   - `vsh_stages_64bit` / `vsh_stages_64bit_minmax`: {ta, ext(ta)} << tb with
 *     `v_lshlrev_b64` (6-bit count: 32 works), then the clamp from bits 33..31, or
 *     `v_cmp_*_i64/u64` against {c, ext(c)}.
 * Each rule below is one stage sequence; its `when` holds the whole case analysis (which
 * stages, from the form and src/sem/vsh.ts satBits/satRange/minMaxOperand/minMaxSigned).
 *
 * The two profiles differ in four places, each marked where it is handled:
 *   D1 (sm90 saturates a merge to the 32-bit range, isa to the subword range),
 *   D2 (sm90's d.h1 takes tmp[31:16]: a different v_perm selector),
 *   D3 (sm90 .sat.min/.max: sext(tmp32), compared unsigned for dtype .u32),
 *   A1 (sm90 non-sat .min/.max: the exact shift mod 2^64 as s64/u64; isa: the .s34 tmp).
 *
 * d lives in v0, which is `a` when a is divergent: every stage writes a fresh scratch VGPR
 * and only the last instruction is retargeted to d (`finish`). Not done: SDWA operand
 * selects (the interpreter has no SDWA semantics) and SALU variants (d must end in a VGPR,
 * so a scalar sequence pays a v_mov and rarely wins).
 */
import type { Profile, Sel, VshForm } from "../../../src/ir/forms.js";
import { concrete, u } from "../../../src/sem/bv.js";
import type { CV } from "../../../src/sem/bv.js";
import {
  minMaxLhs,
  minMaxOperand,
  minMaxSigned,
  partSelectSignExtend,
  satBits,
  satRange,
  selField,
  vsh,
  vshIntermediate,
} from "../../../src/sem/vsh.js";
import type { Mnemonic } from "../isa/index.js";
import { record } from "../isa/index.js";
import type { MOp } from "../minst.js";
import { imm, isLabel, s, v } from "../minst.js";
import { isInlineConstant } from "../regs.js";
import type { Builder } from "../routine.js";
import type { AmdRule, RuleCtx } from "./rule.js";
import type { Imm, Word } from "./video_stages.js";
import { andOr, cWord, cmp, constWord, dIsV0, finish, hi, isImm, k32, lo, M32, merge, minMax32, mov, nextVgpr, op, satFromPair, satFromQ, satWord, select, shift32, valueOf, widenC } from "./video_stages.js";

// ---------------------------------------------------------------------------------------
// Stage 1: ta = partSelectSignExtend(a, atype, asel)

/**
 * ta as a word: a itself (no selector), or `v_bfe_{i,u}32 ta, a, 8k|16k, 8|16`. With
 * `lowBits`, only ta's low bits are read later, so a selector at bit 0 at least that wide
 * needs no extraction (the returned ext is then meaningless).
 */
function extractA(m: Builder, f: VshForm, opts: { dst?: MOp; lowBits?: number } = {}): Word {
  const a = m.src("a");
  const signed = f.atype === "s32";
  if (isImm(a)) {
    const ta = partSelectSignExtend(concrete, u(a.value), signed, f.asel, 33);
    const w = constWord(BigInt.asIntN(33, ta.x));
    return opts.dst ? { x: mov(m, opts.dst, w.x), ext: w.ext } : w;
  }
  if (!f.asel) {
    const ext = signed ? "s" : "u";
    return { x: opts.dst ? mov(m, opts.dst, a) : a, ext };
  }
  const { lo: off, width } = selField(f.asel);
  if (!opts.dst && off === 0 && opts.lowBits !== undefined && opts.lowBits <= width) return { x: a, ext: "u" };
  return { x: op(m, signed ? "v_bfe_i32" : "v_bfe_u32", [a, k32(off), k32(width)], opts.dst), ext: signed ? "s" : "both" };
}

// ---------------------------------------------------------------------------------------
// Stage 2: tb = partSelectSignExtend(b, .u32, bsel), then clamp (min(tb, 32)) or wrap (& 31)

/** The selected field of b, zero-extended (tb before clamp/wrap). */
function fieldB(m: Builder, f: VshForm): MOp {
  const b = m.src("b");
  if (!f.bsel) return b;
  const { lo: off, width } = selField(f.bsel);
  return op(m, "v_bfe_u32", [b, k32(off), k32(width)]);
}

/** For `.wrap` into a 32-bit shift (which reads S0[4:0] only): an operand whose bits [4:0] are tb & 31. */
function count5(m: Builder, f: VshForm): MOp {
  const b = m.src("b");
  const off = f.bsel ? selField(f.bsel).lo : 0;
  if (isImm(b)) return k32((b.value >> BigInt(off)) & 31n);
  return off === 0 ? b : op(m, "v_lshrrev_b32", [k32(off), b]);
}

/** tb itself: `.wrap` → tb & 31 (`v_bfe_u32 n, b, off, 5`); `.clamp` → min(tb, max). */
function tbExact(m: Builder, f: VshForm, max: 31 | 32): MOp {
  if (f.mode === "wrap") return op(m, "v_bfe_u32", [m.src("b"), k32(f.bsel ? selField(f.bsel).lo : 0), k32(5)]);
  return op(m, "v_min_u32", [k32(max), fieldB(m, f)]);
}

/** The immediate tb of a form whose b is an immediate, after clamp/wrap. */
function immTb(m: Builder, f: VshForm): bigint | undefined {
  const b = m.immOf("b");
  if (b === undefined) return undefined;
  const field = partSelectSignExtend(concrete, u(b), false, f.bsel, 33).x;
  return f.mode === "wrap" ? field & 31n : field > 32n ? 32n : field;
}

// ---------------------------------------------------------------------------------------
// Stage 3: the shift

/**
 * vshr: tmp = ta >> tb fits 32 bits, with ta's extension.
 *   signed (or selected) ta, .wrap:  v_ashrrev_i32 t, b, ta            ; the count's [4:0]
 *   signed ta, .clamp:               v_min_u32 n, 31, tb ; v_ashrrev_i32 t, n, ta
 *                                    ; ≥ 31 already gives the sign fill, = tb ≥ 32's result
 *   unsigned ta, .wrap:              v_lshrrev_b32 t, b, ta
 *   unsigned ta, .clamp:             v_lshrrev_b32 t, tb, ta ; v_cmp_gt_u32 vcc, 32, tb
 *                                    v_cndmask_b32 t, 0, t, vcc        ; tb ≥ 32 gives 0
 */
function shiftRight(m: Builder, f: VshForm, ta: Word): Word {
  if (ta.ext !== "u") {
    const n = f.mode === "wrap" ? count5(m, f) : tbExact(m, f, 31);
    return { x: shift32(m, "v_ashrrev_i32", n, ta.x), ext: ta.ext };
  }
  if (f.mode === "wrap") return { x: shift32(m, "v_lshrrev_b32", count5(m, f), ta.x), ext: "u" };
  const tb = immTb(m, f);
  if (tb !== undefined) return { x: tb >= 32n ? k32(0) : shift32(m, "v_lshrrev_b32", k32(tb), ta.x), ext: "u" };
  const field = fieldB(m, f);
  const t = shift32(m, "v_lshrrev_b32", field, ta.x);
  return { x: select(m, cmp(m, "v_cmp_gt_u32", k32(32), field), t, k32(0)), ext: "u" };
}

/**
 * vshl, low 32 bits of tmp only (no .sat, no .min/.max): (ta << tb) mod 2^32.
 *   .wrap:   v_lshlrev_b32 t, b, ta
 *   .clamp:  v_lshlrev_b32 t, tb, ta ; v_cmp_gt_u32 vcc, 32, tb ; v_cndmask_b32 t, 0, t, vcc
 *   .clamp, only the low `needBits` < 32 bits read (a merge): v_min_u32 n, 31, tb
 *            v_lshlrev_b32 t, n, ta    ; tb ≥ 32 and tb = 31 both clear those low bits
 */
function shiftLeftLo(m: Builder, f: VshForm, ta: Word, needBits: number): MOp {
  if (f.mode === "wrap") return shift32(m, "v_lshlrev_b32", count5(m, f), ta.x);
  const tb = immTb(m, f);
  if (tb !== undefined) return tb >= 32n ? k32(0) : shift32(m, "v_lshlrev_b32", k32(tb), ta.x);
  if (needBits < 32) return shift32(m, "v_lshlrev_b32", tbExact(m, f, 31), ta.x);
  const field = fieldB(m, f);
  const t = shift32(m, "v_lshlrev_b32", field, ta.x);
  return select(m, cmp(m, "v_cmp_gt_u32", k32(32), field), t, k32(0));
}

/**
 * vshl .clamp, low 32 bits, by a 64-bit shift: its 6-bit count makes tb = 32 give 0 in
 * the low word, whatever the high word of the source holds (read, never used).
 *   v_min_u32      n, 32, tb
 *   v_lshlrev_b64  p, n, {ta, ?}        ; p = v[0:1] when v1 is free scratch and d = v0
 */
function shiftLeftLoB64(m: Builder, f: VshForm, needBits: number): MOp {
  const a = m.src("a");
  const extracts = f.asel !== null && !(selField(f.asel).lo === 0 && needBits <= selField(f.asel).width);
  const taImm = isImm(a) ? BigInt.asIntN(32, valueOf(extractA(m, f).x as Imm)) : undefined;
  let src: MOp;
  if (!extracts && a.k === "v" && (a.n % 2 === 0 || !m.t.alignedVgprPairs)) src = v(a.n, 2);
  else if (!extracts && a.k === "s" && a.n % 2 === 0) src = s(a.n, 2);
  else if (taImm !== undefined && isInlineConstant(taImm)) src = imm(taImm);
  else {
    src = m.vtmp(2);
    extractA(m, f, { dst: lo(src), lowBits: needBits });
  }
  const n = tbExact(m, f, 32);
  let dst: MOp;
  if (src.k === "v" && src.n >= m.layout.vScratch) dst = src;
  else if (f.tail.kind === "none" && dIsV0(m) && nextVgpr(m) === 1) {
    m.vtmp(); // v1: the high half of the result
    dst = v(0, 2);
  } else dst = m.vtmp(2);
  m.emit("v_lshlrev_b64", dst, n, src);
  return lo(dst);
}

/**
 * vshl with tb ≤ 31 known (.wrap, or an immediate b): q = T >> 31, where T is the .s34
 * tmp, and the low word lo = T[31:0]. Bits 33..31 of ta << tb are bits (33-tb)..(31-tb)
 * of ta, and ~tb ≡ 31 - tb in the 5-bit offset field of v_bfe:
 *   v_not_b32      nb, b                 ; [4:0] = 31 - tb
 *   v_bfe_i32      q, ta, nb, 3          ; sign-extends from bit 33: the .s34 wrap
 *   v_lshlrev_b32  lo, b, ta
 * An unsigned ta (no selector) has zeros above bit 31, which v_bfe_i32's arithmetic shift
 * would not give: `v_bfe_u32` then `v_bfe_i32 q, q, 0, 3`. An immediate tb = 32 (.clamp):
 * lo = 0 and bits 33..31 = {ta[1:0], 0}: q = v_bfe_i32(ta << 1, 0, 3).
 */
function shiftLeftQ(m: Builder, f: VshForm, ta: Word): { q: MOp; lo: MOp } {
  const tb = immTb(m, f);
  if (tb === 32n) return { q: op(m, "v_bfe_i32", [shift32(m, "v_lshlrev_b32", k32(1), ta.x), k32(0), k32(3)]), lo: k32(0) };
  const n = tb !== undefined ? k32(tb) : count5(m, f);
  const nb = isImm(n) ? k32(31n - (valueOf(n) & 31n)) : op(m, "v_not_b32", [n]);
  // Offset + 3 ≤ 32 (tb ≥ 2) never reaches the fill bits: one v_bfe_i32 serves any ta.
  const fillFree = tb !== undefined && tb >= 2n;
  const q =
    ta.ext === "u" && !fillFree
      ? op(m, "v_bfe_i32", [op(m, "v_bfe_u32", [ta.x, nb, k32(3)]), k32(0), k32(3)])
      : op(m, "v_bfe_i32", [ta.x, nb, k32(3)]);
  return { q, lo: shift32(m, "v_lshlrev_b32", n, ta.x) };
}

/**
 * vshl, the exact shift modulo 2^64 in a VGPR pair:
 *   v_mov_b32      p.lo, ta             ; or the v_bfe of the selector, written there
 *   v_ashrrev_i32  p.hi, 31, ta         ; signed ta; v_mov_b32 p.hi, 0 for unsigned
 *   v_lshlrev_b64  p, n, p              ; n = min(tb, 32) or tb & 31: ≤ 32 < 64, exact
 * When a is v0, has no selector, and v1 is free scratch, p = v[0:1] (no copy; a is not
 * read again, and d = v0 is written last).
 */
function shiftLeftPair(m: Builder, f: VshForm): MOp {
  const a = m.src("a");
  let p: MOp;
  let src: MOp;
  if (isImm(a)) {
    const ta = BigInt.asIntN(33, partSelectSignExtend(concrete, u(a.value), f.atype === "s32", f.asel, 33).x);
    p = m.vtmp(2);
    if (ta >= -16n && ta <= 64n) src = imm(ta);
    else {
      mov(m, lo(p), k32(ta));
      mov(m, hi(p), k32(ta >> 32n));
      src = p;
    }
  } else {
    if (!f.asel && a.k === "v" && a.n === 0 && dIsV0(m) && nextVgpr(m) === 1) {
      m.vtmp(); // v1
      p = v(0, 2);
    } else p = m.vtmp(2);
    const ta = extractA(m, f, { dst: lo(p) });
    // The sign fill reads a itself where it can (no dependency on the copy).
    if (ta.ext === "s") op(m, "v_ashrrev_i32", [k32(31), f.asel ? lo(p) : a], hi(p));
    else mov(m, hi(p), k32(0));
    src = p;
  }
  const n = tbExact(m, f, 32);
  if (isImm(n) && valueOf(n) === 0n && !isImm(src)) return p;
  m.emit("v_lshlrev_b64", p, n, src);
  return p;
}

// ---------------------------------------------------------------------------------------
// Stage 4: optSaturate

/**
 * vshl .min/.max without .sat, on the exact pair p and cc = {c, ext(c)}:
 *   isa (A1): v_bfe_i32 p.hi, p.hi, 0, 2   ; T = sext34(exact); then a signed compare
 *   sm90 (A1): exact mod 2^64 as s64 (dtype .s32) or u64 (.u32)
 *   v_cmp_lt_{i,u}64  vcc, p, cc
 *   v_cndmask_b32     d, c, p.lo, vcc      ; .min (.max: d, p.lo, c)
 */
function minMax64(m: Builder, f: VshForm, profile: Profile, p: MOp, cc: MOp, isMin: boolean): MOp {
  if (minMaxOperand(f, profile) === "tmp") op(m, "v_bfe_i32", [hi(p), k32(0), k32(2)], hi(p));
  const less = cmp(m, minMaxSigned(f, profile) ? "v_cmp_lt_i64" : "v_cmp_lt_u64", p, cc);
  const c = m.src("c");
  return isMin ? select(m, less, lo(p), c) : select(m, less, c, lo(p));
}

/** The tail on tmp (after saturation) as a word. */
function tailStage(m: Builder, f: VshForm, profile: Profile, r: Word): MOp {
  const t = f.tail;
  if (t.kind === "none") return r.x;
  if (t.kind === "merge") return merge(m, t.dsel, profile, r.x);
  // .add: (tmp + c) mod 2^32 needs only the low words.
  if (t.op2 === "add") return op(m, m.vAdd, [m.src("c"), r.x]);
  // D3: sm90 compares the saturated word sign-extended, unsigned for dtype .u32.
  // (A word in [0, 2^31) is its own sign extension.)
  const lhs: Word = minMaxOperand(f, profile) === "t32s" ? { x: r.x, ext: r.ext === "both" ? "both" : isImm(r.x) ? constWord(BigInt.asIntN(32, r.x.value)).ext : "s" } : r;
  return minMax32(m, t.op2 === "min", lhs, cWord(m, f.dtype === "s32"), minMaxSigned(f, profile));
}

// ---------------------------------------------------------------------------------------
// The rules

const isMinMax = (f: VshForm) => f.tail.kind === "op2" && f.tail.op2 !== "add";
/** Only the low 32 bits of tmp matter: vshl without .sat and without .min/.max. */
const lowWordOnly = (f: VshForm) => !f.sat && !isMinMax(f);
/** The tail's read of tmp: merges read its low byte/half only (D2: sm90's .h1 reads tmp[31:16]). */
const tailBits = (f: VshForm, profile: Profile): number => {
  const t = f.tail;
  return t.kind === "merge" && !(profile === "sm90" && t.dsel === "h1") ? selField(t.dsel).width : 32;
};
const signedD = (f: VshForm): boolean => f.dtype === "s32";

// a and b immediate: tmp is a constant, computed by the reference semantics (as ptxas
// would fold it); only the tail on c remains.
//   none or c immediate:  v_mov_b32 d, K
//   .add:                 v_add_u32 d, K, c
//   merge:                v_and_or_b32 d, c, KEEP, FIELD   (or v_and + v_or)
//   .min/.max:            the compared value L against c's range: c, K, or v_{min,max}_*32 d, K, c

/** d of the form for the immediate a and b and c = `C`, by the reference semantics. */
function constAt(f: VshForm, m: Builder, c: RuleCtx, C: bigint): bigint {
  return vsh(concrete, f, c.profile, u(m.immOf("a")!), u(m.immOf("b")!), u(C & M32)).value.x;
}

/** `.min/.max` with a and b immediate and a register c: L (the profile's compared value) against c's range. */
function emitConstMinMax(f: VshForm, m: Builder, c: RuleCtx): void {
  const A = u(m.immOf("a")!);
  const B = u(m.immOf("b")!);
  const cop = m.src("c");
  const t = f.tail;
  if (t.kind !== "op2" || t.op2 === "add") throw new Error("vsh_const_ab_minmax: not .min/.max");
  // The value min/max compares (src/sem/vsh.ts minMaxOperand): isa the .s34 tmp; sm90 D3 / A1.
  const { exact, tmp } = vshIntermediate(concrete, f, c.profile, A, B);
  const lhs = minMaxLhs(concrete, f, c.profile, { tmp, t32: concrete.extract(tmp, 31, 0), exact });
  const L = minMaxSigned(f, c.profile) ? BigInt.asIntN(64, lhs.x) : BigInt.asUintN(64, lhs.x);
  const { min: cmin, max: cmax } = satRange(f.dtype === "s32", 32);
  const isMin = t.op2 === "min";
  if (L < cmin) return finish(m, isMin ? k32(L) : cop);
  if (L > cmax) return finish(m, isMin ? cop : k32(L));
  return finish(m, op(m, `v_${t.op2}_${f.dtype === "s32" ? "i" : "u"}32`, [k32(L), cop]));
}

const immAB = (c: RuleCtx) => c.spec.kinds.a?.kind === "imm" && c.spec.kinds.b?.kind === "imm";

export const vshRules: AmdRule<VshForm>[] = [
  {
    name: "vsh_const_ab",
    prio: 10,
    why: "a and b immediate with no tail, or c immediate too: d is a constant, computed by the reference semantics (src/sem/vsh.ts, as ptxas folds it, like szext_const_fold), so it is right by construction: one v_mov.",
    when: (f, c) => immAB(c) && (f.tail.kind === "none" || c.spec.kinds.c?.kind === "imm"),
    emit: (f, m, c) => finish(m, k32(constAt(f, m, c, m.immOf("c") ?? 0n))),
  },
  {
    name: "vsh_const_ab_merge",
    prio: 10,
    why: "a and b immediate, a dsel merge into a register c: tmp is a constant K (the reference semantics computes it), so d = (c & KEEP) | FIELD with KEEP and FIELD read off the reference at c = ~0 and c = 0: one v_and_or (or v_and + v_or).",
    when: (f, c) => immAB(c) && f.tail.kind === "merge" && c.spec.kinds.c?.kind !== "imm",
    emit: (f, m, c) => {
      const K = constAt(f, m, c, 0n);
      finish(m, andOr(m, m.src("c"), constAt(f, m, c, M32) ^ K, K));
    },
  },
  {
    name: "vsh_const_ab_add",
    prio: 10,
    why: "a and b immediate, .add with a register c: tmp is a constant K (the reference semantics computes it), and d = c + K mod 2^32 is one v_add.",
    when: (f, c) => immAB(c) && f.tail.kind === "op2" && f.tail.op2 === "add" && c.spec.kinds.c?.kind !== "imm",
    emit: (f, m, c) => finish(m, op(m, m.vAdd, [m.src("c"), k32(constAt(f, m, c, 0n))])),
  },
  {
    name: "vsh_const_ab_minmax",
    prio: 10,
    why: "a and b immediate, .min/.max with a register c: the compared value L is a constant, taken from the reference semantics by the profile's rule (src/sem/vsh.ts minMaxLhs: isa's .s34 tmp, sm90's D3/A1). Against c's 32-bit range it is c, L, or one v_min/v_max d, L, c.",
    when: (f, c) => immAB(c) && isMinMax(f) && c.spec.kinds.c?.kind !== "imm",
    emit: emitConstMinMax,
  },
  {
    name: "vsh_stages_32bit_vshr",
    prio: 5,
    why: "vshr without .sat: a right shift never needs more than 32 bits of tmp (ta's bit 32 is its sign or 0), so ta (v_bfe for asel), tb (v_bfe_u32 for bsel), one 32-bit shift with the clamp as a select on tb < 32 (or min(tb, 31) where that gives the same bits), then the tail on 32 bits.",
    when: (f) => f.op === "vshr" && !f.sat,
    emit: (f, m, c) => finish(m, tailStage(m, f, c.profile, shiftRight(m, f, extractA(m, f)))),
  },
  {
    name: "vsh_stages_32bit_vshr_sat",
    prio: 5,
    why: "vshr with .sat: the 32-bit shift of vsh_stages_32bit_vshr, then the saturation to the profile's range (src/sem/vsh.ts satRange/satBits) as v_med3/v_min/v_max, then the tail; the shifted value fits 33 bits, so the 32-bit clamp is exact.",
    when: (f) => f.op === "vshr" && f.sat,
    emit: (f, m, c) => {
      const r = shiftRight(m, f, extractA(m, f));
      finish(m, tailStage(m, f, c.profile, satWord(m, r, satRange(signedD(f), satBits(f, c.profile)))));
    },
  },
  {
    name: "vsh_stages_32bit",
    prio: 5,
    why: "vshl when only tmp's low 32 bits are read (no .sat, no .min/.max): ta, tb, one 32-bit shift of the bits the tail reads (a merge's byte/half, D2), the clamp as a select on tb < 32, then .add or the merge. Bits above 31 of the exact shift never reach d.",
    when: (f) => f.op === "vshl" && lowWordOnly(f),
    emit: (f, m, c) => {
      const needBits = tailBits(f, c.profile);
      const x = shiftLeftLo(m, f, extractA(m, f, { lowBits: needBits }), needBits);
      finish(m, tailStage(m, f, c.profile, { x, ext: "u" })); // only its low 32 bits are read
    },
  },
  {
    name: "vsh_stages_32bit_b64clamp",
    prio: 4,
    why: "vshl .clamp, low word only, register b: v_min_u32 n, 32, tb ; v_lshlrev_b64 p, n, {ta, ?}: the 6-bit count shifts everything out at 32, so the select of vsh_stages_32bit disappears (shiftLeftLoB64). Wins when the tail consumes p.lo (add, merge) or v[0:1] is free.",
    when: (f, c) => f.op === "vshl" && f.mode === "clamp" && lowWordOnly(f) && c.spec.kinds.b?.kind !== "imm",
    emit: (f, m, c) => {
      const x = shiftLeftLoB64(m, f, tailBits(f, c.profile));
      finish(m, tailStage(m, f, c.profile, { x, ext: "u" }));
    },
  },
  {
    name: "vsh_stages_q",
    prio: 5,
    why: "vshl .sat with tb ≤ 31 known (.wrap, or an immediate b) and a 32-bit saturation range: q = T >> 31 by one v_bfe_i32 (the .s34 wrap is its sign extension from bit 33), then the clamp tests q (satFromQ) instead of building the 64-bit shift; then the tail.",
    when: (f, c) => f.op === "vshl" && f.sat && (f.mode === "wrap" || c.spec.kinds.b?.kind === "imm") && satBits(f, c.profile) >= 32,
    emit: (f, m, c) => {
      const { q, lo: low } = shiftLeftQ(m, f, extractA(m, f));
      const r: Word = { x: satFromQ(m, signedD(f), q, low), ext: signedD(f) ? "s" : "u" };
      finish(m, tailStage(m, f, c.profile, r));
    },
  },
  {
    name: "vsh_stages_q_subword",
    prio: 5,
    why: "vsh_stages_q's sequence where the profile saturates a merge to its subword (D1, isa: satBits < 32): the 32-bit clamp from q contains the subword range, so the result is clamped again to it (satWord), then merged.",
    when: (f, c) => f.op === "vshl" && f.sat && (f.mode === "wrap" || c.spec.kinds.b?.kind === "imm") && satBits(f, c.profile) < 32,
    emit: (f, m, c) => {
      const { q, lo: low } = shiftLeftQ(m, f, extractA(m, f));
      const r: Word = { x: satFromQ(m, signedD(f), q, low), ext: signedD(f) ? "s" : "u" };
      finish(m, tailStage(m, f, c.profile, satWord(m, r, satRange(signedD(f), satBits(f, c.profile)))));
    },
  },
  {
    name: "vsh_stages_64bit",
    prio: 0,
    why: "vshl .sat for any b: the exact shift in a VGPR pair (shiftLeftPair: the count clamped to 32, v_lshlrev_b64), then the clamp from bits 33..31 (satFromPair) to the profile's range, then the tail. The general .sat rule; vsh_stages_q wins where tb ≤ 31 is known.",
    when: (f) => f.op === "vshl" && f.sat,
    emit: (f, m, c) => finish(m, tailStage(m, f, c.profile, satFromPair(m, signedD(f), satBits(f, c.profile), shiftLeftPair(m, f)))),
  },
  {
    name: "vsh_stages_64bit_minmax",
    prio: 0,
    why: "vshl .min/.max without .sat: the compare reads tmp beyond 32 bits (A1), so {c, ext(c)} is widened first (it may take the register right after c), the exact shift is built in a pair, and a 64-bit compare by the profile's rule (isa: the .s34 tmp, sm90: the exact value, minMaxOperand/minMaxSigned) selects d.",
    when: (f) => f.op === "vshl" && !f.sat && isMinMax(f),
    emit: (f, m, c) => {
      const cc = widenC(m, signedD(f));
      const p = shiftLeftPair(m, f);
      finish(m, minMax64(m, f, c.profile, p, cc, f.tail.kind === "op2" && f.tail.op2 === "min"));
    },
  },
];
