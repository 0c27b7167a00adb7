/**
 * @fileoverview Issue 11 item 4(b): llc's own code under the project's hazard model. Every
 * function `llc-19` produces in the trust-base sequence crosscheck (targets/amdgpu/oracle/llvm.ts
 * `crosscheckSequences`, every `SeqTarget` including the wave64 gfx1030/gfx1100 ones) is
 * checked two ways:
 *
 * 1. `checkHazards(lines, target at that wave, LLVM_ENTRY)` flags nothing: LLVM's function
 *    assumption (nothing pending at entry, nothing after the end) is the boundary.
 * 2. Every wait LLVM inserted (`llcWaits`: `s_nop N`, `s_waitcnt_depctr`, a hazard-fix
 *    self-move `v_mov_b32 vN, vN`, `s_mov_b32 null, 0`) is weakened once — `s_nop N` → N − 1,
 *    anything else deleted — and our check must flag the variant. A wait whose weakening is
 *    not flagged is either listed in `LLVM_CONSERVATIVE` (a case where LLVM is more
 *    conservative than the manual's row, with the reason) or reported as unexplained: then the
 *    model lacks a rule.
 *
 * `s_waitcnt` (memory counters, at function entry in llc's code) and `s_delay_alu` (a gfx11
 * scheduling hint) are not hazard waits and are not weakened.
 *
 * Shapes: `LlcFunction` in (name, target, parsed lines), `LlcHazardReport` out. Errors: none
 * thrown; a function is only as good as `parseAsm` made it (callers pass what parsed).
 */
import type { MInst, MLine } from "../minst.js";
import { isLabel, printOp } from "../minst.js";
import type { HazardTarget, HazardViolation } from "../hazards.js";
import { checkHazards, formatViolation, LLVM_ENTRY } from "../hazards.js";
import type { Mcpu } from "../regs.js";
import { TARGETS } from "../regs.js";

/** One function of llc's output on one target (as `crosscheckSequences` parsed it). */
export interface LlcFunction {
  /** The IR function's readable label and its target name (`gfx1100+w64`). */
  label: string;
  target: string;
  mcpu: Mcpu;
  wave: 32 | 64;
  lines: readonly MLine[];
}

/** The processor of an llc target as the hazard rules see it, at the wave size llc compiled for. */
export function llcHazardTarget(mcpu: Mcpu, wave: 32 | 64): HazardTarget {
  return { mcpu, gen: TARGETS[mcpu].gen, wave };
}

/** A wait LLVM inserted, at line `line` of a function. */
export interface LlcWait {
  line: number;
  text: string;
  kind: "s_nop" | "s_waitcnt_depctr" | "v_mov self" | "s_mov null";
}

const text = (l: MInst) => `${l.op}${l.enc ? `_${l.enc}` : ""} ${l.ops.map(printOp).join(", ")}`.trim();

/**
 * The hazard waits in llc's code: `s_nop`, `s_waitcnt_depctr`, a `v_mov_b32 vN, vN`
 * (LLVM's `fixVcmpxPermlaneHazards` fix) and `s_mov_b32 null, 0` (`fixSMEMtoVectorWriteHazards`;
 * only if the parser ever keeps it — `null` is outside the operand model today).
 */
export function llcWaits(lines: readonly MLine[]): LlcWait[] {
  const out: LlcWait[] = [];
  lines.forEach((l, k) => {
    if (isLabel(l)) return;
    if (l.op === "s_nop" || l.op === "s_waitcnt_depctr") out.push({ line: k, text: text(l), kind: l.op });
    else if (l.op === "v_mov_b32" && l.ops.length === 2 && l.ops[0]!.k === "v" && l.ops[1]!.k === "v" && l.ops[0]!.n === l.ops[1]!.n) out.push({ line: k, text: text(l), kind: "v_mov self" });
    else if (l.op === "s_mov_b32" && l.ops[0]?.k === ("null" as never)) out.push({ line: k, text: text(l), kind: "s_mov null" });
  });
  return out;
}

/** The variant with one wait weakened: `s_nop N` → `s_nop N−1` (N ≥ 1), anything else deleted. */
export function weakenWait(lines: readonly MLine[], w: LlcWait): MLine[] {
  const l = lines[w.line] as MInst;
  const n = l.op === "s_nop" && l.ops[0]?.k === "imm" ? l.ops[0].value : 0n;
  if (l.op === "s_nop" && n > 0n) return lines.map((x, j) => (j === w.line ? { ...l, ops: [{ k: "imm" as const, value: n - 1n }] } : x));
  return lines.filter((_, j) => j !== w.line);
}

/**
 * A wait LLVM inserts that the manual's rows do not require (LLVM is more conservative), or
 * one our model deliberately leaves to another mechanism. Matched on the function's target
 * and the wait's surroundings; `manual` names the row (or its absence) and `llvm` the check.
 */
export interface ConservativeWait {
  id: string;
  why: string;
  manual: string;
  llvm: string;
  matches(f: LlcFunction, w: LlcWait): boolean;
}

/**
 * The documented table. Empty entries are not allowed to accumulate silently: the crosscheck
 * prints every wait matched here, and the CI sample fails on any wait matched by nothing.
 */
export const LLVM_CONSERVATIVE: readonly ConservativeWait[] = [];

/** One function's result. */
export interface LlcFunctionHazards {
  fn: LlcFunction;
  /** Our check's flags on llc's code as it is (must be none). */
  flags: HazardViolation[];
  waits: { wait: LlcWait; needed: HazardViolation[]; conservative?: ConservativeWait }[];
}

/** The whole result: counts, and the functions with flags or with waits not needed by our model. */
export interface LlcHazardReport {
  functions: number;
  /** Functions by target name. */
  perTarget: Map<string, number>;
  flagged: LlcFunctionHazards[];
  /** Waits LLVM inserted, and how many of them our model needs. */
  waits: number;
  needed: number;
  /** Per target name and wait text: count of waits inserted and needed (for the printed table). */
  waitKinds: Map<string, { count: number; needed: number; rules: Set<string> }>;
  conservative: { fn: LlcFunction; wait: LlcWait; entry: ConservativeWait }[];
  unexplained: { fn: LlcFunction; wait: LlcWait }[];
}

/** Checks llc's functions under LLVM's entry assumption, and every wait LLVM inserted in them. */
export function checkLlcHazards(fns: readonly LlcFunction[]): LlcHazardReport {
  const rep: LlcHazardReport = { functions: 0, perTarget: new Map(), flagged: [], waits: 0, needed: 0, waitKinds: new Map(), conservative: [], unexplained: [] };
  for (const fn of fns) {
    rep.functions++;
    rep.perTarget.set(fn.target, (rep.perTarget.get(fn.target) ?? 0) + 1);
    const t = llcHazardTarget(fn.mcpu, fn.wave);
    const flags = checkHazards(fn.lines, t, LLVM_ENTRY);
    if (flags.length) rep.flagged.push({ fn, flags, waits: [] });
    for (const w of llcWaits(fn.lines)) {
      rep.waits++;
      const needed = checkHazards(weakenWait(fn.lines, w), t, LLVM_ENTRY);
      const key = `${fn.target}: ${w.text}`;
      const k = rep.waitKinds.get(key) ?? { count: 0, needed: 0, rules: new Set<string>() };
      k.count++;
      rep.waitKinds.set(key, k);
      if (needed.length > flags.length) {
        rep.needed++;
        k.needed++;
        for (const v of needed) k.rules.add(v.rule);
        continue;
      }
      const c = LLVM_CONSERVATIVE.find((x) => x.matches(fn, w));
      if (c) rep.conservative.push({ fn, wait: w, entry: c });
      else rep.unexplained.push({ fn, wait: w });
    }
  }
  return rep;
}

/** The listing of a function with one line marked (for reports). */
export function listingAround(lines: readonly MLine[], at: number, radius = 4): string[] {
  const out: string[] = [];
  for (let k = Math.max(0, at - radius); k <= Math.min(lines.length - 1, at + radius); k++) {
    const l = lines[k]!;
    out.push(`${k === at ? ">" : " "} ${isLabel(l) ? `${l.label}:` : text(l)}`);
  }
  return out;
}

/** The printed report: the flags line, the waits table, the conservative list, the unexplained ones. */
export function formatLlcHazards(r: LlcHazardReport, show = 6): string[] {
  const out: string[] = [];
  const per = [...r.perTarget].map(([t, n]) => `${t} ${n}`).join(", ");
  const nflags = r.flagged.reduce((n, f) => n + f.flags.length, 0);
  out.push(nflags === 0 ? `0 of our hazard flags on llc's ${r.functions} functions (${per})` : `${nflags} of our hazard flags on ${r.flagged.length} of llc's ${r.functions} functions (${per})`);
  for (const f of r.flagged.slice(0, show)) {
    out.push(`  FLAGGED ${f.fn.label} on ${f.fn.target}:`);
    for (const v of f.flags.slice(0, 3)) out.push(`    ${formatViolation(v)}`);
  }
  out.push(`waits LLVM inserted: ${r.waits}; needed by our model (weakening it is flagged): ${r.needed}; listed as LLVM more conservative: ${r.conservative.length}; unexplained: ${r.unexplained.length}`);
  for (const [k, v] of [...r.waitKinds].sort()) out.push(`  ${k}: ${v.count}, needed ${v.needed}${v.rules.size ? ` (${[...v.rules].join(", ")})` : ""}`);
  const byEntry = new Map<string, number>();
  for (const c of r.conservative) byEntry.set(c.entry.id, (byEntry.get(c.entry.id) ?? 0) + 1);
  for (const e of LLVM_CONSERVATIVE) if (byEntry.has(e.id)) out.push(`  LLVM more conservative (${e.id}, ${byEntry.get(e.id)}): ${e.why} [manual: ${e.manual}; LLVM ${e.llvm}]`);
  for (const u of r.unexplained.slice(0, show)) {
    out.push(`  UNEXPLAINED ${u.wait.text} in ${u.fn.label} on ${u.fn.target} (weakened, our check flags nothing):`);
    for (const l of listingAround(u.fn.lines, u.wait.line)) out.push(`    ${l}`);
  }
  if (r.unexplained.length > show) out.push(`  … ${r.unexplained.length - show} more unexplained`);
  return out;
}
