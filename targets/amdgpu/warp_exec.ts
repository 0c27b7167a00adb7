/**
 * @fileoverview Running an AMDGPU routine of the warp-level family (shfl, vote, redux,
 * activemask, bar.warp.sync; issue 15) on one warp case, for `verify` and `check`: the case's
 * per-lane sources (a uniform source: its lane-0 value; an immediate is folded), the active
 * lanes, and for a guarded routine the guard and the prior d and p; lanes 32–63 inactive on
 * wave64. Predicates (vote's a, a `.pred` d) travel as lane masks by the routine contract
 * (targets/amdgpu/routine.ts); `execRoutine` packs and unpacks them.
 */
import type { SourceName } from "../../src/ir/ir.js";
import type { WarpForm } from "../../src/ir/warp_forms.js";
import { warpSources, warpWrites } from "../../src/ir/warp_forms.js";
import type { NV } from "../../src/sem/bv_number.js";
import { concreteNumber, nvValue } from "../../src/sem/bv_number.js";
import type { WarpCase } from "../../src/check/warp_cases.js";
import type { AmdRoutine } from "./lower.js";
import { execRoutine, runFailure } from "./exec.js";

/** A routine's results on a warp case, per PTX lane (`d` 0/1 for a `.pred` d), its dynamic cycles; or why the run failed (hazard, contract, LDS wait). */
export type WarpLevelRun = { d: bigint[]; p: boolean[]; cycles: number } | { failure: string };

/**
 * Runs `r` (a warp-level routine) on `c`. Shapes: 32 lanes in, 32 out. The interpreter runs
 * over `concreteNumber` (src/sem/bv_number.ts: the same records and interpreter on numbers,
 * checked operation by operation against `concrete` in test/bv_number.test.ts).
 * @throws never: interpreter errors come back as `failure`.
 */
export function runWarpLevel(r: AmdRoutine, f: WarpForm, c: WarpCase): WarpLevelRun {
  const per = (xs: bigint[]) => xs.map((x) => concreteNumber.k(x, 32));
  const src: Partial<Record<SourceName, NV | NV[]>> = {};
  const vals: Partial<Record<SourceName, bigint[]>> = { a: c.a, b: c.b, c: c.c, ...(c.membermask ? { membermask: c.membermask } : {}) };
  for (const n of warpSources(f)) {
    const k = r.spec.kinds[n] ?? { kind: "v" as const };
    if (k.kind === "imm") continue;
    src[n] = k.kind === "s" ? concreteNumber.k(vals[n]![0]!, 32) : per(vals[n]!);
  }
  let run;
  try {
    run = execRoutine(concreteNumber, r, {
      src,
      active: concreteNumber.k(c.active, 32),
      ...(c.guard ? { guard: c.guard, dPrior: per(c.dPrior), pPrior: c.pPrior } : {}),
    });
  } catch (e) {
    return { failure: `${(e as Error).name}: ${(e as Error).message}` };
  }
  const fail = runFailure(run);
  if (fail) return { failure: fail };
  const w = warpWrites(f);
  return { d: w.d ? run.d.map(nvValue) : new Array<bigint>(32).fill(0n), p: run.p.map((x) => x === true), cycles: run.cycles };
}
