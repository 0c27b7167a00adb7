/**
 * @fileoverview The JS and C columns of `report`: the selected portable rule of each routine,
 * with the verdict of the checker's row (no instruction counts: the C compiler and the JS
 * engine schedule the code).
 */
import type { RoutineSpec } from "../../src/ir/ir.js";
import type { VerifyRow, VerifyTarget } from "../../src/check/verify.js";
import type { ReportTarget } from "../../src/report.js";
import { errText, verdictOf } from "../../src/report.js";
import type { ReportService } from "../../src/target/report.js";
import { selectPortableRule } from "./rules/index.js";

function portableTarget(spec: RoutineSpec, target: "js" | "c", row: VerifyRow | undefined, ran: boolean): ReportTarget {
  let rule: string;
  try {
    rule = selectPortableRule(spec).name;
  } catch (e) {
    return { target, mcpu: null, rule: "(none)", static: null, dynamic: null, verdict: { status: "error", message: errText(e) } };
  }
  return { target, mcpu: null, rule, static: null, dynamic: null, verdict: verdictOf(row, ran, "the checker did not run (it failed on this routine)") };
}


export const jsReport: ReportService = { kind: "js", row: (spec, _profile, _t, row, ran) => portableTarget(spec, "js", row, ran) };
export const cReport: ReportService = { kind: "c", row: (spec, _profile, _t, row, ran) => portableTarget(spec, "c", row, ran) };
