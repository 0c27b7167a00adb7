/**
 * `shuffleOnly` (targets/amdgpu/prove/warp.ts), the condition of the warp prover's
 * small-value reduction: a's values may only move. Flow-sensitive on forward-only code (a
 * register read before a's value reaches it is no use of a), flow-insensitive with a
 * back-edge, and implicit state (exec) counts as a use. The lines are written here by hand.
 */
import { describe, expect, it } from "vitest";
import "../src/compose.js";
import { shuffleOnly } from "../targets/amdgpu/prove/warp.js";
import type { MLine, MOp } from "../targets/amdgpu/minst.js";

const v = (n: number): MOp => ({ k: "v", n, count: 1 });
const s = (n: number, count: 1 | 2 = 1): MOp => ({ k: "s", n, count });
const imm = (x: number): MOp => ({ k: "imm", value: BigInt(x) });
const I = (op: string, ...ops: MOp[]): MLine => ({ op, ops, rule: "test" }) as MLine;

// The shape of shfl_bpermute with a uniform a (s0) and b in v0: b's register v0 is read for the
// lane index before ds_bpermute writes a's moved value into it.
const bperm = [
  I("v_and_b32", v(4), imm(31), v(0)),
  I("v_lshlrev_b32", v(10), imm(2), v(4)),
  I("v_mov_b32", v(11), s(0)),
  I("ds_bpermute_b32", v(0), v(10), v(11), imm(0)),
  I("s_waitcnt", imm(0xc07f)),
];

describe("shuffleOnly", () => {
  it("accepts a register read as an index before a's value reaches it (forward-only code)", () => {
    expect(shuffleOnly(bperm, s(0))).toBeNull();
  });
  it("refuses a's moved value used as an index afterwards", () => {
    const lines = [...bperm, I("v_and_b32", v(5), imm(31), v(0))];
    expect(shuffleOnly(lines, s(0))).toMatch(/^v_and_b32 v5, 31, v0: a value of a is an operand of v_and_b32/);
  });
  it("refuses a's value as ds_bpermute's address", () => {
    const lines = [I("v_mov_b32", v(10), v(1)), I("ds_bpermute_b32", v(0), v(10), v(2), imm(0))];
    expect(shuffleOnly(lines, v(1))).toMatch(/^ds_bpermute_b32 .*its lane index, address or mask/);
  });
  it("refuses a copy of a into exec at the next instruction that reads exec", () => {
    const lines = [I("s_mov_b64", { k: "exec" }, s(0, 2)), I("v_mov_b32", v(0), v(1))];
    expect(shuffleOnly(lines, s(0))).toMatch(/^v_mov_b32 v0, v1: reads exec/);
  });
  it("with a back-edge, a register tainted later in the loop is tainted at its top too", () => {
    const loop = [{ label: ".L0" } as MLine, I("v_and_b32", v(4), imm(31), v(0)), I("v_mov_b32", v(0), s(0)), I("s_cbranch_scc1", { k: "label", name: ".L0" })];
    expect(shuffleOnly(loop, s(0))).toMatch(/^v_and_b32 v4, 31, v0/);
    // The same lines without the back-edge: v0 is read before a reaches it.
    expect(shuffleOnly(loop.slice(1, 3), s(0))).toBeNull();
  });
});
