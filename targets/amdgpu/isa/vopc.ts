/**
 * @fileoverview VOPC records: per-lane integer compares writing a lane mask (VCC in the e32
 * encoding, any SGPR (pair) in e64). Inactive lanes get 0 (AMD "Vega" ISA manual §12.8,
 * "RDNA3" §16.8; LLVM's ballot relies on it).
 */
import type { BV } from "../../../src/sem/bv.js";
import type { IsaRecord, Relation, WaveIO } from "./record.js";
import { vopc } from "./record.js";

type Cmp = <V, B>(bv: BV<V, B>, x: V, y: V) => B;
const CMPS = [
  ["eq", "==", (bv, x, y) => bv.eq(x, y)],
  ["ne", "!=", (bv, x, y) => bv.notB(bv.eq(x, y))],
  ["lt", "<", (bv, x, y) => bv.ult(x, y)],
  ["le", "<=", (bv, x, y) => bv.ule(x, y)],
  ["gt", ">", (bv, x, y) => bv.ult(y, x)],
  ["ge", ">=", (bv, x, y) => bv.ule(y, x)],
] as const satisfies readonly (readonly [Relation, string, Cmp])[];
const SIGNED: Partial<Record<Relation, Cmp>> = {
  lt: (bv, x, y) => bv.slt(x, y),
  le: (bv, x, y) => bv.sle(x, y),
  gt: (bv, x, y) => bv.slt(y, x),
  ge: (bv, x, y) => bv.sle(y, x),
};
const SIGNS = ["u", "i"] as const;

/** Every relation × signedness, with the test to use (the signed one for `_i` lt/le/gt/ge). */
const cases = () => CMPS.flatMap(([rel, sym, cmp]) => SIGNS.map((sign) => ({ rel, sym, sign, c: (sign === "i" && SIGNED[rel]) || cmp })));

// V_CMPX (GFX10+ form, no SDST: EXEC = the compare of the active lanes, 0 elsewhere; RDNA2/3
// ch. "VOPC"). GFX9's v_cmpx also writes SDST and has another operand list; llc-19 uses
// s_and_saveexec there instead, so only the GFX10+ form is recorded. Emitted by llc-19 for
// divergent if/else; checked in targets/amdgpu/oracle/llvm.ts. 32-bit only: the interpreter's
// `WaveIO.readLanes` reads one VGPR, not a pair.
const CMPX = cases().map(({ rel, sym, sign, c }) => {
  const t = `${sign}32` as const;
  return {
    mnemonic: `v_cmpx_${rel}_${t}` as const,
    enc: "VOPC" as const,
    desc: `EXEC[laneId] = S0.${t} ${sym} S1.${t} (active lanes; GFX10+ writes no SDST)`,
    ops: [
      { name: "src0", w: 32 },
      { name: "src1", w: 32 },
    ],
    only: [10, 11] as const,
    uses: ["exec"] as const,
    defs: ["exec"] as const,
    cmp: { rel, signed: sign === "i", bits: 32 as const },
    sem: {
      wave: <V, B>(bv: BV<V, B>, io: WaveIO<V, B>) => {
        const x = io.readLanes(0);
        const y = io.readLanes(1);
        const exec = io.exec();
        let m = bv.k(0, io.wave);
        for (let l = 0; l < io.wave; l++) m = bv.or(m, bv.ite(bv.andB(bv.bitAt(exec, l), c(bv, x[l]!, y[l]!)), bv.k(1n << BigInt(l), io.wave), bv.k(0, io.wave)));
        io.setExec(m);
      },
    },
  };
});
// 16-bit compares (emitted by llc-19 for i16 ranges; checked in targets/amdgpu/oracle/llvm.ts): the
// operands are 32-bit registers of which the compare reads bits [15:0] (Vega ISA ch. 12, VOPC).
const CMP16 = cases().map(({ rel, sym, sign, c }) =>
  vopc(`v_cmp_${rel}_${sign}16` as const, `D[laneId] = S0.${sign}16 ${sym} S1.${sign}16`, (bv, [s0, s1]) => c(bv, bv.extract(s0!, 15, 0), bv.extract(s1!, 15, 0)), {
    rel,
    signed: sign === "i",
    bits: 16,
  }),
);
const cmpW = <W extends 32 | 64>(w: W) =>
  cases().map(({ rel, sym, sign, c }) => {
    const t = `${sign}${w}` as const;
    return vopc(`v_cmp_${rel}_${t}` as const, `D[laneId] = S0.${t} ${sym} S1.${t}`, (bv, [s0, s1]) => c(bv, s0!, s1!), { rel, signed: sign === "i", bits: w }, w);
  });

export const VOPC = [...CMPX, ...CMP16, ...cmpW(32), ...cmpW(64)] as const satisfies readonly IsaRecord[];
