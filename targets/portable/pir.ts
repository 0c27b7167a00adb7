/**
 * @fileoverview PIR, the portable IR shared by the JS and C printers: typed bit-vectors of
 * 1..64 bits and booleans, expressions as a hash-consed DAG (built by ./stage.ts), and a few
 * statements (immutable `let`, mutable `var`/`set`, constant-bound `for`, `if`, array
 * `store`, `return`).
 *
 * Meaning, in one place (`applyOp`): every operation is total except the shifts, which are
 * **poison when the count is ≥ the width** (Alive2/LLVM `shl`/`lshr`/`ashr`). Poison
 * propagates through every operand; `select` takes the poison of its condition and of the
 * chosen arm only. Branching on poison poisons everything the `if` writes. Result arrays start
 * as poison, so a routine must write every lane.
 *
 * The evaluator is generic over `BV<V, B>` (src/sem/bv.ts): concrete with `concrete`,
 * symbolic with a z3 interpretation. Loops are unrolled (their bounds are constants), array
 * indices are loop variables or constants, and an `if` on a symbolic condition runs both arms
 * and merges them with `ite`.
 *
 * The interval analysis at the end tells the printers which shift counts are provably below
 * the width on every path where the shift's value is used (`shiftSafety`).
 */
import type { BV } from "../../src/sem/bv.js";
import { concrete, type CV } from "../../src/sem/bv.js";

// ---------------------------------------------------------------------------------------
// Types, expressions, statements

/** A scalar PIR type: a bit-vector of `w` bits (1..64), or a boolean. */
export type Scalar = { t: "bv"; w: number } | { t: "bool" };
/** A parameter or result type: a scalar, or a fixed-length array of scalars (`u32[32]`). */
export type PType = Scalar | { t: "arr"; elem: Scalar; n: number };

export const u32: Scalar = { t: "bv", w: 32 };
export const u64: Scalar = { t: "bv", w: 64 };
export const bool: Scalar = { t: "bool" };
/** `elem[n]`, 32 lanes by default. */
export const arr = (elem: Scalar, n = 32): PType => ({ t: "arr", elem, n });
/** Width of a bit-vector type (1 for booleans, as a convenience). */
export const widthOf = (t: Scalar): number => (t.t === "bv" ? t.w : 1);
export const showType = (t: PType): string =>
  t.t === "arr" ? `${showType(t.elem)}[${t.n}]` : t.t === "bool" ? "bool" : `u${t.w}`;

export type BinOp = "add" | "sub" | "mul" | "and" | "or" | "xor" | "shl" | "lshr" | "ashr";
export type CmpOp = "eq" | "ne" | "ult" | "ule" | "slt" | "sle";

interface Node {
  /** Unique within one builder; children always have smaller ids than their parents. */
  readonly id: number;
  readonly type: Scalar;
}
/**
 * A PIR expression node. `and/or/xor/not` and `eq/ne`/`select` also apply to booleans.
 * `const` holds a boolean as 0n/1n. `extract` takes `type.w` bits from bit `lo`.
 */
export type PExpr = Node &
  (
    | { readonly op: "const"; readonly value: bigint }
    | { readonly op: "ref"; readonly name: string }
    | { readonly op: "elem"; readonly array: string; readonly index: PExpr }
    | { readonly op: BinOp; readonly x: PExpr; readonly y: PExpr }
    | { readonly op: "not" | "neg"; readonly x: PExpr }
    | { readonly op: CmpOp; readonly x: PExpr; readonly y: PExpr }
    | { readonly op: "select"; readonly c: PExpr; readonly x: PExpr; readonly y: PExpr }
    | { readonly op: "zext" | "sext"; readonly x: PExpr }
    | { readonly op: "extract"; readonly x: PExpr; readonly lo: number }
    | { readonly op: "concat"; readonly x: PExpr; readonly y: PExpr }
  );

/** Operands of a node, in order (`select`: c, x, y; `elem`: index). */
export function kids(e: PExpr): PExpr[] {
  switch (e.op) {
    case "const":
    case "ref":
      return [];
    case "elem":
      return [e.index];
    case "select":
      return [e.c, e.x, e.y];
    case "not":
    case "neg":
    case "zext":
    case "sext":
    case "extract":
      return [e.x];
    default:
      return [e.x, e.y];
  }
}

export type PStmt =
  /** An immutable temporary. */
  | { s: "let"; name: string; value: PExpr }
  /** Declares a mutable scalar with its initial value; `set` assigns it. */
  | { s: "var"; name: string; value: PExpr }
  | { s: "set"; name: string; value: PExpr }
  /** `for (index = 0; index < n; index++) body`, index a u32. */
  | { s: "for"; index: string; n: number; body: PStmt[] }
  | { s: "if"; c: PExpr; then: PStmt[]; else: PStmt[] }
  /** `array[index] = value` into a result array; index a loop variable or a constant. */
  | { s: "store"; array: string; index: PExpr; value: PExpr }
  /** The scalar results; only as the last statement of the body. */
  | { s: "return"; values: Record<string, PExpr> };

export interface PirVar {
  name: string;
  type: PType;
}

/**
 * A routine. Scalar results come from the final `return`; array results are written
 * element by element with `store` (printed as caller-provided arrays in C, fresh typed arrays
 * in JS).
 */
export interface PirFunction {
  /** All expression nodes come from one builder (./stage.ts), so their ids are unique. */
  name: string;
  params: PirVar[];
  results: PirVar[];
  body: PStmt[];
}

// ---------------------------------------------------------------------------------------
// Meaning: values with poison

/** A value and its definedness (the Alive2 `{value, non_poison}` pair). */
export interface Slot<V, B> {
  value: V | B;
  defined: B;
}

/**
 * The one definition of what each PIR operation computes and when it is poison.
 * `args` are the operand slots in `kids(e)` order. `const`, `ref` and `elem` are not handled
 * here (the evaluator looks them up).
 */
export function applyOp<V, B>(bv: BV<V, B>, e: PExpr, args: Slot<V, B>[]): Slot<V, B> {
  const v = (i: number) => args[i]!.value as V;
  const b = (i: number) => args[i]!.value as B;
  const all = args.reduce<B>((acc, s) => bv.andB(acc, s.defined), bv.true);
  const ks = kids(e);
  const isBool = (i: number) => ks[i]!.type.t === "bool";
  const ok = (value: V | B): Slot<V, B> => ({ value, defined: all });
  switch (e.op) {
    case "add":
      return ok(bv.add(v(0), v(1)));
    case "sub":
      return ok(bv.sub(v(0), v(1)));
    case "mul":
      return ok(bv.mul(v(0), v(1)));
    case "and":
      return ok(isBool(0) ? bv.andB(b(0), b(1)) : bv.and(v(0), v(1)));
    case "or":
      return ok(isBool(0) ? bv.orB(b(0), b(1)) : bv.or(v(0), v(1)));
    case "xor":
      return ok(isBool(0) ? bv.notB(bv.eqB(b(0), b(1))) : bv.xor(v(0), v(1)));
    case "not":
      return ok(isBool(0) ? bv.notB(b(0)) : bv.not(v(0)));
    case "neg":
      return ok(bv.neg(v(0)));
    case "shl":
    case "lshr":
    case "ashr": {
      // Poison unless count < width; the value where defined is the same for SMT's shifts.
      const inRange = bv.ult(v(1), bv.k(widthOf(e.type), widthOf(e.type)));
      const value = e.op === "shl" ? bv.shl(v(0), v(1)) : e.op === "lshr" ? bv.lshr(v(0), v(1)) : bv.ashr(v(0), v(1));
      return { value, defined: bv.andB(all, inRange) };
    }
    case "eq":
      return ok(isBool(0) ? bv.eqB(b(0), b(1)) : bv.eq(v(0), v(1)));
    case "ne":
      return ok(bv.notB(isBool(0) ? bv.eqB(b(0), b(1)) : bv.eq(v(0), v(1))));
    case "ult":
      return ok(bv.ult(v(0), v(1)));
    case "ule":
      return ok(bv.ule(v(0), v(1)));
    case "slt":
      return ok(bv.slt(v(0), v(1)));
    case "sle":
      return ok(bv.sle(v(0), v(1)));
    case "select": {
      const c = b(0);
      const value = isBool(1) ? bv.iteB(c, b(1), b(2)) : bv.ite(c, v(1), v(2));
      return { value, defined: bv.andB(args[0]!.defined, bv.iteB(c, args[1]!.defined, args[2]!.defined)) };
    }
    case "zext":
      return ok(bv.zext(v(0), widthOf(e.type)));
    case "sext":
      return ok(bv.sext(v(0), widthOf(e.type)));
    case "extract":
      return ok(bv.extract(v(0), e.lo + widthOf(e.type) - 1, e.lo));
    case "concat":
      return ok(bv.concat(v(0), v(1)));
    default:
      throw new Error(`applyOp: ${e.op} is not an operation`);
  }
}

/** A constant as a slot (a boolean constant is 0n/1n). */
function constSlot<V, B>(bv: BV<V, B>, e: PExpr & { op: "const" }): Slot<V, B> {
  return { value: e.type.t === "bool" ? (e.value ? bv.true : bv.false) : bv.k(e.value, e.type.w), defined: bv.true };
}

// ---------------------------------------------------------------------------------------
// Evaluator

type Cell<V, B> = Slot<V, B> | Slot<V, B>[];
/** An argument: a scalar (V or B), or an array of them; arguments are defined. */
export type Arg<V, B> = V | B | (V | B)[];

/**
 * Runs `fn` over the algebra `bv`.
 * @param args one entry per parameter: a `V` (bit-vector of the parameter's width), a `B`
 *   (boolean), or an array of `n` of them for `T[n]` parameters.
 * @returns every result: a slot `{value, defined}`, or an array of slots for array results.
 * @throws on an unknown name, a non-constant array index, or a missing `return`.
 */
export function evalPir<V, B>(
  fn: PirFunction,
  bv: BV<V, B>,
  args: Record<string, Arg<V, B>>,
): Record<string, Cell<V, B>> {
  nodesOf(stmtRoots(fn.body)); // rejects nodes from two builders (ids key the caches)
  const env = new Map<string, Cell<V, B>>();
  const types = new Map<string, Scalar>(); // element type of every name, for merges
  for (const v of [...fn.params, ...fn.results]) types.set(v.name, v.type.t === "arr" ? v.type.elem : v.type);
  const paramNames = new Set(fn.params.map((p) => p.name));
  for (const p of fn.params) {
    const a = args[p.name];
    if (a === undefined) throw new Error(`evalPir ${fn.name}: missing argument ${p.name}`);
    env.set(
      p.name,
      Array.isArray(a) ? a.map((value) => ({ value, defined: bv.true })) : { value: a, defined: bv.true },
    );
  }
  for (const r of fn.results) {
    if (r.type.t === "arr") {
      const poison = r.type.elem.t === "bool" ? bv.false : bv.k(0, r.type.elem.w);
      env.set(
        r.name,
        Array.from({ length: r.type.n }, () => ({ value: poison, defined: bv.false })),
      );
    }
  }

  // Nodes that read only parameters keep their value for the whole run; others are cached
  // until the next assignment.
  const staticMemo = new Map<number, Slot<V, B>>();
  const isStatic = new Map<number, boolean>();
  const staticOf = (e: PExpr): boolean => {
    let s = isStatic.get(e.id);
    if (s === undefined) {
      s =
        e.op === "ref"
          ? paramNames.has(e.name)
          : e.op === "elem"
            ? paramNames.has(e.array) && staticOf(e.index)
            : kids(e).every(staticOf);
      isStatic.set(e.id, s);
    }
    return s;
  };
  let memo = new Map<number, Slot<V, B>>();
  // Array indices are loop indices or constants, known as numbers whatever the algebra.
  const loopIndex = new Map<string, number>();
  const index = (e: PExpr): number => {
    const n = e.op === "const" ? Number(e.value) : e.op === "ref" ? loopIndex.get(e.name) : undefined;
    if (n === undefined) throw new Error(`evalPir ${fn.name}: array index is not a loop index or constant`);
    return n;
  };
  const ev = (e: PExpr): Slot<V, B> => {
    const st = staticOf(e);
    const m = st ? staticMemo : memo;
    let r = m.get(e.id);
    if (r) return r;
    if (e.op === "const") r = constSlot(bv, e);
    else if (e.op === "ref") {
      const c = env.get(e.name);
      if (!c || Array.isArray(c)) throw new Error(`evalPir ${fn.name}: unknown scalar ${e.name}`);
      r = c;
    } else if (e.op === "elem") {
      const c = env.get(e.array);
      if (!c || !Array.isArray(c)) throw new Error(`evalPir ${fn.name}: unknown array ${e.array}`);
      const i = index(e.index);
      r = c[i];
      if (!r) throw new Error(`evalPir ${fn.name}: ${e.array}[${i}] out of range`);
    } else r = applyOp(bv, e, kids(e).map(ev));
    m.set(e.id, r);
    return r;
  };

  let returned: Record<string, Slot<V, B>> | undefined;
  const run = (stmts: PStmt[]): void => {
    for (const st of stmts) {
      switch (st.s) {
        case "let":
        case "var":
        case "set":
          if (paramNames.has(st.name)) throw new Error(`evalPir ${fn.name}: assigns parameter ${st.name}`);
          types.set(st.name, st.value.type);
          env.set(st.name, ev(st.value));
          memo = new Map();
          break;
        case "store": {
          const c = env.get(st.array);
          if (!c || !Array.isArray(c)) throw new Error(`evalPir ${fn.name}: unknown array ${st.array}`);
          c[index(st.index)] = ev(st.value);
          memo = new Map();
          break;
        }
        case "for":
          types.set(st.index, u32);
          for (let i = 0; i < st.n; i++) {
            env.set(st.index, { value: bv.k(i, 32), defined: bv.true });
            loopIndex.set(st.index, i);
            memo = new Map();
            run(st.body);
          }
          break;
        case "if": {
          const c = ev(st.c);
          const known = bv.asBool(c.value as B);
          const isDef = bv.asBool(c.defined);
          if (known !== undefined && isDef === true) {
            run(known ? st.then : st.else);
            break;
          }
          // Symbolic (or poison) condition: run both arms on copies and merge what they write.
          const before = new Map([...env].map(([k, v]) => [k, Array.isArray(v) ? [...v] : v]));
          run(st.then);
          const thenEnv = new Map(env);
          env.clear();
          for (const [k, v] of before) env.set(k, Array.isArray(v) ? [...v] : v);
          memo = new Map();
          run(st.else);
          for (const [k, t] of thenEnv) {
            const f = env.get(k);
            const ty = types.get(k);
            if (f === undefined || ty === undefined) continue; // declared in the then-arm only: out of scope
            const merge = (t: Slot<V, B>, f: Slot<V, B>) => mergeSlots(bv, ty, c, t, f);
            if (Array.isArray(t) && Array.isArray(f))
              env.set(
                k,
                t.map((ti, i) => merge(ti, f[i]!)),
              );
            else if (!Array.isArray(t) && !Array.isArray(f)) env.set(k, merge(t, f));
          }
          memo = new Map();
          break;
        }
        case "return":
          returned = Object.fromEntries(Object.entries(st.values).map(([k, e]) => [k, ev(e)]));
          return;
      }
    }
  };
  run(fn.body);

  const out: Record<string, Cell<V, B>> = {};
  for (const r of fn.results) {
    if (r.type.t === "arr") out[r.name] = env.get(r.name) as Slot<V, B>[];
    else {
      const s = returned?.[r.name];
      if (!s) throw new Error(`evalPir ${fn.name}: result ${r.name} is not returned`);
      out[r.name] = s;
    }
  }
  return out;
}

/** `c ? t : f` on slots of type `type`: the `select` rule of `applyOp`. */
function mergeSlots<V, B>(bv: BV<V, B>, type: Scalar, c: Slot<V, B>, t: Slot<V, B>, f: Slot<V, B>): Slot<V, B> {
  if (t === f) return t;
  const arm: PExpr = { op: "ref", name: "", id: -1, type };
  const cond: PExpr = { op: "ref", name: "", id: -1, type: bool };
  return applyOp(bv, { op: "select", c: cond, x: arm, y: arm, id: -1, type }, [c, t, f]);
}

// ---------------------------------------------------------------------------------------
// Concrete convenience

/** A concrete argument or result: bigint for bit-vectors, boolean, or an array of them. */
export type PirValue = bigint | boolean | readonly (bigint | boolean)[];
/** A concrete result with definedness. */
export type PirOut = { value: bigint | boolean; defined: boolean } | { value: bigint | boolean; defined: boolean }[];

/** Converts a concrete value of PIR type `t` into the `concrete` algebra's argument. */
export function toConcreteArg(t: PType, x: PirValue): Arg<CV, boolean> {
  const one = (s: Scalar, v: bigint | boolean): CV | boolean =>
    s.t === "bool" ? Boolean(v) : concrete.k(typeof v === "bigint" ? v : v ? 1n : 0n, s.w);
  if (t.t === "arr") {
    if (!Array.isArray(x) || x.length !== t.n) throw new Error(`expected ${showType(t)}`);
    return x.map((v) => one(t.elem, v));
  }
  if (Array.isArray(x)) throw new Error(`expected ${showType(t)}, got an array`);
  return one(t, x as bigint | boolean);
}

/**
 * Runs `fn` concretely. `args` maps each parameter to a bigint / boolean (or an array).
 * @returns each result as `{value, defined}` (arrays of them for array results).
 */
export function evalPirConcrete(fn: PirFunction, args: Record<string, PirValue>): Record<string, PirOut> {
  const a: Record<string, Arg<CV, boolean>> = {};
  for (const p of fn.params) {
    const x = args[p.name];
    if (x === undefined) throw new Error(`evalPirConcrete ${fn.name}: missing ${p.name}`);
    a[p.name] = toConcreteArg(p.type, x);
  }
  const r = evalPir(fn, concrete, a);
  const plain = (s: Slot<CV, boolean>) => ({
    value: typeof s.value === "boolean" ? s.value : s.value.x,
    defined: s.defined,
  });
  return Object.fromEntries(Object.entries(r).map(([k, c]) => [k, Array.isArray(c) ? c.map(plain) : plain(c)]));
}

// ---------------------------------------------------------------------------------------
// Traversal

/** Every expression root of a statement list, in order, with the statement it belongs to. */
export function* stmtRoots(stmts: PStmt[]): Generator<PExpr> {
  for (const st of stmts) {
    switch (st.s) {
      case "for":
        yield* stmtRoots(st.body);
        break;
      case "if":
        yield st.c;
        yield* stmtRoots(st.then);
        yield* stmtRoots(st.else);
        break;
      case "store":
        yield st.index;
        yield st.value;
        break;
      case "return":
        yield* Object.values(st.values);
        break;
      default:
        yield st.value;
    }
  }
}

/** All nodes reachable from `roots`, children before parents (increasing id). */
export function nodesOf(roots: Iterable<PExpr>): PExpr[] {
  const seen = new Map<number, PExpr>();
  const stack = [...roots];
  while (stack.length) {
    const e = stack.pop()!;
    const had = seen.get(e.id);
    if (had === e) continue;
    if (had) throw new Error(`PIR node id ${e.id} used twice: a function mixes nodes of two builders`);
    seen.set(e.id, e);
    stack.push(...kids(e));
  }
  return [...seen.values()].sort((a, b) => a.id - b.id);
}

/** Names read by the function's expressions (refs and arrays). */
export function namesRead(fn: PirFunction): Set<string> {
  const s = new Set<string>();
  for (const e of nodesOf(stmtRoots(fn.body))) {
    if (e.op === "ref") s.add(e.name);
    if (e.op === "elem") s.add(e.array);
  }
  return s;
}

// ---------------------------------------------------------------------------------------
// Interval analysis (unsigned), for shift-count safety

/** An unsigned range [lo, hi]; lo > hi means unreachable. */
export interface Interval {
  lo: bigint;
  hi: bigint;
}
/** Path facts: a range known for particular nodes (by id) on the current path. */
export type Facts = ReadonlyMap<number, Interval>;
const NO_FACTS: Facts = new Map();
const full = (w: number): Interval => ({ lo: 0n, hi: (1n << BigInt(w)) - 1n });
const meet = (a: Interval, b: Interval): Interval => ({ lo: a.lo > b.lo ? a.lo : b.lo, hi: a.hi < b.hi ? a.hi : b.hi });
const hull = (a: Interval, b: Interval): Interval =>
  a.lo > a.hi ? b : b.lo > b.hi ? a : { lo: a.lo < b.lo ? a.lo : b.lo, hi: a.hi > b.hi ? a.hi : b.hi };
const ones = (x: bigint): bigint => (x <= 0n ? 0n : (1n << BigInt(x.toString(2).length)) - 1n);

/**
 * The range of the unsigned value of `e` on paths where `facts` hold. Sound for defined
 * values and for the printers' values of poison shifts (a guarded shift prints 0), which is
 * why shift results always have lo = 0. `names` gives ranges for refs (loop indices, lets).
 */
export function interval(
  e: PExpr,
  facts: Facts = NO_FACTS,
  names?: ReadonlyMap<string, Interval>,
  memo = new Map<number, Interval>(),
): Interval {
  const hit = memo.get(e.id);
  if (hit) return hit;
  const w = widthOf(e.type);
  const I = (x: PExpr) => interval(x, facts, names, memo);
  const fits = (i: Interval): Interval => (i.hi < 1n << BigInt(w) && i.lo >= 0n ? i : full(w));
  let r: Interval;
  switch (e.op) {
    case "const":
      r = { lo: e.value, hi: e.value };
      break;
    case "ref":
      r = names?.get(e.name) ?? full(w);
      break;
    case "and": {
      const [a, b] = [I(e.x), I(e.y)];
      r = { lo: 0n, hi: a.hi < b.hi ? a.hi : b.hi };
      break;
    }
    case "or": {
      const [a, b] = [I(e.x), I(e.y)];
      r = { lo: a.lo > b.lo ? a.lo : b.lo, hi: ones(a.hi > b.hi ? a.hi : b.hi) };
      break;
    }
    case "xor": {
      const [a, b] = [I(e.x), I(e.y)];
      r = { lo: 0n, hi: ones(a.hi > b.hi ? a.hi : b.hi) };
      break;
    }
    case "add": {
      const [a, b] = [I(e.x), I(e.y)];
      r = fits({ lo: a.lo + b.lo, hi: a.hi + b.hi });
      break;
    }
    case "sub": {
      const [a, b] = [I(e.x), I(e.y)];
      r = fits({ lo: a.lo - b.hi, hi: a.hi - b.lo });
      break;
    }
    case "mul": {
      const [a, b] = [I(e.x), I(e.y)];
      r = fits({ lo: a.lo * b.lo, hi: a.hi * b.hi });
      break;
    }
    case "lshr": {
      const [a, b] = [I(e.x), I(e.y)];
      r = { lo: 0n, hi: b.lo < BigInt(w) ? a.hi >> b.lo : a.hi };
      break;
    }
    case "shl": {
      const [a, b] = [I(e.x), I(e.y)];
      r = b.hi < BigInt(w) ? fits({ lo: 0n, hi: a.hi << b.hi }) : full(w);
      break;
    }
    case "select": {
      const t = interval(e.x, withFacts(facts, e.c, true, names), names);
      const f = interval(e.y, withFacts(facts, e.c, false, names), names);
      r = hull(t, f);
      break;
    }
    case "zext":
      r = I(e.x);
      break;
    case "sext": {
      const a = I(e.x);
      r = a.hi < 1n << BigInt(widthOf(e.x.type) - 1) ? a : full(w);
      break;
    }
    case "extract": {
      const a = I(e.x);
      r =
        e.lo === 0 && a.hi < 1n << BigInt(w)
          ? a
          : { lo: 0n, hi: a.hi >> BigInt(e.lo) < full(w).hi ? a.hi >> BigInt(e.lo) : full(w).hi };
      break;
    }
    default:
      r = e.type.t === "bool" ? { lo: 0n, hi: 1n } : full(w);
  }
  const f = facts.get(e.id);
  if (f) r = meet(r, f);
  memo.set(e.id, r);
  return r;
}

/**
 * The facts that hold on the arm of `c` taken when c is `taken`: ranges implied by
 * `eq/ne/ult/ule` against a constant, through `and`/`or`/`not`.
 */
export function withFacts(facts: Facts, c: PExpr, taken: boolean, names?: ReadonlyMap<string, Interval>): Facts {
  const out = new Map(facts);
  const add = (x: PExpr, i: Interval) => {
    const cur = out.get(x.id);
    out.set(x.id, cur ? meet(cur, i) : i);
  };
  const walk = (c: PExpr, taken: boolean): void => {
    if (c.op === "not") return walk(c.x, !taken);
    if (c.op === "and" && c.type.t === "bool") {
      if (taken) (walk(c.x, true), walk(c.y, true));
      return;
    }
    if (c.op === "or" && c.type.t === "bool") {
      if (!taken) (walk(c.x, false), walk(c.y, false));
      return;
    }
    if (c.op !== "eq" && c.op !== "ne" && c.op !== "ult" && c.op !== "ule") return;
    if (c.x.type.t !== "bv") return;
    const maxv = full(c.x.type.w).hi;
    const pos = c.op === "ne" ? !taken : taken; // the eq-sense for eq/ne
    if (c.op === "eq" || c.op === "ne") {
      for (const [x, k] of [
        [c.x, c.y],
        [c.y, c.x],
      ] as const) {
        if (k.op !== "const" || x.op === "const") continue;
        if (pos) add(x, { lo: k.value, hi: k.value });
        else {
          const cur = interval(x, out, names);
          if (cur.lo === k.value) add(x, { lo: k.value + 1n, hi: maxv });
          if (cur.hi === k.value) add(x, { lo: 0n, hi: k.value - 1n });
        }
      }
      return;
    }
    const strict = c.op === "ult";
    if (c.y.op === "const" && c.x.op !== "const") {
      const k = c.y.value; // x < k  (x <= k)
      if (taken) add(c.x, { lo: 0n, hi: strict ? k - 1n : k });
      else add(c.x, { lo: strict ? k : k + 1n, hi: maxv });
    } else if (c.x.op === "const" && c.y.op !== "const") {
      const k = c.x.value; // k < y  (k <= y)
      if (taken) add(c.y, { lo: strict ? k + 1n : k, hi: maxv });
      else add(c.y, { lo: 0n, hi: strict ? k : k - 1n });
    }
  };
  walk(c, taken);
  return out;
}

/**
 * How each shift of `fn` may be printed: `always` when its count is below the width on every
 * input, `paths` when only on the paths (select arms, if-branches) where its value is used —
 * then it must not be evaluated speculatively (C makes an over-wide shift undefined even if
 * unused). Shifts absent from the map need a printed guard.
 */
export function shiftSafety(fn: PirFunction): Map<number, "always" | "paths"> {
  // Ranges of names: loop indices [0, n-1], lets by their value, everything else full.
  const names = new Map<string, Interval>();
  const scan = (stmts: PStmt[]) => {
    for (const st of stmts) {
      if (st.s === "for") {
        const i = { lo: 0n, hi: BigInt(st.n - 1) };
        const cur = names.get(st.index);
        names.set(st.index, cur ? hull(cur, i) : i);
        scan(st.body);
      } else if (st.s === "if") (scan(st.then), scan(st.else));
      else if (st.s === "let") {
        const i = interval(st.value, NO_FACTS, names);
        const cur = names.get(st.name);
        names.set(st.name, cur ? hull(cur, i) : i);
      }
    }
  };
  scan(fn.body);
  // Facts per node: the meet over all its uses of the path facts at the use.
  const factsAt = new Map<number, Facts>();
  const meetFacts = (a: Facts | undefined, b: Facts): Facts => {
    if (!a) return b;
    const out = new Map<number, Interval>();
    for (const [k, i] of a) {
      const j = b.get(k);
      if (j) out.set(k, hull(i, j));
    }
    return out;
  };
  const use = (e: PExpr, f: Facts) => factsAt.set(e.id, meetFacts(factsAt.get(e.id), f));
  const visit = (stmts: PStmt[], f: Facts) => {
    for (const st of stmts) {
      if (st.s === "for") visit(st.body, f);
      else if (st.s === "if") {
        use(st.c, f);
        visit(st.then, withFacts(f, st.c, true, names));
        visit(st.else, withFacts(f, st.c, false, names));
      } else for (const e of stmtRoots([st])) use(e, f);
    }
  };
  visit(fn.body, NO_FACTS);
  const nodes = nodesOf(stmtRoots(fn.body));
  for (let i = nodes.length - 1; i >= 0; i--) {
    const e = nodes[i]!;
    const f = factsAt.get(e.id) ?? NO_FACTS;
    if (e.op === "select") {
      use(e.c, f);
      use(e.x, withFacts(f, e.c, true, names));
      use(e.y, withFacts(f, e.c, false, names));
    } else for (const k of kids(e)) use(k, f);
  }
  const out = new Map<number, "always" | "paths">();
  for (const e of nodes) {
    if (e.op !== "shl" && e.op !== "lshr" && e.op !== "ashr") continue;
    const w = BigInt(widthOf(e.type));
    if (interval(e.y, NO_FACTS, names).hi < w) out.set(e.id, "always");
    else if (interval(e.y, factsAt.get(e.id) ?? NO_FACTS, names).hi < w) out.set(e.id, "paths");
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Printing support shared by targets/js and targets/c

/** What a printer needs to know about a function before printing it. */
export interface PrintPlan {
  /** Shifts that may be printed raw (see `shiftSafety`); others need a printed guard. */
  safety: Map<number, "always" | "paths">;
  /** Whether a node may be evaluated ahead of its use (it contains no path-safe raw shift outside lazy select arms). */
  hoistable(e: PExpr): boolean;
}

/** Builds the print plan of `fn`. */
export function printPlan(fn: PirFunction): PrintPlan {
  const safety = shiftSafety(fn);
  const memo = new Map<number, boolean>();
  const unsafe = (e: PExpr): boolean => {
    let r = memo.get(e.id);
    if (r === undefined) {
      r =
        safety.get(e.id) === "paths" ||
        (e.op === "select" ? unsafe(e.c) : e.op === "elem" ? unsafe(e.index) : kids(e).some(unsafe));
      memo.set(e.id, r);
    }
    return r;
  };
  return { safety, hoistable: (e) => !unsafe(e) };
}

/** Expressions of one statement, printed: temporaries to declare first, then the roots' text. */
export interface PrintedExprs {
  temps: { name: string; node: PExpr; text: string }[];
  roots: string[];
}

/**
 * Prints the expressions of one statement with `fmt` (one node, given its operands' text),
 * binding to a temporary every hoistable node that is shared or long. Temporaries come
 * children first; names come from `fresh`.
 */
export function printExprs(
  roots: PExpr[],
  plan: PrintPlan,
  fmt: (e: PExpr, kid: (k: PExpr) => string) => string,
  fresh: () => string,
  longText = 64,
): PrintedExprs {
  const count = new Map<number, number>();
  for (const r of roots) count.set(r.id, (count.get(r.id) ?? 0) + 1);
  for (const e of nodesOf(roots).reverse()) for (const k of kids(e)) count.set(k.id, (count.get(k.id) ?? 0) + 1);
  const temps: PrintedExprs["temps"] = [];
  const named = new Map<number, string>();
  const inline = new Map<number, string>();
  const rootIds = new Set(roots.map((r) => r.id));
  const visit = (e: PExpr): string => {
    const n = named.get(e.id) ?? inline.get(e.id);
    if (n !== undefined) return n;
    const text = fmt(e, visit);
    const trivial = e.op === "const" || e.op === "ref" || e.op === "elem";
    if (
      !trivial &&
      !rootIds.has(e.id) &&
      plan.hoistable(e) &&
      ((count.get(e.id) ?? 0) >= 2 || text.length > longText)
    ) {
      const name = fresh();
      temps.push({ name, node: e, text });
      named.set(e.id, name);
      return name;
    }
    inline.set(e.id, text);
    return text;
  };
  return { temps, roots: roots.map(visit) };
}

/** Removes one pair of parentheses that encloses the whole of `s`. */
export function unparen(s: string): string {
  if (!s.startsWith("(") || !s.endsWith(")")) return s;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "(") depth++;
    else if (s[i] === ")" && --depth === 0 && i < s.length - 1) return s;
  }
  return s.slice(1, -1);
}

/** Throws unless `name` is a plain identifier (names are never taken from input text). */
export function checkIdent(name: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`not an identifier: ${JSON.stringify(name)}`);
  return name;
}
