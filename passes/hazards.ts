/**
 * @fileoverview AMDGPU routine pass "hazards", last: the sequence as emitted, reordered where
 * that hides wait states, padded with the fewest waits where it does not
 * (targets/amdgpu/hazards.ts `hazardPass`), under the routine's boundary table (the
 * contract's, or LLVM's function boundary for the bench). A rule marked
 * `waits: "as-emitted"` places its own waits; the checker still verifies them.
 */
import type { RoutineState } from "../targets/amdgpu/lower.js";
import { hazardPass, hazardTarget, LLVM_ENTRY } from "../targets/amdgpu/hazards.js";
import { boundaryOf } from "../targets/amdgpu/routine.js";
import type { Pass } from "./types.js";

export const hazards: Pass<RoutineState> = {
  name: "hazards",
  run(x) {
    const boundary = x.boundaryKind === "contract" ? boundaryOf(x.spec, x.m.layout, x.t) : LLVM_ENTRY;
    const padded = x.rule.waits === "as-emitted" ? { lines: x.lines, hidden: 0 } : hazardPass(x.lines, hazardTarget(x.t), boundary);
    x.lines = padded.lines;
    x.hidden = padded.hidden;
    x.boundary = boundary;
    return x;
  },
};
