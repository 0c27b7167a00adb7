// PIR: vsub.s32.s32.s32.sat d.b0 with the ISA's signed byte clamp [-128, 127] under the sm90
// profile, where ptxas clamps unsigned to [0, 0x7f] and a negative difference gives 0x7f (S1,
// ../shared/notes/video-semantics.md §4.3). Right for isa, refuted for sm90.
import { scalarRoutine } from "../../../targets/portable/stage.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "pir",
  spec: {
    form: { op: "vsub", cmp: null, dtype: "s32", atype: "s32", btype: "s32", sat: true, asel: null, bsel: null, tail: { kind: "merge", dsel: "b0" } },
    kinds: { a: v, b: v, c: v },
    guarded: false,
  },
  profile: "sm90",
  why: ".sat with a dsel clamped signed (the ISA) where sm90 clamps unsigned (S1)",
  expect: { kind: "value" },
  rule: {
    name: "pir_vsub_sat_b0_signed_clamp",
    prio: 0,
    why: "broken on purpose: " + ".sat with a dsel clamped signed (the ISA) where sm90 clamps unsigned (S1)",
    when: () => true,
    build: (spec) =>
      scalarRoutine(spec, (P, { a, b, c }) => {
        const t = P.sub(P.sext(a, 64), P.sext(b, 64));
        const lo = P.c(-128, 64);
        const hi = P.c(127, 64);
        const sat = P.ite(P.slt(t, lo), lo, P.ite(P.slt(hi, t), hi, t));
        return P.or(P.and(P.extract(sat, 31, 0), P.c(0xff, 32)), P.and(c, P.c(0xffffff00, 32)));
      }),
  },
};
