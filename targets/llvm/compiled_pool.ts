/**
 * @fileoverview `checkCompiledSets` (./compiled.ts) on worker threads: the runs of the `hip` and
 * `llvm` rows of `verify` are most of its time (on ../shared/ptx/c14 they were 9 s of every
 * 10 after the fragments), and they are independent per callable function, so the functions
 * of a flush are dealt to a pool of threads, one form and kinds (its functions on every
 * processor of the flush) at a time. A form goes back to the thread that ran it before where that thread is free
 * (`verify` flushes the hip rows and then the llvm rows of the same functions: that thread
 * still holds the function's warps and their references, ./compiled.ts `inputCache`), else to
 * the next free thread. Rows are the same as in one thread (every run is a function of its
 * code and inputs), in the same order.
 *
 * Threads: `PTXL_JOBS` (a positive integer), else the machine's available parallelism; 1, or
 * a flush too small to repay starting threads, runs in this thread. The pool is started at
 * the first flush that uses it and kept for the process (idle threads do not keep it alive).
 */
import type { Worker } from "node:worker_threads";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { formId } from "../../src/ir/forms.js";
import { startWorker } from "../../src/workers.js";
import { compiledJobs } from "../../src/jobs.js";
import type { CompiledCheckOptions, CompiledFor, CompiledRow } from "./compiled.js";
import { checkCompiledSets, isWarpFn } from "./compiled.js";

if (!isMainThread && (workerData as { ptxCompiledRows?: boolean } | null)?.ptxCompiledRows) serve();

/** One function's work: its compiles (each set holding that function's code only). */
interface Req {
  id: number;
  target: "hip" | "llvm";
  compiles: CompiledFor[];
  opts: Omit<CompiledCheckOptions, "onFunction">;
}
type Res = { id: number; rows: CompiledRow[][] } | { id: number; error: string };

/** The worker side: checks each function it is sent. */
function serve(): void {
  parentPort!.on("message", (r: Req) => {
    try {
      parentPort!.postMessage({ id: r.id, rows: checkCompiledSets(r.target, r.compiles, r.opts) } satisfies Res);
    } catch (e) {
      parentPort!.postMessage({ id: r.id, error: (e as Error).stack ?? String(e) } satisfies Res);
    }
  });
}

/** Work below which a flush runs in this thread (warp-function runs: warps × processors; a scalar function counts 30). */
const POOL_MIN_WORK = 4_000;

const pool: Worker[] = [];
/** Request ids, unique in the process: two flushes (two library calls) may share the threads at once. */
let nextId = 0;
/** The thread that last ran a form and kinds' functions (hip and llvm share it: the same warps and references). */
const affinity = new Map<string, number>();

/**
 * `checkCompiledSets(target, compiles, opts)` on up to `threads.jobs` threads (default
 * `compiledJobs()`; see the file overview), in this thread when the work is below
 * `threads.minWork` (default 4,000 warp runs).
 * Same rows, same order; `opts.onFunction` is called as functions finish (in finishing order).
 * @throws Error when a thread fails (an internal error: its stack is in the message)
 */
export async function checkCompiledSetsPooled(target: "hip" | "llvm", compiles: readonly CompiledFor[], opts: CompiledCheckOptions = {}, threads: { jobs?: number; minWork?: number } = {}): Promise<CompiledRow[][]> {
  const jobs = threads.jobs ?? compiledJobs();
  const names: string[] = [];
  for (const c of compiles) for (const cf of c.set.functions) if (!names.includes(cf.fn.name)) names.push(cf.fn.name);
  const nw = opts.warps ?? 1000;
  let work = 0;
  for (const name of names) {
    const warp = compiles.some((c) => c.set.functions.some((cf) => cf.fn.name === name && isWarpFn(cf.fn)));
    work += compiles.length * (warp ? nw : 30);
  }
  const n = Math.min(jobs, names.length);
  if (n <= 1 || work < (threads.minWork ?? POOL_MIN_WORK)) return checkCompiledSets(target, compiles, opts);
  while (pool.length < n) {
    const w = startWorker(new URL(import.meta.url), { ptxCompiledRows: true });
    w.unref();
    pool.push(w);
  }
  const { onFunction, ...rest } = opts;
  // Functions of one form and kinds (a routine whose sources are all parameters and its form's
  // alias: the same code, run once by `checkCompiledSets`'s run cache; the same warps) go
  // together, as one task.
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const fn = compiles.flatMap((c) => c.set.functions).find((cf) => cf.fn.name === name)!.fn;
    const key = `${formId(fn.spec.form)}|${JSON.stringify(fn.spec.kinds, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x))}`;
    groups.set(key, [...(groups.get(key) ?? []), name]);
  }
  const byName = new Map<string, CompiledRow[][]>();
  const left = [...groups.keys()];
  let done = 0;
  const runOn = (wi: number, key: string): Promise<void> => {
    const w = pool[wi]!;
    const mine = groups.get(key)!;
    const req: Req = {
      id: nextId++,
      target,
      compiles: compiles.map((c) => ({ mcpu: c.mcpu, sregs: c.sregs, set: { asm: "", functions: c.set.functions.filter((cf) => mine.includes(cf.fn.name)) } })),
      opts: rest,
    };
    return new Promise<void>((resolve, reject) => {
      const onMessage = (res: Res) => {
        if (res.id !== req.id) return;
        w.off("message", onMessage);
        w.off("error", onError);
        w.unref();
        if ("error" in res) reject(new Error(`verify's ${target} rows, thread ${wi}: ${res.error}`));
        else {
          // Rows per compile in the group's name order: split them by name.
          for (const name of mine) byName.set(name, res.rows.map((rows) => rows.filter((r) => r.fn === name)));
          affinity.set(key, wi);
          done += mine.length;
          onFunction?.(done, names.length);
          resolve();
        }
      };
      const onError = (e: Error) => {
        w.off("message", onMessage);
        reject(e);
      };
      w.ref();
      w.on("message", onMessage);
      w.on("error", onError);
      w.postMessage(req);
    });
  };
  // Each thread takes the next task it ran before, else the next no other thread ran, else the next.
  const take = (wi: number): string | undefined => {
    const pick = (ok: (k: string) => boolean) => {
      const i = left.findIndex(ok);
      return i < 0 ? undefined : left.splice(i, 1)[0];
    };
    return pick((k) => affinity.get(k) === wi) ?? pick((k) => affinity.get(k) === undefined) ?? pick(() => true);
  };
  const loop = async (wi: number) => {
    for (let key = take(wi); key !== undefined; key = take(wi)) await runOn(wi, key);
  };
  await Promise.all(Array.from({ length: n }, (_, wi) => loop(wi)));
  // The rows of compile i in `names` order, as `checkCompiledSets` returns them.
  return compiles.map((_, ci) => names.flatMap((name) => byName.get(name)![ci]!));
}
