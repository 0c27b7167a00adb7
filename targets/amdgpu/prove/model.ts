/**
 * @fileoverview The AMDGPU prover model (src/target/prover.ts ProverModel), registered as
 * `targetServices().prover.amdgpu` by src/compose.ts: per mcpu, the rule's lowering is
 * checked statically (availability of each instruction on the generation, the hazard rules)
 * and then proved — scalar forms by ./scalar.ts, match.sync by ./match.ts — against the
 * reference, over targets/amdgpu/interp.ts run on the symbolic algebra.
 */
import { formId } from "../../../src/ir/forms.js";
import type { AmdProveTarget, ProveTarget } from "../../../src/check/prove_types.js";
import { PIR, amdgpu } from "../../../src/check/prove_types.js";
import type { ProveOptions, Verdict } from "../../../src/check/prove_types.js";
import type { Profile } from "../../../src/ir/forms.js";
import { loadZ3 } from "../../../src/check/smt.js";
import type { ProverModel } from "../../../src/target/prover.js";
import { checkHazards, formatViolation, hazardTarget } from "../hazards.js";
import type { AmdRoutine } from "../lower.js";
import { applicableRules, lowerWithRule } from "../lower.js";
import type { Mcpu, Target } from "../regs.js";
import { MCPUS, TARGETS } from "../regs.js";
import type { AmdRule } from "../rules/rule.js";
import { loopAffinity, proveAmdMatch } from "./match.js";
import { proveAmdWarp } from "./warp.js";
import { waitFreeLines } from "./paths.js";
import { isLabel } from "../minst.js";
import { isWarpLevel } from "../../../src/check/verify.js";
import type { AmdSelectorLemma } from "./scalar.js";
import { availability, proveAmdScalar, proveSelectorLemma, reduceAmdSelectors, refutedStatic, routineText } from "./scalar.js";

/** The processor of a prove target. @throws Error for an mcpu that is not one of MCPUS. */
function processor(t: AmdProveTarget): Target {
  const p = TARGETS[t.mcpu as Mcpu] as Target | undefined;
  if (!p) throw new Error(`unknown mcpu ${t.mcpu} (one of ${MCPUS.join(", ")})`);
  return p;
}

/** The AMDGPU prover model. */
export const amdgpuProver: ProverModel<AmdProveTarget> = {
  rulesFor: (spec, target, profile) => applicableRules(spec, processor(target), profile),
  async prove(env, spec, target, profile, rule, opts, t0) {
    let t: Target;
    let r: AmdRoutine;
    try {
      t = processor(target);
      r = lowerWithRule(spec, t, profile, rule as AmdRule);
    } catch (e) {
      return { verdict: "unknown", ms: performance.now() - t0, reason: `emission failed: ${(e as Error).message}` };
    }
    const gen = availability(r);
    if (gen) return refutedStatic(spec, target, profile, rule.name, r, gen, t0);
    // Wait states first: a sequence that violates its processor's hazard rules is wrong on
    // the chip whatever its values (targets/amdgpu/hazards.ts), so it is refuted as such.
    const hz = checkHazards(r.lines, hazardTarget(t), r.boundary);
    if (hz.length) return refutedStatic(spec, target, profile, rule.name, r, `Hazard: ${hz.map(formatViolation).join("; ")}`, t0);
    if (isWarpLevel(spec.form)) return await proveAmdWarp(env, r, profile, opts.timeoutMs, t0);
    return spec.form.op === "match" ? await proveAmdMatch(env, r, profile, opts, t0) : await proveAmdScalar(env, r, profile, opts.timeoutMs, t0);
  },
  keyText(spec, target, profile, rule) {
    const r = lowerWithRule(spec, processor(target), profile, rule as AmdRule);
    const gen = availability(r) ?? "";
    // A warp-level proof also reads the generation (the interpreter's gen-dependent records:
    // ds_bpermute's lane wrap, DPP) and the hazard check, which is per processor.
    const formPart = spec.form.op === "match" ? `${formId(spec.form)}` : isWarpLevel(spec.form) ? `${formId(spec.form)} gen${r.target.gen} ${warpHazards(r)}` : "";
    // A loop-free warp-level routine's proof reads its lines but for the hazard waits (./paths.ts `waitFreeLines`).
    const proved = isWarpLevel(spec.form) && !r.lines.some(isLabel) ? { ...r, lines: waitFreeLines(r.lines) } : r;
    return `amd\n${formPart}\n${gen}\n${routineText(proved)}`;
  },
  reduceSelectors: (spec, target, profile, rule, stage) => reduceAmdSelectors(spec, processor(target), profile, rule as AmdRule, stage),
  proveLemma: (env, lemma, timeoutMs) => proveSelectorLemma(env, lemma as AmdSelectorLemma, timeoutMs),
  affinity: (spec, target, profile, rule) => loopAffinity(lowerWithRule(spec, processor(target), profile, rule as AmdRule)),
};

/**
 * Proves a lowered routine as it is — one in a caller's registers (../assign.ts) — the way
 * `amdgpuProver.prove` proves a rule's: the instructions' availability on the generation, the
 * hazard rules under its boundary, then the family's proof (./scalar.ts, ./match.ts,
 * ./warp.ts) reading the inputs from its layout, `d` from its `d` register and the scratch set
 * from `r.assigned` (../contract.ts). Same verdicts and options as `proveRoutine`
 * (src/check/prove.ts); z3 loaded when `opts.env` is absent.
 */
export async function proveLoweredRoutine(r: AmdRoutine, profile: Profile, opts: ProveOptions = {}): Promise<Verdict> {
  const t0 = performance.now();
  const env = opts.env ?? (await loadZ3());
  const spec = r.spec;
  await env.recycle(spec.form.op === "match" ? 100 : 1);
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const target = amdgpu(r.target.mcpu);
  try {
    const gen = availability(r);
    if (gen) return refutedStatic(spec, target, profile, r.rule, r, gen, t0);
    const hz = checkHazards(r.lines, hazardTarget(r.target), r.boundary);
    if (hz.length) return refutedStatic(spec, target, profile, r.rule, r, `Hazard: ${hz.map(formatViolation).join("; ")}`, t0);
    if (isWarpLevel(spec.form)) return await proveAmdWarp(env, r, profile, timeoutMs, t0);
    return spec.form.op === "match" ? await proveAmdMatch(env, r, profile, { ...opts, timeoutMs }, t0) : await proveAmdScalar(env, r, profile, timeoutMs, t0);
  } catch (e) {
    return { verdict: "unknown", ms: performance.now() - t0, reason: `prover error: ${(e as Error).stack ?? String(e)}` };
  }
}

/** The hazard check's verdict of a routine on its processor, as key text. */
function warpHazards(r: AmdRoutine): string {
  return checkHazards(r.lines, hazardTarget(r.target), r.boundary).map(formatViolation).join("; ");
}

/** The matrix's targets: every AMDGPU mcpu, then the PIR (which JS and C share). */
export function matrixTargets(): readonly ProveTarget[] {
  return [...MCPUS.map((mcpu): ProveTarget => amdgpu(mcpu)), PIR];
}
