/**
 * @fileoverview Fuzzing the whole pipeline: parse → lower (AMDGPU, JS, C) → print, on
 * fast-check-generated PTX fragments and on byte- and token-level mutations of the real
 * modules (../shared/ptx, examples/, test/cases). `npm run fuzz` runs ≥ 100,000 inputs in
 * worker processes under a watchdog; test/fuzz.test.ts runs a seeded sample in CI.
 *
 * Per input, a finding is any of:
 *   crash           an exception escaped parseModule, a lowering or a printer;
 *   internal-error  parseModule caught one itself ("Internal error in ptx-lower");
 *   bad-location    a diagnostic without a real location (line/col ≥ 1, within the text,
 *                   the file name as given) or without a message;
 *   silent-reject   a family instruction that yields neither an occurrence nor an error on
 *                   its lines (but in a module whose header has an error fatal in ptxas:
 *                   nothing in it is checked, and that error rejects the module);
 *   bad-js          the JS module does not compile (`new Function`, exports removed);
 *   bad-c           the C file does not compile (gcc -fsyntax-only -Werror; sampled);
 *   stray-comment   a `*\/` in JS or C output outside a comment the printer closes;
 *   asm-leak        an AMDGPU output line that is neither a comment, a label, a directive
 *                   nor an instruction (input text escaping a `;` comment);
 *   raw-control     a raw control character (C0 but tab and line breaks, DEL) in the JS or C
 *                   output or in the report tables a terminal shows; inputs with terminal
 *                   controls in comments, in instruction text and in the file name are made
 *                   on purpose (source "controls");
 *   past-nul        code after a NUL byte (where ptxas stops reading) parsed or lowered, or no
 *                   warning at the NUL (source "nul");
 *   device          `-o` to a character device (mknod 1,3 and 1,7), a FIFO or a symlink in a
 *                   scratch directory did not behave as bin/output.ts says (type, inode or
 *                   device numbers changed, content not written through, no one-line error);
 *                   run once per `npm run fuzz`, as root (skipped, saying so, otherwise);
 *   slow / hang     an input over the time bound; a worker that stops answering is killed
 *                   and its input saved.
 * Inputs are a pure function of (seed, index), so any finding is reproducible from its index.
 *
 * Usage: tsx scripts/fuzz.ts [--inputs N] [--seed S] [--workers W] [--timeout-ms T]
 *        [--out DIR] [--from I]
 */
import "../src/compose.js";
import { spawnSync } from "node:child_process";
import { fork } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import fc from "fast-check";
import { familyOpOf, flattenModule, parseModule } from "../src/ir/build.js";
import type { ParsedModule } from "../src/ir/build.js";
import { formName } from "../src/ir/forms.js";
import { collectRoutines, lowerModule } from "../src/lower.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import { MCPUS } from "../targets/amdgpu/regs.js";
import { lowerPortable } from "../targets/portable/rules/index.js";
import { printJsModule } from "../targets/js/print.js";
import { printCModule } from "../targets/c/print.js";
import { buildReport } from "../src/report.js";
import { formatReportTables } from "../bin/report.js";
import { Rng } from "../src/check/random.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

// =======================================================================================
// Corpus

/** The real modules: ../shared/ptx, examples/, test/cases (name, text). */
export function corpus(): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  for (const d of [join(ROOT, "../shared/ptx"), join(ROOT, "examples"), join(ROOT, "test/cases")]) {
    if (!existsSync(d)) continue;
    for (const f of readdirSync(d).sort()) if (f.endsWith(".ptx")) out.push({ name: f, text: readFileSync(join(d, f), "utf8") });
  }
  return out;
}

// =======================================================================================
// Generation (fast-check): PTX fragments mixing valid and invalid family instructions,
// ordinary nvcc instructions, declarations, labels, blocks and comments

const REGS = ["%r1", "%r2", "%r3", "%r4", "%r9", "%rd1", "%rd2", "%p1", "%p2", "%f1", "%h1", "%rx", "%r100", "%tid.x", "%laneid", "%lanemask_lt", "%clock64", "_"];
const SELS = ["", "", "", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1", ".b4", ".x", ".h2"];
const IMMS = [
  "0", "1", "8", "12", "31", "32", "33", "40", "-1", "-2147483648", "0x7fffffff", "0x80000000", "0xffffffff", "0x100000000", "0xffffffffffffffff",
  "18446744073709551616", "077", "0b101", "0f3f800000", "0f7fc00000", "0d3ff0000000000000", "1.5", "1e3", "(4*8)", "1/0", "(1<<31)", "-0x80000000", "65535U",
  "0xffffffffU", "99999999999999999999999", "'a'", "1+",
];
const FAMILY_MODS = [".clamp", ".wrap", ".s32", ".u32", ".s64", ".u64", ".b32", ".b64", ".b16", ".sat", ".add", ".min", ".max", ".any", ".all", ".sync", ".uni", ".rn", ".ftz", ".x", ".b0", ".h1", ".f32", ".u16", ".s16", ".pred", ".aligned"];
const ORDINARY = [
  "add.s32 %r1, %r2, %r3;", "mov.u32 %r1, %tid.x;", "mov.u32 %r2, 0xffffffff;", "ld.param.u32 %r2, [p1];", "ld.param.u64 %rd1, [p0];", "setp.lt.u32 %p1, %r1, 16;",
  "setp.ne.s32 %p2, %r3, 0;", "@%p1 bra L1;", "bra.uni L2;", "cvta.to.global.u64 %rd2, %rd1;", "mul.wide.u32 %rd2, %r1, 4;", "add.s64 %rd2, %rd1, %rd2;",
  "ld.global.u32 %r3, [%rd2];", "st.global.u32 [%rd2+4], %r1;", "cvt.u64.u32 %rd1, %r1;", "selp.u32 %r4, 1, 0, %p1;", "shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;",
  "activemask.b32 %r1;", "vote.sync.ballot.b32 %r2, %p1, -1;", "bar.sync 0;", "atom.global.add.u32 %r1, [%rd1], 1;", "call (%r1), f, (%r2);", "ret;", "exit;",
  "and.b32 %r3, %r1, 3;", "mad.lo.s32 %r1, %r2, %r3, %r4;", "{", "}", "L1:", "L2:", ".reg .b32 %t<3>;", ".pragma \"nounroll\";", ".loc 1 2 3",
];
const HEADERS = [
  ".version 9.0\n.target sm_90\n.address_size 64\n",
  ".version 9.0\n.target sm_90\n.address_size 64\n",
  ".version 8.6\n.target sm_75\n.address_size 64\n",
  ".version 6.0\n.target sm_70\n",
  ".version 7.6\n.target sm_60\n",
  ".version 9.0\n.target sm_100a, texmode_independent\n",
  "",
];
const DECLS = ".reg .pred %p<4>;\n.reg .b32 %r<12>;\n.reg .b64 %rd<5>;\n.reg .f32 %f<3>;\n.reg .b16 %h<3>;\n";

const operandArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.constantFrom(...REGS), fc.constantFrom(...SELS)).map(([r, s]) => r + s) },
  { weight: 3, arbitrary: fc.constantFrom(...IMMS) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(1n << 64n), max: 1n << 65n }).map((x) => (x < 0n ? `-0x${(-x).toString(16)}` : `0x${x.toString(16)}`)) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...REGS), fc.constantFrom("%p1", "%p2", "_", "%r1")).map(([a, b]) => `${a}|${b}`) },
  { weight: 1, arbitrary: fc.constantFrom("{%r1, %r2}", "[%rd1]", "[%rd1+4]", "!%p1", "L1", "f", "(%r1)", "%r1.b0.b1", "%r", "%", "-%r1", "") },
);

const guardArb = fc.option(fc.constantFrom("@%p1 ", "@!%p2 ", "@%p9 ", "@%r1 ", "@p ", "@!_ "), { freq: 4 });

/** A family instruction with random modifiers and operands (mostly invalid). */
const looseFamilyArb = fc
  .record({
    guard: guardArb,
    op: fc.constantFrom("szext", "vshl", "vshr", "match"),
    mods: fc.array(fc.constantFrom(...FAMILY_MODS), { maxLength: 7 }),
    ops: fc.array(operandArb, { maxLength: 5 }),
  })
  .map(({ guard, op, mods, ops }) => `${guard ?? ""}${op}${mods.join("")} ${ops.join(", ")};`);

/** Operands that are mostly right: declared 32-bit registers, sometimes with a selector, or an immediate. */
const goodOperandArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.constantFrom("%r1", "%r2", "%r3", "%r4", "%r5", "%r9"), fc.constantFrom("", "", "", "", ".b1", ".h0")).map(([r, s]) => r + s) },
  { weight: 2, arbitrary: fc.constantFrom("0", "8", "12", "32", "40", "0xffffffff", "-1", "0x80") },
  { weight: 1, arbitrary: operandArb },
);

/** A family instruction in a valid form, with random operands (often valid). */
const validFamilyArb = fc.oneof(
  fc
    .record({ mode: fc.constantFrom("clamp", "wrap"), type: fc.constantFrom("s32", "u32"), ops: fc.array(goodOperandArb, { minLength: 3, maxLength: 3 }) })
    .map(({ mode, type, ops }) => `szext.${mode}.${type} ${ops.join(", ")};`),
  fc
    .record({
      op: fc.constantFrom("vshl", "vshr"),
      d: fc.constantFrom("u32", "s32"),
      a: fc.constantFrom("u32", "s32"),
      sat: fc.boolean(),
      mode: fc.constantFrom("clamp", "wrap"),
      op2: fc.constantFrom("", ".add", ".min", ".max"),
      dsel: fc.constantFrom("", "", ".b0", ".b3", ".h1"),
      asel: fc.constantFrom(...SELS),
      bsel: fc.constantFrom(...SELS),
      four: fc.boolean(),
    })
    .map((x) => {
      const c = x.op2 || x.dsel || x.four ? ", %r4" : "";
      return `${x.op}.${x.d}.${x.a}.u32${x.sat ? ".sat" : ""}.${x.mode}${x.op2} %r1${x.dsel}, %r2${x.asel}, %r3${x.bsel}${c};`;
    }),
  fc
    .record({ mode: fc.constantFrom("any", "all"), type: fc.constantFrom("b32", "b64"), dest: fc.constantFrom("%r1", "%r1|%p1", "_|%p1", "%r1|_", "_"), a: fc.constantFrom("%r2", "%rd1", "%r3", "5", "0x123456789"), m: fc.constantFrom("%r3", "0xffffffff", "-1", "0x0000ffff", "%r1") })
    .map((x) => `match.${x.mode}.sync.${x.type} ${x.dest}, ${x.a}, ${x.m};`),
);

const lineArb: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: validFamilyArb },
  { weight: 2, arbitrary: looseFamilyArb },
  { weight: 3, arbitrary: fc.constantFrom(...ORDINARY) },
  { weight: 1, arbitrary: fc.tuple(guardArb, validFamilyArb).map(([g, s]) => (g ?? "") + s) },
  { weight: 1, arbitrary: fc.constantFrom("// a comment */ `${x}`", "/* block \n comment */", "/* unterminated", "\"string", "é", "\u0000", "\r", "\t\t", ";", "}", "{ {", ".func", "@", "#include <x>") },
);

const functionArb = fc
  .record({
    head: fc.constantFrom(".visible .entry k(.param .u64 p0, .param .u32 p1)", ".func (.reg .b32 d) f(.reg .b32 a, .reg .b32 b)", ".entry e()", ".visible .func g(.reg .b64 x)", ".weak .func h"),
    decls: fc.constantFrom(true, true, true, true, false),
    body: fc.array(lineArb, { maxLength: 24 }),
  })
  .map(({ head, decls, body }) => `${head}\n{\n${decls ? DECLS : ""}${body.map((l) => "\t" + l).join("\n")}\n\tret;\n}\n`);

/** A whole generated module. */
export const moduleArb: fc.Arbitrary<string> = fc
  .record({ header: fc.constantFrom(...HEADERS), fns: fc.array(functionArb, { minLength: 1, maxLength: 3 }), crlf: fc.boolean() })
  .map(({ header, fns, crlf }) => {
    const t = header + "\n" + fns.join("\n");
    return crlf ? t.replace(/\n/g, "\r\n") : t;
  });

// =======================================================================================
// Mutation

const BYTES_OF_INTEREST = ["\0", "\n", "\r", "\t", " ", ";", ",", ".", "%", "|", "_", "{", "}", "[", "]", "(", ")", "@", "!", "/", "*", "-", "0", "9", "x", "\u00e9", "\uFFFD", "\u2028"];
const TOKENS = [
  "szext", "vshl", "vshr", "match", ".clamp", ".wrap", ".s32", ".u32", ".sat", ".add", ".min", ".max", ".any", ".all", ".sync", ".b32", ".b64", ".b0", ".h1",
  "%r1", "%rd1", "%p1", "_", "|", ",", ";", "@%p1", "0xffffffff", "-1", "40", "{", "}", ".reg", ".func", ".entry", ".param", ".version", ".target", "sm_90",
  "9.0", "ret;", "/*", "*/", "//", "\n", "(", ")", "[", "]", "0f3f800000", "99999999999999999999",
];

/** Byte-level mutations (over UTF-16 units, with some non-ASCII and control characters). */
export function mutateBytes(text: string, rng: Rng, donors: readonly string[]): string {
  let t = text;
  const n = 1 + rng.below(8);
  for (let k = 0; k < n; k++) {
    const at = rng.below(t.length + 1);
    switch (rng.below(8)) {
      case 0: // flip a bit
        if (t.length) t = t.slice(0, at) + String.fromCharCode(t.charCodeAt(Math.min(at, t.length - 1)) ^ (1 << rng.below(7))) + t.slice(at + 1);
        break;
      case 1: // a character of interest
        t = t.slice(0, at) + rng.pick(BYTES_OF_INTEREST) + t.slice(at + 1);
        break;
      case 2: // insert random characters
        t = t.slice(0, at) + Array.from({ length: 1 + rng.below(4) }, () => String.fromCharCode(rng.below(128))).join("") + t.slice(at);
        break;
      case 3: // delete a range
        t = t.slice(0, at) + t.slice(at + 1 + rng.below(16));
        break;
      case 4: {
        // duplicate a range
        const len = 1 + rng.below(64);
        t = t.slice(0, at) + t.slice(at, at + len) + t.slice(at);
        break;
      }
      case 5: {
        // splice in a piece of another module
        const d = rng.pick(donors);
        const from = rng.below(d.length);
        t = t.slice(0, at) + d.slice(from, from + 1 + rng.below(200)) + t.slice(at);
        break;
      }
      case 6: // truncate
        t = t.slice(0, at);
        break;
      default: // swap two characters
        if (at + 1 < t.length) t = t.slice(0, at) + t[at + 1] + t[at] + t.slice(at + 2);
    }
  }
  return t;
}

/** Token-level mutations: tokens are runs of identifier characters, whitespace, or one punctuation character. */
export function mutateTokens(text: string, rng: Rng): string {
  const toks = text.match(/[%.\w$]+|\s+|[^\s%.\w$]/g) ?? [];
  const n = 1 + rng.below(6);
  for (let k = 0; k < n; k++) {
    const i = rng.below(toks.length + 1);
    switch (rng.below(6)) {
      case 0:
        toks.splice(i, 1, rng.pick(TOKENS));
        break;
      case 1:
        toks.splice(i, 1);
        break;
      case 2:
        toks.splice(i, 0, toks[i] ?? ";");
        break;
      case 3: {
        const j = rng.below(toks.length);
        if (i < toks.length) [toks[i], toks[j]] = [toks[j]!, toks[i]!];
        break;
      }
      case 4:
        toks.splice(i, 0, rng.pick(TOKENS), " ");
        break;
      default: {
        // replace a family opcode's modifiers or an operand with another of its kind
        const j = toks.findIndex((x, idx) => idx >= i && /^(szext|vshl|vshr|match)\./.test(x));
        if (j >= 0) toks[j] = toks[j]!.split(".")[0] + Array.from({ length: rng.below(6) }, () => rng.pick(FAMILY_MODS)).join("");
      }
    }
  }
  return toks.join("");
}

/** File names, some hostile (they reach banners and headers). */
const FILES = ["fuzz.ptx", "fuzz.ptx", "fuzz.ptx", "dir/sub dir/x.ptx", 'evil */ `${x}` "q" \'q\' \\ ??/.ptx', "new\nline*/.ptx", "<stdin>"];

export interface FuzzInput {
  index: number;
  source: "generated" | "bytes" | "tokens" | "controls" | "nul";
  /** For mutations: the corpus module mutated. */
  base?: string;
  file: string;
  text: string;
}

/** Input number `index` of the run with `seed`: a pure function of both. */
export function inputAt(index: number, seed: number, mods: readonly { name: string; text: string }[]): FuzzInput {
  const rng = new Rng((seed * 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b), { zeroSeed: 0x9e3779b9, below: "mod-nodraw1" });
  const file = rng.chance(0.1) ? rng.pick(FILES) : "fuzz.ptx";
  const kind = index % 10;
  if (kind < 3) {
    const [text] = fc.sample(moduleArb, { seed: rng.u32() | 0, numRuns: 1 });
    return { index, source: "generated", file, text: text! };
  }
  const base = rng.pick(mods);
  // Every 7th input (across the kinds above): hostile bytes on purpose.
  if (index % 7 === 5) {
    if (rng.chance(0.5)) return { index, source: "nul", base: base.name, file, text: withNul(base.text, rng) };
    return { index, source: "controls", base: base.name, file: rng.chance(0.3) ? `ctl${rng.pick(CONTROLS)}.ptx` : file, text: withControls(base.text, rng) };
  }
  if (kind < 7) return { index, source: "bytes", base: base.name, file, text: mutateBytes(base.text, rng, mods.map((m) => m.text)) };
  return { index, source: "tokens", base: base.name, file, text: mutateTokens(base.text, rng) };
}

/** Terminal controls: window title, clear screen, colour, cursor moves, bell, C0, DEL. */
const CONTROLS = ["\x1b]0;pwned\x07", "\x1b[2J", "\x1b[31m", "\x1b[1A\x1b[2K", "\x07", "\x01", "\x08", "\x7f", "\x1b", "\x0c", "\x0b", "\r"];

/** `text` with terminal controls in comments: on their own line and inside family instructions (so in their text). */
export function withControls(text: string, rng: Rng): string {
  const lines = text.split("\n");
  for (let k = 1 + rng.below(4); k > 0; k--) {
    const at = rng.below(lines.length);
    const ctl = Array.from({ length: 1 + rng.below(3) }, () => rng.pick(CONTROLS)).join("");
    const l = lines[at]!;
    const semi = l.lastIndexOf(";");
    if (/^\s*(@\S+\s+)?(szext|vshl|vshr|match)\./.test(l) && semi > 0 && rng.chance(0.7)) lines[at] = `${l.slice(0, semi)} /* ${ctl} */${l.slice(semi)}`;
    else lines.splice(at, 0, `// ${ctl} comment`);
  }
  return lines.join("\n");
}

/** `text` with a NUL byte: in a comment, or anywhere; what follows it is real code. */
export function withNul(text: string, rng: Rng): string {
  if (rng.chance(0.6)) {
    const lines = text.split("\n");
    const at = rng.below(lines.length);
    lines.splice(at, 0, `// before\0after: szext.s32 %r1, %r2, %r3;`);
    return lines.join("\n");
  }
  const at = rng.below(text.length + 1);
  return text.slice(0, at) + "\0" + text.slice(at);
}

// =======================================================================================
// The checks

export type FindingKind = "crash" | "internal-error" | "bad-location" | "silent-reject" | "bad-js" | "bad-c" | "stray-comment" | "asm-leak" | "raw-control" | "past-nul" | "device" | "slow" | "hang";

/** A raw control character a terminal would act on (tab and line breaks allowed). */
const RAW_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;
const rawControlAt = (s: string) => {
  const m = RAW_CONTROL.exec(s);
  return m ? `${JSON.stringify(m[0])} in ${JSON.stringify(s.slice(Math.max(0, m.index - 30), m.index + 10))}` : null;
};

export interface Finding {
  kind: FindingKind;
  stage: string;
  message: string;
  stack?: string;
}

export interface CheckOptions {
  /** AMDGPU processors to lower for. */
  mcpus: readonly Mcpu[];
  /** Lower JS and C through `lowerModule` (formatted: prettier, clang-format); otherwise print unformatted. */
  format: boolean;
  /** Compile the C output with gcc -fsyntax-only. */
  compileC: boolean;
  /** Lower even when the module has errors (the CLI would not): the valid occurrences. */
  lowerWithErrors: boolean;
  /** An input taking longer is a `slow` finding. */
  slowMs: number;
  /** Also build the report tables (as `ptx-lower report` shows them, checker off) and look for raw controls. */
  report?: boolean;
}

export interface CheckResult {
  findings: Finding[];
  ms: number;
  occurrences: number;
  diagnostics: number;
}

const errOf = (e: unknown) => ({ message: e instanceof Error ? e.message : String(e), stack: e instanceof Error ? e.stack : undefined });

function lineCount(text: string): number {
  let n = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10) || c === 0x2028 || c === 0x2029) n++;
  }
  return n;
}

function checkDiagnostics(mod: ParsedModule, text: string, file: string, out: Finding[]): void {
  const lines = lineCount(text);
  for (const d of mod.diagnostics) {
    const { line, col } = d.loc;
    if (d.message.startsWith("Internal error in ptx-lower")) out.push({ kind: "internal-error", stage: "parse", message: d.message });
    const ok = Number.isInteger(line) && Number.isInteger(col) && line >= 1 && col >= 1 && line <= lines + 1 && d.loc.file === file && d.message.length > 0;
    if (!ok) out.push({ kind: "bad-location", stage: "parse", message: `${JSON.stringify(d.loc)} ${d.message} (text has ${lines} lines)` });
  }
  // Every family instruction becomes an occurrence or is rejected by an error on its lines.
  let fns;
  try {
    fns = flattenModule(mod.ast).functions;
  } catch (e) {
    out.push({ kind: "crash", stage: "flattenModule", ...errOf(e) });
    return;
  }
  const accepted = new Set(mod.insts.map((i) => `${i.loc.line}:${i.loc.col}`));
  const errorLines = new Set(mod.diagnostics.filter((d) => d.severity === "error").map((d) => d.loc.line));
  if (mod.ast.fatal) {
    if (mod.insts.length > 0 || errorLines.size === 0) out.push({ kind: "silent-reject", stage: "parse", message: "a module fatal to ptxas has occurrences or no error" });
    return;
  }
  for (const f of fns)
    for (const it of f.items) {
      if (it.kind !== "inst" || familyOpOf(it.inst) === null) continue;
      const i = it.inst;
      if (accepted.has(`${i.loc.line}:${i.loc.col}`)) continue;
      // `text` runs from the guard (if any) to the semicolon.
      const first = i.guard?.loc.line ?? i.loc.line;
      let seen = false;
      for (let l = first; l <= first + lineCount(i.text) - 1 && !seen; l++) seen = errorLines.has(l);
      if (!seen) out.push({ kind: "silent-reject", stage: "parse", message: `${i.loc.line}:${i.loc.col} ${i.text.replace(/\s+/g, " ").slice(0, 120)} yields neither an occurrence nor an error` });
    }
}

/** Lines of printed AMDGPU assembly that are not comments, labels, directives or instructions. */
export function asmLeaks(s: string): string[] {
  return s.split("\n").filter((l) => !(l === "" || l.startsWith(";") || l === "\t.text" || /^[.\w$]+:$/.test(l) || /^ {2}[a-z][a-z0-9_]*( |$)/.test(l)));
}

/** Lines where a `*\/` does not end a comment the printer opened (see test/robustness.test.ts). */
export function strayCommentEnds(text: string, marker?: string): string[] {
  return text.split("\n").filter((l) => {
    const t = l.trim();
    if (!t.includes("*/") || t === "*/") return false;
    const oneLine = t.startsWith("/*") && t.endsWith("*/") && t.indexOf("*/") === t.length - 2;
    return !oneLine || (marker !== undefined && t.includes(marker));
  });
}

/** Compiles an ES module's text without running it (exports become plain declarations). */
export function jsCompiles(text: string): string | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    new Function(text.replace(/^(\s*)export (?=function|const|let|class)/gm, "$1"));
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

function cCompiles(text: string): string | null {
  const r = spawnSync(process.env.CC ?? "gcc", ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only", "-x", "c", "-"], { input: text, encoding: "utf8", timeout: 30_000 });
  if (r.error) return null; // no compiler: not the input's fault
  return r.status === 0 ? null : r.stderr.slice(0, 2000);
}

/** Runs one input through the pipeline; never throws. */
export async function checkInput(text: string, file: string, o: CheckOptions): Promise<CheckResult> {
  const t0 = performance.now();
  const findings: Finding[] = [];
  let mod: ParsedModule;
  try {
    mod = parseModule(text, file);
  } catch (e) {
    findings.push({ kind: "crash", stage: "parseModule", ...errOf(e) });
    return { findings, ms: performance.now() - t0, occurrences: 0, diagnostics: 0 };
  }
  checkDiagnostics(mod, text, file, findings);
  const nul = text.indexOf("\0");
  if (nul >= 0) {
    const head = text.slice(0, nul);
    const line = head.split("\n").length;
    const col = nul - (head.lastIndexOf("\n") + 1) + 1;
    const past = mod.insts.find((i) => i.loc.line > line || (i.loc.line === line && i.loc.col > col));
    if (past) findings.push({ kind: "past-nul", stage: "parseModule", message: `an occurrence at ${past.loc.line}:${past.loc.col}, after the NUL at ${line}:${col}` });
    if (!mod.diagnostics.some((d) => d.severity === "warning" && d.loc.line === line && d.loc.col === col && /NUL/.test(d.message))) findings.push({ kind: "past-nul", stage: "parseModule", message: `no warning at the NUL (${line}:${col})` });
  }
  const hasErrors = mod.diagnostics.some((d) => d.severity === "error");
  if (o.report && !hasErrors) {
    try {
      const tables = formatReportTables(await buildReport([mod], { mcpus: [o.mcpus[0] ?? "gfx942"], profile: "isa", check: false }));
      const raw = rawControlAt(tables);
      if (raw) findings.push({ kind: "raw-control", stage: "report", message: raw });
    } catch (e) {
      findings.push({ kind: "crash", stage: "report", ...errOf(e) });
    }
  }
  if (mod.insts.length > 0 && (o.lowerWithErrors || !hasErrors)) {
    for (const mcpu of o.mcpus) {
      try {
        const s = (await lowerModule(mod, { target: "amdgpu", mcpu, profile: "isa", command: ["ptx-lower", "lower", "fuzz.ptx"] })).text;
        const leaks = asmLeaks(s);
        if (leaks.length) {
          const cause = /[\r\n\u2028\u2029]/.test(file) ? "a newline in the file name" : "a newline in an instruction's text";
          findings.push({ kind: "asm-leak", stage: "amdgpu", message: `${cause} leaves an uncommented line, e.g. ${JSON.stringify(leaks[0])}` });
        }
      } catch (e) {
        findings.push({ kind: "crash", stage: `lower amdgpu ${mcpu}`, ...errOf(e) });
      }
    }
    let js: string | null = null;
    let c: string | null = null;
    if (o.format) {
      try {
        js = (await lowerModule(mod, { target: "js", profile: "sm90" })).text;
      } catch (e) {
        findings.push({ kind: "crash", stage: "lower js", ...errOf(e) });
      }
      try {
        c = (await lowerModule(mod, { target: "c", profile: "isa" })).text;
      } catch (e) {
        findings.push({ kind: "crash", stage: "lower c", ...errOf(e) });
      }
    } else {
      // The portable path of lowerModule with formatting off (prettier is the slow part).
      try {
        const routines = collectRoutines(mod).map((r) => {
          const { rule, fn } = lowerPortable(r.spec, "isa");
          const header = [`${r.name}: ${formName(r.spec.form)}  —  rule ${rule.name}`, "serves:", ...r.insts.map((i) => `  ${i.loc.file}:${i.loc.line}:${i.loc.col}  ${i.text}`)].join("\n");
          return { name: r.name, fn: { ...fn, name: r.name }, header };
        });
        const banner = `NOTE: generated by ptx-lower — do not edit.\nsource: ${mod.file}`;
        try {
          js = await printJsModule(routines, { banner, format: false });
        } catch (e) {
          findings.push({ kind: "crash", stage: "print js", ...errOf(e) });
        }
        try {
          c = printCModule(routines, { banner, format: false });
        } catch (e) {
          findings.push({ kind: "crash", stage: "print c", ...errOf(e) });
        }
      } catch (e) {
        findings.push({ kind: "crash", stage: "lower portable", ...errOf(e) });
      }
    }
    for (const [stage, out] of [["js", js], ["c", c]] as const) {
      const raw = out === null ? null : rawControlAt(out);
      if (raw) findings.push({ kind: "raw-control", stage, message: raw });
    }
    if (js !== null) {
      const bad = jsCompiles(js);
      if (bad) findings.push({ kind: "bad-js", stage: "js", message: bad });
      const stray = strayCommentEnds(js);
      if (stray.length) findings.push({ kind: "stray-comment", stage: "js", message: stray.slice(0, 3).join(" | ") });
    }
    if (c !== null) {
      const stray = strayCommentEnds(c);
      if (stray.length) findings.push({ kind: "stray-comment", stage: "c", message: stray.slice(0, 3).join(" | ") });
      if (o.compileC) {
        const bad = cCompiles(c);
        if (bad) findings.push({ kind: "bad-c", stage: "c", message: bad });
      }
    }
  }
  const ms = performance.now() - t0;
  if (ms > o.slowMs) findings.push({ kind: "slow", stage: "all", message: `${ms.toFixed(0)} ms (bound ${o.slowMs} ms)` });
  return { findings, ms, occurrences: mod.insts.length, diagnostics: mod.diagnostics.length };
}

/** The check options for input `index`: one processor per input in rotation, formatting and gcc sampled. */
export function optionsFor(index: number, slowMs: number): CheckOptions {
  return {
    mcpus: [MCPUS[index % MCPUS.length]!],
    format: index % 50 === 7,
    compileC: index % 250 === 13,
    lowerWithErrors: false, // lowerModule refuses modules with error diagnostics (by design)
    slowMs,
    report: index % 25 === 3 || index % 7 === 5,
  };
}

// =======================================================================================
// Device cases: -o to things that are not regular files, through the real CLI

/**
 * Runs `ptx-lower lower -o TARGET` (from source, with tsx) against a character device made
 * with mknod (1, 3: a null device; 1, 7: a full device), a FIFO with a reader, a symlink and
 * a dangling symlink, all in a fresh scratch directory, and checks bin/output.ts's rules:
 * type, inode and device numbers unchanged; content written through; one-line errors.
 * Never names a real /dev entry. @returns findings, or a reason it was skipped (not root).
 */
export function deviceChecks(): { findings: Finding[]; skipped?: string } {
  if (process.getuid?.() !== 0) return { findings: [], skipped: "not root (mknod needs it)" };
  const dir = mkdtempSync(join(tmpdir(), "ptx-lower-fuzz-dev-"));
  const findings: Finding[] = [];
  const bad = (stage: string, message: string) => findings.push({ kind: "device", stage, message });
  const input = join(ROOT, "examples", "bitfields.sm_90.ptx");
  const tsx = pathToFileURL(join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;
  const cliArgs = (out: string) => [process.execPath, "--import", tsx, join(ROOT, "bin", "ptx-lower.ts"), "lower", input, "--target", "js", "-o", out];
  const run = (out: string) => {
    const [cmd, ...args] = cliArgs(out);
    return spawnSync(cmd!, args, { encoding: "utf8", timeout: 60_000 });
  };
  const shape = (p: string) => {
    const st = lstatSync(p);
    return `${st.isSymbolicLink() ? "symlink" : st.isCharacterDevice() ? "char" : st.isFIFO() ? "fifo" : st.isFile() ? "file" : "other"} ino ${st.ino} rdev ${st.rdev}`;
  };
  try {
    for (const [name, minor, wantCode, wantErr] of [["null", "3", 0, ""], ["full", "7", 1, "no space left on device"]] as const) {
      const dev = join(dir, name);
      if (spawnSync("mknod", [dev, "c", "1", minor]).status !== 0) {
        bad(name, "mknod failed");
        continue;
      }
      const before = shape(dev);
      const r = run(dev);
      if (r.status !== wantCode) bad(name, `exit ${r.status}, expected ${wantCode}: ${r.stderr.slice(0, 300)}`);
      if (wantErr && r.stderr !== `ptx-lower: error: cannot write ${dev}: ${wantErr}\n`) bad(name, `stderr ${JSON.stringify(r.stderr.slice(0, 300))}`);
      if (!wantErr && r.stderr !== "") bad(name, `stderr ${JSON.stringify(r.stderr.slice(0, 300))}`);
      if (shape(dev) !== before) bad(name, `changed: ${before} → ${shape(dev)}`);
    }
    const fifo = join(dir, "fifo");
    spawnSync("mkfifo", [fifo]);
    const before = shape(fifo);
    // The reader (a shell) and the writer run together; the reader's output is the byte count.
    const r = spawnSync("sh", ["-c", `cat '${fifo}' | wc -c & ${cliArgs(fifo).map((a) => `'${a}'`).join(" ")}; rc=$?; wait; echo "rc=$rc"`], { encoding: "utf8", timeout: 60_000 });
    const m = /^\s*(\d+)\s*\nrc=(\d+)\s*$/.exec(r.stdout);
    if (!m || m[2] !== "0" || Number(m[1]) < 1000) bad("fifo", `reader/writer: ${JSON.stringify(r.stdout)} ${r.stderr.slice(0, 300)}`);
    if (shape(fifo) !== before) bad("fifo", `changed: ${before} → ${shape(fifo)}`);
    const real = join(dir, "real.mjs");
    const link = join(dir, "link.mjs");
    writeFileSync(real, "old\n");
    symlinkSync("real.mjs", link);
    const linkBefore = shape(link);
    const rl = run(link);
    if (rl.status !== 0) bad("symlink", `exit ${rl.status}: ${rl.stderr.slice(0, 300)}`);
    if (shape(link) !== linkBefore) bad("symlink", `the link changed: ${linkBefore} → ${shape(link)}`);
    if (!readFileSync(real, "utf8").includes("export function")) bad("symlink", "the link's target was not written");
    symlinkSync("missing.mjs", join(dir, "dangling"));
    const rd = run(join(dir, "dangling"));
    if (rd.status !== 1 || !/cannot write .*: a symbolic link to a missing file\n$/.test(rd.stderr) || existsSync(join(dir, "missing.mjs"))) bad("dangling symlink", `exit ${rd.status}: ${rd.stderr.slice(0, 300)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { findings };
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
}

function parseArgs(argv: string[]): Args {
  const a: Args = { inputs: 100_000, seed: 1, workers: Math.max(1, availableParallelism()), timeoutMs: 30_000, slowMs: 5_000, out: join(ROOT, "out/fuzz"), from: 0 };
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    switch (argv[i]) {
      case "--inputs": a.inputs = Number(v); i++; break;
      case "--seed": a.seed = Number(v); i++; break;
      case "--workers": a.workers = Number(v); i++; break;
      case "--timeout-ms": a.timeoutMs = Number(v); i++; break;
      case "--slow-ms": a.slowMs = Number(v); i++; break;
      case "--out": a.out = v!; i++; break;
      case "--from": a.from = Number(v); i++; break;
    }
  }
  return a;
}

type ToParent = { t: "start"; i: number } | { t: "done"; i: number; ms: number; occ: number; findings: Finding[]; source: string } | { t: "end" };
type ToWorker = { t: "range"; from: number; to: number; seed: number; slowMs: number };

async function worker(): Promise<void> {
  const mods = corpus();
  const send = (m: ToParent) => new Promise<void>((res) => process.send!(m, () => res()));
  process.on("message", async (m: ToWorker) => {
    if (m.t !== "range") return;
    for (let i = m.from; i < m.to; i++) {
      await send({ t: "start", i });
      const inp = inputAt(i, m.seed, mods);
      const r = await checkInput(inp.text, inp.file, optionsFor(i, m.slowMs));
      await send({ t: "done", i, ms: r.ms, occ: r.occurrences, findings: r.findings, source: inp.source });
    }
    await send({ t: "end" });
    process.exit(0);
  });
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  mkdirSync(a.out, { recursive: true });
  const dev = deviceChecks();
  process.stderr.write(dev.skipped ? `fuzz: device cases skipped: ${dev.skipped}\n` : `fuzz: device cases (mknod 1,3 and 1,7, FIFO, symlinks): ${dev.findings.length} findings\n`);
  const mods = corpus();
  const t0 = performance.now();
  const stats = { done: 0, occ: 0, maxMs: 0, maxAt: -1, bySource: new Map<string, number>() };
  const findings = new Map<string, { kind: FindingKind; stage: string; message: string; stack?: string; count: number; first: number }>();
  const record = (i: number, f: Finding) => {
    const top = f.stack?.split("\n").find((l) => l.includes("/work/") || l.includes(ROOT)) ?? "";
    const key = f.kind === "asm-leak" ? `${f.kind}|${f.message.split(" leaves ")[0]}` : `${f.kind}|${f.stage}|${f.message.replace(/\d+/g, "N").slice(0, 200)}|${top}`;
    const e = findings.get(key);
    if (e) e.count++;
    else {
      findings.set(key, { ...f, count: 1, first: i });
      if (i < 0) return; // not an input's finding (the device cases)
      const inp = inputAt(i, a.seed, mods);
      writeFileSync(join(a.out, `${f.kind}-${i}.ptx`), inp.text);
      writeFileSync(join(a.out, `${f.kind}-${i}.txt`), `input ${i} (seed ${a.seed}, ${inp.source}${inp.base ? ` of ${inp.base}` : ""}), file name ${JSON.stringify(inp.file)}\n${f.kind} in ${f.stage}: ${f.message}\n${f.stack ?? ""}\n`);
    }
  };

  for (const f of dev.findings) record(-1, f);
  // Split [from, from + inputs) into chunks handed to workers; a hung worker is killed and
  // its chunk resumed after the hanging input.
  const end = a.from + a.inputs;
  const CHUNK = 500;
  let next = a.from;
  const take = (): [number, number] | null => {
    if (next >= end) return null;
    const r: [number, number] = [next, Math.min(end, next + CHUNK)];
    next = r[1];
    return r;
  };
  const self = fileURLToPath(import.meta.url);
  let lastReport = 0;
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
          record(current, { kind: "hang", stage: "all", message: `no answer within ${a.timeoutMs} ms` });
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
          stats.occ += m.occ;
          stats.bySource.set(m.source, (stats.bySource.get(m.source) ?? 0) + 1);
          if (m.ms > stats.maxMs) {
            stats.maxMs = m.ms;
            stats.maxAt = m.i;
          }
          for (const f of m.findings) record(m.i, f);
          const now = performance.now();
          if (now - lastReport > 10_000) {
            lastReport = now;
            process.stderr.write(`fuzz: ${stats.done}/${a.inputs} inputs, ${findings.size} distinct findings, ${((now - t0) / 1000).toFixed(0)} s\n`);
          }
        }
      });
      child.on("exit", (code, signal) => {
        if (timer) clearTimeout(timer);
        // Died on an input without hanging (out of memory, a native crash): that input is a crash.
        if (!hung && finished < current) {
          record(current, { kind: "crash", stage: "worker", message: `the worker died (exit ${code ?? signal}) on this input` });
          stats.done++;
        }
        // Resume after the input it was on.
        const resumeAt = Math.max(current, finished) + 1;
        if (resumeAt < range[1]) void runWorker([resumeAt, range[1]]).then(resolve);
        else resolve();
      });
      child.on("error", () => undefined);
      child.send({ t: "range", from: range[0], to: range[1], seed: a.seed, slowMs: a.slowMs } satisfies ToWorker);
    });
  const lanes = Array.from({ length: a.workers }, async () => {
    for (let r = take(); r; r = take()) await runWorker(r);
  });
  await Promise.all(lanes);

  const secs = (performance.now() - t0) / 1000;
  const lines = [
    `fuzz: ${stats.done} inputs (seed ${a.seed}, from ${a.from}) in ${secs.toFixed(1)} s (${(stats.done / secs).toFixed(0)}/s) with ${a.workers} workers`,
    `  sources: ${[...stats.bySource].map(([k, v]) => `${k} ${v}`).join(", ")}; ${stats.occ} family occurrences lowered or checked`,
    `  slowest input: ${stats.maxMs.toFixed(0)} ms (index ${stats.maxAt})`,
    `  distinct findings: ${findings.size}${findings.size ? ` (inputs saved under ${a.out})` : ""}`,
  ];
  for (const f of [...findings.values()].sort((x, y) => y.count - x.count))
    lines.push(`  [${f.kind}] ×${f.count} first at ${f.first}, ${f.stage}: ${f.message.split("\n")[0]!.slice(0, 300)}${f.stack ? `\n      ${f.stack.split("\n").slice(1, 4).map((s) => s.trim()).join("\n      ")}` : ""}`);
  process.stdout.write(lines.join("\n") + "\n");
  const hard = [...findings.values()].filter((f) => f.kind !== "asm-leak");
  process.exitCode = hard.length ? 1 : 0;
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  if (process.argv.includes("--worker")) void worker();
  else
    main().catch((e: unknown) => {
      process.stderr.write(`fuzz: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
      process.exitCode = 2;
    });
}
