// match.any waterfall, broken: after the loop exec is set to every lane instead of the saved
// mask. d is right in every lane that executes; exec, and d in the lanes that do not, change.
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
  why: "exec is set to every lane after the loop, not restored",
  expect: { kind: "contract", what: "exec is not restored" },
  rule: {
    name: "match_any_exec_not_restored",
    prio: 0,
    why: "broken on purpose: " + "exec is left empty after the loop",
    when: () => true,
    emit: (f, m) => waterfall(f as never, m, { noRestore: true }),
  },
};
