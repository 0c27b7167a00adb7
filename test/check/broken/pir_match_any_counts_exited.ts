// PIR match.any: the members taken as membermask alone, without `& active`: a lane that
// has exited but is named by the mask, and holds an equal value, is counted.
import type { PStmt } from "../../../targets/portable/pir.js";
import { arr, u32 } from "../../../targets/portable/pir.js";
import { stage } from "../../../targets/portable/stage.js";
import type { BrokenCase } from "./case.js";
import { s, v } from "./case.js";

export const broken: BrokenCase = {
  target: "pir",
  spec: { form: { op: "match", mode: "any", type: "b32", dest: "d" }, kinds: { a: v, membermask: s }, guarded: false },
  profile: "isa",
  why: "exited lanes are counted (no & active)",
  expect: { kind: "value", what: "Value mismatch: d in lane" },
  rule: {
    name: "pir_match_any_ignores_active",
    prio: 0,
    why: "broken on purpose: " + "exited lanes are counted (no & active)",
    when: () => true,
    build: () => {
      const P = stage();
      const i = P.ref("i", u32);
      const j = P.ref("j", u32);
      const eq = P.ref("eq", u32);
      const a = (x: typeof i) => P.elem("a", u32, x);
      const inner: PStmt[] = [{ s: "set", name: "eq", value: P.or(eq, P.select(P.cmp("eq", a(j), a(i)), P.bin("shl", P.c(1, 32), j), P.c(0, 32))) }];
      const body: PStmt[] = [
        {
          s: "for",
          index: "i",
          n: 32,
          body: [
            { s: "var", name: "eq", value: P.c(0, 32) },
            { s: "for", index: "j", n: 32, body: inner },
            { s: "store", array: "d", index: i, value: P.and(eq, P.ref("membermask", u32)) },
          ],
        },
      ];
      return {
        name: "match_any_sync_b32__v_s",
        params: [
          { name: "a", type: arr(u32) },
          { name: "membermask", type: u32 },
          { name: "active", type: u32 },
        ],
        results: [{ name: "d", type: arr(u32) }],
        body,
      };
    },
  },
};
