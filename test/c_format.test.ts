/**
 * The C printer's presumption (targets/c/print.ts `presumedFormatted`): a piece of text that
 * passes it is printed without clang-format, as clang-format would give it back. Checked here
 * with clang-format itself as the oracle, over every routine the C and HIP targets can print:
 * every family, form, operand kinds (`matrixSpecs`), profile and portable rule, in a C module
 * and inline (the HIP header's functions), each printed as usual and with every piece sent
 * through clang-format (`format: "every-piece"`). The two texts must be equal.
 *
 * The video family has 15,680 forms (51,968 routines: 50 s to build and 65 s to print twice
 * here), vadd…vmax/vset 50,960 (82 s for the 39,200 of vadd…vmax); CI takes about 1,000
 * forms of a family (one in `everyOf`), from a seeded start, so that each run of the suite
 * samples others. All of the video shifts' were compared once (issue 37's note).
 */
import { describe, expect, it } from "vitest";
import "../src/compose.js";
import { FAMILY_NAMES, familyNamed } from "../src/families/index.js";
import { PROFILES, formId } from "../src/ir/forms.js";
import { routineName } from "../src/ir/ir.js";
import { matrixSpecs } from "../src/check/prove_worker.js";
import { portableRulesFor } from "../targets/portable/rules/index.js";
import { printCModule, type Routine } from "../targets/c/print.js";

/** One form in this many: about 1,000 forms of each family (video: 16; the small families: every form). */
const everyOf = (family: (typeof FAMILY_NAMES)[number]) => Math.max(1, Math.ceil([...familyNamed(family).forms()].length / 1000));
/** The sample's start: a new one each day, named in the test's title to reproduce it. */
const startOf = (every: number) => Math.floor(Date.now() / 86_400_000) % every;

/** Every routine of `family` (of one form in `every`, from `start`): one per form × operand kinds × profile × applicable rule. */
function routinesOf(family: (typeof FAMILY_NAMES)[number], every: number, start: number): Routine[] {
  const out: Routine[] = [];
  const seen = new Set<string>();
  let k = 0;
  for (const form of familyNamed(family).forms()) {
    if (k++ % every !== start) continue;
    for (const spec of matrixSpecs(form)) {
      for (const profile of PROFILES) {
        for (const rule of portableRulesFor(spec)) {
          const name = `${routineName(spec, formId)}_${profile}_${rule.name}`.replace(/[^A-Za-z0-9_]/g, "_");
          if (seen.has(name)) continue;
          seen.add(name);
          out.push({ name, fn: rule.build(spec, profile), header: `rule ${rule.name}` });
        }
      }
    }
  }
  return out;
}

describe("C printer: text printed without clang-format is clang-format's", { timeout: 600_000 }, () => {
  for (const family of FAMILY_NAMES) {
    const every = everyOf(family);
    const start = startOf(every);
    it(`${family}: ${every === 1 ? "every routine" : `the routines of one form in ${every} (from form ${start})`}, C module and inline`, () => {
      const routines = routinesOf(family, every, start);
      expect(routines.length).toBeGreaterThan(0);
      for (const inline of [false, true]) {
        const usual = printCModule(routines, { inline });
        const every = printCModule(routines, { inline, format: "every-piece" });
        if (usual !== every) {
          const a = usual.split("\n");
          const b = every.split("\n");
          const i = a.findIndex((l, k) => l !== b[k]);
          expect(`${inline ? "inline " : ""}line ${i + 1}: ${a[i]}`).toBe(`${inline ? "inline " : ""}line ${i + 1}: ${b[i]}`);
        }
      }
    });
  }
});
