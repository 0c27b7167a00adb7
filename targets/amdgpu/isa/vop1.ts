/**
 * @fileoverview VOP1 records (one source). Semantics from the AMD "Vega" ISA manual §12.9
 * and "RDNA3" §16.9 (VOP1 opcodes); identical on every targeted generation.
 */
import { vop1 } from "./record.js";
import type { IsaRecord } from "./record.js";

export const VOP1: IsaRecord[] = [
  vop1("v_mov_b32", "D.u = S0.u", (_bv, [s0]) => [s0!]),
  vop1("v_not_b32", "D.u = ~S0.u", (bv, [s0]) => [bv.not(s0!)]),
];
