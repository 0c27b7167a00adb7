/**
 * Issue 15 item 5: the compiled loop induction (targets/llvm/prove_compiled_loop.ts) on the
 * `.f32` redux loops — lane-mask facts found by Houdini, llc's loop with two back-edges — and
 * deliberately broken loops it must not prove (the bug-finder then refutes them). The
 * integer loops' cases are in test/prove_compiled_warp.test.ts; the same .f32 loop by the
 * lane-sliced trips (2½–3½ minutes) in test/prove-full/compiled_loop_trips.test.ts
 * (`npm run test:prove`).
 */
import { describe, expect, it } from "vitest";
import type { RoutineSpec } from "../src/ir/ir.js";
import type { WarpForm } from "../src/ir/warp_forms.js";
import type { MInst, MLine } from "../targets/amdgpu/minst.js";
import { isLabel, v } from "../targets/amdgpu/minst.js";
import { compiledToolsAvailable } from "../targets/llvm/compiled.js";
import { f32, vgprFn } from "./compiled_vgpr.js";
import { proveCompiledWarpLayout } from "../targets/llvm/prove_compiled_warp.js";
import { loadZ3 } from "../src/check/smt.js";

const tools = await compiledToolsAvailable();
if (!tools.ok) console.log(`test/prove_compiled_loop.test.ts: skipped, ${tools.reason}`);

const V = { kind: "v" } as const;

describe.skipIf(!tools.ok)("the compiled .f32 redux loops", () => {
  it("llc's gfx1100 redux.max.NaN.f32 loop (two back-edges, s_cbranch_vccz) is proved by one symbolic trip, with the 'a number was taken' and 'a NaN was seen' masks found", async () => {
    const { cf, sregs } = await vgprFn("llvm", "gfx1100", f32("max", true));
    const v = await proveCompiledWarpLayout(await loadZ3(), cf, "gfx1100", "llvm", sregs, "one warp", { induction: true, timeoutMs: 60_000 });
    expect(v.verdict).toBe("proved");
    const method = (v as { method: string }).method;
    expect(method).toMatch(/^z3 inductive per-thread fold invariant/);
    expect(method).toMatch(/s\d+ = a number was taken/);
    expect(method).toMatch(/s\d+ = a NaN was seen/);
    // The trip for every l at once, against src/sem/warp.ts's reduceF32Step (file comment).
    expect(method).toMatch(/\d+ queries, one symbolic trip/);
    // Its v_readlane of the s_ff1 lane proved a at lane l (lemma (e)), then replaced by it.
    expect(method).toMatch(/one symbolic trip \(its v_readlane is a at lane l\)/);
    // (f): each lane's claims — both flag facts' bits, acc, d — in one query.
    expect(method).toMatch(/, one query per lane/);
  }, 900_000);

  it("clang's gfx942 redux.add.u32 loop with an immediate a is proved on two warps in one wave64 by one symbolic trip", async () => {
    const spec: RoutineSpec = { form: { op: "redux", reduxOp: "add", type: "u32" } as WarpForm, kinds: { a: { kind: "imm", value: 5n }, membermask: V }, guarded: false };
    const { cf, sregs } = await vgprFn("hip", "gfx942", spec);
    const v = await proveCompiledWarpLayout(await loadZ3(), cf, "gfx942", "hip", sregs, "two warps", { induction: true, timeoutMs: 60_000 });
    expect(v.verdict).toBe("proved");
    expect((v as { method: string }).method).toMatch(/\d+ queries, one symbolic trip \(hip gfx942, vgpr, two warps\)$/);
  }, 900_000);

  it("without the induction, llc's .f32 loop (s_cbranch_vccz in its latch) goes through the bug-finder and is unknown, not a crash", async () => {
    const { cf, sregs } = await vgprFn("llvm", "gfx1100", f32("min", false));
    const v = await proveCompiledWarpLayout(await loadZ3(), cf, "gfx1100", "llvm", sregs, "one warp", { timeoutMs: 60_000 });
    expect(v.verdict).toBe("unknown");
    expect((v as { reason: string }).reason).toMatch(/compiled loop induction .* not run.*; bug-finder .*: no bug$/);
  }, 300_000);

  it("clang's gfx1100 redux.add.u32 loop whose v_readlane source holds membermask, not a, is not proved (lemma (e) is false there), then refuted", async () => {
    const spec: RoutineSpec = { form: { op: "redux", reduxOp: "add", type: "u32" } as WarpForm, kinds: { a: V, membermask: V }, guarded: false };
    const { cf, sregs } = await vgprFn("hip", "gfx1100", spec);
    const lines = cf.lines as MLine[];
    const rl = lines.filter((l): l is MInst => !isLabel(l) && l.op === "v_readlane_b32");
    expect(rl.length).toBe(1);
    const src = rl[0]!.ops[1]!;
    // The copy of a the v_readlane reads (v_mov_b32 vN, v0 before the loop) made a copy of
    // membermask's argument VGPR: the v_readlane still reads lane s_ff1 of a VGPR the loop
    // does not write, so the lemma is asked, and it is false.
    const mm = v(cf.args.filter((x) => !x.inreg).findIndex((x) => x.name === "membermask"));
    let edits = 0;
    const broken = lines.map((l) => {
      if (isLabel(l) || !l.op.startsWith("v_mov_b32") || l.ops[0]?.k !== "v" || src.k !== "v" || l.ops[0].n !== src.n) return l;
      edits++;
      return { ...l, ops: [l.ops[0], mm] } as MInst;
    });
    expect(edits).toBe(1);
    const w = await proveCompiledWarpLayout(await loadZ3(), { ...cf, lines: broken }, "gfx1100", "hip", sregs, "one warp", { induction: true, timeoutMs: 60_000 });
    expect(w.verdict).toBe("refuted");
    expect((w as { counterexample: string }).counterexample).toMatch(/ERROR: Value mismatch: d in wave lane \d+/);
  }, 600_000);

  it("clang's gfx1100 redux.xor.b32 loop is proved with one query per lane (f); made to or, not xor, it fails those, then the separate queries, then is refuted", async () => {
    const spec: RoutineSpec = { form: { op: "redux", reduxOp: "xor", type: "b32" } as WarpForm, kinds: { a: V, membermask: V }, guarded: false };
    const { cf, sregs } = await vgprFn("hip", "gfx1100", spec);
    const v = await proveCompiledWarpLayout(await loadZ3(), cf, "gfx1100", "hip", sregs, "one warp", { induction: true, timeoutMs: 60_000 });
    expect(v.verdict).toBe("proved");
    expect((v as { method: string }).method).toMatch(/\d+ queries, one symbolic trip \(its v_readlane is a at lane l\), one query per lane \(hip gfx1100, vgpr, one warp\)$/);
    // The fold's v_xor_b32 vN, vM, vN made v_or_b32.
    const lines = cf.lines as MLine[];
    let edits = 0;
    const broken = lines.map((l) => {
      if (isLabel(l) || !l.op.startsWith("v_xor_b32")) return l;
      edits++;
      return { ...l, op: l.op.replace("v_xor_b32", "v_or_b32") } as MInst;
    });
    expect(edits).toBe(1);
    const w = await proveCompiledWarpLayout(await loadZ3(), { ...cf, lines: broken }, "gfx1100", "hip", sregs, "one warp", { induction: true, timeoutMs: 60_000 });
    expect(w.verdict).toBe("refuted");
    expect((w as { counterexample: string }).counterexample).toMatch(/ERROR: Value mismatch: d in wave lane \d+/);
  }, 600_000);

  it("clang's gfx1100 redux.min.f32 loop made to forget which lanes took a number (s_or_b32 → s_mov_b32) is not proved by the induction, then refuted", async () => {
    const { cf, sregs } = await vgprFn("hip", "gfx1100", f32("min", false));
    const lines = cf.lines as MLine[];
    // The fold's "a number was taken" mask, the loop's first s_or_b32 sN, sN, sM (accumulating),
    // made s_mov_b32 sN, sM.
    let edits = 0;
    const broken = lines.map((l) => {
      if (isLabel(l) || l.op !== "s_or_b32" || edits > 0) return l;
      const [d, x, y] = l.ops;
      if (d?.k !== "s" || x?.k !== "s" || d.n !== x.n || y?.k !== "s") return l;
      edits++;
      return { ...l, op: "s_mov_b32", ops: [d, y] } as MInst;
    });
    expect(edits).toBe(1);
    const w = await proveCompiledWarpLayout(await loadZ3(), { ...cf, lines: broken }, "gfx1100", "hip", sregs, "one warp", { induction: true, timeoutMs: 60_000 });
    expect(w.verdict).toBe("refuted");
    expect((w as { counterexample: string }).counterexample).toMatch(/ERROR: Value mismatch: d in wave lane \d+/);
  }, 600_000);
});
