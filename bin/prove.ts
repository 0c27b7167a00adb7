/**
 * @fileoverview `verify --prove`: turns (routine × profile × target) into proof items for
 * src/check/prove_worker.ts (every applicable rule, shadowed ones included) and its verdicts
 * back into verify rows. JS and C share the portable IR, so one PIR proof covers both rows.
 */
import type { Profile } from "../src/ir/forms.js";
import type { RoutineSpec } from "../src/ir/ir.js";
import type { Verdict, VerifyRow, VerifyTarget } from "../src/check/verify.js";
import type { ProveTarget } from "../src/check/prove.js";
import { rulesFor } from "../src/check/prove.js";
import type { ItemResult, ProveItem } from "../src/check/prove_worker.js";
import { proveMany } from "../src/check/prove_worker.js";
import { TARGETS } from "../targets/amdgpu/regs.js";
import { lowerRoutine, lowerWithRule, applicableRules } from "../targets/amdgpu/lower.js";
import { portableRulesFor } from "../targets/portable/rules/index.js";
import { proveCompiledRows } from "../targets/llvm/verify.js";

function toVerdict(r: ItemResult): Verdict {
  const v = r.verdict;
  switch (v.verdict) {
    case "proved":
      return { status: "proved", by: `${v.method}${r.coveredBy >= 0 ? "" : ""}` };
    case "refuted":
      return { status: "refuted", n: 0, counterexample: v.counterexample };
    case "tested":
      return { status: "tested", n: v.n };
    case "unknown":
      return { status: "unknown", why: v.reason };
  }
}

export async function proveRows(
  specs: { spec: RoutineSpec; profile: Profile }[],
  targets: VerifyTarget[],
  o: { onProgress?: (done: number) => void; timeoutMs?: number; bugFinder?: "first" | "fallback" },
): Promise<VerifyRow[]> {
  const items: ProveItem[] = [];
  const rowsOf: { spec: RoutineSpec; profile: Profile; targets: VerifyTarget[]; chosen: boolean; count?: number }[] = [];
  const wantPir = targets.some((t) => t.kind === "js" || t.kind === "c");
  const pirTargets = targets.filter((t) => t.kind === "js" || t.kind === "c");
  for (const { spec, profile } of specs) {
    for (const t of targets) {
      if (t.kind !== "amdgpu") continue;
      const target = TARGETS[t.mcpu];
      const chosen = lowerRoutine(spec, target, profile).rule;
      for (const rule of applicableRules(spec, target, profile)) {
        const pt: ProveTarget = { kind: "amdgpu", mcpu: t.mcpu };
        items.push({ spec, target: pt, profile, rule: rule.name });
        rowsOf.push({ spec, profile, targets: [t], chosen: rule.name === chosen, count: lowerWithRule(spec, target, profile, rule).count });
      }
    }
    if (wantPir) {
      const rules = rulesFor(spec, { kind: "pir" }, profile);
      const chosen = portableRulesFor(spec)[0]?.name;
      for (const rule of rules) {
        items.push({ spec, target: { kind: "pir" }, profile, rule: rule.name });
        rowsOf.push({ spec, profile, targets: pirTargets, chosen: rule.name === chosen });
      }
    }
  }
  // The hip and llvm rows: compiled per processor, the extracted code proved (targets/llvm/verify.ts).
  const compiled = await proveCompiledRows(specs, targets);
  let done = 0;
  const results = await proveMany(items, { ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}), bugFinder: o.bugFinder ?? "first", onProgress: () => o.onProgress?.(Math.floor((++done * specs.length) / Math.max(1, items.length))) });
  const rows: VerifyRow[] = [];
  results.forEach((r, i) => {
    const meta = rowsOf[i]!;
    for (const t of meta.targets)
      rows.push({ spec: meta.spec, profile: meta.profile, target: t, rule: r.item.rule, chosen: meta.chosen, ...(meta.count !== undefined ? { count: meta.count } : {}), verdict: toVerdict(r) });
  });
  rows.push(...compiled);
  return rows;
}
