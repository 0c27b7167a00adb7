/**
 * @fileoverview Where the targets meet the target-agnostic code. `src/` never imports
 * `targets/`: each target-specific capability the drivers (lower, verify, check, report,
 * prove) need is an interface in src/target/types.ts, and the composition root
 * (src/compose.ts, imported by the CLI, the library entry, the scripts, the prover workers
 * and the test setup) registers the implementations from `targets/` here, once.
 */
import type { TargetServices } from "./types.js";
import type { LowerServices } from "./lower.js";

let services: TargetServices | null = null;
/** The output targets, registered alone (src/compose_outputs.ts) or with the rest. */
let outputs: LowerServices | null = null;

/**
 * Registers the target implementations (the composition root calls this once; registering
 * the same object again is a no-op).
 * @throws Error if a different set is registered after the first, or a set whose output
 *   targets are not the ones registered alone before it.
 */
export function registerTargets(s: TargetServices): void {
  if ((services && services !== s) || (outputs && outputs !== s.lower)) throw new Error("ptx-lower: targets registered twice");
  services = s;
  outputs = s.lower;
}

/**
 * Registers the output targets alone (src/compose_outputs.ts): what `lowerModule` needs, for
 * a command that lowers and checks nothing (the CLI's `lower` and `port`), so that it does not
 * load the checkers and provers. The full set (src/compose.ts) may follow, with these same
 * output targets; registering the same object again is a no-op.
 * @throws Error if different output targets are registered after the first.
 */
export function registerOutputTargets(l: LowerServices): void {
  if (outputs && outputs !== l) throw new Error("ptx-lower: output targets registered twice");
  outputs = l;
}

/**
 * The registered target implementations.
 * @throws Error when nothing is registered: the caller did not import src/compose.ts (the
 *   library entry does).
 */
export function targetServices(): TargetServices {
  if (!services) throw new Error("ptx-lower: no targets registered; import src/compose.ts (the library entry does) before lowering or checking");
  return services;
}

/**
 * The registered output targets (src/lower.ts `lowerModule`): registered alone
 * (src/compose_outputs.ts) or with every other service (src/compose.ts).
 * @throws Error when neither is imported.
 */
export function outputTargets(): LowerServices {
  if (!outputs) throw new Error("ptx-lower: no targets registered; import src/compose.ts (the library entry does) before lowering or checking");
  return outputs;
}
