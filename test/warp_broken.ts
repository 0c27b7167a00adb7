/**
 * The warp-level family's broken corpus on AMDGPU (issue 15 item 5): plausible wrong lowerings,
 * each refuted for its own reason — by the interpreter on random warps (test/warp_amdgpu.test.ts)
 * and by the prover with a counterexample (test/warp_prove_amdgpu.test.ts). The reason pattern
 * is asserted, so a variant refuted by accident does not count.
 */
import type { Form } from "../src/ir/forms.js";
import type { OperandKind, RoutineSpec, SourceName } from "../src/ir/ir.js";
import type { WarpForm } from "../src/ir/warp_forms.js";
import { MCPUS } from "../targets/amdgpu/regs.js";
import type { AmdRule } from "../targets/amdgpu/rules/rule.js";
import { shflRules } from "../targets/amdgpu/rules/shfl.js";
import { imm, s, v } from "../targets/amdgpu/minst.js";
import { waitcntSimm16 } from "../targets/amdgpu/isa/sopp.js";

type Kinds = Partial<Record<SourceName, OperandKind>>;
const V: OperandKind = { kind: "v" };
const S: OperandKind = { kind: "s" };
const IMM = (value: bigint): OperandKind => ({ kind: "imm", value });

/** A routine spec of a warp form. */
export function warpSpec(f: WarpForm, kinds: Kinds, guarded: boolean): RoutineSpec {
  return { form: f as unknown as Form, kinds, guarded };
}

/**
 * The broken corpus: plausible wrong lowerings, each refuted by the checker above for its own
 * reason (the reason pattern is asserted, so a variant refuted by accident does not count).
 */
export type Broken = { name: string; f: WarpForm; kinds: Kinds; guarded?: boolean; mcpus: readonly (typeof MCPUS)[number][]; rule: AmdRule<never>;
  /** The interpreter's failure (test/warp_amdgpu.test.ts). */
  reason: RegExp;
  /** The prover's refutation: its reason and counterexample (test/warp_prove_amdgpu.test.ts). */
  proverReason: RegExp;
};
const bperm = shflRules.find((r) => r.name === "shfl_bpermute")!;
const SHFL = (mode: "up" | "down" | "bfly" | "idx", dest: "d" | "d|p" = "d"): WarpForm => ({ op: "shfl", sync: true, mode, type: "b32", dest });
export const BROKEN: Broken[] = [
  {
    // The lane index taken from b without b[4:0] (j = lane + b): b in 32..63 wraps mod 32 on
    // gfx10+ (right by accident) but reads the inactive upper half of a gfx9 wave64 (0).
    name: "ds_bpermute index not wrapped (b unmasked), gfx9 wave64",
    f: SHFL("bfly"),
    kinds: { a: V, b: IMM(33n), c: IMM(0x1fn), membermask: IMM(0xffffffffn) },
    mcpus: ["gfx900", "gfx90a", "gfx942"],
    reason: /d 0x00000000, want/,
    proverReason: /Value mismatch: d in lane \d+[\s\S]*Lowered value:  d\[\d+\] = #x00000000 /,
    rule: {
      name: "broken_bpermute_unwrapped",
      prio: 0,
      why: "broken",
      when: () => true,
      emit: (_f, m) => {
        const ln = m.vtmp();
        m.emit("v_mbcnt_lo_u32_b32", ln, imm(-1), imm(0));
        const j = m.vtmp();
        m.emit("v_xor_b32", j, imm(33), ln);
        m.emit("v_lshlrev_b32", j, imm(2), j);
        m.emit("ds_bpermute_b32", v(0), j, v(0), imm(0));
        m.emit("s_waitcnt", imm(waitcntSimm16({ lgkmcnt: 0 }, m.t.gen)));
      },
    },
  },
  {
    name: "ds_bpermute result read before s_waitcnt",
    f: SHFL("idx"),
    kinds: { a: V, b: S, c: IMM(0x1fn), membermask: S },
    mcpus: MCPUS,
    reason: /LdsWaitError|outstanding|s_waitcnt/,
    proverReason: /before s_waitcnt lgkmcnt covers ds_bpermute_b32/,
    rule: {
      ...bperm,
      name: "broken_bpermute_no_wait",
      emit: (f, m, c) => {
        bperm.emit(f, m, c);
        const i = m.lines.findIndex((l) => "op" in l && l.op === "s_waitcnt");
        m.lines.splice(i, 1);
        m.emit(m.vAdd, v(0), imm(0), v(0)); // d read while the bpermute is outstanding
      },
    } as AmdRule<never>,
  },
  {
    // shfl.down by 1, width 32, as DPP row_shl:1 with bound_ctrl set: lanes 15 and 31 (row
    // ends) and lanes below an exited one read 0 instead of a valid value / their own a.
    name: "DPP bound control reads 0 from an invalid / inactive lane",
    f: SHFL("down"),
    kinds: { a: V, b: IMM(1n), c: IMM(0x1fn), membermask: IMM(0xffffffffn) },
    mcpus: MCPUS,
    reason: /d 0x00000000, want/,
    proverReason: /Value mismatch: d in lane \d+[\s\S]*Lowered value:  d\[\d+\] = #x00000000 /,
    rule: {
      name: "broken_dpp_bound_ctrl",
      prio: 0,
      why: "broken",
      when: () => true,
      emit: (_f, m) => m.emit("v_mov_b32_dpp", v(0), v(0), imm(0x101), imm(15), imm(15), imm(1), imm(0)),
    },
  },
  {
    // HIP's __all_sync: ballot == membermask, wrong when the mask names exited lanes.
    name: "HIP __all_sync: the ballot compared with the whole membermask",
    f: { op: "vote", sync: true, mode: "all", type: "pred", negA: false },
    kinds: { a: V, membermask: IMM(0xffffffffn) },
    mcpus: MCPUS,
    reason: /d 0x00000000, want 0x00000001/,
    proverReason: /Value mismatch: d in lane \d+[\s\S]*Spec value:     d\[\d+\] = true\nLowered value:  d\[\d+\] = false/,
    rule: {
      name: "broken_all_sync_whole_mask",
      prio: 0,
      why: "broken",
      when: () => true,
      emit: (_f, m) => {
        const t = m.stmp();
        m.emit("s_and_b32", t, s((m.src("a") as { n: number }).n), imm(-1)); // ballot & membermask, not & exec
        m.emit("s_cmp_eq_u32", t, imm(-1));
        m.emit("s_cselect_b32", { k: "vcc_lo" }, imm(-1), imm(0));
      },
    },
  },
  {
    // HIP's redux.and as a logical &&: 0/1, not the bitwise and.
    name: "HIP redux.and as logical &&",
    f: { op: "redux", reduxOp: "and", type: "b32" },
    kinds: { a: V, membermask: S },
    mcpus: MCPUS,
    reason: /lane \d+: d 0x0000000[01], want/,
    proverReason: /Value mismatch: d in lane \d+[\s\S]*Lowered value:  d\[\d+\] = #x0000000[01] /,
    rule: {
      name: "broken_redux_and_logical",
      prio: 0,
      why: "broken",
      when: () => true,
      emit: (_f, m) => {
        const M = m.stmp();
        m.emit("s_and_b32", M, { k: "exec_lo" }, m.src("membermask"));
        const acc = m.stmp();
        const l = m.stmp();
        const x = m.stmp();
        const t = m.stmp();
        m.emit("s_mov_b32", acc, imm(1));
        const L = m.newLabel();
        m.place(L);
        m.emit("s_ff1_i32_b32", l, M);
        m.emit("v_readlane_b32", x, m.src("a"), l);
        m.emit("s_cmp_lg_u32", x, imm(0));
        m.emit("s_cselect_b32", x, imm(1), imm(0));
        m.emit("s_and_b32", acc, acc, x);
        m.emit("s_sub_u32", t, M, imm(1));
        m.emit("s_and_b32", M, M, t);
        m.emit("s_cbranch_scc1", { k: "label", name: L });
        m.emit("v_mov_b32", v(0), acc);
      },
    },
  },
  {
    // p from the clamp alone (maxLane = c[4:0], the segment mask ignored).
    name: "shfl p from the wrong segment",
    f: SHFL("bfly", "d|p"),
    kinds: { a: V, b: S, c: IMM(0x181fn), membermask: S },
    mcpus: MCPUS,
    reason: /p (true|false), want/,
    proverReason: /Value mismatch: p in lane \d+/,
    rule: {
      ...bperm,
      name: "broken_shfl_p_segment",
      emit: (f, m, c) => {
        bperm.emit(f, m, { ...c, spec: { ...c.spec, kinds: { ...c.spec.kinds, c: IMM(0x1fn) } } });
      },
    } as AmdRule<never>,
  },
  {
    // v_readlane's lane select written by a VALU (v_readfirstlane) right before it, the
    // sequence taken as emitted: gfx9 needs 4 wait states there (hazards.md §1).
    name: "a missing hazard wait (VALU-written lane select of v_readlane)",
    f: SHFL("idx"),
    kinds: { a: V, b: V, c: IMM(0x1fn), membermask: IMM(0xffffffffn) },
    mcpus: ["gfx900", "gfx90a", "gfx942"],
    reason: /^hazard:/,
    proverReason: /^Hazard: .*v_readlane_b32/,
    rule: {
      name: "broken_readlane_no_wait",
      prio: 0,
      why: "broken",
      waits: "as-emitted",
      when: () => true,
      emit: (_f, m) => {
        const bl = m.stmp();
        m.emit("v_readfirstlane_b32", bl, m.src("b"));
        const x = m.stmp();
        m.emit("v_readlane_b32", x, v(0), bl);
        m.emit("v_mov_b32", v(0), x);
      },
    },
  },
];

