/**
 * @fileoverview The scalar video operations `vadd vsub vabsdiff vmin vmax` (PTX ISA 9.0
 * §9.7.18.1.1): `.dtype.atype.btype{.sat}`, an optional secondary op (`.add/.min/.max` with
 * `c`) or a merge into `d.dsel`, and byte or half-word selectors on `a` and `b`; and `vset`
 * (§9.7.18.1.4): `.atype.btype.cmp`, the same tails, no dtype and no `.sat`. Its forms
 * (5 × 7,840 + 11,760 = 50,960), spelling, ptxas-parity checks (../shared/notes/video-semantics.md §2),
 * reference semantics (src/sem/vsh.ts `vop`, on the scalar video pipeline the shifts share;
 * profile-sensitive), inputs and the operand kinds verified and proved.
 */
import type { Sel, VopForm, VsetCmp } from "../ir/form_types.js";
import type { Family, KindSample } from "../family/types.js";
import type { RoutineSpec } from "../ir/ir.js";
import { messages } from "../diag.js";
import type { FamilyChecker, Resolved } from "../ir/build.js";
import { famInst } from "../ir/family_inst.js";
import { VIDEO_TAILS, OPT_SELS, scalarVideoSyntax, videoIdParts, videoOperandsName, videoSelectorChecks, videoTailOf } from "./scalar_video.js";
import { vop as vopSemantics } from "../sem/vsh.js";
import { scalarCases } from "../check/inputs.js";
import { vopCases } from "../check/vsh_inputs.js";
import { Rng } from "../check/random.js";
import { IMM, kindsOf, S, V } from "./kinds.js";

const ARITH = ["vadd", "vsub", "vabsdiff", "vmin", "vmax"] as const;
const OPS = [...ARITH, "vset"] as const;
const TYPES = ["u32", "s32"] as const;
/** vset's comparisons (§9.7.18.1.4); ptxas 13.0 rejects the others as a type mismatch. */
export const VSET_CMPS: readonly VsetCmp[] = ["eq", "ne", "lt", "le", "gt", "ge"];

/**
 * Every legal form: vadd…vmax 5 × 2 × 2 × 2 × 2 × 10 × 7 × 7 = 39,200, vset 2 × 2 × 6 × 10 × 7 × 7
 * = 11,760 (video-semantics.md §1.9).
 */
export function* vopForms(): Generator<VopForm> {
  for (const op of ARITH)
    for (const dtype of TYPES)
      for (const atype of TYPES)
        for (const btype of TYPES)
          for (const sat of [false, true])
            for (const tail of VIDEO_TAILS)
              for (const asel of OPT_SELS)
                for (const bsel of OPT_SELS)
                  yield { op, cmp: null, dtype, atype, btype, sat, asel, bsel, tail };
  for (const atype of TYPES)
    for (const btype of TYPES)
      for (const cmp of VSET_CMPS)
        for (const tail of VIDEO_TAILS)
          for (const asel of OPT_SELS)
            for (const bsel of OPT_SELS)
              yield { op: "vset", cmp, dtype: "u32", atype, btype, sat: false, asel, bsel, tail };
}

/** A seeded sample covering every (op, cmp, dtype, atype, btype, sat, tail kind), one form each (240 + 72). */
export function vopSample(seed: number, perClass = 1): VopForm[] {
  const rng = new Rng(seed);
  const classes = new Map<string, VopForm[]>();
  for (const f of vopForms()) {
    const key = `${f.op}.${f.cmp}.${f.dtype}.${f.atype}.${f.btype}.${f.sat}.${f.tail.kind}`;
    let xs = classes.get(key);
    if (!xs) classes.set(key, (xs = []));
    xs.push(f);
  }
  const out: VopForm[] = [];
  for (const xs of classes.values())
    for (let i = 0; i < perClass; i++) out.push(xs[rng.below(xs.length)]!);
  return out;
}

/**
 * Phase 3, in ptxas 13.0's order (measured: test/diagnostics/vop.ptx, vset.ptx): post-ops,
 * (vset: `.sat`), other modifiers, discard (fatal), predicate, special registers, (vset:
 * "Comparison modifier required"), `.clamp/.wrap` as "Illegal modifier 'Clamp'"
 * (`clampIllegal`), selectors ("Incorrect video selector"), a selector on c, dsel with op2 or
 * without c, non-registers; and for vset — after the negations, only if nothing else failed —
 * the kept comparison's "Mismatch between instruction type and comparison qualifier".
 * Immediates are accepted for a, b and c.
 */
function validate(c: FamilyChecker, r: Resolved) {
  const op = c.op;
  const vset = op === "vset";
  const before = c.diags.length; // phase 1a's ("Multiple comparisons set") do not hide the mismatch
  if (c.postOps.length > 1)
    c.err(c.modLoc(c.postOps[1].i), messages.multiplePostOp());
  c.multipleVotes();
  if (vset) c.illegalSat();
  c.illegalOthers();
  if (c.discard(r, false, op)) return null;
  c.predicateNotAllowed(r, op);
  c.predicateExpected(r);
  c.specials(r);
  const cmp = vset ? c.comparisonKept() : null;
  if (vset && cmp === null) c.err(c.inst.loc, messages.comparisonRequired(op));
  if (c.matchClamp !== null) c.err(c.modLoc(c.matchClamp), messages.illegalModifier("Clamp", op));
  const dsel = videoSelectorChecks(c, r);
  if (c.diags.length > before) return null;
  if (vset && !vsetCmpKept(cmp!, c.comparison.length)) {
    c.lastErr(c.modLoc(c.comparison[c.comparison.length - 1]!), messages.comparisonTypeMismatch());
    return null;
  }
  const tail = videoTailOf(c, dsel);
  const types = c.types as ("u32" | "s32")[];
  const form: VopForm = {
    op: op as VopForm["op"],
    cmp: vset ? (cmp as VsetCmp) : null,
    dtype: vset ? "u32" : types[0]!,
    atype: vset ? types[0]! : types[1]!,
    btype: vset ? types[1]! : types[2]!,
    sat: c.sat > 0,
    asel: c.selOf(r.sources[0].op) as Sel | null,
    bsel: c.selOf(r.sources[1].op) as Sel | null,
    tail,
  };
  return famInst(c, form, r, 32);
}

/**
 * vset keeps its last comparison; ptxas 13.0 accepts it when it is one of the six, and also
 * `.lo .ls .hi .hs` kept after another comparison (then "Multiple comparisons set" is the only
 * error: `vset.u32.u32.eq.lo`), but not written alone (`vset.u32.u32.lo` is a type mismatch).
 * With several comparisons the instruction is rejected anyway; this decides only whether the
 * mismatch is said too.
 */
function vsetCmpKept(cmp: string, written: number): boolean {
  if ((VSET_CMPS as readonly string[]).includes(cmp)) return true;
  return written > 1 && ["lo", "ls", "hi", "hs"].includes(cmp);
}

/** The sources a form reads: c only with a tail (R25: ptxas accepts a c without one and ignores it; it is not read). */
const sourcesOf = (f: VopForm): ("a" | "b" | "c")[] =>
  f.tail.kind === "none" ? ["a", "b"] : ["a", "b", "c"];

/** The template of vadd…vmax (three types); vset has two and its comparison. */
const ARITH_SYNTAX = scalarVideoSyntax(3, { clampIllegal: true });

/** `vset.atype.btype.cmp` (dtype .u32 in the form) or `vop.dtype.atype.btype{.sat}`. */
const opcodeOf = (f: VopForm): string =>
  f.op === "vset" ? `vset.${f.atype}.${f.btype}.${f.cmp}` : `${f.op}.${f.dtype}.${f.atype}.${f.btype}${f.sat ? ".sat" : ""}`;

export const vop = {
  name: "vop",
  ops: OPS,
  spelled: "vadd/vsub/vabsdiff/vmin/vmax/vset",
  shape: "scalar",
  profileSensitive: true,
  forms: vopForms,
  formName(f) {
    const op2 = f.tail.kind === "op2" ? `.${f.tail.op2}` : "";
    return `${opcodeOf(f)}${op2} ${videoOperandsName(f)}`;
  },
  formId(f) {
    const types = f.op === "vset" ? [f.atype, f.btype, f.cmp!] : [f.dtype, f.atype, f.btype];
    return [f.op, ...types, ...(f.sat ? ["sat"] : []), ...videoIdParts(f)].join("_");
  },
  sources: sourcesOf,
  writes: () => ({ d: true, p: false }),
  asmOpcode(f) {
    const op2 = f.tail.kind === "op2" ? `.${f.tail.op2}` : "";
    return `${opcodeOf(f)}${op2}`;
  },
  syntax: { perOp: { vadd: ARITH_SYNTAX, vsub: ARITH_SYNTAX, vabsdiff: ARITH_SYNTAX, vmin: ARITH_SYNTAX, vmax: ARITH_SYNTAX, vset: scalarVideoSyntax(2, { clampIllegal: true, comparisons: true }) } },
  validate,
  semantics: vopSemantics,
  cases: (spec, o) =>
    scalarCases(
      spec,
      sourcesOf(spec.form),
      o.seed,
      o.compact ? 0 : (o.random ?? 400),
      vopCases(spec.form, o.seed, o.compact ? 300 : 200),
      !o.compact,
    ),
  sample: (seed) => vopSample(seed),
  verifyKinds(f, wide) {
    const mk = (...ks: Parameters<typeof kindsOf>[1][]) =>
      kindsOf(sourcesOf(f), ...ks);
    const base: KindSample[] = [{ kinds: mk(V, V, V), guarded: false }];
    if (!wide) return base;
    return [
      ...base,
      { kinds: mk(S, V, V), guarded: false },
      { kinds: mk(V, IMM(0xffffff80n), S), guarded: false },
      { kinds: mk(IMM(0x80000001n), V, IMM(0xdeadbeefn)), guarded: false },
      { kinds: mk(V, V, V), guarded: true },
    ];
  },
  mainKind: () => true,
  /**
   * Every form with all-divergent operands; forms without selectors also with immediate
   * operands and with a guard (a selector on an immediate is not PTX).
   */
  selectorStage: (f) => (f.asel === null && f.bsel === null ? null : { base: { ...f, asel: null, bsel: null }, asel: f.asel, bsel: f.bsel, aSigned: f.atype === "s32", bSigned: f.btype === "s32" }),
  proveSpecs(form): RoutineSpec[] {
    const specs: RoutineSpec[] = [
      { form, kinds: { a: V, b: V, c: V }, guarded: false },
    ];
    if (form.bsel === null)
      specs.push({
        form,
        kinds: { a: V, b: IMM(0xffffff80n), c: V },
        guarded: false,
      });
    if (form.asel === null && form.bsel === null) {
      specs.push({
        form,
        kinds: { a: IMM(0x80000001n), b: IMM(7n), c: V },
        guarded: false,
      });
      specs.push({ form, kinds: { a: V, b: V, c: V }, guarded: true });
    }
    return specs;
  },
} as const satisfies Family<"vop", VopForm, "scalar">;
