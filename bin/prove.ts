/**
 * @fileoverview `verify --prove`: adapts src/check/prove.ts verdicts to verify rows.
 */
import type { Profile } from "../src/ir/forms.js";
import type { RoutineSpec } from "../src/ir/ir.js";
import type { VerifyRow, VerifyTarget } from "../src/check/verify.js";

export async function proveRows(_specs: { spec: RoutineSpec; profile: Profile }[], _targets: VerifyTarget[], _o: { onProgress?: (done: number) => void }): Promise<VerifyRow[]> {
  throw new Error("prove: not implemented yet");
}
