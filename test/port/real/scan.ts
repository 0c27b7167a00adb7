/**
 * @fileoverview A small C/C++/CUDA/OpenCL reader for test/port_real.test.ts, written apart from
 * src/port/scan.ts on purpose (nothing of src/port/ is imported): it blanks comments and string
 * and character literals with a state machine of its own, drops `#if 0` groups, counts asm
 * statements and calls of the CUDA warp intrinsics, and finds, by brace matching, the
 * definition (function, class, or `#define`) that encloses a location. The counts it gives are
 * the independent ones the port's report is checked against.
 */

/** The CUDA warp intrinsics (CUDA C++ Programming Guide: warp vote, match, reduce, shuffle, `__syncwarp`, and the legacy ones before CUDA 9). */
export const WARP_INTRINSICS = [
  "__shfl_sync",
  "__shfl_up_sync",
  "__shfl_down_sync",
  "__shfl_xor_sync",
  "__ballot_sync",
  "__all_sync",
  "__any_sync",
  "__uni_sync",
  "__activemask",
  "__match_any_sync",
  "__match_all_sync",
  "__reduce_add_sync",
  "__reduce_min_sync",
  "__reduce_max_sync",
  "__reduce_and_sync",
  "__reduce_or_sync",
  "__reduce_xor_sync",
  "__syncwarp",
  // Before CUDA 9 (no _sync, no mask): the Programming Guide's deprecated forms, which port reports and leaves.
  "__shfl",
  "__shfl_up",
  "__shfl_down",
  "__shfl_xor",
  "__ballot",
  "__any",
  "__all",
] as const;

/**
 * Words after which `NAME(` is an expression (a call), not a declarator: statement keywords
 * and C++'s alternative tokens (`or`, `and`, `not`, …; C++ [lex.digraph]).
 */
const EXPRESSION_WORDS = new Set([
  "return",
  "case",
  "else",
  "do",
  "throw",
  "co_return",
  "co_yield",
  "co_await",
  "sizeof",
  "and",
  "or",
  "not",
  "xor",
  "bitand",
  "bitor",
  "compl",
  "and_eq",
  "or_eq",
  "xor_eq",
  "not_eq",
]);

const ASM_KEYWORDS = new Set(["asm", "__asm", "__asm__"]);
const ASM_QUALIFIERS = new Set(["volatile", "__volatile", "__volatile__", "inline", "__inline", "__inline__", "goto"]);

const isIdStart = (c: string | undefined) => c !== undefined && /[A-Za-z_$]/.test(c);
const isId = (c: string | undefined) => c !== undefined && /[\w$]/.test(c);

/**
 * `text` with every comment, string literal and character literal replaced by blanks (line
 * breaks kept), so that offsets, lines and columns stay the text's. Handles line splices
 * inside `//` comments, escapes, raw strings `R"d(…)d"` (with prefixes), and C++14 digit
 * separators (`1'000` is no character literal).
 */
export function blankLiterals(text: string): string {
  const out = text.split("");
  const blank = (a: number, b: number) => {
    for (let k = a; k < b && k < out.length; k++) if (out[k] !== "\n" && out[k] !== "\r") out[k] = " ";
  };
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === "/" && text[i + 1] === "/") {
      let j = i + 2;
      while (j < n && text[j] !== "\n") j += text[j] === "\\" && text[j + 1] === "\n" ? 2 : text[j] === "\\" && text[j + 1] === "\r" && text[j + 2] === "\n" ? 3 : 1;
      blank(i, j);
      i = j;
    } else if (c === "/" && text[i + 1] === "*") {
      const e = text.indexOf("*/", i + 2);
      const j = e < 0 ? n : e + 2;
      blank(i, j);
      i = j;
    } else if (c === '"' || c === "'") {
      // A digit separator: a quote inside a number (the token before it starts with a digit).
      if (c === "'" && isId(text[i - 1])) {
        let s = i - 1;
        while (s > 0 && isId(text[s - 1])) s--;
        if (/[0-9]/.test(text[s]!)) {
          i++;
          continue;
        }
      }
      // A raw string: R"delim( … )delim", with an optional encoding prefix before the R.
      let s = i - 1;
      while (s >= 0 && isId(text[s])) s--;
      const prefix = text.slice(s + 1, i);
      if (c === '"' && /^(u8|u|U|L)?R$/.test(prefix)) {
        const open = text.indexOf("(", i + 1);
        const delim = text.slice(i + 1, open);
        const close = text.indexOf(`)${delim}"`, open + 1);
        const j = close < 0 ? n : close + delim.length + 2;
        blank(i, j);
        i = j;
        continue;
      }
      let j = i + 1;
      while (j < n && text[j] !== c && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
      blank(i, j + 1);
      i = j + 1;
    } else i++;
  }
  return out.join("");
}

/** Offsets where each line starts. */
export function lineStarts(text: string): number[] {
  const s = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") s.push(i + 1);
  return s;
}

/** 1-based line and column of an offset. */
export function locOf(starts: number[], off: number): { line: number; col: number } {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= off) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, col: off - starts[lo]! + 1 };
}

/** A preprocessor directive: its logical line (splices followed), 0-based offsets. */
export interface Directive {
  start: number;
  /** Offset of the logical line's end (its last line break, or the text's end). */
  end: number;
  /** `if`, `ifdef`, `ifndef`, `elif`, `else`, `endif`, `define`, `include`, … */
  kind: string;
  /** The rest of the logical line after the directive name, splices joined, blanked literals kept as blanks. */
  rest: string;
  line: number;
}

/** The directives of a blanked text, in order. */
export function directives(blanked: string): Directive[] {
  const out: Directive[] = [];
  const starts = lineStarts(blanked);
  for (let k = 0; k < starts.length; k++) {
    const s = starts[k]!;
    if (k > 0 && /\\\r?\n$/.test(blanked.slice(Math.max(0, s - 3), s))) continue; // a continuation
    const m = /^[ \t]*#[ \t]*([A-Za-z_]\w*)?/.exec(blanked.slice(s, s + 200));
    if (!m) continue;
    let e = s;
    for (;;) {
      const nl = blanked.indexOf("\n", e);
      if (nl < 0) {
        e = blanked.length;
        break;
      }
      if (/\\\r?$/.test(blanked.slice(Math.max(e, nl - 2), nl))) e = nl + 1;
      else {
        e = nl;
        break;
      }
    }
    const rest = blanked.slice(s + m[0].length, e).replace(/\\\r?\n/g, " ");
    out.push({ start: s, end: e, kind: m[1] ?? "", rest, line: k + 1 });
  }
  return out;
}

/** `blanked` with the groups of `#if 0` (and `#elif 0`) blanked, nested directives included (C11 §6.10.1). */
export function dropIfZero(blanked: string): string {
  const out = blanked.split("");
  const blank = (a: number, b: number) => {
    for (let k = a; k < b; k++) if (out[k] !== "\n" && out[k] !== "\r") out[k] = " ";
  };
  // A stack of groups: whether the branch being read is dropped, and whether the group's
  // dropped branch started at `from`.
  const stack: { dropping: boolean; from: number; outer: boolean }[] = [];
  const zero = (rest: string) => /^\s*\(?\s*0+[uUlL]*\s*\)?\s*$/.test(rest);
  for (const d of directives(blanked)) {
    const outer = stack.length > 0 && stack[stack.length - 1]!.dropping;
    if (d.kind === "if" || d.kind === "ifdef" || d.kind === "ifndef") {
      stack.push({ dropping: outer || (d.kind === "if" && zero(d.rest)), from: d.start, outer });
    } else if (d.kind === "elif" || d.kind === "else") {
      const g = stack[stack.length - 1];
      if (!g) continue;
      if (g.dropping && !g.outer) blank(g.from, d.start);
      g.dropping = g.outer || (d.kind === "elif" && zero(d.rest));
      g.from = d.start;
    } else if (d.kind === "endif") {
      const g = stack.pop();
      if (g && g.dropping && !g.outer) blank(g.from, d.end);
    }
  }
  return out.join("");
}

/** The code of a text as this reader sees it: literals and comments blanked, `#if 0` groups dropped. */
export const codeOf = (text: string) => dropIfZero(blankLiterals(text));

/** One asm statement or warp intrinsic call found. */
export interface Found {
  name: string;
  line: number;
  col: number;
  offset: number;
}

/**
 * A code text where every directive is a boundary, so that what a directive line ends with
 * (`#if X >= 300`, `#define NAME`) is never read as what precedes the next code: a
 * `#define`'s name and parameters are blanked and its `#` becomes `;` (its body stays code),
 * every other directive's logical line is blanked after a `;`.
 */
function withDirectiveBoundaries(code: string): string {
  const out = code.split("");
  for (const d of directives(code)) {
    let bodyAt = d.end;
    if (d.kind === "define") {
      const m = /^[ \t]*#[ \t]*define[ \t]+[A-Za-z_$][\w$]*(\([^)]*\))?/.exec(code.slice(d.start, d.end));
      if (m) bodyAt = d.start + m[0].length;
    }
    for (let k = d.start; k < bodyAt; k++) if (out[k] !== "\n" && out[k] !== "\r") out[k] = " ";
    out[d.start] = ";";
  }
  return out.join("");
}

/** The identifiers of a code text with their offsets. */
function identifiers(code: string): { text: string; start: number; end: number }[] {
  const out: { text: string; start: number; end: number }[] = [];
  const re = /[A-Za-z_$][\w$]*/g;
  for (let m = re.exec(code); m; m = re.exec(code)) {
    // Skip identifiers that are the tail of a number (0x1f, 1e5).
    if (m.index > 0 && /[0-9.]/.test(code[m.index - 1]!) && !isIdStart(code[m.index - 1])) {
      let s = m.index - 1;
      while (s > 0 && /[\w.]/.test(code[s - 1]!)) s--;
      if (/[0-9.]/.test(code[s]!)) continue;
    }
    out.push({ text: m[0], start: m.index, end: m.index + m[0].length });
  }
  return out;
}

/** The next non-blank character at or after `i` (line splices are blanks), and its offset. */
function nextChar(code: string, i: number): { c: string | undefined; at: number } {
  while (i < code.length && /[\s\\]/.test(code[i]!)) i++;
  return { c: code[i], at: i };
}

/** The previous non-blank character before `i`. */
function prevChar(code: string, i: number): { c: string | undefined; at: number } {
  let j = i - 1;
  while (j >= 0 && /[\s\\]/.test(code[j]!)) j--;
  return { c: code[j], at: j };
}

/**
 * The asm statements (`asm`/`__asm`/`__asm__`, qualifiers, then `(`) and the calls of CUDA
 * warp intrinsics (`NAME(` where what precedes is not a declaration's type: an operator,
 * punctuation, a statement keyword or an alternative token) in `text`, in order.
 */
export function countSource(text: string): { statements: Found[]; calls: Found[] } {
  const code = withDirectiveBoundaries(codeOf(text));
  const starts = lineStarts(text);
  const ids = identifiers(code);
  const statements: Found[] = [];
  const calls: Found[] = [];
  const warp = new Set<string>(WARP_INTRINSICS);
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    if (ASM_KEYWORDS.has(id.text)) {
      let j = k + 1;
      let pos = id.end;
      while (j < ids.length && ASM_QUALIFIERS.has(ids[j]!.text) && nextChar(code, pos).at === ids[j]!.start) {
        pos = ids[j]!.end;
        j++;
      }
      if (nextChar(code, pos).c !== "(") continue;
      // A declaration's assembler name follows a declarator (`int x asm("y")`, `f() asm("g")`).
      const p = prevChar(code, id.start);
      if (p.c !== undefined && (isId(p.c) || p.c === ")" || p.c === "]")) {
        const prevId = ids[k - 1];
        if (!(prevId && prevId.end === p.at + 1 && (EXPRESSION_WORDS.has(prevId.text) || ASM_QUALIFIERS.has(prevId.text)))) continue;
      }
      statements.push({ name: id.text, offset: id.start, ...locOf(starts, id.start) });
    } else if (warp.has(id.text)) {
      if (nextChar(code, id.end).c !== "(") continue;
      const p = prevChar(code, id.start);
      if (p.c === "." || (p.c === ">" && code[p.at - 1] === "-")) continue; // a member
      if (p.c !== undefined && isId(p.c)) {
        const prevId = ids[k - 1];
        if (!prevId || prevId.end !== p.at + 1 || !EXPRESSION_WORDS.has(prevId.text)) continue; // a declarator: `uint __activemask()`
      }
      calls.push({ name: id.text, offset: id.start, ...locOf(starts, id.start) });
    }
  }
  return { statements, calls };
}

/** A definition enclosing a location: a brace block at namespace scope (with its head), or a `#define`. */
export interface Definition {
  kind: "code" | "macro" | "line";
  /** Offsets in the text: the definition's first character, and one past its last. */
  start: number;
  end: number;
  /** For a macro: its name. */
  name?: string;
}

/** The matching close brace of every `{` of a code text (directive lines ignored), as a map. */
export function braces(code: string): Map<number, number> {
  const skip = new Set<number>();
  for (const d of directives(code)) for (let k = d.start; k < d.end; k++) skip.add(k);
  const pairs = new Map<number, number>();
  const stack: number[] = [];
  for (let i = 0; i < code.length; i++) {
    if (skip.has(i)) continue;
    const c = code[i];
    if (c === "{") stack.push(i);
    else if (c === "}") {
      const o = stack.pop();
      if (o !== undefined) pairs.set(o, i);
    }
  }
  return pairs;
}

/**
 * The definition that encloses `offset` in `text`: the `#define` whose logical line holds it;
 * else the outermost brace block holding it that is not a namespace or `extern "C"` block,
 * from the start of its head (after the previous `;`, `{`, `}` or directive line) to its
 * closing brace (and the `;` of a class); else the code line(s) around it, up to a `;` or the
 * end of the balanced parentheses (a macro invoked at namespace scope).
 */
export function enclosingDefinition(text: string, offset: number): Definition {
  const code = blankLiterals(text);
  const ds = directives(code);
  for (const d of ds) if (offset >= d.start && offset <= d.end) return { kind: d.kind === "define" ? "macro" : "line", start: d.start, end: d.end, name: /^\s*([A-Za-z_]\w*)/.exec(d.rest)?.[1] };
  const inDirective = (i: number) => ds.some((d) => i >= d.start && i < d.end);
  const headStart = (open: number) => {
    let i = open - 1;
    for (; i >= 0; i--) {
      const c = code[i]!;
      if ((c === ";" || c === "{" || c === "}") && !inDirective(i)) break;
      if (inDirective(i)) break;
    }
    i++;
    while (i < open && /\s/.test(code[i]!)) i++;
    return i;
  };
  const pairs = braces(code);
  let best: Definition | null = null;
  for (const [o, c] of [...pairs].sort((a, b) => a[0] - b[0])) {
    if (!(o < offset && offset < c)) continue;
    const hs = headStart(o);
    const head = text.slice(hs, o);
    if (/^\s*(inline\s+)?namespace\b/.test(head) || /^\s*extern\s*"C(\+\+)?"\s*$/.test(head) || /^\s*$/.test(code.slice(hs, o))) continue;
    let end = c + 1;
    const after = nextChar(code, end);
    if (after.c === ";" && /^\s*(template\s*<[^{]*>\s*)?(struct|class|union|enum)\b/.test(code.slice(hs, o))) end = after.at + 1;
    best = { kind: "code", start: hs, end };
    break; // the outermost: pairs are sorted by their opening offset
  }
  if (best) return best;
  // Namespace scope: the statement around it (a macro invocation defining functions).
  let s = offset;
  while (s > 0 && code[s - 1] !== "\n") s--;
  let depth = 0;
  let e = s;
  for (; e < code.length; e++) {
    const ch = code[e];
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if ((ch === ";" && depth === 0) || (ch === "\n" && depth === 0 && e > offset)) break;
  }
  return { kind: "line", start: s, end: Math.min(code.length, e + 1) };
}

/** A branch of a conditional group: the directive that opens it (`#if…`, `#elif`, `#else`) and the group's `#if…`. */
export type Branch = Directive & { opener: Directive };

/**
 * The conditional groups that enclose each line: for every line (0-based), the branches it
 * sits in, outermost first.
 */
export function branchesByLine(text: string): Branch[][] {
  const code = blankLiterals(text);
  const starts = lineStarts(text);
  const out: Branch[][] = starts.map(() => []);
  const stack: Branch[] = [];
  const ds = directives(code);
  let di = 0;
  for (let k = 0; k < starts.length; k++) {
    while (di < ds.length && ds[di]!.line - 1 === k) {
      const d = ds[di]!;
      if (d.kind === "if" || d.kind === "ifdef" || d.kind === "ifndef") stack.push({ ...d, opener: d });
      else if (d.kind === "elif" || d.kind === "else") {
        if (stack.length) stack[stack.length - 1] = { ...d, opener: stack[stack.length - 1]!.opener };
      } else if (d.kind === "endif") stack.pop();
      di++;
    }
    out[k] = [...stack];
  }
  return out;
}

/** For each `#if…` directive, the directives of its group (`#elif`, `#else`, `#endif`) at its level, in order. */
export function groupOf(text: string, opener: Directive): Directive[] {
  const ds = directives(blankLiterals(text));
  const k = ds.findIndex((d) => d.start === opener.start);
  const out: Directive[] = [];
  let depth = 0;
  for (let j = k + 1; j < ds.length; j++) {
    const d = ds[j]!;
    if (d.kind === "if" || d.kind === "ifdef" || d.kind === "ifndef") depth++;
    else if (d.kind === "endif") {
      if (depth === 0) {
        out.push(d);
        return out;
      }
      depth--;
    } else if ((d.kind === "elif" || d.kind === "else") && depth === 0) out.push(d);
  }
  return out;
}
