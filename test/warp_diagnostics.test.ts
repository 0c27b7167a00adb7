/**
 * The warp-level family's diagnostics corpus, test/warp/diagnostics/*.ptx, in the style of
 * test/diagnostics/ (every instruction line marked `// ok`, `// error: MESSAGE` or
 * `// warning: MESSAGE`, several in ptxas's order), checked through the warp front end
 * (src/ir/warp_check.ts) — the family is not registered yet, so `parseModule` does not
 * validate these instructions; phase 2 moves the files into test/diagnostics/. Asserts:
 *   - each marked line yields exactly its diagnostics, in order, at a column inside the
 *     instruction; lines without an error become a WarpInst; unmarked lines get nothing;
 *   - every rejection of ../shared/notes/warp-ptxas-matrix.md has a corpus line;
 *   - parity with ptxas (when on PATH): each marked line alone in its module (the others
 *     blanked) gets the same errors on the same line and the same warnings, with `-arch` the
 *     module's target (sm_75 for older targets, as the matrix ran them).
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { formatDiagnostic } from "../src/diag.js";
import { checkWarpModule } from "../src/ir/warp_check.js";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "warp", "diagnostics");
const FILES = readdirSync(DIR).filter((f) => f.endsWith(".ptx")).sort();

interface Mark {
  line: number;
  ok: boolean;
  /** `error: MSG` / `warning: MSG`, in order. */
  expected: string[];
  startCol: number;
  commentCol: number;
}

function readCorpus(file: string): { src: string; lines: string[]; marks: Mark[] } {
  const src = readFileSync(join(DIR, file), "utf8");
  const lines = src.split("\n");
  const marks: Mark[] = [];
  lines.forEach((text, i) => {
    const c = text.indexOf("//");
    if (c < 0 || text.slice(0, c).trim() === "") return;
    const mark: Mark = { line: i + 1, ok: false, expected: [], startCol: text.search(/\S/) + 1, commentCol: c + 1 };
    for (const seg of text.slice(c + 2).split("//").map((s) => s.trim())) {
      if (seg === "ok") mark.ok = true;
      else if (seg.startsWith("error:") || seg.startsWith("warning:")) mark.expected.push(seg.replace(/^(error|warning):\s*/, "$1: "));
    }
    if (mark.ok || mark.expected.length > 0) marks.push(mark);
  });
  return { src, lines, marks };
}

const hasError = (m: Mark) => m.expected.some((e) => e.startsWith("error:"));

describe.each(FILES)("warp corpus %s", (file) => {
  const { src, lines, marks } = readCorpus(file);
  const mod = checkWarpModule(src, file);
  const at = (line: number) => mod.diagnostics.filter((d) => d.loc.line === line);

  it("has marked lines", () => {
    expect(marks.length).toBeGreaterThan(0);
  });

  it("each marked line yields exactly its diagnostics, in order", () => {
    for (const m of marks) expect(at(m.line).map((d) => `${d.severity}: ${d.message}`), `${file}:${m.line}: ${lines[m.line - 1]!.trim()}`).toEqual(m.expected);
  });

  it("each diagnostic points into its instruction", () => {
    for (const m of marks) {
      for (const d of at(m.line)) {
        const where = `${formatDiagnostic(d)} in ${lines[m.line - 1]!.trim()}`;
        expect(d.loc.col, where).toBeGreaterThanOrEqual(m.startCol);
        expect(d.loc.col, where).toBeLessThan(m.commentCol);
        expect(lines[m.line - 1]![d.loc.col - 1], where).toMatch(/\S/);
      }
    }
  });

  it("each line without an error becomes a WarpInst, and no other", () => {
    expect(mod.insts.map((i) => i.loc.line)).toEqual(marks.filter((m) => !hasError(m)).map((m) => m.line));
  });

  it("has no diagnostics on unmarked lines", () => {
    const marked = new Set(marks.map((m) => m.line));
    expect(mod.diagnostics.filter((d) => !marked.has(d.loc.line)).map(formatDiagnostic)).toEqual([]);
  });
});

describe("warp corpus coverage", () => {
  const all = FILES.flatMap((f) => readCorpus(f).marks.flatMap((m) => m.expected));
  // Every rejection (and warning) of warp-ptxas-matrix.md, as ptxas words it.
  const required = [
    "error: Unexpected instruction types specified for 'shfl'",
    "error: Shuffle modifier required for instruction 'shfl'",
    "error: Illegal modifier '.xor' for instruction 'shfl'",
    "error: Multiple shuffle modifiers specified",
    "error: Arguments mismatch for instruction 'shfl'",
    "error: Result discard mode is not allowed for instruction 'shfl'",
    "error: Feature 'shfl.sync' requires PTX ISA .version 6.0 or later",
    "error: Instruction 'shfl' without '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4",
    "warning: Instruction 'shfl' without '.sync' may produce unpredictable results on sm_70 and later architectures",
    "warning: Instruction 'shfl' without '.sync' is deprecated since PTX ISA version 6.0 and will be discontinued in a future PTX ISA version",
    "error: Instruction 'shfl' requires .target sm_30 or higher",
    "error: Arguments mismatch for instruction 'vote'",
    "error: Instruction 'vote' requires '.b32' type with '.ballot' modifier.",
    "error: Instruction 'vote' requires '.pred' type with '.all' modifier.",
    "error: Unexpected instruction types specified for 'vote'",
    "error: Unknown modifier '.none'",
    "error: .mode modifier required for instruction 'vote'",
    "error: Multiple .any/.all modifiers specified",
    "error: Predicate output not allowed for instruction 'vote'",
    "error: Result discard mode is not allowed for instruction 'vote'",
    "error: Feature 'vote.sync' requires PTX ISA .version 6.0 or later",
    "error: Instruction 'vote' without '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4",
    "warning: Instruction 'vote' without '.sync' may produce unpredictable results on sm_70 and later architectures",
    "error: Incorrect type '.b32' for operation '.add' in instruction 'redux'",
    "error: Incorrect type '.b32' for operation '.min' in instruction 'redux'",
    "error: Incorrect type '.u32' for operation '.and' in instruction 'redux'",
    "error: Incorrect type '.s32' for operation '.or' in instruction 'redux'",
    "error: Incorrect type '.f32' for operation '.add' in instruction 'redux'",
    "error: Incorrect type '.f32' for operation '.and' in instruction 'redux'",
    "error: Unexpected instruction types specified for 'redux'",
    "error: Unknown modifier '.mul'",
    "error: Reduction operation is required for instruction 'redux'",
    "error: Multiple instruction post-operation flags set",
    "error: .sync modifier required for instruction 'redux'",
    "error: Feature 'redux' requires .target sm_80 or higher",
    "error: Feature 'redux' requires PTX ISA .version 7.0 or later",
    "error: Instruction 'redux' requires '.f32' type with '.abs' modifier.",
    "error: Illegal modifier '.abs' for instruction 'redux'",
    "error: Feature 'redux.f32' requires PTX ISA .version 8.6 or later",
    "error: Instruction 'redux.f32' not supported on .target 'sm_90'",
    "error: Predicate output not allowed for instruction 'redux'",
    "error: Arguments mismatch for instruction 'redux'",
    "error: Result discard mode is not allowed for instruction 'redux'",
    "error: Unexpected instruction types specified for 'activemask'",
    "error: Illegal modifier '.sync' for instruction 'activemask'",
    "error: Feature 'activemask' requires PTX ISA .version 6.2 or later",
    "error: Arguments mismatch for instruction 'activemask'",
    "error: Result discard mode is not allowed for instruction 'activemask'",
    "error: Arguments mismatch for instruction 'bar.warp'",
    "error: .sync modifier required for instruction 'bar.warp'",
    "error: Illegal modifier '.aligned' for instruction 'bar.warp'",
    "error: Feature 'bar.warp' requires PTX ISA .version 6.0 or later",
    "error: Instruction 'vote.ballot' requires .target sm_20 or higher",
    "error: Parsing error near '|': syntax error",
    "error: Illegal argument to predicate negation",
  ];
  it.each(required)("has a line with %s", (msg) => {
    expect(all).toContain(msg);
  });
});

// ---------------------------------------------------------------- parity with ptxas

const PTXAS = spawnSync("ptxas", ["--version"], { encoding: "utf8" }).status === 0;
if (!PTXAS) console.log("warp_diagnostics.test.ts: ptxas not on PATH; skipping the ptxas parity test");

const run = promisify(execFile);

/** ptxas's `-arch` for a module: its `.target`, or sm_75 for a target ptxas 13 cannot compile for (older than sm_75). */
function archOf(src: string): string {
  const t = /^\s*\.target\s+(sm_\d+[af]?)/m.exec(src)?.[1] ?? "sm_90";
  return Number(/\d+/.exec(t)![0]) < 75 ? "sm_75" : t;
}

/** ptxas's errors (line and message, without its version/target pairing complaint) and warnings. */
async function ptxas(path: string, arch: string): Promise<{ errors: [number, string][]; warnings: string[] }> {
  let stderr = "";
  try {
    const r = await run("ptxas", [`-arch=${arch}`, path, "-o", "/dev/null"], { timeout: 30_000 });
    stderr = r.stderr;
  } catch (e) {
    stderr = String((e as { stderr?: string }).stderr ?? "");
  }
  const out = { errors: [] as [number, string][], warnings: [] as string[] };
  for (const l of stderr.split("\n")) {
    const m = /, line (\d+); (error|fatal|warning)\s*: (.*)$/.exec(l);
    if (!m) continue;
    if (m[2] === "warning") out.warnings.push(m[3]!.trim());
    else if (!/does not support \.target/.test(m[3]!)) out.errors.push([Number(m[1]), m[3]!.trim()]);
  }
  return out;
}

describe.skipIf(!PTXAS)("warp corpus: parity with ptxas 13.0", () => {
  it("every marked line gets ptxas's errors (same line, same messages) and warnings", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ptx-lower-warp-parity-"));
    const jobs: { file: string; mark: Mark; text: string; path: string; arch: string }[] = [];
    for (const file of FILES) {
      const { src, lines, marks } = readCorpus(file);
      const marked = new Set(marks.map((m) => m.line));
      for (const mark of marks) {
        const text = lines.map((l, i) => (marked.has(i + 1) && i + 1 !== mark.line ? "" : l)).join("\n");
        const path = join(dir, `${file.replace(/\.ptx$/, "")}_${mark.line}.ptx`);
        writeFileSync(path, text);
        jobs.push({ file, mark, text, path, arch: archOf(src) });
      }
    }
    const problems: string[] = [];
    const queue = [...jobs];
    const worker = async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const { file, mark, text, path, arch } = job;
        const theirs = await ptxas(path, arch);
        const mine = checkWarpModule(text, path).diagnostics;
        const where = `${file}:${mark.line}: ${text.split("\n")[mark.line - 1]!.trim()}`;
        const sorted = (xs: string[]) => [...xs].sort().join(" | ");
        const myErrors = mine.filter((d) => d.severity === "error");
        const theirLines = [...new Set(theirs.errors.map(([l]) => l))].sort().join(",");
        const myLines = [...new Set(myErrors.map((d) => d.loc.line))].sort().join(",");
        if (theirLines !== myLines) problems.push(`${where}\n  ptxas error lines [${theirLines}], ptx-lower [${myLines}]`);
        if (sorted([...new Set(theirs.errors.map(([, m]) => m))]) !== sorted([...new Set(myErrors.map((d) => d.message))]))
          problems.push(`${where}\n  ptxas:     ${theirs.errors.map(([, m]) => m).join("; ")}\n  ptx-lower: ${myErrors.map((d) => d.message).join("; ")}`);
        const myWarnings = mine.filter((d) => d.severity === "warning").map((d) => d.message);
        if (sorted(theirs.warnings) !== sorted(myWarnings)) problems.push(`${where}\n  ptxas warnings:     ${theirs.warnings.join("; ")}\n  ptx-lower warnings: ${myWarnings.join("; ")}`);
      }
    };
    try {
      await Promise.all(Array.from({ length: 2 }, worker));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(problems, problems.join("\n")).toEqual([]);
    expect(jobs.length).toBeGreaterThan(200);
  }, 300_000);
});

describe("real modules (../shared/ptx, nvcc 13 output)", () => {
  const PTX = join(DIR, "..", "..", "..", "..", "shared", "ptx");
  const files = readdirSync(PTX).filter((f) => f.endsWith(".ptx")).sort();
  it.each(files)("%s: every warp-level instruction is accepted as ptxas accepts it", async (file) => {
    const { parseModule } = await import("../src/ir/build.js");
    const text = readFileSync(join(PTX, file), "utf8");
    const m = checkWarpModule(text, file);
    expect(m.diagnostics.map(formatDiagnostic)).toEqual([]);
    // As many as the module's census counts (parseModule's, which does not know the family).
    let census = 0;
    for (const [key, n] of parseModule(text, file).census) if (/^(shfl|vote|redux|activemask|bar\.warp)\b/.test(key)) census += n;
    expect(m.insts.length).toBe(census);
  });
  it("c14 has the forms the issue names: reductions, scans, broadcasts, ballot/all/any/uni, __reduce_*_sync, activemask", () => {
    const m = checkWarpModule(readFileSync(join(PTX, "c14_warp_reduce_scan.sm_90.ptx"), "utf8"), "c14");
    const ops = new Set(m.insts.map((i) => (i.form.op === "shfl" ? `shfl.${i.form.mode}` : i.form.op === "vote" ? `vote.${i.form.mode}` : i.form.op)));
    expect([...ops].sort()).toEqual(["activemask", "redux", "shfl.bfly", "shfl.down", "shfl.idx", "shfl.up", "vote.all", "vote.any", "vote.ballot", "vote.uni"]);
  });
});
