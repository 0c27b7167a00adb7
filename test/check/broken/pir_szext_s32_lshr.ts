// PIR: the guarded shl/shr idiom with a logical right shift: no sign extension.
import { scalarRoutine } from "../../../targets/portable/stage.js";
import type { BrokenCase } from "./case.js";
import { s, v } from "./case.js";

export const broken: BrokenCase = {
  target: "pir",
  spec: { form: { op: "szext", mode: "clamp", type: "s32" }, kinds: { a: s, b: v }, guarded: false },
  profile: "isa",
  why: "lshr (logical) where .s32 needs ashr",
  expect: { kind: "value" },
  rule: {
    name: "pir_szext_clamp_s32_lshr",
    prio: 0,
    why: "broken on purpose: " + "lshr (logical) where .s32 needs ashr",
    when: () => true,
    build: (spec) =>
      scalarRoutine(spec, (P, { a, b }) => {
        const sh = P.bin("sub", P.c(32, 32), b);
        const ext = P.bin("lshr", P.bin("shl", a, sh), sh);
        return P.select(P.cmp("ult", b, P.c(32, 32)), P.select(P.cmp("eq", b, P.c(0, 32)), P.c(0, 32), ext), a);
      }),
  },
};
