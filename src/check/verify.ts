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
import type { McpuName as Mcpu } from "../target/lower.js";
import { targetServices } from "../target/registry.js";
import type { VerifyJob } from "../target/check.js";
import type { ScalarCase } from "./inputs.js";
import { familyOf } from "../families/index.js";
import { expectedScalar } from "./scalar.js";
import type { MatchCase } from "./warps.js";
import { toMatchWarp } from "./warps.js";
import type { WarpCase } from "./warp_cases.js";
import { warpReference } from "./warp_cases.js";
import type { WarpForm } from "../ir/warp_forms.js";
import { scalarCounterexample } from "./report.js";
import { isWarpLevel } from "./missing.js";

/**
 * A row's target: an AMDGPU processor (our fragments), JS, C, or the `hip` header / `llvm`
 * module compiled for a processor (clang-19 / llc-19, targets/llvm/verify.ts).
 */
export type VerifyTarget = { kind: "amdgpu"; mcpu: Mcpu } | { kind: "js" } | { kind: "c" } | { kind: "hip"; mcpu: Mcpu } | { kind: "llvm"; mcpu: Mcpu };

/** `amdgpu gfx942`, `js`, `c`, `hip gfx942`, `llvm gfx942`. */
export function targetName(t: VerifyTarget): string {
  return "mcpu" in t ? `${t.kind} ${t.mcpu}` : t.kind;
}

export type Verdict =
  | { status: "tested"; n: number }
  | { status: "refuted"; n: number; counterexample: string }
  | { status: "proved"; by: string; stored?: boolean }
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
  /** Random warps run per layout, where the target says (hip/llvm: each in every argument and wave64 layout). */
  warps?: number;
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
  /** The warps the hip/llvm rows run: a tenth, at least 1,000 (default), or all (targets/llvm/verify.ts). */
  compiledWarps?: "tenth" | "all";
  onProgress?: (done: number, total: number) => void;
  /** What a batching target is doing after the routines are queued (`VerifyService.flush`'s note). */
  onNote?: (what: string) => void;
}

/** Checks every (spec × profile) on every target; returns one row per rule. */
export async function verify(specs: { spec: RoutineSpec; profile: Profile; warps?: number }[], targets: VerifyTarget[], opts: VerifyOptions = {}): Promise<VerifyRow[]> {
  const seed = opts.seed ?? 1;
  const rows: VerifyRow[] = [];
  let done = 0;
  const total = specs.length;
  const cache = new Map<string, unknown>();
  const services = targetServices().verify;
  const serviceOf = (t: VerifyTarget) => {
    const svc = services.find((x) => x.kind === t.kind);
    if (!svc) throw new Error(`verify: no '${t.kind}' target is registered (src/compose.ts)`);
    return svc;
  };
  for (const { spec, profile, warps } of specs) {
    const cases: VerifyJob["cases"] =
      familyOf(spec.form).shape === "scalar" && !opts.compact
        ? scalarCasesAtLeast(spec, seed, opts.random ?? 400)
        : familyOf(spec.form).cases(spec, { seed, random: opts.random, compact: opts.compact, warps: warps ?? opts.warps });
    for (const t of targets) rows.push(...(await serviceOf(t).verify({ spec, profile, target: t, cases, cache, compiledWarps: opts.compiledWarps })));
    opts.onProgress?.(++done, total);
    // Run the batched rows (JS, C) in batches, so that cases do not pile up in memory.
    for (const svc of services) if ((svc.pending?.() ?? 0) >= 600) await svc.flush!(opts.onNote);
  }
  for (const svc of services) await svc.flush?.(opts.onNote);
  return rows;
}

/**
 * A scalar routine's cases (its family's: edge cases, then `random` seeded random ones), with
 * the random share doubled until there are at least `min` distinct inputs, where the
 * immediates leave that many (a routine whose every source is an immediate has one input;
 * the doubling stops at 20,000 random cases). `random` 0 asks for the edge cases alone, and
 * gets them (0 doubled is 0: this looped for ever before).
 */
export function scalarCasesAtLeast(spec: RoutineSpec, seed: number, random: number, min = 1000): ScalarCase[] {
  const gen = (r: number) => familyOf(spec.form).cases(spec, { seed, random: r }) as ScalarCase[];
  let cases = gen(random);
  while (cases.length < min && random > 0 && random < 20_000) cases = gen((random *= 2));
  return cases;
}

// Which forms a target cannot lower yet, and which are warp-level: in ./missing.ts (lowering
// asks them without loading the checker), re-exported here where the checker's users look.
export { isWarpLevel, missingLowering } from "./missing.js";

/**
 * Expected per-lane results of a warp case (null: not compared): match.sync's on a
 * `MatchCase`, the warp-level family's on a `WarpCase` (src/check/warp_cases.ts), where a
 * `.pred` `d` is 0n/1n per lane.
 */
export function expectedWarp(f: Form, c: MatchCase | WarpCase): { d: (bigint | null)[]; p: (boolean | null)[] } {
  if (isWarpLevel(f)) return warpReference(f, c as WarpCase);
  if (f.op !== "match") throw new Error("not a warp form");
  c = c as MatchCase;
  const r = matchSync(concrete, f, toMatchWarp(f, c));
  const active = (l: number) => ((c.active >>> l) & 1) === 1;
  return {
    d: r.d.map((x, l) => keepLane(active(l), c.guard?.[l], () => (r.defined[l] ? x.x : null), () => c.dPrior[l]!)),
    p: r.p.map((x, l) => keepLane(active(l), c.guard?.[l], () => (r.defined[l] ? x : null), () => c.pPrior[l]!)),
  };
}

export function warpCounterexample(spec: RoutineSpec, where: string, rule: string, c: MatchCase | WarpCase, lane: number, what: string): string {
  const hx = (x: bigint) => `0x${x.toString(16)}`;
  const bc = "b" in c ? [...(c.b.length ? [`  b = [${c.b.map(hx).join(", ")}]`] : []), ...(c.c.length ? [`  c = [${c.c.map(hx).join(", ")}]`] : [])] : [];
  return [
    `check ${formName(spec.form)} → ${where}  rule ${rule}  REFUTED`,
    `ERROR: ${what}`,
    "",
    "Example:",
    `  warp: ${c.label}`,
    `  active = 0x${(c.active >>> 0).toString(16).padStart(8, "0")}`,
    `  a = [${c.a.map(hx).join(", ")}]`,
    ...bc,
    ...(c.membermask ? [`  membermask = [${c.membermask.map(hx).join(", ")}]`] : []),
    ...(c.guard ? [`  g = [${c.guard.map((g) => (g ? 1 : 0)).join("")}]`] : []),
    `  failing lane: ${lane}`,
  ].join("\n");
}

/**
 * Compares one target's outputs for a case with the reference: `out.d` a u32 (scalar forms)
 * or 32 lanes, `out.p` 32 lanes (warp forms; absent where the routine returns none).
 * @returns a failure message, or null when they agree (lanes the reference leaves undefined or
 *   that do not execute are not compared).
 */
export function compareOutputs(spec: RoutineSpec, profile: Profile, c: ScalarCase | MatchCase | WarpCase, out: Readonly<Record<string, unknown>>): string | null {
  const f = spec.form;
  if (familyOf(f).shape === "scalar") {
    const want = expectedScalar(f, profile, c as ScalarCase);
    return out.d === want ? null : `d = 0x${(out.d as bigint).toString(16)}, spec 0x${want.toString(16)}`;
  }
  const want = expectedWarp(f, c as MatchCase | WarpCase);
  const d = out.d as readonly bigint[] | undefined;
  const p = out.p as readonly boolean[] | undefined;
  for (let l = 0; l < 32; l++) {
    if (d && want.d[l] !== null && d[l] !== want.d[l]) return `lane ${l}: d = 0x${d[l]!.toString(16)}, spec 0x${want.d[l]!.toString(16)}`;
    if (p && want.p[l] !== null && p[l] !== want.p[l]) return `lane ${l}: p = ${p[l]}, spec ${want.p[l]}`;
  }
  return null;
}

/** The counterexample text of a row refuted on case `c` with message `what` (from `compareOutputs` or the target). */
export function outputCounterexample(row: VerifyRow, c: ScalarCase | MatchCase | WarpCase, what: string): string {
  const f = row.spec.form;
  if (familyOf(f).shape === "scalar") {
    const x = c as ScalarCase;
    const want = expectedScalar(f, row.profile, x);
    const m = /d = 0x([0-9a-f]+)/.exec(what);
    return scalarCounterexample({ f, profile: row.profile, target: targetName(row.target), rule: row.rule, x, expected: want, got: m ? BigInt("0x" + m[1]) : what });
  }
  return warpCounterexample(row.spec, targetName(row.target), row.rule, c as MatchCase | WarpCase, 0, what);
}
