/**
 * @fileoverview Which forms a target has no lowering of yet, and which forms are warp-level:
 * the two questions the output targets ask while lowering (targets/amdgpu/module.ts,
 * targets/hip/module.ts, the printers), in a file of their own so that lowering does not load
 * the checker (./verify.ts re-exports both).
 */
import type { Form } from "../ir/forms.js";
import { familyOf } from "../families/index.js";
import type { WarpForm } from "../ir/warp_forms.js";
import { warpInstName } from "../ir/warp_forms.js";
import { messages } from "../diag.js";

/**
 * Why a target has no lowering of `f` yet, or null (none today): `no AMDGPU lowering for shfl.sync yet (issue 15)`. Rows of such a routine
 * are `unknown` with this reason, vectors fail with it: never a crash, never skipped.
 */
export function missingLowering(target: "AMDGPU" | "HIP" | "LLVM IR", f: Form): string | null {
  if (!isWarpLevel(f)) return null;
  // Every target lowers every warp-level form now: AMDGPU by its rules (redux .f32:
  // targets/amdgpu/rules/redux_f32.ts), HIP and LLVM IR by their functions (targets/hip/print.ts,
  // targets/llvm/print.ts). A form added to the family before some target lowers it is named
  // here, so that its rows are `unknown` with the reason and its vectors fail with it.
  const gaps: readonly { target: string; form: (f: Form) => boolean }[] = [];
  if (!gaps.some((g) => g.target === target && g.form(f))) return null;
  return messages.noLoweringYet(target, warpInstName(f));
}

/** A warp-level form (not match.sync, not scalar). */
export function isWarpLevel(f: Form): f is WarpForm {
  return familyOf(f).name === "warp";
}
