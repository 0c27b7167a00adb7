// match.any waterfall, broken: .b64 compared on its low half only.
import type { BrokenCase } from "./case.js";
import { imm, s, v } from "./case.js";
import { waterfall } from "./waterfall.js";

void imm;
void s;
export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx942",
  spec: { form: { op: "match", mode: "any", type: "b64", dest: "d" }, kinds: { a: v, membermask: s }, guarded: false },
  profile: "isa",
  why: ".b64 compared on its low half only",
  expect: { kind: "value", what: "Value mismatch: d in lane" },
  rule: {
    name: "match_any_b64_low_half",
    prio: 0,
    why: "broken on purpose: " + ".b64 compared on its low half only",
    when: () => true,
    emit: (f, m) => waterfall(f as never, m, { lowHalf: true }),
  },
};
