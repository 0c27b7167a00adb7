/**
 * @fileoverview The module passes of the pipeline (passes/index.ts lists it in order), once per
 * module: uniformity (passes/uniformity.ts) and grouping (passes/group.ts). In a file of their
 * own so that src/lower.ts runs them without loading the AMDGPU routine passes, which only the
 * AMDGPU target uses (passes/index.ts re-exports `runModulePasses`).
 */
import type { ParsedModule } from "../src/ir/build.js";
import type { ModuleRoutine } from "../src/target/lower.js";
import { routineSpecs } from "./uniformity.js";
import { group } from "./group.js";

/** Module passes 2–3 (validation ran while parsing): a parsed module's routines. */
export function runModulePasses(mod: ParsedModule): ModuleRoutine[] {
  return group.run({ mod, specs: routineSpecs(mod) });
}
