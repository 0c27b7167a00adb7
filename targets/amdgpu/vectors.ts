/**
 * @fileoverview The AMDGPU runs of `check`: a vector's routine lowered for the processor (the
 * selected rule, hazard-padded) and run once in the interpreter — a scalar vector in all 32
 * lanes, a warp vector as one wave (lanes 32–63 inactive on wave64) — with the contract and
 * the hazard rules checked.
 */
import type { CV } from "../../src/sem/bv.js";
import { concrete, u } from "../../src/sem/bv.js";
import type { VectorOut, VectorRun, VectorService } from "../../src/target/vectors.js";
import { lowerRoutine } from "./lower.js";
import { isWarpLevel, missingLowering } from "../../src/check/verify.js";
import type { WarpCase } from "../../src/check/warp_cases.js";
import type { WarpForm } from "../../src/ir/warp_forms.js";
import { runWarpLevel } from "./warp_exec.js";
import type { MatchCase } from "../../src/check/warps.js";
import { execRoutine, runFailure } from "./exec.js";
import type { Mcpu } from "./regs.js";
import { TARGETS } from "./regs.js";

function runOne({ spec, profile, scalar: x, warp: wc }: VectorRun, mcpu: Mcpu): VectorOut {
  const missing = missingLowering("AMDGPU", spec.form);
  if (missing) return { failure: missing };
  const r = lowerRoutine(spec, TARGETS[mcpu], profile);
  if (wc && isWarpLevel(spec.form)) {
    // The warp-level family: one warp (lanes 32–63 inactive on wave64), predicates as lane masks.
    const run = runWarpLevel(r, spec.form as WarpForm, wc as WarpCase);
    if ("failure" in run) return { failure: `${run.failure} (rule ${r.rule})` };
    const active = (l: number) => (((wc as WarpCase).active >>> l) & 1) === 1;
    return { d: run.d.map((x, l) => (active(l) ? x : null)), p: run.p.map((x, l) => (active(l) ? x : null)), rule: r.rule };
  }
  const w = wc as MatchCase | undefined;
  const src: Record<string, CV | CV[]> = {};
  let run;
  if (x) {
    for (const name of ["a", "b", "c"] as const) {
      const k = spec.kinds[name];
      if (!k || k.kind === "imm") continue;
      src[name] = k.kind === "v" ? new Array<CV>(32).fill(u(x[name])) : u(x[name]);
    }
    run = execRoutine(concrete, r, {
      src,
      active: u(0xffffffff),
      ...(spec.guarded ? { guard: new Array<boolean>(32).fill(x.g ?? true), dPrior: new Array<CV>(32).fill(u(x.dPrior ?? 0n)) } : {}),
    });
  } else {
    const f = spec.form;
    const width = f.op === "match" && f.type === "b64" ? 64 : 32;
    if (spec.kinds.a?.kind !== "imm") src.a = spec.kinds.a?.kind === "s" ? u(w!.a[0]!, width) : w!.a.map((v) => u(v, width));
    if (spec.kinds.membermask?.kind !== "imm")
      src.membermask = spec.kinds.membermask?.kind === "s" ? u(w!.membermask[0]!) : w!.membermask.map((v) => u(v));
    run = execRoutine(concrete, r, {
      src,
      active: u(BigInt(w!.active >>> 0)),
      ...(spec.guarded ? { guard: w!.guard ?? new Array<boolean>(32).fill(true), dPrior: w!.dPrior.map((v) => u(v)), pPrior: w!.pPrior } : {}),
    });
  }
  const failure = runFailure(run);
  if (failure) return { failure: `${failure} (rule ${r.rule})` };
  return x ? { d: run.d[0]!.x, rule: r.rule } : { d: run.d.map((v) => v.x), p: run.p, rule: r.rule };
}

export const amdgpuVectors: VectorService = {
  kind: "amdgpu",
  async run(runs, mcpu) {
    return { outs: runs.map((r) => runOne(r, (mcpu ?? "gfx942") as Mcpu)) };
  },
};
