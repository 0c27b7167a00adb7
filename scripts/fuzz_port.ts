/**
 * @fileoverview Fuzzing `ptx-lower port` (issue 34 item 6): generated C/C++/CUDA/OpenCL
 * sources and mutations of real ones through `portSource` (src/port/rewrite.ts), and a sample
 * through the command (`portCommand`, bin/port.ts, in-process; a few through the real CLI).
 * `npm run fuzz` runs ≥ 100,000 inputs in worker processes under a watchdog;
 * test/port_fuzz.test.ts runs a seeded 5,000 in CI.
 *
 * The inputs (a pure function of (seed, index), so any finding is reproducible from its index):
 *   gen       a generated file: functions holding asm statements of every shape GCC accepts
 *             (`asm`/`__asm`/`__asm__`; `volatile`/`inline`/`goto` in any order; templates
 *             split over adjacent literals and lines; `%N`, `%[name]`, `%%`; constraints
 *             `=r +r r l h f d n 0`; clobbers, `::`, goto labels) and many it does not
 *             (unbalanced brackets, missing colons, unterminated literals), supported and
 *             unsupported PTX, `{ .reg .pred p; … }` blocks, guards `@p`; statements at a line's
 *             start, after and before code, two on a line, under `if`/`else`/`case`, in
 *             expressions; object- and function-like macros with asm in their bodies
 *             (stringized constraints, continuation lines); comments, string and character
 *             literals, raw strings, C++ alternative tokens, CUDA warp intrinsic calls in every
 *             spelling, `warpSize`; `#if/#elif/#else/#endif` nests; LF, CRLF or mixed line
 *             breaks, tabs, a byte order mark, Latin-1 characters (non-UTF-8 bytes through
 *             the command);
 *   mutation  byte- and line-level mutations (with generated snippets spliced in) of the real
 *             files in ../shared/real-cuda (read in place, never copied) and of examples/*.cu
 *             and test/port/* (`.cu`, `.hip`);
 *   huge      a generated file of ≥ 1 MB (one input in 20,000).
 *
 * Per input, a finding is any of:
 *   crash          portSource threw;
 *   bad-location   a location of the result (statement, end, intrinsic call, reason, warpSize,
 *                  include, HIP switch) not within the input, or naming another file;
 *   identity       bytes changed outside the rewrites: `undoPort(result.text)`
 *                  (test/port/undo.ts, which knows only the shape `port` writes) differs from
 *                  the input with the two layout changes `port` makes (`portLayout`); when
 *                  nothing was rewritten the text must come back unchanged;
 *   undo-error     the result has a guard of `port`'s without its `#else` or `#endif`;
 *   continued      a line `port` wrote (`#if`, `#else`, `#endif`) continues a line ending in
 *                  a backslash, or ends a `//` comment, so that the preprocessor does not see it;
 *   split-conditional  a rewritten statement holds a conditional directive that does not nest
 *                  within it (`#if A` in the statement, its `#endif` after): its `#else` copy
 *                  then opens or closes a group around port's own guard;
 *   cli-crash      the command threw something else than a usage error (a stack trace);
 *   cli-exit       an exit code other than 0 or 1, or a stack trace on standard error;
 *   cli-wrote      the command failed (exit 1) and wrote something under the output folder;
 *   cli-identity   the file the command wrote (bytes, Latin-1 where the input is not UTF-8) is
 *                  not the input outside the rewrites;
 *   slow / hang    an input over the time bound; a worker that stops answering is killed and its
 *                  input saved.
 * Each distinct finding's first input is saved under --out (default: a folder in the system's
 * temporary directory, not the project: mutations of ../shared/real-cuda are not to be stored
 * in it) with a reduced reproducer.
 *
 * Usage: tsx scripts/fuzz_port.ts [--inputs N] [--seed S] [--workers W] [--timeout-ms T]
 *        [--slow-ms T] [--out DIR] [--from I] [--cli-every K] [--spawn N]
 */
import { fork, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { portSource } from "../src/port/rewrite.js";
import type { PortResult } from "../src/port/rewrite.js";
import { portCommand } from "../bin/port.js";
import { UsageError } from "../bin/output.js";
import { portLayout, undoPort, UndoError } from "../test/port/undo.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The real files of issue 34, read where they are (never copied into the project). */
export const REAL_CUDA = join(ROOT, "../shared/real-cuda");

// =======================================================================================
// Randomness: a pure function of (seed, index)

/** A small deterministic generator (mulberry32 over a hash of seed and index). */
export class Rand {
  private s: number;
  constructor(seed: number, index: number) {
    let h = (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 0x632be5ab, 0xc2b2ae35)) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
    this.s = (h ^ (h >>> 15)) >>> 0;
  }
  /** A uniform 32-bit value. */
  u32(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** An integer in [0, n). */
  int(n: number): number {
    return n <= 1 ? 0 : this.u32() % n;
  }
  /** True with probability p. */
  chance(p: number): boolean {
    return this.u32() / 4294967296 < p;
  }
  /** One element of a non-empty array. */
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
}

// =======================================================================================
// The generator

/** A PTX template with its operands' constraints (`""` when it has none). */
interface Form {
  tpl: string;
  cons: string[];
  /** Needs a `{ .reg .pred p; … }` scope. */
  pred?: boolean;
}

const F = (tpl: string, cons: string, pred = false): Form => ({ tpl, cons: cons ? cons.split(" ") : [], pred });
/** Forms `port` supports (szext, vshl/vshr, the warp family), as CUDA code writes them. */
const SUPPORTED: Form[] = [
  F("szext.clamp.u32 %0, %1, %2;", "=r r r"),
  F("szext.wrap.s32 %0, %1, %2;", "=r r r"),
  F("szext.clamp.s32 %0, %1, 4;", "=r r"),
  F("szext.wrap.u32 %0, %1, 3;", "=r r"),
  F("szext.clamp.u32 %0, %0, %1;", "+r r"),
  F("szext.clamp.s32 %0, 0x80, %1;", "=r r"),
  F("szext.clamp.u32 %0, %1, %2;", "=r r n"),
  F("vshr.u32.u32.u32.clamp.add %0, %1, %2, %3;", "=r r r r"),
  F("vshl.u32.u32.u32.wrap.add %0, %1.b0, %2.b0, %3;", "=r r r r"),
  F("vshl.u32.u32.u32.wrap.add %0, %1.b1, %2.b1, %0;", "+r r r"),
  F("vshl.u32.u32.u32.clamp %0, %1, %2;", "=r r r"),
  F("vshl.u32.u32.u32.sat.clamp %0.b2, %1, %2, %3;", "=r r r r"),
  F("vshr.s32.s32.u32.wrap %0, %1.h1, %2.b0;", "=r r r"),
  F("vshr.s32.s32.u32.clamp.min %0, %2, %1, %1;", "=r r r"),
  F("vshl.u32.s32.u32.sat.wrap.max %0, %1.h1, %2, %1;", "=r r r"),
  F("shfl.sync.idx.b32 %0, %1, %2, %3, %4;", "=r r r r r"),
  F("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;", "=r r r"),
  F("shfl.sync.up.b32 %0|p, %1, 1, 0, 0xffffffff;", "=r r", true),
  F("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;", "=r r r"),
  F("shfl.sync.bfly.b32 %0, %1, %2, 0x1f, 0xffffffff;", "=f f r"),
  F("shfl.sync.down.b32 %0, %1, %2, 0x1f, %3;", "=r r r r"),
  F("vote.sync.ballot.b32 %0, 1, %1;", "=r r"),
  F("vote.sync.ballot.b32 %0, p, %1;", "=r r", true),
  F("vote.sync.all.pred p, 1, 0xffffffff;", "", true),
  F("match.any.sync.b32 %0, %1, %2;", "=r r r"),
  F("match.any.sync.b64 %0, %1, 0xffffffff;", "=r l"),
  F("match.all.sync.b32 %0|p, %1, 0xffffffff;", "=r r", true),
  F("redux.sync.add.u32 %0, %1, 0xffffffff;", "=r r"),
  F("redux.sync.min.s32 %0, %1, %2;", "=r r r"),
  F("redux.sync.or.b32 %0, %1, 0xffffffff;", "=r r"),
  F("redux.sync.max.NaN.f32 %0, %1, 0xffffffff;", "=f f"),
  F("activemask.b32 %0;", "=r"),
  F("bar.warp.sync 0xffffffff;", ""),
  F("bar.warp.sync %0;", "r"),
];
/** Forms it does not (other PTX, deprecated warp forms, nonsense). */
const UNSUPPORTED: Form[] = [
  F("mov.u32 %0, %%laneid;", "=r"),
  F("bfe.u32 %0, %1, %2, %3;", "=r r r r"),
  F("prmt.b32 %0, %1, %2, %3;", "=r r r r"),
  F("not.b32 %0, %0;", "+r"),
  F("setp.ne.u32 p, %1, 0;", "r", true),
  F("ld.global.nc.u32 %0, [%1];", "=r l"),
  F("vote.ballot.b32 %0, 1;", "=r"),
  F("shfl.idx.b32 %0, %1, %2, 0x1f;", "=r r r"),
  F("cvt.u32.u64 %0, %1;", "=r l"),
  F("fma.rz.f32 %0, %1, %2, %3;", "=f f f f"),
  F("cvt.rn.f16.f32 %0, %1;", "=h f"),
  F("mov.b64 %0, %1;", "=d d"),
  F("vadd4.u32.u32.u32.sat %0, %1, %2, %3;", "=r r r r"),
  F("szext.clamp.u32 %0, %1;", "=r r"),
  F("szext.bogus.u32 %0, %1, %2;", "=r r r"),
  F("membar.gl;", ""),
  F("", ""),
  F("trap;", ""),
  F("é.u32 %0;", "=r"),
];

const IDENTS = ["x", "y", "v", "r", "d", "m", "lane", "mask", "acc", "res", "out[0]", "o[i]", "p->f", "s.v", "a[i][j]", "*q"];
const EXPRS = [...IDENTS, "(x + 1)", "x + y", "(unsigned)x", "f(x, y)", "x /* c */", "x\n      ", "__shfl_sync(0xffffffffu, v, 0)", "warpSize", "threadIdx.x % warpSize", "0x1f", "31", "-1", "(x)", "x ? y : v", "sizeof(int)", "N", "a and b", "not x", "x bitand y", "u8\"s\"[0]", "'\"'", "'\\''"];
const CONSTRAINTS = ["=r", "+r", "r", "l", "h", "f", "d", "n", "0", "1", "=l", "=f", "=h", "=d", "+l", "&r", "=&r", "g", "m", "i", "rn", "=r,r", ""];
const CLOBBERS = ['"memory"', '"cc"', '"r1"', '"memory", "cc"'];
const INTRINSICS = ["__activemask", "__all_sync", "__any_sync", "__uni_sync", "__ballot_sync", "__match_any_sync", "__match_all_sync", "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync", "__syncwarp"];
const ALT = ["and", "or", "not", "xor", "bitand", "bitor", "compl", "and_eq", "or_eq", "xor_eq", "not_eq"];
const COMMENTS = ["// a comment", "/* a comment */", '// asm("szext.clamp.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));', '/* asm volatile("activemask.b32 %0;" : "=r"(m)); */', "/* multi\n   line */", "// ends with a backslash \\", "/**/", "// é ü ∀", "/* \u2028 */", "// __shfl_sync(m, v, 0) warpSize"];
const STRINGS = ['"asm(\\"szext\\")"', '"%0, %1"', '"\\""', "'\"'", "'\\''", "'a'", "u8\"é\"", "L\"wide\"", 'R"(asm("x" : "=r"(y));)"', 'R"d(a )" b)d"', '"#if defined(__HIP__)"', "\"__shfl_sync(\"", "'#'", '"unterminated'];
const PP_CONDS = ["defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700", "0", "1", "defined(__HIP_PLATFORM_AMD__)", "CUDA_VERSION >= 9000", "defined(USE_ROCM)", "__CUDA_ARCH__ >= 800", "defined(GGML_USE_HIP)", "X > 2 || defined(Y)", "defined(__HIP__) && 0"];

/** One asm statement (no `;`), of a random shape; `bad` makes it malformed on purpose. */
export function genAsm(r: Rand, opts: { bad?: boolean; form?: Form; paramNames?: string[] } = {}): string {
  const form = opts.form ?? (r.chance(0.7) ? r.pick(SUPPORTED) : r.pick(UNSUPPORTED));
  const kw = r.pick(["asm", "asm", "asm", "__asm", "__asm__"]);
  const quals: string[] = [];
  for (let k = r.int(4); k > 0; k--) quals.push(r.pick(["volatile", "volatile", "__volatile__", "__volatile", "inline", "__inline__", "goto"]));
  const hasGoto = quals.includes("goto");
  // Template: maybe in a { .reg } scope, maybe guarded, maybe two instructions.
  let tpl = form.tpl;
  if (r.chance(0.15)) tpl = tpl.replace(/%(\d)/g, (m, n: string) => (r.chance(0.5) ? `%[o${n}]` : m));
  if (r.chance(0.1) && form.tpl) tpl = `@p ${tpl}`;
  if (form.pred || tpl.startsWith("@p") || r.chance(0.1)) tpl = `{ .reg .pred p; ${r.chance(0.3) ? "vote.sync.all.pred p, 1, 0xffffffff; " : ""}${tpl} }`;
  if (r.chance(0.08)) tpl += ` ${r.pick(SUPPORTED).tpl}`;
  if (r.chance(0.05)) tpl = tpl.replace("%", "%%");
  if (r.chance(0.05)) tpl += " %9";
  const lit = splitTemplate(r, tpl);
  // Operands.
  const names = opts.paramNames;
  const operand = (c: string, k: number) => {
    const cons = r.chance(0.85) ? c : r.pick(CONSTRAINTS);
    const expr = names && r.chance(0.6) ? r.pick(names) : r.chance(0.7) ? r.pick(IDENTS) : r.pick(EXPRS);
    const name = r.chance(0.15) || tpl.includes(`%[o${k}]`) ? `[o${k}] ` : "";
    const consText = names && r.chance(0.15) ? `"${cons.replace(/[a-z]$/, "")}"#${r.pick(names)}` : `"${cons}"`;
    return `${name}${consText}(${expr})`;
  };
  const outs = form.cons.map((c, k) => [c, k] as const).filter(([c]) => c.startsWith("=") || c.startsWith("+"));
  const ins = form.cons.map((c, k) => [c, k] as const).filter(([c]) => !c.startsWith("=") && !c.startsWith("+"));
  const sep = () => r.pick([" ", " ", "\n    ", "\n\t\t", " /* c */ ", "\\\n  "]);
  let body = lit;
  const nSections = hasGoto ? 4 : outs.length + ins.length === 0 && r.chance(0.5) ? 0 : ins.length ? (r.chance(0.2) ? 3 : 2) : r.chance(0.3) ? 2 : 1;
  if (nSections >= 1) body += `${sep()}: ${outs.map(([c, k]) => operand(c, k)).join(", ")}`;
  if (nSections >= 2) body += `${sep()}: ${ins.map(([c, k]) => operand(c, k)).join(", ")}`;
  if (nSections >= 3) body += `${sep()}: ${r.chance(0.7) ? r.pick(CLOBBERS) : ""}`;
  if (nSections >= 4) body += `${sep()}: ${r.pick(["done", "done, again", ""])}`;
  if (r.chance(0.05) && outs.length === 0 && ins.length) body = `${lit} :: ${ins.map(([c, k]) => operand(c, k)).join(", ")}`;
  let s = `${kw}${quals.length ? " " + quals.join(" ") : ""}${r.chance(0.2) ? " " : ""}(${body})`;
  if (opts.bad) s = breakIt(r, s);
  return s;
}

/** A template literal split over adjacent literals, lines, comments and escapes. */
function splitTemplate(r: Rand, tpl: string): string {
  const parts: string[] = [];
  let rest = tpl;
  while (rest.length > 0) {
    const n = r.chance(0.6) ? rest.length : 1 + r.int(rest.length);
    parts.push(rest.slice(0, n));
    rest = rest.slice(n);
  }
  if (parts.length === 0) parts.push("");
  const esc = (s: string) => (r.chance(0.2) ? s.replace(/; /g, ";\\n\\t") : s);
  const prefix = () => (r.chance(0.03) ? r.pick(["L", "u8", "u"]) : "");
  const glue = () => r.pick(["", " ", "\n      ", " /* x */ ", "\\\n"]);
  const lits = parts.map((p) => (r.chance(0.04) ? `R"(${p})"` : `${prefix()}"${esc(p)}"`));
  return lits.join(glue());
}

/** Makes a statement malformed: unbalanced brackets, missing colons, unterminated literals, stray tokens. */
function breakIt(r: Rand, s: string): string {
  switch (r.int(8)) {
    case 0:
      return s.replace(/\)$/, "");
    case 1:
      return s.replace(/:/, "");
    case 2:
      return s.replace(/"([^"]*)$/, "$1");
    case 3:
      return s.replace(/\(/, "((");
    case 4: {
      const k = r.int(s.length);
      return s.slice(0, k) + r.pick(['"', "'", "(", ")", "[", "]", ":", ",", "\\", "/*", "#"]) + s.slice(k);
    }
    case 5:
      return s.slice(0, r.int(s.length));
    case 6:
      return s.replace(/"=r"/, '"=r" "');
    default:
      return s.replace(/\(/, " : (");
  }
}

/** A noise expression statement of code (intrinsic calls, warpSize, alternative tokens, literals). */
function genCode(r: Rand): string {
  switch (r.int(10)) {
    case 0:
      return `v = ${r.pick(INTRINSICS)}(0xffffffffu, v, ${r.int(32)});`;
    case 1: {
      const spell = r.pick(["NAME(", "::NAME(", "NAME (", "NAME /* c */ (", "NAME\\\n(", "obj.NAME(", "p->NAME(", "ns::NAME(", "&NAME;", "NAME<int>("]);
      return `x = ${spell.replace("NAME", r.pick(INTRINSICS))}m, v);`;
    }
    case 2:
      return `int lane = threadIdx.x ${r.pick(["%", "/", "&"])} ${r.pick(["warpSize", "32", "(warpSize - 1)"])};`;
    case 3:
      return `bool ok = (n < N) ${r.pick(ALT)} ${r.pick(INTRINSICS)}(__activemask(), d > 0);`;
    case 4:
      return `const char *s = ${r.pick(STRINGS)};`;
    case 5:
      return `if (x ${r.pick(ALT)} y) { acc += ${r.pick(["warpSize", "1", "__popc(__ballot_sync(0xffffffffu, 1))"])}; }`;
    case 6:
      return `char c = ${r.pick(["'\"'", "'\\''", "'a'", "'\\\\'", "'('"])};`;
    case 7:
      return `for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);`;
    case 8:
      return r.pick(COMMENTS);
    default:
      return `x = y + ${r.int(100)};`;
  }
}

/** A statement line (or a few) of a function body at `indent`, holding asm more often than not. */
function genBodyLines(r: Rand, indent: string): string[] {
  const st = () => genAsm(r, { bad: r.chance(0.12) });
  switch (r.int(16)) {
    case 0:
    case 1:
    case 2:
      return [`${indent}${st()};`];
    case 3:
      return [`${indent}${genCode(r)} ${st()};`];
    case 4:
      return [`${indent}${st()};${r.pick([" ", "  ", "\t", ""])}${genCode(r)}`];
    case 5:
      return [`${indent}${st()};${r.pick([" ", "\t", ""])}${r.pick(COMMENTS.filter((c) => !c.includes("\n")))}`];
    case 6:
      return [`${indent}${st()};${r.pick([" ", "   ", ""])}${st()};`];
    case 7:
      return [`${indent}if (x) ${st()};${r.chance(0.5) ? ` else ${st()};` : ""}`];
    case 8:
      return [`${indent}switch (x) { case 1: ${st()}; break; default: break; }`];
    case 9:
      return [`${indent}x = (${st()}, 1);`, `${indent}${st()}`];
    case 10: {
      const c = r.pick(PP_CONDS);
      const lines = [`#if ${c}`, `${indent}${st()};`];
      if (r.chance(0.5)) lines.push(`#elif ${r.pick(PP_CONDS)}`, `${indent}${st()};`);
      if (r.chance(0.5)) lines.push("#else", `${indent}${genCode(r)}`);
      lines.push("#endif");
      return lines;
    }
    case 11:
      return [`${indent}/* before */ ${st()}; /* after */ ${genCode(r)}`];
    case 12:
      return [`${indent}${st()}; // trailing \\`, `${indent}continued comment`];
    case 13:
      return [`${indent}do ${st()}; while (0);`];
    default:
      return [`${indent}${genCode(r)}`];
  }
}

/** A `#define` with asm in its body (object- or function-like, continued over lines), and its uses. */
function genMacro(r: Rand, k: number): string[] {
  const params = r.chance(0.8) ? ["a", "b", "r"].slice(0, 1 + r.int(3)) : null;
  const name = `ASM_${k}`;
  const s = genAsm(r, { bad: r.chance(0.08), paramNames: params ?? undefined }).replace(/\n/g, " \\\n");
  const body = r.chance(0.5) ? s : `do { ${s}; } while (0)`;
  const cont = r.chance(0.5) ? " \\\n    " : " ";
  const lines = [`${r.chance(0.1) ? "  " : ""}#${r.chance(0.1) ? " " : ""}define ${name}${params ? `(${params.join(", ")})` : ""}${cont}${body}`];
  const uses = 1 + r.int(2);
  for (let u = 0; u < uses; u++) lines.push(`__device__ void use_${k}_${u}(unsigned x, unsigned y) { unsigned v; ${name}${params ? `(${params.map(() => r.pick(["x", "y", "v", "4", "r", "l"])).join(", ")})` : ""}; }`);
  return lines;
}

/** A function holding generated statements. */
function genFunction(r: Rand, k: number, tab: boolean): string[] {
  const ind = tab ? "\t" : r.pick(["  ", "    "]);
  const lines = [r.pick([`__device__ unsigned f${k}(unsigned x, unsigned y, unsigned *o, int i)`, `__global__ void k${k}(unsigned *o)`, `template <int N> __device__ __forceinline__ int g${k}(int x)`, `uint h${k}(uint x)`]), "{", `${ind}unsigned v = 0, r = 0, d = 0, m = 0xffffffffu, lane = 0, acc = 0, res = 0;`];
  for (let n = 1 + r.int(3); n > 0; n--) lines.push(...genBodyLines(r, ind));
  if (r.chance(0.2)) lines.push("done:", "again:", `${ind};`);
  lines.push(`${ind}return v;`, "}");
  return lines;
}

/** The prologue of a file: comments, includes, maybe a BOM, maybe code right after a comment. */
function genPrologue(r: Rand): string[] {
  const out: string[] = [];
  switch (r.int(6)) {
    case 0:
      out.push("// A generated source for the port fuzzer.", "#include <cstdint>");
      break;
    case 1:
      out.push("/* a header comment", "   over lines */ #include <cuda.h>");
      break;
    case 2:
      out.push(`/* c */ ${genAsm(r)};`);
      break;
    case 3:
      out.push(`/*c*/  __device__ int first(int x) { int y; ${genAsm(r)}; return y; }`);
      break;
    case 4:
      out.push("#pragma once", "#define N 4");
      break;
    default:
      break;
  }
  return out;
}

/** A generated source of about `n` functions and macros. */
export function genFile(r: Rand, n: number): string {
  const tab = r.chance(0.2);
  const lines = [...genPrologue(r)];
  for (let k = 0; k < n; k++) {
    const c = r.int(10);
    if (c < 6) lines.push(...genFunction(r, k, tab));
    else if (c < 8) lines.push(...genMacro(r, k));
    else if (c < 9) lines.push(`#if ${r.pick(PP_CONDS)}`, ...genFunction(r, k, tab), `#elif ${r.pick(PP_CONDS)}`, ...genMacro(r, k), "#else", `__device__ int w${k}() { return warpSize; }`, "#endif");
    else lines.push(genCode(r));
  }
  return lines.join("\n") + (r.chance(0.9) ? "\n" : "");
}

/** Line breaks and characters applied to a whole file: CRLF, mixed, a BOM, Latin-1 characters. */
function dress(r: Rand, text: string): string {
  let t = text;
  const eol = r.int(10);
  if (eol < 2) t = t.replace(/\r?\n/g, "\r\n");
  else if (eol < 3) t = t.replace(/\r?\n/g, () => (r.chance(0.5) ? "\r\n" : "\n"));
  if (r.chance(0.03)) t = "\ufeff" + t;
  if (r.chance(0.05)) t = t.replace(/ c \*\//g, " caf\u00e9 \u00ff */");
  if (r.chance(0.02)) t = t.replace(/\n/, "\r");
  return t;
}

/** A corpus file for mutations. */
export interface CorpusFile {
  name: string;
  text: string;
}

/** The files mutated: ../shared/real-cuda (when present), examples/*.cu, test/port/*.cu and *.hip. */
export function portCorpus(): CorpusFile[] {
  const out: CorpusFile[] = [];
  const add = (dir: string, ok: (f: string) => boolean) => {
    if (!existsSync(dir)) return;
    for (const f of readdirSync(dir).sort()) if (ok(f)) out.push({ name: relative(ROOT, join(dir, f)), text: readFileSync(join(dir, f), "latin1").includes("\ufffd") ? "" : readFileSync(join(dir, f), "utf8") });
  };
  add(REAL_CUDA, (f) => /\.(cu|cuh|h|hpp|hxx|cl)$/.test(f));
  add(join(ROOT, "examples"), (f) => f.endsWith(".cu"));
  add(join(ROOT, "test/port"), (f) => /\.(cu|hip)$/.test(f));
  return out.filter((c) => c.text.length > 0);
}

/** Mutates a text: ranges deleted or duplicated, lines swapped, snippets and special characters spliced in, line breaks changed, truncation. */
function mutate(r: Rand, text: string): string {
  let t = text;
  for (let n = 1 + r.int(4); n > 0; n--) {
    const at = r.int(t.length + 1);
    const lineAt = t.lastIndexOf("\n", at - 1) + 1;
    switch (r.int(11)) {
      case 0:
        t = t.slice(0, at) + t.slice(at + 1 + r.int(40));
        break;
      case 1: {
        const e = t.indexOf("\n", at);
        const line = t.slice(lineAt, e < 0 ? t.length : e + 1);
        t = t.slice(0, lineAt) + line + t.slice(lineAt);
        break;
      }
      case 2:
      case 3:
        t = t.slice(0, lineAt) + genBodyLines(r, r.pick(["", "  ", "\t"])).join("\n") + "\n" + t.slice(lineAt);
        break;
      case 4:
        t = t.slice(0, at) + ` ${genAsm(r, { bad: r.chance(0.3) })}; ` + t.slice(at);
        break;
      case 5:
        t = t.slice(0, at) + r.pick(['"', "'", "(", ")", ":", "\\", "\\\n", "\n", "\r", "/*", "*/", "//", "#", "%", "R\"(", "\t", " and ", "warpSize", "__shfl_sync(", "\u00e9"]) + t.slice(at);
        break;
      case 6:
        t = t.slice(0, at);
        break;
      case 7:
        t = t.replace(/\n/g, "\r\n");
        break;
      case 8:
        t = t.slice(0, lineAt) + genMacro(r, 900 + n).join("\n") + "\n" + t.slice(lineAt);
        break;
      case 9: {
        const lines = t.split("\n");
        const a = r.int(lines.length);
        const b = r.int(lines.length);
        [lines[a], lines[b]] = [lines[b]!, lines[a]!];
        t = lines.join("\n");
        break;
      }
      default:
        t = t.slice(0, lineAt) + `#if ${r.pick(PP_CONDS)}\n` + t.slice(lineAt) + "\n#endif\n";
        break;
    }
  }
  return t;
}

/** Most of the time, a window of whole lines (about 4 KB) of a large file: the port's time grows with the text. */
function window(r: Rand, text: string): string {
  if (text.length <= 6_000 || r.chance(0.08)) return text;
  const from = text.lastIndexOf("\n", r.int(text.length - 4_000)) + 1;
  const to = text.indexOf("\n", from + 2_000 + r.int(4_000));
  return text.slice(from, to < 0 ? text.length : to + 1);
}

const EXTENSIONS = [".cu", ".cu", ".cu", ".cuh", ".h", ".hpp", ".hxx", ".hip", ".cl", ".cc", ".inl"];

/** One fuzz input. */
export interface PortInput {
  text: string;
  file: string;
  source: "gen" | "mutation" | "huge";
  /** The corpus file mutated. */
  base?: string;
  language: "cuda" | "opencl";
}

/** Input `i` of the run seeded `seed`: a pure function of the two (and the corpus). */
export function portInputAt(i: number, seed: number, corpus: readonly CorpusFile[]): PortInput {
  const r = new Rand(seed, i);
  const ext = r.pick(EXTENSIONS);
  const language = ext === ".cl" ? "opencl" : "cuda";
  if (i % 20_000 === 7_777) {
    const parts: string[] = [];
    let size = 0;
    for (let k = 0; size < 1_050_000; k++) {
      const f = genFile(r, 20);
      parts.push(f);
      size += f.length;
    }
    return { text: dress(r, parts.join("\n")), file: `huge${i}${ext}`, source: "huge", language };
  }
  if (corpus.length > 0 && r.chance(0.35)) {
    const base = r.pick(corpus);
    return { text: mutate(r, window(r, base.text)), file: `mut${i}${ext}`, source: "mutation", base: base.name, language };
  }
  return { text: dress(r, genFile(r, 1 + r.int(2))), file: `gen${i}${ext}`, source: "gen", language };
}

// =======================================================================================
// The checks

/** The kinds of finding (see the file comment). */
export type PortFindingKind = "crash" | "bad-location" | "identity" | "undo-error" | "continued" | "split-conditional" | "cli-crash" | "cli-exit" | "cli-wrote" | "cli-identity" | "slow" | "hang";

/** One finding on one input. */
export interface PortFinding {
  kind: PortFindingKind;
  message: string;
  stack?: string;
}

/** A stub header: keeps the port fast (no lowering), and is what the result includes. */
const stubHeader = async () => "/* header */\n";

/** Where two texts first differ, shown both ways (a few characters around it, escaped). */
export function firstDifference(want: string, got: string): string {
  let i = 0;
  while (i < want.length && i < got.length && want[i] === got[i]) i++;
  const line = want.slice(0, i).split("\n").length;
  const show = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 40), i + 40));
  return `at offset ${i} (line ${line}): expected ${show(want)}, got ${show(got)}`;
}

/** Checks that a location is within `text` (1-based line and column) and names `file`. */
function locationProblem(what: string, l: { file?: string; line: number; col: number } | undefined, text: string, starts: number[], file: string): string | null {
  if (!l) return null;
  if (l.file !== undefined && l.file !== file) return `${what} names the file ${JSON.stringify(l.file)}, not ${JSON.stringify(file)}`;
  if (!Number.isInteger(l.line) || !Number.isInteger(l.col) || l.line < 1 || l.col < 1 || l.line > starts.length) return `${what} ${l.line}:${l.col} is not within the input's ${starts.length} lines`;
  const lineEnd = l.line < starts.length ? starts[l.line]! - 1 : text.length;
  if (starts[l.line - 1]! + l.col - 1 > lineEnd) return `${what} ${l.line}:${l.col} is past the end of line ${l.line} (${lineEnd - starts[l.line - 1]!} characters)`;
  return null;
}

/** The locations a result gives, each named. */
function locationsOf(r: PortResult): [string, { file?: string; line: number; col: number } | undefined][] {
  const out: [string, { file?: string; line: number; col: number } | undefined][] = [];
  for (const s of r.statements ?? []) {
    out.push(["a statement's location", s.loc], ["a statement's end", s.end]);
    for (const x of s.reasons ?? []) out.push([`a reason's location (${x.message.slice(0, 60)})`, x.loc]);
  }
  for (const c of r.intrinsics ?? []) {
    out.push(["a call's location", c.loc], ["a call's end", c.end]);
    for (const x of c.reasons ?? []) out.push(["a call reason's location", x.loc]);
  }
  for (const w of r.warpSize ?? []) out.push(["a warpSize location", w.loc]);
  for (const x of r.includes ?? []) out.push(["an include's location", x.loc]);
  for (const x of r.hipSwitches ?? []) out.push(["a HIP switch's location", x.loc]);
  for (const x of r.warnings ?? []) out.push(["a warning's location", x.loc]);
  return out;
}

/** Whether anything was rewritten or renamed (else the text must come back unchanged). */
const changedAnything = (r: PortResult) =>
  r.statements.some((s) => s.status === "rewritten") || r.intrinsics.some((c) => c.status === "rewritten") || (r.warpSize ?? []).some((w) => w.status === "rewritten");

/** The byte-identity check of a ported text against its input; null when it holds. */
export function identityProblem(input: string, ported: string, r: PortResult): PortFinding | null {
  if (!changedAnything(r) || r.alreadyPorted) {
    return ported === input ? null : { kind: "identity", message: `nothing was rewritten but the text changed: ${firstDifference(input, ported)}` };
  }
  let undone: string;
  try {
    undone = undoPort(ported);
  } catch (e) {
    if (e instanceof UndoError) return { kind: "undo-error", message: e.message };
    throw e;
  }
  const spans = r.statements.filter((s) => s.status === "rewritten" && s.macro === null);
  const want = portLayout(input, spans, true);
  return undone === want ? null : { kind: "identity", message: `undo(port(input)) is not the input outside the rewrites: ${firstDifference(want, undone)}` };
}

/** Lines `port` wrote that the preprocessor cannot see: after a line ending in `\`, or inside a `//` comment continued onto them. */
export function continuedProblem(input: string, ported: string): string | null {
  const continued = (text: string) => {
    const lines = text.split("\n");
    const found: [number, string, string][] = [];
    for (let k = 1; k < lines.length; k++) {
      const body = lines[k]!.replace(/\r$/, "");
      if (!/^(?:[ \t]*|.*\*\/[ \t]*)#(?:if defined\(__(?:HIP|OPENCL_C_VERSION)__\)|else$|endif(?: \/\* ptx-lower port \*\/)?$)/.test(body)) continue;
      if (/\\\r?$/.test(lines[k - 1]!)) found.push([k + 1, body, lines[k - 1]!.slice(-60)]);
    }
    return found;
  };
  const inInput = continued(input).length;
  const inOutput = continued(ported);
  if (inOutput.length <= inInput) return null;
  const [line, body, prev] = inOutput[0]!;
  return `line ${line} (${JSON.stringify(body)}) continues line ${line - 1} (${JSON.stringify(prev)}), so the preprocessor does not see it`;
}

/** The conditional directives of lines (not continuations): +1 for `#if…`, -1 for `#endif`, 0 for `#else`/`#elif`. */
function conditionals(text: string): { line: number; d: number }[] {
  const lines = text.split("\n");
  const out: { line: number; d: number }[] = [];
  lines.forEach((l, k) => {
    if (k > 0 && /\\\r?$/.test(lines[k - 1]!)) return;
    const m = /^[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif)\b/.exec(l);
    if (m) out.push({ line: k + 1, d: m[1]!.startsWith("if") ? 1 : m[1] === "endif" ? -1 : 0 });
  });
  return out;
}

/** Whether a text's conditional directives nest (every `#endif` closes an `#if`, each `#if` closed). */
export function conditionalsBalanced(text: string): boolean {
  let depth = 0;
  for (const c of conditionals(text)) {
    depth += c.d;
    if (depth < 0 || (c.d === 0 && depth === 0)) return false;
  }
  return depth === 0;
}

/**
 * A rewritten statement (outside a `#define`) whose text holds conditional directives that do
 * not nest within it: its `#else` copy then opens or closes a group around port's own guard.
 */
export function splitConditionalProblem(input: string, r: PortResult): string | null {
  const starts = [0];
  for (let i = 0; i < input.length; i++) if (input.charCodeAt(i) === 10) starts.push(i + 1);
  for (const s of r.statements) {
    if (s.status !== "rewritten" || s.macro !== null) continue;
    const a = starts[s.loc.line - 1]! + s.loc.col - 1;
    const b = starts[s.end.line - 1]! + s.end.col;
    const cs = conditionals(input.slice(starts[s.loc.line - 1]!, b));
    if (cs.length === 0) continue;
    if (!conditionalsBalanced(input.slice(a, b))) return `the statement at ${s.loc.line}:${s.loc.col}–${s.end.line}:${s.end.col} was rewritten, but it holds a conditional directive that does not nest within it (line ${cs[0]!.line + s.loc.line - 1})`;
  }
  return null;
}

/** Checks one input through portSource. */
export async function checkPortInput(inp: { text: string; file: string; language?: "cuda" | "opencl" }, slowMs = 5_000): Promise<{ findings: PortFinding[]; ms: number; rewritten: number; statements: number; calls: number; skipped?: boolean }> {
  const findings: PortFinding[] = [];
  let skipped = false;
  const t0 = performance.now();
  let r: PortResult;
  try {
    r = await portSource(inp.text, inp.file, { header: stubHeader, headerName: "x.hip.h", ...(inp.language === "opencl" ? { language: "opencl" as const } : {}) });
  } catch (e) {
    const err = e instanceof Error ? e : new Error(String(e));
    return { findings: [{ kind: "crash", message: `${err.name}: ${err.message}`, stack: err.stack }], ms: performance.now() - t0, rewritten: 0, statements: 0, calls: 0 };
  }
  const ms = performance.now() - t0;
  if (ms > slowMs) findings.push({ kind: "slow", message: `portSource took ${ms.toFixed(0)} ms (bound ${slowMs} ms) on ${inp.text.length} characters` });
  const starts = [0];
  for (let i = 0; i < inp.text.length; i++) if (inp.text.charCodeAt(i) === 10) starts.push(i + 1);
  for (const [what, l] of locationsOf(r)) {
    const p = locationProblem(what, l, inp.text, starts, inp.file);
    if (p) {
      findings.push({ kind: "bad-location", message: p });
      break;
    }
  }
  // A line port wrote that a continued line swallows breaks the guards' structure too: that
  // finding alone is reported for the input (the identity check would fail for the same cause).
  const c = continuedProblem(inp.text, r.text);
  const split = splitConditionalProblem(inp.text, r);
  if (c) findings.push({ kind: "continued", message: c });
  else if (split) findings.push({ kind: "split-conditional", message: split });
  // The unmarked undo follows the nesting of conditionals: it cannot read a file whose own do not nest.
  else if (changedAnything(r) && !r.text.includes("/* ptx-lower port */") && !conditionalsBalanced(inp.text)) skipped = true;
  else
    try {
      const id = identityProblem(inp.text, r.text, r);
      if (id) findings.push(id);
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      findings.push({ kind: "undo-error", message: `the oracle threw: ${err.message}`, stack: err.stack });
    }
  return { findings, ms, rewritten: r.statements.filter((s) => s.status === "rewritten").length, statements: r.statements.length, calls: r.intrinsics.filter((x) => x.status === "rewritten").length, skipped };
}

/**
 * What makes two findings the same for the summary: the kind and, for a crash, the top frame
 * in the project; for an identity failure the shape of the first difference (letters and
 * digits folded); for a continued line, whether the file has `\r\n`; else the message with
 * numbers folded.
 */
export function findingKey(f: PortFinding): string {
  const top = f.stack?.split("\n").find((l) => l.includes(ROOT)) ?? "";
  if (f.kind === "identity" || f.kind === "cli-identity") {
    const m = /expected ("(?:[^"\\]|\\.)*"), got ("(?:[^"\\]|\\.)*")$/.exec(f.message);
    if (!m) return `${f.kind}|${f.message.slice(0, 60)}`;
    const k = Math.min(40, Number(/at offset (\d+)/.exec(f.message)?.[1] ?? 40));
    const want = JSON.parse(m[1]!) as string;
    const got = JSON.parse(m[2]!) as string;
    const [w, g, before] = [want.slice(k), got.slice(k), want.slice(0, k)];
    // The classes met so far, by the shape of the first difference.
    const cls =
      /\*\/[ \t]*\r?\n?$/.test(before) && /^\r?\n/.test(g) && !/^\r?\n/.test(w.replace(/^\r?\n/, ""))
        ? "the include guard inside the first statement (after a comment on its line)"
        : w.startsWith("\r") && !g.startsWith("\r")
          ? "a lone \\r after a statement dropped"
          : /[\u2028\u2029]/.test(w.slice(0, 12))
            ? "a trailing comment holding U+2028/U+2029 moved to a line of its own"
            : w.startsWith("\\") && !g.startsWith("\\")
              ? "a line splice inside a renamed name dropped"
              : /^[ \t]*\r?\n/.test(g) && /^[ \t]*[^\s]/.test(w)
                ? "a whitespace-only line between two statements with nothing between them"
                : null;
    if (cls) return `${f.kind}|${cls}`;
    const fold = (s: string) =>
      (JSON.parse(s) as string)
        .slice(Math.max(0, k - 1))
        .replace(/[\w$]/g, "a")
        .replace(/[ \t]/g, " ")
        .replace(/(.)\1+/g, "$1")
        .slice(0, 4);
    return `${f.kind}|${f.message.startsWith("nothing") ? "unchanged" : "undo"}|${JSON.stringify(fold(m[1]!))}|${JSON.stringify(fold(m[2]!))}`;
  }
  if (f.kind === "continued") return `${f.kind}|${f.message.includes("\\\\\\r") ? "crlf" : "lf"}`;
  return `${f.kind}|${f.message.replace(/\d+/g, "N").replace(/"[^"]*"/g, "S").slice(0, 160)}|${top}`;
}

/** A stack trace in a text (`    at f (file:line:col)`). */
const STACK = /\n\s+at .+(?::\d+:\d+\)?|\(native\))$/m;

/**
 * Runs `portCommand` in-process on input `i` written to a scratch folder (as bytes: Latin-1
 * when it has characters above 0x7f but none above 0xff and `latin1`, so it is no UTF-8), with
 * `-o DIR/` (and, for some inputs, a missing second file or a binary one, so that the run
 * fails): exit 0 or 1, no stack trace, nothing written on failure, and the written file the
 * input outside the rewrites.
 */
export async function checkCli(inp: PortInput, i: number): Promise<PortFinding[]> {
  const findings: PortFinding[] = [];
  const dir = mkdtempSync(join(tmpdir(), "fuzz-port-"));
  try {
    const name = inp.file.replace(/[^\w.-]/g, "_");
    const path = join(dir, name);
    // One input in three goes as Latin-1 bytes (no UTF-8): a comment with é and ÿ put on its first line.
    const latin1 = i % 3 === 0 && !/[^\u0000-\u00ff]/.test(inp.text);
    const text = latin1 ? inp.text.replace(/^\ufeff?/, (bom) => `${bom}/* caf\u00e9 \u00ff */ `) : inp.text;
    writeFileSync(path, latin1 ? Buffer.from(text, "latin1") : text);
    const files = [path];
    const failing = i % 7 === 3 ? "missing" : i % 7 === 5 ? "binary" : null;
    if (failing === "missing") files.push(join(dir, "missing.cu"));
    if (failing === "binary") {
      writeFileSync(join(dir, "bin.cu"), Buffer.from([0x41, 0, 0x42, 0x0a]));
      files.push(join(dir, "bin.cu"));
    }
    const out = join(dir, "out");
    let stderr = "";
    let stdout = "";
    const ow = process.stdout.write.bind(process.stdout);
    const ew = process.stderr.write.bind(process.stderr);
    let code: number;
    process.stdout.write = ((s: string | Uint8Array) => ((stdout += String(s)), true)) as typeof process.stdout.write;
    process.stderr.write = ((s: string | Uint8Array) => ((stderr += String(s)), true)) as typeof process.stderr.write;
    try {
      code = await portCommand(files, { output: out + "/", header: stubHeader } as Parameters<typeof portCommand>[1]);
    } catch (e) {
      if (e instanceof UsageError) code = 1;
      else {
        const err = e instanceof Error ? e : new Error(String(e));
        findings.push({ kind: "cli-crash", message: `${err.name}: ${err.message}`, stack: err.stack });
        code = 2;
      }
    } finally {
      process.stdout.write = ow;
      process.stderr.write = ew;
    }
    if (code !== 0 && code !== 1) {
      if (!findings.length) findings.push({ kind: "cli-exit", message: `exit ${code}` });
      return findings;
    }
    if (STACK.test(stderr) || STACK.test(stdout)) findings.push({ kind: "cli-exit", message: `a stack trace in the output: ${JSON.stringify((stderr + stdout).slice(0, 300))}` });
    if (failing && code !== 1) findings.push({ kind: "cli-exit", message: `exit ${code} with a ${failing} input among the files` });
    if (code === 1) {
      if (existsSync(out)) findings.push({ kind: "cli-wrote", message: `exit 1 but the output folder exists (${readdirSync(out).join(", ")})` });
      return findings;
    }
    const written = join(out, name);
    const r = await portSource(text, name, { header: stubHeader, headerName: "x.hip.h", ...(inp.language === "opencl" ? { language: "opencl" as const } : {}) });
    if (!existsSync(written)) {
      // A file with nothing to rewrite is not copied (without --copy-all).
      if (changedAnything(r)) findings.push({ kind: "cli-wrote", message: `exit 0 but OUT/${name}, which has rewrites, was not written` });
      return findings;
    }
    const bytes = readFileSync(written);
    const got = latin1 ? bytes.toString("latin1") : bytes.toString("utf8");
    if (!continuedProblem(text, got) && !splitConditionalProblem(text, r) && (conditionalsBalanced(text) || got.includes("/* ptx-lower port */"))) {
      // What the command wrote, byte for byte (its header name, its language), is the input outside the rewrites.
      const id = identityProblem(text, got, r);
      if (id) findings.push({ kind: "cli-identity", message: id.message });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return findings;
}

/**
 * The smallest input (by lines, then by characters) on which `still` holds, found by
 * removing chunks while it holds; at most `budget` calls.
 */
export async function reduceInput(text: string, still: (t: string) => Promise<boolean>, budget = 400): Promise<string> {
  let cur = text;
  let calls = 0;
  for (const unit of ["\n", ""] as const) {
    let parts = unit ? cur.split(/(?<=\n)/) : [...cur];
    for (let chunk = Math.max(1, parts.length >> 1); chunk >= 1; chunk >>= 1) {
      for (let k = 0; k < parts.length && calls < budget; ) {
        const cand = [...parts.slice(0, k), ...parts.slice(k + chunk)];
        calls++;
        if (cand.length < parts.length && (await still(cand.join("")))) parts = cand;
        else k += chunk;
      }
    }
    cur = parts.join("");
    if (calls >= budget) break;
  }
  return cur;
}

// =======================================================================================
// The driver: workers under a watchdog

interface Args {
  inputs: number;
  seed: number;
  workers: number;
  timeoutMs: number;
  slowMs: number;
  out: string;
  from: number;
  cliEvery: number;
  spawn: number;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { inputs: 100_000, seed: 1, workers: Math.max(1, availableParallelism()), timeoutMs: 60_000, slowMs: 5_000, out: join(tmpdir(), "ptx-lower-fuzz-port"), from: 0, cliEvery: 100, spawn: 6 };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    const num = () => {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0) {
        process.stderr.write(`fuzz_port: error: ${argv[i]} needs a number, not ${JSON.stringify(v)}\n`);
        process.exit(2);
      }
      i++;
      return n;
    };
    switch (argv[i]) {
      case "--inputs": a.inputs = num(); break;
      case "--seed": a.seed = num(); break;
      case "--workers": a.workers = Math.max(1, num()); break;
      case "--timeout-ms": a.timeoutMs = num(); break;
      case "--slow-ms": a.slowMs = num(); break;
      case "--out": a.out = v!; i++; break;
      case "--from": a.from = num(); break;
      case "--cli-every": a.cliEvery = num(); break;
      case "--spawn": a.spawn = num(); break;
      case "--worker": break;
      default:
        process.stderr.write(`fuzz_port: error: unknown option ${argv[i]}\nUsage: tsx scripts/fuzz_port.ts [--inputs N] [--seed S] [--workers W] [--timeout-ms T] [--slow-ms T] [--out DIR] [--from I] [--cli-every K] [--spawn N]\n`);
        process.exit(2);
    }
  }
  return a;
}

type ToParent = { t: "start"; i: number } | { t: "done"; i: number; ms: number; rewritten: number; statements: number; calls: number; skipped?: boolean; findings: PortFinding[]; source: string } | { t: "end" };
type ToWorker = { t: "range"; from: number; to: number; seed: number; slowMs: number; cliEvery: number };

/** Whether input `i` also goes through the command. */
const viaCli = (i: number, every: number) => every > 0 && i % every === every - 1;

/** Every check of input `i`: portSource, and the command for a sample. */
export async function checkIndex(i: number, seed: number, corpus: readonly CorpusFile[], slowMs: number, cliEvery: number) {
  const inp = portInputAt(i, seed, corpus);
  const r = await checkPortInput(inp, inp.source === "huge" ? slowMs * 12 : slowMs);
  if (viaCli(i, cliEvery)) r.findings.push(...(await checkCli(inp, i)));
  return { inp, ...r };
}

async function worker(): Promise<void> {
  const corpus = portCorpus();
  const send = (m: ToParent) => new Promise<void>((res) => process.send!(m, () => res()));
  process.on("message", async (m: ToWorker) => {
    if (m.t !== "range") return;
    for (let i = m.from; i < m.to; i++) {
      await send({ t: "start", i });
      const r = await checkIndex(i, m.seed, corpus, m.slowMs, m.cliEvery);
      await send({ t: "done", i, ms: r.ms, rewritten: r.rewritten, statements: r.statements, calls: r.calls, skipped: r.skipped, findings: r.findings, source: r.inp.source });
    }
    await send({ t: "end" });
    process.exit(0);
  });
}

/** A few inputs through the real command line (`tsx bin/ptx-lower.ts port`, its real header): exit 0 or 1, no stack trace. */
function spawnChecks(a: Args, corpus: readonly CorpusFile[]): { i: number; finding: PortFinding }[] {
  const out: { i: number; finding: PortFinding }[] = [];
  const tsx = join(ROOT, "node_modules/.bin/tsx");
  for (let n = 0; n < a.spawn; n++) {
    const i = a.from + n * 997 + 11;
    const inp = portInputAt(i, a.seed, corpus);
    if (inp.source === "huge") continue;
    const dir = mkdtempSync(join(tmpdir(), "fuzz-port-cli-"));
    try {
      const f = join(dir, inp.file);
      writeFileSync(f, n % 2 === 0 && !/[^\u0000-\u00ff]/.test(inp.text) ? Buffer.from(inp.text, "latin1") : inp.text);
      const args = [join(ROOT, "bin/ptx-lower.ts"), "port", f, ...(n % 4 === 3 ? [join(dir, "missing.cu")] : []), "-o", join(dir, "out") + "/"];
      const p = spawnSync(tsx, args, { encoding: "utf8", timeout: 120_000, cwd: ROOT });
      const both = `${p.stderr}${p.stdout}`;
      if (p.status !== 0 && p.status !== 1) out.push({ i, finding: { kind: "cli-exit", message: `the command exited ${p.status ?? p.signal}: ${both.slice(0, 300)}` } });
      else if (STACK.test(both) || /internal error/.test(both)) out.push({ i, finding: { kind: "cli-exit", message: `a stack trace: ${both.slice(0, 300)}` } });
      else if (p.status === 1 && existsSync(join(dir, "out"))) out.push({ i, finding: { kind: "cli-wrote", message: `exit 1 but the output folder exists` } });
      else if (n % 4 === 3 && p.status !== 1) out.push({ i, finding: { kind: "cli-exit", message: `exit ${p.status} with a missing file named` } });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  mkdirSync(a.out, { recursive: true });
  const corpus = portCorpus();
  process.stderr.write(`fuzz_port: ${a.inputs} inputs from ${a.from}, seed ${a.seed}, ${a.workers} workers; corpus ${corpus.length} files${existsSync(REAL_CUDA) ? "" : " (../shared/real-cuda absent)"}\n`);
  const t0 = performance.now();
  const stats = { done: 0, skipped: 0, rewritten: 0, statements: 0, calls: 0, withRewrite: 0, cli: 0, maxMs: 0, maxAt: -1, bySource: new Map<string, number>() };
  const findings = new Map<string, { f: PortFinding; count: number; first: number }>();
  const keyOf = findingKey;
  const record = (i: number, f: PortFinding) => {
    const key = keyOf(f);
    const e = findings.get(key);
    if (e) e.count++;
    else findings.set(key, { f, count: 1, first: i });
  };
  const end = a.from + a.inputs;
  const CHUNK = 2_500;
  let next = a.from;
  const take = (): [number, number] | null => {
    if (next >= end) return null;
    const r: [number, number] = [next, Math.min(end, next + CHUNK)];
    next = r[1];
    return r;
  };
  const self = fileURLToPath(import.meta.url);
  let lastReport = performance.now();
  const runWorker = (range: [number, number]): Promise<void> =>
    new Promise((resolve) => {
      const child = fork(self, ["--worker"], { execArgv: process.execArgv, stdio: ["ignore", "inherit", "inherit", "ipc"] });
      let current = range[0];
      let finished = range[0] - 1;
      let hung = false;
      let timer: NodeJS.Timeout | null = null;
      const arm = () => {
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          hung = true;
          record(current, { kind: "hang", message: `no answer within ${a.timeoutMs} ms` });
          stats.done++;
          child.kill("SIGKILL");
        }, a.timeoutMs);
      };
      child.on("message", (m: ToParent) => {
        if (m.t === "start") {
          current = m.i;
          arm();
        } else if (m.t === "done") {
          finished = m.i;
          stats.done++;
          stats.rewritten += m.rewritten;
          stats.statements += m.statements;
          stats.calls += m.calls;
          if (m.rewritten > 0) stats.withRewrite++;
          if (m.skipped) stats.skipped++;
          if (viaCli(m.i, a.cliEvery)) stats.cli++;
          stats.bySource.set(m.source, (stats.bySource.get(m.source) ?? 0) + 1);
          if (m.ms > stats.maxMs) {
            stats.maxMs = m.ms;
            stats.maxAt = m.i;
          }
          for (const f of m.findings) record(m.i, f);
          const now = performance.now();
          if (now - lastReport > 15_000) {
            lastReport = now;
            process.stderr.write(`fuzz_port: ${stats.done}/${a.inputs} inputs, ${findings.size} distinct findings, ${((now - t0) / 1000).toFixed(0)} s\n`);
          }
        }
      });
      child.on("exit", (code, signal) => {
        if (timer) clearTimeout(timer);
        if (!hung && finished < current) {
          record(current, { kind: "crash", message: `the worker died (exit ${code ?? signal}) on this input` });
          stats.done++;
        }
        const resumeAt = Math.max(current, finished) + 1;
        if (resumeAt < range[1]) void runWorker([resumeAt, range[1]]).then(resolve);
        else resolve();
      });
      child.on("error", () => undefined);
      child.send({ t: "range", from: range[0], to: range[1], seed: a.seed, slowMs: a.slowMs, cliEvery: a.cliEvery } satisfies ToWorker);
    });
  await Promise.all(Array.from({ length: a.workers }, async () => {
    for (let r = take(); r; r = take()) await runWorker(r);
  }));
  const fuzzSecs = (performance.now() - t0) / 1000;
  const t1 = performance.now();
  const spawned = a.spawn > 0 ? spawnChecks(a, corpus) : [];
  for (const s of spawned) record(s.i, s.finding);
  const spawnSecs = (performance.now() - t1) / 1000;

  // Save each distinct finding's first input, with a reduced reproducer.
  for (const [key, e] of findings) {
    if (e.first < 0) continue;
    const inp = portInputAt(e.first, a.seed, corpus);
    const stem = `${e.f.kind}-${e.first}`;
    writeFileSync(join(a.out, `${stem}${inp.file.replace(/^.*(\.\w+)$/, "$1")}`), inp.text);
    let reduced = "";
    if (["crash", "bad-location", "identity", "undo-error", "continued", "split-conditional"].includes(e.f.kind) && inp.text.length < 200_000) {
      const same = async (t: string) => {
        const r = await checkPortInput({ text: t, file: inp.file, language: inp.language }, 60_000);
        return r.findings.some((f) => keyOf(f) === key || (f.kind === e.f.kind && e.f.kind !== "identity"));
      };
      reduced = await reduceInput(inp.text, same);
      writeFileSync(join(a.out, `${stem}.reduced${inp.file.replace(/^.*(\.\w+)$/, "$1")}`), reduced);
    }
    writeFileSync(join(a.out, `${stem}.txt`), `input ${e.first} (seed ${a.seed}, ${inp.source}${inp.base ? ` of ${inp.base}` : ""}), file ${JSON.stringify(inp.file)}, language ${inp.language}\n${e.f.kind}: ${e.f.message}\n${e.f.stack ?? ""}\n${reduced ? `reduced (${reduced.length} characters): ${JSON.stringify(reduced)}\n` : ""}`);
  }
  const secs = (performance.now() - t0) / 1000;
  const by = (k: PortFindingKind) => [...findings.values()].filter((e) => e.f.kind === k).reduce((s, e) => s + e.count, 0);
  const lines = [
    `fuzz_port: ${stats.done} inputs (seed ${a.seed}, from ${a.from}) in ${fuzzSecs.toFixed(1)} s (${(stats.done / fuzzSecs).toFixed(0)}/s) with ${a.workers} workers; ${secs.toFixed(1)} s in all`,
    `  sources: ${[...stats.bySource].map(([k, v]) => `${k} ${v}`).join(", ")}; ${stats.statements} asm statements, ${stats.rewritten} rewritten (in ${stats.withRewrite} inputs), ${stats.calls} intrinsic calls renamed; identity not checked on ${stats.skipped} inputs whose own conditionals do not nest (unmarked output)`,
    `  through the command in-process: ${stats.cli} inputs; through the real CLI: ${a.spawn} (${spawnSecs.toFixed(1)} s)`,
    `  slowest input: ${stats.maxMs.toFixed(0)} ms (index ${stats.maxAt})`,
    `  crashes ${by("crash") + by("cli-crash")}, identity failures ${by("identity") + by("cli-identity")}, undo errors ${by("undo-error")}, bad locations ${by("bad-location")}, continued ${by("continued")}, split conditionals ${by("split-conditional")}, command ${by("cli-exit") + by("cli-wrote")}, slow ${by("slow")}, hangs ${by("hang")}`,
    `  distinct findings: ${findings.size}${findings.size ? ` (inputs saved under ${a.out})` : ""}`,
  ];
  for (const e of [...findings.values()].sort((x, y) => y.count - x.count))
    lines.push(`  [${e.f.kind}] ×${e.count} first at ${e.first}: ${e.f.message.split("\n")[0]!.slice(0, 400)}${e.f.stack ? `\n      ${e.f.stack.split("\n").slice(1, 4).map((s) => s.trim()).join("\n      ")}` : ""}`);
  process.stdout.write(lines.join("\n") + "\n");
  process.exitCode = findings.size ? 1 : 0;
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  if (process.argv.includes("--worker")) void worker();
  else
    main().catch((e: unknown) => {
      process.stderr.write(`fuzz_port: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 2;
    });
}
