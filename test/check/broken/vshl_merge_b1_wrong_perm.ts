// The d.b1 merge with v_perm_b32's selector for d.b2 (0x07000504 instead of 0x07060004):
// the shifted byte lands in byte 2 and byte 1 keeps c's.
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx1100",
  spec: {
    form: { op: "vshl", dtype: "u32", atype: "u32", sat: false, mode: "wrap", asel: null, bsel: null, tail: { kind: "merge", dsel: "b1" } },
    kinds: { a: v, b: v, c: v },
    guarded: false,
  },
  profile: "isa",
  why: "v_perm_b32 selector 0x07000504 merges into byte 2, not byte 1",
  expect: { kind: "value" },
  rule: {
    name: "vshl_wrap_merge_b1_perm_b2",
    prio: 0,
    why: "broken on purpose: " + "v_perm_b32 selector 0x07000504 merges into byte 2, not byte 1",
    when: () => true,
    emit: (_f, m) => {
      const t = m.vtmp();
      m.emit("v_lshlrev_b32", t, m.src("b"), m.src("a"));
      m.emit("v_perm_b32", m.d(), m.src("c"), t, imm(0x07000504));
    },
  },
};
