/**
 * @fileoverview Portable (JS/C) lowering rules for the warp-level family (issue 15):
 * `shfl.sync`/`shfl` (PTX ISA 9.1 §9.7.9.6, §9.7.9.5), `vote.sync`/`vote` (§9.7.13.9,
 * §9.7.13.8), `redux.sync` (§9.7.13.12), `activemask` (§9.7.13.11), `bar.warp.sync`
 * (§9.7.13.2); reference: src/sem/warp.ts. Warp-level routines
 *
 *   (a, b, c, membermask, active[, g, dPrior, pPrior]) → { d, p }
 *
 * with only the sources the form reads, in PTX order: a 32-bit source is `u32[32]` (kind v),
 * one `u32` (kind s) or folded (imm). `active` is the mask of lanes that have not exited;
 * guarded routines take `g[32]` (the lanes that execute are `active` ∩ g) and the priors, which
 * a lane whose guard is false keeps. Unguarded, a lane that does not execute gets 0 (false).
 *
 * **Predicates are 32-bit lane masks** (bit i = lane i): vote's source `a` (for either
 * register kind; an immediate is folded), vote's `.pred` result `d` (returned as one u32) and
 * its prior `dPrior`. Why: a warp-wide predicate is 32 bits, one per lane — the shape a ballot
 * already has, the shape the AMDGPU contract gives it (a lane mask in an SGPR / `vcc`), and one
 * value a C or JS caller that simulates a warp can pass and compare in one step; an array of 32
 * booleans would make every vote routine pack and unpack them first. `p` of shfl stays
 * `bool[32]` as match.sync's `p` is (it is a per-lane result, computed per lane).
 *
 * Lanes whose result the ISA leaves undefined may hold any value (the contract of every warp
 * routine), so no rule computes definedness: each computes the defined value the ISA gives.
 * The loops are data-independent (constant bounds, no dynamic indexing): a per-lane source
 * lane is read by a 32-way select.
 */
import type { WarpForm } from "../../../src/ir/warp_forms.js";
import { warpPredicateDest, warpSources } from "../../../src/ir/warp_forms.js";
import type { RoutineSpec, SourceName } from "../../../src/ir/ir.js";
import { routineName } from "../../../src/ir/ir.js";
import { formId } from "../../../src/ir/forms.js";
import type { PExpr, PirFunction, PirVar, PStmt } from "../pir.js";
import { arr, bool, u32 } from "../pir.js";
import type { Stage } from "../stage.js";
import { sourceOperand, stage } from "../stage.js";
import type { PortableRule } from "./index.js";

const WARP_OPS = new Set<string>(["shfl", "vote", "redux", "activemask", "bar.warp"]);
const formOf = (spec: RoutineSpec): WarpForm | undefined => (WARP_OPS.has(spec.form.op) ? (spec.form as WarpForm) : undefined);
const kindOf = (spec: RoutineSpec, s: SourceName) => spec.kinds[s]?.kind ?? "v";

/** What a rule's lane body sees: lane i's index and sources, and the masks of the warp. */
export interface LaneCtx {
  i: PExpr;
  /** Lane j's value of a 32-bit source (`a`, `b`, `c`). */
  src: (name: "a" | "b" | "c", j: PExpr) => PExpr;
  /** vote's predicate source as a lane mask (bit j = lane j's `a`, before the form's `!`). */
  aMask: PExpr;
  /** Lanes that execute (active ∩ guard). */
  executing: PExpr;
  /** Lane i's members: its membermask ∩ executing (`.sync`), or executing (deprecated forms, activemask). */
  members: PExpr;
  /** Lane i's membermask (null for a form without one). */
  mm: PExpr | null;
}

/**
 * The frame every warp-level rule shares: parameters per operand kinds and the contract above,
 * the executing mask, the per-lane loop and the stores of d and p (or the lane-mask `d` of
 * vote's `.pred` reductions). `lane` returns lane i's `{d, p}` after the statements `pre`.
 */
export function warpLevelRoutine(spec: RoutineSpec, lane: (P: Stage, x: LaneCtx) => { pre?: PStmt[]; d: PExpr; p?: PExpr }): PirFunction {
  const f = formOf(spec)!;
  const P = stage();
  const params: PirVar[] = [];
  const body: PStmt[] = [];
  const sources = warpSources(f);
  const one = P.c(1, 32);
  const zero = P.c(0, 32);
  const i = P.ref("i", u32);
  const j = P.ref("j", u32);
  const per = new Map<SourceName, (j: PExpr) => PExpr>();
  let aMask: PExpr = zero;
  for (const s of sources) {
    const k = kindOf(spec, s);
    if (f.op === "vote" && s === "a") {
      // A predicate source: a lane mask (either register kind); an immediate is true when non-zero.
      if (k === "imm") aMask = spec.kinds.a!.kind === "imm" && spec.kinds.a!.value !== 0n ? P.c(0xffffffff, 32) : zero;
      else {
        params.push({ name: "a", type: u32 });
        aMask = P.ref("a", u32);
      }
      continue;
    }
    if (k === "v") params.push({ name: s, type: arr(u32) });
    else if (k === "s") params.push({ name: s, type: u32 });
    per.set(s, (x: PExpr) => (k === "v" ? P.elem(s, u32, x) : sourceOperand(P, spec, s, u32)));
  }
  params.push({ name: "active", type: u32 });
  const predD = warpPredicateDest(f);
  const writes = { d: f.op !== "bar.warp", p: f.op === "shfl" && f.dest === "d|p" };
  let executing = P.ref("active", u32);
  if (spec.guarded) {
    params.push({ name: "g", type: arr(bool) });
    if (writes.d) params.push({ name: "dPrior", type: predD ? u32 : arr(u32) });
    if (writes.p) params.push({ name: "pPrior", type: arr(bool) });
    // guardMask = OR over j of (g[j] << j); only guarded-on active lanes execute.
    const guardMask = P.ref("guardMask", u32);
    body.push(
      { s: "var", name: "guardMask", value: zero },
      { s: "for", index: "j", n: 32, body: [{ s: "set", name: "guardMask", value: P.or(guardMask, P.select(P.elem("g", bool, j), P.bin("shl", one, j), zero)) }] },
      { s: "let", name: "executing", value: P.and(guardMask, executing) },
    );
    executing = P.ref("executing", u32);
  }
  const results: PirVar[] = [];
  if (!writes.d) return { name: routineName(spec, formId), params, results, body };
  const mm = per.get("membermask");
  const members = mm ? P.and(mm(i), executing) : executing;
  const src = (name: "a" | "b" | "c", x: PExpr) => per.get(name)!(x);
  const r = lane(P, { i, src, aMask, executing, members, mm: mm ? mm(i) : null });
  const loop: PStmt[] = [...(r.pre ?? []), { s: "let", name: "executes", value: P.cmp("eq", P.and(P.bin("lshr", executing, i), one), one) }];
  const runs = P.ref("executes", bool);
  if (predD) {
    // d as a lane mask: bit i is lane i's result, or its prior bit (guarded off), or 0.
    const dm = P.ref("dMask", u32);
    const bit = P.bin("shl", one, i);
    const prior = spec.guarded ? P.and(P.ref("dPrior", u32), bit) : zero;
    body.push({ s: "var", name: "dMask", value: zero });
    loop.push({ s: "set", name: "dMask", value: P.or(dm, P.select(runs, P.select(P.ne(r.d, zero), bit, zero), prior)) });
    body.push({ s: "for", index: "i", n: 32, body: loop }, { s: "return", values: { d: dm } });
    results.push({ name: "d", type: u32 });
    return { name: routineName(spec, formId), params, results, body };
  }
  loop.push({ s: "store", array: "d", index: i, value: P.select(runs, r.d, spec.guarded ? P.elem("dPrior", u32, i) : zero) });
  results.push({ name: "d", type: arr(u32) });
  if (writes.p) {
    loop.push({ s: "store", array: "p", index: i, value: P.select(runs, r.p ?? P.bool(false), spec.guarded ? P.elem("pPrior", bool, i) : P.bool(false)) });
    results.push({ name: "p", type: arr(bool) });
  }
  body.push({ s: "for", index: "i", n: 32, body: loop });
  return { name: routineName(spec, formId), params, results, body };
}

/** Bit j of a u32 as a boolean. */
const bitOf = (P: Stage, x: PExpr, j: PExpr) => P.cmp("eq", P.and(P.bin("lshr", x, j), P.c(1, 32)), P.c(1, 32));

/**
 * shfl, lane i: the ISA's lane arithmetic on u32 values (`b[4:0]`, clamp `c[4:0]`, segment mask
 * `c[12:8]`; `.up`'s j = i − b may wrap below 0 and is compared signed), the source lane
 * `src = pval ? j : i`, and `d = a[src]` by a 32-way select; `p = pval`.
 */
function shflLane(P: Stage, mode: "up" | "down" | "bfly" | "idx", x: LaneCtx): { pre: PStmt[]; d: PExpr; p: PExpr } {
  const k5 = P.c(31, 32);
  const bval = P.and(x.src("b", x.i), k5);
  const cw = x.src("c", x.i);
  const cval = P.and(cw, k5);
  const segmask = P.and(P.bin("lshr", cw, P.c(8, 32)), k5);
  const minLane = P.and(x.i, segmask);
  const maxLane = P.or(minLane, P.and(cval, P.xor(segmask, k5)));
  let jv: PExpr;
  let pval: PExpr;
  if (mode === "up") {
    jv = P.sub(x.i, bval);
    pval = P.cmp("sle", maxLane, jv);
  } else if (mode === "down") {
    jv = P.add(x.i, bval);
    pval = P.cmp("sle", jv, maxLane);
  } else if (mode === "bfly") {
    jv = P.xor(x.i, bval);
    pval = P.cmp("ule", jv, maxLane);
  } else {
    jv = P.or(minLane, P.and(bval, P.xor(segmask, k5)));
    pval = P.cmp("ule", jv, maxLane);
  }
  const k = P.ref("k", u32);
  const pre: PStmt[] = [
    { s: "let", name: "pval", value: pval },
    { s: "let", name: "srcLane", value: P.select(P.ref("pval", bool), jv, x.i) },
    { s: "var", name: "got", value: x.src("a", P.c(0, 32)) },
    { s: "for", index: "k", n: 32, body: [{ s: "set", name: "got", value: P.select(P.cmp("eq", P.ref("srcLane", u32), k), x.src("a", k), P.ref("got", u32)) }] },
  ];
  return { pre, d: P.ref("got", u32), p: P.ref("pval", bool) };
}

/** The identity of an integer reduction, as the fold's start (an empty fold is never a result: W1). */
function identityOf(op: "add" | "min" | "max" | "and" | "or" | "xor", type: "u32" | "s32" | "b32"): bigint {
  if (op === "and") return 0xffffffffn;
  if (op === "min") return type === "s32" ? 0x7fffffffn : 0xffffffffn;
  if (op === "max") return type === "s32" ? 0x80000000n : 0n;
  return 0n;
}

/** redux (integer), lane i: a 32-step fold of `a` over lane i's members, starting at the identity. */
function reduxIntLane(P: Stage, op: "add" | "min" | "max" | "and" | "or" | "xor", type: "u32" | "s32" | "b32", x: LaneCtx): { pre: PStmt[]; d: PExpr } {
  const j = P.ref("j", u32);
  const acc = P.ref("acc", u32);
  const aj = x.src("a", j);
  const lt = type === "s32" ? "slt" : "ult";
  const next =
    op === "add"
      ? P.add(acc, aj)
      : op === "and"
        ? P.and(acc, aj)
        : op === "or"
          ? P.or(acc, aj)
          : op === "xor"
            ? P.xor(acc, aj)
            : op === "min"
              ? P.select(P.cmp(lt, aj, acc), aj, acc)
              : P.select(P.cmp(lt, acc, aj), aj, acc);
  const pre: PStmt[] = [
    { s: "let", name: "members", value: x.members },
    { s: "var", name: "acc", value: P.c(identityOf(op, type), 32) },
    { s: "for", index: "j", n: 32, body: [{ s: "set", name: "acc", value: P.select(bitOf(P, P.ref("members", u32), j), next, acc) }] },
  ];
  return { pre, d: acc };
}

/**
 * redux `.f32` min/max, lane i: over the members, NaNs skipped (`.NaN`: any NaN member gives
 * the canonical NaN 0x7fffffff), all NaN → 0x7fffffff; `.abs` folds |x|. Values compare by
 * the IEEE total-order key (sign set: all bits inverted; else the sign bit set), so −0 < +0.
 */
function reduxF32Lane(P: Stage, op: "min" | "max", abs: boolean, nanMode: boolean, x: LaneCtx): { pre: PStmt[]; d: PExpr } {
  const j = P.ref("j", u32);
  const mag = P.c(0x7fffffff, 32);
  const v = abs ? P.and(x.src("a", j), mag) : x.src("a", j);
  const key = (e: PExpr) => P.select(P.cmp("ult", mag, e), P.not(e), P.or(e, P.c(0x80000000, 32)));
  const acc = P.ref("acc", u32);
  const have = P.ref("haveNumber", bool);
  const saw = P.ref("sawNaN", bool);
  const member = bitOf(P, P.ref("members", u32), j);
  const isNaN = P.cmp("ult", P.c(0x7f800000, 32), P.and(P.ref("x", u32), mag));
  const better = op === "min" ? P.cmp("ult", key(P.ref("x", u32)), key(acc)) : P.cmp("ult", key(acc), key(P.ref("x", u32)));
  const number = P.andB(member, P.notB(P.ref("nan", bool)));
  const pre: PStmt[] = [
    { s: "let", name: "members", value: x.members },
    { s: "var", name: "acc", value: P.c(0x7fffffff, 32) },
    { s: "var", name: "haveNumber", value: P.bool(false) },
    { s: "var", name: "sawNaN", value: P.bool(false) },
    {
      s: "for",
      index: "j",
      n: 32,
      body: [
        { s: "let", name: "x", value: v },
        { s: "let", name: "nan", value: isNaN },
        { s: "set", name: "acc", value: P.select(P.andB(number, P.orB(P.notB(have), better)), P.ref("x", u32), acc) },
        { s: "set", name: "haveNumber", value: P.orB(have, number) },
        { s: "set", name: "sawNaN", value: P.orB(saw, P.andB(member, P.ref("nan", bool))) },
      ],
    },
  ];
  const canonical = nanMode ? P.orB(saw, P.notB(have)) : P.notB(have);
  return { pre, d: P.select(canonical, P.c(0x7fffffff, 32), acc) };
}

const isOp = (op: WarpForm["op"]) => (spec: RoutineSpec) => formOf(spec)?.op === op;

export const warpRules: PortableRule[] = [
  {
    name: "shfl_uniform_a_copy",
    prio: 10,
    why: "a is uniform (a scalar or an immediate): every lane's a is the same value, and shfl's d is a lane's a — the source lane's when in range, its own otherwise — so d = a wherever defined, and p the ISA's in-range test from laneid, b and c alone. No 32-way select; wins over the loop for every uniform a.",
    when: (spec) => isOp("shfl")(spec) && kindOf(spec, "a") !== "v",
    build: (spec) =>
      warpLevelRoutine(spec, (P, x) => {
        const f = formOf(spec) as Extract<WarpForm, { op: "shfl" }>;
        const { pre, p } = shflLane(P, f.mode, x);
        // Only pval is needed: keep its `let`, drop the select loop.
        return { pre: pre.slice(0, 1), d: x.src("a", x.i), p };
      }),
  },
  {
    name: "shfl_lane_select",
    prio: 0,
    why: "The general shuffle: lane i computes the ISA's source lane j from b[4:0], the clamp c[4:0] and the segment mask c[12:8] (per lane: b and c may be divergent), p = j in range, and reads a[j] (its own a when out of range) by a data-independent 32-way select — portable code has no cross-lane read. Right for every a, b, c and mask: a source outside the membermask or exited leaves d undefined, which any value satisfies.",
    when: isOp("shfl"),
    build: (spec) => warpLevelRoutine(spec, (P, x) => shflLane(P, (formOf(spec) as Extract<WarpForm, { op: "shfl" }>).mode, x)),
  },
  {
    name: "vote_ballot_members",
    prio: 0,
    why: "vote over lane i's members (membermask_i ∩ executing; the deprecated form: executing): ballot = pred ∩ members with pred the lane mask of a (negated for !a); .all is ballot == members, .any ballot ≠ 0, .uni .all or not .any, .ballot the ballot itself. One AND per lane, no inner loop: the predicate already is a lane mask.",
    when: isOp("vote"),
    build: (spec) =>
      warpLevelRoutine(spec, (P, x) => {
        const f = formOf(spec) as Extract<WarpForm, { op: "vote" }>;
        const pred = f.negA ? P.not(x.aMask) : x.aMask;
        const pre: PStmt[] = [
          { s: "let", name: "members", value: x.members },
          { s: "let", name: "ballot", value: P.and(pred, P.ref("members", u32)) },
        ];
        const ballot = P.ref("ballot", u32);
        const all = P.cmp("eq", ballot, P.ref("members", u32));
        const any = P.ne(ballot, P.c(0, 32));
        const r = f.mode === "ballot" ? ballot : f.mode === "all" ? all : f.mode === "any" ? any : P.orB(all, P.notB(any));
        return { pre, d: f.mode === "ballot" ? r : P.select(r, P.c(1, 32), P.c(0, 32)) };
      }),
  },
  {
    name: "redux_fold_members",
    prio: 0,
    why: "redux over lane i's members: a data-independent 32-step fold from the operation's identity (add mod 2^32, min/max signed for .s32 and unsigned for .u32, and/or/xor bitwise; .f32 min/max by the IEEE total-order key with NaNs skipped, or any NaN → 0x7fffffff under .NaN, and .abs folding |x|). The general redux rule: every a and membermask.",
    when: isOp("redux"),
    build: (spec) =>
      warpLevelRoutine(spec, (P, x) => {
        const f = formOf(spec) as Extract<WarpForm, { op: "redux" }>;
        return f.type === "f32" ? reduxF32Lane(P, f.reduxOp, f.abs, f.NaN, x) : reduxIntLane(P, f.reduxOp, f.type, x);
      }),
  },
  {
    name: "activemask_executing",
    prio: 0,
    why: "activemask: the mask of lanes that execute (active ∩ guard) in every executing lane — the frame's own executing mask.",
    when: isOp("activemask"),
    build: (spec) => warpLevelRoutine(spec, (_P, x) => ({ d: x.executing })),
  },
  {
    name: "bar_warp_sync_nothing",
    prio: 0,
    why: "bar.warp.sync has no result: in a routine that runs the whole warp at once every named lane has already arrived, so nothing is left to do (a membermask naming a lane that does not execute is undefined behaviour in the ISA, which any code satisfies).",
    when: isOp("bar.warp"),
    build: (spec) => warpLevelRoutine(spec, (P) => ({ d: P.c(0, 32) })),
  },
];
