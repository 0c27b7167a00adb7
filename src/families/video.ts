/**
 * @fileoverview The scalar video shifts: `vshl`/`vshr` with `.dtype.atype.u32{.sat}.mode`,
 * an optional secondary op (`.add/.min/.max` with `c`) or a merge into `d.dsel`, and byte or
 * half-word selectors on `a` and `b` (PTX ISA 9.0 §9.7.18.1.3). Its forms (15,680),
 * spelling, ptxas-parity checks, reference semantics (src/sem/vsh.ts, profile-sensitive),
 * inputs and the operand kinds verified and proved.
 */
import type { Sel, VshForm } from "../ir/form_types.js";
import type { Family, KindSample } from "../family/types.js";
import type { RoutineSpec } from "../ir/ir.js";
import { messages } from "../diag.js";
import type { FamilyChecker, Resolved } from "../ir/build.js";
import { famInst } from "../ir/family_inst.js";
import { VIDEO_TAILS, OPT_SELS, scalarVideoSyntax, videoIdParts, videoOperandsName, videoSelectorChecks, videoTailOf } from "./scalar_video.js";
import { vsh } from "../sem/vsh.js";
import { scalarCases } from "../check/inputs.js";
import { vshCases } from "../check/vsh_inputs.js";
import { Rng } from "../check/random.js";
import { IMM, kindsOf, S, V } from "./kinds.js";


/** Every legal vshl/vshr form: 2 × 2 × 2 × 2 × 2 × 10 × 7 × 7 = 15,680. */
export function* vshForms(): Generator<VshForm> {
  for (const op of ["vshl", "vshr"] as const)
    for (const dtype of ["u32", "s32"] as const)
      for (const atype of ["u32", "s32"] as const)
        for (const sat of [false, true])
          for (const mode of ["clamp", "wrap"] as const)
            for (const tail of VIDEO_TAILS)
              for (const asel of OPT_SELS) for (const bsel of OPT_SELS) yield { op, dtype, atype, sat, mode, asel, bsel, tail };
}

/** A seeded sample of video forms covering every (vop, dtype, atype, sat, mode, tail kind). */
export function videoSample(seed: number, perClass = 2): VshForm[] {
  const rng = new Rng(seed);
  const classes = new Map<string, VshForm[]>();
  for (const f of vshForms()) {
    const key = `${f.op}.${f.dtype}.${f.atype}.${f.sat}.${f.mode}.${f.tail.kind}`;
    let xs = classes.get(key);
    if (!xs) classes.set(key, (xs = []));
    xs.push(f);
  }
  const out: VshForm[] = [];
  for (const xs of classes.values()) for (let i = 0; i < perClass; i++) out.push(xs[rng.below(xs.length)]!);
  return out;
}

/** vshl/vshr, phase 3: post-ops, modifiers, predicate, discard (fatal), special registers, btype, mode, selectors, non-registers. */
function validate(c: FamilyChecker, r: Resolved) {
  const inst = c.inst;
  const op = c.op;
  if (c.postOps.length > 1) c.err(c.modLoc(c.postOps[1].i), messages.multiplePostOp());
  c.multipleVotes();
  c.illegalOthers();
  if (c.discard(r, false, op)) return null;
  c.predicateNotAllowed(r, op);
  c.predicateExpected(r);
  c.specials(r);
  if (c.types[2] !== "u32") c.err(inst.loc, messages.requiresU32());
  c.clampRequired();
  const dsel = videoSelectorChecks(c, r);
  if (c.mode === null) return null;
  const tail = videoTailOf(c, dsel);
  const form: VshForm = {
    op: op as "vshl" | "vshr",
    dtype: c.types[0] as "u32" | "s32",
    atype: c.types[1] as "u32" | "s32",
    sat: c.sat > 0,
    mode: c.mode,
    asel: c.selOf(r.sources[0].op) as Sel | null,
    bsel: c.selOf(r.sources[1].op) as Sel | null,
    tail,
  };
  return famInst(c, form, r, 32);
}

const sourcesOf = (f: VshForm): ("a" | "b" | "c")[] => (f.tail.kind === "none" ? ["a", "b"] : ["a", "b", "c"]);

export const video = {
  name: "video",
  ops: ["vshl", "vshr"],
  spelled: "vshl/vshr",
  shape: "scalar",
  profileSensitive: true,
  forms: vshForms,
  formName(f) {
    const op2 = f.tail.kind === "op2" ? `.${f.tail.op2}` : "";
    return `${f.op}.${f.dtype}.${f.atype}.u32${f.sat ? ".sat" : ""}.${f.mode}${op2} ${videoOperandsName(f)}`;
  },
  formId(f) {
    return [f.op, f.dtype, f.atype, ...(f.sat ? ["sat"] : []), f.mode, ...videoIdParts(f)].join("_");
  },
  sources: sourcesOf,
  writes: () => ({ d: true, p: false }),
  asmOpcode(f) {
    const op2 = f.tail.kind === "op2" ? `.${f.tail.op2}` : "";
    return `${f.op}.${f.dtype}.${f.atype}.u32${f.sat ? ".sat" : ""}.${f.mode}${op2}`;
  },
  // `.clamp/.wrap` are the shifts' own modes.
  syntax: scalarVideoSyntax(3, { clampIllegal: false }),
  validate,
  semantics: vsh,
  // Video forms in bulk (`compact`): the form's own corners and ≥ 600 random cases (over
  // 1,000 in all), without the generic corners × every small b.
  cases: (spec, o) => scalarCases(spec, sourcesOf(spec.form), o.seed, o.compact ? 0 : (o.random ?? 400), vshCases(spec.form, o.seed, o.compact ? 600 : 200), !o.compact),
  sample: (seed) => videoSample(seed),
  verifyKinds(f, wide) {
    const mk = (...ks: Parameters<typeof kindsOf>[1][]) => kindsOf(sourcesOf(f), ...ks);
    const base: KindSample[] = [{ kinds: mk(V, V, V), guarded: false }];
    if (!wide) return base;
    return [...base, { kinds: mk(S, V, V), guarded: false }, { kinds: mk(V, IMM(4n), S), guarded: false }, { kinds: mk(IMM(0x80000001n), V, IMM(0xdeadbeefn)), guarded: false }, { kinds: mk(V, V, V), guarded: true }];
  },
  mainKind: () => true,
  /**
   * Every form with all-divergent operands; forms without selectors also with immediate
   * operands and with a guard (a selector on an immediate is not PTX).
   */
  selectorStage: (f) => (f.asel === null && f.bsel === null ? null : { base: { ...f, asel: null, bsel: null }, asel: f.asel, bsel: f.bsel, aSigned: f.atype === "s32", bSigned: false }),
  proveSpecs(form): RoutineSpec[] {
    const specs: RoutineSpec[] = [{ form, kinds: { a: V, b: V, c: V }, guarded: false }];
    if (form.bsel === null) specs.push({ form, kinds: { a: V, b: IMM(33n), c: V }, guarded: false });
    if (form.asel === null && form.bsel === null) {
      specs.push({ form, kinds: { a: IMM(0x80000001n), b: IMM(3n), c: V }, guarded: false });
      specs.push({ form, kinds: { a: V, b: V, c: V }, guarded: true });
    }
    return specs;
  },
} as const satisfies Family<"video", VshForm, "scalar">;
