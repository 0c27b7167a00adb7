/**
 * @fileoverview The JS, C and portable-IR runs of `check`: each distinct routine of the
 * vectors built once to the portable IR (the selected portable rule) and run — as one ES
 * module, as one C program, and by the PIR's own evaluator (poison must not reach a scalar `d`).
 */
import type { VectorOut, VectorRun, VectorService } from "../../src/target/vectors.js";
import { familyOf } from "../../src/families/index.js";
import type { PirFunction, PirValue } from "./pir.js";
import { evalPirConcrete } from "./pir.js";
import { lowerPortable } from "./rules/index.js";
import { scalarArgs, warpArgs, warpLanes } from "./verify.js";
import { printJsModule } from "../js/print.js";
import type { JsRoutine } from "../js/run.js";
import { callJs, loadJsModule } from "../js/run.js";
import { haveCc, runCRoutines } from "../c/run.js";

const key = (r: VectorRun) => `${r.profile}|${JSON.stringify(r.spec, (_k, x) => (typeof x === "bigint" ? x.toString() : x))}`;

/** The routines of `runs` (one per distinct spec × profile, named r0, r1, … in first-use order) and each run's call. */
function calls(runs: readonly VectorRun[]): { fns: PirFunction[]; calls: { fn: PirFunction; args: Record<string, PirValue> }[] } {
  const byKey = new Map<string, PirFunction>();
  const out = runs.map((r) => {
    const k = key(r);
    let fn = byKey.get(k);
    if (!fn) byKey.set(k, (fn = { ...lowerPortable(r.spec, r.profile).fn, name: `r${byKey.size}` }));
    return { fn, args: r.scalar ? scalarArgs(fn, r.scalar) : warpArgs(fn, r.warp!, r.spec.form) };
  });
  return { fns: [...byKey.values()], calls: out };
}

/** A warp routine's results per lane (a `.pred` `d` lane mask unpacked); scalar results as they are. */
function lanesOf(run: VectorRun, out: Record<string, PirValue>): Record<string, PirValue> {
  return run.warp !== undefined ? warpLanes(out) : out;
}

const result = (out: Record<string, PirValue>): VectorOut => ({ d: out.d as bigint | readonly bigint[], ...(out.p !== undefined ? { p: out.p as readonly boolean[] } : {}) });

export const jsVectors: VectorService = {
  kind: "js",
  async run(runs) {
    const c = calls(runs);
    if (!c.calls.length) return { outs: [] };
    const mod = await loadJsModule(await printJsModule(c.fns.map((fn) => ({ name: fn.name, fn, header: fn.name }))));
    return {
      outs: c.calls.map((x, i) => {
        try {
          return result(lanesOf(runs[i]!, callJs(x.fn, mod[x.fn.name] as JsRoutine, x.args)));
        } catch (e) {
          return { failure: (e as Error).message };
        }
      }),
    };
  },
};

export const cVectors: VectorService = {
  kind: "c",
  async run(runs) {
    const cc = haveCc();
    if (!cc.ok) return { skipped: cc.reason };
    const c = calls(runs);
    if (!c.calls.length) return { outs: [] };
    const outs = runCRoutines(
      c.fns.map((fn) => ({ name: fn.name, fn })),
      c.calls.map((x) => ({ routine: x.fn.name, args: x.args })),
    );
    return { outs: outs.map((o, i) => result(lanesOf(runs[i]!, o))) };
  },
};

export const pirVectors: VectorService = {
  kind: "portable IR",
  async run(runs) {
    const c = calls(runs);
    return {
      outs: c.calls.map((x, i) => {
        const out = evalPirConcrete(x.fn, x.args);
        const defined = Object.values(out).every((v) => (Array.isArray(v) ? true : v.defined));
        return !defined && familyOf(runs[i]!.spec.form).shape === "scalar" ? { failure: "poison reached d" } : { d: 0n };
      }),
    };
  },
};
