/**
 * Issue 14, a fresh tester's findings on the `hip` header and the `llvm` module, each checked
 * with the native tools on real modules:
 *   1. the C header (host) and the HIP header (device) of the same modules in one HIP
 *      translation unit: clang-19's device and host passes;
 *   2. the `.ll` of two modules that define the same function links (`linkonce_odr`), names
 *      clang's triple and data layout, and the linked program compiles for all five processors;
 *   3. headers / modules of the `isa` and `sm90` profiles defining the same video function
 *      cannot meet: a compile error / link error naming the function; one profile's do;
 *   4. `lower --target hip|llvm --mcpu M` warns that --mcpu is unused;
 *   5. a `*` + `/` in the file name survives into the banner as itself, escaped.
 * Skips (printing why) only when clang-19, llc-19, llvm-as-19 or llvm-link-19 is absent.
 */
import { describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, copyFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { lowerModule, parseModule } from "../src/index.js";
import type { Profile } from "../src/index.js";
import { collectRoutines } from "../src/lower.js";
import { MCPUS } from "../targets/amdgpu/regs.js";
import { callableFunctions } from "../targets/llvm/callable.js";
import { llvmReturnType } from "../targets/llvm/print.js";
import { usedGlobal } from "../targets/llvm/compile.js";

const missing = ["clang-19", "llc-19", "llvm-as-19", "llvm-link-19", "gcc"].find((t) => {
  const r = spawnSync(t, ["--version"], { encoding: "utf8" });
  return r.error !== undefined || r.status !== 0;
});
if (missing) console.log(`test/hip_llvm_link.test.ts: skipped, ${missing} is not installed`);

const ROOT = join(import.meta.dirname, "..");
const BITFIELDS = join(ROOT, "examples/bitfields.sm_90.ptx");
const WARP_MATCH = join(ROOT, "examples/warp_match.sm_90.ptx");
const C08 = join(ROOT, "../shared/ptx/c08_vshl_vshr_forms.sm_90.ptx");
const C09 = join(ROOT, "../shared/ptx/c09_szext_forms.sm_90.ptx");

const tmp = () => mkdtempSync(join(tmpdir(), "ptx-lower-link-"));

async function lowered(file: string, target: "c" | "hip" | "llvm", profile: Profile = "isa"): Promise<string> {
  return (await lowerModule(parseModule(readFileSync(file, "utf8"), file), { target, profile })).text;
}

const names = (file: string) => callableFunctions(collectRoutines(parseModule(readFileSync(file, "utf8"), file))).map((f) => f.name);

function run(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const hipArgs = (side: "device" | "host", mcpu = "gfx942") => ["-x", "hip", `--cuda-${side}-only`, "-nogpulib", "-nogpuinc", "-O2", `--offload-arch=${mcpu}`, "-Wall", "-Wextra", "-Werror", "-S", "-o", "-"];

describe.skipIf(missing !== undefined)("hip header and llvm module: one translation unit, one link", () => {
  it("the C header (host) and the HIP header (device) of three modules compile in one HIP translation unit, either order, both passes", async () => {
    const dir = tmp();
    const mods = { bf: BITFIELDS, wm: WARP_MATCH, v: C08 };
    for (const [k, f] of Object.entries(mods)) {
      writeFileSync(join(dir, `${k}.h`), await lowered(f, "c"));
      writeFileSync(join(dir, `${k}.hip.h`), await lowered(f, "hip"));
    }
    // Names both headers define (C routine names, kinds v) exist, so this is a real overload.
    const c = readFileSync(join(dir, "bf.h"), "utf8");
    expect(c).toMatch(/static inline uint32_t szext_clamp_s32__v_v\(uint32_t a, uint32_t b\)/);
    expect(c).toContain("static inline uint32_t pl_ashr32(");
    const calls = [
      "#include <stdint.h>",
      // host code: the C functions; device code: the HIP ones; a __host__ __device__ caller gets each on its side.
      "uint32_t host_fn(uint32_t a, uint32_t b) { return szext_clamp_s32__v_v(a, b) + vshl_u32_u32_clamp__v_v(a, b); }",
      "__attribute__((device)) uint32_t dev_fn(uint32_t a, uint32_t b) { return szext_clamp_s32__v_v(a, b) + match_any_sync_b32__v_v(a, b) + vshl_u32_u32_clamp__v_v(a, b) + ptxl_szext_wrap_s32(a, b); }",
      "__attribute__((host, device)) uint32_t hd_fn(uint32_t a, uint32_t b) { return szext_clamp_s32__v_v(a, b); }",
      // The host pass of a kernel needs the HIP runtime's launch stub (hipLaunchKernel), which -nogpuinc leaves out.
      "#if defined(__HIP_DEVICE_COMPILE__) || defined(HIP_INCLUDE_HIP_HIP_RUNTIME_H)",
      "__attribute__((global)) void kernel_fn(uint32_t *p) { p[0] = dev_fn(p[1], p[2]) + hd_fn(p[3], p[4]); }",
      "#endif",
      "uint32_t host_hd(uint32_t a) { return hd_fn(a, 5u); }",
    ].join("\n");
    const c_first = ["bf.h", "wm.h", "v.h", "bf.hip.h", "wm.hip.h", "v.hip.h"].map((h) => `#include "${h}"`).join("\n");
    const hip_first = ["bf.hip.h", "wm.hip.h", "v.hip.h", "bf.h", "wm.h", "v.h"].map((h) => `#include "${h}"`).join("\n");
    writeFileSync(join(dir, "c_first.hip"), `${c_first}\n${calls}\n`);
    writeFileSync(join(dir, "hip_first.hip"), `${hip_first}\n${calls}\n`);
    // Self-contained (-nogpuinc), and with the HIP runtime header first where it is installed.
    const runtime = run("clang-19", ["-x", "hip", "--cuda-host-only", "-nogpulib", "-include", "hip/hip_runtime.h", "-fsyntax-only", "-"], dir).code === 0;
    if (!runtime) console.log("test/hip_llvm_link.test.ts: hip/hip_runtime.h not found (libamdhip64-dev): the TU is compiled self-contained only");
    const variants = [[], ...(runtime ? [["-include", "hip/hip_runtime.h"]] : [])];
    for (const tu of ["c_first.hip", "hip_first.hip"]) {
      for (const extra of variants) {
        const flags = (side: "device" | "host") => [...hipArgs(side).filter((a) => !(extra.length && a === "-nogpuinc")), ...extra];
        const dev = run("clang-19", [...flags("device"), tu], dir);
        expect(dev.err, `${tu} device ${extra.join(" ")}`).toBe("");
        expect(dev.code).toBe(0);
        expect(dev.out).toMatch(/^_Z9kernel_fnPj:/m);
        const host = run("clang-19", [...flags("host"), tu], dir);
        expect(host.err, `${tu} host ${extra.join(" ")}`).toBe("");
        expect(host.code).toBe(0);
        expect(host.out).toMatch(/^_Z7host_fnjj:/m);
        expect(host.out).toMatch(/^_Z7host_hdj:/m);
      }
    }
  }, 120_000);

  it("headers of the isa and sm90 profiles defining the same vshl/vshr function: a compile error naming it; one profile's headers share it", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "v.isa.hip.h"), await lowered(C08, "hip", "isa"));
    writeFileSync(join(dir, "v.sm90.hip.h"), await lowered(C08, "hip", "sm90"));
    writeFileSync(join(dir, "wm.isa.hip.h"), await lowered(WARP_MATCH, "hip", "isa"));
    writeFileSync(join(dir, "bf.sm90.hip.h"), await lowered(BITFIELDS, "hip", "sm90"));
    const shared = names(C08).filter((n) => names(WARP_MATCH).includes(n));
    expect(shared).toContain("vshl_u32_u32_clamp_add__v_v_v");
    const tu = (name: string, headers: string[]) => writeFileSync(join(dir, name), headers.map((h) => `#include "${h}"`).join("\n") + "\n");
    tu("mixed.hip", ["wm.isa.hip.h", "v.sm90.hip.h"]);
    const mixed = run("clang-19", [...hipArgs("device"), "mixed.hip"], dir);
    expect(mixed.code).not.toBe(0);
    expect(mixed.err).toContain(
      `v.sm90.hip.h:${readFileSync(join(dir, "v.sm90.hip.h"), "utf8").split("\n").findIndex((l) => l.startsWith('#error "ptx-lower: vshl_u32_u32_clamp_add__v_v_v')) + 1}:2: error: "ptx-lower: vshl_u32_u32_clamp_add__v_v_v is already defined with the isa semantics profile's meaning; this header defines it with the sm90 profile's: lower every module of this translation unit with one --semantics"`,
    );
    expect(mixed.err).not.toMatch(/redefinition/);
    // The other order names the other profile.
    tu("mixed2.hip", ["v.sm90.hip.h", "wm.isa.hip.h"]);
    expect(run("clang-19", [...hipArgs("device"), "mixed2.hip"], dir).err).toContain(`error: "ptx-lower: vshl_u32_u32_clamp_add__v_v_v is already defined with the sm90 semantics profile's meaning; this header defines it with the isa profile's`);
    // One profile: the shared function is defined once. A header without video functions (szext only) mixes with either.
    tu("same.hip", ["wm.isa.hip.h", "v.isa.hip.h", "bf.sm90.hip.h"]);
    const same = run("clang-19", [...hipArgs("device"), "same.hip"], dir);
    expect(same.err).toBe("");
    expect(same.code).toBe(0);
  }, 120_000);

  it("the .ll of two modules sharing functions links (linkonce_odr); clang's triple and layout; the linked program compiles for all five processors", async () => {
    const dir = tmp();
    const shared = names(BITFIELDS).filter((n) => names(C09).includes(n));
    expect(shared).toContain("szext_clamp_s32__v_v");
    writeFileSync(join(dir, "bf.ll"), await lowered(BITFIELDS, "llvm"));
    writeFileSync(join(dir, "c09.ll"), await lowered(C09, "llvm"));
    for (const m of ["bf", "c09"]) {
      const as = run("llvm-as-19", ["-o", `${m}.bc`, `${m}.ll`], dir);
      expect(as.err).toBe("");
      expect(as.code).toBe(0);
    }
    // The triple and data layout clang writes for each processor, as the module has them.
    writeFileSync(join(dir, "empty.hip"), "__attribute__((device)) int f(int x) { return x; }\n");
    const ll = readFileSync(join(dir, "bf.ll"), "utf8");
    for (const mcpu of MCPUS) {
      const r = run("clang-19", ["-x", "hip", "--cuda-device-only", "-nogpulib", "-nogpuinc", `--offload-arch=${mcpu}`, "-S", "-emit-llvm", "-o", "-", "empty.hip"], dir);
      expect(r.code).toBe(0);
      for (const key of ["target datalayout", "target triple"]) expect(ll, `${key} for ${mcpu}`).toContain(r.out.split("\n").find((l) => l.startsWith(`${key} = `))!);
    }
    const linked = run("llvm-link-19", ["-o", "libs.bc", "bf.bc", "c09.bc"], dir);
    expect(linked.err).toBe("");
    expect(linked.code).toBe(0);
    // linkonce_odr: llvm-link takes a definition only where something uses it, so the two
    // libraries alone link to nothing (why targets/llvm/compile.ts lists them in @llvm.used).
    expect(run("llvm-dis-19", ["-o", "-", "libs.bc"], dir).out).not.toMatch(/^define /m);
    // A program that uses every function of both: llvm-link takes each linkonce_odr
    // definition it needs, once; llc compiles the result for every processor.
    const rs = [...collectRoutines(parseModule(readFileSync(BITFIELDS, "utf8"), BITFIELDS)), ...collectRoutines(parseModule(readFileSync(C09, "utf8"), C09))];
    const fns = callableFunctions(rs);
    const decls = fns.map((f) => `declare ${llvmReturnType(f)} @${f.name}(${f.params.map((p) => `i${p.width}`).join(", ")})`);
    writeFileSync(join(dir, "user.ll"), `${ll.split("\n").filter((l) => l.startsWith("target ")).join("\n")}\n${decls.join("\n")}\n${usedGlobal(fns.map((f) => f.name))}`);
    expect(run("llvm-as-19", ["-o", "user.bc", "user.ll"], dir).code).toBe(0);
    const prog = run("llvm-link-19", ["-o", "prog.bc", "user.bc", "bf.bc", "c09.bc"], dir);
    expect(prog.err).toBe("");
    const dis = run("llvm-dis-19", ["-o", "-", "prog.bc"], dir).out;
    for (const f of fns) expect(dis.split("\n").filter((l) => l.startsWith("define ") && l.includes(` @${f.name}(`)), f.name).toHaveLength(1);
    for (const mcpu of MCPUS) {
      const s = run("llc-19", ["-O2", "-mtriple=amdgcn-amd-amdhsa", `-mcpu=${mcpu}`, "-o", "-", "prog.bc"], dir);
      expect(s.err, mcpu).toBe("");
      for (const f of fns) expect(s.out, `${f.name} on ${mcpu}`).toMatch(new RegExp(`^${f.name}:`, "m"));
    }
  }, 180_000);

  it(".ll of the isa and sm90 profiles defining the same vshl/vshr function: llvm-link fails naming it; one profile's link", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "v.isa.ll"), await lowered(C08, "llvm", "isa"));
    writeFileSync(join(dir, "v.sm90.ll"), await lowered(C08, "llvm", "sm90"));
    writeFileSync(join(dir, "wm.isa.ll"), await lowered(WARP_MATCH, "llvm", "isa"));
    writeFileSync(join(dir, "bf.sm90.ll"), await lowered(BITFIELDS, "llvm", "sm90"));
    const mixed = run("llvm-link-19", ["-o", "m.bc", "wm.isa.ll", "v.sm90.ll"], dir);
    expect(mixed.code).not.toBe(0);
    expect(mixed.err).toContain("error: linking module flags 'ptx-lower.semantics.vshl_u32_u32_clamp_add__v_v_v': IDs have conflicting values");
    const same = run("llvm-link-19", ["-o", "s.bc", "wm.isa.ll", "v.isa.ll", "bf.sm90.ll"], dir);
    expect(same.err).toBe("");
    expect(same.code).toBe(0);
  }, 60_000);
});

/** Runs the CLI from source, from any working directory (tsx by its file URL). */
function cli(args: string[], cwd = ROOT) {
  const tsx = pathToFileURL(join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;
  const r = spawnSync(process.execPath, ["--import", tsx, join(ROOT, "bin", "ptx-lower.ts"), ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("lower --target hip / llvm: --mcpu, and the banner", () => {
  it("--mcpu with a target that serves every processor is a warning; the output is the same", () => {
    const plain = cli(["lower", BITFIELDS, "--target", "hip"]);
    expect(plain.err).toBe("");
    for (const target of ["hip", "llvm", "c", "js"]) {
      const r = cli(["lower", BITFIELDS, "--target", target, "--mcpu", "gfx1100"]);
      expect(r.code).toBe(0);
      expect(r.err).toBe(`ptx-lower: warning: --mcpu gfx1100 is unused: --target ${target} writes one output for every processor\n`);
      if (target === "hip") expect(r.out.replace(" --mcpu gfx1100", "")).toBe(plain.out);
    }
    // amdgpu reads it; all includes amdgpu.
    expect(cli(["lower", BITFIELDS, "--target", "amdgpu", "--mcpu", "gfx1100"]).err).toBe("");
    const dir = tmp();
    expect(cli(["lower", BITFIELDS, "--target", "all", "--mcpu", "gfx1100", "-o", dir]).err).not.toMatch(/warning/);
    expect(cli(["lower", "--help"]).out).toMatch(/--mcpu <name>[^]*js, c,\s+hip and llvm serve every processor/);
  });

  it.skipIf(missing !== undefined)("a `*/` in the input's path is escaped in the banner as `*\\/` and the header still compiles (hip, c)", () => {
    const dir = tmp();
    mkdirSync(join(dir, "a*"));
    copyFileSync(BITFIELDS, join(dir, "a*", "b.ptx"));
    for (const target of ["hip", "c"]) {
      const r = cli(["lower", "a*/b.ptx", "--target", target, "-o", `out.${target}.h`], dir);
      expect(r.code).toBe(0);
      const text = readFileSync(join(dir, `out.${target}.h`), "utf8");
      expect(text).toContain(" * ptx-lower lower 'a*\\/b.ptx' --target " + target);
      expect(text).toContain(" * source: a*\\/b.ptx; target: ");
      expect(text).not.toContain("a* /b.ptx");
    }
    writeFileSync(join(dir, "t.hip"), '#include "out.hip.h"\n#include "out.c.h"\n__attribute__((device, used)) uint32_t f(uint32_t a) { return ptxl_szext_clamp_s32(a, 3u) + szext_clamp_s32__v_v(a, 4u); }\n');
    const dev = run("clang-19", [...hipArgs("device"), "t.hip"], dir);
    expect(dev.err).toBe("");
    expect(dev.out).toMatch(/^_Z1fj:/m);
    writeFileSync(join(dir, "t.c"), '#include "out.c.h"\nint main(void) { return (int)szext_clamp_s32__v_v(1u, 4u); }\n');
    const gcc = run("gcc", ["-std=c99", "-Wall", "-Wextra", "-Werror", "-c", "-o", "/dev/null", "t.c"], dir);
    expect(gcc.err).toBe("");
    expect(gcc.code).toBe(0);
  });
});
