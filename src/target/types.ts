/**
 * @fileoverview The target-specific capabilities the target-agnostic drivers use, as
 * interfaces (implemented under targets/, registered by src/compose.ts). Each section names
 * the driver that consumes it.
 */
import type { ProverServices } from "./prover.js";
import type { LowerServices } from "./lower.js";
import type { VerifyService } from "./check.js";
import type { VectorService } from "./vectors.js";
import type { ReportService } from "./report.js";

export interface TargetServices {
  /** src/check/prove.ts, src/check/prove_worker.ts: the prover models of each target. */
  readonly prover: ProverServices;
  /** src/lower.ts, src/check/verify.ts, src/check/vectors.ts, src/report.ts: lowering and running. */
  readonly lower: LowerServices;
  /** src/check/verify.ts: one service per VerifyTarget kind (amdgpu, js, c). */
  readonly verify: readonly VerifyService[];
  /** src/check/vectors.ts (`check`): amdgpu, js, c and the portable IR's own evaluator. */
  readonly vectors: readonly VectorService[];
  /** src/report.ts: one column service per VerifyTarget kind. */
  readonly report: readonly ReportService[];
}
