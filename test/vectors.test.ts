import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readVectors, runVectors } from "../src/check/vectors.js";
import { MCPUS } from "../targets/amdgpu/regs.js";
import { compiledToolsAvailable } from "../targets/llvm/compiled.js";

const FILE = join(import.meta.dirname, "..", "..", "shared", "vectors", "public.jsonl");

describe("shared vectors (../shared/vectors/public.jsonl), as they are", () => {
  const text = readFileSync(FILE, "utf8");
  const { vectors, diagnostics } = readVectors(text, FILE);

  it("every vector parses", () => {
    expect(diagnostics).toEqual([]);
    expect(vectors.length).toBe(text.trim().split("\n").length);
  });

  for (const profile of ["isa", "sm90"] as const)
    it(`0 failures on every target under --semantics ${profile}`, async () => {
      const rep = await runVectors(vectors, profile, { ref: true, amdgpu: [...MCPUS], js: true, c: true });
      const lines = rep.failures.map((f) => `${f.vector.id} [${f.target}] ${f.message}`);
      expect(lines).toEqual([]);
      // Per vector, and per vector × target row (ref, amdgpu × 5, js, c).
      expect(rep.vectors.passed + rep.vectors.skipped).toBe(vectors.length);
      expect(rep.rows.length).toBe(3 + MCPUS.length);
      expect(rep.passed + rep.skipped).toBe(vectors.length * rep.rows.length);
    });

  // The hip header (clang-19) and the llvm module (llc-19), compiled for every processor.
  for (const profile of ["isa", "sm90"] as const)
    it(`0 failures on the hip and llvm targets, every processor, under --semantics ${profile}`, async (ctx) => {
      const tools = await compiledToolsAvailable();
      if (!tools.ok) {
        console.warn(`skipped: ${tools.reason}`);
        return ctx.skip();
      }
      const rep = await runVectors(vectors, profile, { ref: false, amdgpu: [], js: false, c: false, hip: [...MCPUS], llvm: [...MCPUS] });
      const lines = rep.failures.map((f) => `${f.vector.id} [${f.target}] ${f.message}`);
      expect(lines).toEqual([]);
      expect(rep.notes).toEqual([]);
      // Per vector, and per vector × target row (hip × 5, llvm × 5).
      expect(rep.vectors.passed + rep.vectors.skipped).toBe(vectors.length);
      expect(rep.vectors.skipped).toBe(vectors.filter((v) => v.semantics && v.semantics !== profile).length);
      expect(rep.rows.length).toBe(2 * MCPUS.length);
      expect([rep.passed, rep.skipped]).toEqual([rep.vectors.passed * rep.rows.length, rep.vectors.skipped * rep.rows.length]);
      // every family is present and run
      for (const op of ["szext", "vshl", "vshr", "match"]) expect(vectors.some((v) => v.inst.form.op === op)).toBe(true);
    });
});

describe("readVectors on malformed files", () => {
  const msgs = (text: string) => readVectors(text, "v.jsonl").diagnostics.map((d) => `${d.loc.line}: ${d.message}`);
  it("reports a JSON null, number or array line as a malformed vector, not a crash", () => {
    for (const line of ["null", "42", "[1,2]", '"s"'])
      expect(msgs(line)).toEqual(["1: a vector needs string fields id and ptx and objects in and out"]);
  });
  it("reports a file without vectors", () => {
    expect(msgs("")).toEqual(["1: no vectors (the file has no non-blank line)"]);
    expect(msgs("\n  \n")).toEqual(["1: no vectors (the file has no non-blank line)"]);
  });
  it("reports an input no operand reads (a misspelt register), naming the ones it reads", () => {
    const v = (input: string) => `{"id":"x","ptx":"szext.clamp.s32 d, a, b;","in":{${input}},"out":{"d":"0xfffffff0"}}`;
    expect(msgs(v('"a":"0x000000f0","b":"0x00000005","zz":"0x00000001"'))).toEqual(["1: vector x: in.zz is not read by this instruction (it reads in.a, in.b)"]);
    // An immediate operand reads no register; a guarded vector reads g and the prior d.
    expect(msgs(`{"id":"y","ptx":"szext.clamp.s32 d, a, 5;","in":{"a":"0x000000f0","b":"0x00000005"},"out":{"d":"0xfffffff0"}}`)).toEqual(["1: vector y: in.b is not read by this instruction (it reads in.a)"]);
    expect(msgs(`{"id":"z","ptx":"@g szext.clamp.s32 d, a, 5;","in":{"a":"0x000000f0","g":false,"d":"0x00000001"},"out":{"d":"0x00000001"}}`)).toEqual([]);
  });
  it("a guard other than @g / @!g is outside the format (in.g gives the guard)", () => {
    expect(msgs(`{"id":"gp","ptx":"@p szext.clamp.u32 d, a, b;","in":{"g":true,"a":"0x00000001","b":"0x00000001","d":"0x00000000"},"out":{"d":"0x00000001"}}`)).toEqual(["1: vector gp: the guard must be @g or @!g (in.g gives its value), not @p"]);
  });
  it("points a JSON syntax error at its column", () => {
    const d = readVectors('{"id":"x", "ptx" "szext.clamp.s32 d, a, b;"}', "v.jsonl").diagnostics[0]!;
    expect(`${d.loc.line}:${d.loc.col}`).toBe("1:18"); // the second quote after "ptx", where a colon belongs
    expect(d.message).toMatch(/^not a JSON object: .*position 17/);
  });
  it("reads past a UTF-8 byte-order mark", () => {
    const one = readFileSync(FILE, "utf8").split("\n")[0]!;
    expect(readVectors("\ufeff" + one, "v.jsonl").vectors.length).toBe(1);
  });
});
