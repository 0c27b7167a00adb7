/**
 * @fileoverview Portable (JS/C) lowering rules for `match.{any,all}.sync.{b32,b64}`
 * (PTX ISA §9.7.13.8; reference: src/sem/match_sync.ts), as warp-level routines
 *
 *   (a, membermask, active[, g, dPrior, pPrior]) → { d[32], p[32] (.all only) }
 *
 * `a` is a per-lane array (kind v), one uniform value (kind s) or folded (imm); likewise
 * `membermask` (u32). `active` is the mask of lanes that execute; a lane outside it has exited,
 * or is undefined by the ISA if named, so dropping it from the members is right either way.
 * Guarded routines take `g[32]`: the lanes that execute are `active & g`, and a lane whose
 * guard is false keeps dPrior (and pPrior). Unguarded, a lane that does not execute gets 0
 * (and false). Every `.all` routine returns both d and p, whichever of them the form sinks.
 *
 * The loops are data-independent: no dynamic indexing, no early exit, 32 × 32 compares.
 */
import type { MatchForm } from "../../../src/ir/forms.js";
import type { RoutineSpec } from "../../../src/ir/ir.js";
import { routineName } from "../../../src/ir/ir.js";
import { formId } from "../../../src/ir/forms.js";
import type { PExpr, PirFunction, PirVar, PStmt, Scalar } from "../pir.js";
import { arr, bool, u32, u64 } from "../pir.js";
import type { Stage } from "../stage.js";
import { sourceOperand, stage } from "../stage.js";
import type { PortableRule } from "./index.js";

const formOf = (spec: RoutineSpec): MatchForm | undefined => (spec.form.op === "match" ? spec.form : undefined);
const kindOf = (spec: RoutineSpec, s: "a" | "membermask") => spec.kinds[s]?.kind ?? "v";

/**
 * The warp-routine frame shared by the match rules: parameters per operand kinds, the mask of
 * executing lanes, and the per-lane stores of d and p. `lane` returns lane i's `{d, p}` as PIR
 * over the loop index `i`, after the statements `pre`; `executing` is the u32 lane mask.
 */
function warpRoutine(
  spec: RoutineSpec,
  lane: (
    P: Stage,
    x: { i: PExpr; a: (j: PExpr) => PExpr; mm: PExpr; executing: PExpr },
  ) => { pre?: PStmt[]; d: PExpr; p: PExpr },
): PirFunction {
  const f = formOf(spec)!;
  const P = stage();
  const T: Scalar = f.type === "b64" ? u64 : u32;
  const params: PirVar[] = [];
  const body: PStmt[] = [];
  const perLane = (name: "a" | "membermask", t: Scalar) => {
    const k = kindOf(spec, name);
    if (k === "v") params.push({ name, type: arr(t) });
    else if (k === "s") params.push({ name, type: t });
    return (j: PExpr) => (k === "v" ? P.elem(name, t, j) : sourceOperand(P, spec, name, t));
  };
  const a = perLane("a", T);
  const membermask = perLane("membermask", u32);
  params.push({ name: "active", type: u32 });
  const one = P.c(1, 32);
  const i = P.ref("i", u32);
  const j = P.ref("j", u32);
  let executing = P.ref("active", u32);
  if (spec.guarded) {
    params.push({ name: "g", type: arr(bool) }, { name: "dPrior", type: arr(u32) });
    if (f.mode === "all") params.push({ name: "pPrior", type: arr(bool) });
    // guardMask = OR over j of (g[j] << j); only guarded-on active lanes execute.
    const guardMask = P.ref("guardMask", u32);
    body.push(
      { s: "var", name: "guardMask", value: P.c(0, 32) },
      {
        s: "for",
        index: "j",
        n: 32,
        body: [
          {
            s: "set",
            name: "guardMask",
            value: P.or(guardMask, P.select(P.elem("g", bool, j), P.bin("shl", one, j), P.c(0, 32))),
          },
        ],
      },
      { s: "let", name: "executing", value: P.and(guardMask, executing) },
    );
    executing = P.ref("executing", u32);
  }
  const r = lane(P, { i, a, mm: membermask(i), executing });
  // Lane i executes: bit i of the executing mask.
  const loop: PStmt[] = [
    ...(r.pre ?? []),
    { s: "let", name: "executes", value: P.cmp("eq", P.and(P.bin("lshr", executing, i), one), one) },
  ];
  const runs = P.ref("executes", bool);
  loop.push({
    s: "store",
    array: "d",
    index: i,
    value: P.select(runs, r.d, spec.guarded ? P.elem("dPrior", u32, i) : P.c(0, 32)),
  });
  const results: PirVar[] = [{ name: "d", type: arr(u32) }];
  if (f.mode === "all") {
    loop.push({
      s: "store",
      array: "p",
      index: i,
      value: P.select(runs, r.p, spec.guarded ? P.elem("pPrior", bool, i) : P.bool(false)),
    });
    results.push({ name: "p", type: arr(bool) });
  }
  body.push({ s: "for", index: "i", n: 32, body: loop });
  return { name: routineName(spec, formId), params, results, body };
}

export const matchRules: PortableRule[] = [
  {
    name: "match_uniform_a_members",
    prio: 10,
    why: "a is uniform (a scalar or an immediate): every member's value equals a_i, so .any's d is the members and .all's d is the members with p = true. No 32 × 32 loop; wins over the loop for every uniform a.",
    when: (spec) => !!formOf(spec) && kindOf(spec, "a") !== "v",
    build: (spec) => warpRoutine(spec, (P, { mm, executing }) => ({ d: P.and(mm, executing), p: P.bool(true) })),
  },
  {
    name: "match_any_loop_eqmask",
    prio: 0,
    why: ".any with a per-lane a: the ISA's definition computed per lane, d = eqmask & members with eqmask = OR over j of ((a_j == a_i) << j) and members = membermask_i & executing; a data-independent 32 × 32 loop, right for every a and mask. The general .any rule.",
    when: (spec) => formOf(spec)?.mode === "any",
    build: (spec) =>
      warpRoutine(spec, (P, { i, a, mm, executing }) => {
        const { pre, same } = eqmaskLoop(P, i, a, mm, executing);
        return { pre, d: same, p: P.bool(false) };
      }),
  },
  {
    name: "match_all_loop_eqmask",
    prio: 0,
    why: ".all with a per-lane a: the same eqmask loop as .any, then p = (eqmask & members) == members (every member holds a_i) and d = p ? members : 0, the ISA's definition per lane. The general .all rule.",
    when: (spec) => formOf(spec)?.mode === "all",
    build: (spec) =>
      warpRoutine(spec, (P, { i, a, mm, executing }) => {
        const { pre, same, members } = eqmaskLoop(P, i, a, mm, executing);
        const p = P.cmp("eq", same, members);
        return { pre, d: P.select(p, members, P.c(0, 32)), p };
      }),
  },
];

/**
 * Lane i's members (membermask_i & executing) and eqmask = OR over j of ((a_j == a_i) << j),
 * a 32 × 32 data-independent loop; `same` = eqmask & members.
 */
function eqmaskLoop(P: Stage, i: PExpr, a: (j: PExpr) => PExpr, mm: PExpr, executing: PExpr): { pre: PStmt[]; same: PExpr; members: PExpr } {
  const j = P.ref("j", u32);
  const eqmask = P.ref("eqmask", u32);
  const members = P.ref("members", u32);
  const pre: PStmt[] = [
    { s: "let", name: "members", value: P.and(mm, executing) },
    { s: "var", name: "eqmask", value: P.c(0, 32) },
    {
      s: "for",
      index: "j",
      n: 32,
      body: [
        {
          s: "set",
          name: "eqmask",
          value: P.or(eqmask, P.select(P.cmp("eq", a(j), a(i)), P.bin("shl", P.c(1, 32), j), P.c(0, 32))),
        },
      ],
    },
  ];
  return { pre, same: P.and(eqmask, members), members };
}
