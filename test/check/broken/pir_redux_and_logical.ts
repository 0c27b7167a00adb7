// PIR redux.sync.and.b32: a logical `&&` where the ISA has a bitwise AND (HIP's
// `__reduce_and_sync` fallback folded with `&&`): d is 1 when every member's a is non-zero,
// not the AND of the members' bits.
import type { PStmt } from "../../../targets/portable/pir.js";
import { u32 } from "../../../targets/portable/pir.js";
import type { BrokenCase } from "./case.js";
import { s, v } from "./case.js";
import { warpLevelRoutine } from "../../../targets/portable/rules/warp.js";

export const broken: BrokenCase = {
  target: "pir",
  spec: { form: { op: "redux", reduxOp: "and", type: "b32" }, kinds: { a: v, membermask: s }, guarded: false },
  profile: "isa",
  why: "a logical && instead of the bitwise AND",
  expect: { kind: "value", what: "Value mismatch (d[" },
  rule: {
    name: "pir_redux_and_logical_and",
    prio: 0,
    why: "broken on purpose: a logical && instead of the bitwise AND",
    when: () => true,
    build: (spec) =>
      warpLevelRoutine(spec, (P, x) => {
        const j = P.ref("j", u32);
        const acc = P.ref("acc", u32);
        const member = P.cmp("eq", P.and(P.bin("lshr", P.ref("members", u32), j), P.c(1, 32)), P.c(1, 32));
        const both = P.andB(P.ne(acc, P.c(0, 32)), P.ne(x.src("a", j), P.c(0, 32)));
        const pre: PStmt[] = [
          { s: "let", name: "members", value: x.members },
          { s: "var", name: "acc", value: P.c(1, 32) },
          { s: "for", index: "j", n: 32, body: [{ s: "set", name: "acc", value: P.select(member, P.select(both, P.c(1, 32), P.c(0, 32)), acc) }] },
        ];
        return { pre, d: acc };
      }),
  },
};
