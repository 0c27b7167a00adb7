/**
 * The redux proofs past the plain query's reach (issue 15): the linear-form reduction of
 * `redux.add` (targets/amdgpu/prove/warp_tree.ts on AMDGPU's DPP butterfly, `pirLinearOnly` on
 * the PIR), the threshold (min/max) and bit-slice (and/or/xor) reductions of the butterfly
 * (src/check/lattice.ts `LatticeBV`), and the `.f32` key loop's induction over its keys and the key
 * chain (targets/amdgpu/prove/warp_loop.ts).
 * Each proves one routine, and a broken variant of it is refuted with a counterexample that
 * replays concretely; the checks that license the reduction reject what they must. The
 * expected verdicts and reasons are the variants' own, never read off the prover.
 */
import { describe, expect, it } from "vitest";
import "../src/compose.js";
import { PIR, proveRoutine } from "../src/check/prove.js";
import { amdgpu } from "../src/check/prove_types.js";
import type { WarpForm } from "../src/ir/warp_forms.js";
import { lowerWithRule } from "../targets/amdgpu/lower.js";
import { imm, s, v } from "../targets/amdgpu/minst.js";
import type { MLine, MOp } from "../targets/amdgpu/minst.js";
import { linearOnly } from "../targets/amdgpu/prove/warp_tree.js";
import { TARGETS } from "../targets/amdgpu/regs.js";
import { reduxRules } from "../targets/amdgpu/rules/redux.js";
import { reduxF32Rules } from "../targets/amdgpu/rules/redux_f32.js";
import type { AmdRule } from "../targets/amdgpu/rules/rule.js";
import { pirLinearOnly } from "../targets/portable/prove.js";
import type { PExpr, PStmt } from "../targets/portable/pir.js";
import type { PortableRule } from "../targets/portable/rules/index.js";
import { portableRulesFor } from "../targets/portable/rules/index.js";
import { warpSpec } from "./warp_broken.js";

const ADD: WarpForm = { op: "redux", reduxOp: "add", type: "u32" };
const MIN_F32: WarpForm = { op: "redux", reduxOp: "min", type: "f32", abs: false, NaN: false };
const KINDS = { a: { kind: "v" as const }, membermask: { kind: "s" as const } };
const tree = reduxRules.find((r) => r.name === "redux_uniform_mask_dpp_tree")! as unknown as AmdRule;
const keyLoop = reduxF32Rules.find((r) => r.name === "redux_f32_uniform_mask_key_loop")! as unknown as AmdRule;
const keyTree = reduxF32Rules.find((r) => r.name === "redux_f32_uniform_mask_key_dpp_tree")! as unknown as AmdRule;

/** A variant of `rule` whose emitted lines are edited by `edit` (before the hazard pass). */
function edited(rule: AmdRule, name: string, edit: (lines: MLine[]) => void): AmdRule {
  return { ...rule, name, emit: (f, m, c) => (rule.emit(f, m, c), edit(m.lines)) } as AmdRule;
}
const ops = (l: MLine) => ("op" in l ? l : null);
/** A line of a hand-written sequence. */
const L = (op: string, ...o: MOp[]): MLine => ({ op, ops: o, rule: "test" }) as unknown as MLine;

describe("linearOnly: the values of a are only added and moved", () => {
  const a = v(0);
  it("holds for the DPP butterfly of redux.add (gfx942, gfx1030)", () => {
    for (const mcpu of ["gfx942", "gfx1030"] as const) {
      const r = lowerWithRule(warpSpec(ADD, KINDS, false), TARGETS[mcpu], "isa", tree);
      expect(linearOnly(r.lines, r.layout.src.a!)).toBeNull();
    }
  });
  it("fails for a bitwise op on a, a read of a sum's carry, a as exec, a as a lane index", () => {
    expect(linearOnly([L("v_and_b32", v(1), imm(1), a)], a)).toMatch(/v_and_b32.*neither adds nor moves/);
    expect(linearOnly([L("v_readlane_b32", s(1), a, imm(0)), L("s_add_u32", s(1), s(1), s(1)), L("s_cselect_b32", s(2), imm(1), imm(0))], a)).toMatch(/s_cselect_b32.*carry|reads scc/);
    expect(linearOnly([L("v_lshlrev_b32", v(1), imm(1), a)], a)).toMatch(/v_lshlrev_b32/);
    expect(linearOnly([L("v_readlane_b32", s(1), a, imm(0)), L("s_mov_b32", { k: "exec_lo" }, s(1))], a)).toMatch(/exec depends on a/);
    expect(linearOnly([L("v_readlane_b32", s(1), a, imm(0)), L("v_readlane_b32", s(2), v(1), s(1))], a)).toMatch(/lane index/);
  });
});

describe("redux.add by the DPP butterfly: proved on the unit vectors; broken trees refuted", () => {
  const spec = warpSpec(ADD, KINDS, false);
  it("proves redux.add.u32 (gfx942)", async () => {
    const v = await proveRoutine(spec, amdgpu("gfx942"), "isa", tree, { timeoutMs: 60_000 });
    expect(v.verdict, JSON.stringify(v).slice(0, 600)).toBe("proved");
    if (v.verdict === "proved") expect(v.method).toMatch(/unit vectors/);
  }, 120_000);
  // The second stage reads lane i^1 again (quad_perm [1,0,3,2], not [2,3,0,1]): each lane's
  // pair is counted twice and lanes i^2, i^3 never.
  const twice = edited(tree, "broken_tree_stage_repeated", (lines) => {
    for (const l of lines) {
      const x = ops(l);
      const c = x?.op === "v_mov_b32_dpp" ? 2 : 3; // dpp_ctrl: after vdst, src0 (and src1)
      if (x?.op.endsWith("_dpp") && x.ops[c]!.k === "imm" && (x.ops[c] as { value: bigint }).value === 0x4en) x.ops[c] = imm(0xb1);
    }
  });
  // The holes (non-members, exited lanes) hold 1, not add's identity 0.
  const holes = edited(tree, "broken_tree_holes_not_identity", (lines) => {
    const i = lines.findIndex((l) => ops(l)?.op === "v_mov_b32" && ops(l)!.ops[1]!.k === "imm");
    ops(lines[i]!)!.ops[1] = imm(1);
  });
  for (const [b, mcpu] of [
    [twice, "gfx1030"],
    [holes, "gfx942"],
  ] as const)
    it(`refutes ${b.name} (${mcpu})`, async () => {
      const v = await proveRoutine(spec, amdgpu(mcpu), "isa", b, { timeoutMs: 60_000 });
      expect(v.verdict, JSON.stringify(v).slice(0, 600)).toBe("refuted");
      if (v.verdict === "refuted") expect(`${v.reason}\n${v.counterexample}`).toMatch(/Value mismatch: d in lane \d+[\s\S]*REFUTED|REFUTED[\s\S]*Value mismatch: d in lane \d+/);
    }, 120_000);
});

describe("redux.min/.max and .and/.or/.xor by the DPP butterfly: proved on two lane values (the threshold and bit-slice reductions); broken trees refuted", () => {
  const MIN_S32: WarpForm = { op: "redux", reduxOp: "min", type: "s32" };
  const MAX_U32: WarpForm = { op: "redux", reduxOp: "max", type: "u32" };
  const XOR: WarpForm = { op: "redux", reduxOp: "xor", type: "b32" };
  it("proves redux.min.s32 (gfx1030) and redux.max.u32 (gfx942)", async () => {
    for (const [f, mcpu] of [
      [MIN_S32, "gfx1030"],
      [MAX_U32, "gfx942"],
    ] as const) {
      const v = await proveRoutine(warpSpec(f, KINDS, false), amdgpu(mcpu), "isa", tree, { timeoutMs: 60_000 });
      expect(v.verdict, JSON.stringify(v).slice(0, 600)).toBe("proved");
      if (v.verdict === "proved") expect(v.method).toMatch(/threshold reduction/);
    }
  }, 120_000);
  const twice = edited(tree, "broken_tree_stage_repeated", (lines) => {
    for (const l of lines) {
      const x = ops(l);
      const c = x?.op === "v_mov_b32_dpp" ? 2 : 3; // dpp_ctrl: after vdst, src0 (and src1)
      if (x?.op.endsWith("_dpp") && x.ops[c]!.k === "imm" && (x.ops[c] as { value: bigint }).value === 0x4en) x.ops[c] = imm(0xb1);
    }
  });
  // max.u32's holes hold 0xffffffff (⊤), not its identity 0.
  const holes = edited(tree, "broken_tree_holes_top", (lines) => {
    const i = lines.findIndex((l) => ops(l)?.op === "v_mov_b32" && ops(l)!.ops[1]!.k === "imm");
    ops(lines[i]!)!.ops[1] = imm(-1);
  });
  // min.s32 folded with the unsigned v_min_u32 / s_min_u32: two orders, so not a lattice
  // polynomial in one — the full-width query refutes it.
  const unsigned = edited(tree, "broken_tree_unsigned_min", (lines) => {
    for (const l of lines) if (ops(l)) ops(l)!.op = ops(l)!.op.replace("min_i32", "min_u32") as never;
  });
  it("proves redux.xor.b32 (gfx1030) by the bit-slice reduction", async () => {
    const v = await proveRoutine(warpSpec(XOR, KINDS, false), amdgpu("gfx1030"), "isa", tree, { timeoutMs: 60_000 });
    expect(v.verdict, JSON.stringify(v).slice(0, 600)).toBe("proved");
    if (v.verdict === "proved") expect(v.method).toMatch(/bit-slice reduction/);
  }, 120_000);
  for (const [b, f, mcpu] of [
    [twice, XOR, "gfx942"],
    [twice, MIN_S32, "gfx942"],
    [holes, MAX_U32, "gfx1030"],
    [unsigned, MIN_S32, "gfx1030"],
  ] as const)
    it(`refutes ${b.name} (${mcpu})`, async () => {
      const v = await proveRoutine(warpSpec(f, KINDS, false), amdgpu(mcpu), "isa", b, { timeoutMs: 60_000 });
      expect(v.verdict, JSON.stringify(v).slice(0, 600)).toBe("refuted");
      if (v.verdict === "refuted") expect(`${v.reason}\n${v.counterexample}`).toMatch(/Value mismatch: d in lane \d+/);
    }, 120_000);
});

describe("redux.add on the PIR (JS, C): proved on the unit vectors; a broken fold refuted", () => {
  const spec = warpSpec(ADD, KINDS, false);
  const rule = portableRulesFor(spec)[0]!;
  it("pirLinearOnly holds for the add fold and fails for the min fold (a compared)", () => {
    expect(pirLinearOnly(rule.build(spec, "isa"))).toBeNull();
    const min = warpSpec({ op: "redux", reduxOp: "min", type: "u32" }, KINDS, false);
    expect(pirLinearOnly(portableRulesFor(min)[0]!.build(min, "isa"))).toMatch(/reaches ult/);
  });
  it("proves redux.add.u32", async () => {
    const v = await proveRoutine(spec, PIR, "isa", rule, { timeoutMs: 60_000 });
    expect(v.verdict, JSON.stringify(v).slice(0, 600)).toBe("proved");
    if (v.verdict === "proved") expect(v.method).toMatch(/unit vectors/);
  }, 120_000);
  it("refutes a fold that starts at 1", async () => {
    const broken: PortableRule = {
      ...rule,
      name: "broken_fold_starts_at_1",
      build: (sp, p) => {
        const fn = rule.build(sp, p);
        let top = 0;
        const ids = (e: unknown): void => {
          if (e && typeof e === "object") {
            if (typeof (e as { id?: unknown }).id === "number") top = Math.max(top, (e as { id: number }).id);
            Object.values(e).forEach(ids);
          }
        };
        ids(fn.body);
        const map = (xs: PStmt[]): PStmt[] =>
          xs.map((st) => (st.s === "var" && st.name === "acc" ? { ...st, value: { ...st.value, value: 1n, id: top + 1 } as PExpr } : st.s === "for" ? { ...st, body: map(st.body) } : st));
        return { ...fn, body: map(fn.body) };
      },
    };
    const v = await proveRoutine(spec, PIR, "isa", broken, { timeoutMs: 60_000 });
    expect(v.verdict, JSON.stringify(v).slice(0, 600)).toBe("refuted");
    if (v.verdict === "refuted") expect(v.reason).toMatch(/Value mismatch \(d\[\d+\]\)/);
  }, 120_000);
});

describe("redux.min.f32 by the key loop: the loop lemma over the keys and the key chain prove it; a wrong key transform is refuted", () => {
  const spec = warpSpec(MIN_F32, KINDS, false);
  it("proves redux.min.f32 (gfx1030): loop lemma, key chain, exit", async () => {
    const v = await proveRoutine(spec, amdgpu("gfx1030"), "isa", keyLoop, { timeoutMs: 60_000 });
    expect(v.verdict, JSON.stringify(v).slice(0, 600)).toBe("proved");
    if (v.verdict === "proved") expect(v.method).toMatch(/loop lemma [0-9a-f]+: 33 queries .*key chain 33 queries/);
  }, 600_000);
  // The key without its sign flip (a ^ (a >>s 31), not a ^ ((a >>s 31) | 0x80000000)): the
  // u32 order of these keys is not the reference's, and the decode is wrong.
  const wrongKey = edited(keyLoop, "broken_key_no_sign_flip", (lines) => {
    const i = lines.findIndex((l) => ops(l)?.op === "v_or_b32" && ops(l)!.ops[1]!.k === "imm" && (ops(l)!.ops[1] as { value: bigint }).value === -0x80000000n && ops(l)!.ops[0]!.k === "v" && (ops(l)!.ops[2] as { n?: number }).n === (ops(l)!.ops[0] as { n: number }).n);
    ops(lines[i]!)!.ops[1] = imm(0);
  });
  it("refutes a key loop whose key transform lacks the sign flip (gfx942)", async () => {
    const v = await proveRoutine(spec, amdgpu("gfx942"), "isa", wrongKey, { timeoutMs: 60_000 });
    expect(v.verdict, JSON.stringify(v).slice(0, 600)).toBe("refuted");
    if (v.verdict === "refuted") expect(`${v.reason}\n${v.counterexample}`).toMatch(/Value mismatch: d in lane \d+/);
  }, 300_000);
});

describe("redux.min.abs.f32 by the key loop: a key without the .abs mask is refuted", () => {
  const MIN_ABS: WarpForm = { op: "redux", reduxOp: "min", type: "f32", abs: true, NaN: false };
  const spec = warpSpec(MIN_ABS, KINDS, false);
  // .abs dropped from the key (v_and_b32 mag, 0x7fffffff, a made a copy of a): a negative
  // member's key is a | 0x80000000, above every positive key, so min(|−2|, |1|) picks the
  // wrong member; the decode still clears the sign.
  const noAbs = edited(keyLoop, "broken_key_abs_dropped", (lines) => {
    const i = lines.findIndex((l) => ops(l)?.op === "v_and_b32" && ops(l)!.ops[1]!.k === "imm" && (ops(l)!.ops[1] as { value: bigint }).value === 0x7fffffffn);
    ops(lines[i]!)!.ops[1] = imm(-1);
  });
  it("refutes a key loop whose key drops .abs (gfx1100)", async () => {
    const v = await proveRoutine(spec, amdgpu("gfx1100"), "isa", noAbs, { timeoutMs: 60_000 });
    expect(v.verdict, JSON.stringify(v).slice(0, 600)).toBe("refuted");
    if (v.verdict === "refuted") expect(`${v.reason}\n${v.counterexample}`).toMatch(/Value mismatch: d in lane \d+/);
  }, 300_000);
});

describe(".f32 by the key tree (proved by prove:all): a key tree with ⊤ holes is refuted", () => {
  const MAX_F32: WarpForm = { op: "redux", reduxOp: "max", type: "f32", abs: false, NaN: true };
  const spec = warpSpec(MAX_F32, KINDS, false);
  // The key tree's proof (≈ 4 min under load) is left to `npm run prove:all`, which proves every
  // .f32 key tree on every processor; CI refutes the broken one below.
  // The holes (NaN members, non-members, exited lanes) hold 0xffffffff, the top of the key
  // order, not max's identity 0: a hole wins the fold.
  const holes = edited(keyTree, "broken_key_tree_holes_top", (lines) => {
    const i = lines.findIndex((l) => ops(l)?.op === "v_mov_b32" && ops(l)!.ops[1]!.k === "imm" && (ops(l)!.ops[1] as { value: bigint }).value === 0n);
    ops(lines[i]!)!.ops[1] = imm(-1);
  });
  it("refutes a key tree whose holes hold the top key (gfx1030)", async () => {
    const v = await proveRoutine(spec, amdgpu("gfx1030"), "isa", holes, { timeoutMs: 60_000 });
    expect(v.verdict, JSON.stringify(v).slice(0, 600)).toBe("refuted");
    if (v.verdict === "refuted") expect(`${v.reason}\n${v.counterexample}`).toMatch(/Value mismatch: d in lane \d+/);
  }, 300_000);
});
