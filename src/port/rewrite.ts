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
 *   only for vshl/vshr); test/port.test.ts "bindings, run" checks the calls against it. The
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
import type { Loc } from "../ir/ir.js";
import { formName } from "../ir/forms.js";
import type { AsmStatement, Scan } from "./scan.js";
import { macroUses, scanSource } from "./scan.js";
import type { BindResult, BoundOperand, Call, Reason, Ref } from "./bind.js";
import { bindStatement, evalConst, routinesModule } from "./bind.js";
import { COOPERATIVE_GROUPS_LEFT, CUDA_WARP_INTRINSICS, cooperativeGroupsCalls, warpIntrinsicCalls, warpIntrinsicUses } from "./intrinsics.js";

/** The source language of a ported file: CUDA/HIP C++ (`.cu .cuh .hip .h .hpp …`) or OpenCL C (`.cl`). */
export type PortLanguage = "cuda" | "opencl";

/** Options of `portSource`. */
export interface PortOptions {
  /** The header text for the routines module (the HIP target's printer), in the file's language. Called only when something is rewritten. */
  header: (mod: ParsedModule, language: PortLanguage) => Promise<string>;
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

const SIMPLE = /^\s*[A-Za-z_$][\w$]*(?:\s*(?:\.|->)\s*[A-Za-z_$][\w$]*|\s*\[\s*[\w$]+\s*\])*\s*$/;
const CTYPE = { u32: "unsigned int", u64: "unsigned long long", pred: "bool" } as const;

/** C type of an asm operand's local. */
const operandType = (o: BoundOperand): string => (o.cls === "l" ? CTYPE.u64 : CTYPE.u32);

/** The C statements for one bound asm statement (one line each; `macro`: operands parenthesized). */
function codeFor(b: Extract<BindResult, { ok: true }>, macro: boolean): { lines: string[]; block: boolean } {
  const { operands, calls, temps } = b;
  const ops = operands;
  const exprOf = (o: BoundOperand) => (macro || !SIMPLE.test(o.expr) ? `(${o.expr.trim()})` : o.expr.trim());
  const tied = (out: number) => ops.find((o) => o.cls === "tied" && o.tied === out);
  const readsOutputOnly = calls.some((c) => [...c.args, c.guard?.ref].some((r) => r?.kind === "operand" && ops[r.index]!.dir === "out"));
  const inputUses = new Map<number, number>();
  for (const c of calls) for (const r of c.args) if (r.kind === "operand") inputUses.set(r.index, (inputUses.get(r.index) ?? 0) + 1);
  const direct =
    calls.length === 1 &&
    calls[0]!.guard === null &&
    temps.length === 0 &&
    calls[0]!.p === null &&
    !readsOutputOnly &&
    !ops.some((o) => o.cls === "tied") &&
    [...inputUses].every(([i, n]) => n === 1 || SIMPLE.test(ops[i]!.expr));
  const argList = (c: Call, name: (r: Ref) => string) => [...c.args.map(name), ...(c.p ? [`&${name(c.p)}`] : [])].join(", ");
  if (direct) {
    const c = calls[0]!;
    const call = `${c.name}(${argList(c, (r) => exprOf(ops[(r as { index: number }).index]!))})`;
    return { lines: [c.d ? `${exprOf(ops[(c.d as { index: number }).index]!)} = ${call};` : `${call};`], block: false };
  }
  // Locals: outputs, inputs that are not plain names (or any, in a macro), temporaries.
  const tempNames = new Map<string, string>();
  const used = new Set<string>();
  for (const t of temps) {
    let n = `ptxl_t_${t.ptx.replace(/[^A-Za-z0-9_]/g, "_").replace(/^_+/, "")}`;
    while (used.has(n)) n += "_";
    used.add(n);
    tempNames.set(t.key, n);
  }
  const written = new Set<number>();
  for (const c of calls) for (const r of [c.d, c.p]) if (r?.kind === "operand") written.add(r.index);
  const local = new Map<number, string>();
  const lines: string[] = [];
  for (const o of ops) {
    if (o.cls === "n" && o.value !== undefined) continue;
    if (o.cls === "tied") continue;
    if (o.dir !== "in") {
      const t = tied(o.index);
      const init = o.dir === "inout" ? exprOf(o) : t ? exprOf(t) : "0u";
      if (!written.has(o.index) && !calls.some((c) => c.args.some((r) => r.kind === "operand" && r.index === o.index))) continue;
      local.set(o.index, `ptxl_${o.index}`);
      lines.push(`${operandType(o)} ptxl_${o.index} = ${init};`);
    } else if (inputUses.has(o.index) || calls.some((c) => c.guard?.ref.kind === "operand" && c.guard.ref.index === o.index)) {
      if (!macro && SIMPLE.test(o.expr)) continue;
      local.set(o.index, `ptxl_${o.index}`);
      lines.push(`${operandType(o)} ptxl_${o.index} = ${exprOf(o)};`);
    }
  }
  for (const t of temps) lines.push(`${CTYPE[t.type]} ${tempNames.get(t.key)} = ${t.type === "pred" ? "false" : "0u"};`);
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
  for (const o of ops) if (o.dir !== "in" && written.has(o.index)) lines.push(`${exprOf(o)} = ptxl_${o.index};`);
  return { lines, block: true };
}

/** Binds a statement inside a `#define`: every use's literals checked, `n` parameters passed as values. */
function bindInMacro(st: AsmStatement, scan: Scan): BindResult {
  const def = scan.macros[st.macro]!;
  const params = new Set(def.params ?? []);
  const first = bindStatement(st, scan, { asRegister: new Set() });
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
    const r = bindStatement(st, scan, { values });
    if (!r.ok) return { ok: false, operands, reasons: r.reasons.map((x) => ({ loc: x.loc, message: `inside a macro body: with the use at ${u.loc.line}:${u.loc.col}: ${x.message}` })) };
  }
  return bindStatement(st, scan, { asRegister: new Set(dependent.map((o) => o.index)) });
}

/** The argument checks of `portSource` (a library entry point): a `TypeError` naming the argument. */
function checkPortArgs(text: unknown, file: unknown, opts: unknown): void {
  const what = (x: unknown) => (x === null ? "null" : Array.isArray(x) ? "an array" : typeof x);
  if (typeof text !== "string") throw new TypeError(`portSource: text must be a string (the source's text), not ${what(text)}`);
  if (typeof file !== "string") throw new TypeError(`portSource: file must be a string (the name locations give), not ${what(file)}`);
  if (typeof opts !== "object" || opts === null) throw new TypeError(`portSource: opts must be an object ({ header, headerName?, inlineHeader? }), not ${what(opts)}`);
  const o = opts as Record<string, unknown>;
  if (typeof o.header !== "function") throw new TypeError(`portSource: opts.header must be a function (the routines module → the header's text), not ${what(o.header)}`);
  if (o.headerName !== undefined && typeof o.headerName !== "string") throw new TypeError(`portSource: opts.headerName must be a string, not ${what(o.headerName)}`);
  if (o.inlineHeader !== undefined && typeof o.inlineHeader !== "boolean") throw new TypeError(`portSource: opts.inlineHeader must be a boolean, not ${what(o.inlineHeader)}`);
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Ports one source text. Never throws on bad input (a statement that cannot be read is left
 * and reported); throws only what `opts.header` throws, and a `TypeError` naming the argument
 * for arguments of the wrong type (text or file not a string, `opts.header` not a function).
 * @param file the name locations give.
 */
export async function portSource(text: string, file: string, opts: PortOptions): Promise<PortResult> {
  checkPortArgs(text, file, opts);
  const scan = scanSource(text, file);
  const src = scan.source;
  const statements: PortStatement[] = [];
  const edits: Edit[] = [];
  const specs = new Map<string, Call>();
  const nl = text.includes("\r\n") ? "\r\n" : "\n";
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
      liveness: { state: "live" },
      ptxHeader: null,
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
  // Statements in code.
  for (const st of scan.statements) {
    if (st.macro >= 0) continue;
    const b: BindResult = st.standalone || st.malformed
      ? bindStatement(st, scan)
      : { ok: false, operands: [], reasons: [{ loc: st.loc, message: "not a statement of its own (inside an expression or a macro's arguments, or no ';' after it): a #if cannot go around it" }] };
    report(st, b, b.ok);
    if (!b.ok) continue;
    use(b);
    const { lines, block } = codeFor(b, false);
    const lineStart = text.lastIndexOf("\n", st.start - 1) + 1;
    const lineText = text.slice(lineStart, text.indexOf("\n", lineStart) < 0 ? text.length : text.indexOf("\n", lineStart));
    const indent = /^[ \t]*/.exec(lineText)![0];
    const before = text.slice(lineStart, st.start);
    const atLineStart = /^[ \t]*$/.test(before);
    let lineEnd = text.indexOf("\n", st.end);
    if (lineEnd < 0) lineEnd = text.length;
    if (text[lineEnd - 1] === "\r") lineEnd--;
    const rest = text.slice(st.end, lineEnd);
    const restIsComment = /^[ \t]*(\/\/.*)?$/.test(rest) || /^[ \t]*\/\*(?:(?!\*\/).)*\*\/[ \t]*$/.test(rest);
    // Mid-line: the code before keeps its line (trailing blanks go), the code after starts a line of its own.
    const start = atLineStart ? lineStart : lineStart + before.trimEnd().length;
    const end = restIsComment ? lineEnd : st.end + (rest.length - rest.trimStart().length);
    const original = indent + text.slice(st.start, restIsComment ? lineEnd : st.end);
    const inner = block ? [`${indent}{`, ...lines.map((l) => `${indent}  ${l}`), `${indent}}`] : lines.map((l) => indent + l);
    const out = [...(atLineStart ? [] : [""]), "#if defined(__HIP__)", ...inner, "#else", original, "#endif"].join(nl) + (restIsComment ? "" : nl + indent);
    edits.push({ start, end, text: out });
  }
  // Statements in #define bodies: per macro, all or nothing.
  const byMacro = new Map<number, AsmStatement[]>();
  for (const st of scan.statements) if (st.macro >= 0) byMacro.set(st.macro, [...(byMacro.get(st.macro) ?? []), st]);
  for (const [m, sts] of byMacro) {
    const def = scan.macros[m]!;
    const binds = sts.map((st) => bindInMacro(st, scan));
    const all = binds.every((b) => b.ok);
    sts.forEach((st, k) => {
      const b = binds[k]!;
      const reasons = b.ok ? [{ loc: st.loc, message: `inside a macro body: another asm statement of ${def.name} cannot be rewritten` }] : b.reasons;
      report(st, b, all, reasons.map((r) => (r.message.startsWith("inside a macro body") ? r : { ...r, message: `inside a macro body: ${r.message}` })));
    });
    if (!all) continue;
    let copy = "";
    let at = def.start;
    sts.forEach((st, k) => {
      const b = binds[k] as Extract<BindResult, { ok: true }>;
      use(b);
      const { lines, block } = codeFor(b, true);
      const code = block ? `do { ${lines.join(" ")} } while (0)` : lines[0]!.replace(/;$/, "");
      copy += text.slice(at, st.start) + code;
      at = st.end;
    });
    copy += text.slice(at, def.end);
    edits.push({ start: def.start, end: def.end, text: ["#if defined(__HIP__)", copy, "#else", text.slice(def.start, def.end), "#endif"].join(nl) });
  }
  statements.sort((a, b) => a.loc.line - b.loc.line || a.loc.col - b.loc.col);
  // Calls of CUDA warp intrinsics (renamed), their names used otherwise and cooperative_groups calls (left): src/port/intrinsics.ts.
  const warpCalls = warpIntrinsicCalls(scan);
  const intrinsics: PortIntrinsic[] = [...warpCalls, ...warpIntrinsicUses(scan), ...cooperativeGroupsCalls(scan)]
    .map((c): PortIntrinsic => {
      const rewrite = c.intrinsic?.status === "rewrite" ? c.intrinsic : null;
      const reason = c.intrinsic === null ? COOPERATIVE_GROUPS_LEFT : c.intrinsic.status === "left" ? c.intrinsic.reason : null;
      return {
        name: c.name,
        kind: c.intrinsic ? "warp" : "cooperative_groups",
        loc: c.loc,
        end: src.locOfOrig(c.end - 1),
        status: rewrite ? "rewritten" : "left",
        to: rewrite?.to ?? null,
        macro: c.macro >= 0 ? scan.macros[c.macro]!.name : null,
        reasons: reason === null ? [] : [{ loc: c.loc, message: reason }],
        liveness: { state: "live" },
      };
    })
    .sort((a, b) => a.loc.line - b.loc.line || a.loc.col - b.loc.col);
  // The drop-ins used, in first-use order, and the PTX instructions their HIP functions are made of.
  const dropIns = new Map<string, string>();
  for (const c of warpCalls) if (c.intrinsic?.status === "rewrite" && !dropIns.has(c.intrinsic.to)) dropIns.set(c.intrinsic.to, c.name);
  if (specs.size === 0 && dropIns.size === 0) return { text, header: null, routinesModule: null, statements, intrinsics, routines: [], callers, warpSize: [], includes: [], warnings: [], hipSwitches: [], alreadyPorted: false };
  const extra = [...dropIns.values()].flatMap((n) => {
    const i = CUDA_WARP_INTRINSICS.get(n)!;
    return i.status === "rewrite" ? i.ptx : [];
  });
  const headerName = opts.headerName ?? "port.hip.h";
  const mod = routinesModule([...specs.values()], file, extra);
  const header = await opts.header(mod, opts.language ?? "cuda");
  const include = opts.inlineHeader ? header.replace(/\r?\n$/, "").replace(/\r?\n/g, nl) : `#include "${headerName.replace(/["\\\r\n]/g, "_")}"`;
  // Before the first line of code; where a comment ends on that line, right before the code.
  const inline = !/^[ \t]*$/.test(text.slice(scan.firstCodeLine, scan.firstCode));
  const at = inline ? scan.firstCode : scan.firstCodeLine;
  const cuda = [...dropIns].map(([to, name]) => `#define ${to} ${name}`);
  const guard = [...(inline ? [""] : []), "#if defined(__HIP__)", include, ...(cuda.length ? ["#else", ...cuda] : []), "#endif", ""].join(nl);
  // Apply (every edit starts at or after `at`, so the include goes in last, before them).
  edits.sort((a, b) => a.start - b.start);
  let out = "";
  let pos = 0;
  for (const e of edits) {
    if (e.start >= pos) out += text.slice(pos, e.start) + e.text;
    // Two statements on one line: the first took the blanks between them and ended the line.
    else out = out.replace(/[ \t]*$/, "") + e.text.replace(/^\r?\n/, "");
    pos = e.end;
  }
  out += text.slice(pos);
  out = renameIntrinsics(out, file);
  out = out.slice(0, at) + guard + out.slice(at);
  return { text: out, header, routinesModule: mod, statements, intrinsics, routines: [...specs.keys()], callers, warpSize: [], includes: [], warnings: [], hipSwitches: [], alreadyPorted: false };
}

/**
 * Every call of a CUDA warp intrinsic the table rewrites, renamed to its drop-in, in `text`
 * (scanned again: the asm rewrites have moved things, and their `#else` copies and the HIP
 * copies of macros hold calls too). Nothing else changes.
 */
function renameIntrinsics(text: string, file: string): string {
  const calls = warpIntrinsicCalls(scanSource(text, file));
  let out = "";
  let pos = 0;
  for (const c of calls) {
    if (c.intrinsic?.status !== "rewrite") continue;
    out += text.slice(pos, c.start) + c.intrinsic.to;
    pos = c.nameEnd;
  }
  return out + text.slice(pos);
}
