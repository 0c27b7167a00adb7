/**
 * @fileoverview Where a form's meaning under the `sm90` profile (what ptxas 13.0 emits for
 * sm_75 and later) departs from the ISA reading (`isa`), for `port` to report on each
 * rewritten statement (issue 35 item 6; docs/profiles.md). The departures are named where the
 * semantics takes them (src/sem/vsh.ts `departs`: D1 … V1, the notes' names,
 * ../shared/notes/ptx-semantics.md §2.4 and video-semantics.md §4.3): nothing here restates
 * when a form departs. A departure is reported only with an input on which the two profiles
 * give different results, found among the family's checker inputs (corner values first):
 * tested, not proved — a form whose difference those inputs miss is not reported.
 */
import type { Profile } from "../ir/forms.js";
import { formName } from "../ir/forms.js";
import { familyOf } from "../families/index.js";
import type { RoutineSpec } from "../ir/ir.js";
import { concrete, traced, u } from "../sem/bv.js";
import type { ScalarCase } from "./inputs.js";
import { scalarSemantics } from "./scalar.js";

/** A form whose `sm90` and `isa` results differ, with one input that shows it. */
export interface ProfileDeparture {
  /** The form's PTX spelling. */
  form: string;
  /** The departures its `sm90` evaluation passes through, in pipeline order (`["S1", "D2"]`). */
  ids: string[];
  /** An input where the two differ: the sources the form reads (u32), and d under each profile. */
  example: { inputs: Record<string, bigint>; isa: bigint; sm90: bigint };
}

/** d of a scalar form on one case under `profile` (a defined result: the video forms are total). */
function dOf(spec: RoutineSpec, profile: Profile, x: ScalarCase): bigint {
  return scalarSemantics(concrete, spec.form, profile, u(x.a), u(x.b), u(x.c)).value.x;
}

/**
 * Whether `spec`'s form gives different results under `sm90` and `isa` on the family's
 * checker inputs (compact: the corner values and a few random ones, from `seed`), and if so
 * which departures its `sm90` evaluation names and the first such input.
 * @param spec a routine spec; its operand kinds fix immediates (a `"n"` constraint's value)
 * @returns null for a family whose meaning does not depend on the profile, a warp form, or a
 *   form on which no input tells the profiles apart
 */
export function profileDeparture(spec: RoutineSpec, seed = 1): ProfileDeparture | null {
  const fam = familyOf(spec.form);
  if (!fam.profileSensitive || fam.shape !== "scalar") return null;
  for (const x of fam.cases(spec as never, { seed, compact: true }) as ScalarCase[]) {
    if (x.g === false) continue; // a false guard keeps d: both profiles agree there
    const isa = dOf(spec, "isa", x);
    const sm90 = dOf(spec, "sm90", x);
    if (isa === sm90) continue;
    const t = traced(concrete);
    scalarSemantics(t, spec.form, "sm90", u(x.a), u(x.b), u(x.c));
    const ids = [...new Set(t.log.filter((e) => e.name.startsWith("sm90 ")).map((e) => e.name.slice(5)))];
    const inputs: Record<string, bigint> = {};
    for (const k of fam.sources(spec.form as never) as ("a" | "b" | "c")[]) inputs[k] = x[k];
    return { form: formName(spec.form), ids, example: { inputs, isa, sm90 } };
  }
  return null;
}
