/**
 * @fileoverview What `check` (src/check/vectors.ts) needs from each target: run the routine
 * of a vector's instruction on the vector's inputs and return the raw results, which the
 * driver compares with the vector's expected `out`. Implemented by targets/amdgpu/vectors.ts
 * and targets/portable/vectors.ts.
 */
import type { Profile } from "../ir/forms.js";
import type { RoutineSpec } from "../ir/ir.js";
import type { ScalarCase } from "../check/inputs.js";
import type { MatchCase } from "../check/warps.js";
import type { WarpCase } from "../check/warp_cases.js";

/** One vector's routine and inputs: a scalar case, or one warp. */
export interface VectorRun {
  spec: RoutineSpec;
  profile: Profile;
  scalar?: ScalarCase;
  /** A warp: match.sync's `MatchCase`, or the warp-level family's `WarpCase`. */
  warp?: MatchCase | WarpCase;
}

/** A target's results for a vector: `d` (u32, or 32 lanes), `p` (32 lanes), the rule (where a mismatch names it), or why it failed to run. */
export type VectorOut = { d: bigint | readonly (bigint | null)[]; p?: readonly (boolean | null)[]; rule?: string } | { failure: string };

export interface VectorService {
  /** `amdgpu`, `js`, `c`, `hip`, `llvm`, or `portable IR` (the PIR's own meaning: no poison reaches a scalar `d`). */
  readonly kind: "amdgpu" | "js" | "c" | "hip" | "llvm" | "portable IR";
  /** Runs every vector (for AMDGPU, hip and llvm on processor `mcpu`); `skipped` when the target's tool is absent. */
  run(runs: readonly VectorRun[], mcpu?: string): Promise<{ outs: VectorOut[] } | { skipped: string }>;
  /**
   * Optional: starts the work `run(runs, m)` will need for each processor of `mcpus` (hip,
   * llvm: the compiles, side by side), so that the per-processor `run` calls that follow, on
   * the same `runs` array, wait for them instead of each starting its own in turn.
   */
  prepare?(runs: readonly VectorRun[], mcpus: readonly string[]): void;
}
