/**
 * @fileoverview The AMDGPU rows of `verify`: every applicable rule of a routine, lowered for
 * the processor (hazard-padded, waits kept) and run in the interpreter (targets/amdgpu/interp.ts)
 * against the reference on the checker's inputs — 32 scalar cases per wave, or one warp per
 * run — with the routine contract and the hazard rules checked on every run. Identical code on
 * the same processor and inputs gives the same verdict (cached per verify call; not per wave
 * size: the interpreter's semantics (DPP bound control, the waitcnt fields, ds_bpermute's
 * wrap) and the hazard rules differ between processors of one wave size).
 */
import type { Profile } from "../../src/ir/forms.js";
import { formName, formWrites } from "../../src/ir/forms.js";
import type { RoutineSpec } from "../../src/ir/ir.js";
import type { CV } from "../../src/sem/bv.js";
import { concrete, showCV, u } from "../../src/sem/bv.js";
import type { NV } from "../../src/sem/bv_number.js";
import { concreteNumber, nvValue } from "../../src/sem/bv_number.js";
import { familyOf } from "../../src/families/index.js";
import type { ScalarCase } from "../../src/check/inputs.js";
import type { MatchCase } from "../../src/check/warps.js";
import { distinctActive } from "../../src/check/warps.js";
import type { ScalarExecutor } from "../../src/check/scalar.js";
import { CheckFailure, checkScalar } from "../../src/check/scalar.js";
import { scalarCounterexample } from "../../src/check/report.js";
import type { Verdict, VerifyRow } from "../../src/check/verify.js";
import { expectedWarp, isWarpLevel, missingLowering, warpCounterexample } from "../../src/check/verify.js";
import type { WarpCase } from "../../src/check/warp_cases.js";
import { warpReference } from "../../src/check/warp_cases.js";
import type { WarpForm } from "../../src/ir/warp_forms.js";
import { warpWrites } from "../../src/ir/warp_forms.js";
import { runWarpLevel } from "./warp_exec.js";
import type { VerifyJob, VerifyService } from "../../src/target/check.js";
import type { AmdRoutine } from "./lower.js";
import { applicableRules, lowerRoutine, lowerWithRule, printRoutine } from "./lower.js";
import { execRoutine, runFailure } from "./exec.js";
import { printOp } from "./minst.js";
import { TARGETS } from "./regs.js";

/**
 * An executor running an AMDGPU routine in the interpreter, 32 cases per wave when every
 * register source is divergent (one case per wave otherwise). Contract violations, hazards
 * and step-limit overruns are reported as failures (`CheckFailure`). The interpreter runs
 * over `concreteNumber` (src/sem/bv_number.ts: the same records and interpreter on numbers,
 * checked operation by operation against `concrete` in test/bv_number.test.ts); the trace of
 * a counterexample (`amdgpuTrace`) over `concrete`.
 */
export function amdgpuExecutor(r: AmdRoutine, stats: { maxSteps: number } = { maxSteps: 0 }): ScalarExecutor {
  const uniform = Object.values(r.spec.kinds).some((k) => k?.kind === "s");
  return async (cases) => {
    const out: bigint[] = [];
    const per = uniform ? 1 : 32;
    for (let i = 0; i < cases.length; i += per) {
      const batch = cases.slice(i, i + per);
      const lanes = (key: "a" | "b" | "c") => perLane((l) => n32(batch[l % batch.length]![key]));
      const src: Record<string, NV | NV[]> = {};
      for (const name of ["a", "b", "c"] as const) {
        const k = r.spec.kinds[name];
        if (!k || k.kind === "imm") continue;
        src[name] = k.kind === "v" ? lanes(name) : n32(batch[0]![name]);
      }
      // With only uniform sources every lane computes the same value: one active lane,
      // except every 16th wave, which runs all 32 (lanes stay independent either way).
      const active = uniform && (i / per) % 16 !== 0 ? n32(1n) : n32(0xffffffffn);
      const run = execRoutine(concreteNumber, r, {
        src,
        active,
        ...(r.spec.guarded
          ? {
              guard: perLane((l) => batch[l % batch.length]!.g ?? true),
              dPrior: perLane((l) => n32(batch[l % batch.length]!.dPrior ?? 0n)),
            }
          : {}),
      });
      const failure = runFailure(run);
      if (failure) throw new CheckFailure(batch[0]!, failure);
      stats.maxSteps = Math.max(stats.maxSteps, run.cycles);
      batch.forEach((_, l) => out.push(nvValue(run.d[l]!)));
    }
    return out;
  };
}

/** 32 lanes of `f(lane)` (a plain loop: `Array.from({ length })` costs more than a short run). */
function perLane<T>(f: (lane: number) => T): T[] {
  const out = new Array<T>(32);
  for (let l = 0; l < 32; l++) out[l] = f(l);
  return out;
}

/** A u32 (or `w`-bit) constant of `concreteNumber`. */
const n32 = (x: bigint, w = 32): NV => concreteNumber.k(x, w);

/** The AMDGPU trace of the lane where `x` ran (lane 0 of a wave of identical lanes), for a counterexample. */
export function amdgpuTrace(r: AmdRoutine, x: ScalarCase): string[] {
  const src: Record<string, CV | CV[]> = {};
  for (const name of ["a", "b", "c"] as const) {
    const k = r.spec.kinds[name];
    if (!k || k.kind === "imm") continue;
    src[name] = k.kind === "v" ? new Array<CV>(32).fill(u(x[name])) : u(x[name]);
  }
  const run = execRoutine(concrete, r, {
    src,
    active: u(1),
    ...(r.spec.guarded ? { guard: new Array<boolean>(32).fill(x.g ?? true), dPrior: new Array<CV>(32).fill(u(x.dPrior ?? 0n)) } : {}),
  }, { trace: true });
  return run.trace.map((s) => {
    const text = `${s.inst.op}${s.inst.enc ? "_" + s.inst.enc : ""} ${s.inst.ops.map(printOp).join(", ")}`;
    const w = s.writes.map((wr) => `${wr.what} = ${showCV(Array.isArray(wr.value) ? wr.value[0]! : wr.value)}`).join("  ");
    return `  ${text.padEnd(40)} ${w}`;
  });
}

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
    trace: () => amdgpuTrace(r, res.failure!.case),
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

function checkAmdWarp(spec: RoutineSpec, r: AmdRoutine, cases: MatchCase[]): Verdict & { dynMax: number; overBound: number } {
  const f = spec.form;
  if (f.op !== "match") throw new Error("not a match form");
  const width = f.type === "b64" ? 64 : 32;
  let dynMax = 0;
  let overBound = -Infinity;
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i]!;
    const src: Record<string, NV | NV[]> = {};
    if (spec.kinds.a?.kind !== "imm") src.a = spec.kinds.a?.kind === "s" ? n32(c.a[0]!, width) : c.a.map((x) => n32(x, width));
    if (spec.kinds.membermask?.kind !== "imm") src.membermask = spec.kinds.membermask?.kind === "s" ? n32(c.membermask[0]!) : c.membermask.map((x) => n32(x));
    const run = execRoutine(concreteNumber, r, {
      src,
      active: n32(BigInt(c.active >>> 0)),
      ...(spec.guarded ? { guard: c.guard!, dPrior: c.dPrior.map((x) => n32(x)), pPrior: c.pPrior } : {}),
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
      if (wd !== null && wd !== undefined && nvValue(run.d[l]!) !== wd && f.dest !== "_|p" && f.dest !== "_")
        return { status: "refuted", n: i, counterexample: warpCounterexample(spec, where, r.rule, c, l, `lane ${l}: d = 0x${nvValue(run.d[l]!).toString(16)}, spec 0x${wd.toString(16)}`), dynMax, overBound };
      const wp = want.p[l];
      const hasP = formWrites(f).p;
      if (hasP && wp !== null && wp !== undefined && run.p[l] !== wp)
        return { status: "refuted", n: i, counterexample: warpCounterexample(spec, where, r.rule, c, l, `lane ${l}: p = ${run.p[l]}, spec ${wp}`), dynMax, overBound };
    }
  }
  return { status: "tested", n: cases.length, dynMax, overBound: overBound === -Infinity ? 0 : overBound };
}


/**
 * A warp-level routine (shfl, vote, redux, activemask, bar.warp.sync) on every case: each run
 * through the interpreter (hazards, the contract and the LDS wait model checked), compared
 * lane by lane with the reference (`warpReference`: null lanes are not compared).
 */
function checkAmdWarpLevel(spec: RoutineSpec, r: AmdRoutine, cases: WarpCase[]): Verdict & { dynMax?: number; overBound?: number } {
  const f = spec.form as WarpForm;
  const hex = (x: bigint) => `0x${x.toString(16)}`;
  let dynMax = 0;
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i]!;
    const run = runWarpLevel(r, f, c);
    const cx = (what: string) => [`${formName(spec.form)} [${r.rule}] on ${r.target.mcpu}: ${what}`, `  warp: ${c.label}; active = 0x${(c.active >>> 0).toString(16)}`, `  a = [${c.a.map(hex).join(", ")}]`, ...(c.membermask ? [`  membermask = [${c.membermask.map(hex).join(", ")}]`] : []), ...(c.b.length ? [`  b = [${c.b.map(hex).join(", ")}]`, `  c = [${c.c.map(hex).join(", ")}]`] : []), ...(c.guard ? [`  guard = [${c.guard.map((g) => (g ? 1 : 0)).join("")}]`] : []), "", printRoutine(r.rule, r)].join("\n");
    if ("failure" in run) return { status: "refuted", n: i, counterexample: cx(run.failure), dynMax };
    dynMax = Math.max(dynMax, run.cycles);
    const want = warpReference(f, c);
    for (let l = 0; l < 32; l++) {
      const wd = warpWrites(f).d ? want.d[l] : null;
      if (wd !== null && wd !== undefined && run.d[l] !== wd) return { status: "refuted", n: i, counterexample: cx(`lane ${l}: d = ${hex(run.d[l]!)}, spec ${hex(wd)}`), dynMax };
      const wp = want.p[l];
      if (warpWrites(f).p && wp !== null && wp !== undefined && run.p[l] !== wp) return { status: "refuted", n: i, counterexample: cx(`lane ${l}: p = ${run.p[l]}, spec ${wp}`), dynMax };
    }
  }
  return { status: "tested", n: cases.length, dynMax };
}

const big = (_k: string, x: unknown) => (typeof x === "bigint" ? x.toString() : x);

/**
 * Checks one lowered routine as it is (one in a caller's registers, ./assign.ts) on the
 * family's cases (`familyOf(spec.form).cases`): each run through the interpreter with the
 * operands placed in the routine's layout, hazards and the contract checked, compared with the
 * reference. The verdict `verify` gives a rule's routine.
 */
export async function checkLoweredRoutine(r: AmdRoutine, profile: Profile, cases: VerifyJob["cases"]): Promise<Verdict> {
  const spec = r.spec;
  const v = familyOf(spec.form).shape === "scalar" ? await checkAmdScalar(spec, profile, r, cases as ScalarCase[]) : isWarpLevel(spec.form) ? checkAmdWarpLevel(spec, r, cases as WarpCase[]) : checkAmdWarp(spec, r, cases as MatchCase[]);
  const { dynMax: _d, overBound: _o, ...verdict } = v as Verdict & { dynMax?: number; overBound?: number };
  return verdict as Verdict;
}

export const amdgpuVerify: VerifyService = {
  kind: "amdgpu",
  async verify({ spec, profile, target: t, cases, cache }: VerifyJob): Promise<VerifyRow[]> {
    if (t.kind !== "amdgpu") throw new Error("amdgpuVerify: not an AMDGPU target");
    const target = TARGETS[t.mcpu];
    const missing = missingLowering("AMDGPU", spec.form);
    if (missing) return [{ spec, profile, target: t, rule: "(none)", chosen: true, verdict: { status: "unknown", why: missing } }];
    const scalar = familyOf(spec.form).shape === "scalar";
    const chosen = lowerRoutine(spec, target, profile).rule;
    const rows: VerifyRow[] = [];
    for (const rule of applicableRules(spec, target, profile)) {
      const r = lowerWithRule(spec, target, profile, rule);
      // Identical code on the same processor and inputs gives the same verdict (the same text on
      // gfx900 and gfx942 is still checked against gfx942's own hazard rules).
      const key = `${target.mcpu}|${profile}|${printRoutine("r", r)}|${JSON.stringify(spec, big)}`;
      let v = cache.get(key) as (Verdict & { dynMax?: number; overBound?: number }) | undefined;
      if (!v) {
        v = scalar ? await checkAmdScalar(spec, profile, r, cases as ScalarCase[]) : isWarpLevel(spec.form) ? checkAmdWarpLevel(spec, r, cases as WarpCase[]) : checkAmdWarp(spec, r, cases as MatchCase[]);
        cache.set(key, v);
      }
      const { dynMax, overBound, ...verdict } = v;
      rows.push({ spec, profile, target: t, rule: rule.name, chosen: rule.name === chosen, count: r.count, dynMax, overBound, verdict: verdict as Verdict });
    }
    return rows;
  },
};
