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
 * A positive integer option value, at most `max` where given (`why` says what bounds it).
 * @throws UsageError otherwise.
 */
export function positiveInt(name: string, max?: { max: number; why: string }) {
  return (x: string): number => {
    const n = Number(x);
    if (!/^\d+$/.test(x.trim()) || !Number.isSafeInteger(n) || n < 1) throw new UsageError(`${name} must be a positive integer, not '${x}'`);
    if (max && n > max.max) throw new UsageError(`${name} must be at most ${max.max} (${max.why}), not '${x}'`);
    return n;
  };
}

/** The largest `verify --warps` (src/limits.ts, the library's bound too: the warps are held in memory). */
export { MAX_WARPS } from "../src/limits.js";
