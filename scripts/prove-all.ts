/**
 * @fileoverview Proves the whole matrix — every form × operand kinds × rule (shadowed ones
 * included) × target (each AMDGPU mcpu; the PIR, which JS and C share) × profile — of the
 * four families (szext, video, match, warp), and prints a table per family × target × profile (proved / refuted /
 * unknown / gaps, distinct queries solved) with the wall time.
 *
 *   npx tsx scripts/prove-all.ts [--family szext|video|match|warp|all] [--workers N]
 *        [--timeout MS] [--every N] [--only REGEX] [--out prove-all.jsonl] [--bug-lanes N] [--bug-timeout MS]
 *        [--target amdgpu,pir,hip,llvm] [--mcpu gfx900,…] [--compiled-induction] [--resume FILE]
 *        [--stored PATH …] [--recheck RATE] [--recheck-seed S]
 *
 * How it fits in minutes (design.md appendix): identical queries are proved once (query
 * keys: the emitted lines or PIR, contract layout, wave size and spec terms — the mcpus of a
 * wave size and the two profiles mostly share); video routines with selectors are covered by
 * the same routine without selectors through checked stage reductions (src/check/prove.ts
 * `reduceSelectors`); match loops share their loop lemma (affinity); the match bug-finder
 * runs only where a proof fails; every core runs a worker. The warp-level family (issue 15) is
 * proved on AMDGPU by targets/amdgpu/prove/warp.ts and on the PIR by targets/portable/prove.ts. `--out` gets one JSON line per
 * form × kinds × rule × target × profile naming the proved query that covers it (its key and
 * label, and the stage reduction if one was used); a combination no rule covers is a gap.
 * The `hip gfxN` / `llvm gfxN` rows (warp family): the compiled functions of the HIP header and
 * the LLVM module, one compile per kind × processor, each function × variant × wave64 layout
 * proved by targets/llvm/prove_compiled_warp.ts (targets/llvm/prove_compiled_matrix.ts), in
 * the same number of worker threads, after the matrix's items. `--target` / `--mcpu` restrict the matrix (a sample).
 * `--resume FILE`: the proof cache (src/check/proof_cache.ts) — verdicts stored by earlier
 * runs of the same source are reused, this run's are added, so a matrix too big for one
 * sitting is proved across several; each reused row says `"cached": true`, and the summary
 * counts them. `--stored PATH` (repeatable; a file or a folder, e.g. proofs/): verdicts
 * earlier sittings committed, read only, before FILE. `--recheck RATE`: proves a sample of the
 * stored verdicts again (./recheck_cache.ts) and reports whether they agree; exit 1 if not.
 */
import "../src/compose.js";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { parseArgs } from "node:util";
import { availableParallelism } from "node:os";
import type { Family } from "../src/ir/forms.js";
import { FAMILIES, familyOf, formId, formName } from "../src/ir/forms.js";
import { routineName } from "../src/ir/ir.js";
import type { ItemResult, ProveItem } from "../src/check/prove_worker.js";
import { itemLabel, matrixRows, proveMany } from "../src/check/prove_worker.js";
import { PROFILES } from "../src/ir/forms.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import { MCPUS } from "../targets/amdgpu/regs.js";
import { compiledToolsAvailable } from "../targets/llvm/compiled.js";
import type { ProofCache } from "../src/check/proof_cache.js";
import { openProofCache, storedFiles } from "../src/check/proof_cache.js";
import { proverFingerprints } from "./proof_fingerprints.js";
import type { RecheckReport } from "./recheck_cache.js";
import { rechecking } from "./recheck_cache.js";
import type { CompiledProveRow } from "../targets/llvm/prove_compiled_matrix.js";
import { proveCompiledMatrix } from "../targets/llvm/prove_compiled_matrix.js";

const USAGE = `usage: npx tsx scripts/prove-all.ts [--family szext|video|match|warp|all] [--workers N]
       [--timeout MS] [--every N] [--only REGEX] [--out prove-all.jsonl] [--bug-lanes N] [--bug-timeout MS]
       [--target amdgpu,pir,hip,llvm] [--mcpu gfx900,…] [--compiled-induction] [--resume FILE]
       [--stored PATH …] [--recheck RATE] [--recheck-seed S]
  --every N     prove one form in N of each family (a sample; 1 = all)
  --only REGEX  prove only the combinations whose label (routine rule target profile,
                e.g. "shfl_sync_up_b32__v_s_imm0_v shfl_bpermute gfx900 isa") matches
                (hip/llvm rows: the routine name matches)
  --target      targets to prove, comma-separated: amdgpu, pir, hip, llvm (default all;
                hip and llvm have warp-family rows only)
  --mcpu        processors of the amdgpu, hip and llvm rows, comma-separated (default all)
  --compiled-induction
                hip/llvm rows: prove the compiled redux loops by their induction
                (targets/llvm/prove_compiled_loop.ts; minutes per function ×
                variant × layout), instead of leaving them unknown
  --resume FILE the proof cache: reuse the proved and refuted verdicts an earlier run of
                same prover source stored in FILE (an edit to any file a prover
                imports makes its verdicts stale), and store this run's there
  --stored PATH verdicts to reuse as --resume's, read only, from a file or a folder of
                *.jsonl / *.jsonl.gz (repeatable; the committed sittings: proofs/)
  --recheck RATE
                prove again the stored verdicts of a sample of the keys (RATE: a fraction,
                0.02 = 2%) and compare; a disagreement is named and exits 1
  --recheck-seed S
                the sample's seed (default 0)`;

function usageError(message: string): never {
  process.stderr.write(`prove-all: error: ${message}\n${USAGE}\n`);
  process.exit(2);
}

let parsed;
try {
  parsed = parseArgs({
    options: {
      help: { type: "boolean", short: "h" },
      family: { type: "string", default: "all" },
      workers: { type: "string" },
      timeout: { type: "string", default: "60000" },
      every: { type: "string", default: "1" },
      only: { type: "string" },
      out: { type: "string", default: "prove-all.jsonl" },
      "bug-lanes": { type: "string", default: "16" },
      "bug-timeout": { type: "string", default: "60000" },
      target: { type: "string", default: "amdgpu,pir,hip,llvm" },
      mcpu: { type: "string" },
      "compiled-induction": { type: "boolean", default: false },
      resume: { type: "string" },
      stored: { type: "string", multiple: true },
      recheck: { type: "string" },
      "recheck-seed": { type: "string", default: "0" },
    },
  });
} catch (e) {
  usageError((e as Error).message);
}
const { values } = parsed;
if (values.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
if (values.family !== "all" && !(FAMILIES as readonly string[]).includes(values.family)) usageError(`--family must be one of ${FAMILIES.join(", ")}, all; not '${values.family}'`);
for (const k of ["workers", "timeout", "every", "bug-lanes", "bug-timeout"] as const) {
  const v = values[k];
  if (v !== undefined && !(Number.isInteger(Number(v)) && Number(v) > 0)) usageError(`--${k} must be a positive integer, not '${v}'`);
}

const stored = values.stored ?? [];
if (stored.length && values.resume === undefined) usageError("--stored needs --resume FILE (where this run's verdicts go)");
for (const p of stored) if (!existsSync(p)) usageError(`--stored: ${p}: no such file or folder`);
// (Each stored file readable, and gzip where it ends .gz: else the error names it.)
for (const f of stored.flatMap(storedFiles))
  try {
    if (f.endsWith(".gz")) gunzipSync(readFileSync(f));
    else readFileSync(f);
  } catch (e) {
    usageError(`--stored: ${f}: ${(e as Error).message}`);
  }
const recheckRate = values.recheck === undefined ? 0 : Number(values.recheck);
if (values.recheck !== undefined && !(values.recheck.trim() !== "" && recheckRate >= 0 && recheckRate <= 1)) usageError(`--recheck must be a fraction from 0 to 1, not '${values.recheck}'`);
if (values.recheck !== undefined && values.resume === undefined) usageError("--recheck needs --resume FILE (the verdicts it proves again)");

let only: RegExp | null = null;
try {
  only = values.only === undefined ? null : new RegExp(values.only);
} catch (e) {
  usageError(`--only: ${(e as Error).message}`);
}
const families: Family[] = values.family === "all" ? [...FAMILIES] : [values.family as Family];
const TARGET_KINDS = ["amdgpu", "pir", "hip", "llvm"] as const;
const kinds = values.target!.split(",");
for (const k of kinds) if (!(TARGET_KINDS as readonly string[]).includes(k)) usageError(`--target takes ${TARGET_KINDS.join(", ")}; not '${k}'`);
const mcpus = (values.mcpu?.split(",") ?? [...MCPUS]) as Mcpu[];
for (const m of mcpus) if (!(MCPUS as readonly string[]).includes(m)) usageError(`--mcpu takes ${MCPUS.join(", ")}; not '${m}'`);
const wanted = (t: ProveItem["target"]) => kinds.includes(t.kind) && (t.kind !== "amdgpu" || mcpus.includes(t.mcpu as Mcpu));
const workers = Number(values.workers ?? availableParallelism());
const every = Number(values.every);
const t0 = performance.now();
// The proof cache (--resume): one fingerprint for the AMDGPU and PIR provers, and two for the
// hip/llvm rows' (./proof_fingerprints.ts): the functions with a loop, and the loop-free ones.
const fps = values.resume === undefined ? undefined : proverFingerprints();
// (--recheck: each wrapped, ./recheck_cache.ts.)
const audits: (() => RecheckReport)[] = [];
const open = (fingerprint: string) => {
  let c: ProofCache;
  try {
    c = openProofCache(values.resume!, fingerprint, stored);
  } catch (e) {
    usageError(`--resume/--stored: ${(e as Error).message}`);
  }
  if (!recheckRate) return c;
  const r = rechecking(c, recheckRate, values["recheck-seed"]!);
  audits.push(r.report);
  return r.cache;
};
const cache = fps && open(fps.amdgpuPir);
const compiledCache = fps && open(fps.loops);
const loopFreeCache = fps && open(fps.loopFree);
const fingerprints = () => `${cache!.fingerprint.slice(0, 12)} (amdgpu, pir), ${compiledCache!.fingerprint.slice(0, 12)} (hip, llvm loops), ${loopFreeCache!.fingerprint.slice(0, 12)} (hip, llvm loop-free)`;
if (cache) process.stderr.write(`prove-all: proof cache ${values.resume}${stored.length ? ` (after the stored ${stored.join(", ")})` : ""}: source fingerprints ${fingerprints()}\n`);
const big = (_k: string, v: unknown) => (typeof v === "bigint" ? `0x${v.toString(16)}` : v);
const tname = (t: ProveItem["target"]) => (t.kind === "amdgpu" ? t.mcpu : "pir");

const allRows = families.flatMap((f) => matrixRows(f, every));
const rows = allRows.filter((r) => wanted(r.target)).filter((r) => !only || r.rules.some((rule) => only.test(itemLabel({ spec: r.spec, target: r.target, profile: r.profile, rule }))));
// The hip/llvm rows' routine specs: the warp family's (each spec once).
const compiledKinds = (["hip", "llvm"] as const).filter((k) => kinds.includes(k));
// (--only: the hip/llvm rows of the routines whose name matches.)
const compiledSpecs = compiledKinds.length && families.includes("warp") ? [...new Set(allRows.filter((r) => familyOf(r.spec.form) === "warp" && (!only || only.test(routineName(r.spec, formId)))).map((r) => r.spec))] : [];
const items: ProveItem[] = [];
const gaps = rows.filter((r) => r.rules.length === 0);
for (const r of rows) for (const rule of r.rules) {
  const it: ProveItem = { spec: r.spec, target: r.target, profile: r.profile, rule };
  if (!only || only.test(itemLabel(it))) items.push(it);
}
process.stderr.write(`prove-all: ${families.join(", ")}: ${rows.length} routine × target × profile rows, ${items.length} rule combinations, ${gaps.length} gaps; ${workers} workers\n`);

// One line per combination, naming the query that covers it — appended as results arrive,
// so a run that is stopped keeps what it proved.
const lineOf = (r: ItemResult) =>
  JSON.stringify(
    {
      form: formName(r.item.spec.form),
      kinds: r.item.spec.kinds,
      guarded: r.item.spec.guarded,
      target: tname(r.item.target),
      profile: r.item.profile,
      rule: r.item.rule,
      verdict: r.verdict.verdict,
      coveredBy: r.query,
      ...(r.via ? { via: r.via } : {}),
      ...(r.verdict.verdict === "proved" ? { method: r.verdict.method } : {}),
      ...(r.verdict.verdict === "unknown" ? { reason: r.verdict.reason } : {}),
      ...(r.verdict.verdict === "refuted" ? { reason: r.verdict.reason, counterexample: r.verdict.counterexample } : {}),
      ...(r.verdict.verdict !== "refuted" && r.verdict.verdict !== "tested" && r.verdict.bugFinder ? { bugFinder: r.verdict.bugFinder } : {}),
      ms: Math.round(r.verdict.ms),
      ...(r.cached ? { cached: true } : {}),
    },
    big,
  );
writeFileSync(values.out!, "");
const compiledLineOf = (r: CompiledProveRow) =>
  JSON.stringify(
    {
      form: r.form,
      kinds: r.kinds,
      guarded: false,
      target: r.target,
      profile: r.profile,
      rule: `${r.kind === "hip" ? "clang" : "llc"}:${r.symbol}`,
      variant: r.variant,
      layout: r.layout,
      verdict: r.verdict.verdict,
      coveredBy: { key: r.key, shared: r.shared },
      ...(r.verdict.verdict === "proved" ? { method: r.verdict.method } : {}),
      ...(r.verdict.verdict === "unknown" ? { reason: r.verdict.reason } : {}),
      ...(r.verdict.verdict === "refuted" ? { reason: r.verdict.reason, counterexample: r.verdict.counterexample } : {}),
      ms: Math.round(r.verdict.ms),
      ...(r.cached ? { cached: true } : {}),
    },
    big,
  );
let pending: string[] = [];
let last = 0;
const results = await proveMany(items, {
  workers,
  timeoutMs: Number(values.timeout),
  bugFinder: "fallback",
  bugLanes: Number(values["bug-lanes"]),
  bugTimeoutMs: Number(values["bug-timeout"]),
  ...(cache ? { cache } : {}),
  onProgress: (done, total, r) => {
    pending.push(lineOf(r));
    const now = performance.now();
    if (now - last > 10_000 || done === total) {
      last = now;
      appendFileSync(values.out!, pending.join("\n") + "\n");
      pending = [];
      process.stderr.write(`  ${done}/${total} (${((now - t0) / 1000).toFixed(0)} s)\n`);
    }
  },
});
const compiled: CompiledProveRow[] = [];
if (compiledSpecs.length) {
  const tools = await compiledToolsAvailable(compiledKinds);
  if (!tools.ok) process.stderr.write(`prove-all: hip/llvm rows skipped: ${tools.reason}\n`);
  else {
    process.stderr.write(`prove-all: hip/llvm: ${compiledSpecs.length} warp routine specs, ${compiledKinds.join(", ")} × ${mcpus.join(", ")}\n`);
    const lines: string[] = [];
    let flushed = performance.now();
    await proveCompiledMatrix(compiledSpecs, {
      kinds: compiledKinds,
      mcpus,
      profiles: PROFILES,
      timeoutMs: Number(values.timeout),
      workers,
      induction: values["compiled-induction"]!,
      ...(compiledCache ? { cache: compiledCache, loopFreeCache: loopFreeCache! } : {}),
      onProgress: (done, total) => {
        const now = performance.now();
        if (now - last > 10_000 || done === total) {
          last = now;
          process.stderr.write(`  hip/llvm ${done}/${total} distinct proofs (${((now - t0) / 1000).toFixed(0)} s)\n`);
        }
      },
      // Rows arrive as their proofs finish; written every 50 or 10 s, so a stopped run keeps them.
      onRow: (r) => {
        compiled.push(r);
        lines.push(compiledLineOf(r));
        if (lines.length >= 50 || performance.now() - flushed > 10_000) {
          appendFileSync(values.out!, lines.splice(0).join("\n") + "\n");
          flushed = performance.now();
        }
      },
    });
    if (lines.length) appendFileSync(values.out!, lines.join("\n") + "\n");
    process.stderr.write(`  hip/llvm: ${compiled.length} rows (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
}
const wall = (performance.now() - t0) / 1000;
if (pending.length) appendFileSync(values.out!, pending.join("\n") + "\n");
const gapLines = gaps.map((g) => JSON.stringify({ form: formName(g.spec.form), kinds: g.spec.kinds, guarded: g.spec.guarded, target: tname(g.target), profile: g.profile, verdict: "gap", reason: "no rule applies" }, big));
if (gapLines.length) appendFileSync(values.out!, gapLines.join("\n") + "\n");

// The table: family × target × profile.
type Cell = { combos: number; proved: number; refuted: number; unknown: number; gaps: number; queries: Set<string>; ms: number };
const table = new Map<string, Cell>();
const cell = (k: string) => {
  let c = table.get(k);
  if (!c) table.set(k, (c = { combos: 0, proved: 0, refuted: 0, unknown: 0, gaps: 0, queries: new Set(), ms: 0 }));
  return c;
};
const solved = new Set<string>();
for (const r of results) {
  const c = cell(`${familyOf(r.item.spec.form)}|${tname(r.item.target)}|${r.item.profile}`);
  c.combos++;
  if (r.verdict.verdict === "proved") c.proved++;
  else if (r.verdict.verdict === "refuted") c.refuted++;
  else c.unknown++;
  c.queries.add(r.query.key);
  if (!solved.has(r.query.key)) {
    solved.add(r.query.key);
    if (!r.cached) c.ms += r.verdict.ms;
  }
}
for (const g of gaps) cell(`${familyOf(g.spec.form)}|${tname(g.target)}|${g.profile}`).gaps++;
for (const r of compiled) {
  const c = cell(`warp|${r.target}|${r.profile}`);
  c.combos++;
  if (r.verdict.verdict === "proved") c.proved++;
  else if (r.verdict.verdict === "refuted") c.refuted++;
  else c.unknown++;
  c.queries.add(r.key);
  if (!solved.has(r.key)) {
    solved.add(r.key);
    if (!r.cached) c.ms += r.verdict.ms;
  }
}
const out: string[] = [];
const pad = (x: string | number, n: number) => String(x).padStart(n);
out.push(`${"family".padEnd(7)} ${"target".padEnd(12)} ${"profile".padEnd(7)} ${pad("combos", 7)} ${pad("proved", 7)} ${pad("refuted", 7)} ${pad("unknown", 7)} ${pad("gaps", 5)} ${pad("queries", 7)} ${pad("solver s", 9)}`);
for (const [k, c] of [...table].sort()) {
  const [fam, tgt, prof] = k.split("|");
  out.push(`${fam!.padEnd(7)} ${tgt!.padEnd(12)} ${prof!.padEnd(7)} ${pad(c.combos, 7)} ${pad(c.proved, 7)} ${pad(c.refuted, 7)} ${pad(c.unknown, 7)} ${pad(c.gaps, 5)} ${pad(c.queries.size, 7)} ${pad((c.ms / 1000).toFixed(1), 9)}`);
}
const n = (v: string) => results.filter((r) => r.verdict.verdict === v).length + compiled.filter((r) => r.verdict.verdict === v).length;
out.push("");
out.push(`${results.length + compiled.length} combinations: ${n("proved")} proved, ${n("refuted")} refuted, ${n("unknown")} unknown; ${gaps.length} gaps (no rule); ${solved.size} distinct queries solved`);
if (cache) {
  const hits = results.filter((r) => r.cached).length + compiled.filter((r) => r.cached).length;
  out.push(`${hits} of them from the proof cache ${values.resume}${stored.length ? ` and the stored ${stored.join(", ")}` : ""} (verdicts an earlier run of the same prover source obtained, fingerprints ${fingerprints()}; "cached": true in ${values.out}); the solver times count this run's proofs only`);
}
out.push(`JS and C: the "pir" rows (one PIR proof covers both printers).`);
if (compiled.length) out.push(`hip/llvm: the compiled warp-level functions × argument variant (vgpr, sgpr) × wave64 layout (one warp, two warps); ${compiled.length} rows.`);
out.push(`wall time ${wall.toFixed(1)} s on ${workers} workers (every ${every} form${every > 1 ? "s: a sample" : ""}${only ? `, only ${only.source}` : ""}); details in ${values.out}`);
// --recheck: the sample of stored verdicts proved again.
const audit = audits.map((f) => f()).reduce((a, b) => ({ sampled: a.sampled + b.sampled, agree: a.agree + b.agree, disagree: [...a.disagree, ...b.disagree], unsettled: a.unsettled + b.unsettled }), { sampled: 0, agree: 0, disagree: [] as string[], unsettled: 0 });
if (recheckRate) {
  out.push(`recheck (rate ${recheckRate}, seed ${values["recheck-seed"]}): ${audit.sampled} stored verdicts proved again: ${audit.agree} agree, ${audit.disagree.length} disagree, ${audit.unsettled} not settled (unknown now)`);
  for (const d of audit.disagree.slice(0, 20)) out.push(`  DISAGREES: ${d}`);
}
const bad = results.filter((r) => r.verdict.verdict !== "proved");
const seen = new Set<string>();
for (const r of bad) {
  if (seen.has(r.query.key)) continue;
  seen.add(r.query.key);
  out.push("", `${r.verdict.verdict.toUpperCase()}: ${r.query.label}`);
  if (r.verdict.verdict === "refuted") out.push(r.verdict.counterexample);
  if (r.verdict.verdict === "unknown") out.push(`  ${r.verdict.reason}`);
  if (seen.size >= 20) {
    out.push(`… (${bad.length} combinations not proved; see ${values.out})`);
    break;
  }
}
const badCompiled = compiled.filter((r) => r.verdict.verdict !== "proved");
for (const r of badCompiled) {
  if (seen.has(r.key)) continue;
  seen.add(r.key);
  if (seen.size > 20) break;
  out.push("", `${r.verdict.verdict.toUpperCase()}: ${r.target} ${r.symbol} (${r.variant}, ${r.layout})`);
  if (r.verdict.verdict === "refuted") out.push(r.verdict.counterexample || `  ${r.verdict.reason}`);
  if (r.verdict.verdict === "unknown") out.push(`  ${r.verdict.reason}`);
}
console.log(out.join("\n"));
process.exit(bad.length || badCompiled.length || gaps.length || audit.disagree.length ? 1 : 0);
