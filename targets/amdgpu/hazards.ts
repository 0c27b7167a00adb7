/**
 * @fileoverview Hardware hazards: the wait states real AMD processors need between some
 * producer → consumer pairs that the hardware does not interlock, written once as data, and
 * the algorithms over that data — the check (`checkHazards`) and the pass that satisfies it
 * (`hazardPass`: reorder to hide wait states, then insert the fewest waits).
 *
 * Sources: the "Manually Inserted Wait States (NOPs)" section (§4.5) of the AMD "Vega" (gfx900),
 * "AMD Instinct MI200" (gfx90a) and "AMD Instinct MI300" (gfx942) ISA reference guides, and the
 * "Data dependency resolution"/"Manually inserted wait states" sections of the RDNA2 (gfx1030)
 * and RDNA3 (gfx1100) guides; LLVM 19 `GCNHazardRecognizer.cpp` (check names cited per rule),
 * which is also the oracle the tests and `npm run crosscheck:llvm` run
 * (../shared/notes/hazards.md). gfx10+ resolve VALU data dependencies in hardware
 * (LLVM `hasNoDataDepHazard`), so the distance rules are gfx9-only; gfx10/gfx11 keep the
 * pattern hazards below.
 *
 * Counting (as LLVM's `getWaitStatesSince`): the wait states between a producer P and a
 * consumer C are the issue cycles of the instructions strictly between them on a path from P
 * to C (`s_nop N` gives N + 1, `s_delay_alu` 0, any other instruction 1; labels none); the
 * nearest producer on each path counts, the minimum over all paths (back-edges included) is
 * what the consumer gets. A rule is violated when that is less than its wait states.
 *
 * Boundaries: routines are inline fragments. `contractBoundary` states what a routine may
 * assume at entry and must guarantee at exit (README, "Hazards at the routine boundary"):
 * virtual producers before the first instruction and virtual consumers after the last one,
 * checked by the same rules. `LLVM_ENTRY` is LLVM's own assumption for whole functions:
 * nothing pending at entry, nothing after the end.
 */
import type { MInst, MLine, MOp } from "./minst.js";
import { imm, isLabel, printOp } from "./minst.js";
import { record } from "./isa/index.js";
import type { HazardRoles, IsaRecord, Unit } from "./isa/record.js";
import { unitOf } from "./isa/record.js";
import { issueCyclesOf } from "./isa/record.js";
import type { Mcpu } from "./regs.js";
import { isInlineConstant } from "./regs.js";

/** A 32-bit register unit: `v3`, `s4`, `vcc_lo`, `vcc_hi`, `exec_lo`, `exec_hi`, `scc`. */
export type RegUnit = string;
export type RegKind = "VGPR" | "SGPR" | "VCC" | "EXEC" | "SCC";

export function regKind(u: RegUnit): RegKind {
  if (u.startsWith("vcc")) return "VCC";
  if (u.startsWith("exec")) return "EXEC";
  if (u === "scc") return "SCC";
  return u[0] === "v" ? "VGPR" : "SGPR";
}

/** The 32-bit units an operand names (pairs are two units; `vcc`/`exec` both halves). */
export function unitsOf(o: MOp): RegUnit[] {
  switch (o.k) {
    case "v":
    case "s":
      return o.count === 1 ? [`${o.k}${o.n}`] : [`${o.k}${o.n}`, `${o.k}${o.n + 1}`];
    case "vcc":
    case "exec":
      return [`${o.k}_lo`, `${o.k}_hi`];
    case "vcc_lo":
    case "exec_lo":
    case "vcc_hi":
    case "exec_hi":
    case "scc":
      return [o.k];
    default:
      return [];
  }
}

const IMPLICIT: Record<"exec" | "scc" | "vcc", RegUnit[]> = { exec: ["exec_lo", "exec_hi"], vcc: ["vcc_lo", "vcc_hi"], scc: ["scc"] };

/** The processor as the rules see it: LLVM 19 subtarget features by mcpu, and the wave size. */
export interface HazardTarget {
  mcpu: Mcpu;
  gen: 9 | 10 | 11;
  wave: 32 | 64;
}

/** One instruction as the hazard rules see it (a routine line, or a virtual boundary instruction). */
export interface HazInst {
  /** Printed text, for diagnostics. */
  text: string;
  unit: Unit;
  op: string;
  roles: HazardRoles;
  /** Every register unit written (explicit and implicit). */
  defs: RegUnit[];
  /** Explicit register source operands (lane masks and lane selects included). */
  srcs: RegUnit[];
  /** Explicit lane-mask sources (an operand of width "wave": `v_cndmask_b32`'s mask). */
  masks: RegUnit[];
  laneSelect: RegUnit[];
  readlaneSrc: RegUnit[];
  /** Implicit reads (`uses`: exec, vcc, scc). */
  implicit: RegUnit[];
  /** A source is a literal that is not an inline constant. */
  literal: boolean;
  /** Issue cycles = the wait states the instruction provides to later ones. */
  cycles: number;
  /** The immediate of a wait (`s_waitcnt_depctr`'s SIMM16), when it is one. */
  simm16?: bigint;
}

/** A hazard view with nothing read or written yet (a boundary instruction, or the start of `hazInst`). */
const virtual = (text: string, unit: Unit, op: string, rest: Partial<HazInst>): HazInst => ({
  text,
  unit,
  op,
  roles: {},
  defs: [],
  srcs: [],
  masks: [],
  laneSelect: [],
  readlaneSrc: [],
  implicit: [],
  literal: false,
  cycles: 1,
  ...rest,
});

/** The hazard view of one emitted instruction. */
export function hazInst(line: MInst): HazInst {
  let h = hazInstCache.get(line);
  if (!h) hazInstCache.set(line, (h = hazInstOf(line)));
  return h;
}

/**
 * `hazInst` once per instruction object: the pass analyses a block once per reordering it
 * tries, of the same instructions, and a view is never changed once made (its lists are
 * filled here only). The hazard analysis sees finished instructions: the in-place edits of
 * an instruction (rules/vsh.ts `finish`, asm.ts's parse setting `enc`) happen while its
 * sequence is being built, before any analysis of it.
 */
const hazInstCache = new WeakMap<MInst, HazInst>();

function hazInstOf(line: MInst): HazInst {
  const rec: IsaRecord = record(line.op);
  const roles = rec.hazard ?? {};
  const h = virtual(showInst(line), unitOf(rec), line.op, { roles, cycles: issueCyclesOf(rec, line) });
  rec.ops.forEach((spec, i) => {
    const o = line.ops[i];
    if (!o) return;
    const us = unitsOf(o);
    if (spec.out) h.defs.push(...us);
    if (spec.out && spec.tied) h.srcs.push(...us);
    if (!spec.out && !spec.ctrl) {
      h.srcs.push(...us);
      if (spec.w === "wave") h.masks.push(...us);
      if (i === roles.laneSelect) h.laneSelect.push(...us);
      if (i === roles.readlaneSrc) h.readlaneSrc.push(...us);
      if (o.k === "imm" && !spec.ctrl && !isInlineConstant(o.value)) h.literal = true;
    }
  });
  for (const u of rec.uses ?? []) h.implicit.push(...IMPLICIT[u]);
  for (const d of rec.defs ?? []) h.defs.push(...IMPLICIT[d]);
  if (rec.sem && "none" in rec.sem && line.ops[0]?.k === "imm") h.simm16 = line.ops[0].value;
  return h;
}

function showInst(l: MInst): string {
  return `${l.op}${l.enc ? `_${l.enc}` : ""}${l.ops.length ? " " + l.ops.map(printOp).join(", ") : ""}`;
}

const overlap = (xs: readonly RegUnit[], ys: readonly RegUnit[]): RegUnit | undefined => xs.find((x) => ys.includes(x));
const scalarKinds = (us: RegUnit[]) => us.filter((u) => regKind(u) !== "VGPR" && regKind(u) !== "SCC");
const kinds = (us: RegUnit[], ...ks: RegKind[]) => us.filter((u) => ks.includes(regKind(u)));

// ---------------------------------------------------------------------------------------
// The rules

/**
 * A distance rule: after an instruction `producer` writes a register, a `consumer` that reads
 * it in the named way must come `waitStates` wait states later or more. The fix is `s_nop`.
 */
export interface WaitRule {
  id: string;
  /** Processors (LLVM subtarget feature) it applies to, in words and as a test. */
  procs: string;
  on: (t: HazardTarget) => boolean;
  producer: string;
  consumer: string;
  /** How the consumer reads the register: operand, lane mask, lane select, exec, … */
  read: string;
  waitStates: number;
  isProducer: (p: HazInst) => boolean;
  /** The units of `c` this rule protects; empty when `c` is not one of its consumers. */
  consumerUnits: (c: HazInst) => RegUnit[];
  /** The manual's row and LLVM's check. */
  manual: string;
  llvm: string;
}

const gfx9 = (t: HazardTarget) => t.gen === 9;
const gfx940 = (t: HazardTarget) => t.mcpu === "gfx942";
const valu = (p: HazInst) => p.unit === "VALU";

export const WAIT_RULES: readonly WaitRule[] = [
  {
    id: "dpp-reads-vgpr",
    procs: "gfx900 gfx90a gfx942",
    on: gfx9,
    producer: "any instruction writes a VGPR",
    consumer: "DPP instruction",
    read: "VGPR source",
    waitStates: 2,
    isProducer: () => true,
    consumerUnits: (c) => (c.roles.dpp ? kinds(c.srcs, "VGPR") : []),
    manual: "Vega/MI200/MI300 §4.5: VALU writes VGPR → VALU DPP reads that VGPR: 2",
    llvm: "checkDPPHazards (DppVgprWaitStates = 2)",
  },
  {
    id: "dpp-after-valu-exec",
    procs: "gfx900 gfx90a gfx942",
    on: gfx9,
    producer: "VALU writes EXEC (v_cmpx)",
    consumer: "DPP instruction",
    read: "EXEC",
    waitStates: 5,
    isProducer: valu,
    consumerUnits: (c) => (c.roles.dpp ? ["exec_lo", "exec_hi"] : []),
    manual: "Vega/MI200/MI300 §4.5: VALU writes EXEC → VALU DPP op: 5",
    llvm: "checkDPPHazards (DppExecWaitStates = 5)",
  },
  {
    id: "lane-select-after-valu-sgpr",
    procs: "gfx900 gfx90a gfx942",
    on: gfx9,
    producer: "VALU writes an SGPR or VCC (v_cmp, v_readlane, v_readfirstlane, carry-out)",
    consumer: "v_readlane_b32 / v_writelane_b32",
    read: "lane select",
    waitStates: 4,
    isProducer: valu,
    consumerUnits: (c) => scalarKinds(c.laneSelect),
    manual: "Vega/MI200/MI300 §4.5: VALU writes SGPR/VCC → V_{READ,WRITE}LANE using that SGPR/VCC as the lane select: 4",
    llvm: "checkRWLaneHazards (RWLaneWaitStates = 4)",
  },
  {
    id: "valu-reads-valu-sgpr",
    procs: "gfx942",
    on: gfx940,
    producer: "VALU writes an SGPR, VCC or EXEC",
    consumer: "VALU",
    read: "scalar operand, lane mask or implicit VCC",
    waitStates: 2,
    isProducer: valu,
    consumerUnits: (c) =>
      c.unit === "VALU" ? [...new Set([...scalarKinds(c.srcs), ...c.implicit.filter((u) => regKind(u) === "VCC")])] : [],
    manual: "MI300 §4.5: VALU writes SGPR/VCC (v_readlane, v_readfirstlane, v_cmp, carry-out) → VALU reads that SGPR/VCC: 2",
    llvm: "checkVALUHazards, hasVDecCoExecHazard (VALUWriteSGPRVALUReadWaitstates = 2)",
  },
  {
    id: "readlane-reads-valu-vgpr",
    procs: "gfx942",
    on: gfx940,
    producer: "VALU writes a VGPR",
    consumer: "v_readlane_b32 / v_readfirstlane_b32",
    read: "VGPR source (src0)",
    waitStates: 1,
    isProducer: valu,
    consumerUnits: (c) => kinds(c.readlaneSrc, "VGPR"),
    manual: "MI300 §4.5: VALU writes VGPR → v_readlane/v_readfirstlane vsrc0 reads that VGPR: 1",
    llvm: "checkVALUHazards, hasVDecCoExecHazard (VALUWriteVGPRReadlaneRead = 1)",
  },
  {
    id: "rwlane-after-valu-exec",
    procs: "gfx942",
    on: gfx940,
    producer: "VALU writes EXEC (v_cmpx)",
    consumer: "v_readlane_b32 / v_readfirstlane_b32 / v_writelane_b32",
    read: "EXEC",
    waitStates: 4,
    isProducer: valu,
    consumerUnits: (c) => (c.roles.rwLane ? ["exec_lo", "exec_hi"] : []),
    manual: "MI300 §4.5: VALU writes EXEC → v_readlane/v_readfirstlane/v_writelane: 4",
    llvm: "checkVALUHazards, hasVDecCoExecHazard (VALUWriteEXECRWLane = 4)",
  },
];

/**
 * A pattern rule: a hazard between two instructions that no number of wait states of other
 * instructions cures, only an intervening instruction of a given kind (or the fix itself,
 * `s_waitcnt_depctr`). The search goes back from each trigger until an expiring instruction.
 */
export interface PatternRule {
  id: string;
  procs: string;
  on: (t: HazardTarget) => boolean;
  /** The units the trigger instruction puts at risk; empty when it is no trigger. */
  trigger: (c: HazInst) => RegUnit[];
  /** An earlier instruction that completes the hazard with the trigger for these units. */
  hazard: (p: HazInst, units: RegUnit[]) => RegUnit | undefined;
  /** An instruction between the two that ends the hazard. */
  expires: (x: HazInst, units: RegUnit[]) => boolean;
  /** The fix: `s_waitcnt_depctr simm16`, placed before or after the trigger. */
  fix: { simm16: number; where: "before" | "after" };
  description: string;
  manual: string;
  llvm: string;
}

/** `s_waitcnt_depctr` with sa_sdst(0) (SIMM16 bit 0 clear, other counters "don't wait"). */
export const DEPCTR_SA_SDST0 = 0xfffe;
const saSdst0 = (x: HazInst) => x.op === "s_waitcnt_depctr" && x.simm16 !== undefined && (x.simm16 & 1n) === 0n;

export const PATTERN_RULES: readonly PatternRule[] = [
  {
    id: "valu-mask-write",
    procs: "gfx1100 in wave64",
    on: (t) => t.gen === 11 && t.wave === 64,
    // 1. VALU reads an SGPR as a lane mask, 2. SALU writes it, 3. it is read: LLVM assumes 3.
    trigger: (c) => {
      if (c.unit !== "SALU") return [];
      return kinds(c.defs, "SGPR", "VCC").filter((u) => u !== "scc");
    },
    hazard: (p, units) => (p.unit === "VALU" ? overlap(p.masks, units) : undefined),
    expires: (x, units) => saSdst0(x) || (x.unit === "VALU" && (x.literal || [...scalarKinds(x.srcs), ...x.implicit.filter((u) => regKind(u) === "VCC")].some((u) => !units.includes(u) && regKind(u) !== "EXEC"))),
    fix: { simm16: DEPCTR_SA_SDST0, where: "after" },
    description: "VALU reads an SGPR as a lane mask, then a SALU writes that SGPR",
    manual: "RDNA3 §4.5 (wave64): VALU reads SGPR as mask → SALU writes that SGPR → reads it: s_waitcnt_depctr sa_sdst(0)",
    llvm: "fixVALUMaskWriteHazard",
  },
  {
    id: "vcmpx-exec-war",
    // LLVM 19 enables this only for GFX10.1 (gfx1010–gfx1013, FeatureVcmpxExecWARHazard, a
    // GFX10.1 bug): on gfx1030 and gfx1100 post-RA-hazard-rec adds nothing between
    // `s_mov_b32 s4, exec_lo` and `v_cmpx_ne_u32_e32` (measured, targets/amdgpu/oracle/llc_hazards.ts:
    // llc's own divergent if/else and loops on gfx1030/gfx1100 have exactly that pair).
    procs: "gfx1010–gfx1013 (none of the five processors here)",
    on: (t) => (t.mcpu as string).startsWith("gfx101"),
    trigger: (c) => (c.unit === "VALU" ? kinds(c.defs, "EXEC") : []),
    hazard: (p, units) => (p.unit !== "VALU" ? overlap([...p.srcs, ...p.implicit], units) : undefined),
    expires: (x) => saSdst0(x) || (x.unit === "VALU" && !x.roles.rwLane && kinds(x.defs, "SGPR", "VCC").length > 0),
    fix: { simm16: DEPCTR_SA_SDST0, where: "before" },
    description: "a non-VALU instruction reads EXEC, then a VALU (v_cmpx) writes EXEC",
    manual: "GFX10.1 (gfx101x) hardware bug per LLVM (FeatureVcmpxExecWARHazard): SALU reads EXEC → VALU writes EXEC (v_cmpx): s_waitcnt_depctr sa_sdst(0); not applied to RDNA2/RDNA3",
    llvm: "fixVcmpxExecWARHazard (hasVcmpxExecWARHazard: GFX10.1 only)",
  },
];

/**
 * gfx90a: a 64-bit VALU shift (`v_lshlrev_b64`, `v_lshrrev_b64`, `v_ashrrev_i64`) whose count
 * (src0) is the last VGPR of an 8-register allocation block, v(8k+7), reads a wrong count when
 * v(8k+8) is not allocated (LLVM `fixShift64HighRegBug`, `hasShift64HighRegBug`: gfx90a only;
 * LLVM treats v(8k+8) as allocated when the function uses it). Not a wait-state rule: the fix
 * is the register choice (`lowerWithRule` renames such a scratch count).
 * @returns the count registers (VGPR numbers) that break the rule
 */
export function shift64HighRegHits(lines: readonly MLine[], t: HazardTarget): number[] {
  if (t.mcpu !== "gfx90a") return [];
  const used = new Set<number>();
  for (const l of lines) if (!isLabel(l)) for (const o of l.ops) if (o.k === "v") for (let i = 0; i < o.count; i++) used.add(o.n + i);
  const hits = new Set<number>();
  for (const l of lines) {
    if (isLabel(l) || !record(l.op).hazard?.shift64) continue;
    const amt = l.ops[1];
    if (amt?.k === "v" && amt.count === 1 && amt.n % 8 === 7 && !used.has(amt.n + 1)) hits.add(amt.n);
  }
  return [...hits];
}

// ---------------------------------------------------------------------------------------
// Boundaries

/**
 * What a routine assumes before its first instruction and guarantees after its last: the
 * units a VALU may have written in the instruction just before it, and the instructions that
 * may come right after it. Both are checked by the same rules as the routine's own pairs.
 */
export interface Boundary {
  name: string;
  /** Written by a VALU in the instruction just before the routine. */
  entryValu: RegUnit[];
  /**
   * Last written by a SALU before the routine (the contract: EXEC). No rule here has a SALU
   * producer, so the check needs nothing for them; the LLVM oracle (mir.ts) puts the write there.
   */
  entrySalu: RegUnit[];
  /** Virtual consumers right after the routine. */
  exit: HazInst[];
}

/** LLVM's own assumption for a whole function: nothing pending at entry, nothing after it. */
export const LLVM_ENTRY: Boundary = { name: "LLVM's function entry", entryValu: [], entrySalu: [], exit: [] };



/**
 * The routine contract's safe default (README table): at entry every VGPR, SGPR and VCC
 * input may have been written by a VALU in the instruction just before, and EXEC was last
 * written by a SALU; at exit every VGPR output may next be read by DPP or by
 * `v_readlane`/`v_readfirstlane`, and every SGPR/VCC output by a VALU as an operand or a lane
 * mask, or by `v_readlane`/`v_writelane` as the lane select.
 * On wave64 a VALU that writes an SGPR input as a lane mask (`v_cmp_*_e64 s[n:n+1]`) writes
 * the aligned pair, so the other half of each SGPR input's pair counts as written too (LLVM
 * looks past a later SALU write of that half: a scratch SGPR the routine sets and a VALU
 * reads still waits).
 * @param inputs the routine's input operands (sources, guard, prior d, prior p)
 * @param outputs its output operands (d, p)
 */
export function contractBoundary(inputs: readonly MOp[], outputs: readonly MOp[], wave: 32 | 64): Boundary {
  const exit: HazInst[] = [];
  for (const o of outputs) {
    const us = unitsOf(o);
    if (us.length === 0) continue;
    if (regKind(us[0]!) === "VGPR") {
      exit.push(virtual(`next: a DPP instruction reads ${printOp(o)}`, "VALU", "v_mov_b32_dpp", { roles: { dpp: true }, srcs: us, implicit: ["exec_lo", "exec_hi"] }));
      exit.push(virtual(`next: v_readfirstlane_b32 reads ${printOp(o)}`, "VALU", "v_readfirstlane_b32", { roles: { rwLane: true }, srcs: us, readlaneSrc: us }));
    } else {
      exit.push(virtual(`next: a VALU reads ${printOp(o)} as an operand`, "VALU", "v_add_u32", { srcs: us, implicit: ["exec_lo", "exec_hi"] }));
      exit.push(virtual(`next: a VALU reads ${printOp(o)} as a lane mask`, "VALU", "v_cndmask_b32", { srcs: us, masks: us, implicit: ["exec_lo", "exec_hi"] }));
      exit.push(virtual(`next: v_readlane_b32 uses ${printOp(o)} as the lane select`, "VALU", "v_readlane_b32", { roles: { rwLane: true }, srcs: us, laneSelect: us }));
      exit.push(virtual(`next: v_writelane_b32 uses ${printOp(o)} as the lane select`, "VALU", "v_writelane_b32", { roles: { rwLane: true }, srcs: us, laneSelect: us }));
    }
  }
  const entry = inputs.flatMap(unitsOf);
  if (wave === 64) for (const u of [...entry]) if (regKind(u) === "SGPR") entry.push(`s${Number(u.slice(1)) ^ 1}`);
  return { name: "the routine contract", entryValu: [...new Set(entry)], entrySalu: ["exec_lo", "exec_hi"], exit };
}

// ---------------------------------------------------------------------------------------
// The check

/** One violated rule, with the two instructions, the register and the wait states. */
export interface HazardViolation {
  rule: string;
  producer: string;
  consumer: string;
  /** Line indices (−1: the entry boundary; lines.length: the exit boundary). */
  producerAt: number;
  consumerAt: number;
  reg: RegUnit;
  /** Wait states the rule needs, and those the sequence has (pattern rules: 0 of 1). */
  needed: number;
  have: number;
  fix: string;
  manual: string;
}

const ENTRY = -1;

/** The lines that can execute immediately before line i (ENTRY for the first); i = lines.length is the exit. */
function predecessors(lines: readonly MLine[]): number[][] {
  const labelAt = new Map<string, number>();
  lines.forEach((l, i) => {
    if (isLabel(l)) labelAt.set(l.label, i);
  });
  const preds: number[][] = Array.from({ length: lines.length + 1 }, () => []);
  preds[0]!.push(ENTRY);
  lines.forEach((l, i) => {
    if (isLabel(l)) {
      preds[i + 1]!.push(i);
      return;
    }
    const target = l.ops.find((o) => o.k === "label");
    if (target && target.k === "label") {
      const to = labelAt.get(target.name);
      if (to !== undefined) preds[to]!.push(i);
      if (l.op !== "s_branch") preds[i + 1]!.push(i);
    } else preds[i + 1]!.push(i);
  });
  return preds;
}

interface Found {
  have: number;
  at: number;
  reg: RegUnit;
  producer: HazInst;
}

class Analysis {
  readonly preds: number[][];
  readonly views: (HazInst | null)[];
  readonly entry: HazInst;
  /** Wait states to be inserted right before line i (the pass fills it; the check leaves 0). */
  readonly pads: number[];
  constructor(
    readonly lines: readonly MLine[],
    readonly boundary: Boundary,
  ) {
    this.pads = new Array<number>(lines.length + 1).fill(0);
    this.preds = predecessors(lines);
    this.views = lines.map((l) => (isLabel(l) ? null : hazInst(l)));
    this.entry = virtual(`before the routine: a VALU wrote ${boundary.entryValu.join(", ") || "nothing"}`, "VALU", "v_mov_b32", { defs: boundary.entryValu });
  }
  consumerAt(i: number): HazInst[] {
    return i === this.lines.length ? this.boundary.exit : this.views[i] ? [this.views[i]!] : [];
  }
  /** The nearest producer on every path back from i: the path with the fewest wait states. */
  nearest(i: number, match: (p: HazInst) => RegUnit | undefined, limit: number): Found | null {
    let best: Found | null = null;
    const seen = new Map<number, number>();
    const stack: [number, number][] = this.preds[i]!.map((j) => [j, this.pads[i]!]);
    while (stack.length) {
      const [j, acc] = stack.pop()!;
      if (acc >= limit || (best && acc >= best.have)) continue;
      if ((seen.get(j) ?? Infinity) <= acc) continue;
      seen.set(j, acc);
      const h = j === ENTRY ? this.entry : this.views[j];
      if (h) {
        const reg = match(h);
        if (reg !== undefined) {
          if (!best || acc < best.have) best = { have: acc, at: j, reg, producer: h };
          continue;
        }
      }
      if (j === ENTRY) continue;
      const acc2 = acc + (h ? h.cycles : 0) + this.pads[j]!;
      for (const k of this.preds[j]!) stack.push([k, acc2]);
    }
    return best;
  }
  /** Pattern search: an earlier hazard instruction on some path back from i before an expiring one. */
  pattern(i: number, r: PatternRule, units: RegUnit[]): Found | null {
    const seen = new Set<number>();
    const stack = [...this.preds[i]!];
    while (stack.length) {
      const j = stack.pop()!;
      if (j === ENTRY || seen.has(j)) continue;
      seen.add(j);
      const h = this.views[j];
      if (h) {
        const reg = r.hazard(h, units);
        if (reg !== undefined) return { have: 0, at: j, reg, producer: h };
        if (r.expires(h, units)) continue;
      }
      stack.push(...this.preds[j]!);
    }
    return null;
  }
}

/** The wait-state deficit of position i under the distance rules (0 when satisfied). */
function deficitAt(a: Analysis, i: number, t: HazardTarget, out?: HazardViolation[]): number {
  let need = 0;
  for (const c of a.consumerAt(i))
    for (const r of WAIT_RULES) {
      if (!r.on(t)) continue;
      const units = r.consumerUnits(c);
      if (units.length === 0) continue;
      const f = a.nearest(i, (p) => (r.isProducer(p) ? overlap(p.defs, units) : undefined), r.waitStates);
      if (!f) continue;
      const d = r.waitStates - f.have;
      if (d <= 0) continue;
      need = Math.max(need, d);
      out?.push({ rule: r.id, producer: f.producer.text, consumer: c.text, producerAt: f.at, consumerAt: i, reg: f.reg, needed: r.waitStates, have: f.have, fix: `s_nop ${d - 1} before the consumer`, manual: r.manual });
    }
  return need;
}

/** Pattern-rule hazards whose trigger is at i. */
function patternsAt(a: Analysis, i: number, t: HazardTarget, out?: HazardViolation[]): PatternRule[] {
  const hits: PatternRule[] = [];
  for (const c of a.consumerAt(i))
    for (const r of PATTERN_RULES) {
      if (!r.on(t)) continue;
      const units = r.trigger(c);
      if (units.length === 0) continue;
      // An s_waitcnt_depctr placed right after the trigger is the fix of an "after" rule.
      if (r.fix.where === "after") {
        const next = a.views[i + 1];
        if (next && saSdst0(next)) continue;
      }
      const f = a.pattern(i, r, units);
      if (!f) continue;
      hits.push(r);
      out?.push({ rule: r.id, producer: f.producer.text, consumer: c.text, producerAt: f.at, consumerAt: i, reg: f.reg, needed: 1, have: 0, fix: `s_waitcnt_depctr 0x${r.fix.simm16.toString(16)} ${r.fix.where} the second`, manual: r.manual });
    }
  return hits;
}

/**
 * Every hazard of `lines` on processor `t` under `boundary`, in line order.
 * @returns an empty list when the sequence satisfies every rule of its processor
 */
export function checkHazards(lines: readonly MLine[], t: HazardTarget, boundary: Boundary): HazardViolation[] {
  const a = new Analysis(lines, boundary);
  const out: HazardViolation[] = [];
  for (let i = 0; i <= lines.length; i++) {
    deficitAt(a, i, t, out);
    patternsAt(a, i, t, out);
  }
  for (const n of shift64HighRegHits(lines, t)) {
    const at = lines.findIndex((l) => !isLabel(l) && record(l.op).hazard?.shift64 && l.ops[1]?.k === "v" && l.ops[1].n === n);
    const text = showInst(lines[at] as MInst);
    out.push({ rule: "shift64-high-reg", producer: text, consumer: text, producerAt: at, consumerAt: at, reg: `v${n}`, needed: 1, have: 0, fix: `a count register other than v(8k+7)`, manual: "MI200: 64-bit shift with the count in the last VGPR of an allocation block (LLVM fixShift64HighRegBug)" });
  }
  return out;
}

/** A violation as one line for a counterexample: the two instructions, the register, the wait states. */
export function formatViolation(v: HazardViolation): string {
  return `${v.rule}: \`${v.producer}\` → \`${v.consumer}\` on ${v.reg}: ${v.needed} wait state${v.needed === 1 ? "" : "s"} needed, ${v.have} present (${v.manual})`;
}

// ---------------------------------------------------------------------------------------
// The pass

const nop = (n: number, rule: string): MInst => ({ op: "s_nop", ops: [imm(n)], rule });
const depctr = (x: number, rule: string): MInst => ({ op: "s_waitcnt_depctr", ops: [imm(x)], rule });

/**
 * Inserts the fewest waits that satisfy every rule: before each consumer an `s_nop` of exactly
 * its deficit (placed latest, so that it serves every later consumer too), and each pattern
 * hazard's `s_waitcnt_depctr`. Inserting wait states only lengthens other distances, so one
 * forward pass reaches the fixed point (the result is checked in the tests).
 */
export function insertWaits(lines: readonly MLine[], t: HazardTarget, boundary: Boundary, rule = "hazard"): MLine[] {
  // Distance rules: one forward pass over one analysis, the waits kept as pads before each
  // position (a pad only lengthens the distances that pass it), then written out as s_nop.
  const a = new Analysis(lines, boundary);
  for (let i = 0; i <= lines.length; i++) a.pads[i] = deficitAt(a, i, t);
  let out: MLine[] = [];
  const pad = (n: number) => {
    for (let left = n; left > 0; left -= 8) out.push(nop(Math.min(left, 8) - 1, rule));
  };
  lines.forEach((l, i) => {
    pad(a.pads[i]!);
    out.push(l);
  });
  pad(a.pads[lines.length]!);
  if (!PATTERN_RULES.some((r) => r.on(t))) return out;
  for (let i = 0; i <= out.length; i++) {
    const b = new Analysis(out, boundary);
    for (const r of patternsAt(b, i, t)) {
      const at = r.fix.where === "before" ? i : i + 1;
      out = [...out.slice(0, at), depctr(r.fix.simm16, rule), ...out.slice(at)];
      if (r.fix.where === "before") i++;
      break;
    }
  }
  return out;
}

/** Wait cycles added by `insertWaits`, loop bodies weighted as executed 32 times. */
function waitCost(lines: readonly MLine[]): number {
  const labels = new Map<string, number>();
  lines.forEach((l, i) => isLabel(l) && labels.set(l.label, i));
  const inLoop = new Array<boolean>(lines.length).fill(false);
  lines.forEach((l, i) => {
    if (isLabel(l)) return;
    const tgt = l.ops.find((o) => o.k === "label");
    const to = tgt && tgt.k === "label" ? labels.get(tgt.name) : undefined;
    if (to !== undefined && to <= i) for (let k = to; k <= i; k++) inLoop[k] = true;
  });
  let c = 0;
  lines.forEach((l, i) => {
    if (!isLabel(l) && l.rule === "hazard") c += hazInst(l).cycles * (inLoop[i] ? 32 : 1);
  });
  return c;
}

/** Whether b must stay after a (a register dependence: RAW, WAR or WAW, implicit state included). */
function dependent(a: HazInst, b: HazInst): boolean {
  const aReads = [...a.srcs, ...a.implicit];
  const bReads = [...b.srcs, ...b.implicit];
  return overlap(a.defs, bReads) !== undefined || overlap(aReads, b.defs) !== undefined || overlap(a.defs, b.defs) !== undefined;
}

/** The straight-line runs of a routine that may be reordered: no labels, no branches, no waits. */
function blocks(lines: readonly MLine[]): [number, number][] {
  const out: [number, number][] = [];
  let start = 0;
  lines.forEach((l, i) => {
    const barrier = isLabel(l) || l.ops.some((o) => o.k === "label") || record(l.op).sem.hasOwnProperty("none");
    if (barrier) {
      if (i > start) out.push([start, i]);
      start = i + 1;
    }
  });
  if (lines.length > start) out.push([start, lines.length]);
  return out;
}

/** Topological orders of one block (index lists), at most `cap`, the original order first. */
function orders(views: HazInst[], cap: number): number[][] {
  const n = views.length;
  // waiting[k]: k's earlier dependences not placed yet; after[i]: the later ones that wait on i.
  const waiting = new Array<number>(n).fill(0);
  const after: number[][] = Array.from({ length: n }, () => []);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < j; i++)
      if (dependent(views[i]!, views[j]!)) {
        waiting[j]!++;
        after[i]!.push(j);
      }
  const out: number[][] = [];
  const cur: number[] = [];
  const used = new Array<boolean>(n).fill(false);
  // Depth first, the lowest free index first: the orders in lexicographic order, the original first.
  const go = (): void => {
    if (cur.length === n) {
      out.push([...cur]);
      return;
    }
    for (let k = 0; k < n && out.length < cap; k++) {
      if (used[k] || waiting[k]! > 0) continue;
      used[k] = true;
      cur.push(k);
      for (const j of after[k]!) waiting[j]!--;
      go();
      for (const j of after[k]!) waiting[j]!++;
      cur.pop();
      used[k] = false;
    }
  };
  go();
  return out;
}

/**
 * The hazard pass: first tries to hide wait states with the routine's own independent
 * instructions (reordering each straight-line block within its register dependences, keeping
 * the original order unless another one needs fewer wait cycles), then inserts the fewest
 * waits (`insertWaits`). A reordering is a scheduling choice like any other: the checker and
 * the prover run on the result.
 */
export function hazardPass(lines: readonly MLine[], t: HazardTarget, boundary: Boundary): Padded {
  const rules = [...new Set(lines.map((l) => (isLabel(l) ? "" : l.rule)))].join(",");
  const key = `${rules}|${t.mcpu}/${t.wave}|${boundary.entryValu.join(",")}|${boundary.exit.map((x) => x.text).join(",")}|${lines.map((l) => (isLabel(l) ? `${l.label}:` : shapeOf(l))).join(";")}`;
  const hit = passCache.get(key);
  if (hit) return { lines: hit.recipe.map((x) => (typeof x === "number" ? lines[x]! : x)), hidden: hit.hidden };
  const best = schedule(lines, t, boundary);
  const at = new Map<MLine, number>(lines.map((l, i) => [l, i]));
  // One object at two places (a rule's shared line) would leave the recipe unable to say which
  // of two same-shape lines of another sequence goes where: such a result is not kept.
  if (at.size === lines.length) {
    if (passCache.size > 20_000) passCache.clear();
    passCache.set(key, { recipe: best.lines.map((l) => at.get(l) ?? l), hidden: best.hidden });
  }
  return { lines: [...best.lines], hidden: best.hidden };
}

/** A padded sequence, and the wait cycles its reordering hid (weighted as `waitCost`: loop bodies ×32). */
export interface Padded {
  lines: MLine[];
  hidden: number;
}

/**
 * `hazardPass`'s results by the shape of their input: each output line as the index of an input
 * line (a reordering) or an inserted wait. Sequences of one shape differ only in immediates the
 * analysis does not read, so they get the same reordering and the same waits: the vshl/vshr
 * forms differ mostly in their shift amounts and masks (156,800 routines, far fewer shapes).
 */
const passCache = new Map<string, { recipe: (number | MLine)[]; hidden: number }>();

/**
 * An instruction as the hazard analysis sees it (`hazInstOf`): mnemonic, encoding, registers
 * and labels as written; of an immediate source only whether it is a literal (not an inline
 * constant), except where the value is read: control operands, and every operand of a wait
 * (`s_nop N`, `s_waitcnt_depctr`: its simm16 and issue cycles).
 */
function shapeOf(l: MInst): string {
  const rec = record(l.op);
  const exact = "none" in rec.sem;
  let s = `${l.op}${l.enc ? `_${l.enc}` : ""}`;
  l.ops.forEach((o, i) => {
    s += i ? "," : " ";
    s += o.k !== "imm" || exact || rec.ops[i]?.ctrl ? printOp(o) : isInlineConstant(o.value) ? "#i" : "#l";
  });
  return s;
}

function schedule(lines: readonly MLine[], t: HazardTarget, boundary: Boundary): Padded {
  let best = insertWaits(lines, t, boundary);
  const original = waitCost(best);
  let bestCost = original;
  if (bestCost === 0) return { lines: best, hidden: 0 };
  let cur = [...lines];
  for (const [s, e] of blocks(cur)) {
    const block = cur.slice(s, e) as MInst[];
    if (block.length < 2) continue;
    const views = block.map(hazInst);
    for (const ord of orders(views, 240).slice(1)) {
      const cand = [...cur.slice(0, s), ...ord.map((k) => block[k]!), ...cur.slice(e)];
      const cost = placedCost(cand, t, boundary);
      if (cost < bestCost) {
        best = cand;
        bestCost = cost;
        cur = cand;
        // No later order can cost less than nothing: the one kept is the one the full search keeps.
        if (bestCost === 0) break;
      }
    }
    if (bestCost === 0) break;
  }
  // `best` is the padded original, or the reordering that costs least (padded here, once).
  return { lines: bestCost === original ? best : insertWaits(best, t, boundary), hidden: original - bestCost };
}

/**
 * `waitCost(insertWaits(lines, t, boundary))`, without building the padded sequence where
 * that is the same number: with no loop (no branch back) every inserted wait counts once,
 * and the pads `insertWaits` computes are the s_nop cycles it writes (a pad of n wait states
 * is s_nops of n cycles), plus the waits already in `lines`; with a loop, or a processor with
 * pattern rules (their `s_waitcnt_depctr` goes in after the pads), the padded sequence is built.
 */
function placedCost(lines: readonly MLine[], t: HazardTarget, boundary: Boundary): number {
  if (PATTERN_RULES.some((r) => r.on(t)) || hasLoop(lines)) return waitCost(insertWaits(lines, t, boundary));
  const a = new Analysis(lines, boundary);
  let c = 0;
  for (let i = 0; i <= lines.length; i++) c += a.pads[i] = deficitAt(a, i, t);
  for (const l of lines) if (!isLabel(l) && l.rule === "hazard") c += hazInst(l).cycles;
  return c;
}

/** Whether a branch goes back to a label at or before it (a loop, as `waitCost` weighs them). */
function hasLoop(lines: readonly MLine[]): boolean {
  const labels = new Map<string, number>();
  lines.forEach((l, i) => isLabel(l) && labels.set(l.label, i));
  return lines.some((l, i) => !isLabel(l) && l.ops.some((o) => o.k === "label" && (labels.get(o.name) ?? Infinity) <= i));
}

/** Processor view of a `Target` (targets/amdgpu/regs.ts) at its wave size. */
export function hazardTarget(t: { mcpu: Mcpu; gen: 9 | 10 | 11; wave: 32 | 64 }): HazardTarget {
  return { mcpu: t.mcpu, gen: t.gen, wave: t.wave };
}
