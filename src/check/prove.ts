/**
 * @fileoverview SMT refinement proofs of lowerings against the PTX reference (src/sem), in
 * Alive2's terms: wherever the reference is defined, the lowering's value equals it, and the
 * lowering changes nothing else. One query per form × operand kinds × rule × target ×
 * profile, shadowed rules included (correctness never depends on which rule wins).
 *
 This file is the target-agnostic driver: it dispatches by target kind to the targets'
 * prover models through `targetServices().prover` (src/target/prover.ts, registered by
 * src/compose.ts), and owns the query identity (`queryKey`) and the spec half of the
 * selector-stage reduction. The models:
 *   - AMDGPU, per mcpu (targets/amdgpu/prove/): the emitted lines run through
 *     targets/amdgpu/interp.ts over the symbolic algebra (src/check/smt.ts); each
 *     instruction's record states its own shift masking. Branches are followed by a
 *     predicated executor (both arms merged, back-edges unrolled to a bound); match.sync
 *     loops are proved inductively.
 *   - PIR (targets/portable/prove.ts): the portable IR is evaluated by `evalPir` over the
 *     same algebra, with its poison shifts; JS and C are printed from the same PIR, so one
 *     PIR proof covers both. Poison must never reach an output.
 *
 * Verdicts (design.md §2.5): `proved` (z3 unsat over every input), `refuted` (a model that
 * replays concretely, printed in Alive2's layout), `tested(n)` (never produced by a proof),
 * `unknown` (timeout, solver fault, or a shape the prover does not handle). A refutation is
 * only reported once the model has been re-run concretely and shows the failure.
 */
import type { Form, Profile } from "../ir/forms.js";
import type { RoutineSpec } from "../ir/ir.js";
import { formId } from "../ir/forms.js";
import { familyOf } from "../families/index.js";
import type { AnyFamily } from "../family/types.js";
import { targetServices } from "../target/registry.js";
import type { ProverModel } from "../target/prover.js";
import type { AnyRule, ProveOptions, ProveTarget, Reduction, SelectorLemma, Verdict } from "./prove_types.js";
import type { Fp } from "./prove_fp.js";
import { FpBV, selected } from "./prove_fp.js";
import { hash } from "./prove_text.js";
import { scalarSemantics } from "./scalar.js";
import type { Z3Env } from "./smt.js";
import { loadZ3 } from "./smt.js";

export type { AnyRule, BugFinderReport, ProveOptions, ProveTarget, Reduction, SelectorLemma, Verdict } from "./prove_types.js";
export { PIR, amdgpu, targetName } from "./prove_types.js";

/** The registered prover model for a target's kind, applied to the target. */
function withModel<R>(target: ProveTarget, f: <T extends ProveTarget>(m: ProverModel<T>, t: T) => R): R {
  const p = targetServices().prover;
  return target.kind === "amdgpu" ? f(p.amdgpu, target) : f(p.pir, target);
}

/** Every rule that applies to a routine on a target, shadowed ones included. */
export function rulesFor(spec: RoutineSpec, target: ProveTarget, profile: Profile): AnyRule[] {
  return withModel(target, (m, t) => m.rulesFor(spec, t, profile));
}

/**
 * Proves one rule's lowering of a routine against the reference at `profile`.
 * Never throws for a wrong lowering: every failure is a verdict.
 */
export async function proveRoutine(spec: RoutineSpec, target: ProveTarget, profile: Profile, rule: AnyRule, opts: ProveOptions = {}): Promise<Verdict> {
  const t0 = performance.now();
  const env = opts.env ?? (await loadZ3());
  await env.recycle(spec.form.op === "match" ? 100 : 1);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  try {
    return await withModel(target, (m, t) => m.prove(env, spec, t, profile, rule, { ...opts, timeoutMs }, t0));
  } catch (e) {
    return { verdict: "unknown", ms: performance.now() - t0, reason: `prover error: ${(e as Error).stack ?? String(e)}` };
  }
}

// ---------------------------------------------------------------------------------------
// Query identity: what a proof depends on, so identical queries are proved once

/**
 * The spec's terms (value and definedness) as text: two specs with the same text perform
 * the same operations on the same inputs.
 */
export function specFingerprint(f: Form, profile: Profile): string {
  if (f.op === "match") return `match:${f.mode}:${f.type}:${f.dest}`;
  // The warp-level family: the form names the reference (src/sem/warp.ts), the same under both profiles.
  if (familyOf(f).name === "warp") return `warp:${formId(f)}`;
  const P = new FpBV();
  const r = scalarSemantics(P, f, profile, P.sym("a", 32), P.sym("b", 32), P.sym("c", 32));
  return `${P.text(r.value)}|${P.text(r.defined)}`;
}

/**
 * The identity of a proof query: identical keys are identical queries (same lines, same
 * contract layout, same wave size, same spec terms), so one proof covers every combination
 * that maps to the key. PIR keys use the printed PIR instead of the lines. The routine's
 * part is the target model's `keyText`; SHA-1 hex.
 * @throws Error when the lowering fails.
 */
export function queryKey(spec: RoutineSpec, target: ProveTarget, profile: Profile, rule: AnyRule): string {
  const specPart = specFingerprint(spec.form, profile);
  return hash(`${withModel(target, (m, t) => m.keyText(spec, t, profile, rule))}\n${specPart}`);
}

/**
 * Items with equal non-empty affinity should run in one worker (match and warp-level
 * routines sharing a loop, whose lemma caches are per thread: targets/amdgpu/prove/match.ts,
 * warp_loop.ts); "" for none, or when the lowering fails.
 */
export function proveAffinity(spec: RoutineSpec, target: ProveTarget, profile: Profile, rule: AnyRule): string {
  if (spec.form.op !== "match" && familyOf(spec.form).name !== "warp") return "";
  try {
    return withModel(target, (m, t) => m.affinity(spec, t, profile, rule));
  } catch {
    return "";
  }
}

// ---------------------------------------------------------------------------------------
// Proving by stages: video selectors

/**
 * Reduces a video routine with `asel`/`bsel` to the same routine without selectors (F0):
 *   spec:     spec_F(a, b, c) = spec_F0(α(a), β(b), c), α/β = the selected field extended
 *             to 32 bits, checked as equal terms (FpBV) — true of src/sem/vsh.ts's stage 1
 *             (here);
 *   routine:  the target model's half (`ProverModel.reduceSelectors`): for the PIR, the
 *             routines for F and for F0 on α(a), β(b) are equal terms (value and poison);
 *             for AMDGPU, both routines are lane-local with a syntactic contract, the routine
 *             for F starts with instructions that extract the fields (each proved by a
 *             selector lemma, `proveSelectorLemma`), and after replacing their results by
 *             α(a), β(b) it computes the same term for d as the routine for F0 on α(a), β(b).
 * Then F0 proved ⇒ F proved: d_F = d_F0(α(a), β(b), c) = spec_F0(α(a), β(b), c) = spec_F.
 * Sharing the F0 proof across the 6 × 6 selector choices is what makes the video matrix
 * (15,680 forms) provable in minutes. null: no reduction (prove F itself).
 */
export function reduceSelectors(spec: RoutineSpec, target: ProveTarget, profile: Profile, rule: AnyRule): Reduction | null {
  const f = spec.form;
  // The family's stage 1 (src/family/types.ts selectorStage): none, or no selectors.
  const split = (familyOf(f) as AnyFamily).selectorStage?.(f) ?? null;
  if (!split) return null;
  const f0 = split.base as Form;
  const base: RoutineSpec = { ...spec, form: f0 };
  const { aSigned, bSigned } = split;
  const P = new FpBV();
  const A = P.sym("a", 32);
  const B = P.sym("b", 32);
  const C = P.sym("c", 32);
  const alpha = (x: Fp) => (split.asel ? selected(P, x, split.asel, aSigned) : x);
  const beta = (x: Fp) => (split.bsel ? selected(P, x, split.bsel, bSigned) : x);
  const sF = scalarSemantics(P, f, profile, A, B, C);
  const s0 = scalarSemantics(P, f0, profile, alpha(A), beta(B), C);
  if (sF.value !== s0.value || sF.defined !== s0.defined) return null;
  try {
    return withModel(target, (m, t) => m.reduceSelectors(spec, t, profile, rule, { asel: split.asel, bsel: split.bsel, base, P, A, B, C, alpha, beta, aSigned, bSigned }));
  } catch {
    return null;
  }
}

/** Proves a selector lemma of `target`'s reduction (with z3; the target's model decides how). */
export function proveSelectorLemma(env: Z3Env, target: ProveTarget, lemma: SelectorLemma, timeoutMs = 30_000): Promise<boolean> {
  return withModel(target, (m) => m.proveLemma(env, lemma, timeoutMs));
}
