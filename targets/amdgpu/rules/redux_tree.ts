/**
 * @fileoverview redux.sync by a DPP butterfly (issue 15 item 3: "redux by a DPP tree or an
 * s_ff1/v_readlane loop, chosen by measured count"): loop-free, the same cost for 1 member
 * or 32.
 *
 * The members M (a uniform lane mask, warp_common.ts) decide who contributes; holes — lanes
 * outside M, exited lanes, lanes 32–63 of a wave64 — contribute the operation's identity:
 *   s_mov      save, exec
 *   s_mov_b32  exec_lo, -1          ; the 32 PTX lanes on (wave64: exec_hi is 0 already)
 *   v_mov_b32  t, identity
 *   s_mov_b32  exec_lo, M
 *   v_mov_b32  t, a                 ; members only
 *   s_mov_b32  exec_lo, -1
 *   4 × t = op(t, t[dpp])           ; quad_perm [1,0,3,2], quad_perm [2,3,0,1],
 *                                   ; row_half_mirror, row_mirror: every lane holds its row's fold
 *   v_readlane x, t, 0 ; v_readlane y, t, 16 ; s_op x, x, y
 *   s_mov      exec, save
 * Each DPP stage combines two disjoint lane sets (lane i with i^1, i^2, then 7−i within its
 * half row, 15−i within its row: the partner always lies in the other half of the group built
 * so far), so add and xor count every member once. All 32 lanes are on while DPP reads, so
 * every source is valid and bound_ctrl (clear) never applies; fi is 0 (the sources are active).
 * add / min / max have DPP forms of their VALU op (isa/dpp.ts: v_add_u32 / v_add_nc_u32,
 * v_min/max_u32/_i32); and / or / xor take a v_mov_b32_dpp and the VALU op. The hazard pass
 * pads gfx9's waits (SALU exec write → DPP, VALU VGPR write → DPP read; hazards.md §1).
 */
import type { ReduxForm } from "../../../src/ir/warp_forms.js";
import type { Mnemonic } from "../isa/index.js";
import type { MOp } from "../minst.js";
import { imm } from "../minst.js";
import type { Builder } from "../routine.js";
import { lo } from "./match_sync.js";
import type { RuleCtx } from "./rule.js";
import { EXEC_LO } from "./warp_common.js";

/** quad_perm [1,0,3,2], quad_perm [2,3,0,1], row_half_mirror, row_mirror (DPP_CTRL, isa/dpp.ts). */
const STAGES = [0xb1, 0x4e, 0x141, 0x140] as const;

/** The VALU op of a fold, its DPP form where isa/dpp.ts has one, and the SALU op that joins the two rows. */
export interface TreeOps {
  valu: Mnemonic;
  dpp: Mnemonic | null;
  salu: Mnemonic;
}

/** The ops of an integer or key reduction (`op` of the SALU loop: redux.ts `saluOf`). */
export function treeOps(salu: Mnemonic, gen: 9 | 10 | 11): TreeOps {
  switch (salu) {
    case "s_add_u32":
      return gen === 9 ? { valu: "v_add_u32", dpp: "v_add_u32_dpp", salu } : { valu: "v_add_nc_u32", dpp: "v_add_nc_u32_dpp", salu };
    case "s_min_u32":
      return { valu: "v_min_u32", dpp: "v_min_u32_dpp", salu };
    case "s_max_u32":
      return { valu: "v_max_u32", dpp: "v_max_u32_dpp", salu };
    case "s_min_i32":
      return { valu: "v_min_i32", dpp: "v_min_i32_dpp", salu };
    case "s_max_i32":
      return { valu: "v_max_i32", dpp: "v_max_i32_dpp", salu };
    case "s_and_b32":
      return { valu: "v_and_b32", dpp: null, salu };
    case "s_or_b32":
      return { valu: "v_or_b32", dpp: null, salu };
    case "s_xor_b32":
      return { valu: "v_xor_b32", dpp: null, salu };
    default:
      throw new Error(`redux tree: no tree for ${salu}`);
  }
}

/**
 * The fold of the VGPR `a` over the members M (a 32-bit lane mask operand) by the DPP
 * butterfly (file comment), into a scratch SGPR it returns. exec is restored.
 */
export function foldTree(m: Builder, M: MOp, salu: Mnemonic, identity: bigint, a: MOp): MOp {
  if (a.k !== "v") throw new Error("redux tree: a must be a VGPR");
  const ops = treeOps(salu, m.t.gen);
  const save = m.mask();
  m.emit(m.w("s_mov"), save, m.exec());
  // M may be exec_lo itself (uniformMembers: no membermask to apply): its saved copy then.
  if (M.k === "exec_lo") M = lo(save);
  m.emit("s_mov_b32", EXEC_LO, imm(-1));
  const t = m.vtmp();
  m.emit("v_mov_b32", t, imm(BigInt.asIntN(32, identity)));
  m.emit("s_mov_b32", EXEC_LO, M);
  m.emit("v_mov_b32", t, a);
  m.emit("s_mov_b32", EXEC_LO, imm(-1));
  const u = ops.dpp ? null : m.vtmp();
  for (const ctrl of STAGES) {
    if (ops.dpp) m.emit(ops.dpp, t, t, t, imm(ctrl), imm(15), imm(15), imm(0), imm(0));
    else {
      m.emit("v_mov_b32_dpp", u!, t, imm(ctrl), imm(15), imm(15), imm(0), imm(0));
      m.emit(ops.valu, t, u!, t);
    }
  }
  const x = m.stmp();
  const y = m.stmp();
  m.emit("v_readlane_b32", x, t, imm(0));
  m.emit("v_readlane_b32", y, t, imm(16));
  m.emit(ops.salu, x, x, y);
  m.emit(m.w("s_mov"), m.exec(), save);
  return x;
}

/** Cycles one more member costs the s_ff1/v_readlane loop (measured: 8 cycles for 1 member, 196 for 32, test/warp_amdgpu.test.ts). */
export const LOOP_CYCLES_PER_MEMBER = 6;

/**
 * The members the selection assumes for a uniform membermask: its population count when
 * immediate; 32 for an SGPR (the full warp, `__reduce_*_sync(0xffffffff, …)`, the common
 * case in the real modules) and for forms without a mask.
 */
export function expectedMembers(c: RuleCtx): number {
  const k = c.spec.kinds.membermask;
  if (k?.kind !== "imm") return 32;
  let n = 0;
  for (let x = k.value & 0xffffffffn; x; x &= x - 1n) n++;
  return Math.max(n, 1);
}

/** The loop rules' selection cost: the static count (one trip) plus the measured cycles of the other expected trips. */
export const loopCost = (_f: ReduxForm, c: RuleCtx, staticCount: number): number => staticCount + LOOP_CYCLES_PER_MEMBER * (expectedMembers(c) - 1);
