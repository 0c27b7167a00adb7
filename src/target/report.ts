/**
 * @fileoverview What `report` (src/report.ts) needs from each target: its column for one
 * routine — the selected rule, the counts it has, and the verdict of the checker's row.
 * Implemented by targets/amdgpu/report.ts and targets/portable/report.ts.
 */
import type { Profile } from "../ir/forms.js";
import type { RoutineSpec } from "../ir/ir.js";
import type { VerifyRow, VerifyTarget } from "../check/verify.js";
import type { ReportTarget } from "../report.js";

export interface ReportService {
  readonly kind: VerifyTarget["kind"];
  /** The routine's column on target `t`; `row` is the checker's row for it (if the checker ran: `ran`). */
  row(spec: RoutineSpec, profile: Profile, t: VerifyTarget, row: VerifyRow | undefined, ran: boolean): ReportTarget;
}
