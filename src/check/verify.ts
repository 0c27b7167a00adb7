/**
 * @fileoverview `verify`: the differential checker over routines × targets × profiles.
 * Every applicable rule of a routine is run (shadowed ones too), against the reference on
 * the checker's inputs: scalar forms on src/check/inputs.ts cases, match.sync on random
 * warps (src/check/warps.ts). Verdicts are `tested(n)` or `refuted` with the first
 * counterexample; nothing here says "proved" (that is src/check/prove.ts).
 */
import type { Form, Profile } from "../ir/forms.js";
import { formName, formWrites } from "../ir/forms.js";
import type { RoutineSpec } from "../ir/ir.js";
import type { CV } from "../sem/bv.js";
import { concrete, u } from "../sem/bv.js";
import { matchSync } from "../sem/match_sync.js";
import { keepLane } from "../sem/guard.js";
import type { Mcpu } from "../../targets/amdgpu/regs.js";
import { TARGETS } from "../../targets/amdgpu/regs.js";
import type { AmdRoutine } from "../../targets/amdgpu/lower.js";
import { applicableRules, lowerRoutine, lowerWithRule, printRoutine } from "../../targets/amdgpu/lower.js";
import { execRoutine, runFailure } from "../../targets/amdgpu/exec.js";
import { portableRulesFor } from "../../targets/portable/rules/index.js";
import type { PirFunction, PirValue } from "../../targets/portable/pir.js";
import { evalPirConcrete } from "../../targets/portable/pir.js";
import { printJsModule } from "../../targets/js/print.js";
import type { JsRoutine } from "../../targets/js/run.js";
import { callJs, loadJsModule } from "../../targets/js/run.js";
import { haveCc, runCRoutines } from "../../targets/c/run.js";
import type { ScalarCase } from "./inputs.js";
import { familyOf } from "../families/index.js";
import { amdgpuExecutor, checkScalar, expectedScalar } from "./scalar.js";
import type { MatchCase } from "./warps.js";
import { distinctActive, toMatchWarp } from "./warps.js";
import { scalarCounterexample } from "./report.js";

export type VerifyTarget = { kind: "amdgpu"; mcpu: Mcpu } | { kind: "js" } | { kind: "c" };

export function targetName(t: VerifyTarget): string {
  return t.kind === "amdgpu" ? `amdgpu ${t.mcpu}` : t.kind;
}

export type Verdict =
  | { status: "tested"; n: number }
  | { status: "refuted"; n: number; counterexample: string }
  | { status: "proved"; by: string }
  | { status: "unknown"; why: string }
  | { status: "skipped"; why: string };

/** One row of the verify table. */
export interface VerifyRow {
  spec: RoutineSpec;
  profile: Profile;
  target: VerifyTarget;
  rule: string;
  /** Whether selection picks this rule (false: a shadowed rule, checked all the same). */
  chosen: boolean;
  /** Static AMDGPU instruction count. */
  count?: number;
  /** Largest dynamic count seen; for match, also the largest excess over the bound. */
  dynMax?: number;
  overBound?: number;
  verdict: Verdict;
}

export interface VerifyOptions {
  seed?: number;
  /** Random scalar cases per routine beyond the fixed ones (default 400). */
  random?: number;
  /** Random warps per match routine (default 10,000). */
  warps?: number;
  /** Fewer, form-specific scalar cases (≥ 1,000 per video form): for whole-family runs. */
  compact?: boolean;
  onProgress?: (done: number, total: number) => void;
}

/** Checks every (spec × profile) on every target; returns one row per rule. */
export async function verify(specs: { spec: RoutineSpec; profile: Profile; warps?: number }[], targets: VerifyTarget[], opts: VerifyOptions = {}): Promise<VerifyRow[]> {
  const seed = opts.seed ?? 1;
  const rows: VerifyRow[] = [];
  const portableJobs: { row: VerifyRow; fn: PirFunction; cases: ScalarCase[] | MatchCase[] }[] = [];
  let done = 0;
  const total = specs.length;
  const cache = new Map<string, Verdict & { dynMax?: number; overBound?: number }>();
  for (const { spec, profile, warps } of specs) {
    const f = spec.form;
    const fam = familyOf(f);
    const scalar = fam.shape === "scalar";
    const cases: ScalarCase[] | MatchCase[] = fam.cases(spec, { seed, random: opts.random, compact: opts.compact, warps: warps ?? opts.warps });
    for (const t of targets) {
      if (t.kind === "amdgpu") {
        const target = TARGETS[t.mcpu];
        const chosen = lowerRoutine(spec, target, profile).rule;
        for (const rule of applicableRules(spec, target, profile)) {
          const r = lowerWithRule(spec, target, profile, rule);
          // Identical code on the same wave size and inputs gives the same verdict.
          const key = `${target.wave}|${profile}|${printRoutine("r", r)}|${JSON.stringify(spec, big)}`;
          let v = cache.get(key);
          if (!v) {
            v = scalar ? await checkAmdScalar(spec, profile, r, cases as ScalarCase[]) : checkAmdWarp(spec, r, cases as MatchCase[]);
            cache.set(key, v);
          }
          const { dynMax, overBound, ...verdict } = v;
          rows.push({ spec, profile, target: t, rule: rule.name, chosen: rule.name === chosen, count: r.count, dynMax, overBound, verdict: verdict as Verdict });
        }
      } else {
        const rules = portableRulesFor(spec);
        rules.forEach((rule, i) => {
          const row: VerifyRow = { spec, profile, target: t, rule: rule.name, chosen: i === 0, verdict: { status: "skipped", why: "not run" } };
          rows.push(row);
          portableJobs.push({ row, fn: rule.build(spec, profile), cases });
        });
      }
    }
    opts.onProgress?.(++done, total);
    // Run the JS and C rows in batches, so that cases do not pile up in memory.
    if (portableJobs.length >= 600) await runPortable(portableJobs.splice(0));
  }
  await runPortable(portableJobs);
  return rows;
}

const big = (_k: string, x: unknown) => (typeof x === "bigint" ? x.toString() : x);

async function checkAmdScalar(spec: RoutineSpec, profile: Profile, r: AmdRoutine, cases: ScalarCase[]): Promise<Verdict & { dynMax: number }> {
  const stats = { maxSteps: 0 };
  const res = await checkScalar(spec.form, profile, amdgpuExecutor(r, stats), cases);
  if (!res.failure) return { status: "tested", n: res.n, dynMax: stats.maxSteps };
  const cx = scalarCounterexample({
    f: spec.form,
    profile,
    target: `amdgpu ${r.target.mcpu}`,
    rule: r.rule,
    x: res.failure.case,
    expected: res.failure.expected,
    got: res.failure.got,
    routine: r,
  });
  return { status: "refuted", n: res.n, counterexample: cx, dynMax: stats.maxSteps };
}

/**
 * The dynamic bound of a match routine's own instructions (waits excluded: they are the hazard
 * pass's, checked against LLVM), or undefined where none is set: the waterfall 3 + 5k (b64
 * 3 + 6k; the SALU-copy waterfall, its copies more per round), `.all` with a uniform
 * membermask 8 (b64 9); guarded + 3 (issue 3's bounds).
 */
export function matchBound(spec: RoutineSpec, k: number, rule?: string, wave: 32 | 64 = 64): number | undefined {
  const f = spec.form;
  if (f.op !== "match") return undefined;
  const g = spec.guarded ? 3 : 0;
  // The copies: the round's value (one s_mov_b64, or two s_mov_b32 for a b64 a on wave32) and the ballot's low half.
  const copies = rule === "match_any_waterfall_salu_copy" ? (f.type === "b64" && wave === 32 ? 3 : 2) * k : 0;
  if (f.mode === "any") return (f.type === "b32" ? 3 + 5 * k : 3 + 6 * k) + copies + g;
  if (spec.kinds.membermask?.kind !== "v") return (f.type === "b32" ? 8 : 9) + g;
  return undefined;
}

/** Expected per-lane results of a match case (null: not compared). */
export function expectedWarp(f: Form, c: MatchCase): { d: (bigint | null)[]; p: (boolean | null)[] } {
  if (f.op !== "match") throw new Error("not a match form");
  const r = matchSync(concrete, f, toMatchWarp(f, c));
  const active = (l: number) => ((c.active >>> l) & 1) === 1;
  return {
    d: r.d.map((x, l) => keepLane(active(l), c.guard?.[l], () => (r.defined[l] ? x.x : null), () => c.dPrior[l]!)),
    p: r.p.map((x, l) => keepLane(active(l), c.guard?.[l], () => (r.defined[l] ? x : null), () => c.pPrior[l]!)),
  };
}

function warpCounterexample(spec: RoutineSpec, where: string, rule: string, c: MatchCase, lane: number, what: string): string {
  const hx = (x: bigint) => `0x${x.toString(16)}`;
  return [
    `check ${formName(spec.form)} → ${where}  rule ${rule}  REFUTED`,
    `ERROR: ${what}`,
    "",
    "Example:",
    `  warp: ${c.label}`,
    `  active = 0x${(c.active >>> 0).toString(16).padStart(8, "0")}`,
    `  a = [${c.a.map(hx).join(", ")}]`,
    `  membermask = [${c.membermask.map(hx).join(", ")}]`,
    ...(c.guard ? [`  g = [${c.guard.map((g) => (g ? 1 : 0)).join("")}]`] : []),
    `  failing lane: ${lane}`,
  ].join("\n");
}

function checkAmdWarp(spec: RoutineSpec, r: AmdRoutine, cases: MatchCase[]): Verdict & { dynMax: number; overBound: number } {
  const f = spec.form;
  if (f.op !== "match") throw new Error("not a match form");
  const width = f.type === "b64" ? 64 : 32;
  let dynMax = 0;
  let overBound = -Infinity;
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i]!;
    const src: Record<string, CV | CV[]> = {};
    if (spec.kinds.a?.kind !== "imm") src.a = spec.kinds.a?.kind === "s" ? u(c.a[0]!, width) : c.a.map((x) => u(x, width));
    if (spec.kinds.membermask?.kind !== "imm") src.membermask = spec.kinds.membermask?.kind === "s" ? u(c.membermask[0]!) : c.membermask.map((x) => u(x));
    const run = execRoutine(concrete, r, {
      src,
      active: u(c.active >>> 0),
      ...(spec.guarded ? { guard: c.guard!, dPrior: c.dPrior.map((x) => u(x)), pPrior: c.pPrior } : {}),
    }, { stepLimit: 5000 });
    const where = `amdgpu ${r.target.mcpu}`;
    const failure = runFailure(run);
    if (failure) return { status: "refuted", n: i, counterexample: warpCounterexample(spec, where, r.rule, c, 0, failure), dynMax, overBound };
    dynMax = Math.max(dynMax, run.cycles);
    const bound = matchBound(spec, distinctActive(c), r.rule, r.target.wave);
    if (bound !== undefined) overBound = Math.max(overBound, run.cycles - run.waitCycles - bound);
    const want = expectedWarp(f, c);
    for (let l = 0; l < 32; l++) {
      const wd = want.d[l];
      if (wd !== null && wd !== undefined && run.d[l]!.x !== wd && f.dest !== "_|p" && f.dest !== "_")
        return { status: "refuted", n: i, counterexample: warpCounterexample(spec, where, r.rule, c, l, `lane ${l}: d = 0x${run.d[l]!.x.toString(16)}, spec 0x${wd.toString(16)}`), dynMax, overBound };
      const wp = want.p[l];
      const hasP = formWrites(f).p;
      if (hasP && wp !== null && wp !== undefined && run.p[l] !== wp)
        return { status: "refuted", n: i, counterexample: warpCounterexample(spec, where, r.rule, c, l, `lane ${l}: p = ${run.p[l]}, spec ${wp}`), dynMax, overBound };
    }
  }
  return { status: "tested", n: cases.length, dynMax, overBound: overBound === -Infinity ? 0 : overBound };
}

/** Arguments of a portable routine for a case, by parameter name. */
function scalarArgs(fn: PirFunction, c: ScalarCase): Record<string, PirValue> {
  const args: Record<string, PirValue> = {};
  for (const p of fn.params) {
    if (p.name === "g") args.g = c.g ?? true;
    else if (p.name === "dPrior") args.dPrior = c.dPrior ?? 0n;
    else args[p.name] = c[p.name as "a" | "b" | "c"];
  }
  return args;
}

function warpArgs(fn: PirFunction, c: MatchCase): Record<string, PirValue> {
  const args: Record<string, PirValue> = {};
  for (const p of fn.params) {
    if (p.name === "a") args.a = p.type.t === "arr" ? c.a : c.a[0]!;
    else if (p.name === "membermask") args.membermask = p.type.t === "arr" ? c.membermask : c.membermask[0]!;
    else if (p.name === "active") args.active = BigInt(c.active >>> 0);
    else if (p.name === "g") args.g = c.guard ?? new Array<boolean>(32).fill(true);
    else if (p.name === "dPrior") args.dPrior = c.dPrior;
    else if (p.name === "pPrior") args.pPrior = c.pPrior;
  }
  return args;
}

/** Compares one portable output with the reference; returns a failure message or null. */
function comparePortable(spec: RoutineSpec, profile: Profile, c: ScalarCase | MatchCase, out: Record<string, PirValue>): string | null {
  const f = spec.form;
  if (f.op !== "match") {
    const want = expectedScalar(f, profile, c as ScalarCase);
    return out.d === want ? null : `d = 0x${(out.d as bigint).toString(16)}, spec 0x${want.toString(16)}`;
  }
  const want = expectedWarp(f, c as MatchCase);
  const d = out.d as readonly bigint[] | undefined;
  const p = out.p as readonly boolean[] | undefined;
  for (let l = 0; l < 32; l++) {
    if (d && want.d[l] !== null && d[l] !== want.d[l]) return `lane ${l}: d = 0x${d[l]!.toString(16)}, spec 0x${want.d[l]!.toString(16)}`;
    if (p && want.p[l] !== null && p[l] !== want.p[l]) return `lane ${l}: p = ${p[l]}, spec ${want.p[l]}`;
  }
  return null;
}

function portableCounterexample(row: VerifyRow, c: ScalarCase | MatchCase, what: string): string {
  const f = row.spec.form;
  if (f.op !== "match") {
    const x = c as ScalarCase;
    const want = expectedScalar(f, row.profile, x);
    const m = /d = 0x([0-9a-f]+)/.exec(what);
    return scalarCounterexample({ f, profile: row.profile, target: targetName(row.target), rule: row.rule, x, expected: want, got: m ? BigInt("0x" + m[1]) : what });
  }
  return warpCounterexample(row.spec, targetName(row.target), row.rule, c as MatchCase, 0, what);
}

/** Runs the JS and C rows: one JS module and one C build per batch of routines. */
async function runPortable(jobs: { row: VerifyRow; fn: PirFunction; cases: ScalarCase[] | MatchCase[] }[]): Promise<void> {
  const argsOf = (fn: PirFunction, c: ScalarCase | MatchCase) => ((c as MatchCase).label !== undefined ? warpArgs(fn, c as MatchCase) : scalarArgs(fn, c as ScalarCase));
  const js = jobs.filter((j) => j.row.target.kind === "js");
  const cj = jobs.filter((j) => j.row.target.kind === "c");
  for (let i = 0; i < js.length; i += 500) {
    const batch = js.slice(i, i + 500).map((j, k) => ({ ...j, name: `r${k}` }));
    const mod = await loadJsModule(await printJsModule(batch.map((j) => ({ name: j.name, fn: { ...j.fn, name: j.name }, header: j.row.rule })), { format: false }));
    for (const j of batch) {
      const fn = { ...j.fn, name: j.name };
      j.row.verdict = { status: "tested", n: j.cases.length };
      for (let n = 0; n < j.cases.length; n++) {
        const c = j.cases[n]!;
        const args = argsOf(fn, c);
        let msg: string | null;
        try {
          msg = comparePortable(j.row.spec, j.row.profile, c, callJs(fn, mod[j.name] as JsRoutine, args));
          // The PIR's own meaning: no poison may reach a scalar output.
          if (!msg && n < 64 && j.row.spec.form.op !== "match") {
            const out = evalPirConcrete(fn, args).d;
            if (out && !Array.isArray(out) && !out.defined) msg = "poison (an out-of-range shift) reached d";
          }
        } catch (e) {
          msg = (e as Error).message;
        }
        if (msg) {
          j.row.verdict = { status: "refuted", n, counterexample: portableCounterexample(j.row, c, msg) };
          break;
        }
      }
    }
  }
  if (cj.length) {
    const cc = haveCc();
    if (!cc.ok) {
      for (const j of cj) j.row.verdict = { status: "skipped", why: cc.reason };
      return;
    }
    for (let i = 0; i < cj.length; i += 300) {
      const batch = cj.slice(i, i + 300).map((j, k) => ({ ...j, name: `r${k}`, fn: { ...j.fn, name: `r${k}` } }));
      const calls = batch.flatMap((j) => j.cases.map((c) => ({ routine: j.name, args: argsOf(j.fn, c) })));
      let outs: Record<string, PirValue>[];
      try {
        outs = runCRoutines(batch.map((j) => ({ name: j.name, fn: j.fn })), calls);
      } catch (e) {
        for (const j of batch) j.row.verdict = { status: "refuted", n: 0, counterexample: `C build or run failed: ${(e as Error).message}` };
        continue;
      }
      let at = 0;
      for (const j of batch) {
        j.row.verdict = { status: "tested", n: j.cases.length };
        for (let n = 0; n < j.cases.length; n++) {
          const msg = comparePortable(j.row.spec, j.row.profile, j.cases[n]!, outs[at + n]!);
          if (msg) {
            j.row.verdict = { status: "refuted", n, counterexample: portableCounterexample(j.row, j.cases[n]!, msg) };
            break;
          }
        }
        at += j.cases.length;
      }
    }
  }
}
