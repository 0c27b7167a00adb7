/**
 * @fileoverview SOP1 records (scalar, one source). Semantics from the AMD "Vega" ISA manual
 * §12.2 and "RDNA3" §16.2. `s_ff1_i32_*` is named `s_ctz_i32_*` in RDNA3; llvm-mc-19 accepts
 * both spellings on gfx1100.
 */
import type { BV } from "../../../src/sem/bv.js";
import type { IsaRecord } from "./record.js";
import { sop1 } from "./record.js";
import { bitReverse, bits, ff1, nonzero } from "./util.js";

const saveexec = <M extends string>(mnemonic: M, w: 32 | 64, op: "and" | "or" | "andn2", only?: readonly (9 | 10 | 11)[]): IsaRecord<M> => ({
  mnemonic,
  enc: "SOP1",
  desc: `D = EXEC; EXEC = S0 ${op === "and" ? "&" : op === "or" ? "|" : "& ~"}EXEC; SCC = EXEC != 0`,
  ops: [
    { name: "sdst", out: true, w },
    { name: "ssrc0", w },
  ],
  uses: ["exec"],
  defs: ["exec", "scc"],
  ...(only ? { only } : {}),
  sem: {
    wave: (bv, io) => {
      const exec = io.exec();
      const lo = io.wave === w ? exec : bv.extract(exec, w - 1, 0);
      const src = io.read(1);
      const next = op === "andn2" ? bv.and(src, bv.not(lo)) : bv[op](src, lo);
      io.write(0, lo);
      io.setExec(io.wave === w ? next : bv.concat(bv.extract(exec, io.wave - 1, w), next));
      io.setScc(nonzero(bv, next));
    },
  },
});

/** CountOneBits(x) as a 32-bit result, and SCC = result != 0. */
function popcount<V, B>(bv: BV<V, B>, x: V): { d: V[]; scc: B } {
  let n = bv.k(0, 32);
  for (let i = 0; i < bv.width(x); i++) n = bv.add(n, bv.zext(bv.extract(x, i, i), 32));
  return { d: [n], scc: nonzero(bv, n) };
}

export const SOP1 = [
  { ...sop1("s_mov_b32", "D.u = S0.u", (_bv, [s0]) => ({ d: [s0!] })), move: "copy", bitwise: true },
  { ...sop1("s_mov_b64", "D.u64 = S0.u64", (_bv, [s0]) => ({ d: [s0!] }), 64), move: "copy", bitwise: true },
  { ...sop1("s_not_b32", "D.u = ~S0.u; SCC = D != 0", (bv, [s0]) => ({ d: [bv.not(s0!)], scc: nonzero(bv, bv.not(s0!)) }), 32, true), bitwise: true },
  sop1("s_sext_i32_i8", "D.i = signext(S0.i[7:0])", (bv, [s0]) => ({ d: [bv.sext(bv.extract(s0!, 7, 0), 32)] })),
  sop1("s_sext_i32_i16", "D.i = signext(S0.i[15:0])", (bv, [s0]) => ({ d: [bv.sext(bv.extract(s0!, 15, 0), 32)] })),
  {
    ...sop1("s_ff1_i32_b32", "D.i = index of the lowest 1 bit of S0, or -1", (bv, [s0]) => ({ d: [ff1(bv, s0!)] })),
  },
  {
    mnemonic: "s_ff1_i32_b64",
    enc: "SOP1",
    desc: "D.i = index of the lowest 1 bit of S0.u64, or -1",
    ops: [
      { name: "sdst", out: true, w: 32 },
      { name: "ssrc0", w: 64 },
    ],
    sem: { scalar: (bv, [s0]) => ({ d: [ff1(bv, s0!)] }) },
  },
  // Vega §12.2 / RDNA3 §16.2 S_BCNT1_I32_B32/B64: "D.i = CountOneBits(S0); SCC = D != 0".
  sop1("s_bcnt1_i32_b32", "D.i = CountOneBits(S0.u); SCC = D != 0", (bv, [s0]) => popcount(bv, s0!), 32, true),
  {
    mnemonic: "s_bcnt1_i32_b64",
    enc: "SOP1",
    desc: "D.i = CountOneBits(S0.u64); SCC = D != 0",
    ops: [
      { name: "sdst", out: true, w: 32 },
      { name: "ssrc0", w: 64 },
    ],
    defs: ["scc"],
    sem: { scalar: (bv, [s0]) => popcount(bv, s0!) },
  },
  saveexec("s_and_saveexec_b64", 64, "and"),
  saveexec("s_and_saveexec_b32", 32, "and", [10, 11]),
  // Emitted by llc-19 for if/else (checked against LLVM in targets/amdgpu/oracle/llvm.ts): Vega ch. 12
  // SOP1 S_ANDN2_SAVEEXEC_B64 (RDNA3: s_and_not1_saveexec); the _b32 form is GFX10+.
  saveexec("s_andn2_saveexec_b64", 64, "andn2"),
  saveexec("s_andn2_saveexec_b32", 32, "andn2", [10, 11]),
  // Emitted by llc-19 (checked against LLVM in targets/amdgpu/oracle/llvm.ts): Vega ch. 12 SOP1 S_BREV_B32.
  sop1("s_brev_b32", "D.u[31:0] = S0.u[0:31] (bit reverse)", (bv, [s0]) => ({ d: [bitReverse(bv, s0!)] })),
  // Emitted by clang-19 for the hip header (`x | 0x80000000`): Vega §12.2 / RDNA3 §16.2
  // S_BITSET1_B32. D is read and written (tied); SCC is not written.
  {
    mnemonic: "s_bitset1_b32",
    enc: "SOP1",
    desc: "D.u[S0.u[4:0]] = 1",
    ops: [
      { name: "sdst", out: true, tied: true, w: 32 },
      { name: "ssrc0", w: 32 },
    ],
    sem: { scalar: (bv, [d, s0]) => ({ d: [bv.or(d!, bv.shl(bv.k(1, 32), bits(bv, s0!, 4)))] }) },
  },
  // S_BITSET0_B32 (Vega §12.2 / RDNA3 §16.2), emitted by llc-19 for the llvm module's redux
  // loop (issue 15). D is read and written (tied); SCC is not written.
  {
    mnemonic: "s_bitset0_b32",
    enc: "SOP1",
    desc: "D.u[S0.u[4:0]] = 0",
    ops: [
      { name: "sdst", out: true, tied: true, w: 32 },
      { name: "ssrc0", w: 32 },
    ],
    sem: { scalar: (bv, [d, s0]) => ({ d: [bv.and(d!, bv.not(bv.shl(bv.k(1, 32), bits(bv, s0!, 4))))] }) },
  },
] as const satisfies readonly IsaRecord[];
