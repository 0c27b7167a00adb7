/**
 * @fileoverview The AMDGPU stages of the scalar video pipeline that every scalar video
 * instruction shares (src/sem/vsh.ts): operands and constant folding by the records' own
 * semantics, `Word`s (a 32-bit operand and the wider value it stands for), saturation of a
 * word or of an exact 64-bit pair, optMerge by `v_perm_b32` (D2 included), min/max of words
 * compared as wide values, and c widened per dtype. The shifts (vsh.ts) and vadd…vmax
 * (vop.ts) build their rules from these.
 */
import type { Profile, Sel } from "../../../src/ir/forms.js";
import { concrete } from "../../../src/sem/bv.js";
import type { CV } from "../../../src/sem/bv.js";
import { satRange } from "../../../src/sem/vsh.js";
import type { Mnemonic } from "../isa/index.js";
import { record } from "../isa/index.js";
import type { MOp } from "../minst.js";
import { imm, isLabel, s, v } from "../minst.js";
import { isInlineConstant } from "../regs.js";
import type { Builder } from "../routine.js";

// ---------------------------------------------------------------------------------------
// Operands, folding, emission

export const M32 = 0xffffffffn;
export const INT_MIN = -0x80000000n;
export const INT_MAX = 0x7fffffffn;

/** An immediate for a 32-bit value, spelled as an inline constant (−16..64) where it is one. */
export function k32(x: bigint | number): MOp {
  const w = BigInt(x) & M32;
  const sv = BigInt.asIntN(32, w);
  return imm(sv >= -16n && sv <= 64n ? sv : w);
}
export type Imm = Extract<MOp, { k: "imm" }>;
export const isImm = (o: MOp): o is Imm => o.k === "imm";
export const valueOf = (o: Imm): bigint => o.value & M32;
export const sameReg = (x: MOp, y: MOp): boolean => x.k === y.k && x.k !== "imm" && JSON.stringify(x) === JSON.stringify(y);
export const lo = (p: MOp): MOp => (p.k === "v" ? v(p.n) : p.k === "s" ? s(p.n) : p);
export const hi = (p: MOp): MOp => (p.k === "v" ? v(p.n + 1) : p.k === "s" ? s(p.n + 1) : p);

/** Constant folding by the record's own per-lane semantics. */
export function foldLane(mnemonic: Mnemonic, xs: bigint[]): bigint {
  const sem = record(mnemonic).sem;
  if (!("lane" in sem)) throw new Error(`vsh: cannot fold ${mnemonic}`);
  return (sem.lane(concrete, xs.map((x) => concrete.k(x, 32)), 0)[0] as CV).x;
}
export function foldCmp(mnemonic: Mnemonic, xs: bigint[]): boolean {
  const sem = record(mnemonic).sem;
  if (!("cmp" in sem)) throw new Error(`vsh: cannot fold ${mnemonic}`);
  return sem.cmp(concrete, xs.map((x) => concrete.k(x, 32))) as boolean;
}

/**
 * Emits `mnemonic t, srcs…` into a fresh scratch VGPR (or `dst`) and returns it; folds to
 * an immediate when every source is one. Two-source commutative operations put a VGPR in
 * src1 so that the VOP2 encoding (which takes a literal in src0, even on gfx9) fits.
 */
export function op(m: Builder, mnemonic: Mnemonic, srcs: MOp[], dst?: MOp): MOp {
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
export const mov = (m: Builder, dst: MOp, x: MOp): MOp => {
  if (!sameReg(dst, x)) m.emit("v_mov_b32", dst, x);
  return dst;
};

/** A 32-bit shift (`v_*rev_*32`, count in S0[4:0]); a count ≡ 0 (mod 32) is the identity. */
export function shift32(m: Builder, mnemonic: Mnemonic, count: MOp, x: MOp): MOp {
  if (isImm(count) && (valueOf(count) & 31n) === 0n) return x;
  return op(m, mnemonic, [count, x]);
}

/** A condition: known at emission time, or a lane mask in vcc. */
export type Cond = boolean | MOp;
export function cmp(m: Builder, mnemonic: Mnemonic, x: MOp, y: MOp): Cond {
  if (isImm(x) && isImm(y) && !mnemonic.endsWith("64")) return foldCmp(mnemonic, [valueOf(x), valueOf(y)]);
  m.emit(mnemonic, m.vcc(), x, y);
  return m.vcc();
}
/** `cond ? ifTrue : ifFalse` (v_cndmask_b32 picks S1 where the mask is set). */
export function select(m: Builder, cond: Cond, ifTrue: MOp, ifFalse: MOp): MOp {
  if (typeof cond === "boolean") return cond ? ifTrue : ifFalse;
  if (isImm(ifTrue) && isImm(ifFalse) && valueOf(ifTrue) === valueOf(ifFalse)) return ifTrue;
  const t = m.vtmp();
  m.emit("v_cndmask_b32", t, ifFalse, ifTrue, cond);
  return t;
}

/** The VGPR the next m.vtmp() returns. */
export const nextVgpr = (m: Builder): number => (m.vUsed === 0 ? m.layout.vScratch : m.vUsed);
export const nextSgpr = (m: Builder): number => (m.sUsed === 0 ? m.layout.sScratch : m.sUsed);
export const dIsV0 = (m: Builder): boolean => sameReg(m.d(), v(0));

/**
 * Puts the result in d. When the last instruction wrote `x` (a scratch VGPR), it is
 * retargeted to d instead of adding a v_mov: no later instruction reads x, and d is
 * written only here, after every read of a (which may be v0).
 */
export function finish(m: Builder, x: MOp): void {
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
export type Ext = "s" | "u" | "both";
export interface Word {
  x: MOp;
  ext: Ext;
}
export const sLike = (e: Ext) => e !== "u";
export const uLike = (e: Ext) => e !== "s";

/** A known value (a signed bigint that fits 33 bits) as a word. */
export function constWord(value: bigint): Word {
  return { x: k32(value), ext: value < 0n ? "s" : value <= INT_MAX ? "both" : "u" };
}

/**
 * A signed word clamped to [lo, hi]: `v_med3_i32 t, x, lo, hi` when its constants fit the
 * operand rules, else `v_max_i32 t, lo, x ; v_min_i32 t, hi, t` (VOP2 takes a literal).
 */
export function clampSigned(m: Builder, x: MOp, min: bigint, max: bigint): MOp {
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
export function satWord(m: Builder, w: Word, { min, max }: { min: bigint; max: bigint }): Word {
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
export function satFromQ(m: Builder, signed: boolean, q: MOp, low: MOp, max = INT_MAX): MOp {
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
export function satFromPair(m: Builder, signed: boolean, bits: number, p: MOp): Word {
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
export const PERM_SEL: Record<Sel, number> = {
  b0: 0x07060500, // c.b3 c.b2 c.b1 tmp.b0
  b1: 0x07060004, // c.b3 c.b2 tmp.b0 c.b0
  b2: 0x07000504, // c.b3 tmp.b0 c.b1 c.b0
  b3: 0x00060504, // tmp.b0 c.b2 c.b1 c.b0
  h0: 0x07060100, // c.h1 tmp.h0
  h1: 0x01000504, // tmp.h0 c.h0
};
/** D2: sm90 merges d.h1 as PRMT(tmp, 0x3254, c): tmp.h1 over c.h0. */
export const PERM_SEL_H1_SM90 = 0x03020504;

/** (x & mask) | y: `v_and_or_b32` where the operand rules allow it at no cost, else two VOP2s. */
export function andOr(m: Builder, x: MOp, mask: bigint, y: bigint): MOp {
  if (y === 0n) return op(m, "v_and_b32", [k32(mask), x]);
  const literals = [mask, y].filter((c) => !isInlineConstant(c)).length + (x.k === "s" ? 1 : 0);
  if (literals === 0 || (m.t.vop3Literal && literals <= 1)) return op(m, "v_and_or_b32", [x, k32(mask), k32(y)]);
  return op(m, "v_or_b32", [k32(y), op(m, "v_and_b32", [k32(mask), x])]);
}

/** optMerge: tmp's low byte/half (sm90 .h1: its high half) into c at dsel. */
export function merge(m: Builder, dsel: Sel, profile: Profile, r: MOp): MOp {
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
export function minMax32(m: Builder, isMin: boolean, x: Word, y: Word, signedCmp: boolean): MOp {
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
export function widenC(m: Builder, signed: boolean): MOp {
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


/** c extended per dtype (the ISA: "the sign of the third operand is based on dtype"). */
export function cWord(m: Builder, signed: boolean): Word {
  const c = m.src("c");
  if (isImm(c)) return constWord(signed ? BigInt.asIntN(32, c.value) : valueOf(c));
  return { x: c, ext: signed ? "s" : "u" };
}
