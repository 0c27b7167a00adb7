// match.any waterfall, broken: exec is left empty after the loop.
import type { BrokenCase } from "./case.js";
import { imm, s, v } from "./case.js";
import { waterfall } from "./waterfall.js";

void imm;
void s;
export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx90a",
  spec: { form: { op: "match", mode: "any", type: "b32", dest: "d" }, kinds: { a: v, membermask: imm(0xffffffff) }, guarded: false },
  profile: "isa",
  why: "exec is left empty after the loop",
  rule: {
    name: "match_any_exec_not_restored",
    prio: 0,
    why: "broken on purpose: " + "exec is left empty after the loop",
    when: () => true,
    emit: (f, m) => waterfall(f as never, m, { noRestore: true }),
  },
};
