/**
 * @fileoverview Reference semantics of `match.sync` — PTX ISA 9.0 §9.7.13.8 "match.sync",
 * at warp level: the function sees all 32 lanes at once.
 *
 * Which lanes count is src/sem/members.ts (FORMAT.md's rule, shared with the warp-level
 * family): a lane that has *exited* is dropped from the comparison and from `d`, as hardware
 * does; a lane that is alive but does not execute (guarded off) and is named in an executing
 * lane's membermask makes that lane's result undefined, as does an executing lane missing
 * from its own membermask, or named lanes using a different membermask.
 * Values are compared bitwise on all 32 or 64 bits (+0.0 ≠ −0.0; equal NaN bits match).
 */
import type { BV } from "./bv.js";
import type { MatchForm } from "../ir/forms.js";
import { membership, WARP } from "./members.js";

export { WARP };

/** Inputs of one warp-wide match.sync: every array has 32 entries, index = laneid. */
export interface MatchWarp<V, B> {
  /** Lane values, 32 or 64 bits per the form's type. */
  a: V[];
  /** Each lane's membermask (u32). A uniform membermask is the same value 32 times. */
  membermask: V[];
  /** Lanes that have not exited. */
  active: B[];
  /** Lanes that execute the instruction: active, and the guard (if any) holds. */
  executes: B[];
}

/** Per-lane results: `d` (u32 lane mask), `p`, and whether the ISA defines them. */
export interface MatchResult<V, B> {
  d: V[];
  p: B[];
  defined: B[];
}

/**
 * `match.any.sync.type d, a, membermask` / `match.all.sync.type d|p, a, membermask`.
 * For an executing lane i, the members are the non-exited lanes j named in membermask_i;
 * `.any`: d_i = the members whose a_j equals a_i; `.all`: d_i = the members if every member's
 * a equals a_i, else 0, and p_i says which. Lanes that do not execute have `defined` false
 * (the guard contract, not the ISA, says what they keep).
 */
export function matchSync<V, B>(bv: BV<V, B>, f: MatchForm, w: MatchWarp<V, B>): MatchResult<V, B> {
  const zero = bv.k(0, 32);
  const d: V[] = [];
  const p: B[] = [];
  const defined: B[] = [];
  for (let i = 0; i < WARP; i++) {
    const { members: member, wellFormed } = membership(bv, w, i);
    let members = zero; // the non-exited lanes named by lane i's membermask
    let equal = zero; // those of them whose a equals a_i
    let allEqual: B = bv.true;
    for (let j = 0; j < WARP; j++) {
      const bit = bv.k(1 << j, 32);
      const same = bv.eq(w.a[j]!, w.a[i]!);
      members = bv.or(members, bv.ite(member[j]!, bit, zero));
      equal = bv.or(equal, bv.ite(bv.andB(member[j]!, same), bit, zero));
      allEqual = bv.andB(allEqual, bv.orB(bv.notB(member[j]!), same));
    }
    d.push(f.mode === "any" ? equal : bv.ite(allEqual, members, zero));
    p.push(f.mode === "any" ? bv.false : allEqual);
    defined.push(wellFormed);
  }
  return { d, p, defined };
}
