/**
 * The hazard pass's results by sequence shape (targets/amdgpu/hazards.ts `hazardPass`,
 * `shapeOf`): a sequence of a shape seen before gets the same waits and order, made of its own
 * instructions (its immediates, not the first sequence's), and a wait's own count is never
 * abstracted away. What is expected: the first sequence's result with the second's immediates
 * (the reordering is the pass's choice), the wait states hazards.md §1 asks for, and the
 * caller's own instruction objects.
 */
import { describe, expect, it } from "vitest";
import { hazardPass, hazardTarget, LLVM_ENTRY } from "../targets/amdgpu/hazards.js";
import type { MInst, MLine, MOp } from "../targets/amdgpu/minst.js";
import { imm, isLabel, printOp, v } from "../targets/amdgpu/minst.js";
import type { Mnemonic } from "../targets/amdgpu/isa/index.js";
import { TARGETS } from "../targets/amdgpu/regs.js";

const I = (op: Mnemonic, ops: MOp[], enc?: "e32" | "e64"): MInst => ({ op, ops, ...(enc ? { enc } : {}), rule: "shape_cache_test" });
const VCC: MOp = { k: "vcc" };
const text = (ls: readonly MLine[]) => ls.map((l) => (isLabel(l) ? `${l.label}:` : `${l.op} ${l.ops.map(printOp).join(", ")}`));
const T = hazardTarget(TARGETS.gfx942);

/** szext.clamp's shape (hazards.md §1) with the compare's bound `k` (a literal unless inline). */
const clampWith = (k: bigint): MLine[] => [I("v_bfe_i32", [v(2), v(0), imm(0), v(1)]), I("v_cmp_lt_u32", [VCC, imm(k), v(1)], "e32"), I("v_cndmask_b32", [v(0), v(2), v(0), VCC], "e32")];

describe("hazardPass by sequence shape", () => {
  it("a second sequence of the same shape gets its own instructions, with the same wait", () => {
    const a = clampWith(0x12345n);
    const b = clampWith(0x54321n);
    const pa = hazardPass(a, T, LLVM_ENTRY);
    const pb = hazardPass(b, T, LLVM_ENTRY);
    // The same order and waits, with b's immediate: a's output with 0x12345 made 0x54321.
    expect(text(pb.lines)).toEqual(text(pa.lines).map((x) => x.replace("0x12345", "0x54321")));
    // And enough of them (hazards.md §1, gfx942: two wait states from the VALU write of vcc to
    // v_cndmask's read of it; an instruction between counts one, s_nop N counts N + 1).
    const ls = pb.lines.filter((l): l is MInst => !isLabel(l));
    const cmp = ls.findIndex((l) => l.op === "v_cmp_lt_u32");
    const sel = ls.findIndex((l) => l.op === "v_cndmask_b32");
    const states = ls.slice(cmp + 1, sel).reduce((n, l) => n + (l.op === "s_nop" ? Number((l.ops[0] as { value: bigint }).value) + 1 : 1), 0);
    expect(cmp).toBeGreaterThanOrEqual(0);
    expect(states).toBeGreaterThanOrEqual(2);
    // Its own objects: nothing of the first sequence leaks into the second.
    for (const l of pb.lines) if (!isLabel(l) && l.op !== "s_nop") expect(b).toContain(l);
  });

  it("one object at two places is not kept as a recipe (which same-shape line goes where is unknown)", () => {
    const shared = I("v_mov_b32", [v(4), imm(0x1111n)], "e32");
    const first = hazardPass([shared, I("v_add_u32", [v(5), v(4), v(4)], "e32"), shared], T, LLVM_ENTRY);
    expect(text(first.lines)).toEqual(["v_mov_b32 v4, 0x1111", "v_add_u32 v5, v4, v4", "v_mov_b32 v4, 0x1111"]);
    const second = hazardPass([I("v_mov_b32", [v(4), imm(0x2222n)], "e32"), I("v_add_u32", [v(5), v(4), v(4)], "e32"), I("v_mov_b32", [v(4), imm(0x3333n)], "e32")], T, LLVM_ENTRY);
    expect(text(second.lines)).toEqual(["v_mov_b32 v4, 0x2222", "v_add_u32 v5, v4, v4", "v_mov_b32 v4, 0x3333"]);
  });
});
