/**
 * @fileoverview The validated IR of one occurrence of a supported PTX instruction, and the
 * routine identity (form × operand kinds) that every target lowers.
 *
 * The parser (src/ptx) keeps every instruction as a generic AST node; src/ir/build.ts turns
 * the three families into `FamilyInst`, rejecting illegal forms with ptxas's messages.
 * passes/uniformity.ts then decides the kind of each source operand.
 */
import type { Form } from "./form_types.js";
import { familyOf } from "../families/index.js";

/** A source position: 1-based line and column. */
export interface Loc {
  file: string;
  line: number;
  col: number;
}

/** A PTX operand of a family instruction. Selectors are part of the form, not the operand. */
export type PtxOperand =
  | { kind: "reg"; name: string; loc: Loc }
  /** `value` is already truncated to the operand's width (ptxas truncates silently). */
  | { kind: "imm"; value: bigint; text: string; loc: Loc }
  | { kind: "sink"; loc: Loc };

/** A guard `@p` / `@!p`. */
export interface Guard {
  reg: string;
  negate: boolean;
}

/** One occurrence of szext, vshl/vshr, match.sync or a warp-level instruction, with its form and operands. */
export interface FamilyInst {
  form: Form;
  /** Destination (a sink `_` for match.all only; bar.warp.sync, which has none, a sink at the opcode). */
  d: PtxOperand;
  /** Predicate destination of match.all (`d|p`, `_|p`) and shfl (`d|p`). */
  p?: PtxOperand;
  /** Every family but activemask and bar.warp.sync, which read no `a`. */
  a?: PtxOperand;
  /** szext, vshl/vshr. */
  b?: PtxOperand;
  /** vshl/vshr with op2 or merge; also the ignored 4th operand of tail = none. */
  c?: PtxOperand;
  /** match.sync. */
  membermask?: PtxOperand;
  guard: Guard | null;
  loc: Loc;
  /** The instruction as written, for listings. */
  text: string;
}

/**
 * Kind of a source operand in a routine: a divergent register (VGPR), a uniform register
 * (SGPR), or an immediate folded into the routine.
 */
export type OperandKind = { kind: "v" } | { kind: "s" } | { kind: "imm"; value: bigint };

/** Source operand names per family, in PTX operand order. */
export type SourceName = "a" | "b" | "c" | "membermask";

/**
 * The identity of one lowered routine: a form, the kind of each source it reads, and
 * whether it is guarded. Every occurrence with the same identity shares one routine.
 */
export interface RoutineSpec {
  form: Form;
  kinds: Partial<Record<SourceName, OperandKind>>;
  guarded: boolean;
}

/** The source operands a form reads, in PTX order (`c` only where the tail uses it); stated by the family. */
export function sourcesOf(f: Form): SourceName[] {
  return familyOf(f).sources(f);
}

function kindTag(k: OperandKind): string {
  if (k.kind !== "imm") return k.kind;
  return k.value < 0x10000n ? `imm${k.value}` : `imm0x${k.value.toString(16)}`;
}

/** Identifier of a routine, derived from its form and kinds only: `szext_clamp_s32__v_imm8`. */
export function routineName(r: RoutineSpec, formId: (f: Form) => string): string {
  const tags = sourcesOf(r.form).map((s) => kindTag(r.kinds[s] ?? { kind: "v" }));
  return `${formId(r.form)}__${tags.join("_")}${r.guarded ? "__g" : ""}`;
}
