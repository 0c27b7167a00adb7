/**
 * @fileoverview The szext family: `szext.mode.type d, a, b` (PTX ISA 9.0 §9.7.1.21, sm_70+,
 * PTX 7.6+). Its forms, spelling, ptxas-parity checks, reference semantics (src/sem/szext.ts),
 * inputs and the operand kinds verified and proved.
 */
import type { SzextForm } from "../ir/form_types.js";
import type { Family, KindSample } from "../family/types.js";
import type { RoutineSpec } from "../ir/ir.js";
import { messages } from "../diag.js";
import type { FamilyChecker, Resolved } from "../ir/build.js";
import { famInst, versionBelow } from "../ir/family_inst.js";
import { szext as szextSemantics } from "../sem/szext.js";
import { scalarCases } from "../check/inputs.js";
import { IMM, kindsOf, S, V } from "./kinds.js";

/** Every legal szext form (4). */
export function* szextForms(): Generator<SzextForm> {
  for (const mode of ["clamp", "wrap"] as const) for (const type of ["s32", "u32"] as const) yield { op: "szext", mode, type };
}

/** szext, phase 3: target, version, immediate d, modifiers, predicate, discard (fatal), special registers, mode, selectors, non-registers. */
function validate(c: FamilyChecker, r: Resolved) {
  const inst = c.inst;
  c.multipleVotes();
  if (c.ctx.sm !== null && c.ctx.sm < 70) c.err(inst.loc, messages.targetRequired("szext", "sm_70"));
  if (versionBelow(c.ctx.version, 7, 6)) c.err(inst.loc, messages.featureVersion("szext", "7.6"));
  if (r.d.kind === "int" || r.fieldValue) c.err(r.d.loc, messages.resultRegister("szext"));
  c.illegalSat();
  c.illegalOthers();
  if (c.discard(r, false, "szext")) return null;
  c.predicateNotAllowed(r, "szext");
  c.predicateExpected(r);
  c.specials(r);
  c.clampRequired();
  c.noSelectors(r);
  c.notRegister(r);
  if (c.mode === null) return null;
  const form: SzextForm = { op: "szext", mode: c.mode, type: c.types[0] as "u32" | "s32" };
  return famInst(c, form, r, 32);
}

const SRC = ["a", "b"] as const;

export const szext = {
  name: "szext",
  ops: ["szext"],
  spelled: "szext",
  shape: "scalar",
  profileSensitive: false,
  forms: szextForms,
  formName: (f) => `szext.${f.mode}.${f.type}`,
  formId: (f) => `szext_${f.mode}_${f.type}`,
  sources: () => ["a", "b"],
  writes: () => ({ d: true, p: false }),
  asmOpcode: (f) => `szext.${f.mode}.${f.type}`,
  syntax: {
    types: (t) => t.length === 1 && (t[0] === "u32" || t[0] === "s32"),
    arity: (n) => n === 3,
    roles: ["d", "a", "b", "c"],
    // `.f16x2` registers as d and a too (32 bits; ptxas 13.0), not as b.
    sourceClasses: (role) => (role === "a" ? ["i32", "h2"] : ["i32"]),
    destClasses: () => ["i32", "h2"],
    floatSource: () => false,
    sync: false,
    postOps: false,
    votes: false,
    clampIllegal: false,
    vectorOperandMismatch: (role) => role === "b",
    addressMismatch: (role) => role === "b",
  },
  validate,
  semantics: (bv, f, _profile, a, b) => szextSemantics(bv, f, a, b),
  // The ISA's own example first (§9.7.1.21: `szext.clamp.s32 d, 0xffffffff, 0`).
  cases: (spec, o) => scalarCases(spec, SRC, o.seed, o.random ?? 400, [{ a: 0xffffffffn, b: 0n, c: 0n }]),
  sample: () => null,
  verifyKinds() {
    const out: KindSample[] = [];
    for (const a of [V, S, IMM(0x80n)]) for (const b of [V, S, IMM(0n), IMM(8n), IMM(12n), IMM(32n), IMM(40n)]) out.push({ kinds: kindsOf(SRC, a, b), guarded: false });
    out.push({ kinds: kindsOf(SRC, V, V), guarded: true }, { kinds: kindsOf(SRC, S, V), guarded: true });
    return out;
  },
  mainKind: () => true,
  proveSpecs(form): RoutineSpec[] {
    const both = (ks: RoutineSpec["kinds"][]) => ks.flatMap((kinds) => [false, true].map((guarded) => ({ form, kinds, guarded })));
    return both([
      { a: V, b: V },
      { a: S, b: S },
      { a: V, b: S },
      { a: S, b: V },
      ...[0n, 1n, 8n, 16n, 31n, 32n, 33n, 0xffffffffn].map((b) => ({ a: V, b: IMM(b) })),
      { a: S, b: IMM(8n) },
      { a: S, b: IMM(16n) },
      { a: IMM(0x80000081n), b: V },
      { a: IMM(0xffn), b: IMM(8n) },
    ]);
  },
} as const satisfies Family<"szext", SzextForm, "scalar">;
