/**
 * @fileoverview The typed forms of the PTX families (src/ir/form_types.ts) and the
 * dispatchers over the family registry (src/families/index.ts): a form's name, identifier,
 * family and results, and every legal form of a family. Each family states these once, in
 * its definition.
 */
import type { Form } from "./form_types.js";
import type { FamilyName } from "../families/index.js";
import { FAMILY_NAMES, familyNamed, familyOf as familyDefOf } from "../families/index.js";

export * from "./form_types.js";
export { szextForms } from "../families/szext.js";
export { vshForms } from "../families/video.js";
export { matchForms } from "../families/match.js";

/** A family's name. */
export type Family = FamilyName;

/** The name of a form's family. */
export function familyOf(f: Form): Family {
  return familyDefOf(f).name as Family;
}

/** Canonical PTX spelling of a form, e.g. `vshl.u32.s32.u32.sat.clamp.add` or `d.b1`-merges as `vshl.u32.u32.u32.clamp d.b1, a.h0, b`. */
export function formName(f: Form): string {
  return familyDefOf(f).formName(f);
}

/** An identifier-safe name for a form: `szext_clamp_s32`, `vshl_u32_s32_sat_clamp_add_ab0_bh1`. */
export function formId(f: Form): string {
  return familyDefOf(f).formId(f);
}

/** Every legal form of a family. */
export function* formsOf(family: Family): Generator<Form> {
  yield* familyNamed(family).forms();
}

/** The family names, in registry order. */
export const FAMILIES: readonly Family[] = FAMILY_NAMES;

/**
 * The results a form writes: `d` (every form but `.all` with `d` sunk) and `p` (`match.all`
 * with `d|p` or `_|p`). Stated once, by the family, for the lowerings, the checker and the contract.
 */
export function formWrites(f: Form): { d: boolean; p: boolean } {
  return familyDefOf(f).writes(f);
}
