/**
 * @fileoverview The `hip` and `llvm` rows of `prove:all` (scripts/prove-all.ts, issue 15 item
 * 5): every warp-level routine spec of the matrix, printed into one HIP header / one LLVM
 * module per processor (one compile per kind × processor × batch), and each compiled function
 * (every callable function and form alias, both argument variants `vgpr` / `sgpr`) proved in
 * every layout of its wave (./prove_compiled_warp.ts `proveCompiledWarpLayouts`: on wave64 the
 * two-warps proof first, the one-warp row subsumed by it where it is proved) after the hazard
 * check under LLVM's function boundary. A row is function × variant × layout × processor ×
 * profile; a proof (a job) is function × variant × processor, all its layouts.
 *
 * match.sync's compiled functions are rows too (issue 37 item 5; ./prove_compiled_match.ts
 * through `proveCompiledWarpLayouts`): every family whose registry `shape` is `warp`.
 *
 * The warp-level functions do not depend on the semantics profile (targets/llvm/callable.ts
 * `profileSensitive`); each profile's text is printed and, where it is the same text, the
 * compile and the proofs are shared (the row of the second profile names the same key).
 * Identical extracted code (same wave, generation, variant, layout, form, kinds, argument
 * registers and lines) is proved once: processors whose compilers emit the same code share.
 * The scalar families' compiled functions are not in these rows (`verify --prove --target
 * hip|llvm` proves them).
 */
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import type { Profile } from "../../src/ir/forms.js";
import { formId, formName } from "../../src/ir/forms.js";
import type { RoutineSpec } from "../../src/ir/ir.js";
import type { Verdict } from "../../src/check/prove_types.js";
import { hash } from "../../src/check/prove_text.js";
import type { ProofCache } from "../../src/check/proof_cache.js";
import { cacheable } from "../../src/check/proof_cache.js";
import { loadZ3 } from "../../src/check/smt.js";
import { startWorker } from "../../src/workers.js";
import { familyOf } from "../../src/families/index.js";
import { checkHazards, formatViolation, LLVM_ENTRY } from "../amdgpu/hazards.js";
import { llcHazardTarget } from "../amdgpu/oracle/llc_hazards.js";
import { isLabel } from "../amdgpu/minst.js";
import type { Mcpu } from "../amdgpu/regs.js";
import { TARGETS } from "../amdgpu/regs.js";
import { showLine } from "../amdgpu/prove/paths.js";
import { printHipModule } from "../hip/print.js";
import { printLlvmModule } from "./print.js";
import { callableName, compileFor } from "./compile_for.js";
import type { CompiledWarpLayout } from "./prove_compiled_warp.js";
import { loopAffinity } from "./prove_compiled_match.js";
import { compiledHasLoop, compiledWarpLayouts, proveCompiledWarpLayouts } from "./prove_compiled_warp.js";
import type { CompiledFunction, CompiledSet } from "./compiled.js";

if (!isMainThread && (workerData as { ptxCompiledProver?: boolean } | null)?.ptxCompiledProver) void serve();

/** The worker side: proves each job it is sent (`proveCompiledWarpLayouts`). */
async function serve(): Promise<void> {
  const env = await loadZ3();
  parentPort!.on("message", async (j: Job) => {
    try {
      parentPort!.postMessage({ verdict: await proveJob(env, j) });
    } catch (e) {
      parentPort!.postMessage({ error: (e as Error).stack ?? String(e) });
    }
  });
  parentPort!.postMessage({ ready: true });
}

/** One row: a compiled function × variant × layout on one processor and profile. */
export interface CompiledProveRow {
  kind: "hip" | "llvm";
  mcpu: Mcpu;
  /** `hip gfx942`, as the table names the target. */
  target: string;
  profile: Profile;
  /** The function's symbol and callable name (`ptxl_<formId>` for an alias). */
  symbol: string;
  fn: string;
  form: string;
  kinds: RoutineSpec["kinds"];
  variant: "vgpr" | "sgpr";
  layout: CompiledWarpLayout;
  /** How many of the matrix's routine specs this function serves (0 for an alias). */
  serves: number;
  /** The proof's key (identical code shares it) and whether this row reused it. */
  key: string;
  shared: boolean;
  verdict: Verdict;
  /** The verdict came from the proof cache (`cache` of `proveCompiledMatrix`), not from this run. */
  cached?: boolean;
}

/** One distinct proof: a compiled function in its wave's layouts (the one-warp one subsumed where the two-warps one is proved: ./prove_compiled_warp.ts `proveCompiledWarpLayouts`). */
interface Job {
  cf: CompiledFunction;
  mcpu: Mcpu;
  kind: "hip" | "llvm";
  sregs: number[];
  layouts: CompiledWarpLayout[];
  profile: Profile;
  timeoutMs?: number;
  /** Run ./prove_compiled_loop.ts's induction on a loop (slow; `proveCompiledWarpLayouts`). */
  induction?: boolean;
  /** Jobs of one affinity share a loop lemma: run on one worker (`runJobs`). */
  affinity?: string;
}

type JobVerdicts = Partial<Record<CompiledWarpLayout, Verdict>>;

/** This module as a worker thread (under tsx: its loader registered in the thread first, as src/check/prove_worker.ts does). */
function startMatrixWorker(): Worker {
  return startWorker(new URL(import.meta.url), { ptxCompiledProver: true });
}

/** Runs `jobs` on `n` worker threads (in this thread when n ≤ 1); verdicts in job order. */
async function runJobs(jobs: Job[], n: number, onDone: (i: number, v: JobVerdicts) => void): Promise<void> {
  if (n <= 1 || jobs.length <= 1) {
    const env = await loadZ3();
    for (let i = 0; i < jobs.length; i++) onDone(i, await proveJob(env, jobs[i]!));
    return;
  }
  // Jobs that share a loop lemma (./prove_compiled_match.ts `loopAffinity`) go to the worker
  // that proved it: a worker takes the next job of its last affinity, else one of an affinity
  // no other worker holds, else the next.
  const left = jobs.map((_, i) => i);
  const held = new Map<Worker, string>();
  const pick = (w: Worker): number | undefined => {
    const mine = held.get(w);
    const others = new Set([...held].filter(([x]) => x !== w).map(([, a]) => a));
    const at = [(i: number) => mine !== undefined && jobs[i]!.affinity === mine, (i: number) => !others.has(jobs[i]!.affinity ?? ""), () => true].map((ok) => left.findIndex(ok)).find((k) => k >= 0);
    if (at === undefined) return undefined;
    const i = left.splice(at, 1)[0]!;
    if (jobs[i]!.affinity) held.set(w, jobs[i]!.affinity!);
    return i;
  };
  const one = (w: Worker) =>
    new Promise<void>((resolve, reject) => {
      const take = () => {
        const i = pick(w);
        if (i === undefined) return resolve();
        w.once("message", (m: { verdict?: JobVerdicts; error?: string }) => {
          if (m.error !== undefined) return reject(new Error(m.error));
          onDone(i, m.verdict!);
          take();
        });
        w.postMessage(jobs[i]);
      };
      w.once("message", () => take()); // ready
      w.once("error", reject);
    });
  const workers = Array.from({ length: Math.min(n, jobs.length) }, startWorker);
  try {
    await Promise.all(workers.map(one));
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
}

async function proveJob(env: Awaited<ReturnType<typeof loadZ3>>, j: Job): Promise<JobVerdicts> {
  return proveCompiledWarpLayouts(env, j.cf, j.mcpu, j.kind, j.sregs, { profile: j.profile, ...(j.timeoutMs !== undefined ? { timeoutMs: j.timeoutMs } : {}), ...(j.induction ? { induction: true } : {}) }, j.layouts);
}

/**
 * Proves the compiled warp-level functions of `specs` (non-warp specs are ignored) for each
 * kind × processor × profile (file comment), the distinct proofs on `workers` threads.
 * `onRow` is called for every row as soon as its verdict is known (rows a hazard refutes at
 * once, the others when their proof is done).
 * @throws Error when clang or llc fails on the printed text (a printer bug).
 */
export async function proveCompiledMatrix(
  specs: readonly RoutineSpec[],
  opts: {
    kinds: readonly ("hip" | "llvm")[];
    mcpus: readonly Mcpu[];
    profiles: readonly Profile[];
    timeoutMs?: number;
    /** Prove loops (redux) by the compiled loop induction (./prove_compiled_loop.ts; slow): off by default, a loop is then `unknown`. */
    induction?: boolean;
    /** Worker threads for the proofs (1: this thread). */
    workers?: number;
    onRow?: (r: CompiledProveRow) => void;
    /** Each compile's functions (for the same text under a second profile: not called again). */
    onCompiled?: (kind: "hip" | "llvm", mcpu: Mcpu, profile: Profile, set: CompiledSet) => void;
    /** Distinct proofs done / to do. */
    onProgress?: (done: number, total: number) => void;
    /**
     * Verdicts of an earlier run of the same source (src/check/proof_cache.ts), per job key: a
     * job whose every layout it holds proved or refuted is not run again; every such job of
     * this run is stored in it.
     */
    cache?: ProofCache;
    /**
     * The cache of the loop-free jobs (`compiledHasLoop` false), when it is kept apart: its
     * fingerprint leaves out ./prove_compiled_loop.ts, which those jobs never run
     * (scripts/prove-all.ts). Default: `cache`.
     */
    loopFreeCache?: ProofCache;
  },
): Promise<CompiledProveRow[]> {
  // The warp-shaped families' specs (the registry's `shape`: match.sync and the warp-level family).
  const warp = specs.filter((s) => familyOf(s.form).shape === "warp");
  const routines = warp.map((spec) => ({ name: callableName(spec), spec }));
  // Every compile first (one per kind × processor × distinct text), each row's proof keyed;
  // then the distinct proofs on the workers.
  const rows: CompiledProveRow[] = [];
  const jobs: Job[] = [];
  const jobOf = new Map<string, number>();
  const jobKeys: string[] = [];
  /** Row key (per layout) → its job's key. */
  const rowJob = new Map<string, string>();
  for (const kind of opts.kinds)
    for (const mcpu of opts.mcpus) {
      const printed = new Map<string, CompiledProveRow[]>();
      for (const profile of opts.profiles) {
        const text = kind === "hip" ? printHipModule(routines, { profile }) : printLlvmModule(routines, { profile });
        const same = printed.get(text);
        if (same) {
          // The same text: the same compile and proofs (file comment).
          for (const r of same) rows.push({ ...r, profile, shared: true });
          continue;
        }
        const mine: CompiledProveRow[] = [];
        printed.set(text, mine);
        const { set, sregs } = await compileFor(kind, routines, mcpu, profile);
        opts.onCompiled?.(kind, mcpu, profile, set);
        for (const cf of set.functions) {
          if (familyOf(cf.fn.spec.form).shape !== "warp") continue;
          const lines = cf.lines;
          const hz = Array.isArray(lines) ? checkHazards(lines, llcHazardTarget(mcpu, TARGETS[mcpu].wave), LLVM_ENTRY) : [];
          const layouts = compiledWarpLayouts(mcpu);
          const t = TARGETS[mcpu];
          const keyOf = (layout: CompiledWarpLayout | "") => hash([kind === "hip" ? "clang" : "llc", t.wave, t.gen, cf.variant, layout, formId(cf.fn.spec.form), JSON.stringify(cf.fn.spec.kinds, (_k, v) => (typeof v === "bigint" ? `${v}` : v)), JSON.stringify(cf.args), cf.dReg, cf.pReg, ...(Array.isArray(lines) ? lines.map((l) => (isLabel(l) ? `${l.label}:` : showLine(l))) : [JSON.stringify(lines)]), sregs.join(",")].join("\n"));
          // One job for all the layouts of identical code (its key names no layout).
          const jobKey = keyOf("");
          const seen = jobOf.has(jobKey);
          for (const layout of layouts) {
            const key = keyOf(layout);
            const row: CompiledProveRow = {
              kind,
              mcpu,
              target: `${kind} ${mcpu}`,
              profile,
              symbol: cf.symbol,
              fn: cf.fn.name,
              form: formName(cf.fn.spec.form),
              kinds: cf.fn.spec.kinds,
              variant: cf.variant,
              layout,
              serves: cf.fn.serves.length,
              key,
              shared: seen,
              // A hazard refutes before any proof; the others are filled in below.
              verdict: hz.length ? { verdict: "refuted", ms: 0, reason: `Hazard: ${hz.map(formatViolation).join("; ")}`, counterexample: "" } : { verdict: "unknown", ms: 0, reason: "not proved yet" },
            };
            rowJob.set(key, jobKey);
            mine.push(row);
            rows.push(row);
          }
          if (!seen && hz.length === 0) {
            jobOf.set(jobKey, jobs.length);
            jobKeys.push(jobKey);
            const affinity = loopAffinity(cf, sregs);
            jobs.push({ cf, mcpu, kind, sregs, layouts, profile, ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}), ...(opts.induction ? { induction: true } : {}), ...(affinity ? { affinity } : {}) });
          }
        }
      }
    }
  // Each row is reported as soon as its verdict is known (a stopped run keeps what it proved):
  // a row without a job (a hazard refuted it) at once, the others when their job is done.
  const byJob = new Map<number, CompiledProveRow[]>();
  for (const r of rows) {
    const i = jobOf.get(rowJob.get(r.key)!);
    if (i !== undefined && r.verdict.verdict === "unknown" && r.verdict.reason === "not proved yet") {
      const list = byJob.get(i);
      if (list) list.push(r);
      else byJob.set(i, [r]);
    } else opts.onRow?.(r);
  }
  let done = 0;
  const settle = (i: number, v: JobVerdicts, cached: boolean) => {
    for (const r of byJob.get(i) ?? []) {
      r.verdict = v[r.layout]!;
      if (cached) r.cached = true;
      opts.onRow?.(r);
    }
    opts.onProgress?.(++done, jobs.length);
  };
  // Jobs the cache answers (every layout proved or refuted) are settled from it. The others
  // run loop-free first (seconds each; the loops take minutes), so a run stopped early has
  // proved the most it could.
  const cacheOf = (j: Job) => (compiledHasLoop(j.cf) ? opts.cache : (opts.loopFreeCache ?? opts.cache));
  const toRun: number[] = [];
  jobs.forEach((j, i) => {
    const v = cacheOf(j)?.get(jobKeys[i]!) as JobVerdicts | undefined;
    if (v && j.layouts.every((l) => v[l] && cacheable(v[l]))) settle(i, v, true);
    else toRun.push(i);
  });
  toRun.sort((x, y) => Number(compiledHasLoop(jobs[x]!.cf)) - Number(compiledHasLoop(jobs[y]!.cf)) || x - y);
  await runJobs(
    toRun.map((i) => jobs[i]!),
    opts.workers ?? 1,
    (n, v) => {
      const i = toRun[n]!;
      const j = jobs[i]!;
      const cache = cacheOf(j);
      if (cache && j.layouts.every((l) => v[l] && cacheable(v[l]))) cache.put(jobKeys[i]!, `${j.kind} ${j.mcpu} ${j.cf.symbol} ${j.cf.variant}`, v);
      settle(i, v, false);
    },
  );
  return rows;
}
