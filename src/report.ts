/**
 * @fileoverview `ptx-lower report` as data: for each parsed module, every occurrence of an
 * instruction of a registered family (src/families/), the routine it is lowered to, per target the rule chosen, the static and
 * dynamic AMDGPU instruction counts and the checker's verdict, and a census of every other
 * instruction (what a full port would still have to handle). The shape is documented in
 * docs/commands/report.md and docs/report.schema.json; bin/report.ts prints it.
 *
 * Nothing here prints or reads files. The result is deterministic for given inputs and
 * options (seeded checker, no timings), so it can be compared and archived.
 */
import type { ParsedModule } from "./ir/build.js";
import type { Family, Profile } from "./ir/forms.js";
import { FAMILIES, familyOf, formId, formName } from "./ir/forms.js";

/** A count per registered family, all zero. */
function zeroByFamily(): Record<Family, number> {
  return Object.fromEntries(FAMILIES.map((f) => [f, 0])) as Record<Family, number>;
}
import type { OperandKind, RoutineSpec, SourceName } from "./ir/ir.js";
import { routineName, sourcesOf } from "./ir/ir.js";
import type { ModuleRoutine } from "./lower.js";
import { collectRoutines } from "./lower.js";
import type { CV } from "./sem/bv.js";
import { concrete, u } from "./sem/bv.js";
import type { VerifyRow, VerifyTarget } from "./check/verify.js";
import { targetName, verify } from "./check/verify.js";
import type { McpuName as Mcpu } from "./target/lower.js";
import { targetServices } from "./target/registry.js";

/** Version of the report's JSON shape (docs/report.schema.json); bumped on incompatible change. */
export const REPORT_SCHEMA_VERSION = 2;

export interface ReportOptions {
  /** AMDGPU processors to report on, in order. */
  mcpus: readonly Mcpu[];
  profile: Profile;
  /**
   * Checker budget per routine: random scalar cases beyond the fixed corner set, random
   * warps per match routine, and the seed. `false` reports every verdict as `not-run`.
   * Default `{ random: 200, warps: 300, seed: 1 }`.
   */
  check?: CheckBudget | false;
  /** Called after each module. */
  onProgress?: (done: number, total: number) => void;
}

export interface CheckBudget {
  random: number;
  warps: number;
  seed: number;
}

export const DEFAULT_CHECK: CheckBudget = { random: 200, warps: 300, seed: 1 };

/** The checker's verdict on the chosen lowering of a routine for one target. */
export type ReportVerdict =
  | { status: "tested"; n: number }
  | { status: "refuted"; n: number; counterexample: string }
  | { status: "skipped"; why: string }
  | { status: "not-run" }
  /** The tool itself failed (no rule, a crash): always a bug in ptx-lower. */
  | { status: "error"; message: string };

/** Dynamic AMDGPU instruction counts of a routine (instructions executed, labels excluded). */
export type DynamicCount =
  /** A scalar form on one representative input (`input`: the sources as hex). */
  | { kind: "scalar"; steps: number; input: Record<string, string> }
  /**
   * match.sync on a full warp with membermask = all lanes (or the routine's immediate):
   * `k1` all lanes equal, `k32` 32 distinct values (null where `a` is uniform or an
   * immediate, so only k = 1 exists); `checkerMax` the largest count over the checker's
   * random warps (null when the checker did not run).
   */
  | { kind: "warp"; k1: number; k32: number | null; checkerMax: number | null };

/** What one target makes of a routine. */
export interface ReportTarget {
  /** `amdgpu gfx900`, …, `js`, `c`. */
  target: string;
  mcpu: Mcpu | null;
  /** The rule selection picks (`(none)` if the target has no rule: an error verdict says why). */
  rule: string;
  /** AMDGPU only: static instruction count (labels excluded). */
  static: number | null;
  /** AMDGPU only. */
  dynamic: DynamicCount | null;
  verdict: ReportVerdict;
}

/** One routine: a form with operand kinds, shared by every occurrence with that identity. */
export interface ReportRoutine {
  /** 1-based, in first-occurrence order within the module. */
  id: number;
  name: string;
  family: Family;
  /** Canonical PTX spelling (`szext.clamp.s32`, `vshl.u32.u32.u32.clamp.add d, a, b, c`). */
  form: string;
  /** Kind of each source: `v` (divergent, VGPR), `s` (uniform, SGPR), or `imm 0x…`. */
  operands: Partial<Record<SourceName, string>>;
  guarded: boolean;
  /** How many occurrences this routine serves. */
  occurrences: number;
  targets: ReportTarget[];
}

/** One occurrence of an instruction of a registered family in the source. */
export interface ReportOccurrence {
  line: number;
  col: number;
  /** The instruction as written (guard to `;`). */
  text: string;
  family: Family;
  form: string;
  /** The routine serving it (`ReportRoutine.id` / `.name`). */
  routineId: number;
  routine: string;
}

/** Instructions outside the three families, by base opcode, then by full opcode. */
export interface CensusEntry {
  /** Base mnemonic (`ld`). */
  opcode: string;
  count: number;
  /** Each full spelling (`ld.param.u64`) and its count, most frequent first. */
  forms: { opcode: string; count: number }[];
}

export interface ModuleReport {
  /** The file name as given. */
  file: string;
  /**
   * `ok`: parsed and reported in full. `failed`: unreadable or with errors; its diagnostics
   * say why, and it has no occurrences, routines or census.
   */
  status: "ok" | "failed";
  /** Every diagnostic of the module: warnings, and for a failed module its errors. */
  diagnostics: { line: number; col: number; severity: "error" | "warning"; message: string }[];
  occurrences: ReportOccurrence[];
  routines: ReportRoutine[];
  census: CensusEntry[];
  summary: {
    occurrences: number;
    byFamily: Record<Family, number>;
    routines: number;
    otherInstructions: number;
    otherOpcodes: number;
    /** Verdict counts over routines × targets. */
    verdicts: Record<ReportVerdict["status"], number>;
  };
}

export interface Report {
  tool: "ptx-lower";
  schemaVersion: number;
  semantics: Profile;
  mcpus: Mcpu[];
  /** The checker budget used, or null when the checker did not run. */
  check: CheckBudget | null;
  modules: ModuleReport[];
  /** Sums over every module. */
  totals: {
    modules: number;
    failedModules: number;
    occurrences: number;
    routines: number;
    verdicts: Record<ReportVerdict["status"], number>;
  };
  /**
   * `ok` when every module was reported and no verdict is `refuted` or `error`; `failed`
   * otherwise (the CLI then exits 1).
   */
  verdict: "ok" | "failed";
}

/** A module that could not be read: reported as failed with this message at 1:1. */
export interface UnreadableModule {
  file: string;
  unreadable: string;
}

const hex = (x: bigint) => `0x${x.toString(16)}`;

function kindText(k: OperandKind | undefined): string {
  if (!k || k.kind === "v") return "v";
  return k.kind === "s" ? "s" : `imm ${hex(k.value)}`;
}

/**
 * Builds the report of `mods` (in order): every module, those with errors (or unreadable)
 * as `failed` with their diagnostics, the others in full; totals and an overall verdict.
 * Never throws for a module that parsed.
 */
export async function buildReport(mods: readonly (ParsedModule | UnreadableModule)[], opts: ReportOptions): Promise<Report> {
  const check = opts.check === false ? null : (opts.check ?? DEFAULT_CHECK);
  const modules: ModuleReport[] = [];
  for (const mod of mods) {
    modules.push("unreadable" in mod ? failedReport(mod.file, [{ line: 1, col: 1, severity: "error", message: mod.unreadable }]) : mod.diagnostics.some((d) => d.severity === "error") ? failedReport(mod.file, mod.diagnostics.map(diagOf)) : await moduleReport(mod, opts, check));
    opts.onProgress?.(modules.length, mods.length);
  }
  const verdicts: Record<ReportVerdict["status"], number> = { tested: 0, refuted: 0, skipped: 0, "not-run": 0, error: 0 };
  const totals = { modules: modules.length, failedModules: 0, occurrences: 0, routines: 0, verdicts };
  for (const m of modules) {
    if (m.status === "failed") totals.failedModules++;
    totals.occurrences += m.summary.occurrences;
    totals.routines += m.summary.routines;
    for (const k of Object.keys(verdicts) as ReportVerdict["status"][]) verdicts[k] += m.summary.verdicts[k];
  }
  const verdict = totals.failedModules > 0 || verdicts.refuted > 0 || verdicts.error > 0 ? "failed" : "ok";
  return { tool: "ptx-lower", schemaVersion: REPORT_SCHEMA_VERSION, semantics: opts.profile, mcpus: [...opts.mcpus], check, modules, totals, verdict };
}

const diagOf = (d: ParsedModule["diagnostics"][number]): ModuleReport["diagnostics"][number] => ({ line: d.loc.line, col: d.loc.col, severity: d.severity, message: d.message });

/** The report of a module that is not reported in full: its diagnostics, nothing else. */
function failedReport(file: string, diagnostics: ModuleReport["diagnostics"]): ModuleReport {
  return {
    file,
    status: "failed",
    diagnostics,
    occurrences: [],
    routines: [],
    census: [],
    summary: { occurrences: 0, byFamily: zeroByFamily(), routines: 0, otherInstructions: 0, otherOpcodes: 0, verdicts: { tested: 0, refuted: 0, skipped: 0, "not-run": 0, error: 0 } },
  };
}

async function moduleReport(mod: ParsedModule, opts: ReportOptions, check: CheckBudget | null): Promise<ModuleReport> {
  let routines: ModuleRoutine[];
  try {
    routines = collectRoutines(mod);
  } catch (e) {
    // The uniformity pass failed: report the occurrences with every operand divergent.
    routines = fallbackRoutines(mod);
    mod = { ...mod, diagnostics: [...mod.diagnostics, { loc: { file: mod.file, line: 1, col: 1 }, severity: "warning", message: `uniformity analysis failed (${errText(e)}); operands assumed divergent` }] };
  }
  const targetsOf = (): VerifyTarget[] => reportTargets(opts.mcpus);
  const rows = check ? await checkRoutines(routines, targetsOf(), opts.profile, check) : new Map<string, VerifyRow>();

  const out: ReportRoutine[] = routines.map((r, i) => {
    const targets: ReportTarget[] = [];
    const service = (t: VerifyTarget) => targetServices().report.find((x) => x.kind === t.kind)!;
    const rowOf = (t: VerifyTarget): ReportTarget => service(t).row(r.spec, opts.profile, t, rows.get(rowKey(r.spec, targetName(t))), check !== null);
    for (const t of targetsOf()) targets.push(rowOf(t));
    return {
      id: i + 1,
      name: r.name,
      family: familyOf(r.spec.form),
      form: formName(r.spec.form),
      operands: Object.fromEntries(sourcesOf(r.spec.form).map((s) => [s, kindText(r.spec.kinds[s])])),
      guarded: r.spec.guarded,
      occurrences: r.insts.length,
      targets,
    };
  });
  const occurrences: ReportOccurrence[] = [];
  routines.forEach((r, i) => {
    for (const inst of r.insts)
      occurrences.push({ line: inst.loc.line, col: inst.loc.col, text: inst.text, family: familyOf(inst.form), form: formName(inst.form), routineId: i + 1, routine: r.name });
  });
  occurrences.sort((a, b) => a.line - b.line || a.col - b.col);

  const census = censusOf(mod.census);
  const byFamily = zeroByFamily();
  for (const o of occurrences) byFamily[o.family]++;
  const verdicts: Record<ReportVerdict["status"], number> = { tested: 0, refuted: 0, skipped: 0, "not-run": 0, error: 0 };
  for (const r of out) for (const t of r.targets) verdicts[t.verdict.status]++;
  return {
    file: mod.file,
    status: "ok",
    diagnostics: mod.diagnostics.map(diagOf),
    occurrences,
    routines: out,
    census,
    summary: {
      occurrences: occurrences.length,
      byFamily,
      routines: out.length,
      otherInstructions: census.reduce((n, c) => n + c.count, 0),
      otherOpcodes: census.length,
      verdicts,
    },
  };
}

/**
 * The targets a report has a row for, in row order, for the processors `mcpus`: our fragments
 * per processor, JS, C, then the hip header and the llvm module compiled per processor.
 */
export function reportTargets(mcpus: readonly Mcpu[]): VerifyTarget[] {
  return [
    ...mcpus.map((mcpu): VerifyTarget => ({ kind: "amdgpu", mcpu })),
    { kind: "js" },
    { kind: "c" },
    ...(["hip", "llvm"] as const).flatMap((kind) => mcpus.map((mcpu): VerifyTarget => ({ kind, mcpu }))),
  ];
}

/** Routines with every register operand divergent (used only if the uniformity pass throws). */
function fallbackRoutines(mod: ParsedModule): ModuleRoutine[] {
  const byName = new Map<string, ModuleRoutine>();
  for (const inst of mod.insts) {
    const kinds: RoutineSpec["kinds"] = {};
    for (const s of sourcesOf(inst.form)) {
      const o = inst[s];
      kinds[s] = o?.kind === "imm" ? { kind: "imm", value: o.value } : { kind: "v" };
    }
    const spec: RoutineSpec = { form: inst.form, kinds, guarded: inst.guard !== null };
    const name = routineName(spec, formId);
    const r = byName.get(name);
    if (r) r.insts.push(inst);
    else byName.set(name, { name, spec, insts: [inst] });
  }
  return [...byName.values()];
}

function censusOf(census: ReadonlyMap<string, number>): CensusEntry[] {
  const byBase = new Map<string, CensusEntry>();
  for (const [opcode, count] of census) {
    const base = opcode.split(".")[0]!;
    let e = byBase.get(base);
    if (!e) byBase.set(base, (e = { opcode: base, count: 0, forms: [] }));
    e.count += count;
    e.forms.push({ opcode, count });
  }
  const order = <T extends { opcode: string; count: number }>(a: T, b: T) => b.count - a.count || (a.opcode < b.opcode ? -1 : a.opcode > b.opcode ? 1 : 0);
  const out = [...byBase.values()].sort(order);
  for (const e of out) e.forms.sort(order);
  return out;
}

const rowKey = (spec: RoutineSpec, target: string) => `${target}|${keyOfSpec(spec)}`;
const specKeys = new WeakMap<RoutineSpec, string>();
function keyOfSpec(spec: RoutineSpec): string {
  let k = specKeys.get(spec);
  if (k === undefined) specKeys.set(spec, (k = JSON.stringify(spec, (_k, x: unknown) => (typeof x === "bigint" ? `${x}n` : x))));
  return k;
}

/**
 * Runs the checker on every routine for every target and keeps the chosen rule's row.
 * One batch per module (one C build); if the batch throws, each routine is checked alone
 * so that one failure does not hide the other verdicts.
 */
async function checkRoutines(routines: ModuleRoutine[], targets: VerifyTarget[], profile: Profile, b: CheckBudget): Promise<Map<string, VerifyRow>> {
  const out = new Map<string, VerifyRow>();
  const keep = (rows: VerifyRow[]) => {
    for (const r of rows) if (r.chosen) out.set(rowKey(r.spec, targetName(r.target)), r);
  };
  const opts = { seed: b.seed, random: b.random, warps: b.warps };
  try {
    keep(await verify(routines.map((r) => ({ spec: r.spec, profile })), targets, opts));
  } catch {
    for (const r of routines)
      for (const t of targets) {
        try {
          keep(await verify([{ spec: r.spec, profile }], [t], opts));
        } catch {
          // Left without a row: the target entry reports the error itself.
        }
      }
  }
  return out;
}

export function verdictOf(row: VerifyRow | undefined, ran: boolean, fallback: string): ReportVerdict {
  if (!ran) return { status: "not-run" };
  if (!row) return { status: "error", message: fallback };
  const v = row.verdict;
  switch (v.status) {
    case "tested":
      return { status: "tested", n: v.n };
    case "refuted":
      return { status: "refuted", n: v.n, counterexample: v.counterexample };
    case "skipped":
      return { status: "skipped", why: v.why };
    case "proved":
      return { status: "tested", n: 0 };
    case "unknown":
      return { status: "skipped", why: v.why };
  }
}

export const errText = (e: unknown) => (e instanceof Error ? e.message : String(e));

