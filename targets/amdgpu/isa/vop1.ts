/**
 * @fileoverview VOP1 records (one source). Semantics from the AMD "Vega" ISA manual §12.9
 * and "RDNA3" §16.9 (VOP1 opcodes); identical on every targeted generation.
 */
import { vop1 } from "./record.js";
import type { IsaRecord } from "./record.js";
import { bitReverse } from "./util.js";

export const VOP1 = [
  { ...vop1("v_mov_b32", "D.u = S0.u", (_bv, [s0]) => [s0!]), move: "copy" },
  vop1("v_not_b32", "D.u = ~S0.u", (bv, [s0]) => [bv.not(s0!)]),
  // Emitted by llc-19 (checked against LLVM in targets/amdgpu/oracle/llvm.ts).
  vop1("v_bfrev_b32", "D.u[31:0] = S0.u[0:31] (bit reverse; Vega ISA ch. 12, VOP1)", (bv, [s0]) => [bitReverse(bv, s0!)]),
  // CDNA3 (gfx940+) only; `only: [9]` is as close as the Gen field gets.
  { ...vop1("v_mov_b64", "D.u64 = S0.u64 (CDNA3 ISA ch. 12, VOP1)", (_bv, [s0]) => [s0!], 64), only: [9] as const },
] as const satisfies readonly IsaRecord[];
