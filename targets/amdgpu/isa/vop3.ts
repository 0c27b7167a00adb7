/**
 * @fileoverview VOP3-only records (three sources, or 64-bit operands). Semantics from the AMD
 * "Vega" ISA manual §12.11, "CDNA3" §12.13 and "RDNA3" §16.10 (VOP3 opcodes); see
 * ../shared/notes/amdgpu.md §2 for the generation notes.
 */
import type { IsaRecord, LaneSem, WaveIO } from "./record.js";
import { vop3 } from "./record.js";
import { InterpRefusal, bits, lowMask, signextFromBit } from "./util.js";
import type { BV } from "../../../src/sem/bv.js";

/** BYTE_PERMUTE of v_perm_b32: byte `sel` of the 8-byte {S0, S1} (S1 is bytes 0..3). */
function bytePermute<V, B>(bv: BV<V, B>, in64: V, sel: V): V {
  const byte = (i: number) => bv.extract(in64, 8 * i + 7, 8 * i);
  const sign = (i: number) => bv.ite(bv.bitAt(in64, 8 * i + 7), bv.k(0xff, 8), bv.k(0, 8));
  // 0..7: a byte; 8..11: sign of byte 1/3/5/7 replicated; 12: 0x00; 13..255: 0xff.
  let r = bv.k(0xff, 8);
  r = bv.ite(bv.eq(sel, bv.k(12, 8)), bv.k(0, 8), r);
  for (let i = 3; i >= 0; i--) r = bv.ite(bv.eq(sel, bv.k(8 + i, 8)), sign(2 * i + 1), r);
  for (let i = 7; i >= 0; i--) r = bv.ite(bv.eq(sel, bv.k(i, 8)), byte(i), r);
  return r;
}

const shift64 = <M extends string>(mnemonic: M, desc: string, op: "shl" | "lshr" | "ashr"): IsaRecord<M> => ({
  mnemonic,
  enc: "VOP3",
  hazard: { shift64: true },
  desc,
  ops: [
    { name: "vdst", out: true, w: 64 },
    { name: "src0", w: 32 },
    { name: "src1", w: 64 },
  ],
  uses: ["exec"],
  sem: { lane: ((bv, [s0, s1]) => [bv[op](s1!, bv.zext(bv.extract(s0!, 5, 0), 64))]) as LaneSem },
});

/**
 * v_mbcnt_lo/hi_u32_b32: D = S1 + popcount(S0 & ThreadMask[31:0] / [63:32]), ThreadMask =
 * (1 << lane) - 1 over 64 bits (AMD Vega ISA §12.11 V_MBCNT_LO_U32_B32 / V_MBCNT_HI_U32_B32,
 * RDNA3 §16.10). EXEC is not read. On wave32 every lane is below 32, so `_hi` adds 0.
 */
const mbcnt = <H extends "lo" | "hi">(half: H): IsaRecord<`v_mbcnt_${H}_u32_b32`> => ({
  mnemonic: `v_mbcnt_${half}_u32_b32`,
  enc: "VOP3",
  desc: `D.u = S1.u + popcount(S0.u & ThreadMask[${half === "lo" ? "31:0" : "63:32"}]), ThreadMask = (1 << laneid) - 1`,
  ops: [
    { name: "vdst", out: true, w: 32 },
    { name: "src0", w: 32 },
    { name: "src1", w: 32 },
  ],
  uses: ["exec"],
  sem: {
    lane: (<V, B>(bv: BV<V, B>, src: V[], lane: number) => {
      // The lanes below this one, in this half: bits [0, below) of S0.
      const below = half === "lo" ? Math.min(lane, 32) : Math.max(lane - 32, 0);
      let sum: V = src[1]!;
      for (let i = 0; i < below; i++) sum = bv.add(sum, bv.zext(bv.extract(src[0]!, i, i), 32));
      return [sum];
    }) as LaneSem,
  },
});


/**
 * v_permlane16_b32 / v_permlanex16_b32 (gfx10+): lane i of each 16-lane row reads lane `sel` of
 * its own row (`x16`: of the other row of its 32-lane pair, "1<->0, 3<->2"), sel =
 * {S2, S1}[4k+3 : 4k] for k = i mod 16; only EXEC lanes are written (AMD RDNA3 ISA §16.10
 * V_PERMLANE16_B32 / V_PERMLANEX16_B32 pseudocode; RDNA2 the same). `fi` and `bound_ctrl` are
 * op_sel[0] and op_sel[1].
 *
 * Not settled, so refused: a lane whose source lane has EXEC = 0 while `fi` = 0. The RDNA3
 * pseudocode reads the source VGPR whatever its EXEC bit (it copies S0 of every lane first, and
 * names neither bit); LLVM's `llvm.amdgcn.permlane16(old, src0, src1, src2, fi, bound_ctrl)`
 * documents fi ("fetch inactive") and bound_ctrl as DPP's, under which such a source is invalid
 * (0 with bound_ctrl, else the lane keeps VDST, which is tied). The two readings agree whenever
 * `fi` = 1 or the source lane is active, and only those cases run.
 */
function permlane<M extends string>(mnemonic: M, cross: boolean): IsaRecord<M> {
  return {
    mnemonic,
    enc: "VOP3",
    only: [10, 11],
    hazard: {},
    crossLane: true,
    desc: `D[i] = S0[${cross ? "(row(i) ^ 1)" : "row(i)"} * 16 + {S2, S1}[4(i mod 16) + 3 : 4(i mod 16)]] (fi, bound_ctrl: op_sel)`,
    ops: [
      { name: "vdst", out: true, tied: true, w: 32 },
      { name: "src0", w: 32 },
      { name: "src1", w: 32 },
      { name: "src2", w: 32 },
      { name: "fi", ctrl: true, w: 32 },
      { name: "bound_ctrl", ctrl: true, w: 32 },
    ],
    uses: ["exec"],
    sem: {
      wave: <V, B>(bv: BV<V, B>, io: WaveIO<V, B>) => {
        const sel = bv.concat(io.read(3), io.read(2));
        const fi = bv.asBigint(io.read(4));
        const bc = bv.asBigint(io.read(5));
        if (fi === undefined || bc === undefined) throw new Error(`${mnemonic}: op_sel must be immediate`);
        const src = io.readLanes(1);
        const exec = io.exec();
        const out = io.readLanes(0).map((old, i) => {
          const on = bv.bitAt(exec, i);
          if (bv.asBool(on) === false) return old;
          const row = (i & ~15) ^ (cross ? 16 : 0);
          const k = bv.extract(sel, 4 * (i & 15) + 3, 4 * (i & 15));
          let fetched = bv.k(0, 32);
          for (let j = 15; j >= 0; j--) {
            if (!fi) {
              // An inactive source under fi = 0 (see above): refused unless EXEC there is 1.
              const active = bv.asBool(bv.bitAt(exec, row + j));
              const picked = bv.asBigint(k);
              if (active !== true && (picked === undefined || Number(picked) === j))
                throw new InterpRefusal(`${mnemonic} with fi = 0 reading lane ${row + j} whose EXEC bit is ${active === false ? "0" : "not known to be 1"}: the manual's pseudocode and LLVM's fi/bound_ctrl reading differ there`);
            }
            fetched = bv.ite(bv.eq(k, bv.k(j, 4)), src[row + j]!, fetched);
          }
          return bv.ite(on, fetched, old);
        });
        io.writeLanes(0, out);
      },
    },
  };
}

export const VOP3 = [
  vop3("v_bfe_u32", "D.u = (S0.u >> S1.u[4:0]) & ((1 << S2.u[4:0]) - 1)", (bv, [s0, s1, s2]) => [
    bv.and(bv.lshr(s0!, bits(bv, s1!, 4)), lowMask(bv, bits(bv, s2!, 4))),
  ]),
  vop3("v_bfe_i32", "D.i = signext_from_bit((S0.i >> S1.u[4:0]) & ((1 << S2.u[4:0]) - 1), S2.u[4:0])", (bv, [s0, s1, s2]) => {
    const w = bits(bv, s2!, 4);
    return [signextFromBit(bv, bv.and(bv.ashr(s0!, bits(bv, s1!, 4)), lowMask(bv, w)), w)];
  }),
  vop3("v_bfi_b32", "D.u = (S0.u & S1.u) | (~S0.u & S2.u)", (bv, [s0, s1, s2]) => [
    bv.or(bv.and(s0!, s1!), bv.and(bv.not(s0!), s2!)),
  ]),
  vop3("v_alignbit_b32", "D.u = ({S0, S1} >> S2.u[4:0]) & 0xffffffff", (bv, [s0, s1, s2]) => [
    bv.extract(bv.lshr(bv.concat(s0!, s1!), bv.zext(bits(bv, s2!, 4), 64)), 31, 0),
  ]),
  vop3("v_perm_b32", "D.u[8k+7:8k] = BYTE_PERMUTE({S0, S1}, S2.u[8k+7:8k])", (bv, [s0, s1, s2]) => {
    const in64 = bv.concat(s0!, s1!);
    const out = [0, 1, 2, 3].map((k) => bytePermute(bv, in64, bv.extract(s2!, 8 * k + 7, 8 * k)));
    return [bv.concat(bv.concat(out[3]!, out[2]!), bv.concat(out[1]!, out[0]!))];
  }),
  vop3("v_med3_i32", "D.i = median(S0.i, S1.i, S2.i)", (bv, [s0, s1, s2]) => {
    const lo = bv.ite(bv.slt(s0!, s1!), s0!, s1!);
    const hi = bv.ite(bv.slt(s0!, s1!), s1!, s0!);
    const m = bv.ite(bv.slt(hi, s2!), hi, s2!);
    return [bv.ite(bv.slt(lo, m), m, lo)];
  }),
  vop3("v_med3_u32", "D.u = median(S0.u, S1.u, S2.u)", (bv, [s0, s1, s2]) => {
    const lo = bv.ite(bv.ult(s0!, s1!), s0!, s1!);
    const hi = bv.ite(bv.ult(s0!, s1!), s1!, s0!);
    const m = bv.ite(bv.ult(hi, s2!), hi, s2!);
    return [bv.ite(bv.ult(lo, m), m, lo)];
  }),
  // Three-input min/max (Vega §12.11 / RDNA3 §16.10 V_MIN3_I32 … V_MAX3_U32): emitted by clang-19
  // for the HIP functions of vmin/vmax with .min/.max (a three-input min or max).
  vop3("v_min3_i32", "D.i = min(S0.i, S1.i, S2.i)", (bv, [s0, s1, s2]) => {
    const m = bv.ite(bv.slt(s0!, s1!), s0!, s1!);
    return [bv.ite(bv.slt(m, s2!), m, s2!)];
  }),
  vop3("v_min3_u32", "D.u = min(S0.u, S1.u, S2.u)", (bv, [s0, s1, s2]) => {
    const m = bv.ite(bv.ult(s0!, s1!), s0!, s1!);
    return [bv.ite(bv.ult(m, s2!), m, s2!)];
  }),
  vop3("v_max3_i32", "D.i = max(S0.i, S1.i, S2.i)", (bv, [s0, s1, s2]) => {
    const m = bv.ite(bv.slt(s0!, s1!), s1!, s0!);
    return [bv.ite(bv.slt(m, s2!), s2!, m)];
  }),
  vop3("v_max3_u32", "D.u = max(S0.u, S1.u, S2.u)", (bv, [s0, s1, s2]) => {
    const m = bv.ite(bv.ult(s0!, s1!), s1!, s0!);
    return [bv.ite(bv.ult(m, s2!), s2!, m)];
  }),
  // gfx11 (RDNA3 §16.10 V_MAXMIN_I32 "D.i = v_min_i32(v_max_i32(S0.i, S1.i), S2.i)", V_MINMAX_*):
  // emitted by clang-19 for the HIP functions of vmax … .min and vmin … .max.
  vop3("v_maxmin_i32", "D.i = min(max(S0.i, S1.i), S2.i)", (bv, [s0, s1, s2]) => {
    const m = bv.ite(bv.slt(s0!, s1!), s1!, s0!);
    return [bv.ite(bv.slt(m, s2!), m, s2!)];
  }, [11]),
  vop3("v_maxmin_u32", "D.u = min(max(S0.u, S1.u), S2.u)", (bv, [s0, s1, s2]) => {
    const m = bv.ite(bv.ult(s0!, s1!), s1!, s0!);
    return [bv.ite(bv.ult(m, s2!), m, s2!)];
  }, [11]),
  vop3("v_minmax_i32", "D.i = max(min(S0.i, S1.i), S2.i)", (bv, [s0, s1, s2]) => {
    const m = bv.ite(bv.slt(s0!, s1!), s0!, s1!);
    return [bv.ite(bv.slt(m, s2!), s2!, m)];
  }, [11]),
  vop3("v_minmax_u32", "D.u = max(min(S0.u, S1.u), S2.u)", (bv, [s0, s1, s2]) => {
    const m = bv.ite(bv.ult(s0!, s1!), s0!, s1!);
    return [bv.ite(bv.ult(m, s2!), s2!, m)];
  }, [11]),
  vop3("v_and_or_b32", "D.u = (S0.u & S1.u) | S2.u", (bv, [s0, s1, s2]) => [bv.or(bv.and(s0!, s1!), s2!)]),
  vop3("v_or3_b32", "D.u = S0.u | S1.u | S2.u", (bv, [s0, s1, s2]) => [bv.or(bv.or(s0!, s1!), s2!)]),
  vop3("v_lshl_or_b32", "D.u = (S0.u << S1.u[4:0]) | S2.u", (bv, [s0, s1, s2]) => [bv.or(bv.shl(s0!, bits(bv, s1!, 4)), s2!)]),
  vop3("v_add3_u32", "D.u = S0.u + S1.u + S2.u", (bv, [s0, s1, s2]) => [bv.add(bv.add(s0!, s1!), s2!)]),
  // Emitted by clang-19 for the hip header (Vega §12.11 / RDNA3 §16.10 V_XAD_U32).
  vop3("v_xad_u32", "D.u = (S0.u ^ S1.u) + S2.u", (bv, [s0, s1, s2]) => [bv.add(bv.xor(s0!, s1!), s2!)]),
  {
    // gfx940+ only (AMD CDNA3 ISA §12.13 V_LSHL_ADD_U64; LLVM `FeatureLshlAddU64Inst`, which
    // selects it for shift amounts 0–4): emitted by clang-19 for 64-bit adds on gfx942.
    mnemonic: "v_lshl_add_u64",
    enc: "VOP3",
    desc: "D.u64 = (S0.u64 << S1.u[2:0]) + S2.u64",
    ops: [
      { name: "vdst", out: true, w: 64 },
      { name: "src0", w: 64 },
      { name: "src1", w: 32 },
      { name: "src2", w: 64 },
    ],
    only: [9],
    uses: ["exec"],
    sem: { lane: ((bv, [s0, s1, s2]) => [bv.add(bv.shl(s0!, bv.zext(bv.extract(s1!, 2, 0), 64)), s2!)]) as LaneSem },
  },
  // Emitted by llc-19 (checked against LLVM in targets/amdgpu/oracle/llvm.ts); GFX9+ (Vega ISA ch. 12, VOP3).
  vop3("v_lshl_add_u32", "D.u = (S0.u << S1.u[4:0]) + S2.u", (bv, [s0, s1, s2]) => [bv.add(bv.shl(s0!, bits(bv, s1!, 4)), s2!)]),
  // Emitted by clang-19/llc-19 for the ds_bpermute byte index of the warp-level functions
  // (issue 15): Vega §12.11 / RDNA3 §16.10 V_ADD_LSHL_U32 "D.u = (S0.u + S1.u) << S2.u[4:0]".
  vop3("v_add_lshl_u32", "D.u = (S0.u + S1.u) << S2.u[4:0]", (bv, [s0, s1, s2]) => [bv.shl(bv.add(s0!, s1!), bits(bv, s2!, 4))]),
  {
    // VOP3P (gfx90a/gfx940, CDNA3 §12.10): each source supplies one half, picked by its
    // op_sel bit. The asm parser (targets/amdgpu/asm.ts) turns `op_sel:[x,y]` into the
    // operand `opsel` = x | y << 1; the table's printer never emits this instruction.
    mnemonic: "v_pk_mov_b32",
    enc: "VOP3",
    desc: "D.u[31:0] = S0.u[op_sel[0] ? 63:32 : 31:0]; D.u[63:32] = S1.u[op_sel[1] ? 63:32 : 31:0]",
    ops: [
      { name: "vdst", out: true, w: 64 },
      { name: "src0", w: 64 },
      { name: "src1", w: 64 },
      { name: "opsel", w: 32 },
    ],
    only: [9],
    uses: ["exec"],
    sem: {
      lane: <V, B>(bv: BV<V, B>, [s0, s1, sel]: V[]) => {
        const half = (x: V, hi: B) => bv.ite(hi, bv.extract(x, 63, 32), bv.extract(x, 31, 0));
        return [bv.concat(half(s1!, bv.bitAt(sel!, 1)), half(s0!, bv.bitAt(sel!, 0)))];
      },
    },
  },
  shift64("v_lshlrev_b64", "D.u64 = S1.u64 << S0.u[5:0]", "shl"),
  shift64("v_lshrrev_b64", "D.u64 = S1.u64 >> S0.u[5:0]", "lshr"),
  shift64("v_ashrrev_i64", "D.i64 = S1.i64 >> S0.u[5:0] (arithmetic)", "ashr"),
  {
    mnemonic: "v_readfirstlane_b32",
    enc: "VOP1",
    hazard: { readlaneSrc: 1, rwLane: true },
    move: "copy",
    crossLane: true,
    desc: "SDST = S0[EXEC == 0 ? 0 : ff1(EXEC)] (VOP1 opcode writing an SGPR)",
    ops: [
      { name: "sdst", out: true, w: 32 },
      { name: "src0", w: 32 },
    ],
    uses: ["exec"],
    sem: {
      wave: <V, B>(bv: BV<V, B>, io: WaveIO<V, B>) => {
        const lanes = io.readLanes(1);
        const exec = io.exec();
        let r: V = lanes[0]!;
        for (let i = io.wave - 1; i >= 0; i--) r = bv.ite(bv.bitAt(exec, i), lanes[i]!, r);
        io.write(0, r);
      },
    },
  },
  {
    mnemonic: "v_readlane_b32",
    enc: "VOP3",
    hazard: { readlaneSrc: 1, laneSelect: 2, rwLane: true },
    move: "copy",
    crossLane: true,
    desc: "SDST = S0[S1.u[5:0]] (wave32: S1.u[4:0]); ignores EXEC",
    ops: [
      { name: "sdst", out: true, w: 32 },
      { name: "src0", w: 32 },
      { name: "src1", w: 32 },
    ],
    sem: {
      wave: <V, B>(bv: BV<V, B>, io: WaveIO<V, B>) => {
        const lanes = io.readLanes(1);
        const sel = bv.extract(io.read(2), io.wave === 64 ? 5 : 4, 0);
        let r: V = lanes[0]!;
        for (let i = 1; i < io.wave; i++) r = bv.ite(bv.eq(sel, bv.k(i, bv.width(sel))), lanes[i]!, r);
        io.write(0, r);
      },
    },
  },
  {
    // AMD RDNA3 ISA §16.10 V_WRITELANE_B32 pseudocode: "lane = S1.u32[4:0] (wave32) / [5:0]
    // (wave64); VGPR[lane][VDST] = S0.b32" — EXEC is not read; every other lane keeps VDST
    // (tied). Vega §12.11 the same for wave64.
    mnemonic: "v_writelane_b32",
    enc: "VOP3",
    hazard: { laneSelect: 2, rwLane: true },
    crossLane: true,
    desc: "VDST[S1.u[5:0]] = S0.u (wave32: S1.u[4:0]); ignores EXEC; other lanes unchanged",
    ops: [
      { name: "vdst", out: true, tied: true, w: 32 },
      { name: "src0", w: 32 },
      { name: "src1", w: 32 },
    ],
    sem: {
      wave: <V, B>(bv: BV<V, B>, io: WaveIO<V, B>) => {
        const sel = bv.extract(io.read(2), io.wave === 64 ? 5 : 4, 0);
        const x = io.read(1);
        io.writeLanes(
          0,
          io.readLanes(0).map((old, i) => bv.ite(bv.eq(sel, bv.k(i, bv.width(sel))), x, old)),
        );
      },
    },
  },
  permlane("v_permlane16_b32", false),
  permlane("v_permlanex16_b32", true),
  mbcnt("lo"),
  mbcnt("hi"),
] as const satisfies readonly IsaRecord[];
