/**
 * @fileoverview SOP2 records (scalar, two sources). Semantics from the AMD "Vega" ISA manual
 * §12.1 and "RDNA3" §16.1. Shift counts are masked to 5 bits (6 for 64-bit shifts).
 * `s_bfe_*`: the width field S1[22:16] is 7 bits and `(1 << w) - 1` is not defined by the
 * manual for w ≥ 32; the record yields a poison-like garbage value there (documented below)
 * so that no rule may depend on it.
 */
import type { BV } from "../../../src/sem/bv.js";
import type { IsaRecord } from "./record.js";
import { sop2 } from "./record.js";
import { bits, lowMask, nonzero, signextFromBit } from "./util.js";

/** `s_<name>_b32` and `_b64`: bit i of D is f of bit i of S0 and S1 (`bitwise`). */
const logic = <N extends string>(name: N, sym: string, f: <V, B>(bv: BV<V, B>, x: V, y: V) => V, commutative: boolean) =>
  ([32, 64] as const).map((w) => ({
    ...sop2(`s_${name}_b${w}` as const, `D = S0 ${sym} S1; SCC = D != 0`, (bv, [s0, s1]) => {
      const d = f(bv, s0!, s1!);
      return { d: [d], scc: nonzero(bv, d) };
    }, w),
    bitwise: true as const,
    ...(commutative ? { commutative: true as const } : {}),
  }));

/**
 * Bit-field extract; w ≥ 32 is unspecified by the manual: the result is then S0 ^ 0x5a5a5a5a
 * (an arbitrary stand-in, so a rule that consumed it would fail its checks).
 */
function sbfe<V, B>(bv: BV<V, B>, s0: V, s1: V, signed: boolean): V {
  const off = bits(bv, s1, 4);
  const w7 = bv.zext(bv.extract(s1, 22, 16), 32);
  const inRange = bv.ult(w7, bv.k(32, 32));
  const field = bv.and(signed ? bv.ashr(s0, off) : bv.lshr(s0, off), lowMask(bv, w7));
  const d = signed ? signextFromBit(bv, field, w7) : field;
  return bv.ite(inRange, d, bv.xor(s0, bv.k(0x5a5a5a5a, 32)));
}

/** The 64-bit s_bfe: offset S1[5:0], width S1[22:16]; w ≥ 64 is unspecified (same stand-in as `sbfe`). */
function sbfe64<V, B>(bv: BV<V, B>, s0: V, s1: V, signed: boolean): V {
  const off = bv.zext(bv.extract(s1, 5, 0), 64);
  const w7 = bv.zext(bv.extract(s1, 22, 16), 64);
  const inRange = bv.ult(w7, bv.k(64, 64));
  const field = bv.and(signed ? bv.ashr(s0, off) : bv.lshr(s0, off), lowMask(bv, w7));
  const d = signed ? signextFromBit(bv, field, w7) : field;
  return bv.ite(inRange, d, bv.xor(s0, bv.k(0x5a5a5a5a5a5a5a5an, 64)));
}

export const SOP2 = [
  ...logic("and", "&", (bv, x, y) => bv.and(x, y), true),
  ...logic("or", "|", (bv, x, y) => bv.or(x, y), true),
  ...logic("xor", "^", (bv, x, y) => bv.xor(x, y), true),
  ...logic("andn2", "& ~", (bv, x, y) => bv.and(x, bv.not(y)), false),
  sop2("s_lshl_b32", "D.u = S0.u << S1.u[4:0]; SCC = D != 0", (bv, [s0, s1]) => {
    const d = bv.shl(s0!, bits(bv, s1!, 4));
    return { d: [d], scc: nonzero(bv, d) };
  }),
  sop2("s_lshr_b32", "D.u = S0.u >> S1.u[4:0]; SCC = D != 0", (bv, [s0, s1]) => {
    const d = bv.lshr(s0!, bits(bv, s1!, 4));
    return { d: [d], scc: nonzero(bv, d) };
  }),
  sop2("s_ashr_i32", "D.i = S0.i >> S1.u[4:0]; SCC = D != 0", (bv, [s0, s1]) => {
    const d = bv.ashr(s0!, bits(bv, s1!, 4));
    return { d: [d], scc: nonzero(bv, d) };
  }),
  sop2("s_lshl_b64", "D.u64 = S0.u64 << S1.u[5:0]; SCC = D != 0", (bv, [s0, s1]) => {
    const d = bv.shl(s0!, bv.zext(bv.extract(s1!, 5, 0), 64));
    return { d: [d], scc: nonzero(bv, d) };
  }, 64, 32),
  sop2("s_ashr_i64", "D.i64 = S0.i64 >> S1.u[5:0]; SCC = D != 0", (bv, [s0, s1]) => {
    const d = bv.ashr(s0!, bv.zext(bv.extract(s1!, 5, 0), 64));
    return { d: [d], scc: nonzero(bv, d) };
  }, 64, 32),
  {
    ...sop2("s_add_u32", "D.u = S0.u + S1.u; SCC = carry out", (bv, [s0, s1]) => {
      const d = bv.add(s0!, s1!);
      return { d: [d], scc: bv.ult(d, s0!) };
    }),
    commutative: true,
  },
  // Emitted by clang-19 for 64-bit adds in the hip header: Vega §12.3 / RDNA3 §16.3 S_ADDC_U32.
  {
    ...sop2("s_addc_u32", "D.u = S0.u + S1.u + SCC; SCC = carry out", (bv, [s0, s1], scc) => {
      const sum = bv.add(bv.add(bv.zext(s0!, 33), bv.zext(s1!, 33)), bv.zext(bv.fromB(scc), 33));
      return { d: [bv.extract(sum, 31, 0)], scc: bv.bitAt(sum, 32) };
    }),
    uses: ["scc"],
    commutative: true,
  },
  sop2("s_sub_u32", "D.u = S0.u - S1.u; SCC = borrow", (bv, [s0, s1]) => ({ d: [bv.sub(s0!, s1!)], scc: bv.ult(s0!, s1!) })),
  // Emitted by clang-19 for a 64-bit negate in the hip header's redux loop (issue 15): Vega
  // §12.3 / RDNA3 §16.3 S_SUBB_U32 "D.u = S0.u - S1.u - SCC; SCC = borrow out".
  {
    ...sop2("s_subb_u32", "D.u = S0.u - S1.u - SCC; SCC = borrow out", (bv, [s0, s1], scc) => {
      const diff = bv.sub(bv.sub(bv.zext(s0!, 33), bv.zext(s1!, 33)), bv.zext(bv.fromB(scc), 33));
      return { d: [bv.extract(diff, 31, 0)], scc: bv.bitAt(diff, 32) };
    }),
    uses: ["scc"],
  },
  sop2("s_min_u32", "D.u = S0.u < S1.u ? S0.u : S1.u; SCC = S0 < S1", (bv, [s0, s1]) => ({
    d: [bv.ite(bv.ult(s0!, s1!), s0!, s1!)],
    scc: bv.ult(s0!, s1!),
  })),
  sop2("s_max_u32", "D.u = S0.u > S1.u ? S0.u : S1.u; SCC = S0 > S1", (bv, [s0, s1]) => ({
    d: [bv.ite(bv.ult(s1!, s0!), s0!, s1!)],
    scc: bv.ult(s1!, s0!),
  })),
  sop2("s_min_i32", "D.i = S0.i < S1.i ? S0.i : S1.i; SCC = S0 < S1", (bv, [s0, s1]) => ({
    d: [bv.ite(bv.slt(s0!, s1!), s0!, s1!)],
    scc: bv.slt(s0!, s1!),
  })),
  sop2("s_max_i32", "D.i = S0.i > S1.i ? S0.i : S1.i; SCC = S0 > S1", (bv, [s0, s1]) => ({
    d: [bv.ite(bv.slt(s1!, s0!), s0!, s1!)],
    scc: bv.slt(s1!, s0!),
  })),
  sop2("s_bfe_u32", "D.u = (S0.u >> S1.u[4:0]) & ((1 << S1.u[22:16]) - 1); SCC = D != 0", (bv, [s0, s1]) => {
    const d = sbfe(bv, s0!, s1!, false);
    return { d: [d], scc: nonzero(bv, d) };
  }),
  sop2("s_bfe_i32", "D.i = signext_from_bit((S0.i >> S1.u[4:0]) & ((1 << S1.u[22:16]) - 1), S1.u[22:16]); SCC = D != 0", (bv, [s0, s1]) => {
    const d = sbfe(bv, s0!, s1!, true);
    return { d: [d], scc: nonzero(bv, d) };
  }),
  // Emitted by llc-19 (checked against LLVM in targets/amdgpu/oracle/llvm.ts); Vega ISA ch. 12 (SOP2).
  {
    ...sop2("s_add_i32", "D.i = S0.i + S1.i; SCC = signed overflow", (bv, [s0, s1]) => {
      const d = bv.add(s0!, s1!);
      const sign = (x: typeof d) => bv.bitAt(x, 31);
      // Overflow: both operands have the same sign and the sum's sign differs.
      return { d: [d], scc: bv.andB(bv.eqB(sign(s0!), sign(s1!)), bv.notB(bv.eqB(sign(d), sign(s0!)))) };
    }),
    commutative: true,
  },
  sop2("s_sub_i32", "D.i = S0.i - S1.i; SCC = signed overflow", (bv, [s0, s1]) => {
    const d = bv.sub(s0!, s1!);
    const sign = (x: typeof d) => bv.bitAt(x, 31);
    // Overflow: the operands' signs differ and the result's sign differs from S0's.
    return { d: [d], scc: bv.andB(bv.notB(bv.eqB(sign(s0!), sign(s1!))), bv.notB(bv.eqB(sign(d), sign(s0!)))) };
  }),
  sop2("s_lshr_b64", "D.u64 = S0.u64 >> S1.u[5:0]; SCC = D != 0", (bv, [s0, s1]) => {
    const d = bv.lshr(s0!, bv.zext(bv.extract(s1!, 5, 0), 64));
    return { d: [d], scc: nonzero(bv, d) };
  }, 64, 32),
  sop2("s_bfe_u64", "D.u64 = (S0.u64 >> S1.u[5:0]) & ((1 << S1.u[22:16]) - 1); SCC = D != 0", (bv, [s0, s1]) => {
    const d = sbfe64(bv, s0!, s1!, false);
    return { d: [d], scc: nonzero(bv, d) };
  }, 64, 32),
  sop2("s_bfe_i64", "D.i64 = signext_from_bit((S0.i64 >> S1.u[5:0]) & ((1 << S1.u[22:16]) - 1), S1.u[22:16]); SCC = D != 0", (bv, [s0, s1]) => {
    const d = sbfe64(bv, s0!, s1!, true);
    return { d: [d], scc: nonzero(bv, d) };
  }, 64, 32),
  sop2("s_bfm_b32", "D.u = ((1 << S0.u[4:0]) - 1) << S1.u[4:0]", (bv, [s0, s1]) => ({
    d: [bv.shl(lowMask(bv, bits(bv, s0!, 4)), bits(bv, s1!, 4))],
  }), 32, 32, false),
  ...([32, 64] as const).map((w) => ({
    mnemonic: `s_cselect_b${w}` as const,
    enc: "SOP2" as const,
    desc: "D = SCC ? S0 : S1",
    ops: [
      { name: "sdst", out: true, w },
      { name: "ssrc0", w },
      { name: "ssrc1", w },
    ],
    uses: ["scc" as const],
    sem: { scalar: <V, B>(bv: BV<V, B>, [s0, s1]: V[], scc: B) => ({ d: [bv.ite(scc, s0!, s1!)] }) },
    move: "select" as const,
  })),
] as const satisfies readonly IsaRecord[];
