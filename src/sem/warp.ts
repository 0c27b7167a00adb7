/**
 * @fileoverview Reference semantics of the warp-level family — `shfl.sync` (PTX ISA 9.1
 * §9.7.9.6), the deprecated `shfl` (§9.7.9.5), `vote.sync` (§9.7.13.9), the deprecated `vote`
 * (§9.7.13.8), `redux.sync` (§9.7.13.12), `activemask` (§9.7.13.11) and `bar.warp.sync`
 * (§9.7.13.2) — at warp level, over the `BV` algebra (src/sem/bv.ts), so that the same code
 * runs concretely, traced, symbolically and staged, as `matchSync` does. Written once.
 *
 * The readings are ../shared/notes/warp-semantics.md §0 (D1–D12), with FORMAT.md's rules
 * for undefined results:
 *   - Which lanes take part (D1): a lane executes when it is active (not exited) and its
 *     guard holds. For a `.sync` form, lane i's members are the non-exited lanes its
 *     membermask names; lane i's results are undefined (W1) when it is not in its own
 *     membermask, (W2) when a member does not execute (guarded off), (W3) when a member uses
 *     another membermask value (src/sem/members.ts, the rule match.sync shares).
 *   - The deprecated `shfl`/`vote` (D12): no membermask; the members are the executing lanes,
 *     and nothing is undefined for an executing lane but a `shfl` `d` read from a lane that
 *     does not execute.
 *   - shfl (D3–D7): `b[4:0]`, clamp `c[4:0]`, segment mask `c[12:8]`, every other bit ignored
 *     (open points A4, A5: the ISA's slices are followed, the other reading is not offered —
 *     FORMAT.md and the vectors fix this one); per-lane `b`, `c` and membermask; `j` is a plain
 *     integer (`.up` may go below 0, `.down` up to 62), compared with `maxLane`; out of range,
 *     `d` = own `a` and `p` = false; in range, `d` = `a[j]`, undefined when lane j has exited or
 *     is outside the reading lane's membermask (or, deprecated, does not execute), while `p`
 *     stays defined (A1: the pseudocode computes it from laneid, b and c alone).
 *   - vote (D8, D9, A7, A8): over the members; `!a` negates per lane first; a ballot bit is 1
 *     iff that lane is a member and its predicate holds.
 *   - redux (D10, A9, A10): over the members; `.add` modulo 2^32, `.min/.max` signed for `.s32`,
 *     unsigned for `.u32`, `.and/.or/.xor` bitwise. `.f32` (§5 of the note): −0 < +0, `.abs`
 *     reduces |x| and returns it, without `.NaN` NaNs are skipped (all NaN → canonical NaN
 *     0x7fffffff), with `.NaN` any NaN member gives 0x7fffffff; subnormals kept.
 *   - activemask (D11): the mask of executing lanes, in each executing lane.
 *   - bar.warp.sync: no result.
 * Lanes that do not execute get `defined` false here; what a guarded-off lane keeps is the
 * guard rule's (src/sem/guard.ts), applied by the callers (src/check/warp_cases.ts).
 */
import type { BV } from "./bv.js";
import type { WarpForm } from "../ir/warp_forms.js";
import { membership, WARP, type WarpMembers } from "./members.js";

export { WARP };

/**
 * Inputs of one warp-wide instruction; every array has 32 entries, index = laneid.
 * `a`: u32 lane values, or for vote the predicate as a 1-bit vector (before a `!` of the
 * form). `b`, `c`: shfl's per-lane u32 values (a uniform or immediate operand is the same
 * value 32 times); empty for the other forms. `membermask`: each lane's u32 membermask for a
 * `.sync` form and `bar.warp.sync`, null for the deprecated forms and activemask.
 */
export interface WarpLanes<V, B> extends WarpMembers<V, B> {
  a: V[];
  b: V[];
  c: V[];
}

/**
 * Per-lane results: `d` (u32, or 1 bit for vote's `.pred` reductions), `p` (shfl), and where
 * the ISA defines each. `pDefined` is `dDefined` except for shfl, whose `p` stays defined
 * when its source lane is not a member (D3).
 */
export interface WarpResult<V, B> {
  d: V[];
  p: B[];
  dDefined: B[];
  pDefined: B[];
}

/**
 * How `shfl` reads `b` and `c` (warp-semantics.md open points A4, A5). `isa`, the reference:
 * `b[4:0]`, clamp `c[4:0]`, segment mask `c[12:8]`. `wide`, the other reading, for the probe
 * vectors of `hwgen --probe` only: the same pseudocode with the bits the ISA drops counting, on
 * its 8-bit lane numbers — `b[7:0]`, clamp `c[7:0]`, segment mask `c[15:8]` (so `b` in 32…63
 * or negative takes the source out of range or wraps, and stray `c` bits move the bounds).
 */
export type ShflReading = "isa" | "wide";

/** Every laneid, 0–31: `warpLevel`'s default lane selection. */
const ALL_LANES: readonly number[] = Array.from({ length: WARP }, (_, i) => i);

/**
 * The reference meaning of a warp-level form over one warp (`reading`: shfl's, default `isa`).
 * `which`: the lanes whose results are wanted (default all 32). The result arrays stay indexed
 * by laneid; for shfl, vote and redux only the entries of `which` are computed (the others are
 * holes), since each lane's result is its own computation over the warp's inputs — the provers'
 * folds over a lane set (targets/amdgpu/prove/warp_loop.ts `refOver`) want one lane, and
 * building all 32 was 32 times the terms. activemask and bar.warp.sync fill every lane.
 */
export function warpLevel<V, B>(bv: BV<V, B>, f: WarpForm, w: WarpLanes<V, B>, reading: ShflReading = "isa", which: readonly number[] = ALL_LANES): WarpResult<V, B> {
  switch (f.op) {
    case "shfl":
      return shfl(bv, f.mode, w, reading, which);
    case "vote":
      return vote(bv, f.mode, f.negA, w, which);
    case "redux":
      return redux(bv, f, w, which);
    case "activemask":
      return activemask(bv, w);
    case "bar.warp":
      return noResult(bv);
  }
}

function lanes<T>(fn: (i: number) => T): T[] {
  return Array.from({ length: WARP }, (_, i) => fn(i));
}

function noResult<V, B>(bv: BV<V, B>): WarpResult<V, B> {
  const none = lanes(() => bv.false);
  return { d: lanes(() => bv.k(0, 32)), p: none, dDefined: none, pDefined: none.slice() };
}

/**
 * shfl.sync / shfl, line by line from the ISA pseudocode (§9.7.9.6 "Semantics"). Lane
 * numbers are 8-bit values: `j` ranges over −31…62, compared signed for `.up`/`.down`.
 */
function shfl<V, B>(bv: BV<V, B>, mode: "up" | "down" | "bfly" | "idx", w: WarpLanes<V, B>, reading: ShflReading, which: readonly number[]): WarpResult<V, B> {
  const W8 = 8;
  const [bHi, clampHi, segHi] = reading === "isa" ? [4, 4, 12] : [7, 7, 15];
  const r: WarpResult<V, B> = { d: [], p: [], dDefined: [], pDefined: [] };
  for (const i of which) {
    const { wellFormed } = membership(bv, w, i);
    const lane = bv.k(i, W8);
    const bval = bv.zext(bv.extract(w.b[i]!, bHi, 0), W8);
    const cval = bv.zext(bv.extract(w.c[i]!, clampHi, 0), W8);
    const segmask = bv.zext(bv.extract(w.c[i]!, segHi, 8), W8);
    const maxLane = bv.or(bv.and(lane, segmask), bv.and(cval, bv.not(segmask)));
    const minLane = bv.and(lane, segmask);
    let j: V;
    let pval: B;
    switch (mode) {
      case "up":
        j = bv.sub(lane, bval);
        pval = bv.sle(maxLane, j);
        break;
      case "down":
        j = bv.add(lane, bval);
        pval = bv.sle(j, maxLane);
        break;
      case "bfly":
        j = bv.xor(lane, bval);
        pval = bv.ule(j, maxLane);
        break;
      case "idx":
        j = bv.or(minLane, bv.and(bval, bv.not(segmask)));
        pval = bv.ule(j, maxLane);
        break;
    }
    const src = bv.ite(pval, j, lane); // `if (!pval) j = lane;`
    // d = SourceA[src]: defined when lane src is a member (deprecated: executes).
    const mm = w.membermask?.[i];
    let d: V = w.a[0]!;
    let srcOk: B = bv.false;
    for (let k = 0; k < WARP; k++) {
      const here = bv.eq(src, bv.k(k, W8));
      if (k > 0) d = bv.ite(here, w.a[k]!, d);
      const ok = mm !== undefined ? bv.andB(bv.bitAt(mm, k), w.active[k]!) : w.executes[k]!;
      srcOk = bv.orB(srcOk, bv.andB(here, ok));
    }
    r.d[i] = d;
    r.p[i] = pval;
    r.dDefined[i] = bv.andB(wellFormed, srcOk);
    r.pDefined[i] = wellFormed;
  }
  return r;
}

/** vote.sync / vote: the reduction of the (possibly negated) predicate over the members. */
function vote<V, B>(bv: BV<V, B>, mode: "all" | "any" | "uni" | "ballot", negA: boolean, w: WarpLanes<V, B>, which: readonly number[]): WarpResult<V, B> {
  const zero = bv.k(0, 32);
  const pred = w.a.map((x) => (negA ? bv.notB(bv.bitAt(x, 0)) : bv.bitAt(x, 0)));
  const r: WarpResult<V, B> = { d: [], p: [], dDefined: [], pDefined: [] };
  for (const i of which) {
    const { members, wellFormed } = membership(bv, w, i);
    let all: B = bv.true;
    let none: B = bv.true;
    let ballot = zero;
    for (let j = 0; j < WARP; j++) {
      all = bv.andB(all, bv.orB(bv.notB(members[j]!), pred[j]!));
      none = bv.andB(none, bv.orB(bv.notB(members[j]!), bv.notB(pred[j]!)));
      ballot = bv.or(ballot, bv.ite(bv.andB(members[j]!, pred[j]!), bv.k(2 ** j, 32), zero));
    }
    const d = mode === "ballot" ? ballot : bv.fromB(mode === "all" ? all : mode === "any" ? bv.notB(none) : bv.orB(all, none));
    r.d[i] = d;
    r.p[i] = bv.false;
    r.dDefined[i] = wellFormed;
    r.pDefined[i] = wellFormed;
  }
  return r;
}

const CANONICAL_NAN = 0x7fffffffn;

/** The identity of an integer reduction (the value of an empty fold; never a result, W1). */
function identity(op: "add" | "min" | "max" | "and" | "or" | "xor", type: "u32" | "s32" | "b32"): bigint {
  if (op === "and") return 0xffffffffn;
  if (op === "min") return type === "s32" ? 0x7fffffffn : 0xffffffffn;
  if (op === "max") return type === "s32" ? 0x80000000n : 0n;
  return 0n;
}

/** redux.sync: the reduction of `a` over the members. */
function redux<V, B>(bv: BV<V, B>, f: Extract<WarpForm, { op: "redux" }>, w: WarpLanes<V, B>, which: readonly number[]): WarpResult<V, B> {
  const r: WarpResult<V, B> = { d: [], p: [], dDefined: [], pDefined: [] };
  for (const i of which) {
    const { members, wellFormed } = membership(bv, w, i);
    const d = f.type === "f32" ? reduceF32(bv, f.reduxOp, f.abs, f.NaN, w.a, members) : reduceInt(bv, f.reduxOp, f.type, w.a, members);
    r.d[i] = d;
    r.p[i] = bv.false;
    r.dDefined[i] = wellFormed;
    r.pDefined[i] = wellFormed;
  }
  return r;
}

function reduceInt<V, B>(bv: BV<V, B>, op: "add" | "min" | "max" | "and" | "or" | "xor", type: "u32" | "s32" | "b32", a: V[], members: B[]): V {
  let acc = bv.k(identity(op, type), 32);
  for (let j = 0; j < WARP; j++) acc = reduceIntStep(bv, op, type, acc, a[j]!, members[j]!);
  return acc;
}

/**
 * One step of `reduceInt`'s fold (the fold is these steps over lanes 0–31 in order, from the
 * identity): the accumulator (32 bits) after lane value `x`, which enters only if `member`.
 * targets/llvm/prove_compiled_loop.ts states a compiled loop's trip against it.
 */
export function reduceIntStep<V, B>(bv: BV<V, B>, op: "add" | "min" | "max" | "and" | "or" | "xor", type: "u32" | "s32" | "b32", acc: V, x: V, member: B): V {
  let next: V;
  switch (op) {
    case "add":
      next = bv.add(acc, x);
      break;
    case "min":
      next = bv.ite(type === "s32" ? bv.slt(x, acc) : bv.ult(x, acc), x, acc);
      break;
    case "max":
      next = bv.ite(type === "s32" ? bv.slt(acc, x) : bv.ult(acc, x), x, acc);
      break;
    case "and":
      next = bv.and(acc, x);
      break;
    case "or":
      next = bv.or(acc, x);
      break;
    case "xor":
      next = bv.xor(acc, x);
      break;
  }
  return bv.ite(member, next, acc);
}

/**
 * `.min/.max{.abs}{.NaN}.f32` on IEEE-754 bit patterns. Order: the usual total-order key
 * (negative: all bits inverted; positive: sign bit set), so −0 < +0 and ordinary values
 * compare as numbers; NaNs never enter the comparison.
 */
function reduceF32<V, B>(bv: BV<V, B>, op: "min" | "max", abs: boolean, NaN: boolean, a: V[], members: B[]): V {
  return reduceF32Result(bv, NaN, reduceF32State(bv, op, abs, a, members));
}

/** `reduceF32`'s d from its fold's state (`reduceF32State`): the canonical NaN where no number was taken (or, `.NaN`, a NaN was seen), else acc. */
export function reduceF32Result<V, B>(bv: BV<V, B>, NaN: boolean, st: F32FoldState<V, B>): V {
  return bv.ite(NaN ? bv.orB(st.sawNaN, bv.notB(st.haveNumber)) : bv.notB(st.haveNumber), bv.k(CANONICAL_NAN, 32), st.acc);
}

/** The state of `reduceF32`'s fold (`reduceF32State`). */
export type F32FoldState<V, B> = { acc: V; haveNumber: B; sawNaN: B };

/**
 * The state of `reduceF32`'s fold after the lanes `members` (32 entries): `acc` (32 bits) the
 * best number taken so far (canonical NaN 0x7fffffff before the first), `haveNumber` whether a
 * member's value (|x| with `.abs`) was a number, `sawNaN` whether one was a NaN. `reduceF32`'s
 * d is made from it; targets/llvm/prove_compiled_loop.ts states its loop invariant in these
 * terms (the compiled `.f32` loops carry the same three). Source: as `reduceF32`.
 */
export function reduceF32State<V, B>(bv: BV<V, B>, op: "min" | "max", abs: boolean, a: V[], members: B[]): F32FoldState<V, B> {
  let st: F32FoldState<V, B> = { acc: bv.k(CANONICAL_NAN, 32), haveNumber: bv.false, sawNaN: bv.false };
  for (let j = 0; j < WARP; j++) st = reduceF32Step(bv, op, abs, st, a[j]!, members[j]!);
  return st;
}

/**
 * One step of `reduceF32State`'s fold (the fold is these steps over lanes 0–31 in order, from
 * acc = the canonical NaN and both flags false): the state after lane value `x` (32 bits),
 * which enters only if `member`. targets/llvm/prove_compiled_loop.ts states a compiled loop's
 * trip against it.
 */
export function reduceF32Step<V, B>(bv: BV<V, B>, op: "min" | "max", abs: boolean, st: F32FoldState<V, B>, a: V, member: B): F32FoldState<V, B> {
  const signBit = bv.k(0x80000000n, 32);
  const magnitude = bv.k(0x7fffffffn, 32);
  const key = (x: V) => bv.ite(bv.bitAt(x, 31), bv.not(x), bv.or(x, signBit));
  const isNaN = (x: V) => bv.ult(bv.k(0x7f800000n, 32), bv.and(x, magnitude));
  const x = abs ? bv.and(a, magnitude) : a;
  const nan = isNaN(x);
  const better = op === "min" ? bv.ult(key(x), key(st.acc)) : bv.ult(key(st.acc), key(x));
  const take = bv.andB(bv.andB(member, bv.notB(nan)), bv.orB(bv.notB(st.haveNumber), better));
  return {
    acc: bv.ite(take, x, st.acc),
    haveNumber: bv.orB(st.haveNumber, bv.andB(member, bv.notB(nan))),
    sawNaN: bv.orB(st.sawNaN, bv.andB(member, nan)),
  };
}

/** activemask: the lanes that execute, in each executing lane. */
function activemask<V, B>(bv: BV<V, B>, w: WarpLanes<V, B>): WarpResult<V, B> {
  const zero = bv.k(0, 32);
  let mask = zero;
  for (let j = 0; j < WARP; j++) mask = bv.or(mask, bv.ite(w.executes[j]!, bv.k(2 ** j, 32), zero));
  return { d: lanes(() => mask), p: lanes(() => bv.false), dDefined: w.executes.slice(), pDefined: w.executes.slice() };
}
