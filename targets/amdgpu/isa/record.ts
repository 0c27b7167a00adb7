/**
 * @fileoverview The shape of one AMDGPU instruction record: TableGen's `def` (mnemonic,
 * operands, implicit state) plus Sail's `execute` (semantics over the shared BV algebra).
 *
 * Records are flat. The family helpers below only add what the encoding family implies:
 * VALU (`vop*`) records execute per lane and write only lanes whose `exec` bit is 1; VOPC
 * records write a lane mask with 0 in inactive lanes; SALU records are scalar. Nothing else
 * is inherited.
 */
import type { BV } from "../../../src/sem/bv.js";
import type { MInst } from "../minst.js";

export type Gen = 9 | 10 | 11;
export type Encoding = "SOP1" | "SOP2" | "SOPC" | "SOPK" | "SOPP" | "VOP1" | "VOP2" | "VOP3" | "VOPC" | "VOP3B" | "DS";

/** Operand width in bits, or the wave size (lane masks). */
export type Width = number | "wave";

export interface OpSpec {
  name: string;
  out?: boolean;
  /**
   * A destination whose old value the instruction also reads (LLVM's tied `$sdst = $sdst_in`,
   * `s_bitset1_b32`): the semantics see it among the sources, at its position.
   */
  tied?: true;
  /**
   * An encoding field written as a trailing modifier, not a source value (DS `offset:`, DPP
   * `row_mask:` …): an immediate the semantics read, that the hazard rules do not count as
   * a literal and the printer writes in its modifier syntax (./syntax.ts).
   */
  ctrl?: true;
  w: Width;
}

/** Whether the semantics read operand `o` (a source, or a tied destination). */
export const isRead = (o: OpSpec): boolean => !o.out || o.tied === true;

/**
 * Per-lane VALU semantics. `src` holds the source operands in order: a VGPR's value in this
 * lane, or the uniform value of an SGPR, literal or lane mask.
 */
export type LaneSem = <V, B>(bv: BV<V, B>, src: V[], lane: number) => V[];
/** Per-lane compare; the family writes a lane mask with 0 in inactive lanes. */
export type CmpSem = <V, B>(bv: BV<V, B>, src: V[]) => B;
/** Scalar semantics: destination values and the new SCC (if written). */
export type ScalarSem = <V, B>(bv: BV<V, B>, src: V[], scc: B) => { d: V[]; scc?: B };

/** Access to the whole wave, for instructions that are neither per-lane nor scalar. */
export interface WaveIO<V, B> {
  readonly wave: 32 | 64;
  /**
   * The ISA generation, where the state carries it (`WaveState.gen`): undefined otherwise, and
   * a record whose meaning depends on it (`ds_bpermute_b32`'s lane wrap) refuses to run then.
   */
  readonly gen: Gen | undefined;
  /** Uniform value of operand i (SGPR, literal, mask). */
  read(i: number): V;
  /** All lanes of VGPR operand i (length = wave). */
  readLanes(i: number): V[];
  write(i: number, x: V): void;
  /** Writes every lane of VGPR operand i (length = wave; the record merges in old values itself). */
  writeLanes(i: number, lanes: V[]): void;
  exec(): V;
  setExec(x: V): void;
  scc(): B;
  setScc(b: B): void;
  /** The whole VCC mask (s_cbranch_vccz/vccnz); absent where the state has none to give. */
  vcc?(): V;
}
export type WaveSem = <V, B>(bv: BV<V, B>, io: WaveIO<V, B>) => void;
/** A branch: taken when the returned boolean holds; operand 0 is the label. */
export type BranchSem = <V, B>(bv: BV<V, B>, io: WaveIO<V, B>) => B;

/** No value semantics: the instruction only occupies issue slots (waits and hints). */
export type NoSem = { none: true };

export type Sem = { lane: LaneSem } | { cmp: CmpSem } | { scalar: ScalarSem } | { wave: WaveSem } | { branch: BranchSem } | NoSem;

/**
 * The functional unit an instruction issues to, as the hazard rules name it (AMD ISA
 * manuals, "Manually Inserted Wait States"; LLVM `SIInstrInfo::isVALU/isSALU/isSOPP/isDS`).
 */
export type Unit = "VALU" | "SALU" | "SOPP" | "DS";

/**
 * What the hazard rules (targets/amdgpu/hazards.ts) need to know about one record besides its
 * operands and implicit state. Absent fields are false.
 */
export interface HazardRoles {
  /** Operand index of a lane select (`v_readlane`/`v_writelane` src1: LLVM `checkRWLaneHazards`). */
  laneSelect?: number;
  /** Operand index of the VGPR a `v_readlane`/`v_readfirstlane` reads across lanes. */
  readlaneSrc?: number;
  /** A DPP instruction: its VGPR sources cross lanes (LLVM `checkDPPHazards`). */
  dpp?: boolean;
  /** `v_readlane`, `v_readfirstlane` or `v_writelane`: EXEC-sensitive lane access on gfx940. */
  rwLane?: boolean;
  /** A 64-bit VALU shift whose src0 is the count (gfx90a `fixShift64HighRegBug`). */
  shift64?: boolean;
}

/** The relation a compare tests, AMD's `lg` written `ne` (`v_cmp_ne_u32`, `s_cmp_lg_u32`). */
export type Relation = "eq" | "ne" | "lt" | "le" | "gt" | "ge";

/**
 * What a compare record compares (AMD ISA manuals, VOPC / SOPC opcode tables): the relation,
 * whether `lt`/`le`/`gt`/`ge` read the operands as signed (`_i*`), and how many low bits of
 * each operand take part (`_*16` compares read bits [15:0] of a 32-bit register).
 */
export interface Compare {
  rel: Relation;
  signed: boolean;
  bits: 16 | 32 | 64;
}

export interface IsaRecord<M extends string = string> {
  readonly mnemonic: M;
  enc: Encoding;
  /** The vendor's one-line description and the manual section it comes from. */
  desc: string;
  ops: readonly OpSpec[];
  /** Generations that have it (all when absent). */
  only?: readonly Gen[];
  /** Implicit state read/written besides the operands (exec masking of VALU is implied). */
  uses?: readonly ("exec" | "scc" | "vcc")[];
  defs?: readonly ("exec" | "scc" | "vcc")[];
  sem: Sem;
  /** Hazard-relevant roles (see `HazardRoles`). */
  hazard?: HazardRoles;
  /**
   * The result is one source operand's value unchanged. `"copy"`: source 0, in full
   * (`v_mov_b32`, `s_mov_b32/b64`, and the cross-lane copies `v_readlane_b32`,
   * `v_readfirstlane_b32`); `"select"`: source 0 or source 1, chosen by a condition that is
   * not data (`v_cndmask_b32` by a lane mask, `s_cselect_b32/b64` by SCC). Read by the
   * match prover's data-independence check (src/check/prove_match.ts).
   */
  move?: "copy" | "select";
  /** A compare: what it compares (see `Compare`). Absent on everything else. */
  cmp?: Compare;
  /**
   * A SALU op whose result bit i depends only on bit i of its sources and on no other state
   * (`s_and`/`s_or`/`s_xor`/`s_andn2`/`s_not`/`s_mov`): applied to lane masks it treats every
   * lane alike. Read by the prover's lane-coupling analysis (src/check/prove.ts).
   */
  bitwise?: true;
  /**
   * Reads a VGPR in a lane other than the one it writes for (`v_readlane_b32`,
   * `v_readfirstlane_b32`; DPP and `v_writelane_b32` when they are recorded): the lane-local
   * reasoning of the prover does not apply, and legalisation leaves its operands alone (an
   * SGPR result, its own operand rules).
   */
  crossLane?: true;
  /** Source 0 and source 1 can be swapped without changing the result (`v_and_b32`, `v_min_u32`). */
  commutative?: true;
  /**
   * Its VOP3 form takes the abs/neg source modifiers on its 32-bit data sources (minst.ts
   * `SrcMod`), which the interpreter applies to the bits read; elsewhere a modifier is refused.
   */
  srcMods?: true;
  /**
   * Issue cycles the instruction takes, which are also the wait states it provides to a
   * later instruction (LLVM `SIInstrInfo::getNumWaitStates`): 1 unless given; `s_nop N` is
   * N + 1, `s_delay_alu` 0 (a scheduling hint). `ops` are the operands' immediate values.
   */
  issueCycles?: (imms: readonly bigint[]) => number;
  /**
   * `s_waitcnt` only: the LGKM_CNT value SIMM16 waits for on generation `gen` (the field's
   * place differs per generation). The interpreter's LDS wait model (interp.ts) reads it.
   */
  lgkmcnt?: (simm16: bigint, gen: Gen) => number;
}

/** The unit an instruction of `rec` issues to. */
export function unitOf(rec: IsaRecord): Unit {
  if (rec.enc.startsWith("VOP")) return "VALU";
  if (rec.enc === "SOPP") return "SOPP";
  if (rec.enc === "DS") return "DS";
  return "SALU";
}

const out = (name: string, w: Width = 32): OpSpec => ({ name, out: true, w });
const src = (name: string, w: Width = 32): OpSpec => ({ name, w });

/** VOP1: `vdst, src0`. */
export function vop1<M extends string>(mnemonic: M, desc: string, lane: LaneSem, w = 32): IsaRecord<M> {
  return { mnemonic, enc: "VOP1", desc, ops: [out("vdst", w), src("src0", w)], uses: ["exec"], sem: { lane } };
}
/** VOP2: `vdst, src0, src1` (VOP3 form when legalize picks `_e64`). */
export function vop2<M extends string>(mnemonic: M, desc: string, lane: LaneSem, only?: readonly Gen[]): IsaRecord<M> {
  return { mnemonic, enc: "VOP2", desc, ops: [out("vdst"), src("src0"), src("src1")], uses: ["exec"], sem: { lane }, ...(only ? { only } : {}) };
}
/** VOP3-only, three sources: `vdst, src0, src1, src2`. */
export function vop3<M extends string>(mnemonic: M, desc: string, lane: LaneSem, only?: readonly Gen[]): IsaRecord<M> {
  return {
    mnemonic,
    enc: "VOP3",
    desc,
    ops: [out("vdst"), src("src0"), src("src1"), src("src2")],
    uses: ["exec"],
    sem: { lane },
    ...(only ? { only } : {}),
  };
}
/** VOPC: `sdst (lane mask), src0, src1`; inactive lanes get 0. */
export function vopc<M extends string>(mnemonic: M, desc: string, cmp: CmpSem, compare: Compare, w = 32): IsaRecord<M> {
  return { mnemonic, enc: "VOPC", desc, ops: [out("sdst", "wave"), src("src0", w), src("src1", w)], uses: ["exec"], sem: { cmp }, cmp: compare };
}
/** SOP1: `sdst, ssrc0`. */
export function sop1<M extends string>(mnemonic: M, desc: string, scalar: ScalarSem, w = 32, writesScc = false): IsaRecord<M> {
  return { mnemonic, enc: "SOP1", desc, ops: [out("sdst", w), src("ssrc0", w)], ...(writesScc ? { defs: ["scc"] } : {}), sem: { scalar } };
}
/** SOP2: `sdst, ssrc0, ssrc1` (ssrc1 may be narrower, e.g. a 64-bit shift's count). */
export function sop2<M extends string>(mnemonic: M, desc: string, scalar: ScalarSem, w = 32, w1: number = w, writesScc = true): IsaRecord<M> {
  return {
    mnemonic,
    enc: "SOP2",
    desc,
    ops: [out("sdst", w), src("ssrc0", w), src("ssrc1", w1)],
    ...(writesScc ? { defs: ["scc"] } : {}),
    sem: { scalar },
  };
}
/** SOPC: `ssrc0, ssrc1` → SCC. */
export function sopc<M extends string>(mnemonic: M, desc: string, scalar: ScalarSem, w = 32, compare?: Compare): IsaRecord<M> {
  return { mnemonic, enc: "SOPC", desc, ops: [src("ssrc0", w), src("ssrc1", w)], defs: ["scc"], sem: { scalar }, ...(compare ? { cmp: compare } : {}) };
}

/** Issue cycles of one instruction (its record's `issueCycles` over its immediates; 1 by default). */
export function issueCyclesOf(rec: IsaRecord, inst: MInst): number {
  return rec.issueCycles ? rec.issueCycles(inst.ops.map((o) => (o.k === "imm" ? o.value : 0n))) : 1;
}
