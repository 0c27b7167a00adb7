// PIR: the ISA's d.h1 merge ((t & 0xffff) << 16) used for the sm90 profile, where ptxas
// merges t's upper half (D2). Right for isa, refuted for sm90.
import { scalarRoutine } from "../../../targets/portable/stage.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "pir",
  spec: {
    form: { op: "vshl", dtype: "u32", atype: "u32", sat: false, mode: "wrap", asel: null, bsel: null, tail: { kind: "merge", dsel: "h1" } },
    kinds: { a: v, b: v, c: v },
    guarded: false,
  },
  profile: "sm90",
  why: "the ISA merge for d.h1 under the sm90 profile (D2)",
  expect: { kind: "value" },
  rule: {
    name: "pir_vshl_wrap_h1_isa_merge",
    prio: 0,
    why: "broken on purpose: " + "the ISA merge for d.h1 under the sm90 profile (D2)",
    when: () => true,
    build: (spec) =>
      scalarRoutine(spec, (P, { a, b, c }) => {
        const t = P.bin("shl", a, P.and(b, P.c(31, 32)));
        return P.or(P.bin("shl", P.and(t, P.c(0xffff, 32)), P.c(16, 32)), P.and(c, P.c(0xffff, 32)));
      }),
  },
};
