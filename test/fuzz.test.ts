/**
 * A seeded sample of scripts/fuzz.ts in CI: about 2,000 inputs (fast-check-generated PTX
 * fragments, with shrinking, and byte/token mutations of the real modules) through parse →
 * lower (AMDGPU, JS, C) → print. No input may crash, hang past the bound, reject an
 * instruction without a located diagnostic, or produce JS/C that does not compile.
 * `npm run fuzz` runs ≥ 100,000 inputs.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Finding } from "../scripts/fuzz.js";
import { checkInput, corpus, deviceChecks, inputAt, moduleArb, optionsFor } from "../scripts/fuzz.js";
import { parseModule } from "../src/ir/build.js";

const SEED = 20261129;
/** Per-input bound: generous, as CI machines are shared; a typical input takes a few ms. */
const SLOW_MS = 10_000;

/** Findings that fail the test. asm-leak is a known defect reported to the lead (see test/robustness.test.ts). */
const hard = (fs: Finding[]) => fs.filter((f) => f.kind !== "asm-leak");
const show = (fs: Finding[]) => fs.map((f) => `[${f.kind}] ${f.stage}: ${f.message}${f.stack ? `\n${f.stack}` : ""}`).join("\n");

describe("fuzz (seeded sample)", () => {
  it("generated modules: no crash, every rejection located, outputs compile (fast-check, shrinking)", async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(moduleArb, async (text) => {
        const r = await checkInput(text, "gen.ptx", { ...optionsFor(n, SLOW_MS), compileC: n % 200 === 13 });
        n++;
        expect(show(hard(r.findings))).toBe("");
      }),
      { seed: SEED, numRuns: 600 },
    );
  });

  it("mutations of the real modules: no crash, every rejection located, outputs compile", async () => {
    const mods = corpus();
    expect(mods.length).toBeGreaterThanOrEqual(7);
    const bad: string[] = [];
    let occurrences = 0;
    let leaks = 0;
    let maxMs = 0;
    let count = 0;
    for (let i = 0; count < 1400; i++) {
      if (i % 10 < 3) continue; // the generated inputs are covered above
      count++;
      const inp = inputAt(i, SEED, mods);
      const r = await checkInput(inp.text, inp.file, optionsFor(i, SLOW_MS));
      occurrences += r.occurrences;
      maxMs = Math.max(maxMs, r.ms);
      if (r.findings.some((f) => f.kind === "asm-leak")) leaks++;
      const h = hard(r.findings);
      if (h.length) bad.push(`input ${i} (${inp.source} of ${inp.base}, file ${JSON.stringify(inp.file)}):\n${show(h)}`);
    }
    if (leaks) console.log(`fuzz sample: ${leaks} inputs hit the known asm-leak defect`);
    expect(bad.slice(0, 5).join("\n\n")).toBe("");
    // The mutations keep most instructions valid, so the lowering side is exercised too.
    expect(occurrences).toBeGreaterThan(1400);
    expect(maxMs).toBeLessThan(SLOW_MS);
  });

  it("hostile inputs: terminal controls (comments, instruction text, file names) and NUL bytes", async () => {
    const mods = corpus();
    const bad: string[] = [];
    const sources = new Map<string, number>();
    for (let i = 5; i < 5 + 7 * 300; i += 7) {
      const inp = inputAt(i, SEED, mods);
      sources.set(inp.source, (sources.get(inp.source) ?? 0) + 1);
      const o = optionsFor(i, SLOW_MS);
      expect(o.report).toBe(true);
      const r = await checkInput(inp.text, inp.file, o);
      const h = hard(r.findings);
      if (h.length) bad.push(`input ${i} (${inp.source} of ${inp.base}, file ${JSON.stringify(inp.file)}):\n${show(h)}`);
    }
    expect(bad.slice(0, 5).join("\n\n")).toBe("");
    expect(sources.get("controls")).toBeGreaterThan(60);
    expect(sources.get("nul")).toBeGreaterThan(60);
  });

  it("a NUL at the very start: nothing is parsed, the NUL check finds the warning at 1:1", async () => {
    const text = ".version 8.5\n.target sm_90\n.visible .entry k()\n{\n.reg .b32 %r<4>;\nszext.clamp.s32 %r1, %r2, %r3;\nret;\n}\n";
    const withNul = "\0" + text;
    const r = await checkInput(withNul, "n.ptx", { mcpus: ["gfx942"], format: false, compileC: false, lowerWithErrors: true, slowMs: SLOW_MS });
    expect(r.findings.filter((f) => f.kind === "past-nul")).toEqual([]); // the real parser stops
    expect(parseModule(withNul, "n.ptx").insts).toEqual([]);
  });

  it.skipIf(process.getuid?.() !== 0)("device cases (npm run fuzz runs them too): mknod 1,3 and 1,7, a FIFO, symlinks", () => {
    const r = deviceChecks();
    expect(r.skipped).toBeUndefined();
    expect(r.findings).toEqual([]);
  });
});
