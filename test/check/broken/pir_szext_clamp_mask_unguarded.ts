// PIR: a & ((1 << b) - 1) for .clamp.u32 with neither the b ≥ 32 arm nor a count guard.
import { scalarRoutine } from "../../../targets/portable/stage.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "pir",
  spec: { form: { op: "szext", mode: "clamp", type: "u32" }, kinds: { a: v, b: v }, guarded: true },
  profile: "sm90",
  why: "1 << b with b ≥ 32 is poison, and b ≥ 32 must keep a",
  expect: { kind: "poison", what: "(d is poison)" },
  rule: {
    name: "pir_szext_clamp_u32_mask_only",
    prio: 0,
    why: "broken on purpose: " + "1 << b with b ≥ 32 is poison, and b ≥ 32 must keep a",
    when: () => true,
    build: (spec) => scalarRoutine(spec, (P, { a, b }) => P.and(a, P.bin("sub", P.bin("shl", P.c(1, 32), b), P.c(1, 32)))),
  },
};
