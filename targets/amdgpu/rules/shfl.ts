/**
 * @fileoverview `shfl.sync.{up,down,bfly,idx}.b32` (and the deprecated `shfl`) → AMDGPU (PTX
 * ISA §9.7.9.6 pseudocode; src/sem/warp.ts `shfl`). Per lane: bval = b[4:0], cval = c[4:0],
 * segmask = c[12:8], maxLane = (lane & segmask) | (cval & ~segmask), minLane = lane & segmask;
 *   up: j = lane − bval, p = maxLane ≤s j;   down: j = lane + bval, p = j ≤ maxLane;
 *   bfly: j = lane ^ bval, p = j ≤ maxLane;  idx: j = minLane | (bval & ~segmask), p = j ≤ maxLane;
 * the source lane is p ? j : lane, and d = a of it. The membermask decides only where d is
 * defined (the source must be a member, hence executing), so no rule reads it: a lane whose
 * d is defined reads an executing lane, and out-of-range lanes (p false) read their own a.
 */
import type { ShflForm } from "../../../src/ir/warp_forms.js";
import { waitcntSimm16 } from "../isa/sopp.js";
import type { MOp } from "../minst.js";
import { imm } from "../minst.js";
import type { Builder } from "../routine.js";
import type { AmdRule, RuleCtx } from "./rule.js";
import { lo } from "./match_sync.js";
import { VCC_LO } from "./warp_common.js";

const immOf = (c: RuleCtx, n: "b" | "c"): bigint | undefined => {
  const k = c.spec.kinds[n];
  return k?.kind === "imm" ? k.value & 0xffffffffn : undefined;
};

/** `s_waitcnt lgkmcnt(0)`: the bpermute's result is valid only after it (interp.ts LDS wait model; no DS result may be outstanding at exit). */
function waitLds(m: Builder): void {
  m.emit("s_waitcnt", imm(waitcntSimm16({ lgkmcnt: 0 }, m.t.gen)));
}

/** `x & 31` of source `n` (an immediate folded), in a VGPR or as an immediate. */
function low5(m: Builder, n: "b" | "c"): MOp {
  const k = m.immOf(n);
  if (k !== undefined) return imm(k & 31n);
  const t = m.vtmp();
  m.emit("v_and_b32", t, imm(31), m.src(n));
  return t;
}

/**
 * The guarded / p tail shared by the shfl rules: `val` holds d in every executing lane (the
 * body ran in all of exec), `P` the lane mask of p. d: v0 = val (guarded: the prior d where
 * the guard is false); p: vcc = P (guarded: guard-off lanes keep their bit).
 */
function shflTail(f: ShflForm, m: Builder, val: MOp, P: MOp | null): void {
  const g = m.layout.guard;
  if (g) m.emit("v_cndmask_b32", m.layout.d, m.layout.dPrior!, val, g);
  else if (!(val.k === "v" && val.n === 0)) m.emit("v_mov_b32", m.layout.d, val);
  if (f.dest !== "d|p" || !P) return;
  if (!g) {
    if (P.k !== "vcc" && P.k !== "vcc_lo") m.emit("s_mov_b32", VCC_LO, lo(P));
    return;
  }
  const t = m.stmp();
  m.emit("s_and_b32", t, lo(P), lo(g));
  m.emit("s_andn2_b32", VCC_LO, VCC_LO, lo(g));
  m.emit("s_or_b32", VCC_LO, VCC_LO, t);
}

/**
 * The DPP_CTRL (targets/amdgpu/isa/dpp.ts) of lane ^ b within a row of 16, or null: quad_perm
 * for b < 4; gfx10+ row_xmask:b; gfx9 row_half_mirror (7), row_mirror (15), row_ror:8 (8).
 */
function xorCtrl(b: number, gen: 9 | 10 | 11): number | null {
  if (b >= 1 && b <= 3) return [0, 1, 2, 3].reduce((ctrl, k) => ctrl | ((k ^ b) << (2 * k)), 0);
  if (b < 4 || b > 15) return null;
  if (gen !== 9) return 0x160 + b;
  return b === 7 ? 0x141 : b === 15 ? 0x140 : b === 8 ? 0x128 : null;
}

/**
 * CUDA's segment of width w for shfl's bfly/down/idx (`c = ((32 − w) << 8) | 0x1f`): the
 * segment mask is ~(w − 1) & 31 and the clamp 31, so maxLane = the segment's last lane. The
 * width, or null when c is not of that shape.
 */
function cudaWidth(c: bigint): number | null {
  if ((c & 0x1fn) !== 0x1fn) return null;
  const seg = Number((c >> 8n) & 31n);
  const w = 32 - seg;
  return w >= 1 && (w & (w - 1)) === 0 && seg === (~(w - 1) & 31) ? w : null;
}

/** One DPP move into v0: a (v0) from the lane `ctrl` names, bound_ctrl clear (an invalid source leaves the lane's own a, the old value). */
function dppMove(m: Builder, ctrl: number): void {
  m.emit("v_mov_b32_dpp", m.layout.d, m.src("a"), imm(ctrl), imm(15), imm(15), imm(0), imm(0));
}

export const shflRules: AmdRule<ShflForm>[] = [
  {
    name: "shfl_bfly_dpp",
    prio: 2,
    why: ".bfly with an immediate b and an immediate c of CUDA's width-w shape (c = ((32 − w) << 8) | 0x1f) with b[4:0] < min(w, 16) (full width 32 included: lane ^ b for b < 16 stays in its row of 16): lane ^ b stays in the lane's segment, so p is true in every lane and d = a[lane ^ b] — one DPP move within a row of 16 (quad_perm for b < 4; row_xmask:b on gfx10+; row_half_mirror / row_mirror / row_ror:8 for 7 / 15 / 8 on gfx9), bound_ctrl clear so an exited source leaves the lane's own a (an undefined d) instead of 0. 1 cycle on gfx10/gfx11 (+1 for p = -1), 5 on gfx9 with the boundary's two DPP waits, against 7–15 for ds_bpermute. Unguarded, a divergent.",
    when: (f, c) => {
      const b = immOf(c, "b");
      const cc = immOf(c, "c");
      const w = cc === undefined ? null : cudaWidth(cc);
      return f.mode === "bfly" && !c.spec.guarded && c.spec.kinds.a?.kind === "v" && b !== undefined && w !== null && Number(b & 31n) < Math.min(w, 16) && xorCtrl(Number(b & 31n), c.t.gen) !== null;
    },
    emit: (f, m, c) => {
      dppMove(m, xorCtrl(Number(immOf(c, "b")! & 31n), c.t.gen)!);
      if (f.dest === "d|p") m.emit("s_mov_b32", VCC_LO, imm(-1));
    },
  },
  {
    name: "shfl_updown_dpp_row16",
    prio: 2,
    why: ".up / .down by an immediate b in 1..15 with CUDA's width-16 c (.up 0x1000: segment mask 16, clamp 0; .down 0x101f): the segment is the DPP row, p = the source stays in the row, and row_shr:b / row_shl:b with bound_ctrl clear gives exactly that: lanes whose source leaves the row keep their own a (d = own a where p is false). 1 cycle on gfx10/gfx11, 5 on gfx9 (boundary waits), d only (p would need the lane number: the bpermute rule). Unguarded, a divergent.",
    when: (f, c) => {
      const b = immOf(c, "b");
      const cc = immOf(c, "c");
      if (f.dest === "d|p" || c.spec.guarded || c.spec.kinds.a?.kind !== "v" || b === undefined || cc === undefined) return false;
      const k = Number(b & 31n);
      return k >= 1 && k <= 15 && ((f.mode === "up" && (cc & 0x1f1fn) === 0x1000n) || (f.mode === "down" && (cc & 0x1f1fn) === 0x101fn));
    },
    emit: (f, m, c) => dppMove(m, (f.mode === "up" ? 0x110 : 0x100) + Number(immOf(c, "b")! & 31n)),
  },
  {
    name: "shfl_bfly_permlanex16",
    prio: 2,
    why: ".bfly by an immediate b with b[4:0] in 16..31 and CUDA's full-width c (0x1f, segment mask 0) on gfx10/gfx11 (wave32): j = lane ^ b ≤ 31, so p is true everywhere and d = a[lane ^ b], which lies in the other row of 16 at index (lane & 15) ^ (b & 15) — one v_permlanex16_b32 whose lane selects are those indices (two s_mov_b32 of the nibble words: VOP3 takes one literal), fi = 1 (an exited source gives an undefined d either way; fi = 1 is where the manual's and LLVM's readings agree, isa/vop3.ts), bound_ctrl clear. Measured (test/warp_amdgpu.test.ts) 3–4 cycles (mean 3.3), against 7–11 (mean 8.5) for ds_bpermute and its LDS wait on the same processors. Unguarded, a divergent, d only or d|p (p = -1).",
    when: (f, c) => {
      const b = immOf(c, "b");
      const cc = immOf(c, "c");
      return f.mode === "bfly" && c.t.gen !== 9 && !c.spec.guarded && c.spec.kinds.a?.kind === "v" && b !== undefined && Number(b & 31n) >= 16 && cc !== undefined && (cc & 0x1f1fn) === 0x1fn;
    },
    emit: (f, m, c) => {
      const x = Number(immOf(c, "b")! & 15n);
      const nibbles = (base: number) => BigInt.asIntN(32, [0, 1, 2, 3, 4, 5, 6, 7].reduce((w, k) => w | (BigInt((base + k) ^ x) << BigInt(4 * k)), 0n));
      const s1 = m.stmp();
      const s2 = m.stmp();
      m.emit("s_mov_b32", s1, imm(nibbles(0)));
      m.emit("s_mov_b32", s2, imm(nibbles(8)));
      m.emit("v_permlanex16_b32", m.layout.d, m.src("a"), s1, s2, imm(1), imm(0));
      if (f.dest === "d|p") m.emit("s_mov_b32", VCC_LO, imm(-1));
    },
  },
  {
    name: "shfl_updown_dpp_wave_shift",
    prio: 2,
    why: ".up / .down by 1 with CUDA's full-width c (.up: c[12:8] = 0 and clamp 0; .down: clamp 31) on the gfx9 family (wave64, lanes 32–63 inactive): DPP wave_shr:1 / wave_shl:1 move every lane's source by one across the whole wave, bound_ctrl clear, so lane 0 (.up: no source) and lane 31 (.down: lane 32 has exec 0, an invalid source) keep their own a — exactly p false, d = own a; an exited source leaves an undefined d. Measured 5 cycles (the boundary's DPP waits) against ds_bpermute's 8–12 (mean 9.5) on gfx900/gfx90a and 9–15 (mean 11.6) on gfx942. d only; unguarded, a divergent.",
    when: (f, c) => {
      const b = immOf(c, "b");
      const cc = immOf(c, "c");
      if (c.t.gen !== 9 || f.dest === "d|p" || c.spec.guarded || c.spec.kinds.a?.kind !== "v" || b === undefined || cc === undefined || (b & 31n) !== 1n) return false;
      return (f.mode === "up" && (cc & 0x1f1fn) === 0n) || (f.mode === "down" && (cc & 0x1f1fn) === 0x1fn);
    },
    emit: (f, m) => dppMove(m, f.mode === "up" ? 0x138 : 0x130),
  },
  {
    name: "shfl_bpermute",
    prio: 0,
    why: "The general shuffle, any mode and any kinds of b, c and membermask: the lane's source per the ISA pseudocode (file comment) in VALU ops — v_mbcnt_lo for laneid (lanes 32..63 of a wave64 are inactive, so the low count is the lane), v_bfe/v_bfi for the segment mask and maxLane, one v_cmp for p (signed for .up), v_cndmask for p ? j : lane — then ds_bpermute_b32 at byte address 4·src and s_waitcnt lgkmcnt(0) before d is read. src ≤ 31, so gfx9's mod-64 and gfx10+'s mod-32 wrap give the same lane, and a defined d's source executes (bpermute reads 0 from an exec-0 lane only for undefined results). Measured 7–11 cycles on gfx10/gfx11, 8–12 on gfx900/gfx90a, 9–15 on gfx942 (its VALU → SGPR-read waits); guarded up to 15.",
    when: () => true,
    emit: (f, m, c) => {
      const ln = m.vtmp();
      m.emit("v_mbcnt_lo_u32_b32", ln, imm(-1), imm(0));
      const cImm = immOf(c, "c");
      const bval = low5(m, "b");
      const cval = low5(m, "c");
      let seg: MOp;
      if (cImm !== undefined) seg = imm((cImm >> 8n) & 31n);
      else {
        seg = m.vtmp();
        m.emit("v_bfe_u32", seg, m.src("c"), imm(8), imm(5));
      }
      const segK = seg.k === "imm" ? seg.value : undefined;
      // maxLane = (lane & seg) | (cval & ~seg)
      let mx: MOp;
      if (segK === 0n) mx = cval;
      else if (segK === 31n) mx = ln;
      else {
        mx = m.vtmp();
        m.emit("v_bfi_b32", mx, seg, ln, cval);
      }
      const j = m.vtmp();
      switch (f.mode) {
        case "up":
          m.emit(m.vSub, j, ln, bval);
          break;
        case "down":
          m.emit(m.vAdd, j, ln, bval);
          break;
        case "bfly":
          m.emit("v_xor_b32", j, ln, bval);
          break;
        case "idx":
          // j = (lane & seg) | (bval & ~seg)
          if (segK === 0n) m.emit("v_mov_b32", j, bval);
          else m.emit("v_bfi_b32", j, seg, ln, bval);
          break;
      }
      // p: vcc unless a guarded routine must keep the prior p there.
      const P = m.layout.guard && f.dest === "d|p" ? m.mask() : m.vcc();
      if (f.mode === "up") m.emit("v_cmp_le_i32", P, mx, j);
      else m.emit("v_cmp_ge_u32", P, mx, j);
      const src = m.vtmp();
      m.emit("v_cndmask_b32", src, ln, j, P);
      const addr = m.vtmp();
      m.emit("v_lshlrev_b32", addr, imm(2), src);
      const a = m.vgprOf("a");
      const dst = m.layout.guard ? m.vtmp() : m.layout.d;
      m.emit("ds_bpermute_b32", dst, addr, a, imm(0));
      waitLds(m);
      shflTail(f, m, dst, P);
    },
  },
  {
    name: "shfl_inrange_bpermute",
    prio: 1,
    why: ".idx / .bfly with an immediate c of clamp 31 and segment mask 0 (CUDA's full width, c = 0x1f), any b: maxLane = 31 and j = bval (.idx) or lane ^ bval (.bfly) is at most 31, so p is true in every lane and the source is j itself — the general rule's v_cmp / v_cndmask (and for .idx its v_mbcnt) fold away: j in VALU ops, v_lshlrev by 2, ds_bpermute_b32, s_waitcnt lgkmcnt(0); p = -1. Measured (test/warp_amdgpu.test.ts): 3–8 cycles (mean 4.6) on gfx10/gfx11, 4–8 (mean 5.3) on gfx900/gfx90a, 4–9 (mean 5.6) on gfx942 unguarded, against the general rule's means 8.5 / 9.5 / 11.6.",
    when: (f, c) => {
      const cc = immOf(c, "c");
      return (f.mode === "idx" || f.mode === "bfly") && cc !== undefined && (cc & 0x1f1fn) === 0x1fn;
    },
    emit: (f, m) => {
      const bval = low5(m, "b");
      const j = m.vtmp();
      if (f.mode === "bfly") {
        const ln = m.vtmp();
        m.emit("v_mbcnt_lo_u32_b32", ln, imm(-1), imm(0));
        m.emit("v_xor_b32", j, ln, bval);
        m.emit("v_lshlrev_b32", j, imm(2), j);
      } else m.emit("v_lshlrev_b32", j, imm(2), bval);
      const a = m.vgprOf("a");
      const dst = m.layout.guard ? m.vtmp() : m.layout.d;
      m.emit("ds_bpermute_b32", dst, j, a, imm(0));
      waitLds(m);
      shflTail(f, m, dst, imm(-1));
    },
  },
  {
    name: "shfl_idx_readlane_inrange",
    prio: 1,
    why: ".idx with a uniform (SGPR) b and CUDA's full-width c (clamp 31, segment mask 0): bval = b[4:0] ≤ 31 = maxLane, so p is true and d = a[bval] in every lane — s_and, v_readlane, v_mov (shfl_idx_readlane without its SCC select of p and v_cndmask). Measured 3–5 cycles (mean 3.6) on gfx10/gfx11, 5–8 (mean 7.3) on gfx900/gfx90a, 7–10 (mean 9.5) on gfx942 (its boundary waits), against shfl_idx_readlane's 3–5 more instructions.",
    when: (f, c) => {
      const cc = immOf(c, "c");
      return f.mode === "idx" && c.spec.kinds.b?.kind === "s" && cc !== undefined && (cc & 0x1f1fn) === 0x1fn;
    },
    emit: (f, m) => {
      const bl = m.stmp();
      m.emit("s_and_b32", bl, m.src("b"), imm(31));
      const x = m.stmp();
      m.emit("v_readlane_b32", x, m.vgprOf("a"), bl);
      shflTail(f, m, x, imm(-1));
    },
  },
  {
    name: "shfl_idx_readlane",
    prio: 1,
    why: ".idx with a uniform (SGPR or immediate) b and an immediate c whose segment mask c[12:8] is 0 (CUDA's __shfl_sync(mask, v, lane) with width 32): the source lane bval = b[4:0] is the same in every lane and p = bval ≤ cval is uniform, so d = p ? a[bval] : a — one v_readlane (it ignores exec; a defined d's source is a member, hence executes), an SCC select of p, and a v_cndmask: 3–5 cycles with no LDS round trip. With b immediate too, p is folded: v_readlane + v_mov, or nothing at all (d = a already in v0).",
    when: (f, c) => f.mode === "idx" && (c.spec.kinds.b?.kind ?? "v") !== "v" && immOf(c, "c") !== undefined && ((immOf(c, "c")! >> 8n) & 31n) === 0n,
    emit: (f, m, c) => {
      const cval = immOf(c, "c")! & 31n;
      const bImm = immOf(c, "b");
      const a = m.vgprOf("a");
      const g = m.layout.guard;
      if (bImm !== undefined) {
        const lane = bImm & 31n;
        const pv = lane <= cval;
        let val: MOp = a;
        if (pv) {
          const x = m.stmp();
          m.emit("v_readlane_b32", x, a, imm(lane));
          val = x;
        }
        if (g) m.emit("v_cndmask_b32", m.layout.d, m.layout.dPrior!, val, g);
        else if (!(val.k === "v" && val.n === 0)) m.emit("v_mov_b32", m.layout.d, val);
        if (f.dest === "d|p") {
          if (!g) m.emit("s_mov_b32", VCC_LO, imm(pv ? -1 : 0));
          else m.emit(pv ? "s_or_b32" : "s_andn2_b32", VCC_LO, VCC_LO, lo(g));
        }
        return;
      }
      const bl = m.stmp();
      m.emit("s_and_b32", bl, m.src("b"), imm(31));
      const x = m.stmp();
      m.emit("v_readlane_b32", x, a, bl);
      m.emit("s_cmp_le_u32", bl, imm(cval));
      const P = g && f.dest === "d|p" ? m.mask() : m.vcc();
      m.emit(m.w("s_cselect"), P, imm(-1), imm(0));
      const val = g ? m.vtmp() : m.layout.d;
      m.emit("v_cndmask_b32", val, a, x, P);
      shflTail(f, m, val, P);
    },
  },
];
