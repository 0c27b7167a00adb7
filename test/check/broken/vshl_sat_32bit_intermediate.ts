// vshl.u32.u32.u32.sat.clamp computed in 32 bits: the bits shifted out are lost, so the
// saturation never sees 2^32 (the ISA's intermediate is .s34).
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx90a",
  spec: {
    form: { op: "vshl", dtype: "u32", atype: "u32", sat: true, mode: "clamp", asel: null, bsel: null, tail: { kind: "none" } },
    kinds: { a: v, b: v },
    guarded: false,
  },
  profile: "isa",
  why: "a 32-bit instead of a 34-bit intermediate: .sat cannot see the overflow",
  expect: { kind: "value" },
  rule: {
    name: "vshl_sat_clamp_32bit",
    prio: 0,
    why: "broken on purpose: " + "a 32-bit instead of a 34-bit intermediate: .sat cannot see the overflow",
    when: () => true,
    emit: (_f, m) => {
      const t = m.vtmp();
      m.emit("v_lshlrev_b32", t, m.src("b"), m.src("a"));
      m.emit("v_cmp_lt_u32", m.vcc(), imm(31), m.src("b"));
      m.emit("v_cndmask_b32", m.d(), t, imm(0), m.vcc());
    },
  },
};
