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
import { vop } from "./vop.js";
import { warp } from "./warp.js";

/** Every family, in the order commands list them. */
export const FAMILIES = [szext, match, video, vop, warp] as const satisfies readonly AnyFamily[];

export type FamilyDef = (typeof FAMILIES)[number];
/** A family's name: `szext`, `match`, `video`, `vop`, `warp`. */
export type FamilyName = FamilyDef["name"];
/** The definition of the family named `K`. */
export type FamilyOf<K extends FamilyName> = Extract<FamilyDef, { name: K }>;
/** The form type of the family named `K`. */
export type FormOf<K extends FamilyName> = Extract<Form, { op: FamilyOf<K>["ops"][number] }>;

/** The family of each opcode: a `Form` op without an entry here is a type error. */
const BY_OP = { szext, vshl: video, vshr: video, vadd: vop, vsub: vop, vabsdiff: vop, vmin: vop, vmax: vop, vset: vop, match, shfl: warp, vote: warp, redux: warp, activemask: warp, "bar.warp": warp } as const satisfies { readonly [Op in Form["op"]]: AnyFamily };

// The `Form` union and the registry agree: every family's opcodes are forms' opcodes, and every form's opcode belongs to a family.
type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
const formsAgree: Equal<Form["op"], FamilyDef["ops"][number]> = true;
void formsAgree;

/** The opcodes of every family (the parser's "family instruction" test); `bar.warp` is `bar` with the first modifier `.warp`. */
export type FamilyOpcode = keyof typeof BY_OP;

/** True for the opcodes the families own (`szext`, `vshl`, `vshr`, `match`, `shfl`, …, `bar.warp`); `bar` alone is not one. */
export function isFamilyOpcode(op: string): op is FamilyOpcode {
  return Object.hasOwn(BY_OP, op);
}

/**
 * The family opcode of an instruction as written, or null: its opcode, except that `bar` is
 * `bar.warp` when its first modifier is `.warp` (`bar.warp.sync`; PTX ISA §9.7.13.2) and no
 * family's otherwise (`bar.sync`, `bar.arrive`, … are other instructions), and that the
 * written `bar.warp` is no opcode (the parser splits it at the dot).
 */
export function familyOpOf(inst: { readonly opcode: string; readonly modifiers: readonly string[] }): FamilyOpcode | null {
  if (inst.opcode === "bar") return inst.modifiers[0] === "warp" ? "bar.warp" : null;
  return inst.opcode !== "bar.warp" && isFamilyOpcode(inst.opcode) ? inst.opcode : null;
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
export const FAMILY_NAMES: readonly FamilyName[] = Object.freeze(FAMILIES.map((f) => f.name));
