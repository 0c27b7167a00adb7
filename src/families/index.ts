/**
 * @fileoverview THE registry of instruction families. Adding a family: its definition file
 * (src/families/<name>.ts, a `Family`), its form type in the `Form` union
 * (src/ir/form_types.ts), one entry in `FAMILIES` and one per opcode in `BY_OP`; the
 * compiler then names every target rule table that lacks it (README "Adding a family").
 */
import type { Form } from "../ir/form_types.js";
import type { AnyFamily } from "../family/types.js";
import { szext } from "./szext.js";
import { match } from "./match.js";
import { video } from "./video.js";

/** Every family, in the order commands list them. */
export const FAMILIES = [szext, match, video] as const satisfies readonly AnyFamily[];

export type FamilyDef = (typeof FAMILIES)[number];
/** A family's name: `szext`, `match`, `video`. */
export type FamilyName = FamilyDef["name"];
/** The definition of the family named `K`. */
export type FamilyOf<K extends FamilyName> = Extract<FamilyDef, { name: K }>;
/** The form type of the family named `K`. */
export type FormOf<K extends FamilyName> = Extract<Form, { op: FamilyOf<K>["ops"][number] }>;

/** The family of each opcode: a `Form` op without an entry here is a type error. */
const BY_OP = { szext, vshl: video, vshr: video, match } as const satisfies { readonly [Op in Form["op"]]: AnyFamily };

// The `Form` union and the registry agree: every family's opcodes are forms' opcodes, and every form's opcode belongs to a family.
type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
const formsAgree: Equal<Form["op"], FamilyDef["ops"][number]> = true;
void formsAgree;

/** The opcodes of every family (the parser's "family instruction" test). */
export type FamilyOpcode = keyof typeof BY_OP;

/** True for the base mnemonics the families own (`szext`, `vshl`, `vshr`, `match`). */
export function isFamilyOpcode(op: string): op is FamilyOpcode {
  return Object.hasOwn(BY_OP, op);
}

/** The definition of the family that owns opcode `op`. */
export function familyByOp(op: FamilyOpcode): AnyFamily {
  return BY_OP[op];
}

/** The definition of a form's family. */
export function familyOf<F extends Form>(f: F): AnyFamily {
  return BY_OP[f.op];
}

/** The definition of the family named `name`. */
export function familyNamed(name: FamilyName): AnyFamily {
  return FAMILIES.find((f) => f.name === name)!;
}

/** The family names, in registry order. */
export const FAMILY_NAMES: readonly FamilyName[] = FAMILIES.map((f) => f.name);
