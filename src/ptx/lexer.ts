/**
 * @fileoverview A pull lexer for PTX. The parser asks for one token at a time (`next()`), and
 * the current token is held in the lexer's fields, so no token objects are allocated: a
 * 1M-line module lexes in well under a second. It scans with `charCodeAt` and never uses a
 * regular expression.
 *
 * Token kinds:
 * - `ident`: `[A-Za-z_$%][A-Za-z0-9_$]*` (registers `%r1`, labels `$L__BB0_3`, names, `_`);
 * - `dot`: `.` directly followed by name characters, with `::` allowed inside
 *   (`.reg`, `.u32`, `.shared::cta`, `.1d`); the parser decides directive vs. modifier vs. selector;
 * - `int`: `0x…`, `0b…`, octal `0…`, decimal, each with an optional `U` suffix;
 * - `float`: decimal floats `1.5`, `1.`, `1e3`, `2.5e-3`;
 * - `hexfloat`: `0fXXXXXXXX` (8 hex digits) and `0dXXXXXXXXXXXXXXXX` (16);
 * - `string`: `"…"` with backslash escapes;
 * - `punct`: one character, or one of `<< >> == != <= >= && ||` (second char in `ch2`);
 * - `bad`: anything malformed (`09`, `0x`, `0f123`, a stray byte); `badMessage` says why;
 * - `eof`.
 * `//` and `/* *\/` comments are skipped. Lines end at `\n` (a `\r` is whitespace; the parser
 * turns a lone `\r` into `\n` first).
 */

/** The kinds of token (see the file comment). */
export type TokenKind = "ident" | "dot" | "int" | "float" | "hexfloat" | "string" | "punct" | "bad" | "eof";

/** A problem found while skipping comments (the token stream itself stays usable). */
export interface LexError {
  line: number;
  col: number;
  message: string;
}

const enumChars = (s: string): number[] => Array.from(s, (c) => c.charCodeAt(0));

/** 1 for [A-Za-z0-9_$]. */
const NAME = new Uint8Array(128);
/** 1 for [A-Za-z_$%]. */
const NAME_START = new Uint8Array(128);
/** Hex digit value + 1, 0 for non-hex. */
const HEX = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9_$]/.test(ch)) NAME[c] = 1;
  if (/[A-Za-z_$%]/.test(ch)) NAME_START[c] = 1;
  if (/[0-9]/.test(ch)) HEX[c] = c - 48 + 1;
  if (/[a-f]/.test(ch)) HEX[c] = c - 97 + 10 + 1;
  if (/[A-F]/.test(ch)) HEX[c] = c - 65 + 10 + 1;
}
const TWO_CHAR = new Set(["<<", ">>", "==", "!=", "<=", ">=", "&&", "||"].map((s) => s.charCodeAt(0) * 256 + s.charCodeAt(1)));
const PUNCT = new Uint8Array(128);
for (const c of enumChars(",;:{}[]()<>|@!+-*/%~&^=?.")) PUNCT[c] = 1;

function isName(c: number): boolean {
  return c < 128 && NAME[c] === 1;
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export class Lexer {
  readonly src: string;
  private readonly len: number;
  private pos = 0;
  private line = 1;
  private lineStart = 0;

  /** Current token. */
  kind: TokenKind = "eof";
  start = 0;
  end = 0;
  tokLine = 1;
  tokCol = 1;
  /** For `punct`: the (first) character code; `ch2` the second one of a two-character operator, else 0. */
  ch = 0;
  ch2 = 0;
  /** End offset of the previous token. */
  prevEnd = 0;
  /** Whitespace or a comment separates this token from the previous one. */
  spaced = true;
  /** A line break separates this token from the previous one. */
  newline = true;
  /** For `bad`: what is wrong. */
  badMessage = "";
  /** Problems found in comments; the parser turns them into diagnostics. */
  readonly errors: LexError[] = [];

  constructor(src: string) {
    this.src = src;
    this.len = src.length;
    this.next();
  }

  /** Whether a name (`%r1`, `x`, `_`) follows the current token, after blanks only: a one-token look-ahead for `-%r1`. */
  nameFollows(): boolean {
    let i = this.end;
    while (i < this.len && (this.src.charCodeAt(i) === 32 || this.src.charCodeAt(i) === 9 || this.src.charCodeAt(i) === 10 || this.src.charCodeAt(i) === 13)) i++;
    const c = this.src.charCodeAt(i);
    return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c === 37;
  }

  /** The current token's kind (a method, so that TypeScript does not narrow it across `next()`). */
  k(): TokenKind {
    return this.kind;
  }

  /** The current token's text. */
  text(): string {
    return this.src.slice(this.start, this.end);
  }

  /** True when the current token is the one-character punctuation `c` (a char code). */
  isPunct(c: number): boolean {
    return this.kind === "punct" && this.ch === c && this.ch2 === 0;
  }

  /** Advance to the next token. */
  next(): void {
    this.prevEnd = this.end;
    this.skipSpace();
    const src = this.src;
    const start = this.pos;
    this.start = start;
    this.tokLine = this.line;
    this.tokCol = start - this.lineStart + 1;
    this.ch = 0;
    this.ch2 = 0;
    if (start >= this.len) {
      this.kind = "eof";
      this.end = start;
      return;
    }
    const c = src.charCodeAt(start);
    if (c < 128 && NAME_START[c] === 1) {
      let p = start + 1;
      while (p < this.len && isName(src.charCodeAt(p))) p++;
      if (c === 37 /* % */ && p === start + 1) {
        this.punct(c, start);
        return;
      }
      this.kind = "ident";
      this.end = this.pos = p;
      return;
    }
    if (isDigit(c)) {
      this.number(start);
      return;
    }
    if (c === 46 /* . */ && start + 1 < this.len && isName(src.charCodeAt(start + 1))) {
      let p = start + 1;
      for (;;) {
        while (p < this.len && isName(src.charCodeAt(p))) p++;
        if (p + 2 < this.len && src.charCodeAt(p) === 58 && src.charCodeAt(p + 1) === 58 && isName(src.charCodeAt(p + 2))) {
          p += 2;
          continue;
        }
        break;
      }
      this.kind = "dot";
      this.end = this.pos = p;
      return;
    }
    if (c === 34 /* " */) {
      this.string(start);
      return;
    }
    if (c < 128 && PUNCT[c] === 1) {
      this.punct(c, start);
      return;
    }
    // A stray byte: one code point (keep surrogate pairs together).
    let p = start + 1;
    if (c >= 0xd800 && c <= 0xdbff && p < this.len) p++;
    this.kind = "bad";
    this.badMessage = "invalid";
    this.end = this.pos = p;
  }

  private punct(c: number, start: number): void {
    this.kind = "punct";
    this.ch = c;
    if (start + 1 < this.len) {
      const c2 = this.src.charCodeAt(start + 1);
      if (TWO_CHAR.has(c * 256 + c2)) {
        this.ch2 = c2;
        this.end = this.pos = start + 2;
        return;
      }
    }
    this.end = this.pos = start + 1;
  }

  private string(start: number): void {
    const src = this.src;
    let p = start + 1;
    while (p < this.len) {
      const c = src.charCodeAt(p);
      if (c === 34) {
        this.kind = "string";
        this.end = this.pos = p + 1;
        return;
      }
      if (c === 10) break;
      p += c === 92 /* \ */ ? 2 : 1;
    }
    this.kind = "bad";
    this.badMessage = "unterminated string";
    this.end = this.pos = Math.min(p, this.len);
  }

  /** Numbers: classify by prefix; any name character glued to the end makes the token bad. */
  private number(start: number): void {
    const src = this.src;
    const len = this.len;
    let p = start;
    const c0 = src.charCodeAt(p);
    const c1 = p + 1 < len ? src.charCodeAt(p + 1) | 0x20 : 0; // lower-cased
    let kind: TokenKind = "int";
    let ok = true;
    if (c0 === 48 && (c1 === 0x78 /* x */ || c1 === 0x62 /* b */)) {
      p += 2;
      const q = p;
      if (c1 === 0x78) while (p < len && src.charCodeAt(p) < 128 && HEX[src.charCodeAt(p)] !== 0) p++;
      else while (p < len && (src.charCodeAt(p) === 48 || src.charCodeAt(p) === 49)) p++;
      ok = p > q;
      if (ok && p < len && src.charCodeAt(p) === 85 /* U */) p++;
    } else if (c0 === 48 && (c1 === 0x66 /* f */ || c1 === 0x64 /* d */)) {
      p += 2;
      const q = p;
      while (p < len && src.charCodeAt(p) < 128 && HEX[src.charCodeAt(p)] !== 0) p++;
      kind = "hexfloat";
      ok = p - q === (c1 === 0x66 ? 8 : 16);
    } else {
      while (p < len && isDigit(src.charCodeAt(p))) p++;
      let isFloat = false;
      if (p < len && src.charCodeAt(p) === 46 /* . */) {
        const n = p + 1 < len ? src.charCodeAt(p + 1) : 0;
        // `1.5`, `1.` are floats; `5.b0` is the int 5 followed by `.b0`.
        if (isDigit(n) || !isName(n)) {
          isFloat = true;
          p++;
          while (p < len && isDigit(src.charCodeAt(p))) p++;
        }
      }
      if (p < len && (src.charCodeAt(p) | 0x20) === 0x65 /* e */) {
        let q = p + 1;
        if (q < len && (src.charCodeAt(q) === 43 || src.charCodeAt(q) === 45)) q++;
        if (q < len && isDigit(src.charCodeAt(q))) {
          isFloat = true;
          p = q;
          while (p < len && isDigit(src.charCodeAt(p))) p++;
        }
      }
      if (isFloat) kind = "float";
      else {
        if (c0 === 48) for (let i = start + 1; i < p; i++) if (src.charCodeAt(i) > 55) ok = false; // octal digits only
        if (p < len && src.charCodeAt(p) === 85 /* U */) p++;
      }
    }
    if (p < len && isName(src.charCodeAt(p))) {
      ok = false;
      while (p < len && isName(src.charCodeAt(p))) p++;
    }
    this.end = this.pos = p;
    if (ok) this.kind = kind;
    else {
      this.kind = "bad";
      this.badMessage = "malformed number";
    }
  }

  private skipSpace(): void {
    const src = this.src;
    const len = this.len;
    let p = this.pos;
    let spaced = false;
    let newline = false;
    while (p < len) {
      const c = src.charCodeAt(p);
      if (c === 10) {
        p++;
        this.line++;
        this.lineStart = p;
        spaced = newline = true;
      } else if (c === 32 || c === 9 || c === 13 || c === 11 || c === 12) {
        p++;
        spaced = true;
      } else if (c === 47 /* / */ && p + 1 < len && src.charCodeAt(p + 1) === 47) {
        const nl = src.indexOf("\n", p + 2);
        p = nl < 0 ? len : nl;
        spaced = true;
      } else if (c === 47 && p + 1 < len && src.charCodeAt(p + 1) === 42 /* * */) {
        const close = src.indexOf("*/", p + 2);
        const stop = close < 0 ? len : close + 2;
        const line = this.line;
        const col = p - this.lineStart + 1;
        for (let i = p + 2; i < stop; i++) {
          if (src.charCodeAt(i) === 10) {
            this.line++;
            this.lineStart = i + 1;
            newline = true;
          }
        }
        if (close < 0) this.errors.push({ line, col, message: "Unterminated /* comment" });
        p = stop;
        spaced = true;
      } else break;
    }
    this.pos = p;
    this.spaced = spaced || p === 0;
    this.newline = newline || p === 0;
  }
}

/**
 * The 64-bit value of an integer literal token as ptxas computes it: digits accumulate
 * modulo 2^64, and a digit that arrives while bit 63 is already set is an overflow
 * ("Constant overflow"). This reproduces ptxas 13.0 exactly: `0x7ffffffffffffffff`
 * (17 digits) is accepted and wraps, `0x80000000000000000` is rejected.
 */
export function parseIntLiteral(text: string): { value: bigint; overflow: boolean } {
  let p = 0;
  let end = text.length;
  if (end > 0 && text.charCodeAt(end - 1) === 85 /* U */) end--;
  let base = 10;
  if (end >= 2 && text.charCodeAt(0) === 48) {
    const c1 = text.charCodeAt(1) | 0x20;
    if (c1 === 0x78) {
      base = 16;
      p = 2;
    } else if (c1 === 0x62) {
      base = 2;
      p = 2;
    } else {
      base = 8;
      p = 1;
    }
  }
  // Fast path: few enough digits that a double is exact and bit 63 cannot be reached.
  const digits = end - p;
  const safe = base === 16 ? 13 : base === 10 ? 15 : base === 8 ? 17 : 52;
  if (digits <= safe) {
    let v = 0;
    for (let i = p; i < end; i++) v = v * base + (HEX[text.charCodeAt(i)] - 1);
    return { value: BigInt(v), overflow: false };
  }
  const B = BigInt(base);
  const MASK = (1n << 64n) - 1n;
  const TOP = 1n << 63n;
  let v = 0n;
  for (let i = p; i < end; i++) {
    if ((v & TOP) !== 0n) return { value: v, overflow: true };
    v = (v * B + BigInt(HEX[text.charCodeAt(i)] - 1)) & MASK;
  }
  return { value: v, overflow: false };
}

/** The IEEE bits of a hex float token `0fXXXXXXXX` / `0dXXXXXXXXXXXXXXXX`. */
export function parseHexFloat(text: string): { bits: bigint; width: 32 | 64 } {
  return { bits: BigInt("0x" + text.slice(2)), width: (text.charCodeAt(1) | 0x20) === 0x66 ? 32 : 64 };
}
