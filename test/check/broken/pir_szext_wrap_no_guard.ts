// PIR: (a << (32 - n)) >>a (32 - n) with n = b & 31 and no n == 0 guard. 32 - 0 = 32 is an
// over-wide shift: poison in PIR (a shift by 0 in JS, undefined behaviour in C).
import { scalarRoutine } from "../../../targets/portable/stage.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "pir",
  spec: { form: { op: "szext", mode: "wrap", type: "s32" }, kinds: { a: v, b: v }, guarded: false },
  profile: "isa",
  why: "missing n = 0 guard: a shift by 32 is poison",
  expect: { kind: "poison", what: "(d is poison)" },
  rule: {
    name: "pir_szext_wrap_shl_sar_unguarded",
    prio: 0,
    why: "broken on purpose: " + "missing n = 0 guard: a shift by 32 is poison",
    when: () => true,
    build: (spec) =>
      scalarRoutine(spec, (P, { a, b }) => {
        const n = P.and(b, P.c(31, 32));
        const sh = P.bin("sub", P.c(32, 32), n);
        return P.bin("ashr", P.bin("shl", a, sh), sh);
      }),
  },
};
