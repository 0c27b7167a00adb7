// vshl .clamp as one v_lshlrev_b32: the hardware uses b[4:0], so b = 32 shifts by 0 and
// returns a where the ISA clamps the amount to 32 and gives 0.
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx900",
  spec: {
    form: { op: "vshl", dtype: "u32", atype: "u32", sat: false, mode: "clamp", asel: null, bsel: null, tail: { kind: "none" } },
    kinds: { a: v, b: v },
    guarded: false,
  },
  profile: "isa",
  why: "v_lshlrev_b32 masks the count to 5 bits; .clamp needs b ≥ 32 → 0",
  expect: { kind: "value" },
  rule: {
    name: "vshl_clamp_lshlrev_only",
    prio: 0,
    why: "broken on purpose: " + "v_lshlrev_b32 masks the count to 5 bits; .clamp needs b ≥ 32 → 0",
    when: () => true,
    emit: (_f, m) => m.emit("v_lshlrev_b32", m.d(), m.src("b"), m.src("a")),
  },
};
