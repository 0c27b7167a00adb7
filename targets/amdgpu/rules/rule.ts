/**
 * @fileoverview Lowering rules as data (Cranelift ISLE style): a name, a priority, a guard
 * (`when`: the rule's whole case analysis), one sequence (`emit`) and a `why`. Every rule must be
 * correct on its own: the checker and the prover run every matching rule, shadowed ones
 * included. Among matching rules the cheapest legalised sequence is chosen, then the
 * highest priority, so selection never decides correctness.
 */
import type { Form, Profile } from "../../../src/ir/forms.js";
import type { RoutineSpec } from "../../../src/ir/ir.js";
import type { WarpForm } from "../../../src/ir/warp_forms.js";
import type { Target } from "../regs.js";
import type { Builder } from "../routine.js";

export interface RuleCtx {
  spec: RoutineSpec;
  t: Target;
  profile: Profile;
}

/**
 * The forms a rule may be typed over: the registry's `Form` union and the warp-level forms of
 * src/ir/warp_forms.ts, which are not (yet) members of it (issue 15: the family is registered on
 * another branch). Once they are, `WarpForm` is part of `Form` and this is `Form` again.
 */
export type RuleForm = Form | WarpForm;

export interface AmdRule<F extends RuleForm = Form> {
  /** `<ptx-inst>_<form>_<strategy>`, e.g. `szext_clamp_bfe_cndmask`. */
  name: string;
  /** Tie-break between equally cheap rules; higher wins. */
  prio: number;
  /**
   * Why the rule exists, why its sequence is correct, and when it wins: required, so that a
   * rule without one does not compile.
   */
  why: string;
  /** The rule's whole case analysis: the routines it lowers. */
  when(f: F, c: RuleCtx): boolean;
  /** Its one sequence (operand spelling and constant folding aside). */
  emit(f: F, m: Builder, c: RuleCtx): void;
  /**
   * "as-emitted": the rule places its own waits (a hand-scheduled fragment) and the hazard
   * pass leaves its sequence alone; the checker and the prover still check every rule of the
   * processor on it. Default: the hazard pass schedules and pads the emitted sequence.
   */
  waits?: "as-emitted";
  /**
   * The cost selection compares (issue cycles), when the static count misleads: a loop's
   * expected dynamic count from its measured cycles per trip (redux.ts). Given the lowered
   * routine's static count; default: that count.
   */
  cost?(f: F, c: RuleCtx, staticCount: number): number;
}
