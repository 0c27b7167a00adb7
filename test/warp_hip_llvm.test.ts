/**
 * Issue 15 item 4 (first half): the HIP and LLVM IR functions of the warp-level family (shfl,
 * vote, redux, activemask, bar.warp.sync), targets/hip/print.ts and targets/llvm/print.ts.
 * The real module c14 lowers with no warning and its header and module compile for all five
 * processors; the shared vectors pass through the compiled code; random warps (divergent and
 * holed membermasks, per-lane b/c, exited lanes, two CUDA warps per wave64) agree with
 * `warpReference`; and the comparison has teeth: a shuffle that forgets the warp's base and a
 * vote with HIP's `__all_sync` mask bug are refuted. Expected values are the vectors' and the
 * reference's (src/sem/warp.ts), never the code under test. Skips (printing why) only when
 * clang-19 or llc-19 is absent. Sampled to keep CI short; the full runs are
 * `ptx-lower check ../shared/vectors/warp.jsonl --target hip|llvm` (every processor) and
 * `ptx-lower verify ../shared/ptx/c14_warp_reduce_scan.sm_90.ptx --target hip|llvm`.
 */
import { describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { parseModule } from "../src/index.js";
import { collectRoutines, lowerModule } from "../src/lower.js";
import type { ModuleRoutine } from "../src/lower.js";
import { familyOf } from "../src/families/index.js";
import { warp } from "../src/families/warp.js";
import type { WarpForm } from "../src/ir/warp_forms.js";
import { warpFormId } from "../src/ir/warp_forms.js";
import type { RoutineSpec } from "../src/ir/ir.js";
import { MCPUS } from "../targets/amdgpu/regs.js";
import { runTool } from "../src/tools.js";
import { printHipModule } from "../targets/hip/print.js";
import { clangArgs, compileHip } from "../targets/hip/compile.js";
import { printLlvmModule } from "../targets/llvm/print.js";
import { callableFunctions } from "../targets/llvm/callable.js";
import { checkCompiled, checkCompiledSets, verifyCompiled } from "../targets/llvm/compiled.js";
import { callableName } from "../targets/llvm/compile_for.js";
import { runWarpAllChunk, warpAllChunks, warpAllSpecs } from "../src/check/warp_verify_all.js";
import "../src/compose.js";
import type { CompiledRow } from "../targets/llvm/compiled.js";
import { proveCompiled } from "../targets/llvm/prove_compiled.js";
import { readVectors, runVectors } from "../src/check/vectors.js";
import { FILE as VECTORS } from "./warp_vector_cases.js";

const missing = ["clang-19", "llc-19"].find((t) => {
  const r = spawnSync(t, ["--version"], { encoding: "utf8" });
  return r.error !== undefined || r.status !== 0;
});
if (missing) console.log(`test/warp_hip_llvm.test.ts: skipped, ${missing} is not installed`);
const HIP_RUNTIME = existsSync("/usr/include/hip/hip_runtime.h");
if (!missing && !HIP_RUNTIME) console.log("test/warp_hip_llvm.test.ts: /usr/include/hip/hip_runtime.h missing (libamdhip64-dev): the header is compiled self-contained only");

const C14 = "../shared/ptx/c14_warp_reduce_scan.sm_90.ptx";

function routinesOf(file: string): ModuleRoutine[] {
  const mod = parseModule(readFileSync(file, "utf8"), file);
  expect(mod.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return collectRoutines(mod);
}

const notTested = (rows: CompiledRow[]) => rows.filter((r) => r.verdict.status !== "tested").map((r) => `${r.row} ${r.fn}: ${JSON.stringify(r.verdict).slice(0, 1500)}`);

/** A routine of `form` with every source of the given kind (an unguarded callable function). */
const routine = (form: WarpForm, kinds: RoutineSpec["kinds"]): { name: string; spec: RoutineSpec } => ({ name: `${warpFormId(form)}_${Object.values(kinds).map((k) => k?.kind).join("")}`, spec: { form, kinds, guarded: false } });

describe.skipIf(missing !== undefined)("warp-level functions in the hip header and the llvm module", () => {
  it("c14: every warp occurrence lowered with no warning; the header and the module compile for all five processors", async () => {
    const mod = parseModule(readFileSync(C14, "utf8"), C14);
    const texts: Record<string, string> = {};
    for (const target of ["hip", "llvm"] as const) {
      const out = await lowerModule(mod, { target, profile: "isa" });
      expect(out.warnings, target).toEqual([]);
      expect(out.routines.filter((r) => familyOf(r.spec.form).name === "warp").length, target).toBeGreaterThan(0);
      texts[target] = out.text;
    }
    const sources = callableFunctions(collectRoutines(mod));
    for (const op of ["shfl", "vote", "redux", "activemask"]) expect(sources.some((f) => f.spec.form.op === op), op).toBe(true);
    for (const mcpu of MCPUS) {
      expect(await runTool("clang-19", clangArgs(mcpu), texts.hip!), `hip ${mcpu}`).toContain(".amdgcn_target");
      const s = await runTool("llc-19", ["-O2", "-mtriple=amdgcn-amd-amdhsa", `-mcpu=${mcpu}`], texts.llvm!);
      for (const fn of sources) expect(s, `${fn.name} on ${mcpu}`).toContain(`${fn.name}:`);
    }
    // With HIP's own header first (its __shfl*/__ballot names are not ours): a wave64 and a wave32 processor.
    if (HIP_RUNTIME)
      for (const mcpu of ["gfx90a", "gfx1100"] as const)
        await runTool("clang-19", ["-x", "hip", "--cuda-device-only", "-nogpulib", "-O2", `--offload-arch=${mcpu}`, "-include", "hip/hip_runtime.h", "-S", "-o", "-", "-"], texts.hip!);
  }, 120_000);

  it("the shared vectors through the compiled functions: 369 × 4 rows passed, 0 failed (hip on gfx942 and gfx1030, llvm on gfx90a and gfx1100)", async () => {
    const { vectors, diagnostics } = readVectors(readFileSync(VECTORS, "utf8"), VECTORS);
    expect(diagnostics).toEqual([]);
    const r = await runVectors(vectors, "isa", { ref: false, amdgpu: [], js: false, c: false, hip: ["gfx942", "gfx1030"], llvm: ["gfx90a", "gfx1100"] });
    expect(r.failures.map((f) => `${f.vector.id} [${f.target}] ${f.message}`).slice(0, 10)).toEqual([]);
    expect(r.notes).toEqual([]);
    expect({ passed: r.passed, failed: r.failed, skipped: r.skipped }).toEqual({ passed: 369 * 4, failed: 0, skipped: 0 });
  }, 180_000);

  it("random warps: one form of each class (divergent membermask, per-lane b and c), both argument layouts and both wave64 layouts, on gfx942 and gfx1100", async () => {
    const V = { kind: "v" as const };
    // The redux loop reads every executing lane: 5 of the 11 redux classes (both .f32 kinds among them) keep the run short.
    const forms = warp.sample(7).filter((f) => f.op !== "redux" || ["add", "min", "xor"].includes(f.reduxOp));
    expect(forms.length).toBeGreaterThanOrEqual(20);
    const routines = forms.map((f) => routine(f, Object.fromEntries(warp.sources(f).map((s) => [s, V]))));
    const rows = await verifyCompiled(routines, { targets: ["hip", "llvm"], mcpus: ["gfx942", "gfx1100"], warps: 12, seed: 5 });
    expect(notTested(rows)).toEqual([]);
    // Per function: 12 warps per layout; gfx942 also runs them two independent CUDA warps per wave64 (6 waves).
    for (const r of rows.filter((r) => !r.fn.startsWith("ptxl_")))
      expect(r.parts, `${r.row} ${r.fn}`).toEqual(r.mcpu === "gfx942" ? { vgpr: 12, "vgpr/two-warps": 12, sgpr: 12, "sgpr/two-warps": 12 } : { vgpr: 12, sgpr: 12 });
  }, 240_000);

  it("refutes a shuffle that forgets its warp's base (two warps per wave64) and a vote.all with HIP's __all_sync mask bug", async () => {
    const shfl: WarpForm = { op: "shfl", sync: true, mode: "idx", type: "b32", dest: "d" };
    const all: WarpForm = { op: "vote", sync: true, mode: "all", type: "pred", negA: false };
    const V = { kind: "v" as const };
    const rs = [routine(shfl, { a: V, b: V, c: V, membermask: V }), routine(all, { a: V, membermask: V })];
    const fns = callableFunctions(rs).filter((f) => !f.alias);
    const header = printHipModule(rs);
    // The right header is tested; each broken one refuted for its reason.
    const good = checkCompiled("hip", "gfx942", await compileHip(header, fns, "gfx942"), [], { warps: 150 });
    expect(notTested(good)).toEqual([]);
    const noBase = header.replace("((ptxl_warp_base_() + j) << 2)", "(j << 2)");
    expect(noBase).not.toBe(header);
    const [s] = checkCompiled("hip", "gfx942", await compileHip(noBase, fns.slice(0, 1), "gfx942"), [], { warps: 150 });
    expect(s!.verdict.status).toBe("refuted");
    expect((s!.verdict as { counterexample: string }).counterexample).toMatch(/two warps per wave64\] on gfx942: warp lanes 32-63/);
    // HIP 5.2's __all_sync compares the ballot with the whole mask: wrong where the mask names exited lanes.
    const wholeMask = header.replace("const uint32_t members = membermask & ptxl_warp_ballot_(true);", "const uint32_t members = membermask;");
    expect(wholeMask).not.toBe(header);
    const [v] = checkCompiled("hip", "gfx1100", await compileHip(wholeMask, fns.slice(1), "gfx1100"), [], { warps: 150 });
    expect(v!.verdict.status).toBe("refuted");
    expect((v!.verdict as { counterexample: string }).counterexample).toMatch(/vote\.sync\.all\.pred .* d = 0x0, reference 0x1\n  warp: .*membermask = /s);
  }, 120_000);

  it("verify --all's hip/llvm rows: every warp with compiledWarps all (a tenth, at least 1,000, by default); a function's routines chunked together; repeated code run once", async () => {
    // Chunks: a form's routines that share a callable function are never split.
    const specs = warpAllSpecs((name) => name === "shfl.sync.idx.b32");
    const chunks = warpAllChunks(specs, 6, callableName);
    expect(chunks.flat().length).toBe(specs.length);
    const owner = new Map<string, number>();
    chunks.forEach((ch, i) => {
      expect(ch.length).toBeLessThanOrEqual(6);
      for (const s of ch) expect(owner.get(callableName(s)) ?? i, callableName(s)).toBe(i), owner.set(callableName(s), i);
    });
    expect(owner.size).toBeLessThan(specs.length);
    // The warp count: 1,200 warps, all of them or 1,000; n counts warps compared over the layouts (wave64: vgpr and sgpr, one and two warps per wave).
    const act = warpAllSpecs((name) => name === "activemask.b32");
    const targets = [{ kind: "hip" as const, mcpu: "gfx90a" as const }, { kind: "llvm" as const, mcpu: "gfx1100" as const }];
    for (const [share, w] of [["all", 1200], ["tenth", 1000]] as const) {
      const rows = await runWarpAllChunk({ specs: act, targets, seed: 3, warps: 1200, compiledWarps: share });
      expect(rows.length).toBe(4);
      for (const r of rows) expect(r, `${share} ${r.target} ${r.rule}`).toMatchObject({ status: "tested", warps: w, n: r.target.startsWith("hip") ? 4 * w : 2 * w });
    }
    // The same code on another processor of its wave size and generation is not run again: its refutation names the run it came from.
    const shfl: WarpForm = { op: "shfl", sync: true, mode: "idx", type: "b32", dest: "d" };
    const V = { kind: "v" as const };
    const rs = [routine(shfl, { a: V, b: V, c: V, membermask: V })];
    const fns = callableFunctions(rs).filter((f) => !f.alias);
    const noBase = printHipModule(rs).replace("((ptxl_warp_base_() + j) << 2)", "(j << 2)");
    const set = await compileHip(noBase, fns, "gfx942");
    const [[a], [b]] = checkCompiledSets("hip", [{ mcpu: "gfx942", set, sregs: [] }, { mcpu: "gfx90a", set, sregs: [] }], { warps: 100, seed: 9 });
    expect(a!.verdict.status).toBe("refuted");
    expect((a!.verdict as { counterexample: string }).counterexample).toMatch(/^shfl\.sync\.idx\.b32 \[\S+, vgpr, two warps per wave64\] on gfx942/);
    expect(b!.verdict).toEqual({ ...a!.verdict, counterexample: `(the run of hip gfx942 ${set.functions[0]!.symbol}, whose code is the same)\n${(a!.verdict as { counterexample: string }).counterexample}` });
  }, 120_000);

  it("--prove: the warp-level functions are proved (test/prove_compiled_warp.test.ts has more)", async () => {
    const rs = [routine({ op: "activemask", type: "b32" }, {})];
    const fns = callableFunctions(rs).filter((f) => !f.alias);
    const set = await compileHip(printHipModule(rs), fns, "gfx942");
    const res = await proveCompiled(set.functions, "gfx942", "hip", []);
    expect(res.map((r) => r.verdict.verdict)).toEqual(["proved", "proved"]);
    // The llvm module of the same function compiles too (its proof is the same question).
    expect(printLlvmModule(rs)).toMatch(/define linkonce_odr i32 @activemask_b32__\(\) #0/);
  }, 60_000);
});
