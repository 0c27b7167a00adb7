/**
 * @fileoverview `PTXL_JOBS`: how many threads `verify`'s hip and llvm rows may run on
 * (targets/llvm/compiled_pool.ts). Its own small module so that the CLI checks the variable
 * before any work (bin/ptx-lower.ts) without loading the checker.
 */
import { availableParallelism } from "node:os";

/**
 * The threads the compiled rows may use: `PTXL_JOBS` where set and not empty (a positive
 * integer, at most 9999), else `availableParallelism()`.
 * @throws TypeError naming the variable and what it accepts, for any other value
 */
export function compiledJobs(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.PTXL_JOBS;
  if (v === undefined || v === "") return availableParallelism();
  if (!/^[1-9][0-9]{0,3}$/.test(v)) throw new TypeError(`PTXL_JOBS must be a positive integer (the threads that verify's hip and llvm rows run on), not ${JSON.stringify(v)}`);
  return Number(v);
}
