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
import { checkInput, corpus, inputAt, moduleArb, optionsFor } from "../scripts/fuzz.js";

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
});
