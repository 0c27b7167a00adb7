/**
 * The library as the README documents it (imported from src/index.ts, the package's entry):
 * each entry point accepts what the README says, fails with a PtxLowerError or a TypeError
 * naming the argument, and verify / proveRoutine / rulesFor / runVectors share one target
 * vocabulary.
 */
import { describe, expect, it } from "vitest";
import { lowerModule, parseModule, proveRoutine, PtxLowerError, readVectors, rulesFor, runVectors, verify } from "../src/index.js";

const PTX = ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\nszext.clamp.s32 %r1, %r2, %r3;\nret;\n}\n";
// szext.clamp.s32 of 0xf0 with N = 5: the low 5 bits 0b10000, sign-extended (PTX ISA).
const VECTORS = JSON.stringify({ id: "v1", ptx: "szext.clamp.s32 d, a, b;", in: { a: "0x000000f0", b: "0x00000005" }, out: { d: "0xfffffff0" } }) + "\n";

describe("parseModule", () => {
  it("takes a string or a Buffer, never throws on bad PTX", () => {
    expect(parseModule(Buffer.from(PTX), "k.ptx").insts.length).toBe(1);
    expect(parseModule("\x00\xff garbage {{{", "k.ptx").diagnostics.length).toBeGreaterThan(0);
  });
});

describe("lowerModule", () => {
  const mod = parseModule(PTX, "k.ptx");
  it("without options: AMDGPU gfx942, profile isa", async () => {
    const r = await lowerModule(mod);
    expect(r.text).toContain("target: amdgpu gfx942 (wave64); semantics profile: isa");
    expect(r.routines.map((x) => x.name)).toEqual(["szext_clamp_s32__v_v"]);
  });
  it("a module with errors: PtxLowerError carrying the diagnostics", async () => {
    const bad = parseModule(PTX.replace("szext.clamp", "szext"), "k.ptx");
    const e = await lowerModule(bad).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(PtxLowerError);
    expect((e as PtxLowerError).diagnostics[0]!.message).toBe("Clamp modifier required for instruction 'szext'");
  });
  it("wrong arguments: TypeError naming the argument", async () => {
    await expect(lowerModule({} as never)).rejects.toThrow(new TypeError("lowerModule: mod must be a ParsedModule (what parseModule returns), not {}"));
    await expect(lowerModule(mod, { target: "wasm" as never })).rejects.toThrow(/^lowerModule: options\.target must be one of amdgpu, js, c, hip, llvm, not 'wasm'$/);
    await expect(lowerModule(mod, { mcpu: "gfx1" as never })).rejects.toThrow(TypeError);
    await expect(lowerModule(mod, { profile: "sm80" as never })).rejects.toThrow(/options\.profile/);
  });
});

describe("one target vocabulary", () => {
  const mod = parseModule(PTX, "k.ptx");
  it("verify takes { kind: 'js' } and { kind: 'amdgpu', mcpu }; anything else is a TypeError naming targets[i]", async () => {
    const spec = (await lowerModule(mod)).routines[0]!.spec;
    const rows = await verify([{ spec, profile: "isa" }], [{ kind: "js" }, { kind: "amdgpu", mcpu: "gfx1100" }]);
    expect(rows.every((r) => r.verdict.status === "tested")).toBe(true);
    await expect(verify([{ spec, profile: "isa" }], [{ kind: "pir" } as never])).rejects.toThrow(/^verify: targets\[0\] must be one of/);
    await expect(verify([{ spec, profile: "isa" }], [{ kind: "amdgpu", mcpu: "gfx1" } as never])).rejects.toThrow(/^verify: targets\[0\]\.mcpu must be one of/);
  });

  it("rulesFor and proveRoutine take { kind: 'js' } / { kind: 'c' } as verify does (the portable proof)", { timeout: 120_000 }, async () => {
    const spec = (await lowerModule(mod)).routines[0]!.spec;
    const rules = rulesFor(spec, { kind: "js" }, "isa");
    expect(rules.map((r) => r.name)).toEqual(rulesFor(spec, { kind: "c" }, "isa").map((r) => r.name));
    expect(rules.length).toBeGreaterThan(0);
    const v = await proveRoutine(spec, { kind: "js" }, "isa", rules[0]!);
    expect(v.verdict).toBe("proved");
    await expect(proveRoutine(spec, { kind: "wasm" } as never, "isa", rules[0]!)).rejects.toThrow(/^proveRoutine: target must be one of/);
  });

  it("runVectors: a partial target set runs what it names; a list of targets too; omitted: all", async () => {
    const { vectors } = readVectors(VECTORS, "v.jsonl");
    const partial = await runVectors(vectors, "isa", { js: true });
    expect([partial.passed, partial.failed, partial.failures]).toEqual([1, 0, []]);
    const list = await runVectors(vectors, "isa", [{ kind: "ref" }, { kind: "amdgpu", mcpu: "gfx942" }, { kind: "js" }]);
    // Counts are of vector × target row: one vector on three rows.
    expect([list.passed, list.failed, list.rows]).toEqual([3, 0, ["ref", "amdgpu gfx942", "js"]]);
    expect(list.vectors).toEqual({ passed: 1, failed: 0, skipped: 0 });
    const all = await runVectors(vectors, "isa");
    expect([all.passed, all.failed, all.rows.length]).toEqual([8, 0, 8]);
    await expect(runVectors(vectors, "isa", { amdgpu: ["gfx1"] } as never)).rejects.toThrow(/^runVectors: targets\.amdgpu\[0\] must be one of gfx900, /);
    await expect(runVectors("x" as never, "isa")).rejects.toThrow(TypeError);
  });

  it("runVectors: a vector of the wrong shape is a TypeError naming its index, not a crash inside", async () => {
    const { vectors } = readVectors(VECTORS, "v.jsonl");
    await expect(runVectors([{}] as never, "isa")).rejects.toThrow(/^runVectors: vectors\[0\] must be a vector from readVectors/);
    await expect(runVectors([vectors[0]!, null] as never, "isa")).rejects.toThrow(/^runVectors: vectors\[1\] must be a vector.*not an object/);
    await expect(runVectors([{ ...vectors[0]!, inst: {} }] as never, "isa")).rejects.toThrow(/^runVectors: vectors\[0\].*inst is not a parsed instruction/);
    await expect(runVectors([{ ...vectors[0]!, in: undefined }] as never, "isa")).rejects.toThrow(TypeError);
  });
});
