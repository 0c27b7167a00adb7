/**
 * @fileoverview The JS and C rows of `verify`: every applicable portable rule of a routine,
 * built once to the portable IR and run — as one generated ES module per batch of routines,
 * and as one C program per batch compiled with the system C compiler — against the reference
 * on the checker's inputs; the PIR's own meaning is checked for poison reaching a scalar `d`.
 */
import type { ScalarCase } from "../../src/check/inputs.js";
import type { MatchCase } from "../../src/check/warps.js";
import type { WarpCase } from "../../src/check/warp_cases.js";
import type { Form } from "../../src/ir/forms.js";
import type { WarpForm } from "../../src/ir/warp_forms.js";
import { warpPredicateDest } from "../../src/ir/warp_forms.js";
import type { VerifyRow } from "../../src/check/verify.js";
import { compareOutputs, outputCounterexample } from "../../src/check/verify.js";
import { familyOf } from "../../src/families/index.js";
import type { VerifyJob, VerifyService } from "../../src/target/check.js";
import type { PirFunction, PirValue } from "./pir.js";
import { evalPirConcrete } from "./pir.js";
import { portableRulesFor } from "./rules/index.js";
import { printJsModule } from "../js/print.js";
import type { JsRoutine } from "../js/run.js";
import { callJs, loadJsModule } from "../js/run.js";
import { haveCc, runCRoutines } from "../c/run.js";

/** Arguments of a portable routine for a case, by parameter name. */
export function scalarArgs(fn: PirFunction, c: ScalarCase): Record<string, PirValue> {
  const args: Record<string, PirValue> = {};
  for (const p of fn.params) {
    if (p.name === "g") args.g = c.g ?? true;
    else if (p.name === "dPrior") args.dPrior = c.dPrior ?? 0n;
    else args[p.name] = c[p.name as "a" | "b" | "c"];
  }
  return args;
}

/**
 * Arguments of a portable warp routine for a warp (match.sync's `MatchCase` or the
 * warp-level family's `WarpCase`), by parameter name: a `u32[32]` parameter gets the 32 lane
 * values, a `u32` one lane 0's (a uniform source) — except a predicate (vote's `a`, a `.pred`
 * `dPrior`), which the routine contract takes as a u32 lane mask (targets/portable/rules/warp.ts).
 */
export function warpArgs(fn: PirFunction, c: MatchCase | WarpCase, form?: Form): Record<string, PirValue> {
  const args: Record<string, PirValue> = {};
  const predA = form?.op === "vote";
  const predD = form !== undefined && familyOf(form).name === "warp" && warpPredicateDest(form as WarpForm);
  const lanes = (xs: readonly bigint[], t: PirFunction["params"][number]["type"]) => (t.t === "arr" ? xs : xs[0]!);
  for (const p of fn.params) {
    if (p.name === "a") args.a = predA ? laneMask(c.a) : lanes(c.a, p.type);
    else if (p.name === "b" || p.name === "c") args[p.name] = lanes((c as WarpCase)[p.name], p.type);
    else if (p.name === "membermask") args.membermask = lanes(c.membermask!, p.type);
    else if (p.name === "active") args.active = BigInt(c.active >>> 0);
    else if (p.name === "g") args.g = c.guard ?? new Array<boolean>(32).fill(true);
    else if (p.name === "dPrior") args.dPrior = predD ? laneMask(c.dPrior) : c.dPrior;
    else if (p.name === "pPrior") args.pPrior = c.pPrior;
  }
  return args;
}

/** 32 per-lane predicates (0n/1n) as a u32 lane mask. */
function laneMask(xs: readonly bigint[]): bigint {
  return xs.reduce((m, x, l) => (x !== 0n ? m | (1n << BigInt(l)) : m), 0n);
}

/**
 * A portable warp routine's results as 32 lanes each: a `.pred` `d` comes back as a u32 lane
 * mask (the routine contract) and is unpacked to 0n/1n per lane; arrays pass through.
 */
export function warpLanes(out: Record<string, PirValue>): Record<string, PirValue> {
  const d = out.d;
  if (typeof d !== "bigint") return out;
  return { ...out, d: Array.from({ length: 32 }, (_, l) => (d >> BigInt(l)) & 1n) };
}

/** Runs the JS and C rows: one JS module and one C build per batch of routines. */
export async function runPortable(jobs: { row: VerifyRow; fn: PirFunction; cases: VerifyJob["cases"] }[]): Promise<void> {
  const warpShape = (j: { row: VerifyRow }) => familyOf(j.row.spec.form).shape === "warp";
  const argsOf = (fn: PirFunction, c: ScalarCase | MatchCase | WarpCase, form: Form) => ((c as MatchCase).label !== undefined ? warpArgs(fn, c as MatchCase, form) : scalarArgs(fn, c as ScalarCase));
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
        const args = argsOf(fn, c, j.row.spec.form);
        let msg: string | null;
        try {
          const got = callJs(fn, mod[j.name] as JsRoutine, args);
          msg = compareOutputs(j.row.spec, j.row.profile, c, warpShape(j) ? warpLanes(got) : got);
          // The PIR's own meaning: no poison may reach a scalar output.
          if (!msg && n < 64 && familyOf(j.row.spec.form).shape === "scalar") {
            const out = evalPirConcrete(fn, args).d;
            if (out && !Array.isArray(out) && !out.defined) msg = "poison (an out-of-range shift) reached d";
          }
        } catch (e) {
          msg = (e as Error).message;
        }
        if (msg) {
          j.row.verdict = { status: "refuted", n, counterexample: outputCounterexample(j.row, c, msg) };
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
      const calls = batch.flatMap((j) => j.cases.map((c) => ({ routine: j.name, args: argsOf(j.fn, c, j.row.spec.form) })));
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
          const msg = compareOutputs(j.row.spec, j.row.profile, j.cases[n]!, warpShape(j) ? warpLanes(outs[at + n]!) : outs[at + n]!);
          if (msg) {
            j.row.verdict = { status: "refuted", n, counterexample: outputCounterexample(j.row, j.cases[n]!, msg) };
            break;
          }
        }
        at += j.cases.length;
      }
    }
  }
}

/** The JS or C verify service: rows are queued, and run in batches by `flush`. */
function portableVerify(kind: "js" | "c"): VerifyService {
  const jobs: { row: VerifyRow; fn: PirFunction; cases: VerifyJob["cases"] }[] = [];
  return {
    kind,
    async verify({ spec, profile, target, cases }: VerifyJob): Promise<VerifyRow[]> {
      return portableRulesFor(spec).map((rule, i) => {
        const row: VerifyRow = { spec, profile, target, rule: rule.name, chosen: i === 0, verdict: { status: "skipped", why: "not run" } };
        jobs.push({ row, fn: rule.build(spec, profile), cases });
        return row;
      });
    },
    pending: () => jobs.length,
    flush: () => runPortable(jobs.splice(0)),
  };
}

export const jsVerify = portableVerify("js");
export const cVerify = portableVerify("c");
