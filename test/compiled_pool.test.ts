/**
 * `verify`'s hip/llvm rows on worker threads (targets/llvm/compiled_pool.ts): the rows are the
 * rows of one thread — same order, verdicts and counts — and a refutation found on a thread
 * comes back whole; `PTXL_JOBS` is checked (src/jobs.ts; the CLI makes a bad value a usage
 * error before any work). The expected rows are `checkCompiledSets`' own in this thread, which
 * test/warp_hip_llvm.test.ts and test/hip_llvm.test.ts check against the reference.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { parseModule } from "../src/index.js";
import { collectRoutines } from "../src/lower.js";
import { callableFunctions } from "../targets/llvm/callable.js";
import { checkCompiledSets } from "../targets/llvm/compiled.js";
import type { CompiledFor } from "../targets/llvm/compiled.js";
import { checkCompiledSetsPooled } from "../targets/llvm/compiled_pool.js";
import { callableName, compileForEach } from "../targets/llvm/compile_for.js";
import { compileHip } from "../targets/hip/compile.js";
import { printHipModule } from "../targets/hip/print.js";
import { compiledJobs } from "../src/jobs.js";
import type { WarpForm } from "../src/ir/warp_forms.js";

const missing = ["clang-19", "llc-19"].find((t) => {
  const r = spawnSync(t, ["--version"], { encoding: "utf8" });
  return r.error !== undefined || r.status !== 0;
});
if (missing) console.log(`test/compiled_pool.test.ts: skipped, ${missing} is not installed`);

describe.skipIf(missing)("the compiled rows on worker threads", () => {
  it("c14's llvm rows and c08's hip rows on two threads are the rows of one thread, in the same order", async () => {
    for (const [file, kind] of [
      ["../shared/ptx/c14_warp_reduce_scan.sm_90.ptx", "llvm"],
      ["../shared/ptx/c08_vshl_vshr_forms.sm_90.ptx", "hip"],
    ] as const) {
      const mod = parseModule(readFileSync(file, "utf8"), file);
      const routines = collectRoutines(mod).map((r) => ({ name: callableName(r.spec), spec: r.spec }));
      const mcpus = ["gfx942", "gfx1100"] as const;
      const compiled = await compileForEach(kind, routines, mcpus, "isa");
      const compiles: CompiledFor[] = compiled.map((c, i) => ({ mcpu: mcpus[i]!, set: c.set, sregs: c.sregs }));
      const opts = { warps: 40, seed: 5 };
      const one = checkCompiledSets(kind, compiles, opts);
      const seen: number[] = [];
      const two = await checkCompiledSetsPooled(kind, compiles, { ...opts, onFunction: (d) => seen.push(d) }, { jobs: 2, minWork: 0 });
      expect(two).toEqual(one);
      expect(one.flat().length).toBeGreaterThan(20);
      expect(one.flat().every((r) => r.verdict.status === "tested")).toBe(true);
      // Progress counts up to every function.
      expect(seen.at(-1)).toBe(new Set(compiles.flatMap((c) => c.set.functions.map((f) => f.fn.name))).size);
    }
  }, 240_000);

  it("a refutation found on a thread comes back whole (a shuffle that forgets its warp's base)", async () => {
    const shfl: WarpForm = { op: "shfl", sync: true, mode: "idx", type: "b32", dest: "d" };
    const V = { kind: "v" as const };
    const rs = [{ name: "shfl_vvvv", spec: { form: shfl, kinds: { a: V, b: V, c: V, membermask: V }, guarded: false } }];
    const fns = callableFunctions(rs);
    const text = printHipModule(rs).replaceAll("((ptxl_warp_base_() + j) << 2)", "(j << 2)");
    expect(text).not.toBe(printHipModule(rs));
    const set = await compileHip(text, fns, "gfx942");
    const compiles: CompiledFor[] = [{ mcpu: "gfx942", set, sregs: [] }];
    const one = checkCompiledSets("hip", compiles, { warps: 60, seed: 9 });
    const two = await checkCompiledSetsPooled("hip", compiles, { warps: 60, seed: 9 }, { jobs: 2, minWork: 0 });
    expect(two).toEqual(one);
    expect(two[0]!.some((r) => r.verdict.status === "refuted")).toBe(true);
    // Two calls at once (two library calls sharing the threads) each get their own rows.
    const other = checkCompiledSets("hip", compiles, { warps: 30, seed: 4 });
    const [x, y] = await Promise.all([checkCompiledSetsPooled("hip", compiles, { warps: 60, seed: 9 }, { jobs: 2, minWork: 0 }), checkCompiledSetsPooled("hip", compiles, { warps: 30, seed: 4 }, { jobs: 2, minWork: 0 })]);
    expect(x).toEqual(one);
    expect(y).toEqual(other);
  }, 120_000);

  it("PTXL_JOBS: a positive integer, else a TypeError naming it; unset or empty: every core", () => {
    expect(compiledJobs({ PTXL_JOBS: "3" })).toBe(3);
    expect(compiledJobs({})).toBeGreaterThanOrEqual(1);
    expect(compiledJobs({ PTXL_JOBS: "" })).toBe(compiledJobs({}));
    for (const bad of ["0", "-1", "1.5", "abc", "99999", " 2"]) expect(() => compiledJobs({ PTXL_JOBS: bad })).toThrow(new TypeError(`PTXL_JOBS must be a positive integer (the threads that verify's hip and llvm rows run on), not ${JSON.stringify(bad)}`));
  });
});
