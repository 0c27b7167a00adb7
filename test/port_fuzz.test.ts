/**
 * The port fuzzer's seeded sample in CI (issue 34 item 6; scripts/fuzz_port.ts runs ≥ 100,000
 * inputs in `npm run fuzz`): 5,000 generated and mutated sources through `portSource` (a
 * sample through `portCommand`), asserting no crash and byte identity outside the rewrites
 * for every input, and the unit tests of the oracle itself (test/port/undo.ts) on
 * hand-written ported/original pairs.
 */
import { describe, expect, it } from "vitest";
import type { PortFinding } from "../scripts/fuzz_port.js";
import { checkIndex, firstDifference, portCorpus, portInputAt, Rand } from "../scripts/fuzz_port.js";
import { firstCodeOffset, portLayout, undoPort, UndoError } from "./port/undo.js";

const SEED = 20261207;
const INPUTS = 5_000;
/** Per-input bound: generous, as CI machines are shared; a typical input takes about 10 ms. */
const SLOW_MS = 10_000;

const M = " /* ptx-lower port */";
/** Port's own lines, `@` where the marker goes. */
const HIP = "#if defined(__HIP__)@";
const CL = "#if defined(__OPENCL_C_VERSION__) && defined(__AMDGCN__)@";
const END = "#endif@";

/** A ported text built from lines, with or without the marker on port's own #if/#endif lines (those ending in `@`). */
const ported = (lines: string[], marker: boolean, nl = "\n") => lines.map((l) => l.replace(/@(\r?)$/, `${marker ? M : ""}$1`)).join(nl);

describe("undoPort (the oracle) on hand-written pairs", () => {
  const guard = [HIP, '#include "k.hip.h"', END];
  for (const marker of [true, false]) {
    const m = marker ? "with the marker" : "without it";
    it(`a statement on a line of its own, its trailing comment kept on the original line (${m})`, () => {
      const original = ["__device__ unsigned f(unsigned a) {", "  unsigned r;", '  asm("activemask.b32 %0;" : "=r"(r)); // lanes', "  return r;", "}", ""].join("\n");
      const out = ported(["__device__ unsigned f(unsigned a) {", "  unsigned r;", HIP, "  r = activemask_b32__();", "#else", '  asm("activemask.b32 %0;" : "=r"(r)); // lanes', END, "  return r;", "}", ""], marker);
      expect(undoPort(ported([...guard, out], marker))).toBe(original);
    });

    it(`mid-line statements: code before keeps its line, code after moves; two statements on a line (${m})`, () => {
      const original = ['  x = 1;   asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d) : "r"(a)); y = 2;', '  asm("activemask.b32 %0;" : "=r"(m));  asm("activemask.b32 %0;" : "=r"(n));', ""].join("\n");
      const out = ported(
        [
          ...guard,
          "  x = 1;",
          HIP,
          "  d = szext_clamp_u32__v_imm4(a);",
          "#else",
          '  asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d) : "r"(a));',
          END,
          "  y = 2;",
          HIP,
          "  m = activemask_b32__();",
          "#else",
          '  asm("activemask.b32 %0;" : "=r"(m));',
          END,
          HIP,
          "  n = activemask_b32__();",
          "#else",
          '  asm("activemask.b32 %0;" : "=r"(n));',
          END,
          "",
        ],
        marker,
      );
      const spans = [
        { loc: { line: 1, col: 12 }, end: { line: 1, col: 64 } },
        { loc: { line: 2, col: 3 }, end: { line: 2, col: 38 } },
        { loc: { line: 2, col: 41 }, end: { line: 2, col: 76 } },
      ];
      expect(original.slice(11, 14)).toBe("asm");
      expect(original.split("\n")[1]!.slice(40, 43)).toBe("asm");
      const want = ['  x = 1;\n  asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d) : "r"(a));\n  y = 2;', '  asm("activemask.b32 %0;" : "=r"(m));\n  asm("activemask.b32 %0;" : "=r"(n));', ""].join("\n");
      expect(portLayout(original, spans, true)).toBe(want);
      expect(undoPort(out)).toBe(want);
    });

    it(`a #define duplicated, indented, continued over lines; renamed intrinsics and warpSize (${m})`, () => {
      const original = ["// k", "  #define SZ(r, a) \\", '    asm("szext.clamp.u32 %0, %1, 4;" : "=r"(r) : "r"(a))', "__device__ int g(int v) { return __shfl_sync(0xffffffffu, v, 0) + warpSize + __activemask(); }", ""].join("\n");
      const out = ported(
        [
          "// k",
          HIP,
          '#include "k.hip.h"',
          "#else",
          "#define ptxl_shfl_sync __shfl_sync",
          "#define ptxl_activemask __activemask",
          "#define ptxl_warpSize warpSize",
          END,
          "  " + HIP,
          "#define SZ(r, a) \\",
          "    ((r) = szext_clamp_u32__v_imm4((a)))",
          "#else",
          "#define SZ(r, a) \\",
          '    asm("szext.clamp.u32 %0, %1, 4;" : "=r"(r) : "r"(a))',
          END,
          "__device__ int g(int v) { return ptxl_shfl_sync(0xffffffffu, v, 0) + ptxl_warpSize + ptxl_activemask(); }",
          "",
        ],
        marker,
      );
      expect(undoPort(out)).toBe(original);
    });

    it(`CRLF: port's lines end \\r\\n, the file's own breaks kept (${m})`, () => {
      const original = ["int a;\r\n", '  asm("activemask.b32 %0;" : "=r"(r));\r\n', "int b;\n", "int c;\r\n"].join("");
      const out = ported([HIP, '#include "k.hip.h"', END, "int a;", HIP, "  r = activemask_b32__();", "#else", '  asm("activemask.b32 %0;" : "=r"(r));', END, "int b;\nint c;", ""], marker, "\r\n");
      expect(undoPort(out)).toBe(original);
    });

    it(`the header inlined in the guard, its own conditionals nested; OpenCL's guard (${m})`, () => {
      const original = 'uint f(uint u) { uint r; asm("szext.clamp.u32 %0, %1, 4;" : "=r"(r) : "r"(u)); return r; }\n';
      const header = ["/* header */", "#ifndef PTXL_H", "#define PTXL_H", "#if 1", "#else", "#endi_", "#endi_"].map((l) => l.replace("#endi_", "#endif"));
      const out = ported(
        [CL, ...header, END, "uint f(uint u) { uint r;", CL, "  {", "    r = szext_clamp_u32__v_imm4(u);", "  }", "#else", 'asm("szext.clamp.u32 %0, %1, 4;" : "=r"(r) : "r"(u));', END, "return r; }", ""],
        marker,
      );
      const want = 'uint f(uint u) { uint r;\nasm("szext.clamp.u32 %0, %1, 4;" : "=r"(r) : "r"(u));\nreturn r; }\n';
      expect(portLayout(original, [{ loc: { line: 1, col: 26 }, end: { line: 1, col: 78 } }], true)).toBe(want);
      expect(undoPort(out)).toBe(want);
    });
  }

  it("a lone \\r ending the file after a statement is the file's, kept after port's #endif", () => {
    const original = '  asm("activemask.b32 %0;" : "=r"(m));\r';
    for (const marker of [true, false]) expect(undoPort(ported([...guard, HIP, "  m = activemask_b32__();", "#else", '  asm("activemask.b32 %0;" : "=r"(m));', END + "\r"], marker))).toBe(original);
  });

  it("with markers, an unmarked #if defined(__HIP__) of the file's own is left as written", () => {
    const original = ["#if defined(__HIP__)", "int hip;", "#else", "int cuda;", "#endif", ""].join("\n");
    const out = ported([HIP, '#include "k.hip.h"', END, ...original.split("\n")], true);
    expect(undoPort(out)).toBe(original);
    // Read as unmarked, the file's own guard is taken for port's.
    expect(undoPort(out, { markers: "unmarked" })).not.toBe(original);
  });

  it("a guard without its #endif or #else is an UndoError, not a wrong text", () => {
    for (const marker of [true, false]) {
      expect(() => undoPort(ported([HIP, '#include "k.hip.h"', END, HIP, "  x = 1;", "#else", '  asm("");', ""], marker))).toThrow(UndoError);
      expect(() => undoPort(ported([HIP, '#include "k.hip.h"', END, HIP, "  x = 1;", END, ""], marker))).toThrow(UndoError);
    }
  });

  it("portLayout: the include guard's line break before code that follows a comment on the first code line; a byte order mark is not that", () => {
    expect(firstCodeOffset("/* a\n b */ int x;")).toBe(11);
    expect(firstCodeOffset("// c \\\n still\n  x")).toBe(16);
    expect(portLayout("/* c */ int x;\n", [], true)).toBe("/* c */ \nint x;\n");
    expect(portLayout("/* c */ int x;\n", [], false)).toBe("/* c */ int x;\n");
    expect(portLayout("\ufeffint x;\n", [], true)).toBe("\ufeffint x;\n");
    expect(portLayout("  int x;\r\n", [], true)).toBe("  int x;\r\n");
  });
});

describe("port fuzz (seeded sample)", () => {
  it(`${INPUTS} generated and mutated sources: no crash, no identity failure, locations within the input, the command's sample clean`, async () => {
    const corpus = portCorpus();
    expect(corpus.length).toBeGreaterThanOrEqual(4);
    const bad: { i: number; f: PortFinding; file: string }[] = [];
    const stats = { rewritten: 0, withRewrite: 0, calls: 0, statements: 0, maxMs: 0, sources: new Map<string, number>() };
    const t0 = performance.now();
    for (let i = 0; i < INPUTS; i++) {
      const r = await checkIndex(i, SEED, corpus, SLOW_MS, 100);
      stats.rewritten += r.rewritten;
      stats.statements += r.statements;
      stats.calls += r.calls;
      if (r.rewritten > 0) stats.withRewrite++;
      stats.maxMs = Math.max(stats.maxMs, r.ms);
      stats.sources.set(r.inp.source, (stats.sources.get(r.inp.source) ?? 0) + 1);
      for (const f of r.findings) bad.push({ i, f, file: r.inp.file });
    }
    const secs = (performance.now() - t0) / 1000;
    console.log(
      `port fuzz sample: ${INPUTS} inputs in ${secs.toFixed(1)} s (${[...stats.sources].map(([k, v]) => `${k} ${v}`).join(", ")}); ${stats.statements} asm statements, ${stats.rewritten} rewritten in ${stats.withRewrite} inputs; ${stats.calls} intrinsic calls renamed; ${bad.length} findings`,
    );
    const kinds = new Map<string, number>();
    for (const b of bad) kinds.set(b.f.kind, (kinds.get(b.f.kind) ?? 0) + 1);
    const shown = bad.slice(0, 6).map((b) => `input ${b.i} (${b.file}; tsx scripts/fuzz_port.ts --seed ${SEED} --from ${b.i} --inputs 1 --spawn 0): [${b.f.kind}] ${b.f.message}${b.f.stack ? `\n${b.f.stack}` : ""}`);
    expect({ kinds: Object.fromEntries(kinds), first: shown }).toEqual({ kinds: {}, first: [] });
    // The generator exercises the rewriter, not only its refusals.
    expect(stats.withRewrite).toBeGreaterThan(INPUTS / 4);
    expect(stats.calls).toBeGreaterThan(INPUTS / 10);
    expect(stats.maxMs).toBeLessThan(SLOW_MS);
  }, 600_000);

  it("inputs are a pure function of (seed, index)", () => {
    const corpus = portCorpus();
    for (const i of [0, 17, 4_321]) expect(portInputAt(i, SEED, corpus)).toEqual(portInputAt(i, SEED, corpus));
    expect(portInputAt(1, SEED, corpus).text).not.toBe(portInputAt(1, SEED + 1, corpus).text);
    expect(new Rand(1, 2).u32()).toBe(new Rand(1, 2).u32());
    expect(firstDifference("abc", "abd")).toContain("offset 2");
  });
});
