/**
 * @fileoverview `ptx-lower port`: rewrites the inline PTX of a C/C++/CUDA/HIP/OpenCL source
 * into calls of the HIP header's functions (issue 14 items 4–5). Target-agnostic: the header
 * itself comes from an injected function (`PortOptions.header`), given the PTX module of the
 * routines the file calls (src/port/bind.ts `routinesModule`).
 *
 * ## The calling convention of the header functions (the ABI this file writes calls against)
 *
 * One `__device__` function per routine, named by the routine contract (src/ir/ir.ts
 * `routineName`) with every register operand kind `v`, immediates folded into the name and
 * the body, unguarded: `szext_clamp_s32__v_imm8`, `vshl_u32_u32_u32_wrap_add_ab0_bb0__v_v_v`,
 * `match_any_sync_b32__v_imm0xffffffff`.
 *
 *     RESULT NAME(SOURCES…[, bool *p])
 *
 * - SOURCES: the form's source operands in PTX order (`a, b[, c]` for szext and vshl/vshr,
 *   `a, membermask` for match.sync, vote.sync and redux.sync, `a, b, c, membermask` for
 *   shfl.sync, none for activemask; src/ir/ir.ts `sourcesOf`), leaving out every one folded as
 *   an immediate. Each is a per-thread value: `unsigned int` (u32), `unsigned long long`
 *   (u64) for the `a` of `match.*.sync.b64`, `bool` for vote's predicate `a` (a `.pred`
 *   temporary of the template). Selectors (`a.b0`, `d.h1`) are part of the form: the argument
 *   is the whole 32-bit register.
 * - RESULT: `unsigned int` d when the form writes d (src/ir/forms.ts `formWrites`), else `void`
 *   (`match.all … _|p` and `_`). For a `d.dsel` merge the result is the whole merged register.
 * - `bool *p`, last, when the form writes the predicate p (`match.all … d|p` and `_|p`):
 *   the function stores p through it (`unsigned d = f(a, m, &p);`).
 * - A warp function (match.sync and the warp-level family: shfl.sync — `d|p` stores `p` through
 *   `bool *p` —, vote.sync, whose `.pred` result is a `bool`, redux.sync, activemask,
 *   bar.warp.sync) is called by every thread of the warp with its own sources and its 32-bit
 *   membermask, exactly where the asm ran.
 * - Meaning: by default what the instruction computes where the asm ran before, on NVIDIA
 *   hardware through ptxas for sm_90 — the `sm90` semantics profile (it differs from `isa`
 *   only for the scalar video instructions: docs/profiles.md); test/port.test.ts "bindings, run" checks the calls against it. The
 *   header is the injected `PortOptions.header`'s; `ptx-lower port --semantics isa` asks the
 *   HIP target for the PTX ISA's meaning instead (bin/port.ts; the header's banner says which).
 *
 * ## What a rewrite looks like
 *
 * Each supported statement is replaced, in place, by
 *
 *     #if defined(__HIP__)
 *       <calls>
 *     #else
 *       <the asm statement as written, and the rest of its line if that is only a comment>
 *     #endif
 *
 * and the file gets, before its first line of code, `#if defined(__HIP__)` / `#include
 * "NAME.hip.h"` / `#endif`: the header is written beside the output file and included with
 * quotes, so no `-I` is needed; when the ported file goes to standard output the header text
 * is inlined in that guard instead. A statement that shares its line with code before it
 * starts on a new line; code after it moves to a line of its own, indented like the line.
 * Everything else is byte-identical; a file with nothing to rewrite is returned unchanged
 * (no include, no header).
 *
 * The calls keep the asm's bindings: a single unguarded instruction with no temporaries
 * becomes `OUT = f(IN…);` (`+r` operands appear on both sides); anything else becomes a
 * block with a local per output (`=r`: 0, since its value is undefined; `+r` and a matching
 * constraint's input: the current value), per input whose expression is not a plain name
 * (evaluated once, before any instruction, as GNU asm does), and per `{ .reg }` temporary
 * (0 / false); the calls in template order (a guard `@p` / `@!p` is an `if`); then each
 * output written by the template is assigned, in operand order.
 *
 * Inside a `#define` body, the whole `#define` is duplicated under the guard with each asm
 * replaced by its calls (as an expression, or a `do { … } while (0)`), when every asm of the
 * body is supported; an `n` operand that is a macro parameter needs every use of the macro in
 * the file to pass a literal that makes the instruction supported (each is checked), and is
 * passed to the function as a value. Otherwise the statement is reported "inside a macro body".
 *
 * ## What is left, and reported
 *
 * A statement that cannot be rewritten is left byte-identical with its reasons (the first
 * one is shown in the table): a malformed statement (src/port/scan.ts), one bindStatement
 * refuses (src/port/bind.ts: an unsupported instruction, an immediate that would be
 * truncated, an `=r` output read before it is written, an input written, …), one that is
 * not a statement of its own. Groups the preprocessor surely skips (`#if 0`) are no code:
 * nothing in them is found or counted. cooperative_groups calls (`cg::reduce(…)`) are reported
 * as left, their text unchanged (src/port/intrinsics.ts `cooperativeGroupsCalls`).
 *
 * ## CUDA warp intrinsics
 *
 * Each call of a CUDA warp intrinsic (`__shfl_sync(`, `__activemask(`, …; the table is
 * src/port/intrinsics.ts) has its name replaced by the drop-in's (`ptxl_shfl_sync(`), its
 * arguments untouched — everywhere in the output, the `#else` (CUDA) copies of rewritten asm
 * and macros included. The drop-ins take CUDA's signatures (32-bit `unsigned` masks, `width`
 * defaulting to 32) and mean what CUDA means; the header defines them
 * (targets/hip/dropins.ts) over the HIP functions of the PTX instructions the table lists,
 * which are added to the routines module. For the CUDA side the include guard gets an
 * `#else` that names each drop-in used after its CUDA intrinsic:
 *
 *     #if defined(__HIP__)
 *     #include "NAME.hip.h"
 *     #else
 *     #define ptxl_shfl_sync __shfl_sync
 *     #endif
 *
 * so the ported file still builds with nvcc, meaning what it meant.
 */
import type { ParsedModule } from "../ir/build.js";
import type { Loc, RoutineSpec } from "../ir/ir.js";
import { routineName } from "../ir/ir.js";
import { formId, formName } from "../ir/forms.js";
import type { ProfileDeparture } from "../check/departures.js";
import { profileDeparture } from "../check/departures.js";
import type { AsmOperand, AsmStatement, MacroDef, MacroUse, Scan, Token } from "./scan.js";
import { macroInForce, macroUses, scanSource } from "./scan.js";
import type { BindResult, BoundOperand, Call, PtxHead, Reason, Ref } from "./bind.js";
import { bindStatement, evalConst, headName, pinnedHead, portHeads, routinesModule } from "./bind.js";
import type { Conditions } from "./cond.js";
import { evaluateConditions } from "./cond.js";
import { LEGACY_LEFT, COOPERATIVE_GROUPS_LEFT, CUDA_WARP_INTRINSICS, cooperativeGroupsCalls, warpIntrinsicCalls, warpIntrinsicUses } from "./intrinsics.js";

/** The source language of a ported file: CUDA/HIP C++ (`.cu .cuh .hip .h .hpp …`) or OpenCL C (`.cl`). */
export type PortLanguage = "cuda" | "opencl";

/** Options of `portSource`. */
export interface PortOptions {
  /**
   * The header text for the routines module (the HIP target's printer), in the file's
   * language; `warpSize`: the file's `warpSize` was rewritten, so the header must define
   * `ptxl_warpSize`. Called only when something is rewritten.
   */
  header: (mod: ParsedModule, language: PortLanguage, warpSize: boolean) => Promise<string>;
  /** The header's file name, included with quotes (default `port.hip.h`). */
  headerName?: string;
  /** Inline the header in the file instead of including it (for standard output). */
  inlineHeader?: boolean;
  /** The source language (default `cuda`): OpenCL C gets its own guard and header dialect. */
  language?: PortLanguage;
  /** Pins the PTX module header every statement is checked under (`sm_90`, `sm_100a`, `sm_70`), instead of the first one ptxas accepts. */
  ptxTarget?: string;
  /** Macros that switch a HIP build on (`--hip-macro NAME`): a branch conditioned on one is a HIP path, as `__HIP_PLATFORM_AMD__` is. */
  hipMacros?: readonly string[];
  /** `-D NAME[=V]` / `-U NAME`, in order, as a compiler takes them, before the file's own `#define`/`#undef`. */
  predefined?: readonly ({ define: string; value: string } | { undef: string })[];
  /** Rename intrinsic calls and `warpSize` in code both builds of a HIP-aware file compile (default: leave and report them). */
  renameShared?: boolean;
}

/**
 * Whether a HIP device compile takes a rewrite (src/port/cond.ts): `live` — it does;
 * `dead` — it does not, because of `guard` (e.g. `#if __CUDA_ARCH__ >= 700` at line N);
 * `depends` — on the macros `names`, which neither HIP nor the file settles.
 */
export type Liveness = { state: "live" } | { state: "dead"; guard: { loc: Loc; text: string } } | { state: "depends"; names: string[]; guard: { loc: Loc; text: string } };

/** What happened to one asm statement. */
export interface PortStatement {
  loc: Loc;
  /** Where the statement ends (its last character). */
  end: Loc;
  keyword: string;
  status: "rewritten" | "left";
  /** The `#define` it is in, if any. */
  macro: string | null;
  /** The forms of its instructions (rewritten statements). */
  forms: string[];
  /** The functions it now calls. */
  calls: string[];
  /** Why it was left (the first is the one shown in the table). */
  reasons: Reason[];
  /** Whether a HIP compile takes it (rewritten statements; `live` for the others too). */
  liveness: Liveness;
  /** The PTX module header it was checked under (`.version 9.0 / .target sm_90`), or null when it was not checked (malformed, …). */
  ptxHeader: string | null;
  /**
   * Rewritten statements: each instruction whose meaning differs between the `sm90` and `isa`
   * semantics profiles (the scalar video instructions' D1 … V1, docs/profiles.md), with an
   * input that shows it; the header computes the profile `port` was given (sm90 by default).
   */
  departures: ProfileDeparture[];
}

/**
 * One call of a CUDA warp intrinsic (src/port/intrinsics.ts), `rewritten` to its drop-in's
 * name, or of a cooperative_groups function, `left` as it was.
 */
export interface PortIntrinsic {
  /** As written: `__shfl_sync`, `cg::reduce`. */
  name: string;
  kind: "warp" | "cooperative_groups";
  loc: Loc;
  /** The call's last character (its `)`). */
  end: Loc;
  status: "rewritten" | "left";
  /** The drop-in the call now names (rewritten), or null. */
  to: string | null;
  /** The `#define` it is in, if any. */
  macro: string | null;
  /** Why it was left (empty when rewritten). */
  reasons: Reason[];
  /** Whether a HIP compile takes it. */
  liveness: Liveness;
}

/** A use of `warpSize` in code: rewritten to the header's `ptxl_warpSize` (32), or left (a HIP path, shared code). */
export interface PortWarpSize {
  loc: Loc;
  status: "rewritten" | "left";
  reasons: Reason[];
  liveness: Liveness;
}

/** An `#include` of a CUDA-only header that `port` leaves, with the HIP header that replaces it. */
export interface PortInclude {
  loc: Loc;
  /** As written: `cuda_fp16.h`. */
  name: string;
  /** `hip/hip_fp16.h`, or null when HIP has none. */
  hip: string | null;
}

/** The result of porting one source. */
export interface PortResult {
  text: string;
  /** The header text (null when nothing was rewritten). */
  header: string | null;
  /** The routines module the header was made from (null when nothing was rewritten). */
  routinesModule: ParsedModule | null;
  statements: PortStatement[];
  /** The calls of CUDA warp intrinsics and cooperative_groups functions, in source order. */
  intrinsics: PortIntrinsic[];
  /** The functions called, in first-use order. */
  routines: string[];
  /** Per function called, the C locations of its calls (for a header's `serves:` lines). */
  callers: Map<string, Loc[]>;
  /** The uses of `warpSize` in code. */
  warpSize: PortWarpSize[];
  /** CUDA-only includes left, each with its HIP replacement. */
  includes: PortInclude[];
  /** Warnings about the file as a whole (a HIP-aware file's warp code may assume 64-lane waves; a pattern of two CUDA warps per wave64). */
  warnings: Reason[];
  /** Macros whose name holds HIP, ROCM or AMD and that guard code: likely HIP build switches (`--hip-macro NAME`). */
  hipSwitches: { name: string; loc: Loc }[];
  /** Set when the file is already ported (its own guards around the original asm): nothing was rewritten again. */
  alreadyPorted: boolean;
}


/** A rewritten call's profile departure, once per spec in a process (specs repeat across a tree). */
const departureCache = new Map<string, ProfileDeparture[]>();
function departureOf(spec: RoutineSpec): ProfileDeparture[] {
  const key = routineName(spec, formId);
  let d = departureCache.get(key);
  if (!d) {
    const x = profileDeparture(spec);
    departureCache.set(key, (d = x ? [x] : []));
  }
  return d;
}

const SIMPLE = /^\s*[A-Za-z_$][\w$]*(?:\s*(?:\.|->)\s*[A-Za-z_$][\w$]*|\s*\[\s*[\w$]+\s*\])*\s*$/;

/**
 * The C spelling of what the calls pass, per language: the routines' integer types (u32,
 * u64 — OpenCL C has no `long long`: `ulong` is its 64-bit type —, bool), and the bit casts
 * that carry an `"f"` (float), `"d"` (double) or `"h"` (16-bit) operand of a bit-size
 * instruction to and from those integers (GNU asm puts the value in a register of that class;
 * a `.b32` instruction reads its bits). C++: `__builtin_bit_cast`; OpenCL C: `as_uint`,
 * `as_float`, `as_ulong`, `as_double` (OpenCL C 2.0 §6.2.4.2).
 */
interface Dialect {
  u32: string;
  u64: string;
  pred: string;
  /** The bits of `e` read as an operand of class `cls` (`f`, `d`, `h`), as an integer of the call's width. */
  toBits(cls: string, e: string): string;
  /** An integer result `e` as the value of an operand of class `cls`. */
  fromBits(cls: string, e: string): string;
}
const DIALECTS: Record<PortLanguage, Dialect> = {
  cuda: {
    u32: "unsigned int",
    u64: "unsigned long long",
    pred: "bool",
    toBits: (cls, e) => (cls === "f" ? `__builtin_bit_cast(unsigned int, (float)${e})` : cls === "d" ? `__builtin_bit_cast(unsigned long long, (double)${e})` : cls === "h" ? `(unsigned int)(unsigned short)${e}` : e),
    fromBits: (cls, e) => (cls === "f" ? `__builtin_bit_cast(float, ${e})` : cls === "d" ? `__builtin_bit_cast(double, ${e})` : cls === "h" ? `(unsigned short)${e}` : e),
  },
  opencl: {
    u32: "uint",
    u64: "ulong",
    pred: "bool",
    toBits: (cls, e) => (cls === "f" ? `as_uint((float)${e})` : cls === "d" ? `as_ulong((double)${e})` : cls === "h" ? `(uint)(ushort)${e}` : e),
    fromBits: (cls, e) => (cls === "f" ? `as_float(${e})` : cls === "d" ? `as_double(${e})` : cls === "h" ? `(ushort)${e}` : e),
  },
};

/** C type of an asm operand's local (the integer the calls pass: the bits of an `f`/`d` operand). */
const operandType = (o: BoundOperand, t: Dialect): string => (o.cls === "l" || o.cls === "d" ? t.u64 : t.u32);

/** The C statements for one bound asm statement (one line each; `macro`: operands parenthesized). */
function codeFor(b: Extract<BindResult, { ok: true }>, macro: boolean, t: Dialect): { lines: string[]; block: boolean } {
  const { operands, calls, temps } = b;
  const ops = operands;
  const exprOf = (o: BoundOperand) => (macro || !SIMPLE.test(o.expr) ? `(${o.expr.trim()})` : o.expr.trim());
  /** Operand `o`'s value as the call's integer (an `f`/`d`/`h` operand through its bits). */
  const read = (o: BoundOperand) => {
    const cls = o.cls === "tied" ? ops[o.tied!]!.cls : o.cls;
    return cls === "f" || cls === "d" || cls === "h" ? t.toBits(cls, `(${o.expr.trim()})`) : exprOf(o);
  };
  /** `o = v;` for an integer result `v` (an `f`/`d`/`h` operand from its bits). */
  const assign = (o: BoundOperand, v: string) => `${exprOf(o)} = ${t.fromBits(o.cls, v)};`;
  const tied = (out: number) => ops.find((o) => o.cls === "tied" && o.tied === out);
  const readsOutputOnly = calls.some((c) => [...c.args, c.guard?.ref].some((r) => r?.kind === "operand" && ops[r.index]!.dir === "out"));
  const inputUses = new Map<number, number>();
  for (const c of calls) for (const r of c.args) if (r.kind === "operand") inputUses.set(r.index, (inputUses.get(r.index) ?? 0) + 1);
  const bits = (o: BoundOperand) => o.cls === "f" || o.cls === "d" || o.cls === "h";
  const direct =
    calls.length === 1 &&
    calls[0]!.guard === null &&
    temps.length === 0 &&
    calls[0]!.p === null &&
    !readsOutputOnly &&
    !ops.some((o) => o.cls === "tied") &&
    [...inputUses].every(([i, n]) => n === 1 || (SIMPLE.test(ops[i]!.expr) && !bits(ops[i]!)));
  const argList = (c: Call, name: (r: Ref) => string) => [...c.args.map(name), ...(c.p ? [`&${name(c.p)}`] : [])].join(", ");
  if (direct) {
    const c = calls[0]!;
    const call = `${c.name}(${argList(c, (r) => read(ops[(r as { index: number }).index]!))})`;
    return { lines: [c.d ? assign(ops[(c.d as { index: number }).index]!, call) : `${call};`], block: false };
  }
  // Locals: outputs, inputs that are not plain names (or any, in a macro, or of a float class), temporaries.
  const tempNames = new Map<string, string>();
  const used = new Set<string>();
  for (const x of temps) {
    let n = `ptxl_t_${x.ptx.replace(/[^A-Za-z0-9_]/g, "_").replace(/^_+/, "")}`;
    while (used.has(n)) n += "_";
    used.add(n);
    tempNames.set(x.key, n);
  }
  const written = new Set<number>();
  for (const c of calls) for (const r of [c.d, c.p]) if (r?.kind === "operand") written.add(r.index);
  const local = new Map<number, string>();
  const lines: string[] = [];
  for (const o of ops) {
    if (o.cls === "n" && o.value !== undefined) continue;
    if (o.cls === "tied") continue;
    if (o.dir !== "in") {
      const tie = tied(o.index);
      const init = o.dir === "inout" ? read(o) : tie ? read(tie) : "0u";
      if (!written.has(o.index) && !calls.some((c) => c.args.some((r) => r.kind === "operand" && r.index === o.index))) continue;
      local.set(o.index, `ptxl_${o.index}`);
      lines.push(`${operandType(o, t)} ptxl_${o.index} = ${init};`);
    } else if (inputUses.has(o.index) || calls.some((c) => c.guard?.ref.kind === "operand" && c.guard.ref.index === o.index)) {
      if (!macro && SIMPLE.test(o.expr) && !bits(o)) continue;
      local.set(o.index, `ptxl_${o.index}`);
      lines.push(`${operandType(o, t)} ptxl_${o.index} = ${read(o)};`);
    }
  }
  for (const x of temps) lines.push(`${t[x.type]} ${tempNames.get(x.key)} = ${x.type === "pred" ? "false" : "0u"};`);
  const name = (r: Ref): string => {
    if (r.kind === "temp") return tempNames.get(r.key)!;
    const o = ops[r.index]!;
    const own = o.cls === "tied" ? o.tied! : r.index;
    return local.get(own) ?? exprOf(ops[own]!);
  };
  for (const c of calls) {
    const call = `${c.name}(${argList(c, name)})`;
    const stmt = c.d ? `${name(c.d)} = ${call};` : `${call};`;
    lines.push(c.guard ? `if (${c.guard.negate ? "!" : ""}${name(c.guard.ref)}) ${stmt}` : stmt);
  }
  for (const o of ops) if (o.dir !== "in" && written.has(o.index)) lines.push(assign(o, `ptxl_${o.index}`));
  return { lines, block: true };
}

/** Binds a statement inside a `#define`: every use's literals checked, `n` parameters passed as values. */
function bindInMacro(st: AsmStatement, scan: Scan, heads?: readonly PtxHead[]): BindResult {
  const def = scan.macros[st.macro]!;
  const params = new Set(def.params ?? []);
  const first = bindStatement(st, scan, { asRegister: new Set(), heads });
  // Which `n` operands depend on a parameter?
  const { operands } = first;
  const dependent = operands.filter((o) => o.cls === "n" && o.exprTokens.some((t) => t.kind === "ident" && params.has(t.text)));
  if (dependent.length === 0) return first;
  if (st.templateNotLiteral) return first;
  const uses = macroUses(scan, st.macro);
  const inMacro = (message: string, loc: Loc = st.loc): BindResult => ({ ok: false, operands, reasons: [{ loc, message: `inside a macro body: ${message}` }] });
  if (uses.length === 0) return inMacro(`${def.name} is never used in this file, so the value of its "n" operand %${dependent[0]!.index} is unknown`);
  for (const u of uses) {
    const values = new Map<number, bigint>();
    for (const o of dependent) {
      // The operand's expression with the use's arguments for the parameters.
      const toks = o.exprTokens.flatMap((t) => {
        const k = t.kind === "ident" ? (def.params ?? []).indexOf(t.text) : -1;
        return k >= 0 ? (u.argTokens[k] ?? []) : [t];
      });
      const v = u.inMacro ? null : evalConst(toks);
      if (v === null) return inMacro(`the use of ${def.name} at ${u.loc.line}:${u.loc.col} does not pass a literal for the "n" operand %${o.index} (${o.expr.trim()})`, u.loc);
      values.set(o.index, v);
    }
    const r = bindStatement(st, scan, { values, heads });
    if (!r.ok) return { ok: false, operands, reasons: r.reasons.map((x) => ({ loc: x.loc, message: `inside a macro body: with the use at ${u.loc.line}:${u.loc.col}: ${x.message}` })) };
  }
  return bindStatement(st, scan, { asRegister: new Set(dependent.map((o) => o.index)), heads });
}

/** Stringizes a macro argument (C11 §6.10.3.2): its spelling, each run of white space one space, trimmed. */
const stringize = (arg: string) => arg.replace(/\s+/g, " ").trim();

/**
 * The parameters of its macro a statement's template or constraints are built from: `#p`
 * (stringized) or `p` (an argument that is a string literal) among the template's literals,
 * `"="#p(x)` in a constraint (moderngpu's `SHFL_OP_MACRO`). Empty when there are none.
 */
function paramsBuiltInto(st: AsmStatement, params: readonly string[]): string[] {
  const found = new Set<string>();
  const look = (toks: readonly Token[]) => {
    for (const t of toks) if (t.kind === "ident" && params.includes(t.text)) found.add(t.text);
  };
  look(st.templateTokens);
  for (const o of [...st.outputs, ...st.inputs]) look(o.constraintTokens);
  return params.filter((p) => found.has(p));
}

/**
 * The statement as the use `u` of its macro writes it: the template and the constraints with
 * the use's arguments put in (`#p` stringized; `p` an argument of string literals), the
 * substituted characters located at the use. @returns the statement, or why it cannot be read.
 */
function instantiate(st: AsmStatement, scan: Scan, def: MacroDef, u: MacroUse): AsmStatement | string {
  const params = def.params ?? [];
  const arg = (name: string) => u.args[params.indexOf(name)] ?? "";
  const argTokens = (name: string) => u.argTokens[params.indexOf(name)] ?? [];
  const piece = (toks: readonly Token[], what: string): { text: string; at: number[] } | string => {
    let text = "";
    const at: number[] = [];
    for (let k = 0; k < toks.length; k++) {
      const t = toks[k]!;
      if (t.kind === "string") {
        text += t.value!;
        for (const a of t.valueAt!) at.push(scan.source.origOf(a));
      } else if (t.text === "#" && toks[k + 1]?.kind === "ident" && params.includes(toks[k + 1]!.text)) {
        const v = stringize(arg(toks[++k]!.text));
        text += v;
        for (let i = 0; i < v.length; i++) at.push(u.at);
      } else if (t.kind === "ident" && params.includes(t.text)) {
        const a = argTokens(t.text);
        if (a.length === 0 || a.some((x) => x.kind !== "string")) return `${what}: the argument ${JSON.stringify(stringize(arg(t.text)))} for ${t.text} is not a string literal`;
        for (const x of a) {
          text += x.value!;
          for (let i = 0; i < x.value!.length; i++) at.push(u.at);
        }
      } else return `${what} is built from '${t.text}', not only string literals and the macro's parameters`;
    }
    return { text, at };
  };
  const template = piece(st.templateTokens, "the template");
  if (typeof template === "string") return template;
  const operand = (o: AsmOperand, n: number): AsmOperand | string => {
    if (!o.constraintNotLiteral) return o;
    const c = piece(o.constraintTokens, `operand %${n}: the constraint`);
    return typeof c === "string" ? c : { ...o, constraint: c.text, constraintNotLiteral: null };
  };
  const outputs = st.outputs.map((o, n) => operand(o, n));
  const inputs = st.inputs.map((o, n) => operand(o, n + st.outputs.length));
  const bad = [...outputs, ...inputs].find((x): x is string => typeof x === "string");
  if (bad) return bad;
  return { ...st, template: template.text, templateAt: template.at, templateNotLiteral: null, outputs: outputs as AsmOperand[], inputs: inputs as AsmOperand[] };
}

/** A statement of a #define bound per use of the macro: the parameters it is built from, and per use the arguments for them and the binding. */
type PerUse = { ok: true; keys: string[]; items: { keyArgs: string[]; b: Extract<BindResult, { ok: true }> }[] } | { ok: false; reasons: Reason[] };

/**
 * Binds a #define's statement whose template or constraints are built from the macro's
 * parameters once per use of the macro (issue 34: moderngpu's `"="#r(result)`); null when it
 * is not built from them. Every use must bind, with arguments that paste into a C name (the
 * HIP copy calls `ptxl_MACRO_ ## p ## …`); a use that does not is the reason, at its line.
 */
function bindPerUse(st: AsmStatement, scan: Scan, heads?: readonly PtxHead[]): PerUse | null {
  const def = scan.macros[st.macro]!;
  const keys = paramsBuiltInto(st, def.params ?? []);
  if (keys.length === 0) return null;
  const left = (loc: Loc, message: string): PerUse => ({ ok: false, reasons: [{ loc, message: `inside a macro body: ${message}` }] });
  const uses = macroUses(scan, st.macro);
  if (uses.length === 0) return left(st.loc, `the statement is built from ${def.name}'s parameters (${keys.join(", ")}), and ${def.name} is never used in this file`);
  const items: { keyArgs: string[]; b: Extract<BindResult, { ok: true }> }[] = [];
  for (const u of uses) {
    const where = `with the use at ${u.loc.line}:${u.loc.col}`;
    if (u.inMacro) return left(u.loc, `${where}: the use is inside another macro's body, whose arguments are not known here`);
    const keyArgs = keys.map((k) => stringize(u.args[def.params!.indexOf(k)] ?? ""));
    const bad = keyArgs.find((a) => !/^\w+$/.test(a));
    if (bad !== undefined) return left(u.loc, `${where}: the argument ${JSON.stringify(bad)} cannot be pasted into a function's name`);
    const concrete = instantiate(st, scan, def, u);
    if (typeof concrete === "string") return left(u.loc, `${where}: ${concrete}`);
    const b = bindStatement(concrete, scan, { heads });
    // Reported at the use: its arguments made the statement what it is.
    if (!b.ok) return { ok: false, reasons: b.reasons.map((r) => ({ loc: u.loc, message: `inside a macro body: ${where}: ${r.message}` })) };
    if (b.operands.some((o) => o.cls === "n" && o.exprTokens.some((t) => t.kind === "ident" && (def.params ?? []).includes(t.text))))
      return left(u.loc, `${where}: an "n" operand depends on the macro's parameters too`);
    items.push({ keyArgs, b });
  }
  return { ok: true, keys, items };
}

interface Edit {
  start: number;
  end: number;
  text: string;
  /** The edit ends by starting a line for the code that followed the statement on its line. */
  openLine?: boolean;
  /** The include guard: first among the edits at its place. */
  first?: boolean;
}

/** The comment on each `#if`/`#endif` line `port` writes: how a ported file is recognised (and undone). */
export const PORT_MARK = "/* ptx-lower port */";

/**
 * The condition of the guards `port` writes: what a HIP compile defines (`__HIP__`, clang's
 * `-x hip`), or, for OpenCL C, what clang's OpenCL compile for AMD GPUs defines — it defines
 * `__OPENCL_C_VERSION__` and `__AMDGCN__` (`clang-19 -x cl -target amdgcn-amd-amdhsa -E -dM`),
 * and NVIDIA's OpenCL compile defines no `__AMDGCN__`, so it keeps the original asm.
 */
export function portGuard(language: PortLanguage): string {
  return language === "opencl" ? "defined(__OPENCL_C_VERSION__) && defined(__AMDGCN__)" : "defined(__HIP__)";
}

/** A file `port` already wrote: a line of its mark, or the include guard of a port before the mark (`#if defined(__HIP__)` then the header's include or banner). */
const ALREADY_PORTED = /^[ \t]*#[ \t]*if[^\n]*\/\* ptx-lower port \*\/|^#if defined\(__HIP__\)\r?\n(?:#include "[^"\r\n]*\.hip\.h"|\/\*\r?\n?[ *]*NOTE: generated by ptx-lower port)/m;

/**
 * CUDA-only headers a ported file may still include, and the HIP header that replaces each
 * (HIP's porting guide, "HIP-CUDA header mapping"; Debian's HIP 5.2 /usr/include/hip); null
 * where HIP has none (CUDA's `sm_*_intrinsics.h` are part of `hip/hip_runtime.h`).
 */
const CUDA_INCLUDES: ReadonlyMap<string, string | null> = new Map([
  ["cuda.h", "hip/hip_runtime.h"],
  ["cuda_runtime.h", "hip/hip_runtime.h"],
  ["cuda_runtime_api.h", "hip/hip_runtime_api.h"],
  ["cuda_fp16.h", "hip/hip_fp16.h"],
  ["cuda_fp16.hpp", "hip/hip_fp16.h"],
  ["cuda_bf16.h", "hip/hip_bf16.h"],
  ["cuda_bf16.hpp", "hip/hip_bf16.h"],
  ["cooperative_groups.h", "hip/hip_cooperative_groups.h"],
  ["cooperative_groups/reduce.h", "hip/hip_cooperative_groups.h"],
  ["cooperative_groups/scan.h", "hip/hip_cooperative_groups.h"],
  ["device_functions.h", "hip/hip_runtime.h"],
  ["device_launch_parameters.h", "hip/hip_runtime.h"],
  ["sm_30_intrinsics.h", "hip/hip_runtime.h"],
  ["sm_32_intrinsics.h", "hip/hip_runtime.h"],
  ["sm_60_atomic_functions.h", "hip/hip_runtime.h"],
  ["cuda_pipeline.h", null],
  ["mma.h", null],
  ["curand_kernel.h", "hiprand/hiprand_kernel.h"],
  ["cub/cub.cuh", "hipcub/hipcub.hpp"],
]);


/** Why a call, statement or `warpSize` in a HIP path is left. */
const hipPathLeft = (p: { loc: Loc; text: string }) => `already a HIP path (${p.text.trim()} at line ${p.loc.line}): a HIP build compiles it as written`;
/** Why a call or `warpSize` in code both builds of a HIP-aware file compile is left. */
const SHARED_LEFT = "shared with the file's HIP build (not in a branch of either build alone, and the file has HIP paths of its own): left as written; --rename-shared renames it";

/**
 * Ports one source text. Never throws on bad input (a statement that cannot be read is left
 * and reported); throws only what `opts.header` throws, and a `TypeError` for an
 * `opts.ptxTarget` ptxas does not know. The library's `portSource` (src/api.ts) checks the
 * arguments' types first (a `TypeError` naming the argument).
 * @param file the name locations give.
 */
export async function portSource(text: string, file: string, opts: PortOptions): Promise<PortResult> {
  const language: PortLanguage = opts.language ?? "cuda";
  const dialect = DIALECTS[language];
  const scan = scanSource(text, file);
  const src = scan.source;
  const statements: PortStatement[] = [];
  const edits: Edit[] = [];
  const specs = new Map<string, Call>();
  const nl = text.includes("\r\n") ? "\r\n" : "\n";
  const IF = `#if ${portGuard(language)} ${PORT_MARK}`;
  const ENDIF = `#endif ${PORT_MARK}`;
  const cond = conditionsOf(scan, opts, language);
  const nothing = (extra: Partial<PortResult> = {}): PortResult => ({
    text,
    header: null,
    routinesModule: null,
    statements: [],
    intrinsics: [],
    routines: [],
    callers: new Map(),
    warpSize: [],
    includes: [],
    warnings: [],
    hipSwitches: cond.hipSwitches,
    alreadyPorted: false,
    ...extra,
  });
  if (/NOTE: generated by ptx-lower port — do not edit\./.test(text.slice(0, 4096)))
    return nothing({ alreadyPorted: true, hipSwitches: [], warnings: [{ loc: { file, line: 1, col: 1 }, message: "a header ptx-lower port wrote (its banner): not ported" }] });
  if (ALREADY_PORTED.test(text)) {
    const m = ALREADY_PORTED.exec(text)!;
    const warnings: Reason[] = [{ loc: src.locOfOrig(m.index), message: "already ported by ptx-lower port (its own guard is here): nothing rewritten again" }];
    // Code added since, outside port's guards, is not ported: said, with how many.
    const guarded: [number, number][] = [];
    let open = -1;
    for (const mm of text.matchAll(/^[ \t]*#[ \t]*(if|endif)\b[^\n]*\/\* ptx-lower port \*\//gm)) {
      if (mm[1] === "if") open = mm.index;
      else if (open >= 0) {
        guarded.push([open, mm.index]);
        open = -1;
      }
    }
    const outside = (off: number) => !guarded.some(([a, b]) => off > a && off < b);
    const added = [
      [scan.statements.filter((st) => outside(st.start)).length, "asm statement"],
      [warpIntrinsicCalls(scan).filter((c) => c.intrinsic?.status === "rewrite" && outside(c.start)).length, "CUDA warp intrinsic call"],
      [warpSizeUses(scan).filter((w) => w.own === null && outside(w.start)).length, "warpSize use"],
    ] as const;
    const said = added.filter(([n]) => n > 0).map(([n, what]) => `${n} ${what}${n === 1 ? "" : "s"}`);
    if (said.length) warnings.push({ loc: warnings[0]!.loc, message: `${said.join(", ")} outside port's guards, added since it was ported, ${said.length === 1 && added.find(([n]) => n > 0)![0] === 1 ? "is" : "are"} not ported: port the original file again` });
    return nothing({ alreadyPorted: true, warnings });
  }
  const pinned = opts.ptxTarget === undefined ? undefined : pinnedHead(opts.ptxTarget);
  if (opts.ptxTarget !== undefined && !pinned) throw new TypeError(`portSource: opts.ptxTarget must be an sm_ target ptxas 13.0 knows (sm_70, sm_90, sm_100a, …), not ${JSON.stringify(opts.ptxTarget)}`);
  const heads = pinned ? [pinned] : undefined;
  const report = (st: AsmStatement, b: BindResult, ok: boolean, reasons: Reason[] = []): PortStatement => {
    const r: PortStatement = {
      loc: st.loc,
      end: src.locOfOrig(st.end - 1),
      keyword: st.keyword,
      status: ok ? "rewritten" : "left",
      macro: st.macro >= 0 ? scan.macros[st.macro]!.name : null,
      forms: b.ok && ok ? b.calls.map((c) => formName(c.spec.form)) : [],
      calls: b.ok && ok ? b.calls.map((c) => c.name) : [],
      reasons: ok ? [] : reasons.length ? reasons : b.ok ? [] : b.reasons,
      liveness: cond.hip(st.macro >= 0 ? scan.macros[st.macro]!.start : st.start),
      ptxHeader: b.ok ? headName(b.head) : null,
      departures: b.ok && ok ? b.calls.flatMap((c) => departureOf(c.spec)) : [],
    };
    statements.push(r);
    return r;
  };
  const callers = new Map<string, Loc[]>();
  const use = (b: Extract<BindResult, { ok: true }>) => {
    for (const c of b.calls) {
      if (!specs.has(c.name)) specs.set(c.name, c);
      callers.set(c.name, [...(callers.get(c.name) ?? []), c.loc]);
    }
  };
  /** Whether the physical line starting at `lineStart` continues the one before it (which ends in a line splice). */
  const splicedOnto = (lineStart: number) => lineStart > 0 && text[lineStart - 1] === "\n" && /\\\r?\n$/.test(text.slice(Math.max(0, lineStart - 3), lineStart));
  const leftHere = (st: AsmStatement, message: string): BindResult => ({ ok: false, operands: [], reasons: [{ loc: st.loc, message }] });
  // Bind every statement: in code, and per #define (all of a macro's or none).
  const codeBinds = scan.statements
    .filter((st) => st.macro < 0)
    .map((st) => {
      const hp = cond.hipPath(st.start);
      const directive = st.malformed ? null : /\n[ \t]*#/.exec(text.slice(st.start, st.end));
      const b: BindResult = hp
        ? leftHere(st, hipPathLeft(hp))
        : directive
          ? leftHere(st, `a preprocessor directive inside the statement (line ${src.locOfOrig(st.start + directive.index + 1).line}): the guard around a rewrite cannot hold it`)
          : st.standalone || st.malformed
          ? bindStatement(st, scan, { heads })
          : leftHere(st, "not a statement of its own (inside an expression or a macro's arguments, or no ';' after it): a #if cannot go around it");
      return { st, b };
    });
  const byMacro = new Map<number, AsmStatement[]>();
  for (const st of scan.statements) if (st.macro >= 0) byMacro.set(st.macro, [...(byMacro.get(st.macro) ?? []), st]);
  const macroBinds = [...byMacro].map(([m, sts]) => {
    const hp = cond.hipPath(scan.macros[m]!.start);
    const perUse = sts.map((st) => (hp ? null : bindPerUse(st, scan, heads)));
    const binds = sts.map((st, k): BindResult => {
      if (hp) return leftHere(st, hipPathLeft(hp));
      const pu = perUse[k];
      if (!pu) return bindInMacro(st, scan, heads);
      if (!pu.ok) return { ok: false, operands: [], reasons: pu.reasons };
      // For the report and the head: every use's calls.
      const first = pu.items[0]!.b;
      return { ...first, calls: pu.items.flatMap((x) => x.b.calls) };
    });
    return { m, sts, binds, perUse };
  });
  // One header holds every function: the statements must share a module header (`moduleHead`).
  const bound = [...codeBinds.map((x) => x.b), ...macroBinds.flatMap((x) => [...x.binds, ...x.perUse.flatMap((pu) => (pu?.ok ? pu.items.map((i) => i.b) : []))])].filter(
    (b): b is Extract<BindResult, { ok: true }> => b.ok,
  );
  /** Per use of a macro whose asm is built from its parameters: `#define ptxl_MACRO_ARGS(ptxl_o0, …) code` (HIP side of the include guard). */
  const perUseDefines = new Map<string, string>();
  // (`chosen` is settled once the drop-ins are known: their PTX — redux.sync — needs a .version 9.0 module.)
  let chosen: PtxHead | null = null;
  const conflict = (b: BindResult): BindResult =>
    b.ok && chosen && b.head.version !== chosen.version
      ? { ok: false, operands: b.operands, head: b.head, reasons: [{ loc: b.calls[0]!.loc, message: `needs ${headName(b.head)}, while other statements of this file need ${headName(chosen)}: one header cannot hold both (port them from separate files, or pin one with --ptx-target)` }] }
      : b;
  // Renames (intrinsic calls, warpSize) as spans of the original text, applied wherever original text is copied.
  const renames: { start: number; end: number; to: string }[] = [];
  const withRenames = (from: number, to: number): string => {
    let out = "";
    let pos = from;
    for (const r of renames) {
      // Half-open: an insertion (`warpSize` → `ptxl_` + `warpSize`) at `to` belongs to the next range.
      if (r.start < from || r.end > to || (r.start === r.end && r.start === to)) continue;
      out += text.slice(pos, r.start) + r.to;
      pos = r.end;
    }
    return out + text.slice(pos, to);
  };
  const intrinsics: PortIntrinsic[] = [];
  const dropIns = new Map<string, string>();
  /** Whether a call or `warpSize` at `off` is left: in a HIP path, or shared code of a HIP-aware file. */
  const hipLeft = (off: number): string | null => {
    const hp = cond.hipPath(off);
    if (hp) return hipPathLeft(hp);
    if (cond.hasHipPath && !opts.renameShared && cond.hip(off).state !== "dead" && cond.cuda(off).state !== "dead") return SHARED_LEFT;
    return null;
  };
  // Calls of CUDA warp intrinsics (renamed), their names used otherwise and cooperative_groups calls (left): src/port/intrinsics.ts.
  for (const c of [...warpIntrinsicCalls(scan), ...warpIntrinsicUses(scan), ...cooperativeGroupsCalls(scan)]) {
    let reason = c.intrinsic === null ? COOPERATIVE_GROUPS_LEFT : c.intrinsic.status === "left" ? c.intrinsic.reason : null;
    // A legacy intrinsic in the file's own HIP path (or code it shares with it) is HIP's on purpose: that is the reason.
    if (reason === LEGACY_LEFT) reason = hipLeft(c.start) ?? reason;
    if (reason === null && language === "opencl") reason = OPENCL_LEFT;
    reason ??= hipLeft(c.start);
    const rewrite = reason === null && c.intrinsic?.status === "rewrite" ? c.intrinsic : null;
    if (rewrite) {
      // `__shfl_sync` → `ptxl_shfl_sync` by its first two characters, so a line splice inside the name stays.
      renames.push(text.startsWith("__", c.start) && rewrite.to === `ptxl_${c.name.slice(2)}` ? { start: c.start, end: c.start + 2, to: "ptxl_" } : { start: c.start, end: c.nameEnd, to: rewrite.to });
      if (!dropIns.has(rewrite.to)) dropIns.set(rewrite.to, c.name);
    }
    intrinsics.push({
      name: c.name,
      kind: c.intrinsic ? "warp" : "cooperative_groups",
      loc: c.loc,
      end: src.locOfOrig(c.end - 1),
      status: rewrite ? "rewritten" : "left",
      to: rewrite?.to ?? null,
      macro: c.macro >= 0 ? scan.macros[c.macro]!.name : null,
      reasons: reason === null ? [] : [{ loc: c.loc, message: reason }],
      liveness: cond.hip(c.start),
    });
  }
  intrinsics.sort((x, y) => x.loc.line - y.loc.line || x.loc.col - y.loc.col);
  // warpSize: CUDA's is 32; HIP's is the wavefront size (64 on wave64), while the drop-ins give 32-lane CUDA warps.
  const warpSize: PortWarpSize[] = [];
  for (const w of warpSizeUses(scan)) {
    const reason = w.own ?? (language === "opencl" ? null : hipLeft(w.start));
    if (language === "opencl") continue;
    if (reason === null) renames.push({ start: w.start, end: w.start, to: "ptxl_" });
    warpSize.push({ loc: src.locOfOrig(w.start), status: reason === null ? "rewritten" : "left", reasons: reason === null ? [] : [{ loc: src.locOfOrig(w.start), message: reason }], liveness: cond.hip(w.start) });
  }
  renames.sort((x, y) => x.start - y.start);
  chosen = moduleHead([...bound.map((b) => b.head), ...(dropIns.size ? [portHeads()[0]!] : [])]);
  /** An operand's expression with the renames inside it (a call in an asm operand). */
  const renamed = (b: Extract<BindResult, { ok: true }>): Extract<BindResult, { ok: true }> => ({
    ...b,
    operands: b.operands.map((o) => (o.exprTokens.length ? { ...o, expr: withRenames(src.origOf(o.exprTokens[0]!.start), src.origOf(o.exprTokens[o.exprTokens.length - 1]!.end - 1) + 1) } : o)),
  });
  // Statements in code.
  for (const { st, b: b0 } of codeBinds) {
    const b = conflict(b0);
    report(st, b, b.ok);
    if (!b.ok) continue;
    use(b);
    const { lines, block } = codeFor(renamed(b), false, dialect);
    const lineStart = text.lastIndexOf("\n", st.start - 1) + 1;
    const lineText = text.slice(lineStart, text.indexOf("\n", lineStart) < 0 ? text.length : text.indexOf("\n", lineStart));
    const indent = /^[ \t]*/.exec(lineText)![0];
    const before = text.slice(lineStart, st.start);
    // A line after a line splice (`\` newline) continues that line: a directive written there would not start a line.
    const atLineStart = /^[ \t]*$/.test(before) && !splicedOnto(lineStart);
    let lineEnd = text.indexOf("\n", st.end);
    if (lineEnd < 0) lineEnd = text.length;
    if (text[lineEnd - 1] === "\r") lineEnd--;
    const rest = text.slice(st.end, lineEnd);
    // Only blanks or a comment after it (any character but a line break; a `//` comment spliced onto the next line is no end of line).
    const restIsComment = (/^[ \t\f\v\r]*(\/\/[^\n]*)?$/.test(rest) && !/\\[ \t\f\v]*$/.test(rest)) || /^[ \t\f\v]*\/\*(?:(?!\*\/)[^\n])*\*\/[ \t\f\v\r]*$/.test(rest);
    // Mid-line: the code before keeps its line (trailing blanks go), the code after starts a line of its own.
    const start = atLineStart ? lineStart : lineStart + before.replace(/[ \t\f\v]+$/, "").length;
    const end = restIsComment ? lineEnd : st.end + (rest.length - rest.replace(/^[ \t\f\v]+/, "").length);
    const original = indent + withRenames(st.start, restIsComment ? lineEnd : st.end);
    const inner = block ? [`${indent}{`, ...lines.map((l) => `${indent}  ${l}`), `${indent}}`] : lines.map((l) => indent + l);
    const out = [...(atLineStart ? [] : [""]), IF, ...inner, "#else", original, ENDIF].join(nl) + (restIsComment ? "" : nl + indent);
    edits.push({ start, end, text: out, openLine: !restIsComment });
  }
  // Statements in #define bodies: per macro, all or nothing.
  for (const { m, sts, binds: binds0, perUse } of macroBinds) {
    const def = scan.macros[m]!;
    const binds = binds0.map((b, k) => {
      const pu = perUse[k];
      const clash = pu?.ok ? pu.items.map((i) => conflict(i.b)).find((x) => !x.ok) : undefined;
      return clash ?? conflict(b);
    });
    const all = binds.every((b) => b.ok);
    sts.forEach((st, k) => {
      const b = binds[k]!;
      const reasons = b.ok ? [{ loc: st.loc, message: `inside a macro body: another asm statement of ${def.name} cannot be rewritten` }] : b.reasons;
      report(st, b, all, reasons.map((r) => (r.message.startsWith("inside a macro body") || r.message.startsWith("already a HIP path") ? r : { ...r, message: `inside a macro body: ${r.message}` })));
    });
    if (!all) continue;
    // The directive without its line's carriage return (CRLF sources): the guard lines get the file's line ending once.
    const defEnd = text[def.end - 1] === "\r" ? def.end - 1 : def.end;
    let copy = "";
    let at = def.start;
    const codeOf = (b: Extract<BindResult, { ok: true }>) => {
      const { lines, block } = codeFor(b, true, dialect);
      return block ? `do { ${lines.join(" ")} } while (0)` : lines[0]!.replace(/;$/, "");
    };
    sts.forEach((st, k) => {
      const pu = perUse[k];
      let code: string;
      if (pu?.ok) {
        // One function-like macro per use's arguments, its name pasted from them: the HIP copy calls `ptxl_M_ ## p ## _ ## q(operands…)`.
        for (const { keyArgs, b } of pu.items) {
          use(b);
          const name = `ptxl_${def.name}_${keyArgs.join("_")}`;
          const params = b.operands.map((o) => `ptxl_o${o.index}`);
          perUseDefines.set(name, `#define ${name}(${params.join(", ")}) ${codeOf({ ...b, operands: b.operands.map((o) => ({ ...o, expr: `ptxl_o${o.index}` })) })}`);
        }
        const ops = [...st.outputs, ...st.inputs].map((o) => `(${o.exprTokens.length ? withRenames(src.origOf(o.exprTokens[0]!.start), src.origOf(o.exprTokens[o.exprTokens.length - 1]!.end - 1) + 1) : o.expr})`);
        code = `ptxl_${def.name}_ ## ${pu.keys.join(" ## _ ## ")}(${ops.join(", ")})`;
      } else {
        const b = binds[k] as Extract<BindResult, { ok: true }>;
        use(b);
        code = codeOf(renamed(b));
      }
      copy += withRenames(at, st.start) + code;
      at = st.end;
    });
    copy += withRenames(at, defEnd);
    edits.push({ start: def.start, end: defEnd, text: [IF, copy, "#else", withRenames(def.start, defEnd), ENDIF].join(nl) });
  }
  statements.sort((x, y) => x.loc.line - y.loc.line || x.loc.col - y.loc.col);
  const includes = cudaIncludes(text, src, cond);
  const warnings = fileWarnings(scan, cond, language);
  const rewrittenWarpSize = warpSize.some((w) => w.status === "rewritten");
  if (specs.size === 0 && dropIns.size === 0 && !rewrittenWarpSize) return nothing({ statements, intrinsics, warpSize, includes, warnings });
  const extra = [...dropIns.values()].flatMap((n) => {
    const i = CUDA_WARP_INTRINSICS.get(n)!;
    return i.status === "rewrite" ? i.ptx : [];
  });
  const headerName = opts.headerName ?? "port.hip.h";
  const mod = routinesModule([...specs.values()], file, extra, chosen);
  const header = await opts.header(mod, language, rewrittenWarpSize);
  // Inlined (standard output), the header's functions are the main file's: clang's -Wunused-function would name each one the file does not call.
  const include = opts.inlineHeader
    ? ["#pragma clang diagnostic push", '#pragma clang diagnostic ignored "-Wunused-function"', ...header.replace(/\r?\n$/, "").split(/\r?\n/), "#pragma clang diagnostic pop"].join(nl)
    : `#include "${headerName.replace(/["\\\r\n]/g, "_")}"`;
  // Before the first line of code; where a comment ends on that line, right before the code.
  const inline = !/^[ \t]*$/.test(text.slice(scan.firstCodeLine, scan.firstCode));
  let at = inline ? scan.firstCode : scan.firstCodeLine;
  // The first code is a statement after a comment on its line: its edit starts (a new line) right after the comment, and so does the guard.
  const cover = edits.find((e) => e.start < at && e.end > at);
  if (cover) at = cover.start;
  const cuda = [...[...dropIns].map(([to, name]) => `#define ${to} ${name}`), ...(rewrittenWarpSize ? ["#define ptxl_warpSize warpSize"] : [])];
  const guard = [...(inline || splicedOnto(at) ? [""] : []), IF, include, ...perUseDefines.values(), ...(cuda.length ? ["#else", ...cuda] : []), ENDIF, ...(cover ? [] : [""])].join(nl);
  // Apply, the guard first where it shares its place with a statement's edit; renames between the edits.
  edits.push({ start: at, end: at, text: guard, first: true });
  edits.sort((x, y) => x.start - y.start || (y.first ? 1 : 0) - (x.first ? 1 : 0));
  let out = "";
  let pos = 0;
  let openLine = false;
  for (const e of edits) {
    // Two statements on one line: the first took the blanks between them (or none were there) and started a line for the code after it.
    if (e.start < pos || (e.start === pos && openLine && /^\r?\n/.test(e.text))) out = out.replace(/[ \t]*$/, "") + e.text.replace(/^\r?\n/, "");
    else out += withRenames(pos, e.start) + e.text;
    pos = e.end;
    openLine = e.openLine ?? false;
  }
  out += withRenames(pos, text.length);
  return { text: out, header, routinesModule: mod, statements, intrinsics, routines: [...specs.keys()], callers, warpSize, includes, warnings, hipSwitches: cond.hipSwitches, alreadyPorted: false };
}

/** Why a CUDA warp intrinsic call in OpenCL C is left. */
export const OPENCL_LEFT = "a CUDA warp intrinsic in OpenCL C: its drop-in is C++ (overloads, a default width), which OpenCL C cannot express; left as written";

/** Whether two heads are the same. */
const sameHead = (x: PtxHead, y: PtxHead) => x.version === y.version && x.target === y.target;

/**
 * The module header of the routines module: the statements' heads must be one, or the
 * `.version 9.0` ones, the highest of which (in `portHeads` order) holds them all; a
 * `.version 6.3 / sm_70` statement (the deprecated shfl/vote) cannot share a module with an
 * sm_90 one. The `.version 9.0` heads win when both kinds are present. Null for no statement.
 */
function moduleHead(used: readonly PtxHead[]): PtxHead | null {
  if (used.length === 0) return null;
  const order = portHeads();
  const rank = (h: PtxHead) => {
    const k = order.findIndex((o) => sameHead(o, h));
    return k < 0 ? order.length : k;
  };
  const modern = used.filter((h) => h.version === used.find((u) => u.version !== "6.3")?.version);
  const pool = modern.length ? modern : used;
  return pool.reduce((x, y) => (rank(y) > rank(x) ? y : x));
}

/**
 * The uses of `warpSize` in code: the name not a member (`.`, `->`), not qualified by a scope,
 * not declared there. `own` is set (the reason it is left) where the file defines a macro of
 * that name, or where a declaration of its own is in scope (C++ [basic.scope]): one at file
 * scope, from there on; a parameter, in its function's body; a member, in its class's body;
 * any other, to the end of its block.
 */
function warpSizeUses(scan: Scan): { start: number; end: number; own: string | null }[] {
  const { tokens, source } = scan;
  // Each token's innermost open bracket (`(` or `{` of the same macro body), and each bracket's match.
  const enclosing = new Int32Array(tokens.length).fill(-1);
  const match = new Map<number, number>();
  const stack: number[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    while (stack.length && tokens[stack[stack.length - 1]!]!.macro !== t.macro) stack.pop();
    enclosing[k] = stack.length ? stack[stack.length - 1]! : -1;
    if (t.text === "(" || t.text === "{") stack.push(k);
    else if ((t.text === ")" || t.text === "}") && stack.length) match.set(stack.pop()!, k);
  }
  /** The token range a declaration at `k` is in scope over. */
  const scopeOf = (k: number): [number, number] => {
    const open = enclosing[k]!;
    if (open < 0) return [k, tokens.length];
    const close = match.get(open) ?? tokens.length;
    if (tokens[open]!.text === "(") {
      // A parameter: the body after the parameter list (past qualifiers), if one follows.
      for (let m = close + 1; m < Math.min(tokens.length, close + 12); m++) {
        if (tokens[m]!.text === "{") return [m, match.get(m) ?? tokens.length];
        if (tokens[m]!.text === ";" || tokens[m]!.text === "}") break;
      }
      return [k, k];
    }
    // A member: the whole class body (its member functions see it); a block or namespace: the rest of it.
    const head = tokens.slice(Math.max(0, open - 6), open).map((t) => t.text);
    return head.some((w) => w === "struct" || w === "class" || w === "union") ? [open, close] : [k, close];
  };
  const scopes: { from: number; to: number; line: number }[] = [];
  const found: { k: number; start: number; end: number }[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const tk = tokens[k]!;
    if (tk.kind !== "ident" || tk.text !== "warpSize") continue;
    const prev = tokens[k - 1];
    const sameMacro = prev !== undefined && prev.macro === tk.macro;
    if (sameMacro && (prev.text === "." || prev.text === "::" || (prev.text === ">" && tokens[k - 2]?.text === "-"))) continue;
    if (sameMacro && prev.kind === "ident" && !WARPSIZE_BEFORE.has(prev.text)) {
      const [from, to] = scopeOf(k);
      scopes.push({ from, to, line: source.loc(tk.start).line });
      continue;
    }
    found.push({ k, start: source.origOf(tk.start), end: source.origOf(tk.end - 1) + 1 });
  }
  return found.map(({ k, start, end }) => {
    const own = macroInForce(scan, "warpSize", k);
    if (own) return { start, end, own: `the file defines a macro warpSize (line ${own.loc.line}): left as written` };
    const decl = scopes.find((sc) => k > sc.from && k < sc.to);
    return { start, end, own: decl ? `the file declares its own warpSize (line ${decl.line}), in scope here: left as written` : null };
  });
}

/** Words after which `warpSize` is still CUDA's variable, read (an expression keyword or operator word). */
const WARPSIZE_BEFORE = new Set(["return", "case", "sizeof", "alignof", "decltype", "throw", "co_return", "co_yield", "and", "or", "not", "xor", "bitand", "bitor", "compl", "and_eq", "or_eq", "xor_eq", "not_eq", "else", "do"]);

/** The `#include`s of CUDA-only headers in code a HIP compile takes, each with its HIP header. */
function cudaIncludes(text: string, src: Scan["source"], cond: Conditions): PortInclude[] {
  const out: PortInclude[] = [];
  for (const m of text.matchAll(/^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\r\n]+)[>"]/gm)) {
    const name = m[1]!.trim();
    if (!CUDA_INCLUDES.has(name)) continue;
    if (cond.hip(m.index).state === "dead" || cond.hipPath(m.index)) continue;
    out.push({ loc: src.locOfOrig(m.index + m[0].indexOf("#")), name, hip: CUDA_INCLUDES.get(name)! });
  }
  return out;
}

/**
 * Warnings about the file as a whole: a HIP-aware file (HIP paths of its own) — its warp code
 * may assume 64-lane waves; the wavefront size named where CUDA's warp size may be meant.
 */
function fileWarnings(scan: Scan, cond: Conditions, language: PortLanguage): Reason[] {
  const out: Reason[] = [];
  if (cond.hasHipPath && language === "cuda")
    out.push({
      loc: { file: scan.source.file, line: 1, col: 1 },
      message:
        "this file has HIP paths of its own, whose warp code may assume 64-lane waves (warpSize 64 on wave64, 64-bit ballots): the drop-ins give 32-lane CUDA warps, two per wave64; check that each HIP path and the code it shares agree",
    });
  for (let k = 0; k < scan.tokens.length; k++) {
    const tk = scan.tokens[k]!;
    if (tk.kind === "ident" && (tk.text === "__AMDGCN_WAVEFRONT_SIZE" || tk.text === "__builtin_amdgcn_wavefrontsize"))
      out.push({ loc: scan.source.loc(tk.start), message: `${tk.text} is the wavefront size (64 on wave64), not the 32-thread CUDA warp the drop-ins give` });
  }
  return out;
}

/** The file's conditions under a HIP and an NVIDIA compile (src/port/cond.ts), with the options' HIP macros and -D/-U. */
function conditionsOf(scan: Scan, opts: PortOptions, language: PortLanguage): Conditions {
  return evaluateConditions(scan, { language, hipMacros: opts.hipMacros, predefined: opts.predefined });
}
