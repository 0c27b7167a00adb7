/**
 * The compiled loop induction's lane-sliced trips (targets/llvm/prove_compiled_loop.ts: the
 * trips one l at a time, asked when one symbolic trip does not prove) on llc's gfx1100
 * `redux.max.NaN.f32` loop: 155–214 s on a 2-core machine, so it runs in `npm run test:prove`,
 * not in CI. CI's test/prove_compiled_loop.test.ts proves the same loop by one symbolic trip.
 */
import { describe, expect, it } from "vitest";
import { compiledToolsAvailable } from "../../targets/llvm/compiled.js";
import { proveCompiledWarpLayout } from "../../targets/llvm/prove_compiled_warp.js";
import { loadZ3 } from "../../src/check/smt.js";
import { f32, vgprFn } from "../compiled_vgpr.js";

const tools = await compiledToolsAvailable();
if (!tools.ok) console.log(`test/prove-full/compiled_loop_trips.test.ts: skipped, ${tools.reason}`);

describe.skipIf(!tools.ok)("the compiled .f32 redux loops, by the trips", () => {
  it("llc's gfx1100 redux.max.NaN.f32 loop by the trips one l at a time (lane-sliced, queries proved generalized)", async () => {
    const { cf, sregs } = await vgprFn("llvm", "gfx1100", f32("max", true));
    const v = await proveCompiledWarpLayout(await loadZ3(), cf, "gfx1100", "llvm", sregs, "one warp", { induction: "trips", timeoutMs: 60_000 });
    expect(v.verdict).toBe("proved");
    const method = (v as { method: string }).method;
    expect(method).toMatch(/s\d+ = a number was taken/);
    expect(method).toMatch(/s\d+ = a NaN was seen/);
    expect(method).toMatch(/lane-sliced trips \([1-9]\d* proved generalized\)/);
  }, 900_000);
});
