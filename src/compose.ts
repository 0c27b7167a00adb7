/**
 * @fileoverview THE composition root: with ./compose_outputs.ts (its output targets, each
 * imported at its first use), the one file under src/ that imports targets/. It registers
 * every target's implementation of the interfaces in src/target/ (see
 * src/target/registry.ts); the CLI's checking commands (bin/), the library entry
 * (src/index.ts), the scripts, the prover workers and the test setup import it first. The
 * CLI's `lower` and `port` import ./compose_outputs.ts alone: they check nothing, and loading
 * the checkers and provers would be most of their start-up.
 */
import { registerTargets } from "./target/registry.js";
import type { TargetServices } from "./target/types.js";
import { amdgpuProver, matrixTargets } from "../targets/amdgpu/prove/model.js";
import { pirProver } from "../targets/portable/prove.js";
// The output targets, each imported at its first use (./compose_outputs.ts).
import { OUTPUTS } from "./compose_outputs.js";
import { amdgpuVerify } from "../targets/amdgpu/verify.js";
import { cVerify, jsVerify } from "../targets/portable/verify.js";
import { amdgpuVectors } from "../targets/amdgpu/vectors.js";
import { amdgpuReport } from "../targets/amdgpu/report.js";
import { cReport, jsReport } from "../targets/portable/report.js";
import { cVectors, jsVectors, pirVectors } from "../targets/portable/vectors.js";
import { compiledReport, compiledVectors, compiledVerify } from "../targets/llvm/verify.js";

/** Every target's services. */
export const SERVICES: TargetServices = {
  prover: { amdgpu: amdgpuProver, pir: pirProver, matrixTargets },
  lower: OUTPUTS,
  verify: [amdgpuVerify, jsVerify, cVerify, compiledVerify("hip"), compiledVerify("llvm")],
  vectors: [amdgpuVectors, jsVectors, cVectors, pirVectors, compiledVectors("hip"), compiledVectors("llvm")],
  report: [amdgpuReport, jsReport, cReport, compiledReport("hip"), compiledReport("llvm")],
};
registerTargets(SERVICES);

// The target-specific part of the public API (re-exported by src/index.ts).
export type { Mcpu, Target } from "../targets/amdgpu/regs.js";
export { MCPUS, TARGETS } from "../targets/amdgpu/regs.js";
export type { AmdRoutine } from "../targets/amdgpu/lower.js";
export { lowerRoutine, lowerWithRule, applicableRules, printRoutine } from "../targets/amdgpu/lower.js";
// The width of each source operand (an immediate's value must fit it): src/args.ts checks specs with it.
export { sourceWidth } from "../targets/amdgpu/routine.js";
export type { WaveState } from "../targets/amdgpu/interp.js";
export { run } from "../targets/amdgpu/interp.js";
export { execRoutine } from "../targets/amdgpu/exec.js";
export { RECORDS, record } from "../targets/amdgpu/isa/index.js";
export { lowerPortable, portableRulesFor } from "../targets/portable/rules/index.js";
export { evalPir, evalPirConcrete } from "../targets/portable/pir.js";
export { printJsModule } from "../targets/js/print.js";
export { printCModule } from "../targets/c/print.js";

