/**
 * @fileoverview Which lanes take part in a warp-level `.sync` instruction, and when its
 * result is defined — stated once for match.sync (src/sem/match_sync.ts) and the warp-level
 * family (src/sem/warp.ts). ../shared/vectors/FORMAT.md's rule ("Warp instructions"),
 * superseding the ISA's "must be a subset of the active lanes" (warp-semantics.md D1, D2):
 *   - lane i's members are the lanes named by its membermask that have not exited;
 *   - lane i's result is undefined when it does not execute (exited or guarded off), is not in
 *     its own membermask (W1), when a member does not execute (W2, guarded off), or when a
 *     member uses another membermask value (W3).
 * Without a membermask (the deprecated `shfl`/`vote`, warp-semantics.md D12) the members are
 * the executing lanes and only lane i's own execution counts.
 */
import type { BV } from "./bv.js";

/** The lanes of a warp (index = laneid). */
export const WARP = 32;

/** Lane states and membermasks of one warp; every array has 32 entries. */
export interface WarpMembers<V, B> {
  /** Each lane's membermask (u32), or null for an instruction without one. */
  membermask: V[] | null;
  /** Lanes that have not exited. */
  active: B[];
  /** Lanes that execute the instruction: active, and the guard (if any) holds. */
  executes: B[];
}

/** Lane i's members (per lane j) and whether lane i's result is defined (W1–W3). */
export function membership<V, B>(bv: BV<V, B>, w: WarpMembers<V, B>, i: number): { members: B[]; wellFormed: B } {
  if (w.membermask === null) return { members: w.executes.slice(), wellFormed: w.executes[i]! };
  const mm = w.membermask[i]!;
  const members: B[] = [];
  let wellFormed: B = bv.andB(w.executes[i]!, bv.bitAt(mm, i));
  for (let j = 0; j < WARP; j++) {
    const member = bv.andB(bv.bitAt(mm, j), w.active[j]!);
    members.push(member);
    // A named lane must execute, with the same membermask.
    wellFormed = bv.andB(wellFormed, bv.orB(bv.notB(member), bv.andB(w.executes[j]!, bv.eq(w.membermask[j]!, mm))));
  }
  return { members, wellFormed };
}
