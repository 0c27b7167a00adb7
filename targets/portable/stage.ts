/**
 * @fileoverview The staging interpretation `BV<PExpr, PExpr>`: running a reference semantics
 * (src/sem) over it builds the PIR of that semantics instead of computing a value, so the
 * portable lowering of, say, the video shifts *is* src/sem/vsh.ts, with no second copy.
 *
 * Nodes are hash-consed (equal operation on equal operands gives the same node), so shared
 * subexpressions stay shared and the printers emit one temporary per shared node. Trivial
 * cases are folded: all-constant operands (evaluated with the PIR meaning over `concrete`),
 * and identities such as `x & 0`, `x | 0`, `select(c, x, x)`.
 *
 * BV's shifts have SMT meaning (a count ≥ the width gives 0, or the sign fill for `ashr`);
 * PIR's are poison there. They are staged explicitly:
 *   shl(x, n)  → n < w ? shl(x, n) : 0          lshr likewise
 *   ashr(x, n) → ashr(x, n < w ? n : w - 1)
 * and the guard is left out where the interval analysis (pir.ts) shows n < w.
 */
import type { BV } from "../../src/sem/bv.js";
import { concrete } from "../../src/sem/bv.js";
import type { RoutineSpec, SourceName } from "../../src/ir/ir.js";
import { routineName, sourcesOf } from "../../src/ir/ir.js";
import { formId } from "../../src/ir/forms.js";
import type { BinOp, CmpOp, PExpr, PirFunction, PirVar, PStmt, Scalar } from "./pir.js";
import { applyOp, bool, interval, kids, u32, widthOf } from "./pir.js";

/** The staging algebra plus PIR-level constructors (whose shifts are PIR's: poison ≥ w). */
export interface Stage extends BV<PExpr, PExpr> {
  /** A bit-vector constant (`value` mod 2^w). */
  c(value: bigint | number, w: number): PExpr;
  bool(b: boolean): PExpr;
  /** A read of a parameter, `let`, `var` or loop index. */
  ref(name: string, type: Scalar): PExpr;
  /** `array[index]`; `index` is a loop index or a constant. */
  elem(array: string, type: Scalar, index: PExpr): PExpr;
  /** A binary PIR operation; `shl`/`lshr`/`ashr` are poison when y ≥ the width. */
  bin(op: BinOp, x: PExpr, y: PExpr): PExpr;
  cmp(op: CmpOp, x: PExpr, y: PExpr): PExpr;
  ne(x: PExpr, y: PExpr): PExpr;
  /** `c ? x : y` for bit-vectors or booleans. */
  select(c: PExpr, x: PExpr, y: PExpr): PExpr;
  /** The low `w` bits of x. */
  trunc(x: PExpr, w: number): PExpr;
  /** Number of distinct nodes built so far. */
  readonly size: number;
}

type Fields = { op: PExpr["op"]; type: Scalar } & Record<string, unknown>;

/** A fresh staging algebra with its own hash-cons table. */
export function stage(): Stage {
  const table = new Map<string, PExpr>();
  const rangeMemo = new Map<number, { lo: bigint; hi: bigint }>();
  const typeKey = (t: Scalar) => (t.t === "bool" ? "b" : `u${t.w}`);
  const isConst = (e: PExpr): e is PExpr & { op: "const" } => e.op === "const";
  const constOf = (e: PExpr): bigint | undefined => (e.op === "const" ? e.value : undefined);
  const allOnes = (e: PExpr) => e.op === "const" && e.value === (1n << BigInt(widthOf(e.type))) - 1n;

  const intern = (f: Fields): PExpr => {
    const parts = Object.entries(f)
      .filter(([k]) => k !== "op" && k !== "type")
      .map(([k, v]) => `${k}=${typeof v === "object" && v !== null ? `#${(v as PExpr).id}` : String(v)}`);
    const key = `${f.op}:${typeKey(f.type)}:${parts.join(",")}`;
    let e = table.get(key);
    if (!e) {
      e = { ...f, id: table.size } as unknown as PExpr;
      table.set(key, e);
    }
    return e;
  };
  const c = (value: bigint | number, w: number): PExpr => {
    if (!(w >= 1 && w <= 64)) throw new Error(`PIR width ${w} outside 1..64`);
    return intern({ op: "const", type: { t: "bv", w }, value: BigInt.asUintN(w, BigInt(value)) });
  };
  const boolC = (b: boolean): PExpr => intern({ op: "const", type: bool, value: b ? 1n : 0n });
  /** Folds an operation whose operands are all constants, unless the result is poison. */
  const node = (f: Fields): PExpr => {
    const probe = { ...f, id: -1 } as unknown as PExpr;
    const ks = kids(probe);
    if (ks.length > 0 && ks.every(isConst) && f.op !== "elem") {
      const r = applyOp(
        concrete,
        probe,
        ks.map((k) => ({
          value: k.type.t === "bool" ? k.value === 1n : concrete.k(k.value, widthOf(k.type)),
          defined: true,
        })),
      );
      if (r.defined) return typeof r.value === "boolean" ? boolC(r.value) : c(r.value.x, r.value.w);
    }
    return intern(f);
  };
  const sameType = (x: PExpr, y: PExpr, op: string) => {
    if (typeKey(x.type) !== typeKey(y.type)) throw new Error(`PIR ${op}: ${typeKey(x.type)} vs ${typeKey(y.type)}`);
  };
  const needBv = (x: PExpr, op: string): number => {
    if (x.type.t !== "bv") throw new Error(`PIR ${op} needs a bit-vector`);
    return x.type.w;
  };
  const needBool = (x: PExpr, op: string) => {
    if (x.type.t !== "bool") throw new Error(`PIR ${op} needs a boolean`);
  };

  const bin = (op: BinOp, x: PExpr, y: PExpr): PExpr => {
    sameType(x, y, op);
    if (x.type.t === "bool" && op !== "and" && op !== "or" && op !== "xor") throw new Error(`PIR ${op} on booleans`);
    const zero = (e: PExpr) => constOf(e) === 0n;
    switch (op) {
      case "and":
        if (zero(x) || zero(y)) return x.type.t === "bool" ? boolC(false) : c(0, x.type.w);
        if (allOnes(x)) return y;
        if (allOnes(y) || x === y) return x;
        break;
      case "or":
        if (allOnes(x) || allOnes(y)) return allOnes(x) ? x : y;
        if (zero(x)) return y;
        if (zero(y) || x === y) return x;
        break;
      case "xor":
      case "add":
        if (zero(x)) return y;
        if (zero(y)) return x;
        break;
      case "sub":
      case "shl":
      case "lshr":
      case "ashr":
        if (zero(y)) return x;
        break;
    }
    return node({ op, type: x.type, x, y });
  };
  const cmp = (op: CmpOp, x: PExpr, y: PExpr): PExpr => {
    sameType(x, y, op);
    if (x.type.t === "bool" && op !== "eq" && op !== "ne") throw new Error(`PIR ${op} on booleans`);
    if (x === y) return boolC(op === "eq" || op === "ule" || op === "sle");
    if (x.type.t === "bool" && y.op === "const") return y.value === (op === "eq" ? 1n : 0n) ? x : not(x);
    return node({ op, type: bool, x, y });
  };
  const not = (x: PExpr): PExpr => (x.op === "not" ? x.x : node({ op: "not", type: x.type, x }));
  const select = (cond: PExpr, x: PExpr, y: PExpr): PExpr => {
    needBool(cond, "select");
    sameType(x, y, "select");
    if (cond.op === "const") return cond.value ? x : y;
    if (x === y) return x;
    if (x.type.t === "bool" && x.op === "const" && y.op === "const") return x.value ? cond : not(cond);
    if (cond.op === "not") return select(cond.x, y, x);
    return node({ op: "select", type: x.type, c: cond, x, y });
  };
  const zext = (x: PExpr, w: number): PExpr => {
    const xw = needBv(x, "zext");
    if (w < xw) throw new Error(`PIR zext ${xw} → ${w}`);
    if (w === xw) return x;
    if (x.op === "zext") return zext(x.x, w);
    return node({ op: "zext", type: { t: "bv", w }, x });
  };
  const sext = (x: PExpr, w: number): PExpr => {
    const xw = needBv(x, "sext");
    if (w < xw) throw new Error(`PIR sext ${xw} → ${w}`);
    if (w === xw) return x;
    if (x.op === "sext") return sext(x.x, w);
    return node({ op: "sext", type: { t: "bv", w }, x });
  };
  const extract = (x: PExpr, hi: number, lo: number): PExpr => {
    const xw = needBv(x, "extract");
    if (lo < 0 || hi < lo || hi >= xw) throw new Error(`PIR extract [${hi}:${lo}] of u${xw}`);
    const w = hi - lo + 1;
    if (w === xw) return x;
    if (x.op === "extract") return extract(x.x, hi + x.lo, lo + x.lo);
    if ((x.op === "zext" || x.op === "sext") && hi < widthOf(x.x.type)) return extract(x.x, hi, lo);
    if (x.op === "zext" && lo >= widthOf(x.x.type)) return c(0, w);
    return node({ op: "extract", type: { t: "bv", w }, x, lo });
  };
  const range = (x: PExpr) => {
    let r = rangeMemo.get(x.id);
    if (!r) rangeMemo.set(x.id, (r = interval(x)));
    return r;
  };
  /** A staged SMT shift: PIR's shift, guarded unless the count is known to be < w. */
  const smtShift = (op: "shl" | "lshr" | "ashr", x: PExpr, n: PExpr): PExpr => {
    const w = needBv(x, op);
    sameType(x, n, op);
    if (range(n).hi < BigInt(w)) return bin(op, x, n);
    const inRange = cmp("ult", n, c(w, w));
    if (op === "ashr") return bin("ashr", x, select(inRange, n, c(w - 1, w)));
    return select(inRange, bin(op, x, n), c(0, w));
  };

  const P: Stage = {
    c,
    bool: boolC,
    ref: (name, type) => intern({ op: "ref", type, name }),
    elem: (array, type, index) => {
      if (index.op !== "ref" && index.op !== "const")
        throw new Error(`PIR ${array}[…]: index must be a loop index or constant`);
      return intern({ op: "elem", type, array, index });
    },
    bin,
    cmp,
    ne: (x, y) => cmp("ne", x, y),
    select,
    trunc: (x, w) => extract(x, w - 1, 0),
    get size() {
      return table.size;
    },
    // --- BV<PExpr, PExpr>
    k: (value, width) => c(value, width),
    width: (x) => needBv(x, "width"),
    true: boolC(true),
    false: boolC(false),
    add: (x, y) => bin("add", x, y),
    sub: (x, y) => bin("sub", x, y),
    mul: (x, y) => bin("mul", x, y),
    and: (x, y) => bin("and", x, y),
    or: (x, y) => bin("or", x, y),
    xor: (x, y) => bin("xor", x, y),
    not: (x) => (needBv(x, "not"), not(x)),
    neg: (x) => (needBv(x, "neg"), node({ op: "neg", type: x.type, x })),
    shl: (x, y) => smtShift("shl", x, y),
    lshr: (x, y) => smtShift("lshr", x, y),
    ashr: (x, y) => smtShift("ashr", x, y),
    eq: (x, y) => cmp("eq", x, y),
    ult: (x, y) => cmp("ult", x, y),
    ule: (x, y) => cmp("ule", x, y),
    slt: (x, y) => cmp("slt", x, y),
    sle: (x, y) => cmp("sle", x, y),
    ite: select,
    iteB: select,
    andB: (x, y) => bin("and", x, y),
    orB: (x, y) => bin("or", x, y),
    notB: (x) => (needBool(x, "notB"), not(x)),
    eqB: (x, y) => cmp("eq", x, y),
    extract,
    zext,
    sext,
    concat: (hi, lo) => {
      const w = needBv(hi, "concat") + needBv(lo, "concat");
      if (w > 64) throw new Error(`PIR concat wider than 64 bits`);
      return node({ op: "concat", type: { t: "bv", w }, x: hi, y: lo });
    },
    bitAt: (x, i) => cmp("eq", extract(x, i, i), c(1, 1)),
    fromB: (b) => select(b, c(1, 1), c(0, 1)),
    asBigint: (x) => (x.op === "const" && x.type.t === "bv" ? x.value : undefined),
    asBool: (b) => (b.op === "const" && b.type.t === "bool" ? b.value === 1n : undefined),
  };
  return P;
}

// ---------------------------------------------------------------------------------------
// Routine scaffolding shared by the rules

/**
 * The operand of source `s` in a routine: `ref(s)` for a register (v or s kind), or the
 * immediate folded to a constant of `type` (u32 for szext/vsh; the form's type for match `a`).
 */
export function sourceOperand(P: Stage, spec: RoutineSpec, s: SourceName, type: Scalar): PExpr {
  const k = spec.kinds[s] ?? { kind: "v" };
  return k.kind === "imm" ? P.c(k.value, widthOf(type)) : P.ref(s, type);
}

/**
 * A scalar routine (szext, vshl/vshr): parameters are the non-immediate sources in PTX order
 * (u32 each), the result is `d: u32`. `body` gets a, b and c (c is 0 when the form reads none).
 * Guarded: `(…, g: bool, dPrior: u32)`, and a lane whose guard is false returns dPrior.
 */
export function scalarRoutine(
  spec: RoutineSpec,
  body: (P: Stage, src: { a: PExpr; b: PExpr; c: PExpr }) => PExpr,
): PirFunction {
  const P = stage();
  const srcs = sourcesOf(spec.form);
  const params: PirVar[] = srcs.filter((s) => spec.kinds[s]?.kind !== "imm").map((name) => ({ name, type: u32 }));
  const op = (s: SourceName) => (srcs.includes(s) ? sourceOperand(P, spec, s, u32) : P.c(0, 32));
  let d = body(P, { a: op("a"), b: op("b"), c: op("c") });
  if (spec.guarded) {
    params.push({ name: "g", type: bool }, { name: "dPrior", type: u32 });
    d = P.select(P.ref("g", bool), d, P.ref("dPrior", u32));
  }
  const ret: PStmt = { s: "return", values: { d } };
  return { name: routineName(spec, formId), params, results: [{ name: "d", type: u32 }], body: [ret] };
}
