/**
 * @fileoverview Rule selection for the portable targets (JS, C). Every rule builds a complete
 * PIR routine for one RoutineSpec and must be correct on its own (each is checked against
 * src/sem, shadowed rules included); `prio` only chooses between correct rules.
 */
import type { Profile } from "../../../src/ir/forms.js";
import { formId, formName } from "../../../src/ir/forms.js";
import type { RoutineSpec } from "../../../src/ir/ir.js";
import { routineName } from "../../../src/ir/ir.js";
import type { PirFunction, PirVar } from "../pir.js";
import { showType } from "../pir.js";
import { szextRules } from "./szext.js";
import { vshRules } from "./vsh.js";
import { matchRules } from "./match_sync.js";

/** An ISLE-style portable lowering rule: `<inst>_<form>_<strategy>`. */
export interface PortableRule {
  name: string;
  prio: number;
  when(spec: RoutineSpec): boolean;
  /** The routine for `spec` (the ABI of design.md's appendix); `profile` matters for vsh. */
  build(spec: RoutineSpec, profile: Profile): PirFunction;
}

/** Every portable rule, szext, then vshl/vshr, then match.sync. */
export const portableRules: readonly PortableRule[] = [...szextRules, ...vshRules, ...matchRules];

/** All rules whose guard matches `spec`, highest priority first (stable within a priority). */
export function portableRulesFor(spec: RoutineSpec): PortableRule[] {
  return portableRules.filter((r) => r.when(spec)).sort((x, y) => y.prio - x.prio);
}

/**
 * The rule that lowers `spec`.
 * @throws Error when no rule matches (a coverage gap, never silently skipped).
 */
export function selectPortableRule(spec: RoutineSpec): PortableRule {
  const r = portableRulesFor(spec)[0];
  if (!r) throw new Error(`no portable rule for ${routineName(spec, formId)}`);
  return r;
}

/** Selects a rule and builds the routine. */
export function lowerPortable(spec: RoutineSpec, profile: Profile): { rule: PortableRule; fn: PirFunction } {
  const rule = selectPortableRule(spec);
  return { rule, fn: rule.build(spec, profile) };
}

/**
 * The header comment text of a portable routine: the PTX form and operand kinds, the rule and
 * profile, the routine contract (signature and lane rules), and the PTX locations it serves.
 */
export function portableHeader(x: {
  spec: RoutineSpec;
  rule: string;
  profile: Profile;
  fn: PirFunction;
  served?: string[];
}): string {
  const { spec, fn } = x;
  const sig = (vs: PirVar[]) => vs.map((v) => `${v.name}: ${showType(v.type)}`).join(", ");
  const kinds = Object.entries(spec.kinds)
    .map(([s, k]) => `${s}: ${k.kind === "imm" ? `imm 0x${k.value.toString(16)}` : k.kind}`)
    .join(", ");
  const warp = spec.form.op === "match";
  const lines = [
    `${formName(spec.form)}${kinds ? `   (${kinds})` : ""}${spec.guarded ? "   guarded" : ""}`,
    `rule ${x.rule}, profile ${x.profile}`,
    `contract: (${sig(fn.params)}) -> (${sig(fn.results)})`,
    `  values: u32 in numbers / uint32_t, 33..64 bits in BigInt / uint64_t; immediates are folded.`,
    warp
      ? `  lanes: active = the executing lanes${spec.guarded ? " (and g[i])" : ""}; a lane that does not execute gets ${spec.guarded ? "dPrior/pPrior" : "0 / false"}.`
      : spec.guarded
        ? `  guard: g false returns dPrior.`
        : `  no other state is read or written.`,
  ];
  if (x.served?.length) lines.push(`serves: ${x.served.join(", ")}`);
  return lines.join("\n");
}
