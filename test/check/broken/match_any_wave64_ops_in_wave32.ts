// match.any waterfall, broken: _b64 mask instructions on a wave32 target (exec is 32 bits).
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
  why: "_b64 mask instructions on a wave32 target (exec is 32 bits)",
  expect: { kind: "invalid", what: "operand exec is 32 bits, expected 64" },
  rule: {
    name: "match_any_wave64_ops_in_wave32",
    prio: 0,
    why: "broken on purpose: " + "_b64 mask instructions on a wave32 target (exec is 32 bits)",
    when: () => true,
    emit: (f, m) => waterfall(f as never, m, { wave64Ops: true }),
  },
};
