/**
 * The warp-level family's broken corpus (test/warp_broken.ts), refuted by the AMDGPU prover
 * (targets/amdgpu/prove/warp.ts): each wrong lowering gets a counterexample that replays
 * concretely, for its own reason (the reason pattern is asserted), on the first processor its
 * entry names and on a wave32 one where it names all five. The expected reasons are the corpus's,
 * never read off the prover.
 */
import { describe, expect, it } from "vitest";
import "../src/compose.js";
import { proveRoutine } from "../src/check/prove.js";
import { amdgpu } from "../src/check/prove_types.js";
import type { AmdRule } from "../targets/amdgpu/rules/rule.js";
import { BROKEN, warpSpec } from "./warp_broken.js";

describe("the warp-level broken corpus: the prover refutes each variant for its own reason", () => {
  for (const b of BROKEN) {
    const mcpus = b.mcpus.length === 5 ? [b.mcpus[0]!, "gfx1100" as const] : [b.mcpus[0]!];
    for (const mcpu of mcpus) {
      it(`${b.name} (${mcpu})`, async () => {
        const spec = warpSpec(b.f, b.kinds, b.guarded ?? false);
        const v = await proveRoutine(spec, amdgpu(mcpu), "isa", b.rule as unknown as AmdRule, { timeoutMs: 60_000 });
        expect(v.verdict, JSON.stringify(v).slice(0, 1500)).toBe("refuted");
        if (v.verdict !== "refuted") return;
        expect(v.counterexample).toMatch(/REFUTED \(z3/);
        expect(`${v.reason}\n${v.counterexample}`).toMatch(b.proverReason);
      });
    }
  }
});
