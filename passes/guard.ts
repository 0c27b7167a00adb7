/**
 * @fileoverview AMDGPU routine passes "guard-prior" and "guard": the routine contract's guard
 * for scalar families (README "The routine contract": lanes whose guard is false get the
 * prior `d`). Warp families guard inside their rules, because the guard interacts with the
 * waterfall over membermask values.
 */
import type { RoutineState } from "../targets/amdgpu/lower.js";
import { familyOf } from "../src/families/index.js";
import type { Pass } from "./types.js";
import { isWarpForm } from "../targets/amdgpu/routine.js";

// Warp-level forms (not yet in the registry, targets/amdgpu/routine.ts `isWarpForm`) guard in their rules.
const wraps = (x: RoutineState) => x.spec.guarded && !isWarpForm(x.spec.form) && familyOf(x.spec.form).shape === "scalar";

/** Before the rule: with no divergent source the prior d is in v0 itself, so the body writes a scratch VGPR and the prior value survives until the select. */
export const guardPrior: Pass<RoutineState> = {
  name: "guard-prior",
  run(x) {
    const prior = x.m.layout.dPrior;
    if (wraps(x) && prior?.k === "v" && prior.n === 0) x.m.dBody = x.m.vtmp();
    return x;
  },
};

/** After the rule: the body ran in every active lane; lanes whose guard is false take the prior d back, with one v_cndmask on the guard mask. */
export const guard: Pass<RoutineState> = {
  name: "guard",
  run(x) {
    if (wraps(x)) x.m.emit("v_cndmask_b32", x.m.layout.d, x.m.layout.dPrior!, x.m.d(), x.m.layout.guard!);
    return x;
  },
};
