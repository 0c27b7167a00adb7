/**
 * @fileoverview `redux.sync.{min,max}{.abs}{.NaN}.f32` (sm_100a; PTX ISA §9.7.13.12;
 * src/sem/warp.ts `reduceF32`) → AMDGPU, on integer keys, with no floating-point instruction.
 *
 * The reference orders IEEE-754 bit patterns by the total-order key (negative: every bit
 * inverted; positive: the sign bit set), so −0 < +0 and subnormals compare as the numbers
 * they are; NaNs never enter the comparison; `.abs` reduces |x| (x & 0x7fffffff) and returns
 * it; without `.NaN` NaN members are skipped and a reduction over NaNs alone is the
 * canonical NaN 0x7fffffff; with `.NaN` any NaN member gives 0x7fffffff.
 *
 * Why not v_min_f32 / v_max_f32 (the five processors have no v_minimum_f32 / v_min_num_f32,
 * which are gfx12): their meaning depends on the MODE register, which a routine does not
 * own, and differs from PTX's at three points:
 *   - ±0: they are IEEE 754-2008 minNum/maxNum, for which −0 and +0 are equal and either may
 *     come back (LLVM's FMINNUM / FMINNUM_IEEE, which select to them, say so: "The return
 *     value of (FMINNUM 0.0, -0.0) could be either 0.0 or -0.0"); PTX wants −0 < +0.
 *   - subnormals: from gfx9 on, min/max flush input and output denormals per MODE.FP_DENORM
 *     (LLVM D35335, `supportsMinMaxDenormModes()`: GFX9+), and compute kernels may run with
 *     f32 denormals flushed; PTX keeps them (no `.ftz`).
 *   - NaN: with MODE.IEEE = 1 a signalling NaN is quieted and returned (IEEE 754-2008's
 *     minNum), with IEEE = 0 the non-NaN operand (LLVM SIModeRegisterDefaults.h: "Floating
 *     point opcodes that support exception flag gathering quiet and propagate signaling NaN
 *     inputs per IEEE 754-2008"); either way the NaN that comes back is the operand's payload
 *     or AMD's 0x7fc00000, never PTX's 0x7fffffff, and `.NaN` (propagate) is no mode at all.
 * Each would need a compare fix-up per member; the key makes the whole order one unsigned
 * integer min/max, exact in every mode.
 *
 * The sequence: a VALU prologue in every executing lane, N = the lanes whose |a| is a NaN
 * (0x7f800000 <u |a|, by v_cmp into a lane mask), key = |a| | 0x80000000 (`.abs`) or
 * a ^ ((a >>s 31) | 0x80000000); the members that are numbers M' = M & ~N; the integer
 * s_min_u32 / s_max_u32 fold of key over M' (redux.ts `foldLoop`, identity 0xffffffff / 0);
 * the key decoded (acc ^ (~(acc >>s 31) | 0x80000000); `.abs`: acc & 0x7fffffff); then the
 * canonical NaN where M' is empty (no `.NaN`) or M ∩ N is not (`.NaN`; M empty leaves every
 * lane undefined, W1). A uniform `a` (SGPR / immediate) is its own reduction: |a| or a, the
 * canonical NaN when |a| is a NaN (both readings: every member is that NaN).
 */
import type { ReduxForm } from "../../../src/ir/warp_forms.js";
import type { MOp } from "../minst.js";
import { imm } from "../minst.js";
import type { Builder } from "../routine.js";
import { lo } from "./match_sync.js";
import { foldLoop } from "./redux.js";
import { foldTree, loopCost } from "./redux_tree.js";
import type { AmdRule } from "./rule.js";
import type { BodyResult } from "./warp_common.js";
import { divergentMask, uniformRoutine, waterfallRoutine } from "./warp_common.js";

type F32Redux = Extract<ReduxForm, { type: "f32" }>;

const MAGNITUDE = 0x7fffffff;
const SIGN = -0x80000000;
const INF = 0x7f800000;
/** PTX's canonical NaN (src/sem/warp.ts CANONICAL_NAN; warp-semantics.md §5). */
const CANONICAL_NAN = 0x7fffffff;

const isF32 = (f: ReduxForm): f is F32Redux => f.type === "f32";

/** The per-lane keys and NaN lanes of a divergent `a` (file comment), computed in every executing lane. */
interface Keys {
  key: MOp;
  nan: MOp;
}

/** The VALU prologue: N (a lane mask) and the total-order key of (|)a(|) per lane. */
function keysOf(f: F32Redux, m: Builder): Keys {
  const a = m.src("a");
  const mag = m.vtmp();
  m.emit("v_and_b32", mag, imm(MAGNITUDE), a);
  const nan = m.mask();
  m.emit("v_cmp_lt_u32", nan, imm(INF), mag);
  if (f.abs) {
    m.emit("v_or_b32", mag, imm(SIGN), mag);
    return { key: mag, nan };
  }
  const t = m.vtmp();
  m.emit("v_ashrrev_i32", t, imm(31), a);
  m.emit("v_or_b32", t, imm(SIGN), t);
  m.emit("v_xor_b32", t, a, t);
  return { key: t, nan };
}

/** A fold of the keys over the number members: the loop (redux.ts) or the DPP tree (redux_tree.ts). */
type Fold = typeof foldLoop;

/** The reduction over the members M of a divergent `a` (its keys `k`). */
function keyBody(f: F32Redux, m: Builder, k: Keys, M: MOp, fold: Fold): BodyResult {
  const Mn = m.stmp();
  m.emit("s_andn2_b32", Mn, M, lo(k.nan));
  const acc = f.reduxOp === "min" ? fold(m, Mn, "s_min_u32", 0xffffffffn, k.key) : fold(m, Mn, "s_max_u32", 0n, k.key);
  const r = m.stmp();
  if (f.abs) m.emit("s_and_b32", r, acc, imm(MAGNITUDE));
  else {
    const t = m.stmp();
    m.emit("s_ashr_i32", t, acc, imm(31));
    m.emit("s_not_b32", t, t);
    m.emit("s_or_b32", t, t, imm(SIGN));
    m.emit("s_xor_b32", r, acc, t);
  }
  if (f.NaN) {
    const t = m.stmp();
    m.emit("s_and_b32", t, M, lo(k.nan)); // SCC = a member is a NaN
  } else m.emit("s_cmp_eq_u32", Mn, imm(0)); // SCC = no member is a number
  m.emit("s_cselect_b32", r, imm(CANONICAL_NAN), r);
  return { value: r };
}

/** A uniform `a`: its own reduction (file comment); M is not read. */
function uniformBody(f: F32Redux, m: Builder): BodyResult {
  let a = m.src("a");
  if (a.k === "imm") {
    const x = m.stmp();
    m.emit("s_mov_b32", x, a);
    a = x;
  }
  const mag = m.stmp();
  m.emit("s_and_b32", mag, a, imm(MAGNITUDE));
  m.emit("s_cmp_gt_u32", mag, imm(INF));
  const r = m.stmp();
  m.emit("s_cselect_b32", r, imm(CANONICAL_NAN), f.abs ? mag : a);
  return { value: r };
}

/** The body of either rule: the keyed fold for a divergent `a` (prologue emitted once, before the members), else the uniform value. */
function bodyOf(f: F32Redux, m: Builder, fold: Fold = foldLoop): (M: MOp) => BodyResult {
  if (m.kind("a") !== "v") return () => uniformBody(f, m);
  const k = keysOf(f, m);
  return (M) => keyBody(f, m, k, M, fold);
}

export const reduxF32Rules: AmdRule<ReduxForm>[] = [
  {
    name: "redux_f32_uniform_mask_key_loop",
    prio: 0,
    why: "redux .f32 min/max, uniform membermask: total-order integer keys (file comment: v_min/max_f32 differ from PTX on ±0, subnormals and NaN and depend on MODE), the NaN lanes dropped from M = exec_lo ∩ mask (∩ guard), the s_ff1/v_readlane s_min/max_u32 loop over the number members, the key decoded, the canonical NaN by s_cselect. Measured (test/warp_amdgpu.test.ts, random warps with full, partial and sparse masks, a divergent / uniform / immediate): static 22 instructions on gfx10/gfx11, 25 on gfx9 (literal moves and boundary waits); dynamic 4–208 cycles, mean 41.9, on gfx10/gfx11 and 6–211, mean 44.3, on gfx9 unguarded (about 6 a number member, as the integer loop, plus 12 for the keys and the fix-up); guarded 17–209 / 21–213.",
    when: (f, c) => isF32(f) && !divergentMask(f, c),
    emit: (f, m, c) => {
      const body = bodyOf(f as F32Redux, m);
      uniformRoutine(f, m, c, body);
    },
    cost: (f, c, n) => (c.spec.kinds.a?.kind === "v" ? loopCost(f, c, n) : n),
  },
  {
    name: "redux_f32_uniform_mask_key_dpp_tree",
    prio: 0,
    why: "redux .f32 min/max, uniform membermask, a divergent: the same keys, NaN lanes and fix-up as the loop rule, the keys folded by the DPP butterfly of redux_tree.ts (v_min/max_u32_dpp; non-number members and holes the identity). Loop-free; measured static 28 / dynamic 22–28 (mean 25.2) cycles on gfx10/gfx11, static 38 / dynamic 32–38 (mean 35.2) on gfx9, guarded +1–2, against the loop's mean 41.9 / 44.3 over the same warps (the loop's figures include uniform a); chosen over the loop as the integer tree is (redux.ts).",
    when: (f, c) => isF32(f) && !divergentMask(f, c) && c.spec.kinds.a?.kind !== "s" && c.spec.kinds.a?.kind !== "imm",
    emit: (f, m, c) => uniformRoutine(f, m, c, bodyOf(f as F32Redux, m, foldTree)),
  },
  {
    name: "redux_f32_divergent_mask_waterfall",
    prio: 0,
    why: "redux .f32 min/max, per-lane membermask: the keys and NaN lanes once in all of exec, then the waterfall over the membermask's distinct values (warp_common.ts), the keyed loop per round on M = value ∩ E. Measured: static 30 (gfx10/gfx11) / 33 (gfx9); dynamic 13–3651 cycles, mean 177, gfx10/gfx11 and 15–3654, mean 179, gfx9 (k distinct membermask values up to 32, each a keyed loop).",
    when: (f, c) => isF32(f) && divergentMask(f, c),
    emit: (f, m) => {
      const body = bodyOf(f as F32Redux, m);
      waterfallRoutine(m, body);
    },
    cost: loopCost,
  },
];
