// The uniform .wrap path without `s_and_b32 w, b, 31`: b ≥ 32 puts a width ≥ 32 into
// s_bfe's field, where the manual leaves the result unspecified. The AMDGPU model has no poison:
// the unspecified result is a garbage stand-in (targets/amdgpu/isa/sop2.ts), so the refutation
// is a value mismatch at some b ≥ 32.
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { s } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx1100",
  spec: { form: { op: "szext", mode: "wrap", type: "s32" }, kinds: { a: s, b: s }, guarded: false },
  profile: "isa",
  why: "s_bfe width b << 16 without & 31: width ≥ 32 is unspecified",
  expect: { kind: "value" },
  rule: {
    name: "szext_wrap_salu_bfe_unmasked",
    prio: 0,
    why: "broken on purpose: " + "s_bfe width b << 16 without & 31: width ≥ 32 is unspecified",
    when: () => true,
    emit: (_f, m) => {
      const w = m.stmp();
      const t = m.stmp();
      m.emit("s_lshl_b32", w, m.src("b"), imm(16));
      m.emit("s_bfe_i32", t, m.src("a"), w);
      m.emit("v_mov_b32", m.d(), t);
    },
  },
};
