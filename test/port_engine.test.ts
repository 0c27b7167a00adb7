/**
 * `portSource` (src/port/rewrite.ts, bind.ts, intrinsics.ts, scan.ts) on the defects issue 34
 * lists, each from its reproduction: C++'s alternative tokens before a call; the PTX module
 * header a statement is checked under (sm_90, the lowest higher target that has the
 * instruction, sm_70 at 6.3, or pinned); `"f"`/`"d"` operands of bit-size instructions through
 * their bits; OpenCL's guard and types; stringized constraints bound per use of a macro; CRLF
 * line ends once; a ported file recognised; ptxas's "on line N" as the C source's line;
 * `warpSize`; CUDA-only includes; liveness (live / dead / depends) and HIP paths. The rewrites
 * that need the real header are compiled as HIP for every processor and assembled, and the
 * `.cl` one as OpenCL for AMD.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ParsedModule } from "../src/ir/build.js";
import { collectRoutines } from "../src/lower.js";
import type { PortLanguage, PortOptions, PortResult } from "../src/port/rewrite.js";
import { PORT_MARK, portSource } from "../src/port/rewrite.js";
import { hipHeader, portBanner } from "../bin/port.js";

/** A stub header (its routines' names, one comment line): the tests of the text need no real one. */
async function names(mod: ParsedModule, language: PortLanguage): Promise<string> {
  return `/* ${language}: ${collectRoutines(mod)
    .map((r) => r.name)
    .join(" ")} */\n`;
}

const port = (text: string, file = "t.cu", o: Partial<PortOptions> = {}) => portSource(text, file, { header: names, headerName: "t.hip.h", ...o });
const left = (r: PortResult) => r.statements.filter((s) => s.status === "left").map((s) => `${s.loc.line}: ${s.reasons[0]!.message}`);
const IF = `#if defined(__HIP__) ${PORT_MARK}`;

const CLANG = spawnSync("clang-19", ["--version"]).status === 0 && spawnSync("llvm-mc-19", ["--version"]).status === 0;
const HIP = existsSync("/usr/include/hip/hip_runtime.h");
const MCPUS = ["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100"];

/** Compiles `file` as HIP (or OpenCL) for `mcpu` and assembles it: "" when both succeed, else what they said. */
function build(file: string, mcpu: string, language: PortLanguage): string {
  const s = `${file}.${mcpu}.s`;
  const args =
    language === "opencl"
      ? ["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", `-mcpu=${mcpu}`, "-nogpulib", "-O2", "-S", file, "-o", s]
      : ["-x", "hip", "--cuda-device-only", `--offload-arch=${mcpu}`, "-nogpulib", "-O2", "-include", "hip/hip_runtime.h", "-Wall", "-Wextra", "-Werror", "-S", file, "-o", s];
  const c = spawnSync("clang-19", args, { encoding: "utf8" });
  if (c.status !== 0) return c.stderr;
  const a = spawnSync("llvm-mc-19", ["-triple=amdgcn-amd-amdhsa", `-mcpu=${mcpu}`, "-filetype=obj", s, "-o", `${s}.o`], { encoding: "utf8" });
  return a.status === 0 ? "" : a.stderr;
}

describe("port: the defects of issue 34, from their reproductions", () => {
  it("a call after C++'s alternative tokens (or, bitand, not, …) is a call, renamed", async () => {
    const src =
      "__device__ bool f1(int n, float d) { return (n < 3) or __all_sync(0xffffffffu, d > 0); }\n" +
      "__device__ unsigned f4(unsigned m) { return m bitand __ballot_sync(0xffffffffu, 1); }\n" +
      "__device__ bool f5(unsigned m) { return not __any_sync(m, 1) and not_eq __activemask(); }\n";
    const r = await port(src);
    expect(r.intrinsics.map((c) => `${c.name} ${c.status}`)).toEqual(["__all_sync rewritten", "__ballot_sync rewritten", "__any_sync rewritten", "__activemask rewritten"]);
    expect(r.text).toContain("(n < 3) or ptxl_all_sync(0xffffffffu, d > 0)");
    expect(r.text).toContain("m bitand ptxl_ballot_sync(");
    expect(r.text).not.toMatch(/[^_]__(all|any|ballot)_sync\(|[^_]__activemask\(/);
  });

  it("each statement is checked under the first module header ptxas accepts: sm_90, the lowest higher target (redux .f32: sm_100a), sm_70 at 6.3 (deprecated shfl); --ptx-target pins one", async () => {
    const rf = await port('__device__ float f(float v){ float r; asm volatile("redux.sync.max.NaN.f32 %0, %1, 0xffffffff;" : "=f"(r) : "f"(v)); return r; }\n');
    expect(rf.statements.map((s) => [s.status, s.ptxHeader])).toEqual([["rewritten", ".version 9.0 / .target sm_100a"]]);
    const sz = await port('__device__ unsigned f(unsigned a){ unsigned r; asm("szext.clamp.u32 %0, %1, 4;" : "=r"(r) : "r"(a)); return r; }\n');
    expect(sz.statements[0]!.ptxHeader).toBe(".version 9.0 / .target sm_90");
    const old = await port('__device__ int f(int v){ int r; asm volatile("shfl.down.b32 %0, %1, 1, 0x1f;" : "=r"(r) : "r"(v)); return r; }\n');
    expect(old.statements.map((s) => [s.status, s.ptxHeader])).toEqual([["rewritten", ".version 6.3 / .target sm_70"]]);
    // Pinned to sm_90: the deprecated shfl is refused, with ptxas's message.
    const pinned = await port('__device__ int f(int v){ int r; asm volatile("shfl.down.b32 %0, %1, 1, 0x1f;" : "=r"(r) : "r"(v)); return r; }\n', "t.cu", { ptxTarget: "sm_90" });
    expect(left(pinned)).toEqual(["1: Instruction 'shfl' without '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4"]);
    await expect(port("int x;\n", "t.cu", { ptxTarget: "sm_9000" })).rejects.toThrow(/ptxTarget/);
    // An instruction no header accepts names the headers tried; an illegal form is one parse's message.
    const none = await port('__device__ unsigned f(unsigned a){ unsigned r; asm("redux.sync.max.NaN.f32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(a)); asm("shfl.down.b32 %0, %1, 1, 0x1f; redux.sync.max.NaN.f32 %0, %1, 0xffffffff;" : "=r"(r) : "r"(a)); return r; }\n');
    expect(none.statements[0]!.status).toBe("rewritten");
    expect(left(none)[0]).toMatch(/no module header accepts it; tried sm_90, sm_90a, sm_100, …, sm_121f at \.version 9\.0; sm_70 at \.version 6\.3\)/);
  });

  it("a file whose statements need sm_70 and sm_90 headers: the sm_70 ones are left, saying why (one header holds one module)", async () => {
    const r = await port('__device__ int f(int v){ int r; asm("shfl.down.b32 %0, %1, 1, 0x1f;" : "=r"(r) : "r"(v)); asm("szext.clamp.u32 %0, %1, 4;" : "=r"(r) : "r"(v)); return r; }\n');
    expect(r.statements.map((s) => s.status)).toEqual(["left", "rewritten"]);
    expect(left(r)[0]).toMatch(/needs \.version 6\.3 \/ \.target sm_70, while other statements of this file need \.version 9\.0 \/ \.target sm_90/);
  });

  it('"f" and "d" operands of bit-size instructions go through their bits (__builtin_bit_cast; OpenCL: as_uint/as_float)', async () => {
    const r = await port('__device__ float g(float x, int lane){ float r; asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(x), "r"(lane)); return r; }\n');
    expect(r.statements[0]!.status).toBe("rewritten");
    expect(r.text).toContain("r = __builtin_bit_cast(float, shfl_sync_bfly_b32__v_v_imm31_imm0xffffffff(__builtin_bit_cast(unsigned int, (float)(x)), lane));");
    const d = await port('__device__ double g(double x){ double r; asm("match.any.sync.b64 %0, %1, 0xffffffff;" : "=r"(*(unsigned*)&r) : "d"(x)); return r; }\n');
    expect(d.text).toContain("__builtin_bit_cast(unsigned long long, (double)(x))");
    const cl = await port('float g(float x){ float r; asm("shfl.sync.bfly.b32 %0, %1, 1, 0x1f, 0xffffffff;" : "=f"(r) : "f"(x)); return r; }\n', "t.cl", { language: "opencl" });
    expect(cl.text).toContain("r = as_float(shfl_sync_bfly_b32__v_imm1_imm31_imm0xffffffff(as_uint((float)(x))));");
  });

  it("OpenCL C: the guard is what clang's OpenCL compile for AMD defines; a CUDA warp intrinsic is left (its drop-in is C++); no warpSize", async () => {
    const src = 'uint lowb(uint u, uint b) { uint r; asm("szext.clamp.u32 %0, %1, %2;" : "=r"(r) : "r"(u), "r"(b)); return r; }\nkernel void k(global uint *o) { o[0] = lowb(o[1], o[2]) + __ballot_sync(0xffffffffu, 1); }\n';
    const r = await port(src, "o.cl", { language: "opencl" });
    expect(r.text.split("\n")[0]).toBe(`#if defined(__OPENCL_C_VERSION__) && defined(__AMDGCN__) ${PORT_MARK}`);
    expect(r.text).not.toContain("__HIP__");
    expect(r.intrinsics.map((c) => [c.status, c.reasons[0]?.message])).toEqual([["left", expect.stringMatching(/OpenCL C cannot express/)]]);
    expect(r.text).toContain("__ballot_sync(0xffffffffu, 1)");
  });

  it("a stringized constraint (\"=\"#r(y) in a macro) is bound per use and rewritten per use; a use that cannot be bound is the reason at its line", async () => {
    const src = '#define M(r) __device__ int f(int x){ int y; asm("shfl.sync.idx.b32 %0, %1, 0, 0x1f, 0xffffffff;" : "="#r(y) : #r(x)); return y; }\nM(r)\n';
    const r = await port(src);
    expect(r.statements.map((s) => s.status)).toEqual(["rewritten"]);
    expect(r.text).toContain("#define ptxl_M_r(ptxl_o0, ptxl_o1) (ptxl_o0) = shfl_sync_idx_b32__v_imm0_imm31_imm0xffffffff((ptxl_o1))");
    expect(r.text).toContain("#define M(r) __device__ int f(int x){ int y; ptxl_M_ ## r((y), (x)); return y; }");
    // Two uses: r and f (a float through its bits); a use with a constraint that is no register class.
    const two = await port('#define M(n, r, T) __device__ T n(T x){ T y; asm("shfl.sync.idx.b32 %0, %1, 0, 0x1f, 0xffffffff;" : "="#r(y) : #r(x)); return y; }\nM(fi, r, int)\nM(ff, f, float)\n');
    expect(two.statements.map((s) => s.status)).toEqual(["rewritten"]);
    expect(two.text).toContain("#define ptxl_M_f(ptxl_o0, ptxl_o1) (ptxl_o0) = __builtin_bit_cast(float, shfl_sync_idx_b32__v_imm0_imm31_imm0xffffffff(__builtin_bit_cast(unsigned int, (float)(ptxl_o1))))");
    const bad = await port('#define M(n, r, T) __device__ T n(T x){ T y; asm("shfl.sync.idx.b32 %0, %1, 0, 0x1f, 0xffffffff;" : "="#r(y) : #r(x)); return y; }\nM(fi, r, int)\nM(fq, q, int)\n');
    expect(bad.statements.map((s) => s.status)).toEqual(["left"]);
    expect(bad.statements[0]!.reasons[0]!.message).toMatch(/^inside a macro body: with the use at 3:1: operand %0: constraint "=q" is not one of/);
    // A template built from a parameter (`"…"#t"…"`): the instruction per use; an unsupported one is reported at its use's line.
    const t = await port('#define S(n, t) __device__ unsigned n(unsigned a){ unsigned d; asm("szext." #t ".u32 %0, %1, 4;" : "=r"(d) : "r"(a)); return d; }\nS(c, clamp)\nS(w, wrap)\n');
    expect(t.statements[0]!.calls).toEqual(["szext_clamp_u32__v_imm4", "szext_wrap_u32__v_imm4"]);
    const u = await port('#define S(n, t) __device__ unsigned n(unsigned a){ unsigned d; asm("szext." #t ".u32 %0, %1, 4;" : "=r"(d) : "r"(a)); return d; }\nS(c, clamp)\nS(w, nope)\n');
    expect(u.statements[0]!.reasons[0]!.loc.line).toBe(3);
  });

  it("CRLF: every line written ends as the input's lines do, once (a rewritten #define too)", async () => {
    const src = '#define Z(d, a) asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d) : "r"(a))\r\n__device__ unsigned f(unsigned a) { unsigned d; Z(d, a); return d; }\r\n';
    const r = await port(src);
    expect(r.statements[0]!.status).toBe("rewritten");
    expect(r.text).not.toMatch(/\r\r|[^\r]\n/);
  });

  it("a file port already wrote is recognised: nothing rewritten again, no second include", async () => {
    const src = '__device__ unsigned f(unsigned a) { unsigned d; asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d) : "r"(a)); return __shfl_sync(0xffffffffu, d, 0); }\n';
    const once = await port(src);
    const twice = await port(once.text);
    expect(twice.alreadyPorted).toBe(true);
    expect(twice.text).toBe(once.text);
    expect(twice.header).toBeNull();
    expect(twice.warnings[0]!.message).toMatch(/already ported/);
    // A port written before the mark: its include guard.
    const old = '#if defined(__HIP__)\n#include "x.hip.h"\n#endif\nint f();\n';
    expect((await port(old)).alreadyPorted).toBe(true);
    // A file of the user's own with a HIP guard is no port.
    expect((await port("#if defined(__HIP__)\nint g();\n#endif\n")).alreadyPorted).toBe(false);
  });

  it("a non-ASCII character in a template: ptxas's 'on line N' names the user's line", async () => {
    const r = await port('\n\n__device__ int f(int x){ int y; asm("shfl.sync.idx.b32 %0, %1, 0, 0x1f, 0xffffffff; // \u00e9" : "=r"(y) : "r"(x)); return y; }\n', "na.cu");
    expect(left(r)).toEqual(["3: Unexpected non-ASCII character encountered on line 3"]);
  });

  it("warpSize in code a HIP compile takes is the header's ptxl_warpSize (32); nvcc's side maps it back; the file's own warpSize is left", async () => {
    const src = "__global__ void k(int *o) {\n  int lane = threadIdx.x % warpSize, w = threadIdx.x / warpSize;\n  o[w] = lane + p.warpSize;\n}\n";
    const r = await port(src);
    expect(r.warpSize.map((w) => `${w.loc.line}:${w.loc.col} ${w.status}`)).toEqual(["2:28 rewritten", "2:56 rewritten"]);
    expect(r.text).toContain("int lane = threadIdx.x % ptxl_warpSize, w = threadIdx.x / ptxl_warpSize;");
    expect(r.text).toContain("p.warpSize");
    expect(r.text).toContain("#else\n#define ptxl_warpSize warpSize\n#endif");
    const own = await port("#define warpSize 32\n__global__ void k(int *o) { o[0] = warpSize; }\n");
    expect(own.warpSize.map((w) => w.status)).toEqual(["left"]);
    expect(own.text).toBe("#define warpSize 32\n__global__ void k(int *o) { o[0] = warpSize; }\n");
    const decl = await port("const int warpSize = 32;\n__global__ void k(int *o) { o[0] = warpSize; }\n");
    expect(decl.warpSize.map((w) => w.reasons[0]?.message)).toEqual([expect.stringMatching(/declares its own warpSize \(line 1\), in scope here/)]);
    // A member, a parameter, a namespace's: left only where they are in scope.
    const scoped = await port(
      [
        "struct Cfg { int warpSize; __device__ int half() const { return warpSize / 2; } };",
        "__global__ void k(int *o, int warpSize) { o[0] = warpSize; }",
        "namespace n { constexpr int warpSize = 32; __device__ int w() { return warpSize; } }",
        "__global__ void g(int *o) { o[threadIdx.x] = threadIdx.x % warpSize; }",
        "",
      ].join("\n"),
    );
    expect(scoped.warpSize.map((w) => `${w.loc.line} ${w.status}`)).toEqual(["1 left", "2 left", "3 left", "4 rewritten"]);
  });

  it("CUDA-only includes are reported with the HIP header that replaces them; the wavefront size is named", async () => {
    const r = await port('#include <cuda_fp16.h>\n#include "cooperative_groups.h"\n#include <cstdio>\n__device__ int w() { return __AMDGCN_WAVEFRONT_SIZE; }\n');
    expect(r.includes.map((i) => [i.loc.line, i.name, i.hip])).toEqual([
      [1, "cuda_fp16.h", "hip/hip_fp16.h"],
      [2, "cooperative_groups.h", "hip/hip_cooperative_groups.h"],
    ]);
    expect(r.warnings.map((w) => w.loc.line)).toEqual([4]);
  });

  it("liveness: a rewrite under #if __CUDA_ARCH__ >= 700 is dead (the guard named), under a user macro it depends on it; HIP paths are left; shared code of a HIP-aware file is left unless renameShared", async () => {
    const src = [
      "__device__ int f(int v) {",
      "#if __CUDA_ARCH__ >= 700",
      "  return __shfl_sync(0xffffffffu, v, 0);",
      "#elif defined(MY_SWITCH)",
      "  return __shfl_xor_sync(0xffffffffu, v, 1);",
      "#else",
      "  return __shfl_up_sync(0xffffffffu, v, 1);",
      "#endif",
      "}",
      "",
    ].join("\n");
    const r = await port(src);
    expect(r.intrinsics.map((c) => [c.loc.line, c.status, c.liveness.state])).toEqual([
      [3, "rewritten", "dead"],
      [5, "rewritten", "depends"],
      [7, "rewritten", "depends"],
    ]);
    const dead = r.intrinsics[0]!.liveness;
    expect(dead.state === "dead" && dead.guard.text).toBe("#if __CUDA_ARCH__ >= 700");
    const hip = [
      "__device__ int f(int v) {",
      "#ifdef MY_HIP",
      "  return __shfl_sync(0xffffffffu, v, 0, 64);",
      "#else",
      "  return __shfl_sync(0xffffffffu, v, 0);",
      "#endif",
      "}",
      "__device__ int g(int v) { return __shfl_down_sync(0xffffffffu, v, 1) * warpSize; }",
      "",
    ].join("\n");
    const h = await port(hip, "t.cu", { hipMacros: ["MY_HIP"] });
    expect(h.intrinsics.map((c) => [c.loc.line, c.status, c.reasons[0]?.message.slice(0, 24)])).toEqual([
      [3, "left", "already a HIP path (#ifd"],
      [5, "rewritten", undefined],
      [8, "left", "shared with the file's H"],
    ]);
    expect(h.warpSize.map((w) => w.status)).toEqual(["left"]);
    expect(h.warnings.map((w) => w.message)).toEqual([expect.stringMatching(/HIP paths of its own, whose warp code may assume 64-lane waves/)]);
    const renamed = await port(hip, "t.cu", { hipMacros: ["MY_HIP"], renameShared: true });
    expect(renamed.intrinsics.map((c) => c.status)).toEqual(["left", "rewritten", "rewritten"]);
    expect(renamed.text).toContain("ptxl_shfl_down_sync(0xffffffffu, v, 1) * ptxl_warpSize");
    // Without --hip-macro the switch is named, the code is not a HIP path.
    const sw = await port(hip);
    expect(sw.hipSwitches.map((s) => `${s.name} ${s.loc.line}`)).toEqual(["MY_HIP 2"]);
    expect(sw.intrinsics.map((c) => [c.status, c.liveness.state])).toEqual([
      ["rewritten", "depends"],
      ["rewritten", "depends"],
      ["rewritten", "live"],
    ]);
    expect(h.hipSwitches).toEqual([]);
  });

  it.skipIf(!CLANG || !HIP)("the reproductions' ports compile as HIP for every processor under -Wall -Wextra -Werror and assemble (and the .cl one as OpenCL for AMD)", { timeout: 600_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "ptx-lower-port-engine-"));
    const src = [
      "__device__ bool f1(int n, float d) { return (n < 3) or __all_sync(0xffffffffu, d > 0); }",
      "__device__ unsigned f4(unsigned m) { return m bitand __ballot_sync(0xffffffffu, 1); }",
      '__device__ float f5(float v){ float r; asm volatile("redux.sync.max.NaN.f32 %0, %1, 0xffffffff;" : "=f"(r) : "f"(v)); return r; }',
      '__device__ float f6(float x, int lane){ float r; asm volatile("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=f"(r) : "f"(x), "r"(lane)); return r; }',
      '#define M(n, r, T) __device__ T n(T x){ T y; asm("shfl.sync.idx.b32 %0, %1, 0, 0x1f, 0xffffffff;" : "="#r(y) : #r(x)); return y; }',
      "M(f7, r, int)",
      "M(f8, f, float)",
      "__global__ void k(int *o, float *p) { int lane = threadIdx.x % warpSize; o[lane] = f1(o[0], p[0]) + (int)f4(o[1]) + (int)f5(p[1]) + (int)f6(p[2], o[2]) + f7(o[3]) + (int)f8(p[3]); }",
      "",
    ].join("\n");
    const header = (mod: ParsedModule, language: PortLanguage, warpSize: boolean) => hipHeader(mod, portBanner("r.cu", "sm90"), "sm90", { language, warpSize });
    const r = await portSource(src, "r.cu", { header, headerName: "r.hip.h" });
    expect(r.statements.map((s) => s.status)).toEqual(["rewritten", "rewritten", "rewritten"]);
    writeFileSync(join(dir, "r.hip"), r.text);
    writeFileSync(join(dir, "r.hip.h"), r.header!);
    const cl = await portSource('uint lowb(uint u, uint b) { uint r; asm("szext.clamp.u32 %0, %1, %2;" : "=r"(r) : "r"(u), "r"(b)); return r; }\nkernel void k(global uint *o) { o[0] = lowb(o[1], o[2]); }\n', "o.cl", {
      header,
      headerName: "o.hip.h",
      language: "opencl",
    });
    writeFileSync(join(dir, "o.cl"), cl.text);
    writeFileSync(join(dir, "o.hip.h"), cl.header!);
    for (const m of MCPUS) {
      expect(build(join(dir, "r.hip"), m, "cuda"), m).toBe("");
      expect(build(join(dir, "o.cl"), m, "opencl"), m).toBe("");
    }
  });
});

describe("port: the fuzzer's findings (scripts/fuzz_port.ts), each its reproducer", () => {
  const M = 'asm("activemask.b32 %0;" : "=r"(m));';
  it("A: a // comment that a splice continues onto the next line moves after the #endif with the code after it (it would swallow the #endif)", async () => {
    const r = await port(`__device__ unsigned f() { unsigned m;\n  ${M} // lanes \\\n  return m; }\n`);
    expect(r.text).toContain(`#else\n  ${M}\n#endif ${PORT_MARK}\n  // lanes \\\n  return m; }`);
  });
  it("B: the include guard goes before a first statement that follows a comment on its line, not inside it", async () => {
    const r = await port(`/*c*/  ${M}\n`);
    expect(r.text.startsWith(`/*c*/\n${IF}\n#include "t.hip.h"\n#endif ${PORT_MARK}\n${IF}\nm = activemask_b32__();\n#else\n${M}\n#endif ${PORT_MARK}\n`)).toBe(true);
    const crlf = await port(`/* c */ ${M}\r\nx;\r\n`);
    expect(crlf.text).not.toMatch(/\r\r|[^\r]\n/);
  });
  it("C: a statement with a preprocessor directive inside is left (the guard around it could not hold it)", async () => {
    const r = await port('void f() { unsigned r;\nasm("activemask.b32 %0;"\n#if A\n : "=r"(r));\n#else\n : "=r"(r));\n#endif\n}\n');
    expect(left(r)).toEqual(["2: a preprocessor directive inside the statement (line 3): the guard around a rewrite cannot hold it"]);
  });
  it("D: a deprecated shfl (sm_70) beside a drop-in whose PTX needs sm_80 (redux): the shfl is left, saying why, not a crash", async () => {
    const r = await port('__device__ int f(int v,int s){int r; asm("shfl.idx.b32 %0, %1, %2, 0x1f;" : "=r"(r) : "r"(v), "r"(s)); return r + __reduce_or_sync(0xffffffffu, v);}\n');
    expect(left(r)).toEqual([expect.stringMatching(/^1: needs \.version 6\.3 \/ \.target sm_70, while other statements of this file need \.version 9\.0/)]);
    expect(r.intrinsics.map((c) => c.status)).toEqual(["rewritten"]);
  });
  it("E: two statements with nothing between them: no line of blanks between their guards", async () => {
    const r = await port(`void f() { unsigned m; x; ${M}${M} }\n`);
    expect(r.text).not.toMatch(/\n[ \t]*\n/);
  });
  it("F, G: a trailing /* */ holding U+2028 stays with its statement; a lone CR after a statement is kept", async () => {
    const f = await port(`void f() { unsigned m;\n  ${M} /* a\u2028b */\n}\n`);
    expect(f.text).toContain(`#else\n  ${M} /* a\u2028b */\n#endif`);
    const g = await port(`void f() { unsigned m;\r\n  ${M}\r\r\n  y; }\r\n`);
    expect(g.text).toContain(`  ${M}\r\r\n#endif`);
  });
  it("a statement on a line that a splice continues (the line before ends in \\): its guard starts a line of its own, and so does the include guard", async () => {
    const r = await port(`\\\n  ${M}\n`);
    expect(r.text).toBe(`\\\n\n${IF}\n#include "t.hip.h"\n#endif ${PORT_MARK}\n\n${IF}\n  m = activemask_b32__();\n#else\n  ${M}\n#endif ${PORT_MARK}\n`);
    const call = await port("\\\n__device__ int f(int v) { return __\\\nshfl_sync(0xffffffffu, v, 0); }\n");
    expect(call.text).toContain("return ptxl_\\\nshfl_sync(");
  });
  it("H: a line splice inside a renamed name stays (only the prefix is rewritten)", async () => {
    const r = await port("__device__ int f(int v) { return __shfl_dow\\\nn_sync(0xffffffffu, v, 1) * warp\\\nSize; }\n");
    expect(r.text).toContain("return ptxl_shfl_dow\\\nn_sync(0xffffffffu, v, 1) * ptxl_warp\\\nSize; }");
  });
});

describe("port: a fresh tester's findings, each its reproducer", () => {
  it("a file name with non-ASCII characters is ported (the routines module's comment is ASCII)", async () => {
    const r = await port("__device__ int f(int v){ return __shfl_sync(0xffffffffu, v, 0); }\n", "/tmp/d\u00efr/ok.cu");
    expect(r.intrinsics.map((c) => c.status)).toEqual(["rewritten"]);
  });
  it("legacy warp intrinsics (__shfl, __ballot, …: no _sync) are reported, never renamed: HIP's own are 64-lane", async () => {
    const r = await port("__global__ void k(unsigned *o, int v){ unsigned b = __ballot(v > 0); int s = __shfl(v, 0) + __shfl_down(v, 1); o[0] = b + s + __shfl_sync(0xffffffffu, v, 0) + __any(v) + __all(v); }\n");
    expect(r.intrinsics.map((c) => `${c.name} ${c.status}`)).toEqual(["__ballot left", "__shfl left", "__shfl_down left", "__shfl_sync rewritten", "__any left", "__all left"]);
    expect(r.intrinsics[0]!.reasons[0]!.message).toMatch(/^a legacy warp intrinsic/);
    expect(r.text).toContain("unsigned b = __ballot(v > 0); int s = __shfl(v, 0) + __shfl_down(v, 1);");
  });
  it("the file's own function of an intrinsic's name (a definition, not a prototype): its calls are left", async () => {
    const r = await port("template<class T> __device__ T __shfl_xor_sync(unsigned m, T v, int l) { return v; }\n__device__ int h(int v){ return __shfl_xor_sync(0xffffffffu, v, 1); }\n");
    expect(r.intrinsics.map((c) => [c.status, c.reasons[0]?.message])).toEqual([["left", "the file defines its own function of this name (line 1): the call is that function's, left unchanged"]]);
    const proto = await port("unsigned __ballot_sync(unsigned m, int p);\n__device__ int h(int v){ return __ballot_sync(0xffffffffu, v); }\n");
    expect(proto.intrinsics.map((c) => c.status)).toEqual(["rewritten"]);
  });
  it("an already ported file with code added outside port's guards says how much is not ported; port's own header is not ported", async () => {
    const once = await port("__device__ int f(int v){ return __shfl_sync(0xffffffffu, v, 0); }\n");
    const again = await port(once.text + "__device__ int g(int v){ return __ballot_sync(0xffffffffu, v) + warpSize; }\n");
    expect(again.alreadyPorted).toBe(true);
    expect(again.warnings.map((w) => w.message)[1]).toBe("1 CUDA warp intrinsic call, 1 warpSize use outside port's guards, added since it was ported, are not ported: port the original file again");
    const header = await hipHeader((await port("__device__ int f(int v){ return __shfl_sync(0xffffffffu, v, 0); }\n")).routinesModule!, portBanner("f.cu", "sm90"));
    const h = await port(header, "f.hip.h");
    expect([h.alreadyPorted, h.hipSwitches, h.warnings.map((w) => w.message)]).toEqual([true, [], ["a header ptx-lower port wrote (its banner): not ported"]]);
  });
  it("the header inlined (standard output) is under -Wunused-function's pragma: no warning for what the file does not call", async () => {
    const r = await port("__device__ int f(int v){ return __shfl_sync(0xffffffffu, v, 0); }\n", "t.cu", { inlineHeader: true });
    expect(r.text).toContain(`${IF}\n#pragma clang diagnostic push\n#pragma clang diagnostic ignored "-Wunused-function"\n/* cuda: `);
  });
});

describe("port: the output keeps the input's text", () => {
  it("a guard line of its own is the port's (the mark), so a user's '#if defined(__HIP__)' is kept apart", async () => {
    const r = await port('#if defined(__HIP__)\nint h;\n#endif\n__device__ unsigned f(unsigned a) { unsigned d; asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d) : "r"(a)); return d; }\n');
    expect(r.text.split("\n").filter((l) => l === IF)).toHaveLength(2);
    expect(r.text).toContain("#if defined(__HIP__)\nint h;\n#endif\n");
  });
});
