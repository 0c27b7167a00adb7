/**
 * @fileoverview The mechanical "undo" oracle of `ptx-lower port` (issue 34 items 5 and 6):
 * turns a ported file back into the file it was ported from, knowing only the shape of what
 * `port` writes (src/port/rewrite.ts, "What a rewrite looks like") and nothing of how it does
 * it — no function of src/port/ is imported, so a bug there cannot hide itself here.
 *
 * The shape undone (with or without the `/* ptx-lower port *\/` marker on the `#if` and
 * `#endif` lines, so that files ported before and after the marker was added are both read;
 * COND is `defined(__HIP__)` or `defined(__OPENCL_C_VERSION__) && defined(__AMDGCN__)`):
 *
 *     #if COND [marker]          ← a rewritten asm statement
 *     <the calls>
 *     #else
 *     <the original line(s): the line's indent + the statement [+ a trailing comment]>
 *     #endif [marker]
 *
 *     PREFIX#if COND [marker]    ← a #define whose body held rewritten asm (PREFIX: what was
 *     <the HIP copy>                before the define's `#` on its line)
 *     #else
 *     <the original #define>
 *     #endif [marker]
 *
 *     #if COND [marker]          ← the include guard, before the first line of code (the
 *     #include "NAME"  or the      first such block of the file)
 *     header inlined
 *     [#else
 *     #define ptxl_X __X …]
 *     #endif [marker]
 *
 * and every `ptxl_X` of a CUDA warp intrinsic `__X` renamed back, `ptxl_warpSize` back to
 * `warpSize`. Written line breaks are the file's (`\r\n` when the file has one, else `\n`).
 *
 * What `port` writes loses two things, which no undo can restore: the blanks between a
 * statement and code sharing its line (the statement moves to a line of its own), and whether
 * the include guard's line break was the file's own or inserted before code that followed a
 * comment on the first line of code. `portLayout` applies exactly those two changes to the
 * original, from the statement locations `port` reports and the file's first code (found
 * here by a lexer of its own), so that the oracle is `undoPort(ported) ===
 * portLayout(original, rewritten statements)`: byte identity everywhere else.
 */

/** The conditions `port` guards its HIP code with: C++/CUDA and OpenCL C. */
export const PORT_CONDS = ["defined(__HIP__)", "defined(__OPENCL_C_VERSION__) && defined(__AMDGCN__)"] as const;

/** The marker comment `port` ends its own `#if` and `#endif` lines with. */
export const PORT_MARKER = "/* ptx-lower port */";

/** The CUDA warp intrinsics `port` renames `__X` → `ptxl_X` (src/port/intrinsics.ts lists them; restated here on purpose). */
export const WARP_INTRINSIC_NAMES = [
  "activemask",
  "all_sync",
  "any_sync",
  "uni_sync",
  "ballot_sync",
  "match_any_sync",
  "match_all_sync",
  "shfl_sync",
  "shfl_up_sync",
  "shfl_down_sync",
  "shfl_xor_sync",
  "reduce_add_sync",
  "reduce_min_sync",
  "reduce_max_sync",
  "reduce_and_sync",
  "reduce_or_sync",
  "reduce_xor_sync",
  "syncwarp",
] as const;

/** Options of `undoPort`. */
export interface UndoOptions {
  /**
   * Which guards are `port`'s: `auto` (default) — the marked ones when the file has a marked
   * one, else every `#if COND` line exactly; `marked` — only marked ones; `unmarked` — every
   * `#if COND` line, marked or not.
   */
  markers?: "auto" | "marked" | "unmarked";
}

/** Why a ported text cannot be undone: a guard without its `#else` or `#endif`. */
export class UndoError extends Error {}

interface Line {
  /** Offset of the line's first character. */
  start: number;
  /** Offset of its `\n` (or the text's end). */
  end: number;
  /** The line without its `\n`, and without the `\r` before it when the file's breaks are `\r\n`. */
  body: string;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const COND_RE = PORT_CONDS.map(escapeRe).join("|");
/** An opening guard line: PREFIX (a byte order mark and blanks, or a comment end and blanks), `#if COND`, the marker or nothing. */
const OPEN = new RegExp(`^((?:\\ufeff?[ \\t]*|.*\\*/[ \\t]*))#if (?:${COND_RE})( ${escapeRe(PORT_MARKER)})?$`);
const ELSE = /^#else$/;
/** A closing guard line: `#endif`, the marker or nothing, and a `\r` of the file's own (a lone one, or before a `\r\n`). */
const ENDIF = new RegExp(`^#endif( ${escapeRe(PORT_MARKER)})?\r?$`);
const IDCHAR = "[\\w$\\u0080-\\uffff]";
/** A name as it may stand in the text: any of its characters may be followed by line splices (`\\` newline), which port keeps (it rewrites only the prefix). */
const splicedName = (name: string) => name.split("").join("(?:\\\\\\r?\\n)*");
const RENAMED = new RegExp(`(?<!${IDCHAR})ptxl_((?:\\\\\\r?\\n)*(?:${[...WARP_INTRINSIC_NAMES, "warpSize"].map(splicedName).join("|")}))(?!${IDCHAR})`, "g");

/** The lines of `text`, split at `\n`; with `crlf`, a `\r` before the `\n` is not part of the body. */
function linesOf(text: string, crlf: boolean): Line[] {
  const out: Line[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    const end = nl < 0 ? text.length : nl;
    const raw = text.slice(start, end);
    out.push({ start, end, body: crlf && nl >= 0 && raw.endsWith("\r") ? raw.slice(0, -1) : raw });
    if (nl < 0) return out;
    start = nl + 1;
  }
}

/** The directive a line holds, when it is one (not the continuation of a line ending in `\`): `if`, `else`, `elif`, `endif`, or null. */
function directiveOf(lines: Line[], k: number): "if" | "else" | "elif" | "endif" | null {
  const prev = lines[k - 1];
  if (prev && /\\\r?$/.test(prev.body)) return null;
  const m = /^[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif)\b/.exec(lines[k]!.body);
  if (!m) return null;
  return m[1]!.startsWith("if") ? "if" : (m[1] as "else" | "elif" | "endif");
}

/**
 * Turns a file `port` wrote back into the file it was ported from (see the file comment for
 * the shape, and `portLayout` for the two things no undo can restore). Text outside `port`'s
 * guards and renames is returned as it is.
 * @throws UndoError when one of `port`'s guards has no `#else` (statements, macros) or no `#endif`.
 */
export function undoPort(ported: string, opts: UndoOptions = {}): string {
  const crlf = ported.includes("\r\n");
  const nl = crlf ? "\r\n" : "\n";
  const lines = linesOf(ported, crlf);
  const mode = opts.markers ?? "auto";
  const marked = mode === "marked" || (mode === "auto" && lines.some((l) => OPEN.exec(l.body)?.[2] !== undefined));
  let out = "";
  let pos = 0;
  let first = true;
  for (let k = 0; k < lines.length; k++) {
    const m = OPEN.exec(lines[k]!.body);
    if (!m || (marked && m[2] === undefined)) continue;
    if (k > 0 && /\\\r?$/.test(lines[k - 1]!.body)) continue; // a continued line: not a directive
    const prefix = m[1]!;
    // The matching #else (at depth 0) and #endif: by nesting, or the marker's #endif.
    let elseAt = -1;
    let endAt = -1;
    let depth = 0;
    for (let j = k + 1; j < lines.length; j++) {
      const d = directiveOf(lines, j);
      if (marked && d === "endif" && ENDIF.exec(lines[j]!.body)?.[1] !== undefined) {
        endAt = j;
        break;
      }
      if (d === "if") depth++;
      else if (d === "endif") {
        if (depth === 0 && !marked) {
          endAt = j;
          break;
        }
        depth--;
      } else if (d === "else" && depth === 0 && elseAt < 0 && ELSE.test(lines[j]!.body)) elseAt = j;
    }
    if (endAt < 0) throw new UndoError(`line ${k + 1}: ${lines[k]!.body}: no #endif closes it`);
    const endLine = lines[endAt]!;
    if (!ENDIF.test(endLine.body)) throw new UndoError(`line ${endAt + 1}: the #endif of line ${k + 1} is not port's (${JSON.stringify(endLine.body)})`);
    // What follows "#endif[ marker]" on its line (a `\r` of the file's own break) is the file's.
    const endTextEnd = endLine.start + endLine.body.replace(/\r$/, "").length;
    if (first) {
      // The include guard: removed with the line break after its #endif (port wrote that one).
      first = false;
      out += ported.slice(pos, lines[k]!.start + prefix.length);
      pos = ported.startsWith(nl, endTextEnd) ? endTextEnd + nl.length : endTextEnd;
      k = endAt;
      continue;
    }
    if (elseAt < 0) throw new UndoError(`line ${k + 1}: ${lines[k]!.body}: no #else before its #endif at line ${endAt + 1}`);
    // The original: from the line after #else to the written break before #endif.
    const origStart = lines[elseAt + 1]!.start;
    const origEnd = endLine.start - nl.length;
    if (origEnd < origStart) throw new UndoError(`line ${elseAt + 1}: nothing between #else and #endif`);
    out += ported.slice(pos, lines[k]!.start) + prefix + ported.slice(origStart, origEnd);
    pos = endTextEnd;
    k = endAt;
  }
  out += ported.slice(pos);
  return out.replace(RENAMED, (_, name: string) => (name.replace(/\\\r?\n/g, "") === "warpSize" ? name : `__${name}`));
}

/** Where a statement `port` rewrote stands in the original: 1-based line and column (UTF-16 units) of its first and last characters. */
export interface StatementSpan {
  loc: { line: number; col: number };
  end: { line: number; col: number };
}

/** Offsets of each line's start in `text` (lines split at `\n`). */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

/**
 * The offset of the first code in `text` — the first character that is not whitespace (`
 * \t\r\n\f\v`, a byte order mark at 0), a line splice or part of a comment (a `//` comment runs
 * to an unspliced line end) — or `text.length`.
 */
export function firstCodeOffset(text: string): number {
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\t" || c === "\r" || c === "\n" || c === "\f" || c === "\v" || (c === "\ufeff" && i === 0)) i++;
    else if (c === "\\" && (text[i + 1] === "\n" || (text[i + 1] === "\r" && text[i + 2] === "\n"))) i += text[i + 1] === "\n" ? 2 : 3;
    else if (c === "/" && spliced(text, i + 1) === "/") {
      while (i < text.length && text[i] !== "\n") i += text[i] === "\\" && text[i + 1] === "\n" ? 2 : text[i] === "\\" && text[i + 1] === "\r" && text[i + 2] === "\n" ? 3 : 1;
    } else if (c === "/" && spliced(text, i + 1) === "*") {
      let j = skipSplices(text, i + 1) + 1;
      for (;;) {
        if (j >= text.length) return text.length;
        if (text[j] === "*" && spliced(text, j + 1) === "/") {
          j = skipSplices(text, j + 1) + 1;
          break;
        }
        j++;
      }
      i = j;
    } else return i;
  }
  return text.length;
}

/** The offset at or after `i` past any line splices. */
function skipSplices(text: string, i: number): number {
  while (text[i] === "\\" && (text[i + 1] === "\n" || (text[i + 1] === "\r" && text[i + 2] === "\n"))) i += text[i + 1] === "\n" ? 2 : 3;
  return i;
}

/** The character at `i` once line splices are skipped. */
const spliced = (text: string, i: number) => text[skipSplices(text, i)];

/** Blanks on a C line: space, tab, form feed, vertical tab. */
const BLANK = /[ \t\f\v]/;

/**
 * The original with the two layout changes `port` makes and promises (src/port/rewrite.ts
 * "What a rewrite looks like"): for each rewritten statement outside a `#define` (`spans`),
 * code before it on its line keeps the line (its trailing blanks go) and the statement starts
 * a line of its own, indented like its line; code after it (anything but a comment ending the
 * line) moves to a line of its own, indented like the statement's line — a rewritten
 * statement there starts its own line with its own line's indent. When anything was rewritten
 * (`guarded`), a first line of code that starts with a comment end is broken before the code
 * (where the include guard goes; a byte order mark is no part of that line). Line breaks
 * inserted are the file's (`\r\n` when it has one).
 * `undoPort(ported) === portLayout(original, spans, guarded)` is the byte-identity oracle.
 */
export function portLayout(original: string, spans: readonly StatementSpan[], guarded: boolean): string {
  const nl = original.includes("\r\n") ? "\r\n" : "\n";
  const starts = lineStarts(original);
  const off = (l: { line: number; col: number }) => starts[l.line - 1]! + l.col - 1;
  /** Gaps of blanks to replace, by their end: the text put there. */
  const gaps = new Map<number, { start: number; text: string; byStart: boolean }>();
  const indentAt = (lineStart: number) => /^[ \t]*/.exec(original.slice(lineStart, lineStart + 4096))![0];
  for (const s of spans) {
    const a = off(s.loc);
    const b = off(s.end) + 1;
    const ls = starts[s.loc.line - 1]!;
    const indent = indentAt(ls);
    const before = original.slice(ls, a);
    if (!/^[ \t]*$/.test(before) || continues(original, ls)) {
      let g = a;
      while (g > ls && BLANK.test(original[g - 1]!)) g--;
      gaps.set(a, { start: g, text: nl + indent, byStart: true });
    }
    let le = original.indexOf("\n", b);
    if (le < 0) le = original.length;
    if (original[le - 1] === "\r" && le - 1 >= b) le--;
    const rest = original.slice(b, le);
    // Blanks or a comment end the line (a lone CR is a blank here; a `//` comment that a splice continues onto the next line does not).
    const restIsComment = (/^[ \t\f\v\r]*(\/\/[^\n]*)?$/.test(rest) && !/\\[ \t\f\v]*$/.test(rest)) || /^[ \t\f\v]*\/\*(?:(?!\*\/)[^\n])*\*\/[ \t\f\v\r]*$/.test(rest);
    if (!restIsComment) {
      let g = b;
      while (g < le && BLANK.test(original[g]!)) g++;
      const had = gaps.get(g);
      if (!had?.byStart) gaps.set(g, { start: b, text: nl + indent, byStart: false });
    }
  }
  let out = "";
  let pos = 0;
  for (const [end, g] of [...gaps].sort((x, y) => x[0] - y[0])) {
    out += original.slice(pos, g.start) + g.text;
    pos = end;
  }
  out += original.slice(pos);
  if (!guarded) return out;
  // The include guard's line: break a first code line that a comment ends on, before the code.
  const fc = firstCodeOffset(out);
  const ls = Math.max(out.lastIndexOf("\n", fc - 1) + 1, out.startsWith("\ufeff") ? 1 : 0);
  if (fc < out.length && !/^[ \t]*$/.test(out.slice(ls, fc))) out = out.slice(0, fc) + nl + out.slice(fc);
  else if (fc < out.length && continues(out, ls)) out = out.slice(0, ls) + nl + out.slice(ls);
  return out;
}

/** Whether the physical line starting at `ls` continues the line before it (that one ends in a line splice, `\\` newline): port starts a line of its own there. */
function continues(text: string, ls: number): boolean {
  return ls > 0 && /\\\r?\n$/.test(text.slice(Math.max(0, ls - 3), ls));
}
