/**
 * @fileoverview AMDGPU routine pass "legalise": operands made legal for the processor
 * (encodings, constant-bus limits, literal rules; targets/amdgpu/routine.ts `legalize`).
 */
import type { RoutineState } from "../targets/amdgpu/lower.js";
import type { Pass } from "./types.js";

export const legalise: Pass<RoutineState> = {
  name: "legalise",
  run(x) {
    x.lines = x.m.finish();
    return x;
  },
};
