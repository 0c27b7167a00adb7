// match.any waterfall, broken: lanes named only by other lanes' membermask are counted.
import type { BrokenCase } from "./case.js";
import { imm, s, v } from "./case.js";
import { waterfall } from "./waterfall.js";

void imm;
void s;
export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx1100",
  spec: { form: { op: "match", mode: "any", type: "b32", dest: "d" }, kinds: { a: v, membermask: s }, guarded: false },
  profile: "isa",
  why: "lanes named only by other lanes' membermask are counted",
  expect: { kind: "value", what: "Value mismatch: d in lane" },
  rule: {
    name: "match_any_ignores_membermask",
    prio: 0,
    why: "broken on purpose: " + "lanes named only by other lanes' membermask are counted",
    when: () => true,
    emit: (f, m) => waterfall(f as never, m, { ignoreMask: true }),
  },
};
