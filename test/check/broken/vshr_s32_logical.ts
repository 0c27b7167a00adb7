// vshr with atype .s32 lowered to a logical shift: the sign bit is not replicated.
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx1030",
  spec: {
    form: { op: "vshr", dtype: "s32", atype: "s32", sat: false, mode: "wrap", asel: null, bsel: null, tail: { kind: "none" } },
    kinds: { a: v, b: v },
    guarded: false,
  },
  profile: "sm90",
  why: "v_lshrrev_b32 (logical) for a signed atype",
  expect: { kind: "value" },
  rule: {
    name: "vshr_wrap_s32_lshrrev",
    prio: 0,
    why: "broken on purpose: " + "v_lshrrev_b32 (logical) for a signed atype",
    when: () => true,
    emit: (_f, m) => m.emit("v_lshrrev_b32", m.d(), m.src("b"), m.src("a")),
  },
};
