// The first match.all sketch (amdgpu.md §10.3 before its correction) on wave64: the first
// member's value is compared in every lane, the low half of the ballot is and-ed with the
// membermask and compared with it, d = membermask or 0, vcc_lo = -1 or 0 (vcc_hi never
// written). match_all_vs_membermask.ts is the wave32 variant. Moved here from
// test/match_amdgpu.test.ts.
import { imm } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { s, v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx900",
  spec: { form: { op: "match", mode: "all", type: "b32", dest: "d|p" }, kinds: { a: v, membermask: s }, guarded: false },
  profile: "isa",
  why: "compares the ballot with the membermask, not with the executing members",
  expect: { kind: "value", what: "Value mismatch: " },
  rule: {
    name: "match_all_old_sketch",
    prio: 0,
    why: "broken on purpose: " + "compares the ballot with the membermask, not with the executing members",
    when: () => true,
    emit: (_f, m) => {
      const mm = m.src("membermask");
      const l = m.stmp();
      const x = m.stmp();
      const e = m.mask();
      const mt = m.stmp();
      m.emit("s_mov_b32", mt, mm);
      m.emit("s_ff1_i32_b32", l, mt);
      m.emit("v_readlane_b32", x, m.src("a"), l);
      m.emit("v_cmp_eq_u32", e, x, m.src("a"));
      const elo = e.k === "s" ? { k: "s" as const, n: e.n, count: 1 as const } : e;
      m.emit("s_and_b32", elo, elo, mt);
      m.emit("s_cmp_eq_u32", elo, mt);
      m.emit("s_cselect_b32", elo, mt, imm(0));
      m.emit("s_cselect_b32", { k: "vcc_lo" }, imm(-1), imm(0));
      m.emit("v_mov_b32", m.d(), elo);
    },
  },
};
