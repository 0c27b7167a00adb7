/**
 * Linkable outputs: the C of two modules goes into one program (headers of `static inline`
 * routines with include guards), and the JS output (`.mjs`) imports from a CommonJS project.
 * Expected values are worked out by hand from the ISA's szext definition, not by the tool.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const BITFIELDS = "examples/bitfields.sm_90.ptx";
const C09 = "../shared/ptx/c09_szext_forms.sm_90.ptx";
const FLAGS = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"];
const haveGcc = spawnSync("gcc", ["--version"]).status === 0;

function lower(file: string, target: string) {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bin", "ptx-lower.ts"), "lower", file, "--target", target], { cwd: ROOT, encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout;
}
const routinesIn = (h: string) => [...h.matchAll(/^static inline \w+ (\w+)\(/gm)].map((m) => m[1]!);

// Inputs and results (szext, PTX ISA): clamp.s32 (0xf0, 5): the low 5 bits 0b10000 sign-
// extended → 0xfffffff0. clamp.u32 with N = 7 of 0x1ff → 0x7f. wrap.s32 with N = 40 & 31 = 8
// of 0x80 → 0xffffff80.
const MAIN = `#include <stdio.h>
#include "bitfields.h"
#include "c09.h"
int main(void) {
  printf("%08lx %08lx %08lx\\n", (unsigned long)szext_clamp_s32__v_v(0xf0u, 5u), (unsigned long)szext_clamp_u32__v_imm7(0x1ffu), (unsigned long)szext_wrap_s32__v_imm40(0x80u));
  return 0;
}
`;

describe.skipIf(!haveGcc)("C of two modules in one program (gcc -std=c99 -Wall -Wextra -pedantic -Werror)", () => {
  const dir = mkdtempSync(join(tmpdir(), "ptx-lower-link-"));
  const bitfields = haveGcc ? lower(BITFIELDS, "c") : "";
  const c09 = haveGcc ? lower(C09, "c") : "";

  it("the two modules share a routine and each has one of its own (what makes linking them hard)", () => {
    const a = routinesIn(bitfields);
    const b = routinesIn(c09);
    expect(a).toContain("szext_clamp_s32__v_v");
    expect(b).toContain("szext_clamp_s32__v_v");
    expect(a).toContain("szext_wrap_s32__v_imm40");
    expect(b).not.toContain("szext_wrap_s32__v_imm40");
    expect(b).toContain("szext_clamp_u32__v_imm7");
    expect(a).not.toContain("szext_clamp_u32__v_imm7");
  });

  it("both headers in one translation unit: compiles, links, and each routine gives the ISA's result", () => {
    writeFileSync(join(dir, "bitfields.h"), bitfields);
    writeFileSync(join(dir, "c09.h"), c09);
    writeFileSync(join(dir, "main.c"), MAIN);
    const cc = spawnSync("gcc", [...FLAGS, "main.c", "-o", "one"], { cwd: dir, encoding: "utf8" });
    expect(cc.stderr).toBe("");
    expect(cc.status).toBe(0);
    expect(spawnSync(join(dir, "one"), { encoding: "utf8" }).stdout).toBe("fffffff0 0000007f ffffff80\n");
  });

  it("each header in its own translation unit, linked into one program: no multiple definition", () => {
    writeFileSync(join(dir, "a.c"), `#include "bitfields.h"\nuint32_t from_bitfields(uint32_t a, uint32_t b) { return szext_clamp_s32__v_v(a, b) ^ szext_wrap_s32__v_imm40(a); }\n`);
    writeFileSync(join(dir, "b.c"), `#include "c09.h"\nuint32_t from_c09(uint32_t a, uint32_t b) { return szext_clamp_s32__v_v(a, b) ^ szext_clamp_u32__v_imm7(a); }\n`);
    writeFileSync(
      join(dir, "m.c"),
      `#include <stdio.h>\n#include <stdint.h>\nuint32_t from_bitfields(uint32_t a, uint32_t b);\nuint32_t from_c09(uint32_t a, uint32_t b);\nint main(void) {\n  printf("%08lx %08lx\\n", (unsigned long)from_bitfields(0x80u, 5u), (unsigned long)from_c09(0x1f0u, 5u));\n  return 0;\n}\n`,
    );
    const cc = spawnSync("gcc", [...FLAGS, "a.c", "b.c", "m.c", "-o", "two"], { cwd: dir, encoding: "utf8" });
    expect(cc.stderr).toBe("");
    expect(cc.status).toBe(0);
    // 0x80, N=5: low 5 bits 0 → 0; wrap N=8 of 0x80 → 0xffffff80; xor → 0xffffff80.
    // 0x1f0, N=5: low 5 bits 0b10000 → 0xfffffff0; clamp.u32 N=7 of 0x1f0 → 0x70; xor → 0xffffff80.
    expect(spawnSync(join(dir, "two"), { encoding: "utf8" }).stdout).toBe("ffffff80 ffffff80\n");
  });
});

describe("JS output is an ES module (.mjs) that a CommonJS project imports", () => {
  it("lower -o DIR writes NAME.mjs; a .cjs file in a default project imports it and calls a routine", () => {
    const dir = mkdtempSync(join(tmpdir(), "ptx-lower-cjs-"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0" })); // "type" absent: CommonJS
    const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bin", "ptx-lower.ts"), "lower", BITFIELDS, "--target", "all", "-o", join(dir, "out")], { cwd: ROOT, encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    writeFileSync(join(dir, "use.js"), `import("./out/bitfields.sm_90.mjs").then((m) => console.log(m.szext_clamp_s32__v_v(0xf0, 5).toString(16)));\n`);
    const run = spawnSync(process.execPath, ["use.js"], { cwd: dir, encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("fffffff0\n");
  });
});
