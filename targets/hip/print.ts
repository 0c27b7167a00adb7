/**
 * @fileoverview `--target hip` (issue 14 item 1): one self-contained header `NAME.hip.h` of
 * device functions, one per (form, immediates) plus a readable alias per form
 * (targets/llvm/callable.ts: names, shapes, the two-warps-per-wave64 meaning).
 *
 * How each function is written (design choice, no per-family rule file):
 * - Scalar forms (szext, vshl/vshr) are the portable target's routine for the collapsed spec
 *   (targets/portable: szext's rules, and vsh derived from src/sem through the staging of
 *   targets/portable/stage.ts), printed by the C printer (targets/c/print.ts) and made
 *   `__device__` one function at a time (`static __attribute__((device)) inline`,
 *   `qualifyScalar`; a `#pragma clang attribute push` region around them would be empty, and
 *   warned about, in a second header whose guards skip all of it). That C is what the `c`
 *   target already checks against the reference; clang
 *   selects the AMDGPU instructions
 *   (`v_bfe_*`, `v_perm_b32`, `v_alignbit_b32`, …) and schedules them, and LLVM's hazard
 *   recognizer inserts the wait states. There is no inline asm, so there is no boundary to
 *   pad (README, "Hazards at the routine boundary").
 * - Warp forms (match.sync) are per-thread code over clang builtins
 *   (`__builtin_amdgcn_readfirstlane`, `…_ballot_w32/_w64`, `…_mbcnt_lo/_hi`): the
 *   waterfall of amdgpu.md §6 (lead = readfirstlane(a); ballot(a == lead); leave when equal),
 *   with the ballot taken over the thread's own CUDA warp. On wave64 (gfx9) a wavefront
 *   holds two CUDA warps: the half is `mbcnt & 32`, and the ballot is shifted down by it, so
 *   ballots and compares stay inside the half. One header serves wave32 and wave64 through
 *   the predefined `__AMDGCN_WAVEFRONT_SIZE`. This is a lowering (like an AMDGPU rule), not a
 *   semantics: the compiled code is checked against src/sem/match_sync.ts
 *   (targets/llvm/compiled.ts).
 * - The warp-level family (shfl, vote, redux, activemask, bar.warp.sync; issue 15) is
 *   per-thread code over the same builtins plus `ds_bpermute` and `readlane`, each thread over
 *   its own membermask (`warpLevelBody`), checked against src/sem/warp.ts the same way.
 *
 * Compiles with `clang-19 -x hip --cuda-device-only -nogpulib [-nogpuinc] -O2
 * --offload-arch=M` for gfx900, gfx90a, gfx942, gfx1030 and gfx1100, with or without
 * `hip/hip_runtime.h` included first (the header spells `__device__` as
 * `__attribute__((device))`), and in the host pass (`--cuda-host-only`), which parses the
 * device functions and emits none of them.
 *
 * Device only, not `__host__ __device__` (a fresh tester's finding, issue 14): a HIP
 * translation unit includes the C header of the same module (`lower --target c`) for its host
 * code and this header for its device code. The two define the same names (the C header's
 * `szext_clamp_s32__v_v`, `pl_ashr32`, …); clang rejects a `__host__ __device__` function
 * that overloads a `__host__` one of the same signature, but overloads a `__device__`
 * function on a `__host__` one. So every function here is `__device__` and the helpers the C
 * printer writes have guards of their own (`PTX_LOWER_HIP_HELPER_<name>`, the C header's are
 * `PTX_LOWER_HELPER_<name>`): with both headers included, host code calls the C function,
 * device code this one, and a `__host__ __device__` caller gets each on its own side.
 *
 * Two dialects (`HipPrintOptions.language`): `cuda`, the above; `opencl`, the same functions
 * as OpenCL C for AMDGPU (`clang -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa`, for a `.cl`
 * file the port rewrites): no includes, no device attribute, OpenCL's `uint`/`ulong`/`bool`
 * for `<stdint.h>`'s names (`openclTypes`), and no CUDA-signature drop-ins (C++ overloads; see
 * targets/hip/dropins.ts `dropInsFor`). The clang builtins are the same in both.
 * `HipPrintOptions.warpSize` adds `ptxl_warpSize`, CUDA's 32 (`WARP_SIZE_SECTION`).
 *
 * Include guards: one per function, `PTX_LOWER_HIP_<name>`, so headers of several modules
 * share what they have in common (each function defined once). Semantics profiles: the
 * vshl/vshr functions mean what `opts.profile` says, under the same names in every profile
 * (the port and the `lower` user call them by the routine contract). So a header marks each
 * video function it defines with its profile (`PTX_LOWER_HIP_<name>_<profile>`) and opens
 * with an `#error` per video function and other profile: a translation unit that includes an
 * `isa` header and an `sm90` header defining the same function stops at the second, naming
 * the function and both profiles. szext and match.sync functions are the same in every
 * profile and mix freely.
 */
import type { MatchForm, Profile } from "../../src/ir/forms.js";
import { formName } from "../../src/ir/forms.js";
import type { WarpForm } from "../../src/ir/warp_forms.js";
import { warpPredicateDest } from "../../src/ir/warp_forms.js";
import { isWarpLevel } from "../../src/check/missing.js";
import { PROFILES } from "../../src/ir/form_types.js";
import { lowerPortable } from "../portable/rules/index.js";
import { printCModule, cComment } from "../c/print.js";
import type { CallableFn, CallablePrintOptions, RoutineLike } from "../llvm/callable.js";
import { callableFunctions, immOf, profileSensitive } from "../llvm/callable.js";
import { dropInsFor, printDropIns } from "./dropins.js";

/** The include guard of a scalar function: its name, in every profile (see `profileClash`). */
function guardOf(fn: CallableFn): string {
  return `PTX_LOWER_HIP_${fn.name}`;
}

/** The macro saying that a header of `profile` has defined the vshl/vshr function `fn`. */
function profileMark(fn: CallableFn, profile: Profile): string {
  return `PTX_LOWER_HIP_${fn.name}_${profile}`;
}

/**
 * What stops a translation unit from mixing profiles, before any definition: for each
 * vshl/vshr function, an `#error` for each other profile whose header defined the same name
 * first (its mark is set), then this profile's mark. The definition itself is guarded by the
 * name alone, so the second header defines nothing the first did and the `#error`s are the
 * only diagnostics. Empty when the header has no video function.
 */
function profileClash(fns: readonly CallableFn[], profile: Profile): string[] {
  const out: string[] = [];
  for (const fn of fns.filter(profileSensitive)) {
    for (const other of PROFILES.filter((p) => p !== profile)) {
      out.push(
        `#if defined(${profileMark(fn, other)})`,
        `#error "ptx-lower: ${fn.name} is already defined with the ${other} semantics profile's meaning; this header defines it with the ${profile} profile's: lower every module of this translation unit with one --semantics"`,
        "#endif",
      );
    }
    out.push(`#define ${profileMark(fn, profile)}`);
  }
  return out;
}

/** The C type of a per-thread value of `width` bits (1: a predicate). */
const cType = (width: number) => (width === 64 ? "uint64_t" : width === 1 ? "bool" : "uint32_t");

function cLit(x: bigint, width: number): string {
  if (width === 1) return x !== 0n ? "true" : "false";
  return width === 64 ? `UINT64_C(0x${x.toString(16)})` : `0x${x.toString(16)}u`;
}

/** The return type of a function as C: d (u32; bool for vote's `.pred` d), p (bool), or void (`match.all … _`, bar.warp.sync). */
export function hipReturnType(fn: CallableFn): string {
  if (fn.writes.d) return isWarpLevel(fn.spec.form) && warpPredicateDest(fn.spec.form) ? "bool" : "uint32_t";
  return fn.writes.p ? "bool" : "void";
}

/**
 * The C parameter list of a function: its sources, and `bool *p` after them when it returns
 * both d and p (CUDA's `__match_all_sync(mask, value, int *pred)` shape).
 */
export function hipParams(fn: CallableFn): string[] {
  const ps = fn.params.map((p) => `${cType(p.width)} ${p.name}`);
  if (fn.writes.d && fn.writes.p) ps.push("bool *p");
  return ps;
}

/** The helpers of match.sync's functions (and the warp-level family's), each function qualified with `q` (the dialect's `fn`). */
const helpers = (q: string) => `/* This thread's CUDA warp inside its wavefront: 0, or 32 for lanes 32-63 on wave64. */
${q} uint32_t ptxl_warp_base_(void) {
#if __AMDGCN_WAVEFRONT_SIZE == 64
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)) & 32u;
#else
  return 0u;
#endif
}

/* The ballot of c over this thread's CUDA warp: bit i is lane i of the warp. */
${q} uint32_t ptxl_warp_ballot_(bool c) {
#if __AMDGCN_WAVEFRONT_SIZE == 64
  return (uint32_t)(__builtin_amdgcn_ballot_w64(c) >> ptxl_warp_base_());
#else
  return __builtin_amdgcn_ballot_w32(c);
#endif
}

/* The executing lanes of this thread's warp whose a equals this thread's (a waterfall). */
${q} uint32_t ptxl_warp_equal_b32_(uint32_t a) {
  for (;;) {
    const uint32_t lead = (uint32_t)__builtin_amdgcn_readfirstlane((int)a);
    const uint32_t m = ptxl_warp_ballot_(a == lead);
    if (a == lead) return m;
  }
}

${q} uint32_t ptxl_warp_equal_b64_(uint64_t a) {
  for (;;) {
    const uint64_t lead = (uint64_t)(uint32_t)__builtin_amdgcn_readfirstlane((int)(uint32_t)a) |
                          ((uint64_t)(uint32_t)__builtin_amdgcn_readfirstlane((int)(uint32_t)(a >> 32)) << 32);
    const uint32_t m = ptxl_warp_ballot_(a == lead);
    if (a == lead) return m;
  }
}`;

/**
 * The helpers of the warp-level family's functions (issue 15 item 4), in a block of their own
 * (`PTX_LOWER_HIP_WARP_LEVEL_HELPERS`) after match.sync's, printed only where a module has one.
 * Cross-lane reads stay inside the thread's CUDA warp: `ds_bpermute` with the byte index
 * (base + lane) * 4 (it wraps mod 64 on gfx9 wave64, mod 32 on wave32, and base + lane < 64),
 * and `readlane` with a lane of the wave (a uniform loop over the executing lanes).
 */
const warpLevelHelpers = (q: string) => `/* This thread's laneid: its lane in its CUDA warp (mbcnt & 31 on wave64). */
${q} uint32_t ptxl_warp_lane_(void) {
#if __AMDGCN_WAVEFRONT_SIZE == 64
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)) & 31u;
#else
  return __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#endif
}

/* Lane j's x in this thread's CUDA warp (j < 32; any other j reads some lane); undefined where lane j does not execute. */
${q} uint32_t ptxl_warp_read_(uint32_t x, uint32_t j) {
  return (uint32_t)__builtin_amdgcn_ds_bpermute((int)((ptxl_warp_base_() + j) << 2), (int)x);
}

/* The executing lanes of the whole wavefront (both CUDA warps on wave64): a uniform value. */
${q} uint64_t ptxl_wave_exec_(void) {
#if __AMDGCN_WAVEFRONT_SIZE == 64
  return __builtin_amdgcn_ballot_w64(true);
#else
  return (uint64_t)__builtin_amdgcn_ballot_w32(true);
#endif
}

/* The IEEE-754 total-order key of an f32 bit pattern (negative: all bits inverted; else the sign bit set). */
${q} uint32_t ptxl_f32_key_(uint32_t x) {
  return (x >> 31) ? ~x : (x | 0x80000000u);
}`;

/** The identity of an integer reduction: the fold's start (an empty fold is never a result: W1). */
function reduxIdentity(op: string, type: string): bigint {
  if (op === "and") return 0xffffffffn;
  if (op === "min") return type === "s32" ? 0x7fffffffn : 0xffffffffn;
  if (op === "max") return type === "s32" ? 0x80000000n : 0n;
  return 0n;
}

/** The immediates of a warp-level function, as `const` locals named like the parameters they replace. */
function immLocals(fn: CallableFn, names: readonly ("a" | "b" | "c" | "membermask")[]): string[] {
  const out: string[] = [];
  for (const n of names) {
    const x = immOf(fn.spec, n);
    if (x === undefined) continue;
    out.push(n === "a" && fn.spec.form.op === "vote" ? `  const bool a = ${cLit(x, 1)};` : `  const uint32_t ${n} = ${cLit(x & 0xffffffffn, 32)};`);
  }
  return out;
}

/**
 * The body of a warp-level function (shfl, vote, redux, activemask, bar.warp.sync), per thread
 * and over this thread's own membermask, so a divergent membermask needs no waterfall: each
 * thread's result is computed over ITS members (src/sem/warp.ts reads lane i's membermask
 * for lane i's result). A lowering, not a semantics: targets/llvm/compiled.ts runs the compiled
 * code against `warpReference` (src/check/warp_cases.ts). Lanes whose result the reference
 * leaves undefined (null) may get any value.
 */
function warpLevelBody(fn: CallableFn): string[] {
  const f = fn.spec.form as WarpForm;
  const out = immLocals(fn, ["a", "b", "c", "membermask"]);
  // Members: the lanes named by the membermask that execute the call (ballot(true) of the own
  // half). An exited lane is not in exec; a guarded-off one is not either (the caller's `if`),
  // and a member that does not execute leaves the result undefined (W2), so exec suffices.
  const members = "sync" in f && !f.sync ? "ptxl_warp_ballot_(true)" : f.op === "activemask" || f.op === "bar.warp" ? "" : "membermask & ptxl_warp_ballot_(true)";
  switch (f.op) {
    case "shfl": {
      // Why per thread: b, c and membermask may differ between threads; each thread computes
      // its source lane from its own laneid, b and c (the ISA's pseudocode, §9.7.9.6).
      out.push(
        "  const uint32_t lane = ptxl_warp_lane_();",
        "  const uint32_t bval = b & 31u;",
        "  const uint32_t cval = c & 31u;",
        "  const uint32_t segmask = (c >> 8) & 31u;",
        "  const uint32_t minLane = lane & segmask;",
        "  const uint32_t maxLane = minLane | (cval & (segmask ^ 31u));",
      );
      // .up: the ISA's signed j = lane − bval ≥ maxLane is, as maxLane ≥ 0, bval + maxLane ≤ lane
      // (unsigned, no wrap: both ≤ 31); then j is in 0…31. The others stay within 0…62.
      if (f.mode === "up") out.push("  const uint32_t j = lane - bval;", "  const bool pval = bval + maxLane <= lane;");
      else if (f.mode === "down") out.push("  const uint32_t j = lane + bval;", "  const bool pval = j <= maxLane;");
      else if (f.mode === "bfly") out.push("  const uint32_t j = lane ^ bval;", "  const bool pval = j <= maxLane;");
      else out.push("  const uint32_t j = minLane | (bval & (segmask ^ 31u));", "  const bool pval = j <= maxLane;");
      // d = a of lane j when in range, else the own a: ds_bpermute inside the own half. A source
      // outside the membermask or not executing leaves d undefined, so the membermask takes no
      // part in d; p is defined from laneid, b and c alone. The read is of j always and the
      // choice made after it (out of range, what j read is dropped): selecting the index first
      // lets clang fold 'pval ? lane - b : lane' into a saturating subtract or a subtract with
      // borrow (v_sub_u32 … clamp, v_subbrev_co_u32), which the interpreter does not model. The
      // read is a statement of its own: every thread takes part (a `?:` would read only where
      // pval holds, and ds_bpermute gives 0 from a lane that does not take part).
      out.push("  const uint32_t got = ptxl_warp_read_(a, j);", "  const uint32_t d = pval ? got : a;");
      if (f.sync) out.push("  (void)membermask;");
      if (f.dest === "d|p") out.push("  *p = pval;");
      out.push("  return d;");
      return out;
    }
    case "vote": {
      // A ballot of the (negated) predicate over the own warp, masked by this thread's members.
      out.push(`  const uint32_t members = ${members};`, `  const uint32_t ballot = ptxl_warp_ballot_(${f.negA ? "!a" : "a"}) & members;`);
      if (f.mode === "ballot") out.push("  return ballot;");
      else if (f.mode === "all") out.push("  return ballot == members;");
      else if (f.mode === "any") out.push("  return ballot != 0u;");
      else out.push("  return ballot == members || ballot == 0u;");
      return out;
    }
    case "redux": {
      // A uniform loop over the executing lanes of the wavefront in lane order (the reference's
      // fold order), reading each lane's a with readlane; this thread folds the lanes that are
      // its members (its membermask shifted to its half), so every thread's result is over its
      // own membermask. Cost: one readlane per executing lane of the wave.
      out.push(
        `  const uint32_t members = ${members};`,
        "  const uint64_t mine = (uint64_t)members << ptxl_warp_base_();",
        "  uint64_t lanes = ptxl_wave_exec_();",
      );
      const body = ["    const uint32_t l = (uint32_t)__builtin_ctzll(lanes);", "    lanes &= lanes - 1u;", "    const bool member = ((mine >> l) & 1u) != 0u;"];
      if (f.type === "f32") {
        // §5 of warp-semantics.md: NaNs skipped (.NaN: any NaN member gives 0x7fffffff), all NaN
        // → 0x7fffffff, .abs folds |x|, order by the total-order key (−0 < +0); on bit patterns.
        out.push("  uint32_t acc = 0x7fffffffu;", "  bool haveNumber = false;", "  bool sawNaN = false;", "  while (lanes != 0u) {", ...body);
        out.push(`    const uint32_t x = (uint32_t)__builtin_amdgcn_readlane((int)a, (int)l)${f.abs ? " & 0x7fffffffu" : ""};`);
        out.push(
          "    const bool nan = (x & 0x7fffffffu) > 0x7f800000u;",
          `    const bool better = ${f.reduxOp === "min" ? "ptxl_f32_key_(x) < ptxl_f32_key_(acc)" : "ptxl_f32_key_(acc) < ptxl_f32_key_(x)"};`,
          "    if (member && !nan && (!haveNumber || better)) acc = x;",
          "    haveNumber = haveNumber || (member && !nan);",
          "    sawNaN = sawNaN || (member && nan);",
          "  }",
          `  return ${f.NaN ? "(sawNaN || !haveNumber)" : "!haveNumber"} ? 0x7fffffffu : acc;`,
        );
        return out;
      }
      const id = reduxIdentity(f.reduxOp, f.type);
      const t = f.type === "s32" ? "int32_t" : "uint32_t";
      const step =
        f.reduxOp === "add"
          ? "acc + x"
          : f.reduxOp === "and"
            ? "acc & x"
            : f.reduxOp === "or"
              ? "acc | x"
              : f.reduxOp === "xor"
                ? "acc ^ x"
                : f.reduxOp === "min"
                  ? `((${t})x < (${t})acc ? x : acc)`
                  : `((${t})acc < (${t})x ? x : acc)`;
      out.push(`  uint32_t acc = ${cLit(id, 32)};`, "  while (lanes != 0u) {", ...body);
      out.push("    const uint32_t x = (uint32_t)__builtin_amdgcn_readlane((int)a, (int)l);", `    if (member) acc = ${step};`, "  }", "  return acc;");
      return out;
    }
    case "activemask":
      // The executing lanes of the own warp: exec of the call (a guarded-off thread does not call).
      out.push("  return ptxl_warp_ballot_(true);");
      return out;
    case "bar.warp":
      // No result (src/sem/warp.ts). Every thread that calls has arrived (a wavefront executes in
      // lockstep); the wave barrier keeps the compiler from moving code across it, but it is
      // `IntrNoMem` to LLVM, so memory operations may still cross it. PTX's bar.warp.sync also
      // orders memory among the participating threads (PTX ISA 9.7.13.2, "bar.warp.sync"), and
      // they are all in this wavefront: a wavefront-scope release fence before and acquire
      // fence after give that order (AMDGPUUsage, "Memory Model": wavefront scope needs no
      // instruction, so the code is unchanged; ROCm's own __syncwarp does the same).
      out.push(
        "  (void)membermask;",
        '  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");',
        "  __builtin_amdgcn_wave_barrier();",
        '  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");',
      );
      return out;
  }
}

/** The body of a warp function (match.sync), per thread. */
function matchBody(fn: CallableFn): string[] {
  const f = fn.spec.form as MatchForm;
  const w = f.type === "b64" ? 64 : 32;
  const out: string[] = [];
  const a = immOf(fn.spec, "a");
  const mm = immOf(fn.spec, "membermask");
  if (a !== undefined) out.push(`  const ${cType(w)} a = ${cLit(a, w)};`);
  if (mm !== undefined) out.push(`  const uint32_t membermask = ${cLit(mm, 32)};`);
  out.push(`  const uint32_t members = membermask & ptxl_warp_ballot_(true);`);
  out.push(`  const uint32_t equal = ptxl_warp_equal_${f.type}_(a);`);
  if (f.mode === "any") {
    out.push(`  return equal & members;`);
    return out;
  }
  out.push(`  const bool all = (equal & members) == members;`);
  if (fn.writes.d && fn.writes.p) out.push(`  *p = all;`, `  return all ? members : 0u;`);
  else if (fn.writes.d) out.push(`  return all ? members : 0u;`);
  else if (fn.writes.p) out.push(`  return all;`);
  else out.push(`  (void)all;`);
  return out;
}

function header(fn: CallableFn, rule: string): string {
  const what = fn.alias ? `readable alias: every source a parameter` : `serves the routines ${fn.serves.join(", ")}`;
  return `${fn.name}: ${formName(fn.spec.form)}  —  ${rule}\n${what}`;
}

/** The language a header is written in: CUDA/HIP C++ (and C) device code, or OpenCL C. */
export type HipLanguage = "cuda" | "opencl";

/** `printHipModule`'s options: the callable printers' own, and the header's language and constants. */
export interface HipPrintOptions extends CallablePrintOptions {
  /**
   * `cuda` (default): HIP device functions (`__attribute__((device))`, `<stdint.h>` types), and
   * the CUDA-signature drop-ins (C++). `opencl`: OpenCL C for AMDGPU (`clang -x cl -target
   * amdgcn-amd-amdhsa`): the same functions over OpenCL's `uint`/`ulong`/`bool`, no includes, no
   * device attribute, no drop-ins (targets/hip/dropins.ts `dropInsFor`).
   */
  language?: HipLanguage;
  /** Define `ptxl_warpSize`, CUDA's warp size 32 (`WARP_SIZE_SECTION`): the port's replacement of `warpSize`. */
  warpSize?: boolean;
}

/** How a dialect writes a function's qualifiers and its types. */
interface Dialect {
  /** Before a function's return type. */
  fn: string;
  /** The includes the functions' types need. */
  includes: string | null;
  /** A function section's text in the dialect's types (the C printer and this file write `<stdint.h>`'s). */
  types(text: string): string;
}

/**
 * `<stdint.h>`'s names as OpenCL C spells them (OpenCL C 2.0 §6.1.1: `uint` is 32 bits, `ulong`
 * 64; `bool` is built in): a renaming of types and literal macros, token by token.
 */
const OPENCL_TYPES: readonly [RegExp, string][] = [
  [/\buint64_t\b/g, "ulong"],
  [/\bint64_t\b/g, "long"],
  [/\buint32_t\b/g, "uint"],
  [/\bint32_t\b/g, "int"],
  [/\buint16_t\b/g, "ushort"],
  [/\bUINT64_C\((0x[0-9a-fA-F]+|[0-9]+)\)/g, "$1UL"],
  [/\bUINT64_MAX\b/g, "0xffffffffffffffffUL"],
];

/**
 * `text` with `<stdint.h>`'s names in OpenCL C's spelling.
 * @throws Error if a `<stdint.h>` name the table does not cover is left (a coverage gap: the
 *   C printer started writing another one).
 */
export function openclTypes(text: string): string {
  let out = text;
  for (const [re, to] of OPENCL_TYPES) out = out.replace(re, to);
  const left = /\b(u?int(8|16|32|64|ptr|max)_t|U?INT(8|16|32|64)_(C|MAX|MIN)|stdint|stdbool)\b/.exec(out);
  if (left) throw new Error(`printHipModule: no OpenCL C spelling of ${left[0]}`);
  return out;
}

const DIALECTS: Record<HipLanguage, Dialect> = {
  cuda: { fn: "static __attribute__((device)) inline", includes: "#include <stdbool.h>\n#include <stdint.h>", types: (t) => t },
  opencl: { fn: "static inline", includes: null, types: openclTypes },
};

/**
 * The `ptxl_warpSize` section: what `ptx-lower port` rewrites `warpSize` to (issue 34 item 2).
 * A macro, so it is a constant expression in every dialect (array bounds, template arguments,
 * `#if`), under an include guard of its own (`PTX_LOWER_HIP_warpSize`) so that headers of
 * several modules define it once.
 */
export const WARP_SIZE_SECTION = [
  "/* ptxl_warpSize: CUDA's warpSize, 32 (sm_30_intrinsics.hpp), what ptx-lower port rewrites warpSize to. The",
  "   drop-ins and warp functions of these headers give CUDA warps of 32 threads on every processor, two per",
  "   wave64 wavefront (gfx9), so a lane or warp index computed with it matches theirs; HIP's warpSize is the",
  "   wavefront size, 64 on wave64, and would put lanes 32-63 in a warp the drop-ins do not see. */",
  "#ifndef PTX_LOWER_HIP_warpSize",
  "#define PTX_LOWER_HIP_warpSize",
  "#define ptxl_warpSize 32",
  "#endif",
].join("\n");

/**
 * The scalar section's functions qualified for the dialect, one by one: the C printer writes
 * each helper and routine as `static inline` at a line's start, inside its include guard, and
 * the qualifier goes on each (no `#pragma clang attribute push` region, which clang warns is
 * unused (`-Wpragma-clang-attribute`) when another header's guards already defined all of it).
 * @throws Error if the functions do not match the guards one to one (the C printer's shape changed).
 */
function qualifyScalar(c: string, d: Dialect): string {
  const fns = c.match(/^static inline /gm)?.length ?? 0;
  const guards = c.match(/^#ifndef /gm)?.length ?? 0;
  if (fns !== guards) throw new Error(`printHipModule: ${fns} functions for ${guards} include guards in the C printer's text`);
  return d.types(c.replace(/^static inline /gm, `${d.fn} `));
}

/**
 * Prints the HIP header for a module's routines. `routines`: what `lowerModule` collects
 * (name and spec per routine); `opts.banner`: the `lower` banner; `opts.profile`: the
 * semantics profile of the video forms (default isa); `opts.language`: `cuda` (default) or
 * `opencl` (see `HipPrintOptions`); `opts.warpSize`: define `ptxl_warpSize` (32).
 * @returns the header text (self-contained; an include guard per function and one for the
 *   shared helpers, so that any number of headers can be included in one translation unit
 *   without a diagnostic under `-Wall -Wextra`, and so can the C header of the same module;
 *   an `#error` per vshl/vshr function against a header of another profile that defined it first).
 * @throws Error if a scalar routine has no portable rule (a coverage gap; never expected).
 */
export function printHipModule(routines: readonly RoutineLike[], opts: HipPrintOptions = {}): string {
  const profile = opts.profile ?? "isa";
  const language = opts.language ?? "cuda";
  const d = DIALECTS[language];
  const fns = callableFunctions(routines);
  const scalar = fns.filter((f) => f.spec.form.op !== "match" && !isWarpLevel(f.spec.form));
  const warp = fns.filter((f) => f.spec.form.op === "match");
  const warpLevel = fns.filter((f) => isWarpLevel(f.spec.form));
  const parts: string[] = [];
  if (opts.banner) parts.push(cComment(opts.banner));
  const intro =
    language === "cuda"
      ? [
          "HIP device functions, one per (form, immediates); operand kinds v/s collapse (uniformity is the",
          "compiler's business once inlined) and a guard is the caller's `if`. Per-thread values: u32 (u64 for",
          "match .b64 a), bool. A warp function is called by every thread of a CUDA warp with its own a and",
          "32-bit membermask; on wave64 a wavefront holds two CUDA warps (lanes 0-31, 32-63) and each thread's",
          "membermask names lanes of its own half. Device functions only: for host code, include the C header",
          "of the same module (`ptx-lower lower --target c`) too; clang overloads each name on host and device.",
        ]
      : [
          "OpenCL C functions for AMDGPU (clang -x cl -target amdgcn-amd-amdhsa), one per (form, immediates);",
          "operand kinds v/s collapse and a guard is the caller's `if`. Per-thread values: uint (ulong for match",
          ".b64 a), bool. A warp function is called by every work-item of a CUDA warp (32 consecutive lanes of",
          "a wavefront: two per wave64) with its own a and 32-bit membermask. No CUDA-signature drop-ins: they",
          "are C++ overloads, which OpenCL C cannot express.",
        ];
  parts.push(cComment(intro.join("\n")));
  if (d.includes) parts.push(d.includes);
  if (opts.warpSize) parts.push(WARP_SIZE_SECTION);
  const clash = profileClash(scalar, profile);
  if (clash.length) {
    const why = `The vshl/vshr functions below have the ${profile} semantics profile's meaning. A header of another\nprofile defines the same names with other meanings: one translation unit cannot include both.`;
    parts.push(cComment(why) + "\n" + clash.join("\n"));
  }
  if (scalar.length) {
    const printable = scalar.map((fn) => {
      const { rule, fn: pir } = lowerPortable(fn.spec, profile);
      return { name: fn.name, fn: { ...pir, name: fn.name }, header: header(fn, `portable rule ${rule.name}`) };
    });
    const c = printCModule(printable, { inline: true, guards: scalar.map(guardOf), helperGuardPrefix: "PTX_LOWER_HIP_HELPER_" });
    // The C printer's own includes are the dialect's business (above, or none).
    const body = c.replace("#include <stdbool.h>\n#include <stdint.h>\n\n", "");
    parts.push(qualifyScalar(body.trimEnd(), d));
  }
  const warpHelpers = `#ifndef PTX_LOWER_HIP_WARP_HELPERS\n#define PTX_LOWER_HIP_WARP_HELPERS\n${d.types(helpers(d.fn))}\n#endif`;
  const signature = (fn: CallableFn) => d.types(`${d.fn} ${hipReturnType(fn)} ${fn.name}(${hipParams(fn).join(", ") || "void"}) {`);
  if (warp.length) {
    parts.push(warpHelpers);
    for (const fn of warp) {
      const g = guardOf(fn);
      parts.push(`#ifndef ${g}\n#define ${g}\n${cComment(header(fn, "waterfall over the thread's CUDA warp (builtins)"))}\n${signature(fn)}\n${d.types(matchBody(fn).join("\n"))}\n}\n#endif`);
    }
  }
  if (warpLevel.length) {
    if (!warp.length) parts.push(warpHelpers);
    parts.push(`#ifndef PTX_LOWER_HIP_WARP_LEVEL_HELPERS\n#define PTX_LOWER_HIP_WARP_LEVEL_HELPERS\n${d.types(warpLevelHelpers(d.fn))}\n#endif`);
    for (const fn of warpLevel) {
      const g = guardOf(fn);
      parts.push(`#ifndef ${g}\n#define ${g}\n${cComment(header(fn, "per thread over its own membermask and CUDA warp (builtins)"))}\n${signature(fn)}\n${d.types(warpLevelBody(fn).join("\n"))}\n}\n#endif`);
    }
  }
  // The CUDA-signature drop-ins whose functions are all here (targets/hip/dropins.ts); C++ only.
  if (dropInsFor(language).length) {
    const dropIns = printDropIns(new Set(fns.map((f) => f.name)));
    if (dropIns) parts.push(dropIns);
  }
  return parts.join("\n\n") + "\n";
}
