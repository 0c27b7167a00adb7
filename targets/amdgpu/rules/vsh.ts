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

// ---------------------------------------------------------------------------------------
// Operands, folding, emission

const M32 = 0xffffffffn;
const INT_MIN = -0x80000000n;
const INT_MAX = 0x7fffffffn;

/** An immediate for a 32-bit value, spelled as an inline constant (−16..64) where it is one. */
function k32(x: bigint | number): MOp {
  const w = BigInt(x) & M32;
  const sv = BigInt.asIntN(32, w);
  return imm(sv >= -16n && sv <= 64n ? sv : w);
}
type Imm = Extract<MOp, { k: "imm" }>;
const isImm = (o: MOp): o is Imm => o.k === "imm";
const valueOf = (o: Imm): bigint => o.value & M32;
const sameReg = (x: MOp, y: MOp): boolean => x.k === y.k && x.k !== "imm" && JSON.stringify(x) === JSON.stringify(y);
const lo = (p: MOp): MOp => (p.k === "v" ? v(p.n) : p.k === "s" ? s(p.n) : p);
const hi = (p: MOp): MOp => (p.k === "v" ? v(p.n + 1) : p.k === "s" ? s(p.n + 1) : p);

/** Constant folding by the record's own per-lane semantics. */
function foldLane(mnemonic: Mnemonic, xs: bigint[]): bigint {
  const sem = record(mnemonic).sem;
  if (!("lane" in sem)) throw new Error(`vsh: cannot fold ${mnemonic}`);
  return (sem.lane(concrete, xs.map((x) => concrete.k(x, 32)), 0)[0] as CV).x;
}
function foldCmp(mnemonic: Mnemonic, xs: bigint[]): boolean {
  const sem = record(mnemonic).sem;
  if (!("cmp" in sem)) throw new Error(`vsh: cannot fold ${mnemonic}`);
  return sem.cmp(concrete, xs.map((x) => concrete.k(x, 32))) as boolean;
}

/**
 * Emits `mnemonic t, srcs…` into a fresh scratch VGPR (or `dst`) and returns it; folds to
 * an immediate when every source is one. Two-source commutative operations put a VGPR in
 * src1 so that the VOP2 encoding (which takes a literal in src0, even on gfx9) fits.
 */
function op(m: Builder, mnemonic: Mnemonic, srcs: MOp[], dst?: MOp): MOp {
  if (srcs.every(isImm)) {
    const x = k32(foldLane(mnemonic, srcs.map(valueOf)));
    if (!dst) return x;
    m.emit("v_mov_b32", dst, x);
    return dst;
  }
  if (record(mnemonic).commutative && srcs.length === 2 && srcs[0]!.k === "v" && srcs[1]!.k !== "v") srcs = [srcs[1]!, srcs[0]!];
  const t = dst ?? m.vtmp();
  m.emit(mnemonic, t, ...srcs);
  return t;
}
const mov = (m: Builder, dst: MOp, x: MOp): MOp => {
  if (!sameReg(dst, x)) m.emit("v_mov_b32", dst, x);
  return dst;
};

/** A 32-bit shift (`v_*rev_*32`, count in S0[4:0]); a count ≡ 0 (mod 32) is the identity. */
function shift32(m: Builder, mnemonic: Mnemonic, count: MOp, x: MOp): MOp {
  if (isImm(count) && (valueOf(count) & 31n) === 0n) return x;
  return op(m, mnemonic, [count, x]);
}

/** A condition: known at emission time, or a lane mask in vcc. */
type Cond = boolean | MOp;
function cmp(m: Builder, mnemonic: Mnemonic, x: MOp, y: MOp): Cond {
  if (isImm(x) && isImm(y) && !mnemonic.endsWith("64")) return foldCmp(mnemonic, [valueOf(x), valueOf(y)]);
  m.emit(mnemonic, m.vcc(), x, y);
  return m.vcc();
}
/** `cond ? ifTrue : ifFalse` (v_cndmask_b32 picks S1 where the mask is set). */
function select(m: Builder, cond: Cond, ifTrue: MOp, ifFalse: MOp): MOp {
  if (typeof cond === "boolean") return cond ? ifTrue : ifFalse;
  if (isImm(ifTrue) && isImm(ifFalse) && valueOf(ifTrue) === valueOf(ifFalse)) return ifTrue;
  const t = m.vtmp();
  m.emit("v_cndmask_b32", t, ifFalse, ifTrue, cond);
  return t;
}

/** The VGPR the next m.vtmp() returns. */
const nextVgpr = (m: Builder): number => (m.vUsed === 0 ? m.layout.vScratch : m.vUsed);
const nextSgpr = (m: Builder): number => (m.sUsed === 0 ? m.layout.sScratch : m.sUsed);
const dIsV0 = (m: Builder): boolean => sameReg(m.d(), v(0));

/**
 * Puts the result in d. When the last instruction wrote `x` (a scratch VGPR), it is
 * retargeted to d instead of adding a v_mov: no later instruction reads x, and d is
 * written only here, after every read of a (which may be v0).
 */
function finish(m: Builder, x: MOp): void {
  const d = m.d();
  if (sameReg(x, d)) return;
  const last = m.lines[m.lines.length - 1];
  if (x.k === "v" && x.count === 1 && x.n >= m.layout.vScratch && last && !isLabel(last)) {
    const dst = last.ops[0];
    if (dst && sameReg(dst, x) && record(last.op).ops[0]?.out) {
      last.ops[0] = d;
      return;
    }
  }
  m.emit("v_mov_b32", d, x);
}

// ---------------------------------------------------------------------------------------
// Words: a 32-bit operand and the wider value it stands for

/** sext, zext, or either (the value is in [0, 2^31), so both extensions agree). */
type Ext = "s" | "u" | "both";
interface Word {
  x: MOp;
  ext: Ext;
}
const sLike = (e: Ext) => e !== "u";
const uLike = (e: Ext) => e !== "s";

/** A known value (a signed bigint that fits 33 bits) as a word. */
function constWord(value: bigint): Word {
  return { x: k32(value), ext: value < 0n ? "s" : value <= INT_MAX ? "both" : "u" };
}

/** c extended per dtype (the ISA: "the sign of the third operand is based on dtype"). */
function cWord(m: Builder, f: VshForm): Word {
  const c = m.src("c");
  const signed = f.dtype === "s32";
  if (isImm(c)) return constWord(signed ? BigInt.asIntN(32, c.value) : valueOf(c));
  return { x: c, ext: signed ? "s" : "u" };
}

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
 * A signed word clamped to [lo, hi]: `v_med3_i32 t, x, lo, hi` when its constants fit the
 * operand rules, else `v_max_i32 t, lo, x ; v_min_i32 t, hi, t` (VOP2 takes a literal).
 */
function clampSigned(m: Builder, x: MOp, min: bigint, max: bigint): MOp {
  const literals = [min, max].filter((c) => !isInlineConstant(c)).length;
  if (literals === 0 || (m.t.vop3Literal && literals === 1)) return op(m, "v_med3_i32", [x, k32(min), k32(max)]);
  return op(m, "v_min_i32", [k32(max), op(m, "v_max_i32", [k32(min), x])]);
}

/**
 * A word (an exact value, as vshr's tmp is) clamped to [min, max] ⊆ the 32-bit ranges:
 *   signed word:   v_med3_i32 (or v_max_i32 t, 0, x for [0, 2^32-1]; nothing for s32)
 *   unsigned word: v_min_u32 t, max, x (its lower bound 0 ≤ min never binds)
 * The result's ext follows from the range it now lies in.
 */
function satWord(m: Builder, w: Word, { min, max }: { min: bigint; max: bigint }): Word {
  const [wmin, wmax] = w.ext === "s" ? [INT_MIN, INT_MAX] : w.ext === "both" ? [0n, INT_MAX] : [0n, M32];
  const lo = min > wmin ? min : wmin;
  const hi = max < wmax ? max : wmax;
  const ext: Ext = lo < 0n ? "s" : hi <= INT_MAX ? "both" : "u";
  if (min <= wmin && max >= wmax) return { x: w.x, ext };
  if (w.ext === "s") {
    if (min > wmin && max < wmax) return { x: clampSigned(m, w.x, min, max), ext };
    return min > wmin ? { x: op(m, "v_max_i32", [k32(min), w.x]), ext } : { x: op(m, "v_min_i32", [k32(max), w.x]), ext };
  }
  return { x: op(m, "v_min_u32", [k32(max), w.x]), ext };
}

/**
 * vshl: T (.s34) clamped to dtype's 32-bit range from q = T >> 31 ∈ [−4, 3] and lo.
 *   dtype .s32: T fits ⇔ q ∈ {−1, 0}; else MIN if q < 0, MAX if q > 0
 *     v_med3_i32     qc, q, -1, 0
 *     v_xor_b32      sat, 0x7fffffff, qc   ; qc = −1 → 0x80000000, 0 → 0x7fffffff
 *     v_cmp_eq_u32   vcc, q, qc
 *     v_cndmask_b32  r, sat, lo, vcc
 *   dtype .u32: T fits ⇔ q ∈ {0, 1}; else 0 if q < 0, 0xffffffff if q ≥ 2
 *     v_med3_i32 qc, q, 0, 1 ; v_bfe_i32 sat, qc, 0, 1 (= −qc) ; v_cmp_eq_u32 ; v_cndmask_b32
 * The signed case works for any B-bit range [−2^(B-1), 2^(B-1)−1] given q = T >> (B-1)
 * and max = 2^(B-1)−1 (satFromPair's isa subword clamp).
 */
function satFromQ(m: Builder, signed: boolean, q: MOp, low: MOp, max = INT_MAX): MOp {
  const qc = op(m, "v_med3_i32", [q, k32(signed ? -1 : 0), k32(signed ? 0 : 1)]);
  const satv = signed ? op(m, "v_xor_b32", [k32(max), qc]) : op(m, "v_bfe_i32", [qc, k32(0), k32(1)]);
  const fits = cmp(m, "v_cmp_eq_u32", q, qc);
  return select(m, fits, low, satv);
}

/**
 * vshl: T clamped to dtype's range over `bits` (32, or isa's merge subword, D1) from the
 * exact pair {lo, hi} (bits 33, 32 of the exact value are hi[1:0]).
 *   dtype .u32, 32 bits (T < 0 ⇔ bit 33; T ≥ 2^32 ⇔ bits 33..32 = 01):
 *     v_bfe_i32  m32, hi, 0, 1 ; v_or_b32 t, m32, lo     ; bit 32 → all ones
 *     v_bfe_i32  m33, hi, 1, 1 ; v_bfi_b32 r, m33, 0, t  ; bit 33 → 0
 *   dtype .s32, B bits: q = T >> (B-1), the 35-B bits 33..B-1 sign-extended:
 *     v_alignbit_b32 t, hi, lo, B-1 ; v_bfe_i32 q, t, 0, 35-B
 *     v_med3_i32 qc, q, -1, 0 ; v_xor_b32 sat, 2^(B-1)-1, qc    ; MIN_B or MAX_B
 *     v_cmp_eq_u32 vcc, q, qc ; v_cndmask_b32 r, sat, lo, vcc   ; T fits ⇔ q ∈ {−1, 0}
 *   dtype .u32, B < 32: the 32-bit clamp, then v_min_u32 r, 2^B-1, r.
 */
function satFromPair(m: Builder, signed: boolean, bits: number, p: MOp): Word {
  if (signed) {
    const q = op(m, "v_bfe_i32", [op(m, "v_alignbit_b32", [hi(p), lo(p), k32(bits - 1)]), k32(0), k32(35 - bits)]);
    return { x: satFromQ(m, true, q, lo(p), (1n << BigInt(bits - 1)) - 1n), ext: "s" };
  }
  const t = op(m, "v_or_b32", [op(m, "v_bfe_i32", [hi(p), k32(0), k32(1)]), lo(p)]);
  const r: Word = { x: op(m, "v_bfi_b32", [op(m, "v_bfe_i32", [hi(p), k32(1), k32(1)]), k32(0), t]), ext: "u" };
  return bits < 32 ? satWord(m, r, satRange(false, bits)) : r;
}

// ---------------------------------------------------------------------------------------
// Stage 5: optSecOp / optMerge

/** `v_perm_b32 d, c, tmp, SEL` selectors (in[0..3] = tmp, in[4..7] = c). */
const PERM_SEL: Record<Sel, number> = {
  b0: 0x07060500, // c.b3 c.b2 c.b1 tmp.b0
  b1: 0x07060004, // c.b3 c.b2 tmp.b0 c.b0
  b2: 0x07000504, // c.b3 tmp.b0 c.b1 c.b0
  b3: 0x00060504, // tmp.b0 c.b2 c.b1 c.b0
  h0: 0x07060100, // c.h1 tmp.h0
  h1: 0x01000504, // tmp.h0 c.h0
};
/** D2: sm90 merges d.h1 as PRMT(tmp, 0x3254, c): tmp.h1 over c.h0. */
const PERM_SEL_H1_SM90 = 0x03020504;

/** (x & mask) | y: `v_and_or_b32` where the operand rules allow it at no cost, else two VOP2s. */
function andOr(m: Builder, x: MOp, mask: bigint, y: bigint): MOp {
  if (y === 0n) return op(m, "v_and_b32", [k32(mask), x]);
  const literals = [mask, y].filter((c) => !isInlineConstant(c)).length + (x.k === "s" ? 1 : 0);
  if (literals === 0 || (m.t.vop3Literal && literals <= 1)) return op(m, "v_and_or_b32", [x, k32(mask), k32(y)]);
  return op(m, "v_or_b32", [k32(y), op(m, "v_and_b32", [k32(mask), x])]);
}

/** optMerge: tmp's low byte/half (sm90 .h1: its high half) into c at dsel. */
function merge(m: Builder, dsel: Sel, profile: Profile, r: MOp): MOp {
  const sel = BigInt(profile === "sm90" && dsel === "h1" ? PERM_SEL_H1_SM90 : PERM_SEL[dsel]);
  const c = m.src("c");
  if (isImm(r) && !isImm(c)) {
    const field = foldLane("v_perm_b32", [0n, valueOf(r), sel]);
    const keep = foldLane("v_perm_b32", [M32, 0n, sel]);
    return andOr(m, c, keep, field);
  }
  return op(m, "v_perm_b32", [c, r, k32(sel)]);
}

/**
 * min/max of two words compared as signed or unsigned wide values; the result is the
 * winner's low 32 bits. Same domain: one v_{min,max}_{i,u}32 (sign-extended words keep
 * their unsigned order as u64, so that case is _u32 too). Mixed, x signed and y unsigned:
 *   signed compare:    min = v_min_i32(x, v_min_u32(y, 0x7fffffff))   ; y ≥ 2^31 loses
 *                      max = v_max_u32(y, v_max_i32(x, 0))           ; x < 0 loses
 *   unsigned compare:  min = v_min_u32(y, v_max_i32(x, -1))          ; x < 0 is ≥ 2^63
 *                      max = v_med3_u32(x, y, v_min_i32(x, -1))      ; x < 0: med3(x, y, x)
 */
function minMax32(m: Builder, isMin: boolean, x: Word, y: Word, signedCmp: boolean): MOp {
  const mm = (signed: boolean) => `v_${isMin ? "min" : "max"}_${signed ? "i" : "u"}32` as const;
  if (sLike(x.ext) && sLike(y.ext)) return op(m, mm(signedCmp && !(uLike(x.ext) && uLike(y.ext))), [y.x, x.x]);
  if (uLike(x.ext) && uLike(y.ext)) return op(m, mm(false), [y.x, x.x]);
  const [sx, uy] = x.ext === "s" ? [x.x, y.x] : [y.x, x.x];
  if (signedCmp)
    return isMin ? op(m, "v_min_i32", [sx, op(m, "v_min_u32", [k32(INT_MAX), uy])]) : op(m, "v_max_u32", [uy, op(m, "v_max_i32", [k32(0), sx])]);
  if (isMin) return op(m, "v_min_u32", [uy, op(m, "v_max_i32", [k32(-1), sx])]);
  return op(m, "v_med3_u32", [sx, uy, op(m, "v_min_i32", [k32(-1), sx])]);
}

/**
 * {c, ext(c)} as a 64-bit operand: an inline immediate; or, when c is the last input in
 * its register file and the register after it is the first scratch one (even-aligned
 * where the mcpu asks), the pair starting at c with ext written after it; else a copy.
 */
function widenC(m: Builder, signed: boolean): MOp {
  const c = m.src("c");
  if (isImm(c)) {
    const cc = signed ? BigInt.asIntN(32, c.value) : valueOf(c);
    if (cc >= -16n && cc <= 64n) return imm(cc);
    const p = m.vtmp(2);
    mov(m, lo(p), k32(cc));
    mov(m, hi(p), k32(cc >> 32n));
    return p;
  }
  if (c.k === "v" && nextVgpr(m) === c.n + 1 && (c.n % 2 === 0 || !m.t.alignedVgprPairs)) {
    const h = m.vtmp();
    if (signed) op(m, "v_ashrrev_i32", [k32(31), c], h);
    else mov(m, h, k32(0));
    return v(c.n, 2);
  }
  if (c.k === "s" && nextSgpr(m) === c.n + 1 && c.n % 2 === 0) {
    const h = m.stmp();
    if (signed) m.emit("s_ashr_i32", h, c, k32(31));
    else m.emit("s_mov_b32", h, k32(0));
    return s(c.n, 2);
  }
  const p = m.vtmp(2);
  mov(m, lo(p), c);
  if (signed) op(m, "v_ashrrev_i32", [k32(31), c], hi(p));
  else mov(m, hi(p), k32(0));
  return p;
}

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
  return minMax32(m, t.op2 === "min", lhs, cWord(m, f), minMaxSigned(f, profile));
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
