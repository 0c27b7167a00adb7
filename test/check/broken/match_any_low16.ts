// match.any waterfall, broken: compares only the low 16 bits of a.
import type { BrokenCase } from "./case.js";
import { imm, s, v } from "./case.js";
import { waterfall } from "./waterfall.js";

void imm;
void s;
export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx1030",
  spec: { form: { op: "match", mode: "any", type: "b32", dest: "d" }, kinds: { a: v, membermask: s }, guarded: false },
  profile: "isa",
  why: "compares only the low 16 bits of a",
  expect: { kind: "value", what: "Value mismatch: d in lane" },
  rule: {
    name: "match_any_low16",
    prio: 0,
    why: "broken on purpose: " + "compares only the low 16 bits of a",
    when: () => true,
    emit: (f, m) => waterfall(f as never, m, { low16: true }),
  },
};
