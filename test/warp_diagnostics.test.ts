/**
 * The warp-level family's part of the diagnostics corpus, test/diagnostics/warp*.ptx (every
 * instruction line marked `// ok`, `// error: MESSAGE` or `// warning: MESSAGE`; the marks,
 * the FamilyInsts and ptxas parity are test/diagnostics.test.ts's, for every corpus file).
 * Asserts here:
 *   - every rejection (and warning) of ../shared/notes/warp-ptxas-matrix.md has a corpus line;
 *   - the real modules (../shared/ptx, nvcc 13 output): every warp-level instruction is
 *     accepted by `parseModule` as ptxas accepts it, and becomes a FamilyInst of the family.
 */
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatDiagnostic } from "../src/diag.js";
import { parseModule } from "../src/ir/build.js";
import { familyOf } from "../src/families/index.js";
import type { WarpForm } from "../src/ir/warp_forms.js";

const DIR = join(dirname(fileURLToPath(import.meta.url)), "diagnostics");
const FILES = readdirSync(DIR).filter((f) => /^warp.*\.ptx$/.test(f)).sort();

/** The module's diagnostics and its warp-level FamilyInsts. */
function checkWarpModule(text: string, file: string) {
  const m = parseModule(text, file);
  return { diagnostics: m.diagnostics, insts: m.insts.filter((i) => familyOf(i.form).name === "warp").map((i) => ({ ...i, form: i.form as WarpForm })) };
}

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
    "error: Instruction 'vote' requires .target sm_12 or higher",
    "error: Instruction 'vote.sync' requires .target sm_30 or higher",
    "error: Instruction 'shfl' requires .target sm_30 or higher",
    "error: Feature 'activemask' requires .target sm_30 or higher",
    "error: Instruction 'bar.warp' requires .target sm_30 or higher",
    "error: Parsing error near '|': syntax error",
    "error: Illegal argument to predicate negation",
  ];
  it.each(required)("has a line with %s", (msg) => {
    expect(all).toContain(msg);
  });
});

describe("real modules (../shared/ptx, nvcc 13 output)", () => {
  const PTX = join(DIR, "..", "..", "..", "shared", "ptx");
  const files = readdirSync(PTX).filter((f) => f.endsWith(".ptx")).sort();
  it.each(files)("%s: every warp-level instruction is accepted as ptxas accepts it", (file) => {
    const text = readFileSync(join(PTX, file), "utf8");
    const m = checkWarpModule(text, file);
    expect(m.diagnostics.map(formatDiagnostic)).toEqual([]);
    // As many as the module's text has instruction lines of the family, and none left in its census.
    const lines = text.split("\n").filter((l) => /^\s*(@!?%?\w+\s+)?(shfl|vote|redux|activemask|bar\.warp)[.\s]/.test(l)).length;
    expect(m.insts.length).toBe(lines);
    expect([...parseModule(text, file).census.keys()].filter((k) => /^(shfl|vote|redux|activemask|bar\.warp)\b/.test(k))).toEqual([]);
  });
  it("c14 has the forms the issue names: reductions, scans, broadcasts, ballot/all/any/uni, __reduce_*_sync, activemask", () => {
    const m = checkWarpModule(readFileSync(join(PTX, "c14_warp_reduce_scan.sm_90.ptx"), "utf8"), "c14");
    const ops = new Set(m.insts.map((i) => (i.form.op === "shfl" ? `shfl.${i.form.mode}` : i.form.op === "vote" ? `vote.${i.form.mode}` : i.form.op)));
    expect([...ops].sort()).toEqual(["activemask", "redux", "shfl.bfly", "shfl.down", "shfl.idx", "shfl.up", "vote.all", "vote.any", "vote.ballot", "vote.uni"]);
  });
});
