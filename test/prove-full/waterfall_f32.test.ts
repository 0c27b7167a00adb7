/**
 * The waterfall induction over redux.sync.min.f32's key loop (targets/amdgpu/prove/
 * warp_waterfall.ts: the fold lemma over the keys, the key chain for every round's mask) on
 * gfx1100: about 2 minutes on a 2-core machine, so it runs in `npm run test:prove`, not in
 * CI. CI proves the key loop without the waterfall (test/warp_prove_tree.test.ts) and the
 * waterfalls of the integer folds (test/warp_waterfall.test.ts).
 */
import { describe, expect, it } from "vitest";
import "../../src/compose.js";
import { proveRoutine } from "../../src/check/prove.js";
import { amdgpu } from "../../src/check/prove_types.js";
import type { Form } from "../../src/ir/forms.js";
import type { WarpForm } from "../../src/ir/warp_forms.js";
import { reduxF32Rules } from "../../targets/amdgpu/rules/redux_f32.js";
import type { AmdRule } from "../../targets/amdgpu/rules/rule.js";

const MIN_F32: WarpForm = { op: "redux", reduxOp: "min", type: "f32", abs: false, NaN: false };
const f32Waterfall = reduxF32Rules.find((r) => r.name === "redux_f32_divergent_mask_waterfall")! as unknown as AmdRule;

describe("the .f32 waterfall over a divergent membermask is proved by induction", () => {
  it("redux.sync.min.f32 on gfx1100", { timeout: 600_000 }, async () => {
    const spec = { form: MIN_F32 as unknown as Form, kinds: { a: { kind: "v" }, membermask: { kind: "v" } }, guarded: false } as const;
    const v = await proveRoutine(spec, amdgpu("gfx1100"), "isa", f32Waterfall, { timeoutMs: 60_000 });
    expect(v.verdict, JSON.stringify(v).slice(0, 1500)).toBe("proved");
    if (v.verdict === "proved") expect(v.method).toMatch(/inductive waterfall invariant.*inner fold loop.*key chain 33 queries/);
  });
});
