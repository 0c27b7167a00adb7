/**
 * @fileoverview The CUDA warp intrinsics `ptx-lower port` meets in sources: calls that are no
 * asm, but that a HIP build of the file needs a definition of (Debian's HIP 5.2 headers have
 * none of the `_sync` ones, nor `__activemask`; ROCm ≥ 6.2's want 64-bit masks and differ in
 * meaning, warp-semantics.md §9.3). This table is the one place that says which names are
 * meant and what the port does with each: `rewrite` — each call's name becomes the drop-in's
 * (`__shfl_sync(` → `ptxl_shfl_sync(`), defined by the HIP header (targets/hip/dropins.ts) over
 * the HIP functions of the PTX instructions listed here, which the port adds to the module
 * its header is lowered from; `left` — reported with the reason, the text unchanged.
 *
 * `ptx`: the PTX instructions CUDA's own headers compile the intrinsic to (CUDA 13.0:
 * `sm_30_intrinsics.hpp` — `__shfl*_sync` through `__nvvm_shfl_{idx,up,down,bfly}_sync`, the
 * vote builtins, `__activemask` as `activemask.b32`, `__syncwarp` through `__nvvm_bar_warp_sync`; `crt/sm_70_rt.hpp` — `__match32/64_*`;
 * `crt/sm_80_rt.hpp` — `__reduce_*_sync` through `redux.sync`, signed and unsigned; confirmed
 * in `nvcc -ptx` of ../shared/cuda/c14_warp_reduce_scan.cu), one per overload width or
 * signedness, written in the shape of src/port/bind.ts `Call.ptx` (`%sN` registers of the
 * types given) — `shfl.sync … d|p` as nvcc writes it (`p` unused), so that a header lowered
 * from nvcc's PTX offers the same drop-ins.
 *
 * cooperative_groups (`cg::reduce`, `cg::tiled_partition<8>(…)`, …): not mapped. The calls
 * through a `cooperative_groups` name or an alias of it are found and reported as left
 * (`cooperativeGroupsCalls`): HIP has its own `hip/hip_cooperative_groups.h`, and what a
 * group's methods do depends on its type, which the port does not know.
 *
 * Source: CUDA C++ Programming Guide, "Warp Vote Functions" (`__all_sync`, `__any_sync`,
 * `__uni_sync`, `__ballot_sync`, `__activemask`), "Warp Match Functions", "Warp Reduce
 * Functions", "Warp Shuffle Functions"; the CUDA 13.0 headers named above.
 */
import type { Loc } from "../ir/ir.js";
import type { Scan } from "./scan.js";
import { macroInForce } from "./scan.js";

/** A PTX instruction with `%sN` operands of the types given (the shape of bind.ts `Call.ptx`). */
export interface IntrinsicPtx {
  text: string;
  types: string[];
}

/** What the port does with a CUDA warp intrinsic call. */
export type WarpIntrinsic =
  | {
      name: string;
      status: "rewrite";
      /** The drop-in's name in the HIP header (targets/hip/dropins.ts), the call's new name. */
      to: string;
      /** The PTX instructions CUDA compiles it to: their HIP functions are what the drop-in calls. */
      ptx: IntrinsicPtx[];
    }
  | { name: string; status: "left"; reason: string };

const b32 = (n: number) => Array<string>(n).fill("b32");
const SHFL = (mode: string): IntrinsicPtx[] => [{ text: `shfl.sync.${mode}.b32 %s0|%s1, %s2, %s3, %s4, %s5;`, types: ["b32", "pred", ...b32(4)] }];
const VOTE = (mode: string): IntrinsicPtx[] => [{ text: `vote.sync.${mode}.pred %s0, %s1, %s2;`, types: ["pred", "pred", "b32"] }];
const REDUX = (op: string, types: string[]): IntrinsicPtx[] => types.map((t) => ({ text: `redux.sync.${op}.${t} %s0, %s1, %s2;`, types: b32(3) }));

/**
 * CUDA's warp intrinsics before CUDA 9 (no `_sync`, no mask; CUDA 9 deprecated them and they
 * are not available for sm_70 and later: CUDA C++ Programming Guide, "Warp Shuffle Functions",
 * "Warp Vote Functions"). HIP has its own functions of these names, over the whole wavefront
 * (64 lanes on wave64, a 64-bit ballot), so they are reported, never renamed.
 */
const LEGACY = ["__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__ballot", "__any", "__all"];

/** Why a legacy warp intrinsic call is left. */
export const LEGACY_LEFT =
  "a legacy warp intrinsic (no _sync, no mask: CUDA 9 deprecated it, sm_70 and later lack it): HIP compiles its own, over the whole wavefront (64 lanes on wave64), not a 32-thread CUDA warp; port the code to the _sync form";

/** Every CUDA warp intrinsic the port knows, by name. */
export const CUDA_WARP_INTRINSICS: ReadonlyMap<string, WarpIntrinsic> = new Map(
  (
    [
      ["__activemask", [{ text: "activemask.b32 %s0;", types: ["b32"] }]],
      ["__all_sync", VOTE("all")],
      ["__any_sync", VOTE("any")],
      ["__uni_sync", VOTE("uni")],
      ["__ballot_sync", [{ text: "vote.sync.ballot.b32 %s0, %s1, %s2;", types: ["b32", "pred", "b32"] }]],
      [
        "__match_any_sync",
        [
          { text: "match.any.sync.b32 %s0, %s1, %s2;", types: b32(3) },
          { text: "match.any.sync.b64 %s0, %s1, %s2;", types: ["b32", "b64", "b32"] },
        ],
      ],
      [
        "__match_all_sync",
        [
          { text: "match.all.sync.b32 %s0|%s1, %s2, %s3;", types: ["b32", "pred", "b32", "b32"] },
          { text: "match.all.sync.b64 %s0|%s1, %s2, %s3;", types: ["b32", "pred", "b64", "b32"] },
        ],
      ],
      ["__shfl_sync", SHFL("idx")],
      ["__shfl_up_sync", SHFL("up")],
      ["__shfl_down_sync", SHFL("down")],
      ["__shfl_xor_sync", SHFL("bfly")],
      ["__reduce_add_sync", REDUX("add", ["u32", "s32"])],
      ["__reduce_min_sync", REDUX("min", ["u32", "s32"])],
      ["__reduce_max_sync", REDUX("max", ["u32", "s32"])],
      ["__reduce_and_sync", REDUX("and", ["b32"])],
      ["__reduce_or_sync", REDUX("or", ["b32"])],
      ["__reduce_xor_sync", REDUX("xor", ["b32"])],
      ["__syncwarp", [{ text: "bar.warp.sync %s0;", types: ["b32"] }]],
    ] as [string, IntrinsicPtx[]][]
  )
    .map(([name, ptx]): [string, WarpIntrinsic] => [name, { name, status: "rewrite", to: `ptxl_${name.replace(/^__/, "")}`, ptx }])
    .concat(LEGACY.map((name): [string, WarpIntrinsic] => [name, { name, status: "left", reason: LEGACY_LEFT }])),
);

/** Why a cooperative_groups call is left. */
export const COOPERATIVE_GROUPS_LEFT =
  "a cooperative_groups call: not mapped (port rewrites only CUDA's warp intrinsics; HIP has its own hip/hip_cooperative_groups.h)";

/** One call the port reports: a CUDA warp intrinsic, or a cooperative_groups function. */
export interface IntrinsicCall {
  /** The table's entry, or null for a cooperative_groups call. */
  intrinsic: WarpIntrinsic | null;
  /** The name as written (`__shfl_sync`, `cg::reduce`, `cooperative_groups::this_thread_block`). */
  name: string;
  loc: Loc;
  /** Original offsets of the call: the name to its `)` (or to the name when no `)` closes it). */
  start: number;
  end: number;
  /** Original offsets of the name alone (what a rewrite replaces). */
  nameEnd: number;
  /** The `#define` whose body holds the call (index into `Scan.macros`), or -1. */
  macro: number;
}

/**
 * Words after which `NAME(` is still a call (a type or another name before it makes it a
 * declaration): keywords that take an expression, and C++'s alternative tokens for operators
 * (C++ [lex.digraph], `and or not xor bitand bitor compl and_eq or_eq xor_eq not_eq`: cuGraph
 * writes `(n < N) or __all_sync(…)`).
 */
const BEFORE_CALL = new Set([
  "return", "case", "else", "do", "throw", "co_return", "co_await", "co_yield", "sizeof", "alignof", "decltype", "noexcept",
  "and", "or", "not", "xor", "bitand", "bitor", "compl", "and_eq", "or_eq", "xor_eq", "not_eq",
]);

/** The token index of the `)` closing the `(` at `open` within the same macro, or -1. */
function closing(scan: Scan, open: number): number {
  const { tokens } = scan;
  const macro = tokens[open]!.macro;
  let depth = 0;
  for (let m = open; m < tokens.length && tokens[m]!.macro === macro; m++) {
    if (tokens[m]!.text === "(") depth++;
    else if (tokens[m]!.text === ")" && --depth === 0) return m;
  }
  return -1;
}

/**
 * Whether the name at token `k` is CUDA's (a call when `(` follows): not a member (`.`, `->`),
 * not qualified by a scope (`X::NAME`, `T<…>::NAME`; a bare `::NAME` is the global one, CUDA's),
 * not declared there (a type or a name right before it).
 */
function calledOrUsedHere(tokens: Scan["tokens"], k: number): boolean {
  const tk = tokens[k]!;
  const prev = tokens[k - 1];
  if (!prev || prev.macro !== tk.macro) return true;
  if (prev.text === "." || (prev.text === ">" && tokens[k - 2]?.text === "-")) return false;
  if (prev.text === "::") {
    const scope = tokens[k - 2];
    return !(scope && scope.macro === tk.macro && ((scope.kind === "ident" && !BEFORE_CALL.has(scope.text)) || scope.text === ">"));
  }
  return !(prev.kind === "ident" && !BEFORE_CALL.has(prev.text));
}

/**
 * The calls of CUDA warp intrinsics in a scanned source (code and `#define` bodies; not in
 * comments, literals or groups the preprocessor skips, which the scanner dropped): a name of
 * `CUDA_WARP_INTRINSICS` followed by `(`, not a member (`.`, `->`), not qualified by a scope
 * (`ns::`, `T<int>::`; a bare `::NAME(` is the global function, CUDA's intrinsic, and is found:
 * its rename `::ptxl_NAME(` names the header's global drop-in) and not declared or defined
 * there (a type or a name right before it). In source order.
 */
export function warpIntrinsicCalls(scan: Scan): IntrinsicCall[] {
  const { tokens, source } = scan;
  const calls: IntrinsicCall[] = [];
  const defined = ownDefinitions(scan);
  for (let k = 0; k < tokens.length; k++) {
    const tk = tokens[k]!;
    const intrinsic = tk.kind === "ident" ? CUDA_WARP_INTRINSICS.get(tk.text) : undefined;
    if (!intrinsic) continue;
    const open = tokens[k + 1];
    if (open?.text !== "(" || open.macro !== tk.macro) continue;
    if (!calledOrUsedHere(tokens, k)) continue;
    const close = closing(scan, k + 1);
    const last = close < 0 ? k : close;
    // The file's own function-like macro of that name: the call is the macro's, and stays; so is a call of the file's own function of that name.
    const own = macroInForce(scan, tk.text, k);
    const fn = defined.get(tk.text);
    const call = own !== null ? { name: tk.text, status: "left" as const, reason: macroLeft(own.loc.line) } : fn !== undefined ? { name: tk.text, status: "left" as const, reason: `the file defines its own function of this name (line ${fn}): the call is that function's, left unchanged` } : intrinsic;
    calls.push({ intrinsic: call, name: tk.text, loc: source.loc(tk.start), start: source.origOf(tk.start), end: source.origOf(tokens[last]!.end - 1) + 1, nameEnd: source.origOf(tk.end - 1) + 1, macro: tk.macro });
  }
  return calls;
}

/**
 * The CUDA warp intrinsics' names the file defines a function of (a declaration — a type, a
 * name or `>` before the name — whose parameter list is followed by a body `{`, past
 * qualifiers and attributes), each with the line of its first definition. A prototype alone is
 * a declaration of CUDA's own function, not a definition of the file's.
 */
function ownDefinitions(scan: Scan): Map<string, number> {
  const { tokens } = scan;
  const out = new Map<string, number>();
  for (let k = 1; k < tokens.length; k++) {
    const tk = tokens[k]!;
    if (tk.kind !== "ident" || !CUDA_WARP_INTRINSICS.has(tk.text) || out.has(tk.text) || tokens[k + 1]?.text !== "(") continue;
    const prev = tokens[k - 1]!;
    if (!((prev.kind === "ident" && !BEFORE_CALL.has(prev.text)) || prev.text === ">" || prev.text === "*" || prev.text === "&")) continue;
    let m = closing(scan, k + 1);
    if (m < 0) continue;
    // Past `const`, `noexcept`, `__attribute__((…))`, `-> T`: a `{` within a few tokens is a body.
    for (let n = 0; n < 12 && ++m < tokens.length; n++) {
      const t = tokens[m]!.text;
      if (t === "{") {
        out.set(tk.text, scan.source.loc(tk.start).line);
        break;
      }
      if (t === ";" || t === "}" || t === "=") break;
    }
  }
  return out;
}

/** Why a call of a CUDA warp intrinsic's name is left where the file defines a macro of that name (on `line`). */
export const macroLeft = (line: number) => `the file defines a macro of this name (line ${line}): the call is the macro's, left unchanged`;

/** Why a CUDA warp intrinsic's name that is not called where it stands is left. */
export const NOT_A_CALL_LEFT =
  "not a call (its address taken, template arguments, a macro body naming it alone): left unchanged; a HIP build needs a definition of the name (HIP 5.2 has none)";

/**
 * The other uses of a CUDA warp intrinsic's name in a scanned source, which the port leaves
 * and reports (`NOT_A_CALL_LEFT`): the name not followed by `(` (`&__shfl_down_sync`, `f =
 * __ballot_sync;`, `__shfl_sync<int>(…)`, `#define SHFL __shfl_sync`), where it would be a
 * call by `warpIntrinsicCalls`'s other rules (not a member, not qualified by a scope, not
 * declared there). In source order.
 */
export function warpIntrinsicUses(scan: Scan): IntrinsicCall[] {
  const { tokens, source } = scan;
  const uses: IntrinsicCall[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const tk = tokens[k]!;
    const known = tk.kind === "ident" ? CUDA_WARP_INTRINSICS.get(tk.text) : undefined;
    if (!known) continue;
    const next = tokens[k + 1];
    if (next?.text === "(" && next.macro === tk.macro) continue;
    if (!calledOrUsedHere(tokens, k)) continue;
    const end = source.origOf(tk.end - 1) + 1;
    uses.push({ intrinsic: { name: tk.text, status: "left", reason: NOT_A_CALL_LEFT }, name: tk.text, loc: source.loc(tk.start), start: source.origOf(tk.start), end, nameEnd: end, macro: tk.macro });
  }
  return uses;
}

/**
 * The calls of cooperative_groups functions: `NS::NAME(` or `NS::NAME<…>(`, where NS is
 * `cooperative_groups` (optionally `::`-prefixed) or a name made an alias of it by `namespace
 * NS = cooperative_groups;` earlier in the file — the outermost call only (a call inside
 * another's arguments is part of it). In source order. Member calls on a group object
 * (`t.sync()`) are not found: the port does not know the object's type.
 */
export function cooperativeGroupsCalls(scan: Scan): IntrinsicCall[] {
  const { tokens, source } = scan;
  const names = new Set(["cooperative_groups"]);
  const calls: IntrinsicCall[] = [];
  let until = -1;
  for (let k = 0; k < tokens.length; k++) {
    const tk = tokens[k]!;
    if (tk.kind !== "ident") continue;
    // `namespace X = cooperative_groups;`
    if (tk.text === "namespace" && tokens[k + 1]?.kind === "ident" && tokens[k + 2]?.text === "=") {
      let m = k + 3;
      if (tokens[m]?.text === "::") m++;
      if (tokens[m]?.text === "cooperative_groups" && tokens[m + 1]?.text === ";") names.add(tokens[k + 1]!.text);
      continue;
    }
    if (k <= until || !names.has(tk.text) || tokens[k + 1]?.text !== "::" || tokens[k + 2]?.kind !== "ident") continue;
    // Not itself qualified by something else (`a::cg::x`), and not a member.
    const prev = tokens[k - 1];
    if (prev && (prev.text === "." || (prev.text === "::" && tokens[k - 2]?.kind === "ident"))) continue;
    let m = k + 3;
    // Template arguments: `<…>` with nested `<>` and `()`.
    if (tokens[m]?.text === "<") {
      let depth = 0;
      for (; m < tokens.length && tokens[m]!.macro === tk.macro; m++) {
        const t = tokens[m]!.text;
        if (t === "<" || t === "(") depth++;
        else if ((t === ">" || t === ")") && --depth === 0) break;
      }
      m++;
    }
    if (tokens[m]?.text !== "(" || tokens[m]!.macro !== tk.macro) continue;
    const close = closing(scan, m);
    const last = close < 0 ? m : close;
    until = last;
    calls.push({ intrinsic: null, name: `${tk.text}::${tokens[k + 2]!.text}`, loc: source.loc(tk.start), start: source.origOf(tk.start), end: source.origOf(tokens[last]!.end - 1) + 1, nameEnd: source.origOf(tokens[k + 2]!.end - 1) + 1, macro: tk.macro });
  }
  return calls;
}
