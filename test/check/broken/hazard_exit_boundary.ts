// gfx900 szext.wrap ending with the VALU write of d: by the contract the next instruction may
// read v0 by DPP, which needs 2 wait states after a VGPR write on gfx9 (LLVM checkDPPHazards).
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx900",
  spec: { form: { op: "szext", mode: "wrap", type: "u32" }, kinds: { a: v, b: v }, guarded: false },
  profile: "isa",
  why: "ends right after writing d, which the next instruction may read by DPP (exit boundary)",
  expect: { kind: "hazard", rule: "dpp-reads-vgpr", producer: "v_bfe_u32 v0, v0, 0, v1", consumer: "next: a DPP instruction reads v0" },
  rule: {
    name: "szext_wrap_no_exit_wait",
    prio: 0,
    why: "broken on purpose: " + "ends right after writing d, which the next instruction may read by DPP (exit boundary)",
    waits: "as-emitted",
    when: () => true,
    emit: (_f, m) => m.emit("v_bfe_u32", m.d(), m.src("a"), imm(0), m.src("b")),
  },
};
