/**
 * @fileoverview A gfx942 match.any waterfall with its waits placed by hand (`waits:
 * "as-emitted"`), for the hazard cases of the broken corpus. Not a case itself.
 */
import { imm, s } from "../../../targets/amdgpu/minst.js";
import type { Builder } from "../../../targets/amdgpu/routine.js";

/**
 * Every wait in place except: `noReadfirstlaneWait` drops the s_nop between v_readfirstlane
 * and the v_cmp that reads its SGPR; `rotated` reads the next round's value at the end of the
 * loop body instead, so the v_cmp at the loop head reads it across the back-edge.
 */
export function hazardWaterfall(m: Builder, bug: "noReadfirstlaneWait" | "rotated"): void {
  const sv = m.mask();
  const t = m.vtmp();
  const first = m.stmp();
  const k = m.mask();
  m.emit("s_mov_b64", sv, m.exec());
  if (bug === "rotated") {
    m.emit("v_readfirstlane_b32", first, m.src("a"));
    m.emit("s_nop", imm(1));
  }
  const loop = m.newLabel();
  m.place(loop);
  if (bug === "noReadfirstlaneWait") m.emit("v_readfirstlane_b32", first, m.src("a"));
  m.emit("v_cmp_eq_u32", k, first, m.src("a"));
  m.emit("s_nop", imm(1));
  m.emit("v_mov_b32", t, s((k as { n: number }).n));
  m.emit("s_andn2_b64", m.exec(), m.exec(), k);
  // The next round's value (exec already narrowed; v_readfirstlane leaves SCC alone).
  if (bug === "rotated") m.emit("v_readfirstlane_b32", first, m.src("a"));
  m.emit("s_cbranch_scc1", { k: "label", name: loop });
  m.emit("s_mov_b64", m.exec(), sv);
  m.emit("v_and_b32", m.d(), m.src("membermask"), t);
  m.emit("s_nop", imm(1));
}
