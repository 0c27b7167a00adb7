/**
 * @fileoverview What the prover driver (src/check/prove.ts, src/check/prove_worker.ts) needs
 * from each target, as target-agnostic interfaces: a `ProverModel` per kind of prove target
 * (AMDGPU per mcpu: targets/amdgpu/prove/model.ts; the portable IR: targets/portable/prove.ts),
 * registered by src/compose.ts. Targets travel between threads as serialisable
 * `ProveTarget` refs (`{ kind: "amdgpu", mcpu }`, `{ kind: "pir" }`) and rules by name; the
 * models resolve them. Source: design/PLAN-13.md §3.3 (ProverModel).
 */
import type { Profile } from "../ir/forms.js";
import type { RoutineSpec } from "../ir/ir.js";
import type { Z3Env } from "../check/smt.js";
import type { AmdProveTarget, PirProveTarget, ProveOptions, ProveTarget, ProverRule, Reduction, SelectorLemma, SelectorStage, Verdict } from "../check/prove_types.js";

export type { AmdProveTarget, PirProveTarget, ProveTarget, ProverRule, Verdict };

/** One kind of prove target's prover. `T`: the target refs it takes. */
export interface ProverModel<T extends ProveTarget> {
  /** Every rule that applies to the routine on `target` at `profile`, shadowed ones included, in table order. */
  rulesFor(spec: RoutineSpec, target: T, profile: Profile): ProverRule[];
  /**
   * Proves one rule's lowering (a rule from `rulesFor`, or one of the same target's rules
   * from elsewhere) against the reference. A wrong lowering is a verdict; `t0` (ms,
   * performance.now) is when the driver started, for the verdict's `ms`.
   * @throws Error for a prover fault (the driver reports it as unknown).
   */
  prove(env: Z3Env, spec: RoutineSpec, target: T, profile: Profile, rule: ProverRule, opts: ProveOptions & { timeoutMs: number }, t0: number): Promise<Verdict>;
  /**
   * The routine's part of its query key text: everything the proof reads besides the spec
   * (the driver appends the spec's fingerprint and hashes). MUST stay byte-identical: keys
   * decide which proofs prove:all shares.
   * @throws Error when the lowering fails.
   */
  keyText(spec: RoutineSpec, target: T, profile: Profile, rule: ProverRule): string;
  /**
   * The target's half of the selector-stage reduction (the driver has checked the spec half,
   * `stage`): null when this rule's routines do not reduce.
   * @throws Error when a lowering fails (no reduction).
   */
  reduceSelectors(spec: RoutineSpec, target: T, profile: Profile, rule: ProverRule, stage: SelectorStage): Reduction | null;
  /** Proves one of the target's own selector lemmas (from its `reduceSelectors`). */
  proveLemma(env: Z3Env, lemma: SelectorLemma, timeoutMs: number): Promise<boolean>;
  /**
   * Items with equal non-empty affinity should run in one worker (they share a per-thread
   * lemma cache, e.g. a match.sync loop's); "" for none. @throws Error when the lowering fails.
   */
  affinity(spec: RoutineSpec, target: T, profile: Profile, rule: ProverRule): string;
}

/** The prover models of every kind of prove target, and the matrix's targets. */
export interface ProverServices {
  readonly amdgpu: ProverModel<AmdProveTarget>;
  readonly pir: ProverModel<PirProveTarget>;
  /** The targets of the prove matrix (prove:all, key snapshots): every AMDGPU mcpu, then the PIR. */
  matrixTargets(): readonly ProveTarget[];
}
