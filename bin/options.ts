/**
 * @fileoverview What the command line's definitions (bin/ptx-lower.ts) read before any
 * command is loaded: the families' instruction names, and the integer option parsers and
 * bounds. bin/commands.ts re-exports each.
 */
import type { FamilyName } from "../src/families/index.js";
import { UsageError } from "./output.js";

/** What each family's instructions are called in messages (`--family` NAME → its PTX instructions). */
export const FAMILY_INSTRUCTIONS = { szext: "szext", video: "vshl/vshr", vop: "vadd/vsub/vabsdiff/vmin/vmax/vset", match: "match.sync", warp: "shfl/vote/redux/activemask/bar.warp.sync" } as const satisfies Record<FamilyName, string>;

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
 * A fraction option value, a number from 0 to 1 (`verify --recheck`).
 * @throws UsageError otherwise.
 */
export function fraction(name: string) {
  return (x: string): number => {
    const n = Number(x);
    if (x.trim() === "" || !(n >= 0 && n <= 1)) throw new UsageError(`${name} must be a fraction from 0 to 1, not '${x}'`);
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

/** The operand names `--regs` takes (targets/amdgpu/assign.ts `OperandName`). */
const REG_OPERANDS = ["a", "b", "c", "membermask", "d", "guard", "dPrior"];

/**
 * `lower --regs`: `a=v7,b=s4,d=v2` (64-bit values and wave64 lane masks as aligned pairs,
 * `a=v[8:9]`), or `virtual`: every routine's operands in these registers instead of the
 * routine contract's. Each register is checked against each routine by the library
 * (targets/amdgpu/assign.ts). @throws UsageError for a malformed list.
 */
export function regsOption(x: string): Record<string, string> | "virtual" {
  if (x.trim() === "virtual") return "virtual";
  const out: Record<string, string> = {};
  for (const item of x.split(",")) {
    const m = /^\s*([A-Za-z]+)\s*=\s*(\S+)\s*$/.exec(item);
    if (!m) throw new UsageError(`--regs: '${item}' is not OPERAND=REGISTER (e.g. --regs a=v7,b=s4,d=v2, pairs a=v[8:9]; or --regs virtual)`);
    const [, name, reg] = m as unknown as [string, string, string];
    if (!REG_OPERANDS.includes(name)) throw new UsageError(`--regs: '${name}' is not an operand (${REG_OPERANDS.join(", ")})`);
    if (name in out) throw new UsageError(`--regs: ${name} is given twice`);
    out[name] = reg;
  }
  return out;
}

/**
 * `lower --scratch`: the scratch registers every routine may use besides its operands, with
 * `--regs`: budgets `v=4,s=2` (at most that many; physical ones the lowest free), or registers
 * and ranges `v[20:31],s40,s41`. @throws UsageError for a malformed list.
 */
export function scratchOption(x: string): { vgprs?: number | string[]; sgprs?: number | string[] } {
  const out: { vgprs?: number | string[]; sgprs?: number | string[] } = {};
  for (const raw of x.split(",")) {
    const item = raw.trim();
    const budget = /^([vs])=(\d+)$/.exec(item);
    const reg = /^([vs])(?:\d+|\[\d+:\d+\])$/.exec(item);
    if (!budget && !reg) throw new UsageError(`--scratch: '${raw}' is neither a budget (v=4, s=2) nor a register or range (v20, v[20:31], s40)`);
    const key = (budget ?? reg)![1] === "v" ? "vgprs" : "sgprs";
    const prev = out[key];
    if (budget) {
      if (prev !== undefined) throw new UsageError(`--scratch: ${key === "vgprs" ? "VGPRs" : "SGPRs"} given twice (a budget ${budget[1]}=N, or registers, not both)`);
      out[key] = Number(budget[2]);
    } else {
      if (typeof prev === "number") throw new UsageError(`--scratch: ${key === "vgprs" ? "VGPRs" : "SGPRs"} given twice (a budget, or registers, not both)`);
      out[key] = [...(prev ?? []), item];
    }
  }
  return out;
}
