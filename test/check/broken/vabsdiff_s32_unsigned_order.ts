// vabsdiff.u32.s32.s32 d, a.b0, b.b0 as max - min of the bytes ordered unsigned: the bytes are
// signed (atype/btype .s32), so |(-1) - 1| = 2 comes out |0xff - 1| = 254.
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx900",
  spec: {
    form: { op: "vabsdiff", cmp: null, dtype: "u32", atype: "s32", btype: "s32", sat: false, asel: "b0", bsel: "b0", tail: { kind: "none" } },
    kinds: { a: v, b: v },
    guarded: false,
  },
  profile: "isa",
  why: "signed byte selectors zero-extended (v_bfe_u32): the difference of the wrong values",
  expect: { kind: "value" },
  rule: {
    name: "vabsdiff_b0_zero_extended",
    prio: 0,
    why: "broken on purpose: " + "signed byte selectors zero-extended (v_bfe_u32): the difference of the wrong values",
    when: () => true,
    emit: (_f, m) => {
      const x = m.vtmp();
      const y = m.vtmp();
      const hi = m.vtmp();
      const lo = m.vtmp();
      m.emit("v_bfe_u32", x, m.src("a"), imm(0), imm(8));
      m.emit("v_bfe_u32", y, m.src("b"), imm(0), imm(8));
      m.emit("v_max_u32", hi, x, y);
      m.emit("v_min_u32", lo, x, y);
      m.emit("v_sub_u32", m.d(), hi, lo);
    },
  },
};
