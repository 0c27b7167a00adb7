/**
 * @fileoverview PIR → an ES module of JavaScript routines, built with ts-morph (an in-memory
 * Project and CodeBlockWriter) and formatted by prettier (parser babel).
 *
 * Values: bit-vectors of ≤ 32 bits are non-negative numbers, kept in range explicitly
 * (`>>> 0`, `& mask`, `Math.imul`); 33..64 bits are BigInts masked with `BigInt.asUintN`;
 * booleans are booleans. A shift is printed raw only where the PIR shows its count below the
 * width on every path that uses it (pir.ts `shiftSafety`); elsewhere it is printed guarded
 * (`n < w ? x << n : 0`), so the output never depends on JS's count masking (`& 31`).
 * Nothing from input text is evaluated; routine names must be identifiers, and each routine
 * has one block comment (prettier is quadratic in `//` comments).
 */
import { Project, type CodeBlockWriter } from "ts-morph";
import * as prettier from "prettier";
import type { PExpr, PirFunction, PrintPlan, PStmt, PType, Scalar } from "../portable/pir.js";
import { checkIdent, printExprs, printPlan, stmtRoots, unparen, widthOf } from "../portable/pir.js";

/** One routine to print: its name, PIR, and the text of its header comment. */
export interface Routine {
  name: string;
  fn: PirFunction;
  /** Block-comment text: the routine contract, the rule, the PTX locations served. */
  header: string;
}

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

/** Writes the body of `fn` (statements, and the return of its results). */
function writeBody(w: CodeBlockWriter, fn: PirFunction): void {
  const plan = printPlan(fn);
  let tempNo = 0;
  const fresh = () => `t${++tempNo}`;
  for (const r of fn.results) if (r.type.t === "arr") w.writeLine(`const ${checkIdent(r.name)} = ${newArray(r.type)};`);
  const exprs = (roots: PExpr[]) => {
    const p = printExprs(roots, plan, (e, kid) => jsNode(e, kid, plan), fresh);
    for (const t of p.temps) w.writeLine(`const ${t.name} = ${unparen(t.text)};`);
    return p.roots.map(unparen);
  };
  const stmts = (ss: PStmt[]): void => {
    for (const st of ss) {
      switch (st.s) {
        case "let":
        case "var":
        case "set": {
          const [v] = exprs([st.value]);
          const kw = st.s === "let" ? "const " : st.s === "var" ? "let " : "";
          w.writeLine(`${kw}${checkIdent(st.name)} = ${v};`);
          break;
        }
        case "for":
          w.write(`for (let ${checkIdent(st.index)} = 0; ${st.index} < ${st.n}; ${st.index}++)`).block(() =>
            stmts(st.body),
          );
          break;
        case "if": {
          const [c] = exprs([st.c]);
          w.write(`if (${c})`).block(() => stmts(st.then));
          if (st.else.length) w.write("else").block(() => stmts(st.else));
          break;
        }
        case "store": {
          const [i, v] = exprs([st.index, st.value]);
          w.writeLine(`${checkIdent(st.array)}[${i}] = ${v};`);
          break;
        }
        case "return": {
          const names = Object.keys(st.values);
          const vals = exprs(names.map((n) => st.values[n]!));
          const arrays = fn.results.filter((r) => r.type.t === "arr").map((r) => r.name);
          if (names.length === 1 && arrays.length === 0) w.writeLine(`return ${vals[0]};`);
          else
            w.writeLine(
              `return { ${[...arrays, ...names.map((n, i) => `${checkIdent(n)}: ${vals[i]}`)].join(", ")} };`,
            );
          break;
        }
      }
    }
  };
  stmts(fn.body);
  if (!fn.body.some((s) => s.s === "return"))
    w.writeLine(`return { ${fn.results.map((r) => checkIdent(r.name)).join(", ")} };`);
}

/** `text` as one block comment, safe against `*\/` in the text. */
export function blockComment(text: string): string {
  const lines = text.replace(/\*\//g, "*\\/").split(/\r?\n|\u2028|\u2029/);
  return ["/*", ...lines.map((l) => (l ? ` * ${l}` : " *")), " */"].join("\n");
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
  const project = new Project({ useInMemoryFileSystem: true });
  const sf = project.createSourceFile("routines.js", opts.banner ? blockComment(opts.banner) + "\n" : "", {
    overwrite: true,
  });
  sf.addFunctions(
    routines.map((r) => ({
      name: r.name,
      isExported: true,
      leadingTrivia: blockComment(r.header) + "\n",
      parameters: r.fn.params.map((p) => ({ name: checkIdent(p.name) })),
      statements: (w: CodeBlockWriter) => writeBody(w, r.fn),
    })),
  );
  const text = sf.getFullText();
  return opts.format === false ? text : prettier.format(text, { parser: "babel" });
}
