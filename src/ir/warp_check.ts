/**
 * @fileoverview The front end of the warp-level family (issue 15): for `shfl`, `vote`,
 * `redux`, `activemask` and `bar.warp`, the ptxas template (`FamilySyntax`, phase 2 of
 * src/ir/build.ts) and the phase-3 `validate` function in the shape of the other families',
 * run by the same `FamilyChecker`, with ptxas 13.0's messages and order
 * (../shared/notes/warp-ptxas-matrix.md; test/warp_diagnostics.test.ts compares the two tools
 * on test/diagnostics/warp*.ptx). `WARP_FRONT_ENDS` is what the family definition
 * (src/families/warp.ts) registers; `parseModule` runs them (the registry routes `bar` with
 * `.warp` to `bar.warp`). A leaf of the registry: type imports of build.ts only.
 *
 * Accepted beyond the ISA text, as ptxas accepts it: modifiers in any order and repeated
 * `.sync`; `d|_` everywhere (the same as `d`); `.f32` registers for shfl's `d`, `a`, `b`, `c`
 * (not membermask), for a ballot `d`, activemask's `d` and redux `.f32`'s; 32-bit float literals
 * (`0f…`) for shfl's `a`, `b`, `c`; immediates wider than 32 bits (truncated); an immediate
 * predicate for vote's `a` (`1`, `0`, `!1`: non-zero is true).
 */
import { messages, warning } from "../diag.js";
import type { FamilyInst } from "./ir.js";
import type { FamilySyntax } from "../family/types.js";
import type { FamilyChecker, Resolved } from "./build.js";
import { famInst, versionBelow } from "./family_inst.js";
import type { ActivemaskForm, BarWarpForm, ReduxForm, ShflDest, ShflForm, ShflMode, VoteForm, WarpForm } from "./warp_forms.js";

/** One occurrence of a warp-level instruction: a `FamilyInst` whose form is a `WarpForm`. */
export type WarpInst = FamilyInst & { form: WarpForm };

/** The `FamilyInst` of a checked warp instruction (32-bit sources; each operand by its role). */
function warpInst(c: FamilyChecker, form: WarpForm, r: Resolved, withP = false): WarpInst {
  return famInst(c, form, r, 32, withP) as WarpInst;
}

/**
 * The deprecated `shfl`/`vote` (no `.sync`), PTX ISA §9.7.9.5 / §9.7.13.8: removed in PTX 6.4
 * for sm_70+ (an error); otherwise accepted with ptxas 13.0's warnings — "may produce
 * unpredictable results" always, and "is deprecated since PTX ISA version 6.0" from PTX 5.1
 * (sic: measured) — except `vote.ballot` at PTX 5.1 to 6.1, which gets neither (measured; a
 * ptxas quirk). The operands of the `.sync` form (with a membermask) are ".sync modifier
 * required". The other checks go on after these.
 */
function withoutSync(c: FamilyChecker, name: "shfl" | "vote", syncArity: number, ballot = false): void {
  const v = c.ctx.version;
  if (c.inst.operands.length === syncArity) c.err(c.inst.loc, messages.syncRequired(name));
  if (c.ctx.sm !== null && c.ctx.sm >= 70 && !versionBelow(v, 6, 4)) c.err(c.inst.loc, messages.withoutSyncRemoved(name));
  else if (ballot && !versionBelow(v, 5, 1) && versionBelow(v, 6, 2)) return;
  else {
    c.diags.push(warning(c.inst.loc, messages.withoutSyncUnpredictable(name)));
    if (!versionBelow(v, 5, 1)) c.diags.push(warning(c.inst.loc, messages.withoutSyncDeprecated(name)));
  }
}

/** A result that is an immediate, or a name whose suffix made it a value. */
function resultRegister(c: FamilyChecker, r: Resolved, name: string): void {
  if (r.d.kind === "int" || r.d.kind === "float" || r.fieldValue) c.err(r.d.loc, messages.resultRegister(name));
}

/** The checks every warp instruction ends with, after its own: special registers, `.clamp`, selectors, non-registers. */
function tail(c: FamilyChecker, r: Resolved): void {
  c.specials(r);
  if (c.matchClamp !== null) c.err(c.modLoc(c.matchClamp), messages.illegalModifier("Clamp", c.op));
  c.noSelectors(r);
  c.notRegister(r);
}

// ------------------------------------------------------------------------------- shfl

const SHFL_MODES = new Set<string>(["up", "down", "bfly", "idx"]);

/** shfl's template: `.b32`; `d[|p], a, b, c, membermask` (4 operands without `.sync`); `.b32` or `.f32` registers, 32-bit float literals. */
export const shflSyntax: FamilySyntax = {
  types: (t) => t.length === 1 && t[0] === "b32",
  // Without `.sync`, five operands are ptxas's ".sync modifier required" (phase 3), not a mismatch.
  arity: (n, _postOps, sync) => n === 5 || (!sync && n === 4),
  roles: ["d", "a", "b", "c", "membermask"],
  sourceClasses: (role) => (role === "membermask" ? ["i32"] : ["i32", "f32", "h2"]),
  floatSource: (role, width) => width === 32 && role !== "membermask",
  sync: true,
  postOps: false,
  votes: false,
  clampIllegal: true,
  vectorOperandMismatch: () => true,
  own: SHFL_MODES,
  destClasses: () => ["i32", "f32", "h2"],
  addressMismatch: (role) => role === "membermask",
};

/** shfl, phase 3: shuffle modes, result register, `.sync` rules, modifiers, `p`, target (sm_30) and version, discard (fatal), the common tail. */
export function validateShfl(c: FamilyChecker, r: Resolved): WarpInst | null {
  const modes = c.own;
  if (modes.length > 1) c.err(c.modLoc(modes[1]!.i), messages.multipleShuffle());
  resultRegister(c, r, "shfl");
  if (!c.sync) withoutSync(c, "shfl", 5);
  c.illegalSat();
  c.illegalOthers();
  if (modes.length === 0) c.err(c.inst.loc, messages.shuffleRequired("shfl"));
  c.predicateExpected(r);
  // sm_30 for both forms (PTX ISA §9.7.9.5 shfl, §9.7.9.6 shfl.sync), said before the version.
  if (c.ctx.sm !== null && c.ctx.sm < 30) c.err(c.inst.loc, messages.targetRequired("shfl", "sm_30"));
  if (c.sync) {
    if (versionBelow(c.ctx.version, 6, 0)) c.err(c.inst.loc, messages.featureVersion("shfl.sync", "6.0"));
  } else if (versionBelow(c.ctx.version, 3, 0)) c.err(c.inst.loc, messages.featureVersion("shfl", "3.0"));
  if (c.discard(r, false, "shfl")) return null;
  tail(c, r);
  if (modes.length === 0) return null;
  const p = r.p;
  const dest: ShflDest = p === null ? "d" : p.kind === "sym" ? "d|p" : "d|_";
  const form: ShflForm = { op: "shfl", sync: c.sync, mode: modes[0]!.m as ShflMode, type: "b32", dest };
  return warpInst(c, form, r, true);
}

// ------------------------------------------------------------------------------- vote

/** vote's template: `.pred` or `.b32`; `d, {!}a, membermask` (2 operands without `.sync`); `a` a predicate or an integer; membermask `.b32`. */
export const voteSyntax: FamilySyntax = {
  types: (t) => t.length === 1 && (t[0] === "pred" || t[0] === "b32"),
  // Without `.sync`, three operands are ptxas's ".sync modifier required" (phase 3), not a mismatch.
  arity: (n, _postOps, sync) => n === 3 || (!sync && n === 2),
  roles: ["d", "a", "membermask"],
  sourceClasses: (role) => (role === "a" ? ["pred"] : ["i32"]),
  floatSource: () => false,
  sync: true,
  postOps: false,
  votes: true,
  clampIllegal: true,
  vectorOperandMismatch: () => true,
  own: new Set(["ballot"]),
  // ptxas 13.0 also takes a `.f16x2` register as .any/.all/.uni's predicate d and a, which ptx-lower refuses: no predicate meaning.
  destClasses: (t) => (t[0] === "pred" ? ["pred"] : ["i32", "f32", "h2"]),
  negatable: (role) => role === "a",
  addressMismatch: (role) => role === "membermask",
  addressBase: (role) => (role === "a" ? ["pred"] : ["i32"]),
  strictVariables: true,
};

/**
 * vote, phase 3: vote modifiers (ptxas counts `.ballot` among them; the mode is `.all/.any/.uni`
 * if one is written, else `.ballot`), result register, `.sync` rules, modifiers, the mode,
 * the type the mode needs, no `p`, version and target, discard (fatal), the common tail.
 */
export function validateVote(c: FamilyChecker, r: Resolved): WarpInst | null {
  const ballots = c.own.length;
  const anyAll = c.votes.filter((v) => v === "any" || v === "all").length;
  const count = c.votes.length + ballots;
  if (count > 1 && !(anyAll > 1 && ballots === 0 && !c.votes.includes("uni"))) {
    const last = Math.max(...c.own.map((o) => o.i), ...c.votes.map((v) => c.inst.modifiers.lastIndexOf(v)));
    c.err(c.modLoc(last), messages.multipleVote());
  }
  resultRegister(c, r, "vote");
  if (!c.sync) withoutSync(c, "vote", 3, c.vote === null && ballots > 0);
  c.illegalSat();
  c.illegalOthers();
  const mode = c.vote ?? (ballots > 0 ? "ballot" : null);
  if (mode === null) c.err(c.inst.loc, messages.modeRequired("vote"));
  const type = c.types[0] as "pred" | "b32";
  if (mode === "ballot" && type !== "b32") c.err(c.inst.loc, messages.requiresTypeWith("vote", ".b32", ".ballot"));
  if (mode !== null && mode !== "ballot" && type !== "pred") c.err(c.inst.loc, messages.requiresTypeWith("vote", ".pred", "." + mode));
  c.predicateNotAllowed(r, "vote");
  // vote.sync: sm_30, after the version (§9.7.13.9); vote: sm_12, vote.ballot sm_20 (§9.7.13.8).
  if (c.sync) {
    if (versionBelow(c.ctx.version, 6, 0)) c.err(c.inst.loc, messages.featureVersion("vote.sync", "6.0"));
    if (c.ctx.sm !== null && c.ctx.sm < 30) c.err(c.inst.loc, messages.targetRequired("vote.sync", "sm_30"));
  } else {
    if (c.ctx.sm !== null && c.ctx.sm < 12) c.err(c.inst.loc, messages.targetRequired("vote", "sm_12"));
    if (mode === "ballot" && c.ctx.sm !== null && c.ctx.sm < 20) c.err(c.inst.loc, messages.targetRequired("vote.ballot", "sm_20"));
  }
  if (c.discard(r, false, "vote")) return null;
  tail(c, r);
  if (mode === null) return null;
  const a = r.sources[0]!.op;
  const negA = a.kind === "sym" && a.neg;
  const form: VoteForm = mode === "ballot" ? { op: "vote", sync: c.sync, mode, type: "b32", negA } : { op: "vote", sync: c.sync, mode, type: "pred", negA };
  return warpInst(c, form, r);
}

// ------------------------------------------------------------------------------- redux

const REDUX_OPS = ["add", "min", "max", "and", "or", "xor"] as const;
const F32_TARGETS = new Set(["sm_100a", "sm_100f", "sm_103a", "sm_103f"]);

/** redux's template: `.u32/.s32/.b32/.f32`; `d, a, membermask`; `.f32` also takes `.f32` registers and literals for `d` and `a`. */
export const reduxSyntax: FamilySyntax = {
  types: (t) => t.length === 1 && (t[0] === "u32" || t[0] === "s32" || t[0] === "b32" || t[0] === "f32"),
  arity: (n) => n === 3,
  roles: ["d", "a", "membermask"],
  sourceClasses: (role, t) => (role === "a" && t[0] === "f32" ? ["i32", "f32"] : ["i32"]),
  floatSource: (role, width, t) => role === "a" && width === 32 && t[0] === "f32",
  sync: true,
  postOps: false,
  votes: false,
  clampIllegal: true,
  vectorOperandMismatch: () => true,
  own: new Set([...REDUX_OPS, "abs", "NaN"]),
  destClasses: (t) => (t[0] === "f32" ? ["i32", "f32"] : ["i32"]),
  floatTyped: (role, t) => t[0] === "f32" && (role === "d" || role === "a"),
  addressMismatch: () => true,
};

/**
 * redux, phase 3: one reduction operation ("Multiple instruction post-operation flags set"),
 * one `.abs`/`.NaN` each, result register, `.sync`, modifiers, the operation, `.abs`/`.NaN`
 * only with `.f32`, `.f32`'s targets (sm_100a/sm_103a and the sm_100f family) and version
 * (8.6), the type the operation needs, redux's target (sm_80) and version (7.0), no `p`,
 * discard (fatal), the common tail.
 */
export function validateRedux(c: FamilyChecker, r: Resolved): WarpInst | null {
  const ops = c.own.filter((o) => o.m !== "abs" && o.m !== "NaN");
  if (ops.length > 1) c.err(c.modLoc(ops[1]!.i), messages.multiplePostOp());
  // A repeated `.abs` is an error; a repeated `.NaN` is not (ptxas 13.0).
  const absMods = c.own.filter((o) => o.m === "abs");
  if (absMods.length > 1) c.err(c.modLoc(absMods[1]!.i), messages.multipleModifier(".abs"));
  resultRegister(c, r, "redux");
  if (!c.sync) c.err(c.inst.loc, messages.syncRequired("redux"));
  c.illegalSat();
  c.illegalOthers();
  const op = (ops[0]?.m ?? null) as (typeof REDUX_OPS)[number] | null;
  if (op === null) c.err(c.inst.loc, messages.reductionRequired("redux"));
  const type = c.types[0] as "u32" | "s32" | "b32" | "f32";
  const abs = c.own.some((o) => o.m === "abs");
  const NaN = c.own.some((o) => o.m === "NaN");
  for (const [q, on] of [["abs", abs], ["NaN", NaN]] as const) {
    if (on && type !== "f32") {
      const at = c.modLoc(c.own.find((o) => o.m === q)!.i);
      c.err(at, messages.requiresTypeWith("redux", ".f32", "." + q));
      c.err(at, messages.illegalModifier("." + q, "redux"));
    }
  }
  if (type === "f32") {
    // compute_NN is sm_NN to ptxas here too (compute_100a accepts redux.f32).
    if (c.ctx.target != null && !F32_TARGETS.has(c.ctx.target.replace(/^compute_/, "sm_"))) c.err(c.inst.loc, messages.notSupportedOnTarget("redux.f32", c.ctx.target));
    if (versionBelow(c.ctx.version, 8, 6)) c.err(c.inst.loc, messages.featureVersion("redux.f32", "8.6"));
  }
  const want = op === null ? null : op === "add" ? ["u32", "s32"] : op === "min" || op === "max" ? ["u32", "s32", "f32"] : ["b32"];
  if (op !== null && !want!.includes(type)) c.err(c.inst.loc, messages.incorrectType("." + type, "." + op, "redux"));
  if (c.ctx.sm !== null && c.ctx.sm < 80) c.err(c.inst.loc, messages.featureTarget("redux", "sm_80"));
  if (versionBelow(c.ctx.version, 7, 0)) c.err(c.inst.loc, messages.featureVersion("redux", "7.0"));
  c.predicateNotAllowed(r, "redux");
  if (c.discard(r, false, "redux")) return null;
  tail(c, r);
  if (op === null) return null;
  let form: ReduxForm;
  if (type === "f32") form = { op: "redux", reduxOp: op as "min" | "max", type, abs, NaN };
  else if (type === "b32") form = { op: "redux", reduxOp: op as "and" | "or" | "xor", type };
  else form = { op: "redux", reduxOp: op as "add" | "min" | "max", type };
  return warpInst(c, form, r);
}

// ------------------------------------------------------------------------------- activemask

/** activemask's template: `.b32`; `d`. `.sync` is not its modifier (ptxas: "Illegal modifier '.sync'"). */
export const activemaskSyntax: FamilySyntax = {
  types: (t) => t.length === 1 && t[0] === "b32",
  arity: (n) => n === 1,
  roles: ["d"],
  sourceClasses: () => [],
  floatSource: () => false,
  sync: false,
  postOps: false,
  votes: false,
  clampIllegal: true,
  vectorOperandMismatch: () => true,
  destClasses: () => ["i32", "f32", "h2"],
};

/** activemask, phase 3: result register, modifiers, no `p`, version (6.2), target (sm_30), discard (fatal), the common tail. */
export function validateActivemask(c: FamilyChecker, r: Resolved): WarpInst | null {
  resultRegister(c, r, "activemask");
  c.illegalSat();
  c.illegalOthers();
  c.predicateNotAllowed(r, "activemask");
  if (versionBelow(c.ctx.version, 6, 2)) c.err(c.inst.loc, messages.featureVersion("activemask", "6.2"));
  if (c.ctx.sm !== null && c.ctx.sm < 30) c.err(c.inst.loc, messages.featureTarget("activemask", "sm_30"));
  if (c.discard(r, false, "activemask")) return null;
  tail(c, r);
  const form: ActivemaskForm = { op: "activemask", type: "b32" };
  return warpInst(c, form, r);
}

// ------------------------------------------------------------------------------- bar.warp.sync

/** bar.warp's template: no type; one operand, membermask (`.b32`), no destination. */
export const barWarpSyntax: FamilySyntax = {
  types: (t) => t.length === 0,
  arity: (n) => n === 1,
  roles: ["membermask"],
  sourceClasses: () => ["i32"],
  floatSource: () => false,
  sync: true,
  postOps: false,
  votes: false,
  clampIllegal: true,
  vectorOperandMismatch: () => true,
  own: new Set(["warp"]),
  noDest: true,
  addressMismatch: () => true,
};

/** bar.warp, phase 3: a repeated `.warp`, `.sync`, modifiers, version (6.0), target (sm_30), discard (fatal), the common tail. No result. */
export function validateBarWarp(c: FamilyChecker, r: Resolved): WarpInst | null {
  // `.warp` is the opcode's part (the first modifier); written again it is unknown.
  for (const o of c.own.slice(1)) c.err(c.modLoc(o.i), messages.unknownModifier("warp"));
  if (!c.sync) c.err(c.inst.loc, messages.syncRequired("bar.warp"));
  c.illegalSat();
  c.illegalOthers();
  if (versionBelow(c.ctx.version, 6, 0)) c.err(c.inst.loc, messages.featureVersion("bar.warp", "6.0"));
  if (c.ctx.sm !== null && c.ctx.sm < 30) c.err(c.inst.loc, messages.targetRequired("bar.warp", "sm_30"));
  const m = r.sources[0]!.op;
  if (m.kind === "sink") {
    c.err(m.loc, messages.discardNotAllowed("bar.warp"));
    return null;
  }
  tail(c, r);
  const form: BarWarpForm = { op: "bar.warp" };
  return warpInst(c, form, r);
}

// ------------------------------------------------------------------------------- dispatch

/** One opcode's ptxas template and phase-3 checks. */
type WarpFrontEnd = { syntax: FamilySyntax; validate: (c: FamilyChecker, r: Resolved) => FamilyInst | null };

/** The front end of each warp-level opcode (`bar.warp`: `bar` with `.warp`), for the family definition (src/families/warp.ts). */
export const WARP_FRONT_ENDS: { readonly [Op in WarpForm["op"]]: WarpFrontEnd } = {
  shfl: { syntax: shflSyntax, validate: validateShfl },
  vote: { syntax: voteSyntax, validate: validateVote },
  redux: { syntax: reduxSyntax, validate: validateRedux },
  activemask: { syntax: activemaskSyntax, validate: validateActivemask },
  "bar.warp": { syntax: barWarpSyntax, validate: validateBarWarp },
};
