// gfx942 szext.wrap with b uniform, without the entry wait: by the contract s0 may have been
// written by a VALU (v_readfirstlane, say) in the instruction just before the routine, and
// v_bfe reads it at once; MI300 needs 2 wait states.
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { s, v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx942",
  spec: { form: { op: "szext", mode: "wrap", type: "s32" }, kinds: { a: v, b: s }, guarded: false },
  profile: "isa",
  why: "reads the uniform b at the first instruction though a VALU may have written it just before (entry boundary)",
  expect: { kind: "hazard", rule: "valu-reads-valu-sgpr", producer: "before the routine", consumer: "v_bfe_i32 v0, v0, 0, s0" },
  rule: {
    name: "szext_wrap_no_entry_wait",
    prio: 0,
    why: "broken on purpose: " + "reads the uniform b at the first instruction though a VALU may have written it just before (entry boundary)",
    waits: "as-emitted",
    when: () => true,
    emit: (_f, m) => {
      m.emit("v_bfe_i32", m.d(), m.src("a"), imm(0), m.src("b"));
      m.emit("s_nop", imm(1));
    },
  },
};
