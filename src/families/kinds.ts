/**
 * @fileoverview Operand-kind shorthands for the family definitions' samples.
 */
import type { OperandKind, SourceName } from "../ir/ir.js";
import type { Kinds } from "../family/types.js";

export const V = { kind: "v" } as const satisfies OperandKind;
export const S = { kind: "s" } as const satisfies OperandKind;
export const IMM = (value: bigint) => ({ kind: "imm", value }) as const satisfies OperandKind;

/** The kinds of `sources` in order (`ks[i]` for the i-th; divergent where not given). */
export function kindsOf(sources: readonly SourceName[], ...ks: OperandKind[]): Kinds {
  return Object.fromEntries(sources.map((s, i) => [s, ks[i] ?? V])) as Kinds;
}
