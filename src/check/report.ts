/**
 * @fileoverview Counterexamples in Alive2's layout: each input in hex and decimal, the traced
 * intermediates of the reference (its pseudocode temporaries), the lowering's trace
 * (instruction by instruction for AMDGPU, in the failing lane), then both final values.
 */
import type { Form, Profile } from "../ir/forms.js";
import { formName } from "../ir/forms.js";
import type { CV } from "../sem/bv.js";
import { concrete, showCV, traced, u } from "../sem/bv.js";
import type { AmdRoutine } from "../../targets/amdgpu/lower.js";
import { execRoutine } from "../../targets/amdgpu/exec.js";
import { printOp } from "../../targets/amdgpu/minst.js";
import type { ScalarCase } from "./inputs.js";
import { scalarSemantics } from "./scalar.js";

const hex = (x: bigint) => showCV(u(x));

/** Formats the reference's traced intermediates for one scalar case. */
export function referenceTrace(f: Form, profile: Profile, x: ScalarCase): string[] {
  const t = traced(concrete);
  scalarSemantics(t, f, profile, u(x.a), u(x.b), u(x.c));
  return t.log.map((e) => `  ${e.name} = ${showCV(e.value as CV | boolean)}`);
}

/** The AMDGPU trace of the lane where `x` ran (lane 0 of a wave of identical lanes). */
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

/** The whole counterexample text for a scalar form. */
export function scalarCounterexample(opts: {
  f: Form;
  profile: Profile;
  target: string;
  rule: string;
  x: ScalarCase;
  expected: bigint;
  got: bigint | string;
  routine?: AmdRoutine;
}): string {
  const { f, x } = opts;
  const lines = [`check ${formName(f)} → ${opts.target}  rule ${opts.rule}  (${opts.profile})  REFUTED`];
  lines.push(typeof opts.got === "string" ? `ERROR: ${opts.got}` : "ERROR: Value mismatch");
  lines.push("", "Example:");
  for (const k of f.op === "szext" || (f.op !== "match" && f.tail.kind === "none") ? (["a", "b"] as const) : (["a", "b", "c"] as const))
    lines.push(`  ${k} = ${hex(x[k])}`);
  if (x.g !== undefined) lines.push(`  g = ${x.g}`, `  d (prior) = ${hex(x.dPrior ?? 0n)}`);
  lines.push(`Spec  (src/sem, profile ${opts.profile}):`, ...referenceTrace(f, opts.profile, x));
  if (opts.routine) {
    lines.push(`Lowering  ${opts.target} (exec = lane 0):`);
    try {
      lines.push(...amdgpuTrace(opts.routine, x));
    } catch (e) {
      lines.push(`  (trace failed: ${(e as Error).message})`);
    }
  }
  lines.push(`Spec value:     ${hex(opts.expected)}`);
  lines.push(`Lowered value:  ${typeof opts.got === "string" ? opts.got : hex(opts.got)}`);
  return lines.join("\n");
}
