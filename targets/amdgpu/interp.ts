/**
 * @fileoverview The AMDGPU interpreter: runs emitted sequences over the BV algebra, using
 * each instruction record's own semantics (targets/amdgpu/isa). Wave32 and wave64, per-lane
 * VGPRs, SGPRs, `exec`, `vcc`, `scc`, labels and branches, and a step limit.
 *
 * Generic over `BV<V, B>`: concretely it is the checker's executor; symbolically (z3) it
 * builds the proof terms of straight-line sequences. A branch on a symbolic condition is
 * an error: loops are proved by the inductive method of src/check, not by unrolling here.
 */
import type { BV } from "../../src/sem/bv.js";
import { record } from "./isa/index.js";
import type { Gen, IsaRecord, WaveIO, Width } from "./isa/record.js";
import { InterpRefusal } from "./isa/util.js";
import { isRead, issueCyclesOf } from "./isa/record.js";
import type { MInst, MLine, MOp, SrcMod } from "./minst.js";
import { isLabel, printOp } from "./minst.js";
import type { Boundary, HazardTarget, HazardViolation } from "./hazards.js";
import { checkHazards } from "./hazards.js";

/**
 * One outstanding DS result: VGPR `reg`, written by the DS instruction `by` (its text), not
 * yet covered by an `s_waitcnt` lgkmcnt.
 */
export interface PendingDs {
  reg: number;
  by: string;
}

/**
 * Machine state of one wave. VGPRs hold `wave` lanes of 32 bits; SGPRs 32 bits. A VGPR's lane
 * array is never changed in place once it is in the state: a write puts a new array (`step`,
 * `writeLanes`), so callers may share arrays between states and snapshots (./exec.ts).
 */
export interface WaveState<V, B> {
  wave: 32 | 64;
  /**
   * The ISA generation. Needed (and then required) only by what depends on it: decoding
   * `s_waitcnt`'s lgkmcnt field while a DS result is outstanding, `ds_bpermute_b32`'s lane wrap.
   */
  gen?: Gen;
  /**
   * The LDS wait model: DS results not yet covered by an `s_waitcnt`, oldest first (LDS
   * returns in issue order, so `lgkmcnt(N)` leaves the newest N outstanding). Absent = none.
   */
  lds?: PendingDs[];
  vgpr: Map<number, V[]>;
  sgpr: Map<number, V>;
  /** `wave` bits each. */
  vcc: V;
  exec: V;
  scc: B;
}

/** An error in the code being run (not in the interpreter): unset register, bad operand. */
export class InterpError extends Error {}

/**
 * The code reads or overwrites a VGPR whose DS result is still outstanding (no `s_waitcnt`
 * lgkmcnt covers it yet): on hardware it would see the old value. A refutation of the code,
 * as a hazard is; the message names the register, the reader and the DS instruction.
 */
export class LdsWaitError extends InterpError {}

export interface StepTrace<V> {
  inst: MInst;
  /** Values written by the instruction, by printed operand (lane values for VGPRs). */
  writes: { what: string; value: V | V[] }[];
}

export interface RunOptions {
  /** Dynamic instruction limit (labels do not count). Default 100,000. */
  stepLimit?: number;
  trace?: boolean;
  /**
   * Checking mode: the sequence must satisfy the wait-state rules of this processor under
   * this boundary (targets/amdgpu/hazards.ts); if it does not, nothing runs and the result
   * is `status: "hazard"` with the violations.
   */
  hazards?: { target: HazardTarget; boundary: Boundary };
}

export interface RunResult<V> {
  status: "ok" | "step-limit" | "hazard";
  /** With `status: "hazard"`: every violated rule (the two instructions, the register, the wait states). */
  hazards?: HazardViolation[];
  /** Dynamic instruction count. */
  steps: number;
  /**
   * Dynamic issue cycles: each executed instruction's `issueCycles` (1, or N + 1 for
   * `s_nop N`, 0 for `s_delay_alu`). This is the count the reports and the bench compare.
   */
  cycles: number;
  /** The part of `cycles` spent in waits (`s_nop`, `s_waitcnt*`: records without value semantics). */
  waitCycles: number;
  trace: StepTrace<V>[];
}

function widthOf(w: Width, wave: 32 | 64): number {
  return w === "wave" ? wave : w;
}

/**
 * Runs `code` on `st` (mutated in place) until it falls off the end.
 * @throws InterpError on a read of an unset register, an operand of the wrong width, an
 *   unknown label, or a branch whose condition is not concrete.
 */
export function run<V, B>(bv: BV<V, B>, code: readonly MLine[], st: WaveState<V, B>, opts: RunOptions = {}): RunResult<V> {
  const limit = opts.stepLimit ?? 100_000;
  if (opts.hazards) {
    const hazards = hazardsOf(code, opts.hazards);
    if (hazards.length) return { status: "hazard", hazards, steps: 0, cycles: 0, waitCycles: 0, trace: [] };
  }
  let labels = labelCache.get(code);
  if (!labels) {
    labels = new Map<string, number>();
    for (const [i, l] of code.entries()) if (isLabel(l)) labels.set(l.label, i);
    labelCache.set(code, labels);
  }
  const io = waveIo(bv, st);
  const trace: StepTrace<V>[] = [];
  let steps = 0;
  let cycles = 0;
  let waitCycles = 0;
  let pc = 0;
  while (pc < code.length) {
    const line = code[pc]!;
    pc++;
    if (isLabel(line)) continue;
    if (steps >= limit) return { status: "step-limit", steps, cycles, waitCycles, trace };
    steps++;
    const rec = record(line.op);
    const c = issueCyclesOf(rec, line);
    cycles += c;
    if ("none" in rec.sem) waitCycles += c;
    const writes: StepTrace<V>["writes"] | null = opts.trace ? [] : null;
    ldsBefore(rec, line, st);
    let target: string | null;
    try {
      target = step(bv, rec, line, st, writes, io);
    } catch (e) {
      if (e instanceof InterpRefusal) throw new InterpError(`${line.op}: ${e.message}`);
      throw e;
    }
    ldsAfter(rec, line, st);
    if (writes) trace.push({ inst: line, writes });
    if (target !== null) {
      const to = labels.get(target);
      if (to === undefined) throw new InterpError(`unknown label ${target}`);
      pc = to;
    }
  }
  return { status: "ok", steps, cycles, waitCycles, trace };
}

/** Label positions per code array (a routine is run many times; its lines are not mutated). */
const labelCache = new WeakMap<readonly MLine[], Map<string, number>>();

const instText = (l: MInst) => `${l.op}${l.enc ? `_${l.enc}` : ""} ${l.ops.map(printOp).join(", ")}`.trimEnd();

/** VGPR numbers operand `o` names (both halves of a pair). */
const vgprsOf = (o: MOp): number[] => (o.k === "v" ? Array.from({ length: o.count }, (_, i) => o.n + i) : []);

/**
 * The LDS wait model before `inst` runs: a VGPR operand (read or written) with an outstanding
 * DS result is a refutation (`LdsWaitError`); an `s_waitcnt` retires all but the newest
 * lgkmcnt outstanding results (LDS returns in order: AMD Vega ISA §4.4 / RDNA3 §4.4
 * "LGKM_CNT ... decremented when data is returned to VGPRs"; LLVM `SIInsertWaitcnts`).
 * @throws LdsWaitError, or InterpError when an `s_waitcnt` must be decoded without `st.gen`.
 */
function ldsBefore<V, B>(rec: IsaRecord, inst: MInst, st: WaveState<V, B>): void {
  const pending = st.lds;
  if (!pending?.length) return;
  if (rec.lgkmcnt) {
    if (st.gen === undefined) throw new InterpError(`${instText(inst)}: decoding lgkmcnt needs the processor generation (WaveState.gen)`);
    const imm = inst.ops[0];
    const n = rec.lgkmcnt(imm?.k === "imm" ? imm.value : 0n, st.gen);
    if (pending.length > n) pending.splice(0, pending.length - n);
    return;
  }
  inst.ops.forEach((o, i) => {
    for (const n of vgprsOf(o)) {
      const p = pending.find((x) => x.reg === n);
      if (!p) continue;
      const how = rec.ops[i]?.out && !rec.ops[i]?.tied ? "overwritten" : "read";
      throw new LdsWaitError(`v${n} ${how} by ${instText(inst)} before s_waitcnt lgkmcnt covers ${p.by}`);
    }
  });
}

/** After a DS instruction: its VGPR destinations become outstanding. */
function ldsAfter<V, B>(rec: IsaRecord, inst: MInst, st: WaveState<V, B>): void {
  if (rec.enc !== "DS") return;
  rec.ops.forEach((spec, i) => {
    if (!spec.out) return;
    for (const n of vgprsOf(inst.ops[i]!)) (st.lds ??= []).push({ reg: n, by: instText(inst) });
  });
}

/**
 * The DS results still outstanding in `st`, one message each: at a routine's exit every one is
 * a contract failure (the caller would read the register before the data arrives).
 */
export function outstandingDs<V, B>(st: Pick<WaveState<V, B>, "lds">): string[] {
  return (st.lds ?? []).map((p) => `v${p.reg} from ${p.by} is still outstanding at routine exit (no s_waitcnt lgkmcnt covers it)`);
}

// Issue cycles of one instruction: in ./isa/record.ts (the lowering counts cycles without
// loading the interpreter), re-exported here.
export { issueCyclesOf } from "./isa/record.js";

const hazardCache = new WeakMap<readonly MLine[], Map<string, HazardViolation[]>>();
/** `checkHazards`, once per (code, processor, boundary): checking runs the same routine many times. */
function hazardsOf(code: readonly MLine[], h: NonNullable<RunOptions["hazards"]>): HazardViolation[] {
  let m = hazardCache.get(code);
  if (!m) hazardCache.set(code, (m = new Map()));
  const key = `${h.target.mcpu}/${h.target.wave}/${h.boundary.name}`;
  let v = m.get(key);
  if (!v) m.set(key, (v = checkHazards(code, h.target, h.boundary)));
  return v;
}

/** Reads operand `o` as a uniform value of `w` bits. */
export function readUniform<V, B>(bv: BV<V, B>, st: WaveState<V, B>, o: MOp, w: number): V {
  const check = (x: V) => {
    if (bv.width(x) !== w) throw new InterpError(`operand ${printOp(o)} is ${bv.width(x)} bits, expected ${w}`);
    return x;
  };
  switch (o.k) {
    case "imm":
      return bv.k(w === 64 && o.fp64 !== undefined ? o.fp64 : o.value, w);
    case "s": {
      const get = (n: number) => {
        const x = st.sgpr.get(n);
        if (x === undefined) throw new InterpError(`read of unset s${n}`);
        return x;
      };
      return check(o.count === 1 ? get(o.n) : bv.concat(get(o.n + 1), get(o.n)));
    }
    case "vcc":
    case "exec":
      return check(st[o.k]);
    case "vcc_lo":
    case "exec_lo": {
      const full = o.k === "vcc_lo" ? st.vcc : st.exec;
      return check(st.wave === 32 ? full : bv.extract(full, 31, 0));
    }
    case "null":
      // SGPR_NULL (gfx10+): reads 0 (AMD RDNA3 ISA §3.3.5 "NULL").
      return bv.k(0, w);
    case "vcc_hi":
    case "exec_hi": {
      // The upper half of a wave64 mask; wave32 has no upper half (AMD RDNA ISA §3.3: on
      // wave32 EXEC_HI and VCC_HI are unused).
      if (st.wave === 32) throw new InterpError(`${o.k} on a wave32 processor`);
      return check(bv.extract(o.k === "vcc_hi" ? st.vcc : st.exec, 63, 32));
    }
    default:
      throw new InterpError(`operand ${printOp(o)} is not a scalar source`);
  }
}

function vgprLanes<V, B>(st: WaveState<V, B>, n: number): V[] {
  const x = st.vgpr.get(n);
  if (x === undefined) throw new InterpError(`read of unset v${n}`);
  return x;
}

function writeUniform<V, B>(bv: BV<V, B>, st: WaveState<V, B>, o: MOp, x: V): void {
  switch (o.k) {
    case "s":
      if (o.count === 1) st.sgpr.set(o.n, x);
      else {
        st.sgpr.set(o.n, bv.extract(x, 31, 0));
        st.sgpr.set(o.n + 1, bv.extract(x, 63, 32));
      }
      return;
    case "vcc":
    case "exec":
      st[o.k] = x;
      return;
    case "vcc_lo":
    case "exec_lo": {
      const key = o.k === "vcc_lo" ? "vcc" : "exec";
      st[key] = st.wave === 32 ? x : bv.concat(bv.extract(st[key], 63, 32), x);
      return;
    }
    case "null":
      // SGPR_NULL: the write is discarded.
      return;
    case "vcc_hi":
    case "exec_hi": {
      if (st.wave === 32) throw new InterpError(`${o.k} on a wave32 processor`);
      const key = o.k === "vcc_hi" ? "vcc" : "exec";
      st[key] = bv.concat(x, bv.extract(st[key], 31, 0));
      return;
    }
    default:
      throw new InterpError(`operand ${printOp(o)} is not a scalar destination`);
  }
}

/**
 * `exec`'s bit per lane (`W` lanes). A concrete wave64 mask is read as two 32-bit halves (the
 * same bits, cheaper to test); a symbolic one bit by bit, as before. The bits of the last
 * masks seen are kept (values are immutable: the same `exec` object has the same bits), since
 * `exec` changes rarely while every VALU instruction reads it.
 */
function execBits<V, B>(bv: BV<V, B>, exec: V, W: number): B[] {
  const key = typeof exec === "object" && exec !== null ? (exec as object) : null;
  const hit = key ? execBitsCache.get(key) : undefined;
  if (hit && hit.bv === bv && hit.bits.length === W) return hit.bits as B[];
  const out: B[] = [];
  if (W === 64 && bv.asBigint(exec) !== undefined) {
    const halves = [bv.extract(exec, 31, 0), bv.extract(exec, 63, 32)];
    for (let lane = 0; lane < W; lane++) out.push(bv.bitAt(halves[lane >> 5]!, lane & 31));
  } else for (let lane = 0; lane < W; lane++) out.push(bv.bitAt(exec, lane));
  if (key) execBitsCache.set(key, { bv, bits: out });
  return out;
}
const execBitsCache = new WeakMap<object, { bv: unknown; bits: unknown[] }>();

const roles = new WeakMap<IsaRecord, { srcIdx: number[]; dstIdx: number[] }>();
/** The record's source and destination operand indices (once per record: `step` runs millions of times). */
function operandRoles(rec: IsaRecord): { srcIdx: number[]; dstIdx: number[] } {
  let r = roles.get(rec);
  if (!r) {
    r = { srcIdx: rec.ops.map((s, i) => (isRead(s) ? i : -1)).filter((i) => i >= 0), dstIdx: rec.ops.map((s, i) => (s.out ? i : -1)).filter((i) => i >= 0) };
    roles.set(rec, r);
  }
  return r;
}

/**
 * A per-lane source operand, read once per instruction (instead of once per lane):
 * a VGPR's lane arrays (`lo`, and `hi` for a pair), or the uniform value of anything else.
 */
type LaneSource<V> = { uni: V } | { lo: V[]; hi: V[] | null; o: MOp; w: number; checked: boolean; mod: SrcMod | undefined };

function laneSource<V, B>(bv: BV<V, B>, st: WaveState<V, B>, o: MOp, w: number): LaneSource<V> {
  if (o.k !== "v") return { uni: withSrcMod(bv, readUniform(bv, st, o, w), o) };
  return { lo: vgprLanes(st, o.n), hi: o.count === 1 ? null : vgprLanes(st, o.n + 1), o, w, checked: false, mod: o.mod };
}

/** The operand's VOP3 abs/neg source modifier (minst.ts SrcMod) applied to the bits read: abs clears the sign bit, neg then flips it. */
function withSrcMod<V, B>(bv: BV<V, B>, x: V, o: MOp): V {
  const mod = o.k === "v" || o.k === "s" || o.k === "imm" ? o.mod : undefined;
  if (!mod) return x;
  const w = bv.width(x);
  const sign = 1n << BigInt(w - 1);
  const a = mod === "neg" ? x : bv.and(x, bv.k(sign - 1n, w));
  return mod === "abs" ? a : bv.xor(a, bv.k(sign, w));
}

/**
 * Lane `lane` of a source (a VGPR (pair) of the wrong width is an error). The width is
 * checked at the first lane read: every lane of a VGPR is written by one instruction's
 * definition, at one width (a VGPR's lanes are 32 bits: the initial fill, `writeLanes` of a
 * record's lane array, a pair's 32-bit halves), so one lane stands for all of them; the check
 * is per operand and instruction, not per lane (`step` reads billions of lanes in `verify`).
 */
function laneValue<V, B>(bv: BV<V, B>, s: LaneSource<V>, lane: number): V {
  if ("uni" in s) return s.uni;
  const x = s.hi === null ? s.lo[lane]! : bv.concat(s.hi[lane]!, s.lo[lane]!);
  if (!s.checked) {
    if (bv.width(x) !== s.w) throw new InterpError(`operand ${printOp(s.o)} is ${bv.width(x)} bits, expected ${s.w}`);
    s.checked = true;
  }
  return s.mod ? withSrcMod(bv, x, s.o) : x;
}

/** A concrete lane mask built bit by bit in two 32-bit numbers (no bigint per lane). */
class LaneMask {
  lo = 0;
  hi = 0;
  set(lane: number): void {
    if (lane < 32) this.lo = (this.lo | (1 << lane)) >>> 0;
    else this.hi = (this.hi | (1 << (lane - 32))) >>> 0;
  }
  /** The mask as a `W`-bit constant of `bv`. */
  value<V, B>(bv: BV<V, B>, W: number): V {
    return W <= 32 ? bv.k(this.lo, W) : bv.k((BigInt(this.hi) << 32n) | BigInt(this.lo), W);
  }
}

/**
 * The lane mask with bit `lane` = `bits[lane]` (1-bit values; holes: 0). When every bit is
 * concrete the mask is the constant they spell; otherwise the fold `mask | zext(bit) << lane`.
 */
function gatherMask<V, B>(bv: BV<V, B>, bits: V[], W: number): V {
  const k = new LaneMask();
  let allConcrete = true;
  bits.forEach((bit, lane) => {
    const x = bv.asBigint(bit);
    if (x === undefined) allConcrete = false;
    else if (x) k.set(lane);
  });
  if (allConcrete) return k.value(bv, W);
  let mask = bv.k(0, W);
  bits.forEach((bit, lane) => {
    mask = bv.or(mask, bv.shl(bv.zext(bit, W), bv.k(lane, W)));
  });
  return mask;
}

/** The instruction a run's `WaveIO` serves (set by `step` before a `wave` or `branch` record runs). */
interface IoSlot<V> {
  inst: MInst;
  specs: IsaRecord["ops"];
  writes: StepTrace<V>["writes"] | null;
}

/** One `WaveIO` per run (made once, not per instruction): its operand indices are `cur`'s instruction's. */
function waveIo<V, B>(bv: BV<V, B>, st: WaveState<V, B>): WaveIO<V, B> & { cur: IoSlot<V> } {
  const W = st.wave;
  const cur: IoSlot<V> = { inst: { op: "s_nop", ops: [], rule: "" } as MInst, specs: [], writes: null };
  return {
    cur,
    wave: W,
    gen: st.gen,
    read: (i) => readUniform(bv, st, cur.inst.ops[i]!, widthOf(cur.specs[i]!.w, W)),
    readLanes: (i) => {
      const o = cur.inst.ops[i]!;
      if (o.k !== "v") return new Array<V>(W).fill(readUniform(bv, st, o, widthOf(cur.specs[i]!.w, W)));
      return vgprLanes(st, o.n);
    },
    write: (i, x) => {
      writeUniform(bv, st, cur.inst.ops[i]!, x);
      cur.writes?.push({ what: printOp(cur.inst.ops[i]!), value: x });
    },
    writeLanes: (i, lanes) => {
      const o = cur.inst.ops[i]!;
      if (o.k !== "v" || o.count !== 1) throw new InterpError(`${cur.inst.op}: operand ${printOp(o)} must be a VGPR`);
      if (lanes.length !== W) throw new InterpError(`${cur.inst.op}: ${lanes.length} lanes written, expected ${W}`);
      // Each lane 32 bits (a wave record builds its lanes one by one: `laneValue` checks one).
      for (const x of lanes) if (bv.width(x) !== 32) throw new InterpError(`${cur.inst.op}: a lane of ${printOp(o)} written with ${bv.width(x)} bits`);
      st.vgpr.set(o.n, lanes);
      cur.writes?.push({ what: `v${o.n}`, value: lanes });
    },
    exec: () => st.exec,
    setExec: (x) => {
      st.exec = x;
      cur.writes?.push({ what: "exec", value: x });
    },
    scc: () => st.scc,
    setScc: (b) => {
      st.scc = b;
    },
    vcc: () => st.vcc,
  };
}

/** Executes one instruction; returns a branch target label or null. */
function step<V, B>(bv: BV<V, B>, rec: IsaRecord, inst: MInst, st: WaveState<V, B>, writes: StepTrace<V>["writes"] | null, io: WaveIO<V, B> & { cur: IoSlot<V> }): string | null {
  const specs = rec.ops;
  if (inst.ops.length !== specs.length) throw new InterpError(`${inst.op}: ${inst.ops.length} operands, expected ${specs.length}`);
  const { srcIdx, dstIdx } = operandRoles(rec);
  const W = st.wave;
  const sem = rec.sem;
  for (let i = 0; i < inst.ops.length; i++) {
    const o = inst.ops[i]!;
    if ((o.k === "v" || o.k === "s" || o.k === "imm") && o.mod && !(rec.srcMods && "lane" in sem && !specs[i]!.out && specs[i]!.w === 32))
      throw new InterpError(`${inst.op}: the source modifier of ${printOp(o)} is not modelled there`);
  }

  if ("lane" in sem) {
    const exec = st.exec;
    const ons = execBits(bv, exec, W);
    const nd = dstIdx.length;
    const results: V[][] = []; // per destination, per lane
    for (let k = 0; k < nd; k++) results.push([]);
    // The sources are read at the first active lane (none is read when no lane is active).
    let srcs: LaneSource<V>[] | null = null;
    const src: V[] = new Array<V>(srcIdx.length);
    for (let lane = 0; lane < W; lane++) {
      const on = ons[lane]!;
      const onK = bv.asBool(on);
      if (onK === false) continue;
      srcs ??= srcIdx.map((i) => laneSource(bv, st, inst.ops[i]!, widthOf(specs[i]!.w, W)));
      for (let j = 0; j < srcs.length; j++) src[j] = laneValue(bv, srcs[j]!, lane);
      // The records read their sources and never keep or change the array (one per instruction).
      const out = sem.lane(bv, src, lane);
      for (let k = 0; k < nd; k++) {
        const di = dstIdx[k]!;
        const o = inst.ops[di]!;
        // A lane-mask destination (a carry out): this lane's bit, gathered below.
        if (specs[di]!.w === "wave") {
          results[k]![lane] = bv.ite(on, out[k]!, bv.k(0, 1));
          continue;
        }
        if (o.k !== "v") throw new InterpError(`${inst.op}: destination ${printOp(o)} must be a VGPR`);
        const r = out[k]!;
        if (onK === true) results[k]![lane] = r;
        else {
          // Symbolic exec bit: the lane keeps its old value where the bit is 0.
          const old = o.count === 1 ? vgprLanes(st, o.n)[lane]! : bv.concat(vgprLanes(st, o.n + 1)[lane]!, vgprLanes(st, o.n)[lane]!);
          results[k]![lane] = bv.ite(on, r, old);
        }
      }
    }
    for (let k = 0; k < nd; k++) {
      const di = dstIdx[k]!;
      if (specs[di]!.w === "wave") {
        // Each active lane's bit; 0 in inactive lanes (as a VOPC mask).
        const mask = gatherMask(bv, results[k]!, W);
        writeUniform(bv, st, inst.ops[di]!, mask);
        writes?.push({ what: printOp(inst.ops[di]!), value: mask });
        continue;
      }
      const o = inst.ops[di]! as { k: "v"; n: number; count: 1 | 2 };
      for (let part = 0; part < o.count; part++) {
        const n = o.n + part;
        if (!st.vgpr.has(n)) st.vgpr.set(n, new Array<V>(W).fill(bv.k(0, 32)));
        const lanes = vgprLanes(st, n).slice();
        results[k]!.forEach((r, lane) => {
          lanes[lane] = o.count === 1 ? r : bv.extract(r, 32 * part + 31, 32 * part);
        });
        st.vgpr.set(n, lanes);
        writes?.push({ what: `v${n}`, value: lanes });
      }
    }
    return null;
  }

  if ("cmp" in sem) {
    const ons = execBits(bv, st.exec, W);
    let srcs: LaneSource<V>[] | null = null;
    const src: V[] = new Array<V>(srcIdx.length);
    // Each active lane's compare as its bit of the mask (0 in inactive lanes).
    const bits: B[] = [];
    for (let lane = 0; lane < W; lane++) {
      const on = ons[lane]!;
      if (bv.asBool(on) === false) continue;
      srcs ??= srcIdx.map((i) => laneSource(bv, st, inst.ops[i]!, widthOf(specs[i]!.w, W)));
      for (let j = 0; j < srcs.length; j++) src[j] = laneValue(bv, srcs[j]!, lane);
      bits[lane] = bv.andB(on, sem.cmp(bv, src));
    }
    const k = new LaneMask();
    let allConcrete = true;
    bits.forEach((c, lane) => {
      const x = bv.asBool(c);
      if (x === undefined) allConcrete = false;
      else if (x) k.set(lane);
    });
    let mask = allConcrete ? k.value(bv, W) : bv.k(0, W);
    if (!allConcrete)
      bits.forEach((c, lane) => {
        mask = bv.or(mask, bv.ite(c, bv.k(1n << BigInt(lane), W), bv.k(0, W)));
      });
    const dst = inst.ops[dstIdx[0]!]!;
    writeUniform(bv, st, dst, mask);
    writes?.push({ what: printOp(dst), value: mask });
    return null;
  }

  if ("none" in sem) return null;
  if ("scalar" in sem) {
    const src = srcIdx.map((i) => readUniform(bv, st, inst.ops[i]!, widthOf(specs[i]!.w, W)));
    const r = sem.scalar(bv, src, st.scc);
    dstIdx.forEach((di, k) => {
      writeUniform(bv, st, inst.ops[di]!, r.d[k]!);
      writes?.push({ what: printOp(inst.ops[di]!), value: r.d[k]! });
    });
    if (r.scc !== undefined) st.scc = r.scc;
    return null;
  }

  // The run's WaveIO, pointed at this instruction.
  io.cur.inst = inst;
  io.cur.specs = specs;
  io.cur.writes = writes;

  if ("wave" in sem) {
    sem.wave(bv, io);
    return null;
  }
  const taken = bv.asBool(sem.branch(bv, io));
  if (taken === undefined) throw new InterpError(`${inst.op}: branch condition is symbolic`);
  const label = inst.ops[0]!;
  if (label.k !== "label") throw new InterpError(`${inst.op}: operand must be a label`);
  return taken ? label.name : null;
}
