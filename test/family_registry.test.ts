/**
 * The family registry: the compiler names each missing piece of an incomplete family (the
 * type-level test test/types/family_incomplete.ts, compiled here without its
 * `@ts-expect-error` directives), and dispatch goes through the registry.
 */
import { describe, expect, it } from "vitest";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { FAMILIES, familyOf, familyOpOf, isFamilyOpcode } from "../src/families/index.js";
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
      // Form counts from the PTX ISA's form matrices (README "Semantics decisions"): 4 szext, 12 match.sync, 15,680 vshl/vshr, 39,200 vadd…vmax and 11,760 vset (video-semantics.md §1.9);
      // the warp-level family's 59 (src/ir/warp_forms.ts: shfl 24, vote 16, redux 17, activemask, bar.warp.sync).
      expect(n).toBe({ szext: 4, match: 12, video: 15_680, vop: 39_200 + 11_760, warp: 59 }[fam.name]);
    }
    expect(isFamilyOpcode("toString")).toBe(false);
    // `bar` is the warp family's only with `.warp` first (bar.warp.sync); bar.sync and the written `bar.warp` are not.
    expect(isFamilyOpcode("bar")).toBe(false);
    expect(familyOpOf({ opcode: "bar", modifiers: ["warp", "sync"] })).toBe("bar.warp");
    expect(familyOpOf({ opcode: "bar", modifiers: ["sync"] })).toBe(null);
    expect(familyOpOf({ opcode: "bar", modifiers: ["sync", "warp"] })).toBe(null);
    expect(familyOpOf({ opcode: "bar.warp", modifiers: ["sync"] })).toBe(null);
    expect(familyOpOf({ opcode: "shfl", modifiers: ["sync", "idx", "b32"] })).toBe("shfl");
  });
});

describe("every family has its corpora (README 'Adding a family', files 4–6)", async () => {
  const { existsSync, readdirSync } = await import("node:fs");
  const here = (p: string) => join(import.meta.dirname, p);
  const diagnostics = readdirSync(here("diagnostics"))
    .filter((f) => f.endsWith(".ptx"))
    .map((f) => readFileSync(here(join("diagnostics", f)), "utf8"))
    .join("\n");
  const broken = readdirSync(here("check/broken")).filter((f) => f.endsWith(".ts") && !["case.ts", "waterfall.ts", "hazard_waterfall.ts"].includes(f) && !f.includes(".fixture."));
  const cases = await Promise.all(broken.map(async (f) => ((await import(`./check/broken/${f}`)) as { broken: { spec: { form: Parameters<typeof familyOf>[0] } } }).broken));
  for (const fam of FAMILIES) {
    it(`${fam.name}: a lowering corpus test/cases/${fam.name}.ptx with run: lines`, () => {
      const path = here(`cases/${fam.name}.ptx`);
      expect(existsSync(path), `${path} is missing`).toBe(true);
      expect(readFileSync(path, "utf8")).toMatch(/^\s*\/\/ run: /m);
    });
    it(`${fam.name}: the ptxas-parity corpus (test/diagnostics) has each of its opcodes`, () => {
      for (const op of fam.ops) expect(new RegExp(`^\\s*(@\\S+\\s+)?${op.replace(".", "\\.")}\\.`, "m").test(diagnostics), `no ${op} instruction in test/diagnostics/*.ptx`).toBe(true);
    });
    it(`${fam.name}: at least 3 broken cases in test/check/broken`, () => {
      expect(cases.filter((c) => familyOf(c.spec.form).name === fam.name).length).toBeGreaterThanOrEqual(3);
    });
  }
});
