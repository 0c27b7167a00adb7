/**
 * The HIP header's CUDA-signature drop-ins (targets/hip/dropins.ts) and the port's use of
 * them: a CUDA kernel calling every warp intrinsic of src/port/intrinsics.ts, ported with the
 * real header (bin/port.ts `hipHeader`), compiles for every processor against a stub of ROCm
 * ≥ 6.2's global `__shfl_sync` & co. (test/port/rocm_warp_sync_stub.h), with and without
 * `HIP_DISABLE_WARP_SYNC_BUILTINS`, and against Debian's HIP 5.2 `hip_runtime.h`; the stub
 * really rejects CUDA's spelling (a 32-bit mask), so a drop-in under CUDA's name would not go
 * unnoticed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CUDA_WARP_INTRINSICS } from "../src/port/intrinsics.js";
import { portSource } from "../src/port/rewrite.js";
import { scanSource } from "../src/port/scan.js";
import { hipHeader, portBanner } from "../bin/port.js";
import { DROP_INS, dropInNeeds, printDropIns, widthCheck } from "../targets/hip/dropins.js";
import { runTool } from "../src/tools.js";
import type { Form } from "../src/ir/forms.js";
import { formWrites } from "../src/ir/forms.js";
import type { OperandKind, SourceName } from "../src/ir/ir.js";
import type { CallableFn } from "../targets/llvm/callable.js";
import type { CompiledFunction } from "../targets/llvm/compiled.js";
import { checkCompiled } from "../targets/llvm/compiled.js";
import { clangArgs, extract } from "../targets/hip/compile.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import { TARGETS } from "../targets/amdgpu/regs.js";

const ROOT = join(import.meta.dirname, "..");
const STUB = join(ROOT, "test", "port", "rocm_warp_sync_stub.h");
const CLANG = spawnSync("clang-19", ["--version"]).status === 0;
const HIP_HEADERS = existsSync("/usr/include/hip/hip_runtime.h");
const MCPUS = ["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100"];

/** Every intrinsic of the table, with CUDA's argument types (CUDA 13.0 sm_30_intrinsics.h, crt/sm_70_rt.h, crt/sm_80_rt.h). */
const KERNEL = `// every CUDA warp intrinsic ptx-lower port rewrites
extern "C" __attribute__((global)) void all_intrinsics(int *o, unsigned *u, long long *q, double *r, float *f, unsigned long *l) {
  unsigned m = __activemask();
  o[0] = __shfl_sync(m, o[1], 3);
  u[0] = __shfl_up_sync(m, u[1], 1u, 16);
  q[0] = __shfl_down_sync(m, q[1], 2u);
  r[0] = __shfl_xor_sync(m, r[1], 1);
  f[0] = __shfl_sync(m, f[1], 0, 8);
  l[0] = __shfl_down_sync(0xffffu, l[1], 4u, 16);
  o[2] = __all_sync(m, o[3]) + __any_sync(m, o[3]) + __uni_sync(m, o[3]);
  u[2] = __ballot_sync(m, o[4]);
  o[3] = __reduce_add_sync(m, o[5]) + __reduce_min_sync(m, o[5]) + __reduce_max_sync(m, o[5]);
  u[3] = __reduce_add_sync(m, u[5]) + __reduce_min_sync(m, u[5]) + __reduce_max_sync(m, u[5]);
  u[4] = __reduce_and_sync(m, u[5]) ^ __reduce_or_sync(m, u[6]) ^ __reduce_xor_sync(m, u[7]);
  int p;
  u[6] = __match_any_sync(m, q[2]) + __match_any_sync(m, f[2]) + __match_all_sync(m, r[2], &p) + __match_all_sync(m, u[8], &p) + p;
  __syncwarp();
  __syncwarp(m);
}
`;

const ported = async () => {
  const r = await portSource(KERNEL, "all.cu", { header: (mod) => hipHeader(mod, portBanner("all.cu", "sm90")), headerName: "all.hip.h" });
  const dir = mkdtempSync(join(tmpdir(), "ptx-lower-dropins-"));
  writeFileSync(join(dir, "all.hip"), r.text);
  writeFileSync(join(dir, "all.hip.h"), r.header!);
  return { r, dir };
};

const clang = (dir: string, mcpu: string, args: string[], file: string) =>
  spawnSync("clang-19", ["-x", "hip", "--cuda-device-only", `--offload-arch=${mcpu}`, "-nogpulib", "-O2", ...args, "-S", file, "-o", "-"], { cwd: dir, encoding: "utf8" });

describe("CUDA-signature drop-ins", () => {
  it("every rewritten intrinsic of the table has its drop-in, named as the table says, and each drop-in calls only ptxl_<formId> aliases", () => {
    const names = new Set(DROP_INS.map((d) => d.name));
    // The legacy intrinsics (no _sync) are the table's only ones left: HIP has its own, 64-lane ones.
    const rewritten = [...CUDA_WARP_INTRINSICS.values()].filter((i) => i.status === "rewrite");
    expect([...CUDA_WARP_INTRINSICS.values()].filter((i) => i.status === "left").map((i) => i.name)).toEqual(["__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__ballot", "__any", "__all"]);
    for (const i of rewritten) if (i.status === "rewrite") expect(names.has(i.to), i.name).toBe(true);
    expect(DROP_INS.length).toBe(rewritten.length);
    for (const d of DROP_INS) for (const n of dropInNeeds(d)) expect(n, d.name).toMatch(/^ptxl_(shfl_sync|vote_sync|redux_sync|activemask|match_(any|all)_sync|bar_warp)_[a-z0-9_]+$/);
    // Whole or not at all: one alias missing, no drop-in.
    const all = new Set(DROP_INS.flatMap(dropInNeeds));
    expect(printDropIns(all)).toContain("ptxl_match_any_sync(unsigned mask, double value)");
    const noB64 = new Set([...all].filter((n) => n !== "ptxl_match_any_sync_b64"));
    expect(printDropIns(noB64)).not.toContain("ptxl_match_any_sync(");
    expect(printDropIns(new Set())).toBe("");
  });

  it("CUDA's c for width (sm_30_intrinsics.hpp: ((32-width)<<8)|0x1f, up (32-width)<<8) and width 32 by default, CUDA's 32-bit unsigned masks", () => {
    const text = printDropIns(new Set(DROP_INS.flatMap(dropInNeeds)));
    expect(text).toContain(`static __attribute__((device)) inline int ptxl_shfl_sync(unsigned mask, int var, int srcLane, int width = 32)${widthCheck("ptxl_shfl_sync", "__shfl_sync")} {\n  bool p;\n  return (int)ptxl_shfl_sync_idx_b32_dp((uint32_t)var, (uint32_t)srcLane, ((32u - (uint32_t)width) << 8) | 0x1fu, mask, &p);\n}`);
    expect(text).toContain("ptxl_shfl_up_sync(unsigned mask, int var, unsigned int delta, int width = 32)" + widthCheck("ptxl_shfl_up_sync", "__shfl_up_sync") + " {\n  bool p;\n  return (int)ptxl_shfl_sync_up_b32_dp((uint32_t)var, (uint32_t)delta, ((32u - (uint32_t)width) << 8), mask, &p);");
    expect(text).toContain("ptxl_shfl_xor_sync(unsigned mask, int var, int laneMask, int width = 32)");
    // No using-directive, no CUDA name defined or declared.
    expect(text).not.toMatch(/\busing\b/);
    const idents = new Set(scanSource(text, "dropins.h").tokens.filter((t) => t.kind === "ident").map((t) => t.text));
    for (const n of CUDA_WARP_INTRINSICS.keys()) expect(idents.has(n), n).toBe(false);
  });

  it.skipIf(!CLANG)(
    `a port of every intrinsic compiles for ${MCPUS.join(", ")} against a stub of ROCm >= 6.2's declarations, with and without HIP_DISABLE_WARP_SYNC_BUILTINS${CLANG ? "" : " (skipped: clang-19 missing)"}`,
    async () => {
      const { r, dir } = await ported();
      expect(r.intrinsics.filter((c) => c.status === "rewritten").length).toBe(26);
      // The header declares none of CUDA's names (ROCm's templates stay the only ones).
      const idents = new Set(scanSource(r.header!, "all.hip.h").tokens.filter((t) => t.kind === "ident").map((t) => t.text));
      for (const n of CUDA_WARP_INTRINSICS.keys()) expect(idents.has(n), n).toBe(false);
      for (const mcpu of MCPUS)
        for (const def of [[], ["-DHIP_DISABLE_WARP_SYNC_BUILTINS"]]) {
          const cc = clang(dir, mcpu, ["-nogpuinc", ...def, "-include", STUB], "all.hip");
          expect(cc.status, `${mcpu} ${def.join(" ")}: ${cc.stderr}`).toBe(0);
          expect(cc.stdout).toMatch(/all_intrinsics:/);
          expect(cc.stderr).not.toMatch(/warning/);
        }
      // The stub bites: CUDA's spelling (a 32-bit mask) is rejected by it, as by ROCm >= 6.2.
      writeFileSync(join(dir, "cuda.hip"), 'extern "C" __attribute__((global)) void k(int *o) { o[0] = __shfl_sync(0xffffffffu, o[1], 0); }\n');
      const bad = clang(dir, "gfx942", ["-nogpuinc", "-include", STUB], "cuda.hip");
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toMatch(/The mask must be a 64-bit integer \(stub of ROCm >= 6\.2\)/);
    },
    240_000,
  );

  it.skipIf(!CLANG || !HIP_HEADERS)(
    `… and with Debian's HIP 5.2 hip_runtime.h (which has none of them)${CLANG && HIP_HEADERS ? "" : " (skipped: clang-19 or /usr/include/hip/hip_runtime.h missing)"}`,
    async () => {
      const { dir } = await ported();
      for (const mcpu of ["gfx900", "gfx1100"]) {
        const cc = clang(dir, mcpu, ["-include", "hip/hip_runtime.h"], "all.hip");
        expect(cc.status, `${mcpu}: ${cc.stderr}`).toBe(0);
      }
      expect(readFileSync(join(dir, "all.hip"), "utf8")).toContain("#define ptxl_activemask __activemask");
    },
    120_000,
  );

  /**
   * A drop-in call, compiled and run in the AMDGPU interpreter against the reference of the
   * PTX instruction CUDA's header makes of it (src/check/verify.ts `expectedWarp`, the
   * targets/llvm/compiled.ts machinery; arguments in VGPRs; on wave64 also two CUDA warps per
   * wave). `c` is the note's table (warp-semantics.md §2, from CUDA's header and nvcc's output),
   * not the drop-in's formula.
   */
  const MEANING: { call: string; form: Form; kinds: Partial<Record<SourceName, OperandKind>>; params: SourceName[]; refuted?: true }[] = [
    // The check bites: width 32 (c = 0x1f) is not what the reference of c = 0x101f (width 16) computes.
    { call: "ptxl_shfl_down_sync(membermask, a, b)", form: { op: "shfl", sync: true, mode: "down", type: "b32", dest: "d" }, kinds: { a: { kind: "v" }, b: { kind: "v" }, c: { kind: "imm", value: 0x101fn }, membermask: { kind: "v" } }, params: ["a", "b", "membermask"], refuted: true },
    { call: "ptxl_shfl_down_sync(membermask, a, b, 16)", form: { op: "shfl", sync: true, mode: "down", type: "b32", dest: "d" }, kinds: { a: { kind: "v" }, b: { kind: "v" }, c: { kind: "imm", value: 0x101fn }, membermask: { kind: "v" } }, params: ["a", "b", "membermask"] },
    { call: "ptxl_shfl_sync(membermask, a, (int)b)", form: { op: "shfl", sync: true, mode: "idx", type: "b32", dest: "d" }, kinds: { a: { kind: "v" }, b: { kind: "s" }, c: { kind: "imm", value: 0x1fn }, membermask: { kind: "s" } }, params: ["a", "b", "membermask"] },
    { call: "ptxl_shfl_up_sync(membermask, a, b, 8)", form: { op: "shfl", sync: true, mode: "up", type: "b32", dest: "d" }, kinds: { a: { kind: "v" }, b: { kind: "v" }, c: { kind: "imm", value: 0x1800n }, membermask: { kind: "v" } }, params: ["a", "b", "membermask"] },
    { call: "ptxl_shfl_xor_sync(membermask, a, (int)b, 4)", form: { op: "shfl", sync: true, mode: "bfly", type: "b32", dest: "d" }, kinds: { a: { kind: "v" }, b: { kind: "v" }, c: { kind: "imm", value: 0x1c1fn }, membermask: { kind: "v" } }, params: ["a", "b", "membermask"] },
    // 64-bit values as two 32-bit shuffles (each half moves as a would), float through its bits.
    { call: "(uint32_t)((unsigned long long)ptxl_shfl_sync(membermask, (long long)(((unsigned long long)a << 32) | 0x5a5a5a5au), (int)b, 8) >> 32)", form: { op: "shfl", sync: true, mode: "idx", type: "b32", dest: "d" }, kinds: { a: { kind: "v" }, b: { kind: "v" }, c: { kind: "imm", value: 0x181fn }, membermask: { kind: "v" } }, params: ["a", "b", "membermask"] },
    { call: "(uint32_t)ptxl_shfl_up_sync(membermask, (unsigned long long)a | ((unsigned long long)~a << 32), b)", form: { op: "shfl", sync: true, mode: "up", type: "b32", dest: "d" }, kinds: { a: { kind: "v" }, b: { kind: "v" }, c: { kind: "imm", value: 0n }, membermask: { kind: "v" } }, params: ["a", "b", "membermask"] },
    { call: "__builtin_bit_cast(uint32_t, ptxl_shfl_xor_sync(membermask, __builtin_bit_cast(float, a), (int)b))", form: { op: "shfl", sync: true, mode: "bfly", type: "b32", dest: "d" }, kinds: { a: { kind: "v" }, b: { kind: "v" }, c: { kind: "imm", value: 0x1fn }, membermask: { kind: "v" } }, params: ["a", "b", "membermask"] },
    // A full mask on partial warps names exited lanes: HIP's __all_sync (ballot == mask) is wrong there.
    { call: "ptxl_all_sync(0xffffffffu, (int)a)", form: { op: "vote", sync: true, mode: "all", type: "pred", negA: false }, kinds: { a: { kind: "v" }, membermask: { kind: "imm", value: 0xffffffffn } }, params: ["a"] },
    // … and HIP's formula is refuted by the same warps.
    { call: "(ptxl_ballot_sync(0xffffffffu, (int)a) == 0xffffffffu)", form: { op: "vote", sync: true, mode: "all", type: "pred", negA: false }, kinds: { a: { kind: "v" }, membermask: { kind: "imm", value: 0xffffffffn } }, params: ["a"], refuted: true },
    { call: "ptxl_ballot_sync(membermask, (int)a)", form: { op: "vote", sync: true, mode: "ballot", type: "b32", negA: false }, kinds: { a: { kind: "v" }, membermask: { kind: "v" } }, params: ["a", "membermask"] },
    // Bitwise, not HIP's logical && (warp-semantics.md A10).
    { call: "ptxl_reduce_and_sync(membermask, a)", form: { op: "redux", reduxOp: "and", type: "b32" }, kinds: { a: { kind: "v" }, membermask: { kind: "v" } }, params: ["a", "membermask"] },
    { call: "(uint32_t)ptxl_reduce_max_sync(membermask, (int)a)", form: { op: "redux", reduxOp: "max", type: "s32" }, kinds: { a: { kind: "v" }, membermask: { kind: "s" } }, params: ["a", "membermask"] },
    { call: "ptxl_activemask()", form: { op: "activemask", type: "b32" }, kinds: {}, params: [] },
    { call: "ptxl_match_any_sync(membermask, a)", form: { op: "match", mode: "any", type: "b32", dest: "d" } as Form, kinds: { a: { kind: "v" }, membermask: { kind: "v" } }, params: ["a", "membermask"] },
  ];

  it.skipIf(!CLANG)(
    `mean what CUDA means: ${MEANING.filter((m) => !m.refuted).length} drop-in calls (and a wrong width and HIP's __all_sync formula, refuted) run in the interpreter against the PTX reference on gfx900 (wave64, two warps per wave too) and gfx1100${CLANG ? "" : " (skipped: clang-19 missing)"}`,
    async () => {
      const { r } = await ported();
      for (const mcpu of ["gfx900", "gfx1100"] as Mcpu[]) {
        const fns: Omit<CompiledFunction, "lines">[] = [];
        const wrappers = MEANING.map((m, i) => {
          const fn: CallableFn = { name: `dropin_${i}`, alias: false, spec: { form: m.form, kinds: m.kinds, guarded: false }, params: m.params.map((name) => ({ name, width: 32 })), writes: formWrites(m.form), serves: [] };
          const symbol = `ptxl_chk_dropin_${i}`;
          fns.push({ fn, variant: "vgpr", symbol, args: m.params.map((name) => ({ name, width: 32 })), dReg: 0 });
          return `extern "C" __attribute__((device, used, noinline)) uint64_t ${symbol}(${m.params.map((p) => `uint32_t ${p}`).join(", ") || "void"}) {\n  return (uint64_t)(uint32_t)${m.call};\n}`;
        });
        const asm = await runTool("clang-19", clangArgs(mcpu), `${r.header}\n${wrappers.join("\n")}\n`);
        const rows = checkCompiled("hip", mcpu, { asm, functions: extract(asm, fns, `clang:${mcpu}`, TARGETS[mcpu].gen) }, [], { warps: 200, seed: 15 });
        expect(rows.length).toBe(MEANING.length);
        for (const [i, row] of rows.entries()) {
          const v = row.verdict;
          const what = `${mcpu} ${MEANING[i]!.call}`;
          if (MEANING[i]!.refuted) {
            expect(v.status, what).toBe("refuted");
            continue;
          }
          expect(v.status, `${what}: ${v.status === "refuted" ? v.counterexample : v.status === "tested" ? "" : v.why}`).toBe("tested");
          expect(row.parts.vgpr, MEANING[i]!.call).toBe(200);
          // Two CUDA warps per wave64: the 200 warps in 100 waves.
          if (TARGETS[mcpu].wave === 64) expect(row.parts["vgpr/two-warps"]).toBe(200);
        }
      }
    },
    240_000,
  );
});

