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

export type Gen = 9 | 10 | 11;
export type Encoding = "SOP1" | "SOP2" | "SOPC" | "SOPK" | "SOPP" | "VOP1" | "VOP2" | "VOP3" | "VOPC" | "VOP3B" | "DS";

/** Operand width in bits, or the wave size (lane masks). */
export type Width = number | "wave";

export interface OpSpec {
  name: string;
  out?: boolean;
  w: Width;
}

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
  /** Uniform value of operand i (SGPR, literal, mask). */
  read(i: number): V;
  /** All lanes of VGPR operand i (length = wave). */
  readLanes(i: number): V[];
  write(i: number, x: V): void;
  exec(): V;
  setExec(x: V): void;
  scc(): B;
  setScc(b: B): void;
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

export interface IsaRecord {
  mnemonic: string;
  enc: Encoding;
  /** The vendor's one-line description and the manual section it comes from. */
  desc: string;
  ops: OpSpec[];
  /** Generations that have it (all when absent). */
  only?: readonly Gen[];
  /** Implicit state read/written besides the operands (exec masking of VALU is implied). */
  uses?: readonly ("exec" | "scc" | "vcc")[];
  defs?: readonly ("exec" | "scc" | "vcc")[];
  sem: Sem;
  /** Hazard-relevant roles (see `HazardRoles`). */
  hazard?: HazardRoles;
  /**
   * Issue cycles the instruction takes, which are also the wait states it provides to a
   * later instruction (LLVM `SIInstrInfo::getNumWaitStates`): 1 unless given; `s_nop N` is
   * N + 1, `s_delay_alu` 0 (a scheduling hint). `ops` are the operands' immediate values.
   */
  issueCycles?: (imms: readonly bigint[]) => number;
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
export function vop1(mnemonic: string, desc: string, lane: LaneSem, w = 32): IsaRecord {
  return { mnemonic, enc: "VOP1", desc, ops: [out("vdst", w), src("src0", w)], uses: ["exec"], sem: { lane } };
}
/** VOP2: `vdst, src0, src1` (VOP3 form when legalize picks `_e64`). */
export function vop2(mnemonic: string, desc: string, lane: LaneSem, only?: readonly Gen[]): IsaRecord {
  return { mnemonic, enc: "VOP2", desc, ops: [out("vdst"), src("src0"), src("src1")], uses: ["exec"], sem: { lane }, ...(only ? { only } : {}) };
}
/** VOP3-only, three sources: `vdst, src0, src1, src2`. */
export function vop3(mnemonic: string, desc: string, lane: LaneSem, only?: readonly Gen[]): IsaRecord {
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
export function vopc(mnemonic: string, desc: string, cmp: CmpSem, w = 32): IsaRecord {
  return { mnemonic, enc: "VOPC", desc, ops: [out("sdst", "wave"), src("src0", w), src("src1", w)], uses: ["exec"], sem: { cmp } };
}
/** SOP1: `sdst, ssrc0`. */
export function sop1(mnemonic: string, desc: string, scalar: ScalarSem, w = 32, writesScc = false): IsaRecord {
  return { mnemonic, enc: "SOP1", desc, ops: [out("sdst", w), src("ssrc0", w)], ...(writesScc ? { defs: ["scc"] } : {}), sem: { scalar } };
}
/** SOP2: `sdst, ssrc0, ssrc1` (ssrc1 may be narrower, e.g. a 64-bit shift's count). */
export function sop2(mnemonic: string, desc: string, scalar: ScalarSem, w = 32, w1: number = w, writesScc = true): IsaRecord {
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
export function sopc(mnemonic: string, desc: string, scalar: ScalarSem, w = 32): IsaRecord {
  return { mnemonic, enc: "SOPC", desc, ops: [src("ssrc0", w), src("ssrc1", w)], defs: ["scc"], sem: { scalar } };
}
