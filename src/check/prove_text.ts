/**
 * @fileoverview The text of refutations (Alive2's layout: inputs, spec trace, lowering
 * trace, values) and of query identities, shared by the targets' prover models; the
 * lowering traces themselves are the target's (targets/amdgpu/prove/paths.ts amdTraceLines,
 * targets/portable/prove.ts pirTraceLines).
 */
import { createHash } from "node:crypto";
import type { Form, Profile } from "../ir/forms.js";
import { formName } from "../ir/forms.js";
import type { RoutineSpec } from "../ir/ir.js";
import { sourcesOf } from "../ir/ir.js";
import type { CV } from "../sem/bv.js";
import { concrete, traced } from "../sem/bv.js";
import type { ProveTarget } from "./prove_types.js";
import { targetName } from "./prove_types.js";
import { scalarSemantics } from "./scalar.js";

/** `#x0000002a (42)`, with the signed reading too when the top bit is set. */
export function fmt(x: CV | boolean): string {
  if (typeof x === "boolean") return x ? "true" : "false";
  if (x.w === 1) return x.x ? "#b1" : "#b0";
  const hex = x.x.toString(16).padStart(Math.ceil(x.w / 4), "0");
  const s = x.x >> BigInt(x.w - 1) ? `, ${x.x - (1n << BigInt(x.w))}` : "";
  return `#x${hex} (${x.x}${s})`;
}

/** The first line of a refutation: form, target, rule, profile, time. */
export function header(f: Form, target: ProveTarget, rule: string, profile: Profile, ms: number): string {
  return `check ${formName(f)} → ${targetName(target)}  rule ${rule}  (${profile})  REFUTED (z3, ${(ms / 1000).toFixed(2)} s)`;
}

/** The reference's traced intermediates (its pseudocode temporaries) for one scalar case. */
export function referenceLines(f: Form, profile: Profile, a: CV, b: CV, c: CV): string[] {
  const t = traced(concrete);
  scalarSemantics(t, f, profile, a, b, c);
  return t.log.map((e) => `  ${e.name} = ${fmt(e.value as CV | boolean)}`);
}

/** A counterexample's inputs a, b, c (immediate/uniform noted); with `args` (PIR), the guard and the prior d too. */
export function inputLines(spec: RoutineSpec, x: { a: bigint; b: bigint; c: bigint }, args?: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const s of sourcesOf(spec.form)) {
    const k = spec.kinds[s] ?? { kind: "v" };
    const v = x[s as "a" | "b" | "c"];
    out.push(`  ${s} = ${fmt(concrete.k(v, 32))}${k.kind === "imm" ? "  (immediate)" : k.kind === "s" ? "  (uniform)" : ""}`);
  }
  if (args && spec.guarded) {
    out.push(`  g = ${fmt(args.g as boolean)}`, `  d (prior) = ${fmt(args.dPrior as CV)}`);
  }
  return out;
}

/** SHA-1 of the canonical text, hex. */
export function hash(s: string): string {
  return createHash("sha1").update(s).digest("hex");
}
