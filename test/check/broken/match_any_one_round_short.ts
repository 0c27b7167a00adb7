// match.any waterfall, broken: the loop stops while one lane is left, which never gets its ballot.
import type { BrokenCase } from "./case.js";
import { imm, s, v } from "./case.js";
import { waterfall } from "./waterfall.js";

void imm;
void s;
export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx900",
  spec: { form: { op: "match", mode: "any", type: "b32", dest: "d" }, kinds: { a: v, membermask: v }, guarded: false },
  profile: "isa",
  why: "the loop stops while one lane is left, which never gets its ballot",
  expect: { kind: "value", what: "Value mismatch: d in lane" },
  rule: {
    name: "match_any_one_round_short",
    prio: 0,
    why: "broken on purpose: " + "the loop stops while one lane is left, which never gets its ballot",
    when: () => true,
    emit: (f, m) => waterfall(f as never, m, { oneShort: true }),
  },
};
