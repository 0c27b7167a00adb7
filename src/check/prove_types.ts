/**
 * @fileoverview The prover's target-agnostic vocabulary, shared by the driver
 * (src/check/prove.ts, ./prove_worker.ts) and the targets' prover models
 * (targets/amdgpu/prove/, targets/portable/prove.ts, reached through src/target/prover.ts):
 * verdicts, targets as serialisable refs, options, rules by name, failure conditions, the
 * symbolic/concrete initial values and the selector-stage reduction's pieces.
 */
import type { RoutineSpec } from "../ir/ir.js";
import type { Sel } from "../ir/forms.js";
import type { BV, CV } from "../sem/bv.js";
import { concrete } from "../sem/bv.js";
import type { Bool, BitVec, Z3Env } from "./smt.js";
import { modelBool, modelValue, solve } from "./smt.js";
import type { Fp, FpBV } from "./prove_fp.js";

// ---------------------------------------------------------------------------------------
// Verdicts, targets, options

export type Verdict =
  | { verdict: "proved"; ms: number; method: string; queries: number; bugFinder?: BugFinderReport }
  | { verdict: "refuted"; ms: number; reason: string; counterexample: string }
  | { verdict: "tested"; ms: number; n: number; detail: string }
  | { verdict: "unknown"; ms: number; reason: string; fault?: boolean; bugFinder?: BugFinderReport };

/**
 * What the match.sync bug-finder (full width, up to 16 lanes) did beside a proof. It can
 * only refute: "no bug" and "timeout" never change a verdict, and its timeouts are reported
 * here, not as unknown.
 */
export interface BugFinderReport {
  lanes: number;
  status: "no bug" | "counterexample" | "timeout" | "solver fault" | "model did not replay";
  ms: number;
}

/** Where a lowering runs: an AMDGPU processor, or the portable IR (which JS and C share). */
export type ProveTarget = AmdProveTarget | PirProveTarget;
/** An AMDGPU processor (`mcpu`: one of targets/amdgpu/regs.ts MCPUS, checked by the callers). */
export type AmdProveTarget = { kind: "amdgpu"; mcpu: string };
/** The portable IR, which JS and C are both printed from. */
export type PirProveTarget = { kind: "pir" };

export const PIR: PirProveTarget = Object.freeze({ kind: "pir" });
export const amdgpu = (mcpu: string): AmdProveTarget => ({ kind: "amdgpu", mcpu });

/** The target as printed in a refutation's header: `amdgpu gfx942`, `pir (js, c)`. */
export function targetName(t: ProveTarget): string {
  return t.kind === "amdgpu" ? `amdgpu ${t.mcpu}` : "pir (js, c)";
}


export interface ProveOptions {
  /** Per-query solver timeout (default 30 s). */
  timeoutMs?: number;
  /** The thread's z3 (loaded when absent). */
  env?: Z3Env;
  /**
   * match.sync loops: the full-width bug-finder runs `"first"` (default; true), as a
   * `"fallback"` when the proof fails, or not at all (false). It can only refute.
   */
  bugFinder?: boolean | "first" | "fallback";
  /** match.sync bug-finder: lanes (≤ 16) and its timeout (default 16, 60 s). */
  bugLanes?: number;
  bugTimeoutMs?: number;
}


/**
 * A rule as the driver sees it: its name (printed in outputs, the worker's handle). The body
 * is the target's (targets/amdgpu/rules/rule.ts AmdRule, targets/portable/rules PortableRule);
 * only the target's prover model looks inside.
 */
export interface ProverRule {
  readonly name: string;
}

/** A rule for either kind of target (the library's name for a `ProverRule`). */
export type AnyRule = ProverRule;

// ---------------------------------------------------------------------------------------
// Failure conditions and initial values

/** One way a run can be wrong, as a condition over the inputs. */
export interface Bad<B> {
  what: string;
  cond: B;
  /** Lane the failure is about (for traces), if any. */
  lane?: number;
}



/** Makes the initial values: fresh symbols (proof) or model values (concrete replay). */
export interface Init<V, B> {
  bv: BV<V, B>;
  mk(name: string, width: number): V;
  mkB(name: string): B;
}

/** A symbolic `Init` over z3 that remembers every symbol by name. */
export function symbolicInit(env: Z3Env): Init<BitVec, Bool> & { symbols: Map<string, BitVec | Bool> } {
  const symbols = new Map<string, BitVec | Bool>();
  return {
    bv: env.bv,
    symbols,
    mk: (name, w) => {
      const x = env.bv.sym(name, w);
      symbols.set(name, x);
      return x;
    },
    mkB: (name) => {
      const x = env.bv.symB(name);
      symbols.set(name, x);
      return x;
    },
  };
}

/** A concrete `Init` reading a model's values by symbol name (absent: 0 / false). */
export function concreteInit(values: Map<string, bigint | boolean>): Init<CV, boolean> {
  return {
    bv: concrete,
    mk: (name, w) => concrete.k((values.get(name) as bigint | undefined) ?? 0n, w),
    mkB: (name) => (values.get(name) as boolean | undefined) ?? false,
  };
}

/** Evaluates every symbol of a symbolic run in `model`. */
export function modelValues(env: Z3Env, model: NonNullable<Awaited<ReturnType<typeof solve>>["model"]>, symbols: Map<string, BitVec | Bool>): Map<string, bigint | boolean> {
  const out = new Map<string, bigint | boolean>();
  for (const [name, x] of symbols) out.set(name, env.ctx.isBool(x) ? modelBool(env, model, x as Bool) : modelValue(env, model, x as BitVec));
  return out;
}


// ---------------------------------------------------------------------------------------
// Proving by stages: video selectors (src/check/prove.ts reduceSelectors)

/**
 * A target's one-instruction lemma that a reduction rests on: `key` is its identity (equal
 * keys, one proof); the rest is the target's and only its prover model reads it.
 */
export interface SelectorLemma {
  key: string;
}

/** How an item's proof reduces to another routine's (the same form without selectors). */
export interface Reduction {
  base: RoutineSpec;
  lemmas: SelectorLemma[];
}

/**
 * The target-agnostic half of a selector reduction, handed to the target's model: the form
 * F and its selector-free F0 (`base`), and the FpBV terms — the inputs `A`, `B`, `C` and
 * α/β, the selected field of a/b extended to 32 bits (identity without a selector), whose
 * spec equality spec_F(a, b, c) = spec_F0(α(a), β(b), c) the driver has checked.
 */
export interface SelectorStage {
  /** The selectors of the form F (`base` is F without them). */
  asel: Sel | null;
  bsel: Sel | null;
  base: RoutineSpec;
  P: FpBV;
  A: Fp;
  B: Fp;
  C: Fp;
  alpha(x: Fp): Fp;
  beta(x: Fp): Fp;
  /** Whether a's (b's) field is sign-extended (its type is .s32). */
  aSigned: boolean;
  bSigned: boolean;
}
