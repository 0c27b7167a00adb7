// vmin.s32.s32.u32: a is signed, b unsigned, and the ISA compares the two .s33 values. One
// v_min_u32 treats a negative a as a huge unsigned number, so min(-1, 5) comes out 5.
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx1100",
  spec: {
    form: { op: "vmin", cmp: null, dtype: "s32", atype: "s32", btype: "u32", sat: false, asel: null, bsel: null, tail: { kind: "none" } },
    kinds: { a: v, b: v },
    guarded: false,
  },
  profile: "isa",
  why: "an unsigned 32-bit compare of a signed a with an unsigned b (the ISA compares .s33 values)",
  expect: { kind: "value" },
  rule: {
    name: "vmin_mixed_min_u32",
    prio: 0,
    why: "broken on purpose: " + "an unsigned 32-bit compare of a signed a with an unsigned b (the ISA compares .s33 values)",
    when: () => true,
    emit: (_f, m) => {
      m.emit("v_min_u32", m.d(), m.src("a"), m.src("b"));
    },
  },
};
