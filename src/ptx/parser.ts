/**
 * @fileoverview Hand-written recursive-descent parser for whole PTX modules as nvcc and
 * hand-written inline assembly produce them (PTX ISA "Syntax", "State spaces, types and
 * variables", "Directives").
 *
 * Guarantees, whatever the input (fuzzers feed it random bytes):
 * - it never throws: every problem becomes a diagnostic, and an unexpected internal failure
 *   becomes an "Internal error" diagnostic with the tree parsed so far;
 * - it recovers: after an error it skips to the end of the statement (`;`, or the `}` that
 *   closes the enclosing block) and goes on, so every error in a file is reported (up to
 *   `MAX_ERRORS`);
 * - it does not recurse without bound: blocks are parsed with an explicit stack (deeper than
 *   `MAX_BLOCK_DEPTH` is a diagnostic), constant expressions stop at `MAX_EXPR_DEPTH`,
 *   initialisers are skipped by counting braces;
 * - it is linear: a pull lexer without token objects, no regular expressions, no
 *   per-character string building.
 *
 * Every instruction — of any opcode — becomes an `Instruction` node; which instructions are
 * legal is src/ir/build.ts's concern, not the parser's.
 */
import type { Loc } from "../ir/ir.js";
import { type Diagnostic, error, messages } from "../diag.js";
import type {
  AstGuard,
  Block,
  Declarator,
  Directive,
  FunctionDecl,
  Instruction,
  Module,
  Operand,
  Statement,
  TopLevel,
  VarDecl,
} from "./ast.js";
import { Lexer, parseHexFloat, parseIntLiteral } from "./lexer.js";
import { PTX_VERSIONS, PTXAS_PTX_VERSION, TARGET_QUALIFIERS, archOfTarget, targetMinVersion } from "./targets.js";

/** Deepest `{ }` nesting accepted in a function body. */
export const MAX_BLOCK_DEPTH = 256;
/** Deepest nesting of parentheses, unary operators and operand lists in one operand. */
export const MAX_EXPR_DEPTH = 128;
/** Parsing stops after this many syntax errors. */
export const MAX_ERRORS = 1000;

/** The parse of one module: the tree (possibly partial) and every syntax diagnostic. */
export interface ParseResult {
  module: Module;
  diagnostics: Diagnostic[];
}

/** Options of `parsePtx`. */
export interface ParseOptions {
  /**
   * Called with each top-level item (function, variable, directive) as soon as it has been
   * parsed, in source order, with the module as parsed so far (`.version` and `.target` are
   * set when their directives are read). Returning false leaves the item out of
   * `module.items`, so that a caller that handles functions one at a time need not keep their
   * bodies. The callback must not throw.
   */
  onItem?: (item: TopLevel, module: Module) => boolean;
}

/** Parse a PTX module. Never throws; see the file comment. */
export function parsePtx(text: string, file: string, opts: ParseOptions = {}): ParseResult {
  const p = new Parser(text, file, opts.onItem ?? null);
  // ptxas rejects any non-ASCII byte, even in a comment, before it parses anything: its
  // "Unexpected non-ASCII character encountered on line N" is fatal and the only message it
  // prints (ptxas 13.0, checked with an unknown opcode on an earlier line). So here too: that
  // one error, no item handed to `onItem`, and the module marked fatal (nothing is checked).
  const bad = text.search(/[^\x00-\x7f]/);
  if (bad >= 0) {
    const line = lineOf(text, bad);
    const lineStart = text.lastIndexOf("\n", bad - 1) + 1;
    p.module.fatal = true;
    return { module: p.module, diagnostics: [error({ file, line, col: bad - lineStart + 1 }, messages.nonAscii(line))] };
  }
  try {
    p.parseModule();
  } catch (e) {
    if (!(e instanceof TooManyErrors)) p.diags.push(error(p.here(), messages.internalError(e instanceof Error ? e.message : String(e))));
  }
  for (const le of p.lx.errors) p.diags.push(error({ file, line: le.line, col: le.col }, le.message));
  p.diags.sort((a, b) => a.loc.line - b.loc.line);
  return { module: p.module, diagnostics: p.diags };
}

/** The 1-based line of offset `at` in `text`. */
function lineOf(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < at; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Unwinds the current statement after a reported syntax error. */
class SyntaxFail {}
/** Unwinds everything once `MAX_ERRORS` is reached. */
class TooManyErrors {}

const SPACES = new Set(["reg", "param", "shared", "local", "global", "const", "tex", "sreg", "surf", "sampler"]);
const LINKAGE = new Set(["visible", "extern", "weak", "common"]);
const TYPES = new Set([
  "b1", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
  "f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "tf32", "e4m3", "e5m2", "e4m3x2", "e5m2x2", "pred",
  "texref", "samplerref", "surfref",
]);
/** Directives that end at the end of their line (no `;`). */
const LINE_DIRECTIVES = new Set(["version", "target", "address_size", "file", "loc"]);
/** Line directives that another directive may follow on the same line. */
const HEADER_DIRECTIVES = new Set(["version", "target", "address_size"]);
/** Performance-tuning and other directives allowed between a function header and its body. */
const FUNC_ATTRS = new Set([
  "maxntid", "reqntid", "minnctapersm", "maxnctapersm", "maxnreg", "maxclusterrank", "reqnctapercluster",
  "explicitcluster", "noreturn", "pragma", "abi_preserve", "abi_preserve_control", "blocksareclusters",
]);

const C = (s: string) => s.charCodeAt(0);
const SEMI = C(";");
const COMMA = C(",");
const COLON = C(":");
const LBRACE = C("{");
const RBRACE = C("}");
const LBRACK = C("[");
const RBRACK = C("]");
const LPAREN = C("(");
const RPAREN = C(")");
const LT = C("<");
const GT = C(">");
const AT = C("@");
const BANG = C("!");
const BAR = C("|");
const PLUS = C("+");
const MINUS = C("-");
const TILDE = C("~");
const EQ = C("=");

const M64 = (1n << 64n) - 1n;
const wrap = (v: bigint) => v & M64;
const signed = (v: bigint) => BigInt.asIntN(64, v);

/** Binary operator precedence (C's), keyed by `ch * 256 + ch2`. */
const BINARY = new Map<number, number>([
  [C("*") * 256, 10], [C("/") * 256, 10], [C("%") * 256, 10],
  [C("+") * 256, 9], [C("-") * 256, 9],
  [C("<") * 256 + C("<"), 8], [C(">") * 256 + C(">"), 8],
  [C("<") * 256, 7], [C(">") * 256, 7], [C("<") * 256 + C("="), 7], [C(">") * 256 + C("="), 7],
  [C("=") * 256 + C("="), 6], [C("!") * 256 + C("="), 6],
  [C("&") * 256, 5], [C("^") * 256, 4], [C("|") * 256, 3],
  [C("&") * 256 + C("&"), 2], [C("|") * 256 + C("|"), 1],
]);

class Parser {
  readonly lx: Lexer;
  readonly diags: Diagnostic[] = [];
  readonly module: Module;
  private readonly src: string;
  private readonly file: string;
  /** `{` of vector operands opened in the current statement, for recovery. */
  private openBraces = 0;
  /** Where the last `|` of a pair operand was (for "Parsing error near '|'"). */
  private lastBar: Loc | null = null;
  /** ptxas's module header: `.version` first, `.target` second, neither again. 0: `.version` expected, 1: `.target` expected, 2: both seen, 3: an error was reported. */
  private header = 0;
  /** The `.version` number as written (`8.10`), for ptxas's messages that quote it. */
  private versionText = "";
  /** A header error fatal to ptxas was reported (`fatalHeader`): no further diagnostic. */
  private stopped = false;

  constructor(
    src: string,
    file: string,
    private readonly onItem: ((item: TopLevel, module: Module) => boolean) | null,
  ) {
    // A lone CR ends a line, as it does for ptxas (classic Mac line endings); CRLF stays one
    // line break. One character for one, so every offset into the text is unchanged.
    if (src.includes("\r")) src = src.replace(/\r(?!\n)/g, "\n");
    this.src = src;
    this.file = file;
    this.lx = new Lexer(src);
    this.module = { kind: "module", file, version: null, target: null, addressSize: null, items: [] };
  }

  // ---------------------------------------------------------------- helpers

  here(): Loc {
    return { file: this.file, line: this.lx.tokLine, col: this.lx.tokCol };
  }

  private report(loc: Loc, message: string): void {
    // After a header error that is fatal to ptxas, ptxas says nothing more.
    if (this.stopped) return;
    if (this.diags.length >= MAX_ERRORS) {
      this.diags.push(error(loc, messages.tooManyErrors(MAX_ERRORS)));
      throw new TooManyErrors();
    }
    this.diags.push(error(loc, message));
  }

  /** Report a syntax error at the current token and unwind the statement. */
  private fail(what?: string): never {
    this.report(this.here(), this.nearMessage(what));
    throw new SyntaxFail();
  }

  private nearMessage(what?: string): string {
    const lx = this.lx;
    if (lx.k() === "eof") return what ? messages.expected(what, "end of file") : messages.parseError("end of file");
    if (lx.k() === "bad" && lx.badMessage === "unterminated string") return messages.unterminatedString();
    let near = lx.text();
    if (near.length > 24) near = near.slice(0, 24) + "…";
    if (lx.k() === "bad" && lx.badMessage === "invalid") return messages.invalidCharacter(near);
    return what ? messages.expected(what, near) : messages.parseError(near);
  }

  private expectPunct(c: number): void {
    if (!this.lx.isPunct(c)) this.fail(`'${String.fromCharCode(c)}'`);
    this.lx.next();
  }

  private dotName(): string {
    return this.src.slice(this.lx.start + 1, this.lx.end);
  }

  private expectInt(): number {
    const lx = this.lx;
    if (lx.k() !== "int") this.fail("an integer");
    const { value } = parseIntLiteral(lx.text());
    lx.next();
    return value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(value);
  }

  /** Skip the rest of a statement after an error inside a function body. */
  private skipStatement(): void {
    const lx = this.lx;
    let depth = this.openBraces;
    this.openBraces = 0;
    for (;;) {
      if (lx.k() === "eof") return;
      if (lx.k() === "punct") {
        if (lx.ch === SEMI) {
          lx.next();
          return;
        }
        if (lx.ch === LBRACE) {
          if (depth === 0 && lx.newline) return; // a nested block starts on its own line
          depth++;
        } else if (lx.ch === RBRACE) {
          if (depth === 0) return;
          depth--;
        }
      }
      lx.next();
    }
  }

  /** Skip a balanced `{ … }` starting at the current `{`, iteratively. */
  private skipBalanced(): void {
    const lx = this.lx;
    let depth = 0;
    do {
      if (lx.k() === "punct") {
        if (lx.ch === LBRACE) depth++;
        else if (lx.ch === RBRACE) depth--;
      }
      lx.next();
    } while (depth > 0 && lx.k() !== "eof");
  }

  /** Skip the rest of a top-level statement after an error. */
  private skipTopLevel(): void {
    const lx = this.lx;
    this.openBraces = 0;
    let first = true;
    for (;;) {
      if (lx.k() === "eof") return;
      if (!first && lx.k() === "dot" && lx.newline) return;
      first = false;
      if (lx.k() === "punct") {
        if (lx.ch === SEMI) {
          lx.next();
          return;
        }
        if (lx.ch === LBRACE) {
          this.skipBalanced();
          return;
        }
        if (lx.ch === RBRACE) {
          lx.next();
          return;
        }
      }
      lx.next();
    }
  }

  /** Consume the tokens of a directive up to (and including) `;`; returns the text before it. */
  private restUntilSemicolon(): string {
    const lx = this.lx;
    const start = lx.start;
    let end = start;
    while (lx.k() !== "eof" && !lx.isPunct(SEMI)) {
      if (lx.isPunct(LBRACE) || lx.isPunct(RBRACE) || lx.k() === "bad") this.fail("';'");
      end = lx.end;
      lx.next();
    }
    if (lx.k() === "eof") this.fail("';'");
    lx.next();
    return this.src.slice(start, end).trim();
  }

  /** Consume the tokens that remain on the current line; returns their text. */
  private restOfLine(): string {
    const lx = this.lx;
    const start = lx.start;
    let end = start;
    while (lx.k() !== "eof" && !lx.newline) {
      if (lx.k() === "bad") this.report(this.here(), this.nearMessage());
      end = lx.end;
      lx.next();
    }
    return this.src.slice(start, end).trim();
  }

  // ---------------------------------------------------------------- module level

  /** A parsed top-level item: to the callback, and into `module.items` unless it declines. */
  private emit(item: TopLevel): void {
    if (this.onItem && !this.onItem(item, this.module)) return;
    this.module.items.push(item);
  }

  parseModule(): void {
    const lx = this.lx;
    while (lx.k() !== "eof") {
      try {
        this.parseTopLevel();
      } catch (e) {
        if (!(e instanceof SyntaxFail)) throw e;
        this.skipTopLevel();
      }
    }
    // An empty module, or one that ends after `.version`: ptxas says what is missing.
    if (this.header < 2) this.module.fatal = true;
    if (this.header < 2 && this.diags.length === 0) this.report(this.header === 0 ? { file: this.file, line: 1, col: 1 } : this.here(), messages.missingHeader(this.header === 0 ? "version" : "target"));
  }

  /**
   * ptxas requires `.version` as the first statement and `.target` as the second, and rejects
   * either one anywhere later (a syntax error). Reported once; parsing goes on.
   */
  private checkHeader(name: string, loc: Loc): void {
    if (this.header === 0 || this.header === 1) {
      const want = this.header === 0 ? "version" : "target";
      if (name === want) this.header++;
      else {
        // Without its header the module has no target: nothing in it is checked (as ptxas,
        // whose error is fatal, checks nothing more).
        this.module.fatal = true;
        if (this.diags.length > 0) this.header = 3; // an earlier error explains it already
        else this.fatalHeader(loc, messages.missingHeader(want)); // fatal in ptxas: nothing more is said
      }
    } else if (this.header === 2 && (name === "version" || name === "target")) this.report(loc, messages.parseError(`.${name}`));
  }

  /**
   * A `;` where a statement or directive should start (an empty statement, `…;;`): ptxas 13.0
   * rejects it, `Parsing error near ';': syntax error`, at top level and in a body alike.
   */
  private straySemicolon(): void {
    this.report(this.here(), messages.parseError(";"));
    this.lx.next();
  }

  private parseTopLevel(): void {
    const lx = this.lx;
    if (lx.k() === "punct" && lx.ch === SEMI) {
      this.straySemicolon();
      return;
    }
    if (lx.k() === "punct" && lx.ch === RBRACE) {
      this.report(this.here(), messages.unbalancedBrace());
      lx.next();
      return;
    }
    if (lx.k() !== "dot") this.fail("a directive");
    const loc = this.here();
    const name = this.dotName();
    const headerBefore = this.header;
    this.checkHeader(name, loc);
    if (LINE_DIRECTIVES.has(name)) {
      this.emit(this.lineDirective(name, loc, this.header !== headerBefore && this.header < 3));
      return;
    }
    if (name === "section") {
      lx.next();
      const start = lx.start;
      while (lx.k() !== "eof" && !lx.isPunct(LBRACE) && !lx.isPunct(SEMI)) lx.next();
      const args = this.src.slice(start, lx.start).trim();
      if (lx.isPunct(LBRACE)) this.skipBalanced();
      else if (lx.isPunct(SEMI)) lx.next();
      this.emit({ kind: "directive", name, args, loc });
      return;
    }
    if (name === "pragma" || name === "alias") {
      lx.next();
      this.emit({ kind: "directive", name, args: this.restUntilSemicolon(), loc });
      return;
    }
    if (LINKAGE.has(name) || name === "entry" || name === "func" || SPACES.has(name)) {
      const linkage: string[] = [];
      while (lx.k() === "dot" && LINKAGE.has(this.dotName())) {
        linkage.push(this.dotName());
        lx.next();
      }
      if (lx.k() === "dot" && (this.dotName() === "entry" || this.dotName() === "func")) {
        this.emit(this.parseFunction(linkage, loc));
        return;
      }
      if (lx.k() !== "dot" || !SPACES.has(this.dotName())) this.fail("'.entry', '.func' or a state space");
      this.emit(this.parseVarDecl(linkage, loc));
      return;
    }
    this.report(loc, messages.unknownDirective(name));
    throw new SyntaxFail(); // skipTopLevel consumes it and stops at the next directive line
  }

  /** `.version`, `.target`, `.address_size`, `.file`, `.loc`: no `;`, they end with the line. */
  /** `header`: this is the module's header `.version` / `.target`, to be checked as ptxas checks it. */
  private lineDirective(name: string, loc: Loc, header = false): Directive {
    const lx = this.lx;
    lx.next();
    const start = lx.start;
    const m = this.module;
    if (name === "version") {
      if ((lx.k() === "float" || lx.k() === "int") && !lx.newline) {
        const text = lx.text();
        const [maj, min] = text.split(".");
        m.version = { major: Number(maj), minor: Number(min ?? "0") || 0, loc };
        if (header) this.checkVersion(text, lx.k() === "int", this.here());
      } else if (header) this.fatalHeader(loc, messages.missingHeader("version")); // `.version -8.5`, `.version .5`, the number on the next line: ptxas 13.0
      else this.report(this.here(), this.nearMessage("a version number"));
    } else if (name === "target") {
      const names: string[] = [];
      const locs: Loc[] = [];
      let broken = false;
      // ptxas's grammar: NAME (, NAME)*, a name after a comma (or the first) on the same line
      // or a later one; the list ends at the end of a line or where another directive starts
      // on it (`.version 8.5 .target sm_90 .address_size 64` on one line). Anything else — no
      // name, two names without a comma, a comma with no name after it — is ptxas's fatal
      // "Parsing error near 'X': syntax error", at X.
      let wantName = true;
      while (true) {
        if (wantName) {
          if (lx.k() === "ident") {
            names.push(lx.text());
            locs.push(this.here());
            wantName = false;
            lx.next();
            continue;
          }
        } else {
          if (lx.k() === "eof" || lx.newline || lx.k() === "dot") break;
          if (lx.isPunct(COMMA)) {
            wantName = true;
            lx.next();
            continue;
          }
        }
        const message = lx.k() === "dot" ? messages.parseError(`.${this.dotName()}`) : this.nearMessage();
        if (header) this.fatalHeader(this.here(), message);
        else this.report(this.here(), message);
        broken = true;
        break;
      }
      m.target = { names, loc };
      if (header && !broken && names.length > 0) this.checkTarget(names, locs);
    } else if (name === "address_size") {
      if (lx.k() === "int" && !lx.newline) m.addressSize = Number(parseIntLiteral(lx.text()).value);
      else this.report(this.here(), this.nearMessage("32 or 64"));
    }
    // `.version`, `.target` and `.address_size` end where the next directive starts, on the
    // same line or not; the others (`.file`, `.loc`) at the end of the line.
    if (name === "version" || name === "address_size") {
      if (!lx.newline && lx.k() !== "eof" && lx.k() !== "dot") lx.next();
      // ptxas 13.0: anything but a directive after the header's version on its line
      // (`.version 8.5 foo`, `.version 8.5;`) is "Missing .target directive", at line 1.
      if (name === "version" && header && !this.stopped && !lx.newline && lx.k() !== "eof" && lx.k() !== "dot") this.fatalHeader(loc, messages.missingHeader("target"));
    }
    if (!(HEADER_DIRECTIVES.has(name) && !lx.newline && lx.k() === "dot")) this.restOfLine();
    const args = this.src.slice(start, Math.max(start, lx.prevEnd)).trim();
    return { kind: "directive", name, args, loc };
  }

  /**
   * The header's `.version` (ptxas 13.0, src/ptx/targets.ts): `.version 8` and `8.` are no
   * version ("Missing .version", as ptxas says), `8.5e0` is a version followed by something
   * else ("Missing .target"), one ptxas does not know is "Unsupported .version"; all fatal in
   * ptxas (`fatalHeader`): the module is not checked further.
   */
  private checkVersion(text: string, integer: boolean, at: Loc): void {
    this.versionText = text;
    const v = this.module.version!;
    // ptxas 13.0: `8` and `8.` are no version ("Missing .version"); `8.5e0` is read as a
    // version followed by something that is not `.target` ("Missing .target"), both at line 1.
    if (integer || /^\d+\.$/.test(text)) return this.fatalHeader(v.loc, messages.missingHeader("version"));
    if (!/^\d+\.\d+$/.test(text)) return this.fatalHeader(v.loc, messages.missingHeader("target"));
    if (!PTX_VERSIONS.has(v.major * 10 + v.minor)) this.fatalHeader(at, messages.unsupportedVersion(text, PTXAS_PTX_VERSION));
  }

  /** A header error fatal to ptxas: reported; the module is not checked, and nothing more is said. */
  private fatalHeader(at: Loc, message: string): void {
    this.report(at, message);
    this.header = 3;
    this.module.fatal = true;
    this.stopped = true;
  }

  /**
   * The header's `.target` (ptxas 13.0, src/ptx/targets.ts). Fatal, as in ptxas (the module
   * is not checked further): a first name that is no architecture ("Target architecture not
   * defined"), a name ptxas does not know ("Unsupported .target"). Errors, after which the
   * module is checked: a `.version` older than a target needs (ptxas names the last
   * architecture and requires the highest minimum of them all), `map_f64_to_f32` with sm_13
   * or later, `texmode_unified` with `texmode_independent`.
   */
  private checkTarget(names: string[], locs: Loc[]): void {
    if (archOfTarget(names[0]) === null) return this.fatalHeader(locs[0], messages.targetNotDefined(this.file));
    for (let i = 0; i < names.length; i++) {
      if (i > 0 && TARGET_QUALIFIERS.has(names[i])) continue;
      if (targetMinVersion(names[i]) === null) return this.fatalHeader(locs[i], messages.unsupportedTarget(names[i]));
    }
    const v = this.module.version;
    let need: readonly [number, number] = [0, 0];
    let last = 0;
    for (let i = 0; i < names.length; i++) {
      const min = targetMinVersion(names[i]);
      if (min === null) continue;
      last = i;
      if (min[0] > need[0] || (min[0] === need[0] && min[1] > need[1])) need = min;
    }
    // In ptxas's order: map_f64_to_f32, the texmodes, then the version. map_f64_to_f32 is
    // judged by the architecture written before it (`sm_12, map_f64_to_f32, sm_90` is fine).
    const map = names.indexOf("map_f64_to_f32");
    let before = map - 1;
    while (before >= 0 && targetMinVersion(names[before]) === null) before--;
    if (map > 0 && before >= 0 && parseInt(archOfTarget(names[before])!, 10) >= 13) this.report(locs[map], messages.mapF64NotSupported());
    const unified = names.indexOf("texmode_unified");
    const independent = names.indexOf("texmode_independent");
    if (unified > 0 && independent > 0) {
      const second = Math.max(unified, independent);
      this.report(locs[second], messages.conflictingTarget(names[second]));
    }
    if (v !== null && (v.major < need[0] || (v.major === need[0] && v.minor < need[1]))) this.report(locs[last], messages.versionTarget(this.versionText, names[last]));
  }

  private parseFunction(linkage: string[], loc: Loc): FunctionDecl {
    const lx = this.lx;
    const entry = this.dotName() === "entry";
    lx.next();
    let rets: VarDecl[] = [];
    const attrs = [...linkage];
    while (lx.k() === "dot") {
      attrs.push(this.dotName()); // `.func .attribute` and the like
      lx.next();
      if (lx.isPunct(LPAREN) && attrs[attrs.length - 1] === "attribute") this.skipParens();
    }
    if (!entry && lx.isPunct(LPAREN)) rets = this.paramList();
    if (lx.k() !== "ident") this.fail("a function name");
    const name = lx.text();
    const fn: FunctionDecl = { kind: "function", entry, linkage: attrs, name, rets, params: [], perf: [], body: null, loc };
    lx.next();
    if (lx.isPunct(LPAREN)) fn.params = this.paramList();
    while (lx.k() === "dot") {
      const dloc = this.here();
      const dname = this.dotName();
      if (!FUNC_ATTRS.has(dname)) this.report(dloc, messages.unknownDirective(dname));
      lx.next();
      const start = lx.start;
      let end = start;
      while (lx.k() !== "eof" && lx.k() !== "dot" && !lx.isPunct(LBRACE) && !lx.isPunct(SEMI)) {
        end = lx.end;
        lx.next();
      }
      fn.perf.push({ kind: "directive", name: dname, args: this.src.slice(start, end).trim(), loc: dloc });
      if (dname === "pragma" && lx.isPunct(SEMI)) lx.next();
    }
    if (lx.isPunct(SEMI)) {
      lx.next();
      return fn;
    }
    if (!lx.isPunct(LBRACE)) this.fail("'{' or ';'");
    fn.body = this.parseBody();
    return fn;
  }

  private skipParens(): void {
    const lx = this.lx;
    let depth = 0;
    do {
      if (lx.isPunct(LPAREN)) depth++;
      else if (lx.isPunct(RPAREN)) depth--;
      else if (lx.isPunct(LBRACE) || lx.isPunct(SEMI)) return;
      lx.next();
    } while (depth > 0 && lx.k() !== "eof");
  }

  /** `( decl, decl, … )`; a broken parameter is reported and skipped up to `,` or `)`. */
  private paramList(): VarDecl[] {
    const lx = this.lx;
    const out: VarDecl[] = [];
    lx.next(); // (
    if (lx.isPunct(RPAREN)) {
      lx.next();
      return out;
    }
    for (;;) {
      try {
        out.push(this.parseParam());
      } catch (e) {
        if (!(e instanceof SyntaxFail)) throw e;
        while (lx.k() !== "eof" && !lx.isPunct(COMMA) && !lx.isPunct(RPAREN) && !lx.isPunct(LBRACE) && !lx.isPunct(SEMI)) lx.next();
        if (!lx.isPunct(COMMA) && !lx.isPunct(RPAREN)) return out;
      }
      if (lx.isPunct(COMMA)) {
        lx.next();
        continue;
      }
      if (lx.isPunct(RPAREN)) {
        lx.next();
        return out;
      }
      this.fail("',' or ')'");
    }
  }

  private parseParam(): VarDecl {
    const loc = this.here();
    const decl = this.declSpec([], loc);
    decl.declarators.push(this.declarator(false));
    return decl;
  }

  /** The dotted part of a declaration: state space, `.align N`, `.vN`, type, attributes. */
  private declSpec(linkage: string[], loc: Loc): VarDecl {
    const lx = this.lx;
    if (lx.k() !== "dot") this.fail("a state space");
    const decl: VarDecl = { kind: "var", space: this.dotName(), type: null, vector: null, align: null, attrs: [...linkage], declarators: [], loc };
    lx.next();
    while (lx.k() === "dot") {
      const n = this.dotName();
      lx.next();
      if (n === "align") decl.align = this.expectInt();
      else if (n === "v2" || n === "v4" || n === "v8") decl.vector = Number(n.slice(1));
      else if (TYPES.has(n)) decl.type = n;
      else decl.attrs.push(n);
    }
    return decl;
  }

  /** `name`, `name<N>`, `name[N]…`, each optionally `= initialiser` (skipped). */
  private declarator(allowInit: boolean): Declarator {
    const lx = this.lx;
    if (lx.k() !== "ident") this.fail("a name");
    const d: Declarator = { name: lx.text(), range: null, dims: [], init: false, loc: this.here() };
    lx.next();
    if (lx.isPunct(LT)) {
      lx.next();
      d.range = this.expectInt();
      this.expectPunct(GT);
    }
    while (lx.isPunct(LBRACK)) {
      lx.next();
      if (lx.isPunct(RBRACK)) d.dims.push(null);
      else d.dims.push(this.expectInt());
      this.expectPunct(RBRACK);
    }
    if (allowInit && lx.isPunct(EQ)) {
      d.init = true;
      lx.next();
      let depth = 0;
      while (lx.k() !== "eof") {
        if (lx.k() === "punct") {
          if (lx.ch === LBRACE || lx.ch === LPAREN) depth++;
          else if (lx.ch === RBRACE || lx.ch === RPAREN) {
            if (depth === 0) this.fail();
            depth--;
          } else if (depth === 0 && (lx.ch === COMMA || lx.ch === SEMI)) break;
        }
        lx.next();
      }
    }
    return d;
  }

  private parseVarDecl(linkage: string[], loc: Loc): VarDecl {
    const lx = this.lx;
    const decl = this.declSpec(linkage, loc);
    for (;;) {
      decl.declarators.push(this.declarator(true));
      if (lx.isPunct(COMMA)) {
        lx.next();
        continue;
      }
      this.expectPunct(SEMI);
      return decl;
    }
  }

  // ---------------------------------------------------------------- function bodies

  /** `{ … }` with nested scopes, parsed with an explicit stack (no recursion). */
  private parseBody(): Block {
    const lx = this.lx;
    const root: Block = { kind: "block", stmts: [], loc: this.here() };
    const stack: Block[] = [root];
    lx.next();
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (lx.k() === "eof") {
        this.report(this.here(), messages.missingBrace());
        break;
      }
      if (lx.k() === "punct" && lx.ch === RBRACE && lx.ch2 === 0) {
        lx.next();
        stack.pop();
        continue;
      }
      if (lx.k() === "punct" && lx.ch === LBRACE && lx.ch2 === 0) {
        if (stack.length >= MAX_BLOCK_DEPTH) {
          this.report(this.here(), messages.nestingTooDeep(MAX_BLOCK_DEPTH));
          this.skipBalanced();
          continue;
        }
        const b: Block = { kind: "block", stmts: [], loc: this.here() };
        top.stmts.push(b);
        stack.push(b);
        lx.next();
        continue;
      }
      try {
        this.parseStatement(top.stmts);
      } catch (e) {
        if (!(e instanceof SyntaxFail)) throw e;
        this.skipStatement();
      }
    }
    return root;
  }

  private parseStatement(out: Statement[]): void {
    const lx = this.lx;
    if (lx.k() === "punct" && lx.ch === SEMI) {
      this.straySemicolon();
      return;
    }
    const start = lx.start;
    const loc = this.here();
    if (lx.k() === "dot") {
      const name = this.dotName();
      if (SPACES.has(name)) {
        out.push(this.parseVarDecl([], loc));
        return;
      }
      if (name === "loc" || name === "file") {
        out.push(this.lineDirective(name, loc));
        return;
      }
      if (name === "pragma" || name === "section") {
        lx.next();
        out.push({ kind: "directive", name, args: this.restUntilSemicolon(), loc });
        return;
      }
      this.report(loc, messages.unknownDirective(name));
      lx.next();
      throw new SyntaxFail();
    }
    let guard: AstGuard | null = null;
    if (lx.k() === "punct" && lx.ch === AT && lx.ch2 === 0) {
      const gloc = this.here();
      lx.next();
      let negate = false;
      if (lx.isPunct(BANG)) {
        negate = true;
        lx.next();
      }
      if (lx.k() !== "ident") this.fail("a predicate");
      guard = { reg: lx.text(), negate, loc: gloc };
      lx.next();
    }
    if (lx.k() !== "ident") this.fail(guard ? "an instruction" : undefined);
    const name = lx.text();
    const opLoc = this.here();
    lx.next();
    if (!guard && lx.isPunct(COLON)) {
      lx.next();
      out.push({ kind: "label", name, loc });
      if (lx.k() === "dot") {
        const dname = this.dotName();
        if (dname === "callprototype" || dname === "branchtargets" || dname === "calltargets") {
          const dloc = this.here();
          lx.next();
          out.push({ kind: "directive", name: dname, args: this.restUntilSemicolon(), loc: dloc });
        }
      }
      return;
    }
    const c0 = name.charCodeAt(0);
    if (!((c0 >= 65 && c0 <= 90) || (c0 >= 97 && c0 <= 122))) {
      this.report(opLoc, messages.parseError(name));
      throw new SyntaxFail();
    }
    out.push(this.parseInstruction(guard, name, opLoc, start));
  }

  private parseInstruction(guard: AstGuard | null, opcode: string, loc: Loc, start: number): Instruction {
    const lx = this.lx;
    const modifiers: string[] = [];
    // Whitespace may separate the opcode's modifiers (`szext .clamp.s32`), as ptxas allows.
    while (lx.k() === "dot") {
      modifiers.push(this.dotName());
      lx.next();
    }
    const operands: Operand[] = [];
    this.openBraces = 0;
    if (!lx.isPunct(SEMI)) {
      for (;;) {
        const o = this.operand(0);
        // The sink `_` may only stand for a destination (the first operand), as in ptxas's grammar.
        if (o.kind === "sink" && operands.length > 0) {
          this.report(o.loc, messages.parseError("_"));
          throw new SyntaxFail();
        }
        // So may a pair `d|p`; and a pair has two halves (`d|q|p`): ptxas's "Parsing error near '|'".
        if (o.kind === "pair" && operands.length > 0) {
          this.report(this.lastBar!, messages.parseError("|"));
          throw new SyntaxFail();
        }
        operands.push(o);
        if (o.kind === "pair" && lx.isPunct(BAR)) this.fail();
        if (lx.isPunct(COMMA)) {
          lx.next();
          continue;
        }
        if (lx.isPunct(SEMI)) break;
        this.fail("',' or ';'");
      }
    }
    const text = this.src.slice(start, lx.end);
    lx.next(); // ;
    return { kind: "inst", guard, opcode, modifiers, operands, loc, text };
  }

  // ---------------------------------------------------------------- operands

  /** One operand (see `Operand`). `depth` bounds nesting of lists and expressions. */
  private operand(depth: number): Operand {
    const lx = this.lx;
    if (depth > MAX_EXPR_DEPTH) {
      this.report(this.here(), messages.nestingTooDeep(MAX_EXPR_DEPTH));
      throw new SyntaxFail();
    }
    const loc = this.here();
    if (lx.k() === "ident") {
      const first = this.symOrSink(loc);
      if (lx.k() === "punct" && lx.ch === BAR && lx.ch2 === 0) {
        if (first.kind === "sym" && first.sel !== null) this.fail(); // `%r1.b0|%p1`
        this.lastBar = this.here();
        lx.next();
        if (lx.k() !== "ident") this.fail("a register or '_'");
        const second = this.symOrSink(this.here());
        if (first.kind === "sink" && second.kind === "sink") {
          this.report(second.loc, messages.parseError("_"));
          throw new SyntaxFail();
        }
        return { kind: "pair", first, second, loc };
      }
      return first;
    }
    if (lx.k() === "punct" && lx.ch2 === 0) {
      if (lx.ch === LBRACK) return this.address(loc, depth);
      if (lx.ch === LBRACE) {
        lx.next();
        this.openBraces++;
        const elems: Operand[] = [];
        if (!lx.isPunct(RBRACE)) {
          for (;;) {
            elems.push(this.operand(depth + 1));
            if (lx.isPunct(COMMA)) {
              lx.next();
              continue;
            }
            break;
          }
        }
        this.expectPunct(RBRACE);
        this.openBraces--;
        return { kind: "vector", elems, loc };
      }
      if (lx.ch === MINUS && lx.nameFollows()) {
        // `-%r1`: an operand negation; ptxas parses it on any register, and each instruction
        // judges it (src/ir/build.ts `negations`). `-_` and `-d|p` are syntax errors.
        lx.next();
        const s = this.symOrSink(this.here());
        if (s.kind !== "sym") {
          this.report(s.loc, messages.parseError("_"));
          throw new SyntaxFail();
        }
        if (lx.k() === "punct" && lx.ch === BAR && lx.ch2 === 0) this.fail();
        s.minus = true;
        s.loc = loc;
        return s;
      }
      if (lx.ch === BANG) {
        // `!%p` (negated predicate source) or `!expr`.
        const bstart = lx.start;
        lx.next();
        if (lx.k() === "ident") {
          const s = this.symOrSink(loc);
          if (s.kind !== "sym") this.fail("a predicate");
          s.neg = true;
          return s;
        }
        const v = this.unaryValue(BANG, this.primary(depth + 1), loc);
        return this.binaryRest(v, 0, depth, loc, bstart);
      }
    }
    return this.expression(depth, loc);
  }

  private symOrSink(loc: Loc): Operand {
    const lx = this.lx;
    const name = lx.text();
    lx.next();
    if (name === "_") return { kind: "sink", loc };
    let sel: string | null = null;
    // A selector may follow after whitespace (`%r2 .b1`), as ptxas allows.
    if (lx.k() === "dot") {
      sel = this.dotName();
      lx.next();
      if (lx.k() === "dot") this.fail();
    }
    return { kind: "sym", name, sel, neg: false, loc };
  }

  /** `[base]`, `[base+off]`, `[base+-off]`, `[imm]`, `[tex, {x, y}]`. */
  private address(loc: Loc, depth: number): Operand {
    const lx = this.lx;
    const start = lx.start;
    lx.next(); // [
    let base: Operand | null = null;
    let offset = 0n;
    const elems: Operand[] = [];
    if (lx.k() === "ident") {
      base = this.symOrSink(this.here());
      if (lx.k() === "punct" && lx.ch2 === 0 && (lx.ch === PLUS || lx.ch === MINUS)) {
        const neg = lx.ch === MINUS;
        const oloc = this.here();
        lx.next();
        const v = this.expression(depth + 1, oloc);
        if (v.kind !== "int") this.fail("an integer offset");
        offset = wrap(neg ? -v.value : v.value);
      }
    } else if (!lx.isPunct(RBRACK)) {
      base = this.expression(depth + 1, this.here());
    }
    while (lx.isPunct(COMMA)) {
      lx.next();
      elems.push(this.operand(depth + 1));
    }
    if (!lx.isPunct(RBRACK)) this.fail("']'");
    const text = this.src.slice(start, lx.end);
    lx.next();
    return { kind: "address", base, offset, elems, text, loc };
  }

  /** A constant expression (ints), a float literal, or a parenthesised operand list. */
  private expression(depth: number, loc: Loc): Operand {
    const start = this.lx.start;
    const left = this.primary(depth);
    return this.binaryRest(left, 0, depth, loc, start);
  }

  private primary(depth: number): Operand {
    const lx = this.lx;
    if (depth > MAX_EXPR_DEPTH) {
      this.report(this.here(), messages.nestingTooDeep(MAX_EXPR_DEPTH));
      throw new SyntaxFail();
    }
    const loc = this.here();
    const start = lx.start;
    switch (lx.k()) {
      case "int": {
        const text = lx.text();
        const { value, overflow } = parseIntLiteral(text);
        if (overflow) this.report(loc, messages.constantOverflow());
        lx.next();
        return { kind: "int", value, text, loc };
      }
      case "float": {
        const text = lx.text();
        lx.next();
        return { kind: "float", text, bits: f64Bits(Number(text)), width: 64, loc };
      }
      case "hexfloat": {
        const text = lx.text();
        const { bits, width } = parseHexFloat(text);
        lx.next();
        return { kind: "float", text, bits, width, loc };
      }
      case "ident":
        return this.symOrSink(loc);
      case "punct": {
        if (lx.ch2 !== 0) break;
        const c = lx.ch;
        if (c === LPAREN) {
          lx.next();
          const elems: Operand[] = [];
          if (!lx.isPunct(RPAREN)) {
            for (;;) {
              elems.push(this.operand(depth + 1));
              if (lx.isPunct(COMMA)) {
                lx.next();
                continue;
              }
              break;
            }
          }
          if (!lx.isPunct(RPAREN)) this.fail("')'");
          const end = lx.end;
          lx.next();
          if (elems.length === 1 && elems[0].kind === "int") return { ...elems[0], text: this.src.slice(start, end), loc };
          return { kind: "list", elems, loc };
        }
        if (c === MINUS || c === PLUS || c === TILDE || c === BANG) {
          lx.next();
          return this.unaryValue(c, this.primary(depth + 1), loc);
        }
        break;
      }
      default:
        break;
    }
    this.fail();
  }

  private unaryValue(op: number, v: Operand, loc: Loc): Operand {
    if (v.kind === "float") {
      if (op === MINUS) return { ...v, text: "-" + v.text, bits: v.bits ^ (v.width === 32 ? 0x80000000n : 1n << 63n), loc };
      if (op === PLUS) return { ...v, loc };
      this.report(loc, messages.parseError(String.fromCharCode(op)));
      throw new SyntaxFail();
    }
    if (v.kind !== "int") {
      this.report(loc, messages.parseError(String.fromCharCode(op)));
      throw new SyntaxFail();
    }
    let value = v.value;
    if (op === MINUS) value = wrap(-value);
    else if (op === TILDE) value = wrap(~value);
    else if (op === BANG) value = value === 0n ? 1n : 0n;
    return { kind: "int", value, text: String.fromCharCode(op) + v.text, loc };
  }

  /**
   * Precedence climbing over the integer operators; a float or a list ends the expression.
   * `start` is the source offset where `left` began (for the expression's text).
   */
  private binaryRest(left: Operand, minPrec: number, depth: number, loc: Loc, start: number): Operand {
    const lx = this.lx;
    for (;;) {
      if (lx.k() !== "punct" || left.kind !== "int") return left;
      const op = lx.ch * 256 + lx.ch2;
      const prec = BINARY.get(op);
      if (prec === undefined || prec <= minPrec) return left;
      const oloc = this.here();
      const opText = lx.text();
      lx.next();
      const rstart = lx.start;
      let right = this.primary(depth + 1);
      for (;;) {
        if (lx.k() !== "punct" || right.kind !== "int") break;
        const p2 = BINARY.get(lx.ch * 256 + lx.ch2);
        if (p2 === undefined || p2 <= prec) break;
        right = this.binaryRest(right, prec, depth + 1, right.loc, rstart);
      }
      if (right.kind !== "int") {
        this.report(oloc, messages.parseError(opText));
        throw new SyntaxFail();
      }
      const value = this.apply(op, left.value, right.value, oloc);
      left = { kind: "int", value, text: this.src.slice(start, lx.prevEnd), loc };
    }
  }

  private apply(op: number, a: bigint, b: bigint, loc: Loc): bigint {
    const sa = signed(a);
    const sb = signed(b);
    switch (op) {
      case C("*") * 256: return wrap(a * b);
      case C("/") * 256:
      case C("%") * 256:
        if (b === 0n) {
          this.report(loc, messages.divisionByZero());
          return 0n;
        }
        return wrap(op === C("/") * 256 ? sa / sb : sa % sb);
      case C("+") * 256: return wrap(a + b);
      case C("-") * 256: return wrap(a - b);
      case C("<") * 256 + C("<"): return b >= 64n ? 0n : wrap(a << b);
      case C(">") * 256 + C(">"): return wrap(sa >> (b >= 64n ? 63n : b));
      case C("<") * 256: return sa < sb ? 1n : 0n;
      case C(">") * 256: return sa > sb ? 1n : 0n;
      case C("<") * 256 + C("="): return sa <= sb ? 1n : 0n;
      case C(">") * 256 + C("="): return sa >= sb ? 1n : 0n;
      case C("=") * 256 + C("="): return a === b ? 1n : 0n;
      case C("!") * 256 + C("="): return a !== b ? 1n : 0n;
      case C("&") * 256: return a & b;
      case C("^") * 256: return a ^ b;
      case C("|") * 256: return a | b;
      case C("&") * 256 + C("&"): return a !== 0n && b !== 0n ? 1n : 0n;
      default: return a !== 0n || b !== 0n ? 1n : 0n;
    }
  }
}

/** IEEE-754 binary64 bits of `x` (PTX reads decimal float literals as .f64). */
function f64Bits(x: number): bigint {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  return dv.getBigUint64(0);
}

/** Every instruction of a module, in source order (nested blocks flattened). */
export function* instructionsOf(m: Module): Generator<Instruction> {
  for (const item of m.items) {
    if (item.kind !== "function" || !item.body) continue;
    const stack: { stmts: Statement[]; i: number }[] = [{ stmts: item.body.stmts, i: 0 }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.i >= top.stmts.length) {
        stack.pop();
        continue;
      }
      const s = top.stmts[top.i++];
      if (s.kind === "inst") yield s;
      else if (s.kind === "block") stack.push({ stmts: s.stmts, i: 0 });
    }
  }
}

