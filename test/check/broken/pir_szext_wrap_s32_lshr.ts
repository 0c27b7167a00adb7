// PIR: szext.wrap.s32 as the guarded shl/shr idiom with a logical right shift: zero- instead
// of sign-extension (n = b & 31, n == 0 gives 0). Moved here from test/portable.test.ts;
// pir_szext_s32_lshr.ts is the .clamp variant.
import { scalarRoutine } from "../../../targets/portable/stage.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "pir",
  spec: { form: { op: "szext", mode: "wrap", type: "s32" }, kinds: { a: v, b: v }, guarded: false },
  profile: "isa",
  why: "lshr (logical) where .s32 needs ashr",
  expect: { kind: "value", what: "Value mismatch" },
  rule: {
    name: "pir_szext_wrap_s32_lshr",
    prio: 0,
    why: "broken on purpose: " + "lshr (logical) where .s32 needs ashr",
    when: () => true,
    build: (spec) =>
      scalarRoutine(spec, (P, { a, b }) => {
        const n = P.and(b, P.c(31, 32));
        const sh = P.bin("sub", P.c(32, 32), n);
        return P.select(P.cmp("eq", n, P.c(0, 32)), P.c(0, 32), P.bin("lshr", P.bin("shl", a, sh), sh));
      }),
  },
};
