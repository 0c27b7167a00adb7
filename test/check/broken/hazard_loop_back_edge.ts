// gfx942 match.any waterfall rotated so that the next round's v_readfirstlane ends the loop
// body: every wait inside one pass of the body is there, but on the back-edge the v_cmp at
// the loop head reads s4 one wait state (the s_cbranch) after v_readfirstlane wrote it.
import { imm, s } from "../../../targets/amdgpu/minst.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "amdgpu",
  mcpu: "gfx942",
  spec: { form: { op: "match", mode: "any", type: "b32", dest: "d" }, kinds: { a: v, membermask: v }, guarded: false },
  profile: "isa",
  why: "v_readfirstlane at the end of the loop body, read by the v_cmp at its head across the back-edge with 1 wait state",
  expect: { kind: "hazard", rule: "valu-reads-valu-sgpr", producer: "v_readfirstlane_b32 s2, v0", consumer: "v_cmp_eq_u32_e64 s[4:5], s2, v0" },
  rule: {
    name: "match_any_waterfall_back_edge_hazard",
    prio: 0,
    waits: "as-emitted",
    when: () => true,
    emit: (_f, m) => {
      const sv = m.mask();
      const t = m.vtmp();
      const first = m.stmp();
      const k = m.mask();
      m.emit("s_mov_b64", sv, m.exec());
      m.emit("v_readfirstlane_b32", first, m.src("a"));
      m.emit("s_nop", imm(1));
      const loop = m.newLabel();
      m.place(loop);
      m.emit("v_cmp_eq_u32", k, first, m.src("a"));
      m.emit("s_nop", imm(1));
      m.emit("v_mov_b32", t, s((k as { n: number }).n));
      m.emit("s_andn2_b64", m.exec(), m.exec(), k);
      // The next round's value (exec already narrowed; readfirstlane leaves SCC alone).
      m.emit("v_readfirstlane_b32", first, m.src("a"));
      m.emit("s_cbranch_scc1", { k: "label", name: loop });
      m.emit("s_mov_b64", m.exec(), sv);
      m.emit("v_and_b32", m.d(), m.src("membermask"), t);
      m.emit("s_nop", imm(1));
    },
  },
};
