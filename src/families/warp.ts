/**
 * @fileoverview The warp-level family (issue 15): `shfl.sync.{up,down,bfly,idx}.b32` (PTX ISA
 * 9.1 §9.7.9.6) and the deprecated `shfl` (§9.7.9.5), `vote.sync.{all,any,uni}.pred` /
 * `vote.sync.ballot.b32` (§9.7.13.9) and the deprecated `vote` (§9.7.13.8),
 * `redux.sync.{add,min,max}.{u32,s32}`, `.{and,or,xor}.b32` and `.{min,max}{.abs}{.NaN}.f32`
 * (§9.7.13.12), `activemask.b32` (§9.7.13.11) and `bar.warp.sync` (§9.7.13.2) — 59 forms. A
 * warp family, assembled from its pieces: the forms and spellings (src/ir/warp_forms.ts), the
 * ptxas-parity templates and checks per opcode (src/ir/warp_check.ts), the reference semantics
 * (src/sem/warp.ts), the random warps (src/check/warp_cases.ts).
 *
 * `bar.warp` is the opcode `bar` with the first modifier `.warp` (the registry's `familyOpOf`);
 * ptxas's messages name it `bar.warp`, and so do ours (`FamilyChecker.op`).
 */
import type { Family, KindSample } from "../family/types.js";
import type { FamilyChecker, Resolved } from "../ir/build.js";
import type { RoutineSpec } from "../ir/ir.js";
import type { WarpForm } from "../ir/warp_forms.js";
import { warpAsmOpcode, warpFormId, warpFormName, warpForms, warpMainKind, warpSources, warpVerifyKinds, warpWrites } from "../ir/warp_forms.js";
import { WARP_FRONT_ENDS } from "../ir/warp_check.js";
import { warpLevel } from "../sem/warp.js";
import { randomWarpCases } from "../check/warp_cases.js";
import { Rng } from "../check/random.js";

/** phase 3 of the opcode the checker is on (`c.op`: `shfl`, `vote`, `redux`, `activemask`, `bar.warp`). */
function validate(c: FamilyChecker, r: Resolved) {
  return WARP_FRONT_ENDS[c.op as WarpForm["op"]].validate(c, r);
}

/** The class of a form that a sample must cover: opcode, `.sync` or not, mode or operation and type. */
function classOf(f: WarpForm): string {
  switch (f.op) {
    case "shfl":
      return `shfl ${f.sync} ${f.mode}`;
    case "vote":
      return `vote ${f.sync} ${f.mode}`;
    case "redux":
      return `redux ${f.reduxOp} ${f.type}`;
    default:
      return f.op;
  }
}

/**
 * A seeded sample of the forms: one of each class (`classOf`: 8 shfl, 8 vote, 11 redux,
 * activemask, bar.warp — 29 of the 59), the destination shape, `!a` and `.abs`/`.NaN` drawn.
 */
function warpSample(seed: number): WarpForm[] {
  const rng = new Rng(seed);
  const byClass = new Map<string, WarpForm[]>();
  for (const f of warpForms()) {
    const k = classOf(f);
    byClass.set(k, [...(byClass.get(k) ?? []), f]);
  }
  return [...byClass.values()].map((fs) => rng.pick(fs));
}

export const warp = {
  name: "warp",
  ops: ["shfl", "vote", "redux", "activemask", "bar.warp"],
  spelled: "shfl/vote/redux/activemask/bar.warp",
  shape: "warp",
  profileSensitive: false,
  forms: warpForms,
  formName: warpFormName,
  formId: warpFormId,
  sources: warpSources,
  writes: warpWrites,
  asmOpcode: warpAsmOpcode,
  syntax: {
    perOp: {
      shfl: WARP_FRONT_ENDS.shfl.syntax,
      vote: WARP_FRONT_ENDS.vote.syntax,
      redux: WARP_FRONT_ENDS.redux.syntax,
      activemask: WARP_FRONT_ENDS.activemask.syntax,
      "bar.warp": WARP_FRONT_ENDS["bar.warp"].syntax,
    },
  },
  validate,
  semantics: warpLevel,
  cases: (spec, o) => randomWarpCases(spec.form, spec.kinds, o.seed, o.warps ?? 10_000, spec.guarded),
  sample: warpSample,
  verifyKinds: (f, wide) => warpVerifyKinds(f, wide) as KindSample[],
  mainKind: (k) => warpMainKind(k),
  /** The prover matrix: the kinds `verify` runs (every source kind each rule distinguishes), so every rule applies to one of them. */
  proveSpecs: (form): RoutineSpec[] => warpVerifyKinds(form, false).map((k) => ({ form, kinds: k.kinds, guarded: k.guarded })),
} as const satisfies Family<"warp", WarpForm, "warp">;
