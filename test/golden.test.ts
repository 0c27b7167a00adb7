/**
 * Golden tests: each `test/cases/<name>.ptx` is lowered for every target, and the output is
 * compared with the files beside it: `<name>.amdgpu.wave64.s` (gfx900, gfx90a, gfx942),
 * `<name>.amdgpu.wave32.s` (gfx1030, gfx1100), `<name>.js` and `<name>.c`. Regenerate them
 * with `npm run golden:update` (which is `vitest run -u test/golden.test.ts`); under CI (`CI`
 * set) vitest writes nothing, and a missing or different golden fails. A golden with no case
 * beside it fails too.
 *
 * Each golden opens with a header naming how it was produced, followed by exactly what the
 * CLI prints (checked here by running the CLI's own `lower` action). The lowering is given
 * the path relative to the repository root, so no absolute path or timestamp gets in.
 *
 * The AMDGPU goldens hold one body per wave size, in the style of LLVM FileCheck's
 * `--check-prefixes`: after the header, a line with no prefix is printed by every processor of
 * the group; a line `GFX942: text` (or `GFX900,GFX90A: text`: the processors in MCPUS order,
 * upper case, comma-separated) is printed only by the processors named, and `GFX942:` alone
 * stands for an empty line. Processor P's output is the body's lines that are unprefixed or
 * name P, prefix and one space removed, each ending in a newline; the test rebuilds every
 * processor's output from the golden on disk and compares it, byte for byte, with what the
 * lowering prints. The body is made by `mergeOutputs`: the first processor's lines, then each
 * next processor aligned with what is merged so far by a longest common subsequence of lines
 * (a line in both joins the common line; where they differ, the merged lines come before the
 * new processor's). No output line may look like a prefix (`GFX…:` at its start): merging
 * refuses it, so reading back is never ambiguous.
 *
 * Each case's `// run: fn(args) == d` lines are run on the reference semantics and on every
 * target: the AMDGPU interpreter for each processor, the golden JS module itself, and the
 * golden C file itself compiled with a small harness under UBSan.
 */
import { runWarpLevel } from "../targets/amdgpu/warp_exec.js";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { ParsedModule } from "../src/ir/build.js";
import { parseModule } from "../src/ir/build.js";
import type { Profile } from "../src/ir/forms.js";
import type { FamilyInst, RoutineSpec } from "../src/ir/ir.js";
import { sourcesOf } from "../src/ir/ir.js";
import type { LoweredModule, OutputTarget } from "../src/lower.js";
import { collectRoutines, lowerModule } from "../src/lower.js";
import { expectedScalar } from "../src/check/scalar.js";
import { amdgpuExecutor } from "../targets/amdgpu/verify.js";
import { expectedWarp, isWarpLevel, missingLowering } from "../src/check/verify.js";
import type { MatchCase } from "../src/check/warps.js";
import type { WarpCase } from "../src/check/warp_cases.js";
import { warpArgs, warpLanes } from "../targets/portable/verify.js";
import { formName, formWrites } from "../src/ir/forms.js";
import type { CV } from "../src/sem/bv.js";
import { concrete, u } from "../src/sem/bv.js";
import { execRoutine, runFailure } from "../targets/amdgpu/exec.js";
import type { FunctionDecl } from "../src/ptx/ast.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import { MCPUS, TARGETS } from "../targets/amdgpu/regs.js";
import { lowerRoutine } from "../targets/amdgpu/lower.js";
import { callJs, loadJsModule } from "../targets/js/run.js";
import type { JsRoutine } from "../targets/js/run.js";
import { CC, haveCc } from "../targets/c/run.js";
import type { PirFunction, PirValue, PType } from "../targets/portable/pir.js";
import { lowerCommand } from "../bin/commands.js";
import { FAMILIES as FAMILY_DEFS } from "../src/families/index.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const CASES = join(HERE, "cases");
/** The case directory as the lowering sees it: relative to the repository root. */
const REL = "test/cases";
const PROFILE: Profile = "isa";

const caseNames = readdirSync(CASES)
  .filter((f) => f.endsWith(".ptx"))
  .map((f) => f.slice(0, -4))
  .sort();

interface Output {
  target: OutputTarget;
  mcpu?: Mcpu;
  /** The golden's file name, beside the case. */
  file: string;
}

/** The wave-size groups of processors, each sharing one AMDGPU golden (in MCPUS order). */
const WAVE_GROUPS: { wave: 32 | 64; mcpus: Mcpu[] }[] = [64, 32].map((wave) => ({ wave: wave as 32 | 64, mcpus: MCPUS.filter((m) => TARGETS[m].wave === wave) }));

const amdgpuGolden = (name: string, wave: number) => `${name}.amdgpu.wave${wave}.s`;

/** Every output lowered (one per processor, js, c); `file` is the golden it is checked against. */
/** The targets a case's `// targets:` line names (amdgpu, js, c); all three where it has none. */
function caseTargets(name: string): Set<string> {
  const m = /^\s*\/\/\s*targets:\s*(.*)$/m.exec(readFileSync(join(CASES, `${name}.ptx`), "utf8"));
  return new Set(m ? m[1]!.split(/[\s,]+/).filter((t) => t === "amdgpu" || t === "js" || t === "c") : ["amdgpu", "js", "c"]);
}

function outputsOf(name: string): Output[] {
  const t = caseTargets(name);
  return [
    ...(t.has("amdgpu") ? MCPUS.map((mcpu): Output => ({ target: "amdgpu", mcpu, file: amdgpuGolden(name, TARGETS[mcpu].wave) })) : []),
    ...(t.has("js") ? [{ target: "js", file: `${name}.js` } as Output] : []),
    ...(t.has("c") ? [{ target: "c", file: `${name}.c` } as Output] : []),
  ];
}

/** The golden files of a case. */
const goldensOf = (name: string) => {
  const t = caseTargets(name);
  return [...(t.has("amdgpu") ? WAVE_GROUPS.map((g) => amdgpuGolden(name, g.wave)) : []), ...(t.has("js") ? [`${name}.js`] : []), ...(t.has("c") ? [`${name}.c`] : [])];
};

/** The command line the CLI records in its banner (`bin/commands.ts`, lowerCommand). */
function cliCommand(name: string, o: Output): string {
  return `ptx-lower lower ${name}.ptx --target ${o.target}${o.mcpu ? ` --mcpu ${o.mcpu}` : ""} --semantics ${PROFILE}`;
}

/** A single output's first lines (js, c, and each processor's listing as llvm-mc-19 is given it). */
function header(name: string, o: Output): string {
  const c = o.target === "amdgpu" ? ";" : "//";
  return [
    `${c} NOTE: generated by npm run golden:update — do not edit.`,
    `${c} The rest of this file is the output of:`,
    `${c}   ptx-lower lower ${REL}/${name}.ptx --target ${o.target}${o.mcpu ? ` --mcpu ${o.mcpu}` : ""} --semantics ${PROFILE}`,
    "",
  ].join("\n");
}

/** An AMDGPU golden's first lines: how to regenerate it, the CLI lines, how to read the prefixes. */
function groupHeader(name: string, mcpus: readonly Mcpu[]): string {
  return [
    "; NOTE: generated by npm run golden:update — do not edit.",
    `; The rest of this file is the output of, for MCPU in ${mcpus.join(" ")}:`,
    `;   ptx-lower lower ${REL}/${name}.ptx --target amdgpu --mcpu MCPU --semantics ${PROFILE}`,
    `; merged: a line every MCPU prints has no prefix; a line only some print follows their names`,
    `; (${mcpus.map(prefixOf).join(", ")}; e.g. "${mcpus.slice(0, 2).map(prefixOf).join(",")}: "), as test/golden.test.ts describes.`,
    "",
  ].join("\n");
}

// ---------------------------------------------------------------------------------------
// One body per wave size (see the file comment)

const prefixOf = (m: Mcpu) => m.toUpperCase();
/** A line that starts with a prefix: the names, then the line's text (absent: an empty line). */
const PREFIXED = /^(GFX[0-9A-Z]+(?:,GFX[0-9A-Z]+)*):(?: (.*))?$/s;

function linesOf(text: string, what: string): string[] {
  if (!text.endsWith("\n")) throw new Error(`${what}: the output does not end with a newline`);
  return text.slice(0, -1).split("\n");
}

/**
 * Merges the outputs of one wave group into one body (`mcpus` order; each output ends in a
 * newline). Throws on an output line that looks like a prefix.
 */
export function mergeOutputs(mcpus: readonly Mcpu[], outputs: readonly string[]): string {
  let merged: { line: string; on: Set<Mcpu> }[] = [];
  mcpus.forEach((mcpu, k) => {
    const lines = linesOf(outputs[k]!, mcpu);
    for (const l of lines) if (/^GFX[0-9A-Z]+[,:]/.test(l)) throw new Error(`${mcpu}: the output line ${JSON.stringify(l)} would read as a prefix`);
    // lcs[i][j]: the longest common subsequence of merged[i..] and lines[j..].
    const n = merged.length;
    const m = lines.length;
    const lcs = Array.from({ length: n + 1 }, () => new Int32Array(m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--) lcs[i]![j] = merged[i]!.line === lines[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    const out: typeof merged = [];
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && merged[i]!.line === lines[j] && lcs[i]![j] === lcs[i + 1]![j + 1]! + 1) {
        out.push({ line: merged[i]!.line, on: new Set([...merged[i]!.on, mcpu]) });
        i++;
        j++;
      } else if (i < n && (j === m || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) out.push(merged[i++]!);
      else out.push({ line: lines[j++]!, on: new Set([mcpu]) });
    }
    merged = out;
  });
  return merged
    .map(({ line, on }) => {
      if (on.size === mcpus.length) return `${line}\n`;
      const names = mcpus.filter((m) => on.has(m)).map(prefixOf).join(",");
      return line === "" ? `${names}:\n` : `${names}: ${line}\n`;
    })
    .join("");
}

/** Processor `mcpu`'s output, rebuilt from a merged body (the inverse of `mergeOutputs`). */
export function outputOf(body: string, mcpu: Mcpu): string {
  const me = prefixOf(mcpu);
  const out: string[] = [];
  for (const l of linesOf(body, "the merged golden")) {
    const m = PREFIXED.exec(l);
    if (!m) out.push(l);
    else if (m[1]!.split(",").includes(me)) out.push(m[2] ?? "");
  }
  return out.map((l) => `${l}\n`).join("");
}

const modules = new Map<string, ParsedModule>();
function moduleOf(name: string): ParsedModule {
  let m = modules.get(name);
  if (!m) modules.set(name, (m = parseModule(readFileSync(join(CASES, `${name}.ptx`), "utf8"), `${REL}/${name}.ptx`)));
  return m;
}

const lowered = new Map<string, Promise<LoweredModule>>();
function lowerOnce(name: string, o: Output): Promise<LoweredModule> {
  const key = `${name} ${o.target} ${o.mcpu ?? ""}`;
  let p = lowered.get(key);
  if (!p) lowered.set(key, (p = lowerModule(moduleOf(name), { target: o.target, ...(o.mcpu ? { mcpu: o.mcpu } : {}), profile: PROFILE, command: cliCommand(name, o).split(" ") })));
  return p;
}

// ---------------------------------------------------------------------------------------
// run: lines

interface RunLine {
  line: number;
  fn: string;
  args: bigint[];
  want: bigint;
}

/** A warp run: line (its arguments are `name=value`): see "warp run: lines" below. */
const isWarpRun = (l: string) => /^\s*\/\/\s*run:\s*[A-Za-z_$][\w$]*\(\s*[A-Za-z_$][\w$]*\s*=/.test(l);

function runLines(text: string): RunLine[] {
  const out: RunLine[] = [];
  text.split("\n").forEach((l, i) => {
    if (!/^\s*\/\/\s*run:\s*[A-Za-z_$][\w$]*\(/.test(l) || isWarpRun(l)) return;
    const m = /^\s*\/\/\s*run:\s*([A-Za-z_$][\w$]*)\(([^)]*)\)\s*==\s*(\S+)\s*$/.exec(l);
    if (!m) throw new Error(`line ${i + 1}: a run: line is fn(a, b) == d or a warp run: line: ${l}`);
    const args = m[2]!.trim() ? m[2]!.split(",").map((x) => BigInt(x.trim())) : [];
    out.push({ line: i + 1, fn: m[1]!, args, want: BigInt(m[3]!) });
  });
  return out;
}

/** The one family instruction of PTX function `fn`. */
function instOf(mod: ParsedModule, fn: string): FamilyInst {
  const fns = mod.ast.items.filter((x): x is FunctionDecl => x.kind === "function" && x.body !== null).sort((a, b) => a.loc.line - b.loc.line);
  const i = fns.findIndex((f) => f.name === fn);
  if (i < 0) throw new Error(`run: no function ${fn}`);
  const from = fns[i]!.loc.line;
  const to = fns[i + 1]?.loc.line ?? Infinity;
  const insts = mod.insts.filter((x) => x.loc.line >= from && x.loc.line < to);
  if (insts.length !== 1) throw new Error(`run: ${fn} has ${insts.length} family instructions (needs exactly one)`);
  return insts[0]!;
}

interface Resolved {
  run: RunLine;
  routine: string;
  /** Values of a, b, c (immediates folded in). */
  abc: { a: bigint; b: bigint; c: bigint };
}

function resolve(mod: ParsedModule, r: RunLine): Resolved {
  const inst = instOf(mod, r.fn);
  const routine = collectRoutines(mod).find((x) => x.insts.includes(inst))!;
  if (routine.spec.guarded || inst.form.op === "match") throw new Error(`run: ${r.fn}: only unguarded scalar forms take run: lines`);
  const regs = sourcesOf(inst.form).filter((s) => routine.spec.kinds[s]?.kind !== "imm");
  if (regs.length !== r.args.length) throw new Error(`run: ${r.fn} takes ${regs.length} arguments (${regs.join(", ")}), line ${r.line} gives ${r.args.length}`);
  const abc = { a: 0n, b: 0n, c: 0n };
  for (const s of sourcesOf(inst.form)) {
    const k = routine.spec.kinds[s];
    const v = k?.kind === "imm" ? k.value : r.args[regs.indexOf(s)]!;
    abc[s as "a" | "b" | "c"] = v & 0xffffffffn;
  }
  return { run: r, routine: routine.name, abc };
}

const hex = (x: bigint) => `0x${x.toString(16).padStart(8, "0")}`;

// ---------------------------------------------------------------------------------------
// warp run: lines (match.sync)
//
//   // run: fn(a=LANES, membermask=LANES, active=MASK[, g=LANES, dPrior=LANES, pPrior=LANES]) == d=LANES, p=LANES
//
// fn is the PTX function whose one family instruction is a match.sync. The inputs are the
// instruction's, per lane (index = laneid): its register sources (an immediate source is not
// given; a uniform one must be one value), `active` (the lanes that have not exited, a u32
// mask) and, for a guarded instruction, the guard `g` and the prior values `dPrior`/`pPrior`
// that lanes whose guard is false keep. The results are the ones the form writes (d, p or
// both), each a list of 32. LANES is `[item, …]` with 32 values in all, or one value for all
// 32 lanes; an item is a value (hex or decimal; p and g as 0/1), `value*N` (N copies), or
// `(item, …)*N` (the group N times). `_` in a result is a lane not compared: one that does not
// execute (not active), or whose result the PTX ISA leaves undefined; a lane that is not active
// must be `_`. Each line is checked on the reference (src/sem/match_sync.ts with the guard
// rule), the AMDGPU interpreter for every processor, the golden JS module and the golden C file.

/** Lane values; null is `_`. */
type Lanes = (bigint | null)[];

interface WarpRunLine {
  line: number;
  text: string;
  fn: string;
  inputs: Map<string, Lanes | bigint>;
  results: Map<string, Lanes>;
}

/** Parses `name=value, …` (value: a list or one number) at `s[at]`, up to `end` or the string's end. */
function parseAssignments(s: string, where: string): Map<string, Lanes | bigint> {
  const out = new Map<string, Lanes | bigint>();
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`${where}: ${why} at column ${i + 1} of ${JSON.stringify(s)}`);
  };
  const ws = () => {
    while (s[i] === " " || s[i] === "\t") i++;
  };
  const atom = (): bigint | null => {
    ws();
    if (s[i] === "_") return i++, null;
    const m = /^(0x[0-9a-fA-F]+|\d+)/.exec(s.slice(i));
    if (!m) return fail("expected a value");
    i += m[1]!.length;
    return BigInt(m[1]!);
  };
  const count = (): number => {
    ws();
    const m = /^\d+/.exec(s.slice(i));
    if (!m) return fail("expected a count after *");
    i += m[0].length;
    return Number(m[0]);
  };
  const items = (close: string): Lanes => {
    const xs: Lanes = [];
    for (;;) {
      ws();
      let part: Lanes;
      if (s[i] === "(") {
        i++;
        part = items(")");
        ws();
        if (s[i] !== "*") fail("a group ( … ) needs *N");
        i++;
        const n = count();
        part = Array.from({ length: n }, () => part).flat();
      } else {
        const x = atom();
        ws();
        if (s[i] === "*") {
          i++;
          part = new Array<bigint | null>(count()).fill(x);
        } else part = [x];
      }
      xs.push(...part);
      ws();
      if (s[i] === ",") {
        i++;
        continue;
      }
      if (s[i] === close) return i++, xs;
      return fail(`expected , or ${close}`);
    }
  };
  for (;;) {
    ws();
    const m = /^([A-Za-z_$][\w$]*)\s*=/.exec(s.slice(i));
    if (!m) fail("expected name=");
    i += m![0].length;
    ws();
    let v: Lanes | bigint;
    if (s[i] === "[") {
      i++;
      v = items("]");
      if (v.length !== 32) fail(`${m![1]} has ${v.length} lanes, not 32`);
    } else {
      const x = atom();
      if (x === null) fail("_ is a lane of a list");
      v = x!;
    }
    if (out.has(m![1]!)) fail(`${m![1]} given twice`);
    out.set(m![1]!, v);
    ws();
    if (i >= s.length) return out;
    if (s[i] !== ",") fail("expected ,");
    i++;
  }
}

function warpRunLines(text: string, file: string): WarpRunLine[] {
  const out: WarpRunLine[] = [];
  text.split("\n").forEach((l, k) => {
    if (!isWarpRun(l)) return;
    const where = `${file}:${k + 1}`;
    const m = /^\s*\/\/\s*run:\s*([A-Za-z_$][\w$]*)\((.*)\)\s*==\s*(.*?)\s*$/.exec(l);
    if (!m) throw new Error(`${where}: a warp run: line is fn(name=value, …) == d=…, p=…`);
    const results = parseAssignments(m[3]!, where);
    for (const [r, v] of results) if (typeof v === "bigint") throw new Error(`${where}: result ${r} must list 32 lanes`);
    out.push({ line: k + 1, text: l.trim(), fn: m[1]!, inputs: parseAssignments(m[2]!, where), results: results as Map<string, Lanes> });
  });
  return out;
}

interface WarpResolved {
  run: WarpRunLine;
  where: string;
  spec: RoutineSpec;
  routine: string;
  /** The inputs as the checker's warp case (immediates filled in; priors 0 where unguarded). */
  c: MatchCase | WarpCase;
  want: { d?: Lanes; p?: Lanes };
}

function resolveWarp(mod: ParsedModule, r: WarpRunLine, where: string): WarpResolved {
  const inst = instOf(mod, r.fn);
  const routine = collectRoutines(mod).find((x) => x.insts.includes(inst))!;
  const { spec } = routine;
  const f = spec.form;
  if (f.op !== "match" && !isWarpLevel(f)) throw new Error(`${where}: ${r.fn} is not a warp instruction: give it a scalar run: line`);
  const fail = (why: string): never => {
    throw new Error(`${where}: ${r.fn}: ${why}`);
  };
  const priors = [...(formWrites(f).d ? ["dPrior"] : []), ...(formWrites(f).p ? ["pPrior"] : [])];
  const allowed = [...sourcesOf(f).filter((s) => spec.kinds[s]?.kind !== "imm"), "active", ...(spec.guarded ? ["g", ...(f.op === "match" ? ["dPrior", "pPrior"] : priors)] : [])];
  for (const k of r.inputs.keys()) if (!allowed.includes(k)) fail(`takes ${allowed.join(", ")}; ${k} is not one of them`);
  for (const k of allowed) if (!r.inputs.has(k)) fail(`${k} is missing`);
  const lanes = (k: string): bigint[] => {
    const v = r.inputs.get(k)!;
    return typeof v === "bigint" ? new Array<bigint>(32).fill(v) : (v as bigint[]);
  };
  const src = (s: "a" | "b" | "c" | "membermask"): bigint[] => {
    const kind = spec.kinds[s];
    if (kind?.kind === "imm") return new Array<bigint>(32).fill(kind.value);
    const xs = lanes(s);
    if (kind?.kind === "s" && xs.some((x) => x !== xs[0])) fail(`${s} is uniform: give one value`);
    return xs;
  };
  const active = r.inputs.get("active");
  if (typeof active !== "bigint") fail("active is one u32 mask");
  const bits = (k: string) => lanes(k).map((x) => (x === 1n ? true : x === 0n ? false : fail(`${k} lanes are 0 or 1`)));
  const has = (s: "a" | "b" | "c" | "membermask") => sourcesOf(f).includes(s);
  const c: MatchCase | WarpCase = isWarpLevel(f)
    ? {
        label: `run: line ${r.line}`,
        // vote's a is a predicate: 0 or 1 per lane (an immediate: true when non-zero).
        a: has("a") ? (f.op === "vote" ? src("a").map((x) => (x !== 0n ? 1n : 0n)) : src("a")) : new Array<bigint>(32).fill(0n),
        b: has("b") ? src("b") : [],
        c: has("c") ? src("c") : [],
        membermask: has("membermask") ? src("membermask") : null,
        active: Number(active),
        guard: spec.guarded ? bits("g") : null,
        dPrior: spec.guarded && formWrites(f).d ? lanes("dPrior") : new Array<bigint>(32).fill(0n),
        pPrior: spec.guarded && formWrites(f).p ? bits("pPrior") : new Array<boolean>(32).fill(false),
      }
    : {
        label: `run: line ${r.line}`,
        a: src("a"),
        membermask: src("membermask"),
        active: Number(active),
        guard: spec.guarded ? bits("g") : null,
        dPrior: spec.guarded ? lanes("dPrior") : new Array<bigint>(32).fill(0n),
        pPrior: spec.guarded ? bits("pPrior") : new Array<boolean>(32).fill(false),
      };
  const writes = formWrites(f);
  const names = [...(writes.d ? ["d"] : []), ...(writes.p ? ["p"] : [])];
  if ([...r.results.keys()].join(",") !== names.join(",")) fail(`${formName(f)} writes ${names.join(" and ")}: the line must give ${names.map((n) => `${n}=[…]`).join(", ")}`);
  for (const [n, xs] of r.results)
    xs.forEach((x, l) => {
      if (x !== null && !((c.active >>> l) & 1)) fail(`${n} lane ${l} is not active: write _`);
      if (x !== null && n === "p" && x !== 0n && x !== 1n) fail("p lanes are 0 or 1");
    });
  return { run: r, where, spec, routine: routine.name, c, want: { d: r.results.get("d"), p: r.results.get("p") } };
}

/** The lanes where `got` (d as bigint, p as boolean) differs from the line's values. */
function laneDiffs(x: WarpResolved, got: { d?: readonly (bigint | null)[]; p?: readonly (boolean | null)[] }): string[] {
  const bad: string[] = [];
  const show = (v: bigint | boolean | null | undefined) => (v === null || v === undefined ? "undefined" : typeof v === "boolean" ? (v ? "1" : "0") : `0x${v.toString(16)}`);
  for (let l = 0; l < 32; l++) {
    const wd = x.want.d?.[l];
    if (wd !== null && wd !== undefined && got.d?.[l] !== wd) bad.push(`lane ${l}: d = ${show(got.d?.[l])}, want 0x${wd.toString(16)}`);
    const wp = x.want.p?.[l];
    if (wp !== null && wp !== undefined && got.p?.[l] !== (wp === 1n)) bad.push(`lane ${l}: p = ${show(got.p?.[l])}, want ${wp}`);
  }
  return bad;
}

/** The portable routine's arguments for a warp case, by parameter name. */
const ctypeOf = (t: PType): string => {
  const e = t.t === "arr" ? t.elem : t;
  return e.t === "bool" ? "bool" : e.w === 64 ? "uint64_t" : "uint32_t";
};
const cLiteral = (v: PirValue): string => (typeof v === "boolean" ? (v ? "true" : "false") : `0x${(v as bigint).toString(16)}ull`);

/** A C block calling `routine` on one warp case and printing its results (hex, d then p). */
function cWarpCall(routine: string, pir: PirFunction, args: Record<string, PirValue>): string {
  const lines: string[] = [];
  const call: string[] = [];
  for (const p of pir.params) {
    const v = args[p.name]!;
    if (p.type.t === "arr") lines.push(`    const ${ctypeOf(p.type)} in_${p.name}[32] = { ${(v as readonly PirValue[]).map(cLiteral).join(", ")} };`);
    else lines.push(`    const ${ctypeOf(p.type)} in_${p.name} = ${cLiteral(v)};`);
    call.push(`in_${p.name}`);
  }
  // A scalar result (a .pred d as a lane mask, targets/portable/rules/warp.ts) is returned; arrays are out-parameters.
  const scalar = pir.results.find((r) => r.type.t !== "arr");
  for (const r of pir.results) {
    if (r.type.t !== "arr") continue;
    lines.push(`    ${ctypeOf(r.type)} out_${r.name}[32] = { 0 };`);
    call.push(`out_${r.name}`);
  }
  lines.push(`    ${scalar ? `${ctypeOf(scalar.type)} out_${scalar.name} = ` : ""}${routine}(${call.join(", ")});`);
  for (const r of pir.results) lines.push(r.type.t === "arr" ? `    for (int k = 0; k < 32; k++) printf(" %llx", (unsigned long long)out_${r.name}[k]);` : `    printf(" %llx", (unsigned long long)out_${r.name});`);
  lines.push(`    printf("\\n");`);
  return `  {\n${lines.join("\n")}\n  }`;
}

/** The results a C run printed (one line per call), as d / p lanes by the routine's results. */
function cWarpResults(pir: PirFunction, line: string): { d?: bigint[]; p?: boolean[] } {
  const toks = line.trim().split(/\s+/).filter((x) => x).map((x) => BigInt(`0x${x}`));
  const out: { d?: bigint[]; p?: boolean[] } = {};
  let at = 0;
  for (const r of pir.results) {
    // A scalar d is a lane mask (one value), unpacked per lane.
    const xs = r.type.t === "arr" ? toks.slice(at, at + 32) : Array.from({ length: 32 }, (_, l) => (toks[at]! >> BigInt(l)) & 1n);
    at += r.type.t === "arr" ? 32 : 1;
    if (r.name === "d") out.d = xs;
    else if (r.name === "p") out.p = xs.map((x) => x !== 0n);
  }
  return out;
}

const haveTool = (cmd: string, args: string[]) => {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  return !r.error && r.status === 0;
};
const TOOLS: Partial<Record<OutputTarget, boolean>> = { amdgpu: haveTool("llvm-mc-19", ["--version"]), c: haveCc().ok, js: true };
/** Whether the output's validator is installed (tests are skipped, visibly, when not). */
const toolFor = (o: Output) => TOOLS[o.target] ?? false;

// ---------------------------------------------------------------------------------------

describe.each(caseNames)("case %s", (name) => {
  it("parses without diagnostics", () => {
    expect(moduleOf(name).diagnostics).toEqual([]);
    expect(moduleOf(name).insts.length).toBeGreaterThan(0);
  });

  /** What a golden holds: the header, then the output (js, c) or the merged outputs (AMDGPU). */
  const goldenText = async (file: string): Promise<string> => {
    const g = WAVE_GROUPS.find((x) => amdgpuGolden(name, x.wave) === file);
    if (!g) {
      const o = outputsOf(name).find((x) => x.file === file)!;
      return header(name, o) + (await lowerOnce(name, o)).text;
    }
    const texts = await Promise.all(g.mcpus.map(async (mcpu) => (await lowerOnce(name, { target: "amdgpu", mcpu, file })).text));
    return groupHeader(name, g.mcpus) + mergeOutputs(g.mcpus, texts);
  };

  describe.each(goldensOf(name))("%s", (file) => {
    it("matches its golden", async () => {
      const path = join(CASES, file);
      // vitest under CI neither writes a missing file snapshot nor passes it; say so plainly.
      if (process.env.CI) expect(existsSync(path), `${file} is missing: run npm run golden:update and commit it`).toBe(true);
      await expect(await goldenText(file)).toMatchFileSnapshot(`./cases/${file}`);
    });
  });

  describe.each(outputsOf(name))("$file $mcpu", (o) => {
    if (o.target === "amdgpu")
      it("is rebuilt from its golden byte for byte", async () => {
        const g = WAVE_GROUPS.find((x) => x.mcpus.includes(o.mcpu!))!;
        // The golden on disk; while golden:update rewrites it, the text it is being given.
        const updating = expect.getState().snapshotState.snapshotUpdateState === "all";
        const path = join(CASES, o.file);
        const golden = updating || !existsSync(path) ? await goldenText(o.file) : readFileSync(path, "utf8");
        const head = groupHeader(name, g.mcpus);
        expect(golden.startsWith(head), `${o.file} does not start with its header`).toBe(true);
        const rebuilt = Buffer.from(outputOf(golden.slice(head.length), o.mcpu!), "utf8");
        const printed = Buffer.from((await lowerOnce(name, o)).text, "utf8");
        expect(rebuilt.equals(printed), `${o.file} rebuilt for ${o.mcpu} differs from the lowering`).toBe(true);
        if (!rebuilt.equals(printed)) expect(rebuilt.toString("utf8")).toBe(printed.toString("utf8")); // shows the diff
      });

    it.skipIf(!toolFor(o))(`is accepted by ${o.target === "amdgpu" ? "llvm-mc-19" : o.target === "c" ? "the C compiler (-Werror)" : "node --check"}`, async () => {
      const text = header(name, o) + (await lowerOnce(name, o)).text;
      const r =
        o.target === "amdgpu"
          ? spawnSync("llvm-mc-19", ["-arch=amdgcn", `-mcpu=${o.mcpu}`, "-o", "/dev/null"], { input: text, encoding: "utf8" })
          : o.target === "c"
            ? spawnSync(CC, ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Wstrict-prototypes", "-Werror", "-fsyntax-only", "-x", "c", "-"], { input: text, encoding: "utf8" })
            : spawnSync(process.execPath, ["--check", "--input-type=module"], { input: text, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toBe("");
    });

    it("is what the CLI prints", async () => {
      const dir = mkdtempSync(join(tmpdir(), "ptx-lower-golden-"));
      try {
        const file = join(dir, o.file);
        const rc = await lowerCommand(`${REL}/${name}.ptx`, { target: o.target, mcpu: o.mcpu ?? "gfx942", semantics: PROFILE, output: file });
        expect(rc).toBe(0);
        expect(readFileSync(file, "utf8")).toBe((await lowerOnce(name, o)).text);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  const runs = runLines(readFileSync(join(CASES, `${name}.ptx`), "utf8"));
  // A case without run: lines (match.sync is warp-wide) has no such test, rather than a skipped one.
  if (runs.length > 0) it(`run: lines (${runs.length}) hold on the reference and every target`, async () => {
    const mod = moduleOf(name);
    const resolved = runs.map((r) => resolve(mod, r));
    const where = (x: Resolved) => `${name}.ptx:${x.run.line} ${x.run.fn}`;

    for (const x of resolved) {
      const spec = collectRoutines(mod).find((r) => r.name === x.routine)!.spec;
      expect(hex(expectedScalar(spec.form, PROFILE, x.abc)), `${where(x)} on the reference`).toBe(hex(x.run.want));
      for (const mcpu of MCPUS) {
        const [d] = await amdgpuExecutor(lowerRoutine(spec, TARGETS[mcpu], PROFILE))([x.abc]);
        expect(hex(d!), `${where(x)} on amdgpu ${mcpu}`).toBe(hex(x.run.want));
      }
    }

    // JS: the golden module itself.
    const js = await lowerOnce(name, { target: "js", file: `${name}.js` });
    const exports = await loadJsModule(header(name, { target: "js", file: "" }) + js.text);
    for (const x of resolved) {
      const pir = js.routines.find((r) => r.name === x.routine)!.pir!;
      const args: Record<string, PirValue> = {};
      for (const p of pir.params) args[p.name] = x.abc[p.name as "a" | "b" | "c"];
      const out = callJs({ ...pir, name: x.routine }, exports[x.routine] as JsRoutine, args);
      expect(hex(out.d as bigint), `${where(x)} on js`).toBe(hex(x.run.want));
    }

    // C: the golden file itself, with a harness calling each run: line.
    if (!haveCc().ok) return;
    const c = await lowerOnce(name, { target: "c", file: `${name}.c` });
    const calls = resolved.map((x) => {
      const pir = c.routines.find((r) => r.name === x.routine)!.pir!;
      const args = pir.params.map((p) => `${x.abc[p.name as "a" | "b" | "c"]}u`);
      return `  printf("%08lx\\n", (unsigned long)${x.routine}(${args.join(", ")}));`;
    });
    const src = `#include <stdio.h>\n${header(name, { target: "c", file: "" })}${c.text}\nint main(void) {\n${calls.join("\n")}\n  return 0;\n}\n`;
    const dir = mkdtempSync(join(tmpdir(), "ptx-lower-golden-c-"));
    try {
      writeFileSync(join(dir, "t.c"), src);
      const flags = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Wstrict-prototypes", "-Werror", "-O1", "-fsanitize=undefined", "-fno-sanitize-recover=all"];
      const cc = spawnSync(CC, [...flags, "t.c", "-o", "t"], { cwd: dir, encoding: "utf8" });
      expect(cc.status, cc.stderr).toBe(0);
      const run = spawnSync(join(dir, "t"), { encoding: "utf8" });
      expect(run.status, run.stderr).toBe(0);
      const lines = run.stdout.trim().split("\n");
      resolved.forEach((x, i) => expect(`0x${lines[i]}`, `${where(x)} on c`).toBe(hex(x.run.want)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const warpRuns = warpRunLines(readFileSync(join(CASES, `${name}.ptx`), "utf8"), `${REL}/${name}.ptx`);
  if (warpRuns.length > 0) it(`warp run: lines (${warpRuns.length}) hold on the reference and every target`, async () => {
    const mod = moduleOf(name);
    const resolved = warpRuns.map((r) => resolveWarp(mod, r, `${name}.ptx:${r.line} ${r.fn}`));

    // Soft: a wrong line or target reports every place it fails, not the first.
    for (const x of resolved) {
      expect.soft(laneDiffs(x, expectedWarp(x.spec.form, x.c)), `${x.where} on the reference`).toEqual([]);
      // The warp-level family: its AMDGPU routines run in the interpreter on the line's warp
      // (its golden files are js and c only).
      if (missingLowering("AMDGPU", x.spec.form) !== null) continue;
      if (isWarpLevel(x.spec.form)) {
        for (const mcpu of MCPUS) {
          const run = runWarpLevel(lowerRoutine(x.spec, TARGETS[mcpu], PROFILE), x.spec.form, x.c as unknown as WarpCase);
          if ("failure" in run) expect.soft(run.failure, `${x.where} on amdgpu ${mcpu}`).toBeNull();
          else expect.soft(laneDiffs(x, { d: run.d, p: run.p }), `${x.where} on amdgpu ${mcpu}`).toEqual([]);
        }
        continue;
      }
      const width = x.spec.form.op === "match" && x.spec.form.type === "b64" ? 64 : 32;
      const src: Record<string, CV | CV[]> = {};
      for (const s of ["a", "membermask"] as const) {
        const k = x.spec.kinds[s]?.kind;
        if (k !== "imm") src[s] = k === "s" ? u(x.c[s]![0]!, s === "a" ? width : 32) : x.c[s]!.map((v) => u(v, s === "a" ? width : 32));
      }
      for (const mcpu of MCPUS) {
        const run = execRoutine(concrete, lowerRoutine(x.spec, TARGETS[mcpu], PROFILE), {
          src,
          active: u(BigInt(x.c.active >>> 0)),
          ...(x.spec.guarded ? { guard: x.c.guard!, dPrior: x.c.dPrior.map((v) => u(v)), pPrior: x.c.pPrior } : {}),
        });
        expect.soft(runFailure(run), `${x.where} on amdgpu ${mcpu}`).toBeNull();
        expect.soft(laneDiffs(x, { d: run.d.map((v) => v.x), p: run.p }), `${x.where} on amdgpu ${mcpu}`).toEqual([]);
      }
    }

    // JS: the golden module itself.
    const js = await lowerOnce(name, { target: "js", file: `${name}.js` });
    const exports = await loadJsModule(header(name, { target: "js", file: "" }) + js.text);
    for (const x of resolved) {
      const pir = js.routines.find((r) => r.name === x.routine)!.pir!;
      const out = warpLanes(callJs({ ...pir, name: x.routine }, exports[x.routine] as JsRoutine, warpArgs(pir, x.c, x.spec.form)));
      expect.soft(laneDiffs(x, { d: out.d as bigint[] | undefined, p: out.p as boolean[] | undefined }), `${x.where} on js`).toEqual([]);
    }

    // C: the golden file itself, with a harness making each line's call.
    if (!haveCc().ok) return;
    const c = await lowerOnce(name, { target: "c", file: `${name}.c` });
    const pirs = resolved.map((x) => c.routines.find((r) => r.name === x.routine)!.pir!);
    const calls = resolved.map((x, i) => cWarpCall(x.routine, pirs[i]!, warpArgs(pirs[i]!, x.c, x.spec.form)));
    const srcC = `#include <stdio.h>\n${header(name, { target: "c", file: "" })}${c.text}\nint main(void) {\n${calls.join("\n")}\n  return 0;\n}\n`;
    const dir = mkdtempSync(join(tmpdir(), "ptx-lower-golden-c-"));
    try {
      writeFileSync(join(dir, "t.c"), srcC);
      const flags = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Wstrict-prototypes", "-Werror", "-O1", "-fsanitize=undefined", "-fno-sanitize-recover=all"];
      const cc = spawnSync(CC, [...flags, "t.c", "-o", "t"], { cwd: dir, encoding: "utf8" });
      expect(cc.status, cc.stderr).toBe(0);
      const run = spawnSync(join(dir, "t"), { encoding: "utf8" });
      expect(run.status, run.stderr).toBe(0);
      const lines = run.stdout.trim().split("\n");
      resolved.forEach((x, i) => expect.soft(laneDiffs(x, cWarpResults(pirs[i]!, lines[i] ?? "")), `${x.where} on c`).toEqual([]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

it("every golden beside the cases belongs to a case (delete stale ones)", () => {
  const expected = new Set(caseNames.flatMap((n) => [`${n}.ptx`, ...goldensOf(n)]));
  const stale = readdirSync(CASES).filter((f) => !expected.has(f));
  expect(stale, "stale goldens in test/cases: delete them").toEqual([]);
});

it("cases cover every family", () => {
  const ops = new Set(caseNames.flatMap((n) => moduleOf(n).insts.map((i) => i.form.op)));
  // Every opcode of every registered family (src/families/index.ts).
  expect([...ops].sort()).toEqual(FAMILY_DEFS.flatMap((f) => [...f.ops]).sort());
});

describe("one body per wave size (mergeOutputs / outputOf)", () => {
  // Written by hand: three processors, a line only gfx942 prints, a line gfx900 and gfx90a print,
  // a changed line, an empty line only one prints, and a line moved.
  const outs = ["a\nb\nx900\n\nc\n", "a\nb\nx90a\n\nc\n", "a\nwait\nb\nc\nmoved\n"];
  const merged = "a\nGFX942: wait\nb\nGFX900: x900\nGFX90A: x90a\nGFX900,GFX90A:\nc\nGFX942: moved\n";
  const mcpus = ["gfx900", "gfx90a", "gfx942"] as const;
  it("merges as the file comment says", () => {
    expect(mergeOutputs(mcpus, outs)).toBe(merged);
  });
  it("rebuilds each processor's output", () => {
    mcpus.forEach((m, i) => expect(outputOf(merged, m)).toBe(outs[i]));
  });
  it("shares identical outputs entirely, and refuses a line that reads as a prefix", () => {
    expect(mergeOutputs(["gfx1030", "gfx1100"], ["x\n  y\n", "x\n  y\n"])).toBe("x\n  y\n");
    expect(() => mergeOutputs(["gfx1030", "gfx1100"], ["GFX1030: x\n", "y\n"])).toThrow(/would read as a prefix/);
    expect(() => mergeOutputs(["gfx1030", "gfx1100"], ["x", "x\n"])).toThrow(/newline/);
  });
  it("groups every processor by its wave size", () => {
    expect(WAVE_GROUPS).toEqual([
      { wave: 64, mcpus: ["gfx900", "gfx90a", "gfx942"] },
      { wave: 32, mcpus: ["gfx1030", "gfx1100"] },
    ]);
  });
});
