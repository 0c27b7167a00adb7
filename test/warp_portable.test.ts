/**
 * The warp-level family (issue 15) registered, on the reference, JS and C:
 *   - ../shared/vectors/warp.jsonl (369 vectors, the `module` ones included) pass `check` on
 *     the reference, the JS module and the C program (UBSan), none skipped; the expected values
 *     are the vectors', never ours;
 *   - the real modules c14 and c05 (nvcc 13 output) lower to JS (it imports, every routine a
 *     function) and to C (gcc -Werror), and every routine of them verifies on JS and C (C under
 *     UBSan) against the reference with 0 refuted;
 *   - a seeded sample of the family's forms verifies on JS and C with 0 refuted;
 *   - the targets without a lowering yet (AMDGPU, HIP, LLVM IR) leave the family's occurrences
 *     out with a warning at each (`file:line:col: warning: no AMDGPU lowering for shfl.sync yet
 *     (issue 15); …`), never a crash; `verify` says `unknown` for them; `report` lists the
 *     occurrences under the family (not under "other instructions") with the AMDGPU row `error`.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import "../src/compose.js";
import { readVectors, runVectors } from "../src/check/vectors.js";
import { parseModule } from "../src/ir/build.js";
import { collectRoutines, lowerModule } from "../src/lower.js";
import { verify } from "../src/check/verify.js";
import { buildReport } from "../src/report.js";
import { familyOf } from "../src/families/index.js";
import { warp } from "../src/families/warp.js";
import { loadJsModule } from "../targets/js/run.js";
import { compileC, haveCc } from "../targets/c/run.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SHARED = join(ROOT, "..", "shared");
const C14 = join(SHARED, "ptx", "c14_warp_reduce_scan.sm_90.ptx");
const C05 = join(SHARED, "ptx", "c05_warp_aggregated_atomic.sm_90.ptx");
const cc = haveCc();
if (!cc.ok) console.log(`warp_portable.test.ts: no C compiler (${cc.reason}); the C parts are skipped`);

describe("warp.jsonl on the reference, JS and C", () => {
  const file = join(SHARED, "vectors", "warp.jsonl");
  const { vectors, diagnostics } = readVectors(readFileSync(file, "utf8"), file);

  it("reads every vector (the module ones included)", () => {
    expect(diagnostics).toEqual([]);
    expect(vectors.length).toBe(369);
    expect(vectors.filter((v) => v.module).length).toBe(72);
  });

  for (const target of ["ref", "js", "c"] as const)
    it.skipIf(target === "c" && !cc.ok)(`${target}: 369 passed, 0 failed, 0 skipped`, async () => {
      const rep = await runVectors(vectors, "isa", { ref: target === "ref", amdgpu: [], js: target === "js", c: target === "c" });
      expect(rep.failures.map((f) => `${f.vector.id} [${f.target}] ${f.message}`)).toEqual([]);
      expect([rep.passed, rep.failed, rep.skipped]).toEqual([369, 0, 0]);
    }, 120_000);

  it("AMDGPU, every processor: every vector passes, the 40 sm_100a redux .f32 ones included", async () => {
    const rep = await runVectors(vectors, "isa", { ref: false, amdgpu: ["gfx900", "gfx942", "gfx1100"], js: false, c: false });
    const f32 = vectors.filter((v) => v.inst.form.op === "redux" && (v.inst.form as { type?: string }).type === "f32");
    expect(f32.length).toBe(40);
    expect(rep.failures.map((f) => `${f.vector.id} [${f.target}] ${f.message}`)).toEqual([]);
    expect([rep.passed, rep.failed, rep.skipped]).toEqual([369 * 3, 0, 0]);
  }, 240_000);
});

describe.each([C14, C05])("%s on JS and C", (path) => {
  const mod = parseModule(readFileSync(path, "utf8"), path);
  const warpInsts = mod.insts.filter((i) => familyOf(i.form).name === "warp");

  it("has warp-level occurrences, and none left among the other instructions", () => {
    expect(warpInsts.length).toBeGreaterThan(0);
    expect([...mod.census.keys()].filter((k) => /^(shfl|vote|redux|activemask|bar\.warp)\b/.test(k))).toEqual([]);
  });

  it("the JS imports, every routine an exported function", async () => {
    const js = await lowerModule(mod, { target: "js", profile: "isa" });
    expect(js.warnings).toEqual([]);
    const exports = await loadJsModule(js.text);
    for (const r of js.routines) expect(typeof exports[r.name], r.name).toBe("function");
  });

  it.skipIf(!cc.ok)("the C compiles with -Werror (gcc -std=c99 -Wall -Wextra -pedantic)", async () => {
    const c = await lowerModule(mod, { target: "c", profile: "isa" });
    const r = compileC(c.text);
    expect(r.ok, r.stderr).toBe(true);
  });

  it("every routine verifies on JS and C (C under UBSan), 0 refuted", async () => {
    const specs = collectRoutines(mod).map((r) => ({ spec: r.spec, profile: "isa" as const, warps: 200 }));
    const rows = await verify(specs, [{ kind: "js" }, ...(cc.ok ? [{ kind: "c" } as const] : [])], { seed: 7 });
    expect(rows.filter((r) => r.verdict.status !== "tested").map((r) => `${r.rule}: ${JSON.stringify(r.verdict).slice(0, 400)}`)).toEqual([]);
    expect(rows.length).toBeGreaterThanOrEqual(collectRoutines(mod).length);
  }, 120_000);

  it("AMDGPU, HIP and LLVM IR lower every warp occurrence, with no warning", async () => {
    const amd = await lowerModule(mod, { target: "amdgpu", profile: "isa" });
    expect(amd.warnings).toEqual([]);
    expect(amd.routines.some((r) => familyOf(r.spec.form).name === "warp")).toBe(warpInsts.length > 0);
    for (const target of ["hip", "llvm"] as const) {
      const out = await lowerModule(mod, { target, profile: "isa" });
      expect(out.warnings, target).toEqual([]);
      expect(out.routines.some((r) => familyOf(r.spec.form).name === "warp"), target).toBe(warpInsts.length > 0);
    }
  });
});

describe("the CLI on c14", () => {
  it("AMDGPU and HIP: every warp occurrence lowered, no warning", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bin", "ptx-lower.ts"), "lower", "../shared/ptx/c14_warp_reduce_scan.sm_90.ptx", "--target", "amdgpu"], { cwd: ROOT, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^shfl_sync_down_b32\S*:$/m);
    const h = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bin", "ptx-lower.ts"), "lower", "../shared/ptx/c14_warp_reduce_scan.sm_90.ptx", "--target", "hip"], { cwd: ROOT, encoding: "utf8" });
    expect(h.status, h.stderr).toBe(0);
    expect(h.stderr).toBe("");
    // The first warp instruction of c14 is line 49 (its text, not ours: the module's nvcc output), served by a header function.
    expect(readFileSync(C14, "utf8").split("\n")[48]).toMatch(/^\s*shfl\.sync\.down\.b32/);
    expect(h.stdout).toMatch(/uint32_t shfl_sync_down_b32\w* *\(/);
  });
});

describe("verify: a seeded sample of the family on JS and C", () => {
  it("covers every class and refutes nothing", async () => {
    const forms = warp.sample(1);
    expect(forms.length).toBe(29);
    const specs = forms.flatMap((form) => warp.verifyKinds(form, false).slice(0, 2).map((k) => ({ spec: { form, ...k }, profile: "isa" as const, warps: 60 })));
    const rows = await verify(specs, [{ kind: "js" }, ...(cc.ok ? [{ kind: "c" } as const] : []), { kind: "amdgpu", mcpu: "gfx942" }], { seed: 3 });
    const portable = rows.filter((r) => r.target.kind !== "amdgpu");
    expect(portable.filter((r) => r.verdict.status !== "tested").map((r) => `${r.rule}: ${JSON.stringify(r.verdict).slice(0, 400)}`)).toEqual([]);
    // AMDGPU: every rule tested and none refuted, the sm_100a redux .f32 forms included.
    const amd = rows.filter((r) => r.target.kind === "amdgpu");
    expect(amd.some((r) => r.spec.form.op === "redux" && (r.spec.form as { type?: string }).type === "f32")).toBe(true);
    expect(amd.filter((r) => r.verdict.status !== "tested").map((r) => `${r.rule}: ${JSON.stringify(r.verdict).slice(0, 400)}`)).toEqual([]);
  }, 180_000);
});

describe("report on c05", () => {
  it("lists the warp occurrences under the family, the AMDGPU rows tested", async () => {
    const mod = parseModule(readFileSync(C05, "utf8"), C05);
    const rep = await buildReport([mod], { mcpus: ["gfx942"], profile: "isa", check: { random: 20, warps: 20, seed: 1 } } as Parameters<typeof buildReport>[1]);
    const m = rep.modules[0]!;
    expect(m.occurrences.filter((o) => o.family === "warp").map((o) => o.form)).toEqual(["activemask.b32", "shfl.sync.idx.b32 d|p"]);
    expect(m.summary.byFamily.warp).toBe(2);
    expect(m.census.map((c) => c.opcode)).not.toContain("activemask");
    for (const r of m.routines.filter((x) => x.family === "warp")) {
      const amd = r.targets.find((t) => t.target === "amdgpu gfx942")!;
      expect(amd.verdict.status).toBe("tested");
      expect(r.targets.find((t) => t.target === "js")!.verdict.status).toBe("tested");
    }
  }, 180_000);
});
