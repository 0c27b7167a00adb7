/**
 * `ptx-lower port` (src/port/, bin/port.ts): the scanner, the binder, the rewrite, and the
 * command, on real inputs — `examples/bitfields.cu`, `examples/warp_match.cu` and the issue's
 * library patterns restated in `test/port/patterns.cu` and `test/port/named.hip`. Goldens of
 * the ported files are `test/port/golden/*` (regenerate with `npx vitest run test/port.test.ts -u`).
 *
 * The ported files compile with `nvcc -arch=sm_90 -c` (where nvcc is installed), and their
 * HIP branch type-checks with clang-19 against a header of declarations written from the
 * calling convention of src/port/rewrite.ts (the real header, targets/hip, is compiled by
 * the integration test once it exists: the last describe block here).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { scanSource } from "../src/port/scan.js";
import { evalConst, PORT_MODULE_HEAD as PORT_HEAD } from "../src/port/bind.js";
import { parseModule } from "../src/ir/build.js";
import { scalarSemantics } from "../src/check/scalar.js";
import { concrete, u } from "../src/sem/bv.js";
import type { PortResult } from "../src/port/rewrite.js";
import { portSource } from "../src/port/rewrite.js";
import type { ParsedModule } from "../src/ir/build.js";
import { collectRoutines, lowerModule } from "../src/lower.js";
import { sourcesOf } from "../src/ir/ir.js";
import { formWrites } from "../src/ir/forms.js";
import { hipHeader, portBanner, portCommand } from "../bin/port.js";
import { Rng } from "../src/check/random.js";
import { validate } from "./schema.js";
import type { Schema } from "./schema.js";

const ROOT = join(import.meta.dirname, "..");
const PORT = join(ROOT, "test", "port");
const read = (p: string) => readFileSync(p, "utf8");
const tmp = () => mkdtempSync(join(tmpdir(), "ptx-lower-port-"));

/**
 * A header of declarations only, one per routine of the routines module, spelled from the
 * calling convention in src/port/rewrite.ts's file comment: what the calls must type-check
 * against. It is a test double for the rewrite, never written by the command.
 */
async function declarations(mod: ParsedModule): Promise<string> {
  const lines = collectRoutines(mod).map((r) => {
    const f = r.spec.form;
    const w = formWrites(f);
    const params = sourcesOf(f)
      .filter((s) => r.spec.kinds[s]?.kind !== "imm")
      .map((s) => `${s === "a" && f.op === "match" && f.type === "b64" ? "unsigned long long" : "unsigned int"} ${s}`);
    if (w.p) params.push("bool *p");
    return `__device__ ${w.d ? "unsigned int" : "void"} ${r.name}(${params.join(", ")});`;
  });
  return `// declarations for test/port.test.ts\n${lines.join("\n")}\n`;
}

const port = (file: string, headerName = `${basename(file).replace(/\.[^.]*$/, "")}.hip.h`) => portSource(read(file), file.startsWith(ROOT) ? file.slice(ROOT.length + 1) : file, { header: declarations, headerName });
const status = (r: PortResult) => r.statements.map((s) => `${s.loc.line}:${s.loc.col} ${s.status}${s.status === "rewritten" ? ` ${s.calls.join(" ")}` : `: ${s.reasons[0]!.loc.line}:${s.reasons[0]!.loc.col}: ${s.reasons[0]!.message}`}`);
/** PTX text of a family instruction in an asm template. */
const PTX_TEXT = /\b(szext|vsh[lr]|match)\.[a-z0-9]+/;

describe("scanner", () => {
  it("finds asm statements with their keyword, qualifiers, operands and precise locations; skips comments, strings, raw strings, chars", () => {
    const src = [
      "// asm(\"szext.clamp.s32 %0, %1, %2;\") in a comment",
      "/* asm(\"x\")",
      "   still a comment */ const char *s = \"asm(\\\"y\\\")\"; char q = '\"'; int n = 1'000;",
      "const char *r = R\"d(asm(\"z\" : : ))d\";",
      "void f() {",
      "\tint d; __asm__ __volatile__ (\"szext.wrap.\"",
      "      \"s32 %0, %[a], %2;\" : \"=r\"(d) : [a] \"r\"(x), \"n\"(3) : \"memory\");",
      "  asm inline volatile(\"trap;\");",
      "  if (c) asm(\"exit;\" ::: \"memory\");",
      "}",
      "extern int g asm(\"h\");",
      "int k(int) asm(\"kk\");",
    ].join("\n");
    const scan = scanSource(src, "x.cu");
    expect(scan.statements.map((s) => [s.keyword, s.qualifiers.join(" "), `${s.loc.line}:${s.loc.col}`, s.template, s.basic])).toEqual([
      ["__asm__", "__volatile__", "6:9", "szext.wrap.s32 %0, %[a], %2;", false],
      ["asm", "inline volatile", "8:3", "trap;", true],
      ["asm", "", "9:10", "exit;", false],
    ]);
    const [st] = scan.statements;
    expect(st!.outputs.map((o) => [o.name, o.constraint, o.expr])).toEqual([[null, "=r", "d"]]);
    expect(st!.inputs.map((o) => [o.name, o.constraint, o.expr])).toEqual([["a", "r", "x"], [null, "n", "3"]]);
    expect(st!.clobbers).toEqual(["memory"]);
    // The template's characters map back to the two string literals.
    const loc = (i: number) => scan.source.locOfOrig(st!.templateAt[i]!);
    expect(loc(0)).toMatchObject({ line: 6, col: 32 });
    expect(loc(st!.template.indexOf("%0"))).toMatchObject({ line: 7, col: 12 });
    expect(scan.statements[2]!.outputs).toEqual([]);
    expect(scan.statements[2]!.clobbers).toEqual(["memory"]);
  });

  it("reads #define bodies with line continuations, and the macro's uses", () => {
    const src = ["#define Z(d, a, N) \\", "  asm(\"szext.clamp.u32 %0, %1, %2;\" \\", "      : \"=r\"(d) : \"r\"(a), \"n\"(N))", "void f() { Z(x, y, 8); Z(x, (y + 1), K); }", "#undef Z", "void g() { Z(1, 2, 3); }"].join("\n");
    const scan = scanSource(src, "m.cu");
    expect(scan.macros.map((m) => [m.name, m.params])).toEqual([["Z", ["d", "a", "N"]]]);
    expect(scan.statements).toHaveLength(1);
    expect(scan.statements[0]!.macro).toBe(0);
    expect(scan.statements[0]!.loc).toMatchObject({ line: 2, col: 3 });
    expect(scan.statements[0]!.inputs.map((o) => o.expr)).toEqual(["a", "N"]);
  });

  it("evaluates C integer constant expressions for \"n\" operands, and refuses anything else", () => {
    const ev = (s: string) => evalConst(scanSource(`x(${s})`, "e.c").tokens.slice(2, -1));
    expect(ev("12")).toBe(12n);
    expect(ev("0x80u")).toBe(128n);
    expect(ev("010")).toBe(8n);
    expect(ev("0b101")).toBe(5n);
    expect(ev("1'000")).toBe(1000n);
    expect(ev("-1")).toBe(-1n);
    expect(ev("(1 << 5) | 3")).toBe(35n);
    expect(ev("~0u & 0xff")).toBe(255n);
    expect(ev("2 + 3 * 4")).toBe(14n);
    expect(ev("'A'")).toBe(65n);
    expect(ev("K")).toBeNull();
    expect(ev("sizeof(int)")).toBeNull();
    expect(ev("1 && 2")).toBeNull();
    expect(ev("4 / 0")).toBeNull();
  });
});

describe("port: real inputs", () => {
  it("examples/bitfields.cu: every asm statement is rewritten, with registers and immediates folded by name", async () => {
    const r = await port(join(ROOT, "examples", "bitfields.cu"));
    expect(r.statements).toHaveLength(10);
    expect(r.statements.every((s) => s.status === "rewritten")).toBe(true);
    // The immediates of decode_fixed, folded as the routine contract names them.
    expect(r.routines).toEqual([
      "szext_clamp_s32__v_v",
      "szext_wrap_s32__v_v",
      "szext_clamp_u32__v_v",
      "szext_wrap_u32__v_v",
      "szext_clamp_s32__v_imm12",
      "szext_wrap_s32__v_imm40",
      "szext_clamp_u32__v_imm32",
      "szext_wrap_u32__v_imm0",
      "szext_clamp_s32__imm128_v",
      "szext_wrap_u32__imm0xffffffff_imm7",
    ]);
    expect(r.text).toContain('#if defined(__HIP__) /* ptx-lower port */\n#include "bitfields.hip.h"\n#endif /* ptx-lower port */\n#include <cstdint>');
    expect(r.text).toContain("  g = szext_wrap_u32__imm0xffffffff_imm7();\n");
    expect(r.callers.get("szext_wrap_u32__imm0xffffffff_imm7")).toEqual([{ file: "examples/bitfields.cu", line: 48, col: 8 }]);
    await expect(r.text).toMatchFileSnapshot("./port/golden/bitfields.cu");
  });

  it("examples/warp_match.cu: the three video asm statements are rewritten; the __match_*_sync / __activemask calls become the drop-ins' names, whose instructions join the routines module", async () => {
    const r = await port(join(ROOT, "examples", "warp_match.cu"));
    expect(status(r)).toEqual([
      "26:3 rewritten vshl_u32_u32_clamp_add__v_v_v",
      "27:3 rewritten vshr_s32_s32_wrap_ah1_bb0__v_v",
      "28:3 rewritten vshl_u32_u32_sat_clamp_db2__v_v_v",
    ]);
    expect(r.intrinsics.map((c) => `${c.loc.line}:${c.loc.col}-${c.end.line}:${c.end.col} ${c.name} ${c.kind} ${c.status} ${c.to} [${c.reasons.map((x) => x.message).join("; ")}]`)).toEqual([
      "8:20-8:54 __match_any_sync warp rewritten ptxl_match_any_sync []",
      "8:37-8:50 __activemask warp rewritten ptxl_activemask []",
      "12:18-12:61 __match_all_sync warp rewritten ptxl_match_all_sync []",
      "19:12-19:46 __match_any_sync warp rewritten ptxl_match_any_sync []",
    ]);
    // The calls' lines, with only the names changed; the CUDA side names each drop-in after its intrinsic.
    const lines = read(join(ROOT, "examples", "warp_match.cu")).split("\n");
    for (const line of [8, 12, 19]) expect(r.text).toContain(lines[line - 1]!.replace(/\b__(match_any_sync|match_all_sync|activemask)\(/g, "ptxl_$1("));
    expect(r.text.split("\n").slice(1, 8)).toEqual(['#if defined(__HIP__) /* ptx-lower port */', '#include "warp_match.hip.h"', "#else", "#define ptxl_match_any_sync __match_any_sync", "#define ptxl_activemask __activemask", "#define ptxl_match_all_sync __match_all_sync", "#endif /* ptx-lower port */"]);
    // The asm's routines, then the instructions CUDA's headers compile the intrinsics to (sm_70_rt.hpp: both widths).
    expect(collectRoutines(r.routinesModule!).map((x) => x.name)).toEqual([
      "vshl_u32_u32_clamp_add__v_v_v",
      "vshr_s32_s32_wrap_ah1_bb0__v_v",
      "vshl_u32_u32_sat_clamp_db2__v_v_v",
      "match_any_sync_b32__v_v",
      "match_any_sync_b64__v_v",
      "activemask_b32__",
      "match_all_sync_b32_dp__v_v",
      "match_all_sync_b64_dp__v_v",
    ]);
    expect(r.routines).toEqual(["vshl_u32_u32_clamp_add__v_v_v", "vshr_s32_s32_wrap_ah1_bb0__v_v", "vshl_u32_u32_sat_clamp_db2__v_v_v"]);
    await expect(r.text).toMatchFileSnapshot("./port/golden/warp_match.cu");
  });

  it("../shared/cuda/c14_warp_reduce_scan.cu: every CUDA warp intrinsic call renamed to its drop-in, the cooperative_groups calls left and reported", async () => {
    const C14 = join(ROOT, "..", "shared", "cuda", "c14_warp_reduce_scan.cu");
    const r = await portSource(read(C14), "c14_warp_reduce_scan.cu", { header: declarations, headerName: "c14_warp_reduce_scan.hip.h" });
    expect(r.statements).toEqual([]);
    const warp = r.intrinsics.filter((c) => c.kind === "warp");
    expect(warp.length).toBe(17);
    expect(warp.every((c) => c.status === "rewritten" && c.to === `ptxl_${c.name.slice(2)}`)).toBe(true);
    expect(r.intrinsics.filter((c) => c.kind === "cooperative_groups").map((c) => `${c.loc.line}:${c.loc.col}-${c.end.line}:${c.end.col} ${c.name} ${c.status}`)).toEqual(["44:12-44:58 cg::tiled_partition left", "45:22-45:68 cg::reduce left"]);
    // No CUDA warp intrinsic is called in the output any more (the #define lines of the CUDA side call nothing).
    expect(scanSource(r.text, "c14.hip").tokens.filter((t, k, all) => /^__(shfl|ballot|all|any|uni|reduce|match|activemask)\w*$/.test(t.text) && all[k + 1]?.text === "(")).toEqual([]);
    expect(r.text).toContain("auto t = cg::tiled_partition<8>(cg::this_thread_block());\n  out[threadIdx.x] = cg::reduce(t, in[threadIdx.x], cg::plus<int>());");
    await expect(r.text).toMatchFileSnapshot("./port/golden/c14_warp_reduce_scan.cu");
  });

  it("test/port/warp_asm.cu: warp-level asm (shfl.sync idx and up d|p, vote.sync.ballot, activemask, redux.sync, bar.warp.sync) is rewritten into the header's functions; a template with setp is left", async () => {
    const r = await port(join(PORT, "warp_asm.cu"));
    expect(status(r)).toEqual([
      "4:3 rewritten shfl_sync_idx_b32__v_v_v_v",
      "9:3 rewritten shfl_sync_up_b32_dp__v_imm1_imm0_imm0xffffffff",
      "12:55 rewritten vote_sync_ballot_b32__imm1_v",
      "13:40 rewritten activemask_b32__",
      "14:51 rewritten redux_sync_add_u32__v_imm0xffffffff",
      "15:30 rewritten bar_warp_sync__imm0xffffffff",
      "23:55 left: 23:76: 'setp.ne.u32' is not an instruction ptx-lower supports",
    ]);
    // d|p: p (a .pred temporary) is a bool local passed by address, as match.all's is.
    expect(r.text).toContain("    bool ptxl_t_p = false;\n    ptxl_0 = shfl_sync_up_b32_dp__v_imm1_imm0_imm0xffffffff(v, &ptxl_t_p);\n");
  });

  it("the issue's library patterns: CUB's SHR_ADD, tinybvh's byte-selected vshl, gpuowl's __asm szext, temporaries, warps, macros", async () => {
    const r = await port(join(PORT, "patterns.cu"));
    expect(status(r)).toEqual([
      "9:5 rewritten vshr_u32_u32_clamp_add__v_v_v",
      "19:9 rewritten vshl_u32_u32_wrap_add_ab0_bb0__v_v_v",
      "20:18 rewritten vshl_u32_u32_wrap_add_ab1_bb1__v_v_v",
      "28:19 rewritten szext_clamp_u32__v_v",
      "38:5 rewritten szext_wrap_s32__v_v",
      "43:5 rewritten vshl_u32_u32_clamp_add__v_v_v",
      "51:5 rewritten szext_clamp_u32__v_imm12 vshl_u32_u32_clamp_add__v_v_v",
      "65:5 rewritten match_any_sync_b32__v_imm0xffffffff",
      "66:5 rewritten match_any_sync_b64__v_v",
      "67:5 rewritten match_all_sync_b32_dp__v_v szext_wrap_u32__v_imm8",
      "78:5 left: 78:31: 'mad.lo.s32' is not an instruction ptx-lower supports",
      "94:27 rewritten szext_clamp_s32__v_v",
      "96:5 rewritten szext_wrap_u32__v_v",
      '98:26 left: 108:5: inside a macro body: the use of SHIFT_N at 108:5 does not pass a literal for the "n" operand %2 (N)',
      "109:5 left: 109:18: the template is built from macro names ('MODE'), not only string literals",
    ]);
    const t = r.text;
    // `+r`: read and written; the predicate of match.all: a local through `bool *p`, the guard an if.
    expect(t).toContain("hit_mask = vshl_u32_u32_wrap_add_ab1_bb1__v_v_v(child_bits, bit_index, hit_mask);");
    expect(t).toContain("ptxl_t_m = match_all_sync_b32_dp__v_v(k, mask, &ptxl_t_same);\n      if (ptxl_t_same) ptxl_0 = szext_wrap_u32__v_imm8(ptxl_t_m);");
    // An input used twice that is no plain name is evaluated once.
    expect(t).toContain("unsigned int ptxl_1 = (v + 1);\n      ptxl_0 = vshl_u32_u32_clamp_add__v_v_v(ptxl_1, n, ptxl_1);");
    // A macro whose every use passes a literal is duplicated, the literal passed as a value.
    expect(t).toContain('#if defined(__HIP__) /* ptx-lower port */\n#define SEXT_IMM(d, a, N) (d) = szext_clamp_s32__v_v((a), (N))\n#else\n#define SEXT_IMM(d, a, N) asm(');
    // What is left is byte-identical: the mixed template's line and the not-rewritten macro.
    const src = read(join(PORT, "patterns.cu"));
    for (const line of [78, 98, 109]) expect(t).toContain(src.split("\n")[line - 1]!);
    await expect(t).toMatchFileSnapshot("./port/golden/patterns.cu");
  });

  it("GNU spellings (test/port/named.hip): %[name], asm inline, a matching constraint, ::: clobbers, an assembler name", async () => {
    const r = await port(join(PORT, "named.hip"));
    expect(status(r)).toEqual(["6:5 rewritten szext_wrap_s32__v_v", "7:5 rewritten szext_clamp_u32__v_v", "8:5 left: 8:20: 'membar.gl' is not an instruction ptx-lower supports"]);
    expect(r.text).toContain("unsigned int ptxl_0 = e;\n      ptxl_0 = szext_clamp_u32__v_v(ptxl_0, n);\n      e = ptxl_0;");
    await expect(r.text).toMatchFileSnapshot("./port/golden/named.hip");
  });

  it("the routines module holds exactly the functions called, by the names collectRoutines gives them", async () => {
    for (const f of [join(ROOT, "examples", "bitfields.cu"), join(PORT, "patterns.cu")]) {
      const r = await port(f);
      expect(collectRoutines(r.routinesModule!).map((x) => x.name)).toEqual(r.routines);
      expect([...r.callers.keys()]).toEqual(r.routines);
    }
  });

  it("a mixed template (one supported, one unsupported instruction) leaves the file byte-identical, reported with its location", async () => {
    const src = '__device__ unsigned f(unsigned a, unsigned b) {\n  unsigned d;\n  asm("szext.clamp.u32 %0, %1, %2;\\n\\tadd.u32 %0, %0, 1;" : "=r"(d) : "r"(a), "r"(b));\n  return d;\n}\n';
    let called = false;
    const r = await portSource(src, "m.cu", {
      header: async () => {
        called = true;
        return "";
      },
    });
    expect(r.text).toBe(src);
    expect(called).toBe(false);
    expect(r.header).toBeNull();
    expect(status(r)).toEqual(["3:3 left: 3:39: 'add.u32' is not an instruction ptx-lower supports"]);
  });

  it("reports what it cannot bind: special registers, writes to inputs, bad operand numbers, illegal forms (ptxas's message)", async () => {
    const cases: [string, string][] = [
      ['asm("szext.clamp.u32 %0, %%laneid, %1;" : "=r"(d) : "r"(b));', "Special register argument not allowed for instruction 'szext'"],
      ['asm("szext.clamp.u32 %1, %0, %0;" : : "r"(a), "r"(b));', "writes the input operand %1 (an input may not be changed by the asm)"],
      ['asm("szext.clamp.u32 %0, %1, %5;" : "=r"(d) : "r"(a));', "%5 names no operand (the statement has 2)"],
      ['asm("szext.clamp.u32 %0, %1, %2;" : "=r"(d) : "h"(a), "r"(b));', "Arguments mismatch for instruction 'szext'"],
      ['asm("szext.clamp.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "n"(K));', 'operand %2: the value of an "n" operand is not a literal: K'],
      ['CALL(asm("szext.clamp.u32 %0, %1, 1;" : "=r"(d) : "r"(a)));', "not a statement of its own"],
      ['asm goto("szext.clamp.u32 %0, %0, 1;" : : "r"(a) : : out);', "asm goto (jumps to C labels) is not rewritten"],
      ['asm("vshl.u32.u32.u32.clamp %0, %1.b0, %2;" : "=r"(d) : "n"(3), "r"(b));', "Parsing error near '.b0'"],
      // ptxas rejects the empty statement after the instruction (`Parsing error near ';': syntax error`).
      ['asm("szext.clamp.u32 %0, %1, 1;;" : "=r"(d) : "r"(a));', "Parsing error near ';': syntax error"],
    ];
    for (const [stmt, message] of cases) {
      const r = await portSource(`void f() { ${stmt} }\n`, "c.cu", { header: declarations });
      expect(r.statements.map((s) => [s.status, s.reasons.map((x) => x.message).join("; ")]), stmt).toEqual([["left", expect.stringContaining(message)]]);
      expect(r.text).toBe(`void f() { ${stmt} }\n`);
    }
  });

  // The library's portSource checks its arguments (src/api.ts): test/library_args.test.ts.

  it("layout: two statements on one line, CRLF line ends, a member named asm", async () => {
    const two = 'void f(unsigned a, unsigned b) {\n  unsigned x, y; asm("szext.clamp.u32 %0, %1, %2;" : "=r"(x) : "r"(a), "r"(b)); asm("szext.wrap.u32 %0, %1, 3;" : "=r"(y) : "r"(a)); g(x, y);\n}\n';
    const r = await portSource(two, "two.cu", { header: declarations, headerName: "two.hip.h" });
    expect(r.text).toBe(
      [
        "#if defined(__HIP__) /* ptx-lower port */",
        '#include "two.hip.h"',
        "#endif /* ptx-lower port */",
        "void f(unsigned a, unsigned b) {",
        "  unsigned x, y;",
        "#if defined(__HIP__) /* ptx-lower port */",
        "  x = szext_clamp_u32__v_v(a, b);",
        "#else",
        '  asm("szext.clamp.u32 %0, %1, %2;" : "=r"(x) : "r"(a), "r"(b));',
        "#endif /* ptx-lower port */",
        "#if defined(__HIP__) /* ptx-lower port */",
        "  y = szext_wrap_u32__v_imm3(a);",
        "#else",
        '  asm("szext.wrap.u32 %0, %1, 3;" : "=r"(y) : "r"(a));',
        "#endif /* ptx-lower port */",
        "  g(x, y);",
        "}",
        "",
      ].join("\n"),
    );
    const crlf = 'int f(unsigned a) {\r\n  int d;\r\n  asm("szext.clamp.s32 %0, %1, 4;" : "=r"(d) : "r"(a)); // four\r\n  return d;\r\n}\r\n';
    const c = await portSource(crlf, "crlf.cu", { header: declarations, headerName: "crlf.hip.h" });
    expect(c.text).toBe('#if defined(__HIP__) /* ptx-lower port */\r\n#include "crlf.hip.h"\r\n#endif /* ptx-lower port */\r\nint f(unsigned a) {\r\n  int d;\r\n#if defined(__HIP__) /* ptx-lower port */\r\n  d = szext_clamp_s32__v_imm4(a);\r\n#else\r\n  asm("szext.clamp.s32 %0, %1, 4;" : "=r"(d) : "r"(a)); // four\r\n#endif /* ptx-lower port */\r\n  return d;\r\n}\r\n');
    const after = '/* a comment that ends\n   here */ int f(unsigned a) { int d; asm("szext.clamp.s32 %0, %1, 4;" : "=r"(d) : "r"(a)); return d; }\n';
    expect((await portSource(after, "a.cu", { header: declarations, headerName: "a.hip.h" })).text.startsWith('/* a comment that ends\n   here */ \n#if defined(__HIP__) /* ptx-lower port */\n#include "a.hip.h"\n#endif /* ptx-lower port */\nint f(unsigned a) { int d;\n#if')).toBe(true);
    const member = 'void f() { obj.asm("szext.clamp.s32 %0, %1, 4;"); p->asm("x"); }\n';
    expect((await portSource(member, "m.cu", { header: declarations })).statements).toEqual([]);
  });

  it("never throws on mangled input (truncations, deletions, inserted quotes, braces, splices), and a left statement's text survives", async () => {
    const base = read(join(PORT, "patterns.cu"));
    const rng = new Rng(14);
    const junk = ['"', "'", "(", ")", "{", "}", "\\\n", "/*", "*/", "//", "#", ":", "::", "%", "R\"(", "asm(", "\0", "\u202e"];
    for (let k = 0; k < 300; k++) {
      let t = base;
      for (let m = 0; m < 1 + rng.below(4); m++) {
        const at = rng.below(t.length);
        const what = rng.below(3);
        t = what === 0 ? t.slice(0, at) : what === 1 ? t.slice(0, at) + t.slice(at + rng.below(40)) : t.slice(0, at) + junk[rng.below(junk.length)] + t.slice(at);
      }
      const r = await portSource(t, "fuzz.cu", { header: declarations });
      if (r.header === null) expect(r.text).toBe(t);
      for (const s of r.statements) expect(s.status === "rewritten" ? s.calls.length : s.reasons.length).toBeGreaterThan(0);
    }
  }, 60_000);

  it("a .cl source and a header are scanned the same way; nothing to rewrite means the input unchanged", async () => {
    const cl = "// OpenCL C: no asm here\n__kernel void k(__global int *p) { p[0] = 'a'; }\n";
    const r = await portSource(cl, "k.cl", { header: declarations });
    expect(r.text).toBe(cl);
    expect(r.statements).toEqual([]);
  });
});

describe("port: a fresh tester's findings (issue 14)", () => {
  /** Ports `void f() {\n  STMT\n  g();\n}\n`: the statements' status and first reason, and whether the text came back unchanged. */
  const one = async (stmt: string) => {
    const src = `void f() {\n  ${stmt}\n  g();\n}\n`;
    const r = await portSource(src, "m.cu", { header: declarations });
    return { status: status(r), same: r.text === src };
  };

  it("a malformed asm statement is left byte-identical and reported with where and why (GCC would reject it)", async () => {
    const cases: [string, string][] = [
      ['asm("szext.clamp.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b);', "2:6: malformed asm statement: unbalanced parentheses: this '(' is not closed before the ';' at 2:63"],
      ['asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d)) : "r"(a));', "2:45: malformed asm statement: unbalanced parentheses: this ')' ends the asm before the ':' at 2:47"],
      ['asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d) : "r"(a] );', "2:53: malformed asm statement: unbalanced brackets: ']' where a ')' must close the '(' at 2:51"],
      ['asm("szext.clamp.u32 %0, %1, 4;\n    : "=r"(d) : "r"(a));', "2:7: malformed asm statement: an unterminated string literal (no closing quote on its line)"],
      ['asm("szext.clamp.u32 %0, %1, %2;" : "=r"(d) "r"(a), "r"(b));', `2:47: malformed asm statement: operand %0: "r" after its (expression) (a missing ',' or ':'?)`],
      ['asm("szext.clamp.u32 %0, %1, 4;" "=r"(d) : "r"(a));', "2:40: malformed asm statement: '(' after the template's string literal, where ':' or ')' must come (a missing ':'?)"],
      ['asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d) : 42);', `2:48: malformed asm statement: operand %1: expected [name] "constraint" (expression), found '42'`],
      ['asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d) : "r");', '2:48: malformed asm statement: operand %1: expected (expression) after the constraint "r"'],
      ['asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d) : "r"(a), );', "2:54: malformed asm statement: a ',' with no operand after it"],
      ['asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d) : "r"(a) : memory);', "2:57: malformed asm statement: the clobber list: expected a string literal, found 'memory'"],
      ['asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d) : "r"(a) : : : x);', "2:59: malformed asm statement: more than four ':' (outputs : inputs : clobbers : goto labels)"],
      ['asm( : "=r"(d));', "2:8: malformed asm statement: no template: a string literal must come before ':'"],
      ["asm(42 : );", "2:7: malformed asm statement: the template is not a string literal: found '42'"],
      ["__asm__ volatile;", "2:19: malformed asm statement: expected '(' after '__asm__ volatile', found ';'"],
    ];
    for (const [stmt, reason] of cases) expect(await one(stmt), stmt).toEqual({ status: [`2:3 left: ${reason}`], same: true });
    // Not malformed: a constraint built from a macro name (CUDA's sm_32_intrinsics.hpp), left for that reason.
    expect(await one('asm("ld.global.nc.u32 %0, [%1];" : "=r"(ret) : __LDG_PTR(ptr));')).toEqual({
      status: ["2:3 left: 2:50: operand %1: the constraint is built from macro names ('__LDG_PTR'), not only string literals"],
      same: true,
    });
    // Not malformed either: a parameter stringized into the template in a #define body (`#k`).
    const strz = '#define WSHFL(out, in, k) asm volatile("shfl.sync.bfly.b32 %0, %1, " #k ", 0x1f, 0xffffffff;" : "=r"(out) : "r"(in))\n';
    expect(status(await portSource(strz, "s.cu", { header: declarations }))).toEqual(["1:27 left: 1:27: inside a macro body: the statement is built from WSHFL's parameters (k), and WSHFL is never used in this file"]);
    // The statement after an unclosed one is still found and rewritten.
    const src = 'void f() {\n  asm("szext.clamp.u32 %0, %1, 4;" : "=r"(d) : "r"(a);\n  asm("szext.wrap.u32 %0, %1, 4;" : "=r"(e) : "r"(a));\n}\n';
    expect(status(await portSource(src, "m.cu", { header: declarations }))).toEqual(["2:3 left: 2:6: malformed asm statement: unbalanced parentheses: this '(' is not closed before the ';' at 2:54", "3:3 rewritten szext_wrap_u32__v_imm4"]);
    // In a #define body: the keyword alone is reported, the macro left.
    const mac = "#define ASM __asm__ __volatile__\nvoid f() { int x; }\n";
    const m = await portSource(mac, "d.cu", { header: declarations });
    expect(status(m)).toEqual(["1:13 left: 1:13: inside a macro body: malformed asm statement: '__asm__ __volatile__' ends the #define body: the statement is completed where the macro is used, which is not rewritten"]);
    expect(m.text).toBe(mac);
  });

  it("an immediate wider than 64 bits, or than its operand, is reported, not truncated; one that fits (also read signed) is rewritten", async () => {
    const left: [string, string][] = [
      ['asm("szext.clamp.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "n"(0x1ffffffffffffffff));', '2:57: operand %2: the "n" value 36893488147419103231 is wider than 64 bits (it would be truncated)'],
      ['asm("szext.clamp.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "n"(0x100000000));', "2:32: the immediate 4294967296 does not fit its operand (it would be truncated to 0x0)"],
      ['asm("szext.clamp.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "n"(-2147483649));', "2:32: the immediate -2147483649 does not fit its operand (it would be truncated to 0x7fffffff)"],
      ['asm("szext.clamp.u32 %0, %1, 0x1ffffffffffffffff;" : "=r"(d) : "r"(a));', "2:32: the immediate 0x1ffffffffffffffff is wider than 64 bits (it would be truncated)"],
      ['asm("szext.clamp.u32 %0, 4294967296, %1;" : "=r"(d) : "r"(a));', "2:28: the immediate 4294967296 does not fit its operand (it would be truncated to 0x0)"],
      ['asm("match.any.sync.b32 %0, %1, 0x1ffffffff;" : "=r"(d) : "r"(a));', "2:35: the immediate 0x1ffffffff does not fit its operand (it would be truncated to 0xffffffff)"],
      ['asm("match.any.sync.b64 %0, -9223372036854775809, %1;" : "=r"(d) : "r"(a));', "2:31: the immediate -9223372036854775809 is wider than 64 bits (it would be truncated)"],
    ];
    for (const [stmt, reason] of left) expect(await one(stmt), stmt).toEqual({ status: [`2:3 left: ${reason}`], same: true });
    const fits: [string, string][] = [
      ['asm("szext.clamp.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "n"(-1));', "szext_clamp_u32__v_imm0xffffffff"],
      ['asm("szext.clamp.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "n"(-2147483648));', "szext_clamp_u32__v_imm0x80000000"],
      ['asm("szext.clamp.u32 %0, %1, 0xffffffff;" : "=r"(d) : "r"(a));', "szext_clamp_u32__v_imm0xffffffff"],
      ['asm("match.any.sync.b64 %0, 0xffffffffffffffff, %1;" : "=r"(d) : "r"(a));', "match_any_sync_b64__imm0xffffffffffffffff_v"],
      ['asm("match.any.sync.b64 %0, -1, %1;" : "=r"(d) : "r"(a));', "match_any_sync_b64__imm0xffffffffffffffff_v"],
    ];
    for (const [stmt, fn] of fits) expect((await one(stmt)).status, stmt).toEqual([`2:3 rewritten ${fn}`]);
  });

  it("an \"=r\" output the template reads before writing it, and an input it writes, are reported; a \"+r\", a matching input or an earlier write gives the value", async () => {
    const left: [string, string][] = [
      ['asm("szext.clamp.u32 %0, %0, %1;" : "=r"(d) : "r"(b));', '2:8: reads the output operand %0 before the template writes it: an "=r" operand holds no value on entry (GNU asm); "+r" passes the C value in'],
      ['asm("{ .reg .pred p; .reg .b32 m; match.all.sync.b32 m|p, %1, 0xffffffff; @p szext.clamp.u32 %0, %1, 4; szext.wrap.u32 %0, %0, 3; }" : "=r"(d) : "r"(b));', '2:107: reads the output operand %0 before the template writes it: an "=r" operand holds no value on entry (GNU asm); "+r" passes the C value in'],
      ['asm("szext.clamp.u32 %1, %0, %0;" : : "r"(a), "r"(b));', "2:8: writes the input operand %1 (an input may not be changed by the asm)"],
      ['asm("szext.clamp.u32 %0, %1, 3;\\n\\tszext.wrap.u32 %1, %0, 4;" : "=r"(d) : "r"(b));', "2:38: writes the input operand %1 (an input may not be changed by the asm)"],
    ];
    for (const [stmt, reason] of left) expect(await one(stmt), stmt).toEqual({ status: [`2:3 left: ${reason}`], same: true });
    for (const stmt of [
      'asm("szext.clamp.u32 %0, %0, %1;" : "+r"(d) : "r"(b));',
      'asm("szext.clamp.u32 %0, %0, %2;" : "=r"(d) : "0"(a), "r"(b));',
      'asm("szext.clamp.u32 %0, %1, 4;\\n\\tszext.wrap.u32 %0, %0, %1;" : "=r"(d) : "r"(b));',
    ])
      expect((await one(stmt)).status[0], stmt).toMatch(/^2:3 rewritten /);
  });

  it("an asm in a group the preprocessor surely skips (#if 0, the #else of #if 1, nested) is left alone and not counted", async () => {
    const stmt = (d: string) => `  asm("szext.clamp.u32 %0, %1, 4;" : "=r"(${d}) : "r"(a));`;
    const src = [
      "void f(unsigned a) {",
      "  unsigned d, e, g, h;",
      "#if 0",
      stmt("d"),
      "#if defined(X)",
      stmt("d"),
      "#else",
      stmt("d"),
      "#endif",
      "#define Z asm(\"szext.clamp.u32 %0, %1, 4;\" : \"=r\"(d) : \"r\"(a))",
      "#elif defined(Y)",
      stmt("e"),
      "#else",
      stmt("g"),
      "#endif",
      "#if (1)",
      stmt("h"),
      "#elif X",
      stmt("h"),
      "#else",
      stmt("h"),
      "#endif",
      "#if 0 // off",
      stmt("h"),
      "#endif",
      "}",
      "",
    ].join("\n");
    const r = await portSource(src, "if0.cu", { header: declarations });
    expect(status(r)).toEqual(["12:3 rewritten szext_clamp_u32__v_imm4", "14:3 rewritten szext_clamp_u32__v_imm4", "17:3 rewritten szext_clamp_u32__v_imm4"]);
    const lines = r.text.split("\n");
    // The skipped statements are in the output as they were, outside any #if defined(__HIP__).
    expect(lines.filter((l) => l === stmt("d"))).toHaveLength(3);
    expect(r.text).toContain("#if 0\n" + stmt("d") + "\n#if defined(X)\n" + stmt("d") + "\n#else\n" + stmt("d") + "\n#endif\n#define Z asm(");
    expect(r.text).toContain("#elif X\n" + stmt("h") + "\n#else\n" + stmt("h") + "\n#endif\n#if 0 // off\n" + stmt("h") + "\n#endif\n}\n");
  });
});

// ---------------------------------------------------------------------------------------

const NVCC = ["/usr/local/bin/nvcc", "/usr/local/cuda/bin/nvcc"].find((p) => existsSync(p));
const CLANG = spawnSync("clang-19", ["--version"]).status === 0 ? "clang-19" : null;
const HIP_HEADERS = existsSync("/usr/include/hip/hip_runtime.h");
const GOLDENS = ["bitfields.cu", "warp_match.cu", "patterns.cu", "c14_warp_reduce_scan.cu"];

const LLD = spawnSync("ld.lld-19", ["--version"]).status === 0;
const OCKL_DIR = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";
const OCKL = existsSync(join(OCKL_DIR, "ockl.bc")) ? OCKL_DIR : null;

describe("the ported files compile", () => {
  it.skipIf(!NVCC)(`with nvcc -arch=sm_90 -c, as .cu (the original asm in the #else branch)${NVCC ? "" : " (skipped: no nvcc at /usr/local/bin/nvcc or /usr/local/cuda/bin/nvcc)"}`, () => {
    const dir = tmp();
    for (const g of GOLDENS) {
      const r = spawnSync(NVCC!, ["-arch=sm_90", "-c", join(PORT, "golden", g), "-o", join(dir, `${g}.o`)], { encoding: "utf8" });
      expect(r.status, `${g}: ${r.stderr}`).toBe(0);
    }
  }, 240_000);

  it.skipIf(!NVCC)(`for nvcc the ported files mean what the originals meant: the same PTX (nvcc -arch=sm_90 -ptx; the drop-ins are CUDA's intrinsics there)${NVCC ? "" : " (skipped: no nvcc)"}`, () => {
    const inputs: [string, string][] = [
      [join(ROOT, "examples", "warp_match.cu"), "warp_match.cu"],
      [join(ROOT, "..", "shared", "cuda", "c14_warp_reduce_scan.cu"), "c14_warp_reduce_scan.cu"],
    ];
    for (const [orig, golden] of inputs) {
      const ptx = (src: string) => {
        const dir = tmp();
        // Same file name: nvcc's internal symbols are named after it (and a hash of the text, normalized below).
        writeFileSync(join(dir, golden), read(src));
        const r = spawnSync(NVCC!, ["-arch=sm_90", "-ptx", golden, "-o", "x.ptx"], { cwd: dir, encoding: "utf8" });
        expect(r.status, `${golden}: ${r.stderr}`).toBe(0);
        return read(join(dir, "x.ptx")).replace(/(_INTERNAL_|_GLOBAL__N__)[0-9a-f]{8}_/g, "$1");
      };
      expect(ptx(join(PORT, "golden", golden)), golden).toBe(ptx(orig));
    }
  }, 240_000);

  it.skipIf(!CLANG || !HIP_HEADERS)(
    `as HIP (clang-19 -x hip --cuda-device-only -fsyntax-only, declarations from the calling convention) with no PTX text left${CLANG && HIP_HEADERS ? "" : " (skipped: clang-19 or /usr/include/hip/hip_runtime.h missing)"}`,
    async () => {
      const dir = tmp();
      for (const f of [join(ROOT, "examples", "bitfields.cu"), join(ROOT, "examples", "warp_match.cu"), join(PORT, "patterns.cu"), join(PORT, "named.hip")]) {
        const stem = basename(f).replace(/\.[^.]*$/, "");
        const r = await port(f);
        writeFileSync(join(dir, `${stem}.hip.h`), r.header!);
        writeFileSync(join(dir, `${stem}.hip`), r.text);
        // What the HIP compiler sees (after the preprocessor) has no PTX, except the statements left.
        const pre = spawnSync(CLANG!, ["-E", "-P", "-x", "c++", "-D__HIP__", "-D__device__=", "-D__global__=", "-D__forceinline__=", `${stem}.hip`], { cwd: dir, encoding: "utf8" });
        expect(pre.status, pre.stderr).toBe(0);
        const leftover = scanSource(pre.stdout, `${stem}.i`).statements.filter((s) => PTX_TEXT.test(s.template)).map((s) => s.template);
        // patterns.cu: the mixed template, SHIFT_N's two uses, the template built from MODE.
        expect(leftover.length, leftover.join("\n")).toBe(stem === "patterns" ? 4 : 0);
        if (stem === "warp_match") continue; // its warp intrinsics now call the drop-ins, which only the real header has (the test after next)
        const cc = spawnSync(CLANG!, ["-x", "hip", "--cuda-device-only", "--offload-arch=gfx942", "-nogpulib", "-fsyntax-only", "-include", "hip/hip_runtime.h", `${stem}.hip`], { cwd: dir, encoding: "utf8" });
        expect(cc.status, `${stem}: ${cc.stderr}`).toBe(0);
      }
    },
    120_000,
  );

  it.skipIf(!CLANG || !HIP_HEADERS)(
    "../shared/cuda/c14_warp_reduce_scan.cu ported, with Debian's HIP 5.2: what is missing is cooperative_groups (CUDA's header names; cg::reduce, cg::plus); the rest compiles for every processor",
    () => {
      const dir = tmp();
      const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bin", "ptx-lower.ts"), "port", join(ROOT, "..", "shared", "cuda", "c14_warp_reduce_scan.cu"), "-o", join(dir, "c14.hip")], { cwd: ROOT, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
      const cc = (file: string, mcpu = "gfx942") => spawnSync("clang-19", ["-x", "hip", "--cuda-device-only", `--offload-arch=${mcpu}`, "-nogpulib", "-O2", "-include", "hip/hip_runtime.h", "-S", file, "-o", join(dir, `${file}.${mcpu}.s`)], { cwd: dir, encoding: "utf8" });
      const errors = (x: ReturnType<typeof cc>) => x.stderr.split("\n").filter((l) => / error: /.test(l)).map((l) => l.replace(/^[^ ]+ /, ""));
      expect(errors(cc("c14.hip"))).toEqual(["fatal error: 'cooperative_groups.h' file not found"]);
      // With HIP's own cooperative_groups header instead: HIP 5.2 has tiled_partition<8>, but no reduce (nor plus).
      const text = readFileSync(join(dir, "c14.hip"), "utf8");
      writeFileSync(join(dir, "hipcg.hip"), text.replace("#include <cooperative_groups.h>", "#include <hip/hip_cooperative_groups.h>").replace("#include <cooperative_groups/reduce.h>\n", ""));
      expect(errors(cc("hipcg.hip"))).toEqual(["error: no template named 'plus' in namespace 'cooperative_groups'; did you mean 'std::plus'?", "error: no member named 'reduce' in namespace 'cooperative_groups'"]);
      // Without the tile-8 cg::reduce kernel, every warp intrinsic (now a drop-in) compiles and assembles.
      const k = text.indexOf('extern "C" __global__ void tile8_reduce');
      const rest = text.slice(0, k) + text.slice(text.indexOf('extern "C" __global__ void leader_broadcast'));
      writeFileSync(join(dir, "nocg.hip"), rest.replace(/#include <cooperative_groups[^\n]*\n/g, "").replace("namespace cg = cooperative_groups;\n", ""));
      for (const mcpu of ["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100"]) {
        const c = cc("nocg.hip", mcpu);
        expect(c.status, `${mcpu}: ${c.stderr}`).toBe(0);
        const mc = spawnSync("llvm-mc-19", ["-triple=amdgcn-amd-amdhsa", `-mcpu=${mcpu}`, "-filetype=obj", join(dir, `nocg.hip.${mcpu}.s`), "-o", join(dir, `nocg.${mcpu}.o`)], { encoding: "utf8" });
        expect(mc.status, `${mcpu}: ${mc.stderr}`).toBe(0);
      }
    },
    240_000,
  );

  it("-o a device (/dev/null): refused, nothing written beside it", () => {
    const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bin", "ptx-lower.ts"), "port", join(ROOT, "examples", "bitfields.cu"), "-o", "/dev/null"], { cwd: ROOT, encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^ptx-lower: error: -o \/dev\/null: not a regular file;/);
    expect(existsSync("/dev/null.hip.h")).toBe(false);
  });

  it.skipIf(!CLANG || !HIP_HEADERS)(
    "with the real header (targets/hip): clang-19 -x hip -S for every processor, llvm-mc-19 assembles it (bitfields.cu; warp_match.cu, its warp intrinsics through the drop-ins; warp_asm.cu)",
    () => {
      for (const example of [join(ROOT, "examples", "bitfields.cu"), join(ROOT, "examples", "warp_match.cu"), join(PORT, "warp_asm.cu")]) {
        const dir = tmp();
        const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bin", "ptx-lower.ts"), "port", example, "-o", join(dir, "X.hip")], { cwd: ROOT, encoding: "utf8" });
        expect(r.status, r.stderr).toBe(0);
        expect(readdirSync(dir).sort()).toEqual(["X.hip", "X.hip.h"]);
        for (const mcpu of ["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100"]) {
          const s = join(dir, `X.${mcpu}.s`);
          const cc = spawnSync("clang-19", ["-x", "hip", "--cuda-device-only", `--offload-arch=${mcpu}`, "-nogpulib", "-O2", "-DPORT_TEST_REWRITTEN_ONLY", "-include", "hip/hip_runtime.h", "-S", "X.hip", "-o", s], { cwd: dir, encoding: "utf8" });
          expect(cc.status, `${mcpu}: ${cc.stderr}`).toBe(0);
          const mc = spawnSync("llvm-mc-19", ["-triple=amdgcn-amd-amdhsa", `-mcpu=${mcpu}`, "-filetype=obj", s, "-o", join(dir, `X.${mcpu}.o`)], { encoding: "utf8" });
          expect(mc.status, `${mcpu}: ${mc.stderr}`).toBe(0);
          // No PTX text reached the assembly.
          expect(readFileSync(s, "utf8")).not.toMatch(/szext|vsh[lr]\.|match\.(any|all)|shfl\.sync|redux\.sync|activemask\.b32|vote\.sync/);
          // -c (clang links the code object with lld). The example kernel's blockIdx/threadIdx
          // come from ROCm's device library (__ockl_get_group_id): with -nogpulib it is linked
          // from Debian's rocm-device-libs bitcode (ockl, oclc_abi_version_500), which has no
          // oclc_isa_version for gfx942/gfx1100, hence not through --rocm-device-lib-path.
          // (once: bitfields.cu; the other examples link the same way)
          if (LLD && OCKL && example.endsWith("bitfields.cu")) {
            const bc = ["ockl.bc", "oclc_abi_version_500.bc"].flatMap((f) => ["-Xclang", "-mlink-builtin-bitcode", "-Xclang", join(OCKL, f)]);
            const co = spawnSync("clang-19", ["-x", "hip", "--cuda-device-only", `--offload-arch=${mcpu}`, "-nogpulib", "-O2", "-DPORT_TEST_REWRITTEN_ONLY", "-include", "hip/hip_runtime.h", ...bc, "-c", "X.hip", "-o", `X.${mcpu}.co`], { cwd: dir, encoding: "utf8" });
            expect(co.status, `${mcpu} -c: ${co.stderr}`).toBe(0);
            // A clang offload bundle holding the linked AMDGPU code object (an ELF).
            expect(readFileSync(join(dir, `X.${mcpu}.co`)).includes(Buffer.from("\x7fELF", "latin1"))).toBe(true);
          } else if (mcpu === "gfx900" && !(LLD && OCKL)) console.log(`-c skipped: ${!LLD ? "ld.lld-19" : "rocm-device-libs (/usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ockl.bc)"} is not installed`);
        }
      }
    },
    240_000,
  );
});

// ---------------------------------------------------------------------------------------

const GXX = spawnSync("g++", ["--version"]).status === 0;

/**
 * Bindings, run: each case is an asm statement over `unsigned` variables o0…o3 and, written
 * by hand beside it, the same computation as PTX over registers named after those variables
 * (`%o0`…, `%t`), which the project's parser reads and the reference semantics run (sm90
 * profile). The ported statement is compiled with g++ as the HIP branch (`-D__HIP__`), its
 * header functions from the C target of the routines module (sm90), and run on seeded inputs.
 */
const BINDINGS: { asm: string; ptx: string }[] = [
  { asm: 'asm("szext.clamp.s32 %0, %1, %2;" : "=r"(o0) : "r"(o1), "r"(o2));', ptx: "szext.clamp.s32 %o0, %o1, %o2;" },
  { asm: 'asm("vshl.u32.u32.u32.wrap.add %0, %1.b0, %2.b0, %3;" : "=r"(o0) : "r"(o1), "r"(o2), "r"(o0));', ptx: "vshl.u32.u32.u32.wrap.add %o0, %o1.b0, %o2.b0, %o0;" },
  { asm: 'asm volatile("vshl.u32.u32.u32.wrap.add %0, %1.b1, %2.b1, %0;" : "+r"(o0) : "r"(o1), "r"(o2));', ptx: "vshl.u32.u32.u32.wrap.add %o0, %o1.b1, %o2.b1, %o0;" },
  { asm: 'asm("vshr.s32.s32.u32.clamp.min %0, %2, %1, %1;" : "=r"(o0) : "r"(o1), "r"(o2));', ptx: "vshr.s32.s32.u32.clamp.min %o0, %o2, %o1, %o1;" },
  {
    asm: 'asm("{ .reg .b32 t; szext.wrap.u32 t, %1, %3; vshl.u32.u32.u32.clamp.add %0, t, %2, t; }" : "=r"(o0) : "r"(o1), "r"(o2), "n"(12));',
    ptx: "szext.wrap.u32 %t, %o1, 12; vshl.u32.u32.u32.clamp.add %o0, %t, %o2, %t;",
  },
  { asm: 'asm("szext.clamp.u32 %0, %1, 8;\\n\\tvshr.u32.u32.u32.wrap %0, %0, %2;" : "=r"(o0) : "r"(o1), "r"(o2));', ptx: "szext.clamp.u32 %o0, %o1, 8; vshr.u32.u32.u32.wrap %o0, %o0, %o2;" },
  { asm: 'asm("szext.clamp.s32 %0, %2, %3; szext.wrap.u32 %1, %3, %2;" : "=r"(o0), "=r"(o1) : "r"(o2), "r"(o3));', ptx: "szext.clamp.s32 %o0, %o2, %o3; szext.wrap.u32 %o1, %o3, %o2;" },
  { asm: 'asm("szext.clamp.u32 %0, %0, %2;" : "=r"(o0) : "0"(o1), "r"(o2));', ptx: "szext.clamp.u32 %o0, %o1, %o2;" },
  { asm: 'asm("vshl.u32.u32.u32.sat.clamp %0.b2, %1, %2, %3;" : "=r"(o0) : "r"(o1), "r"(o2), "r"(o3));', ptx: "vshl.u32.u32.u32.sat.clamp %o0.b2, %o1, %o2, %o3;" },
  { asm: 'asm("szext.clamp.s32 %0, 0x80, %1;" : "=r"(o0) : "r"(o1));', ptx: "szext.clamp.s32 %o0, 0x80, %o1;" },
  { asm: 'asm("vshl.u32.s32.u32.sat.wrap.max %0, %1.h1, %2, %1;" : "=r"(o3) : "r"(o1 ^ o2), "r"(o0 + 1u));', ptx: "xor.b32 %x, %o1, %o2; add.u32 %y, %o0, 1; vshl.u32.s32.u32.sat.wrap.max %o3, %x.h1, %y, %x;" },
  // Macros (defined in BINDINGS_MACROS): a block as do { } while (0), an "n" parameter passed as a value.
  { asm: "TWO(o3, o1 + o0, o2);", ptx: "add.u32 %y, %o1, %o0; szext.clamp.u32 %o3, %y, %o2; szext.wrap.u32 %o3, %o3, %o2;" },
  { asm: "SHL_N(o1, o2, 5); SHL_N(o0, o0, 0x21);", ptx: "vshl.u32.u32.u32.clamp %o1, %o2, 5; vshl.u32.u32.u32.clamp %o0, %o0, 0x21;" },
];
const BINDINGS_MACROS = [
  '#define TWO(d, a, b) asm("szext.clamp.u32 %0, %1, %2;\\n\\tszext.wrap.u32 %0, %0, %2;" : "=r"(d) : "r"(a), "r"(b))',
  '#define SHL_N(d, a, N) \\\n  asm("vshl.u32.u32.u32.clamp %0, %1, %2;" : "=r"(d) : "r"(a), "n"(N))',
  "",
].join("\n");

/** Runs the hand-written PTX of a case on the reference semantics. */
function reference(ptx: string, o: bigint[]): bigint[] {
  const regs = new Map<string, bigint>(o.map((v, i) => [`%o${i}`, v]));
  const text = `${PORT_HEAD}.visible .entry k()\n{\n.reg .b32 %o0, %o1, %o2, %o3, %t, %x, %y;\n${ptx.replace(/(xor|add)\.[^;]*;/g, "")}\n}\n`;
  // The two plain ALU helpers (xor, add) of the last case are evaluated here directly.
  for (const m of ptx.matchAll(/(xor|add)\.\S+ (%\w+), (%\w+), (%\w+|\d+);/g)) {
    const x = regs.get(m[3]!)!;
    const y = m[4]!.startsWith("%") ? regs.get(m[4]!)! : BigInt(m[4]!);
    regs.set(m[2]!, BigInt.asUintN(32, m[1] === "xor" ? x ^ y : x + y));
  }
  const mod = parseModule(text, "case.ptx");
  expect(mod.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  for (const fi of mod.insts) {
    const val = (op: typeof fi.a | undefined) => (op === undefined ? 0n : op.kind === "imm" ? op.value : op.kind === "reg" ? (regs.get(op.name) ?? 0n) : 0n);
    const d = scalarSemantics(concrete, fi.form, "sm90", u(val(fi.a)), u(val(fi.b)), u(val(fi.c))).value.x;
    if (fi.d.kind === "reg") regs.set(fi.d.name, d);
  }
  return o.map((_, i) => regs.get(`%o${i}`)!);
}

describe("bindings, run", () => {
  it.skipIf(!GXX)(`each case's ported statement computes what its PTX computes (g++, the C target's functions)${GXX ? "" : " (skipped: no g++)"}`, async () => {
    const src = BINDINGS_MACROS + BINDINGS.map((c, k) => `void case${k}(unsigned &o0, unsigned &o1, unsigned &o2, unsigned &o3) {\n  ${c.asm}\n}\n`).join("");
    const r = await portSource(src, "bindings.cu", {
      headerName: "bindings.hip.h",
      header: async (mod) => (await lowerModule(mod, { target: "c", profile: "sm90" })).text,
    });
    expect(r.statements.map((s) => s.status)).toEqual(BINDINGS.map(() => "rewritten"));
    const rng = new Rng(1405);
    const n = 400;
    const inputs: bigint[][] = [];
    for (let i = 0; i < n; i++) inputs.push([0, 1, 2, 3].map(() => BigInt(rng.below(4) === 0 ? rng.below(40) : rng.u32())));
    const dir = tmp();
    writeFileSync(join(dir, "bindings.hip.h"), r.header!);
    const main = `#include <cstdio>\n#include "bindings.cu"\nstatic const unsigned in[${n}][4] = {${inputs.map((v) => `{${v.map((x) => `${x}u`).join(",")}}`).join(",")}};\nint main() {\n  for (int i = 0; i < ${n}; i++) {\n${BINDINGS.map((_, k) => `    { unsigned o0 = in[i][0], o1 = in[i][1], o2 = in[i][2], o3 = in[i][3]; case${k}(o0, o1, o2, o3); printf("%u %u %u %u\\n", o0, o1, o2, o3); }`).join("\n")}\n  }\n}\n`;
    writeFileSync(join(dir, "bindings.cu"), r.text);
    writeFileSync(join(dir, "main.cpp"), main);
    const cc = spawnSync("g++", ["-D__HIP__", "-O1", "-w", "-o", "main", "main.cpp"], { cwd: dir, encoding: "utf8" });
    expect(cc.status, cc.stderr).toBe(0);
    const got = spawnSync(join(dir, "main"), [], { encoding: "utf8" }).stdout.trim().split("\n");
    expect(got).toHaveLength(n * BINDINGS.length);
    let line = 0;
    for (const o of inputs)
      for (const c of BINDINGS) {
        const want = reference(c.ptx, o).join(" ");
        expect(got[line++], `${c.asm} on ${o.join(" ")}`).toBe(want);
      }
  }, 60_000);
});

/** Runs `portCommand` in this process with the declarations header; captures stdout/stderr. */
async function runPort(files: string[], o: { output?: string; json?: boolean; semantics?: "isa" | "sm90"; header?: (m: ParsedModule, banner: string, profile: string) => Promise<string> }) {
  let out = "";
  let err = "";
  const so = vi.spyOn(process.stdout, "write").mockImplementation((s: string | Uint8Array) => ((out += String(s)), true));
  const se = vi.spyOn(process.stderr, "write").mockImplementation((s: string | Uint8Array) => ((err += String(s)), true));
  try {
    const code = await portCommand(files, { ...o, header: o.header ?? ((m) => declarations(m)) });
    return { code, out, err };
  } finally {
    so.mockRestore();
    se.mockRestore();
  }
}

describe("ptx-lower port (the command)", () => {
  const BITFIELDS = join(ROOT, "examples", "bitfields.cu");

  it("-o FILE writes the ported file and its header beside it; the table names every statement", async () => {
    const dir = tmp();
    const r = await runPort([BITFIELDS], { output: join(dir, "X.hip") });
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(["X.hip", "X.hip.h"]);
    expect(read(join(dir, "X.hip"))).toContain('#include "X.hip.h"');
    expect(read(join(dir, "X.hip.h"))).toBe(await declarations((await port(BITFIELDS, "X.hip.h")).routinesModule!));
    expect(r.out).toMatch(/10 asm statements: 10 rewritten, 0 left; wrote .*X\.hip, .*X\.hip\.h\ncompile a ported file as HIP: clang-19 -x hip .* -c .*X\.hip\n {2}\(.*\)\n$/);
    expect(r.out.split("\n").filter((l) => l.includes("rewritten")).length).toBeGreaterThanOrEqual(10);
  });

  it("without -o the one input goes to standard output with the header inlined, the table to standard error", async () => {
    const r = await runPort([BITFIELDS], {});
    expect(r.code).toBe(0);
    expect(r.out).toContain("#if defined(__HIP__) /* ptx-lower port */\n#pragma clang diagnostic push\n#pragma clang diagnostic ignored \"-Wunused-function\"\n// declarations for test/port.test.ts\n__device__ unsigned int szext_clamp_s32__v_v(unsigned int a, unsigned int b);");
    expect(r.out).not.toContain("#include \"");
    expect(r.err).toContain("10 asm statements: 10 rewritten, 0 left");
  });

  it("several inputs go to a directory; --json follows docs/port.schema.json", async () => {
    const dir = join(tmp(), "out");
    const r = await runPort([BITFIELDS, join(PORT, "patterns.cu")], { output: dir, json: true });
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(["bitfields.cu", "bitfields.hip.h", "patterns.cu", "patterns.hip.h"]);
    const doc = JSON.parse(r.out);
    const schema = JSON.parse(read(join(ROOT, "docs", "port.schema.json"))) as Schema;
    expect(validate(schema, schema, doc)).toEqual([]);
    expect(doc.summary).toEqual({ statements: 25, rewritten: 22, left: 3, intrinsics: { calls: 0, rewritten: 0, left: 0 }, errors: 0 });
    expect(doc.files[1].statements[10]).toMatchObject({ line: 78, col: 5, status: "left", reasons: [{ line: 78, col: 31 }] });
  });

  it("an unreadable file is `file: error: …`, exit 1, and nothing is written (not even for the readable inputs)", async () => {
    const dir = tmp();
    const r = await runPort([BITFIELDS, join(dir, "missing.cu")], { output: join(dir, "out") });
    expect(r.code).toBe(1);
    expect(r.err).toBe(`${join(dir, "missing.cu")}: error: cannot read: no such file\n`);
    expect(readdirSync(dir)).toEqual([]);
    const bad = await runPort([join(ROOT, "examples", "bitfields.sm_90.ptx")], { output: join(dir, "x") });
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("bitfields.sm_90.ptx: error: not a C/C++/CUDA/HIP/OpenCL source by its name (.cu .cuh .hip .h .hh .hpp .hxx .inl .inc .cc .cpp .cxx .cl); --language cuda or --language opencl ports it anyway");
  });

  it("never writes over an input; --json without -o writes nothing and prints the document", async () => {
    const dir = tmp();
    const f = join(dir, "a.cu");
    writeFileSync(f, read(BITFIELDS));
    await expect(runPort([f], { output: f })).rejects.toThrow(/it is the input file/);
    expect(read(f)).toBe(read(BITFIELDS));
    const r = await runPort([f], { json: true });
    expect(r.code).toBe(0);
    expect(readdirSync(dir)).toEqual(["a.cu"]);
    const doc = JSON.parse(r.out);
    expect(doc.files[0]).toMatchObject({ input: f, error: null, output: null, header: null });
    expect(doc.summary).toMatchObject({ statements: 10, rewritten: 10, left: 0 });
    await expect(runPort([f], { json: true, output: "-" })).rejects.toThrow(/--json prints its document on standard output/);
  });

  it("a file with nothing to rewrite is written unchanged and gets no header", async () => {
    const dir = tmp();
    const r = await runPort([join(ROOT, "test", "port", "named.hip")], { output: join(dir, "n.hip"), header: async () => "" });
    expect(r.code).toBe(0);
    const none = join(dir, "none.cu");
    writeFileSync(none, "int x; // asm(\"szext.clamp.s32 %0, %1, %2;\")\n");
    const r2 = await runPort([none], { output: join(dir, "none.out.cu") });
    expect(r2.code).toBe(0);
    expect(read(join(dir, "none.out.cu"))).toBe(read(none));
    expect(existsSync(join(dir, "none.out.hip.h"))).toBe(false);
  });

  it("--json with an input that cannot be read still prints its document (the error in it) on standard output; exit 1, nothing written", async () => {
    const dir = tmp();
    const schema = JSON.parse(read(join(ROOT, "docs", "port.schema.json"))) as Schema;
    const alone = await runPort([join(dir, "nope.cu")], { json: true });
    expect(alone.code).toBe(1);
    const doc1 = JSON.parse(alone.out);
    expect(validate(schema, schema, doc1)).toEqual([]);
    expect(doc1.files).toEqual([
      expect.objectContaining({ input: join(dir, "nope.cu"), error: "cannot read: no such file", output: null, header: null, routines: [], statements: [], intrinsics: [], warpSize: [], includes: [], state: "failed" }),
    ]);
    expect(doc1.summary.errors).toBe(1);
    expect(alone.err).toBe(`${join(dir, "nope.cu")}: error: cannot read: no such file\n`);
    const both = await runPort([BITFIELDS, join(dir, "nope.cu")], { output: join(dir, "out"), json: true });
    expect(both.code).toBe(1);
    const doc2 = JSON.parse(both.out);
    expect(validate(schema, schema, doc2)).toEqual([]);
    expect(doc2.files.map((f: { error: string | null; output: string | null }) => [f.error, f.output])).toEqual([[null, null], ["cannot read: no such file", null]]);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("--json and the table list the CUDA warp intrinsic calls (rewritten) and cooperative_groups calls (left), with the asm statements", async () => {
    const WARP = join(ROOT, "examples", "warp_match.cu");
    const r = await runPort([WARP], { json: true, header: async (mod) => declarations(mod) });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.out);
    const schema = JSON.parse(read(join(ROOT, "docs", "port.schema.json"))) as Schema;
    expect(validate(schema, schema, doc)).toEqual([]);
    expect(doc.files[0].intrinsics[1]).toEqual({ line: 8, col: 37, endLine: 8, endCol: 50, name: "__activemask", kind: "warp", status: "rewritten", to: "ptxl_activemask", macro: null, reasons: [], liveness: { state: "live" } });
    expect(doc.summary).toEqual({ statements: 3, rewritten: 3, left: 0, intrinsics: { calls: 4, rewritten: 4, left: 0 }, errors: 0 });
    const t = await runPort([WARP], { output: join(tmp(), "w.cu"), header: async (mod) => declarations(mod) });
    const rows = t.out.split("\n").filter((l) => l.includes("warp_match.cu │"));
    expect(rows.map((l) => l.split("│").slice(2, 4).map((x) => x.trim()).join(" "))).toEqual(["8:20 rewritten", "8:37 rewritten", "12:18 rewritten", "19:12 rewritten", "26:3 rewritten", "27:3 rewritten", "28:3 rewritten"]);
    expect(rows[1]).toContain("__activemask → ptxl_activemask");
    expect(t.out).toMatch(/3 asm statements: 3 rewritten, 0 left; 4 CUDA warp intrinsic calls rewritten; wrote /);
    // cooperative_groups: through an alias and the full name, the outermost call; left, with the reason, in the document too.
    const cg = "namespace cg = cooperative_groups;\n__global__ void k(int *o) {\n  auto t = cg::tiled_partition<8>(cg::this_thread_block());\n  o[0] = cooperative_groups::reduce(t, o[1], cg::plus<int>()) + __shfl_sync(0xffffffffu, o[2], 1);\n  t.sync();\n}\n";
    const dir = tmp();
    writeFileSync(join(dir, "cg.cu"), cg);
    const j = await runPort([join(dir, "cg.cu")], { json: true, header: async (mod) => declarations(mod) });
    const cgDoc = JSON.parse(j.out);
    expect(validate(schema, schema, cgDoc)).toEqual([]);
    expect(cgDoc.files[0].intrinsics.map((c: { line: number; col: number; name: string; kind: string; status: string; to: string | null; reasons: { message: string }[] }) => `${c.line}:${c.col} ${c.name} ${c.kind} ${c.status} ${c.to} ${c.reasons.length}`)).toEqual([
      "3:12 cg::tiled_partition cooperative_groups left null 1",
      "4:10 cooperative_groups::reduce cooperative_groups left null 1",
      "4:65 __shfl_sync warp rewritten ptxl_shfl_sync 0",
    ]);
    expect(cgDoc.files[0].intrinsics[0].reasons[0].message).toMatch(/^a cooperative_groups call: not mapped/);
    expect(cgDoc.summary.intrinsics).toEqual({ calls: 3, rewritten: 1, left: 2 });
    // Not calls: a declaration, a member, a comment, a string, a skipped group.
    const src = 'unsigned __ballot_sync(unsigned m, int p);\nvoid f(S s) { s.__shfl_sync(1); /* __any_sync(1, 2) */ const char *t = "__all_sync(1, 2)";\n#if 0\n  __activemask();\n#endif\n  return __reduce_add_sync(0xffffffffu, 3);\n}\n';
    expect((await portSource(src, "n.cu", { header: declarations })).intrinsics.map((c) => `${c.loc.line}:${c.loc.col} ${c.name}`)).toEqual(["6:10 __reduce_add_sync"]);
    // A qualified name is someone else's function; inside a #define body the call is renamed too.
    const q = "#define W(x) __shfl_xor_sync(0xffffffffu, x, 1)\nint f(int v) { return ns::__shfl_sync(1u, v, 0) + W(v); }\n";
    const rq = await portSource(q, "q.cu", { header: declarations });
    expect(rq.intrinsics.map((c) => `${c.loc.line}:${c.loc.col} ${c.name} ${c.macro}`)).toEqual(["1:14 __shfl_xor_sync W"]);
    expect(rq.text).toContain("#define W(x) ptxl_shfl_xor_sync(0xffffffffu, x, 1)\nint f(int v) { return ns::__shfl_sync(1u, v, 0) + W(v); }\n");
    // `::NAME(` with nothing naming a scope before the `::` is the global function, CUDA's
    // intrinsic itself: renamed like an unqualified call (`::ptxl_…` names the header's
    // global drop-in). `a::b::NAME(` and `T<int>::NAME(` stay someone else's.
    const g = "int f(int v) { return ::__shfl_up_sync(1u, v, 1) + (::__any_sync(1u, v)) + a::b::__all_sync(1u, v) + T<int>::__shfl_sync(1u, v, 0); }\n";
    const rg = await portSource(g, "g.cu", { header: declarations });
    expect(rg.intrinsics.map((c) => `${c.loc.line}:${c.loc.col} ${c.name} ${c.status}`)).toEqual(["1:25 __shfl_up_sync rewritten", "1:55 __any_sync rewritten"]);
    expect(rg.text).toContain("int f(int v) { return ::ptxl_shfl_up_sync(1u, v, 1) + (::ptxl_any_sync(1u, v)) + a::b::__all_sync(1u, v) + T<int>::__shfl_sync(1u, v, 0); }\n");
    // The name used but not called where it stands: left unchanged and reported, never silently.
    const u = "#define SH __shfl_sync\nauto p = &__shfl_down_sync;\nint (*q)(unsigned, int, int, int) = __shfl_xor_sync;\nint f(int v) { return __shfl_sync<int>(1u, v, 0) + s.__ballot_sync + x::__any_sync; }\n";
    const ru = await portSource(u, "u.cu", { header: declarations });
    expect(ru.intrinsics.map((c) => `${c.loc.line}:${c.loc.col} ${c.name} ${c.status} ${c.macro} ${c.reasons.map((r) => r.message.slice(0, 10)).join()}`)).toEqual([
      "1:12 __shfl_sync left SH not a call",
      "2:11 __shfl_down_sync left null not a call",
      "3:37 __shfl_xor_sync left null not a call",
      "4:23 __shfl_sync left null not a call",
    ]);
    expect(ru.text).toBe(u);
    // The file's own macro of an intrinsic's name: its calls are the macro's (left, reported);
    // before the #define and after an #undef the name is CUDA's again.
    const m = "int a(int v) { return __reduce_add_sync(1u, v); }\n#define __reduce_add_sync(m, v) (v)\nint b(int v) { return __reduce_add_sync(1u, v); }\n#undef __reduce_add_sync\nint c(int v) { return __reduce_add_sync(1u, v); }\n#define __shfl_sync my_shfl\nint d(int v) { return __shfl_sync(1u, v, 0); }\n";
    const rm = await portSource(m, "m.cu", { header: declarations });
    expect(rm.intrinsics.map((c) => `${c.loc.line}:${c.loc.col} ${c.name} ${c.status} ${c.reasons.map((r) => r.message).join()}`)).toEqual([
      "1:23 __reduce_add_sync rewritten ",
      "3:23 __reduce_add_sync left the file defines a macro of this name (line 2): the call is the macro's, left unchanged",
      "5:23 __reduce_add_sync rewritten ",
      "7:23 __shfl_sync left the file defines a macro of this name (line 6): the call is the macro's, left unchanged",
    ]);
    expect(rm.text).toContain("#define __reduce_add_sync(m, v) (v)\nint b(int v) { return __reduce_add_sync(1u, v); }\n#undef __reduce_add_sync\nint c(int v) { return ptxl_reduce_add_sync(1u, v); }\n");
    expect(rm.text).toContain("int d(int v) { return __shfl_sync(1u, v, 0); }");
  });

  it("a binary file, a directory, standard input named twice: a clear error, exit 1, nothing written", async () => {
    const dir = tmp();
    writeFileSync(join(dir, "nul.cu"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00]));
    writeFileSync(join(dir, "ctl.cu"), Buffer.from([0x69, 0x6e, 0x74, 0xff, 0x01, 0x02, 0x0a]));
    for (const [f, message] of [
      ["nul.cu", "a binary file (a NUL byte at offset 7), not a C/C++/CUDA/HIP/OpenCL source"],
      ["ctl.cu", "a binary file (not UTF-8, and a control byte 0x01 at offset 4), not a C/C++/CUDA/HIP/OpenCL source"],
    ]) {
      const r = await runPort([join(dir, f!)], { output: join(dir, "o.cu") });
      expect(r.code).toBe(1);
      expect(r.err).toBe(`${join(dir, f!)}: error: ${message}\n`);
    }
    const d = await runPort([join(ROOT, "examples")], { output: join(dir, "o.cu") });
    expect(d.code).toBe(1);
    expect(d.err).toMatch(/examples: error: is a directory, and -o .*o\.cu names a source file: name an output directory/);
    expect(readdirSync(dir).sort()).toEqual(["ctl.cu", "nul.cu"]);
    await expect(runPort(["-", "-"], { output: join(dir, "out") })).rejects.toThrow(/standard input\) is named more than once/);
  });

  it("- is standard input: ported to standard output (the header inlined), <stdin> in the table; the command line's --json and --help", () => {
    const cli = (args: string[], input: string) => spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bin", "ptx-lower.ts"), "port", ...args], { cwd: ROOT, encoding: "utf8", input });
    const r = cli(["-"], read(BITFIELDS));
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("szext_wrap_u32__imm0xffffffff_imm7();");
    expect(r.stdout).toContain("semantics profile: sm90");
    expect(r.stderr).toContain("│ <stdin> ");
    expect(r.stderr).toContain("10 asm statements: 10 rewritten, 0 left");
    const dir = tmp();
    const d = cli(["-", BITFIELDS, "-o", join(dir, "out")], read(BITFIELDS));
    expect(d.status).toBe(1);
    expect(d.stderr).toContain("<stdin>: error: standard input has no name to write under the directory");
    expect(readdirSync(dir)).toEqual([]);
    // The command line: a missing input with --json (no -o) still prints the document, exit 1.
    const j = cli([join(dir, "nope.cu"), "--json"], "");
    expect(j.status).toBe(1);
    expect(JSON.parse(j.stdout).files[0].error).toBe("cannot read: no such file");
    expect(readdirSync(dir)).toEqual([]);
    // --help names - and says why sm90 is the default.
    const h = cli(["--help"], "");
    expect(h.stdout.replace(/\s+/g, " ")).toMatch(/; - for standard input.*--semantics <profile> semantics profile of the header: sm90 \(what the replaced asm computed on NVIDIA hardware, where ptxas emulates vshl\/vshr for sm_75 and later\) or isa .*\(default: "sm90"\)/);
  }, 60_000);

  it("--semantics (default sm90) is the header's profile, and its banner says which", async () => {
    const WARP = join(ROOT, "examples", "warp_match.cu");
    const seen: [string, string][] = [];
    const spy = async (m: ParsedModule, banner: string, profile: string) => {
      seen.push([profile, banner]);
      return declarations(m);
    };
    for (const semantics of [undefined, "isa", "sm90"] as const) expect((await runPort([WARP], { output: join(tmp(), "w.cu"), semantics, header: spy })).code).toBe(0);
    expect(seen.map(([p]) => p)).toEqual(["sm90", "isa", "sm90"]);
    expect(seen[0]![1].split("\n")[2]).toMatch(/^semantics profile: sm90 — what the replaced asm computed on NVIDIA hardware/);
    expect(seen[1]![1].split("\n")[2]).toMatch(/^semantics profile: isa — the PTX ISA's meaning/);
    // The real header (targets/hip) is printed under that profile: its vshl/vshr guards name it.
    const mod = (await port(WARP)).routinesModule!;
    for (const p of ["isa", "sm90"] as const) {
      const h = await hipHeader(mod, portBanner("warp_match.cu", p), p);
      expect(h).toContain(`semantics profile: ${p} — `);
      expect(h).toContain(`#define PTX_LOWER_HIP_vshl_u32_u32_clamp_add__v_v_v_${p}\n`);
      expect(h).not.toContain(`_${p === "isa" ? "sm90" : "isa"}\n`);
    }
  });

  it("bytes that are not UTF-8, and a byte-order mark, come back as they were", async () => {
    const dir = tmp();
    const stmt = 'asm("szext.clamp.s32 %0, %1, 4;" : "=r"(d) : "r"(a));';
    const latin1 = Buffer.concat([Buffer.from("// (c) 2026 M"), Buffer.from([0xfc]), Buffer.from(`ller\nint f(unsigned a) { int d;\n  ${stmt}\n  return d; }\n`)]);
    writeFileSync(join(dir, "l.cu"), latin1);
    expect((await runPort([join(dir, "l.cu")], { output: join(dir, "l.out.cu") })).code).toBe(0);
    const out = readFileSync(join(dir, "l.out.cu"));
    expect(out.subarray(0, 16)).toEqual(latin1.subarray(0, 16));
    expect(out.toString("latin1")).toContain(`\n#if defined(__HIP__) /* ptx-lower port */\n#include "l.out.hip.h"\n#endif /* ptx-lower port */\nint f(unsigned a) { int d;\n#if defined(__HIP__) /* ptx-lower port */\n  d = szext_clamp_s32__v_imm4(a);\n#else\n  ${stmt}\n#endif /* ptx-lower port */\n  return d; }\n`);
    writeFileSync(join(dir, "b.cu"), `\ufeffint f(unsigned a) { int d;\n  ${stmt}\n  return d; }\n`);
    expect((await runPort([join(dir, "b.cu")], { output: join(dir, "b.out.cu") })).code).toBe(0);
    expect(read(join(dir, "b.out.cu")).startsWith(`\ufeff#if defined(__HIP__) /* ptx-lower port */\n#include "b.out.hip.h"\n#endif /* ptx-lower port */\nint f`)).toBe(true);
  });

});
