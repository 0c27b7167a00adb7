/**
 * Test helpers shared by test/prove_compiled_loop.test.ts and the costly compiled-loop proofs
 * of test/prove-full/: one compiled function and the specs of the `.f32` redux loops.
 */
import type { RoutineSpec } from "../src/ir/ir.js";
import type { WarpForm } from "../src/ir/warp_forms.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import type { CompiledFunction } from "../targets/llvm/compiled.js";
import { compileFor } from "../targets/llvm/compile_for.js";

const V = { kind: "v" } as const;

/** `redux.sync.{min,max}[.NaN].f32 d, a, membermask` with a and membermask in VGPRs, unguarded. */
export const f32 = (reduxOp: "min" | "max", NaN: boolean): RoutineSpec => ({ form: { op: "redux", reduxOp, type: "f32", abs: false, NaN } as WarpForm, kinds: { a: V, membermask: V }, guarded: false });

/** The `vgpr` variant of the one function compiled from `spec`, and its SGPR arguments. */
export async function vgprFn(kind: "hip" | "llvm", mcpu: Mcpu, spec: RoutineSpec): Promise<{ cf: CompiledFunction; sregs: number[] }> {
  const { set, sregs } = await compileFor(kind, [{ name: "r0", spec }], mcpu, "isa");
  return { cf: set.functions.find((f) => !f.fn.alias && f.variant === "vgpr")!, sregs };
}
