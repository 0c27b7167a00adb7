/**
 * @fileoverview `--prove` for the compiled `hip`/`llvm` functions (issue 14 item 3): the
 * extracted code of a scalar function (szext, vshl/vshr) is proved against the reference by
 * the AMDGPU prover (targets/amdgpu/prove/scalar.ts `proveAmdScalar`), after the hazard check under LLVM's
 * function boundary.
 *
 * The extracted code is wrapped as an `AmdRoutine`: the collapsed spec, the layout of its
 * arguments (`vgpr`: v0, v1, v2 in PTX operand order — the contract's layout for `v` kinds;
 * llvm `sgpr`: the SGPRs of `inregRegisters`), d in v0, and scratch windows that cover every
 * register the code names (a compiled function may clobber those; `exec` must be unchanged).
 *
 * The warp-level family's functions (shfl, vote, redux, activemask, bar.warp.sync) are proved
 * by ./prove_compiled_warp.ts against the compiled contract (per-thread arguments in VGPRs, d in
 * v0 / p in v1, two CUDA warps per wave64), after the same hazard check.
 *
 * match.sync's functions are proved by ./prove_compiled_match.ts (through
 * ./prove_compiled_warp.ts: the same compiled contract and layouts).
 *
 * Not proved here (reported `unknown` with the reason): a hip `sgpr` wrapper whose `readfirstlane`s of the arguments are not all at the start
 * (the wrapper's reads are cut off and the function's own code proved with its arguments in
 * those SGPRs; otherwise it is tested, not proved).
 */
import type { Profile } from "../../src/ir/forms.js";
import type { SourceName } from "../../src/ir/ir.js";
import type { Verdict } from "../../src/check/prove.js";
import { proveAmdScalar } from "../amdgpu/prove/scalar.js";
import { loadZ3 } from "../../src/check/smt.js";
import type { AmdRoutine } from "../amdgpu/lower.js";
import { staticCycles } from "../amdgpu/lower.js";
import type { MInst, MLine, MOp } from "../amdgpu/minst.js";
import { record } from "../amdgpu/isa/index.js";
import { isLabel, s, v } from "../amdgpu/minst.js";
import { checkHazards, formatViolation, LLVM_ENTRY } from "../amdgpu/hazards.js";
import { layoutOf } from "../amdgpu/routine.js";
import type { Mcpu } from "../amdgpu/regs.js";
import { TARGETS } from "../amdgpu/regs.js";
import { llcHazardTarget } from "../amdgpu/oracle/llc_hazards.js";
import type { CompiledFunction } from "./compiled.js";
import { isWarpFn } from "./compiled.js";
import { isWarpLevel } from "../../src/check/verify.js";
import { proveCompiledWarp, registerEnds } from "./prove_compiled_warp.js";

/**
 * The hip uniform wrapper's code without its argument reads: the one `v_readfirstlane_b32 sK,
 * vI` per argument I that the wrapper adds, cut out, leaving the function's own code with its
 * arguments in those SGPRs. Sound when the code branches only forward (each read runs once,
 * before its SGPR is used: compiled code reads no SGPR it has not written) and each argument
 * VGPR is read by nothing else before it is overwritten (an argument never read gets an SGPR
 * the code does not name). A string (why not) otherwise.
 */
function afterReadfirstlanes(cf: CompiledFunction): { lines: MLine[]; uniformIn: number[] } | string {
  const lines = cf.lines as MLine[];
  const n = cf.fn.params.length;
  // Only forward branches: a read then happens once, before any use of its SGPR.
  const labels = new Map(lines.flatMap((l, k) => (isLabel(l) ? [[l.label, k] as const] : [])));
  if (lines.some((l, k) => !isLabel(l) && l.ops[0]?.k === "label" && (labels.get((l.ops[0] as { name: string }).name) ?? Infinity) < k)) return "the hip uniform wrapper has a loop: tested, not proved";
  const into = new Map<number, number>();
  const cut = new Set<number>();
  const overwritten = new Set<number>();
  const why = "the hip uniform wrapper's argument reads cannot be cut out: tested, not proved";
  for (let k = 0; k < lines.length; k++) {
    if (isLabel(lines[k]!)) continue;
    const l = lines[k] as MInst;
    const [d, src] = l.ops;
    if (l.op === "v_readfirstlane_b32" && d?.k === "s" && src?.k === "v" && src.n < n && !overwritten.has(src.n) && !into.has(src.n)) {
      into.set(src.n, d.n);
      cut.add(k);
      continue;
    }
    const outs = record(l.op).ops.filter((o) => o.out).length;
    l.ops.forEach((o, j) => {
      if (j < outs) {
        if (o.k === "v") for (let i = 0; i < o.count; i++) overwritten.add(o.n + i);
      } else if (o.k === "v" && [...Array(o.count).keys()].some((i) => o.n + i < n && !overwritten.has(o.n + i))) throw new Error(why);
    });
  }
  // An argument the code never reads (szext with b = 0 is 0 whatever a is) gets an SGPR the
  // code does not name: the proof then holds for every value of it.
  const spare = registerEnds(lines).s;
  let unread = 0;
  return { lines: lines.filter((_, k) => !cut.has(k)), uniformIn: cf.fn.params.map((_, i) => into.get(i) ?? spare + unread++) };
}

/**
 * The extracted function as an `AmdRoutine` (see the file overview), or why it cannot be one.
 * `sregs`: where llc puts `inreg` arguments (`inregRegisters`).
 */
export function compiledRoutine(cf: CompiledFunction, mcpu: Mcpu, sregs: readonly number[], target: "hip" | "llvm"): AmdRoutine | string {
  if (!Array.isArray(cf.lines)) return cf.lines.error;
  if (cf.fn.spec.form.op === "match") return "a match.sync function is not a scalar routine (./prove_compiled_match.ts proves it)";
  // The warp-level family (issue 15): not a scalar routine; ./prove_compiled_warp.ts proves it.
  if (isWarpLevel(cf.fn.spec.form)) return "a warp-level function is not a scalar routine (./prove_compiled_warp.ts proves it)";
  let lines: MLine[] = cf.lines;
  let uniformIn: number[] = [...sregs];
  if (cf.variant === "sgpr" && target === "hip") {
    let u: ReturnType<typeof afterReadfirstlanes>;
    try {
      u = afterReadfirstlanes(cf);
    } catch (e) {
      u = (e as Error).message;
    }
    if (typeof u === "string") return u;
    ({ lines, uniformIn } = u);
  }
  const t = TARGETS[mcpu];
  const spec = cf.variant === "vgpr" ? cf.fn.spec : { ...cf.fn.spec, kinds: Object.fromEntries(Object.entries(cf.fn.spec.kinds).map(([k, x]) => [k, x?.kind === "imm" ? x : { kind: "s" as const }])) };
  const layout = layoutOf(spec, t);
  if (cf.variant === "sgpr") {
    let i = 0;
    for (const p of cf.fn.params) (layout.src as Record<SourceName, MOp>)[p.name] = s(uniformIn[i++]!);
  }
  layout.d = v(0);
  layout.vScratch = 0;
  layout.sScratch = 0;
  const ends = registerEnds(lines);
  const count = staticCycles(lines);
  return {
    spec,
    target: t,
    rule: `${target === "hip" ? "clang" : "llc"}:${cf.symbol}`,
    lines,
    layout,
    // Everything the code names is scratch (the inputs included: a compiled function may reuse them).
    vEnd: Math.max(ends.v, 1),
    sEnd: ends.s,
    count,
    waits: lines.filter((l) => !isLabel(l) && (l.op === "s_nop" || l.op === "s_waitcnt_depctr")).length,
    hidden: 0,
    boundary: LLVM_ENTRY,
  };
}

/**
 * Proves the extracted functions of one compile. Returns per extracted function its verdict
 * (`unknown` with the reason where it is not proved, see the file overview).
 */
export async function proveCompiled(
  fns: readonly CompiledFunction[],
  mcpu: Mcpu,
  target: "hip" | "llvm",
  sregs: readonly number[],
  opts: { profile?: Profile; timeoutMs?: number } = {},
): Promise<{ cf: CompiledFunction; verdict: Verdict }[]> {
  const env = await loadZ3();
  const out: { cf: CompiledFunction; verdict: Verdict }[] = [];
  for (const cf of fns) {
    const t0 = performance.now();
    if (isWarpFn(cf.fn) && Array.isArray(cf.lines)) {
      // The hazard check under LLVM's function boundary first, as for scalar functions.
      const hz = checkHazards(cf.lines, llcHazardTarget(mcpu, TARGETS[mcpu].wave), LLVM_ENTRY);
      if (hz.length) out.push({ cf, verdict: { verdict: "refuted", ms: 0, reason: `Hazard: ${hz.map(formatViolation).join("; ")}`, counterexample: "" } });
      else out.push({ cf, verdict: await proveCompiledWarp(env, cf, mcpu, target, sregs, opts) });
      continue;
    }
    const r = compiledRoutine(cf, mcpu, sregs, target);
    if (typeof r === "string") {
      out.push({ cf, verdict: { verdict: "unknown", ms: 0, reason: r } });
      continue;
    }
    const hz = checkHazards(r.lines, llcHazardTarget(mcpu, TARGETS[mcpu].wave), LLVM_ENTRY);
    if (hz.length) {
      out.push({ cf, verdict: { verdict: "refuted", ms: 0, reason: `Hazard: ${hz.map(formatViolation).join("; ")}`, counterexample: "" } });
      continue;
    }
    await env.recycle(1);
    out.push({ cf, verdict: await proveAmdScalar(env, r, opts.profile ?? "isa", opts.timeoutMs ?? 30_000, t0) });
  }
  return out;
}
