/**
 * @fileoverview VOP2 records (two sources; `_e64` is the VOP3 encoding of the same opcode).
 * Semantics from the AMD "Vega" ISA manual §12.7 and "RDNA3" §16.7 (VOP2 opcodes). The
 * `*rev` shifts take the count in S0, masked to 5 bits by the hardware.
 */
import { vop2 } from "./record.js";
import type { IsaRecord, LaneSem } from "./record.js";
import { bits } from "./util.js";

/**
 * A 32-bit add with a carry out into a lane mask (`vdst, sdst, src0, src1`) and, with
 * `carryIn`, a carry in from a lane mask (`…, src2`). Lane result: [D, carry (1 bit)].
 */
function addCarry<M extends string>(mnemonic: M, desc: string, carryIn: boolean): IsaRecord<M> {
  const lane: LaneSem = (bv, [s0, s1, m], laneId) => {
    const cin = carryIn ? bv.zext(bv.extract(m!, laneId, laneId), 33) : bv.k(0, 33);
    const sum = bv.add(bv.add(bv.zext(s0!, 33), bv.zext(s1!, 33)), cin);
    return [bv.extract(sum, 31, 0), bv.extract(sum, 32, 32)];
  };
  return {
    mnemonic,
    enc: "VOP3B",
    desc,
    ops: [
      { name: "vdst", out: true, w: 32 },
      { name: "sdst", out: true, w: "wave" },
      { name: "src0", w: 32 },
      { name: "src1", w: 32 },
      ...(carryIn ? [{ name: "src2", w: "wave" as const }] : []),
    ],
    uses: ["exec"],
    sem: { lane },
    ...(carryIn ? {} : { commutative: true as const }),
  };
}

/**
 * A 32-bit subtract with a borrow out into a lane mask (`vdst, sdst, src0, src1`): S0 − S1
 * (`rev`: S1 − S0), and with `borrowIn` minus the lane's bit of `src2`. Lane result: [D,
 * borrow (1 bit)], the borrow being bit 32 of the difference of the zero-extended operands
 * (AMD Vega ISA §12.7 V_SUB_CO_U32: "VCC = S1.u > S0.u"; V_SUBB_CO_U32: "VCC = (S1.u +
 * VCC > S0.u)").
 */
function subBorrow<M extends string>(mnemonic: M, desc: string, borrowIn: boolean, rev: boolean): IsaRecord<M> {
  const lane: LaneSem = (bv, [s0, s1, m], laneId) => {
    const [x, y] = rev ? [s1!, s0!] : [s0!, s1!];
    const bin = borrowIn ? bv.zext(bv.extract(m!, laneId, laneId), 33) : bv.k(0, 33);
    const diff = bv.sub(bv.sub(bv.zext(x, 33), bv.zext(y, 33)), bin);
    return [bv.extract(diff, 31, 0), bv.extract(diff, 32, 32)];
  };
  return {
    mnemonic,
    enc: "VOP3B",
    desc,
    ops: [
      { name: "vdst", out: true, w: 32 },
      { name: "sdst", out: true, w: "wave" },
      { name: "src0", w: 32 },
      { name: "src1", w: 32 },
      ...(borrowIn ? [{ name: "src2", w: "wave" as const }] : []),
    ],
    uses: ["exec"],
    sem: { lane },
  };
}

export const VOP2 = [
  { ...vop2("v_and_b32", "D.u = S0.u & S1.u", (bv, [s0, s1]) => [bv.and(s0!, s1!)]), commutative: true },
  { ...vop2("v_or_b32", "D.u = S0.u | S1.u", (bv, [s0, s1]) => [bv.or(s0!, s1!)]), commutative: true },
  { ...vop2("v_xor_b32", "D.u = S0.u ^ S1.u", (bv, [s0, s1]) => [bv.xor(s0!, s1!)]), commutative: true },
  vop2("v_lshlrev_b32", "D.u = S1.u << S0.u[4:0]", (bv, [s0, s1]) => [bv.shl(s1!, bits(bv, s0!, 4))]),
  vop2("v_lshrrev_b32", "D.u = S1.u >> S0.u[4:0]", (bv, [s0, s1]) => [bv.lshr(s1!, bits(bv, s0!, 4))]),
  vop2("v_ashrrev_i32", "D.i = S1.i >> S0.u[4:0] (arithmetic)", (bv, [s0, s1]) => [bv.ashr(s1!, bits(bv, s0!, 4))]),
  { ...vop2("v_min_u32", "D.u = S0.u < S1.u ? S0.u : S1.u", (bv, [s0, s1]) => [bv.ite(bv.ult(s0!, s1!), s0!, s1!)]), commutative: true },
  { ...vop2("v_max_u32", "D.u = S0.u >= S1.u ? S0.u : S1.u", (bv, [s0, s1]) => [bv.ite(bv.ule(s1!, s0!), s0!, s1!)]), commutative: true },
  { ...vop2("v_min_i32", "D.i = S0.i < S1.i ? S0.i : S1.i", (bv, [s0, s1]) => [bv.ite(bv.slt(s0!, s1!), s0!, s1!)]), commutative: true },
  { ...vop2("v_max_i32", "D.i = S0.i >= S1.i ? S0.i : S1.i", (bv, [s0, s1]) => [bv.ite(bv.sle(s1!, s0!), s0!, s1!)]), commutative: true },
  // GFX9/CDNA: the carry-less add is v_add_u32; GFX10+ renamed it v_add_nc_u32.
  { ...vop2("v_add_u32", "D.u = S0.u + S1.u (no carry out)", (bv, [s0, s1]) => [bv.add(s0!, s1!)], [9]), commutative: true },
  { ...vop2("v_add_nc_u32", "D.u = S0.u + S1.u (no carry out)", (bv, [s0, s1]) => [bv.add(s0!, s1!)], [10, 11]), commutative: true },
  vop2("v_sub_u32", "D.u = S0.u - S1.u (no borrow out)", (bv, [s0, s1]) => [bv.sub(s0!, s1!)], [9]),
  vop2("v_sub_nc_u32", "D.u = S0.u - S1.u (no borrow out)", (bv, [s0, s1]) => [bv.sub(s0!, s1!)], [10, 11]),
  // Emitted by llc-19 (checked against LLVM in targets/amdgpu/oracle/llvm.ts): Vega ch. 12 VOP2 V_SUBREV_U32.
  vop2("v_subrev_u32", "D.u = S1.u - S0.u (no borrow out)", (bv, [s0, s1]) => [bv.sub(s1!, s0!)], [9]),
  vop2("v_subrev_nc_u32", "D.u = S1.u - S0.u (no borrow out)", (bv, [s0, s1]) => [bv.sub(s1!, s0!)], [10, 11]),
  // Carry chains, emitted by clang-19 for 64-bit adds in the hip header (AMD Vega ISA §12.7
  // V_ADD_CO_U32 / V_ADDC_CO_U32, RDNA3 §16.7 V_ADD_CO_CI_U32 and §16.10 (VOP3B) V_ADD_CO_U32).
  // The carry mask (VCC for _e32, SDST for the VOP3B form) gets each active lane's carry and 0 in
  // inactive lanes, as a VOPC mask does; clang's code reads a lane's carry only in that lane.
  addCarry("v_add_co_u32", "D.u = S0.u + S1.u; SDST[laneId] = carry out", false),
  { ...addCarry("v_addc_co_u32", "D.u = S0.u + S1.u + SRC2[laneId]; SDST[laneId] = carry out", true), only: [9] },
  { ...addCarry("v_add_co_ci_u32", "D.u = S0.u + S1.u + SRC2[laneId]; SDST[laneId] = carry out", true), only: [10, 11] },
  // Borrow chains, emitted by clang-19 for 64-bit subtractions in the hip header (vsub,
  // vabsdiff): Vega §12.7 V_SUB_CO_U32 / V_SUBREV_CO_U32 / V_SUBB_CO_U32 / V_SUBBREV_CO_U32,
  // RDNA3 §16.7 V_SUB_CO_CI_U32 / V_SUBREV_CO_CI_U32 and §16.10 (VOP3B) V_SUB_CO_U32.
  subBorrow("v_sub_co_u32", "D.u = S0.u - S1.u; SDST[laneId] = borrow out (S1.u > S0.u)", false, false),
  subBorrow("v_subrev_co_u32", "D.u = S1.u - S0.u; SDST[laneId] = borrow out (S0.u > S1.u)", false, true),
  { ...subBorrow("v_subb_co_u32", "D.u = S0.u - S1.u - SRC2[laneId]; SDST[laneId] = borrow out", true, false), only: [9] },
  { ...subBorrow("v_subbrev_co_u32", "D.u = S1.u - S0.u - SRC2[laneId]; SDST[laneId] = borrow out", true, true), only: [9] },
  { ...subBorrow("v_sub_co_ci_u32", "D.u = S0.u - S1.u - SRC2[laneId]; SDST[laneId] = borrow out", true, false), only: [10, 11] },
  { ...subBorrow("v_subrev_co_ci_u32", "D.u = S1.u - S0.u - SRC2[laneId]; SDST[laneId] = borrow out", true, true), only: [10, 11] },
  {
    mnemonic: "v_cndmask_b32",
    enc: "VOP2",
    // VOP3 `-x`, `|x|` on src0/src1 (CLRX doc/GcnInstrsVopc.md, VOP3 NEG/ABS fields: "negate
    // floating point value … Applied after ABS"; clang-19 folds `select c, x ^ 0x80000000, …`
    // into them): bit 31 flipped or cleared.
    srcMods: true,
    desc: "D.u = VCC[laneId] ? S1.u : S0.u (VOP3: the mask is SSRC2)",
    ops: [
      { name: "vdst", out: true, w: 32 },
      { name: "src0", w: 32 },
      { name: "src1", w: 32 },
      { name: "src2", w: "wave" },
    ],
    uses: ["exec"],
    sem: { lane: (bv, [s0, s1, m], lane) => [bv.ite(bv.bitAt(m!, lane), s1!, s0!)] },
    move: "select",
  },
] as const satisfies readonly IsaRecord[];
