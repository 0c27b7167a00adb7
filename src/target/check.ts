/**
 * @fileoverview What `verify` (src/check/verify.ts) needs from each target: the rows of one
 * routine (one per applicable rule, shadowed ones included) with their verdicts on the
 * checker's inputs. The comparison with the reference and the counterexample text are the
 * driver's (`compareOutputs`, `outputCounterexample`, `checkScalar`), used by every target.
 * Implemented by targets/amdgpu/verify.ts and targets/portable/verify.ts.
 */
import type { Profile } from "../ir/forms.js";
import type { RoutineSpec } from "../ir/ir.js";
import type { ScalarCase } from "../check/inputs.js";
import type { MatchCase } from "../check/warps.js";
import type { WarpCase } from "../check/warp_cases.js";
import type { VerifyRow, VerifyTarget } from "../check/verify.js";

/** One routine × profile × target to verify, on `cases` (scalar cases or warps, by the family's shape). */
export interface VerifyJob {
  spec: RoutineSpec;
  profile: Profile;
  target: VerifyTarget;
  cases: ScalarCase[] | (MatchCase | WarpCase)[];
  /** Verdicts by the target's identity of a lowering (identical code gives the same verdict), per verify call. */
  cache: Map<string, unknown>;
  /** The warps the hip/llvm rows run of `cases` (`VerifyOptions.compiledWarps`). */
  compiledWarps?: "tenth" | "all";
}

export interface VerifyService {
  /** The `VerifyTarget` kind this service runs. */
  readonly kind: VerifyTarget["kind"];
  /**
   * The job's rows, in rule order. A batching target may return rows whose verdict is filled
   * in by a later `flush`.
   */
  verify(job: VerifyJob): Promise<VerifyRow[]>;
  /** Rows returned but not yet run (batching targets). */
  pending?(): number;
  /**
   * Runs the pending rows and fills in their verdicts; `note`, where given, hears what it is
   * doing, a short line at a time (`hip gfx942: compiling 17 functions`, `hip: 3/17 functions
   * run`), for progress output during a long flush.
   */
  flush?(note?: (what: string) => void): Promise<void>;
}
