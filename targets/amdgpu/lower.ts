/**
 * @fileoverview Lowering a routine (form × operand kinds) to AMDGPU: rule lookup, selection,
 * the guard wrapper of the routine contract, and the printer.
 */
import { WARP_AMD_RULES } from "./rules/warp.js";
import type { FamilyName, FormOf } from "../../src/families/index.js";
import type { RuleTable } from "../../src/family/types.js";
import { familyOf } from "../../src/ir/forms.js";
import type { Form, Profile } from "../../src/ir/forms.js";
import { formName } from "../../src/ir/forms.js";
import type { RoutineSpec } from "../../src/ir/ir.js";
import type { MLine } from "./minst.js";
import type { MOp } from "./minst.js";
import { isLabel, s } from "./minst.js";
import type { Target } from "./regs.js";
import { Builder, isWarpForm, outputsOf } from "./routine.js";
import { warpFormName } from "../../src/ir/warp_forms.js";
import { AMDGPU_ROUTINE_PASSES, VERIFY_PASSES } from "../../passes/index.js";
import { verifyBetweenPasses } from "../../passes/verify.js";
import { selectCheapest } from "../../passes/select.js";
import type { Boundary } from "./hazards.js";
import { record } from "./isa/index.js";
import type { Assigned, RegisterAssignment, ScratchBudget } from "./assign.js";
import { assignRegisters, rangesText, regText } from "./assign.js";
import { operandText } from "./isa/syntax.js";
import { issueCyclesOf } from "./isa/record.js";
import type { Layout } from "./routine.js";
import type { AmdRule, RuleCtx } from "./rules/rule.js";
import { szextRules } from "./rules/szext.js";
import { matchRules } from "./rules/match_sync.js";
import { vshRules } from "./rules/vsh.js";
import { vopRules } from "./rules/vop.js";

/** A lowered AMDGPU routine. */
export interface AmdRoutine {
  spec: RoutineSpec;
  target: Target;
  rule: string;
  lines: MLine[];
  layout: Layout;
  /** Scratch VGPRs [layout.vScratch, vEnd) and SGPRs [layout.sScratch, sEnd). */
  vEnd: number;
  sEnd: number;
  /** Static count in issue cycles: one per instruction, N + 1 for `s_nop N`, 0 for `s_delay_alu`. */
  count: number;
  /** The part of `count` spent in waits the hazard pass inserted (`count - waits`: the rule's own work). */
  waits: number;
  /** Wait cycles the hazard pass hid by reordering (a loop body's counted 32 times). */
  hidden: number;
  /** The hazard boundary the routine was padded for and is checked under (hazards.ts). */
  boundary: Boundary;
  /**
   * Set when the routine is in a caller's registers (./assign.ts `assignRegisters`): its
   * layout holds the caller's operand registers, and this its scratch set and `d` register.
   * Absent: the routine contract's registers.
   */
  assigned?: Assigned;
}

/** The AMDGPU rule type of each family. */
type AmdRules = { [K in FamilyName]: AmdRule<FormOf<K>> };

/** The AMDGPU rules, keyed by family (a family without rules does not compile). */
export const AMDGPU_RULES: RuleTable<AmdRules> = {
  szext: szextRules,
  match: matchRules,
  video: vshRules,
  vop: vopRules,
  // The warp-level family (issue 15): targets/amdgpu/rules/warp.ts, every opcode's rules.
  // Each opcode's rules apply to that opcode's forms only (their `when` assumes it).
  warp: Object.entries(WARP_AMD_RULES).flatMap(([op, rules]) =>
    (rules as readonly AmdRule<never>[]).map((r) => ({ ...r, when: (f: FormOf<"warp">, c: RuleCtx) => f.op === op && (r.when as (f: FormOf<"warp">, c: RuleCtx) => boolean)(f, c) })),
  ) as unknown as readonly AmdRule<FormOf<"warp">>[],
};

/** Every rule of a family's form, in definition order. */
export function rulesOf(f: Form): readonly AmdRule[] {
  // A rule of family K takes K's forms; `f` is one of them (familyOf), which the table's type cannot say.
  return AMDGPU_RULES[familyOf(f)] as readonly AmdRule[];
}

/** The rules that apply to a routine on a target (empty means a coverage gap). */
export function applicableRules(spec: RoutineSpec, t: Target, profile: Profile): AmdRule[] {
  const c: RuleCtx = { spec, t, profile };
  return rulesOf(spec.form).filter((r) => r.when(spec.form, c));
}

/**
 * Which hazard boundary a routine is padded for: `contract` (the default; README "Hazards at
 * the routine boundary": a fragment spliced between unknown instructions) or `function`
 * (LLVM's own assumption for a whole function: nothing pending before it, nothing after it —
 * what the bench uses to compare with llc's functions on equal terms).
 */
export type BoundaryKind = "contract" | "function";

/**
 * The state the AMDGPU routine passes (passes/index.ts `AMDGPU_ROUTINE_PASSES`) thread: the
 * routine, the builder the rule emits into, and the sequence as it goes through legalisation,
 * the gfx90a register rename and the hazard pass.
 */
export interface RoutineState {
  spec: RoutineSpec;
  t: Target;
  profile: Profile;
  rule: AmdRule;
  boundaryKind: BoundaryKind;
  m: Builder;
  /** The sequence after legalisation (empty before). */
  lines: MLine[];
  /** Wait cycles the hazard pass hid by reordering. */
  hidden: number;
  /** The boundary the hazard pass padded for. */
  boundary?: Boundary;
}

/**
 * Emits one routine with a given rule: runs the AMDGPU routine passes in their order
 * (passes/index.ts) and returns the routine.
 */
export function lowerWithRule(spec: RoutineSpec, t: Target, profile: Profile, rule: AmdRule, boundaryKind: BoundaryKind = "contract"): AmdRoutine {
  let x: RoutineState = { spec, t, profile, rule, boundaryKind, m: new Builder(spec, t, rule.name), lines: [], hidden: 0 };
  for (const p of AMDGPU_ROUTINE_PASSES) {
    x = p.run(x);
    if (VERIFY_PASSES) verifyBetweenPasses(p.name, x);
  }
  const { m, lines } = x;
  // The scratch window is what the builder reserved: a rule that writes past it (a register
  // it never allocated) breaks the contract, and the checker must see that.
  return {
    spec,
    target: t,
    rule: rule.name,
    lines,
    layout: m.layout,
    vEnd: Math.max(m.vUsed, m.layout.vScratch),
    sEnd: Math.max(m.sUsed, m.layout.sScratch),
    count: staticCycles(lines),
    waits: staticCycles(lines.filter((l) => !isLabel(l) && "none" in record(l.op).sem)),
    hidden: x.hidden,
    boundary: x.boundary!,
  };
}

/** `lowerRoutine`'s options: the hazard boundary, and the caller's registers (./assign.ts). */
export interface LowerRoutineOptions {
  /** Default `contract`. */
  boundary?: BoundaryKind;
  /**
   * The operand registers (`{ a: "v7", b: "s4", d: "v2" }`; 64-bit values and wave64 lane
   * masks as aligned pairs `v[8:9]`, `s[4:5]`; a guarded routine's `guard` and `dPrior` too),
   * or `"virtual"` (`%vN` / `%sN` in the text, for the caller's register allocator; llvm-mc does
   * not read them: the lines keep the contract's registers, the concrete allocation on which the
   * hazard check, LLVM's recognizer, the checker and the prover run). Omitted: the routine
   * contract's registers (README "The routine contract").
   */
  regs?: RegisterAssignment;
  /** The scratch register budget, or the scratch registers (./assign.ts `ScratchBudget`); only with `regs`. */
  scratch?: ScratchBudget;
}

/**
 * Lowers a routine with the cheapest applicable rule (ties: higher priority), in the routine
 * contract's registers, or in the caller's (`options.regs`: the contract's routine renamed once,
 * ./assign.ts, with a copy where d shares a register the contract's sequence cannot).
 * The fourth argument is the boundary kind, or `LowerRoutineOptions`.
 * @throws Error when no rule applies (a coverage gap, reported by the coverage test);
 *   TypeError for an illegal register assignment or scratch budget, naming it (./assign.ts).
 */
export function lowerRoutine(spec: RoutineSpec, t: Target, profile: Profile, options: BoundaryKind | LowerRoutineOptions = "contract"): AmdRoutine {
  if (typeof options === "object" && options !== null) {
    const { boundary = "contract", regs, scratch } = options;
    if (scratch !== undefined && regs === undefined) throw new TypeError("lowerRoutine: options.scratch needs options.regs (the contract's routine has its own scratch window)");
    const r = lowerRoutine(spec, t, profile, boundary);
    return regs === undefined ? r : assignRegisters(r, regs, scratch, "lowerRoutine");
  }
  const boundaryKind = options;
  const rules = applicableRules(spec, t, profile);
  if (rules.length === 0) throw new Error(`no AMDGPU rule for ${formName(spec.form)} on ${t.mcpu}`);
  const ctx: RuleCtx = { spec, t, profile };
  const lowered = rules.map((r) => {
    const x = lowerWithRule(spec, t, profile, r, boundaryKind);
    return { prio: r.prio, value: { x, cost: r.cost ? r.cost(spec.form, ctx, x.count) : x.count } };
  });
  return selectCheapest(lowered, (v) => v.cost).x;
}

/** Static issue cycles of a sequence (labels are free). */
export function staticCycles(lines: readonly MLine[]): number {
  return lines.reduce((n, l) => n + (isLabel(l) ? 0 : issueCyclesOf(record(l.op), l)), 0);
}

/** The contract header of a routine, as assembly comment lines. */
export function contractHeader(r: AmdRoutine): string[] {
  const l = r.layout;
  const printOp = (o: MOp) => regText(r, o);
  const ins = Object.entries(l.src)
    .map(([k, o]) => `${k} = ${printOp(o)}`)
    .join(", ");
  const mask = r.target.wave === 64 ? "vcc" : "vcc_lo";
  const o = outputsOf(r.spec, r.target, l);
  const outs = [...(o.d ? [`d = ${printOp(o.d)}`] : []), ...(o.p ? [`p = ${mask}`] : [])];
  const range = (p: string, lo: number, hi: number) => (hi <= lo ? "none" : hi - lo === 1 ? `${p}${lo}` : `${p}${lo}..${p}${hi - 1}`);
  const a = r.assigned;
  const scratchV = a ? rangesText("v", a.vScratch, a.virtual) : range("v", l.vScratch, r.vEnd);
  const scratchS = a ? rangesText("s", a.sScratch, a.virtual) : range("s", l.sScratch, r.sEnd);
  // The routine contract: on wave64 a uniform 32-bit membermask is read as the aligned pair
  // it starts; the high half (a scratch SGPR) is don't-care, because exec[63:32] is 0.
  const mm = l.src.membermask;
  const pairNote = r.target.wave === 64 && mm?.k === "s" && mm.count === 1 ? ` (read as the lane mask ${printOp(s(mm.n, 2))}; ${printOp(s(mm.n + 1))} is don't-care: exec[63:32] = 0)` : "";
  const lines = [
    // Guarded-off lanes keep their bit of `p`: the prior p is the mask register at entry (README, routine contract).
    `in: ${[...(ins ? [ins + pairNote] : []), ...(l.guard ? [`guard = ${printOp(l.guard)}`, `prior d = ${printOp(l.dPrior!)}`, ...(o.p ? [`prior p = ${mask}`] : [])] : [])].join(", ") || "nothing"}`,
    `out: ${outs.length ? outs.join(", ") : "nothing (both results are sunk)"}; exec unchanged`,
    `scratch: VGPR ${scratchV}, SGPR ${scratchS}, ${mask}, scc`,
  ];
  return lines;
}

/**
 * Text made safe for one assembly comment line: line breaks (and other control characters)
 * from the input — a multi-line instruction, a file name — become spaces.
 */
export function asmCommentText(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ");
}

/** Prints a routine: a label, a header, and the instructions (labels made unique by name). */
export function printRoutine(name: string, r: AmdRoutine, extra: string[] = []): string {
  const out: string[] = [];
  const n = r.lines.filter((l) => !isLabel(l)).length;
  const cycles = n === r.count ? "" : ` (${r.count} issue cycles: s_nop N counts N + 1)`;
  const f = r.spec.form;
  out.push(`; ${isWarpForm(f) ? warpFormName(f) : formName(f)}  —  rule ${r.rule}, ${n} instruction${n === 1 ? "" : "s"}${cycles}`);
  for (const h of [...contractHeader(r), ...extra]) out.push(`; ${asmCommentText(h)}`);
  out.push(`${name}:`);
  const lab = (x: string) => `.L${name}${x.slice(2)}`;
  for (const line of r.lines) {
    if (isLabel(line)) {
      out.push(`${lab(line.label)}:`);
      continue;
    }
    const mn = line.op + (line.enc ? `_${line.enc}` : "");
    const ops = operandText(record(line.op), line.ops, (o) => (o.k === "label" ? lab(o.name) : regText(r, o)));
    out.push(`  ${mn}${ops ? " " + ops : ""}`);
  }
  return out.join("\n") + "\n";
}
