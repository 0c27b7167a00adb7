/**
 * @fileoverview The actions of the `ptx-lower` commands: read inputs, call the library, print
 * results and diagnostics, write outputs atomically. Returns exit codes; never exits.
 */
import { readFileSync, statSync } from "node:fs";
import type { Stats } from "node:fs";
import { basename, extname, relative, resolve } from "node:path";
import type { Family, Form, Profile } from "../src/ir/forms.js";
import { FAMILIES, familyOf, formId, formName, PROFILES } from "../src/ir/forms.js";
import { familyNamed, familyOf as familyDefOf } from "../src/families/index.js";
import type { FamilyName } from "../src/families/index.js";
import type { KindSample } from "../src/family/types.js";
import type { OperandKind, RoutineSpec, SourceName } from "../src/ir/ir.js";
import { routineName, sourcesOf } from "../src/ir/ir.js";
import { parseModule } from "../src/ir/build.js";
import type { ParsedModule } from "../src/ir/build.js";
import { escapeControls, escapeLine, formatDiagnostic } from "../src/diag.js";
import type { OutputTarget } from "../src/lower.js";
import { OUTPUT_TARGETS, collectRoutines, lowerModule } from "../src/lower.js";
import type { OperandRegisters, ScratchRegisters } from "../src/target/lower.js";
import type { VerifyRow, VerifyTarget } from "../src/check/verify.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import { MCPUS } from "../targets/amdgpu/regs.js";
import type { UnreadableModule } from "../src/report.js";
import { OutputError, UsageError, inDirectory, makeDirectory, reasonOf, writeOutputs } from "./output.js";
import { FAMILY_INSTRUCTIONS } from "./options.js";

// What a command does not always use (the checkers, the provers, the tables, the progress
// bar) is imported inside the command that uses it: `lower` loads none of it.

export { OutputError, UsageError } from "./output.js";
export { FAMILY_INSTRUCTIONS, MAX_WARPS, positiveInt } from "./options.js";

/** Reads a file or standard input; unreadable input becomes `file:1:1: error: …`. */
/** The name diagnostics give an input: `<stdin>` for `-`. */
const shownName = (file: string) => (file === "-" ? "<stdin>" : file);

/**
 * Reads an input file, or standard input for `-` (as a stream: a pipe whose writer is still
 * running is read to its end, not given up on with EAGAIN).
 */
async function readInput(file: string): Promise<{ text: string } | { error: string }> {
  try {
    if (file === "-") {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return { text: Buffer.concat(chunks).toString("utf8") };
    }
    if (statSync(file).isDirectory()) return { error: `${file}:1:1: error: is a directory` };
    return { text: readFileSync(file, "utf8") };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : reasonOf(e);
    return { error: `${shownName(file)}:1:1: error: cannot read: ${why}` };
  }
}

/** Reads and parses `file` (named `name` in diagnostics); prints its diagnostics; null on errors. */
async function parseOrReport(file: string, name = shownName(file)): Promise<ParsedModule | null> {
  const input = await readInput(file);
  if ("error" in input) {
    printLine(process.stderr, input.error);
    return null;
  }
  const mod = parseModule(input.text, name);
  const errors = mod.diagnostics.filter((d) => d.severity === "error");
  for (const d of mod.diagnostics) printLine(process.stderr, formatDiagnostic(d));
  return errors.length ? null : mod;
}

const mcpusOf = (m: string | undefined): Mcpu[] => (m === undefined || m === "all" ? [...MCPUS] : [m as Mcpu]);

// ---------------------------------------------------------------------------------------
// lower

/**
 * The name a module is given in outputs (banners, `serves:` lines): the path relative to the
 * working directory, so that absolute build paths do not leak into generated files.
 */
export function outputName(file: string): string {
  if (file === "-") return "<stdin>";
  const rel = relative(process.cwd(), resolve(file));
  return rel === "" ? file : rel;
}

/** The command line (argv words) the banner records when the caller gives no argv (library, tests). */
function rebuiltCommand(file: string, o: { target: string; mcpu: string; semantics: Profile }): string[] {
  return ["ptx-lower", "lower", basename(file), "--target", o.target, ...(usesMcpu(o.target) ? ["--mcpu", o.mcpu] : []), "--semantics", o.semantics];
}

/** Whether `lower --target T` reads `--mcpu`: only the AMDGPU assembly is per processor (js, c, hip and llvm serve every one). */
const usesMcpu = (target: string) => target === "amdgpu" || target === "all";

/** File extension per output: C is a header of `static inline` routines, JS an ES module, HIP a header of `__device__` functions, LLVM an IR module. */
export const OUTPUT_EXT = { c: ".h", js: ".mjs", hip: ".hip.h", llvm: ".ll" } as const;

/**
 * `ptx-lower lower`. `argv` (the arguments after `ptx-lower`) is recorded, shell-quoted, in
 * the banner; without it a canonical command line is. `mcpuGiven`: `--mcpu` was on the
 * command line (not the default); with a target that serves every processor (js, c, hip,
 * llvm) it is unused, which is a warning on stderr, as a compiler warns of an unused
 * argument, and the output is the same as without it. @returns the exit code.
 * @throws UsageError, OutputError
 */
export async function lowerCommand(
  file: string,
  o: { target: string; mcpu: string; semantics: Profile; output?: string; argv?: readonly string[]; mcpuGiven?: boolean; regs?: OperandRegisters; scratch?: ScratchRegisters },
): Promise<number> {
  if (o.output === "") throw new UsageError("-o '': an empty path names no file (- is standard output)");
  if ((o.regs || o.scratch) && o.target !== "amdgpu") throw new UsageError(`--${o.regs ? "regs" : "scratch"} places AMDGPU registers: it takes --target amdgpu, not ${o.target}`);
  if (o.scratch && !o.regs) throw new UsageError("--scratch needs --regs (the contract's routines have their own scratch windows)");
  if (o.mcpuGiven && !usesMcpu(o.target)) printLine(process.stderr, `ptx-lower: warning: --mcpu ${o.mcpu} is unused: --target ${o.target} writes one output for every processor`);
  const mod = await parseOrReport(file);
  if (!mod) return 1;
  const targets: OutputTarget[] = o.target === "all" ? [...OUTPUT_TARGETS] : [o.target as OutputTarget];
  const jobs: { target: OutputTarget; mcpu?: Mcpu }[] = [];
  for (const t of targets) {
    if (t === "amdgpu") for (const m of mcpusOf(o.mcpu)) jobs.push({ target: t, mcpu: m });
    else jobs.push({ target: t });
  }
  if (jobs.length > 1 && o.output === "-") throw new UsageError(`${jobs.length} outputs cannot go to standard output (-o -): name a directory with -o, or choose one --target and --mcpu`);
  const command = o.argv ? ["ptx-lower", ...o.argv] : rebuiltCommand(file, o);
  const outputs: { name: string; text: string }[] = [];
  const base = file === "-" ? "stdin" : basename(file).replace(/\.ptx$/, "");
  const names = jobs.map((j) => base + (j.target === "amdgpu" ? `.amdgpu.${j.mcpu}.s` : OUTPUT_EXT[j.target]));
  // Where several outputs go is checked before the work.
  if (jobs.length > 1 && o.output) multipleOutputsDirectory(o.output, names);
  for (const [k, j] of jobs.entries()) {
    let lowered: Awaited<ReturnType<typeof lowerModule>>;
    try {
      lowered = await lowerModule(mod, { target: j.target, ...(j.mcpu ? { mcpu: j.mcpu } : {}), profile: o.semantics, command, sourceName: outputName(file), ...(o.regs ? { regs: o.regs } : {}), ...(o.scratch ? { scratch: o.scratch } : {}) });
    } catch (e) {
      // A routine that cannot take the registers given (targets/amdgpu/assign.ts names the routine and the operand).
      if (o.regs && e instanceof TypeError) throw new UsageError(`--regs${j.mcpu && o.mcpu === "all" ? ` (${j.mcpu})` : ""}: ${e.message}`);
      throw e;
    }
    for (const d of lowered.warnings) printLine(process.stderr, formatDiagnostic(d));
    outputs.push({ name: names[k]!, text: lowered.text });
  }
  if (outputs.length === 1 && (!o.output || o.output === "-")) {
    process.stdout.write(outputs[0]!.text);
    return 0;
  }
  if (!o.output) throw new UsageError(`${outputs.length} outputs (${outputs.map((x) => x.name).join(", ")}): name a directory with -o`);
  if (outputs.length === 1 && !isDir(o.output)) {
    writeOutputs([{ path: o.output, text: outputs[0]!.text }], [file]);
    return 0;
  }
  try {
    makeDirectory(o.output);
  } catch (e) {
    throw new OutputError(`cannot write ${o.output}: cannot create the directory: ${reasonOf(e)}`);
  }
  writeOutputs(outputs.map((out) => ({ path: inDirectory(o.output!, out.name), text: out.text })), [file]);
  printLine(process.stderr, `wrote ${outputs.length} file${outputs.length === 1 ? "" : "s"} to ${o.output}: ${outputs.map((x) => x.name).join(", ")}`);
  return 0;
}

/**
 * Several outputs go into a directory: `-o` must name one, an existing one or a new one
 * (created with its parents). Refused before anything is created: a `-o` that exists and is
 * no directory, and a new name that reads as one of the outputs' files (`-o out.s`, the
 * extension of an output: a mistyped single-output command); `-o out.s/` creates that
 * directory. @throws UsageError
 */
function multipleOutputsDirectory(output: string, names: string[]): void {
  const several = `${names.length} outputs (${names.join(", ")}) go into a directory`;
  const alternative = "or choose one --target (and --mcpu) for one file";
  let st: Stats | null = null;
  try {
    st = statSync(output);
  } catch {
    // missing (or unreachable: makeDirectory says why)
  }
  if (st && !st.isDirectory()) throw new UsageError(`-o ${output} is a file, not a directory: ${several}; name a directory with -o (created if missing), ${alternative}; nothing was written`);
  const ext = extname(output);
  if (!st && !output.endsWith("/") && ext !== "" && names.some((n) => extname(n) === ext))
    throw new UsageError(`-o ${output} names a file (${ext}), not a directory: ${several}; write -o ${output}/ to create a directory by that name, ${alternative}; nothing was written`);
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return p.endsWith("/");
  }
}


// ---------------------------------------------------------------------------------------
// check

/** `check` shows progress from this many vectors on (a few vectors take a second or two). */
export const CHECK_PROGRESS_MIN = 20;

export async function checkCommand(file: string, o: { target: string; semantics: Profile; mcpu: string; mcpuGiven?: boolean }): Promise<number> {
  // --mcpu picks the rows of the per-processor targets (amdgpu, hip, llvm); with ref, js or c alone it is unused.
  if (o.mcpuGiven && (o.target === "ref" || o.target === "js" || o.target === "c")) printLine(process.stderr, `ptx-lower: warning: --mcpu ${o.mcpu} is unused: --target ${o.target} has no per-processor rows`);
  const input = await readInput(file);
  if ("error" in input) {
    printLine(process.stderr, input.error);
    return 1;
  }
  const { readVectors, runVectors } = await import("../src/check/vectors.js");
  const { vectors, diagnostics } = readVectors(input.text, shownName(file));
  for (const d of diagnostics) printLine(process.stderr, formatDiagnostic(d));
  const all = o.target === "all";
  const { startProgress } = await import("./progress.js");
  // Per vector × target row, on stderr, naming the rows that run; a file of few vectors shows none.
  const progress = await startProgress({ command: "check", unit: "vector runs", total: 0, quiet: vectors.length < CHECK_PROGRESS_MIN });
  const rep = await runVectors(vectors, o.semantics, {
    ref: all || o.target === "ref",
    amdgpu: all || o.target === "amdgpu" ? mcpusOf(o.mcpu) : [],
    js: all || o.target === "js",
    c: all || o.target === "c",
    hip: all || o.target === "hip" ? mcpusOf(o.mcpu) : [],
    llvm: all || o.target === "llvm" ? mcpusOf(o.mcpu) : [],
  }, { onProgress: (done, total, now) => progress.update(done, now, total) });
  progress.stop();
  for (const f of rep.failures) printText(process.stdout, `${escapeLine(`${file}:${f.vector.line}: FAIL ${f.vector.id} [${f.target}] ${f.vector.ptx}`)} — ${f.message}`);
  for (const n of rep.notes) printText(process.stdout, `note: ${n}`);
  const failed = rep.failed + diagnostics.length;
  // Vector × target row (src/check/vectors.ts VectorReport); a line that is not a vector counts once.
  process.stdout.write(`${rep.passed} passed, ${failed} failed${rep.skipped ? `, ${rep.skipped} skipped` : ""}\n`);
  return failed > 0 ? 1 : 0;
}

// ---------------------------------------------------------------------------------------
// verify

/** cli-table3 layout without rules between rows. */
const COMPACT = { chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" }, style: { head: [] as string[], border: [] as string[] } };

export async function verifyCommand(
  file: string | undefined,
  o: { family?: Family; all?: boolean; semantics?: Profile; mcpu: string; target: string; prove?: boolean; fresh?: boolean; recheck?: number; proofCache?: string; json?: boolean; seed: number; warps?: number; thorough?: boolean; allowEmpty?: boolean },
): Promise<number> {
  // The defaults check every row and processor on 200 random warps per warp routine and on the
  // edge cases plus 400 random cases per scalar routine (≥ 1,000 in all); --thorough: 10,000
  // warps (hip/llvm rows: 1,000) and 4,000 random cases.
  const warps = o.warps ?? (o.thorough ? 10_000 : 200);
  const random = o.thorough ? 4000 : undefined;
  if (file && o.all) throw new UsageError("--all is for the families without a FILE (every legal form); with a FILE, every routine of the file is verified");
  const profiles: Profile[] = o.semantics ? [o.semantics] : [...PROFILES];
  const specs: { spec: RoutineSpec; profile: Profile; warps?: number }[] = [];
  /** Per routine (spec), its name and, for a FILE, the PTX locations it serves. */
  const where = new Map<RoutineSpec, { routine: string; locations: VerifyLocation[] }>();
  const add = (spec: RoutineSpec, warps?: number) => {
    // szext and match.sync are the same under both profiles: checked once, under the first.
    const ps = familyDefOf(spec.form).profileSensitive ? profiles : profiles.slice(0, 1);
    for (const profile of ps) specs.push({ spec, profile, ...(warps ? { warps } : {}) });
  };
  if (file) {
    const mod = await parseOrReport(file);
    if (!mod) return 1;
    for (const r of collectRoutines(mod))
      if (!o.family || familyOf(r.spec.form) === o.family) {
        where.set(r.spec, { routine: r.name, locations: r.insts.map((i) => ({ file: i.loc.file, line: i.loc.line, col: i.loc.col, text: i.text })) });
        add(r.spec);
      }
  } else {
    const families = o.family ? [o.family] : [...FAMILIES];
    for (const name of families) {
      const fam = familyNamed(name);
      // A large family (video) is verified on a seeded sample of its forms unless --all;
      // with --all, every form with the main kinds and the sample with the wide kinds.
      const sample = fam.sample(o.seed);
      const forms = o.all || !sample ? [...fam.forms()] : sample;
      // Warp families: the full warp count for the main operand kinds, a tenth of it for the
      // other kinds and the guarded forms.
      for (const f of forms)
        fam.verifyKinds(f, !sample || !o.all).forEach((k: KindSample) => add({ form: f, ...k }, fam.shape === "warp" && !fam.mainKind(k) ? Math.max(Math.min(warps, 200), Math.floor(warps / 10)) : undefined));
      if (sample && o.all) for (const f of sample) for (const k of fam.verifyKinds(f, true).slice(1)) add({ form: f, ...k });
    }
  }
  if (specs.length === 0) {
    const what = file ? `${shownName(file)} has no ${o.family ? `${FAMILY_INSTRUCTIONS[o.family as FamilyName]} ` : `${Object.values(FAMILY_INSTRUCTIONS).join(" / ")} `}occurrence` : "no form";
    if (!o.allowEmpty) throw new UsageError(`no routine matched (${what}): nothing to verify; --allow-empty accepts that`);
  }
  const targets: VerifyTarget[] = [];
  if (o.target === "all" || o.target === "amdgpu") for (const m of mcpusOf(o.mcpu)) targets.push({ kind: "amdgpu", mcpu: m });
  if (o.target === "all" || o.target === "js") targets.push({ kind: "js" });
  if (o.target === "all" || o.target === "c") targets.push({ kind: "c" });
  for (const kind of ["hip", "llvm"] as const) if (o.target === "all" || o.target === kind) for (const m of mcpusOf(o.mcpu)) targets.push({ kind, mcpu: m });

  const { verify } = await import("../src/check/verify.js");
  const { proveRows } = await import("./prove.js");
  const { startProgress } = await import("./progress.js");
  const started = Date.now();
  const progress = await startProgress({ command: "verify", unit: "routines", total: specs.length, bar: !!process.stderr.isTTY && !o.json });
  let rows: VerifyRow[];
  // The match.sync bug-finder (full width, ≤ 16 lanes, up to 60 s per loop; it can only
  // refute) runs before each loop proof for a FILE's routines, and only where a proof fails
  // for whole families (as in `npm run prove:all`), where it would cost hours.
  const onProgress = (d: number) => progress.update(d);
  const notes: string[] = [];
  if (!o.prove && (o.fresh || o.recheck !== undefined || o.proofCache)) throw new UsageError("--fresh, --recheck and --proof-cache are for --prove");
  if (o.prove) rows = await proveRows(specs, targets, { bugFinder: file ? "first" : "fallback", onProgress, store: { fresh: !!o.fresh, seed: o.seed, ...(o.recheck !== undefined ? { recheck: o.recheck } : {}), ...(o.proofCache ? { cacheFile: o.proofCache } : {}) }, onNote: (line) => notes.push(line) });
  else rows = await verify(specs, targets, { seed: o.seed, warps, ...(random ? { random } : {}), compact: specs.length > 2000, onProgress, onNote: (what) => progress.note(what) });
  progress.stop();
  const seconds = (Date.now() - started) / 1000;
  // --prove: where the stored verdicts came from and what the recheck found (stderr: --json stays one document).
  for (const line of notes) process.stderr.write(`verify: ${line}\n`);
  return printVerify(rows, { json: !!o.json, prove: !!o.prove, seconds, where });
}

function kindsText(spec: RoutineSpec): string {
  const ks = sourcesOf(spec.form).map((s) => {
    const k = spec.kinds[s];
    return `${s}:${!k ? "v" : k.kind === "imm" ? `imm ${k.value < 256n ? k.value : "0x" + k.value.toString(16)}` : k.kind}`;
  });
  return ks.join(" ") + (spec.guarded ? " guarded" : "");
}

function verdictText(r: VerifyRow): string {
  const v = r.verdict;
  switch (v.status) {
    case "tested":
      return `tested(${v.n})`;
    case "proved":
      return v.stored ? "proved (stored)" : "proved";
    case "refuted":
      return "REFUTED";
    case "unknown":
      return `unknown (${v.why})`;
    case "skipped":
      return `skipped (${v.why})`;
  }
}

/** A PTX location a routine serves, in `verify --json` (docs/verify.schema.json). */
interface VerifyLocation {
  file: string;
  line: number;
  col: number;
  text: string;
}

/** Version of `verify --json`'s shape (docs/verify.schema.json). */
export const VERIFY_SCHEMA_VERSION = 1;

async function printVerify(rows: VerifyRow[], o: { json: boolean; prove: boolean; seconds: number; where: Map<RoutineSpec, { routine: string; locations: VerifyLocation[] }> }): Promise<number> {
  const { targetName } = await import("../src/check/verify.js");
  const { default: Table } = await import("cli-table3");
  const counts = { tested: 0, proved: 0, refuted: 0, unknown: 0, skipped: 0 };
  for (const r of rows) counts[r.verdict.status]++;
  if (o.json) {
    const doc = {
      tool: "ptx-lower verify",
      schemaVersion: VERIFY_SCHEMA_VERSION,
      rows: rows.map((r) => ({
        routine: o.where.get(r.spec)?.routine ?? routineName(r.spec, formId),
        locations: o.where.get(r.spec)?.locations ?? [],
        form: formName(r.spec.form),
        kinds: kindsText(r.spec),
        profile: r.profile,
        target: targetName(r.target),
        rule: r.rule,
        chosen: r.chosen,
        count: r.count ?? null,
        dynamicMax: r.dynMax ?? null,
        overBound: r.overBound ?? null,
        verdict: r.verdict,
      })),
      summary: { ...counts, seconds: o.seconds },
    };
    process.stdout.write(JSON.stringify(doc, null, 1) + "\n");
  } else {
    const big = rows.length > 3000;
    if (!big) {
      const table = new Table({ head: ["form", "operands", "profile", "target", "rule", "cycles", "dyn max", "verdict"], ...COMPACT });
      for (const r of rows)
        table.push([formName(r.spec.form), kindsText(r.spec), r.spec.form.op === "vshl" || r.spec.form.op === "vshr" ? r.profile : "both", targetName(r.target), (r.chosen ? "* " : "  ") + r.rule, r.count ?? "", r.dynMax ? `${r.dynMax}${r.overBound && r.overBound > 0 ? ` (over bound by ${r.overBound})` : ""}` : "", verdictText(r)]);
      process.stdout.write(table.toString() + "\n(* = the rule selection picks; the others are shadowed and checked too)\n");
    } else {
      // Too many rows for one table: totals per (instruction, tail, target), refutations in full.
      process.stdout.write((await groupedTable(rows, o.prove)) + "\n");
      process.stdout.write(perFormCounts(rows));
    }
    for (const r of rows) if (r.verdict.status === "refuted") process.stdout.write("\n" + r.verdict.counterexample + "\n");
    process.stdout.write(`verify: ${rows.length} checks in ${o.seconds.toFixed(1)} s\n`);
    const stored = rows.filter((r) => r.verdict.status === "proved" && r.verdict.stored).length;
    if (o.prove) process.stdout.write(`${counts.proved} proved${stored ? ` (${stored} stored)` : ""}, ${counts.refuted} refuted, ${counts.unknown} unknown\n`);
    // Rows without a lowering yet (the warp-level family on AMDGPU, HIP, LLVM IR: issue 15) are unknown, counted where there are any.
    else process.stdout.write(`${counts.tested} tested, ${counts.refuted} refuted, ${counts.skipped} skipped${counts.unknown ? `, ${counts.unknown} unknown` : ""}\n`);
  }
  return counts.refuted > 0 || (o.prove && counts.unknown > 0) ? 1 : 0;
}

/**
 * `verify`'s table for many rows: one line per class (a video form's instruction and tail,
 * any other form by its name), profile and target, with its row count, the largest
 * instruction count of a chosen rule, and the cases run and refutations (with `prove`: the
 * proved, refuted and unknown rows). The key is the three fields themselves, so a name that
 * holds `|` (`shfl.sync.up.b32 d|p`) stays one cell.
 */
export async function groupedTable(rows: readonly VerifyRow[], prove: boolean): Promise<string> {
  const { targetName } = await import("../src/check/verify.js");
  const { default: Table } = await import("cli-table3");
  const groups = new Map<string, { cls: string; profile: Profile; target: string; n: number; maxInsts: number; bad: number; cases: number; proved: number; unknown: number }>();
  for (const r of rows) {
    const f = r.spec.form;
    const cls = f.op === "vshl" || f.op === "vshr" ? `${f.op}${f.sat ? ".sat" : ""} ${f.tail.kind === "op2" ? f.tail.op2 : f.tail.kind}` : formName(f);
    const target = targetName(r.target);
    const key = JSON.stringify([cls, r.profile, target]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { cls, profile: r.profile, target, n: 0, maxInsts: 0, bad: 0, cases: 0, proved: 0, unknown: 0 }));
    g.n++;
    if (r.chosen && r.count !== undefined) g.maxInsts = Math.max(g.maxInsts, r.count);
    if (r.verdict.status === "refuted") g.bad++;
    if (r.verdict.status === "tested") g.cases += r.verdict.n;
    if (r.verdict.status === "proved") g.proved++;
    if (r.verdict.status === "unknown") g.unknown++;
  }
  // Tested: the cases run; proved: proved / refuted / unknown.
  const head = prove ? ["proved", "refuted", "unknown"] : ["cases run", "refuted"];
  const table = new Table({ head: ["class", "profile", "target", "rows", "cycles (max)", ...head], ...COMPACT });
  for (const g of groups.values()) table.push([g.cls, g.profile, g.target, g.n, g.maxInsts ? String(g.maxInsts) : "", ...(prove ? [g.proved, g.bad, g.unknown] : [g.cases, g.bad])]);
  return table.toString();
}

/**
 * The AMDGPU instruction count of the chosen rule for every routine (form and operand
 * kinds), one line each, a column per profile × mcpu — the per-form figure a table of
 * classes cannot show. Forms the same under both profiles (szext, match.sync) have one set
 * of columns filled.
 */
function perFormCounts(rows: VerifyRow[]): string {
  const cols: string[] = [];
  const per = new Map<string, Map<string, number>>();
  for (const r of rows) {
    if (r.target.kind !== "amdgpu" || !r.chosen || r.count === undefined) continue;
    const col = `${r.profile} ${r.target.mcpu}`;
    if (!cols.includes(col)) cols.push(col);
    const key = `${formName(r.spec.form)}  ${kindsText(r.spec)}`;
    let m = per.get(key);
    if (!m) per.set(key, (m = new Map()));
    m.set(col, r.count);
  }
  if (per.size === 0) return "";
  const width = Math.max(...[...per.keys()].map((k) => k.length));
  const head = `${"AMDGPU instructions per form (chosen rule)".padEnd(width)}  ${cols.map((c) => c.padStart(Math.max(4, c.length))).join(" ")}`;
  const lines = [...per].map(([k, m]) => `${k.padEnd(width)}  ${cols.map((c) => String(m.get(c) ?? "-").padStart(Math.max(4, c.length))).join(" ")}`);
  return [head, ...lines, ""].join("\n");
}

// ---------------------------------------------------------------------------------------
// report, hwgen

/**
 * `ptx-lower report`: every file is reported, those that cannot be read or have errors as
 * failed (their diagnostics on stderr too); exit 1 when the overall verdict is not ok. With
 * `html`, also the page of the same report (the object `--json` prints), written once it is made.
 */
export async function reportCommand(files: string[], o: { mcpu: string; semantics: Profile; json?: boolean; html?: string }): Promise<number> {
  // --html PATH: refused before the work if it cannot take the page (bin/html_output.ts).
  const html = o.html !== undefined ? await import("./html_output.js") : null;
  html?.checkHtmlPath(o.html!, files);
  const mods: (ParsedModule | UnreadableModule)[] = [];
  for (const f of files) {
    const input = await readInput(f);
    if ("error" in input) {
      printLine(process.stderr, input.error);
      mods.push({ file: shownName(f), unreadable: input.error.replace(/^.*?:1:1: error: /, "") });
      continue;
    }
    const mod = parseModule(input.text, shownName(f));
    for (const d of mod.diagnostics) printLine(process.stderr, formatDiagnostic(d));
    mods.push(mod);
  }
  const { reportWithVerdict } = await import("./report.js");
  const { startProgress } = await import("./progress.js");
  // Per module, on stderr, naming the module that runs now; one module alone shows none.
  const progress = await startProgress({ command: "report", unit: "modules", total: mods.length, quiet: mods.length < 2 });
  progress.update(0, mods[0]?.file);
  const r = await reportWithVerdict(mods, { mcpus: mcpusOf(o.mcpu), profile: o.semantics, json: !!o.json, onProgress: (done) => progress.update(done, mods[done]?.file) });
  progress.stop();
  process.stdout.write(r.text);
  if (html) {
    await html.writeReportHtml(o.html!, r.report, mods, files);
    printLine(process.stderr, `report: wrote the page ${o.html!}`);
  }
  return r.verdict === "ok" ? 0 : 1;
}

/** Writes one line that may name a path or hold input text: every control character escaped (line feeds too). */
function printLine(stream: NodeJS.WriteStream, line: string): void {
  stream.write(escapeLine(line) + "\n");
}

/** Writes text that may span lines (a counterexample): control characters but line breaks and tabs escaped. */
function printText(stream: NodeJS.WriteStream, text: string): void {
  stream.write(escapeControls(text) + "\n");
}

export async function hwgenCommand(file: string | undefined, o: { output: string; probe?: boolean }): Promise<number> {
  if (o.output === "") throw new UsageError("-o '': an empty path names no file (- is standard output)");
  if (o.probe) {
    if (file !== undefined) throw new UsageError("--probe writes the probe vectors: it takes no vector file");
    const { probeVectors } = await import("../src/hw/hwgen.js");
    const text = probeVectors();
    if (o.output === "-") process.stdout.write(text);
    else {
      writeOutputs([{ path: o.output, text }], []);
      printLine(process.stderr, `wrote ${o.output}: ${text.split("\n").length - 1} probe vectors`);
    }
    return 0;
  }
  if (file === undefined) throw new UsageError("hwgen needs a vector file (or --probe)");
  const input = await readInput(file);
  if ("error" in input) {
    printLine(process.stderr, input.error);
    return 1;
  }
  const { hwgenFile } = await import("./hwgen.js");
  const r = hwgenFile(input.text, shownName(file));
  for (const d of r.diagnostics) printLine(process.stderr, formatDiagnostic(d));
  if (r.text === null) return 1;
  for (const x of r.skipped) printLine(process.stderr, `note: vector ${x.id} left out: ${x.reason}`);
  if (o.output === "-") {
    process.stdout.write(r.text);
    return 0;
  }
  writeOutputs([{ path: o.output, text: r.text }], [file]);
  printLine(process.stderr, `wrote ${o.output}: ${r.count} vectors`);
  return 0;
}
