/**
 * The PIR warp prover's value reductions (targets/portable/prove.ts `provePirWarpLevel`): the
 * guarded integer min/max fold proved on a's values ⊥/⊤ of its order (the threshold reduction,
 * checked on the run by src/check/lattice.ts's `LatticeBV`), a guarded xor fold
 * on 0/0xffffffff (the bit-slice reduction); and broken folds refuted with a counterexample that
 * replays concretely — one that skips the guard (still order-only: refuted on the reduced values) and one that compares .s32 values unsigned (not order-only in the
 * signed order: the check refuses the reduction and the full-width run refutes it), one over
 * exited lanes (the lane lemma on the members fails and the plain condition refutes); a guarded
 * .f32 fold proved at full width with the lane lemmas, and one that drops the canonical NaN
 * refuted. The broken
 * folds are written here, on the rules' frame (`warpLevelRoutine`), not read off the prover;
 * the expected verdicts and reasons are their own. (Skipping the guard in the members alone is
 * no bug: a named lane that does not execute leaves the result undefined, src/sem/members.ts W2.)
 */
import { describe, expect, it } from "vitest";
import "../src/compose.js";
import { PIR, proveRoutine } from "../src/check/prove.js";
import type { WarpForm } from "../src/ir/warp_forms.js";
import type { PExpr, PStmt } from "../targets/portable/pir.js";
import { u32 } from "../targets/portable/pir.js";
import type { PortableRule } from "../targets/portable/rules/index.js";
import { portableRulesFor } from "../targets/portable/rules/index.js";
import type { LaneCtx } from "../targets/portable/rules/warp.js";
import { warpLevelRoutine } from "../targets/portable/rules/warp.js";
import { warpSpec } from "./warp_broken.js";

const v = { kind: "v" } as const;
const s = { kind: "s" } as const;
const MIN_S32: WarpForm = { op: "redux", reduxOp: "min", type: "s32" };

/**
 * A min.s32 fold over lane i's members written here: start at 0x7fffffff, take a[j] where the
 * member bit is set and a[j] is below the accumulator (`lt`); `members` picks the lanes.
 */
function minFold(name: string, lt: "slt" | "ult", members: (x: LaneCtx) => PExpr = (x) => x.members): PortableRule {
  const real = portableRulesFor(warpSpec(MIN_S32, { a: v, membermask: v }, true))[0]!;
  return {
    ...real,
    name,
    build: (spec) =>
      warpLevelRoutine(spec, (P, x) => {
        const j = P.ref("j", u32);
        const acc = P.ref("acc", u32);
        const aj = x.src("a", j);
        const bit = P.cmp("eq", P.and(P.bin("lshr", P.ref("members", u32), j), P.c(1, 32)), P.c(1, 32));
        const pre: PStmt[] = [
          { s: "let", name: "members", value: members(x) },
          { s: "var", name: "acc", value: P.c(0x7fffffff, 32) },
          { s: "for", index: "j", n: 32, body: [{ s: "set", name: "acc", value: P.select(bit, P.select(P.cmp(lt, aj, acc), aj, acc), acc) }] },
        ];
        return { pre, d: acc };
      }),
  };
}

describe("the PIR warp prover's value reductions", () => {
  it("proves a guarded redux.min.s32 (divergent membermask) by the threshold reduction", async () => {
    const spec = warpSpec(MIN_S32, { a: v, membermask: v }, true);
    const v0 = await proveRoutine(spec, PIR, "isa", portableRulesFor(spec)[0]!, { timeoutMs: 60_000 });
    expect(v0.verdict, JSON.stringify(v0).slice(0, 600)).toBe("proved");
    if (v0.verdict === "proved") expect(v0.method).toMatch(/⊥ and ⊤ of the order.*64 lane lemmas/);
  }, 300_000);

  it("proves a guarded redux.max.u32 and redux.xor.b32 (uniform membermask)", async () => {
    for (const [f, how] of [
      [{ op: "redux", reduxOp: "max", type: "u32" }, /⊥ and ⊤ of the order/],
      [{ op: "redux", reduxOp: "xor", type: "b32" }, /0 and 0xffffffff/],
    ] as const) {
      const spec = warpSpec(f as WarpForm, { a: v, membermask: s }, true);
      const r = await proveRoutine(spec, PIR, "isa", portableRulesFor(spec)[0]!, { timeoutMs: 60_000 });
      expect(r.verdict, JSON.stringify(r).slice(0, 600)).toBe("proved");
      if (r.verdict === "proved") expect(r.method).toMatch(how);
    }
  }, 300_000);

  it("refutes a guarded min fold that skips the guard (a guarded-off lane gets the fold, not its prior d)", async () => {
    const spec = warpSpec(MIN_S32, { a: v, membermask: v }, true);
    const real = portableRulesFor(spec)[0]!;
    // d[i] = executes ? fold : dPrior[i] becomes d[i] = fold.
    const skip = (xs: PStmt[]): PStmt[] =>
      xs.map((st) => (st.s === "store" && st.array === "d" && st.value.op === "select" ? { ...st, value: st.value.x } : st.s === "for" ? { ...st, body: skip(st.body) } : st));
    const broken: PortableRule = { ...real, name: "broken_min_skips_guard", build: (sp, pr) => ((fn) => ({ ...fn, body: skip(fn.body) }))(real.build(sp, pr)) };
    const r = await proveRoutine(spec, PIR, "isa", broken, { timeoutMs: 60_000 });
    expect(r.verdict, JSON.stringify(r).slice(0, 600)).toBe("refuted");
    if (r.verdict === "refuted") expect(r.reason).toMatch(/lane \d+ \(guard false\) does not keep its prior d/);
  }, 300_000);

  it("refutes a min.s32 fold that compares unsigned (full-width fallback: not order-only in the signed order)", async () => {
    const spec = warpSpec(MIN_S32, { a: v, membermask: s }, false);
    const broken = minFold("broken_min_s32_unsigned", "ult");
    const r = await proveRoutine(spec, PIR, "isa", broken, { timeoutMs: 60_000 });
    expect(r.verdict, JSON.stringify(r).slice(0, 600)).toBe("refuted");
    if (r.verdict === "refuted") {
      expect(r.reason).toMatch(/Value mismatch \(d\[\d+\]\)/);
      expect(r.counterexample).toMatch(/^ {2}a = \[/m);
    }
  }, 300_000);

  it("refutes a min fold over the membermask alone (exited lanes folded in): the members lemma fails, the plain condition refutes", async () => {
    const spec = warpSpec(MIN_S32, { a: v, membermask: v }, true);
    const broken = minFold("broken_min_folds_exited", "slt", (x) => x.mm!);
    const r = await proveRoutine(spec, PIR, "isa", broken, { timeoutMs: 60_000 });
    expect(r.verdict, JSON.stringify(r).slice(0, 600)).toBe("refuted");
    if (r.verdict === "refuted") expect(r.reason).toMatch(/Value mismatch \(d\[\d+\]\)/);
  }, 300_000);

  const MAX_F32: WarpForm = { op: "redux", reduxOp: "max", type: "f32", abs: true, NaN: true };
  it("proves a guarded redux.max.abs.NaN.f32 (full-width a) with the lane lemmas", async () => {
    const spec = warpSpec(MAX_F32, { a: v, membermask: v }, true);
    const r = await proveRoutine(spec, PIR, "isa", portableRulesFor(spec)[0]!, { timeoutMs: 60_000 });
    expect(r.verdict, JSON.stringify(r).slice(0, 600)).toBe("proved");
    if (r.verdict === "proved") expect(r.method).toMatch(/full-width values, the key's sign test built as bit 31, 64 lane lemmas/);
  }, 300_000);

  it("refutes a .NaN.f32 fold that drops the canonical NaN (d = the best number even with a NaN member)", async () => {
    const spec = warpSpec(MAX_F32, { a: v, membermask: s }, false);
    const real = portableRulesFor(spec)[0]!;
    // d[i] = executes ? (canonical ? 0x7fffffff : acc) : 0 becomes d[i] = executes ? acc : 0.
    const drop = (xs: PStmt[]): PStmt[] =>
      xs.map((st) => {
        if (st.s === "for") return { ...st, body: drop(st.body) };
        if (st.s !== "store" || st.array !== "d" || st.value.op !== "select" || st.value.x.op !== "select") return st;
        return { ...st, value: { ...st.value, x: st.value.x.y } as PExpr };
      });
    const broken: PortableRule = { ...real, name: "broken_f32_drops_canonical_nan", build: (sp, pr) => ((fn) => ({ ...fn, body: drop(fn.body) }))(real.build(sp, pr)) };
    const r = await proveRoutine(spec, PIR, "isa", broken, { timeoutMs: 60_000 });
    expect(r.verdict, JSON.stringify(r).slice(0, 600)).toBe("refuted");
    if (r.verdict === "refuted") expect(r.reason).toMatch(/Value mismatch \(d\[\d+\]\)/);
  }, 300_000);
});
