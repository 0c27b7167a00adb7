/**
 * @fileoverview `szext` → AMDGPU. Why these are right, in one line each below; the full
 * argument is ../shared/notes/amdgpu.md §10.1: PTX gives 0 for N = 0 and wraps N mod 32
 * under `.wrap`, which is exactly v_bfe's `S2[4:0]` width masking plus "width 0 → 0"; only
 * `.clamp` with b ≥ 32 (result = a) needs a select.
 */
import type { SzextForm } from "../../../src/ir/forms.js";
import { szext } from "../../../src/sem/szext.js";
import { concrete } from "../../../src/sem/bv.js";
import { imm } from "../minst.js";
import type { AmdRule } from "./rule.js";

const bfe = (f: SzextForm) => (f.type === "s32" ? "v_bfe_i32" : "v_bfe_u32");
const sbfe = (f: SzextForm) => (f.type === "s32" ? "s_bfe_i32" : "s_bfe_u32");

/** N for an immediate b: b & 31 (wrap) or min(b, 32) (clamp). */
function immN(f: SzextForm, b: bigint): number {
  return f.mode === "wrap" ? Number(b & 31n) : b >= 32n ? 32 : Number(b);
}

export const szextRules: AmdRule<SzextForm>[] = [
  {
    name: "szext_const_fold",
    prio: 10,
    why: "Both operands immediate: d is a constant. It is computed by the reference semantics (src/sem/szext.ts, as ptxas folds it), so it is right by construction, and one v_mov beats any computation.",
    when: (_f, c) => c.spec.kinds.a?.kind === "imm" && c.spec.kinds.b?.kind === "imm",
    emit: (f, m) => {
      const a = m.immOf("a")!;
      const b = m.immOf("b")!;
      const d = szext(concrete, f, concrete.k(a, 32), concrete.k(b, 32)).value.x;
      m.emit("v_mov_b32", m.d(), imm(d));
    },
  },
  {
    name: "szext_imm_zero",
    prio: 5,
    why: "An immediate b with N = 0 (b & 31 = 0 under .wrap, b = 0 under .clamp): PTX gives 0 for N = 0 in both modes, so d is the constant 0 whatever a is.",
    when: (f, c) => c.spec.kinds.b?.kind === "imm" && immN(f, c.spec.kinds.b.value) === 0,
    emit: (_f, m) => m.emit("v_mov_b32", m.d(), imm(0)),
  },
  {
    name: "szext_imm_keep",
    prio: 5,
    why: ".clamp with an immediate b ≥ 32: N = 32 keeps a unchanged, so d is a copy of a (nothing at all when a already sits in v0, the contract's d).",
    when: (f, c) => f.mode === "clamp" && c.spec.kinds.b?.kind === "imm" && c.spec.kinds.b.value >= 32n,
    emit: (_f, m) => {
      const a = m.src("a");
      if (!(a.k === "v" && a.n === 0)) m.emit("v_mov_b32", m.d(), a);
    },
  },
  {
    name: "szext_imm_bfe",
    prio: 4,
    why: "An immediate b with 1 ≤ N ≤ 31: the low N bits of a, sign- or zero-extended, are exactly v_bfe_{i,u}32 with offset 0 and width N (both inline constants): one instruction.",
    when: (f, c) => c.spec.kinds.b?.kind === "imm" && immN(f, c.spec.kinds.b.value) % 32 !== 0,
    emit: (f, m) => m.emit(bfe(f), m.d(), m.src("a"), imm(0), imm(immN(f, m.immOf("b")!))),
  },
  {
    name: "szext_wrap_bfe",
    prio: 0,
    why: ".wrap with a register b: N = b & 31, and v_bfe_* masks its width operand to S2[4:0] in the same way, with width 0 giving 0 as PTX does for N = 0 (amdgpu.md §10.1). One instruction for every b.",
    //   v_bfe_{i,u}32  d, a, 0, b
    when: (f) => f.mode === "wrap",
    emit: (f, m) => m.emit(bfe(f), m.d(), m.src("a"), imm(0), m.src("b")),
  },
  {
    name: "szext_clamp_bfe_cndmask",
    prio: 0,
    why: ".clamp with a register b: v_bfe alone would use width b & 31, which is wrong only for b ≥ 32, where PTX keeps a whole; one compare (31 < b) and a select restore a there. The general .clamp lowering, 3 instructions.",
    //   v_bfe_{i,u}32   t, a, 0, b
    //   v_cmp_lt_u32    vcc, 31, b        ; 31 < b  ⇔  b ≥ 32
    //   v_cndmask_b32   d, t, a, vcc      ; vcc ? a : t   (d may alias a: written last)
    when: (f) => f.mode === "clamp",
    // On gfx9 a uniform or literal a is read twice against one constant-bus slot (the
    // select also reads vcc): it is copied to a VGPR once.
    emit: (f, m) => {
      const a = m.t.gen === 9 && m.kind("a") !== "v" ? m.vgprOf("a") : m.src("a");
      const t = m.vtmp();
      m.emit(bfe(f), t, a, imm(0), m.src("b"));
      m.emit("v_cmp_lt_u32", m.vcc(), imm(31), m.src("b"));
      m.emit("v_cndmask_b32", m.d(), t, a, m.vcc());
    },
  },
  {
    name: "szext_wrap_salu_bfe",
    prio: -1,
    why: ".wrap with a and b both uniform: the whole computation can run once on the SALU. s_bfe takes the width in S1[22:16]; b & 31 shifted there keeps the width below 32, where the manual defines s_bfe. Wins where the SALU sequence is cheaper than the VALU one (it rarely is: kept as a checked alternative).",
    //   s_and_b32   w, b, 31
    //   s_lshl_b32  w, w, 16
    //   s_bfe_*32   t, a, w
    //   v_mov_b32   d, t
    when: (f, c) => f.mode === "wrap" && c.spec.kinds.a?.kind === "s" && c.spec.kinds.b?.kind === "s",
    emit: (f, m) => {
      const w = m.stmp();
      const t = m.stmp();
      m.emit("s_and_b32", w, m.src("b"), imm(31));
      m.emit("s_lshl_b32", w, w, imm(16));
      m.emit(sbfe(f), t, m.src("a"), w);
      m.emit("v_mov_b32", m.d(), t);
    },
  },
  {
    name: "szext_clamp_salu_bfe_cselect",
    prio: -1,
    why: ".clamp with a and b uniform: s_bfe with width b in S1[22:16], then s_cselect keeps a when b ≥ 32. The s_bfe result for b ≥ 32 (width ≥ 32, unspecified by the manual) is discarded by the select, so it never reaches d.",
    //   s_lshl_b32    w, b, 16
    //   s_bfe_*32     t, a, w
    //   s_cmp_lt_u32  b, 32
    //   s_cselect_b32 t, t, a
    //   v_mov_b32     d, t
    when: (f, c) => f.mode === "clamp" && c.spec.kinds.a?.kind === "s" && c.spec.kinds.b?.kind === "s",
    emit: (f, m) => {
      const w = m.stmp();
      const t = m.stmp();
      m.emit("s_lshl_b32", w, m.src("b"), imm(16));
      m.emit(sbfe(f), t, m.src("a"), w);
      m.emit("s_cmp_lt_u32", m.src("b"), imm(32));
      m.emit("s_cselect_b32", t, t, m.src("a"));
      m.emit("v_mov_b32", m.d(), t);
    },
  },
  {
    name: "szext_imm_salu_sext",
    prio: -1,
    why: ".s32 with a uniform a and an immediate N of 8 or 16: exactly s_sext_i32_i8 / s_sext_i32_i16, one SALU instruction and the copy into v0.",
    when: (f, c) =>
      f.type === "s32" && c.spec.kinds.a?.kind === "s" && c.spec.kinds.b?.kind === "imm" && [8, 16].includes(immN(f, c.spec.kinds.b.value)),
    emit: (f, m) => {
      const t = m.stmp();
      m.emit(immN(f, m.immOf("b")!) === 8 ? "s_sext_i32_i8" : "s_sext_i32_i16", t, m.src("a"));
      m.emit("v_mov_b32", m.d(), t);
    },
  },
];
