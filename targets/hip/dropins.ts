/**
 * @fileoverview The HIP header's CUDA-signature drop-ins (issue 15 item 4): `ptxl_shfl_sync`,
 * `ptxl_shfl_up_sync`, `ptxl_shfl_down_sync`, `ptxl_shfl_xor_sync`, `ptxl_ballot_sync`,
 * `ptxl_all_sync`, `ptxl_any_sync`, `ptxl_uni_sync`, `ptxl_activemask`,
 * `ptxl_reduce_{add,min,max,and,or,xor}_sync`, `ptxl_match_any_sync`, `ptxl_match_all_sync`,
 * `ptxl_syncwarp` —
 * what `ptx-lower port` renames each CUDA warp intrinsic call to (src/port/intrinsics.ts).
 *
 * Each takes CUDA's signature (CUDA 13.0 `sm_30_intrinsics.h` lines 127-191, `crt/sm_70_rt.h`
 * 98-114, `crt/sm_80_rt.hpp` 102-135): a 32-bit `unsigned` membermask, the overloads CUDA
 * has, `width` defaulting to 32 (CUDA's `warpSize`, which `sm_30_intrinsics.hpp` line 85
 * defines as 32 — not HIP's `warpSize`, 64 on wave64). And each means what CUDA means, on every
 * processor, because it is nothing but the CUDA header's own mapping onto one PTX instruction,
 * called as the header's `ptxl_<formId>` alias of that instruction (targets/hip/print.ts, the
 * exact PTX meaning, two CUDA warps per wave64):
 * - `__shfl*_sync`: `shfl.sync.{idx,up,down,bfly}.b32 d|p, var, lane, c, mask` (as nvcc writes it, `p` unused) with CUDA's
 *   `c = ((32 - width) << 8) | 0x1f` (idx, down, xor) or `(32 - width) << 8` (up)
 *   (`sm_30_intrinsics.hpp` lines 369-414, `int c = ((warpSize-width) << 8) | 0x1f;` with
 *   `warpSize` 32; computed here in unsigned arithmetic, the same bits without C++'s undefined
 *   shift of a negative value); `float` through its bits; 64-bit types as two 32-bit shuffles
 *   of the halves, as lines 454-540 do;
 * - vote (`__all/__any/__uni_sync` → `vote.sync.{all,any,uni}.pred`, 1 or 0; `__ballot_sync` →
 *   `vote.sync.ballot.b32`), `__activemask` → `activemask.b32`, `__syncwarp(mask = 0xffffffff)`
 *   → `bar.warp.sync` (lines 108-142; `sm_30_intrinsics.h` line 126 for the default);
 * - `__reduce_{add,min,max}_sync` → `redux.sync.*.u32` (unsigned) / `.s32` (int),
 *   `__reduce_{and,or,xor}_sync` → `redux.sync.*.b32` (`crt/sm_80_rt.hpp`; bitwise, as PTX says:
 *   not HIP's logical `&&`, warp-semantics.md A10);
 * - `__match_any_sync` / `__match_all_sync(mask, value, int *pred)` → `match.{any,all}.sync.b32`
 *   for 32-bit values (`float` through its bits), `.b64` for 64-bit ones (`crt/sm_70_rt.hpp`;
 *   `long` is 64 bits on AMDGPU, as on the x86-64 host);
 * - the shuffles of `__half`/`__half2` (`cuda_fp16.hpp`, `__SHUFFLE_SYNC_HALF2_MACRO`: one
 *   `shfl.sync.*.b32` of the 32 bits, a `__half` in the low half) and of bfloat16
 *   (`cuda_bf16.hpp`; HIP's `__hip_bfloat16`/`__hip_bfloat162`, ROCm >= 6's `hip_bf16.h`), each
 *   group under `#if defined(__HIP_PLATFORM_AMD__) && __has_include(<its header>)` (`TypedOverloads`).
 * A drop-in with a `width` fails to compile at a call whose width is a constant that is not a
 * power of two from 1 to 32 (`widthCheck`, clang's `diagnose_if`): CUDA's c has no other
 * meaning, and a HIP-path `__shfl_xor_sync(…, 64)` ported as is would get a segment mask of 0.
 * So nothing here restates a semantics: the PTX meaning is the alias's, the CUDA-to-PTX
 * mapping is NVIDIA's header's.
 *
 * Distinct names, no `using`: ROCm ≥ 6.2's `hip_runtime.h` declares `__shfl_sync` & co.
 * globally as templates whose 64-bit-mask `static_assert` rejects CUDA's 32-bit masks
 * (ROCm/clr `hipamd/include/hip/amd_detail/amd_warp_sync_functions.h`), so a drop-in under
 * CUDA's name would meet them; these names meet nothing there, with or without
 * `HIP_DISABLE_WARP_SYNC_BUILTINS` (test/dropins.test.ts compiles against a stub of those
 * declarations). C++ only (overloads, a default argument): the section is under
 * `#ifdef __cplusplus`, the OpenCL C dialect of the header has none (`dropInsFor`), each
 * drop-in under an include guard of its own
 * (`PTX_LOWER_HIP_DROPIN_<name>`), so headers of several modules share them.
 */

/**
 * Overloads of a drop-in over a type that a HIP header declares (`__half`, `__hip_bfloat16`):
 * printed after `#include <HEADER>` under `#if defined(__HIP_PLATFORM_AMD__) &&
 * __has_include(<HEADER>)` — where HIP's own headers are in (hip_common.h defines
 * `__HIP_PLATFORM_AMD__`; hip_runtime.h and hip_fp16.h include it) and the header exists. A
 * `-nogpuinc` compile without them has no such type, so no call can need these overloads, and
 * `hip_fp16.h` does not compile there (it needs the C library hip_runtime.h brings).
 */
export interface TypedOverloads {
  /** The header, as `#include <…>` names it: `hip/hip_fp16.h`, `hip/hip_bf16.h` (ROCm >= 6). */
  header: string;
  /** The types the overloads take and return, CUDA's order. */
  types: string[];
  /** The overloads' definitions. */
  text: string[];
}

/** One drop-in: its name and its C++ overloads, over the aliases it calls. */
export interface DropIn {
  name: string;
  /** The CUDA intrinsic it stands for. */
  cuda: string;
  /** What it is, one line (its comment). */
  what: string;
  /** The overloads' definitions over the language's own types. */
  text: string[];
  /** Overloads over the types of HIP headers, each group under its header's `#if` (see `TypedOverloads`). */
  typed?: TypedOverloads[];
}

const DEV = "static __attribute__((device)) inline";
const INT32 = [
  ["int", "(uint32_t)var", (x: string) => `(int)${x}`],
  ["unsigned int", "(uint32_t)var", (x: string) => x],
  ["float", "__builtin_bit_cast(uint32_t, var)", (x: string) => `__builtin_bit_cast(float, ${x})`],
] as const;
const INT64 = ["long", "unsigned long", "long long", "unsigned long long", "double"] as const;

/**
 * The `diagnose_if` of a drop-in with a `width` parameter: a compile error at a call whose
 * width is a constant that is not a power of two from 1 to 32 (CUDA's `width` is a segment of
 * its 32-lane warp; `c = ((32 - width) << 8) | 0x1f` means nothing else). clang evaluates the
 * condition with the call's arguments and gives up, silently, where one is not a constant, so
 * a run-time width compiles; a template's width is checked per instantiation (a ported
 * `warp_reduce_sum<64>` — 64 is HIP's wave64 width — does not compile into a segment mask of 0).
 */
export function widthCheck(name: string, cuda: string): string {
  return ` __attribute__((diagnose_if(width <= 0 || width > 32 || (width & (width - 1)) != 0, "${name} (CUDA's ${cuda}): width must be a power of two from 1 to 32, the lanes of a segment of a 32-lane CUDA warp (64, HIP's wave64 width, has no CUDA meaning: port that code by hand)", "error")))`;
}

/**
 * The shuffles: `T NAME(unsigned mask, T var, LANE, int width = 32)` over `shfl.sync.MODE.b32`,
 * for CUDA's types (`sm_30_intrinsics.hpp`) and, as `cuda_fp16.hpp`/`cuda_bf16.hpp` declare
 * them, for `__half`/`__half2` and the bfloat16 pair: one 32-bit shuffle each, as CUDA's
 * `__SHUFFLE_SYNC_HALF2_MACRO` does (a `__half` in the low 16 bits: CUDA shuffles
 * `__halves2half2(var, var)` and takes the low half, the same bits as here). `__half`/`__half2`
 * move through `__builtin_bit_cast` (trivially copyable in HIP 5.2 and ROCm 6); the bfloat16
 * types through `__builtin_memcpy`, since ROCm >= 6.2's `__hip_bfloat162` has a user-provided
 * copy constructor, which `__builtin_bit_cast` rejects.
 */
function shfl(name: string, mode: "idx" | "up" | "down" | "bfly", lane: string): DropIn {
  // `d|p`, as nvcc writes it; p unused.
  const alias = `ptxl_shfl_sync_${mode}_b32_dp`;
  const cuda = `__${name.slice(5)}`;
  const laneName = lane.split(" ").pop()!;
  const c = `((32u - (uint32_t)width) << 8)${mode === "up" ? "" : " | 0x1fu"}`;
  const call = (v: string) => `${alias}(${v}, (uint32_t)${laneName}, ${c}, mask, &p)`;
  const sig = (t: string) => `${DEV} ${t} ${name}(unsigned mask, ${t} var, ${lane}, int width = 32)${widthCheck(name, cuda)} {\n`;
  const text: string[] = [];
  for (const [t, v, back] of INT32) text.push(`${sig(t)}  bool p;\n  return ${back(call(v))};\n}`);
  for (const t of INT64)
    text.push(
      sig(t) +
        `  const uint64_t v = __builtin_bit_cast(uint64_t, var);\n` +
        `  bool p;\n` +
        `  const uint32_t hi = ${call("(uint32_t)(v >> 32)")};\n` +
        `  const uint32_t lo = ${call("(uint32_t)v")};\n` +
        `  return __builtin_bit_cast(${t}, ((uint64_t)hi << 32) | lo);\n}`,
    );
  const half = [
    `${sig("__half")}  bool p;\n  return __builtin_bit_cast(__half, (uint16_t)${call("(uint32_t)__builtin_bit_cast(uint16_t, var)")});\n}`,
    `${sig("__half2")}  bool p;\n  return __builtin_bit_cast(__half2, ${call("__builtin_bit_cast(uint32_t, var)")});\n}`,
  ];
  const viaMemcpy = (t: string, u: "uint16_t" | "uint32_t") =>
    sig(t) +
    `  static_assert(sizeof(${t}) == sizeof(${u}), "${t} is ${u === "uint16_t" ? 16 : 32} bits");\n` +
    `  ${u} v;\n` +
    `  __builtin_memcpy(&v, (const void *)&var, sizeof v);\n` +
    `  bool p;\n` +
    `  const ${u} r = (${u})${call("(uint32_t)v")};\n` +
    `  ${t} d;\n` +
    `  __builtin_memcpy((void *)&d, &r, sizeof r);\n` +
    `  return d;\n}`;
  const bf16 = [viaMemcpy("__hip_bfloat16", "uint16_t"), viaMemcpy("__hip_bfloat162", "uint32_t")];
  return {
    name,
    cuda,
    what: `shfl.sync.${mode}.b32 with CUDA's c for width (default 32; a constant width not a power of two <= 32 does not compile); 64-bit values as two 32-bit shuffles, 16-bit pairs as one`,
    text,
    typed: [
      { header: "hip/hip_fp16.h", types: ["__half", "__half2"], text: half },
      { header: "hip/hip_bf16.h", types: ["__hip_bfloat16", "__hip_bfloat162"], text: bf16 },
    ],
  };
}

/** A vote reduction: `int NAME(unsigned mask, int pred)`, 1 or 0. */
function vote(name: string, mode: "all" | "any" | "uni"): DropIn {
  return { name, cuda: `__${name.slice(5)}`, what: `vote.sync.${mode}.pred: 1 or 0`, text: [`${DEV} int ${name}(unsigned mask, int pred) {\n  return ptxl_vote_sync_${mode}_pred(pred != 0, mask) ? 1 : 0;\n}`] };
}

/** A reduction: `unsigned NAME(unsigned mask, unsigned value)` (and `int` for add/min/max). */
function reduce(name: string, op: "add" | "min" | "max" | "and" | "or" | "xor"): DropIn {
  const bit = op === "and" || op === "or" || op === "xor";
  const text = bit
    ? [`${DEV} unsigned int ${name}(unsigned mask, unsigned int value) {\n  return ptxl_redux_sync_${op}_b32(value, mask);\n}`]
    : [
        `${DEV} unsigned int ${name}(unsigned mask, unsigned int value) {\n  return ptxl_redux_sync_${op}_u32(value, mask);\n}`,
        `${DEV} int ${name}(unsigned mask, int value) {\n  return (int)ptxl_redux_sync_${op}_s32((uint32_t)value, mask);\n}`,
      ];
  return { name, cuda: `__${name.slice(5)}`, what: bit ? `redux.sync.${op}.b32 (bitwise)` : `redux.sync.${op}.u32 (unsigned) / .s32 (int)`, text };
}

/** match.any / match.all over every CUDA value type: 32-bit ones `.b32`, 64-bit ones `.b64`. */
function match(name: string, mode: "any" | "all"): DropIn {
  const text: string[] = [];
  const types: [string, string, string][] = [
    ["unsigned int", "b32", "(uint32_t)value"],
    ["int", "b32", "(uint32_t)value"],
    ["float", "b32", "__builtin_bit_cast(uint32_t, value)"],
    ...INT64.map((t): [string, string, string] => [t, "b64", "__builtin_bit_cast(uint64_t, value)"]),
  ];
  for (const [t, w, v] of types) {
    if (mode === "any") text.push(`${DEV} unsigned int ${name}(unsigned mask, ${t} value) {\n  return ptxl_match_any_sync_${w}(${v}, mask);\n}`);
    else text.push(`${DEV} unsigned int ${name}(unsigned mask, ${t} value, int *pred) {\n  bool p;\n  const uint32_t d = ptxl_match_all_sync_${w}_dp(${v}, mask, &p);\n  *pred = p ? 1 : 0;\n  return d;\n}`);
  }
  return { name, cuda: `__${name.slice(5)}`, what: mode === "any" ? "match.any.sync.b32 / .b64 by the value's width" : "match.all.sync.b32 / .b64 d|p by the value's width; *pred = p", text };
}

/** Every drop-in, in the order the header prints them. */
export const DROP_INS: readonly DropIn[] = [
  shfl("ptxl_shfl_sync", "idx", "int srcLane"),
  shfl("ptxl_shfl_up_sync", "up", "unsigned int delta"),
  shfl("ptxl_shfl_down_sync", "down", "unsigned int delta"),
  shfl("ptxl_shfl_xor_sync", "bfly", "int laneMask"),
  { name: "ptxl_ballot_sync", cuda: "__ballot_sync", what: "vote.sync.ballot.b32", text: [`${DEV} unsigned int ptxl_ballot_sync(unsigned mask, int pred) {\n  return ptxl_vote_sync_ballot_b32(pred != 0, mask);\n}`] },
  vote("ptxl_all_sync", "all"),
  vote("ptxl_any_sync", "any"),
  vote("ptxl_uni_sync", "uni"),
  { name: "ptxl_activemask", cuda: "__activemask", what: "activemask.b32", text: [`${DEV} unsigned int ptxl_activemask(void) {\n  return ptxl_activemask_b32();\n}`] },
  reduce("ptxl_reduce_add_sync", "add"),
  reduce("ptxl_reduce_min_sync", "min"),
  reduce("ptxl_reduce_max_sync", "max"),
  reduce("ptxl_reduce_and_sync", "and"),
  reduce("ptxl_reduce_or_sync", "or"),
  reduce("ptxl_reduce_xor_sync", "xor"),
  match("ptxl_match_any_sync", "any"),
  match("ptxl_match_all_sync", "all"),
  { name: "ptxl_syncwarp", cuda: "__syncwarp", what: "bar.warp.sync (mask defaults to all 32 lanes)", text: [`${DEV} void ptxl_syncwarp(unsigned mask = 0xffffffffu) {\n  ptxl_bar_warp_sync(mask);\n}`] },
];

/** Every overload's definition of a drop-in: its own types', then each header's group. */
export function dropInOverloads(d: DropIn): string[] {
  return [...d.text, ...(d.typed ?? []).flatMap((g) => g.text)];
}

/** The header functions a drop-in calls (the `ptxl_<formId>` aliases), read from its text (every overload). */
export function dropInNeeds(d: DropIn): string[] {
  const names = new Set<string>();
  for (const t of dropInOverloads(d)) for (const m of t.matchAll(/\b(ptxl_[a-z0-9_]+)\s*\(/g)) if (m[1] !== d.name) names.add(m[1]!);
  return [...names];
}

/**
 * The drop-ins a ported file of `language` may call: every one for CUDA/HIP C++, none for
 * OpenCL C — each is a set of C++ overloads with a default argument, which OpenCL C has no
 * way to write (one C function per CUDA signature would need names CUDA does not have). So a
 * warp intrinsic call in a `.cl` file is left by the port ("a warp drop-in OpenCL C cannot
 * express"); a warp `asm` statement there still gets its `ptxl_<formId>` function.
 */
export function dropInsFor(language: "cuda" | "opencl"): readonly DropIn[] {
  return language === "cuda" ? DROP_INS : [];
}

/**
 * The drop-in section of a HIP header (C++ dialect): every drop-in whose aliases are all among
 * `defined` (the header's function names), whole or not at all (a drop-in missing an overload
 * would convert an argument silently). Each under its include guard
 * (`PTX_LOWER_HIP_DROPIN_<name>`), its HIP-header overloads under their `#if` (see
 * `TypedOverloads`; the `#include` of the header inside it).
 * @returns the section's text (no trailing newline), or "" when no drop-in is ready.
 */
export function printDropIns(defined: ReadonlySet<string>): string {
  const ready = DROP_INS.filter((d) => dropInNeeds(d).every((n) => defined.has(n)));
  if (ready.length === 0) return "";
  const parts = ready.map((d) => {
    const g = `PTX_LOWER_HIP_DROPIN_${d.name}`;
    const typed = (d.typed ?? []).map(
      (t) => `/* ${t.types.join(", ")}: where HIP's headers are in and <${t.header}> exists. */\n#if defined(__HIP_PLATFORM_AMD__) && __has_include(<${t.header}>)\n#include <${t.header}>\n${t.text.join("\n")}\n#endif`,
    );
    return [`#ifndef ${g}\n#define ${g}\n/* ${d.name}: CUDA's ${d.cuda}, same signature and meaning — ${d.what}. */\n${d.text.join("\n")}`, ...typed, "#endif"].join("\n");
  });
  const head =
    "/* CUDA-signature drop-ins (C++): what ptx-lower port renames each CUDA warp intrinsic call to. CUDA's\n" +
    "   32-bit unsigned masks, width defaults to 32; each calls the ptxl_<formId> function of the PTX\n" +
    "   instruction CUDA's header compiles the intrinsic to. Distinct names (ROCm >= 6.2 declares CUDA's). */";
  return `${head}\n#ifdef __cplusplus\n${parts.join("\n")}\n#endif`;
}
