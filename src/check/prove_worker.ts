/**
 * @fileoverview Batch proving on every core: a pool of worker_threads, each with its own z3
 * context (src/check/smt.ts loads one per thread), a per-query timeout, a watchdog per item,
 * and restart after a solver fault or crash — the item is recorded as unknown and retried
 * once in a fresh worker.
 *
 * Identical queries are proved once (`share`, on by default): items whose query keys are
 * equal (src/check/prove.ts `queryKey`: the same emitted lines or PIR, contract layout, wave
 * size and spec terms) share one proof, and every item's result names the item whose proof
 * covers it. Items with the same affinity (match routines sharing a loop) go to the same
 * worker where possible, so the per-loop lemma cache of ./prove_match.ts is reused.
 *
 * This module is also the worker's entry point: a thread started with `workerData.ptxProver`
 * serves proof requests.
 */
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { availableParallelism } from "node:os";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import type { Profile } from "../ir/forms.js";
import type { RoutineSpec } from "../ir/ir.js";
import type { AnyRule, ProveOptions, ProveTarget, Verdict } from "./prove.js";
import { queryKey, rulesFor } from "./prove.js";
import { lowerWithRule } from "../../targets/amdgpu/lower.js";
import { TARGETS } from "../../targets/amdgpu/regs.js";
import type { AmdRule } from "../../targets/amdgpu/rules/rule.js";
import { loopAffinity } from "./prove_match.js";

/** One proof request: a routine, a target, a profile and a rule (by name). */
export interface ProveItem {
  spec: RoutineSpec;
  target: ProveTarget;
  profile: Profile;
  /** The rule's name, among `rulesFor(spec, target, profile)`. */
  rule: string;
  /** A rule from elsewhere (e.g. test/check/broken): a module URL and its export name; the export is the rule or `{ rule }`. */
  ruleModule?: string;
  ruleExport?: string;
}

/** The verdict of one item, and which item's proof covers it. */
export interface ItemResult {
  item: ProveItem;
  verdict: Verdict;
  /** The query key (identical keys: identical queries). */
  key: string;
  /** Index (in the input) of the item whose query was solved for this key. */
  coveredBy: number;
  /** Tries (2 after a fault or crash retry). */
  tries: number;
}

export interface ManyOptions extends Omit<ProveOptions, "env"> {
  /** Worker threads (default: every core). */
  workers?: number;
  /** Prove identical queries once (default true). */
  share?: boolean;
  /** Watchdog per item (default 40 × timeoutMs, at least 10 minutes). */
  itemTimeoutMs?: number;
  onProgress?: (done: number, total: number, result: ItemResult) => void;
}

/** Resolves an item's rule in the current thread. */
export async function resolveRule(item: ProveItem): Promise<AnyRule> {
  if (item.ruleModule) {
    const mod = (await import(item.ruleModule)) as Record<string, unknown>;
    const x = mod[item.ruleExport ?? "default"] as AnyRule | { rule: AnyRule } | undefined;
    if (!x) throw new Error(`${item.ruleModule} has no export ${item.ruleExport ?? "default"}`);
    return "rule" in x && typeof x.rule === "object" ? x.rule : (x as AnyRule);
  }
  const r = rulesFor(item.spec, item.target, item.profile).find((x) => x.name === item.rule);
  if (!r) throw new Error(`rule ${item.rule} does not apply to this routine on ${item.target.kind === "amdgpu" ? item.target.mcpu : "pir"}`);
  return r;
}

/** The key of an item's query (computed in the main thread). */
export async function itemKey(item: ProveItem): Promise<string> {
  try {
    return queryKey(item.spec, item.target, item.profile, await resolveRule(item));
  } catch (e) {
    return `error:${(e as Error).message}`;
  }
}

/** Items that should run in the same worker: match routines sharing a loop. */
async function affinityOf(item: ProveItem): Promise<string> {
  if (item.target.kind !== "amdgpu" || item.spec.form.op !== "match") return "";
  try {
    const r = lowerWithRule(item.spec, TARGETS[item.target.mcpu], item.profile, (await resolveRule(item)) as AmdRule);
    return loopAffinity(r);
  } catch {
    return "";
  }
}

interface Req {
  id: number;
  item: ProveItem;
  opts: Omit<ProveOptions, "env">;
}
type Res = { id: number; verdict: Verdict } | { id: number; error: string };

function workerUrl(): { url: URL; viaTsx: boolean } {
  const here = import.meta.url;
  if (here.endsWith(".ts")) return { url: new URL(here), viaTsx: true };
  return { url: new URL("./prove_worker.js", here), viaTsx: false };
}

function startWorker(): Worker {
  const { url, viaTsx } = workerUrl();
  const data = { ptxProver: true };
  if (!viaTsx) return new Worker(url, { workerData: data });
  // A .ts worker (tests, scripts): register tsx's loader inside the thread first.
  const req = createRequire(url);
  const api = pathToFileURL(req.resolve("tsx/package.json").replace(/package\.json$/, "dist/esm/api/index.mjs")).href;
  const code = `import { register } from ${JSON.stringify(api)}; register(); await import(${JSON.stringify(url.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), { workerData: data });
}

/**
 * Proves many items on a worker pool. Results come back in input order.
 * A solver fault or a crashed worker makes that item `unknown` and it is retried once in a
 * fresh worker; a second fault stands as unknown.
 */
export async function proveMany(items: ProveItem[], opts: ManyOptions = {}): Promise<ItemResult[]> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const proveOpts: Omit<ProveOptions, "env"> = { timeoutMs };
  if (opts.bugFinder !== undefined) proveOpts.bugFinder = opts.bugFinder;
  if (opts.bugLanes !== undefined) proveOpts.bugLanes = opts.bugLanes;
  if (opts.bugTimeoutMs !== undefined) proveOpts.bugTimeoutMs = opts.bugTimeoutMs;
  const itemTimeout = opts.itemTimeoutMs ?? Math.max(600_000, 40 * timeoutMs);
  const share = opts.share ?? true;

  // Keys and representatives.
  const keys = await Promise.all(items.map((it, i) => (share ? itemKey(it) : Promise.resolve(`item:${i}`))));
  const rep = new Map<string, number>();
  keys.forEach((k, i) => {
    if (!rep.has(k)) rep.set(k, i);
  });
  const reps = [...rep.values()];
  const affinity = await Promise.all(reps.map((i) => affinityOf(items[i]!)));

  const results: (ItemResult | undefined)[] = new Array(items.length);
  let done = 0;
  const finish = (i: number, verdict: Verdict, tries: number) => {
    const key = keys[i]!;
    for (let j = 0; j < items.length; j++) {
      if (keys[j] !== key) continue;
      const r: ItemResult = { item: items[j]!, verdict, key, coveredBy: i, tries };
      results[j] = r;
      done++;
      opts.onProgress?.(done, items.length, r);
    }
  };

  // Queues by affinity, in input order.
  const queues = new Map<string, number[]>();
  const order: string[] = [];
  reps.forEach((i, k) => {
    const a = affinity[k]!;
    if (!queues.has(a)) {
      queues.set(a, []);
      order.push(a);
    }
    queues.get(a)!.push(i);
  });
  const retries = new Map<number, number>();
  const next = (prefer: string | null): number | undefined => {
    if (prefer && prefer !== "" && queues.get(prefer)?.length) return queues.get(prefer)!.shift();
    for (const a of order) {
      const q = queues.get(a)!;
      if (q.length) return q.shift();
    }
    return undefined;
  };
  const remaining = () => [...queues.values()].reduce((n, q) => n + q.length, 0);
  const nWorkers = Math.max(1, Math.min(opts.workers ?? availableParallelism(), reps.length));
  let nextId = 0;

  await new Promise<void>((resolveAll, rejectAll) => {
    let live = 0;
    const spawn = () => {
      const w = startWorker();
      live++;
      let current: { id: number; index: number; timer: NodeJS.Timeout } | null = null;
      let lastAffinity: string | null = null;
      let dead = false;
      const retire = (reason: string) => {
        if (dead) return;
        dead = true;
        live--;
        if (current) {
          clearTimeout(current.timer);
          const i = current.index;
          current = null;
          fail(i, reason);
        }
        void w.terminate();
        if (remaining() > 0) spawn();
        else if (live === 0) resolveAll();
      };
      const fail = (i: number, reason: string) => {
        const n = (retries.get(i) ?? 0) + 1;
        retries.set(i, n);
        if (n < 2) {
          // Retry once, first in line, in a fresh worker.
          const a = affinity[reps.indexOf(i)] ?? "";
          queues.get(a)!.unshift(i);
        } else finish(i, { verdict: "unknown", ms: 0, reason, fault: true }, n);
      };
      const feed = () => {
        const i = next(lastAffinity);
        if (i === undefined) {
          dead = true;
          live--;
          void w.terminate();
          if (live === 0) resolveAll();
          return;
        }
        const id = nextId++;
        const timer = setTimeout(() => retire(`worker watchdog: no answer in ${itemTimeout / 1000} s`), itemTimeout);
        current = { id, index: i, timer };
        lastAffinity = affinity[reps.indexOf(i)] ?? "";
        const req: Req = { id, item: items[i]!, opts: proveOpts };
        w.postMessage(req);
      };
      w.on("message", (m: Res | { ready: true }) => {
        if ("ready" in m) {
          feed();
          return;
        }
        if (!current || m.id !== current.id) return;
        clearTimeout(current.timer);
        const i = current.index;
        current = null;
        if ("error" in m) {
          finish(i, { verdict: "unknown", ms: 0, reason: `prover error: ${m.error}` }, (retries.get(i) ?? 0) + 1);
          feed();
          return;
        }
        if (m.verdict.verdict === "unknown" && m.verdict.fault) {
          // The z3 context may be damaged: record, retry once in a fresh worker.
          const n = (retries.get(i) ?? 0) + 1;
          if (n < 2) {
            retries.set(i, n);
            queues.get(affinity[reps.indexOf(i)] ?? "")!.unshift(i);
          } else finish(i, m.verdict, n);
          retire("restart after a solver fault");
          return;
        }
        finish(i, m.verdict, (retries.get(i) ?? 0) + 1);
        feed();
      });
      w.on("error", (e) => retire(`worker crashed: ${e.message}`));
      w.on("exit", (code) => {
        if (!dead) retire(`worker exited (code ${code})`);
      });
    };
    try {
      for (let k = 0; k < nWorkers; k++) spawn();
    } catch (e) {
      rejectAll(e);
    }
  });
  return results.map((r, i) => r ?? { item: items[i]!, verdict: { verdict: "unknown", ms: 0, reason: "not run" }, key: keys[i]!, coveredBy: i, tries: 0 });
}

// ---------------------------------------------------------------------------------------
// Worker side

async function serve(): Promise<void> {
  const { loadZ3 } = await import("./smt.js");
  const { proveRoutine } = await import("./prove.js");
  const env = await loadZ3();
  parentPort!.on("message", async (req: Req) => {
    try {
      const rule = await resolveRule(req.item);
      const verdict = await proveRoutine(req.item.spec, req.item.target, req.item.profile, rule, { ...req.opts, env });
      parentPort!.postMessage({ id: req.id, verdict } satisfies Res);
    } catch (e) {
      parentPort!.postMessage({ id: req.id, error: (e as Error).stack ?? String(e) } satisfies Res);
    }
  });
  parentPort!.postMessage({ ready: true });
}

if (!isMainThread && (workerData as { ptxProver?: boolean } | null)?.ptxProver) void serve();
