/**
 * `ptx-lower port` as a command over whole trees (bin/port.ts, bin/port_worker.ts): which
 * files it reads (every C/C++/CUDA/OpenCL extension, `--language`), the options it hands to
 * the engine (`--ptx-target`, `--hip-macro`, `-D`/`-U` in order, `--rename-shared`), the
 * mirrored tree (`-o DIR`, `--copy-all`, distinct header names, `--shared-header`, symbolic
 * links not followed), the worker threads and progress, the totals and `--json` against
 * docs/port.schema.json, that a failed run writes nothing at all, that a header `port` did
 * not write is never replaced, the hint of `lower`/`verify`/`report` for sources, and a run
 * over the real files of ../shared/real-cuda (read in place, written to a temporary
 * directory). Everything is written under temporary directories.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it, vi } from "vitest";
import type { PortOptions } from "../src/port/rewrite.js";
import type { PortCommandOptions } from "../bin/port.js";
import { PORT_EXTENSIONS, PORT_MARK, portCommand, reasonGroup, rowsTable, sourceNotPtx, writeAllOrNothing } from "../bin/port.js";
import { portTreeSources } from "../scripts/bench.js";
import { validate } from "./schema.js";
import type { Schema } from "./schema.js";

// Every portSource call's options, as bin/port.ts passed them (the engine itself runs unchanged).
const seen = vi.hoisted(() => ({ calls: [] as { file: string; opts: Omit<PortOptions, "header"> }[] }));
vi.mock("../src/port/rewrite.js", async (importOriginal) => {
  const orig = await importOriginal<typeof import("../src/port/rewrite.js")>();
  return {
    ...orig,
    portSource: (text: string, file: string, opts: PortOptions) => {
      const { header: _h, ...rest } = opts;
      seen.calls.push({ file, opts: rest });
      return orig.portSource(text, file, opts);
    },
  };
});

const ROOT = join(import.meta.dirname, "..");
const REAL = join(ROOT, "..", "shared", "real-cuda");
const SCHEMA = JSON.parse(readFileSync(join(ROOT, "docs", "port.schema.json"), "utf8")) as Schema;
const read = (p: string) => readFileSync(p, "utf8");
const tmp = () => mkdtempSync(join(tmpdir(), "ptx-lower-port-cli-"));

/** Writes `files` (path relative to `dir` → text) under `dir`, making directories. */
function tree(dir: string, files: Record<string, string | Buffer>): string {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(dir, p, ".."), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  return dir;
}

/** Every file under `dir`, relative, sorted (symbolic links listed, not followed). */
function listing(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out.sort();
}

const SHFL = "__device__ int f(int v){ return __shfl_sync(0xffffffffu, v, 0); }\n";
const BALLOT = "__global__ void g(int *o){ o[0] = __ballot_sync(0xffffffffu, 1); }\n";
const SZEXT = '__device__ unsigned z(unsigned a, unsigned b) { unsigned r; asm("szext.clamp.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }\n';
const SELP = '__device__ int s(int a, int b, int c) { int r; asm("selp.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); return r; }\n';
const NOTHING = "int plain(int x) { return x + 1; }\n";
const OPENCL = 'uint lowb(uint u, uint b) { uint r; asm("szext.clamp.u32 %0, %1, %2;" : "=r"(r) : "r"(u), "r"(b)); return r; }\nkernel void k(global uint *o) { o[0] = lowb(o[1], o[2]); }\n';

/** Runs `portCommand` in this process; captures standard output and error. */
async function runPort(paths: string[], o: PortCommandOptions) {
  let out = "";
  let err = "";
  const so = vi.spyOn(process.stdout, "write").mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  const se = vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  try {
    seen.calls.length = 0;
    const code = await portCommand(paths, o);
    return { code, out, err };
  } finally {
    so.mockRestore();
    se.mockRestore();
  }
}

/** The command line, in a child process. */
const TSX = pathToFileURL(join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;
const cli = (args: string[], opts: { cwd?: string; input?: string } = {}) =>
  spawnSync(process.execPath, ["--import", TSX, join(ROOT, "bin", "ptx-lower.ts"), ...args], { cwd: opts.cwd ?? ROOT, encoding: "utf8", input: opts.input ?? "" });

describe("port: what it reads", () => {
  it("every C/C++/CUDA/OpenCL extension of a CUDA tree, in a directory and named directly; .cl is OpenCL, the rest CUDA, and the engine is told", async () => {
    const dir = tmp();
    const files = Object.fromEntries(PORT_EXTENSIONS.map((e) => [`src/k${e}`, e === ".cl" ? OPENCL : SHFL]));
    tree(dir, { ...files, "src/README.md": SHFL, "src/k.py": SHFL });
    const r = await runPort([join(dir, "src")], { json: true });
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out);
    expect(validate(SCHEMA, SCHEMA, doc)).toEqual([]);
    expect(doc.files.map((f: { input: string; language: string; error: null }) => `${relative(dir, f.input)} ${f.language} ${f.error}`).sort()).toEqual(
      PORT_EXTENSIONS.map((e) => `src/k${e} ${e === ".cl" ? "opencl" : "cuda"} null`).sort(),
    );
    expect(seen.calls.map((c) => `${relative(dir, c.file)} ${c.opts.language}`).sort()).toEqual(PORT_EXTENSIONS.map((e) => `src/k${e} ${e === ".cl" ? "opencl" : "cuda"}`).sort());
    // .hpp and .hxx named directly: ported (the reproduction), not refused.
    for (const e of [".hpp", ".hxx"]) {
      const one = await runPort([join(dir, "src", `k${e}`)], { output: join(dir, `out${e}`) });
      expect(one.code, one.err).toBe(0);
      expect(read(join(dir, `out${e}`))).toContain("ptxl_shfl_sync(0xffffffffu, v, 0)");
    }
  });

  it("any other name is refused, saying --language ports it; --language sets the language of every file named and of standard input", async () => {
    const dir = tree(tmp(), { "k.txt": OPENCL, "k.cu": SHFL });
    const r = await runPort([join(dir, "k.txt")], { output: join(dir, "o.txt") });
    expect(r.code).toBe(1);
    expect(r.err).toBe(`${join(dir, "k.txt")}: error: not a C/C++/CUDA/HIP/OpenCL source by its name (${PORT_EXTENSIONS.join(" ")}); --language cuda or --language opencl ports it anyway\n`);
    expect(readdirSync(dir).sort()).toEqual(["k.cu", "k.txt"]);
    const l = await runPort([join(dir, "k.txt"), join(dir, "k.cu")], { json: true, language: "opencl" });
    expect(l.code, l.err).toBe(0);
    expect(seen.calls.map((c) => c.opts.language)).toEqual(["opencl", "opencl"]);
    // Standard input: by --language (default cuda); the document says which.
    const s = cli(["port", "-", "--json", "--language", "opencl"], { input: OPENCL });
    expect(s.status, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout).files[0]).toMatchObject({ input: "<stdin>", language: "opencl" });
    expect(JSON.parse(s.stdout).options).toMatchObject({ language: "opencl" });
    const bad = cli(["port", "-", "--language", "fortran"], { input: SHFL });
    expect(bad.status).toBe(1);
    expect(bad.stderr.split("\n")[0]).toMatch(/^ptx-lower: error: .*--language must be one of cuda, opencl/);
  }, 60_000);
});

describe("port: the options handed to the engine", () => {
  it("the header is made in the file's language, with ptxl_warpSize when the file's warpSize uses were rewritten", async () => {
    const dir = tree(tmp(), { "w.cu": "__device__ int lane() { return threadIdx.x % warpSize + __shfl_sync(0xffffffffu, 1, 0); }\n", "k.cl": OPENCL, "s.cu": SHFL });
    const extras: Record<string, unknown> = {};
    const header: PortCommandOptions["header"] = async (_m, banner, _p, extra) => ((extras[banner.split("\n")[1]!.split(" ")[2]!] = extra), "// header\n");
    const r = await runPort([join(dir, "w.cu"), join(dir, "k.cl"), join(dir, "s.cu")], { json: true, header });
    expect(r.code, r.err).toBe(0);
    const doc = JSON.parse(r.out);
    const rewroteWarpSize = doc.files[0].warpSize.some((w: { status: string }) => w.status === "rewritten");
    expect(extras).toEqual({ "w.cu": { language: "cuda", warpSize: rewroteWarpSize }, "k.cl": { language: "opencl", warpSize: false }, "s.cu": { language: "cuda", warpSize: false } });
  });

  it("--ptx-target, --hip-macro, -D/-U in command-line order, --rename-shared reach portSource; the document records them", async () => {
    const dir = tree(tmp(), { "k.cu": SHFL });
    const o: PortCommandOptions = {
      json: true,
      ptxTarget: "sm_100a",
      hipMacro: ["GGML_USE_HIP", "USE_AMD_ROCM"],
      predefined: [{ define: "A", value: "1" }, { undef: "B" }, { define: "C", value: "2" }, { undef: "A" }],
      renameShared: true,
    };
    const r = await runPort([join(dir, "k.cu")], o);
    expect(r.code, r.err).toBe(0);
    expect(seen.calls[0]!.opts).toMatchObject({ ptxTarget: "sm_100a", hipMacros: ["GGML_USE_HIP", "USE_AMD_ROCM"], predefined: o.predefined, renameShared: true, language: "cuda" });
    const doc = JSON.parse(r.out);
    expect(doc.options).toEqual({ language: null, ptxTarget: "sm_100a", hipMacros: ["GGML_USE_HIP", "USE_AMD_ROCM"], predefined: o.predefined, renameShared: true });
    // Without them: nothing pinned, nothing predefined.
    await runPort([join(dir, "k.cu")], { json: true });
    expect(seen.calls[0]!.opts).toMatchObject({ hipMacros: [], predefined: [], renameShared: false });
    expect(seen.calls[0]!.opts.ptxTarget).toBeUndefined();
  });

  it("the command line keeps -D and -U in order (-D NAME is 1, -D NAME= is empty), and a bad value is a usage error naming it", () => {
    const dir = tree(tmp(), { "k.cu": SHFL });
    const r = cli(["port", join(dir, "k.cu"), "--json", "-D", "A", "-U", "B", "-DC=2", "--undefine", "A", "-D", "E=", "--hip-macro", "X_HIP", "--hip-macro", "Y", "--ptx-target", "sm_70", "--rename-shared"]);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).options).toEqual({
      language: null,
      ptxTarget: "sm_70",
      hipMacros: ["X_HIP", "Y"],
      predefined: [{ define: "A", value: "1" }, { undef: "B" }, { define: "C", value: "2" }, { undef: "A" }, { define: "E", value: "" }],
      renameShared: true,
    });
    for (const [args, what] of [
      [["--ptx-target", "sm_999"], "--ptx-target sm_999: not a target ptxas 13.0 knows"],
      [["--ptx-target", "compute_90"], "--ptx-target compute_90: not a target"],
      [["--hip-macro", "9X"], "--hip-macro 9X: not a macro name"],
      [["-D", "1A=2"], "-D 1A=2: not NAME or NAME=VALUE"],
      [["-U", "A=1"], "-U A=1: not a macro name"],
      [["--jobs", "0"], "--jobs"],
    ] as const) {
      const b = cli(["port", join(dir, "k.cu"), "--json", ...args]);
      expect(b.status, args.join(" ")).toBe(1);
      expect(b.stderr.split("\n")[0], args.join(" ")).toContain(what);
      expect(b.stderr).not.toMatch(/\n\s+at /);
    }
  }, 120_000);
});

describe("port: whole trees", () => {
  it("mirrors the tree under -o DIR: a directory's files by their relative paths, a file named by its name; links not followed and reported; unchanged files only with --copy-all; the include path last", async () => {
    const dir = tmp();
    tree(dir, { "src/a.cu": SHFL + SZEXT, "src/sub/b.cuh": BALLOT, "src/sub/c.h": NOTHING, "src/sub/deeper/d.inl": SELP, "lone/e.hpp": SHFL, "src/notes.txt": SHFL });
    symlinkSync(join(dir, "lone", "e.hpp"), join(dir, "src", "link.cu"));
    symlinkSync(join(dir, "lone"), join(dir, "src", "linkdir"));
    const out = join(dir, "out");
    const r = await runPort([join(dir, "src"), join(dir, "lone", "e.hpp")], { output: out });
    expect(r.code, r.err).toBe(0);
    expect(listing(out)).toEqual(["a.cu", "a.hip.h", "e.hip.h", "e.hpp", "sub/b.cuh", "sub/b.hip.h"]);
    expect(read(join(out, "sub", "b.cuh"))).toContain('#include "b.hip.h"');
    expect(read(join(out, "a.hip.h"))).toContain(PORT_MARK);
    // d.inl: its one statement is left, nothing rewritten: not written; c.h likewise.
    const lines = r.out.trimEnd().split("\n");
    expect(lines.at(-3)).toBe(`build the mirror with the include path: -I ${out} -I ${join(dir, "src")} -I ${join(dir, "lone")}`);
    expect(lines.at(-2)).toBe(`compile a ported file as HIP: clang-19 -x hip --offload-arch=gfx90a -include hip/hip_runtime.h -I ${out} -I ${join(dir, "src")} -I ${join(dir, "lone")} -c FILE`);
    expect(r.out).toContain(`${join(dir, "src", "link.cu")}: note: skipped, a symbolic link: not followed`);
    expect(r.out).toContain(`${join(dir, "src", "linkdir")}: note: skipped, a symbolic link: not followed`);
    expect(lines.at(-4)).toMatch(/^2 asm statements: 1 rewritten, 1 left; 3 CUDA warp intrinsic calls rewritten; wrote 6 files under /);
    // --copy-all: the unchanged sources too, byte-identical; no include path (the mirror holds every source).
    const all = join(dir, "all");
    const c = await runPort([join(dir, "src")], { output: all, copyAll: true, json: true });
    expect(c.code, c.err).toBe(0);
    expect(listing(all)).toEqual(["a.cu", "a.hip.h", "sub/b.cuh", "sub/b.hip.h", "sub/c.h", "sub/deeper/d.inl"]);
    expect(read(join(all, "sub", "c.h"))).toBe(NOTHING);
    expect(read(join(all, "sub", "deeper", "d.inl"))).toBe(SELP);
    const doc = JSON.parse(c.out);
    expect(validate(SCHEMA, SCHEMA, doc)).toEqual([]);
    expect(doc.includePath).toBeNull();
    expect(doc.skipped.map((s: { path: string }) => relative(dir, s.path))).toEqual(["src/link.cu", "src/linkdir"]);
    expect(doc.files.map((f: { input: string; state: string; output: string | null }) => `${relative(dir, f.input)} ${f.state} ${f.output === null ? "-" : relative(all, f.output)}`)).toEqual([
      "src/a.cu ported a.cu",
      "src/sub/b.cuh ported sub/b.cuh",
      "src/sub/c.h unchanged sub/c.h",
      "src/sub/deeper/d.inl unchanged sub/deeper/d.inl",
    ]);
  });

  it("an output directory inside the source directory is not searched on the next run", async () => {
    const dir = tree(tmp(), { "src/a.cu": SHFL });
    const out = join(dir, "src", "ported");
    expect((await runPort([join(dir, "src")], { output: out })).code).toBe(0);
    const again = await runPort([join(dir, "src")], { output: out, json: true });
    expect(again.code, again.err).toBe(0);
    const doc = JSON.parse(again.out);
    expect(doc.files.map((f: { input: string }) => relative(dir, f.input))).toEqual(["src/a.cu"]);
    expect(doc.skipped).toEqual([{ path: out, reason: "the output directory: not searched" }]);
    expect(listing(out)).toEqual(["a.cu", "a.hip.h"]);
    await expect(runPort([join(dir, "src")], { output: join(dir, "src") })).rejects.toThrow(/is the source directory/);
  });

  it("x.cu and x.cuh in one output directory get distinct headers, x.cu.hip.h and x.cuh.hip.h, each included by its own file (the issue's pair: exit 0)", async () => {
    const dir = tree(tmp(), { "pair/k.cuh": SHFL, "pair/k.cu": BALLOT, "pair/other.cu": SHFL });
    const out = join(dir, "out");
    const r = await runPort([join(dir, "pair", "k.cu"), join(dir, "pair", "k.cuh"), join(dir, "pair", "other.cu")], { output: out, json: true });
    expect(r.code, r.err).toBe(0);
    expect(listing(out)).toEqual(["k.cu", "k.cu.hip.h", "k.cuh", "k.cuh.hip.h", "other.cu", "other.hip.h"]);
    expect(read(join(out, "k.cu"))).toContain('#include "k.cu.hip.h"');
    expect(read(join(out, "k.cuh"))).toContain('#include "k.cuh.hip.h"');
    expect(read(join(out, "k.cuh.hip.h"))).toContain("ptxl_shfl_sync");
    expect(read(join(out, "k.cu.hip.h"))).toContain("ptxl_ballot_sync");
    const doc = JSON.parse(r.out);
    expect(doc.files.map((f: { headerName: string; header: string }) => [f.headerName, relative(out, f.header)])).toEqual([
      ["k.cu.hip.h", "k.cu.hip.h"],
      ["k.cuh.hip.h", "k.cuh.hip.h"],
      ["other.hip.h", "other.hip.h"],
    ]);
    // The names depend on the inputs only, not on their order.
    const again = await runPort([join(dir, "pair", "other.cu"), join(dir, "pair", "k.cuh"), join(dir, "pair", "k.cu")], { output: join(dir, "out2") });
    expect(again.code).toBe(0);
    expect(listing(join(dir, "out2"))).toEqual(listing(out));
  });

  it("--shared-header NAME: one header with each function once, included by every ported file by its relative path", async () => {
    const dir = tree(tmp(), { "src/a.cu": SHFL + SZEXT, "src/sub/b.cuh": SHFL + BALLOT + SZEXT, "src/sub/deep/c.cu": BALLOT, "src/sub/k.cl": OPENCL });
    const out = join(dir, "out");
    const r = await runPort([join(dir, "src")], { output: out, sharedHeader: "inc/ptxl.hip.h", json: true });
    expect(r.code, r.err).toBe(0);
    // The OpenCL file keeps a header of its own (another dialect).
    expect(listing(out)).toEqual(["a.cu", "inc/ptxl.hip.h", "sub/b.cuh", "sub/deep/c.cu", "sub/k.cl", "sub/k.hip.h"]);
    expect(read(join(out, "sub", "k.cl"))).toContain('#include "k.hip.h"');
    expect(read(join(out, "a.cu"))).toContain('#include "inc/ptxl.hip.h"');
    expect(read(join(out, "sub", "b.cuh"))).toContain('#include "../inc/ptxl.hip.h"');
    expect(read(join(out, "sub", "deep", "c.cu"))).toContain('#include "../../inc/ptxl.hip.h"');
    const h = read(join(out, "inc", "ptxl.hip.h"));
    expect(h).toContain(PORT_MARK);
    expect(h).toContain("The functions the 3 files ported into");
    expect(h).not.toContain("OpenCL C functions");
    for (const fn of ["ptxl_shfl_sync", "ptxl_ballot_sync", "szext_clamp_u32__v_v"]) expect(h.match(new RegExp(`\\b${fn}\\(`, "g"))?.length, fn).toBeGreaterThanOrEqual(1);
    expect(h.match(/#define PTX_LOWER_HIP_szext_clamp_u32__v_v\b/g)?.length).toBe(1);
    const doc = JSON.parse(r.out);
    expect(validate(SCHEMA, SCHEMA, doc)).toEqual([]);
    expect(doc.sharedHeader).toBe(join(out, "inc", "ptxl.hip.h"));
    expect(doc.files.map((f: { headerName: string; header: string | null }) => `${f.headerName} ${f.header === null ? null : relative(out, f.header)}`)).toEqual(["inc/ptxl.hip.h inc/ptxl.hip.h", "../inc/ptxl.hip.h inc/ptxl.hip.h", "../../inc/ptxl.hip.h inc/ptxl.hip.h", "k.hip.h sub/k.hip.h"]);
    await expect(runPort([join(dir, "src")], { output: out, sharedHeader: "../x.h" })).rejects.toThrow(/--shared-header \.\.\/x\.h: name a file inside the output directory/);
    await expect(runPort([join(dir, "src", "a.cu")], { output: join(dir, "one.cu"), sharedHeader: "x.h" })).rejects.toThrow(/--shared-header is for a directory output/);
  });

  it("many files run on worker threads with the same result as one thread; progress lines on a log; the totals group what is left by instruction and rank the blockers", async () => {
    const dir = tmp();
    const files: Record<string, string> = {};
    for (let k = 0; k < 40; k++) files[`src/d${k % 3}/f${k}.cu`] = `${k % 2 ? SHFL : BALLOT}${SZEXT}${k % 4 === 0 ? SELP : ""}${k % 8 === 0 ? '__device__ int m(int a) { int r; asm("mov.b32 %0, %1;" : "=r"(r) : "r"(a)); return r; }\n' : ""}`;
    tree(dir, files);
    const one = await runPort([join(dir, "src")], { output: join(dir, "one"), json: true, jobs: 1 });
    expect(one.code, one.err).toBe(0);
    const two = cli(["port", join(dir, "src"), "-o", join(dir, "two"), "--json", "--jobs", "2"]);
    expect(two.status, two.stderr).toBe(0);
    expect(listing(join(dir, "two"))).toEqual(listing(join(dir, "one")));
    for (const f of listing(join(dir, "one"))) expect(read(join(dir, "two", f)), f).toBe(read(join(dir, "one", f)));
    const strip = (s: string) => JSON.parse(s.replaceAll(join(dir, "two"), "OUT").replaceAll(join(dir, "one"), "OUT"));
    expect(strip(two.stdout)).toEqual(strip(one.out));
    // Standard error is a pipe here: a line per twentieth of the files.
    // (bin/progress.ts: and one at least every 10 s while files are done.)
    expect(two.stderr.split("\n").filter((l) => /^port: \d+\/40 files done, \d+\.\d s(, about \d+ s left)?$/.test(l)).length).toBeGreaterThanOrEqual(20);
    expect(two.stderr).toMatch(/^port: 40\/40 files done, \d+\.\d s$/m);
    const doc = strip(one.out);
    expect(validate(SCHEMA, SCHEMA, doc)).toEqual([]);
    expect(doc.totals.files).toEqual({ inputs: 40, ported: 40, unchanged: 0, alreadyPorted: 0, failed: 0, written: 40, skipped: 0 });
    expect(doc.totals.statements.total).toBe(40 + 10 + 5);
    expect(doc.totals.statements.left).toBe(15);
    expect(doc.totals.statements.leftByReason).toEqual([
      { reason: "blocked by selp", instruction: "selp", statements: 10 },
      { reason: "blocked by mov", instruction: "mov", statements: 5 },
    ]);
    expect(doc.totals.blocking).toEqual([
      { instruction: "selp", statements: 10 },
      { instruction: "mov", statements: 5 },
    ]);
    expect(doc.totals.intrinsics).toEqual({ rewritten: 40, left: 0, rewrittenByLiveness: { live: 40, dead: 0, depends: 0 } });
    // The text: the totals table and the ranking.
    const t = await runPort([join(dir, "src")], { json: false, output: join(dir, "three"), jobs: 1 });
    expect(t.out).toMatch(/│ +left: blocked by selp +│ 10 +│/);
    expect(t.out).toMatch(/│ 1 +│ selp +│ 10 +│\n│ 2 +│ mov +│ 5 +│/);
    expect(t.out).toMatch(/│ files +│ 40 ported, 0 unchanged, 0 failed +│/);
  }, 120_000);

  it("the report names files as they were written (x.hip, x.hip.h: not ./x.hip.h)", () => {
    const dir = tree(tmp(), { "x.cu": SHFL });
    const r = cli(["port", "x.cu", "-o", "x.hip"], { cwd: dir });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split("\n").at(-3)).toBe("0 asm statements: 0 rewritten, 0 left; 1 CUDA warp intrinsic call rewritten; wrote x.hip, x.hip.h");
    expect(r.stdout.trimEnd().split("\n").at(-2)).toBe("compile a ported file as HIP: clang-19 -x hip --offload-arch=gfx90a -include hip/hip_runtime.h -c x.hip");
    expect(readdirSync(dir).sort()).toEqual(["x.cu", "x.hip", "x.hip.h"]);
  }, 60_000);
});

describe("port: the report's tables", () => {
  it("the per-row table is linear: 20,000 rows as plain aligned columns in well under a second (cli-table3 took ~40 s); a few hundred in cli-table3's box", async () => {
    const rows = Array.from({ length: 20_000 }, (_, k) => [`dir/file${k % 1000}.cu`, `${k + 1}:5`, k % 3 ? "rewritten" : "left", k % 3 ? "szext.clamp.u32" : "12:9: 'selp.s32' is not an instruction ptx-lower supports", ""]);
    const t0 = performance.now();
    const text = await rowsTable(["file", "at", "status", "forms / reason", "calls"], rows);
    expect(performance.now() - t0).toBeLessThan(2000);
    const lines = text.split("\n");
    expect(lines.length).toBe(20_001);
    // Aligned: each column starts where its head does, two blanks after the widest cell before it.
    expect(lines[0]!.startsWith("file" + " ".repeat("dir/file999.cu".length - 4 + 2) + "at")).toBe(true);
    for (const k of [1, 2, 20_000]) for (const [c, head] of [[1, "at"], [2, "status"], [3, "forms / reason"]] as const) expect(lines[k]!.indexOf(rows[k - 1]![c]!, lines[0]!.indexOf(head) - 1)).toBe(lines[0]!.indexOf(head));
    expect(lines[2]).toBe("dir/file1.cu    2:5      rewritten  szext.clamp.u32");
    const small = await rowsTable(["a", "b"], [["1", "2"]]);
    expect(small).toContain("│ 1 │ 2 │");
  });

  it("reasons group by the instruction that blocks them; others by their wording", () => {
    expect(reasonGroup("'selp.s32' is not an instruction ptx-lower supports")).toEqual({ group: "blocked by selp", instruction: "selp" });
    expect(reasonGroup("inside a macro body: with the use at 3:4: 'vadd4.u32.u32.u32' is not an instruction ptx-lower supports")).toEqual({ group: "blocked by vadd4", instruction: "vadd4" });
    expect(reasonGroup('operand %2: constraint "x" is not one of r, l, h, f, d, n (or a matching digit)')).toEqual({ group: 'constraint "…" is not one of r, l, h, f, d, n', instruction: null });
    expect(reasonGroup("malformed asm statement: no ')' closes the operands")).toEqual({ group: "malformed asm statement", instruction: null });
  });
});

describe("port: a failed run writes nothing", () => {
  it("the issue's run: two inputs that would write one path and a missing one: one line per problem, exit 1, no output directory", async () => {
    const dir = tree(tmp(), { "a/k.cu": BALLOT, "b/k.cu": BALLOT });
    const out3 = join(dir, "out3");
    const r = await runPort([join(dir, "a", "k.cu"), join(dir, "b", "k.cu"), join(dir, "missing.cu")], { output: out3 });
    expect(r.code).toBe(1);
    expect(r.err.split("\n").filter(Boolean).sort()).toEqual([`${join(dir, "missing.cu")}: error: cannot read: no such file`, `${join(out3, "k.cu")}: error: ${join(dir, "a", "k.cu")} and ${join(dir, "b", "k.cu")} would both be written here`].sort());
    expect(r.out).toBe("");
    expect(existsSync(out3)).toBe(false);
    // The command line too.
    const c = cli(["port", join(dir, "a", "k.cu"), join(dir, "b", "k.cu"), join(dir, "missing.cu"), "-o", out3]);
    expect(c.status).toBe(1);
    expect(c.stderr.split("\n").filter(Boolean).length).toBe(2);
    expect(existsSync(out3)).toBe(false);
    // Two source directories with the same relative path: the same.
    tree(dir, { "s1/x/y.cu": SHFL, "s2/x/y.cu": SHFL });
    const d = await runPort([join(dir, "s1"), join(dir, "s2")], { output: join(dir, "o", "deep") });
    expect(d.code).toBe(1);
    expect(d.err).toBe(`${join(dir, "o", "deep", "x", "y.cu")}: error: ${join(dir, "s1", "x", "y.cu")} and ${join(dir, "s2", "x", "y.cu")} would both be written here\n`);
    expect(existsSync(join(dir, "o"))).toBe(false);
  }, 60_000);

  it("a binary file in a tree, or a directory that cannot be read: nothing written, not even directories; --json still prints the document", async () => {
    const dir = tree(tmp(), { "src/a.cu": SHFL, "src/z/bin.cu": Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]) });
    const out = join(dir, "new", "out");
    const r = await runPort([join(dir, "src")], { output: out });
    expect(r.code).toBe(1);
    expect(r.err).toBe(`${join(dir, "src", "z", "bin.cu")}: error: a binary file (a NUL byte at offset 4), not a C/C++/CUDA/HIP/OpenCL source\n`);
    expect(existsSync(join(dir, "new"))).toBe(false);
    const j = await runPort([join(dir, "src")], { output: out, json: true });
    expect(j.code).toBe(1);
    const doc = JSON.parse(j.out);
    expect(validate(SCHEMA, SCHEMA, doc)).toEqual([]);
    expect(doc.files.map((f: { state: string; output: string | null; error: string | null }) => [f.state, f.output, f.error !== null])).toEqual([
      ["ported", null, false],
      ["failed", null, true],
    ]);
    expect(existsSync(join(dir, "new"))).toBe(false);
  });

  it("a write that fails halfway removes the directories it created, and leaves no file", () => {
    const dir = tmp();
    const a = join(dir, "new", "deep", "a.cu");
    expect(() => writeAllOrNothing([{ path: a, text: "x" }, { path: "/dev/full", text: "y".repeat(10) }], [])).toThrow(/cannot write \/dev\/full: no space left on device/);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("port: headers it did not write", () => {
  it("an existing STEM.hip.h without the ptx-lower banner is never replaced: the run is refused naming it, nothing written; --header NAME writes elsewhere; its own header is replaced", async () => {
    const dir = tree(tmp(), { "x.cu": SHFL, "out/x.hip.h": "// my own header\n" });
    const r = await runPort([join(dir, "x.cu")], { output: join(dir, "out", "x.hip") });
    expect(r.code).toBe(1);
    expect(r.err).toBe(`${join(dir, "out", "x.hip.h")}: error: exists and was not written by ptx-lower port (no ptx-lower banner): it is not replaced; name another place for the header with --header NAME, or move it\n`);
    expect(listing(join(dir, "out"))).toEqual(["x.hip.h"]);
    expect(read(join(dir, "out", "x.hip.h"))).toBe("// my own header\n");
    // The same in a directory output.
    const d = await runPort([join(dir, "x.cu")], { output: join(dir, "out") });
    expect(d.code).toBe(1);
    expect(listing(join(dir, "out"))).toEqual(["x.hip.h"]);
    // --header NAME: written there, included by its path relative to the ported file.
    const h = await runPort([join(dir, "x.cu")], { output: join(dir, "out", "x.hip"), headerPath: join(dir, "inc", "x.ported.h") });
    expect(h.code, h.err).toBe(0);
    expect(read(join(dir, "out", "x.hip"))).toContain('#include "../inc/x.ported.h"');
    expect(read(join(dir, "inc", "x.ported.h"))).toContain(PORT_MARK);
    expect(read(join(dir, "out", "x.hip.h"))).toBe("// my own header\n");
    await expect(runPort([join(dir, "x.cu"), join(dir, "x.cu")], { output: join(dir, "o2"), headerPath: "h.h" })).rejects.toThrow(/--header NAME is for one input file/);
    // --header naming a file port did not write: refused too.
    const named = await runPort([join(dir, "x.cu")], { output: join(dir, "o3", "x.hip"), headerPath: join(dir, "out", "x.hip.h") });
    expect(named.code).toBe(1);
    expect(named.err).toBe(`${join(dir, "out", "x.hip.h")}: error: exists and was not written by ptx-lower port (no ptx-lower banner): it is not replaced; name with --header a file that does not exist yet, or one port wrote\n`);
    expect(named.out.trimEnd().split("\n").at(-1)).toBe("nothing was written: 1 problem (the error lines above)");
    expect(existsSync(join(dir, "o3"))).toBe(false);
    // A header port wrote (its banner) is replaced as before.
    const again = await runPort([join(dir, "x.cu")], { output: join(dir, "own", "x.hip") });
    expect(again.code).toBe(0);
    writeFileSync(join(dir, "own", "x.hip.h"), read(join(dir, "own", "x.hip.h")) + "// stale\n");
    const third = await runPort([join(dir, "x.cu")], { output: join(dir, "own", "x.hip") });
    expect(third.code).toBe(0);
    expect(read(join(dir, "own", "x.hip.h"))).not.toContain("// stale");
  });
});

describe("lower, verify and report given a source", () => {
  it("say in one line that port is the command for sources, exit 1", () => {
    const dir = tree(tmp(), { "x.cu": SHFL, "k.cl": OPENCL, "ok.ptx": ".version 9.0\n.target sm_90\n.address_size 64\n" });
    expect(sourceNotPtx("a/x.cu")).toBe("a/x.cu: error: a CUDA/C++ source, not PTX: use 'ptx-lower port a/x.cu'");
    expect(sourceNotPtx("it's.cl")).toBe("it's.cl: error: an OpenCL source, not PTX: use 'ptx-lower port 'it'\\''s.cl''");
    expect(sourceNotPtx("x.ptx")).toBeNull();
    for (const args of [["lower", "x.cu"], ["verify", "x.cu"], ["report", "ok.ptx", "k.cl"]]) {
      const r = cli(args, { cwd: dir });
      expect(r.status, args.join(" ")).toBe(1);
      const src = args.at(-1)!;
      expect(r.stderr, args.join(" ")).toBe(`${src}: error: ${src.endsWith(".cl") ? "an OpenCL source" : "a CUDA/C++ source"}, not PTX: use 'ptx-lower port ${src}'\n`);
      expect(r.stdout).toBe("");
    }
  }, 60_000);
});

describe("npm run bench's port-tree input", () => {
  it("1,000 files holding 20,000 asm statements, and one file of the same statements", () => {
    const g = portTreeSources();
    expect(g.files.length).toBe(1000);
    expect(g.statements).toBe(20_000);
    expect(g.files.reduce((n, f) => n + (f.text.match(/\basm\b/g)?.length ?? 0), 0)).toBe(20_000);
    expect(g.one.match(/\basm\b/g)?.length).toBe(20_000);
    expect(new Set(g.files.map((f) => f.path)).size).toBe(1000);
  });
});

describe("../shared/real-cuda (read in place)", () => {
  it.skipIf(!existsSync(REAL))("port DIR -o X: every file accepted (the .hpp, .hxx and .cl too), the document valid, the tree mirrored", () => {
    const out = join(tmp(), "x");
    const r = cli(["port", REAL, "-o", out, "--json"]);
    expect(r.status, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(validate(SCHEMA, SCHEMA, doc)).toEqual([]);
    const sources = readdirSync(REAL).filter((f) => PORT_EXTENSIONS.some((e) => f.endsWith(e)));
    expect(sources.length).toBeGreaterThanOrEqual(9);
    expect(doc.files.map((f: { input: string }) => relative(REAL, f.input)).sort()).toEqual(sources.sort());
    expect(doc.files.filter((f: { error: string | null }) => f.error !== null)).toEqual([]);
    expect(doc.totals.files.failed).toBe(0);
    expect(doc.totals.statements.total).toBe(doc.summary.statements);
    expect(doc.includePath).toEqual(["-I", out, "-I", REAL]);
    for (const f of doc.files as { output: string | null; header: string | null }[]) {
      if (f.output !== null) expect(existsSync(f.output)).toBe(true);
      if (f.header !== null) expect(read(f.header)).toContain(PORT_MARK);
    }
  }, 120_000);
});

describe("port: a fresh tester's findings about the command, each its reproducer", () => {
  const cliRun = (args: string[]) => spawnSync("npx", ["tsx", join(ROOT, "bin", "ptx-lower.ts"), ...args], { encoding: "utf8", cwd: ROOT });
  it("a user's file where an output would go is never replaced (an output directory inside the source tree): refused, nothing written", () => {
    const d = mkdtempSync(join(tmpdir(), "ptx-lower-port-own-"));
    mkdirSync(join(d, "src", "sub"), { recursive: true });
    writeFileSync(join(d, "src", "a.cu"), "__device__ int top(int v){ return __shfl_sync(0xffffffffu, v, 0); }\n");
    writeFileSync(join(d, "src", "sub", "a.cu"), "// MY SOURCE\n__device__ int mine(int v){ return v; }\n");
    const r = cliRun(["port", join(d, "src"), "-o", join(d, "src", "sub")]);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${join(d, "src", "sub", "a.cu")}: error: exists and is not an output of ptx-lower port: it is not replaced`);
    expect(readFileSync(join(d, "src", "sub", "a.cu"), "utf8")).toBe("// MY SOURCE\n__device__ int mine(int v){ return v; }\n");
    // Port's own output of an earlier run is replaced.
    const o = join(d, "out");
    expect(cliRun(["port", join(d, "src", "a.cu"), "-o", o + "/"]).status).toBe(0);
    expect(cliRun(["port", join(d, "src", "a.cu"), "-o", o + "/"]).status).toBe(0);
  });
  it("header names: k.hip beside k.hip.h get distinct ones; a name with a quote is written as it is included; --header on the output is a collision", () => {
    const d = mkdtempSync(join(tmpdir(), "ptx-lower-port-names-"));
    mkdirSync(join(d, "t"));
    writeFileSync(join(d, "t", "k.hip"), '#include "k.hip.h"\n__global__ void g(int *o){ o[0] = h(__ballot_sync(0xffffffffu, 1)); }\n');
    writeFileSync(join(d, "t", "k.hip.h"), "__device__ int h(int v){ return __shfl_sync(0xffffffffu, v, 0); }\n");
    const r = cliRun(["port", join(d, "t"), "-o", join(d, "o")]);
    expect(r.status, r.stderr).toBe(0);
    const names = readdirSync(join(d, "o")).sort();
    expect(names).toHaveLength(4);
    for (const f of ["k.hip", "k.hip.h"]) {
      const inc = /#include "([^"]+)"/.exec(readFileSync(join(d, "o", f), "utf8").split("#else")[0]!)![1]!;
      expect(names).toContain(inc);
    }
    const q = join(d, "q'uo\"te.cu");
    writeFileSync(q, "__device__ int f(int v){ return __shfl_sync(0xffffffffu, v, 0); }\n");
    expect(cliRun(["port", q, "-o", join(d, "o2") + "/"]).status).toBe(0);
    expect(readdirSync(join(d, "o2")).sort()).toEqual(["q'uo\"te.cu", "q'uo_te.hip.h"]);
    const same = cliRun(["port", q, "-o", join(d, "o3", "x.cu"), "--header", join(d, "o3", "x.cu")]);
    expect(same.status).toBe(1);
    expect(existsSync(join(d, "o3"))).toBe(false);
  });
  it("an unported file that includes a ported one by a quoted #include is named: the mirror alone does not build it", () => {
    const d = mkdtempSync(join(tmpdir(), "ptx-lower-port-inc-"));
    mkdirSync(join(d, "s", "sub"), { recursive: true });
    writeFileSync(join(d, "s", "sub", "b.cuh"), '__device__ unsigned h(unsigned v){ unsigned r; asm("szext.clamp.u32 %0, %1, 3;" : "=r"(r) : "r"(v)); return r; }\n');
    writeFileSync(join(d, "s", "sub", "user.cu"), '#include "b.cuh"\n__global__ void k(unsigned *o){ o[0]=h(o[1]); }\n');
    const r = cliRun(["port", join(d, "s"), "-o", join(d, "o")]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`${join(d, "s", "sub", "user.cu")}: note: its #include "b.cuh" names a ported file`);
  });
});

describe("port: line endings and counts in what the command writes", () => {
  it("a CRLF source gets a CRLF header; a shared header is counted once in 'wrote'", () => {
    const d = mkdtempSync(join(tmpdir(), "ptx-lower-port-crlf-"));
    writeFileSync(join(d, "c.cu"), "__device__ int f(int v){ return __shfl_sync(0xffffffffu, v, 0); }\r\n");
    const r = spawnSync("npx", ["tsx", join(ROOT, "bin", "ptx-lower.ts"), "port", join(d, "c.cu"), "-o", join(d, "o") + "/"], { encoding: "utf8", cwd: ROOT });
    expect(r.status, r.stderr).toBe(0);
    const h = readFileSync(join(d, "o", "c.hip.h"), "utf8");
    expect(h).toContain("\r\n");
    expect(h).not.toMatch(/[^\r]\n/);
    writeFileSync(join(d, "e.cu"), "__device__ int g(int v){ return __ballot_sync(0xffffffffu, v); }\n");
    const s = spawnSync("npx", ["tsx", join(ROOT, "bin", "ptx-lower.ts"), "port", join(d, "c.cu"), join(d, "e.cu"), "-o", join(d, "s"), "--shared-header", "all.hip.h"], { encoding: "utf8", cwd: ROOT });
    expect(s.status, s.stderr).toBe(0);
    expect(readdirSync(join(d, "s")).sort()).toEqual(["all.hip.h", "c.cu", "e.cu"]);
    expect(s.stdout).toMatch(/; wrote [^\n]*\n/);
    expect(/; wrote ([^\n]*)\n/.exec(s.stdout)![1]!.split(", ")).toHaveLength(3);
  });
});
