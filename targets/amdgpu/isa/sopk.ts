/**
 * @fileoverview SOPK records (scalar, 16-bit immediate). Semantics from the AMD "Vega" ISA
 * manual ch. 12 and "RDNA3" ch. 16 (SOPK). Emitted by llc-19 for 16-bit constants; checked against
 * LLVM in targets/amdgpu/oracle/llvm.ts.
 */
import type { IsaRecord } from "./record.js";

export const SOPK = [
  {
    mnemonic: "s_movk_i32",
    enc: "SOPK",
    desc: "D.i = signext(SIMM16)",
    ops: [
      { name: "sdst", out: true, w: 32 },
      { name: "simm16", w: 16 },
    ],
    sem: { scalar: (bv, [simm16]) => ({ d: [bv.sext(simm16!, 32)] }) },
  },
] as const satisfies readonly IsaRecord[];
