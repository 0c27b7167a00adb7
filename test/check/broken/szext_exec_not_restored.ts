// Runs the body with every lane on and forgets to restore exec: inactive lanes of d change.
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx900",
  spec: { form: { op: "szext", mode: "wrap", type: "u32" }, kinds: { a: v, b: v }, guarded: false },
  profile: "isa",
  why: "sets exec to all lanes and never restores it",
  expect: { kind: "contract", what: "exec is not restored" },
  rule: {
    name: "szext_wrap_all_lanes",
    prio: 0,
    why: "broken on purpose: " + "sets exec to all lanes and never restores it",
    when: () => true,
    emit: (_f, m) => {
      m.emit(m.w("s_mov"), m.exec(), imm(-1));
      m.emit("v_bfe_u32", m.d(), m.src("a"), imm(0), m.src("b"));
    },
  },
};
