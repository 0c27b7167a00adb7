/**
 * @fileoverview The library's checking entry points with one target vocabulary and checked
 * arguments. Every target is a `LibraryTarget`: `{ kind: "amdgpu", mcpu }`, `{ kind: "js" }`,
 * `{ kind: "c" }` — what `verify` takes — and, for `runVectors`, `{ kind: "ref" }` (the
 * reference semantics itself). `proveRoutine` also takes `{ kind: "pir" }`, the portable IR
 * that JS and C are both printed from (so `js` and `c` name the same proof).
 *
 * Wrong arguments are `TypeError`s whose message names the function and the argument.
 */
import type { Profile } from "../ir/forms.js";
import { PROFILES } from "../ir/forms.js";
import type { RoutineSpec } from "../ir/ir.js";
import type { McpuName as Mcpu } from "../target/lower.js";
import { targetServices } from "../target/registry.js";

/** The AMDGPU processors of the registered targets. */
const mcpus = (): readonly string[] => targetServices().lower.mcpus;
const isMcpu = (m: unknown): boolean => typeof m === "string" && mcpus().includes(m);
import type { AnyRule, ProveOptions, ProveTarget, Verdict as ProofVerdict } from "./prove.js";
import { proveRoutine as proveRoutineImpl, rulesFor as rulesForImpl } from "./prove.js";
import type { CheckTargets, Vector, VectorReport } from "./vectors.js";
import { runVectors as runVectorsImpl } from "./vectors.js";
import type { VerifyOptions, VerifyRow, VerifyTarget } from "./verify.js";
import { verify as verifyImpl } from "./verify.js";

/** A target of `verify`, `proveRoutine`, `rulesFor` and `runVectors` (`ref`: runVectors only). */
export type LibraryTarget = VerifyTarget | { kind: "pir" } | { kind: "ref" };

const show = (x: unknown): string => {
  if (x === null) return "null";
  if (typeof x === "string") return `'${x}'`;
  if (typeof x !== "object") return typeof x === "bigint" ? `${x}n` : String(x);
  try {
    return JSON.stringify(x, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)) ?? typeof x;
  } catch {
    return "an object";
  }
};

/** The target, checked; `where` names the argument in the message. @throws TypeError */
function checkTarget(t: unknown, where: string, allowed: readonly string[]): LibraryTarget {
  const kind = (t as { kind?: unknown } | null)?.kind;
  if (typeof t !== "object" || t === null || typeof kind !== "string" || !allowed.includes(kind))
    throw new TypeError(`${where} must be one of ${allowed.map((k) => (k === "amdgpu" || k === "hip" || k === "llvm" ? `{ kind: '${k}', mcpu }` : `{ kind: '${k}' }`)).join(", ")}, not ${show(t)}`);
  if ((kind === "amdgpu" || kind === "hip" || kind === "llvm") && !isMcpu((t as { mcpu?: unknown }).mcpu)) throw new TypeError(`${where}.mcpu must be one of ${mcpus().join(", ")}, not ${show((t as { mcpu?: unknown }).mcpu)}`);
  return t as LibraryTarget;
}

function checkProfile(p: unknown, where: string): Profile {
  if (!(PROFILES as readonly unknown[]).includes(p)) throw new TypeError(`${where} must be one of ${PROFILES.join(", ")}, not ${show(p)}`);
  return p as Profile;
}

function checkSpec(s: unknown, where: string): RoutineSpec {
  const x = s as Partial<RoutineSpec> | null;
  if (typeof x !== "object" || x === null || typeof x.form !== "object" || x.form === null || typeof x.kinds !== "object" || typeof x.guarded !== "boolean")
    throw new TypeError(`${where} must be a RoutineSpec ({ form, kinds, guarded }, e.g. a lowered routine's spec), not ${show(s)}`);
  return x as RoutineSpec;
}

/** A vector as `readVectors` returns it (id, ptx, in, out, line, inst with its form), checked. @throws TypeError */
function checkVector(v: unknown, where: string): void {
  const x = v as Partial<Vector> | null;
  const bad = (what: string) => {
    throw new TypeError(`${where} must be a vector from readVectors(text, file).vectors ({ id, ptx, in, out, line, inst }): ${what}, not ${show(v)}`);
  };
  if (typeof x !== "object" || x === null || Array.isArray(x)) bad("not an object");
  if (typeof x!.id !== "string") bad("id is not a string");
  if (typeof x!.ptx !== "string") bad("ptx is not a string");
  for (const k of ["in", "out"] as const) if (typeof x![k] !== "object" || x![k] === null || Array.isArray(x![k])) bad(`${k} is not an object`);
  if (typeof x!.line !== "number") bad("line is not a number");
  const inst = x!.inst as { form?: { op?: unknown } } | undefined;
  if (typeof inst !== "object" || inst === null || typeof inst.form !== "object" || inst.form === null || typeof inst.form.op !== "string") bad("inst is not a parsed instruction (with its form)");
  if (x!.semantics !== undefined && !(PROFILES as readonly unknown[]).includes(x!.semantics)) bad(`semantics is not one of ${PROFILES.join(", ")}`);
}

const toProve = (t: LibraryTarget): ProveTarget => (t.kind === "amdgpu" ? t : { kind: "pir" });

/**
 * Proves one rule's lowering of a routine against the reference at `profile` (z3).
 * `target`: `{ kind: "amdgpu", mcpu }`, or `{ kind: "js" }` / `{ kind: "c" }` / `{ kind: "pir" }`
 * (the same proof: both are printed from the portable IR). Never throws for a wrong lowering
 * (every failure is a verdict). @throws TypeError for a wrong argument.
 */
export async function proveRoutine(spec: RoutineSpec, target: LibraryTarget, profile: Profile, rule: AnyRule, opts: ProveOptions = {}): Promise<ProofVerdict> {
  checkSpec(spec, "proveRoutine: spec");
  const t = checkTarget(target, "proveRoutine: target", ["amdgpu", "js", "c", "pir"]);
  checkProfile(profile, "proveRoutine: profile");
  if (typeof rule !== "object" || rule === null || typeof (rule as { name?: unknown }).name !== "string") throw new TypeError(`proveRoutine: rule must be a rule from rulesFor(spec, target, profile), not ${show(rule)}`);
  return proveRoutineImpl(spec, toProve(t), profile, rule, opts);
}

/**
 * Every rule that applies to a routine on a target (shadowed ones included), for
 * `proveRoutine`. Targets as `proveRoutine`'s. @throws TypeError for a wrong argument.
 */
export function rulesFor(spec: RoutineSpec, target: LibraryTarget, profile: Profile): AnyRule[] {
  checkSpec(spec, "rulesFor: spec");
  const t = checkTarget(target, "rulesFor: target", ["amdgpu", "js", "c", "pir"]);
  return rulesForImpl(spec, toProve(t), checkProfile(profile, "rulesFor: profile"));
}

/**
 * Checks every (spec × profile) on every target with the seeded checker; one row per rule.
 * `targets`: `{ kind: "amdgpu", mcpu }`, `{ kind: "js" }`, `{ kind: "c" }`, and the callable
 * outputs compiled for a processor, `{ kind: "hip", mcpu }` (clang-19) and `{ kind: "llvm", mcpu }` (llc-19).
 * @throws TypeError for a wrong argument.
 */
export async function verify(specs: { spec: RoutineSpec; profile: Profile; warps?: number }[], targets: VerifyTarget[], opts: VerifyOptions = {}): Promise<VerifyRow[]> {
  if (!Array.isArray(specs)) throw new TypeError(`verify: specs must be an array of { spec, profile }, not ${show(specs)}`);
  specs.forEach((s, i) => {
    checkSpec((s as { spec?: unknown } | null)?.spec, `verify: specs[${i}].spec`);
    checkProfile(s.profile, `verify: specs[${i}].profile`);
  });
  if (!Array.isArray(targets)) throw new TypeError(`verify: targets must be an array of targets ({ kind: 'js' }, …), not ${show(targets)}`);
  targets.forEach((t, i) => checkTarget(t, `verify: targets[${i}]`, ["amdgpu", "js", "c", "hip", "llvm"]));
  return verifyImpl(specs, targets, opts);
}

/**
 * Runs every vector that holds under `profile` on the chosen targets; a vector passes when
 * every target agrees with its `out`. `targets` is a list of targets (`{ kind: "ref" }`,
 * `{ kind: "amdgpu", mcpu }`, `{ kind: "js" }`, `{ kind: "c" }`), or a `CheckTargets` object
 * whose missing fields are "do not run"; omitted: every target (all processors). The counts are
 * of vector × target row (`VectorReport`: `rows`, and `vectors` for the per-vector outcome).
 * @throws TypeError for a wrong argument.
 */
export async function runVectors(vectors: Vector[], profile: Profile, targets?: Partial<CheckTargets> | readonly LibraryTarget[]): Promise<VectorReport> {
  if (!Array.isArray(vectors)) throw new TypeError(`runVectors: vectors must be an array (readVectors(text, file).vectors), not ${show(vectors)}`);
  vectors.forEach((v, i) => checkVector(v, `runVectors: vectors[${i}]`));
  checkProfile(profile, "runVectors: profile");
  let t: CheckTargets;
  if (targets === undefined) t = { ref: true, amdgpu: [...mcpus()] as Mcpu[], js: true, c: true };
  else if (Array.isArray(targets)) {
    t = { ref: false, amdgpu: [], js: false, c: false };
    (targets as readonly unknown[]).forEach((x, i) => {
      const k = checkTarget(x, `runVectors: targets[${i}]`, ["ref", "amdgpu", "js", "c", "hip", "llvm"]);
      if (k.kind === "amdgpu") t.amdgpu.push(k.mcpu);
      else if (k.kind === "hip" || k.kind === "llvm") (t[k.kind] ??= []).push(k.mcpu);
      else if (k.kind === "ref" || k.kind === "js" || k.kind === "c") t[k.kind] = true;
    });
  } else if (typeof targets === "object" && targets !== null) {
    const o = targets as Partial<CheckTargets>;
    for (const k of ["ref", "js", "c"] as const) if (o[k] !== undefined && typeof o[k] !== "boolean") throw new TypeError(`runVectors: targets.${k} must be a boolean, not ${show(o[k])}`);
    if (o.amdgpu !== undefined && (!Array.isArray(o.amdgpu) || o.amdgpu.some((m) => !isMcpu(m)))) throw new TypeError(`runVectors: targets.amdgpu must be an array of ${mcpus().join(", ")}, not ${show(o.amdgpu)}`);
    for (const k of ["hip", "llvm"] as const)
      if (o[k] !== undefined && (!Array.isArray(o[k]) || o[k]!.some((m) => !isMcpu(m)))) throw new TypeError(`runVectors: targets.${k} must be an array of ${mcpus().join(", ")}, not ${show(o[k])}`);
    t = { ref: o.ref ?? false, amdgpu: [...(o.amdgpu ?? [])], js: o.js ?? false, c: o.c ?? false, hip: [...(o.hip ?? [])], llvm: [...(o.llvm ?? [])] };
  } else throw new TypeError(`runVectors: targets must be a list of targets or { ref, amdgpu, js, c }, not ${show(targets)}`);
  return runVectorsImpl(vectors, profile, t);
}
