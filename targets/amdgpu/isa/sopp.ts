/**
 * @fileoverview SOPP records: branches, waits and hints (AMD "Vega" ISA manual §12.5,
 * "RDNA3" §16.5). The waits have no value semantics; they exist for the hazard rules
 * (targets/amdgpu/hazards.ts): `s_nop N` provides N + 1 wait states, `s_waitcnt_depctr` one
 * (and, on gfx10+, waits for the dependency counters its immediate names), `s_delay_alu` none
 * (a gfx11 scheduling hint). `s_waitcnt` waits for memory counters (llc emits it; the DS
 * instructions of the warp family will need it).
 */
import type { BranchSem, IsaRecord, WaveIO } from "./record.js";
import { nonzero } from "./util.js";

const branch = <M extends string>(mnemonic: M, desc: string, uses: readonly ("exec" | "scc" | "vcc")[], taken: BranchSem): IsaRecord<M> => ({
  mnemonic,
  enc: "SOPP",
  desc,
  ops: [{ name: "simm16", w: 16 }],
  uses,
  sem: { branch: taken },
});

/** VCC for a branch on it; a state without VCC (a prover's path model) cannot take one. */
function vccOf<V, B>(io: WaveIO<V, B>): V {
  if (!io.vcc) throw new Error("s_cbranch_vccz/vccnz: this state has no VCC");
  return io.vcc();
}

const wait = <M extends string>(mnemonic: M, desc: string, issueCycles: (imms: readonly bigint[]) => number, only?: readonly (9 | 10 | 11)[]): IsaRecord<M> => ({
  mnemonic,
  enc: "SOPP",
  desc,
  ops: [{ name: "simm16", w: 16 }],
  sem: { none: true },
  issueCycles,
  ...(only ? { only } : {}),
});

/**
 * The LGKM_CNT field of S_WAITCNT's SIMM16 (Vega §4.4 / RDNA2 §4.4 / RDNA3 §4.4 "S_WAITCNT";
 * LLVM `AMDGPUBaseInfo` getLgkmcntBitShift/Width): bits [11:8] on gfx9, [13:8] on gfx10,
 * [9:4] on gfx11. Measured with llvm-mc-19: `s_waitcnt lgkmcnt(0)` is 0xc07f on gfx900/gfx942
 * and gfx1030, 0xfc07 on gfx1100; `lgkmcnt(1)` 0xc17f / 0xfc17; `vmcnt(0)` alone leaves the
 * field at its maximum (0x0f70 on gfx9: 15; 0x3f70 on gfx1030: 63; 0x03f7 on gfx1100: 63).
 */
export function lgkmcntField(simm16: bigint, gen: 9 | 10 | 11): bigint {
  if (gen === 9) return (simm16 >> 8n) & 0xfn;
  if (gen === 10) return (simm16 >> 8n) & 0x3fn;
  return (simm16 >> 4n) & 0x3fn;
}

/**
 * SIMM16 of `s_waitcnt` with the given counters on generation `gen` (absent counters at their
 * maximum, i.e. not waited for): the inverse of the field layout above, for the asm parser's
 * symbolic `s_waitcnt vmcnt(N) expcnt(N) lgkmcnt(N)`.
 */
export function waitcntSimm16(c: { vmcnt?: number; expcnt?: number; lgkmcnt?: number }, gen: 9 | 10 | 11): bigint {
  const vm = BigInt(c.vmcnt ?? 63);
  const exp = BigInt(c.expcnt ?? 7);
  if (gen === 11) return (vm << 10n) | (BigInt(c.lgkmcnt ?? 63) << 4n) | exp;
  const lgkm = BigInt(c.lgkmcnt ?? (gen === 9 ? 15 : 63));
  return ((vm >> 4n) << 14n) | (lgkm << 8n) | (exp << 4n) | (vm & 15n);
}

export const SOPP = [
  // Vega §4.5 / RDNA3 §4.5: "S_NOP: insert 0–15 wait states" (the 3-bit field SIMM16[3:0] on gfx9+).
  wait("s_nop", "Do nothing for SIMM16[3:0] + 1 wait states", ([n]) => Number((n ?? 0n) & 15n) + 1),
  // RDNA2/RDNA3: "S_WAITCNT_DEPCTR: wait for the dependency counters in SIMM16 to drain".
  wait("s_waitcnt_depctr", "Wait until the dependency counters named in SIMM16 are satisfied", () => 1, [10, 11]),
  // RDNA3 §4.5: a hint to the instruction scheduler; no wait states are counted for it.
  wait("s_delay_alu", "Delay the next VALU/SALU until the dependency in SIMM16 resolves (hint)", () => 0, [11]),
  {
    ...wait("s_waitcnt", "Wait until the memory counters (vmcnt, expcnt, lgkmcnt) reach SIMM16's values", () => 1),
    lgkmcnt: (simm16, gen) => Number(lgkmcntField(simm16, gen)),
  },
  branch("s_branch", "PC = label", [], (bv) => bv.true),
  branch("s_cbranch_scc0", "if (SCC == 0) PC = label", ["scc"], (bv, io) => bv.notB(io.scc())),
  branch("s_cbranch_scc1", "if (SCC == 1) PC = label", ["scc"], (_bv, io) => io.scc()),
  branch("s_cbranch_execz", "if (EXEC == 0) PC = label", ["exec"], (bv, io) => bv.notB(nonzero(bv, io.exec()))),
  branch("s_cbranch_execnz", "if (EXEC != 0) PC = label", ["exec"], (bv, io) => nonzero(bv, io.exec())),
  // Emitted by llc-19 for a uniform i1 branch (the llvm module's redux .f32 loop, issue 15).
  branch("s_cbranch_vccz", "if (VCC == 0) PC = label", ["vcc"], (bv, io) => bv.notB(nonzero(bv, vccOf(io)))),
  branch("s_cbranch_vccnz", "if (VCC != 0) PC = label", ["vcc"], (bv, io) => nonzero(bv, vccOf(io))),
] as const satisfies readonly IsaRecord[];
