/**
 * @fileoverview AMDGPU routine pass "emit": the selected rule writes its sequence into the
 * routine's builder (targets/amdgpu/routine.ts), reading its sources where the routine
 * contract puts them.
 */
import type { RoutineState } from "../targets/amdgpu/lower.js";
import type { Pass } from "./types.js";

export const emit: Pass<RoutineState> = {
  name: "emit",
  run(x) {
    x.rule.emit(x.spec.form, x.m, { spec: x.spec, t: x.t, profile: x.profile });
    return x;
  },
};
