/**
 * `ptx-lower port` on real code (issue 34 item 5): the nine public files of
 * `../shared/real-cuda/` (its README names each one's repository, commit and licence), ported
 * as a directory, read where they are and never copied: every assertion here is a property of
 * the port computed at run time — counts against an independent count (test/port/real/scan.ts,
 * which imports nothing of src/port/), byte identity outside the rewrites (test/port/undo.ts),
 * what the report says, and that minimal units cut out of the ported output (and, the same
 * cut, out of the original) compile: as HIP for five AMD processors, assembled with llvm-mc
 * (a `-S` compile passes with PTX still inside an asm), and with nvcc for sm_90; the OpenCL
 * file with clang for NVIDIA (then ptxas) and for AMD. No line of a real file is stored in the
 * project: the units are cut at run time (test/port/real/cut.ts), and only the stubs of the
 * projects' own includes (test/port/real/*.stub.h) and the uses below are written here.
 *
 * Tools that are truly absent (clang-19, llvm-mc-19, nvcc, ptxas, the HIP headers, the shared
 * folder) skip the tests that need them, saying which.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { portCommand } from "../bin/port.js";
import type { PortCommandOptions } from "../bin/port.js";
import { portLayout, undoPort } from "./port/undo.js";
import { blankLiterals, branchesByLine, countSource, directives, groupOf, lineStarts, WARP_INTRINSICS } from "./port/real/scan.js";
import type { Directive } from "./port/real/scan.js";
import { cutBoth } from "./port/real/cut.js";

const ROOT = join(import.meta.dirname, "..");
const REAL = join(ROOT, "..", "shared", "real-cuda");
const STUBS = join(ROOT, "test", "port", "real");
const NAMES = [
  "cub_util_ptx.cuh",
  "cugraph_bh_kernels.cuh",
  "faiss_WarpShuffles.cuh",
  "ggml_common.cuh",
  "hecbench_atomicAggregate.cu",
  "libcudacxx_shfl_sync.h",
  "moderngpu_intrinsics.hxx",
  "opencv_simd_functions.hpp",
  "tinybvh_traverse_cwbvh.cl",
] as const;
type Name = (typeof NAMES)[number];
const PROCESSORS = ["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100"] as const;
/** The build switches of the two HIP-aware files (ggml, FAISS). */
const HIP_MACROS = ["GGML_USE_HIP", "USE_AMD_ROCM"];

const HAVE_REAL = NAMES.every((n) => existsSync(join(REAL, n)));
const works = (cmd: string, args: string[]) => {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return !r.error && r.status === 0;
};
const CLANG = works("clang-19", ["--version"]);
const LLVM_MC = works("llvm-mc-19", ["--version"]);
const NVCC = works("nvcc", ["--version"]);
const PTXAS = works("ptxas", ["--version"]);
const HIP_HEADERS = existsSync("/usr/include/hip/hip_runtime.h");
const missing = (what: [boolean, string][]) => what.filter(([ok]) => !ok).map(([, n]) => n);
const skipWhy = (what: [boolean, string][]) => {
  const m = missing(what);
  if (m.length) console.log(`skipped: ${m.join(", ")} not installed`);
  return m.length > 0;
};
if (!HAVE_REAL) console.log(`skipped: ${REAL} (the nine real files) is not there`);

const read = (p: string) => readFileSync(p, "utf8");
const original = (n: Name) => read(join(REAL, n));

/** A report of `port --json` (docs/port.schema.json), as far as these tests read it. */
interface Liveness {
  state: "live" | "dead" | "depends";
  guard?: { line: number; text: string } | { loc: { line: number }; text: string };
  names?: string[];
}
interface ReportEntry {
  line: number;
  col: number;
  endLine: number;
  endCol: number;
  status: "rewritten" | "left";
  macro: string | null;
  reasons: { line: number; col: number; message: string }[];
  liveness?: Liveness;
}
interface ReportFile {
  input: string;
  error: string | null;
  output: string | null;
  header: string | null;
  statements: ReportEntry[];
  intrinsics: (ReportEntry & { name: string; kind: string; to: string | null })[];
  warnings?: ({ message: string } | string)[];
  hipSwitches?: ({ name: string } | string)[];
}
interface Run {
  code: number | null;
  out: string;
  err: string;
  doc: { files: ReportFile[]; summary: Record<string, unknown>; totals?: unknown; hipSwitches?: unknown[] } | null;
  dir: string;
  error: string | null;
}

/** Runs `portCommand([REAL], { output, json: true, … })` in this process, its standard output and error captured. */
async function portReal(extra: Partial<PortCommandOptions>): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), "ptx-lower-real-"));
  const output = join(dir, "out");
  let out = "";
  let err = "";
  const so = vi.spyOn(process.stdout, "write").mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  const se = vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  const options: PortCommandOptions = { output, json: true, ...extra };
  let code: number | null = null;
  let error: string | null = null;
  try {
    code = await portCommand([REAL], options);
  } catch (e) {
    error = String((e as Error).message ?? e);
  } finally {
    so.mockRestore();
    se.mockRestore();
  }
  let doc: Run["doc"] = null;
  try {
    doc = JSON.parse(out);
  } catch {
    doc = null;
  }
  return { code, out, err, doc, dir, error };
}

/** What went wrong with a run, for assertion messages. */
const why = (r: Run) => `exit ${r.code}${r.error ? `, threw: ${r.error}` : ""}${r.err ? `\nstderr: ${r.err.slice(0, 2000)}` : ""}`;

/** The report's entry for a file, its output text and the original; fails naming what is missing. */
function entry(r: Run, n: Name): ReportFile {
  const f = r.doc?.files.find((x) => basename(x.input) === n);
  if (!f) throw new Error(`the report has no entry for ${n} (${why(r)})`);
  return f;
}
/** The ported text of a file: its output, or (nothing rewritten, so nothing written without --copy-all) the original. */
function outputOf(r: Run, n: Name): string {
  const f = entry(r, n);
  if (f.error !== null) throw new Error(`${n}: ${f.error}`);
  if (f.output === null && rewrites(f).length === 0 && f.header === null) return original(n);
  if (!f.output || !existsSync(f.output)) throw new Error(`${n}: no output written (${f.output})`);
  return read(f.output);
}
const warpCalls = (f: ReportFile) => f.intrinsics.filter((c) => c.kind === "warp");
const rewrites = (f: ReportFile) => [...f.statements, ...warpCalls(f)].filter((x) => x.status === "rewritten");
const nameOfEntry = (x: { name: string } | string) => (typeof x === "string" ? x : x.name);
const messageOf = (x: { message: string } | string) => (typeof x === "string" ? x : x.message);

/** Runs a command, resolving with its status and output (never rejecting). */
function exec(cmd: string, args: string[], cwd?: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const p = spawn(cmd, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d) => (stdout += d));
    p.stderr.on("data", (d) => (stderr += d));
    p.on("error", (e) => res({ status: null, stdout, stderr: stderr + String(e) }));
    p.on("close", (status) => res({ status, stdout, stderr }));
  });
}

/** Runs jobs `limit` at a time (the machine's cores). */
async function pool<T>(jobs: (() => Promise<T>)[], limit = Math.max(2, availableParallelism())): Promise<T[]> {
  const out: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const k = next++;
      out[k] = await jobs[k]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return out;
}

// ---------------------------------------------------------------------------------------
// Minimal units: what each file's cut needs around it, written here (the stubs are files in
// test/port/real/). A use makes a cut definition compile to code (a kernel calls it, a
// template is instantiated); `when` picks one overload by its text. Every definition cut must
// have a use, or the unit would compile it to nothing.

interface Use {
  /** The definition's name (function, class, or macro). */
  name: string;
  /** Only for the definition whose text matches (an overload). */
  when?: RegExp;
  /** Lines at namespace scope, after the cut. */
  top?: string[];
  /** Statements of the use kernel. */
  body?: string[];
}
interface UnitSpec {
  stub: string;
  uses: Use[];
  /** Defines on both sides (what selects the paths port rewrote). */
  defines?: string[];
}

/** The use kernel's parameters (CUDA/HIP units). */
const PARAMS = "int *i, unsigned *u, float *f, unsigned long long *l, half2 *h, half *hh";

const UNITS: Record<Name, UnitSpec> = {
  "cub_util_ptx.cuh": {
    stub: "cub_util_ptx.stub.h",
    uses: [
      { name: "SHR_ADD", body: ["u[0] = SHR_ADD(u[1], u[2], u[3]);"] },
      { name: "IADD3", body: ["u[11] = IADD3(u[1], u[2], u[3]);"] },
      { name: "SHL_ADD", body: ["u[4] = SHL_ADD(u[1], u[2], u[3]);"] },
      { name: "WARP_SYNC", body: ["WARP_SYNC(u[5]);"] },
      { name: "WARP_ANY", body: ["i[0] = WARP_ANY(i[1], u[5]);"] },
      { name: "WARP_ALL", body: ["i[2] = WARP_ALL(i[3], u[5]);"] },
      { name: "WARP_BALLOT", body: ["i[4] = WARP_BALLOT(i[5], u[5]);"] },
      { name: "SHFL_UP_SYNC", body: ["u[6] = SHFL_UP_SYNC(u[7], i[6], i[7], u[5]);"] },
      { name: "SHFL_DOWN_SYNC", body: ["u[8] = SHFL_DOWN_SYNC(u[7], i[6], i[7], u[5]);"] },
      { name: "SHFL_IDX_SYNC", when: /\bflags\b/, body: ["u[9] = SHFL_IDX_SYNC(u[7], i[6], i[7], u[5]);"] },
      { name: "SHFL_IDX_SYNC", when: /^(?![\s\S]*\bflags\b)/, body: ["u[10] = SHFL_IDX_SYNC(u[7], i[6], u[5]);"] },
    ],
  },
  "cugraph_bh_kernels.cuh": {
    stub: "cugraph_bh_kernels.stub.h",
    // The kernel itself is the definition: a __global__ function is always compiled.
    uses: [{ name: "RepulsionKernel" }],
  },
  "faiss_WarpShuffles.cuh": {
    stub: "faiss_WarpShuffles.stub.h",
    uses: [
      { name: "SHFL_SYNC", body: ["i[0] = SHFL_SYNC(i[1], i[2], 16);"] },
      { name: "shfl", when: /const T val/, body: ["f[0] = shfl(f[1], i[3]);", "hh[0] = shfl(hh[1], i[3], 8);"] },
      { name: "shfl_up", when: /const T val/, body: ["f[1] = shfl_up(f[2], 1u);", "hh[2] = shfl_up(hh[3], 2u, 16);"] },
      { name: "shfl_down", when: /const T val/, body: ["f[3] = shfl_down(f[4], 1u);", "i[4] = shfl_down(i[5], 4u, 8);"] },
      { name: "shfl_xor", when: /const T val/, body: ["f[5] = shfl_xor(f[6], 1);", "hh[4] = shfl_xor(hh[5], 2, 4);"] },
    ],
  },
  "ggml_common.cuh": {
    stub: "ggml_common.stub.h",
    uses: [
      { name: "warp_reduce_sum", when: /\bint warp_reduce_sum\s*\(\s*int\b/, body: ["i[0] = warp_reduce_sum(i[1]);", "i[2] = warp_reduce_sum<8>(i[3]);"] },
      { name: "warp_reduce_sum", when: /\bfloat warp_reduce_sum\s*\(\s*float\b/, body: ["f[0] = warp_reduce_sum(f[1]);", "f[2] = warp_reduce_sum<16>(f[3]);"] },
      { name: "warp_reduce_sum", when: /\bfloat2 warp_reduce_sum\s*\(\s*float2\b/, body: ["{ float2 v = warp_reduce_sum(make_float2(f[4], f[5])); f[4] = v.x; f[5] = v.y; }"] },
      { name: "warp_reduce_sum", when: /\bhalf2 warp_reduce_sum\s*\(\s*half2\b/, body: ["h[0] = warp_reduce_sum(h[1]);"] },
      { name: "warp_reduce_all", body: ["i[4] = warp_reduce_all(i[5]) + warp_reduce_all<4>(i[6]);"] },
      { name: "warp_reduce_any", body: ["i[7] = warp_reduce_any(i[8]) + warp_reduce_any<2>(i[9]);"] },
      { name: "warp_reduce_max", when: /\bfloat warp_reduce_max\s*\(\s*float\b/, body: ["f[6] = warp_reduce_max(f[7]);"] },
      { name: "warp_reduce_max", when: /\bhalf2 warp_reduce_max\s*\(\s*half2\b/, body: ["h[2] = warp_reduce_max(h[3]);"] },
      { name: "warp_prefix_inclusive_sum", when: /\bT warp_prefix_inclusive_sum\s*\(\s*T\b/, body: ["i[10] = warp_prefix_inclusive_sum<int>(i[11]);"] },
      { name: "warp_prefix_inclusive_sum", when: /\bfloat2 warp_prefix_inclusive_sum\s*\(\s*float2\b/, body: ["{ float2 w = warp_prefix_inclusive_sum(make_float2(f[8], f[9])); f[8] = w.x; f[9] = w.y; }"] },
      { name: "warp_prefix_inclusive_sum", when: /\bhalf2 warp_prefix_inclusive_sum\s*\(\s*half2\b/, body: ["h[4] = warp_prefix_inclusive_sum(h[5]);"] },
    ],
  },
  "hecbench_atomicAggregate.cu": {
    stub: "hecbench_atomicAggregate.stub.h",
    uses: [{ name: "atomicAggInc", body: ["i[0] = atomicAggInc(i + 1);"] }],
  },
  "libcudacxx_shfl_sync.h": {
    stub: "libcudacxx_shfl_sync.stub.h",
    uses: (["idx", "up", "down", "bfly"] as const).flatMap((m, k) => [
      { name: `shfl_sync_${m}`, when: /^(?![\s\S]*bool\s*&)/, body: [`u[${k}] = shfl_sync_${m}<unsigned>(u[${k + 4}], u[8], 0x1fu, 0xffffffffu);`, `f[${k}] = shfl_sync_${m}<float>(f[${k + 4}], u[8], 0u, 0xffffffffu);`] },
      { name: `shfl_sync_${m}`, when: /bool\s*&/, body: [`{ bool p = false; u[${k + 10}] = shfl_sync_${m}<unsigned>(u[${k + 4}], p, u[9], 0x1fu, 0xffffffffu); i[${k}] = p; }`] },
    ]),
  },
  "moderngpu_intrinsics.hxx": {
    stub: "moderngpu_intrinsics.stub.h",
    uses: [
      { name: "ballot", body: ["u[0] = ballot(i[0]);", "u[1] = ballot(i[1], u[2]);"] },
      { name: "shfl_up", body: ["f[0] = shfl_up(f[1], 1);", "i[2] = shfl_up(i[3], 2, 16);"] },
      { name: "shfl_down", body: ["f[2] = shfl_down(f[3], 1);", "l[0] = shfl_down(l[1], 4, 8);"] },
      {
        name: "SHFL_OP_MACRO",
        top: ["template <class T> struct real_op_t { __device__ T operator()(T p, T q) const { return p + q; } };", "SHFL_OP_MACRO(up, true, u32, r, unsigned, add, real_op_t)", "SHFL_OP_MACRO(down, false, f32, f, float, max, real_op_t)"],
        body: ["u[3] = shfl_up_op(u[4], 1, real_op_t<unsigned>());", "f[4] = shfl_down_op(f[5], 2, real_op_t<float>(), 16);"],
      },
      {
        name: "SHFL_OP_64b_MACRO",
        top: ["SHFL_OP_64b_MACRO(down, false, u64, l, uint64_t, add, real_op_t)"],
        body: ["l[2] = shfl_down_op((uint64_t)l[3], 1, real_op_t<uint64_t>());"],
      },
    ],
  },
  "opencv_simd_functions.hpp": {
    stub: "common.stub.h",
    uses: [],
  },
  "tinybvh_traverse_cwbvh.cl": {
    stub: "tinybvh_traverse_cwbvh.stub.h",
    defines: ["ISNVIDIA"],
    uses: [
      { name: "__activemask", body: ["u[3] = __activemask();"] },
      ...["", "0", "1", "2", "3"].map((s) => ({ name: `UPDATE_HITMASK${s}`, body: [`if (u[4] > ${s || 9}u) UPDATE_HITMASK${s};`] })),
    ],
  },
};

/** A minimal unit of one file: the HIP (or OpenCL AMD) side from the output, the NVIDIA side from the original. */
interface Unit {
  name: Name;
  ported: string;
  original: string;
  /** The names of the definitions cut, in order. */
  defs: string[];
  /**
   * Definitions that hold rewrites but also an asm statement the report leaves (PTX no AMD
   * compile can take: the port said so), with that statement's line and reason: not in the unit.
   */
  excluded: string[];
}

/** The port's own include group (`#if …` `#include "X.hip.h"` … `#endif`) of an output, as written. */
function includeGroup(out: string, header: string): string {
  const code = blankLiterals(out);
  const ds = directives(code);
  const inc = ds.find((d) => d.kind === "include" && out.slice(d.start, d.end).includes(`"${basename(header)}"`));
  if (!inc) throw new Error(`no #include "${basename(header)}" in the output`);
  const opener = [...ds].reverse().find((d) => d.start < inc.start && (d.kind === "if" || d.kind === "ifdef"));
  if (!opener) throw new Error(`the #include "${basename(header)}" has no guard`);
  const end = groupOf(out, opener).pop()!;
  return out.slice(opener.start, end.end) + "\n";
}

/** Cuts the unit of file `n` out of the run `r` (the report's rewritten statements and calls locate the definitions). */
function unitOf(r: Run, n: Name): Unit | null {
  const f = entry(r, n);
  const locs = rewrites(f).map((x) => ({ line: x.line, col: x.col }));
  if (locs.length === 0) return null;
  const out = outputOf(r, n);
  // A definition that also holds a statement the report leaves is not ported (its PTX stays):
  // it is named, not compiled. The rest are cut again without it.
  const starts = lineStarts(original(n));
  const first = cutBoth(original(n), out, locs);
  const excluded: string[] = [];
  const dropped = first.defs.filter((d, k) => {
    const left = f.statements.find((x) => x.status === "left" && d.orig.start <= starts[x.line - 1]! + x.col - 1 && starts[x.line - 1]! + x.col - 1 < d.orig.end);
    if (left) excluded.push(`${first.names[k]} (line ${left.line}: ${left.reasons[0]?.message ?? "left"})`);
    return left !== undefined;
  });
  const kept = locs.filter((l) => !dropped.some((d) => d.orig.start <= starts[l.line - 1]! + l.col - 1 && starts[l.line - 1]! + l.col - 1 < d.orig.end));
  if (kept.length === 0) return { name: n, ported: "", original: "", defs: [], excluded };
  const cut = kept.length === locs.length ? first : cutBoth(original(n), out, kept);
  const spec = UNITS[n];
  const texts = cut.defs.map((d) => original(n).slice(d.orig.start, d.orig.end));
  const uses: Use[] = [];
  const unused: string[] = [];
  cut.names.forEach((name, k) => {
    const u = spec.uses.filter((x) => x.name === name && (!x.when || x.when.test(texts[k]!)));
    if (u.length === 0) unused.push(`${name} (${n} line ${lineStarts(original(n)).filter((s) => s <= cut.defs[k]!.orig.start).length})`);
    for (const x of u) if (!uses.includes(x)) uses.push(x);
  });
  if (unused.length) throw new Error(`no use is written in this test for the definitions ${unused.join(", ")}: write one in UNITS, or the unit compiles them to nothing`);
  const cl = n.endsWith(".cl");
  const top = uses.flatMap((x) => x.top ?? []);
  const body = uses.flatMap((x) => x.body ?? []);
  const kernel = cl
    ? ["kernel void real_use(global uint *u) {", "  uint hitmask = u[0], child_bits4 = u[1], bit_index4 = u[2];", ...body.map((l) => `  ${l}`), "  u[0] = hitmask;", "}"]
    : [`__global__ void real_use(${PARAMS}) {`, ...body.map((l) => `  ${l}`), "}"];
  const defines = (spec.defines ?? []).map((d) => `#define ${d}`);
  const head = (side: string) => [`// ${side} of ${n}, cut at run time by test/port_real.test.ts`, ...defines, `#include "${spec.stub}"`].join("\n") + "\n";
  const tail = [...top, ...(body.length || cl ? kernel : [])].join("\n") + "\n";
  return {
    name: n,
    ported: head("the ported unit") + includeGroup(out, f.header ?? "") + cut.ported + tail,
    original: head("the original unit") + cut.original + tail,
    defs: cut.names,
    excluded,
  };
}

/** Where this run's units are written. */
function unitDir(r: Run): string {
  const d = join(r.dir, "units");
  mkdirSync(d, { recursive: true });
  return d;
}

/**
 * hip/hip_runtime.h precompiled once per processor (what `-include hip/hip_runtime.h` reads,
 * parsed once instead of once per unit: most of a unit's compile time), under `dir`.
 */
const pchs = new Map<string, Promise<string>>();
let pchDir: string | null = null;
function hipPch(m: string): Promise<string> {
  const key = m;
  pchDir ??= mkdtempSync(join(tmpdir(), "ptx-lower-real-pch-"));
  const dir = pchDir;
  if (!pchs.has(key))
    pchs.set(
      key,
      (async () => {
        const h = join(dir, "hip_runtime_pch.h");
        if (!existsSync(h)) writeFileSync(h, "#include <hip/hip_runtime.h>\n");
        const out = join(dir, `hip_runtime.${m}.pch`);
        const r = await exec("clang-19", ["-x", "hip", "--cuda-device-only", `--offload-arch=${m}`, "-nogpulib", "-O2", "-Xclang", "-emit-pch", "-S", h, "-o", out], dir);
        if (r.status !== 0) throw new Error(`precompiling hip/hip_runtime.h for ${m}: ${r.stderr}`);
        return out;
      })(),
    );
  return pchs.get(key)!;
}

/** The HIP compile of a unit for one processor: `clang-19 -x hip … -include hip/hip_runtime.h` (precompiled) `-S`. */
async function hipS(dir: string, file: string, m: string, includeDirs: string[], out: string) {
  const pch = await hipPch(m);
  return exec("clang-19", ["-x", "hip", "--cuda-device-only", `--offload-arch=${m}`, "-nogpulib", "-O2", "-include-pch", pch, ...includeDirs.flatMap((d) => ["-I", d]), "-S", file, "-o", out], dir);
}

/** Problems that differ only in the processor named, said once with the processors listed. */
function samePerProcessor(problems: string[]): string[] {
  const by = new Map<string, string[]>();
  for (const p of problems) {
    const m = new RegExp(`^(\\S+) (${PROCESSORS.join("|")}): `).exec(p);
    const key = m ? `${m[1]} PROCESSORS: ${p.slice(m[0].length).replace(/ when compiling for \w+/g, "")}` : p;
    by.set(key, [...(by.get(key) ?? []), m?.[2] ?? ""]);
  }
  return [...by].map(([k, ms]) => k.replace("PROCESSORS", ms.join(", ")));
}

/** Jobs compiling a unit as HIP for every processor, then assembling each with llvm-mc-19: each resolves with its problems. */
function hipJobs(dir: string, file: string, includeDirs: string[]): (() => Promise<string[]>)[] {
  const stem = file.replace(/\.[^.]*$/, "");
  return PROCESSORS.map((m) => async () => {
    const s = join(dir, `${stem}.${m}.s`);
    const cc = await hipS(dir, file, m, includeDirs, s);
    if (cc.status !== 0) return [`${file} ${m}: clang-19 -x hip -S: ${cc.stderr.trim().split("\n").slice(0, 12).join("\n")}`];
    const problems: string[] = [];
    if (!/\.amdhsa_kernel /.test(read(s))) problems.push(`${file} ${m}: no kernel in the assembly (the uses compiled to nothing)`);
    const ptx = /\b(shfl\.sync|vote\.sync|vote\.ballot|activemask\.b32|vsh[lr]\.|match\.(?:any|all)\.sync|redux\.sync|bar\.warp\.sync)/.exec(read(s));
    if (ptx) problems.push(`${file} ${m}: PTX reached the assembly: ${ptx[0]}`);
    const mc = await exec("llvm-mc-19", ["-triple=amdgcn-amd-amdhsa", `-mcpu=${m}`, "-filetype=obj", s, "-o", join(dir, `${stem}.${m}.o`)]);
    if (mc.status !== 0) problems.push(`${file} ${m}: llvm-mc-19: ${mc.stderr.trim().split("\n").slice(0, 6).join("\n")}`);
    return problems;
  });
}

// ---------------------------------------------------------------------------------------

describe("the independent counter and cutter (test/port/real/), on inputs written here", () => {
  it("counts asm statements and warp intrinsic calls in code only: not in comments, strings, raw strings, `#if 0`, declarators or members; after `or`, `return` and in #define bodies", () => {
    const src = [
      "// asm(\"x\"); __shfl_sync(m, v, 0);",
      "/* __ballot_sync(m, 1) */ const char *s = \"asm(\\\"y\\\") __any_sync(\";",
      "const char *r = R\"d(__all_sync(m, p) asm(\"z\"))d\"; char c = '\\''; int n = 1'000;",
      "#if 0",
      "asm(\"dropped\"); __syncwarp();",
      "#if 1",
      "__activemask();",
      "#endif",
      "#else",
      "__device__ bool f(int n, bool p) { return (n < 3) or __all_sync(0xffffffffu, p); }",
      "#endif",
      "inline unsigned __activemask() { return 0; }",
      "__device__ int g(int v) { asm volatile(\"mov.b32 %0, %0;\" : \"+r\"(v)); __asm__ __volatile__ (\"\" ::); return __shfl_xor_sync(~0u, v, 1) + o.__shfl_sync(1) + p->__shfl_sync(2); }",
      "int h asm(\"alias\");",
      "#if X >= 300",
      "asm(\"after a directive\");",
      "#endif",
      "#define M(x) asm(\"in a macro\" : : \"r\"(x)); \\",
      "  __reduce_add_sync(~0u, x)",
      "unsigned k(unsigned m) { return m bitand __ballot_sync(m, 1); }",
    ].join("\n");
    const c = countSource(src);
    expect(c.statements.map((x) => `${x.line}:${x.name}`)).toEqual(["13:asm", "13:__asm__", "16:asm", "18:asm"]);
    expect(c.calls.map((x) => `${x.line}:${x.name}`)).toEqual(["10:__all_sync", "13:__shfl_xor_sync", "19:__reduce_add_sync", "20:__ballot_sync"]);
  });

  it("finds the definition enclosing a place (a function in a namespace, a class template's member, a #define) and the same one in a text with lines inserted", () => {
    const orig = ["namespace a {", "template <int N>", "struct S {", "  static __device__ int f(int v) { return __shfl_sync(~0u, v, N); }", "};", "__device__ int g(int v)", "{", "  return __any_sync(~0u, v);", "}", "}", "#define M(v) __all_sync(~0u, v)", ""].join("\n");
    const ported = ["#if defined(__HIP__)", '#include "x.hip.h"', "#endif", orig.replace(/__(shfl_sync|any_sync|all_sync)/g, "ptxl_$1")].join("\n");
    const cut = cutBoth(orig, ported, [
      { line: 8, col: 10 },
      { line: 4, col: 43 },
      { line: 11, col: 14 },
    ]);
    expect(cut.names).toEqual(["S", "g", "M"]);
    expect(cut.defs.map((d) => d.orig.kind)).toEqual(["code", "code", "macro"]);
    expect(cut.original).toBe(["template <int N>\nstruct S {\n  static __device__ int f(int v) { return __shfl_sync(~0u, v, N); }\n};\n", "__device__ int g(int v)\n{\n  return __any_sync(~0u, v);\n}\n", "#define M(v) __all_sync(~0u, v)\n"].join("\n"));
    expect(cut.ported).toBe(cut.original.replace(/__(shfl_sync|any_sync|all_sync)/g, "ptxl_$1"));
  });
});

describe.skipIf(!HAVE_REAL)("port ../shared/real-cuda (the directory, with the real HIP header)", () => {
  it("no line of a real file is stored in this test or its helpers (test/port/real/)", () => {
    const real = new Set(NAMES.flatMap((n) => original(n).split("\n").map((l) => l.trim()).filter((l) => l.length >= 24)));
    const mine = [join(ROOT, "test", "port_real.test.ts"), ...readdirSync(STUBS).map((f) => join(STUBS, f))];
    const copied = mine.flatMap((p) => read(p).split("\n").flatMap((l, k) => (real.has(l.trim()) ? [`${basename(p)}:${k + 1}`] : [])));
    expect(copied).toEqual([]);
  });

  let plain: Run;
  let hip: Run;
  beforeAll(async () => {
    plain = await portReal({});
    hip = await portReal({ hipMacro: HIP_MACROS }); // --hip-macro GGML_USE_HIP --hip-macro USE_AMD_ROCM
  }, 300_000);
  afterAll(() => {
    for (const d of [plain?.dir, hip?.dir, pchDir]) if (d) rmSync(d, { recursive: true, force: true });
  });

  it("every file is accepted, the .hpp and .hxx too: exit 0, no error, an output and a header for each file with rewrites", () => {
    expect(plain.doc, `no --json document: ${why(plain)}`).not.toBeNull();
    const problems: string[] = [];
    for (const n of NAMES) {
      const f = plain.doc!.files.find((x) => basename(x.input) === n);
      if (!f) problems.push(`${n}: not in the report`);
      else if (f.error !== null) problems.push(`${n}: ${f.error}`);
      else if (rewrites(f).length > 0 && (!f.output || !existsSync(f.output) || !f.header || !existsSync(f.header))) problems.push(`${n}: rewritten, but its output or header is not written`);
    }
    expect(problems, why(plain)).toEqual([]);
    expect(plain.code, why(plain)).toBe(0);
  });

  it("the asm statements and warp intrinsic calls, counted independently (test/port/real/scan.ts), are the report's, at the same places, per file", () => {
    const problems: string[] = [];
    for (const n of NAMES) {
      const mine = countSource(original(n));
      const f = entry(plain, n);
      const at = (x: { line: number; col: number }) => `${x.line}:${x.col}`;
      const diff = (what: string, a: string[], b: string[]) => {
        const onlyMine = a.filter((x) => !b.includes(x));
        const onlyReport = b.filter((x) => !a.includes(x));
        if (onlyMine.length || onlyReport.length || a.length !== b.length)
          problems.push(`${n}: ${what}: counted ${a.length}, reported ${b.length}${onlyMine.length ? `; not reported: ${onlyMine.join(" ")}` : ""}${onlyReport.length ? `; reported, not counted: ${onlyReport.join(" ")}` : ""}`);
      };
      diff("asm statements", mine.statements.map(at), f.statements.map(at));
      diff("warp intrinsic calls", mine.calls.map((c) => `${at(c)} ${c.name}`), warpCalls(f).map((c) => `${at(c)} ${c.name}`));
    }
    expect(problems).toEqual([]);
  });

  it("no warp intrinsic call is left unrenamed and unreported: each `__X(` call in the output is one the report leaves, with a reason; each rewritten one names its drop-in", () => {
    const problems: string[] = [];
    for (const run of [plain, hip])
      for (const n of NAMES) {
        const f = entry(run, n);
        const left = new Map<string, number>();
        for (const c of warpCalls(f)) {
          if (c.status === "left") {
            left.set(c.name, (left.get(c.name) ?? 0) + 1);
            if (c.reasons.length === 0) problems.push(`${n} ${c.line}:${c.col}: ${c.name} left without a reason`);
          } else if (c.to !== `ptxl_${c.name.slice(2)}`) problems.push(`${n} ${c.line}:${c.col}: ${c.name} rewritten to ${c.to}`);
        }
        const still = new Map<string, number>();
        for (const c of countSource(outputOf(run, n)).calls) still.set(c.name, (still.get(c.name) ?? 0) + 1);
        for (const name of WARP_INTRINSICS) {
          const a = still.get(name) ?? 0;
          const b = left.get(name) ?? 0;
          if (a !== b) problems.push(`${n}${run === hip ? " (--hip-macro)" : ""}: ${a} call(s) of ${name} in the output, ${b} reported left`);
        }
      }
    expect(problems).toEqual([]);
  });

  it("byte identity outside the rewrites: undoing the guards and renames (test/port/undo.ts) gives the original back, for both runs", () => {
    const problems: string[] = [];
    for (const run of [plain, hip])
      for (const n of NAMES) {
        const f = entry(run, n);
        const spans = f.statements.filter((s) => s.status === "rewritten" && s.macro === null).map((s) => ({ loc: { line: s.line, col: s.col }, end: { line: s.endLine, col: s.endCol } }));
        const guarded = f.header !== null;
        let undone: string;
        try {
          undone = undoPort(outputOf(run, n));
        } catch (e) {
          problems.push(`${n}: ${(e as Error).message}`);
          continue;
        }
        const want = portLayout(original(n), spans, guarded);
        if (undone !== want) {
          const a = undone.split("\n");
          const b = want.split("\n");
          const k = a.findIndex((l, i) => l !== b[i]);
          problems.push(`${n}${run === hip ? " (--hip-macro)" : ""}: differs first at line ${k + 1} of the undone output`);
        }
      }
    expect(problems).toEqual([]);
  });

  it("cugraph_bh_kernels.cuh: the __all_sync after the alternative token `or` is renamed (and reported rewritten)", () => {
    const f = entry(plain, "cugraph_bh_kernels.cuh");
    const all = warpCalls(f).filter((c) => c.name === "__all_sync");
    expect(all.length, "the report's __all_sync calls").toBe(1);
    expect(all[0]!.status).toBe("rewritten");
    expect(all[0]!.to).toBe("ptxl_all_sync");
    const out = outputOf(plain, "cugraph_bh_kernels.cuh");
    expect(countSource(out).calls.filter((c) => c.name === "__all_sync")).toEqual([]);
    expect(blankLiterals(out)).toMatch(/\bor\s+ptxl_all_sync\s*\(/);
  });

  it.skipIf(skipWhy([[CLANG, "clang-19"]]))("hecbench_atomicAggregate.cu: every warpSize a HIP device compile takes is ptxl_warpSize (clang-19 -E decides what it takes)", async () => {
    const n = "hecbench_atomicAggregate.cu";
    const dir = join(plain.dir, "warpsize");
    mkdirSync(dir, { recursive: true });
    // The includes are not what is asked here (and are not all there): dropped.
    const noIncludes = (t: string) => t.replace(/^[ \t]*#[ \t]*include\b.*$/gm, "");
    writeFileSync(join(dir, "orig.hip"), noIncludes(original(n)));
    writeFileSync(join(dir, "port.hip"), noIncludes(outputOf(plain, n)));
    const pp = (file: string) => exec("clang-19", ["-x", "hip", "--cuda-device-only", "--offload-arch=gfx942", "-nogpulib", "-nogpuinc", "-E", "-P", file], dir);
    const [o, p] = await Promise.all([pp("orig.hip"), pp("port.hip")]);
    expect(o.status, o.stderr).toBe(0);
    expect(p.status, p.stderr).toBe(0);
    const count = (t: string, re: RegExp) => (t.match(re) ?? []).length;
    const taken = count(o.stdout, /(?<![\w$])warpSize(?![\w$])/g);
    expect(taken, "warpSize in what a HIP compile takes of the original").toBeGreaterThan(0);
    expect(count(p.stdout, /(?<![\w$])warpSize(?![\w$])/g), "warpSize left in what a HIP compile takes of the output").toBe(0);
    expect(count(p.stdout, /(?<![\w$])ptxl_warpSize(?![\w$])/g)).toBe(taken);
  });

  it("the report names GGML_USE_HIP and USE_AMD_ROCM as likely HIP switches", () => {
    expect(plain.doc, why(plain)).not.toBeNull();
    const names = new Set([...(plain.doc!.hipSwitches ?? []), ...plain.doc!.files.flatMap((f) => f.hipSwitches ?? [])].map((x) => nameOfEntry(x as { name: string })));
    for (const m of HIP_MACROS) expect([...names], `hipSwitches should name ${m}`).toContain(m);
    expect(entry(plain, "ggml_common.cuh").hipSwitches?.map(nameOfEntry) ?? []).toContain("GGML_USE_HIP");
    expect(entry(plain, "faiss_WarpShuffles.cuh").hipSwitches?.map(nameOfEntry) ?? []).toContain("USE_AMD_ROCM");
  });

  it("--hip-macro GGML_USE_HIP --hip-macro USE_AMD_ROCM: the HIP branches and the shared code of ggml_common.cuh and faiss_WarpShuffles.cuh are untouched, and each file gets the 64-lane warning", () => {
    expect(hip.code, why(hip)).toBe(0);
    const problems: string[] = [];
    for (const n of ["ggml_common.cuh", "faiss_WarpShuffles.cuh"] as const) {
      const text = original(n);
      const out = outputOf(hip, n);
      const f = entry(hip, n);
      const starts = lineStarts(text);
      const lineText = (a: number, b: number) => text.slice(starts[a - 1]!, b < starts.length ? starts[b]! : text.length);
      // The HIP branches: the branch of each #if/#elif whose condition names a HIP macro
      // without `!` before it, and the #else of an #if that names it only negated.
      const ds = directives(blankLiterals(text));
      const names = (d: Directive) => HIP_MACROS.some((m) => new RegExp(`\\b${m}\\b`).test(d.rest));
      const positive = (d: Directive) => HIP_MACROS.some((m) => d.kind === "ifdef" ? new RegExp(`^\\s*${m}\\b`).test(d.rest) : new RegExp(`(?<!!\\s*)defined\\s*\\(?\\s*${m}\\b`).test(d.rest));
      const regions: [number, number][] = [];
      for (const d of ds) {
        if (!(d.kind === "if" || d.kind === "ifdef" || d.kind === "ifndef")) continue;
        const group = groupOf(text, d);
        const branches = [d, ...group];
        for (let k = 0; k + 1 < branches.length; k++) {
          const b = branches[k]!;
          const next = branches[k + 1]!;
          if ((b.kind === "if" || b.kind === "ifdef" || b.kind === "elif") && names(b) && positive(b)) regions.push([b.line, next.line]);
          if (b.kind === "else" && names(d) && !positive(d) && k === branches.length - 2) regions.push([b.line, next.line]);
        }
      }
      if (regions.length === 0) problems.push(`${n}: no HIP branch found (the test's reading)`);
      let inHipBranches = 0;
      for (const [a, b] of regions) {
        const region = lineText(a, b);
        if (!out.includes(region)) problems.push(`${n}: the HIP branch of lines ${a}–${b} is changed in the output`);
        // What the report says of the calls and statements there: left, "already a HIP path".
        for (const x of [...warpCalls(f), ...f.statements].filter((x) => x.line > a && x.line < b)) {
          inHipBranches++;
          if (x.status !== "left" || !x.reasons.some((r) => /already a HIP path/i.test(r.message))) problems.push(`${n} ${x.line}:${x.col}: in the HIP branch of lines ${a}–${b}, but ${x.status} ${JSON.stringify(x.reasons.map((r) => r.message))}`);
        }
      }
      // Shared code: warp intrinsic calls in no conditional group at all — both builds compile them.
      const byLine = branchesByLine(text);
      const shared = countSource(text).calls.filter((c) => byLine[c.line - 1]!.length === 0);
      for (const c of shared) {
        const line = lineText(c.line, c.line);
        if (!out.includes(line)) problems.push(`${n}: line ${c.line} (${c.name}, shared code) is changed in the output`);
        const e = warpCalls(f).find((x) => x.line === c.line && x.col === c.col);
        if (!e || e.status !== "left" || !e.reasons.some((r) => /shared with the file's HIP build/i.test(r.message))) problems.push(`${n}: ${c.name} at ${c.line}:${c.col} (shared code) is not reported left as shared with the file's HIP build: ${JSON.stringify(e?.reasons ?? null)}`);
      }
      if (n === "ggml_common.cuh" && inHipBranches < 2) problems.push(`${n}: only ${inHipBranches} reported statements or calls in its HIP branches (the test's reading finds the shuffles at least)`);
      const warned = (f.warnings ?? []).map(messageOf).filter((m) => /\b64\b/.test(m) && /lane|wave/i.test(m));
      if (warned.length !== 1) problems.push(`${n}: ${warned.length} warnings about 64-lane waves (want 1): ${JSON.stringify(f.warnings ?? null)}`);
    }
    expect(problems).toEqual([]);
  });

  it("liveness: every rewrite is live, dead (naming its guard) or depends (naming macros); dead under a guard a HIP compile surely skips, depends under a macro no one defines; the summary counts all three", () => {
    expect(plain.doc, why(plain)).not.toBeNull();
    const problems: string[] = [];
    const tally = { statements: { live: 0, dead: 0, depends: 0 }, calls: { live: 0, dead: 0, depends: 0 } };
    for (const n of NAMES) {
      const f = entry(plain, n);
      const text = original(n);
      const byLine = branchesByLine(text);
      const definedHere = new Set(directives(blankLiterals(text)).filter((d) => d.kind === "define").map((d) => /^\s*(\w+)/.exec(d.rest)?.[1]));
      for (const [kind, list] of [["statements", f.statements], ["calls", warpCalls(f)]] as const)
        for (const x of list) {
          if (x.status !== "rewritten") continue;
          const l = x.liveness;
          if (!l || !["live", "dead", "depends"].includes(l.state)) {
            problems.push(`${n} ${x.line}:${x.col}: liveness ${JSON.stringify(l)}`);
            continue;
          }
          tally[kind][l.state]++;
          const guardLine = l.guard && ("line" in l.guard ? l.guard.line : l.guard.loc.line);
          if (l.state !== "live" && (!guardLine || !l.guard!.text)) problems.push(`${n} ${x.line}:${x.col}: ${l.state} without its guard's line and text`);
          if (l.state === "depends" && !(l.names && l.names.length)) problems.push(`${n} ${x.line}:${x.col}: depends on no macro named`);
          // What this test can read itself: a branch opened by a condition that is a
          // conjunction holding `__CUDA_ARCH__ >= N`, `defined(__CUDA_ARCH__)` or
          // `CUDA_VERSION >= N` is dead in a HIP compile; a branch of `#ifdef X` (X defined
          // nowhere in the file, not a compiler's macro) depends on X.
          const stack = byLine[x.line - 1]!;
          const deadBy = stack.find((d) => (d.kind === "if" || d.kind === "elif") && !/\|\|/.test(d.rest) && /(__CUDA_ARCH__\s*>=?\s*\w+|defined\s*\(?\s*__CUDA_ARCH__\b|\bCUDA_VERSION\s*>=?\s*\w+)/.test(d.rest) && !/!\s*defined\s*\(?\s*__CUDA_ARCH__/.test(d.rest));
          if (deadBy && l.state !== "dead") problems.push(`${n} ${x.line}:${x.col}: under #${deadBy.kind}${deadBy.rest} (line ${deadBy.line}), which a HIP compile skips, but ${l.state}`);
          if (deadBy && l.state === "dead" && !stack.some((d) => d.line === guardLine || d.opener.line === guardLine)) problems.push(`${n} ${x.line}:${x.col}: dead, but its guard (line ${guardLine}) is none of its branches`);
          const unknown = stack.filter((d) => d.kind === "ifdef").map((d) => /^\s*(\w+)/.exec(d.rest)![1]!).filter((m) => !definedHere.has(m) && !m.startsWith("__"));
          if (!deadBy && unknown.length && stack.every((d) => d.kind === "ifdef") && (l.state !== "depends" || !unknown.every((m) => l.names?.includes(m))))
            problems.push(`${n} ${x.line}:${x.col}: under #ifdef ${unknown.join(", ")} (defined nowhere), but ${l.state} ${JSON.stringify(l.names ?? [])}`);
        }
    }
    for (const s of ["live", "dead", "depends"] as const) if (tally.statements[s] + tally.calls[s] === 0) problems.push(`no ${s} rewrite in the whole tree (there are: e.g. ${s === "dead" ? "hecbench's __match_any_sync under __CUDA_ARCH__ >= 700" : s === "depends" ? "tinybvh's asm under #ifdef ISNVIDIA" : "cub's shuffles"})`);
    // The summary: objects holding live/dead/depends counts, each equal to the statements', the calls' or both's.
    const triples: Record<string, number>[] = [];
    const walk = (v: unknown) => {
      if (v && typeof v === "object") {
        const o = v as Record<string, unknown>;
        if (typeof o.live === "number" && typeof o.dead === "number" && (typeof o.depends === "number" || typeof o.dependsOn === "number")) triples.push({ live: o.live, dead: o.dead, depends: (o.depends ?? o.dependsOn) as number });
        for (const x of Object.values(o)) walk(x);
      }
    };
    walk(plain.doc!.summary);
    walk(plain.doc!.totals);
    const both = { live: tally.statements.live + tally.calls.live, dead: tally.statements.dead + tally.calls.dead, depends: tally.statements.depends + tally.calls.depends };
    if (triples.length === 0) problems.push(`the summary counts no live/dead/depends: ${JSON.stringify(plain.doc!.summary)}`);
    for (const t of triples) if (![tally.statements, tally.calls, both].some((w) => w.live === t.live && w.dead === t.dead && w.depends === t.depends)) problems.push(`summary ${JSON.stringify(t)} is neither the statements' ${JSON.stringify(tally.statements)}, the calls' ${JSON.stringify(tally.calls)} nor both's`);
    expect(problems).toEqual([]);
  });

  it.skipIf(skipWhy([[CLANG, "clang-19"], [HIP_HEADERS, "the HIP headers (/usr/include/hip)"]]))(
    "ggml's warp_reduce_sum, cut from the ported output: <64> does not compile as HIP (a width that is not a power of two ≤ 32 is refused, naming the call), <32> does",
    async () => {
      const u = unitOf(plain, "ggml_common.cuh")!;
      expect(u.defs).toContain("warp_reduce_sum");
      const dir = join(unitDir(plain), "width");
      mkdirSync(dir, { recursive: true });
      const f = entry(plain, "ggml_common.cuh");
      const k = (w: number) => `\n__global__ void real_width(float *f) { f[0] = warp_reduce_sum<${w}>(f[1]); }\n`;
      writeFileSync(join(dir, "w64.hip"), u.ported + k(64));
      writeFileSync(join(dir, "w32.hip"), u.ported + k(32));
      const cc = (file: string) => hipS(dir, file, "gfx942", [STUBS, dirname(f.header!)], `${file}.s`);
      const [w64, w32] = await Promise.all([cc("w64.hip"), cc("w32.hip")]);
      expect(w32.status, w32.stderr).toBe(0);
      expect(w64.status, "warp_reduce_sum<64> compiled").not.toBe(0);
      expect(w64.stderr).toMatch(/error: [^\n]*ptxl_shfl_xor_sync/);
      expect(w64.stderr).toMatch(/warp_reduce_sum<64>/);
    },
    120_000,
  );

  it.skipIf(skipWhy([[CLANG, "clang-19"], [LLVM_MC, "llvm-mc-19"], [HIP_HEADERS, "the HIP headers (/usr/include/hip)"]]))(
    "each file's minimal unit, cut from the ported output (the definitions holding rewrites, the port's include, the stubs), compiles as HIP for gfx900, gfx90a, gfx942, gfx1030, gfx1100 and assembles",
    async () => {
      const dir = unitDir(plain);
      const jobs: (() => Promise<string[]>)[] = [];
      const cut: string[] = [];
      for (const n of NAMES) {
        if (n.endsWith(".cl")) continue;
        const u = unitOf(plain, n);
        if (!u) continue;
        cut.push(`${n}: ${u.defs.join(", ") || "(none)"}${u.excluded.length ? `; not compiled, holding asm the report leaves: ${u.excluded.join("; ")}` : ""}`);
        if (u.defs.length === 0) continue;
        const file = `${n.replace(/\W/g, "_")}.hip`;
        writeFileSync(join(dir, file), u.ported);
        const header = entry(plain, n).header!;
        jobs.push(...hipJobs(dir, file, [STUBS, dirname(header)]));
      }
      console.log(`units cut:\n  ${cut.join("\n  ")}`);
      expect(jobs.length).toBeGreaterThan(0);
      expect(samePerProcessor((await pool(jobs)).flat())).toEqual([]);
    },
    300_000,
  );

  it.skipIf(skipWhy([[NVCC, "nvcc"]]))(
    "the same cut of each original file still builds with nvcc -arch=sm_90 -c",
    async () => {
      const dir = join(unitDir(plain), "nvcc");
      mkdirSync(dir, { recursive: true });
      const jobs: (() => Promise<string | null>)[] = [];
      for (const n of NAMES) {
        if (n.endsWith(".cl")) continue;
        const u = unitOf(plain, n);
        if (!u || u.defs.length === 0) continue;
        const file = `${n.replace(/\W/g, "_")}.cu`;
        writeFileSync(join(dir, file), u.original);
        jobs.push(async () => {
          const r = await exec("nvcc", ["-arch=sm_90", "-c", "-I", STUBS, file, "-o", `${file}.o`], dir);
          return r.status === 0 ? null : `${n}: nvcc: ${r.stderr.trim().split("\n").slice(0, 8).join("\n")}`;
        });
      }
      expect(jobs.length).toBeGreaterThan(0);
      expect((await pool(jobs)).filter((x) => x !== null)).toEqual([]);
    },
    300_000,
  );

  it.skipIf(skipWhy([[CLANG, "clang-19"], [PTXAS, "ptxas"]]))(
    "tinybvh_traverse_cwbvh.cl: the cut of the ported file compiles as OpenCL C for every AMD processor, the cut of the original for NVIDIA (clang-19 nvptx, then ptxas -arch=sm_90)",
    async () => {
      const n = "tinybvh_traverse_cwbvh.cl";
      const u = unitOf(plain, n);
      expect(u, "nothing rewritten in the .cl file").not.toBeNull();
      expect(u!.defs.length, `every definition rewritten holds asm left: ${u!.excluded.join("; ")}`).toBeGreaterThan(0);
      const dir = join(unitDir(plain), "cl");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "port.cl"), u!.ported);
      writeFileSync(join(dir, "orig.cl"), u!.original);
      const inc = ["-I", STUBS, "-I", dirname(entry(plain, n).header!)];
      const jobs: (() => Promise<string | null>)[] = PROCESSORS.map((m) => async () => {
        const r = await exec("clang-19", ["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", `-mcpu=${m}`, "-nogpulib", ...inc, "-c", "port.cl", "-o", `port.${m}.o`], dir);
        return r.status === 0 ? null : `${m}: ${r.stderr.trim().split("\n").slice(0, 8).join("\n")}`;
      });
      jobs.push(async () => {
        const s = await exec("clang-19", ["-x", "cl", "-cl-std=CL2.0", "-fgnu-keywords", "-target", "nvptx64-nvidia-nvcl", "-march=sm_90", ...inc, "-S", "orig.cl", "-o", "orig.ptx"], dir);
        if (s.status !== 0) return `nvptx: ${s.stderr.trim()}`;
        const p = await exec("ptxas", ["-arch=sm_90", "orig.ptx", "-o", "orig.cubin"], dir);
        return p.status === 0 ? null : `ptxas: ${p.stderr.trim()}`;
      });
      expect((await pool(jobs)).filter((x) => x !== null)).toEqual([]);
    },
    300_000,
  );
});
