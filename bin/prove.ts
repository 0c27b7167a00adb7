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
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { ProofCache, RecheckReport } from "../src/check/proof_cache.js";
import type { CompiledCaches } from "../targets/llvm/prove_compiled_rows.js";
import { proveCompiledVerifyRows } from "../targets/llvm/prove_compiled_rows.js";

function toVerdict(r: ItemResult): Verdict {
  const v = r.verdict;
  switch (v.verdict) {
    case "proved":
      return { status: "proved", by: v.method, ...(r.cached ? { stored: true } : {}) };
    case "refuted":
      return { status: "refuted", n: 0, counterexample: v.counterexample };
    case "tested":
      return { status: "tested", n: v.n };
    case "unknown":
      return { status: "unknown", why: v.reason };
  }
}

/** Where `verify --prove`'s stored verdicts come from and go (`proofCaches`). */
export interface ProveStore {
  /** Prove everything again: no stored verdict is read. */
  fresh?: boolean;
  /** The fraction of the stored verdicts used that are proved again (the seeded sample; default `DEFAULT_RECHECK`). */
  recheck?: number;
  seed?: number;
  /** A cache file (JSON lines, prove:all's `--resume` format) read after proofs/ and appended with every verdict proved. */
  cacheFile?: string;
}

/** `--recheck`'s default: 2 % of the stored verdicts a run uses are proved again (seeded by `--seed`). */
export const DEFAULT_RECHECK = 0.02;

/**
 * The proof caches of a `verify --prove` run (src/check/proof_cache.ts): the stored verdicts
 * under the checkout's proofs/ whose prover fingerprint is the current source's (none with
 * `fresh`, or where the sources are absent: the npm package), then `cacheFile`; wrapped by the
 * recheck. `note`: what was read, for the report; `audit()`: the recheck's findings.
 */
async function proofCaches(s: ProveStore): Promise<{ amdgpuPir: ProofCache; compiled: CompiledCaches; note: string; audit: () => RecheckReport & { rate: number } }> {
  const { openProofCache, proverFingerprints, proverRoot, rechecking } = await import("../src/check/proof_cache.js");
  const root = proverRoot();
  const rate = s.recheck ?? DEFAULT_RECHECK;
  const none = { amdgpuPir: "-", loops: "-", loopFree: "-" };
  const fps = root ? proverFingerprints(root) : none;
  const stored = root && !s.fresh && existsSync(join(root, "proofs")) ? [join(root, "proofs")] : [];
  const audits: (() => RecheckReport)[] = [];
  const open = (fp: string) => {
    const c = openProofCache(s.cacheFile ?? null, fp, stored);
    if (!stored.length || rate === 0) return c;
    const r = rechecking(c, rate, String(s.seed ?? 1));
    audits.push(r.report);
    return r.cache;
  };
  const amdgpuPir = open(fps.amdgpuPir);
  const compiled = { loops: open(fps.loops), loopFree: open(fps.loopFree) };
  const note = s.fresh ? "--fresh: every verdict proved again" : !root ? "no stored verdicts (the prover sources are not here: the npm package); every verdict proved" : `stored verdicts: ${stored.length ? "proofs/" : "none"}${s.cacheFile ? ` and ${s.cacheFile}` : ""} (prover fingerprints ${fps.amdgpuPir.slice(0, 12)}, ${fps.loops.slice(0, 12)}, ${fps.loopFree.slice(0, 12)})`;
  const audit = () => ({ rate: stored.length ? rate : 0, ...audits.map((f) => f()).reduce((a, b) => ({ sampled: a.sampled + b.sampled, agree: a.agree + b.agree, disagree: [...a.disagree, ...b.disagree], unsettled: a.unsettled + b.unsettled }), { sampled: 0, agree: 0, disagree: [] as string[], unsettled: 0 }) });
  return { amdgpuPir, compiled, note, audit };
}

export async function proveRows(
  specs: { spec: RoutineSpec; profile: Profile }[],
  targets: VerifyTarget[],
  o: { onProgress?: (done: number) => void; timeoutMs?: number; bugFinder?: "first" | "fallback"; store?: ProveStore; onNote?: (line: string) => void },
): Promise<VerifyRow[]> {
  const caches = await proofCaches(o.store ?? {});
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
  let done = 0;
  const results = await proveMany(items, { ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}), bugFinder: o.bugFinder ?? "first", cache: caches.amdgpuPir, onProgress: () => o.onProgress?.(Math.floor((++done * specs.length) / Math.max(1, items.length))) });
  // The hip and llvm rows: what prove:all runs for them (targets/llvm/prove_compiled_rows.ts).
  const compiled = await proveCompiledVerifyRows(specs, targets, { caches: caches.compiled, workers: availableParallelism(), ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}) });
  const a = caches.audit();
  o.onNote?.(caches.note);
  if (a.rate) o.onNote?.(`recheck (--recheck ${a.rate}, seed ${o.store?.seed ?? 1}): ${a.sampled} stored verdicts proved again: ${a.agree} agree, ${a.disagree.length} disagree, ${a.unsettled} not settled (unknown now)${a.disagree.map((d) => `\n  DISAGREES: ${d}`).join("")}`);
  const rows: VerifyRow[] = [];
  results.forEach((r, i) => {
    const meta = rowsOf[i]!;
    for (const t of meta.targets)
      rows.push({ spec: meta.spec, profile: meta.profile, target: t, rule: r.item.rule, chosen: meta.chosen, ...(meta.count !== undefined ? { count: meta.count } : {}), verdict: toVerdict(r) });
  });
  rows.push(...compiled);
  return rows;
}
