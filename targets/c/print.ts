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
 * `gcc -std=c99 -Wall -Wextra -pedantic -Werror`.
 */
import { format } from "@wasm-fmt/clang-format";
import type { PExpr, PirFunction, PrintPlan, PStmt, PType, Scalar } from "../portable/pir.js";
import { checkIdent, namesRead, printExprs, unparen, widthOf } from "../portable/pir.js";
import type { Routine } from "../js/print.js";
import { nameShape, planOf, plainName } from "../js/print.js";

export type { Routine } from "../js/print.js";

export interface CPrintOptions {
  /** A comment placed at the top of the module. */
  banner?: string;
  /** `static` functions (default: external linkage). */
  static?: boolean;
  /** Format with clang-format (default true). */
  format?: boolean;
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

/** Prints one function; records helper use in `used`. */
function printFunction(r: Routine, opts: CPrintOptions, used: Set<string>): CFunction {
  const fn = r.fn;
  const plan = planOf(fn);
  const scalars = fn.results.filter((x) => x.type.t !== "arr");
  if (scalars.length > 1) throw new Error(`${fn.name}: C routines return at most one scalar`);
  const ret = scalars[0] ? container(scalars[0].type as Scalar) : "void";
  const params = [
    ...fn.params.map((p) => decl(p.name, p.type, true)),
    ...fn.results.filter((x) => x.type.t === "arr").map((x) => decl(x.name, x.type, false)),
  ];
  const stmtsOut: string[] = [];
  let out: string[] = [];
  /** Ends a top-level statement. */
  const flush = () => {
    if (out.length) stmtsOut.push(out.map((l) => (l.startsWith(" ") ? l : "  " + l)).join("\n"));
    out = [];
  };
  const read = namesRead(fn);
  for (const p of fn.params)
    if (!read.has(p.name)) {
      out.push(`(void)${p.name};`);
      flush();
    }
  let tempNo = 0;
  const fresh = () => `t${++tempNo}`;
  const fmt = (e: PExpr, kid: (k: PExpr) => string) => cNode(e, kid, plan, used);
  const exprs = (roots: PExpr[], ind: string) => {
    const p = printExprs(roots, plan, fmt, fresh);
    for (const t of p.temps) {
      out.push(`${ind}const ${container(t.node.type)} ${t.name} = ${unparen(t.text)};`);
      if (ind === "  ") flush();
    }
    return p.roots.map(unparen);
  };
  const stmts = (ss: PStmt[], ind: string): void => {
    for (const st of ss) {
      switch (st.s) {
        case "let":
        case "var": {
          const [v] = exprs([st.value], ind);
          out.push(`${ind}${st.s === "let" ? "const " : ""}${container(st.value.type)} ${checkIdent(st.name)} = ${v};`);
          if (!read.has(st.name)) {
            if (ind === "  ") flush();
            out.push(`${ind}(void)${st.name};`);
          }
          break;
        }
        case "set": {
          const [v] = exprs([st.value], ind);
          out.push(`${ind}${checkIdent(st.name)} = ${v};`);
          break;
        }
        case "for":
          out.push(`${ind}for (uint32_t ${checkIdent(st.index)} = 0; ${st.index} < ${st.n}u; ${st.index}++) {`);
          stmts(st.body, ind + "  ");
          out.push(`${ind}}`);
          break;
        case "if": {
          const [c] = exprs([st.c], ind);
          out.push(`${ind}if (${c}) {`);
          stmts(st.then, ind + "  ");
          if (st.else.length) {
            out.push(`${ind}} else {`);
            stmts(st.else, ind + "  ");
          }
          out.push(`${ind}}`);
          break;
        }
        case "store": {
          const [i, v] = exprs([st.index, st.value], ind);
          out.push(`${ind}${checkIdent(st.array)}[${i}] = ${v};`);
          break;
        }
        case "return": {
          const v = scalars[0] ? st.values[scalars[0].name] : undefined;
          if (!v) throw new Error(`${fn.name}: return without ${scalars[0]?.name ?? "a result"}`);
          const [x] = exprs([v], ind);
          out.push(`${ind}return ${x};`);
          break;
        }
      }
      if (ind === "  ") flush();
    }
  };
  stmts(fn.body, "  ");
  flush();
  return { sig: `${opts.static ? "static " : ""}${ret} ${checkIdent(r.name)}(${params.join(", ")}) {`, stmts: stmtsOut };
}

/** A function's text before formatting. */
function functionText(f: CFunction): string {
  return [f.sig, ...f.stmts, "}"].join("\n");
}

/**
 * `text` as one C block comment, neutralising what could end or nest it: `*\/`, `/*`,
 * trigraphs (`??/` is a backslash) and backslash line splices.
 */
export function cComment(text: string): string {
  const lines = text
    .replace(/\*\//g, "* /")
    .replace(/\/\*/g, "/ *")
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
  const fns = routines.map((r) => printFunction(r, opts, used));
  const banner = opts.banner ? [cComment(opts.banner)] : [];
  const preamble = ["#include <stdbool.h>\n#include <stdint.h>", ...[...used].sort().map((h) => HELPERS[h]!)];
  const text = () =>
    [...banner, ...preamble, ...fns.map((f, i) => cComment(routines[i]!.header) + "\n" + functionText(f))].join("\n\n") + "\n";
  if (opts.format === false) return text();
  const pieces = formatPieces(routines, fns, preamble);
  return pieces ? [...banner, ...pieces].join("\n\n") + "\n" : format(text(), "routines.c", CLANG_FORMAT_STYLE);
}

const STMT_HEAD = "void pl_stmt_(void) {";
const STMT_TAIL = "  (void)0;\n}";
const SIG_TAIL = "\n  (void)0;\n  (void)0;\n}";
const SEPARATOR = "int pl_piece_;";

/**
 * The formatted module after the banner (comments, which clang-format leaves as they are with
 * `ReflowComments: Never`): the preamble, then each routine's header and function. Assembled
 * from pieces formatted once each by one clang-format run, or null if a piece's formatted
 * shape is not the one expected. clang-format formats each statement of a function body on
 * its own (LLVM style aligns nothing across statements and never puts a block on one line),
 * and the signature line on its own, so: each distinct statement once (in a function of two
 * statements, so that it is not put on the signature's line), each distinct signature once (by
 * everything but the routine name's spelling, see js/print.ts `plainName`), and a function of
 * one statement whole, as clang-format may put it on one line.
 */
function formatPieces(routines: Routine[], fns: CFunction[], preamble: string[]): string[] | null {
  const ids = new Map<string, number>();
  const batch: string[] = [];
  const piece = (key: string, text: string): number => {
    let id = ids.get(key);
    if (id === undefined) {
      id = batch.length;
      ids.set(key, id);
      batch.push(text);
    }
    return id;
  };
  /** `text` with the routine name replaced by its shape, where the spelling cannot matter. */
  const keyOf = (text: string, name: string): string => {
    const at = plainName(name) ? nameAt(text, name) : -1;
    return at < 0 ? "=" + text : text.slice(0, at) + "\u0000" + nameShape(name) + "\u0000" + text.slice(at + name.length);
  };
  const fixed = preamble.map((p) => piece(`p${p}`, p));
  const plan = fns.map((f, i) => {
    const name = routines[i]!.name;
    if (f.stmts.length === 1 && !f.stmts[0]!.includes("\n")) {
      const t = functionText(f);
      return { whole: piece(`w${keyOf(t, name)}`, t), sig: -1, stmts: [] as number[] };
    }
    const sig = piece(`g${keyOf(f.sig, name)}`, f.sig + SIG_TAIL);
    return { whole: -1, sig, stmts: f.stmts.map((s) => piece(`s${s}`, `${STMT_HEAD}\n${s}\n${STMT_TAIL}`)) };
  });
  const out = format(batch.join(`\n${SEPARATOR}\n`) + "\n", "routines.c", CLANG_FORMAT_STYLE);
  if (!out.endsWith("\n")) return null;
  const formatted = out.slice(0, -1).split(`\n${SEPARATOR}\n`);
  if (formatted.length !== batch.length) return null;
  // Check the shape of each piece, and cut the wrappers.
  const text: (string | null)[] = formatted.map((f, id) => {
    const src = batch[id]!;
    if (src.startsWith(STMT_HEAD + "\n")) {
      if (!f.startsWith(STMT_HEAD + "\n") || !f.endsWith("\n" + STMT_TAIL)) return null;
      const body = f.slice(STMT_HEAD.length + 1, f.length - STMT_TAIL.length - 1);
      return body.split("\n").every((l) => l.startsWith("  ")) ? body : null;
    }
    if (src.endsWith(SIG_TAIL)) {
      if (!f.endsWith(" {" + SIG_TAIL)) return null;
      const sig = f.slice(0, f.length - SIG_TAIL.length);
      return sig.includes("{\n") ? null : sig;
    }
    return f;
  });
  if (text.some((t) => t === null)) return null;
  const parts: string[] = fixed.map((id) => text[id]!);
  for (let i = 0; i < fns.length; i++) {
    const p = plan[i]!;
    const name = routines[i]!.name;
    /** Piece `id` with its routine's name replaced by `name`. */
    const named = (id: number): string | null => {
      const t = text[id]!;
      const own = routineNameIn(batch[id]!);
      if (own === name) return t;
      const at = nameAt(t, own);
      return at < 0 ? null : t.slice(0, at) + name + t.slice(at + own.length);
    };
    let fnText: string | null;
    if (p.whole >= 0) fnText = named(p.whole);
    else {
      const sig = named(p.sig);
      fnText = sig === null ? null : [sig, ...p.stmts.map((id) => text[id]!), "}"].join("\n");
    }
    if (fnText === null) return null;
    parts.push(cComment(routines[i]!.header) + "\n" + fnText);
  }
  return parts;
}

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
