/**
 * src/port/cond.ts (issue 34 item 3) and the directives src/port/scan.ts records for it: the
 * preprocessor conditions of a ported file evaluated for the HIP and the NVIDIA device
 * compiles (`live` / `dead` with the guard / `depends` on names), HIP paths on purpose, and
 * likely HIP build switches. Sources are small synthetic ones written here; the last block
 * reads ../shared/real-cuda in place (read-only) and asserts a few properties. The compile
 * models are checked against the installed compilers' `-E -dM` where they are installed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileModel, evaluateConditions, HIP_PATH_MACROS } from "../src/port/cond.js";
import type { ConditionOptions, Conditions } from "../src/port/cond.js";
import type { Liveness } from "../src/port/rewrite.js";
import { scanSource } from "../src/port/scan.js";
import { Rng } from "../src/check/random.js";

const conds = (text: string, opts: Partial<ConditionOptions> = {}): Conditions => evaluateConditions(scanSource(text, "t.cu"), { language: "cuda", ...opts });
/** Original offset of the `n`th (0-based) occurrence of `marker` in `text`. */
const off = (text: string, marker: string, n = 0): number => {
  let i = -1;
  for (let k = 0; k <= n; k++) {
    i = text.indexOf(marker, i + 1);
    if (i < 0) throw new Error(`no ${marker} #${n}`);
  }
  return i;
};
/** A liveness as a short string: `live`, `dead@LINE:TEXT`, `depends[A,B]@LINE`. */
const show = (l: Liveness): string => (l.state === "live" ? "live" : l.state === "dead" ? `dead@${l.guard.loc.line}:${l.guard.text}` : `depends[${l.names.join(",")}]@${l.guard.loc.line}`);

describe("scan: the directives recorded for cond.ts", () => {
  it("records every conditional and #define/#undef in order, with offsets, location, tokens, token index; the dropping is unchanged", () => {
    const src = [
      "int a;", // 1
      "#if 0", // 2
      "#define DEAD 1", // 3
      "int dropped;", // 4
      "#else // keep", // 5
      "#  define  LIVE(x) (x+1)", // 6
      "#endif", // 7
      "#ifdef FOO", // 8
      "int b; \\", // 9
      "  int c;", // 10
      "#elif defined(BAR) && \\", // 11
      "      X >= 2", // 12
      "#undef LIVE", // 13
      "#endif", // 14
      '#include "x.h"', // 15
      "#pragma once", // 16
    ].join("\n");
    const scan = scanSource(src, "t.cu");
    const d = scan.directives;
    expect(d.map((x) => x.kind)).toEqual(["if", "define", "else", "define", "endif", "ifdef", "elif", "undef", "endif"]);
    expect(d.map((x) => x.loc.line)).toEqual([2, 3, 5, 6, 7, 8, 11, 13, 14]);
    // The offsets are the original text's: `#` to the end of the logical line (splices included).
    expect(d.map((x) => src.slice(x.start, x.end))).toEqual([
      "#if 0",
      "#define DEAD 1",
      "#else // keep",
      "#  define  LIVE(x) (x+1)",
      "#endif",
      "#ifdef FOO",
      "#elif defined(BAR) && \\\n      X >= 2",
      "#undef LIVE",
      "#endif",
    ]);
    expect(d[6]!.args.map((t) => t.text)).toEqual(["defined", "(", "BAR", ")", "&", "&", "X", ">", "=", "2"]);
    expect(d.every((x) => x.args.every((t) => t.macro === -1))).toBe(true);
    // In the group the scanner drops: skipped, and the #define is no macro of the scan.
    expect(d.map((x) => x.skipped)).toEqual([false, true, false, false, false, false, false, false, false]);
    expect(d[1]!.macro).toBe(-1);
    expect(scan.macros.map((m) => m.name)).toEqual(["LIVE"]);
    expect(d[3]!.macro).toBe(0);
    expect(d[3]!.at).toBe(scan.macros[0]!.after);
    // The token index: what follows the directive.
    expect(scan.tokens[d[5]!.at]!.text).toBe("int");
    expect(scan.tokens[d[5]!.at + 1]!.text).toBe("b");
    expect(scan.tokens[d[0]!.at - 1]!.text).toBe(";"); // `int a;` before the #if 0
    expect(scan.tokens.some((t) => t.text === "dropped")).toBe(false);
    expect(scan.undefs.get("LIVE")).toEqual([d[7]!.at]);
  });

  it("marks the directives nested in a dropped group, and those of the #else after an #if 1", () => {
    const src = "#if 1\n#define A\n#else\n#if X\n#define B\n#endif\n#endif\n";
    const d = scanSource(src, "t.cu").directives;
    expect(d.map((x) => `${x.kind}:${x.skipped}`)).toEqual(["if:false", "define:false", "else:false", "if:true", "define:true", "endif:true", "endif:false"]);
  });
});

describe("cond: the HIP and the NVIDIA compiles", () => {
  it("#if __CUDA_ARCH__ >= 700: dead for HIP (the guard named), live for sm_90; the #else the other way round", () => {
    const src = "__device__ void f() {\n#if __CUDA_ARCH__ >= 700\n  A();\n#else\n  B();\n#endif\n  C();\n}\n";
    const c = conds(src);
    expect(show(c.hip(off(src, "A()")))).toBe("dead@2:#if __CUDA_ARCH__ >= 700");
    expect(c.hip(off(src, "A()"))).toMatchObject({
      guard: { loc: { file: "t.cu", line: 2, col: 1 } },
    });
    expect(show(c.cuda(off(src, "A()")))).toBe("live");
    // The #else is dead in the NVIDIA compile because the #if is surely taken: the #if is named.
    expect(show(c.hip(off(src, "B()")))).toBe("live");
    expect(show(c.cuda(off(src, "B()")))).toBe("dead@2:#if __CUDA_ARCH__ >= 700");
    expect(show(c.hip(off(src, "C()")))).toBe("live");
    expect(show(c.hip(0))).toBe("live");
    expect(c.hasHipPath).toBe(false);
    expect(c.hipPath(off(src, "B()"))).toBeNull();
  });

  it("what each model settles: CUDA_VERSION, __CUDACC__, __NVCC__, __HIP__, __cplusplus, __clang__", () => {
    const cases: [string, string, string][] = [
      ["CUDA_VERSION >= 9000", "dead", "live"],
      ["defined(__CUDACC__)", "dead", "live"],
      ["defined __NVCC__", "dead", "live"],
      ["__CUDACC_VER_MAJOR__ >= 13", "dead", "live"],
      ["__CUDA_ARCH__ == 900", "dead", "live"],
      ["defined(__HIP__) && __HIP_DEVICE_COMPILE__ == 1", "live", "dead"],
      ["defined(__HIPCC__)", "live", "dead"],
      ["defined(__HIP_PLATFORM_AMD__) && defined(__HIP_PLATFORM_HCC__)", "live", "dead"],
      ["__AMDGCN__", "live", "dead"],
      ["defined(__CUDA__)", "dead", "dead"],
      ["__cplusplus >= 201703L", "live", "live"],
      ["__cplusplus > 201703L", "dead", "dead"],
      ["defined(__clang__)", "live", "depends[__clang__]"],
      ["defined(HIP_VERSION)", "live", "dead"],
      ["HIP_VERSION >= 50200000", "depends[HIP_VERSION]", "dead"],
      ["__AMDGCN_WAVEFRONT_SIZE == 64", "depends[__AMDGCN_WAVEFRONT_SIZE]", "dead"],
      ["__gfx942__", "depends[__gfx942__]", "depends[__gfx942__]"],
    ];
    for (const [cond, hip, cuda] of cases) {
      const src = `#if ${cond}\nX();\n#endif\n`;
      const c = conds(src);
      const strip = (s: string) => s.replace(/@.*$/, "");
      expect([cond, strip(show(c.hip(off(src, "X();"))))]).toEqual([cond, hip]);
      expect([cond, strip(show(c.cuda(off(src, "X();"))))]).toEqual([cond, cuda]);
    }
  });

  it("short-circuits over unsettled names: defined(__HIP__) || X is live with no dependency", () => {
    const src = "#if defined(__HIP__) || X\nA();\n#endif\n#if X && defined(__CUDA_ARCH__)\nB();\n#endif\n#if X || Y\nC();\n#endif\n";
    const c = conds(src);
    expect(show(c.hip(off(src, "A()")))).toBe("live");
    expect(show(c.cuda(off(src, "A()")))).toBe("depends[X]@1");
    expect(show(c.hip(off(src, "B()")))).toBe("dead@4:#if X && defined(__CUDA_ARCH__)");
    expect(show(c.cuda(off(src, "B()")))).toBe("depends[X]@4");
    expect(show(c.hip(off(src, "C()")))).toBe("depends[X,Y]@7");
  });

  it("nesting: the outermost dead branch is named; unsettled names gather in order, the outermost unsettled directive named", () => {
    const src = ["#if A", "#if B", "a1();", "#if __CUDA_ARCH__ >= 800", "#if !defined(__HIP__)", "a2();", "#endif", "#endif", "#endif", "#endif"].join("\n");
    const c = conds(src);
    expect(show(c.hip(off(src, "a1")))).toBe("depends[A,B]@1");
    expect(show(c.hip(off(src, "a2")))).toBe("dead@4:#if __CUDA_ARCH__ >= 800");
    expect(show(c.cuda(off(src, "a2")))).toBe("depends[A,B]@1");
  });

  it("#elif chains: an #elif after a branch surely taken is dead because of that branch; after an unsettled one it depends on it", () => {
    const src = [
      "#if defined(__CUDA_ARCH__)",
      "a();",
      "#elif defined(__HIP__)",
      "b();",
      "#elif 1",
      "c();",
      "#else",
      "d();",
      "#endif",
      "#if X",
      "e();",
      "#elif defined(__HIP__)",
      "f();",
      "#elif Y",
      "g();",
      "#else",
      "h();",
      "#endif",
    ].join("\n");
    const c = conds(src);
    expect(show(c.hip(off(src, "a()")))).toBe("dead@1:#if defined(__CUDA_ARCH__)");
    expect(show(c.hip(off(src, "b()")))).toBe("live");
    expect(show(c.hip(off(src, "c()")))).toBe("dead@3:#elif defined(__HIP__)");
    expect(show(c.hip(off(src, "d()")))).toBe("dead@3:#elif defined(__HIP__)");
    expect(show(c.cuda(off(src, "b()")))).toBe("dead@1:#if defined(__CUDA_ARCH__)");
    expect(show(c.hip(off(src, "e()")))).toBe("depends[X]@10");
    expect(show(c.hip(off(src, "f()")))).toBe("depends[X]@10");
    expect(show(c.hip(off(src, "g()")))).toBe("dead@12:#elif defined(__HIP__)");
    expect(show(c.hip(off(src, "h()")))).toBe("dead@12:#elif defined(__HIP__)");
    expect(show(c.cuda(off(src, "g()")))).toBe("depends[X,Y]@10");
    expect(show(c.cuda(off(src, "h()")))).toBe("depends[X,Y]@10");
  });

  it("#ifdef, #ifndef, #elifdef, #elifndef", () => {
    const src = ["#ifdef __CUDA_ARCH__", "a();", "#elifdef __HIP__", "b();", "#endif", "#ifndef __HIP__", "c();", "#elifndef FOO", "d();", "#endif"].join("\n");
    const c = conds(src);
    expect(show(c.hip(off(src, "a()")))).toBe("dead@1:#ifdef __CUDA_ARCH__");
    expect(show(c.hip(off(src, "b()")))).toBe("live");
    expect(show(c.hip(off(src, "c()")))).toBe("dead@6:#ifndef __HIP__");
    expect(show(c.hip(off(src, "d()")))).toBe("depends[FOO]@8");
    expect(show(c.cuda(off(src, "d()")))).toBe("dead@6:#ifndef __HIP__");
  });

  it("the guard's text: whitespace runs as one space, line splices and comments left out", () => {
    const src = "#if   defined(__CUDA_ARCH__) /* sm_70+ */  &&\t\\\n   __CUDA_ARCH__ >= 700 // Volta\nA();\n#endif\n";
    expect(show(conds(src).hip(off(src, "A()")))).toBe("dead@1:#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700");
  });
});

describe("cond: the file's own #define/#undef, -D/-U, include guards", () => {
  it("follows #define and #undef in order, only where their group is taken", () => {
    const src = [
      "#define LEVEL 3",
      "#if LEVEL > 2",
      "a();",
      "#endif",
      "#undef LEVEL",
      "#if LEVEL > 2", // an undefined name is 0 once the file undefines it: settled
      "b();",
      "#endif",
      "#ifdef __CUDA_ARCH__",
      "#define ONLY_CUDA 1",
      "#endif",
      "#if ONLY_CUDA",
      "c();",
      "#endif",
      "#if X",
      "#define MAYBE 1",
      "#endif",
      "#if MAYBE",
      "d();",
      "#endif",
    ].join("\n");
    const c = conds(src);
    expect(show(c.hip(off(src, "a()")))).toBe("live");
    expect(show(c.hip(off(src, "b()")))).toBe("dead@6:#if LEVEL > 2");
    // The file defines ONLY_CUDA only where HIP does not go: not defined for HIP.
    expect(show(c.hip(off(src, "c()")))).toBe("dead@12:#if ONLY_CUDA");
    expect(show(c.cuda(off(src, "c()")))).toBe("live");
    // A #define in a group that depends on X leaves the macro depending on X after it.
    expect(show(c.hip(off(src, "d()")))).toBe("depends[X]@18");
  });

  it("a define in an unsettled group after a settled one: the value depends, `defined` does not", () => {
    const src = "#define W 32\n#if X\n#undef W\n#define W 64\n#endif\n#ifdef W\na();\n#endif\n#if W == 32\nb();\n#endif\n";
    const c = conds(src);
    expect(show(c.hip(off(src, "a()")))).toBe("live");
    expect(show(c.hip(off(src, "b()")))).toBe("depends[X]@9");
  });

  it("reads the first #ifndef X / #define X as an include guard; elsewhere #ifndef X / #define X leaves X defined", () => {
    const src = [
      "// header",
      "#ifndef MY_HEADER_H",
      "#define MY_HEADER_H",
      "a();",
      "#ifndef WS",
      "#define WS 32",
      "#endif",
      "#ifdef WS",
      "b();",
      "#endif",
      "#if WS == 32",
      "c();",
      "#endif",
      "#endif",
    ].join("\n");
    const c = conds(src);
    expect(show(c.hip(off(src, "a()")))).toBe("live");
    expect(show(c.hip(off(src, "b()")))).toBe("live");
    expect(show(c.hip(off(src, "c()")))).toBe("depends[WS]@11");
    // Not first: an ordinary unsettled #ifndef.
    const late = "#if defined(__HIP__)\n#endif\n#ifndef G\n#define G\nx();\n#endif\n";
    expect(show(conds(late).hip(off(late, "x()")))).toBe("depends[G]@3");
    // Settled by -D: no guard reading.
    const byD = "#ifndef G\n#define G\nx();\n#endif\n";
    expect(show(conds(byD, { predefined: [{ define: "G", value: "1" }] }).hip(off(byD, "x()")))).toBe("dead@1:#ifndef G");
    expect(show(conds(byD).hip(off(byD, "x()")))).toBe("live");
  });

  it("-D/-U before the file, in order, over the model; the file's own #define after them", () => {
    const src = "#if FOO == 2\na();\n#endif\n#ifdef __HIP__\nb();\n#endif\n#define FOO 5\n#if FOO == 2\nc();\n#endif\n#if BAR\nd();\n#endif\n";
    const predefined = [{ define: "FOO", value: "1" }, { define: "FOO", value: "2" }, { undef: "__HIP__" }, { define: "BAR", value: "" }, { undef: "BAR" }];
    const c = conds(src, { predefined });
    expect(show(c.hip(off(src, "a()")))).toBe("live");
    expect(show(c.cuda(off(src, "a()")))).toBe("live");
    expect(show(c.hip(off(src, "b()")))).toBe("dead@4:#ifdef __HIP__");
    expect(show(c.hip(off(src, "c()")))).toBe("dead@8:#if FOO == 2");
    expect(show(c.hip(off(src, "d()")))).toBe("dead@11:#if BAR");
    expect(show(conds(src).hip(off(src, "a()")))).toBe("depends[FOO]@1");
  });
});

describe("cond: expressions", () => {
  /** Each condition: what the HIP compile makes of it (`live`, `dead`, or the names it depends on). */
  const cases: [string, string][] = [
    ["1 + 2 * 3 == 7", "live"],
    ["(1 + 2) * 3 == 9", "live"],
    ["10 / 3 == 3 && 10 % 3 == 1 && -7 / 2 == -3 && -7 % 2 == -1", "live"],
    ["1 << 4 == 16 && 256 >> 4 == 16 && -16 >> 2 == -4", "live"],
    ["(5 & 3) == 1 && (5 | 3) == 7 && (5 ^ 3) == 6 && ~0 == -1", "live"],
    ["3 < 4 && 4 <= 4 && 5 > 4 && 4 >= 4 && 1 != 2", "live"],
    ["-1 < 0", "live"],
    ["-1 < 0u", "dead"], // the usual conversions: -1 is UINTMAX_MAX
    ["-1 > 0UL", "live"],
    ["0xFFFFFFFFFFFFFFFF == -1", "live"],
    ["0x7fffffffffffffff + 1 < 0", "live"], // wraps in 64 bits
    ["0x10 == 16 && 020 == 16 && 0b10000 == 16 && 1'000 == 1000 && 16ull == 16 && 16LL == 16 && 16z == 16", "live"],
    ["'A' == 65 && '\\n' == 10 && '\\x41' == 65 && '\\101' == 65 && '\\0' == 0 && u'A' == 65 && 'AB' == 16706", "live"],
    ["'\\xff' < 0", "live"], // a plain char is signed
    ["!0 && !!5 == 1 && -(-3) == 3 && +4 == 4", "live"],
    ["1 ? 2 : 0", "live"],
    ["0 ? 1 : 0", "dead"],
    ["X ? 1 : 1", "live"], // both arms equal: settled
    ["X ? 1 : 0", "X"],
    ["1 ? X : 0", "X"],
    ["0 ? X : 1", "live"],
    ["(1, 0)", "dead"],
    ["0 && (1 / 0)", "dead"], // not evaluated: no division by zero
    ["1 || (1 % 0)", "live"],
    ["1 / 0", "(unreadable condition: division by zero)"],
    ["X || 1", "live"],
    ["X && 0", "dead"],
    ["X && 1", "X"],
    ["X + Y > 0 && 1", "X,Y"],
    ["defined X && defined(Y)", "X,Y"],
    ["!defined(__HIP__) || defined(__CUDA_ARCH__)", "dead"],
    ["__has_include(<hip/hip_bf16.h>)", "__has_include(<hip/hip_bf16.h>)"],
    ['__has_include("cuda_fp16.h") || defined(__HIP__)', "live"],
    ["__has_builtin(__builtin_amdgcn_ds_bpermute)", "__has_builtin(__builtin_amdgcn_ds_bpermute)"],
    ["defined(__has_include)", "live"],
    ["UNKNOWN_FN(3) > 2", "UNKNOWN_FN"],
    ["true && !false", "live"], // C++: true and false are 1 and 0
    ["defined(__HIP__) and not defined(__CUDA_ARCH__)", "live"], // C++'s alternative tokens
    ["1 bitor 2 == 3 and (6 bitand 3) == 2 and (5 xor 1) == 4 and compl 0 == -1 and 1 not_eq 2", "live"],
    ["", "(unreadable condition: an operand is missing)"],
    ["1 +", "(unreadable condition: an operand is missing)"],
    ["(1", "(unreadable condition: expected ')' at the end)"],
    ["1 2", "(unreadable condition: '2' after the expression)"],
    ['"str"', "(unreadable condition: '\"str\"' where an operand must come)"],
    ["1.5 > 1", "(unreadable condition: '1.5' is not an integer)"],
    ["18446744073709551616 > 0", "(unreadable condition: '18446744073709551616' is too large)"],
    ["__HIP_PLATFORM_AMD__", "(unreadable condition: an operand is missing)"], // defined empty: clang refuses the #if
    ["defined", "(unreadable condition: 'defined' without a macro name)"],
  ];
  it.each(cases)("#if %s → %s", (cond, want) => {
    const src = `#if ${cond}\nX_();\n#endif\n`;
    const l = conds(src).hip(off(src, "X_();"));
    const got = l.state === "depends" ? l.names.join(",") : l.state;
    expect(got).toBe(want);
  });

  it("expands object-like macros as text, recursively; a macro is not expanded in itself; function-like calls depend", () => {
    const src = [
      "#define SUM 1 + 2",
      "#define TWICE SUM * 2", // 1 + 2 * 2 = 5, not 6
      "#define SELF SELF",
      "#define PING PONG",
      "#define PONG PING",
      "#define NEG -1",
      "#define F(x) (x)",
      "#define ARCH __CUDA_ARCH__",
      "#if TWICE == 5 && SUM * 3 == 7 && !SELF && !PING && NEG < 0 && !F",
      "a();",
      "#endif",
      "#if F(1)",
      "b();",
      "#endif",
      "#if ARCH >= 700",
      "c();",
      "#endif",
    ].join("\n");
    const c = conds(src);
    expect(show(c.hip(off(src, "a()")))).toBe("live");
    expect(show(c.hip(off(src, "b()")))).toBe("depends[F]@12");
    expect(show(c.hip(off(src, "c()")))).toBe("dead@15:#if ARCH >= 700");
    expect(show(c.cuda(off(src, "c()")))).toBe("live");
  });

  it("`defined` that a macro expands to is read (as clang does), and is a HIP path when it tests a HIP macro", () => {
    const src = "#define IS_AMD (defined(__HIP_PLATFORM_AMD__) && !defined(__CUDA_ARCH__))\n#if IS_AMD\na();\n#endif\n";
    const c = conds(src);
    expect(show(c.hip(off(src, "a()")))).toBe("live");
    expect(show(c.cuda(off(src, "a()")))).toBe("dead@2:#if IS_AMD");
    expect(c.hipPath(off(src, "a()"))?.text).toBe("#if IS_AMD");
  });

  it("bounds a macro that expands exponentially, and a deep nest of parentheses, without throwing", () => {
    const defs = ["#define A0 1", ...Array.from({ length: 40 }, (_, k) => `#define A${k + 1} (A${k} + A${k})`)];
    const src = `${defs.join("\n")}\n#if A40 > 0\na();\n#endif\n#if ${"(".repeat(20000)}1${")".repeat(20000)}\nb();\n#endif\n`;
    const t0 = performance.now();
    const c = conds(src);
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(show(c.hip(off(src, "a()")))).toBe("depends[(unreadable condition: macro expansion too long)]@42");
    expect(c.hip(off(src, "b()")).state).not.toBe("dead");
  });
});

describe("cond: OpenCL", () => {
  it("the AMD and NVIDIA OpenCL compiles: __OPENCL_C_VERSION__ and __AMDGCN__, no __OPENCL_VERSION__, no __cplusplus", () => {
    const src = [
      "#if defined(__OPENCL_C_VERSION__) && defined(__AMDGCN__)",
      "a();",
      "#endif",
      "#ifdef __cplusplus",
      "b();",
      "#endif",
      "#if __OPENCL_VERSION__ >= 200",
      "c();",
      "#endif",
      "#if defined(__NVPTX__) && __CUDA_ARCH__ >= 700",
      "d();",
      "#endif",
      "#if true", // an identifier in C: unsettled
      "e();",
      "#endif",
      "#if X and Y", // and C's `and` is an identifier: no expression
      "f();",
      "#endif",
    ].join("\n");
    const c = evaluateConditions(scanSource(src, "k.cl"), {
      language: "opencl",
    });
    expect(show(c.hip(off(src, "a()")))).toBe("live");
    expect(show(c.cuda(off(src, "a()")))).toBe("dead@1:#if defined(__OPENCL_C_VERSION__) && defined(__AMDGCN__)");
    expect(c.hipPath(off(src, "a()"))).toEqual({
      loc: { file: "k.cl", line: 1, col: 1 },
      text: "#if defined(__OPENCL_C_VERSION__) && defined(__AMDGCN__)",
    });
    expect(show(c.hip(off(src, "b()")))).toBe("dead@4:#ifdef __cplusplus");
    expect(show(c.cuda(off(src, "b()")))).toBe("dead@4:#ifdef __cplusplus");
    expect(show(c.hip(off(src, "c()")))).toBe("dead@7:#if __OPENCL_VERSION__ >= 200");
    expect(show(c.hip(off(src, "d()")))).toBe("dead@10:#if defined(__NVPTX__) && __CUDA_ARCH__ >= 700");
    expect(show(c.cuda(off(src, "d()")))).toBe("live");
    expect(show(c.hip(off(src, "e()")))).toBe("depends[true]@13");
    expect(c.hip(off(src, "f()")).state).toBe("depends");
  });
});

describe("cond: HIP paths and HIP switches", () => {
  it("a taken branch conditioned positively on a HIP macro is a HIP path; innermost wins; not the branch HIP skips", () => {
    const src = [
      "#if defined(__HIP_PLATFORM_AMD__)",
      "a();",
      "#if X",
      "b();",
      "#endif",
      "#ifdef __HIP__",
      "c();",
      "#endif",
      "#else",
      "d();",
      "#endif",
      "#if defined(__HIP__) && defined(__CUDA_ARCH__)",
      "e();",
      "#endif",
      "f();",
    ].join("\n");
    const c = conds(src);
    expect(c.hasHipPath).toBe(true);
    expect(c.hipPath(off(src, "a()"))?.text).toBe("#if defined(__HIP_PLATFORM_AMD__)");
    expect(c.hipPath(off(src, "b()"))?.text).toBe("#if defined(__HIP_PLATFORM_AMD__)");
    expect(c.hipPath(off(src, "c()"))).toEqual({
      loc: { file: "t.cu", line: 6, col: 1 },
      text: "#ifdef __HIP__",
    });
    expect(c.hipPath(off(src, "d()"))).toBeNull();
    expect(c.hipPath(off(src, "e()"))).toBeNull(); // HIP surely skips it
    expect(c.hipPath(off(src, "f()"))).toBeNull();
  });

  it("the #else (and #elif) of a group whose earlier condition tested a HIP macro negatively is a HIP path", () => {
    const src = [
      "#ifndef __HIP__",
      "a();",
      "#else",
      "b();",
      "#endif",
      "#if !defined(__HIP_DEVICE_COMPILE__) && X",
      "c();",
      "#elif Y",
      "d();",
      "#else",
      "e();",
      "#endif",
      "#if X",
      "#else",
      "g();",
      "#endif",
    ].join("\n");
    const c = conds(src);
    expect(c.hipPath(off(src, "a()"))).toBeNull();
    expect(c.hipPath(off(src, "b()"))).toEqual({
      loc: { file: "t.cu", line: 3, col: 1 },
      text: "#else",
    });
    expect(c.hipPath(off(src, "c()"))).toBeNull();
    expect(c.hipPath(off(src, "d()"))?.text).toBe("#elif Y");
    expect(c.hipPath(off(src, "e()"))?.text).toBe("#else");
    expect(c.hipPath(off(src, "g()"))).toBeNull(); // the #else of an unrelated test
  });

  it("a macro the file defines only in a HIP path is a HIP macro, transitively; one CUDA defines too is not", () => {
    const src = [
      "#if defined(__HIP_PLATFORM_AMD__)",
      "#define MY_USE_HIP",
      "#endif",
      "#ifdef MY_USE_HIP",
      "#define MY_WAVE64 1",
      "#endif",
      "#if MY_WAVE64",
      "a();",
      "#endif",
      "#if defined(__HIP__) || __CUDA_ARCH__ >= 600",
      "#define FAST_FP16",
      "#endif",
      "#ifdef FAST_FP16",
      "b();",
      "#endif",
      "#ifdef MY_USE_HIP",
      "c();",
      "#else",
      "d();",
      "#endif",
    ].join("\n");
    const c = conds(src);
    expect(c.hipPath(off(src, "a()"))?.text).toBe("#if MY_WAVE64");
    expect(show(c.hip(off(src, "a()")))).toBe("live");
    expect(show(c.cuda(off(src, "a()")))).toBe("dead@7:#if MY_WAVE64");
    expect(c.hipPath(off(src, "b()"))).toBeNull();
    expect(show(c.cuda(off(src, "b()")))).toBe("live");
    expect(c.hipPath(off(src, "c()"))?.loc.line).toBe(16);
    expect(show(c.hip(off(src, "d()")))).toBe("dead@16:#ifdef MY_USE_HIP");
    // For CUDA, the file's MY_USE_HIP is defined only where CUDA does not go: settled, not defined.
    expect(show(c.cuda(off(src, "c()")))).toBe("dead@16:#ifdef MY_USE_HIP");
    expect(show(c.cuda(off(src, "d()")))).toBe("live");
    expect(c.hipSwitches).toEqual([]);
  });

  it("hipMacros: a build switch (ggml's GGML_USE_HIP) makes a HIP path, defined for HIP and undefined for CUDA; unnamed, it is a likely switch", () => {
    const src = ["#if defined(GGML_USE_HIP)", "a();", "#else", "b();", "#endif", "#if !defined(GGML_USE_HIP) && __CUDA_ARCH__ >= 800", "c();", "#else", "d();", "#endif"].join("\n");
    const without = conds(src);
    expect(without.hasHipPath).toBe(false);
    expect(without.hipPath(off(src, "a()"))).toBeNull();
    expect(show(without.hip(off(src, "a()")))).toBe("depends[GGML_USE_HIP]@1");
    expect(without.hipSwitches).toEqual([{ name: "GGML_USE_HIP", loc: { file: "t.cu", line: 1, col: 13 } }]);
    const withIt = conds(src, { hipMacros: ["GGML_USE_HIP"] });
    expect(withIt.hasHipPath).toBe(true);
    expect(withIt.hipSwitches).toEqual([]);
    expect(withIt.hipPath(off(src, "a()"))?.text).toBe("#if defined(GGML_USE_HIP)");
    expect(show(withIt.hip(off(src, "a()")))).toBe("live");
    expect(show(withIt.cuda(off(src, "a()")))).toBe("dead@1:#if defined(GGML_USE_HIP)");
    expect(show(withIt.hip(off(src, "b()")))).toBe("dead@1:#if defined(GGML_USE_HIP)");
    expect(withIt.hipPath(off(src, "d()"))?.text).toBe("#else");
    expect(show(withIt.cuda(off(src, "d()")))).toBe("dead@6:#if !defined(GGML_USE_HIP) && __CUDA_ARCH__ >= 800");
  });

  it("hipSwitches: HIP, ROCM or AMD in a name, once at its first use; not reserved names, model names, hipMacros, -D/-U names, file macros, dropped groups", () => {
    const src = [
      "#ifdef USE_AMD_ROCM", // 1
      "#endif",
      "#if defined(MY_ROCM_BUILD) && USE_AMD_ROCM", // 3: USE_AMD_ROCM again: once
      "#endif",
      "#if __HIP_ARCH_HAS_WARP_SHUFFLE__ || HIP_VERSION > 0 || defined(__HIP_PLATFORM_NVIDIA__) || _AMD_X", // reserved or the model's
      "#endif",
      "#define FILE_HIP 1",
      "#if FILE_HIP || NAMED_HIP || D_AMD || U_AMD || hip_lower || Amd",
      "#endif",
      "#if 0",
      "#ifdef DROPPED_HIP",
      "#endif",
      "#endif",
      "#ifndef LATE_HIP",
      "#endif",
    ].join("\n");
    const c = conds(src, {
      hipMacros: ["NAMED_HIP"],
      predefined: [{ define: "D_AMD", value: "1" }, { undef: "U_AMD" }],
    });
    expect(c.hipSwitches.map((s) => `${s.name}@${s.loc.line}:${s.loc.col}`)).toEqual(["USE_AMD_ROCM@1:8", "MY_ROCM_BUILD@3:13", "LATE_HIP@14:9"]);
  });
});

describe("cond: never throws", () => {
  it("an unterminated #if, stray #endif/#else/#elif, #else after #else, directives without names", () => {
    const src = ["#endif", "#else", "#elif 1", "a();", "#ifdef", "#if defined(", "#if X", "#else", "b();", "#else", "c();", "#define", "#undef 3", "#if 1", "d();"].join("\n");
    const c = conds(src);
    expect(show(c.hip(off(src, "a()")))).toBe("live");
    expect(show(c.hip(off(src, "b()")))).toBe("depends[(unreadable condition: #ifdef without a macro name),(unreadable condition: 'defined' without a macro name),X]@5");
    // GCC refuses an #else after an #else; read as a branch after one taken (when the first is).
    expect(show(c.hip(off(src, "c()")))).toBe("dead@8:#else");
    expect(show(c.hip(off(src, "d()")))).toBe("dead@8:#else");
    expect(show(c.hip(src.length + 10))).toBe("dead@8:#else");
    expect(c.hip(-5)).toEqual({ state: "live" });
  });

  it("a nest of 5,000 unsettled #ifs stays linear; the first 32 names are kept", () => {
    const n = 5000;
    const src = `${Array.from({ length: n }, (_, i) => `#if X${i}`).join("\n")}\nasm();\n${"#endif\n".repeat(n)}`;
    const t0 = performance.now();
    const l = conds(src).hip(off(src, "asm()"));
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(l).toMatchObject({ state: "depends", guard: { text: "#if X0" } });
    expect(l.state === "depends" && l.names).toEqual(Array.from({ length: 32 }, (_, i) => `X${i}`));
  });

  it("random directive soup: no exception, every answer well formed (seeded)", () => {
    const rng = new Rng(34);
    const words = [
      "#if",
      "#ifdef",
      "#ifndef",
      "#elif",
      "#else",
      "#endif",
      "#define",
      "#undef",
      "#elifdef",
      "x();",
      "defined",
      "(",
      ")",
      "__HIP__",
      "__CUDA_ARCH__",
      "GGML_USE_HIP",
      "A",
      "B",
      "A(",
      "1",
      "0",
      "0x1fu",
      "'a'",
      "'",
      '"',
      "||",
      "&&",
      "!",
      "?",
      ":",
      "<<",
      "/",
      "%",
      "0/0",
      "__has_include(<x>)",
      "\\",
      "/*",
      "*/",
      "//",
      "\n",
      "\r\n",
      "##",
      "#",
      "1e5",
      "999999999999999999999",
      "~",
      "-",
      ",",
    ];
    for (let n = 0; n < 1500; n++) {
      let src = "";
      const len = rng.below(81);
      for (let k = 0; k < len; k++) src += (rng.below(4) === 0 ? "\n" : " ") + words[rng.below(words.length)]!;
      const opts: ConditionOptions = {
        language: rng.below(2) ? "cuda" : "opencl",
        hipMacros: ["A"],
        predefined: [{ define: "B", value: words[rng.below(words.length)]! }],
      };
      const c = evaluateConditions(scanSource(src, "f.cu"), opts);
      for (let o = -1; o <= src.length + 1; o += 3) {
        for (const l of [c.hip(o), c.cuda(o)]) {
          expect(["live", "dead", "depends"]).toContain(l.state);
          if (l.state !== "live") expect(l.guard.text.startsWith("#")).toBe(true);
          if (l.state === "depends") expect(l.names.length).toBeGreaterThan(0);
        }
        c.hipPath(o);
      }
    }
  });
});

describe("cond: the compile models against the installed compilers", () => {
  const run = (cmd: string, args: string[]) => spawnSync(cmd, args, { encoding: "utf8", timeout: 120_000 });
  const CLANG = run("clang-19", ["--version"]).status === 0;
  const HIP_HEADERS = existsSync("/usr/include/hip/hip_runtime.h");
  /** `-E -dM` output as a map. */
  const macros = (out: string) => new Map([...out.matchAll(/^#define (\w+)(?:\(.*?\))? ?(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
  const check = (printed: Map<string, string>, compile: "hip" | "cuda", language: "cuda" | "opencl") => {
    const m = compileModel(compile, language);
    for (const [name, value] of m.defined) {
      expect([name, printed.has(name)]).toEqual([name, true]);
      if (value !== null) expect([name, printed.get(name)]).toEqual([name, value]);
    }
    for (const name of m.undefined) expect([name, printed.has(name)]).toEqual([name, false]);
  };
  it.skipIf(!CLANG || !HIP_HEADERS)("hip/cuda: clang-19 -x hip --cuda-device-only --offload-arch=gfx942 -include hip/hip_runtime.h -E -dM", () => {
    const r = run("clang-19", ["-x", "hip", "--cuda-device-only", "--offload-arch=gfx942", "-nogpulib", "-E", "-dM", "-include", "hip/hip_runtime.h", "/dev/null"]);
    expect(r.status).toBe(0);
    check(macros(r.stdout), "hip", "cuda");
    for (const n of HIP_PATH_MACROS) expect(compileModel("hip", "cuda").defined.has(n)).toBe(true);
  });
  it.skipIf(!CLANG)("hip/opencl and cuda/opencl: clang-19 -x cl -cl-std=CL2.0 for amdgcn-amd-amdhsa gfx942 and nvptx64-nvidia-nvcl sm_90", () => {
    const amd = run("clang-19", ["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-E", "-dM", "/dev/null"]);
    expect(amd.status).toBe(0);
    check(macros(amd.stdout), "hip", "opencl");
    const nv = run("clang-19", ["-x", "cl", "-cl-std=CL2.0", "-target", "nvptx64-nvidia-nvcl", "-march=sm_90", "-E", "-dM", "/dev/null"]);
    expect(nv.status).toBe(0);
    check(macros(nv.stdout), "cuda", "opencl");
  });
  const CUDA_INC = "/usr/local/cuda-13.0/targets/x86_64-linux/include";
  it.skipIf(run("nvcc", ["--version"]).status !== 0 || !existsSync(join(CUDA_INC, "cuda.h")) || run("gcc", ["--version"]).status !== 0)(
    "cuda/cuda: the device pass nvcc -arch=sm_90 runs (its --dryrun), with cuda.h's CUDA_VERSION",
    () => {
      const dry = run("nvcc", ["-arch=sm_90", "-c", "x.cu", "--dryrun"]);
      const line = (dry.stdout + dry.stderr).split("\n").find((l) => l.includes("-D__CUDA_ARCH__=900") && l.includes(" -E "));
      expect(line).toBeDefined();
      const defines = [...line!.matchAll(/-D(\w+)(?:=(\S+))?/g)].map((m) => `${m[1]!} ${m[2] ?? "1"}`);
      const r = spawnSync("gcc", ["-E", "-dM", "-x", "c++", ...defines.map((d) => `-D${d.replace(" ", "=")}`), `-I${CUDA_INC}`, "-include", "cuda_runtime.h", "-include", "cuda.h", "-"], {
        input: "",
        encoding: "utf8",
        timeout: 120_000,
      });
      expect(r.status).toBe(0);
      check(macros(r.stdout), "cuda", "cuda");
    },
  );
});

describe("cond: the real files of ../shared/real-cuda (read in place)", () => {
  const REAL = join(import.meta.dirname, "..", "..", "shared", "real-cuda");
  const real = (name: string) => readFileSync(join(REAL, name), "utf8");
  const lineOf = (text: string, marker: string, n = 0) => text.slice(0, off(text, marker, n)).split("\n").length;
  it.skipIf(!existsSync(join(REAL, "ggml_common.cuh")))("ggml_common.cuh: GGML_USE_HIP is a likely switch; named, its #if defined(GGML_USE_HIP) code is a HIP path; milliseconds", () => {
    const text = real("ggml_common.cuh");
    const scan = scanSource(text, "ggml_common.cuh");
    const plain = evaluateConditions(scan, { language: "cuda" });
    expect(plain.hipSwitches.map((s) => s.name)).toContain("GGML_USE_HIP");
    expect(plain.hipSwitches.find((s) => s.name === "GGML_USE_HIP")!.loc.line).toBe(lineOf(text, "GGML_USE_HIP"));
    const sdot = off(text, "__builtin_amdgcn_sdot4");
    expect(plain.hipPath(sdot)).toBeNull();
    const named = evaluateConditions(scan, {
      language: "cuda",
      hipMacros: ["GGML_USE_HIP"],
    });
    expect(named.hasHipPath).toBe(true);
    expect(named.hipSwitches.map((s) => s.name)).not.toContain("GGML_USE_HIP");
    expect(named.hipPath(sdot)?.text).toBe("#if defined(GGML_USE_HIP)");
    expect(named.cuda(sdot).state).toBe("dead");
    // warp_reduce_sum(int): __reduce_add_sync under !defined(GGML_USE_HIP) && __CUDA_ARCH__ >= AMPERE is dead for HIP; the #else shuffle loop is live.
    const reduce = off(text, "__reduce_add_sync");
    expect(named.hip(reduce)).toMatchObject({
      state: "dead",
      guard: {
        text: "#if !defined(GGML_USE_HIP) && __CUDA_ARCH__ >= GGML_CUDA_CC_AMPERE",
      },
    });
    expect(named.cuda(reduce).state).toBe("live");
    const loop = off(text, "__shfl_xor_sync", 0);
    expect(named.hip(loop).state).toBe("live");
    // Unnamed, the NVIDIA side depends on it (the HIP side is settled: __CUDA_ARCH__ is 0 there).
    expect(plain.hip(loop).state).toBe("live");
    expect(plain.cuda(loop)).toMatchObject({
      state: "depends",
      names: ["GGML_USE_HIP"],
    });
    // Milliseconds: the median of 5 evaluations (the scan is not counted).
    const times: number[] = [];
    for (let k = 0; k < 5; k++) {
      const t0 = performance.now();
      evaluateConditions(scan, {
        language: "cuda",
        hipMacros: ["GGML_USE_HIP"],
      });
      times.push(performance.now() - t0);
    }
    expect(times.sort((a, b) => a - b)[2]!).toBeLessThan(100);
  });
  it.skipIf(!existsSync(join(REAL, "faiss_WarpShuffles.cuh")))(
    "faiss_WarpShuffles.cuh: USE_AMD_ROCM is a likely switch; named, the #ifdef USE_AMD_ROCM shuffles are a HIP path and CUDA_VERSION >= 9000 is dead",
    () => {
      const text = real("faiss_WarpShuffles.cuh");
      const scan = scanSource(text, "faiss_WarpShuffles.cuh");
      expect(evaluateConditions(scan, { language: "cuda" }).hipSwitches.map((s) => s.name)).toEqual(["USE_AMD_ROCM"]);
      const c = evaluateConditions(scan, {
        language: "cuda",
        hipMacros: ["USE_AMD_ROCM"],
      });
      const rocm = off(text, "#ifdef USE_AMD_ROCM");
      const inRocm = text.indexOf("__shfl(", rocm);
      expect(c.hipPath(inRocm)).toEqual({
        loc: {
          file: "faiss_WarpShuffles.cuh",
          line: lineOf(text, "#ifdef USE_AMD_ROCM"),
          col: 1,
        },
        text: "#ifdef USE_AMD_ROCM",
      });
      expect(c.hip(inRocm).state).toBe("live");
      expect(c.hip(off(text, "__shfl_sync"))).toMatchObject({
        state: "dead",
        guard: { text: "#if CUDA_VERSION >= 9000" },
      });
      expect(c.cuda(off(text, "__shfl_sync")).state).toBe("live");
    },
  );
  it.skipIf(!existsSync(join(REAL, "hecbench_atomicAggregate.cu")))("hecbench_atomicAggregate.cu: the __CUDA_ARCH__ >= 700 branch is dead for HIP, its #else and the rest live, no HIP path", () => {
    const text = real("hecbench_atomicAggregate.cu");
    const c = evaluateConditions(scanSource(text, "main.cu"), {
      language: "cuda",
    });
    const match = off(text, "__match_any_sync");
    expect(c.hip(match)).toEqual({
      state: "dead",
      guard: {
        loc: {
          file: "main.cu",
          line: lineOf(text, "#if __CUDA_ARCH__ >= 700"),
          col: 1,
        },
        text: "#if __CUDA_ARCH__ >= 700",
      },
    });
    expect(c.cuda(match).state).toBe("live");
    const elseShfl = text.indexOf("__shfl_sync", off(text, "#else"));
    expect(c.hip(elseShfl).state).toBe("live");
    expect(c.cuda(elseShfl).state).toBe("dead");
    expect(c.hip(off(text, "threadIdx.x % warpSize")).state).toBe("live");
    expect(c.hasHipPath).toBe(false);
    expect(c.hipSwitches).toEqual([]);
  });
});
