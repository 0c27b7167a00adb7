/**
 * @fileoverview The shape of a broken-rule case (Crocus's `broken/` corpus): a plausible but
 * wrong lowering, the routine it is meant for, why it is wrong, and the kind of error it must
 * be refuted with. test/prove.test.ts proves each one and expects a refutation of that kind
 * with a counterexample (Alive2 pins `ERROR: Value mismatch` the same way): a case refuted
 * for another reason fails.
 */
import type { Profile } from "../../../src/ir/forms.js";
import type { RoutineSpec } from "../../../src/ir/ir.js";
import type { Mcpu } from "../../../targets/amdgpu/regs.js";
import type { AmdRule } from "../../../targets/amdgpu/rules/rule.js";
import type { PortableRule } from "../../../targets/portable/rules/index.js";

/**
 * The kind of error a case must be refuted with (`kindOf` reads it off the prover's reason):
 *   - `value`: a result (d or p) differs from the PTX meaning in a lane that executes, or a
 *     lane whose guard is false does not keep its prior value;
 *   - `contract`: the routine changes something it must leave alone (exec not restored, a
 *     register outside d/p and the scratch window, d in a lane that does not execute);
 *   - `poison`: a poison (undefined) value reaches a result where the PTX result is defined
 *     (PIR only: the AMDGPU model has no poison, the manual's unspecified results are
 *     garbage stand-ins, so they show as `value`);
 *   - `invalid`: the target's interpreter cannot run the sequence (an operand of the wrong
 *     width, a routine that does not end or has no result);
 *   - `hazard`: a wait-state rule is violated; names the rule and the two instructions
 *     (substrings of the counterexample's pair).
 * `what`, where given, is a substring the reason must contain as well.
 */
export type Expected =
  | { kind: "value" | "contract" | "poison" | "invalid"; what?: string }
  | { kind: "hazard"; rule: string; producer: string; consumer: string };

export type ExpectedKind = Expected["kind"];

/**
 * The kind of a refutation, from the prover's reason (src/check/prove.ts, prove_match.ts,
 * targets/amdgpu/contract.ts, targets/amdgpu/hazards.ts word them); null for a reason of no
 * known kind.
 */
export function kindOf(reason: string): ExpectedKind | null {
  if (/^Hazard: /.test(reason)) return "hazard";
  if (/^Value mismatch\b/.test(reason) || /^lane \d+ \(guard false\) does not keep its prior [dp]$/.test(reason)) return "value";
  if (/^Target is more poisonous than source\b/.test(reason)) return "poison";
  if (reason === "exec is not restored" || /^[vs]\d+ (lane \d+ )?(changed|is written but is outside the scratch window)/.test(reason)) return "contract";
  if (/^the interpreter rejects the sequence: |^the routine does not reach its end|^the loop does not end within|^the routine has no [dp] result/.test(reason)) return "invalid";
  return null;
}

export type BrokenCase =
  | { target: "amdgpu"; mcpu: Mcpu; spec: RoutineSpec; profile: Profile; rule: AmdRule; why: string; expect: Expected }
  | { target: "pir"; spec: RoutineSpec; profile: Profile; rule: PortableRule; why: string; expect: Expected };

/** Shorthand specs. */
export const v = { kind: "v" } as const;
export const s = { kind: "s" } as const;
export const imm = (value: bigint | number) => ({ kind: "imm", value: BigInt(value) }) as const;
