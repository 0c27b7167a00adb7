/**
 * @fileoverview An interpretation of the BV algebra that writes LLVM IR: every operation
 * appends `%tN = op iW …` to a function body and returns the typed name (`"i32 %t7"`).
 * Running a reference semantics (src/sem) through it yields LLVM IR with exactly the PTX
 * meaning, with no second copy of that meaning: the IR is derived, not written.
 *
 * Shifts: BV shifts have SMT meaning (an amount ≥ the width gives 0, or the sign fill for
 * `ashr`), while LLVM's `shl/lshr/ashr` are poison there. Each shift by a non-constant
 * amount is therefore emitted with an explicit guard: `select (icmp ult y, W), (shl x, y), 0`
 * and `ashr x, (select (icmp ult y, W), y, W-1)`; the unselected poison arm of a `select` is
 * harmless (LangRef, "select"). Operations on constants only are folded here with the
 * concrete interpretation (the same algebra), which keeps the text short; that changes no
 * meaning.
 *
 * Values are typed operand strings: `"i32 %t3"`, `"i33 -5"`, `"i1 true"`. A boolean is an
 * `i1` value, so `fromB` is the identity.
 */
import type { BV, CV, Defined } from "../../src/sem/bv.js";
import { concrete, u } from "../../src/sem/bv.js";
import type { MatchForm, Profile, Sel, SzextForm, VshForm } from "../../src/ir/forms.js";
import type { FamilyName, FamilyOf, FormOf } from "../../src/families/index.js";
import { familyOf } from "../../src/families/index.js";
import type { ScalarSemantics } from "../../src/family/types.js";
import { minMaxLhs, minMaxSigned, satBits, satRange, selField } from "../../src/sem/vsh.js";

/** An IR value: `"iW <name or constant>"`. */
export type IrVal = string;

function widthOfTyped(x: IrVal): number {
  const m = /^i(\d+) /.exec(x);
  if (!m) throw new Error(`not a typed IR value: ${x}`);
  return Number(m[1]);
}

function bare(x: IrVal): string {
  return x.slice(x.indexOf(" ") + 1);
}

/** The constant of a typed value, or undefined for a name. */
function constOf(x: IrVal): CV | undefined {
  const w = widthOfTyped(x);
  const b = bare(x);
  if (b === "true") return u(1, 1);
  if (b === "false") return u(0, 1);
  if (/^-?\d+$/.test(b)) return u(BigInt(b), w);
  return undefined;
}

/** A constant in LLVM's spelling: signed decimal, `true`/`false` for i1. */
export function irConst(value: bigint, width: number): IrVal {
  const x = BigInt.asUintN(width, value);
  if (width === 1) return `i1 ${x ? "true" : "false"}`;
  return `i${width} ${BigInt.asIntN(width, x)}`;
}

function fromCV(x: CV): IrVal {
  return irConst(x.x, x.w);
}

/**
 * The LLVM IR writer. One instance writes one function body; `lines` holds the instructions
 * in order. Names are `%<prefix><n>`.
 */
export class LlvmIrBV implements BV<IrVal, IrVal> {
  readonly lines: string[] = [];
  /** `declare` lines of the intrinsics called, for the module. */
  readonly decls = new Set<string>();
  private n = 0;
  readonly true: IrVal = "i1 true";
  readonly false: IrVal = "i1 false";

  constructor(private readonly prefix = "t") {}

  /** Appends `%tN = <rhs>` and returns the typed name. */
  emit(width: number, rhs: string): IrVal {
    const name = `%${this.prefix}${this.n++}`;
    this.lines.push(`  ${name} = ${rhs}`);
    return `i${width} ${name}`;
  }

  /**
   * A call of an intrinsic returning `iW`: `call iW @name(args)`; records its declaration.
   */
  call(width: number, name: string, args: IrVal[]): IrVal {
    this.decls.add(`declare i${width} @${name}(${args.map((a) => `i${widthOfTyped(a)}`).join(", ")})`);
    return this.emit(width, `call i${width} @${name}(${args.join(", ")})`);
  }

  /**
   * A raw LLVM shift, without the SMT guard: the caller guarantees the amount is below the
   * width (an LLVM shift is poison otherwise). Used by hand-written ("best") IR only.
   */
  rawShift(op: "shl" | "lshr" | "ashr", x: IrVal, y: IrVal): IrVal {
    const w = this.same(x, y, op);
    const a = constOf(x);
    const b = constOf(y);
    if (a && b) return fromCV(concrete[op](a, b));
    return this.emit(w, `${op} i${w} ${bare(x)}, ${bare(y)}`);
  }

  private bin(op: string, x: IrVal, y: IrVal, fold: (a: CV, b: CV) => CV): IrVal {
    const w = this.same(x, y, op);
    const a = constOf(x);
    const b = constOf(y);
    if (a && b) return fromCV(fold(a, b));
    // Identities, so derived IR does not carry `or x, 0` noise.
    const ones = (c: CV | undefined) => c !== undefined && c.x === (1n << BigInt(w)) - 1n;
    const zero = (c: CV | undefined) => c !== undefined && c.x === 0n;
    if ((op === "or" || op === "xor" || op === "add") && zero(b)) return x;
    if ((op === "or" || op === "xor" || op === "add") && zero(a)) return y;
    if (op === "sub" && zero(b)) return x;
    if (op === "and" && ones(b)) return x;
    if (op === "and" && ones(a)) return y;
    if (op === "and" && (zero(a) || zero(b))) return this.k(0, w);
    return this.emit(w, `${op} i${w} ${bare(x)}, ${bare(y)}`);
  }
  private cmp(pred: string, x: IrVal, y: IrVal, fold: (a: CV, b: CV) => boolean): IrVal {
    const w = this.same(x, y, pred);
    const a = constOf(x);
    const b = constOf(y);
    if (a && b) return fold(a, b) ? this.true : this.false;
    return this.emit(1, `icmp ${pred} i${w} ${bare(x)}, ${bare(y)}`);
  }
  private same(x: IrVal, y: IrVal, op: string): number {
    const w = widthOfTyped(x);
    if (w !== widthOfTyped(y)) throw new Error(`IR width mismatch in ${op}: ${x} vs ${y}`);
    return w;
  }

  k(value: bigint | number, width: number): IrVal {
    return irConst(BigInt(value), width);
  }
  width(x: IrVal): number {
    return widthOfTyped(x);
  }

  add = (x: IrVal, y: IrVal) => this.bin("add", x, y, concrete.add);
  sub = (x: IrVal, y: IrVal) => this.bin("sub", x, y, concrete.sub);
  mul = (x: IrVal, y: IrVal) => this.bin("mul", x, y, concrete.mul);
  and = (x: IrVal, y: IrVal) => this.bin("and", x, y, concrete.and);
  or = (x: IrVal, y: IrVal) => this.bin("or", x, y, concrete.or);
  xor = (x: IrVal, y: IrVal) => this.bin("xor", x, y, concrete.xor);
  not = (x: IrVal) => this.xor(x, this.k(-1, this.width(x)));
  neg = (x: IrVal) => this.sub(this.k(0, this.width(x)), x);

  /** x << y with y ≥ W → 0, guarded because LLVM's shl is poison there. */
  shl = (x: IrVal, y: IrVal): IrVal => this.shift("shl", x, y);
  lshr = (x: IrVal, y: IrVal): IrVal => this.shift("lshr", x, y);
  ashr = (x: IrVal, y: IrVal): IrVal => {
    const w = this.same(x, y, "ashr");
    const a = constOf(x);
    const b = constOf(y);
    if (a && b) return fromCV(concrete.ashr(a, b));
    if (b) return this.emit(w, `ashr i${w} ${bare(x)}, ${b.x >= BigInt(w) ? w - 1 : b.x}`);
    const inRange = this.emit(1, `icmp ult i${w} ${bare(y)}, ${w}`);
    const amt = this.emit(w, `select i1 ${bare(inRange)}, i${w} ${bare(y)}, i${w} ${w - 1}`);
    return this.emit(w, `ashr i${w} ${bare(x)}, ${bare(amt)}`);
  };
  private shift(op: "shl" | "lshr", x: IrVal, y: IrVal): IrVal {
    const w = this.same(x, y, op);
    const a = constOf(x);
    const b = constOf(y);
    if (a && b) return fromCV(concrete[op](a, b));
    if (b) return b.x >= BigInt(w) ? this.k(0, w) : b.x === 0n ? x : this.emit(w, `${op} i${w} ${bare(x)}, ${b.x}`);
    const inRange = this.emit(1, `icmp ult i${w} ${bare(y)}, ${w}`);
    const r = this.emit(w, `${op} i${w} ${bare(x)}, ${bare(y)}`);
    return this.emit(w, `select i1 ${bare(inRange)}, i${w} ${bare(r)}, i${w} 0`);
  }

  eq = (x: IrVal, y: IrVal) => this.cmp("eq", x, y, concrete.eq);
  ult = (x: IrVal, y: IrVal) => this.cmp("ult", x, y, concrete.ult);
  ule = (x: IrVal, y: IrVal) => this.cmp("ule", x, y, concrete.ule);
  slt = (x: IrVal, y: IrVal) => this.cmp("slt", x, y, concrete.slt);
  sle = (x: IrVal, y: IrVal) => this.cmp("sle", x, y, concrete.sle);

  ite = (c: IrVal, t: IrVal, e: IrVal): IrVal => {
    const w = this.same(t, e, "ite");
    const cc = constOf(c);
    if (cc) return cc.x ? t : e;
    if (t === e) return t;
    return this.emit(w, `select i1 ${bare(c)}, i${w} ${bare(t)}, i${w} ${bare(e)}`);
  };
  iteB = (c: IrVal, t: IrVal, e: IrVal) => this.ite(c, t, e);
  andB = (x: IrVal, y: IrVal) => {
    if (x === this.false || y === this.false) return this.false;
    if (x === this.true) return y;
    if (y === this.true) return x;
    return this.and(x, y);
  };
  orB = (x: IrVal, y: IrVal) => {
    if (x === this.true || y === this.true) return this.true;
    if (x === this.false) return y;
    if (y === this.false) return x;
    return this.or(x, y);
  };
  notB = (x: IrVal) => this.xor(x, this.true);
  eqB = (x: IrVal, y: IrVal) => this.eq(x, y);

  extract = (x: IrVal, hi: number, lo: number): IrVal => {
    const w = this.width(x);
    if (hi < lo || hi >= w || lo < 0) throw new Error(`IR extract [${hi}:${lo}] of ${w} bits`);
    const c = constOf(x);
    if (c) return fromCV(concrete.extract(c, hi, lo));
    const shifted = lo === 0 ? x : this.emit(w, `lshr i${w} ${bare(x)}, ${lo}`);
    const n = hi - lo + 1;
    return n === w ? shifted : this.emit(n, `trunc i${w} ${bare(shifted)} to i${n}`);
  };
  zext = (x: IrVal, width: number): IrVal => this.extend("zext", x, width);
  sext = (x: IrVal, width: number): IrVal => this.extend("sext", x, width);
  private extend(op: "zext" | "sext", x: IrVal, width: number): IrVal {
    const w = this.width(x);
    if (width < w) throw new Error(`IR ${op} ${w} → ${width}`);
    if (width === w) return x;
    const c = constOf(x);
    if (c) return fromCV(concrete[op](c, width));
    return this.emit(width, `${op} i${w} ${bare(x)} to i${width}`);
  }
  concat = (hi: IrVal, lo: IrVal): IrVal => {
    const wl = this.width(lo);
    const w = this.width(hi) + wl;
    return this.or(this.shl(this.zext(hi, w), this.k(wl, w)), this.zext(lo, w));
  };
  bitAt = (x: IrVal, i: number): IrVal => this.extract(x, i, i);
  fromB = (b: IrVal): IrVal => b;

  asBigint(x: IrVal): bigint | undefined {
    return constOf(x)?.x;
  }
  asBool(b: IrVal): boolean | undefined {
    const c = constOf(b);
    return c ? c.x === 1n : undefined;
  }
}

/** A function argument: its IR name (without `%`), width, and whether it is `inreg` (uniform). */
export interface IrArg {
  name: string;
  width: number;
  inreg?: boolean;
}

/** One function's text and the declarations it needs. */
export interface IrFunc {
  name: string;
  args: IrArg[];
  /** Widths of the results, returned in v0, v1, … (one result: `iW`; several: a struct). */
  results: number[];
  text: string;
  decls: string[];
}

/** A whole function from a straight-line body written over the algebra. */
export function irFunction(name: string, args: IrArg[], body: (bv: LlvmIrBV, args: IrVal[]) => IrVal[]): IrFunc {
  const bv = new LlvmIrBV();
  const vals = args.map((a) => `i${a.width} %${a.name}`);
  const results = body(bv, vals);
  return closeFunction(name, args, bv, [], results);
}

/** Prints `define`: `blocks` (already-labelled extra blocks) follow the entry lines of `bv`. */
export function closeFunction(name: string, args: IrArg[], bv: LlvmIrBV, blocks: string[], results: IrVal[], tailLines: string[] = []): IrFunc {
  const lines = [...bv.lines, ...blocks, ...tailLines];
  const widths = results.map(widthOfTyped);
  const retTy = widths.length === 1 ? `i${widths[0]}` : `{ ${widths.map((w) => `i${w}`).join(", ")} }`;
  let ret: string;
  if (results.length === 1) ret = `ret ${results[0]!}`;
  else {
    let agg = "undef";
    results.forEach((r, i) => {
      const nm = `%ret${i}`;
      lines.push(`  ${nm} = insertvalue ${retTy} ${agg}, ${r}, ${i}`);
      agg = nm;
    });
    ret = `ret ${retTy} ${agg}`;
  }
  const params = args.map((a) => `i${a.width}${a.inreg ? " inreg" : ""} %${a.name}`).join(", ");
  return { name, args, results: widths, text: `define ${retTy} @${name}(${params}) {\n${lines.join("\n")}\n  ${ret}\n}\n`, decls: [...bv.decls] };
}

/** A module of functions, with each intrinsic declared once. */
export function irModule(funcs: readonly IrFunc[], extra = ""): string {
  const decls = new Set<string>();
  for (const f of funcs) for (const d of f.decls) decls.add(d);
  return [...funcs.map((f) => f.text), ...decls, extra].join("\n") + "\n";
}

// ---------------------------------------------------------------------------------------
// The IR of a form: derived from the reference, and the hand-written "best" IR.

/** Operand kinds of a lane-wise routine: each source divergent ("v", a VGPR) or uniform ("s", `inreg`). */
export type ArgKinds = Partial<Record<"a" | "b" | "c", "v" | "s">>;

/** Immediate sources of a lane-wise function, folded into its body (no argument). */
export type ArgImms = Partial<Record<"a" | "b" | "c", bigint>>;

/** The scalar (lane-wise) families' names, and their forms. */
export type ScalarFamilyName = { [K in FamilyName]: FamilyOf<K>["shape"] extends "scalar" ? K : never }[FamilyName];
export type ScalarForm = FormOf<ScalarFamilyName>;

/** The sources a lane-wise form reads, from its family (src/families). */
function laneSources(f: ScalarForm): readonly ("a" | "b" | "c")[] {
  return familyOf(f)
    .sources(f)
    .filter((n: string): n is "a" | "b" | "c" => n === "a" || n === "b" || n === "c");
}

function laneArgs(f: ScalarForm, kinds: ArgKinds, imms: ArgImms = {}): IrArg[] {
  return laneSources(f)
    .filter((n) => imms[n] === undefined)
    .map((n) => ({ name: n, width: 32, ...(kinds[n] === "s" ? { inreg: true } : {}) }));
}

/**
 * The "derived" IR of a lane-wise form: the reference semantics (src/sem) run through
 * `LlvmIrBV`. Its meaning is the reference's by construction. `imms`: sources folded as
 * constants (the `llvm` target's functions per (form, immediates)); they take no argument.
 */
export function derivedIr(name: string, f: ScalarForm, profile: Profile, kinds: ArgKinds = {}, imms: ArgImms = {}): IrFunc {
  const args = laneArgs(f, kinds, imms);
  return irFunction(name, args, (bv, vals) => {
    // Sources in PTX order: an argument, or an immediate folded as a constant.
    const at = (n: "a" | "b" | "c") => (imms[n] !== undefined ? irConst(imms[n]!, 32) : vals[args.findIndex((x) => x.name === n)]);
    const [a, b, c] = [at("a"), at("b"), laneSources(f).includes("c") ? at("c") : undefined];
    // The family's reference semantics (one dispatch through the registry).
    const sem = familyOf(f).semantics as ScalarSemantics<ScalarForm>;
    return [sem(bv, f, profile, a!, b!, c ?? bv.k(0, 32)).value];
  });
}

/**
 * The "best" IR of a lane-wise form: what a careful front end would write with the AMDGPU
 * intrinsics (`llvm.amdgcn.{s,u}bfe`, `llvm.amdgcn.perm`) and the min/max intrinsics, with
 * shift counts masked the way the hardware masks them. A lowering, not a semantics: it is
 * checked against the reference like every other lowering (targets/amdgpu/oracle/llvm.ts).
 */
export function bestIr(name: string, f: ScalarForm, profile: Profile, kinds: ArgKinds = {}): IrFunc {
  const best = BEST_IR[familyOf(f).name as ScalarFamilyName] as BestIr<ScalarForm> | null;
  if (!best) return derivedIr(name, f, profile, kinds);
  return irFunction(name, laneArgs(f, kinds), (bv, [a, b, c]) => [best(bv, f, profile, a!, b!, c)]);
}

/** A family's hand-written "best" IR of one lane: the function body's value. */
type BestIr<F> = (bv: LlvmIrBV, f: F, profile: Profile, a: IrVal, b: IrVal, c: IrVal | undefined) => IrVal;

/**
 * The hand-written best IR of each scalar family, or null where there is none yet (the
 * derived IR then stands for it): a scalar family without an entry is a type error.
 */
const BEST_IR: { [K in ScalarFamilyName]: BestIr<FormOf<K>> | null } = {
  szext: (bv, f, _profile, a, b) => bestSzext(bv, f, a, b),
  video: (bv, f, profile, a, b, c) => bestVsh(bv, f, profile, a, b, c),
  vop: null,
};

/** Both IR variants of a form (for the LLVM crosscheck and the benchmark). */
export function formIrVariants(name: string, f: ScalarForm, profile: Profile, kinds: ArgKinds = {}): { derived: IrFunc; best: IrFunc } {
  return { derived: derivedIr(`${name}_derived`, f, profile, kinds), best: bestIr(`${name}_best`, f, profile, kinds) };
}

const k32 = (bv: LlvmIrBV, x: number | bigint) => bv.k(x, 32);

// szext: .wrap is exactly {s,u}bfe(a, 0, b): the intrinsic, like v_bfe, reads width[4:0] and
// gives 0 for width 0. .clamp keeps a when b ≥ 32.
function bestSzext(bv: LlvmIrBV, f: SzextForm, a: IrVal, b: IrVal): IrVal {
  const t = bv.call(32, f.type === "s32" ? "llvm.amdgcn.sbfe.i32" : "llvm.amdgcn.ubfe.i32", [a, k32(bv, 0), b]);
  if (f.mode === "wrap") return t;
  return bv.ite(bv.ult(b, k32(bv, 32)), t, a);
}

/** v_perm_b32 selector merging field `dsel` of t (S1, bytes 0..3) into c (S0, bytes 4..7). */
function mergeSelector(dsel: Sel, profile: Profile): number {
  const { lo, width } = selField(dsel);
  const bytes = [4, 5, 6, 7];
  const first = lo / 8;
  // isa: the low `width` bits of t go to the field; sm90 d.h1 takes t's upper half (D2).
  const from = profile === "sm90" && dsel === "h1" ? 2 : 0;
  for (let i = 0; i < width / 8; i++) bytes[first + i] = from + i;
  return bytes.reduce((acc, x, i) => acc | (x << (8 * i)), 0) >>> 0;
}

function bestVsh(bv: LlvmIrBV, f: VshForm, profile: Profile, a: IrVal, b: IrVal, c: IrVal | undefined): IrVal {
  const signedA = f.atype === "s32";
  const dsigned = f.dtype === "s32";
  const field = (x: IrVal, sel: Sel | null, signed: boolean) => {
    if (sel === null) return x;
    const { lo, width } = selField(sel);
    return bv.call(32, signed ? "llvm.amdgcn.sbfe.i32" : "llvm.amdgcn.ubfe.i32", [x, k32(bv, lo), k32(bv, width)]);
  };
  const ta = field(a, f.asel, signedA); // the .s33 ta, held sign/zero-extended in 32 bits
  const tb0 = field(b, f.bsel, false);
  const clamp = f.mode === "clamp";
  const tail = f.tail;
  const needWide = f.sat || (tail.kind === "op2" && tail.op2 !== "add");

  let t32: IrVal;
  let tmp: IrVal | undefined; // the .s34 intermediate, as i64
  let exact: IrVal | undefined;
  if (!needWide) {
    if (f.op === "vshr" && signedA) {
      // A count ≥ 31 fills with the sign either way.
      const n = clamp ? bv.call(32, "llvm.umin.i32", [tb0, k32(bv, 31)]) : bv.and(tb0, k32(bv, 31));
      t32 = bv.rawShift("ashr", ta, n);
    } else {
      const op = f.op === "vshl" ? "shl" : "lshr";
      const sh = bv.rawShift(op, ta, bv.and(tb0, k32(bv, 31)));
      t32 = clamp ? bv.ite(bv.ult(tb0, k32(bv, 32)), sh, k32(bv, 0)) : sh;
    }
  } else {
    const tb = clamp ? bv.call(32, "llvm.umin.i32", [tb0, k32(bv, 32)]) : bv.and(tb0, k32(bv, 31));
    const ta64 = signedA ? bv.sext(ta, 64) : bv.zext(ta, 64);
    const tb64 = bv.zext(tb, 64); // ≤ 32: the raw shift is defined
    exact = bv.rawShift(f.op === "vshl" ? "shl" : "ashr", ta64, tb64);
    // Wrap to the ISA's .s34 (a no-op for vshr, whose result fits in 33 bits).
    tmp = f.op === "vshl" ? bv.rawShift("ashr", bv.rawShift("shl", exact, bv.k(30, 64)), bv.k(30, 64)) : exact;
    if (f.sat) {
      const { min, max } = satRange(dsigned, satBits(f, profile));
      tmp = bv.call(64, "llvm.smax.i64", [bv.call(64, "llvm.smin.i64", [tmp, bv.k(max, 64)]), bv.k(min, 64)]);
    }
    t32 = bv.extract(tmp, 31, 0);
  }

  if (tail.kind === "none") return t32;
  if (tail.kind === "merge") return bv.call(32, "llvm.amdgcn.perm", [c!, t32, k32(bv, mergeSelector(tail.dsel, profile))]);
  if (tail.op2 === "add") return bv.add(t32, c!);
  const cc = dsigned ? bv.sext(c!, 64) : bv.zext(c!, 64);
  // isa: the signed .s34 tmp after saturation; sm90: D3 and A1 (src/sem/vsh.ts minMaxOperand).
  const lhs = minMaxLhs(bv, f, profile, { tmp: tmp!, t32, exact: exact! });
  const fn = `llvm.${minMaxSigned(f, profile) ? "s" : "u"}${tail.op2}.i64`;
  return bv.extract(bv.call(64, fn, [lhs, cc]), 31, 0);
}

// ---------------------------------------------------------------------------------------
// match.sync: the IR loop of amdgpu.md §6 and match.all equivalents (hand-written IR: the
// reference is warp-level, so there is no lane-level derivation).

/** Variants of the match IR: `loop` (any; all via any), `uniform` (all, one membermask group). */
export type MatchIrVariant = "loop" | "uniform";

/**
 * `match.{any,all}.sync.{b32,b64}` as an LLVM function of one lane:
 * `define … @name(i32|i64 %a, i32 %mm)`; `.any` returns d, `.all` returns `{ d, p }` (p as
 * 0/1). `wave` picks `llvm.amdgcn.ballot.i32/i64`. Lanes 32..63 of a wave64 are inactive, so
 * the ballot's low word is the warp mask.
 *   loop:    lead = readfirstlane(a); eq = a == lead; m = ballot(eq); exit when eq
 *            (the structurizer turns it into the exec-mask waterfall); d = m & mm.
 *            .all: e = that mask; all = (e & mm) == (ballot(true) & mm); d = all ? ballot(true) & mm : 0.
 *   uniform: .all for one membermask group: all = ballot(a == readfirstlane(a)) == ballot(true).
 */
export function matchIr(name: string, f: MatchForm, wave: 32 | 64, variant: MatchIrVariant): IrFunc {
  const W = wave;
  const aw = f.type === "b64" ? 64 : 32;
  const args: IrArg[] = [
    { name: "a", width: aw },
    { name: "mm", width: 32 },
  ];
  const bv = new LlvmIrBV();
  const ballotName = `llvm.amdgcn.ballot.i${W}`;
  const rfl = `llvm.amdgcn.readfirstlane.i${aw}`;
  bv.decls.add(`declare i${W} @${ballotName}(i1)`);
  bv.decls.add(`declare i${aw} @${rfl}(i${aw})`);
  const low32 = (x: IrVal) => (W === 64 ? bv.extract(x, 31, 0) : x);
  const a = `i${aw} %a`;
  const mm = "i32 %mm";
  if (f.mode === "all" && variant === "uniform") {
    const lead = bv.call(aw, rfl, [a]);
    const eq = bv.eq(lead, a);
    const m = bv.emit(W, `call i${W} @${ballotName}(${eq})`);
    const act = bv.emit(W, `call i${W} @${ballotName}(i1 true)`);
    const all = bv.eq(m, act);
    const d = bv.ite(all, bv.and(low32(act), mm), k32(bv, 0));
    return closeFunction(name, args, bv, [], [d, bv.zext(all, 32)]);
  }
  // The waterfall loop, written as blocks: entry → loop ⟲ → exit.
  bv.lines.push("  br label %loop", "loop:");
  const lead = bv.call(aw, rfl, [a]);
  const eq = bv.eq(lead, a);
  const m = bv.emit(W, `call i${W} @${ballotName}(${eq})`);
  bv.lines.push(`  br ${eq}, label %exit, label %loop`, "exit:");
  const e = low32(m);
  if (f.mode === "any") return closeFunction(name, args, bv, [], [bv.and(e, mm)]);
  const act = low32(bv.emit(W, `call i${W} @${ballotName}(i1 true)`));
  const members = bv.and(act, mm);
  const all = bv.eq(bv.and(e, mm), members);
  return closeFunction(name, args, bv, [], [bv.ite(all, members, k32(bv, 0)), bv.zext(all, 32)]);
}

/**
 * The known LLVM defect (amdgpu.md §0 item 2): `(x << (32 - n)) >>a (32 - n)` (and its `>>`
 * twin) with a variable n, which `llc -mcpu=gfx900` selects as `v_bfe_{i,u}32 x, 0, n` (0
 * instead of x at n = 32). Written as raw LLVM shifts: its meaning is LLVM's (poison unless
 * 32 - n < 32), given by `shlShrMeaning`.
 */
export function shlShrIr(name: string, op: "ashr" | "lshr", inreg = false): IrFunc {
  const args: IrArg[] = [
    { name: "x", width: 32, ...(inreg ? { inreg: true } : {}) },
    { name: "n", width: 32, ...(inreg ? { inreg: true } : {}) },
  ];
  return irFunction(name, args, (bv, [x, n]) => {
    const s = bv.sub(k32(bv, 32), n!);
    return [bv.rawShift(op, bv.rawShift("shl", x!, s), s)];
  });
}

/** The IR meaning of `shlShrIr`, over any BV: defined iff 32 - n < 32 (LLVM shifts). */
export function shlShrMeaning<V, B>(bv: BV<V, B>, op: "ashr" | "lshr", x: V, n: V): Defined<V, B> {
  const s = bv.sub(bv.k(32, 32), n);
  return { value: bv[op](bv.shl(x, s), s), defined: bv.ult(s, bv.k(32, 32)) };
}
