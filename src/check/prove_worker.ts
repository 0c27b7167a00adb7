/**
 * @fileoverview Batch proving on every core: a pool of worker_threads, each with its own z3
 * context (src/check/smt.ts loads one per thread), a per-query timeout, a watchdog per item,
 * and restart after a solver fault or crash — the item is recorded as unknown and retried
 * once in a fresh worker.
 *
 * Identical queries are proved once (`share`, on by default): items whose query keys are
 * equal (src/check/prove.ts `queryKey`: the same emitted lines or PIR, contract layout, wave
 * size and spec terms) share one proof, and every item's result names the item whose proof
 * covers it. Items with the same affinity (match or warp-level routines sharing a loop) go to
 * the same worker where possible, so a target's per-loop lemma cache
 * (targets/amdgpu/prove/match.ts, warp_loop.ts) is reused.
 *
 * This module also serves the worker side: a thread started with `workerData.ptxProver`
 * (entry src/compose_worker.ts, which registers the targets first) serves proof requests.
 * The prover models are reached only through src/check/prove.ts (`targetServices().prover`).
 */
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { availableParallelism } from "node:os";
import { startWorker } from "../workers.js";
import type { Profile } from "../ir/forms.js";
import type { RoutineSpec } from "../ir/ir.js";
import type { Family, Form } from "../ir/forms.js";
import type { AnyFamily } from "../family/types.js";
import { PROFILES, formId } from "../ir/forms.js";
import { familyNamed, familyOf } from "../families/index.js";
import { routineName } from "../ir/ir.js";
import { targetServices } from "../target/registry.js";
import type { AnyRule, ProveOptions, ProveTarget, Reduction, SelectorLemma, Verdict } from "./prove.js";
import { proveAffinity, proveSelectorLemma, queryKey, reduceSelectors, rulesFor } from "./prove.js";
import type { ProofCache } from "./proof_cache.js";
import { cacheable } from "./proof_cache.js";

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

/** The verdict of one item, and which proved query covers it. */
export interface ItemResult {
  item: ProveItem;
  verdict: Verdict;
  /** The item's own query key (identical keys: identical queries). */
  key: string;
  /** Index (in the input) of the item whose query was solved for it; -1 if that query is not an input item. */
  coveredBy: number;
  /** The query whose verdict this is: its key and a label (routine, rule, target, profile). */
  query: { key: string; label: string };
  /** How a reduction connects the item to that query (selector stages), if one does. */
  via?: string;
  /** Tries (2 after a fault or crash retry). */
  tries: number;
  /** The verdict came from the proof cache (`ManyOptions.cache`), not from this run. */
  cached?: boolean;
}

export interface ManyOptions extends Omit<ProveOptions, "env"> {
  /** Worker threads (default: every core). */
  workers?: number;
  /** Prove identical queries once (default true). */
  share?: boolean;
  /** Reduce video items with selectors to the selector-free routine's proof (default true). */
  reduce?: boolean;
  /** Watchdog per item (default 40 × timeoutMs, at least 10 minutes). */
  itemTimeoutMs?: number;
  onProgress?: (done: number, total: number, result: ItemResult) => void;
  /**
   * Verdicts of an earlier run of the same source (./proof_cache.ts): a query whose key it
   * holds is not solved again; every proved or refuted verdict of this run is stored in it.
   */
  cache?: ProofCache;
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

/** Items that should run in the same worker: match or warp-level routines sharing a loop. */
async function affinityOf(item: ProveItem): Promise<string> {
  if (item.spec.form.op !== "match" && familyOf(item.spec.form).name !== "warp") return "";
  try {
    return proveAffinity(item.spec, item.target, item.profile, await resolveRule(item));
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

/** A prover worker: src/compose_worker.ts (the targets registered, then this module). */
function startProverWorker(): Worker {
  const here = import.meta.url;
  return startWorker(new URL(here.endsWith(".ts") ? "../compose_worker.ts" : "../compose_worker.js", here), { ptxProver: true });
}

/** A label for the query an item stands for: routine, rule, target, profile. */
export function itemLabel(it: ProveItem): string {
  const t = it.target.kind === "amdgpu" ? it.target.mcpu : "pir";
  return `${routineName(it.spec, formId)} ${it.rule} ${t} ${it.profile}`;
}

/**
 * Proves many items on a worker pool. Results come back in input order.
 *
 * Plan: items with equal query keys share one proof. A video item with selectors whose
 * proof reduces to the same routine without selectors (`reduceSelectors`: checked term
 * equalities plus one-instruction selector lemmas, proved here in the main thread) is
 * covered by that routine's proof; if that proof fails, the item is proved on its own.
 * A solver fault or a crashed worker makes that item `unknown` and it is retried once in a
 * fresh worker; a second fault stands as unknown.
 */
export async function proveMany(items: ProveItem[], opts: ManyOptions = {}): Promise<ItemResult[]> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const share = opts.share ?? true;
  const keys = await Promise.all(items.map((it, i) => (share ? itemKey(it) : Promise.resolve(`item:${i}`))));
  const firstOf = new Map<string, number>();
  keys.forEach((k, i) => {
    if (!firstOf.has(k)) firstOf.set(k, i);
  });

  // Reductions (video selectors) for each distinct query.
  const reduced = new Map<string, { base: ProveItem; baseKey: string; lemmas: SelectorLemma[] }>();
  if (share && opts.reduce !== false) {
    for (const [k, i] of firstOf) {
      const it = items[i]!;
      if (!(familyOf(it.spec.form) as AnyFamily).selectorStage?.(it.spec.form)) continue;
      if (it.ruleModule) continue;
      let red: Reduction | null = null;
      try {
        red = reduceSelectors(it.spec, it.target, it.profile, await resolveRule(it));
      } catch {
        red = null;
      }
      if (!red) continue;
      const base: ProveItem = { ...it, spec: red.base };
      reduced.set(k, { base, baseKey: await itemKey(base), lemmas: red.lemmas });
    }
    // The selector lemmas: few and tiny, proved here.
    const lemmas = new Map<string, { lemma: SelectorLemma; target: ProveTarget }>();
    for (const r of reduced.values()) for (const l of r.lemmas) lemmas.set(l.key, { lemma: l, target: r.base.target });
    if (lemmas.size) {
      const { loadZ3 } = await import("./smt.js");
      const env = await loadZ3();
      const ok = new Map<string, boolean>();
      for (const [lk, l] of lemmas) ok.set(lk, await proveSelectorLemma(env, l.target, l.lemma, timeoutMs));
      for (const [k, r] of [...reduced]) if (!r.lemmas.every((l) => ok.get(l.key))) reduced.delete(k);
    }
  }

  // Round 1: every distinct key that no reduction covers, and every reduction's base.
  const tasks = new Map<string, ProveItem>();
  for (const [k, i] of firstOf) {
    const r = reduced.get(k);
    if (r) {
      if (!tasks.has(r.baseKey)) tasks.set(r.baseKey, r.base);
    } else if (!tasks.has(k)) tasks.set(k, items[i]!);
  }
  const verdicts = new Map<string, { verdict: Verdict; tries: number; label: string; cached?: boolean }>();
  let done = 0;
  const total = items.length;
  const results: (ItemResult | undefined)[] = new Array(items.length);
  const byKey = new Map<string, number[]>();
  keys.forEach((k, j) => {
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k)!.push(j);
  });
  const byBase = new Map<string, string[]>();
  for (const [k, r] of reduced) {
    if (!byBase.has(r.baseKey)) byBase.set(r.baseKey, []);
    byBase.get(r.baseKey)!.push(k);
  }
  const emit = (j: number, res: ItemResult) => {
    if (results[j]) return;
    results[j] = res;
    done++;
    opts.onProgress?.(done, total, res);
  };
  const settle = (k: string) => {
    const own = verdicts.get(k)!;
    // Items whose own query is k.
    const cached = own.cached ? { cached: true } : {};
    for (const j of byKey.get(k) ?? []) emit(j, { item: items[j]!, verdict: own.verdict, key: k, coveredBy: firstOf.get(k)!, query: { key: k, label: own.label }, tries: own.tries, ...cached });
    // Items reduced to k, when k is proved (otherwise they get their own proof in round 2).
    if (own.verdict.verdict !== "proved") return;
    for (const kr of byBase.get(k) ?? []) {
      const r = reduced.get(kr);
      if (!r) continue;
      const via = `selector stage: covered by ${own.label}${r.lemmas.length ? ` and ${r.lemmas.length} selector lemma(s)` : ""}`;
      const verdict: Verdict = { ...own.verdict, method: `${(own.verdict as { method: string }).method}; ${via}` };
      for (const j of byKey.get(kr) ?? []) emit(j, { item: items[j]!, verdict, key: kr, coveredBy: firstOf.get(k) ?? -1, query: { key: k, label: own.label }, via, tries: own.tries, ...cached });
    }
  };
  const run = async (all: [string, ProveItem][]) => {
    // Queries the cache answers are settled from it (./proof_cache.ts: same key, same source).
    const list: [string, ProveItem][] = [];
    for (const [k, it] of all) {
      const v = opts.cache?.get(k) as Verdict | undefined;
      if (v && cacheable(v)) {
        verdicts.set(k, { verdict: v, tries: 0, label: itemLabel(it), cached: true });
        settle(k);
      } else list.push([k, it]);
    }
    const vs = await runPool(
      list.map(([, it]) => it),
      opts,
      (idx, verdict, tries) => {
        const [k, it] = list[idx]!;
        verdicts.set(k, { verdict, tries, label: itemLabel(it) });
        if (opts.cache && cacheable(verdict)) opts.cache.put(k, itemLabel(it), verdict);
        settle(k);
      },
    );
    void vs;
  };
  await run([...tasks]);
  // Round 2: reduced items whose base was not proved are proved on their own.
  const round2 = new Map<string, ProveItem>();
  for (let j = 0; j < items.length; j++) if (!results[j] && !verdicts.has(keys[j]!)) round2.set(keys[j]!, items[firstOf.get(keys[j]!)!]!);
  for (const k of round2.keys()) reduced.delete(k);
  if (round2.size) await run([...round2]);
  return results.map(
    (r, i) => r ?? { item: items[i]!, verdict: { verdict: "unknown", ms: 0, reason: "not run" }, key: keys[i]!, coveredBy: i, query: { key: keys[i]!, label: itemLabel(items[i]!) }, tries: 0 },
  );
}

/**
 * The worker pool: proves `tasks` (one query each) on `opts.workers` threads, calling
 * `onResult(index, verdict, tries)` as each finishes. Tasks with the same affinity go to the
 * same worker where possible.
 */
async function runPool(tasks: ProveItem[], opts: ManyOptions, onResult: (index: number, verdict: Verdict, tries: number) => void): Promise<void> {
  if (tasks.length === 0) return;
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const proveOpts: Omit<ProveOptions, "env"> = { timeoutMs };
  if (opts.bugFinder !== undefined) proveOpts.bugFinder = opts.bugFinder;
  if (opts.bugLanes !== undefined) proveOpts.bugLanes = opts.bugLanes;
  if (opts.bugTimeoutMs !== undefined) proveOpts.bugTimeoutMs = opts.bugTimeoutMs;
  const itemTimeout = opts.itemTimeoutMs ?? Math.max(600_000, 40 * timeoutMs);
  const affinity = await Promise.all(tasks.map((it) => affinityOf(it)));
  const queues = new Map<string, number[]>();
  const order: string[] = [];
  tasks.forEach((_, i) => {
    const a = affinity[i]!;
    if (!queues.has(a)) {
      queues.set(a, []);
      order.push(a);
    }
    queues.get(a)!.push(i);
  });
  const retries = new Map<number, number>();
  // A worker that takes an item of an affinity group owns the group: the others leave it
  // alone while they have anything else to do (so a loop lemma is proved once, not twice).
  const owner = new Map<string, number>();
  const next = (me: number, prefer: string | null): number | undefined => {
    if (prefer && queues.get(prefer)?.length) return queues.get(prefer)!.shift();
    for (const pass of [0, 1])
      for (const a of order) {
        const q = queues.get(a)!;
        if (!q.length) continue;
        const o = owner.get(a);
        if (pass === 0 && a !== "" && o !== undefined && o !== me) continue;
        if (a !== "") owner.set(a, me);
        return q.shift();
      }
    return undefined;
  };
  let workerIds = 0;
  const remaining = () => [...queues.values()].reduce((n, q) => n + q.length, 0);
  const requeue = (i: number) => queues.get(affinity[i]!)!.unshift(i);
  const nWorkers = Math.max(1, Math.min(opts.workers ?? availableParallelism(), tasks.length));
  let nextId = 0;
  await new Promise<void>((resolveAll) => {
    let live = 0;
    const spawn = () => {
      const w = startProverWorker();
      const me = workerIds++;
      live++;
      let current: { id: number; index: number; timer: NodeJS.Timeout } | null = null;
      let lastAffinity: string | null = null;
      let dead = false;
      const stop = () => {
        if (dead) return;
        dead = true;
        live--;
        for (const [a, o] of owner) if (o === me) owner.delete(a);
        void w.terminate();
      };
      // A crash or fault: the item is unknown; retried once in a fresh worker.
      const fault = (i: number, verdict: Verdict) => {
        const n = (retries.get(i) ?? 0) + 1;
        retries.set(i, n);
        if (n < 2) requeue(i);
        else onResult(i, verdict, n);
      };
      const retire = (reason: string) => {
        if (dead) return;
        if (current) {
          clearTimeout(current.timer);
          const i = current.index;
          current = null;
          fault(i, { verdict: "unknown", ms: 0, reason, fault: true });
        }
        stop();
        if (remaining() > 0) spawn();
        else if (live === 0) resolveAll();
      };
      const feed = () => {
        const i = next(me, lastAffinity);
        if (i === undefined) {
          stop();
          if (live === 0) resolveAll();
          return;
        }
        const id = nextId++;
        const timer = setTimeout(() => retire(`worker watchdog: no answer in ${itemTimeout / 1000} s`), itemTimeout);
        current = { id, index: i, timer };
        lastAffinity = affinity[i]!;
        w.postMessage({ id, item: tasks[i]!, opts: proveOpts } satisfies Req);
      };
      w.on("message", (m: Res | { ready: true }) => {
        if ("ready" in m) return feed();
        if (!current || m.id !== current.id) return;
        clearTimeout(current.timer);
        const i = current.index;
        current = null;
        if ("error" in m) {
          onResult(i, { verdict: "unknown", ms: 0, reason: `prover error: ${m.error}` }, (retries.get(i) ?? 0) + 1);
          return feed();
        }
        if (m.verdict.verdict === "unknown" && m.verdict.fault) {
          // The z3 context may be damaged: a fresh worker for the retry and the rest.
          fault(i, m.verdict);
          return retire("restart after a solver fault");
        }
        onResult(i, m.verdict, (retries.get(i) ?? 0) + 1);
        feed();
      });
      w.on("error", (e) => retire(`worker crashed: ${e.message}`));
      w.on("exit", (code) => {
        if (!dead) retire(`worker exited (code ${code})`);
      });
    };
    for (let k = 0; k < nWorkers; k++) spawn();
  });
}

// ---------------------------------------------------------------------------------------
// The matrix

/**
 * The routines proved for a form: the family's operand kinds (and guards) such that every
 * rule applies to at least one of them (`Family.proveSpecs`).
 */
export function matrixSpecs(form: Form): RoutineSpec[] {
  return familyOf(form).proveSpecs(form);
}

/** The targets of the matrix: every AMDGPU mcpu, and the PIR (which JS and C share). */
export function matrixTargets(): readonly ProveTarget[] {
  return targetServices().prover.matrixTargets();
}

/** One combination of the matrix: a routine × target × profile, and its rules (none: a gap). */
export interface MatrixRow {
  spec: RoutineSpec;
  target: ProveTarget;
  profile: Profile;
  rules: string[];
}

/**
 * The whole matrix of a family: every form × operand kinds (`matrixSpecs`) × target ×
 * profile, with every rule that applies (shadowed ones included). `every`: keep one form in
 * `every` (a sample; 1 = all).
 */
export function matrixRows(family: Family, every = 1): MatrixRow[] {
  const rows: MatrixRow[] = [];
  let i = 0;
  for (const form of familyNamed(family).forms()) {
    if (i++ % every !== 0) continue;
    for (const spec of matrixSpecs(form)) {
      for (const target of matrixTargets()) for (const profile of PROFILES) rows.push({ spec, target, profile, rules: rulesFor(spec, target, profile).map((r) => r.name) });
    }
  }
  return rows;
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
