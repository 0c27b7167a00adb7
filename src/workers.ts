/**
 * @fileoverview Starting a worker thread on one of this package's modules, compiled (`.js`,
 * under dist/) or not (`.ts`, under tsx: the tests and scripts). Used by the prover pools
 * (src/check/prove_worker.ts, targets/llvm/prove_compiled_matrix.ts) and the compiled-row
 * checker pool (targets/llvm/compiled_pool.ts).
 */
import { Worker } from "node:worker_threads";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

/**
 * A worker thread running the module at `url` with `workerData` = `data`. A `.ts` module is
 * run under tsx: its loader is registered inside the thread first (a worker does not inherit
 * the parent's loader hooks), then the module imported.
 * @throws Error when `url` is a `.ts` file and tsx is not installed (only the tests use one)
 */
export function startWorker(url: URL, data: unknown): Worker {
  if (!url.href.endsWith(".ts")) return new Worker(url, { workerData: data });
  const req = createRequire(url);
  const api = pathToFileURL(req.resolve("tsx/package.json").replace(/package\.json$/, "dist/esm/api/index.mjs")).href;
  const code = `import { register } from ${JSON.stringify(api)}; register(); await import(${JSON.stringify(url.href)});`;
  return new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`), { workerData: data });
}
