/**
 * @fileoverview Rule selection for the portable targets (JS, C). Every rule builds a complete
 * PIR routine for one RoutineSpec and must be correct on its own (each is checked against
 * src/sem, shadowed rules included); `prio` only chooses between correct rules.
 */
import type { Profile } from "../../../src/ir/forms.js";
import { familyOf, formId } from "../../../src/ir/forms.js";
import type { FamilyName } from "../../../src/families/index.js";
import type { RuleTable } from "../../../src/family/types.js";
import type { RoutineSpec } from "../../../src/ir/ir.js";
import { routineName } from "../../../src/ir/ir.js";
import type { PirFunction } from "../pir.js";
import { selectCheapest } from "../../../passes/select.js";
import { szextRules } from "./szext.js";
import { vshRules } from "./vsh.js";
import { vopRules } from "./vop.js";
import { matchRules } from "./match_sync.js";
import { warpRules } from "./warp.js";

/** An ISLE-style portable lowering rule: `<inst>_<form>_<strategy>`. */
export interface PortableRule {
  name: string;
  prio: number;
  /** Why the rule exists, why it is correct, and when it wins: required. */
  why: string;
  /** The rule's whole case analysis: the routines it lowers. */
  when(spec: RoutineSpec): boolean;
  /** The routine for `spec` (the ABI of design.md's appendix); `profile` matters for vsh. */
  build(spec: RoutineSpec, profile: Profile): PirFunction;
}

/** The portable rules (JS and C share them), keyed by family (a family without rules does not compile). */
export const PORTABLE_RULES: RuleTable<{ [K in FamilyName]: PortableRule }> = { szext: szextRules, video: vshRules, vop: vopRules, match: matchRules, warp: warpRules };

/** Every portable rule, szext, then vshl/vshr, then vadd…vmax, then match.sync, then the warp-level family. */
export const portableRules: readonly PortableRule[] = [...PORTABLE_RULES.szext, ...PORTABLE_RULES.video, ...PORTABLE_RULES.vop, ...PORTABLE_RULES.match, ...PORTABLE_RULES.warp];

/** All rules of `spec`'s family whose guard matches it, highest priority first (stable within a priority). */
export function portableRulesFor(spec: RoutineSpec): PortableRule[] {
  return PORTABLE_RULES[familyOf(spec.form)].filter((r) => r.when(spec)).sort((x, y) => y.prio - x.prio);
}

/**
 * The rule that lowers `spec`.
 * @throws Error when no rule matches (a coverage gap, never silently skipped).
 */
export function selectPortableRule(spec: RoutineSpec): PortableRule {
  const rules = PORTABLE_RULES[familyOf(spec.form)].filter((r) => r.when(spec));
  if (rules.length === 0) throw new Error(`no portable rule for ${routineName(spec, formId)}`);
  // The one selection policy (passes/select.ts); portable cost is 0 for now, so priority,
  // then definition order, decide — as AMDGPU's cycles-then-priority does on a cost tie.
  return selectCheapest(rules.map((r) => ({ prio: r.prio, value: r })), () => 0);
}

/** Selects a rule and builds the routine. */
export function lowerPortable(spec: RoutineSpec, profile: Profile): { rule: PortableRule; fn: PirFunction } {
  const rule = selectPortableRule(spec);
  return { rule, fn: rule.build(spec, profile) };
}
