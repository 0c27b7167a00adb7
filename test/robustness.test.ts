/**
 * Robustness on real modules and hostile text:
 * - every PTX file in ../shared/ptx and examples/ parses without errors, reports without an
 *   error verdict, and lowers for every target;
 * - identifiers, comments and the file name never reach the JS or C output unescaped: with
 *   `*\/`, newlines, backticks, `${`, quotes and backslashes in all of them, the JS output
 *   passes `node --check`, the C output compiles with -Werror, and every `*\/` in either is
 *   the end of a comment the printer opened.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseModule } from "../src/ir/build.js";
import { lowerModule } from "../src/lower.js";
import { buildReport } from "../src/report.js";
import { MCPUS } from "../targets/amdgpu/regs.js";
import { CC, haveCc } from "../targets/c/run.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIRS = [join(ROOT, "../shared/ptx"), join(ROOT, "examples")];
const FILES = DIRS.filter((d) => existsSync(d)).flatMap((d) =>
  readdirSync(d)
    .filter((f) => f.endsWith(".ptx"))
    .sort()
    .map((f) => join(d, f)),
);
const rel = (p: string) => p.slice(ROOT.length);

describe("real modules", () => {
  it("there are real modules to read", () => {
    expect(FILES.length).toBeGreaterThanOrEqual(7);
  });

  it.each(FILES.map((f) => [rel(f), f]))("%s parses, reports and lowers", async (_name, file) => {
    const mod = parseModule(readFileSync(file, "utf8"), rel(file));
    expect(mod.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(mod.insts.length).toBeGreaterThan(0);
    // A lean checker budget: the fixed corner cases and 40 warps per routine.
    const rep = await buildReport([mod], { mcpus: MCPUS, profile: "isa", check: { random: 0, warps: 40, seed: 1 } });
    const m = rep.modules[0]!;
    expect(m.occurrences.length).toBe(mod.insts.length);
    const bad = m.routines.flatMap((r) => r.targets.filter((t) => t.verdict.status === "error" || t.verdict.status === "refuted").map((t) => `${r.name} on ${t.target}: ${JSON.stringify(t.verdict)}`));
    expect(bad).toEqual([]);
    const warpRoutines = m.routines.filter((r) => r.family === "warp");
    for (const target of ["amdgpu", "js", "c"] as const) {
      const out = await lowerModule(mod, { target, profile: "sm90", mcpu: "gfx1100" });
      // Every routine is lowered (the real modules have no redux .f32), without a warning.
      expect(out.routines.length, `${target}: ${warpRoutines.length} warp routines`).toBe(m.routines.length);
      expect(out.warnings.length).toBe(0);
    }
  });
});

// ---------------------------------------------------------------------------------------
// Hostile text

/** A file name with every character that could end a comment or a string, and a newline. */
const EVIL_FILE = 'EVIL */ /* `${process.exit(7)}` "q" \'q\' \\ ??/\n*/ alert(1) //.ptx';

const EVIL_PTX = `// EVIL comment */ \`\${process.exit(7)}\` "q" 'q' \\
/* EVIL block \`\${x}\` "q" 'q' \\ ??/ */
.version 9.0
.target sm_90
.address_size 64

.visible .func (.reg .b32 $d) f$EVIL(.reg .b32 $a, .reg .b32 $b$_, .reg .b32 $c)
{
	.reg .b32 	%r$EVIL<4>;
	szext.clamp.s32 	$d, /* EVIL \`\${x}\` "q" 'q' \\ ??/ /* */ $a,
		$b$_;    // EVIL */ \`\${x}\`
	vshl.u32.u32.u32.clamp.add 	%r$EVIL1, $a, /* EVIL */ $b$_, $c;
	@!%p_EVIL match.any.sync.b32 	%r$EVIL2, $a, 0xffffffff;
	ret;
}
`;

/**
 * Lines where a `*\/` does not close a comment the printer opened. The printer's own comments
 * end with a lone ` *\/` line, or are one-line `/* … *\/` helpers with no input text in them.
 */
function strayCommentEnds(text: string): string[] {
  return text.split("\n").filter((l) => {
    const t = l.trim();
    if (!t.includes("*/") || t === "*/") return false;
    const oneLine = t.startsWith("/*") && t.endsWith("*/") && t.indexOf("*/") === t.length - 2;
    return !oneLine || t.includes("EVIL");
  });
}

describe("input text never reaches the output unescaped", () => {
  const mod = parseModule(EVIL_PTX.replace("@!%p_EVIL ", ""), EVIL_FILE);

  it("the hostile module parses", () => {
    expect(mod.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(mod.insts.length).toBe(3);
  });

  it("JS output passes node --check and has no stray */", async () => {
    const js = (await lowerModule(mod, { target: "js", profile: "isa" })).text;
    expect(js).toContain("EVIL"); // the text is there, inside comments
    expect(strayCommentEnds(js)).toEqual([]);
    const dir = mkdtempSync(join(tmpdir(), "ptx-lower-evil-"));
    try {
      writeFileSync(join(dir, "m.mjs"), js);
      const r = spawnSync(process.execPath, ["--check", join(dir, "m.mjs")], { encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
      // Importing it runs nothing from the input (process.exit(7) would end the import).
      const imp = spawnSync(process.execPath, ["--input-type=module", "-e", `const m = await import(${JSON.stringify(join(dir, "m.mjs"))}); console.log(Object.keys(m).length)`], { encoding: "utf8" });
      expect(imp.status, imp.stderr).toBe(0);
      expect(imp.stdout.trim()).toBe("3");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!haveCc().ok)("C output compiles with -Werror and has no stray */", async () => {
    const c = (await lowerModule(mod, { target: "c", profile: "isa" })).text;
    expect(c).toContain("EVIL");
    expect(strayCommentEnds(c)).toEqual([]);
    const dir = mkdtempSync(join(tmpdir(), "ptx-lower-evil-c-"));
    try {
      writeFileSync(join(dir, "m.c"), c);
      const r = spawnSync(CC, ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Wstrict-prototypes", "-Werror", "-Wcomment", "-Wtrigraphs", "-trigraphs", "-c", "m.c", "-o", "m.o"], { cwd: dir, encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // The banner and the `serves:` lines quote the file name and the instruction text; a
  // newline in either (a multi-line instruction, a file name with "\n") must stay commented.
  it("AMDGPU output keeps input text inside ; comments", async () => {
    const s = (await lowerModule(mod, { target: "amdgpu", mcpu: "gfx900", profile: "isa" })).text;
    const leaks = s.split("\n").filter((l) => l.includes("EVIL") && !l.startsWith(";"));
    expect(leaks).toEqual([]);
  });
});
