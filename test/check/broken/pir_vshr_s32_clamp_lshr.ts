// PIR: vshr.s32.s32.u32.clamp with a logical shift (guarded, so no poison, but wrong).
import { scalarRoutine } from "../../../targets/portable/stage.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "pir",
  spec: {
    form: { op: "vshr", dtype: "s32", atype: "s32", sat: false, mode: "clamp", asel: null, bsel: null, tail: { kind: "none" } },
    kinds: { a: v, b: v },
    guarded: false,
  },
  profile: "isa",
  why: "lshr for a signed atype; b ≥ 32 must give 0 or -1",
  expect: { kind: "value" },
  rule: {
    name: "pir_vshr_clamp_s32_lshr",
    prio: 0,
    why: "broken on purpose: " + "lshr for a signed atype; b ≥ 32 must give 0 or -1",
    when: () => true,
    build: (spec) =>
      scalarRoutine(spec, (P, { a, b }) => P.select(P.cmp("ult", b, P.c(32, 32)), P.bin("lshr", a, b), P.c(0, 32))),
  },
};
