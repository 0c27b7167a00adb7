/**
 * @fileoverview LLVM's hazard recognizer as the oracle for every routine of the form matrix
 * (issue 11 item 4(a) and the minimality check), per processor.
 *
 *   npx tsx scripts/hazard-oracle.ts [--mcpu gfx942|all] [--family szext|match|video|warp|all]
 *        [--every N] [--pass post-RA-hazard-rec|si-insert-waitcnts] [--show N] [--json FILE]
 *        [--llvm-padded]
 *   npm run hazard:oracle -- --mcpu gfx942
 *
 * Routines: the union of what `verify --all` enumerates (bin/commands.ts `kindsFor`, with
 * the video sample of seed 1 at the wide operand kinds) and the prove matrix
 * (src/check/prove_worker.ts `matrixSpecs`) — all three families, every form and operand
 * kind, every applicable rule (shadowed included), both profiles — lowered with
 * `lowerWithRule`, deduplicated per mcpu by routine text and contract registers. Each runs
 * through targets/amdgpu/mir.ts `oracle` (every boundary pairing of the routine contract,
 * `boundaryOf`). Minimality: each wait weakened once must make LLVM add a wait back, or our
 * model (`checkHazards` under the contract) must flag the variant — then it is printed as
 * "required by the manual's row although LLVM does not", with the row. Exits 1 when LLVM adds
 * something to any routine, or a wait is neither minimal nor required by our model. `--llvm-padded` also pads each failing
 * routine with the `s_nop`s LLVM inserted (`padWithLlvm`) and checks that LLVM then adds
 * nothing and that each of those waits is minimal — a reference for the hazard pass.
 *
 * `hazardOracleMatrix` is exported for scripts/crosscheck-llvm.ts.
 */
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { Family, Profile } from "../src/ir/forms.js";
import { FAMILIES, formName, PROFILES } from "../src/ir/forms.js";
import type { RoutineSpec } from "../src/ir/ir.js";
import { familyNamed } from "../src/families/index.js";
import type { AmdRoutine } from "../targets/amdgpu/lower.js";
import { applicableRules, lowerWithRule } from "../targets/amdgpu/lower.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import { MCPUS, TARGETS } from "../targets/amdgpu/regs.js";
import type { MinimalityResult, OracleItem, OraclePass, OracleVerdict } from "../targets/amdgpu/mir.js";
import { findingText, minimality, mirToolsAvailable, opcodeOf, oracle, routineBoundary, waitVariants } from "../targets/amdgpu/mir.js";
import type { MInst, MLine } from "../targets/amdgpu/minst.js";
import { imm, isLabel } from "../targets/amdgpu/minst.js";
import type { HazardViolation } from "../targets/amdgpu/hazards.js";
import { checkHazards, hazardTarget } from "../targets/amdgpu/hazards.js";

/** Options of a matrix run. */
export interface HazardOracleOptions {
  mcpus?: readonly Mcpu[];
  families?: readonly Family[];
  /** Keep one form in `every` (1 = all). */
  every?: number;
  pass?: OraclePass;
  /** Failures printed per mcpu (default 5). */
  show?: number;
  /** Progress and the report lines (default: console.log). */
  log?: (line: string) => void;
  /** Also pad each failing routine as LLVM did (`padWithLlvm`) and run the oracle and minimality on that. */
  llvmPadded?: boolean;
}

/** An insertion kind: the instruction LLVM inserted, where, and the likely producer → reader pair. */
export interface InsertionKind {
  inserted: string;
  /** `producer→routine`, `internal→internal`, `internal→consumer`, `producer→consumer`. */
  site: string;
  /** Producer kind (opcode) → read kind (opcode), from `hazardCause`. */
  pair: string;
  /** Up to four (producer opcode → reader opcode) examples. */
  opcodes: string[];
  count: number;
  example: string;
}

/** The result for one mcpu. */
export interface McpuReport {
  mcpu: Mcpu;
  /** Routine × profile × rule combinations lowered, and the distinct routine texts among them. */
  combinations: number;
  routines: number;
  emissionFailures: number;
  functions: number;
  clean: number;
  failing: OracleVerdict[];
  /** Routines with at least one insertion at each site (`internal→consumer`, …). */
  sites: Record<string, number>;
  kinds: InsertionKind[];
  waits: number;
  minimality: CheckedMinimality[];
  seconds: number;
}

/**
 * A minimality result with our model's verdict on the weakened variant: the rules (with the
 * manual's row in `manual`) that `checkHazards` under the routine's contract boundary flags.
 * A wait LLVM does not need back (`minimal` false) is still justified when this is non-empty:
 * "required by the manual's row although LLVM does not".
 */
export type CheckedMinimality = MinimalityResult & { requiredBy: HazardViolation[] };

/** Our model's flags on a minimality variant (the routine's own contract boundary). */
export function requiredBy(routine: AmdRoutine, m: MinimalityResult): HazardViolation[] {
  return checkHazards(m.variant.lines, hazardTarget(routine.target), routine.boundary);
}

const big = (_k: string, v: unknown) => (typeof v === "bigint" ? `${v}n` : v);

/**
 * Every spec of the matrix: `verify --all`'s operand kinds and the prove matrix's, deduplicated.
 * @param every keep one form in `every` of each family (1 = all)
 * @param offset which one of each `every` (0 ≤ offset < every; a seeded sample picks it)
 */
export function matrixOfSpecs(families: readonly Family[], every = 1, offset = 0): RoutineSpec[] {
  const seen = new Set<string>();
  const out: RoutineSpec[] = [];
  const add = (s: RoutineSpec) => {
    const k = `${formName(s.form)}|${JSON.stringify(s.kinds, big)}|${s.guarded}`;
    if (!seen.has(k)) {
      seen.add(k);
      out.push(s);
    }
  };
  for (const name of families) {
    const fam = familyNamed(name);
    const sample = fam.sample(1);
    let i = 0;
    for (const form of fam.forms()) {
      if (i++ % every !== offset % every) continue;
      for (const s of fam.proveSpecs(form)) add(s);
      for (const k of fam.verifyKinds(form, !sample)) add({ form, ...k });
    }
    if (sample) for (const form of sample) for (const k of fam.verifyKinds(form, true)) add({ form, ...k });
  }
  return out;
}

/** The dedupe key of a lowered routine: its lines and its contract boundary (entry units, exit consumers). */
function routineKey(r: AmdRoutine): string {
  const b = routineBoundary(r);
  return JSON.stringify([r.lines.map((l) => (isLabel(l) ? l : [l.op, l.enc, l.ops])), b.entryValu, b.entrySalu, b.exit.map((x) => x.text), r.target.wave], big);
}

/** The distinct routines of the matrix on one mcpu, labelled with the first combination that made each. */
export function matrixRoutines(mcpu: Mcpu, specs: readonly RoutineSpec[], profiles: readonly Profile[] = PROFILES): { items: OracleItem[]; combinations: number; emissionFailures: number } {
  const t = TARGETS[mcpu];
  const byKey = new Map<string, OracleItem>();
  let combinations = 0;
  let emissionFailures = 0;
  for (const spec of specs)
    for (const profile of profiles)
      for (const rule of applicableRules(spec, t, profile)) {
        combinations++;
        let r: AmdRoutine;
        try {
          r = lowerWithRule(spec, t, profile, rule);
        } catch {
          emissionFailures++;
          continue;
        }
        const k = routineKey(r);
        if (!byKey.has(k)) byKey.set(k, { label: `${formName(spec.form)} ${JSON.stringify(spec.kinds, big)}${spec.guarded ? " guarded" : ""} ${profile} ${rule.name}`, routine: r });
      }
  return { items: [...byKey.values()], combinations, emissionFailures };
}

/**
 * Runs the matrix through LLVM's recognizer per mcpu and prints, per mcpu,
 * `post-RA-hazard-rec adds nothing: N/N routines` (or the failing count, the kinds of
 * insertions and the first failures), the minimality result and the wall time.
 * @throws Error when llc-19 / llvm-mc-19 are absent.
 */
export async function hazardOracleMatrix(o: HazardOracleOptions = {}): Promise<McpuReport[]> {
  const have = mirToolsAvailable();
  if (!have.ok) throw new Error(`hazard oracle: ${have.reason}`);
  const log = o.log ?? ((l: string) => console.log(l));
  const pass = o.pass ?? "post-RA-hazard-rec";
  const show = o.show ?? 5;
  const specs = matrixOfSpecs(o.families ?? FAMILIES, o.every ?? 1);
  const reports: McpuReport[] = [];
  for (const mcpu of o.mcpus ?? MCPUS) {
    const t0 = performance.now();
    const { items, combinations, emissionFailures } = matrixRoutines(mcpu, specs);
    const verdicts = await oracle(TARGETS[mcpu], items, pass);
    const failing = verdicts.filter((v) => !v.clean);
    const kinds = new Map<string, InsertionKind>();
    const sites = new Map<string, number>();
    for (const v of failing) {
      const here = new Set<string>();
      for (const f of v.findings)
        for (const x of f.inserted) {
          const side = (l: typeof x.after) => (l ? `${l.role === "routine" ? "" : `${l.role} `}${opcodeOf(l.text)}` : "entry");
          const c = x.cause;
          const where = (l: typeof x.after) => (l ? (l.role === "routine" ? "internal" : l.role) : "?");
          let pair = c ? `${c.producerKind} → ${c.readKind}` : `? → ${side(x.before)}`;
          let site = c ? `${where(c.producer)}→${where(x.before)}` : "?";
          let text = x.text;
          // gfx90a: LLVM moves a 64-bit shift's amount out of v(8k+7) with V_SWAP_B32
          // (and an S_WAITCNT 0 first): GCNHazardRecognizer::fixShift64HighRegBug, a rewrite.
          if (/V_SWAP_B32|^S_WAITCNT \d+$/.test(x.text) && [x.after, x.before].some((l) => l && /^V_(LSHLREV|LSHRREV|ASHRREV)_[BI]64/.test(opcodeOf(l.text)))) {
            pair = "fixShift64HighRegBug: 64-bit shift amount in v(8k+7)";
            site = "internal";
            text = x.text.replace(/\$vgpr\d+/g, "$vgpr#");
          }
          here.add(site);
          const key = `${text}|${site}|${pair}`;
          const ops = `${c ? side(c.producer) : "?"} → ${side(x.before)}`;
          const k = kinds.get(key);
          if (k) {
            k.count++;
            if (k.opcodes.length < 4 && !k.opcodes.includes(ops)) k.opcodes.push(ops);
          } else kinds.set(key, { inserted: text, site, pair, opcodes: [ops], count: 1, example: `${v.item.label}: ${findingText(f)}` });
        }
      for (const x of here) sites.set(x, (sites.get(x) ?? 0) + 1);
    }
    const withWaits = items.filter((it) => waitVariants(it.routine.lines).length > 0);
    const waits = withWaits.reduce((n, it) => n + waitVariants(it.routine.lines).length, 0);
    const byLabel = new Map(withWaits.map((it) => [it.label, it.routine]));
    const mins: CheckedMinimality[] = (waits ? await minimality(TARGETS[mcpu], withWaits, pass) : []).map((m) => ({ ...m, requiredBy: m.minimal ? [] : requiredBy(byLabel.get(m.label)!, m) }));
    const seconds = (performance.now() - t0) / 1000;
    const functions = verdicts.reduce((n, v) => n + v.functions, 0);
    const rep: McpuReport = { mcpu, combinations, routines: items.length, emissionFailures, functions, clean: verdicts.length - failing.length, failing, sites: Object.fromEntries([...sites].sort((a, b) => b[1] - a[1])), kinds: [...kinds.values()].sort((a, b) => b.count - a.count), waits, minimality: mins, seconds };
    reports.push(rep);
    for (const l of reportLines(rep, pass, show)) log(l);
    if (o.llvmPadded && failing.length) {
      const t1 = performance.now();
      const padded = failing.map((v) => ({ label: v.item.label, routine: v.item.routine, lines: padWithLlvm(v) }));
      const again = await oracle(TARGETS[mcpu], padded, pass);
      const still = again.filter((v) => !v.clean);
      const mins = await minimality(TARGETS[mcpu], padded, pass);
      const notMin = mins.filter((m) => !m.minimal);
      log(`  LLVM-padded (${padded.length} routines, ${mins.length} waits): ${pass} adds nothing: ${again.length - still.length}/${again.length}; minimal: ${mins.length - notMin.length}/${mins.length}; ${((performance.now() - t1) / 1000).toFixed(1)} s`);
      for (const v of still.slice(0, show)) log(`    STILL ${v.item.label}: ${findingText(v.findings[0]!)}`);
      for (const m of notMin.slice(0, show)) log(`    NOT MINIMAL ${m.label}: ${m.variant.was} → ${m.variant.now ?? "deleted"} at line ${m.variant.line}`);
    }
  }
  return reports;
}

/**
 * A routine padded the way LLVM padded it: each `S_NOP N` LLVM inserted before a routine
 * instruction (or before the exit consumer) becomes an `s_nop N` there, taking the largest
 * N over all pairings. Other insertions (rewrites) are left out. A reference for the
 * hazard pass, and a check of the minimality machinery (`--llvm-padded`).
 */
export function padWithLlvm(v: OracleVerdict): MLine[] {
  const lines = v.item.lines ?? v.item.routine.lines;
  const at = new Map<number, number>(); // routine instruction index (count = the end) → N
  const count = lines.filter((l) => !isLabel(l)).length;
  for (const f of v.findings) {
    const here = new Map<number, number>();
    for (const x of f.inserted) {
      const m = /^S_NOP (\d+)$/.exec(x.text);
      if (!m || !x.before) continue;
      const pos = x.before.role === "routine" ? x.before.index : count;
      here.set(pos, (here.get(pos) ?? -1) + Number(m[1]) + 1);
    }
    for (const [pos, n] of here) at.set(pos, Math.max(at.get(pos) ?? -1, n));
  }
  const out: MLine[] = [];
  let k = 0;
  const nop = (n: number): MInst => ({ op: "s_nop", ops: [imm(n)], rule: "llvm-padded" });
  for (const l of lines) {
    if (!isLabel(l)) {
      if (at.has(k)) out.push(nop(at.get(k)!));
      k++;
    }
    out.push(l);
  }
  if (at.has(count)) out.push(nop(at.get(count)!));
  return out;
}

/** The printed lines of one mcpu's report. */
export function reportLines(r: McpuReport, pass: OraclePass, show = 5): string[] {
  const out: string[] = [];
  out.push(`${r.mcpu}: ${r.combinations} combinations → ${r.routines} distinct routines, ${r.functions} MIR functions${r.emissionFailures ? `, ${r.emissionFailures} emission failures` : ""}`);
  out.push(`  ${pass} adds nothing: ${r.clean}/${r.routines} routines${r.failing.length ? ` (${r.failing.length} failing)` : ""}`);
  if (r.failing.length) out.push(`  failing routines by site: ${Object.entries(r.sites).map(([k, n]) => `${k} ${n}`).join(", ")}`);
  if (r.kinds.length) {
    out.push(`  insertions by kind (inserted · site · likely producer → reader: count):`);
    for (const k of r.kinds.slice(0, 40)) out.push(`    ${k.inserted} · ${k.site} · ${k.pair}: ${k.count}   e.g. ${k.opcodes.join("; ")}`);
    if (r.kinds.length > 40) out.push(`    … ${r.kinds.length - 40} more kinds (see --json)`);
  }
  const errors = r.failing.filter((v) => v.findings.some((f) => f.error));
  if (errors.length) out.push(`  translation errors: ${errors.length} routines`);
  for (const v of r.failing.slice(0, show)) {
    out.push(`  FAIL ${v.item.label}`);
    for (const f of v.findings.slice(0, 3)) out.push(`    ${findingText(f)}`);
    if (v.findings.length > 3) out.push(`    … ${v.findings.length - 3} more pairings`);
  }
  if (r.waits === 0) out.push(`  minimality: no routine has a wait (s_nop / s_waitcnt_depctr)`);
  else {
    const notMin = r.minimality.filter((m) => !m.minimal);
    const req = notMin.filter((m) => m.requiredBy.length > 0);
    const excess = notMin.filter((m) => m.requiredBy.length === 0);
    out.push(`  minimality: ${r.waits - notMin.length}/${r.waits} waits minimal (LLVM adds a wait back when one is weakened)${req.length ? `; ${req.length} required by the manual's row although LLVM does not` : ""}${excess.length ? `; ${excess.length} NOT MINIMAL (neither LLVM nor our model needs them)` : ""}`);
    const byRow = new Map<string, number>();
    for (const m of req) for (const k of new Set(m.requiredBy.map((v) => `${v.rule} (${v.manual})`))) byRow.set(k, (byRow.get(k) ?? 0) + 1);
    for (const [k, n] of byRow) out.push(`    required although LLVM does not, ${n}: ${k}`);
    for (const m of excess.slice(0, show)) out.push(`    NOT MINIMAL ${m.label}: line ${m.variant.line} ${m.variant.was} → ${m.variant.now ?? "deleted"}${m.findings.some((f) => f.error) ? ` (error: ${m.findings.find((f) => f.error)!.error})` : ""}`);
  }
  out.push(`  wall time ${r.seconds.toFixed(1)} s`);
  return out;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      mcpu: { type: "string", default: "all" },
      family: { type: "string", default: "all" },
      every: { type: "string", default: "1" },
      pass: { type: "string", default: "post-RA-hazard-rec" },
      show: { type: "string", default: "5" },
      json: { type: "string" },
      "llvm-padded": { type: "boolean", default: false },
    },
  });
  const mcpus = values.mcpu === "all" ? MCPUS : (values.mcpu!.split(",") as Mcpu[]);
  for (const m of mcpus) if (!MCPUS.includes(m)) throw new Error(`unknown mcpu ${m}`);
  const families = values.family === "all" ? FAMILIES : (values.family!.split(",") as Family[]);
  const pass = values.pass as OraclePass;
  if (pass !== "post-RA-hazard-rec" && pass !== "si-insert-waitcnts") throw new Error(`unknown pass ${pass}`);
  const t0 = performance.now();
  const reps = await hazardOracleMatrix({ mcpus, families, every: Number(values.every), pass, show: Number(values.show), llvmPadded: values["llvm-padded"] });
  console.log(`total wall time ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  if (values.json)
    writeFileSync(
      values.json,
      JSON.stringify(
        reps.map((r) => ({ ...r, failing: r.failing.map((v) => ({ label: v.item.label, findings: v.findings.map(findingText) })), minimality: r.minimality.map((m) => ({ label: m.label, line: m.variant.line, was: m.variant.was, now: m.variant.now, minimal: m.minimal, requiredBy: m.requiredBy.map((v) => v.rule) })) })),
        big,
        1,
      ),
    );
  return reps.every((r) => r.failing.length === 0 && r.minimality.every((m) => m.minimal || m.requiredBy.length > 0)) ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exit(await main());
