/**
 * @fileoverview The CUDA warp intrinsics `ptx-lower port` meets in sources: calls that are no
 * asm, but that a HIP build of the file needs a drop-in for (Debian's HIP 5.2 headers have
 * none of the `_sync` ones, nor `__activemask`). The header provides none of them yet, so
 * each call is reported as left, its text unchanged; issue 15 (the warp family's drop-ins)
 * turns entries of `CUDA_WARP_INTRINSICS` into rewrites — this table is the one place that
 * says which names are meant.
 *
 * Source: CUDA C++ Programming Guide, "Warp Vote Functions" (`__all_sync`, `__any_sync`,
 * `__uni_sync`, `__ballot_sync`, `__activemask`), "Warp Match Functions", "Warp Reduce
 * Functions", "Warp Shuffle Functions".
 */
import type { Loc } from "../ir/ir.js";
import type { Scan } from "./scan.js";

/** What the port does with a CUDA warp intrinsic call: `left`, with the reason reported. */
export interface WarpIntrinsic {
  name: string;
  status: "left";
  reason: string;
}

const NO_DROP_IN = "CUDA warp intrinsic: no drop-in yet (issue 15)";

/** Every CUDA warp intrinsic the port reports, by name. */
export const CUDA_WARP_INTRINSICS: ReadonlyMap<string, WarpIntrinsic> = new Map(
  [
    "__activemask",
    "__all_sync",
    "__any_sync",
    "__uni_sync",
    "__ballot_sync",
    "__match_any_sync",
    "__match_all_sync",
    "__shfl_sync",
    "__shfl_up_sync",
    "__shfl_down_sync",
    "__shfl_xor_sync",
    "__reduce_add_sync",
    "__reduce_min_sync",
    "__reduce_max_sync",
    "__reduce_and_sync",
    "__reduce_or_sync",
    "__reduce_xor_sync",
  ].map((name): [string, WarpIntrinsic] => [name, { name, status: "left", reason: NO_DROP_IN }]),
);

/** One call of a CUDA warp intrinsic in a source. */
export interface IntrinsicCall {
  intrinsic: WarpIntrinsic;
  loc: Loc;
  /** Original offsets of the call: the name to its `)` (or to the name when no `)` closes it). */
  start: number;
  end: number;
  /** The `#define` whose body holds the call (index into `Scan.macros`), or -1. */
  macro: number;
}

/** Words after which `NAME(` is still a call (a type or another name before it makes it a declaration). */
const BEFORE_CALL = new Set(["return", "case", "else", "do", "throw", "co_return", "co_yield", "sizeof", "decltype"]);

/**
 * The calls of CUDA warp intrinsics in a scanned source (code and `#define` bodies; not in
 * comments, literals or groups the preprocessor skips, which the scanner dropped): a name of
 * `CUDA_WARP_INTRINSICS` followed by `(`, not a member (`.`, `->`) and not declared or
 * defined there (a type or a name right before it).
 */
export function warpIntrinsicCalls(scan: Scan): IntrinsicCall[] {
  const { tokens, source } = scan;
  const calls: IntrinsicCall[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const tk = tokens[k]!;
    const intrinsic = tk.kind === "ident" ? CUDA_WARP_INTRINSICS.get(tk.text) : undefined;
    if (!intrinsic) continue;
    const open = tokens[k + 1];
    if (open?.text !== "(" || open.macro !== tk.macro) continue;
    const prev = tokens[k - 1];
    if (prev && prev.macro === tk.macro) {
      if (prev.text === "." || (prev.text === ">" && tokens[k - 2]?.text === "-")) continue;
      if (prev.kind === "ident" && !BEFORE_CALL.has(prev.text)) continue;
    }
    let depth = 0;
    let close = k;
    for (let m = k + 1; m < tokens.length && tokens[m]!.macro === tk.macro; m++) {
      if (tokens[m]!.text === "(") depth++;
      else if (tokens[m]!.text === ")" && --depth === 0) {
        close = m;
        break;
      }
    }
    calls.push({ intrinsic, loc: source.loc(tk.start), start: source.origOf(tk.start), end: source.origOf(tokens[close]!.end - 1) + 1, macro: tk.macro });
  }
  return calls;
}
