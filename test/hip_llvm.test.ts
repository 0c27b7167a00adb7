/**
 * Issue 14 items 1–3: the `hip` header and the `llvm` module of the examples compile for all
 * five processors, and every function, compiled, extracted and run in the interpreter, agrees
 * with the reference (targets/llvm/compiled.ts). Plus the checks that show the comparison has
 * teeth: the one-warp-per-wave64 match IR of the trust-base crosscheck is refuted in the
 * two-warps layout, wrong code is refuted, and a wait taken out of clang's code is a hazard.
 * Skips (printing why) only when clang-19 or llc-19 is absent.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { parseModule } from "../src/index.js";
import { collectRoutines } from "../src/lower.js";
import type { ModuleRoutine } from "../src/lower.js";
import { MCPUS, TARGETS } from "../targets/amdgpu/regs.js";
import { runTool } from "../src/tools.js";
import { llc, inregRegisters } from "../targets/amdgpu/oracle/llvm.js";
import { matchIr } from "../targets/llvm/ir.js";
import { printHipModule } from "../targets/hip/print.js";
import { clangArgs, compileHip, extract } from "../targets/hip/compile.js";
import { printLlvmModule } from "../targets/llvm/print.js";
import { llvmWrappers } from "../targets/llvm/compile.js";
import { callableFunctions } from "../targets/llvm/callable.js";
import type { CompiledRow } from "../targets/llvm/compiled.js";
import { checkCompiled, verifyCompiled } from "../targets/llvm/compiled.js";
import { compileLlvm } from "../targets/llvm/compile.js";
import { compiledWarpCount } from "../targets/llvm/verify.js";
import { proveCompiled } from "../targets/llvm/prove_compiled.js";
import type { MatchForm } from "../src/ir/forms.js";
import type { MLine } from "../targets/amdgpu/minst.js";
import { verify } from "../src/check/verify.js";
import { familyOf as familyOfForm } from "../src/ir/forms.js";

const missing = ["clang-19", "llc-19", "llvm-as-19", "llvm-link-19"].find((t) => {
  const r = spawnSync(t, ["--version"], { encoding: "utf8" });
  return r.error !== undefined || r.status !== 0;
});
if (missing) console.log(`test/hip_llvm.test.ts: skipped, ${missing} is not installed`);

function routinesOf(file: string): ModuleRoutine[] {
  const mod = parseModule(readFileSync(file, "utf8"), file);
  expect(mod.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  return collectRoutines(mod);
}

const BITFIELDS = "examples/bitfields.sm_90.ptx";
const WARP_MATCH = "examples/warp_match.sm_90.ptx";
const tested = (rows: CompiledRow[]) => rows.filter((r) => r.verdict.status !== "tested").map((r) => `${r.row} ${r.fn}: ${JSON.stringify(r.verdict)}`);

describe.skipIf(missing !== undefined)("hip and llvm targets, verified as compiled", () => {
  it("each target needs only its own compiler: hip runs where llc-19 is absent, llvm is skipped naming llc-19", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ptxl-path-"));
    symlinkSync(spawnSync("sh", ["-c", "command -v clang-19"], { encoding: "utf8" }).stdout.trim(), join(dir, "clang-19"));
    const spec = routinesOf(BITFIELDS).find((r) => r.name === "szext_clamp_s32__v_imm12")!.spec;
    const path = process.env.PATH;
    process.env.PATH = dir; // clang-19 and nothing else
    let rows: Awaited<ReturnType<typeof verify>>;
    try {
      rows = await verify([{ spec, profile: "isa" }], [{ kind: "hip", mcpu: "gfx942" }, { kind: "llvm", mcpu: "gfx942" }]);
    } finally {
      process.env.PATH = path;
    }
    const of = (kind: string) => rows.filter((r) => r.target.kind === kind).map((r) => r.verdict);
    expect(of("hip").length).toBeGreaterThan(0);
    for (const v of of("hip")) expect(v.status).toBe("tested");
    expect(of("llvm").length).toBeGreaterThan(0);
    for (const v of of("llvm")) expect(v).toEqual({ status: "skipped", why: expect.stringMatching(/^llc-19 not runnable/) });
  });

  it("names one function per (form, immediates), kinds collapsed, plus a ptxl_ alias per form", () => {
    const names = callableFunctions(routinesOf(BITFIELDS)).map((f) => f.name);
    expect(names).toContain("szext_wrap_s32__v_v"); // the module's szext_wrap_s32__v_s collapses into it
    expect(names).not.toContain("szext_wrap_s32__v_s");
    expect(names).toContain("szext_clamp_s32__v_imm12");
    expect(names).toContain("szext_clamp_s32__imm128_v");
    expect(names).toContain("ptxl_szext_clamp_s32");
    expect(new Set(names).size).toBe(names.length);
    const warp = callableFunctions(routinesOf(WARP_MATCH));
    expect(warp.find((f) => f.name === "match_all_sync_b32_dp__v_v")!.serves).toEqual(["match_all_sync_b32_dp__v_s"]);
    expect(printHipModule(routinesOf(BITFIELDS))).toMatch(/uint32_t ptxl_szext_clamp_s32\(uint32_t a, uint32_t b\)/);
    expect(printHipModule(routinesOf(WARP_MATCH))).toMatch(/uint32_t match_all_sync_b32_dp__v_v\(uint32_t a, uint32_t membermask, bool \*p\)/);
    expect(printLlvmModule(routinesOf(WARP_MATCH))).toMatch(/define linkonce_odr \{ i32, i1 \} @match_all_sync_b32_dp__v_v\(i32 %a, i32 %membermask\) #0/);
    expect(printLlvmModule(routinesOf(WARP_MATCH))).toContain("attributes #0 = { convergent nounwind }");
  });

  it("the header and the module compile for every processor (clang -x hip, llvm-as, llvm-link, llc)", async () => {
    const lls: string[] = [];
    for (const file of [BITFIELDS, WARP_MATCH]) {
      const rs = routinesOf(file);
      const header = printHipModule(rs, { banner: "test" });
      const ll = printLlvmModule(rs, { banner: "test" });
      lls.push(ll);
      for (const mcpu of MCPUS) {
        // The header alone, with every function kept (`used` wrappers), as the command compiles it.
        const asm = await runTool("clang-19", clangArgs(mcpu), header);
        expect(asm).toContain(".amdgcn_target");
        const s = await runTool("llc-19", ["-O2", "-mtriple=amdgcn-amd-amdhsa", `-mcpu=${mcpu}`], ll);
        for (const fn of callableFunctions(rs)) expect(s, `${fn.name} on ${mcpu}`).toContain(`${fn.name}:`);
      }
      await runTool("llvm-as-19", ["-o", "/dev/null", "-"], ll);
    }
    const dir = spawnSync("mktemp", ["-d"], { encoding: "utf8" }).stdout.trim();
    const bcs = await Promise.all(
      lls.map(async (ll, i) => {
        const bc = `${dir}/m${i}.bc`;
        await runTool("llvm-as-19", ["-o", bc, "-"], ll);
        return bc;
      }),
    );
    await runTool("llvm-link-19", ["-o", `${dir}/linked.bc`, ...bcs], "");
  }, 120_000);

  it("every function of bitfields.sm_90.ptx: tested on all five processors, ≥ 1,000 cases per argument layout, hazards checked", async () => {
    const rows = await verifyCompiled(routinesOf(BITFIELDS));
    expect(tested(rows)).toEqual([]);
    expect(new Set(rows.map((r) => r.row)).size).toBe(10);
    for (const r of rows) {
      const n = (r.verdict as { n: number }).n;
      // szext.wrap.u32 d, 0xffffffff, 7 has no parameter: one input, run once per layout.
      if (r.fn === "szext_wrap_u32__imm0xffffffff_imm7") expect(n).toBe(2);
      else for (const [part, k] of Object.entries(r.parts)) expect(k, `${r.row} ${r.fn} ${part}`).toBeGreaterThanOrEqual(1000);
    }
    // LLVM put wait states into its own code on gfx942 (and the check accepted them).
    expect(rows.filter((r) => r.mcpu === "gfx942").reduce((s, r) => s + r.waits, 0)).toBeGreaterThan(0);
  }, 300_000);

  it("verify's hip and llvm rows: one per routine (its collapsed function, chosen) and one per form's alias (not chosen), tested", async () => {
    const all = routinesOf(WARP_MATCH);
    // The module's activemask is the warp-level family's (issue 15): a callable function too, tested like the others.
    const routines = all;
    expect(all.some((r) => familyOfForm(r.spec.form) === "warp")).toBe(true);
    const rows = await verify(
      all.map((r) => ({ spec: r.spec, profile: "isa" as const })),
      [
        { kind: "hip", mcpu: "gfx942" },
        { kind: "llvm", mcpu: "gfx1100" },
      ],
      { warps: 1_000 },
    );
    expect(rows.filter((r) => r.verdict.status !== "tested").map((r) => `${r.rule}: ${JSON.stringify(r.verdict)}`)).toEqual([]);
    for (const t of ["hip", "llvm"] as const) {
      const mine = rows.filter((r) => r.target.kind === t);
      const chosen = mine.filter((r) => r.chosen);
      expect(chosen.length).toBe(routines.length);
      expect(chosen.every((r) => r.rule.startsWith(t === "hip" ? "clang-19 -O2: " : "llc-19 -O2: ") && !r.rule.includes("ptxl_"))).toBe(true);
      expect(mine.filter((r) => !r.chosen).every((r) => r.rule.includes(": ptxl_"))).toBe(true);
      // Warp functions: a tenth of --warps, at least 1,000 (here all 1,000) per layout, four layouts on wave64 (gfx942), two on wave32.
      for (const r of chosen.filter((r) => r.spec.form.op === "match")) expect({ n: (r.verdict as { n: number }).n, warps: r.warps }).toEqual({ n: t === "hip" ? 4000 : 2000, warps: 1000 });
    }
  }, 300_000);

  it("the hip/llvm rows' share of --warps: a tenth, at least 1,000 (all of them below that), or all", () => {
    expect([500, 1_000, 5_000, 10_000, 25_000].map((n) => compiledWarpCount(n, "tenth"))).toEqual([500, 1_000, 1_000, 1_000, 2_500]);
    expect(compiledWarpCount(25_000, "all")).toBe(25_000);
  });

  it("the match.sync functions of warp_match.sm_90.ptx: both wave64 layouts (one warp; two independent warps)", async () => {
    const rows = await verifyCompiled(routinesOf(WARP_MATCH), { mcpus: ["gfx942", "gfx1100"], warps: 150 });
    expect(tested(rows)).toEqual([]);
    const m942 = rows.filter((r) => r.mcpu === "gfx942" && r.fn.startsWith("match_"));
    expect(m942.length).toBe(6);
    for (const r of m942) expect(r.parts).toEqual({ vgpr: 150, "vgpr/two-warps": 150, sgpr: 150, "sgpr/two-warps": 150 });
    for (const r of rows.filter((r) => r.mcpu === "gfx1100" && r.fn.startsWith("match_"))) expect(r.parts).toEqual({ vgpr: 150, sgpr: 150 });
  }, 300_000);

  it("refutes the one-warp-per-wave64 match IR in the two-warps layout, and accepts it with lanes 32–63 inactive", async () => {
    const fn = callableFunctions(routinesOf(WARP_MATCH)).find((f) => f.name === "match_any_sync_b32__v_v")!;
    const one = matchIr(fn.name, fn.spec.form as MatchForm, 64, "loop");
    const asm = await llc(`${one.text}\n${one.decls.join("\n")}\n`, { mcpu: "gfx942", wave: 64 });
    const vgpr = llvmWrappers(fn).fns.filter((f) => f.variant === "vgpr");
    const set = { asm, functions: extract(asm, vgpr, "llc:gfx942") };
    const [row] = checkCompiled("llvm", "gfx942", set, await inregRegisters({ mcpu: "gfx942", wave: 64 }), { warps: 150 });
    expect(row!.verdict.status).toBe("refuted");
    expect(row!.parts.vgpr).toBe(150);
    expect((row!.verdict as { counterexample: string }).counterexample).toMatch(/two warps per wave64.*lanes 32-63/);
  }, 60_000);

  it("refutes wrong code and a wait taken out of clang's code", async () => {
    const fns = callableFunctions(routinesOf(BITFIELDS));
    const clamp = fns.find((f) => f.name === "szext_clamp_s32__v_v")!;
    const wrap = fns.find((f) => f.name === "szext_wrap_s32__v_v")!;
    const set = await compileHip(printHipModule(routinesOf(BITFIELDS)), [clamp, wrap], "gfx942");
    const code = (fn: typeof clamp) => set.functions.find((f) => f.fn === fn && f.variant === "vgpr")!;
    // The wrap function's code checked as the clamp function: a wrong value.
    const swapped = { asm: set.asm, functions: [{ ...code(wrap), fn: clamp }] };
    const [bad] = checkCompiled("hip", "gfx942", swapped, []);
    expect(bad!.verdict.status).toBe("refuted");
    expect((bad!.verdict as { counterexample: string }).counterexample).toMatch(/got 0x[0-9a-f]+, reference 0x/);
    // clang's clamp code on gfx942 carries an s_nop (v_cmp → v_cndmask on vcc); without it, a hazard.
    const lines = code(clamp).lines as MLine[];
    expect(lines.some((l) => "op" in l && l.op === "s_nop")).toBe(true);
    const noWait = { asm: set.asm, functions: [{ ...code(clamp), lines: lines.filter((l) => !("op" in l && l.op === "s_nop")) }] };
    const [haz] = checkCompiled("hip", "gfx942", noWait, []);
    expect(haz!.verdict.status).toBe("refuted");
    expect((haz!.verdict as { counterexample: string }).counterexample).toMatch(/hazard/);
    expect(TARGETS.gfx942.wave).toBe(64);
  }, 60_000);

  it("--prove: the extracted code of a scalar function is proved, and wrong code refuted", async () => {
    const rs = routinesOf(BITFIELDS);
    const fns = callableFunctions(rs).filter((f) => f.name === "szext_clamp_s32__v_v" || f.name === "szext_wrap_s32__v_v");
    const set = await compileLlvm(printLlvmModule(rs), fns, "gfx942");
    const sregs = await inregRegisters({ mcpu: "gfx942", wave: 64 });
    // 21 s alone; this file runs in the suite group beside another file and its compiles, where
    // a query took more than proveCompiled's default 30 s (unknown, a failed test): 2 minutes each.
    const res = await proveCompiled(set.functions, "gfx942", "llvm", sregs, { timeoutMs: 120_000 });
    expect(res.map((r) => `${r.cf.symbol}: ${r.verdict.verdict}`)).toEqual([
      "szext_clamp_s32__v_v: proved",
      "ptxl_chk_s_szext_clamp_s32__v_v: proved",
      "szext_wrap_s32__v_v: proved",
      "ptxl_chk_s_szext_wrap_s32__v_v: proved",
    ]);
    const wrapCode = set.functions.find((f) => f.symbol === "szext_wrap_s32__v_v")!;
    const [bad] = await proveCompiled([{ ...wrapCode, fn: fns.find((f) => f.name === "szext_clamp_s32__v_v")! }], "gfx942", "llvm", sregs, { timeoutMs: 120_000 });
    expect(bad!.verdict.verdict).toBe("refuted");
  }, 900_000);
});
