/**
 * @fileoverview What the command line's definitions (bin/ptx-lower.ts) read before any
 * command is loaded: the families' instruction names, and the integer option parsers and
 * bounds. bin/commands.ts re-exports each.
 */
import type { FamilyName } from "../src/families/index.js";
import { UsageError } from "./output.js";

/** What each family's instructions are called in messages (`--family` NAME → its PTX instructions). */
export const FAMILY_INSTRUCTIONS = { szext: "szext", video: "vshl/vshr", match: "match.sync", warp: "shfl/vote/redux/activemask/bar.warp.sync" } as const satisfies Record<FamilyName, string>;

/**
 * A positive integer option value, at most `max` where given (`why` says what bounds it), else
 * at most 2^53 − 1 (the largest integer a JavaScript number holds exactly): a number too large
 * is told its bound, not that it is no positive integer.
 * @throws UsageError otherwise.
 */
export function positiveInt(name: string, max?: { max: number; why: string }) {
  const bound = max ?? { max: Number.MAX_SAFE_INTEGER, why: "the largest integer held exactly" };
  return (x: string): number => {
    const n = Number(x);
    if (!/^\d+$/.test(x.trim()) || n < 1) throw new UsageError(`${name} must be a positive integer, not '${x}'`);
    if (!Number.isSafeInteger(n) || n > bound.max) throw new UsageError(`${name} must be at most ${bound.max} (${bound.why}), not '${x}'`);
    return n;
  };
}

/**
 * The largest `verify --seed`: the random generator (src/check/random.ts, mulberry32) keeps
 * 32 bits of state, so every seed from 1 to 2^32 − 1 draws its own inputs and a larger one
 * would repeat a smaller one's.
 */
export const MAX_SEED = 0xffff_ffff;

/** The largest `verify --warps` (src/limits.ts, the library's bound too: the warps are held in memory). */
export { MAX_WARPS } from "../src/limits.js";
