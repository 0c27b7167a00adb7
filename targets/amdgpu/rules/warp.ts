/**
 * @fileoverview The AMDGPU rules of the warp-level family (issue 15 item 3), per opcode, for
 * the lead to add to `AMDGPU_RULES` (targets/amdgpu/lower.ts) when the family is registered:
 * `warpRulesOf(f)` is then the family's table. `bar.warp.sync` writes nothing and, one warp
 * per wavefront, needs no code (lanes run in lockstep).
 */
import type { BarWarpForm, WarpForm } from "../../../src/ir/warp_forms.js";
import type { AmdRule } from "./rule.js";
import { activemaskRules } from "./activemask.js";
import { reduxRules } from "./redux.js";
import { reduxF32Rules } from "./redux_f32.js";
import { shflRules } from "./shfl.js";
import { voteRules } from "./vote.js";

export const barWarpRules: AmdRule<BarWarpForm>[] = [
  {
    name: "bar_warp_sync_empty",
    prio: 0,
    why: "bar.warp.sync has no result; one PTX warp is one wavefront, whose lanes run in lockstep, so the synchronisation holds by construction and the empty sequence is exact.",
    when: () => true,
    emit: () => {},
  },
];

/** The warp-level rules, keyed by opcode. */
export const WARP_AMD_RULES = { shfl: shflRules, vote: voteRules, redux: [...reduxRules, ...reduxF32Rules], activemask: activemaskRules, "bar.warp": barWarpRules } as const;

/** Every rule of a warp form's opcode, in definition order. */
export function warpRulesOf(f: WarpForm): readonly AmdRule<WarpForm>[] {
  // A rule of opcode K takes K's forms; `f` is one of them, which the table's type cannot say.
  return WARP_AMD_RULES[f.op] as readonly AmdRule<never>[] as readonly AmdRule<WarpForm>[];
}
