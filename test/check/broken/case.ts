/**
 * @fileoverview The shape of a broken-rule case (Crocus's `broken/` corpus): a plausible but
 * wrong lowering, the routine it is meant for, and why it is wrong. test/prove.test.ts proves
 * each one and expects a refutation with a counterexample.
 */
import type { Profile } from "../../../src/ir/forms.js";
import type { RoutineSpec } from "../../../src/ir/ir.js";
import type { Mcpu } from "../../../targets/amdgpu/regs.js";
import type { AmdRule } from "../../../targets/amdgpu/rules/rule.js";
import type { PortableRule } from "../../../targets/portable/rules/index.js";

/**
 * The kind of error a case must be refuted with, when pinned: `hazard` names the two
 * instructions of the violated wait-state rule (substrings of the counterexample's pair).
 */
export type Expected = { kind: "hazard"; rule: string; producer: string; consumer: string };

export type BrokenCase =
  | { target: "amdgpu"; mcpu: Mcpu; spec: RoutineSpec; profile: Profile; rule: AmdRule; why: string; expect?: Expected }
  | { target: "pir"; spec: RoutineSpec; profile: Profile; rule: PortableRule; why: string; expect?: Expected };

/** Shorthand specs. */
export const v = { kind: "v" } as const;
export const s = { kind: "s" } as const;
export const imm = (value: bigint | number) => ({ kind: "imm", value: BigInt(value) }) as const;
