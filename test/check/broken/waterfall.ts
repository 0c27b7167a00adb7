/**
 * @fileoverview A match.any waterfall (as targets/amdgpu/rules/match_sync.ts emits it) with
 * switches for the plausible mistakes the broken cases exercise. Not a case itself.
 */
import type { MatchForm } from "../../../src/ir/forms.js";
import type { MOp } from "../../../targets/amdgpu/minst.js";
import { imm, s } from "../../../targets/amdgpu/minst.js";
import type { Builder } from "../../../targets/amdgpu/routine.js";

export interface WaterfallBugs {
  /** Skip the final `& membermask`. */
  ignoreMask?: boolean;
  /** Compare only the low 16 bits of a. */
  low16?: boolean;
  /** .b64: compare only the low halves. */
  lowHalf?: boolean;
  /** Loop only while two or more lanes remain (the last round is skipped). */
  oneShort?: boolean;
  /** Use the wave64 (_b64) mask instructions whatever the wave size. */
  wave64Ops?: boolean;
  /** Set exec to every lane after the loop instead of restoring the saved mask. */
  noRestore?: boolean;
}

const lo = (o: MOp): MOp => (o.k === "s" ? s(o.n) : o.k === "vcc" ? { k: "vcc_lo" } : o);

export function waterfall(f: MatchForm, m: Builder, bugs: WaterfallBugs = {}): void {
  const w64 = bugs.wave64Ops ?? false;
  const W = <B extends string>(base: B) => (w64 ? (`${base}_b64` as const) : m.w(base));
  const exec: MOp = w64 ? { k: "exec" } : m.exec();
  const sv = w64 ? m.stmp(2) : m.mask();
  const t = m.vtmp();
  let a = m.src("a");
  if (bugs.low16) {
    const a16 = m.vtmp();
    m.emit("v_and_b32", a16, imm(0xffff), a);
    a = a16;
  }
  const wide = f.type === "b64" && !bugs.lowHalf;
  const first = wide ? m.stmp(2) : m.stmp();
  const k = w64 ? m.stmp(2) : m.mask();
  m.emit(W("s_mov"), sv, exec);
  const loop = m.newLabel();
  m.place(loop);
  const aLo: MOp = a.k === "v" ? { k: "v", n: a.n, count: 1 } : a;
  m.emit("v_readfirstlane_b32", s((first as { n: number }).n), aLo);
  if (wide) m.emit("v_readfirstlane_b32", s((first as { n: number }).n + 1), { k: "v", n: (a as { n: number }).n + 1, count: 1 });
  m.emit(wide ? "v_cmp_eq_u64" : "v_cmp_eq_u32", k, first, wide ? a : aLo);
  m.emit("v_mov_b32", t, lo(k));
  m.emit(W("s_andn2"), exec, exec, k);
  if (bugs.oneShort) {
    // "More than one lane left?": exec & (exec - 1) != 0 — one round too few.
    const st = m.stmp();
    m.emit("s_sub_u32", st, { k: "exec_lo" }, imm(1));
    m.emit("s_and_b32", st, st, { k: "exec_lo" });
  }
  m.emit("s_cbranch_scc1", { k: "label", name: loop });
  if (bugs.noRestore) m.emit(W("s_mov"), exec, imm(-1));
  else m.emit(W("s_mov"), exec, sv);
  if (bugs.ignoreMask) m.emit("v_mov_b32", m.d(), t);
  else m.emit("v_and_b32", m.d(), m.src("membermask"), t);
}
