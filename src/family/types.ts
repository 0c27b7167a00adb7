/**
 * @fileoverview What a PTX instruction family is: one registered definition
 * (src/families/<name>.ts, listed in src/families/index.ts) holding everything the driver,
 * the parser's validator, the checker, the prover matrix, the reporter and the hardware
 * generator need about it. Dispatch is by the registry, so a family whose definition lacks a
 * piece does not compile (test/types/family_incomplete.ts pins each piece), and an opcode
 * without a family is a type error in `BY_OP` (src/families/index.ts).
 *
 * Everything here is target-agnostic; a target's rules for a family live in the target's
 * rule table (`RuleTable`), keyed by family name.
 */
import type { BV, Defined } from "../sem/bv.js";
import type { MatchResult, MatchWarp } from "../sem/match_sync.js";
import type { Form, Profile, Sel } from "../ir/form_types.js";
import type { FamilyInst, OperandKind, RoutineSpec, SourceName } from "../ir/ir.js";
import type { FamilyChecker, Resolved, Role } from "../ir/build.js";
import type { ScalarCase } from "../check/inputs.js";
import type { FamilyName } from "../families/index.js";
import type { MatchCase } from "../check/warps.js";
import type { WarpForm } from "../ir/warp_forms.js";
import type { WarpLanes, WarpResult } from "../sem/warp.js";
import type { WarpCase } from "../check/warp_cases.js";

/** Scalar: one thread's values in, `d` out. Warp: 32 lanes in, per-lane `d`/`p` out. */
export type Shape = "scalar" | "warp";

/** Operand kinds of a routine's sources. */
export type Kinds = Partial<Record<SourceName, OperandKind>>;

/** One operand-kind combination to verify or prove. */
export interface KindSample {
  kinds: Kinds;
  guarded: boolean;
}

/**
 * The reference meaning of a scalar form (PTX ISA pseudocode), run on any bit-vector domain
 * (concrete, symbolic, traced): `a`, `b`, `c` are 32-bit values (`c` ignored where the form
 * has no `c`); the result is `d` (32 bits) and whether the ISA defines it.
 */
export type ScalarSemantics<F> = <V, B>(bv: BV<V, B>, f: F, profile: Profile, a: V, b: V, c: V) => Defined<V, B>;

/**
 * The reference meaning of a warp form over one warp (32 lanes): match.sync's on `MatchWarp`
 * (a and membermask; one `defined` per lane), the warp-level family's on `WarpLanes` (a, b, c,
 * membermask or none; `dDefined`/`pDefined` apart, since shfl's `p` stays defined where its
 * `d` does not). Two shapes until match.sync moves onto `WarpLanes` too (issue 15).
 */
export type WarpSemantics<F> =
  IsAny<F> extends true ? LevelSemantics<F> | MatchSemantics<F> : [F] extends [WarpForm] ? LevelSemantics<F> : MatchSemantics<F>;
type LevelSemantics<F> = <V, B>(bv: BV<V, B>, f: F, w: WarpLanes<V, B>) => WarpResult<V, B>;
type MatchSemantics<F> = <V, B>(bv: BV<V, B>, f: F, w: MatchWarp<V, B>) => MatchResult<V, B>;
/** `AnyFamily`'s form type is `any`: then either shape. */
type IsAny<T> = 0 extends 1 & T ? true : false;

/** The inputs of one warp routine: match.sync's `MatchCase`, the warp-level family's `WarpCase` (b, c, membermask or none). */
export type WarpCaseOf<F> = IsAny<F> extends true ? MatchCase | WarpCase : [F] extends [WarpForm] ? WarpCase : MatchCase;

/** The inputs a checker runs a routine on: scalar cases, or random warps for a warp form. */
export interface CaseOptions {
  seed: number;
  /** Random scalar cases beyond the fixed ones (default 400). */
  random?: number;
  /** Random warps (default 10,000). */
  warps?: number;
  /** Fewer, form-specific scalar cases (for whole-family runs). */
  compact?: boolean;
}

/**
 * The template part of ptxas's check of a family instruction (phase 2 of src/ir/build.ts):
 * which type suffixes, how many operands, which roles they play and which register classes
 * each takes, and which modifiers belong to the family rather than being illegal for it.
 */
export interface FamilySyntax {
  /** The type suffixes as written (`.u32.s32.u32` → `["u32", "s32", "u32"]`) are this family's. */
  types(t: readonly string[]): boolean;
  /** `n` operands are accepted, given how many secondary ops (`.add/.min/.max`) were written and whether `.sync` was. */
  arity(n: number, postOps: number, sync: boolean): boolean;
  /** The role of each operand position (`d` first). */
  readonly roles: readonly Role[];
  /** Register classes a source of `role` accepts (`i32`, `i64`, `f32`, `f64`), given the types. */
  sourceClasses(role: Role, t: readonly string[]): readonly string[];
  /** A float literal of `width` bits is accepted as a source of `role`. */
  floatSource(role: Role, width: number, t: readonly string[]): boolean;
  /** `.sync` is the family's modifier (else an unknown-to-the-family modifier). */
  readonly sync: boolean;
  /** `.add/.min/.max` are the family's (else illegal at template matching). */
  readonly postOps: boolean;
  /** `.any/.all/.uni` are the family's (else illegal). */
  readonly votes: boolean;
  /** `.clamp/.wrap` are rejected as "Illegal modifier 'Clamp'" (after the template). */
  readonly clampIllegal: boolean;
  /**
   * The comparison qualifiers (`.eq … .nan`) are the family's, judged by its `validate`
   * (`FamilyChecker.comparisonKept`: vset); absent: "Comparison qualifier is not allowed".
   */
  readonly comparisons?: boolean;
  /**
   * Modifiers the family owns outright (`.up/.down/.bfly/.idx` of shfl, `.ballot` of vote,
   * the reduction ops of redux): collected in `FamilyChecker.own` as written, before the
   * generic vocabulary classifies anything, for the family's `validate` to judge. Absent: none.
   */
  readonly own?: ReadonlySet<string>;
  /** Register classes the destination `d` accepts, given the types; absent: `i32` only. */
  destClasses?(t: readonly string[]): readonly string[];
  /** A source of `role` may be a negated predicate `!q` (vote's `a`); absent: never. */
  negatable?(role: Role): boolean;
  /** The instruction has no destination: every operand is a source (`bar.warp.sync membermask`). */
  readonly noDest?: boolean;
  /**
   * A vector operand — `{a, b}`, or a vector special register without its component (`%tid`)
   * — as the operand of `role` (`d` included) is ptxas's template failure, "Arguments
   * mismatch", not "Vector operand is not allowed" (with "Special register argument …" for a
   * register). Per role, as ptxas 13.0 does it (measured): every operand of match and of the
   * warp family, szext's `b`; absent: never.
   */
  vectorOperandMismatch?(role: Role): boolean;
  /**
   * An address (`[x]`) as the operand of `role` (`d` included) is an "Arguments mismatch",
   * never "must be register" (ptxas 13.0, measured: szext's `b`; match's `d` and membermask;
   * shfl's, vote's and redux's membermask, redux's `d` and `a`).
   */
  addressMismatch?(role: Role): boolean;
  /**
   * The operand of `role` must carry the instruction's float type (redux `.f32`'s `d` and `a`,
   * ptxas 13.0): an integer-typed register (`.u32`/`.s32`; `.b32` is untyped and fine), an
   * integer literal, or a variable there is an "Arguments mismatch"; absent: never.
   */
  floatTyped?(role: Role, t: readonly string[]): boolean;
  /** Register classes of an address's base that make it "must be register" for `role`; absent: `i32`. */
  addressBase?(role: Role): readonly string[];
  /** A variable whose type `sourceClasses` does not accept is an "Arguments mismatch" (else always "must be register"). */
  readonly strictVariables?: boolean;
}

/**
 * One instruction family. `N` its name (the `--family` key, report column, prove-all cell),
 * `F` its form type, `Sh` its shape.
 */
export interface Family<N extends string, F extends Form, Sh extends Shape> {
  readonly name: N;
  /** The opcodes it owns, e.g. `["vshl", "vshr"]`. */
  readonly ops: readonly F["op"][];
  /** How messages name the family's instructions: `szext`, `vshl/vshr`, `match.sync`. */
  readonly spelled: string;
  readonly shape: Sh;
  /** The meaning depends on the semantics profile (`isa`/`sm90`). */
  readonly profileSensitive: boolean;

  /** Every legal form. */
  forms(): Iterable<F>;
  /** Canonical PTX spelling of a form (output text: listings, headers). */
  formName(f: F): string;
  /** Identifier-safe name (routine names). */
  formId(f: F): string;
  /** The source operands a form reads, in PTX operand order. */
  sources(f: F): SourceName[];
  /** The results a form writes. */
  writes(f: F): { d: boolean; p: boolean };
  /** The hardware generator's opcode text (inline PTX asm) of a form, without operands. */
  asmOpcode(f: F): string;

  /**
   * ptxas parity, phase 2 (template): one template for the family, or one per opcode where
   * its opcodes differ in operands and types (the warp-level family: `shfl`, `vote`, …).
   */
  readonly syntax: FamilySyntax | { readonly perOp: { readonly [Op in F["op"]]: FamilySyntax } };
  /** ptxas parity, phase 3: the family's checks in ptxas's order (by `c.op` where they differ per opcode), and the FamilyInst if none failed. */
  validate(c: FamilyChecker, r: Resolved): FamilyInst | null;

  /** The reference semantics, written once. */
  readonly semantics: Sh extends "scalar" ? ScalarSemantics<F> : WarpSemantics<F>;
  /** The inputs the checker runs a routine of this family on. */
  cases(spec: RoutineSpec & { form: F }, opts: CaseOptions): Sh extends "scalar" ? ScalarCase[] : WarpCaseOf<F>[];

  /**
   * A seeded sample of the forms covering every class, for a family too large to verify
   * form by form by default (`verify` without `--all`); null for a family verified whole.
   */
  sample(seed: number): F[] | null;
  /** `verify` without a FILE: the operand kinds per form (`wide`: more of them). */
  verifyKinds(f: F, wide: boolean): KindSample[];
  /** The main kinds get the full warp count in `verify` (others a tenth); scalar families: all. */
  mainKind(k: KindSample): boolean;
  /** The prover matrix: the routines proved for a form, such that every rule applies to one of them. */
  proveSpecs(f: F): RoutineSpec[];
  /**
   * The scalar video families' stage 1 (partSelectSignExtend): the form without its `a`/`b`
   * selectors and how each selected field is extended, for the prover's selector reduction
   * (src/check/prove.ts `reduceSelectors`); null for a form without selectors. Absent: the
   * family has no selectors.
   */
  selectorStage?(f: F): SelectorSplit<F> | null;
}

/** A form with `a.asel`/`b.bsel` and the same form without them (`base`). */
export interface SelectorSplit<F> {
  base: F;
  asel: Sel | null;
  bsel: Sel | null;
  /** The selected field of a (b) is sign-extended. */
  aSigned: boolean;
  bSigned: boolean;
}

/** Any registered family. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyFamily = Family<string, any, Shape>;

/**
 * A target's rules, keyed by family: a family without an entry is a type error ("Property
 * 'match' is missing"), which is how the compiler names the rule files a new family needs.
 * `R<K>` is the target's rule type for the family named `K`.
 */
export type RuleTable<R extends { [K in FamilyName]: unknown }> = { readonly [K in FamilyName]: readonly R[K][] };
