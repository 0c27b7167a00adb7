/**
 * The header `ptx-lower port` writes (issue 34 items 1-3), through the registered `hip`
 * target's `lowerModule` as bin/port.ts calls it (src/target/lower.ts `ModuleLowering`,
 * targets/hip/print.ts, targets/hip/dropins.ts):
 * - the `__half`/`__half2` and `__hip_bfloat16`/`__hip_bfloat162` shuffle drop-ins compile and
 *   assemble for every processor (the bfloat16 ones against a stub of ROCm >= 6's
 *   `<hip/hip_bf16.h>`, test/port/bf16/hip/hip_bf16.h: Debian's HIP 5.2 has none), and move
 *   each lane's bits as the 32-bit PTX shuffle does (run in the AMDGPU interpreter);
 * - a constant `width` that is not a power of two <= 32 does not compile, naming the call;
 * - any number of headers in one translation unit compile without a diagnostic under
 *   `-Wall -Wextra -Werror` (two and three headers sharing functions, the same one twice);
 * - `ptxl_warpSize` (32) where `warpSize: true`, a constant expression;
 * - the OpenCL C dialect: no include, no device attribute, no pragma, no drop-in; the scalar
 *   and warp-level functions compile and assemble as OpenCL C for every processor.
 * The modules are written here from the PTX of test/cases/*.ptx and of src/port/intrinsics.ts
 * (the instructions CUDA's headers compile each warp intrinsic to), not through the port.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseModule } from "../src/ir/build.js";
import { collectRoutines } from "../src/lower.js";
import { targetServices } from "../src/target/registry.js";
import type { ModuleLowering } from "../src/target/lower.js";
import { CUDA_WARP_INTRINSICS } from "../src/port/intrinsics.js";
import { DROP_INS, dropInOverloads, dropInsFor } from "../targets/hip/dropins.js";
import { runTool } from "../src/tools.js";
import type { Form } from "../src/ir/forms.js";
import { formWrites } from "../src/ir/forms.js";
import type { OperandKind, SourceName } from "../src/ir/ir.js";
import type { CallableFn } from "../targets/llvm/callable.js";
import type { CompiledFunction } from "../targets/llvm/compiled.js";
import { checkCompiled } from "../targets/llvm/compiled.js";
import { clangArgs, extract, hipWrappers } from "../targets/hip/compile.js";
import { openclTypes } from "../targets/hip/print.js";
import { callableFunctions } from "../targets/llvm/callable.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import { TARGETS } from "../targets/amdgpu/regs.js";

const ROOT = join(import.meta.dirname, "..");
const BF16_STUB_DIR = join(ROOT, "test", "port", "bf16");
const CLANG = spawnSync("clang-19", ["--version"]).status === 0 && spawnSync("llvm-mc-19", ["--version"]).status === 0;
const HIP_HEADERS = existsSync("/usr/include/hip/hip_runtime.h");
const MCPUS = ["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100"] as const;
const DIR = mkdtempSync(join(tmpdir(), "ptx-lower-port-header-"));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));
const skipped = (what: string, ok: boolean) => (ok ? "" : ` (skipped: ${what} missing)`);

/**
 * A PTX module holding every instruction CUDA's headers compile a warp intrinsic to
 * (src/port/intrinsics.ts `ptx`), every operand a register: its readable aliases are what the
 * drop-ins call, so the header has every drop-in.
 */
function warpIntrinsicsPtx(): string {
  let r = 0;
  const lines: string[] = [];
  for (const i of CUDA_WARP_INTRINSICS.values()) {
    if (i.status !== "rewrite") continue;
    for (const p of i.ptx)
      lines.push(
        "\t" +
          p.text.replace(/%s(\d+)/g, (_, k: string) => {
            const t = p.types[Number(k)];
            r++;
            return t === "pred" ? `%p${r}` : t === "b64" ? `%rd${r}` : `%r${r}`;
          }),
      );
  }
  return `.version 9.0\n.target sm_90\n.address_size 64\n.visible .func warp_intrinsics()\n{\n\t.reg .b32 %r<${r + 1}>;\n\t.reg .b64 %rd<${r + 1}>;\n\t.reg .pred %p<${r + 1}>;\n${lines.join("\n")}\n\tret;\n}\n`;
}

const CASE = (name: string) => readFileSync(join(ROOT, "test", "cases", `${name}.ptx`), "utf8");

/** The header of the modules `texts` (one routine list), as bin/port.ts's `hipHeader` asks the hip target for it. */
async function header(texts: Record<string, string>, extra: Partial<Pick<ModuleLowering, "language" | "warpSize">> = {}): Promise<string> {
  const hip = targetServices().lower.targets.find((t) => t.name === "hip")!;
  const routines = Object.entries(texts).flatMap(([file, text]) => collectRoutines(parseModule(text, file)));
  return (await hip.lowerModule({ routines, profile: "sm90", banner: ["test/port_header.test.ts"], served: () => [], ...extra })).text;
}

const write = (name: string, text: string) => {
  writeFileSync(join(DIR, name), text);
  return name;
};

/** A HIP device-only compile of `file` in DIR for `mcpu`, then llvm-mc of its assembly: the status and diagnostics of each. */
function hip(mcpu: string, file: string, args: string[]): { status: number | null; stderr: string } {
  const s = `${file}.${mcpu}.s`;
  const cc = spawnSync("clang-19", ["-x", "hip", "--cuda-device-only", `--offload-arch=${mcpu}`, "-nogpulib", "-O2", ...args, "-S", file, "-o", s], { cwd: DIR, encoding: "utf8" });
  if (cc.status !== 0) return { status: cc.status, stderr: cc.stderr };
  const mc = spawnSync("llvm-mc-19", ["-triple=amdgcn-amd-amdhsa", `-mcpu=${mcpu}`, "-filetype=obj", s, "-o", `${s}.o`], { cwd: DIR, encoding: "utf8" });
  return { status: mc.status, stderr: cc.stderr + mc.stderr };
}

/** An OpenCL C compile (`-S`) for `mcpu` of `file` in DIR, then llvm-mc of its assembly. */
function opencl(mcpu: string, file: string, args: string[] = []): { status: number | null; stderr: string } {
  const s = `${file}.${mcpu}.s`;
  const cc = spawnSync("clang-19", ["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", `-mcpu=${mcpu}`, "-nogpulib", "-O2", "-Wall", "-Wextra", "-Werror", ...args, "-S", file, "-o", s], { cwd: DIR, encoding: "utf8" });
  if (cc.status !== 0) return { status: cc.status, stderr: cc.stderr };
  const mc = spawnSync("llvm-mc-19", ["-triple=amdgcn-amd-amdhsa", `-mcpu=${mcpu}`, "-filetype=obj", s, "-o", `${s}.o`], { cwd: DIR, encoding: "utf8" });
  return { status: mc.status, stderr: cc.stderr + mc.stderr };
}

const SHUFFLES = [
  ["ptxl_shfl_sync", "__shfl_sync", "3"],
  ["ptxl_shfl_up_sync", "__shfl_up_sync", "1u"],
  ["ptxl_shfl_down_sync", "__shfl_down_sync", "2u"],
  ["ptxl_shfl_xor_sync", "__shfl_xor_sync", "1"],
] as const;
const SIXTEEN = ["__half", "__half2", "__hip_bfloat16", "__hip_bfloat162"] as const;
const WERROR = ["-Wall", "-Wextra", "-Werror"];
const WITH_HIP = ["-include", "hip/hip_runtime.h", "-I", BF16_STUB_DIR, ...WERROR];

/** Every drop-in called (test/dropins.test.ts's kernel, renamed as the port renames it) and ptxl_warpSize. */
const KERNEL_ALL = `extern "C" __attribute__((global)) void all_dropins(int *o, unsigned *u, long long *q, double *r, float *f, __half2 *h) {
  unsigned m = ptxl_activemask();
  int lanes[ptxl_warpSize];
  lanes[threadIdx.x % ptxl_warpSize] = o[1];
  o[0] = ptxl_shfl_sync(m, lanes[3], 3);
  u[0] = ptxl_shfl_up_sync(m, u[1], 1u, 16);
  q[0] = ptxl_shfl_down_sync(m, q[1], 2u);
  r[0] = ptxl_shfl_xor_sync(m, r[1], 1);
  f[0] = ptxl_shfl_sync(m, f[1], 0, 8);
  h[0] = ptxl_shfl_xor_sync(m, h[1], 1, ptxl_warpSize);
  o[2] = ptxl_all_sync(m, o[3]) + ptxl_any_sync(m, o[3]) + ptxl_uni_sync(m, o[3]);
  u[2] = ptxl_ballot_sync(m, o[4]);
  o[3] = ptxl_reduce_add_sync(m, o[5]) + ptxl_reduce_min_sync(m, o[5]) + ptxl_reduce_max_sync(m, o[5]);
  u[4] = ptxl_reduce_and_sync(m, u[5]) ^ ptxl_reduce_or_sync(m, u[6]) ^ ptxl_reduce_xor_sync(m, u[7]);
  int p;
  u[6] = ptxl_match_any_sync(m, q[2]) + ptxl_match_all_sync(m, r[2], &p) + p;
  ptxl_syncwarp();
}
`;

describe("16-bit shuffle drop-ins (cuda_fp16.hpp / cuda_bf16.hpp overloads)", () => {
  it("each shuffle has __half, __half2 (<hip/hip_fp16.h>) and __hip_bfloat16, __hip_bfloat162 (<hip/hip_bf16.h>, ROCm >= 6) overloads, each under its header's #if, one 32-bit shuffle each", async () => {
    const text = await header({ "warp.ptx": warpIntrinsicsPtx() });
    for (const [name] of SHUFFLES) {
      const d = DROP_INS.find((x) => x.name === name)!;
      expect(d.typed?.map((g) => [g.header, g.types])).toEqual([
        ["hip/hip_fp16.h", ["__half", "__half2"]],
        ["hip/hip_bf16.h", ["__hip_bfloat16", "__hip_bfloat162"]],
      ]);
      for (const t of SIXTEEN) {
        const o = dropInOverloads(d).filter((x) => x.includes(` inline ${t} ${name}(unsigned mask, ${t} var,`));
        expect(o.length, `${name}(${t})`).toBe(1);
        // One 32-bit shuffle of the alias, nothing else.
        expect(o[0]!.match(/ptxl_shfl_sync_(idx|up|down|bfly)_b32_dp\(/g)?.length, `${name}(${t})`).toBe(1);
      }
    }
    expect(text).toContain("#if defined(__HIP_PLATFORM_AMD__) && __has_include(<hip/hip_fp16.h>)\n#include <hip/hip_fp16.h>\n");
    expect(text).toContain("#if defined(__HIP_PLATFORM_AMD__) && __has_include(<hip/hip_bf16.h>)\n#include <hip/hip_bf16.h>\n");
    // Every other drop-in takes only the language's own types.
    for (const d of DROP_INS) if (!SHUFFLES.some(([n]) => n === d.name)) expect(d.typed, d.name).toBeUndefined();
  });

  const KERNEL16 = (h: string) =>
    [
      `#include "${h}"`,
      `extern "C" __attribute__((global)) void sixteen(__half *h, __half2 *h2, __hip_bfloat16 *b, __hip_bfloat162 *b2, int w) {`,
      ...SIXTEEN.flatMap((t, k) => {
        const p = ["h", "h2", "b", "b2"][k]!;
        return SHUFFLES.map(([name, , lane], j) => `  ${p}[${j}] = ${name}(0xffffffffu, ${p}[${j + 4}], ${lane}${["", ", 16", ", w", ", 1"][j]!});`);
      }),
      "}",
      "",
    ].join("\n");

  it.skipIf(!CLANG || !HIP_HEADERS)(
    `a unit including two port headers (one of them twice) and calling every 16-bit overload and every other drop-in compiles and assembles for ${MCPUS.join(", ")} under -Wall -Wextra -Werror (bfloat16 against the stub of <hip/hip_bf16.h>)${skipped("clang-19, llvm-mc-19 or /usr/include/hip", CLANG && HIP_HEADERS)}`,
    async () => {
      const h = write("warp16.hip.h", await header({ "warp.ptx": warpIntrinsicsPtx() }, { warpSize: true }));
      const c = write("warp16_c.hip.h", await header({ "szext.ptx": CASE("szext"), "match.ptx": CASE("match"), "warp.ptx": CASE("warp") }, { warpSize: true }));
      const k = write("sixteen.hip", `#include "${c}"\n${KERNEL16(h)}#include "${h}"\n${KERNEL_ALL}`);
      for (const mcpu of MCPUS) {
        const r = hip(mcpu, k, WITH_HIP);
        expect(r.status, `${mcpu}: ${r.stderr}`).toBe(0);
        expect(r.stderr, mcpu).toBe("");
        // 16 shuffles in the kernel of 16-bit ones, each one ds_bpermute (the 32-bit shuffle).
        const asm = readFileSync(join(DIR, `${k}.${mcpu}.s`), "utf8");
        const at = asm.indexOf("\nsixteen:");
        expect(at, mcpu).toBeGreaterThan(0);
        expect(asm.slice(at, asm.indexOf(".Lfunc_end", at)).match(/\bds_bpermute_b32\b/g)?.length, mcpu).toBe(16);
      }
      // HIP 5.2 has no <hip/hip_bf16.h>: without the stub the header still compiles, with __half only.
      const half = write("half_only.hip", `#include "${h}"\nextern "C" __attribute__((global)) void k(__half *h, __half2 *h2) { h[0] = ptxl_shfl_xor_sync(0xffffffffu, h[1], 1); h2[0] = ptxl_shfl_down_sync(0xffffffffu, h2[1], 1u); }\n`);
      const r = hip("gfx942", half, ["-include", "hip/hip_runtime.h", ...WERROR]);
      expect(r.status, r.stderr).toBe(0);
      // The stub is ROCm's shape: __hip_bfloat162 is not trivially copyable, so a bit cast of it fails (the drop-ins copy bytes).
      const cast = write("cast.hip", `#include <hip/hip_bf16.h>\n__attribute__((device)) unsigned f(__hip_bfloat162 v) { return __builtin_bit_cast(unsigned, v); }\n`);
      const bad = hip("gfx942", cast, ["-I", BF16_STUB_DIR]);
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toMatch(/trivially.copyable/);
    },
    240_000,
  );

  /**
   * A 16-bit drop-in call, compiled and run in the AMDGPU interpreter against the reference of
   * the 32-bit PTX shuffle CUDA's header makes of it (as test/dropins.test.ts does for the
   * other types): a `__half2` is the 32-bit value; two `__half` shuffles move the two halves of
   * the 32-bit value (so each lane's result is the source lane's bits, both halves). The
   * refuted row keeps the own upper half: the check compares bits across lanes.
   */
  const B16 = (t: string) => `__builtin_bit_cast(uint16_t, ${t})`;
  const H = (x: string) => `__builtin_bit_cast(__half, (uint16_t)(${x}))`;
  const BF = (x: string) => `ptxl_chk_bf16_((uint16_t)(${x}))`;
  const shflForm = (mode: "idx" | "up" | "down" | "bfly"): Form => ({ op: "shfl", sync: true, mode, type: "b32", dest: "d" });
  const regs = (c: bigint): Partial<Record<SourceName, OperandKind>> => ({ a: { kind: "v" }, b: { kind: "v" }, c: { kind: "imm", value: c }, membermask: { kind: "v" } });
  const MEANING: { call: string; form: Form; c: bigint; refuted?: true }[] = [
    { call: `(uint32_t)${B16(`ptxl_shfl_xor_sync(membermask, ${H("a")}, (int)b, 16)`)} | ((uint32_t)${B16(`ptxl_shfl_xor_sync(membermask, ${H("a >> 16")}, (int)b, 16)`)} << 16)`, form: shflForm("bfly"), c: 0x101fn },
    { call: `(uint32_t)${B16(`ptxl_shfl_sync(membermask, ${H("a")}, (int)b)`)} | ((uint32_t)${B16(`ptxl_shfl_sync(membermask, ${H("a >> 16")}, (int)b)`)} << 16)`, form: shflForm("idx"), c: 0x1fn },
    { call: `(uint32_t)${B16(`ptxl_shfl_sync(membermask, ${H("a")}, (int)b)`)} | (a & 0xffff0000u)`, form: shflForm("idx"), c: 0x1fn, refuted: true },
    { call: `__builtin_bit_cast(uint32_t, ptxl_shfl_down_sync(membermask, __builtin_bit_cast(__half2, a), b, 8))`, form: shflForm("down"), c: 0x181fn },
    { call: `__builtin_bit_cast(uint32_t, ptxl_shfl_up_sync(membermask, __builtin_bit_cast(__half2, a), b))`, form: shflForm("up"), c: 0n },
    { call: `(uint32_t)ptxl_chk_bf16_bits_(ptxl_shfl_up_sync(membermask, ${BF("a")}, b, 4)) | ((uint32_t)ptxl_chk_bf16_bits_(ptxl_shfl_up_sync(membermask, ${BF("a >> 16")}, b, 4)) << 16)`, form: shflForm("up"), c: 0x1c00n },
    { call: `ptxl_chk_bf162_bits_(ptxl_shfl_xor_sync(membermask, ptxl_chk_bf162_(a), (int)b))`, form: shflForm("bfly"), c: 0x1fn },
  ];
  const BF_HELPERS = `static __attribute__((device)) inline __hip_bfloat16 ptxl_chk_bf16_(uint16_t x) { __hip_bfloat16 r; __builtin_memcpy((void *)&r, &x, 2); return r; }
static __attribute__((device)) inline uint16_t ptxl_chk_bf16_bits_(__hip_bfloat16 v) { uint16_t x; __builtin_memcpy(&x, (const void *)&v, 2); return x; }
static __attribute__((device)) inline __hip_bfloat162 ptxl_chk_bf162_(uint32_t x) { __hip_bfloat162 r; __builtin_memcpy((void *)&r, &x, 4); return r; }
static __attribute__((device)) inline uint32_t ptxl_chk_bf162_bits_(__hip_bfloat162 v) { uint32_t x; __builtin_memcpy(&x, (const void *)&v, 4); return x; }`;

  it.skipIf(!CLANG || !HIP_HEADERS)(
    `move each lane's bits as the 32-bit PTX shuffle does: ${MEANING.filter((m) => !m.refuted).length} calls (and one refuted control) run in the interpreter on gfx900 (wave64, two warps per wave) and gfx1100${skipped("clang-19 or /usr/include/hip", CLANG && HIP_HEADERS)}`,
    async () => {
      const text = await header({ "warp.ptx": warpIntrinsicsPtx() });
      for (const mcpu of ["gfx900", "gfx1100"] as Mcpu[]) {
        const fns: Omit<CompiledFunction, "lines">[] = [];
        const params: SourceName[] = ["a", "b", "membermask"];
        const wrappers = MEANING.map((m, i) => {
          const fn: CallableFn = { name: `dropin16_${i}`, alias: false, spec: { form: m.form, kinds: regs(m.c), guarded: false }, params: params.map((name) => ({ name, width: 32 })), writes: formWrites(m.form), serves: [] };
          const symbol = `ptxl_chk_dropin16_${i}`;
          fns.push({ fn, variant: "vgpr", symbol, args: params.map((name) => ({ name, width: 32 })), dReg: 0 });
          return `extern "C" __attribute__((device, used, noinline)) uint64_t ${symbol}(uint32_t a, uint32_t b, uint32_t membermask) {\n  return (uint64_t)(uint32_t)(${m.call});\n}`;
        });
        // clangArgs with HIP's headers in (hip_runtime.h, the bf16 stub) instead of -nogpuinc.
        const args = [...clangArgs(mcpu).filter((a) => a !== "-nogpuinc"), "-include", "hip/hip_runtime.h", "-I", BF16_STUB_DIR];
        const asm = await runTool("clang-19", args, `${text}\n${BF_HELPERS}\n${wrappers.join("\n")}\n`);
        const rows = checkCompiled("hip", mcpu, { asm, functions: extract(asm, fns, `clang:${mcpu}`, TARGETS[mcpu].gen) }, [], { warps: 200, seed: 34 });
        expect(rows.length).toBe(MEANING.length);
        for (const [i, row] of rows.entries()) {
          const v = row.verdict;
          const what = `${mcpu} ${MEANING[i]!.call}`;
          if (MEANING[i]!.refuted) {
            expect(v.status, what).toBe("refuted");
            continue;
          }
          expect(v.status, `${what}: ${v.status === "refuted" ? v.counterexample : v.status === "tested" ? "" : v.why}`).toBe("tested");
          expect(row.parts.vgpr, what).toBe(200);
          if (TARGETS[mcpu].wave === 64) expect(row.parts["vgpr/two-warps"], what).toBe(200);
        }
      }
    },
    240_000,
  );
});

describe("a constant width that is not a power of two <= 32 does not compile", () => {
  it("every drop-in overload with a width parameter carries the diagnose_if, naming the drop-in and CUDA's intrinsic", () => {
    let withWidth = 0;
    for (const d of DROP_INS)
      for (const o of dropInOverloads(d)) {
        if (!/\bint width\b/.test(o)) {
          expect(o, d.name).not.toContain("diagnose_if");
          continue;
        }
        withWidth++;
        expect(o, d.name).toContain(`__attribute__((diagnose_if(width <= 0 || width > 32 || (width & (width - 1)) != 0, "${d.name} (CUDA's ${d.cuda}): width must be a power of two from 1 to 32`);
      }
    // 4 shuffles x (3 32-bit + 5 64-bit + 4 16-bit types).
    expect(withWidth).toBe(4 * 12);
  });

  const BAD = [64, 0, 12, -1, 33];
  const REDUCE = `template <int width> __attribute__((device)) float warp_reduce_sum(float x) {
  for (int offset = width / 2; offset > 0; offset >>= 1) x += ptxl_shfl_xor_sync(0xffffffff, x, offset, width);
  return x;
}`;

  it.skipIf(!CLANG)(
    `a ported warp_reduce_sum<64>, and each shuffle given width ${BAD.join(", ")}, fail naming the call; width 32, 16, 1, a run-time width and the default compile${skipped("clang-19", CLANG)}`,
    async () => {
      const h = write("width.hip.h", await header({ "warp.ptx": warpIntrinsicsPtx() }));
      const good = write(
        "width_good.hip",
        [
          `#include "${h}"`,
          REDUCE,
          `extern "C" __attribute__((global)) void k(float *f, int *o, double *d, int w) {`,
          "  f[0] = warp_reduce_sum<32>(f[1]) + warp_reduce_sum<16>(f[2]) + warp_reduce_sum<1>(f[3]);",
          ...SHUFFLES.map(([name, , lane]) => `  o[0] += ${name}(0xffffffffu, o[1], ${lane}, 32) + ${name}(0xffffffffu, o[1], ${lane}, 16) + ${name}(0xffffffffu, o[1], ${lane}, 1) + ${name}(0xffffffffu, o[1], ${lane}, w) + ${name}(0xffffffffu, o[1], ${lane});`),
          ...SHUFFLES.map(([name, , lane]) => `  d[0] += ${name}(0xffffffffu, d[1], ${lane}, 8);`),
          "}",
          "",
        ].join("\n"),
      );
      const ok = hip("gfx942", good, ["-nogpuinc", ...WERROR]);
      expect(ok.status, ok.stderr).toBe(0);
      expect(ok.stderr).toBe("");
      // warp_reduce_sum<64>: ggml's HIP path, ported.
      const reduce = write("width_64.hip", `#include "${h}"\n${REDUCE}\nextern "C" __attribute__((global)) void k(float *f) { f[0] = warp_reduce_sum<64>(f[1]); }\n`);
      const r64 = hip("gfx942", reduce, ["-nogpuinc"]);
      expect(r64.status).not.toBe(0);
      expect(r64.stderr).toMatch(/error: ptxl_shfl_xor_sync \(CUDA's __shfl_xor_sync\): width must be a power of two from 1 to 32/);
      expect(r64.stderr).toMatch(/in instantiation of function template specialization 'warp_reduce_sum<64>'/);
      for (const [name, cuda, lane] of SHUFFLES) {
        const lines = BAD.map((w) => `  o[0] += ${name}(0xffffffffu, o[1], ${lane}, ${w});`);
        const f = write(`width_bad_${name}.hip`, [`#include "${h}"`, `extern "C" __attribute__((global)) void k(int *o, double *d) {`, ...lines, `  d[0] = ${name}(0xffffffffu, d[1], ${lane}, 64);`, "}", ""].join("\n"));
        const r = hip("gfx942", f, ["-nogpuinc"]);
        expect(r.status, name).not.toBe(0);
        const errors = r.stderr.split("\n").filter((l) => /: error: /.test(l));
        // One error per bad call, at its line, naming the drop-in and CUDA's intrinsic.
        expect(errors.length, r.stderr).toBe(BAD.length + 1);
        for (const [i, e] of errors.entries()) {
          expect(e).toContain(`${f}:${i + 3}:`);
          expect(e).toContain(`error: ${name} (CUDA's ${cuda}): width must be a power of two from 1 to 32`);
        }
      }
    },
    240_000,
  );
});

describe("any number of headers in one translation unit: no diagnostic under -Wall -Wextra -Werror", () => {
  const MODULES = {
    a: { "szext.ptx": CASE("szext") },
    b: { "szext.ptx": CASE("szext"), "video.ptx": CASE("video") },
    c: { "szext.ptx": CASE("szext"), "match.ptx": CASE("match"), "warp.ptx": CASE("warp") },
  };
  const guards = (text: string) => new Set([...text.matchAll(/^#ifndef (PTX_LOWER_HIP_\w+)$/gm)].map((m) => m[1]!));

  it.skipIf(!CLANG)(
    `two and three headers sharing functions, and the same header twice, for ${MCPUS.join(", ")}${skipped("clang-19", CLANG)}`,
    async () => {
      const texts = { a: await header(MODULES.a), b: await header(MODULES.b), c: await header(MODULES.c, { warpSize: true }) };
      // They share functions (szext's), and the helpers.
      const shared = [...guards(texts.a)].filter((g) => guards(texts.b).has(g) && guards(texts.c).has(g));
      expect(shared).toContain("PTX_LOWER_HIP_szext_clamp_s32__v_v");
      expect(shared).toContain("PTX_LOWER_HIP_HELPER_pl_ashr32");
      for (const [k, t] of Object.entries(texts)) write(`multi_${k}.hip.h`, t);
      const call = `extern "C" __attribute__((global)) void k(unsigned *o) { o[0] = szext_clamp_s32__v_v(o[1], o[2]); }\n`;
      const units = { ab: ["a", "b"], ba: ["b", "a"], abc: ["a", "b", "c"], cba: ["c", "b", "a"], aa: ["a", "a"], cc: ["c", "c"], abca: ["a", "b", "c", "a"] };
      for (const [u, hs] of Object.entries(units)) {
        const f = write(`multi_${u}.hip`, hs.map((h) => `#include "multi_${h}.hip.h"\n`).join("") + call);
        for (const mcpu of u === "abca" ? MCPUS : (["gfx942"] as const)) {
          const r = hip(mcpu, f, ["-nogpuinc", ...WERROR]);
          expect(r.status, `${u} ${mcpu}: ${r.stderr}`).toBe(0);
          expect(r.stderr, `${u} ${mcpu}`).toBe("");
        }
      }
      // The headers hold no pragma region (each function carries its own device attribute).
      for (const t of Object.values(texts)) expect(t).not.toMatch(/#pragma clang attribute/);
    },
    240_000,
  );

  // With HIP's headers, the 16-bit drop-ins and every other one: "a unit including two port headers …" above.
});

describe("ptxl_warpSize", () => {
  it("defined as 32, under its own include guard, only where warpSize is asked for", async () => {
    const mod = { "szext.ptx": CASE("szext") };
    const on = await header(mod, { warpSize: true });
    expect(on).toMatch(/#ifndef PTX_LOWER_HIP_warpSize\n#define PTX_LOWER_HIP_warpSize\n#define ptxl_warpSize 32\n#endif/);
    expect(on).toMatch(/two per\s+wave64/);
    expect(await header(mod)).not.toContain("ptxl_warpSize");
    expect(await header(mod, { warpSize: false })).not.toContain("ptxl_warpSize");
    // Also with no function at all (a file whose only rewrite is warpSize).
    expect(await header({}, { warpSize: true })).toContain("#define ptxl_warpSize 32");
    expect(await header({}, { warpSize: true, language: "opencl" })).toContain("#define ptxl_warpSize 32");
  });

  it.skipIf(!CLANG)(`a constant expression: array bound, template argument, static_assert, #if; two headers define it once${skipped("clang-19", CLANG)}`, async () => {
    const a = write("ws_a.hip.h", await header({ "szext.ptx": CASE("szext") }, { warpSize: true }));
    const b = write("ws_b.hip.h", await header({ "match.ptx": CASE("match") }, { warpSize: true }));
    const f = write(
      "ws.hip",
      `#include "${a}"\n#include "${b}"\ntemplate <int N> struct lanes { int v[N]; };\nstatic_assert(ptxl_warpSize == 32, "CUDA's warp");\n#if ptxl_warpSize != 32\n#error no\n#endif\nextern "C" __attribute__((global)) void k(int *o) {\n  int a[ptxl_warpSize];\n  lanes<ptxl_warpSize> l;\n  a[o[0] % ptxl_warpSize] = 1;\n  l.v[o[1] % ptxl_warpSize] = 2;\n  o[2] = a[o[3] % 32] + l.v[o[4] % 32];\n}\n`,
    );
    const r = hip("gfx942", f, ["-nogpuinc", ...WERROR]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    // Without warpSize: true, ptxl_warpSize is not defined, and the same unit does not compile.
    write("ws_a.hip.h", await header({ "szext.ptx": CASE("szext") }));
    write("ws_b.hip.h", await header({ "match.ptx": CASE("match") }));
    expect(hip("gfx942", f, ["-nogpuinc"]).stderr).toMatch(/ptxl_warpSize/);
  });
});

describe("the OpenCL C dialect (language: opencl)", () => {
  /** szext and vshl (test/cases), and activemask, match.any.sync and shfl.sync with every operand a register or an immediate. */
  const OPENCL_MODULE = {
    "szext.ptx": CASE("szext"),
    "video.ptx": CASE("video"),
    "warp_forms.ptx": `.version 9.0
.target sm_90
.address_size 64
.visible .func (.reg .b32 d) warp_forms(.reg .b32 a, .reg .b32 b, .reg .b32 m, .reg .b64 x)
{
	.reg .pred %p<3>;
	.reg .b32 %r<9>;
	activemask.b32 %r1;
	match.any.sync.b32 %r2, a, m;
	match.any.sync.b64 %r3, x, 0xffffffff;
	match.all.sync.b32 %r4|%p1, a, m;
	shfl.sync.idx.b32 %r5|%p2, a, b, 0x1f, m;
	shfl.sync.bfly.b32 %r6, a, 1, 0x101f, 0xffffffff;
	shfl.sync.up.b32 %r7, a, b, 0, m;
	shfl.sync.down.b32 %r8|%p1, a, 2, 0x1f, m;
	ret;
}
`,
  };

  it("no include, no device attribute, no pragma, no C++, no <stdint.h> name, no drop-in; dropInsFor says which drop-ins a language has", async () => {
    const cl = await header({ ...OPENCL_MODULE, "warp.ptx": warpIntrinsicsPtx() }, { language: "opencl", warpSize: true });
    expect(cl).not.toMatch(/#include|__device__|__attribute__\(\(device|#pragma|__builtin_bit_cast|\btemplate\b|__cplusplus|\bu?int(16|32|64)_t\b|UINT64_|stdint|stdbool/);
    // The same module in CUDA has the drop-ins; OpenCL C has none of them.
    const cuda = await header({ ...OPENCL_MODULE, "warp.ptx": warpIntrinsicsPtx() }, { warpSize: true });
    for (const d of DROP_INS) {
      expect(cuda, d.name).toContain(`PTX_LOWER_HIP_DROPIN_${d.name}`);
      expect(cl, d.name).not.toContain(`${d.name}(`);
    }
    expect(dropInsFor("cuda")).toBe(DROP_INS);
    expect(dropInsFor("opencl")).toEqual([]);
    // Every function of the CUDA header is in the OpenCL one, under the same guard.
    const fnGuards = (t: string) => [...t.matchAll(/^#ifndef (PTX_LOWER_HIP_(?!DROPIN_)\w+)$/gm)].map((m) => m[1]).sort();
    expect(fnGuards(cl)).toEqual(fnGuards(cuda));
    expect(cl).toContain("static inline uint ptxl_shfl_sync_idx_b32_dp(uint a, uint b, uint c, uint membermask, bool *p) {");
  });

  it.skipIf(!CLANG)(
    `a header of szext, vshl, activemask, match.sync, shfl.sync (and every other warp form) and a kernel calling them compile as OpenCL C 2.0 and assemble for ${MCPUS.join(", ")} under -Wall -Wextra -Werror${skipped("clang-19 or llvm-mc-19", CLANG)}`,
    async () => {
      const h = write("cl_forms.h", await header(OPENCL_MODULE, { language: "opencl", warpSize: true }));
      const all = write("cl_all.h", await header({ ...OPENCL_MODULE, "warp.ptx": warpIntrinsicsPtx() }, { language: "opencl", warpSize: true }));
      const k = write(
        "k.cl",
        `#include "${h}"
#include "${all}"
#include "${h}"
kernel void k(global uint *o, global ulong *q) {
  const uint a = o[get_global_id(0)], b = o[1], m = ptxl_activemask_b32();
  bool p;
  o[0] = szext_clamp_s32__v_v(a, b) + ptxl_szext_wrap_u32(a, b);
  o[1] = ptxl_vshl_u32_u32_clamp(a, b);
  o[2] = ptxl_match_any_sync_b32(a, m) + ptxl_match_any_sync_b64(q[0], m);
  o[3] = ptxl_shfl_sync_idx_b32_dp(a, b, 0x1f, m, &p) + p;
  o[4] = ptxl_shfl_sync_bfly_b32_dp(a, 1, 0x101f, m, &p);
  o[5] = ptxl_vote_sync_ballot_b32(a != 0, m) + ptxl_vote_sync_all_pred(p, m) + ptxl_redux_sync_add_u32(a, m) + ptxl_redux_sync_min_s32(a, m);
  ptxl_bar_warp_sync(m);
  o[6] = ptxl_warpSize + ptxl_match_all_sync_b32_dp(a, m, &p);
}
`,
      );
      for (const mcpu of MCPUS) {
        const r = opencl(mcpu, k);
        expect(r.status, `${mcpu}: ${r.stderr}`).toBe(0);
        expect(r.stderr, mcpu).toBe("");
        expect(readFileSync(join(DIR, `${k}.${mcpu}.s`), "utf8")).toMatch(/ds_bpermute_b32/);
      }
    },
    240_000,
  );

  it.skipIf(!CLANG)(
    `mean what PTX means: every function of that module (szext, vshl/vshr, activemask, match.sync, shfl.sync), compiled as OpenCL C and run in the interpreter against the reference on gfx900 (wave64, two warps per wave) and gfx1100, both argument layouts${skipped("clang-19", CLANG)}`,
    async () => {
      const routines = Object.entries(OPENCL_MODULE).flatMap(([file, text]) => collectRoutines(parseModule(text, file)));
      const text = await header(OPENCL_MODULE, { language: "opencl" });
      const fns = callableFunctions(routines);
      // compile.ts's wrappers (a HIP device function each) as OpenCL C functions: no extern "C", no device attribute, OpenCL's types.
      const wrappers = fns.map((f) => hipWrappers(f));
      const clWrappers = wrappers.map((w) => openclTypes(w.text.replaceAll('extern "C" __attribute__((device, used, noinline))', "__attribute__((used, noinline))")));
      expect(clWrappers.join("\n")).not.toMatch(/extern|device/);
      for (const mcpu of ["gfx900", "gfx1100"] as Mcpu[]) {
        const args = ["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", `-mcpu=${mcpu}`, "-nogpulib", "-O2", ...clangArgs(mcpu).filter((a, i, all) => a === "-mllvm" || all[i - 1] === "-mllvm"), "-S", "-o", "-", "-"];
        const asm = await runTool("clang-19", args, `${text}\n${clWrappers.join("\n")}\n`);
        const rows = checkCompiled("hip", mcpu, { asm, functions: extract(asm, wrappers.flatMap((w) => w.fns), `clang-cl:${mcpu}`, TARGETS[mcpu].gen) }, [], { warps: 64, seed: 34, profile: "sm90" });
        expect(rows.length).toBe(fns.length);
        for (const row of rows) {
          const v = row.verdict;
          expect(v.status, `${mcpu} ${row.fn}: ${v.status === "refuted" ? v.counterexample : v.status === "tested" ? "" : v.why}`).toBe("tested");
        }
      }
    },
    400_000,
  );
});
