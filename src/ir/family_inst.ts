/**
 * @fileoverview The building blocks the family validators (src/families/*.ts) share with the
 * parser's checker (src/ir/build.ts): assembling a FamilyInst and the module-version test. A
 * leaf module (type imports only), so that the families never import the registry's users.
 */
import type { ModuleContext, FamilyChecker, Interner, Resolved } from "./build.js";
import type { Operand } from "../ptx/ast.js";
import type { Form } from "./form_types.js";
import type { FamilyInst, Guard, PtxOperand } from "./ir.js";

/** The module's `.version` is below major.minor (no `.version`: not below). */
export function versionBelow(v: ModuleContext["version"], major: number, minor: number): boolean {
  return v !== null && (v.major < major || (v.major === major && v.minor < minor));
}


/** The selectors of the scalar video instructions. */
export const VIDEO_SELS = new Set<string>(["b0", "b1", "b2", "b3", "h0", "h1"]);


/**
 * Assembles the FamilyInst of a checked instruction, each source by its role (activemask has
 * none, bar.warp only membermask, and no `d`: its `d` is a sink); immediates are truncated to their
 * operand's width (`aWidth` bits for `a`, 32 for the other sources, 1 for `p`); `withP`: the
 * form has a predicate result, taken from `d|p` when `p` is a register.
 */
export function famInst(c: FamilyChecker, form: Form, r: Resolved, aWidth: 32 | 64, withP = false): FamilyInst {
  const inst = c.inst;
  const g = inst.guard;
  const guard: Guard | null = g ? { reg: g.reg, negate: g.negate } : null;
  const x = c.interner;
  const fi: FamilyInst = { form: x ? x.form(form) : form, d: irOperand(r.d, 32, x), guard, loc: inst.loc, text: inst.text };
  if (withP && r.p && r.p.kind === "sym") fi.p = irOperand(r.p, 1, x);
  for (const s of r.sources) {
    if (s.role === "a") fi.a = irOperand(s.op, aWidth, x);
    else if (s.role === "b") fi.b = irOperand(s.op, 32, x);
    else if (s.role === "c") fi.c = irOperand(s.op, 32, x);
    else if (s.role === "membermask") fi.membermask = irOperand(s.op, 32, x);
  }
  return fi;
}


const MASKS = new Map<number, bigint>([1, 32, 64].map((w) => [w, (1n << BigInt(w)) - 1n]));

function irOperand(o: Operand, width: number, interner: Interner | null): PtxOperand {
  const mask = MASKS.get(width) ?? (1n << BigInt(width)) - 1n;
  switch (o.kind) {
    case "sym":
      return { kind: "reg", name: interner ? interner.name(o.name) : o.name, loc: o.loc };
    case "int":
      return { kind: "imm", value: o.value & mask, text: o.text, loc: o.loc };
    case "float":
      return { kind: "imm", value: o.bits & mask, text: o.text, loc: o.loc };
    default:
      return { kind: "sink", loc: o.loc };
  }
}
