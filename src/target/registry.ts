/**
 * @fileoverview Where the targets meet the target-agnostic code. `src/` never imports
 * `targets/`: each target-specific capability the drivers (lower, verify, check, report,
 * prove) need is an interface in src/target/types.ts, and the composition root
 * (src/compose.ts, imported by the CLI, the library entry, the scripts, the prover workers
 * and the test setup) registers the implementations from `targets/` here, once.
 */
import type { TargetServices } from "./types.js";

let services: TargetServices | null = null;

/**
 * Registers the target implementations (the composition root calls this once; registering
 * the same object again is a no-op).
 * @throws Error if a different set is registered after the first.
 */
export function registerTargets(s: TargetServices): void {
  if (services && services !== s) throw new Error("ptx-lower: targets registered twice");
  services = s;
}

/**
 * The registered target implementations.
 * @throws Error when nothing is registered: the caller did not import src/compose.ts (the
 *   library entry src/index.ts does).
 */
export function targetServices(): TargetServices {
  if (!services) throw new Error("ptx-lower: no targets registered; import src/compose.ts (the library entry does) before lowering or checking");
  return services;
}
