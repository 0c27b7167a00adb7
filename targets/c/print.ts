/**
 * @fileoverview PIR → C99 (`<stdint.h>`, `<stdbool.h>`), formatted with the WASM
 * clang-format (LLVM style).
 *
 * No undefined behaviour by construction:
 *   - values of ≤ 32 bits live in `uint32_t`, 33..64 bits in `uint64_t`, re-masked after every
 *     operation that can set bits above the width; all arithmetic is unsigned (this assumes
 *     `int` is at most 32 bits wide, so that `uint32_t` is not promoted to a signed type);
 *   - a shift is printed raw only where the PIR shows its count below the width on every path
 *     that evaluates it (pir.ts `shiftSafety` + `printPlan`: such shifts are never hoisted out of
 *     the `?:` arm or `if` that guards them); elsewhere it is guarded, `n < w ? x << n : 0`;
 *   - arithmetic right shift and signed compares are written on unsigned values (sign flip
 *     and xor), not with `>>` of negative numbers.
 * Unused parameters are marked `(void)x;` so the module builds with
 * `gcc -std=c99 -Wall -Wextra -pedantic -Wstrict-prototypes -Werror`.
 *
 * clang-format over a whole module of 10^4 routines takes tens of seconds, so the module is
 * formatted in pieces whose formatting does not depend on their context (see `formatPieces`):
 * each distinct statement and signature once, comments not at all. The result is byte for
 * byte what clang-format gives for the whole module; where a piece comes back in an
 * unexpected shape, the whole module goes through clang-format instead.
 *
 * The WebAssembly clang-format is loaded at the first format (`format` below), not with this
 * file: compiling it costs about a `node -e 0`, which only a command that prints C or HIP pays.
 */
import { createRequire } from "node:module";
import type { PExpr, PirFunction, PrintPlan, PStmt, PType, Scalar } from "../portable/pir.js";
import { checkIdent, namesRead, printExprs, printPlan, unparen, widthOf } from "../portable/pir.js";
import type { Routine } from "../portable/names.js";
import { CHUNK, nameShape, plainName } from "../portable/names.js";

export type { Routine } from "../portable/names.js";

export interface CPrintOptions {
  /** A comment placed at the top of the module. */
  banner?: string;
  /** `static` functions (default: external linkage). */
  static?: boolean;
  /** `static inline` functions (implies `static`): what `lowerModule` prints, a header. */
  inline?: boolean;
  /**
   * One preprocessor macro per routine (in order): each routine is printed inside
   * `#ifndef MACRO / #define MACRO / … / #endif`, and each helper inside
   * `PTX_LOWER_HELPER_<name>`, so that two headers that share a routine or a helper can be
   * included in one translation unit.
   */
  guards?: readonly string[];
  /**
   * The prefix of a helper's guard (default `PTX_LOWER_HELPER_`). The `hip` target gives its
   * device helpers a prefix of their own, so that a C header (host) and a HIP header (device)
   * each define their own `pl_ashr32` in one HIP translation unit (targets/hip/print.ts).
   */
  helperGuardPrefix?: string;
  /**
   * Format with clang-format (default true). `"every-piece"`: send every piece through
   * clang-format, the ones `presumedFormatted` passes too — what the test of that presumption
   * compares the default with (test/c_format.test.ts).
   */
  format?: boolean | "every-piece";
}

const container = (t: Scalar) => (t.t === "bool" ? "bool" : t.w <= 32 ? "uint32_t" : "uint64_t");
const cw = (t: Scalar) => (t.t === "bv" && t.w > 32 ? 64 : 32);

/** A C literal of type t. */
function lit(v: bigint, t: Scalar): string {
  if (t.t === "bool") return v ? "true" : "false";
  const s = v < 256n ? v.toString() : `0x${v.toString(16)}`;
  return cw(t) === 64 ? `UINT64_C(${s})` : `${s}u`;
}
const maskLit = (t: Scalar) => lit((1n << BigInt(widthOf(t))) - 1n, t);
/** Re-masks `s` (in t's container) to t's width where the container is wider. */
const fit = (s: string, t: Scalar) => (widthOf(t) === cw(t) ? `(${s})` : `((${s}) & ${maskLit(t)})`);

/** The clang-format binding's `format`, loaded once (at the first call). */
let clangFormat: ((content: string, filename: string, style: string) => string) | null = null;

/**
 * Formats C text with the WebAssembly clang-format (`@wasm-fmt/clang-format`), loading it at
 * the first call: synchronously, through `require` of the package's ES module (no top-level
 * await in it; Node ≥ 20.19 loads such a module with `require`), so that `printCModule` stays
 * synchronous.
 *
 * The module (2.5 MB of WebAssembly) is compiled with V8's baseline compiler alone
 * (`--liftoff-only` while it compiles, the flag restored after): otherwise V8 also compiles it
 * with its optimising compiler on background threads, and Node waits for those before the
 * process exits — measured here, 0.3–0.6 s more for `lower --target c` of one instruction
 * (`npm run bench -- --only startup`), with no output formatted any faster.
 */
function format(content: string, filename: string, style: string): string {
  if (!clangFormat) {
    const require = createRequire(import.meta.url);
    const v8 = require("node:v8") as typeof import("node:v8");
    v8.setFlagsFromString("--liftoff-only");
    try {
      clangFormat = (require("@wasm-fmt/clang-format") as typeof import("@wasm-fmt/clang-format")).format;
    } finally {
      v8.setFlagsFromString("--no-liftoff-only");
    }
  }
  return clangFormat(content, filename, style);
}

/** LLVM style, leaving the header comments' lines as written. */
export const CLANG_FORMAT_STYLE = JSON.stringify({ BasedOnStyle: "LLVM", ReflowComments: "Never" });

/** The static helpers a module may need, by name. */
const HELPERS: Record<string, string> = {
  pl_ashr32: `/* Arithmetic right shift of the w-bit value x by n < w, on unsigned values. */
static inline uint32_t pl_ashr32(uint32_t x, uint32_t n, uint32_t w) {
  const uint32_t mask = 0xffffffffu >> (32u - w);
  const uint32_t sign = 0u - ((x >> (w - 1u)) & 1u);
  return ((((x ^ sign) & mask) >> n) ^ sign) & mask;
}`,
  pl_ashr64: `/* Arithmetic right shift of the w-bit value x by n < w, on unsigned values. */
static inline uint64_t pl_ashr64(uint64_t x, uint64_t n, uint32_t w) {
  const uint64_t mask = UINT64_MAX >> (64u - w);
  const uint64_t sign = UINT64_C(0) - ((x >> (w - 1u)) & 1u);
  return ((((x ^ sign) & mask) >> n) ^ sign) & mask;
}`,
};

/** Prints one node given its operands' text; records helper use in `used`. */
function cNode(e: PExpr, kid: (k: PExpr) => string, plan: PrintPlan, used: Set<string>): string {
  const t = e.type;
  const w = widthOf(t);
  switch (e.op) {
    case "const":
      return lit(e.value, t);
    case "ref":
      return checkIdent(e.name);
    case "elem":
      return `${checkIdent(e.array)}[${unparen(kid(e.index))}]`;
    case "not":
      return t.t === "bool" ? `(!${kid(e.x)})` : fit(`~${kid(e.x)}`, t);
    case "neg":
      return fit(`${lit(0n, t)} - ${kid(e.x)}`, t);
    case "select":
      return `(${kid(e.c)} ? ${unparen(kid(e.x))} : ${unparen(kid(e.y))})`;
    case "zext":
      return cw(t) > cw(e.x.type) ? `((uint64_t)${kid(e.x)})` : kid(e.x);
    case "sext": {
      const sb = lit(1n << BigInt(widthOf(e.x.type) - 1), t);
      const x = cw(t) > cw(e.x.type) ? `(uint64_t)${kid(e.x)}` : kid(e.x);
      return fit(`(${x} ^ ${sb}) - ${sb}`, t);
    }
    case "extract": {
      const x = kid(e.x);
      const shifted = e.lo ? `(${x} >> ${e.lo}u)` : x;
      const narrowed = cw(t) < cw(e.x.type) ? `((uint32_t)${shifted})` : shifted;
      return w === cw(t) ? narrowed : `(${narrowed} & ${maskLit(t)})`;
    }
    case "concat": {
      const hi = cw(t) > cw(e.x.type) ? `((uint64_t)${kid(e.x)})` : kid(e.x);
      return fit(`(${hi} << ${widthOf(e.y.type)}u) | ${kid(e.y)}`, t);
    }
    case "eq":
    case "ne":
    case "ult":
    case "ule": {
      const op = { eq: "==", ne: "!=", ult: "<", ule: "<=" }[e.op];
      return `(${kid(e.x)} ${op} ${kid(e.y)})`;
    }
    case "slt":
    case "sle": {
      // Signed order = unsigned order with the sign bits flipped.
      const sbv = 1n << BigInt(widthOf(e.x.type) - 1);
      const flip = (k: PExpr) => (k.op === "const" ? lit(k.value ^ sbv, k.type) : `(${kid(k)} ^ ${lit(sbv, k.type)})`);
      return `(${flip(e.x)} ${e.op === "slt" ? "<" : "<="} ${flip(e.y)})`;
    }
    case "and":
    case "or":
    case "xor": {
      if (t.t === "bool") return `(${kid(e.x)} ${e.op === "and" ? "&&" : e.op === "or" ? "||" : "!="} ${kid(e.y)})`;
      return `(${kid(e.x)} ${e.op === "and" ? "&" : e.op === "or" ? "|" : "^"} ${kid(e.y)})`;
    }
    case "add":
    case "sub":
    case "mul":
      return fit(`${kid(e.x)} ${e.op === "add" ? "+" : e.op === "sub" ? "-" : "*"} ${kid(e.y)}`, t);
    case "shl":
    case "lshr":
    case "ashr": {
      const x = kid(e.x);
      const n = kid(e.y);
      let raw: string;
      if (e.op === "shl") raw = fit(`${x} << ${n}`, t);
      else if (e.op === "lshr") raw = `(${x} >> ${n})`;
      else {
        const h = `pl_ashr${cw(t)}`;
        used.add(h);
        raw = `${h}(${unparen(x)}, ${unparen(n)}, ${w}u)`;
      }
      return plan.safety.has(e.id) ? raw : `(${n} < ${lit(BigInt(w), t)} ? ${unparen(raw)} : ${lit(0n, t)})`;
    }
  }
}

/** The C declaration of a parameter or output array. */
function decl(name: string, t: PType, input: boolean): string {
  if (t.t === "arr") return `${input ? "const " : ""}${container(t.elem)} ${checkIdent(name)}[${t.n}]`;
  return `${container(t)} ${checkIdent(name)}`;
}

/**
 * One function, unformatted: its signature line (through `{`) and its top-level statements
 * (a hoisted temporary is a statement of its own; a loop or `if` is one, with its lines),
 * each indented for the body. Records helper use in `used`.
 */
interface CFunction {
  sig: string;
  stmts: string[];
}

/** Prints functions; records helper use in `used`. One printer serves a whole module. */
class FunctionPrinter {
  private plan: PrintPlan | null = null;
  private read = new Set<string>();
  private stmtsOut: string[] = [];
  private out: string[] = [];
  private tempNo = 0;
  private readonly fresh = () => `t${++this.tempNo}`;
  private readonly node = (e: PExpr, kid: (k: PExpr) => string) => cNode(e, kid, this.plan!, this.used);

  constructor(
    private readonly opts: CPrintOptions,
    readonly used: Set<string>,
  ) {}

  print(r: Routine): CFunction {
    const fn = r.fn;
    this.plan = printPlan(fn);
    this.tempNo = 0;
    this.stmtsOut = [];
    this.out = [];
    const scalars = fn.results.filter((x) => x.type.t !== "arr");
    if (scalars.length > 1) throw new Error(`${fn.name}: C routines return at most one scalar`);
    const ret = scalars[0] ? container(scalars[0].type as Scalar) : "void";
    const params = [
      ...fn.params.map((p) => decl(p.name, p.type, true)),
      ...fn.results.filter((x) => x.type.t === "arr").map((x) => decl(x.name, x.type, false)),
    ];
    this.read = namesRead(fn);
    for (const p of fn.params)
      if (!this.read.has(p.name)) {
        this.out.push(`(void)${p.name};`);
        this.flush();
      }
    this.stmts(fn, scalars[0]?.name, fn.body, "  ");
    this.flush();
    return { sig: `${this.opts.inline ? "static inline " : this.opts.static ? "static " : ""}${ret} ${checkIdent(r.name)}(${params.length ? params.join(", ") : "void"}) {`, stmts: this.stmtsOut };
  }

  /** Ends a top-level statement. */
  private flush(): void {
    if (this.out.length) this.stmtsOut.push(this.out.map((l) => (l.startsWith(" ") ? l : "  " + l)).join("\n"));
    this.out = [];
  }

  private exprs(roots: PExpr[], ind: string): string[] {
    const p = printExprs(roots, this.plan!, this.node, this.fresh);
    for (const t of p.temps) {
      this.out.push(`${ind}const ${container(t.node.type)} ${t.name} = ${unparen(t.text)};`);
      if (ind === "  ") this.flush();
    }
    return p.roots.map(unparen);
  }

  private stmts(fn: PirFunction, result: string | undefined, ss: PStmt[], ind: string): void {
    for (const st of ss) {
      switch (st.s) {
        case "let":
        case "var": {
          const [v] = this.exprs([st.value], ind);
          this.out.push(`${ind}${st.s === "let" ? "const " : ""}${container(st.value.type)} ${checkIdent(st.name)} = ${v};`);
          if (!this.read.has(st.name)) {
            if (ind === "  ") this.flush();
            this.out.push(`${ind}(void)${st.name};`);
          }
          break;
        }
        case "set": {
          const [v] = this.exprs([st.value], ind);
          this.out.push(`${ind}${checkIdent(st.name)} = ${v};`);
          break;
        }
        case "for":
          this.out.push(`${ind}for (uint32_t ${checkIdent(st.index)} = 0; ${st.index} < ${st.n}u; ${st.index}++) {`);
          this.stmts(fn, result, st.body, ind + "  ");
          this.out.push(`${ind}}`);
          break;
        case "if": {
          const [c] = this.exprs([st.c], ind);
          this.out.push(`${ind}if (${c}) {`);
          this.stmts(fn, result, st.then, ind + "  ");
          if (st.else.length) {
            this.out.push(`${ind}} else {`);
            this.stmts(fn, result, st.else, ind + "  ");
          }
          this.out.push(`${ind}}`);
          break;
        }
        case "store": {
          const [i, v] = this.exprs([st.index, st.value], ind);
          this.out.push(`${ind}${checkIdent(st.array)}[${i}] = ${v};`);
          break;
        }
        case "return": {
          const v = result !== undefined ? st.values[result] : undefined;
          if (!v) throw new Error(`${fn.name}: return without ${result ?? "a result"}`);
          const [x] = this.exprs([v], ind);
          this.out.push(`${ind}return ${x};`);
          break;
        }
      }
      if (ind === "  ") this.flush();
    }
  }
}

/** A function's text before formatting. */
function functionText(f: CFunction): string {
  return [f.sig, ...f.stmts, "}"].join("\n");
}

/** What `cComment` has to neutralise or split on (anything else is copied line by line). */
const NEEDS_CARE = /\*\/|\/\*|\?\?|[\x00-\x08\x0b-\x1f\x7f\\\u2028\u2029]/;

/**
 * `text` as one C block comment, neutralising what could end or nest it, trigraphs (`??/` is
 * a backslash) and backslash line splices. A star followed by a slash, or a slash followed by
 * a star, gets a backslash between the two (as the JS printer writes the former), so that a
 * file name with one in it (a directory `a*` holding `b.ptx`) still reads as itself; nothing
 * in a C comment treats that backslash specially.
 */
export function cComment(text: string): string {
  if (!NEEDS_CARE.test(text)) return "/*\n" + text.split("\n").map((l) => (l ? ` * ${l}` : " *")).join("\n") + "\n */";
  const lines = text
    .replace(/\*\//g, "*\\/")
    .replace(/\/\*/g, "/\\*")
    .replace(/\?\?/g, "? ?")
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, " ")
    .split(/\r?\n|\u2028|\u2029/)
    // A splice turned into slashes must not close the comment (`*\` → `*/`).
    .map((l) => l.replace(/\\+\s*$/, (m) => m.replace(/\\/g, "/")).replace(/\*\//g, "* /"));
  return ["/*", ...lines.map((l) => (l ? ` * ${l}` : " *")), " */"].join("\n");
}

/**
 * Prints a C99 translation unit with one function per routine, in the order given:
 * `uint32_t szext_clamp_s32__v_v(uint32_t a, uint32_t b);`,
 * `void match_all_sync_b32_dp__v_v(const uint32_t a[32], const uint32_t membermask[32],
 * uint32_t active, uint32_t d[32], bool p[32]);` (outputs as caller-provided arrays after the
 * inputs; a uniform membermask is `uint32_t membermask`).
 * @throws Error on a duplicate or non-identifier routine name.
 */
export function printCModule(routines: Routine[], opts: CPrintOptions = {}): string {
  const seen = new Set<string>();
  for (const r of routines) {
    if (seen.has(checkIdent(r.name))) throw new Error(`duplicate routine ${r.name}`);
    seen.add(r.name);
  }
  const used = new Set<string>();
  const printer = new FunctionPrinter(opts, used);
  const fns = routines.map((r) => printer.print(r));
  if (opts.guards && opts.guards.length !== routines.length) throw new Error(`printCModule: ${opts.guards.length} guards for ${routines.length} routines`);
  for (const g of opts.guards ?? []) checkIdent(g);
  const helpers = [...used].sort();
  const banner = opts.banner ? [cComment(opts.banner)] : [];
  const preamble = ["#include <stdbool.h>\n#include <stdint.h>", ...helpers.map((h) => HELPERS[h]!)];
  /** Part k of the module (0: includes, then the helpers, then the routines) in its guard. */
  const guarded = (parts: string[]): string[] => {
    if (!opts.guards) return parts;
    const macros = ["", ...helpers.map((h) => `${opts.helperGuardPrefix ?? "PTX_LOWER_HELPER_"}${h}`), ...opts.guards];
    return parts.map((p, k) => (macros[k] ? `#ifndef ${macros[k]}\n#define ${macros[k]}\n${p}\n#endif` : p));
  };
  const text = () => [...banner, ...guarded([...preamble, ...fns.map((f, i) => cComment(routines[i]!.header) + "\n" + functionText(f))])].join("\n\n") + "\n";
  if (opts.format === false) return text();
  const pieces = formatPieces(routines, fns, preamble, opts.format === "every-piece");
  return pieces ? [...banner, ...guarded(pieces)].join("\n\n") + "\n" : format(text(), "routines.c", CLANG_FORMAT_STYLE);
}

const SIG_TAIL = "\n  (void)0;\n  (void)0;\n}";
const SEPARATOR = "int pl_piece_;";
const STMTS_HEAD = "void pl_statements_(void) {";

/**
 * The formatted module after the banner (comments, which clang-format leaves as they are with
 * `ReflowComments: Never`): the preamble, then each routine's header and function. Assembled
 * from pieces formatted once each (a few clang-format runs, see `formatRuns`), or null if a
 * piece's formatted shape is not the one expected. clang-format formats each line of a function on its own
 * (LLVM style aligns nothing across statements and never puts a block on one line), so: each
 * distinct statement once (all in one function, separated by a declaration), and each
 * distinct signature once (in a function of two statements, so that nothing is put on its
 * line; by everything but the routine name's spelling, see portable/names.ts `plainName`). The one
 * thing that joins lines is `AllowShortFunctionsOnASingleLine: All`: a function of one
 * statement goes on one line when the signature and the statement, each on one line, fit
 * together in the column limit (`LineJoiner::tryMergeSimpleBlock`, `nextTwoLinesFitInto`).
 */
function formatPieces(routines: Routine[], fns: CFunction[], preamble: string[], everyPiece: boolean): string[] | null {
  const topIds = new Map<string, number>();
  const top: string[] = [];
  const stmtIds = new Map<string, number>();
  const stmts: string[] = [];
  const piece = (ids: Map<string, number>, list: string[], key: string, text: string): number => {
    let id = ids.get(key);
    if (id === undefined) {
      id = list.length;
      ids.set(key, id);
      list.push(text);
    }
    return id;
  };
  /** `text` with the routine name replaced by its shape, where the spelling cannot matter. */
  const keyOf = (text: string, name: string): string => {
    const at = plainName(name) ? nameAt(text, name) : -1;
    return at < 0 ? "=" + text : text.slice(0, at) + "\u0000" + nameShape(name) + "\u0000" + text.slice(at + name.length);
  };
  const fixed = preamble.map((p) => piece(topIds, top, `p${p}`, p));
  const plan = fns.map((f, i) => ({
    sig: piece(topIds, top, `g${keyOf(f.sig, routines[i]!.name)}`, f.sig + SIG_TAIL),
    stmts: f.stmts.map((s) => piece(stmtIds, stmts, s, s)),
  }));
  const formatted = formatSome(everyPiece, top, (run) => run.join(`\n${SEPARATOR}\n`), (out, n) => {
    const f = out.split(`\n${SEPARATOR}\n`);
    return f.length === n ? f : null;
  });
  // The statements: the lines between separators in a function, at body indentation.
  const stmtText = formatSome(
    everyPiece,
    stmts,
    (run) => `${STMTS_HEAD}\n${run.map((s) => `${s}\n  ${SEPARATOR}\n`).join("")}}`,
    (out, n) => {
      if (!out.startsWith(STMTS_HEAD + "\n") || !out.endsWith(`\n  ${SEPARATOR}\n}`)) return null;
      const body = out.slice(STMTS_HEAD.length + 1, out.length - SEPARATOR.length - 5).split(`\n  ${SEPARATOR}\n`);
      return body.length === n && body.every((b) => b.split("\n").every((l) => l.startsWith("  "))) ? body : null;
    },
  );
  if (!formatted || !stmtText) return null;
  // Signatures: cut the two statements that follow.
  const text: (string | null)[] = formatted.map((f, id) => {
    if (!top[id]!.endsWith(SIG_TAIL)) return f;
    if (!f.endsWith(" {" + SIG_TAIL)) return null;
    const sig = f.slice(0, f.length - SIG_TAIL.length);
    return sig.includes("{\n") ? null : sig;
  });
  if (text.some((t) => t === null)) return null;
  const parts: string[] = fixed.map((id) => text[id]!);
  for (let i = 0; i < fns.length; i++) {
    const p = plan[i]!;
    const name = routines[i]!.name;
    let sig = text[p.sig]!;
    const own = routineNameIn(top[p.sig]!);
    if (own !== name) {
      const at = nameAt(sig, own);
      if (at < 0) return null;
      sig = sig.slice(0, at) + name + sig.slice(at + own.length);
    }
    let fnText: string;
    const one = p.stmts.length === 1 ? stmtText[p.stmts[0]!]! : null;
    if (one !== null && !one.includes("\n") && !sig.includes("\n") && sig.length + one.length + 1 <= COLUMN_LIMIT) {
      fnText = `${sig} ${one.slice(2)} }`; // `sig {` + ` ` + statement + ` }`: sig.length + 1 + (one.length - 2) + 2
    } else fnText = [sig, ...p.stmts.map((id) => stmtText[id]!), "}"].join("\n");
    parts.push(cComment(routines[i]!.header) + "\n" + fnText);
  }
  return parts;
}

/**
 * True where clang-format (LLVM style, `CLANG_FORMAT_STYLE`) gives `piece` back as it is, as
 * this printer prints: every line within the column limit, indented by a multiple of two
 * spaces and no tab, no blank run of two inside a line, no trailing blank, and no comment but a
 * whole-line `/* … *\/` (comments are not reflowed). Such pieces are not sent to clang-format,
 * so that a module whose pieces all pass (one routine, most modules) is printed without
 * loading the formatter (2.5 MB of WebAssembly: about one `node -e 0` of start-up, issue 37).
 * A presumption, not a proof for any text: it holds for the text this printer makes, and
 * test/c_format.test.ts checks it there — every routine of every family, form, operand
 * kinds, profile and portable rule printed with and without `format: "every-piece"` must be
 * the same text.
 */
function presumedFormatted(piece: string): boolean {
  for (const line of piece.split("\n")) {
    if (line.length > COLUMN_LIMIT || line.includes("\t") || line.endsWith(" ")) return false;
    const body = line.trimStart();
    if ((line.length - body.length) % 2 !== 0 || body.includes("  ")) return false;
    if (/\/[/*]|\*\//.test(body) && !(body.startsWith("/* ") && body.endsWith(" */") && body.indexOf("*/") === body.length - 2)) return false;
  }
  return true;
}

/**
 * `formatRuns` over the pieces that `presumedFormatted` does not pass (every piece where
 * `everyPiece`); the others as they are. @returns the pieces in order, or null as formatRuns.
 */
function formatSome(everyPiece: boolean, pieces: string[], wrap: (run: string[]) => string, unwrap: (out: string, n: number) => string[] | null): string[] | null {
  const todo = everyPiece ? pieces.map((_, i) => i) : pieces.flatMap((p, i) => (presumedFormatted(p) ? [] : [i]));
  if (todo.length === 0) return pieces.slice();
  const f = formatRuns(todo.map((i) => pieces[i]!), wrap, unwrap);
  if (!f) return null;
  const out = pieces.slice();
  todo.forEach((i, k) => (out[i] = f[k]!));
  return out;
}

/**
 * `pieces` formatted by clang-format in runs of about CHUNK characters (the formatter's memory
 * grows with its input and is never returned): `wrap` makes one input of a run, `unwrap` cuts
 * its output (without the final newline) back into pieces, or says null.
 */
function formatRuns(pieces: string[], wrap: (run: string[]) => string, unwrap: (out: string, n: number) => string[] | null): string[] | null {
  const out: string[] = [];
  for (let i = 0; i < pieces.length; ) {
    let j = i;
    for (let size = 0; j < pieces.length && size < CHUNK; j++) size += pieces[j]!.length + 1;
    const f = format(wrap(pieces.slice(i, j)) + "\n", "routines.c", CLANG_FORMAT_STYLE);
    const cut = f.endsWith("\n") ? unwrap(f.slice(0, -1), j - i) : null;
    if (!cut) return null;
    for (const x of cut) out.push(x);
    i = j;
  }
  return out;
}

/** LLVM style's ColumnLimit. */
const COLUMN_LIMIT = 80;

/** Where `name(` first appears after a blank (or at the start) in `text`; -1 if nowhere. */
function nameAt(text: string, name: string): number {
  for (let at = text.indexOf(name + "("); at >= 0; at = text.indexOf(name + "(", at + 1)) {
    if (at === 0 || text[at - 1] === " " || text[at - 1] === "\n") return at;
  }
  return -1;
}

/** The name of the function a signature or whole-function piece defines (the identifier before the first `(`). */
function routineNameIn(src: string): string {
  const m = /([A-Za-z_][A-Za-z0-9_]*)\(/.exec(src);
  return m ? m[1]! : "";
}
