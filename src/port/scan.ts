/**
 * @fileoverview The scanner of `ptx-lower port`: finds every GNU extended-asm statement in C,
 * C++, CUDA, HIP or OpenCL text, with precise locations, without a preprocessor.
 *
 * What it reads (C11 §5.1.1.2 phases 1–3 as far as asm needs them; GCC manual "Extended Asm"):
 * - line splices (`\` newline) anywhere, undone by an offset map so that every location is
 *   the original file's (1-based line and column; a tab is one column, as in PTX diagnostics);
 * - `//` and `/* *\/` comments, string literals with their prefixes (`L u U u8`), raw strings
 *   (`R"delim(…)delim"`), character literals (and C++14 digit separators `1'000`, which are not
 *   character literals) — an `asm(` inside any of them is not code;
 * - preprocessor directives: a `#` first on a logical line runs to the end of the logical line;
 *   a `#define` body is scanned for asm statements like code (they are marked with their
 *   macro), every other directive is skipped; a group the preprocessor surely skips — the
 *   branch of `#if 0` / `#elif 0` (an integer literal, parenthesized or not), the `#else` /
 *   `#elif` branches after an `#if 1`, and everything nested in them (C11 §6.10.1) — is no
 *   code: its tokens and `#define`s are dropped, so nothing in it is found; every conditional
 *   directive and every `#define`/`#undef` (those in dropped groups too, marked) is recorded
 *   in order in `Scan.directives`, for src/port/cond.ts to evaluate;
 * - an asm statement: `asm`, `__asm` or `__asm__`, then any of `volatile __volatile
 *   __volatile__ inline __inline __inline__ goto` in any order, then `( template [: outputs
 *   [: inputs [: clobbers [: labels]]]] )` and an optional `;`. The template is one or more
 *   adjacent string literals (across lines); `::` counts as two colons. An operand is
 *   `[name] "constraint" (expression)`. A declaration's assembler name (`int x asm("y");`,
 *   an `asm` after a declarator) is no statement and is not returned.
 * - a malformed statement (GCC would reject it: an unbalanced parenthesis, an unterminated
 *   string or character literal, a template that is not string literals followed by `:` or
 *   `)`, an operand that is not `[name] "constraint" (expression)`, a clobber that is not a
 *   string, more than four `:`, no `(` after `__asm__` or after qualifiers) is returned with
 *   `malformed` set: where and why, so that the caller reports it and leaves it alone.
 *
 * Nothing here knows PTX; src/port/bind.ts reads the templates.
 */
import type { Loc } from "../ir/ir.js";

/** A token of the spliced text. Offsets are into `Source.text` (the spliced text). */
export interface Token {
  kind: "ident" | "number" | "string" | "char" | "punct";
  start: number;
  end: number;
  text: string;
  /** Strings only: the decoded value, and per character of it the spliced offset it came from. */
  value?: string;
  /** Strings and character literals: set when the closing quote is missing (the literal ends at its line's end). */
  unterminated?: boolean;
  valueAt?: number[];
  /** The `#define` this token is in the body of (index into `Scan.macros`), or -1. */
  macro: number;
}

/** The text with line splices removed, and the way back to the original offsets. */
export class Source {
  /** Spliced text. */
  readonly text: string;
  private readonly orig: Int32Array;
  private readonly lineStarts: number[] = [0];
  constructor(
    readonly original: string,
    readonly file: string,
  ) {
    const orig = new Int32Array(original.length + 1);
    let out = "";
    let n = 0;
    let chunk = 0;
    for (let i = 0; i < original.length; i++) {
      if (original[i] === "\\") {
        let j = i + 1;
        if (original[j] === "\r" && original[j + 1] === "\n") j++;
        if (original[j] === "\n") {
          out += original.slice(chunk, i);
          i = j;
          chunk = j + 1;
          continue;
        }
      }
      orig[n++] = i;
    }
    out += original.slice(chunk);
    orig[n] = original.length;
    this.text = out;
    this.orig = orig.subarray(0, n + 1);
    for (let i = 0; i < original.length; i++) if (original.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }
  /** Original offset of spliced offset `i`. */
  origOf(i: number): number {
    return this.orig[Math.min(Math.max(i, 0), this.orig.length - 1)]!;
  }
  /** Location of an original offset. */
  locOfOrig(off: number): Loc {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= off) lo = mid;
      else hi = mid - 1;
    }
    return { file: this.file, line: lo + 1, col: off - this.lineStarts[lo]! + 1 };
  }
  /** Location of a spliced offset. */
  loc(i: number): Loc {
    return this.locOfOrig(this.origOf(i));
  }
}

/** One operand of an asm statement. */
export interface AsmOperand {
  /** `%[name]`, or null. */
  name: string | null;
  /** The constraint as written (`=r`, `+l`, `n`, `0`). */
  constraint: string;
  /** The expression between the parentheses, as written in the original text (line splices included). */
  expr: string;
  /** Tokens of the expression. */
  exprTokens: Token[];
  /** Set when the constraint is not only string literals (`__LDG_PTR(p)`, a macro name, `#r` in a #define body): the first name in it. */
  constraintNotLiteral: Token | null;
  /** The constraint's tokens: string literals, names, and `#` before a stringized macro parameter. */
  constraintTokens: Token[];
  loc: Loc;
}

/** One asm statement. */
export interface AsmStatement {
  /** `asm`, `__asm` or `__asm__`. */
  keyword: string;
  qualifiers: string[];
  /** Offsets (original text) of the statement: keyword to `)` — or to `;` when one follows outside a macro. */
  start: number;
  end: number;
  loc: Loc;
  /** The template tokens (strings, or whatever was written there). */
  templateTokens: Token[];
  /** Set when the template is not only string literals: the first token that is not one. */
  templateNotLiteral: Token | null;
  /** The decoded template and, per character, the original offset it came from. */
  template: string;
  templateAt: number[];
  /** No colon at all: basic asm (`%` is not special). */
  basic: boolean;
  outputs: AsmOperand[];
  inputs: AsmOperand[];
  clobbers: string[];
  /** asm goto labels (present means `goto`). */
  labels: string[];
  /** The `#define` it is in the body of (index into `Scan.macros`), or -1. */
  macro: number;
  /**
   * A statement of its own: after `;`, `{`, `}`, a label's `:`, a condition's `)`, `else`
   * or `do` (or first), and ended by `;`. An asm inside an expression or a macro's arguments
   * is not, and cannot take a `#if` around it.
   */
  standalone: boolean;
  /**
   * Set when the statement is malformed (GCC would reject it): where (the offending token)
   * and why. The other fields then hold what could be read and must not be relied on.
   */
  malformed: { loc: Loc; message: string } | null;
}

/** A `#define`. */
export interface MacroDef {
  name: string;
  /** Null for an object-like macro. */
  params: string[] | null;
  /** Original offsets of the whole directive: `#` to the end of its logical line (the newline excluded). */
  start: number;
  end: number;
  loc: Loc;
  /** Index of the first token after the directive (uses are looked for from there on). */
  after: number;
}

/** The directives `Scan.directives` records: the conditionals (C11 §6.10.1, C23's `#elifdef`/`#elifndef`) and macro (un)definition (§6.10.3). */
export type DirectiveKind = "if" | "ifdef" | "ifndef" | "elif" | "elifdef" | "elifndef" | "else" | "endif" | "define" | "undef";

/**
 * One conditional or macro directive, as written (src/port/cond.ts evaluates them).
 * Recorded for every such directive of the file, in order, those inside groups the
 * scanner drops included (`skipped`).
 */
export interface Directive {
  kind: DirectiveKind;
  /** Original offsets of the whole directive: `#` to the end of its logical line (the newline excluded; a trailing comment included). */
  start: number;
  end: number;
  loc: Loc;
  /**
   * The tokens after the directive's name (the condition of an `#if`/`#elif`, the name of an
   * `#ifdef`/`#undef`, the name, parameters and body of a `#define`); comments are not tokens.
   * Offsets are spliced ones, `macro` is -1.
   */
  args: Token[];
  /** Index into `Scan.tokens` of the first token after the directive (for a `#define`: after its body's tokens, = `MacroDef.after`). */
  at: number;
  /** A `#define` the scanner kept: its index into `Scan.macros`; otherwise -1. */
  macro: number;
  /** Set when the directive sits in a group the scanner surely skips and drops (`#if 0` …): no compile reads it. */
  skipped: boolean;
}

/** What the scanner found. */
export interface Scan {
  source: Source;
  tokens: Token[];
  statements: AsmStatement[];
  macros: MacroDef[];
  /** `#undef NAME` positions (token index after it), per name. */
  undefs: Map<string, number[]>;
  /** Every conditional directive and every `#define`/`#undef`, in file order (see `Directive`). */
  directives: Directive[];
  /** Original offset of the first line that holds a token or a directive (where an include can go). */
  firstCodeLine: number;
  /** Original offset of that first token or directive. */
  firstCode: number;
}

const isIdStart = (c: string) => /[A-Za-z_$]/.test(c) || c > "\x7f";
const isIdChar = (c: string) => /[A-Za-z0-9_$]/.test(c) || c > "\x7f";
const STRING_PREFIX = new Set(["L", "u", "U", "u8"]);
const RAW_PREFIX = new Set(["R", "LR", "uR", "UR", "u8R"]);
const ASM_KEYWORDS = new Set(["asm", "__asm", "__asm__"]);
const ASM_QUALIFIERS = new Set(["volatile", "__volatile", "__volatile__", "inline", "__inline", "__inline__", "goto"]);
/** Keywords after which a `(…)` closes a condition, so what follows is a statement. */
const CONDITION_KEYWORDS = new Set(["if", "while", "for", "switch"]);
/** The directives `Scan.directives` records. */
const RECORDED_DIRECTIVES: ReadonlySet<string> = new Set<DirectiveKind>(["if", "ifdef", "ifndef", "elif", "elifdef", "elifndef", "else", "endif", "define", "undef"]);
/** Keywords an asm statement may follow directly. */
const STATEMENT_KEYWORDS = new Set(["else", "do", "return", "case", "default"]);

/** Decodes the escapes of a C string literal body; per char, the spliced offset of its first source char. */
function decode(text: string, base: number): { value: string; at: number[] } {
  let value = "";
  const at: number[] = [];
  const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", f: "\f", v: "\v", "\\": "\\", '"': '"', "'": "'", "?": "?", e: "\x1b" };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== "\\" || i + 1 >= text.length) {
      value += c;
      at.push(base + i);
      continue;
    }
    const e = text[i + 1]!;
    const from = base + i;
    if (e in simple) {
      value += simple[e];
      i++;
    } else if (/[0-7]/.test(e)) {
      let j = i + 1;
      while (j < text.length && j < i + 4 && /[0-7]/.test(text[j]!)) j++;
      value += String.fromCharCode(Number.parseInt(text.slice(i + 1, j), 8));
      i = j - 1;
    } else if (e === "x" || e === "u" || e === "U") {
      let j = i + 2;
      const max = e === "x" ? Infinity : e === "u" ? 4 : 8;
      while (j < text.length && j - (i + 2) < max && /[0-9a-fA-F]/.test(text[j]!)) j++;
      value += String.fromCodePoint(Number.parseInt(text.slice(i + 2, j) || "0", 16));
      i = j - 1;
    } else {
      value += e;
      i++;
    }
    at.push(from);
  }
  return { value, at };
}

/**
 * Tokenizes `src.text` (spliced). Directives are handled by the caller through `onDirective`.
 * Never throws: an unterminated literal or comment ends at the end of its line (or file).
 */
function tokenize(src: Source): { tokens: Token[]; macros: MacroDef[]; undefs: Map<string, number[]>; directives: Directive[]; firstCode: number } {
  const t = src.text;
  const tokens: Token[] = [];
  const macros: MacroDef[] = [];
  const undefs = new Map<string, number[]>();
  const directives: Directive[] = [];
  let lineStart = true;
  let firstCode = -1;
  let macro = -1;
  /** End (spliced offset of the newline) of the directive being read, or -1. */
  let directiveEnd = -1;
  let directiveTokens: Token[] | null = null;
  let directiveStart = 0;
  /**
   * The open conditional groups (`#if` … `#endif`), innermost last: whether the group's
   * branch being read is surely skipped (`dead`, its enclosing branch included), and whether
   * an earlier branch of the group is surely taken (`taken`: the later ones are skipped).
   */
  const conds: { outerDead: boolean; taken: boolean; dead: boolean }[] = [];
  const dead = () => conds.length > 0 && conds[conds.length - 1]!.dead;
  const finishDirective = () => {
    const toks = directiveTokens!;
    const name = toks[0]?.kind === "ident" ? toks[0].text : "";
    const top = conds[conds.length - 1];
    // Recorded as written, before the groups change: a group's own directives are skipped when what encloses the group is.
    const record: Directive | null = RECORDED_DIRECTIVES.has(name)
      ? {
          kind: name as DirectiveKind,
          start: src.origOf(directiveStart),
          end: src.origOf(directiveEnd),
          loc: src.loc(directiveStart),
          args: toks.slice(1).map((x) => ({ ...x, macro: -1 })),
          at: 0,
          macro: -1,
          skipped: top !== undefined && (name === "if" || name === "ifdef" || name === "ifndef" || name === "define" || name === "undef" ? top.dead : top.outerDead),
        }
      : null;
    if (name === "if" || name === "ifdef" || name === "ifndef") {
      const known = name === "if" ? literalCondition(toks.slice(1)) : null;
      const outerDead = dead();
      conds.push({ outerDead, taken: known === true, dead: outerDead || known === false });
    } else if (top && (name === "elif" || name === "elifdef" || name === "elifndef")) {
      const known = name === "elif" ? literalCondition(toks.slice(1)) : null;
      top.dead = top.outerDead || top.taken || known === false;
      top.taken ||= known === true;
    } else if (top && name === "else") top.dead = top.outerDead || top.taken;
    else if (top && name === "endif") conds.pop();
    else if (dead()) {
      // A #define or #undef in a skipped group does not happen.
    } else if (name === "define" && toks[1]?.kind === "ident") {
      const nameTok = toks[1];
      let params: string[] | null = null;
      let bodyFrom = 2;
      if (toks[2]?.text === "(" && toks[2].start === nameTok.end) {
        params = [];
        let k = 3;
        for (; k < toks.length && toks[k]!.text !== ")"; k++) if (toks[k]!.kind === "ident") params.push(toks[k]!.text);
        // `...` is three punct tokens; __VA_ARGS__ stands for it.
        if (toks.slice(3, k).some((x) => x.text === ".")) params.push("__VA_ARGS__");
        bodyFrom = k + 1;
      }
      const idx = macros.length;
      macros.push({ name: nameTok.text, params, start: src.origOf(directiveStart), end: src.origOf(directiveEnd), loc: src.loc(directiveStart), after: 0 });
      for (let k = bodyFrom; k < toks.length; k++) tokens.push({ ...toks[k]!, macro: idx });
      macros[idx]!.after = tokens.length;
      if (record) record.macro = idx;
    } else if (name === "undef" && toks[1]?.kind === "ident") {
      const list = undefs.get(toks[1].text) ?? [];
      list.push(tokens.length);
      undefs.set(toks[1].text, list);
    }
    if (record) {
      record.at = tokens.length;
      directives.push(record);
    }
    directiveTokens = null;
    directiveEnd = -1;
    macro = -1;
  };
  let i = 0;
  const push = (tok: Omit<Token, "macro">) => {
    if (firstCode < 0) firstCode = tok.start;
    if (directiveTokens) directiveTokens.push({ ...tok, macro });
    else if (!dead()) tokens.push({ ...tok, macro: -1 });
  };
  while (i < t.length) {
    const c = t[i]!;
    if (c === "\n") {
      if (directiveTokens) {
        directiveEnd = i;
        finishDirective();
      }
      lineStart = true;
      i++;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r" || c === "\f" || c === "\v" || (c === "\ufeff" && i === 0)) {
      i++;
      continue;
    }
    if (c === "/" && t[i + 1] === "/") {
      while (i < t.length && t[i] !== "\n") i++;
      continue;
    }
    if (c === "/" && t[i + 1] === "*") {
      const e = t.indexOf("*/", i + 2);
      const stop = e < 0 ? t.length : e + 2;
      // A block comment spanning lines inside a directive continues the directive.
      i = stop;
      continue;
    }
    if (c === "#" && lineStart && !directiveTokens) {
      if (firstCode < 0) firstCode = i;
      directiveTokens = [];
      directiveStart = i;
      lineStart = false;
      i++;
      continue;
    }
    lineStart = false;
    const start = i;
    if (isIdStart(c)) {
      while (i < t.length && isIdChar(t[i]!)) i++;
      const word = t.slice(start, i);
      // An `#include <…>` header name is not tokens of code.
      if (directiveTokens && directiveTokens.length === 1 && directiveTokens[0]!.text === "include") {
        push({ kind: "ident", start, end: i, text: word });
        while (i < t.length && t[i] !== "\n") i++;
        continue;
      }
      if (t[i] === '"' && RAW_PREFIX.has(word)) {
        const open = t.indexOf("(", i + 1);
        const delim = open < 0 ? null : t.slice(i + 1, open);
        if (delim !== null && /^[^\s()\\]{0,16}$/.test(delim)) {
          const close = t.indexOf(`)${delim}"`, open + 1);
          const stop = close < 0 ? t.length : close + delim.length + 2;
          const body = t.slice(open + 1, close < 0 ? t.length : close);
          const at: number[] = [];
          for (let k = 0; k < body.length; k++) at.push(open + 1 + k);
          push({ kind: "string", start, end: stop, text: t.slice(start, stop), value: body, valueAt: at });
          i = stop;
          continue;
        }
      }
      if ((t[i] === '"' || t[i] === "'") && STRING_PREFIX.has(word)) {
        i = quoted(t[i]!, start, i);
        continue;
      }
      push({ kind: "ident", start, end: i, text: word });
      continue;
    }
    if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(t[i + 1] ?? ""))) {
      i++;
      while (i < t.length) {
        const d = t[i]!;
        if ((d === "+" || d === "-") && /[eEpP]/.test(t[i - 1]!)) i++;
        else if (d === "'" && isIdChar(t[i + 1] ?? "")) i += 2;
        else if (isIdChar(d) || d === ".") i++;
        else break;
      }
      push({ kind: "number", start, end: i, text: t.slice(start, i) });
      continue;
    }
    if (c === '"' || c === "'") {
      i = quoted(c, start, i);
      continue;
    }
    if (c === ":" && t[i + 1] === ":") {
      push({ kind: "punct", start, end: i + 2, text: "::" });
      i += 2;
      continue;
    }
    push({ kind: "punct", start, end: i + 1, text: c });
    i++;
  }
  if (directiveTokens) {
    directiveEnd = t.length;
    finishDirective();
  }
  return { tokens, macros, undefs, directives, firstCode: firstCode < 0 ? 0 : firstCode };

  /** A string or character literal opening at `q` (after a prefix from `start`); returns the offset after it. */
  function quoted(quote: string, start: number, q: number): number {
    let j = q + 1;
    while (j < t.length && t[j] !== quote && t[j] !== "\n") j += t[j] === "\\" ? 2 : 1;
    const closed = j < t.length && t[j] === quote;
    const end = closed ? j + 1 : j;
    const body = t.slice(q + 1, closed ? j : j);
    const open = closed ? {} : { unterminated: true };
    if (quote === '"') {
      const { value, at } = decode(body, q + 1);
      push({ kind: "string", start, end, text: t.slice(start, end), value, valueAt: at, ...open });
    } else push({ kind: "char", start, end, text: t.slice(start, end), ...open });
    return end;
  }
}

/**
 * The value of an `#if` / `#elif` condition when it is an integer literal, parenthesized or
 * not (`0`, `(0)`, `1`, `0x0L`): true for a nonzero one, false for zero; null for anything else.
 */
function literalCondition(toks: readonly Omit<Token, "macro">[]): boolean | null {
  let a = 0;
  let b = toks.length;
  while (b - a >= 3 && toks[a]!.text === "(" && toks[b - 1]!.text === ")") {
    a++;
    b--;
  }
  if (b - a !== 1 || toks[a]!.kind !== "number") return null;
  const m = /^(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)[uUlLzZ]*$/.exec(toks[a]!.text.replace(/'/g, ""));
  return m ? BigInt(m[1]!.replace(/^0([0-7]+)$/, "0o$1")) !== 0n : null;
}

/** Index of the token closing the bracket opened at `open` (same macro body), or -1. */
function closing(tokens: Token[], open: number): number {
  const o = tokens[open]!.text;
  const c = o === "(" ? ")" : o === "[" ? "]" : "}";
  let depth = 0;
  for (let k = open; k < tokens.length; k++) {
    const tk = tokens[k]!;
    if (tk.macro !== tokens[open]!.macro) return -1;
    if (tk.text === o) depth++;
    else if (tk.text === c && --depth === 0) return k;
  }
  return -1;
}

/** Whether the asm keyword at token `k` begins a statement (not a declaration's assembler name). */
function startsStatement(tokens: Token[], k: number): boolean {
  const prev = tokens[k - 1];
  if (!prev || prev.macro !== tokens[k]!.macro) return true;
  if (prev.kind === "ident") return STATEMENT_KEYWORDS.has(prev.text);
  if (prev.text === "]" || prev.text === "." || prev.text === "::" || (prev.text === ">" && tokens[k - 2]?.text === "-")) return false;
  if (prev.text === ")") {
    // `if (…) asm(…)`: a statement; `int f(int) asm("g")`: an assembler name.
    let depth = 0;
    for (let j = k - 1; j >= 0; j--) {
      const tj = tokens[j]!;
      if (tj.text === ")") depth++;
      else if (tj.text === "(" && --depth === 0) {
        const before = tokens[j - 1];
        return before !== undefined && before.kind === "ident" && CONDITION_KEYWORDS.has(before.text);
      }
    }
    return false;
  }
  return true;
}

/** Splits tokens [from, to) at top-level commas. */
function splitCommas(tokens: Token[], from: number, to: number): [number, number][] {
  const parts: [number, number][] = [];
  let depth = 0;
  let s = from;
  for (let k = from; k < to; k++) {
    const x = tokens[k]!.text;
    if (x === "(" || x === "[" || x === "{") depth++;
    else if (x === ")" || x === "]" || x === "}") depth--;
    else if (x === "," && depth === 0) {
      parts.push([s, k]);
      s = k + 1;
    }
  }
  if (to > s) parts.push([s, to]);
  return parts;
}

/** A token as messages show it: quoted, a long one cut. */
const shown = (t: Token): string => {
  const text = t.text.length > 24 ? `${t.text.slice(0, 24)}…` : t.text;
  return t.kind === "string" || t.kind === "char" ? text : `'${text}'`;
};

/**
 * Scans `text` (named `file` in locations) for asm statements, `#define`s and their bodies.
 * Never throws; a statement it cannot parse (GCC would reject it) is returned with
 * `malformed` set, so that it is reported rather than passed over.
 */
export function scanSource(text: string, file: string): Scan {
  const source = new Source(text, file);
  const { tokens, macros, undefs, directives, firstCode } = tokenize(source);
  const statements: AsmStatement[] = [];
  const orig = (i: number) => source.origOf(i);
  const at = (t: Token) => {
    const l = source.loc(t.start);
    return `${l.line}:${l.col}`;
  };
  /** The last token of a malformed statement from token `from` on: its first `;` (same macro body), else the body's or the file's last token. */
  const endOf = (from: number): number => {
    const mac = tokens[from]!.macro;
    for (let m = from; m < tokens.length; m++) {
      if (tokens[m]!.macro !== mac) return m - 1;
      if (tokens[m]!.text === ";") return m;
    }
    return tokens.length - 1;
  };
  const pushMalformed = (k: number, qualifiers: string[], bad: Token | undefined, message: string, last: number) => {
    const kw = tokens[k]!;
    const end = tokens[Math.max(last, k)]!;
    statements.push({
      standalone: false,
      keyword: kw.text,
      qualifiers,
      start: orig(kw.start),
      end: orig(end.end - 1) + 1,
      loc: source.loc(kw.start),
      templateTokens: [],
      templateNotLiteral: null,
      template: "",
      templateAt: [],
      basic: false,
      outputs: [],
      inputs: [],
      clobbers: [],
      labels: [],
      macro: kw.macro,
      malformed: { loc: source.loc((bad ?? end).start), message },
    });
  };
  /**
   * The `)` closing the asm's `(` at `open`; or why there is none: a bracket closed by the
   * wrong one, an unterminated literal, a `;` (outside a `({ … })`) or the end of the macro
   * body or file before it.
   */
  const closeAsm = (open: number): { close: number } | { bad: Token | undefined; message: string; last: number } => {
    const mac = tokens[open]!.macro;
    const stack: number[] = [];
    let braces = 0;
    for (let m = open; m < tokens.length; m++) {
      const tk = tokens[m]!;
      if (tk.macro !== mac) return { bad: tokens[open], message: `unbalanced parentheses: this '(' is not closed ${mac >= 0 ? "(the #define body ends first)" : "before the #define on a later line"}`, last: m - 1 };
      if (tk.unterminated) return { bad: tk, message: `an unterminated ${tk.kind === "char" ? "character" : "string"} literal (no closing quote on its line)`, last: endOf(m) };
      const x = tk.text;
      if (x === "(" || x === "[" || x === "{") {
        stack.push(m);
        if (x === "{") braces++;
      } else if (x === ")" || x === "]" || x === "}") {
        const o = tokens[stack.pop()!]!;
        const want = o.text === "(" ? ")" : o.text === "[" ? "]" : "}";
        if (x !== want) return { bad: tk, message: `unbalanced brackets: '${x}' where a '${want}' must close the '${o.text}' at ${at(o)}`, last: endOf(m) };
        if (x === "}") braces--;
        if (stack.length === 0) return { close: m };
      } else if (x === ";" && braces === 0) return { bad: tokens[open], message: `unbalanced parentheses: this '(' is not closed before the ';' at ${at(tk)}`, last: m };
    }
    return { bad: tokens[open], message: "unbalanced parentheses: this '(' is not closed (the file ends first)", last: tokens.length - 1 };
  };
  for (let k = 0; k < tokens.length; k++) {
    const kw = tokens[k]!;
    if (kw.kind !== "ident" || !ASM_KEYWORDS.has(kw.text)) continue;
    let j = k + 1;
    const qualifiers: string[] = [];
    while (tokens[j]?.kind === "ident" && ASM_QUALIFIERS.has(tokens[j]!.text) && tokens[j]!.macro === kw.macro) qualifiers.push(tokens[j++]!.text);
    if (tokens[j]?.text !== "(" || tokens[j]!.macro !== kw.macro) {
      // `asm` alone may be a C identifier; `__asm`, `__asm__`, and `asm` with a qualifier are the keyword.
      if ((kw.text !== "asm" || qualifiers.length > 0) && startsStatement(tokens, k)) {
        const next = tokens[j]?.macro === kw.macro ? tokens[j] : undefined;
        const words = [kw.text, ...qualifiers].join(" ");
        const message = next
          ? `expected '(' after '${words}', found ${shown(next)}`
          : kw.macro >= 0
            ? `'${words}' ends the #define body: the statement is completed where the macro is used, which is not rewritten`
            : `expected '(' after '${words}' (the file ends)`;
        pushMalformed(k, qualifiers, next ?? kw, message, j - 1);
      }
      continue;
    }
    if (!startsStatement(tokens, k)) continue;
    const shape = closeAsm(j);
    if (!("close" in shape)) {
      pushMalformed(k, qualifiers, shape.bad, shape.message, shape.last);
      k = Math.max(k, shape.last);
      continue;
    }
    const close = shape.close;
    const after = tokens[close + 1];
    if (after && after.macro === kw.macro && (after.text === ":" || after.text === "::")) {
      const last = endOf(close + 1);
      pushMalformed(k, qualifiers, tokens[close], `unbalanced parentheses: this ')' ends the asm before the '${after.text}' at ${at(after)}`, last);
      k = last;
      continue;
    }
    // Sections at paren depth 0 inside the parentheses, split by `:` (a `::` is two).
    const sections: [number, number][] = [];
    const colonTokens: Token[] = [];
    let depth = 0;
    let s = j + 1;
    let colons = 0;
    for (let m = j + 1; m < close; m++) {
      const x = tokens[m]!.text;
      if (x === "(" || x === "[" || x === "{") depth++;
      else if (x === ")" || x === "]" || x === "}") depth--;
      else if (depth === 0 && (x === ":" || x === "::")) {
        sections.push([s, m]);
        if (x === "::") sections.push([m, m]);
        colonTokens.push(tokens[m]!);
        if (x === "::") colonTokens.push(tokens[m]!);
        colons += x === "::" ? 2 : 1;
        s = m + 1;
      }
    }
    sections.push([s, close]);
    // What GCC would reject, first one found: the template, the operands, clobbers, labels.
    let problem: { tok: Token | undefined; message: string } | null = null;
    const complain = (tok: Token | undefined, message: string) => {
      problem ??= { tok, message };
    };
    if (sections.length > 5) complain(colonTokens[4], "more than four ':' (outputs : inputs : clobbers : goto labels)");
    const [t0, t1] = sections[0]!;
    const templateTokens = tokens.slice(t0, t1);
    const firstOther = templateTokens.findIndex((x) => x.kind !== "string");
    if (templateTokens.length === 0) complain(tokens[t1], `no template: a string literal must come before ${shown(tokens[t1]!)}`);
    else if (firstOther === 0 && templateTokens[0]!.kind !== "ident") complain(templateTokens[0], `the template is not a string literal: found ${shown(templateTokens[0]!)}`);
    // In a #define body, `"…" #k "…"` stringizes a parameter into the template: valid C, reported by the binder as a template built from macro names.
    else if (firstOther > 0 && templateTokens[firstOther]!.kind !== "ident" && !(templateTokens[firstOther]!.text === "#" && templateTokens[firstOther]!.macro >= 0))
      complain(templateTokens[firstOther], `${shown(templateTokens[firstOther]!)} after the template's string literal, where ':' or ')' must come (a missing ':'?)`);
    const templateNotLiteral = templateTokens.find((x) => x.kind !== "string") ?? null;
    let template = "";
    const templateAt: number[] = [];
    for (const x of templateTokens)
      if (x.kind === "string") {
        template += x.value!;
        for (const a of x.valueAt!) templateAt.push(orig(a));
      }
    let index = 0;
    const operands = (sec: [number, number] | undefined): AsmOperand[] => {
      if (!sec) return [];
      const out: AsmOperand[] = [];
      if (sec[1] > sec[0] && tokens[sec[1] - 1]!.text === ",") complain(tokens[sec[1] - 1], "a ',' with no operand after it");
      for (const [a, b] of splitCommas(tokens, sec[0], sec[1])) {
        const n = index++;
        if (a === b) {
          complain(tokens[a], "an empty operand (two ',' in a row)");
          continue;
        }
        let m = a;
        let name: string | null = null;
        if (tokens[m]?.text === "[") {
          if (tokens[m + 1]?.kind === "ident" && tokens[m + 2]?.text === "]") {
            name = tokens[m + 1]!.text;
            m += 3;
          } else complain(tokens[m], `operand %${n}: expected '[name]' before the constraint`);
        }
        let constraint = "";
        // A constraint may be built from macro names (CUDA's `"=r"(d) : __LDG_PTR(p)`): read on, reported by the binder.
        let constraintNotLiteral: Token | null = null;
        const stringized = (x: number) => tokens[x]!.text === "#" && tokens[x]!.macro >= 0 && tokens[x + 1]?.kind === "ident";
        if (m >= b || (tokens[m]!.kind !== "string" && tokens[m]!.kind !== "ident" && !stringized(m)))
          complain(tokens[Math.min(m, b - 1)], `operand %${n}: expected [name] "constraint" (expression), found ${m < b ? shown(tokens[m]!) : "nothing after the name"}`);
        // In a #define body, `"="#r(x)` stringizes the parameter r into the constraint: valid C, bound per use of the macro.
        const constraintFrom = m;
        for (; m < b && (tokens[m]!.kind === "string" || tokens[m]!.kind === "ident" || stringized(m)); m++)
          if (tokens[m]!.kind === "string") constraint += tokens[m]!.value!;
          else if (tokens[m]!.text === "#") constraintNotLiteral ??= tokens[++m]!;
          else constraintNotLiteral ??= tokens[m]!;
        const constraintTokens = tokens.slice(constraintFrom, m);
        let expr = "";
        let exprTokens: Token[] = [];
        if (m < b && tokens[m]!.text === "(") {
          const e = closing(tokens, m);
          if (e > m && e < b + 1) {
            exprTokens = tokens.slice(m + 1, e);
            expr = exprTokens.length ? text.slice(orig(exprTokens[0]!.start), orig(exprTokens[exprTokens.length - 1]!.end - 1) + 1) : "";
          }
          if (e !== b - 1) complain(tokens[e + 1], `operand %${n}: ${shown(tokens[e + 1]!)} after its (expression) (a missing ',' or ':'?)`);
        } else if (constraint !== "" || constraintNotLiteral) complain(tokens[Math.min(m, b - 1)], `operand %${n}: expected (expression) after the constraint "${constraint}"${m < b ? `, found ${shown(tokens[m]!)}` : ""}`);
        out.push({ name, constraint, constraintTokens, expr, exprTokens, constraintNotLiteral, loc: source.loc(tokens[a]!.start) });
      }
      return out;
    };
    const outputs = operands(sections[1]);
    const inputs = operands(sections[2]);
    /** A list of `kind` tokens separated by ','s (adjacent string literals are one). */
    const list = (sec: [number, number] | undefined, kind: "string" | "ident", what: string) => {
      if (!sec) return;
      let want: "item" | "," | "either" = "item";
      for (let m = sec[0]; m < sec[1]; m++) {
        const tk = tokens[m]!;
        const isItem = tk.kind === kind;
        if (tk.text === "," && want !== "item") want = "item";
        else if (isItem && (want === "item" || (want === "either" && kind === "string"))) want = "either";
        else return complain(tk, `${what}: expected ${want === "item" ? (kind === "string" ? "a string literal" : "a label name") : "','"}, found ${shown(tk)}`);
      }
      if (want === "item" && sec[1] > sec[0]) complain(tokens[sec[1] - 1], `${what}: a ',' with nothing after it`);
    };
    list(sections[3], "string", "the clobber list");
    list(sections[4], "ident", "the goto labels");
    const strings = (sec: [number, number] | undefined) => (sec ? tokens.slice(sec[0], sec[1]).filter((x) => x.kind === "string").map((x) => x.value!) : []);
    let endTok = close;
    if (kw.macro < 0 && tokens[close + 1]?.text === ";" && tokens[close + 1]!.macro === kw.macro) endTok = close + 1;
    const prev = tokens[k - 1];
    const standalone =
      endTok === close + 1 && (prev === undefined || prev.macro !== kw.macro || [";", "{", "}", ":", ")"].includes(prev.text) || (prev.kind === "ident" && (prev.text === "else" || prev.text === "do")));
    const found = problem as { tok: Token | undefined; message: string } | null;
    statements.push({
      standalone,
      keyword: kw.text,
      qualifiers,
      start: orig(kw.start),
      end: orig(tokens[endTok]!.end - 1) + 1,
      loc: source.loc(kw.start),
      templateTokens,
      templateNotLiteral,
      template,
      templateAt,
      basic: colons === 0,
      outputs,
      inputs,
      clobbers: strings(sections[3]),
      labels: sections[4] ? tokens.slice(sections[4][0], sections[4][1]).filter((x) => x.kind === "ident").map((x) => x.text) : [],
      macro: kw.macro,
      malformed: found ? { loc: source.loc((found.tok ?? kw).start), message: found.message } : null,
    });
    k = close;
  }
  // The line of the first token or directive.
  const firstOrig = orig(firstCode);
  let firstCodeLine = text.lastIndexOf("\n", firstOrig - 1) + 1;
  if (firstCodeLine === 0 && text.startsWith("\ufeff")) firstCodeLine = 1; // after a byte-order mark
  return { source, tokens, statements, macros, undefs, directives, firstCodeLine, firstCode: firstOrig };
}

/**
 * The `#define` of `name` in force at token `k` (the last one before it with no `#undef` of the
 * name between), or null: a call there is the macro's, not a function's.
 */
export function macroInForce(scan: Scan, name: string, k: number): MacroDef | null {
  let def: MacroDef | null = null;
  for (const d of scan.macros) if (d.name === name && d.after <= k && (def === null || d.after > def.after)) def = d;
  if (def === null) return null;
  for (const u of scan.undefs.get(name) ?? []) if (u >= def.after && u <= k) return null;
  return def;
}

/**
 * Whether two definitions of a macro sit in different branches of one conditional group
 * (`#ifdef X` / `#define M …` / `#else` / `#define M …` / `#endif`, moderngpu's
 * `SHFL_OP_MACRO`): a compile reads one of them, so the later one does not end the uses of
 * the earlier.
 */
function alternatives(scan: Scan, a: MacroDef, b: MacroDef): boolean {
  let depth = 0;
  for (const d of scan.directives) {
    if (d.start <= a.start || d.start >= b.start) continue;
    if (d.kind === "if" || d.kind === "ifdef" || d.kind === "ifndef") depth++;
    else if (d.kind === "endif" && --depth < 0) return false;
    else if (depth === 0 && (d.kind === "elif" || d.kind === "elifdef" || d.kind === "elifndef" || d.kind === "else")) return true;
  }
  return false;
}

/** One use of a macro: where (its name; `at` the original offset), its arguments' texts and tokens, and whether it is inside another macro's body. */
export interface MacroUse {
  loc: Loc;
  at: number;
  args: string[];
  argTokens: Token[][];
  inMacro: boolean;
}

/**
 * The uses of macro `m` in code after its definition (up to an `#undef` or the next
 * definition of the same name): for a function-like macro, the argument texts (original
 * text, split at top-level commas); `inMacro` when the use is inside another macro's body.
 */
export function macroUses(scan: Scan, m: number): MacroUse[] {
  const def = scan.macros[m]!;
  const { tokens, source } = scan;
  let stop = tokens.length;
  for (const u of scan.undefs.get(def.name) ?? []) if (u >= def.after) stop = Math.min(stop, u);
  scan.macros.forEach((d, k) => {
    if (k !== m && d.name === def.name && d.after > def.after && !alternatives(scan, def, d)) stop = Math.min(stop, d.after);
  });
  const uses: MacroUse[] = [];
  for (let k = def.after; k < stop; k++) {
    const tk = tokens[k]!;
    if (tk.kind !== "ident" || tk.text !== def.name) continue;
    if (def.params === null) {
      uses.push({ loc: source.loc(tk.start), at: source.origOf(tk.start), args: [], argTokens: [], inMacro: tk.macro >= 0 });
      continue;
    }
    if (tokens[k + 1]?.text !== "(") continue;
    const e = closing(tokens, k + 1);
    if (e < 0) continue;
    const parts = splitCommas(tokens, k + 2, e);
    const argTokens = parts.map(([a, b]) => tokens.slice(a, b));
    const args = argTokens.map((ts) => (ts.length ? source.original.slice(source.origOf(ts[0]!.start), source.origOf(ts[ts.length - 1]!.end - 1) + 1) : ""));
    uses.push({ loc: source.loc(tk.start), at: source.origOf(tk.start), args, argTokens, inMacro: tk.macro >= 0 });
    k = e;
  }
  return uses;
}
