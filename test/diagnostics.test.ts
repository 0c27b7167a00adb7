/**
 * The diagnostics corpus, test/diagnostics/*.ptx: small complete modules where every
 * instruction line is marked `// ok`, `// error: MESSAGE` or `// warning: MESSAGE` (several
 * for several messages, in ptxas's order; `// ptxas: MESSAGE` where ptxas words a syntax
 * error differently). A `.version` / `.target` line may be marked too (a version too old
 * for the target: ptxas goes on checking the module); it stays in every module of the
 * parity test, its messages expected there too. The warp-level family's files are `warp*.ptx` (their rejections:
 * test/warp_diagnostics.test.ts). Asserts:
 *   - each marked line yields exactly its diagnostics (errors and warnings, in order), at
 *     that line, at a column inside the instruction; each line without an error becomes a
 *     FamilyInst (a `bar` line: when it is `bar.warp`, as the registry's `familyOpOf` says);
 *   - every rejection of ptx-semantics.md §5(c) has a corpus line;
 *   - parity with ptxas (when on PATH): each marked line alone in its module (the other
 *     marked lines blanked, so line numbers stay, but for marked header lines) is accepted or rejected by both tools, on
 *     the same line, with the same messages, `-arch` the module's `.target` (sm_75 for a
 *     target older than ptxas 13 compiles for, as warp-ptxas-matrix.md ran them); in a file
 *     with `// warning:` marks, with the same warnings too.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { formatDiagnostic, messages } from "../src/diag.js";
import { familyOpOf, parseModule } from "../src/ir/build.js";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "diagnostics");
const FILES = readdirSync(DIR).filter((f) => f.endsWith(".ptx")).sort();

interface Mark {
  line: number;
  ok: boolean;
  errors: string[];
  /** Every mark as `error: MSG` / `warning: MSG`, in the order written. */
  expected: string[];
  /** ptxas's own wording where it differs (syntax errors). */
  ptxas: string[];
  /** 1-based column of the first non-blank character and of the `//` comment. */
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
    const mark: Mark = { line: i + 1, ok: false, errors: [], expected: [], ptxas: [], startCol: text.search(/\S/) + 1, commentCol: c + 1 };
    for (const seg of text.slice(c + 2).split("//").map((s) => s.trim())) {
      if (seg === "ok") mark.ok = true;
      else if (seg.startsWith("error:")) {
        mark.errors.push(seg.slice(6).trim());
        mark.expected.push(`error: ${seg.slice(6).trim()}`);
      } else if (seg.startsWith("warning:")) mark.expected.push(`warning: ${seg.slice(8).trim()}`);
      else if (seg.startsWith("ptxas:")) mark.ptxas.push(seg.slice(6).trim());
    }
    if (mark.ok || mark.expected.length > 0) marks.push(mark);
  });
  return { src, lines, marks };
}

describe.each(FILES)("corpus %s", (file) => {
  const { src, lines, marks } = readCorpus(file);
  const mod = parseModule(src, file);
  const at = (line: number) => mod.diagnostics.filter((d) => d.loc.line === line);

  it("has marked lines", () => {
    expect(marks.length).toBeGreaterThan(0);
  });

  it("each marked line yields exactly its diagnostics, in order", () => {
    for (const m of marks) {
      expect(at(m.line).map((d) => `${d.severity}: ${d.message}`), `${file}:${m.line}: ${lines[m.line - 1].trim()}`).toEqual(m.expected);
    }
  });

  it("each diagnostic points into its instruction", () => {
    for (const m of marks) {
      for (const d of at(m.line)) {
        const where = `${formatDiagnostic(d)} in ${lines[m.line - 1].trim()}`;
        expect(d.loc.file).toBe(file);
        expect(d.loc.col, where).toBeGreaterThanOrEqual(m.startCol);
        expect(d.loc.col, where).toBeLessThan(m.commentCol);
        expect(lines[m.line - 1][d.loc.col - 1], where).toMatch(/\S/);
      }
    }
  });

  it("each line without an error becomes a FamilyInst (bar: bar.warp only)", () => {
    const legal = marks.filter((m) => m.errors.length === 0);
    const familyLine = (m: Mark) => {
      const [op, ...mods] = lines[m.line - 1].trim().replace(/^@!?\S+\s+/, "").split(/\s/)[0].split(".");
      return familyOpOf({ opcode: op, modifiers: mods }) !== null;
    };
    expect(mod.insts.map((i) => i.loc.line)).toEqual(legal.filter(familyLine).map((m) => m.line));
  });

  it("has no diagnostics on unmarked lines", () => {
    const marked = new Set(marks.map((m) => m.line));
    expect(mod.diagnostics.filter((d) => !marked.has(d.loc.line)).map(formatDiagnostic)).toEqual([]);
  });
});

describe("corpus coverage", () => {
  const all = FILES.flatMap((f) => readCorpus(f).marks.flatMap((m) => m.errors));
  // Every rejection listed in ptx-semantics.md §5(c), plus what ptxas 13.0 was found to say beyond it.
  const required = [
    "Unexpected instruction types specified for 'szext'",
    "Clamp modifier required for instruction 'szext'",
    "Multiple clamp modifiers specified",
    "Illegal modifier '.sat' for instruction 'szext'",
    "Arguments mismatch for instruction 'szext'",
    "Video selector is not allowed on source operand for instruction 'szext'",
    "Video selector is not allowed on destination for instruction 'szext'",
    "Result discard mode is not allowed for instruction 'szext'",
    "Feature 'szext' requires PTX ISA .version 7.6 or later",
    "Operation requires .u32 type",
    "Unexpected instruction types specified for 'vshl'",
    "Clamp modifier required for instruction 'vshl'",
    "Video instruction cannot have destination selector and secondary operation",
    "Video selector is not allowed on destination for instruction 'vshl'",
    "Arguments mismatch for instruction 'vshl'",
    "Multiple instruction post-operation flags set",
    "Unknown modifier '.sub'",
    "Illegal modifier '.and' for instruction 'vshl'",
    "Incorrect video selector for operand 1",
    "Video selector is not allowed on 'source C' operand",
    "Result discard mode is not allowed for instruction 'vshl'",
    "Predicate output not allowed for instruction 'match.any'",
    "Result discard mode is not allowed for instruction 'match'",
    "Parsing error near '_': syntax error",
    "Unexpected instruction types specified for 'match'",
    ".sync modifier required for instruction 'match'",
    "'.any' or '.all' modifier required for instruction 'match'",
    "Illegal modifier '.aligned' for instruction 'match'",
    "Arguments mismatch for instruction 'match'",
    "Feature 'match' requires PTX ISA .version 6.0 or later",
    // beyond §5(c)
    "Multiple .any/.all modifiers specified",
    "Predicate output expected for instruction 'match'",
    "Instruction 'szext' requires .target sm_70 or higher",
    "Special register argument not allowed for instruction 'szext'",
    "Unknown video selector: '.x'",
    "Unknown field '.b0'",
    "Constant overflow",
  ];
  it.each(required)("has a line rejected with %s", (msg) => {
    expect(all).toContain(msg);
  });
});

// ---------------------------------------------------------------- parity with ptxas

const PTXAS = spawnSync("ptxas", ["--version"], { encoding: "utf8" }).status === 0;
if (!PTXAS) console.log("diagnostics.test.ts: ptxas not on PATH; skipping the ptxas parity test");

const run = promisify(execFile);

interface Verdict {
  errorLines: number[];
  messages: string[];
}

/** ptxas's `-arch` for a module: its `.target` (`compute_N` as `sm_N`), or sm_75 for a target ptxas 13 cannot compile for (older than sm_75). */
function archOf(src: string): string {
  const t = /^\s*\.target\s+(?:sm|compute)_(\d+[af]?)/m.exec(src)?.[1] ?? "90";
  return Number(/\d+/.exec(t)![0]) < 75 ? "sm_75" : `sm_${t}`;
}

/** A marked `.version` / `.target` line: kept in every module of the parity test. */
const isHeader = (line: string) => /^\s*\.(version|target)\b/.test(line);

/** ptxas's errors (`FILE, line N; error   : MSG`) and its warnings. */
async function ptxas(path: string, arch: string): Promise<Verdict & { warnings: string[] }> {
  let stderr = "";
  try {
    stderr = (await run("ptxas", [`-arch=${arch}`, path, "-o", "/dev/null"], { timeout: 30_000 })).stderr;
  } catch (e) {
    stderr = String((e as { stderr?: string }).stderr ?? "");
  }
  const v: Verdict & { warnings: string[] } = { errorLines: [], messages: [], warnings: [] };
  for (const l of stderr.split("\n")) {
    const w = /, line (\d+); warning\s*: (.*)$/.exec(l);
    if (w) {
      v.warnings.push(w[2].trim());
      continue;
    }
    const m = /, line (\d+); (?:error|fatal)\s*: (.*)$/.exec(l);
    if (m) {
      v.errorLines.push(Number(m[1]));
      v.messages.push(m[2].trim());
      continue;
    }
    const f = /^ptxas fatal\s*: (.*)$/.exec(l); // e.g. "Unexpected non-ASCII character encountered on line 1"
    if (f && !/aborted due to errors/.test(f[1])) {
      v.errorLines.push(0);
      v.messages.push(f[1].trim());
    }
  }
  return v;
}

describe.skipIf(!PTXAS)("parity with ptxas 13.0 (-arch = the module's target)", () => {
  it("accepts and rejects every corpus line as ptxas does, on the same line, with the same messages", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ptx-lower-parity-"));
    const jobs: { file: string; mark: Mark; text: string; path: string; arch: string; warnings: boolean; headerErrors: string[] }[] = [];
    for (const file of FILES) {
      const { src, lines, marks } = readCorpus(file);
      const warnings = marks.some((m) => m.expected.some((e) => e.startsWith("warning:")));
      const markedLines = new Set(marks.filter((m) => !isHeader(lines[m.line - 1])).map((m) => m.line));
      const headerErrors = marks.filter((m) => isHeader(lines[m.line - 1])).flatMap((m) => (m.ptxas.length > 0 ? m.ptxas : m.errors));
      for (const mark of marks) {
        const text = lines.map((l, i) => (markedLines.has(i + 1) && i + 1 !== mark.line ? "" : l)).join("\n");
        const path = join(dir, `${file.replace(/\.ptx$/, "")}_${mark.line}.ptx`);
        writeFileSync(path, text);
        jobs.push({ file, mark, text, path, arch: archOf(src), warnings, headerErrors });
      }
    }
    const problems: string[] = [];
    const queue = [...jobs];
    const worker = async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const { file, mark, text, path, arch, warnings, headerErrors } = job;
        const theirs = await ptxas(path, arch);
        const all = parseModule(text, path).diagnostics;
        const mine = all.filter((d) => d.severity === "error");
        const where = `${file}:${mark.line}: ${text.split("\n")[mark.line - 1].trim()}`;
        const uniq = (xs: (string | number)[]) => [...new Set(xs)].sort().join(" | ");
        if ((theirs.errorLines.length === 0) !== (mine.length === 0)) {
          problems.push(`${where}\n  ptxas ${theirs.errorLines.length ? "rejects" : "accepts"}: ${theirs.messages.join("; ")}\n  ptx-lower ${mine.length ? "rejects" : "accepts"}: ${mine.map((d) => d.message).join("; ")}`);
          continue;
        }
        if (uniq(theirs.errorLines) !== uniq(mine.map((d) => d.loc.line))) {
          problems.push(`${where}\n  ptxas lines ${uniq(theirs.errorLines)}, ptx-lower lines ${uniq(mine.map((d) => d.loc.line))}`);
        }
        const expected = [...(mark.ptxas.length > 0 ? mark.ptxas : mark.errors), ...headerErrors];
        if (uniq(theirs.messages) !== uniq(expected)) {
          problems.push(`${where}\n  ptxas says:   ${uniq(theirs.messages)}\n  corpus says:  ${uniq(expected)}`);
        }
        const myWarnings = all.filter((d) => d.severity === "warning").map((d) => d.message);
        if (warnings && uniq(theirs.warnings) !== uniq(myWarnings)) problems.push(`${where}\n  ptxas warnings:     ${uniq(theirs.warnings)}\n  ptx-lower warnings: ${uniq(myWarnings)}`);
      }
    };
    try {
      await Promise.all(Array.from({ length: 8 }, worker));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(problems, problems.join("\n")).toEqual([]);
    expect(jobs.length).toBeGreaterThan(400);
  }, 600_000);
});

// A statement that spans lines: ptxas 13.0 gives an instruction's errors the line of its
// opcode (not of the guard, nor of the operand at fault), and its naming errors (an unknown
// symbol, field or selector, `!` of a non-predicate) the line of the name.
const SPLIT = `.version 8.7
.target sm_90
.address_size 64
.visible .entry split()
{
.reg .b32 d, a, b, c, m;
.reg .pred p, g;
@g
 szext.clamp.s32
 5, a, b;
 vote.sync.any.pred p,
 !a, m;
 match.any.sync.b32 d, a,
 [m];
 szext.clamp.s32 d, a,
 zz;
 shfl.sync.idx.b32 d,
 a, b, c,
 %tid;
 szext.clamp.s32 d,
 %laneid, b;
 match.any.sync.b32 d,
 a.b0, m;
ret;
}
`;
const SPLIT_ERRORS = [
  "9 Result register required for instruction 'szext'",
  "12 Illegal argument to predicate negation",
  "13 Arguments mismatch for instruction 'match'",
  "15 Arguments mismatch for instruction 'szext'",
  "16 Unknown symbol 'zz'",
  "17 Arguments mismatch for instruction 'shfl'",
  "20 Special register argument not allowed for instruction 'szext'",
  "22 Video selector is not allowed on source operand for instruction 'match'",
];

describe("a statement spanning lines", () => {
  it("puts an instruction's errors on its opcode's line and a naming error on the name's", () => {
    const got = parseModule(SPLIT, "split.ptx").diagnostics.map((d) => `${d.loc.line} ${d.message}`);
    expect([...got].sort()).toEqual([...SPLIT_ERRORS].sort());
  });

  it.skipIf(!PTXAS)("as ptxas 13.0 does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ptx-lower-split-"));
    try {
      writeFileSync(join(dir, "split.ptx"), SPLIT);
      const v = await ptxas(join(dir, "split.ptx"), "sm_90");
      expect(v.errorLines.map((l, i) => `${l} ${v.messages[i]}`).sort()).toEqual([...SPLIT_ERRORS].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// `-a, -b`: ptxas 13.0 cancels the two negations (the cubin is byte for byte the one of
// `a, b`, measured below), so ptx-lower lowers the instruction as `a, b`, with a warning.
describe("operand negation on both of the first two sources", () => {
  const mod = (ops: string, inst: string) => `.version 8.7
.target sm_90
.address_size 64
.visible .entry k(.param .u64 o)
{
.reg .b32 d, a, b, c, m;
.reg .b64 r;
mov.u32 a, %tid.x;
mov.u32 b, %ctaid.x;
mov.u32 c, %ntid.x;
mov.u32 m, %nctaid.x;
${inst} ${ops};
ld.param.u64 r, [o];
st.global.u32 [r], d;
ret;
}
`;
  const CASES = [
    ["szext.clamp.s32", "d, -a, -b", "d, a, b"],
    ["shfl.sync.idx.b32", "d, -a, -b, c, m", "d, a, b, c, m"],
    ["redux.sync.min.s32", "d, -a, -m", "d, a, m"],
    ["match.any.sync.b32", "d, -a, -m", "d, a, m"],
    ["vshl.u32.u32.u32.clamp.add", "d, -a, -b, c", "d, a, b, c"],
  ] as const;

  it.each(CASES)("%s %s: lowered as without the negations, with a warning", (inst, neg, plain) => {
    const n = parseModule(mod(neg, inst), "n.ptx");
    const p = parseModule(mod(plain, inst), "p.ptx");
    expect(n.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(n.diagnostics.map((d) => `${d.severity} ${d.message}`)).toEqual([`warning ${messages.negationsCancel(inst.split(".")[0]!)}`]);
    // The instruction as lowered: its form and each operand (name or value; columns differ).
    const shape = (m: typeof n) =>
      m.insts.map((i) => JSON.stringify([i.form, ...(["d", "p", "a", "b", "c", "membermask"] as const).map((k) => (i[k] ? { ...i[k], loc: null } : null)), i.guard]));
    expect(shape(n)).toEqual(shape(p));
  });

  it.skipIf(!PTXAS)("ptxas 13.0 emits the same cubin for both", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ptx-lower-neg-"));
    try {
      for (const [inst, neg, plain] of CASES) {
        const bins = [neg, plain].map((ops, i) => {
          writeFileSync(join(dir, `${i}.ptx`), mod(ops, inst));
          const r = spawnSync("ptxas", ["-arch=sm_90", join(dir, `${i}.ptx`), "-o", join(dir, `${i}.cubin`)], { encoding: "utf8" });
          expect(r.status, r.stderr).toBe(0);
          return readFileSync(join(dir, `${i}.cubin`)).toString("hex");
        });
        expect(bins[0], inst).toBe(bins[1]);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
