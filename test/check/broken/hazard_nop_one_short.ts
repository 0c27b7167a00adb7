// gfx942 szext.clamp with the select one wait state too early: v_cmp writes vcc, v_cndmask
// reads it as its lane mask 1 wait state later; MI300 needs 2 (LLVM checkVALUHazards).
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx942",
  spec: { form: { op: "szext", mode: "clamp", type: "s32" }, kinds: { a: v, b: v }, guarded: false },
  profile: "isa",
  why: "s_nop 0 between v_cmp (writes vcc) and v_cndmask (reads it): one wait state short on gfx942",
  expect: { kind: "hazard", rule: "valu-reads-valu-sgpr", producer: "v_cmp_lt_u32_e32 vcc, 31, v1", consumer: "v_cndmask_b32_e32 v0, v2, v0, vcc" },
  rule: {
    name: "szext_clamp_nop_one_short",
    prio: 0,
    why: "broken on purpose: " + "s_nop 0 between v_cmp (writes vcc) and v_cndmask (reads it): one wait state short on gfx942",
    waits: "as-emitted",
    when: () => true,
    emit: (_f, m) => {
      const t = m.vtmp();
      m.emit("v_bfe_i32", t, m.src("a"), imm(0), m.src("b"));
      m.emit("v_cmp_lt_u32", m.vcc(), imm(31), m.src("b"));
      m.emit("s_nop", imm(0));
      m.emit("v_cndmask_b32", m.d(), t, m.src("a"), m.vcc());
      m.emit("s_nop", imm(1));
    },
  },
};
