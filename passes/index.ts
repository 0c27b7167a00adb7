/**
 * @fileoverview THE pipeline, in order (as TypeScript's transformer list is assembled).
 *
 * Module passes, once per module:
 *   1. validate    — src/ir/build.ts `parseModule`: parse, and check every family instruction
 *                    as ptxas does (the family's `syntax` and `validate`, src/families/*.ts),
 *                    in the same traversal (a second traversal would cost throughput and
 *                    could reorder the diagnostics).
 *   2. uniformity  — passes/uniformity.ts: the kind (divergent, uniform, immediate) of every source.
 *   3. group       — passes/group.ts: occurrences grouped by routine identity.
 * Routine passes, once per routine × target row (AMDGPU; JS and C build their portable IR
 * with the selected portable rule in one step):
 *   select (passes/select.ts, the one policy) chooses among the rules after running each
 *   rule through `AMDGPU_ROUTINE_PASSES`.
 * Printing is the target's (targets/<t>/module.ts).
 */
import { emit } from "./emit.js";
import { guard, guardPrior } from "./guard.js";
import { legalise } from "./legalise.js";
import { rename90a } from "./rename90a.js";
import { hazards } from "./hazards.js";

// Module passes 2–3: in ./module.ts, so that lowering for a target other than AMDGPU (and
// src/lower.ts, which runs them for every target) does not load the AMDGPU routine passes.
export { runModulePasses } from "./module.js";

/** The AMDGPU routine passes, in order (targets/amdgpu/lower.ts `lowerWithRule` runs them). */
export const AMDGPU_ROUTINE_PASSES = [guardPrior, emit, guard, legalise, rename90a, hazards] as const;

/** Verify between passes (passes/verify.ts): on when `PTXL_VERIFY_PASSES=1` (the test setup sets it). */
export const VERIFY_PASSES = process.env.PTXL_VERIFY_PASSES === "1";
