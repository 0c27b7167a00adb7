// vset.s32.u32.lt: a is signed, b unsigned, compared as .s33 values. Mapping each to an unsigned
// key without the +1 (max(a, -1) and min(b, 2^31)) leaves a = -1 as 0xffffffff, the largest
// unsigned key: -1 < 0 comes out false.
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx90a",
  spec: {
    form: { op: "vset", cmp: "lt", dtype: "u32", atype: "s32", btype: "u32", sat: false, asel: null, bsel: null, tail: { kind: "none" } },
    kinds: { a: v, b: v },
    guarded: false,
  },
  profile: "isa",
  why: "the signed operand's unsigned key drops the +1, so a negative a maps to 0xffffffff (the ISA compares .s33 values: -1 < 0)",
  expect: { kind: "value" },
  rule: {
    name: "vset_mixed_key_no_increment",
    prio: 0,
    why: "broken on purpose: " + "the signed operand's unsigned key drops the +1",
    when: () => true,
    emit: (_f, m) => {
      const ka = m.vtmp();
      const kb = m.vtmp();
      m.emit("v_max_i32", ka, imm(-1), m.src("a"));
      m.emit("v_min_u32", kb, imm(0x80000000), m.src("b"));
      m.emit("v_cmp_lt_u32", m.vcc(), ka, kb);
      m.emit("v_cndmask_b32", m.d(), imm(0), imm(1), m.vcc());
    },
  },
};
