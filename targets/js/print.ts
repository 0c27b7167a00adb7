/**
 * @fileoverview PIR → an ES module of JavaScript routines, built with a CodeBlockWriter
 * (the `code-block-writer` package: the class ts-morph re-exports, without the TypeScript
 * compiler ts-morph loads) and formatted by prettier (parser babel), imported at the first
 * format, not with this file: a command that prints no JavaScript never loads it.
 *
 * Values: bit-vectors of ≤ 32 bits are non-negative numbers, kept in range explicitly
 * (`>>> 0`, `& mask`, `Math.imul`); 33..64 bits are BigInts masked with `BigInt.asUintN`;
 * booleans are booleans. A shift is printed raw only where the PIR shows its count below the
 * width on every path that uses it (pir.ts `shiftSafety`); elsewhere it is printed guarded
 * (`n < w ? x << n : 0`), so the output never depends on JS's count masking (`& 31`).
 * Nothing from input text is evaluated; routine names must be identifiers, and each routine
 * has one block comment (prettier is quadratic in `//` comments).
 *
 * Formatting a whole module with prettier takes minutes for 10^4 routines with 10^5 comment
 * lines, so a module is formatted in pieces whose output prettier makes independent of their
 * context: each distinct top-level statement of a routine body once (routines share most of
 * them), each distinct signature once (by parameters and the name's length and shape), and
 * no comments at all — each routine's header comment is printed the way prettier prints a
 * block comment whose lines all start with `*` (trimmed, re-indented), see `prettierBlockComment`.
 * The result is byte for byte what prettier gives for the whole module; where that cannot be
 * shown (a `\r` in a comment, an unexpected shape of prettier's output), the whole module goes
 * through prettier instead.
 */
import CodeBlockWriter from "code-block-writer";
import type { PExpr, PirFunction, PrintPlan, PStmt, PType, Scalar } from "../portable/pir.js";
import { checkIdent, printExprs, printPlan, unparen, widthOf } from "../portable/pir.js";
import { escapeControls } from "../../src/diag.js";
import type { Routine } from "../portable/names.js";
import { CHUNK, nameShape, plainName } from "../portable/names.js";

export type { Routine } from "../portable/names.js";

export interface JsPrintOptions {
  /** A comment placed at the top of the module. */
  banner?: string;
  /** Format with prettier (default true). */
  format?: boolean;
}

const big = (t: Scalar) => t.t === "bv" && t.w > 32;
const hex = (v: bigint) => (v < 256n ? v.toString() : `0x${v.toString(16)}`);
const mask = (w: number) => (1n << BigInt(w)) - 1n;

/** A JS literal of type t. */
function lit(v: bigint, t: Scalar): string {
  if (t.t === "bool") return v ? "true" : "false";
  return big(t) ? `${hex(v)}n` : hex(v);
}

/** Fits a number expression `s` of up to 53 bits (or a signed int32) to `w` ≤ 32 bits. */
function fit(s: string, w: number): string {
  return w === 32 ? `((${s}) >>> 0)` : `((${s}) & ${hex(mask(w))})`;
}

/** `x` (of width w) as a BigInt. */
function toBig(x: string, t: Scalar): string {
  return big(t) ? x : `BigInt(${x})`;
}

/** Prints one node given its operands' text. */
function jsNode(e: PExpr, kid: (k: PExpr) => string, plan: PrintPlan): string {
  const t = e.type;
  const w = widthOf(t);
  const B = big(t);
  const asU = (s: string) => `BigInt.asUintN(${w}, ${s})`;
  switch (e.op) {
    case "const":
      return lit(e.value, t);
    case "ref":
      return checkIdent(e.name);
    case "elem":
      return `${checkIdent(e.array)}[${unparen(kid(e.index))}]`;
    case "not":
      if (t.t === "bool") return `(!${kid(e.x)})`;
      return B ? asU(`~${kid(e.x)}`) : fit(`~${kid(e.x)}`, w);
    case "neg":
      return B ? asU(`-${kid(e.x)}`) : fit(`-${kid(e.x)}`, w);
    case "select":
      return `(${kid(e.c)} ? ${unparen(kid(e.x))} : ${unparen(kid(e.y))})`;
    case "zext":
      return B && !big(e.x.type) ? `BigInt(${unparen(kid(e.x))})` : kid(e.x);
    case "sext": {
      const xw = widthOf(e.x.type);
      const x = kid(e.x);
      if (big(e.x.type)) return asU(`BigInt.asIntN(${xw}, ${unparen(x)})`);
      const signed =
        xw === 32 ? `(${x} | 0)` : `((${x} ^ ${hex(1n << BigInt(xw - 1))}) - ${hex(1n << BigInt(xw - 1))})`;
      return B ? asU(`BigInt(${unparen(signed)})`) : fit(signed, w);
    }
    case "extract": {
      const x = kid(e.x);
      if (big(e.x.type)) {
        const shifted = e.lo ? `(${x} >> ${e.lo}n)` : x;
        return B ? asU(unparen(shifted)) : `Number(BigInt.asUintN(${w}, ${unparen(shifted)}))`;
      }
      const shifted = e.lo ? `(${x} >>> ${e.lo})` : x;
      return w === 32 ? shifted : `(${shifted} & ${hex(mask(w))})`;
    }
    case "concat": {
      const lw = widthOf(e.y.type);
      if (B) return `((${toBig(kid(e.x), e.x.type)} << ${lw}n) | ${toBig(kid(e.y), e.y.type)})`;
      return fit(`(${kid(e.x)} << ${lw}) | ${kid(e.y)}`, w);
    }
    case "eq":
      return `(${kid(e.x)} === ${kid(e.y)})`;
    case "ne":
      return `(${kid(e.x)} !== ${kid(e.y)})`;
    case "ult":
      return `(${kid(e.x)} < ${kid(e.y)})`;
    case "ule":
      return `(${kid(e.x)} <= ${kid(e.y)})`;
    case "slt":
    case "sle": {
      const op = e.op === "slt" ? "<" : "<=";
      const xw = widthOf(e.x.type);
      const sb = 1n << BigInt(xw - 1);
      const s = (k: PExpr) => {
        if (k.op === "const") {
          const v = big(e.x.type) || xw === 32 ? BigInt.asIntN(xw, k.value) : k.value ^ sb;
          return v < 0n ? `(-${lit(-v, k.type)})` : lit(v, k.type);
        }
        return big(e.x.type)
          ? `BigInt.asIntN(${xw}, ${unparen(kid(k))})`
          : xw === 32
            ? `(${kid(k)} | 0)`
            : `(${kid(k)} ^ ${hex(sb)})`;
      };
      return `(${s(e.x)} ${op} ${s(e.y)})`;
    }
    case "and":
    case "or":
    case "xor": {
      if (t.t === "bool") return `(${kid(e.x)} ${e.op === "and" ? "&&" : e.op === "or" ? "||" : "!=="} ${kid(e.y)})`;
      const op = e.op === "and" ? "&" : e.op === "or" ? "|" : "^";
      const s = `${kid(e.x)} ${op} ${kid(e.y)}`;
      // An int32 result is negative only if bit 31 can be set; `x & k` with k < 2^31 cannot.
      const small = e.op === "and" && [e.x, e.y].some((k) => k.op === "const" && k.value < 1n << 31n);
      return B || w < 32 || small ? `(${s})` : `((${s}) >>> 0)`;
    }
    case "add":
    case "sub":
      return B
        ? asU(`${kid(e.x)} ${e.op === "add" ? "+" : "-"} ${kid(e.y)}`)
        : fit(`${kid(e.x)} ${e.op === "add" ? "+" : "-"} ${kid(e.y)}`, w);
    case "mul":
      return B ? asU(`${kid(e.x)} * ${kid(e.y)}`) : fit(`Math.imul(${unparen(kid(e.x))}, ${unparen(kid(e.y))})`, w);
    case "shl":
    case "lshr":
    case "ashr": {
      const x = kid(e.x);
      const n = kid(e.y);
      let raw: string;
      if (B) {
        raw =
          e.op === "shl"
            ? asU(`${x} << ${n}`)
            : e.op === "lshr"
              ? `(${x} >> ${n})`
              : asU(`BigInt.asIntN(${w}, ${unparen(x)}) >> ${n}`);
      } else if (e.op === "shl") raw = fit(`${x} << ${n}`, w);
      else if (e.op === "lshr") raw = `(${x} >>> ${n})`;
      else if (w === 32) raw = `((${x} >> ${n}) >>> 0)`;
      else raw = fit(`((${x} ^ ${hex(1n << BigInt(w - 1))}) - ${hex(1n << BigInt(w - 1))}) >> ${n}`, w);
      // Raw only where the count is provably < w; otherwise the guard states PIR's range.
      return plan.safety.has(e.id) ? raw : `(${n} < ${lit(BigInt(w), t)} ? ${unparen(raw)} : ${lit(0n, t)})`;
    }
  }
}

/** `new Uint32Array(n)` etc. for an array result. */
function newArray(t: PType): string {
  if (t.t !== "arr") throw new Error("not an array type");
  if (t.elem.t === "bool") return `new Array(${t.n}).fill(false)`;
  return big(t.elem) ? `new BigUint64Array(${t.n})` : `new Uint32Array(${t.n})`;
}

/**
 * Writes routine bodies (statements, and the return of the results) into one CodeBlockWriter
 * (making a writer costs more than writing a statement), recording the span of each
 * top-level statement; a hoisted temporary is a statement of its own.
 */
class BodyWriter {
  private readonly w = new CodeBlockWriter();
  private readonly spans: number[] = [];
  private start = 0;
  private depth = 0;
  private plan: PrintPlan | null = null;
  private tempNo = 0;
  private readonly fresh = () => `t${++this.tempNo}`;
  private readonly node = (e: PExpr, kid: (k: PExpr) => string) => jsNode(e, kid, this.plan!);

  /** Number of statements so far. */
  get count(): number {
    return this.spans.length / 2;
  }

  /** The statements written, each trimmed. */
  statements(): string[] {
    const text = this.w.toString();
    const out: string[] = [];
    for (let i = 0; i < this.spans.length; i += 2) out.push(text.slice(this.spans[i], this.spans[i + 1]).trim());
    return out;
  }

  /** Writes the body of `fn`. */
  body(fn: PirFunction): void {
    this.plan = printPlan(fn);
    this.tempNo = 0;
    const w = this.w;
    for (const r of fn.results)
      if (r.type.t === "arr") {
        w.writeLine(`const ${checkIdent(r.name)} = ${newArray(r.type)};`);
        this.end();
      }
    this.stmts(fn, fn.body);
    if (!fn.body.some((s) => s.s === "return")) {
      w.writeLine(`return { ${fn.results.map((r) => checkIdent(r.name)).join(", ")} };`);
      this.end();
    }
  }

  /** Ends a top-level statement. */
  private end(): void {
    if (this.depth > 0) return;
    const end = this.w.getLength();
    if (end > this.start) this.spans.push(this.start, end);
    this.start = end;
  }

  private exprs(roots: PExpr[]): string[] {
    const p = printExprs(roots, this.plan!, this.node, this.fresh);
    for (const t of p.temps) {
      this.w.writeLine(`const ${t.name} = ${unparen(t.text)};`);
      this.end();
    }
    return p.roots.map(unparen);
  }

  private block(fn: PirFunction, ss: PStmt[]): void {
    this.depth++;
    this.stmts(fn, ss);
    this.depth--;
  }

  private stmts(fn: PirFunction, ss: PStmt[]): void {
    const w = this.w;
    for (const st of ss) {
      switch (st.s) {
        case "let":
        case "var":
        case "set": {
          const [v] = this.exprs([st.value]);
          const kw = st.s === "let" ? "const " : st.s === "var" ? "let " : "";
          w.writeLine(`${kw}${checkIdent(st.name)} = ${v};`);
          break;
        }
        case "for":
          w.write(`for (let ${checkIdent(st.index)} = 0; ${st.index} < ${st.n}; ${st.index}++)`).block(() => this.block(fn, st.body));
          break;
        case "if": {
          const [c] = this.exprs([st.c]);
          w.write(`if (${c})`).block(() => this.block(fn, st.then));
          if (st.else.length) w.write("else").block(() => this.block(fn, st.else));
          break;
        }
        case "store": {
          const [i, v] = this.exprs([st.index, st.value]);
          w.writeLine(`${checkIdent(st.array)}[${i}] = ${v};`);
          break;
        }
        case "return": {
          const names = Object.keys(st.values);
          const vals = this.exprs(names.map((n) => st.values[n]!));
          const arrays = fn.results.filter((r) => r.type.t === "arr").map((r) => r.name);
          if (names.length === 1 && arrays.length === 0) w.writeLine(`return ${vals[0]};`);
          else
            w.writeLine(
              `return { ${[...arrays, ...names.map((n, i) => `${checkIdent(n)}: ${vals[i]}`)].join(", ")} };`,
            );
          break;
        }
      }
      this.end();
    }
  }
}

/** `text` as one block comment, safe against `*\/` in the text; control characters escaped. */
export function blockComment(text: string): string {
  const lines = escapeControls(text).replace(/\*\//g, "*\\/").split(/\r?\n|\u2028|\u2029/);
  return ["/*", ...lines.map((l) => (l ? ` * ${l}` : " *")), " */"].join("\n");
}

/**
 * What prettier prints for `blockComment(text)` as a leading comment at the top level, or
 * null if this cannot tell. Prettier's printComment prints a comment of several lines that all
 * start with `*` (after leading blanks) with each line trimmed of leading blanks, every line
 * but the last also of trailing ones, and a space before each line but the first: here, each
 * ` * line` loses its trailing blanks. Prettier first turns a `\r` into a line break, which
 * would change the lines: then null.
 */
export function prettierBlockComment(text: string): string | null {
  let out = "/*";
  for (const l of escapeControls(text).replace(/\*\//g, "*\\/").split(/\r?\n|\u2028|\u2029/)) {
    if (l.includes("\r")) return null;
    const t = l.trimEnd();
    out += t ? "\n * " + t : "\n *";
  }
  return out + "\n */";
}

/** prettier, imported at its first use (about a `node -e 0` of start-up: only JS output pays it). */
function loadPrettier(): Promise<typeof import("prettier")> {
  return import("prettier");
}

/**
 * Prints an ES module exporting one function per routine, in the order given.
 * Signatures follow the routine contract: scalar `(a, b, c?[, g, dPrior]) => d`; warp
 * `(a, membermask, active[, g, dPrior, pPrior]) => ({ d, p })` (see the rule files).
 * @throws Error on a duplicate or non-identifier routine name.
 */
export async function printJsModule(routines: Routine[], opts: JsPrintOptions = {}): Promise<string> {
  const seen = new Set<string>();
  for (const r of routines) {
    if (seen.has(checkIdent(r.name))) throw new Error(`duplicate routine ${r.name}`);
    seen.add(r.name);
  }
  const bw = new BodyWriter();
  const spans = routines.map((r) => {
    const first = bw.count;
    bw.body(r.fn);
    return [first, bw.count] as const;
  });
  const all = bw.statements();
  const printed = routines.map((r, i) => ({
    r,
    params: r.fn.params.map((p) => checkIdent(p.name)).join(", "),
    body: [...r.fn.params.flatMap((p) => argumentChecks(p.name, p.type)), ...all.slice(spans[i]![0], spans[i]![1])],
  }));
  if (opts.format === false) return unformatted(printed, opts);
  const fast = await formatPieces(printed, opts);
  return fast ?? (await loadPrettier()).format(unformatted(printed, opts), { parser: "babel" });
}

/**
 * The statements that open a routine, per parameter: a wrong shape is a `TypeError` naming
 * the parameter (a number where lanes are expected, lanes of the wrong length, a non-integer),
 * and values are normalised to the contract's: u32 numbers `>>> 0` (so -1 is 0xffffffff),
 * 64-bit values BigInts modulo 2^64 (numbers accepted when safe integers), lanes copied into a
 * `Uint32Array` / `BigUint64Array` / boolean array when given as another array-like.
 */
export function argumentChecks(name: string, t: PType): string[] {
  const x = checkIdent(name);
  const scalar = (s: Scalar, v: string, what: string): string[] => {
    if (s.t === "bool") return [`if (typeof ${v} !== "boolean") throw new TypeError(\`${what} must be a boolean, not \${typeof ${v}}\`);`];
    if (s.w > 32)
      return [
        `if (typeof ${v} !== "bigint" && !Number.isSafeInteger(${v})) throw new TypeError(\`${what} must be a BigInt (u${s.w}), not \${typeof ${v} === "number" ? ${v} : typeof ${v}}\`);`,
        `${v} = BigInt.asUintN(${s.w}, BigInt(${v}));`,
      ];
    return [
      `if (!Number.isInteger(${v})) throw new TypeError(\`${what} must be an integer number (u${s.w}), not \${typeof ${v} === "number" ? ${v} : typeof ${v}}\`);`,
      s.w === 32 ? `${v} >>>= 0;` : `${v} = (${v} >>> 0) & ${hex(mask(s.w))};`,
    ];
  };
  if (t.t !== "arr") return scalar(t, x, x);
  const e = t.elem;
  const kind = e.t === "bool" ? "booleans" : e.w > 32 ? "BigInts" : "numbers";
  const typed = e.t === "bool" ? null : e.w > 32 ? "BigUint64Array" : "Uint32Array";
  const out = [
    `if (${x} === null || typeof ${x} !== "object" || ${x}.length !== ${t.n}) throw new TypeError(\`${x} must be ${t.n} lanes (${typed ? `a ${typed}(${t.n}) or ` : ""}an array of ${t.n} ${kind}), not \${${x} === null || typeof ${x} !== "object" ? typeof ${x} : "length " + ${x}.length}\`);`,
  ];
  if (typed === null) out.push(`${x} = Array.from(${x}, Boolean);`);
  else if (typed === "Uint32Array") out.push(`if (!(${x} instanceof Uint32Array)) ${x} = Uint32Array.from(${x}, (v) => { if (!Number.isInteger(v)) throw new TypeError(\`${x}: each lane must be an integer number\`); return v >>> 0; });`);
  else out.push(`if (!(${x} instanceof BigUint64Array)) ${x} = BigUint64Array.from(${x}, (v) => BigInt.asUintN(64, BigInt(v)));`);
  return out;
}

interface PrintedRoutine {
  r: Routine;
  /** Parameter list, comma-separated. */
  params: string;
  /** Top-level statements of the body, unformatted. */
  body: string[];
}

/** The module before formatting: comments as they are, functions written with a CodeBlockWriter. */
function unformatted(printed: PrintedRoutine[], opts: JsPrintOptions): string {
  const parts: string[] = opts.banner ? [blockComment(opts.banner) + "\n"] : [];
  printed.forEach(({ r, params, body }, i) => {
    const w = new CodeBlockWriter();
    w.write(`export function ${r.name}(${params})`).block(() => {
      for (const s of body) w.writeLine(s);
    });
    parts.push((i > 0 ? "\n" : "") + blockComment(r.header) + "\n" + w.toString() + "\n");
  });
  return parts.join("");
}

/**
 * The formatted module, assembled from pieces formatted once each (see the file comment), or
 * null if a piece's formatted shape is not the one expected.
 */
async function formatPieces(printed: PrintedRoutine[], opts: JsPrintOptions): Promise<string | null> {
  if (printed.length === 0) return null; // a module of comments only: nothing to gain
  const headers: string[] = [];
  for (const p of [...(opts.banner !== undefined && opts.banner !== "" ? [opts.banner] : []), ...printed.map((x) => x.r.header)]) {
    const c = prettierBlockComment(p);
    if (c === null) return null;
    headers.push(c);
  }
  // Distinct signatures (one representative name per key) and distinct statements.
  const sigs = new Map<string, { name: string; params: string; index: number }>();
  const stmts = new Map<string, number>();
  const sigKeys = printed.map((x) => (plainName(x.r.name) ? `${nameShape(x.r.name)}(${x.params})` : `=${x.r.name}(${x.params})`));
  printed.forEach((x, i) => {
    const key = sigKeys[i]!;
    if (!sigs.has(key)) sigs.set(key, { name: x.r.name, params: x.params, index: sigs.size });
    for (const s of x.body) if (!stmts.has(s)) stmts.set(s, stmts.size);
  });
  const prettier = await loadPrettier();
  const batch: string[] = [];
  for (const { name, params } of sigs.values()) batch.push(`export function ${name}(${params}) {\n0;\n}`);
  for (const s of stmts.keys()) batch.push(`(function () {\n${s}\n});`);
  // In runs of about CHUNK characters: prettier's syntax tree and documents for one run are
  // garbage before the next, which keeps the memory peak down.
  let formatted = "";
  for (let i = 0; i < batch.length; ) {
    let j = i;
    for (let size = 0; j < batch.length && size < CHUNK; j++) size += batch[j]!.length + 1;
    formatted += await prettier.format(batch.slice(i, j).join("\n"), { parser: "babel" });
    i = j;
  }
  const out = formatted.split("\n");

  // Read the pieces back: each signature ends with ` {` before the line `  0;`; each statement
  // is the lines between `(function () {` and `});`, at the indentation of a routine body.
  let at = 0;
  const sigText: string[] = [];
  for (const { name } of sigs.values()) {
    const start = at;
    if (!out[at]?.startsWith(`export function ${name}(`)) return null;
    while (at < out.length && out[at] !== "  0;") at++;
    if (at === start || out[at + 1] !== "}" || !out[at - 1]!.endsWith(") {")) return null;
    sigText.push(out.slice(start, at).join("\n"));
    at += 2;
  }
  const stmtText: string[] = [];
  for (let k = 0; k < stmts.size; k++) {
    if (out[at] !== "(function () {") return null;
    const start = ++at;
    while (at < out.length && out[at] !== "});") at++;
    if (at === start || at === out.length) return null;
    for (let j = start; j < at; j++) if (!out[j]!.startsWith("  ")) return null;
    stmtText.push(out.slice(start, at).join("\n"));
    at++;
  }
  if (at !== out.length - 1 || out[at] !== "") return null;

  const parts: string[] = [];
  let h = 0;
  if (opts.banner !== undefined && opts.banner !== "") parts.push(headers[h++]! + "\n");
  printed.forEach((x, i) => {
    const sig = sigs.get(sigKeys[i]!)!;
    let head = sigText[sig.index]!;
    if (sig.name !== x.r.name) head = `export function ${x.r.name}` + head.slice(`export function ${sig.name}`.length);
    parts.push((i > 0 ? "\n" : "") + headers[h++]! + "\n" + head + "\n" + x.body.map((s) => stmtText[stmts.get(s)!]!).join("\n") + "\n}\n");
  });
  return parts.join("");
}
