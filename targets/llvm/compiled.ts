/**
 * @fileoverview "Verified as compiled" (issue 14 item 3): every function of the `hip` header
 * and the `llvm` module, compiled for a processor (targets/hip/compile.ts,
 * targets/llvm/compile.ts), extracted as the trust-base crosscheck extracts llc's code, then
 *   1. checked for hazards under LLVM's own function boundary (`checkHazards(…, LLVM_ENTRY)`:
 *      nothing pending at entry; src/check/llc_hazards.ts does the same for llc's code),
 *   2. run in the AMDGPU interpreter (targets/amdgpu/interp.ts) on the checker's inputs
 *      (src/check/inputs.ts, vsh_inputs.ts for scalar forms; src/check/warps.ts for match.sync,
 *      src/check/warp_cases.ts for the warp-level family: per-lane b/c, predicates as 0/1)
 *      and compared with the reference (src/check/scalar.ts `expectedScalar`,
 *      src/check/verify.ts `expectedWarp`),
 * with arguments in VGPRs and once more uniform (SGPRs). Warp functions on wave64 run in both
 * layouts: one CUDA warp with lanes 32–63 inactive, and two independent warps (lanes 0–31
 * and 32–63, independent values, membermasks and active masks). `exec` must be the same at
 * exit. An instruction without a record is reported (`unknown`), never skipped silently.
 *
 * Shapes: `CompiledFunction` (one extracted function) in, `CompiledRow` (one per target ×
 * processor × function) out, with `tested(n)` (n = scalar cases or warps compared) or
 * `refuted` and the first counterexample.
 */
import type { Profile } from "../../src/ir/forms.js";
import { formId, formName } from "../../src/ir/forms.js";
import { concrete } from "../../src/sem/bv.js";
import { concreteNumber, nvValue } from "../../src/sem/bv_number.js";
import { guardOn } from "../../src/sem/guard.js";
import type { IrArg } from "./ir.js";
import type { MLine } from "../amdgpu/minst.js";
import { isLabel } from "../amdgpu/minst.js";
import { outstandingDs, run } from "../amdgpu/interp.js";
import { checkHazards, formatViolation, LLVM_ENTRY } from "../amdgpu/hazards.js";
import type { Mcpu } from "../amdgpu/regs.js";
import { MCPUS, TARGETS } from "../amdgpu/regs.js";
import { initialStateIn, inregRegisters } from "../amdgpu/oracle/llvm.js";
import { llcHazardTarget } from "../amdgpu/oracle/llc_hazards.js";
import type { ScalarCase } from "../../src/check/inputs.js";
import { familyOf } from "../../src/families/index.js";
import { expectedScalar } from "../../src/check/scalar.js";
import type { MatchCase } from "../../src/check/warps.js";
import { randomWarps } from "../../src/check/warps.js";
import type { WarpCase } from "../../src/check/warp_cases.js";
import { randomWarpCases } from "../../src/check/warp_cases.js";
import { expectedWarp, isWarpLevel, scalarCasesAtLeast } from "../../src/check/verify.js";
import type { WarpForm } from "../../src/ir/warp_forms.js";
import { warpPredicateDest } from "../../src/ir/warp_forms.js";
import type { CallableFn, RoutineLike } from "./callable.js";
import { callableFunctions } from "./callable.js";
import { printHipModule } from "../hip/print.js";
import { compileHip } from "../hip/compile.js";
import { printLlvmModule } from "./print.js";
import { compileLlvm } from "./compile.js";

/** One extracted function: which callable function, which argument layout, its code. */
export interface CompiledFunction {
  fn: CallableFn;
  /** `vgpr`: arguments in VGPRs; `sgpr`: uniform arguments (SGPRs). */
  variant: "vgpr" | "sgpr";
  /** The symbol whose body was extracted. */
  symbol: string;
  /** Argument layout for the interpreter (`inreg`: in the SGPRs of `inregRegisters`). */
  args: IrArg[];
  /** The VGPRs holding d and p at return. */
  dReg?: number;
  pReg?: number;
  lines: MLine[] | { error: string };
}

/** A compile's result: the assembly and the extracted functions. */
export interface CompiledSet {
  asm: string;
  functions: CompiledFunction[];
}

export type CompiledVerdict =
  | { status: "tested"; n: number }
  | { status: "refuted"; n: number; counterexample: string }
  | { status: "unknown"; why: string }
  | { status: "skipped"; why: string };

/** One row: a target × processor × function (both argument layouts and, for warps, both wave64 layouts). */
export interface CompiledRow {
  target: "hip" | "llvm";
  mcpu: Mcpu;
  /** `hip gfx942`. */
  row: string;
  fn: string;
  form: string;
  verdict: CompiledVerdict;
  /** Cases (or warps) compared per part: `vgpr`, `sgpr`, and for warps on wave64 `vgpr/two-warps`, `sgpr/two-warps`. */
  parts: Record<string, number>;
  /** Hazard waits (`s_nop`, `s_waitcnt_depctr`) the compiler put in the code, over both layouts. */
  waits: number;
  /** Warp functions: the random warps run in each part (`parts` counts warps compared; an odd count's two-warp part has one more). */
  warps?: number;
}

const hex = (x: bigint) => `0x${x.toString(16)}`;

/** Why `lines` cannot be run: a parse error, a missing record, or a hazard; null when it can. */
function unrunnable(cf: CompiledFunction, mcpu: Mcpu): { status: "unknown" | "refuted"; why: string } | null {
  if (!Array.isArray(cf.lines)) return { status: "unknown", why: `${cf.symbol}: ${cf.lines.error}` };
  const flags = checkHazards(cf.lines, llcHazardTarget(mcpu, TARGETS[mcpu].wave), LLVM_ENTRY);
  if (flags.length) return { status: "refuted", why: `${cf.symbol}: hazard: ${flags.map(formatViolation).join("; ")}` };
  return null;
}

function waitsOf(lines: MLine[]): number {
  return lines.filter((l) => !isLabel(l) && (l.op === "s_nop" || l.op === "s_waitcnt_depctr")).length;
}

/**
 * The checker's scalar cases for a function (as `verify` builds them for its routine), with
 * more random cases where immediates leave fewer than 1,000 distinct inputs (a function with
 * every source immediate has exactly one).
 */
export function compiledScalarCases(fn: CallableFn, seed: number): ScalarCase[] {
  if (fn.spec.form.op === "match") throw new Error("not a scalar form");
  return scalarCasesAtLeast(fn.spec, seed, 400);
}

/** An extracted function's results on one wave: per lane d and p (p as 0/1), or why it failed. */
export type CompiledRun = { d: bigint[]; p: bigint[] } | { failure: string };

/**
 * Runs an extracted function once: `perLane[l]` holds lane l's arguments in `cf.args` order
 * (W lanes), `exec` the active lanes. Fails on a run that does not end, or ends with another
 * `exec` than it began with. The interpreter runs over `concreteNumber` (src/sem/bv_number.ts:
 * the same records and interpreter, instantiated on numbers instead of bigints — no semantics
 * of its own), which makes a warp several times cheaper than over `concrete`. `read`: the
 * lanes whose d and p are wanted (the others stay holes in the arrays; default every lane).
 */
export function execCompiled(cf: CompiledFunction, lines: MLine[], mcpu: Mcpu, perLane: bigint[][], exec: bigint, sregs: number[], read?: readonly number[]): CompiledRun {
  const W = TARGETS[mcpu].wave;
  const warp = isWarpFn(cf.fn);
  const st = initialStateIn(concreteNumber, W, { name: cf.symbol, args: cf.args, results: warp ? [] : [32], text: "", decls: [] }, perLane, exec, sregs, lines, TARGETS[mcpu].gen);
  const res = run(concreteNumber, lines, st, { stepLimit: warp ? 50_000 : 20_000 });
  if (res.status !== "ok") return { failure: `${cf.symbol}: ${res.status} after ${res.steps} steps` };
  const left = outstandingDs(st);
  if (left.length) return { failure: `${cf.symbol}: ${left.join("; ")}` };
  const exit = nvValue(st.exec);
  if (exit !== exec) return { failure: `${cf.symbol}: exec ${hex(exit)} at exit, ${hex(exec)} at entry` };
  const lane = (reg: number | undefined) => {
    const out: bigint[] = read ? new Array<bigint>(W) : [];
    const vals = reg === undefined ? undefined : st.vgpr.get(reg)!;
    for (const l of read ?? allLanes(W)) out[l] = vals ? nvValue(vals[l]!) : 0n;
    return out;
  };
  // A predicate d (vote's `.pred`: `bool`/`i1`) is its low bit, as p is.
  const f = cf.fn.spec.form;
  const predD = isWarpLevel(f) && warpPredicateDest(f);
  const d = lane(cf.dReg);
  const p = lane(cf.pReg);
  for (const l of read ?? allLanes(W)) {
    if (predD) d[l] = d[l]! & 1n;
    p[l] = p[l]! & 1n;
  }
  return { d, p };
}

const LANES = { 32: Array.from({ length: 32 }, (_, l) => l), 64: Array.from({ length: 64 }, (_, l) => l) };
const allLanes = (W: 32 | 64): readonly number[] => LANES[W];

/**
 * Runs one extracted scalar function on `cases`: `vgpr` puts a case in every lane (all lanes
 * active), `sgpr` runs one case per wave in every active lane. Every eighth `sgpr` wave has
 * every lane active; the others a few lanes (`sgprExec`): a function with uniform arguments
 * is called from divergent code too, and each wave then costs a few lanes, not all of them.
 * Each case is compared in its lane (`vgpr`) or every active lane (`sgpr`). Returns the number
 * compared, or the first counterexample.
 */
function runScalar(cf: CompiledFunction, lines: MLine[], mcpu: Mcpu, profile: Profile, cases: ScalarCase[], sregs: number[]): { n: number; cx?: string } {
  const W = TARGETS[mcpu].wave;
  const f = cf.fn.spec.form;
  const per = cf.variant === "vgpr" ? W : 1;
  const full = (1n << BigInt(W)) - 1n;
  let n = 0;
  for (let i = 0; i < cases.length; i += per) {
    const laneCase = (l: number) => cases[(i + (per === 1 ? 0 : l)) % cases.length]!;
    let perLane: bigint[][];
    let exec = full;
    let read: readonly number[] | undefined;
    let check: readonly number[];
    if (per === 1) {
      // One case: the same arguments in every lane (one array), read in the active lanes.
      const args = cf.args.map((a) => cases[i]![a.name as "a" | "b" | "c"]);
      perLane = new Array<bigint[]>(W).fill(args);
      const lanes = sgprExec(i, W);
      if (lanes) {
        exec = lanes.reduce((m, l) => m | (1n << BigInt(l)), 0n);
        read = lanes;
      } else read = allLanes(W);
      check = read;
    } else {
      perLane = Array.from({ length: W }, (_, l) => cf.args.map((a) => laneCase(l)[a.name as "a" | "b" | "c"]));
      check = allLanes(W).slice(0, Math.min(W, cases.length - i));
    }
    const out = execCompiled(cf, lines, mcpu, perLane, exec, sregs, read);
    if ("failure" in out) return { n, cx: out.failure };
    let want: bigint | undefined;
    for (const l of check) {
      const c = laneCase(l);
      if (per !== 1 || want === undefined) {
        want = expectedScalar(f, profile, c);
        n++;
      }
      const got = out.d[l]!;
      if (got !== want)
        return {
          n,
          cx: `${formName(f)} [${cf.symbol}, ${cf.variant}] on ${mcpu} lane ${l}${per === 1 ? ` (exec 0x${exec.toString(16)})` : ""}: a=${hex(c.a)} b=${hex(c.b)} c=${hex(c.c)}: got ${hex(got)}, reference ${hex(want)}`,
        };
    }
  }
  return { n };
}

/**
 * The active lanes of the `sgpr` wave that runs case `i`: null (every lane) for every eighth
 * case, otherwise one to three lanes spread over the wave by a fixed hash of `i` (so a run is
 * the same every time, and the lanes cover both halves of a wave64).
 */
export function sgprExec(i: number, W: 32 | 64): number[] | null {
  if (i % 8 === 0) return null;
  let h = Math.imul(i ^ 0x9e3779b9, 0x85ebca6b) >>> 0;
  const lanes = new Set<number>();
  for (let k = 0; k < 1 + (i % 3); k++) {
    lanes.add(h % W);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  }
  return [...lanes].sort((a, b) => a - b);
}

/** A match.sync or warp-level function (called by every thread of a warp; results per lane). */
export function isWarpFn(fn: CallableFn): boolean {
  return fn.spec.form.op === "match" || isWarpLevel(fn.spec.form);
}

/** A warp case of either kind (match.sync's `MatchCase`, the warp-level family's `WarpCase`). */
export type AnyWarpCase = MatchCase | WarpCase;

/** The per-lane values of source `name` in a case (b, c: the warp-level family's; a membermask: null-free where the form has one). */
function caseLanes(c: AnyWarpCase, name: string): bigint[] {
  if (name === "a") return c.a;
  if (name === "membermask") return c.membermask ?? [];
  return "b" in c ? (name === "b" ? c.b : c.c) : [];
}

/** A case made uniform: every lane holds lane 0's value of every source (what `sgpr` passes). */
function uniformCase<C extends AnyWarpCase>(c: C): C {
  const one = (xs: bigint[] | null) => (xs && xs.length ? xs.map(() => xs[0]!) : xs);
  return "b" in c ? { ...c, a: one(c.a)!, b: one(c.b)!, c: one(c.c)!, membermask: one(c.membermask) } : { ...c, a: one(c.a)!, membermask: one(c.membermask)! };
}

/**
 * A warp function's arguments for one wave: lanes 0–31 from `lo`, lanes 32–63 (wave64) from
 * `hi` (or inactive without it); `exec` is the warps' active lanes, each ∧ its `guard`
 * where the case has one (a guarded-off lane does not execute the call: the caller's `if`).
 */
export function warpWave(cf: CompiledFunction, mcpu: Mcpu, lo: AnyWarpCase, hi?: AnyWarpCase): { perLane: bigint[][]; exec: bigint } {
  const W = TARGETS[mcpu].wave;
  const on = (c: AnyWarpCase) => {
    let m = 0;
    for (let l = 0; l < 32; l++) if (guardOn(concrete, ((c.active >>> l) & 1) === 1, c.guard?.[l])) m = (m | (1 << l)) >>> 0;
    return BigInt(m);
  };
  const exec = on(lo) | (hi ? on(hi) << 32n : 0n);
  const perLane = Array.from({ length: W }, (_, l) => {
    const c = (l < 32 ? lo : hi) ?? lo;
    return cf.args.map((a) => caseLanes(c, a.name)[l % 32]!);
  });
  return { perLane, exec };
}

/**
 * A warp function's random warps and the waves made from them, shared by every layout,
 * processor and function with the same form, kinds, seed and count (so is each warp's
 * reference, which `warpReference` keeps per case object): `plain` (unguarded: the function is
 * the instruction without its guard, the caller's `if`), `uniform` (what `sgpr` passes: lane
 * 0's sources in every lane) and `uniformHi` (the upper warp of an `sgpr` two-warp wave:
 * warp i + 1 with warp i's uniform sources, its own active mask).
 */
interface WarpWaves {
  plain: AnyWarpCase[];
  uniform?: AnyWarpCase[];
  uniformHi?: AnyWarpCase[];
}

function uniformWaves(w: WarpWaves): { uniform: AnyWarpCase[]; uniformHi: AnyWarpCase[] } {
  const n = w.plain.length;
  w.uniform ??= w.plain.map(uniformCase);
  const uni = w.uniform;
  w.uniformHi ??= w.plain.map((_, i) => {
    const lo = uni[i]!;
    const hi = w.plain[(i + 1) % n]!;
    return "b" in lo ? ({ ...hi, a: lo.a, b: lo.b, c: lo.c, membermask: lo.membermask } as WarpCase) : { ...hi, a: lo.a, membermask: lo.membermask };
  });
  return { uniform: uni, uniformHi: w.uniformHi };
}

/**
 * Runs one extracted warp function on the warps of `waves`. `twoWarps` (wave64 only): each
 * wave holds two of them, warp i in lanes 0–31 and warp i + 1 in lanes 32–63 (i even; for
 * `sgpr` the same uniform a and membermask, independent active masks; an odd count pairs the
 * last warp with the first), so every warp runs once in a two-warp wave, half of them in the
 * upper half; otherwise one warp per wave, lanes 32–63 inactive. Returns the number of warps
 * compared, or the first counterexample.
 */
function runWarp(cf: CompiledFunction, lines: MLine[], mcpu: Mcpu, waves: WarpWaves, sregs: number[], twoWarps: boolean): { n: number; cx?: string } {
  const f = cf.fn.spec.form;
  const plain = waves.plain;
  const { uniform, uniformHi } = cf.variant === "sgpr" ? uniformWaves(waves) : { uniform: plain, uniformHi: null };
  let n = 0;
  for (let i = 0; i < plain.length; i += twoWarps ? 2 : 1) {
    const lo = uniform[i]!;
    const hi = !twoWarps ? undefined : uniformHi ? uniformHi[i]! : plain[(i + 1) % plain.length]!;
    const { perLane, exec } = warpWave(cf, mcpu, lo, hi);
    const out = execCompiled(cf, lines, mcpu, perLane, exec, sregs);
    if ("failure" in out) return { n, cx: `${out.failure} (warp ${lo.label})` };
    for (const [c, base] of [[lo, 0], ...(hi ? [[hi, 32]] : [])] as [AnyWarpCase, number][]) {
      const want = expectedWarp(f, c);
      n++;
      for (let l = 0; l < 32; l++) {
        if (!((c.active >>> l) & 1)) continue;
        const wd = want.d[l];
        const wp = want.p[l];
        const bad =
          cf.dReg !== undefined && wd !== null && wd !== undefined && out.d[base + l] !== wd
            ? `d = ${hex(out.d[base + l]!)}, reference ${hex(wd)}`
            : cf.pReg !== undefined && wp !== null && wp !== undefined && out.p[base + l] !== (wp ? 1n : 0n)
              ? `p = ${out.p[base + l]}, reference ${wp ? 1 : 0}`
              : null;
        if (bad)
          return {
            n,
            cx: [
              `${formName(f)} [${cf.symbol}, ${cf.variant}${twoWarps ? ", two warps per wave64" : ""}] on ${mcpu}: warp ${base === 0 ? "lanes 0-31" : "lanes 32-63"} lane ${l}: ${bad}`,
              `  warp: ${c.label}; active = 0x${(c.active >>> 0).toString(16)}`,
              `  a = [${c.a.map(hex).join(", ")}]`,
              ...("b" in c && c.b.length ? [`  b = [${c.b.map(hex).join(", ")}]`, `  c = [${c.c.map(hex).join(", ")}]`] : []),
              ...(c.membermask ? [`  membermask = [${c.membermask.map(hex).join(", ")}]`] : []),
            ].join("\n"),
          };
      }
    }
  }
  return { n };
}

/** Options of `checkCompiled` / `verifyCompiled`. */
export interface CompiledCheckOptions {
  profile?: Profile;
  seed?: number;
  /** Random warps per warp function and layout (default 1,000). */
  warps?: number;
  /** Called after each function is run on every compile that has it (progress). */
  onFunction?: (done: number, total: number) => void;
}

/**
 * Checks the extracted functions of one compile (both layouts of each callable function) and
 * returns one row per callable function. `sregs`: where the `inreg` arguments arrive
 * (`inregRegisters`, needed for the llvm target's `sgpr` wrappers).
 */
export function checkCompiled(target: "hip" | "llvm", mcpu: Mcpu, set: CompiledSet, sregs: number[], opts: CompiledCheckOptions = {}): CompiledRow[] {
  return checkCompiledSets(target, [{ mcpu, set, sregs }], opts)[0]!;
}

/** One compile of a header or module for a processor, as `checkCompiledSets` takes it. */
export interface CompiledFor {
  mcpu: Mcpu;
  set: CompiledSet;
  sregs: number[];
}

/**
 * `checkCompiled` over several compiles (processors) of the same functions: the rows of
 * `compiles[i]` in `[i]`, each in its set's function order. The work is function by
 * function across the compiles, so that a function's inputs (its warps, made once for its
 * form, kinds, seed and count, and their references) serve every processor, and a run of
 * code that is the same as one already run (same instructions up to label names, wave size,
 * ISA generation, argument registers, inputs and layout: the alias `ptxl_<formId>` and the
 * routine whose sources are all parameters; gfx900 and gfx90a, which often get the same code)
 * is not repeated: its result is reused (a counterexample then names the run it came from).
 */
export function checkCompiledSets(target: "hip" | "llvm", compiles: readonly CompiledFor[], opts: CompiledCheckOptions = {}): CompiledRow[][] {
  const profile = opts.profile ?? "isa";
  const seed = opts.seed ?? 1;
  const nw = opts.warps ?? 1000;
  const out: CompiledRow[][] = compiles.map(() => []);
  const names: string[] = [];
  for (const c of compiles) for (const cf of c.set.functions) if (!names.includes(cf.fn.name)) names.push(cf.fn.name);
  const inputs = inputCache;
  for (const name of names) {
    for (const [ci, c] of compiles.entries()) {
      const cfs = c.set.functions.filter((cf) => cf.fn.name === name);
      if (!cfs.length) continue;
      const fn = cfs[0]!.fn;
      const { mcpu, sregs } = c;
      const row: CompiledRow = { target, mcpu, row: `${target} ${mcpu}`, fn: fn.name, form: formName(fn.spec.form), verdict: { status: "tested", n: 0 }, parts: {}, waits: 0 };
      out[ci]!.push(row);
      const warp = isWarpFn(fn);
      // The inputs of the function's form and kinds (the last few kept: the loop is function-major).
      const inputKey = `${warp ? "warp" : "scalar"}|${formId(fn.spec.form)}|${JSON.stringify(fn.spec.kinds, bigintText)}|${seed}|${nw}`;
      let input = inputs.get(inputKey);
      if (input) {
        // Most recently used last.
        inputs.delete(inputKey);
        inputs.set(inputKey, input);
      } else {
        // Evict the least recently used until this one fits the budget (at least it is kept).
        const size = (x: ScalarCase[] | WarpWaves) => (Array.isArray(x) ? x.length / 32 : x.plain.length);
        const mine = warp ? nw : 0;
        let held = 0;
        for (const x of inputs.values()) held += size(x);
        for (const k of inputs.keys()) {
          if (held + mine <= INPUT_BUDGET && inputs.size < INPUT_CACHE) break;
          held -= size(inputs.get(k)!);
          inputs.delete(k);
        }
        input = !warp
          ? compiledScalarCases(fn, seed)
          : {
              plain: ((isWarpLevel(fn.spec.form) ? randomWarpCases(fn.spec.form as WarpForm, fn.spec.kinds, seed, nw) : randomWarps(fn.spec.form as never, fn.spec.kinds, seed, nw)) as AnyWarpCase[]).map((w) =>
                w.guard === null ? w : { ...w, guard: null },
              ),
            };
        inputs.set(inputKey, input);
      }
      let n = 0;
      for (const cf of cfs) {
        const bad = unrunnable(cf, mcpu);
        if (bad) {
          row.verdict = bad.status === "unknown" ? { status: "unknown", why: bad.why } : { status: "refuted", n, counterexample: bad.why };
          break;
        }
        const lines = cf.lines as MLine[];
        row.waits += waitsOf(lines);
        const layouts = warp && TARGETS[mcpu].wave === 64 ? [false, true] : [false];
        let failed = false;
        for (const two of layouts) {
          const runKey = [TARGETS[mcpu].wave, TARGETS[mcpu].gen, profile, inputKey, cf.variant, two, JSON.stringify(cf.args), cf.dReg, cf.pReg, sregs.join(","), codeKey(lines)].join("|");
          const here = `${target} ${mcpu} ${cf.symbol}`;
          let r = runCache.get(runKey);
          if (!r) {
            const res = warp ? runWarp(cf, lines, mcpu, input as WarpWaves, sregs, two) : runScalar(cf, lines, mcpu, profile, input as ScalarCase[], sregs);
            r = { ...res, by: here };
            if (runCache.size >= 20_000) runCache.clear();
            runCache.set(runKey, r);
          }
          row.parts[`${cf.variant}${two ? "/two-warps" : ""}`] = r.n;
          n += r.n;
          if (r.cx) {
            const from = r.by === here ? "" : `(the run of ${r.by}, whose code is the same)\n`;
            row.verdict = { status: "refuted", n, counterexample: `${from}${r.cx}\n  code (${cf.symbol}):\n${listing(lines)}` };
            failed = true;
            break;
          }
        }
        if (failed) break;
      }
      if (warp) row.warps = (input as WarpWaves).plain.length;
      if (row.verdict.status === "tested") row.verdict = { status: "tested", n };
    }
    opts.onFunction?.(names.indexOf(name) + 1, names.length);
  }
  return out;
}

/**
 * The inputs of the last functions' forms and kinds, across calls (per thread), within a
 * budget: `verify` flushes the hip rows of a batch and then its llvm rows (one
 * `checkCompiledSets` call each, function by function), so keeping one batch's functions lets
 * the llvm rows reuse the hip rows' warps and the references `warpReference` keeps per case
 * object, instead of generating and evaluating them again. Inputs are a function of the key
 * (form, kinds, seed, count); nothing mutates them. The budget is in warps (a warp and its
 * uniform layouts about 15 KB; a scalar function's cases count a warp per 32): `INPUT_BUDGET`
 * keeps every function of a module at verify's default 200 warps (c14's 23 keys: 4,600), and
 * 8 at `--thorough`'s 1,000, as before, so memory stays near 120 MB.
 */
const inputCache = new Map<string, ScalarCase[] | WarpWaves>();
const INPUT_CACHE = 256;
const INPUT_BUDGET = 8_000;

const bigintText = (_k: string, x: unknown) => (typeof x === "bigint" ? x.toString() : x);

/** Results of runs by what determines them (see `checkCompiledSets`), per thread. */
const runCache = new Map<string, { n: number; cx?: string; by: string }>();

/** The identity of extracted code for `runCache`: every instruction and operand, labels renamed by first appearance. */
function codeKey(lines: MLine[]): string {
  const ids = new Map<string, number>();
  const id = (name: string) => {
    if (!ids.has(name)) ids.set(name, ids.size);
    return `L${ids.get(name)}`;
  };
  return lines
    .map((l) => (isLabel(l) ? `${id(l.label)}:` : `${l.op}${l.enc ? `_${l.enc}` : ""} ${l.ops.map((o) => (o.k === "label" ? id(o.name) : JSON.stringify(o, bigintText))).join(",")}`))
    .join(";");
}

function listing(lines: MLine[]): string {
  return lines.map((l) => (isLabel(l) ? `  ${l.label}:` : `    ${l.op}${l.enc ? `_${l.enc}` : ""} ${l.ops.map((o) => (o.k === "imm" ? o.value.toString() : o.k === "v" || o.k === "s" ? `${o.k}${o.count === 2 ? `[${o.n}:${o.n + 1}]` : o.n}` : o.k)).join(", ")}`)).join("\n");
}

/** The compiler of each callable target: clang-19 compiles the `hip` header, llc-19 the `llvm` module. */
export const COMPILERS = { hip: "clang-19", llvm: "llc-19" } as const;

/**
 * Whether the compilers of `kinds` run (clang-19 for `hip`, llc-19 for `llvm`; both by
 * default); the reason when not (tests skip with it).
 */
export async function compiledToolsAvailable(kinds: readonly (keyof typeof COMPILERS)[] = ["hip", "llvm"]): Promise<{ ok: true } | { ok: false; reason: string }> {
  const { spawnSync } = await import("node:child_process");
  for (const t of [...new Set(kinds.map((k) => COMPILERS[k]))]) {
    const r = spawnSync(t, ["--version"], { encoding: "utf8" });
    if (r.error || r.status !== 0) return { ok: false, reason: `${t} not runnable (${r.error?.message ?? `exit ${r.status}`})` };
  }
  return { ok: true };
}

/**
 * Compiles the `hip` header and/or `llvm` module of `routines` for each processor and checks
 * every function (see the file overview). Rows in target, processor, function order.
 * @throws Error when clang or llc fails to compile the text (a printer bug).
 */
export async function verifyCompiled(
  routines: readonly RoutineLike[],
  opts: CompiledCheckOptions & {
    targets?: readonly ("hip" | "llvm")[];
    mcpus?: readonly Mcpu[];
    onRow?: (r: CompiledRow) => void;
    /** Called with each compile's extracted functions (the `--prove` step takes them from here). */
    onCompiled?: (target: "hip" | "llvm", mcpu: Mcpu, set: CompiledSet) => Promise<void> | void;
  } = {},
): Promise<CompiledRow[]> {
  const fns = callableFunctions(routines);
  const rows: CompiledRow[] = [];
  for (const target of opts.targets ?? (["hip", "llvm"] as const)) {
    const text = target === "hip" ? printHipModule(routines, { profile: opts.profile }) : printLlvmModule(routines, { profile: opts.profile });
    for (const mcpu of opts.mcpus ?? MCPUS) {
      const set = target === "hip" ? await compileHip(text, fns, mcpu) : await compileLlvm(text, fns, mcpu);
      const sregs = target === "llvm" ? await inregRegisters({ mcpu, wave: TARGETS[mcpu].wave }) : [];
      await opts.onCompiled?.(target, mcpu, set);
      // The set's functions refer to `fns` of the compile (same objects as callableFunctions here).
      for (const r of checkCompiled(target, mcpu, set, sregs, opts)) {
        rows.push(r);
        opts.onRow?.(r);
      }
    }
  }
  return rows;
}
