// match.all with a uniform membermask, as first sketched (amdgpu.md §10.3 before its
// correction): the ballot is compared with the membermask itself, so a member lane that has
// exited (it is not in exec, so its ballot bit is 0) makes p false — PTX drops exited lanes.
import { imm, s as sreg } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { s, v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx1100",
  spec: { form: { op: "match", mode: "all", type: "b32", dest: "d|p" }, kinds: { a: v, membermask: s }, guarded: false },
  profile: "isa",
  why: "compares the ballot with the membermask, not with the executing members",
  expect: { kind: "value", what: "Value mismatch: d in lane" },
  rule: {
    name: "match_all_ballot_vs_membermask",
    prio: 0,
    why: "broken on purpose: " + "compares the ballot with the membermask, not with the executing members",
    when: () => true,
    emit: (_f, m) => {
      const mm = m.src("membermask");
      const lane = m.stmp();
      const val = m.stmp();
      const e = m.stmp();
      const d = m.stmp();
      m.emit("s_ff1_i32_b32", lane, mm);
      m.emit("v_readlane_b32", val, m.src("a"), lane);
      m.emit("v_cmp_eq_u32", e, val, m.src("a"));
      m.emit("s_and_b32", e, e, mm);
      m.emit("s_cmp_eq_u32", e, mm);
      m.emit("s_cselect_b32", { k: "vcc_lo" }, { k: "exec_lo" }, imm(0));
      m.emit("s_cselect_b32", d, mm, imm(0));
      m.emit("v_mov_b32", m.d(), d);
      void sreg;
    },
  },
};
