// vadd.u32.u32.u32.sat as a plain 32-bit add under the isa profile: that is ptxas's sm_90 code
// (S2: no upper clamp), not the ISA's clamp to [0, 2^32 - 1] (0xffffffff + 1 gives 0).
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx942",
  spec: {
    form: { op: "vadd", cmp: null, dtype: "u32", atype: "u32", btype: "u32", sat: true, asel: null, bsel: null, tail: { kind: "none" } },
    kinds: { a: v, b: v },
    guarded: false,
  },
  profile: "isa",
  why: "the sm90 reading (S2, no upper clamp) under the isa profile: the carry out of the sum is lost",
  expect: { kind: "value" },
  rule: {
    name: "vadd_u32_sat_plain_add",
    prio: 0,
    why: "broken on purpose: " + "the sm90 reading (S2, no upper clamp) under the isa profile: the carry out of the sum is lost",
    when: () => true,
    emit: (_f, m) => {
      m.emit("v_add_u32", m.d(), m.src("a"), m.src("b"));
    },
  },
};
