/**
 * @fileoverview The match.sync family: `match.any.sync.type d, a, membermask` and
 * `match.all.sync.type d[|p], a, membermask` with `.b32`/`.b64` (PTX ISA 9.0 §9.7.13.8,
 * sm_70+, PTX 6.0+). A warp form: its forms (12), spelling, ptxas-parity checks, reference
 * semantics (src/sem/match_sync.ts), random warps and the operand kinds verified and proved.
 */
import type { MatchDest, MatchForm } from "../ir/form_types.js";
import type { Family, KindSample } from "../family/types.js";
import type { RoutineSpec } from "../ir/ir.js";
import { messages } from "../diag.js";
import type { FamilyChecker, Resolved } from "../ir/build.js";
import { famInst, versionBelow } from "../ir/family_inst.js";
import { matchSync } from "../sem/match_sync.js";
import { randomWarps } from "../check/warps.js";
import { IMM, kindsOf, S, V } from "./kinds.js";

/** Every legal match form: `.any` × 2 types, `.all` × 2 types × 5 destination shapes = 12. */
export function* matchForms(): Generator<MatchForm> {
  for (const type of ["b32", "b64"] as const) {
    yield { op: "match", mode: "any", type, dest: "d" };
    for (const dest of ["d|p", "d", "_|p", "d|_", "_"] as const) yield { op: "match", mode: "all", type, dest };
  }
}

/** match, phase 3: votes, immediate d, .sync, .sat, .any/.all, predicate, modifiers, version, target, discard (fatal), special registers, selectors, non-registers. */
function validate(c: FamilyChecker, r: Resolved) {
  const inst = c.inst;
  const mode = c.vote === "any" || c.vote === "all" ? c.vote : null;
  c.multipleVotes();
  if (r.d.kind === "int" || r.fieldValue) c.err(r.d.loc, messages.resultRegister("match"));
  if (!c.sync) c.err(inst.loc, messages.syncRequired("match"));
  c.illegalSat();
  if (mode === null) c.err(inst.loc, messages.anyAllRequired("match"));
  if (mode !== "all") c.predicateNotAllowed(r, "match.any");
  c.predicateExpected(r);
  const p = r.p;
  c.illegalOthers();
  if (versionBelow(c.ctx.version, 6, 0)) c.err(inst.loc, messages.featureVersion("match", "6.0"));
  if (c.ctx.sm !== null && c.ctx.sm < 70) c.err(inst.loc, messages.targetRequired("match", "sm_70"));
  if (c.discard(r, mode === "all", "match")) return null;
  c.specials(r);
  if (c.matchClamp !== null) c.err(c.modLoc(c.matchClamp), messages.illegalModifier("Clamp", c.op));
  c.noSelectors(r);
  c.notRegister(r);
  if (mode === null) return null;
  const hasD = r.d.kind !== "sink";
  const hasP = p !== null && p.kind === "sym";
  const dest: MatchDest = mode === "any" ? "d" : hasD ? (hasP ? "d|p" : p ? "d|_" : "d") : hasP ? "_|p" : "_";
  const form: MatchForm = { op: "match", mode, type: c.types[0] as "b32" | "b64", dest };
  return famInst(c, form, r, form.type === "b64" ? 64 : 32, mode === "all");
}

const SRC = ["a", "membermask"] as const;

export const match = {
  name: "match",
  ops: ["match"],
  spelled: "match.sync",
  shape: "warp",
  profileSensitive: false,
  forms: matchForms,
  formName: (f) => `match.${f.mode}.sync.${f.type}` + (f.mode === "all" ? ` ${f.dest}` : ""),
  formId(f) {
    const dest = { d: "", "d|p": "_dp", "_|p": "_p", "d|_": "_d", _: "_none" }[f.dest];
    return `match_${f.mode}_sync_${f.type}${f.mode === "all" ? dest : ""}`;
  },
  sources: () => ["a", "membermask"],
  /** `d` unless `.all` sinks it; `p` for `.all` with `d|p` or `_|p`. */
  writes: (f) =>
    f.mode === "any" ? { d: true, p: false } : { d: f.dest === "d" || f.dest === "d|p" || f.dest === "d|_", p: f.dest === "d|p" || f.dest === "_|p" },
  asmOpcode: (f) => `match.${f.mode}.sync.${f.type}`,
  syntax: {
    types: (t) => t.length === 1 && (t[0] === "b32" || t[0] === "b64"),
    arity: (n) => n === 3,
    roles: ["d", "a", "membermask"],
    sourceClasses: (role, t) => (role === "a" ? (t[0] === "b64" ? ["i64", "f64"] : ["i32", "f32", "h2"]) : ["i32"]),
    floatSource: (role, width, t) => role === "a" && width === (t[0] === "b64" ? 64 : 32),
    sync: true,
    postOps: false,
    votes: true,
    clampIllegal: true,
    vectorOperandMismatch: () => true,
    addressMismatch: (role) => role !== "a",
  },
  validate,
  semantics: matchSync,
  cases: (spec, o) => randomWarps(spec.form, spec.kinds, o.seed, o.warps ?? 10_000, spec.guarded),
  sample: () => null,
  verifyKinds(f) {
    const a64 = f.type === "b64";
    const out: KindSample[] = [];
    for (const a of [V, S, IMM(a64 ? 0x1234567800000005n : 5n)]) for (const m of [V, S, IMM(0xffffffffn), IMM(0x0000ffffn)]) out.push({ kinds: kindsOf(SRC, a, m), guarded: false });
    out.push({ kinds: kindsOf(SRC, V, V), guarded: true }, { kinds: kindsOf(SRC, V, S), guarded: true });
    return out;
  },
  /** a divergent, membermask divergent or uniform, unguarded. */
  mainKind: (k) => !k.guarded && k.kinds.a?.kind === "v" && (k.kinds.membermask?.kind === "v" || k.kinds.membermask?.kind === "s"),
  proveSpecs(form): RoutineSpec[] {
    const out: RoutineSpec["kinds"][] = [];
    for (const a of [V, S, IMM(5n)]) for (const membermask of [V, S, IMM(0xffffffffn), IMM(0xffffn)]) out.push({ a, membermask });
    return out.flatMap((kinds) => [false, true].map((guarded) => ({ form, kinds, guarded })));
  },
} as const satisfies Family<"match", MatchForm, "warp">;
