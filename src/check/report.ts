/**
 * @fileoverview Counterexamples in Alive2's layout: each input in hex and decimal, the traced
 * intermediates of the reference (its pseudocode temporaries), the lowering's trace
 * (instruction by instruction for AMDGPU, in the failing lane), then both final values.
 */
import type { Form, Profile } from "../ir/forms.js";
import { formName } from "../ir/forms.js";
import { sourcesOf } from "../ir/ir.js";
import type { CV } from "../sem/bv.js";
import { concrete, showCV, traced, u } from "../sem/bv.js";
import type { ScalarCase } from "./inputs.js";
import { scalarSemantics } from "./scalar.js";

const hex = (x: bigint) => showCV(u(x));

/** Formats the reference's traced intermediates for one scalar case. */
export function referenceTrace(f: Form, profile: Profile, x: ScalarCase): string[] {
  const t = traced(concrete);
  scalarSemantics(t, f, profile, u(x.a), u(x.b), u(x.c));
  return t.log.map((e) => `  ${e.name} = ${showCV(e.value as CV | boolean)}`);
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
  /** The lowering's own trace of the failing case (AMDGPU: instruction by instruction, lane 0). */
  trace?: () => string[];
}): string {
  const { f, x } = opts;
  const lines = [`check ${formName(f)} → ${opts.target}  rule ${opts.rule}  (${opts.profile})  REFUTED`];
  lines.push(typeof opts.got === "string" ? `ERROR: ${opts.got}` : "ERROR: Value mismatch");
  lines.push("", "Example:");
  for (const k of sourcesOf(f) as ("a" | "b" | "c")[])
    lines.push(`  ${k} = ${hex(x[k])}`);
  if (x.g !== undefined) lines.push(`  g = ${x.g}`, `  d (prior) = ${hex(x.dPrior ?? 0n)}`);
  lines.push(`Spec  (src/sem, profile ${opts.profile}):`, ...referenceTrace(f, opts.profile, x));
  if (opts.trace) {
    lines.push(`Lowering  ${opts.target} (exec = lane 0):`);
    try {
      lines.push(...opts.trace());
    } catch (e) {
      lines.push(`  (trace failed: ${(e as Error).message})`);
    }
  }
  lines.push(`Spec value:     ${hex(opts.expected)}`);
  lines.push(`Lowered value:  ${typeof opts.got === "string" ? opts.got : hex(opts.got)}`);
  return lines.join("\n");
}
