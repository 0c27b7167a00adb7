/**
 * The AMDGPU warp prover's waterfall induction (targets/amdgpu/prove/warp_waterfall.ts): the
 * divergent-membermask waterfalls of vote.sync and redux.sync (the fold loop nested in each
 * round; for .f32 the key loop, with its key chain) proved on a wave64 (gfx942) and a wave32 (gfx1100) processor, and broken waterfalls
 * refuted with a counterexample that replays concretely — the induction itself never proves
 * them. The expected reasons are the broken variants' own, never read off the prover.
 */
import { describe, expect, it } from "vitest";
import "../src/compose.js";
import { proveRoutine } from "../src/check/prove.js";
import { amdgpu } from "../src/check/prove_types.js";
import { loadZ3 } from "../src/check/smt.js";
import type { OperandKind, RoutineSpec } from "../src/ir/ir.js";
import type { WarpForm } from "../src/ir/warp_forms.js";
import type { Form } from "../src/ir/forms.js";
import { lowerWithRule } from "../targets/amdgpu/lower.js";
import type { MLine, MOp } from "../targets/amdgpu/minst.js";
import { proveWaterfall, waterfallShape } from "../targets/amdgpu/prove/warp_waterfall.js";
import { TARGETS } from "../targets/amdgpu/regs.js";
import { reduxRules } from "../targets/amdgpu/rules/redux.js";
import type { AmdRule } from "../targets/amdgpu/rules/rule.js";
import { voteRules } from "../targets/amdgpu/rules/vote.js";

const V: OperandKind = { kind: "v" };
const spec = (f: WarpForm, guarded = false): RoutineSpec => ({ form: f as unknown as Form, kinds: { a: V, membermask: V }, guarded });
const BALLOT: WarpForm = { op: "vote", sync: true, mode: "ballot", type: "b32", negA: false };
const ALL: WarpForm = { op: "vote", sync: true, mode: "all", type: "pred", negA: false };
const ADD: WarpForm = { op: "redux", reduxOp: "add", type: "u32" };
const MIN_S32: WarpForm = { op: "redux", reduxOp: "min", type: "s32" };
const voteWaterfall = voteRules.find((r) => r.name === "vote_divergent_mask_waterfall")! as unknown as AmdRule;
const reduxWaterfall = reduxRules.find((r) => r.name === "redux_divergent_mask_waterfall")! as unknown as AmdRule;

describe("the waterfall over a divergent membermask is proved by induction", () => {
  // Each form on one of a wave64 and a wave32 processor, each processor twice (CI's time;
  // prove-all proves every form on all five).
  const cases: [string, WarpForm, AmdRule, boolean, "gfx942" | "gfx1100"][] = [
    ["vote.sync.ballot.b32", BALLOT, voteWaterfall, false, "gfx942"],
    ["vote.sync.all.pred (guarded)", ALL, voteWaterfall, true, "gfx1100"],
    ["redux.sync.add.u32", ADD, reduxWaterfall, false, "gfx1100"],
    ["redux.sync.min.s32 (guarded)", MIN_S32, reduxWaterfall, true, "gfx942"],
    // redux.sync.min.f32's key loop (≈ 2 min: the fold lemma over the keys, the key chain for
    // every round's mask) is in test/prove-full/waterfall_f32.test.ts (`npm run test:prove`).
  ];
  for (const [name, f, rule, guarded, mcpu] of cases)
      it(`${name} on ${mcpu}`, { timeout: 300_000 }, async () => {
        const v = await proveRoutine(spec(f, guarded), amdgpu(mcpu), "isa", rule, { timeoutMs: 60_000 });
        expect(v.verdict, JSON.stringify(v).slice(0, 1500)).toBe("proved");
        if (v.verdict === "proved") expect(v.method).toMatch(rule === reduxWaterfall ? /inductive waterfall invariant.*inner fold loop/ : /inductive waterfall invariant/);
      });
});

/** The first line with mnemonic `op` at or after `from`. */
const find = (lines: MLine[], op: string, from = 0) => lines.findIndex((l, i) => i >= from && "op" in l && l.op === op);
const sameReg = (x: MOp, y: MOp) => x.k === y.k && "n" in x && "n" in y && x.n === y.n;

/** Broken waterfalls: the real rule's lines, one plausible mistake each. */
const BROKEN: { name: string; f: WarpForm; rule: AmdRule; reason: RegExp }[] = [
  {
    // HIP's __all_sync mistake inside a round: the members are the first lane's membermask,
    // not membermask ∩ E, so exited lanes the mask names count in the ballot.
    name: "a round's members not intersected with the executing lanes",
    f: BALLOT,
    reason: /Value mismatch: d in lane \d+/,
    rule: {
      ...voteWaterfall,
      name: "broken_waterfall_members_not_in_exec",
      emit: (f, m, c) => {
        voteWaterfall.emit(f, m, c);
        const i = find(m.lines, "v_readfirstlane_b32");
        const sm = (m.lines[i] as { ops: MOp[] }).ops[0]!;
        const j = m.lines.findIndex((l, k) => k > i && "op" in l && l.op === "s_and_b32" && sameReg(l.ops[1]!, sm));
        const and = m.lines[j] as { op: string; ops: MOp[] };
        m.lines[j] = { op: "s_mov_b32", ops: [and.ops[0]!, sm] } as MLine;
      },
    },
  },
  {
    // The loop's exit does not restore exec: every lane is retired by then, so the result is
    // written with exec empty and d keeps a stale value (the trace shows exec 0 at the write).
    name: "exec not restored after the last round",
    f: ADD,
    // Its own two symptoms: exec left 0 (the contract), and so d not written; z3's model may show either first.
    reason: /(exec is not restored|Value mismatch: d in lane \d+)[\s\S]*exec(_lo)? += #x0+ \(0\)\n\s+s_cbranch_scc1 \S+\n\s+v_mov_b32_e32 v0/,
    rule: {
      ...reduxWaterfall,
      name: "broken_waterfall_exec_not_restored",
      emit: (f, m, c) => {
        reduxWaterfall.emit(f, m, c);
        let back = m.lines.length - 1;
        while (!("op" in m.lines[back]! && (m.lines[back] as { op: string }).op === "s_cbranch_scc1")) back--;
        m.lines.splice(back + 1, 1); // the s_mov exec, saved-exec after the loop
      },
    },
  },
];

describe("broken waterfalls: refuted with a replayed counterexample, never proved by the induction", () => {
  for (const [b, mcpu] of [[BROKEN[0]!, "gfx1100"], [BROKEN[1]!, "gfx942"]] as const)
      it(`${b.name} (${mcpu})`, { timeout: 300_000 }, async () => {
        const r = lowerWithRule(spec(b.f), TARGETS[mcpu], "isa", b.rule);
        expect(typeof waterfallShape(r.lines), "still a waterfall").toBe("object");
        const env = await loadZ3();
        const w = await proveWaterfall(env, r, "isa", 60_000, performance.now());
        expect("verdict" in w && w.verdict.verdict, JSON.stringify(w).slice(0, 600)).toBe("unknown");
        const v = await proveRoutine(spec(b.f), amdgpu(mcpu), "isa", b.rule, { timeoutMs: 60_000 });
        expect(v.verdict, JSON.stringify(v).slice(0, 1500)).toBe("refuted");
        if (v.verdict !== "refuted") return;
        expect(v.counterexample).toMatch(/REFUTED \(z3/);
        expect(`${v.reason}\n${v.counterexample}`).toMatch(b.reason);
      });
});
