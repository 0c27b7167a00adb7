/**
 * The family registry: the compiler names each missing piece of an incomplete family (the
 * type-level test test/types/family_incomplete.ts, compiled here without its
 * `@ts-expect-error` directives), and dispatch goes through the registry.
 */
import { describe, expect, it } from "vitest";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { FAMILIES, familyOf, isFamilyOpcode } from "../src/families/index.js";
import { formsOf, formId, formName } from "../src/ir/forms.js";

describe("an incomplete family does not compile", () => {
  it("names every missing piece", () => {
    const file = join(import.meta.dirname, "types", "family_incomplete.ts");
    const text = readFileSync(file, "utf8");
    const pieces = [...text.matchAll(/@ts-expect-error — piece '(\w+)' is missing/g)].map((m) => m[1]!);
    expect(pieces.length).toBeGreaterThanOrEqual(22);
    const tmp = join(import.meta.dirname, "types", "family_incomplete.nodirective.tmp.ts");
    writeFileSync(tmp, text.replace(/^\s*\/\/ @ts-expect-error.*\n/gm, ""));
    try {
      const cfg = ts.getParsedCommandLineOfConfigFile(join(import.meta.dirname, "..", "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
      const program = ts.createProgram([tmp], { ...cfg.options, noEmit: true });
      const diags = ts.getPreEmitDiagnostics(program, program.getSourceFile(tmp)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
      expect(diags.length).toBe(pieces.length);
      for (const p of pieces) expect(diags.some((d) => d.includes(`'${p}'`) && /missing|not assignable/.test(d)), `no diagnostic names '${p}':\n${diags.join("\n---\n")}`).toBe(true);
    } finally {
      rmSync(tmp, { force: true });
    }
  }, 120_000);
});

describe("dispatch by the registry", () => {
  it("every opcode of every family maps back to that family, and forms round-trip", () => {
    for (const fam of FAMILIES) {
      for (const op of fam.ops) expect(isFamilyOpcode(op)).toBe(true);
      let n = 0;
      for (const f of formsOf(fam.name)) {
        expect(familyOf(f).name).toBe(fam.name);
        if (n++ < 50) expect(formId(f)).toMatch(/^[a-z0-9_]+$/), expect(formName(f).length).toBeGreaterThan(0);
      }
      // Form counts from the PTX ISA's form matrices (README "Semantics decisions"): 4 szext, 12 match.sync, 15,680 vshl/vshr.
      expect(n).toBe({ szext: 4, match: 12, video: 15_680 }[fam.name]);
    }
    expect(isFamilyOpcode("shfl")).toBe(false);
    expect(isFamilyOpcode("toString")).toBe(false);
  });
});
