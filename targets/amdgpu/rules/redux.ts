/**
 * @fileoverview `redux.sync.{add,min,max}.{u32,s32}` / `.{and,or,xor}.b32` → AMDGPU (PTX ISA
 * §9.7.13.12; src/sem/warp.ts `redux`): the reduction of `a` over the members M =
 * membermask ∩ E (warp_common.ts) by an `s_ff1`/`v_readlane` loop: the accumulator starts at
 * the operation's identity, each trip takes the lowest member l (s_ff1), reads a's lane l
 * (v_readlane ignores exec; l executes, being a member of a defined lane), folds it with the
 * SALU op (s_add_u32 is modulo 2^32; s_min/max_u32 / _i32 per `.u32`/`.s32`; s_and/or/xor_b32
 * bitwise — never a logical &&, HIP's redux.and bug), and clears l from M (M & (M − 1), SCC =
 * M ≠ 0). A do-while: an empty M (no defined lane) still ends after one trip. A uniform `a`
 * is folded straight from its SGPR / immediate, once per member (add and xor count members).
 * `.f32` (sm_100a): redux_f32.ts, on integer keys over the same loop (`foldLoop`).
 */
import type { ReduxForm } from "../../../src/ir/warp_forms.js";
import type { Mnemonic } from "../isa/index.js";
import type { MOp } from "../minst.js";
import { imm } from "../minst.js";
import type { Builder } from "../routine.js";
import type { AmdRule } from "./rule.js";
import type { BodyResult } from "./warp_common.js";
import { divergentMask, uniformRoutine, waterfallRoutine } from "./warp_common.js";
import { foldTree, loopCost } from "./redux_tree.js";

type IntRedux = Exclude<ReduxForm, { type: "f32" }>;

/** The SALU op and identity of an integer reduction (identities: warp-semantics.md §9.2, LLVM's getIdentityValueForAtomicOp). */
function saluOf(f: IntRedux): { op: Mnemonic; identity: bigint } {
  switch (f.reduxOp) {
    case "add":
      return { op: "s_add_u32", identity: 0n };
    case "min":
      return f.type === "s32" ? { op: "s_min_i32", identity: 0x7fffffffn } : { op: "s_min_u32", identity: 0xffffffffn };
    case "max":
      return f.type === "s32" ? { op: "s_max_i32", identity: 0x80000000n } : { op: "s_max_u32", identity: 0n };
    case "and":
      return { op: "s_and_b32", identity: 0xffffffffn };
    case "or":
      return { op: "s_or_b32", identity: 0n };
    case "xor":
      return { op: "s_xor_b32", identity: 0n };
  }
}

/**
 * The s_ff1/v_readlane fold of `x` (a VGPR read per member, or a uniform SGPR / immediate
 * folded once per member) over the members M with the SALU op from `identity`; M is copied,
 * not clobbered. A do-while: an empty M still runs one trip (s_ff1 of 0 is −1, v_readlane's
 * lane select takes its low 5/6 bits), whose value the callers never use.
 */
export function foldLoop(m: Builder, M: MOp, op: Mnemonic, identity: bigint, a: MOp): MOp {
  const acc = m.stmp();
  const l = m.stmp();
  const x = a.k === "v" ? m.stmp() : a;
  const t = m.stmp();
  const mem = m.stmp();
  m.emit("s_mov_b32", acc, imm(BigInt.asIntN(32, identity)));
  m.emit("s_mov_b32", mem, M);
  const loop = m.newLabel();
  m.place(loop);
  m.emit("s_ff1_i32_b32", l, mem);
  if (a.k === "v") m.emit("v_readlane_b32", x, a, l);
  m.emit(op, acc, acc, x);
  m.emit("s_sub_u32", t, mem, imm(1));
  m.emit("s_and_b32", mem, mem, t);
  m.emit("s_cbranch_scc1", { k: "label", name: loop });
  return acc;
}

/** The loop over the members M. */
function reduxLoop(f: IntRedux, m: Builder, M: MOp): BodyResult {
  const { op, identity } = saluOf(f);
  return { value: foldLoop(m, M, op, identity, m.src("a")) };
}

const isInt = (f: ReduxForm): f is IntRedux => f.type !== "f32";

export const reduxRules: AmdRule<ReduxForm>[] = [
  {
    name: "redux_uniform_mask_readlane_loop",
    prio: 0,
    why: "Integer redux, uniform membermask: M = exec_lo ∩ mask (∩ guard), then the s_ff1/v_readlane loop (file comment), 6 cycles a member, then v_mov/v_cndmask of the accumulator into v0: measured (test/warp_amdgpu.test.ts) 8 cycles for one member to 196 for 32 on gfx10/gfx11, 10–198 on gfx9 (its boundary waits). Chosen over a DPP tree (set_inactive of the identity under WWM, row_shr 1/2/4/8, row_bcast, readlane 31: about 12–16 cycles plus the exec juggling on gfx9, different per generation) only because the tree is not written yet: for n ≥ 3 the tree would win.",
    when: (f, c) => isInt(f) && !divergentMask(f, c),
    emit: (f, m, c) => uniformRoutine(f, m, c, (M) => reduxLoop(f as IntRedux, m, M)),
    cost: loopCost,
  },
  {
    name: "redux_uniform_mask_dpp_tree",
    prio: 0,
    why: "Integer redux, uniform membermask, a divergent: the DPP butterfly of redux_tree.ts (holes and non-members the identity, the 32 lanes on while DPP reads, two v_readlanes and one SALU op joining the rows). Loop-free. Measured (test/warp_amdgpu.test.ts, random warps with full, partial and sparse masks): static 20 / dynamic 15–20 (mean 17.0) cycles on gfx10/gfx11, static 29 / dynamic 24–29 (mean 26.0) on gfx9 with its DPP and exec waits; guarded +1–2. The loop on the same warps: 8–196 (mean 100.8) on gfx10/gfx11, 10–198 (mean 102.8) on gfx9. Selection: the loop's cost is its static count + 6 cycles per further expected member (32 unless the membermask is an immediate: its population count), so the loop is kept for immediate masks of ≤ 3 lanes (gfx10/gfx11; a tie at 3 goes to the loop, defined first) or ≤ 4 (gfx9), and the tree is chosen otherwise.",
    when: (f, c) => isInt(f) && !divergentMask(f, c) && c.spec.kinds.a?.kind !== "s" && c.spec.kinds.a?.kind !== "imm",
    emit: (f, m, c) =>
      uniformRoutine(f, m, c, (M) => {
        const { op, identity } = saluOf(f as IntRedux);
        return { value: foldTree(m, M, op, identity, m.src("a")) };
      }),
  },
  {
    name: "redux_divergent_mask_waterfall",
    prio: 0,
    why: "Integer redux, per-lane membermask: the waterfall over its distinct values (warp_common.ts), the same loop per round on M = value ∩ E; exact for every defined lane. 4 + Σ(9 + 6n_r) over the rounds.",
    when: (f, c) => isInt(f) && divergentMask(f, c),
    emit: (f, m) => waterfallRoutine(m, (M) => reduxLoop(f as IntRedux, m, M)),
    cost: loopCost,
  },
];
