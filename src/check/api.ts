/**
 * @fileoverview The library's checking and proving entry points (`verify`, `runVectors`,
 * `rulesFor`, `proveRoutine`, `proveMany`, `matrixRows`, `amdgpu`), with one target vocabulary
 * and checked arguments (src/args.ts). Every target is a `LibraryTarget`:
 * `{ kind: "amdgpu", mcpu }`, `{ kind: "js" }`, `{ kind: "c" }`, and the compiled callable
 * outputs `{ kind: "hip" | "llvm", mcpu }` — what `verify` takes — and, for `runVectors`,
 * `{ kind: "ref" }` (the reference semantics itself). `rulesFor`/`proveRoutine` take
 * `amdgpu`, `js`, `c` and `{ kind: "pir" }`, the portable IR that JS and C are both printed
 * from (so `js` and `c` name the same proof), and refuse `hip`/`llvm` (proved by
 * `ptx-lower verify --prove`).
 *
 * Wrong arguments are `TypeError`s whose message names the function, the argument and what it accepts.
 */
import type { Profile } from "../ir/forms.js";
import type { RoutineSpec } from "../ir/ir.js";
import type { McpuName as Mcpu } from "../target/lower.js";
import { targetServices } from "../target/registry.js";
import * as A from "../args.js";
import { MAX_RANDOM, MAX_WARPS } from "../limits.js";
import type { AnyRule, ProveOptions, ProveTarget, Verdict as ProofVerdict } from "./prove.js";
import { PIR, amdgpu as amdgpuImpl, proveRoutine as proveRoutineImpl, rulesFor as rulesForImpl } from "./prove.js";
import type { CheckTargets, Vector, VectorReport } from "./vectors.js";
import { runVectors as runVectorsImpl } from "./vectors.js";
import type { VerifyOptions, VerifyRow, VerifyTarget } from "./verify.js";
import { verify as verifyImpl } from "./verify.js";
import type { ItemResult, ManyOptions, ProveItem } from "./prove_worker.js";
import { matrixRows as matrixRowsImpl, proveMany as proveManyImpl } from "./prove_worker.js";

/** The AMDGPU processors of the registered targets. */
const mcpus = (): readonly string[] => targetServices().lower.mcpus;

/** A target of `verify`, `proveRoutine`, `rulesFor` and `runVectors` (`ref`: runVectors only). */
export type LibraryTarget = VerifyTarget | { kind: "pir" } | { kind: "ref" };

const show = A.show;

/** What proves the callable hip/llvm functions, for the message of an entry point that does not. */
const COMPILED_PROOF = "the compiled hip/llvm functions are tested by verify() and proved by `ptx-lower verify --prove` / `npm run prove:all`, not here";

/** The target, checked; `where` names the argument in the message. @throws TypeError */
function checkTarget(t: unknown, where: string, allowed: readonly string[]): LibraryTarget {
  const kind = (t as { kind?: unknown } | null)?.kind;
  if (typeof t !== "object" || t === null || typeof kind !== "string" || !allowed.includes(kind)) {
    const compiled = (kind === "hip" || kind === "llvm") && !allowed.includes(kind) ? ` (${COMPILED_PROOF})` : "";
    throw new TypeError(`${where} must be one of ${allowed.map((k) => (k === "amdgpu" || k === "hip" || k === "llvm" ? `{ kind: '${k}', mcpu }` : `{ kind: '${k}' }`)).join(", ")}, not ${show(t)}${compiled}`);
  }
  if (kind === "amdgpu" || kind === "hip" || kind === "llvm") A.mcpu((t as { mcpu?: unknown }).mcpu, `${where}.mcpu`);
  return t as LibraryTarget;
}

const checkProfile = (p: unknown, where: string): Profile => A.profile(p, where);
const checkSpec = (s: unknown, where: string): RoutineSpec => A.spec(s, where);

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
  const inst = x!.inst as { form?: unknown } | undefined;
  if (typeof inst !== "object" || inst === null || typeof inst.form !== "object" || inst.form === null) bad("inst is not a parsed instruction (with its form)");
  A.form(inst!.form, `${where}.inst.form`);
  if (x!.semantics !== undefined) A.profile(x!.semantics, `${where}.semantics`);
}

/** The rule's options of `proveRoutine` (and, but `env`, of `proveMany`). */
const PROVE_OPTIONS: A.OptionChecks<ProveOptions> = {
  timeoutMs: A.opt.int(1, 2 ** 31 - 1, "milliseconds"),
  env: (x, w) => {
    if (!A.isObject(x)) A.fail(w, "a loaded z3 environment (from src/check/smt.ts loadZ3)", x);
  },
  bugFinder: (x, w) => {
    if (typeof x !== "boolean" && x !== "first" && x !== "fallback") A.fail(w, "true, false, 'first' or 'fallback'", x);
  },
  bugLanes: A.opt.int(1, 16, "the bug-finder's lanes"),
  bugTimeoutMs: A.opt.int(1, 2 ** 31 - 1, "milliseconds"),
};

const toProve = (t: LibraryTarget): ProveTarget => (t.kind === "amdgpu" ? t : { kind: "pir" });

/** A rule of `rulesFor(spec, target, profile)` (the same object). */
function checkRule(rule: unknown, where: string, rules: readonly AnyRule[]): AnyRule {
  if (!rules.includes(rule as AnyRule)) A.fail(where, `one of rulesFor(spec, target, profile) (${rules.map((r) => r.name).join(", ") || "none apply"})`, A.isObject(rule) && typeof rule.name === "string" ? `a rule named ${rule.name} that is not one of them` : rule);
  return rule as AnyRule;
}

/**
 * Proves one rule's lowering of a routine against the reference at `profile` (z3).
 * `target`: `{ kind: "amdgpu", mcpu }`, or `{ kind: "js" }` / `{ kind: "c" }` / `{ kind: "pir" }`
 * (the same proof: both are printed from the portable IR). `{ kind: "hip" | "llvm", mcpu }` is
 * refused: the compiled functions are tested by `verify` and proved by `ptx-lower verify
 * --prove` / `npm run prove:all`. `rule`: one of `rulesFor(spec, target, profile)`. Never
 * throws for a wrong lowering (every failure is a verdict).
 * @throws TypeError for a wrong argument.
 */
export async function proveRoutine(spec: RoutineSpec, target: LibraryTarget, profile: Profile, rule: AnyRule, opts: ProveOptions = {}): Promise<ProofVerdict> {
  A.arity("proveRoutine", arguments, 5);
  checkSpec(spec, "proveRoutine: spec");
  const t = checkTarget(target, "proveRoutine: target", ["amdgpu", "js", "c", "pir"]);
  checkProfile(profile, "proveRoutine: profile");
  checkRule(rule, "proveRoutine: rule", rulesForImpl(spec, toProve(t), profile));
  A.options(opts, "proveRoutine: opts", PROVE_OPTIONS);
  return proveRoutineImpl(spec, toProve(t), profile, rule, opts);
}

/**
 * Every rule that applies to a routine on a target (shadowed ones included), for
 * `proveRoutine`. Targets as `proveRoutine`'s (hip/llvm refused).
 * @throws TypeError for a wrong argument.
 */
export function rulesFor(spec: RoutineSpec, target: LibraryTarget, profile: Profile): AnyRule[] {
  A.arity("rulesFor", arguments, 3);
  checkSpec(spec, "rulesFor: spec");
  const t = checkTarget(target, "rulesFor: target", ["amdgpu", "js", "c", "pir"]);
  return rulesForImpl(spec, toProve(t), checkProfile(profile, "rulesFor: profile"));
}

/** `verify`'s options, each checked (the counts bounded: the cases are held in memory). */
const VERIFY_OPTIONS: A.OptionChecks<VerifyOptions> = {
  // 1 to 2^32 − 1, as the CLI's --seed: 0 would be the generator's seed 0x6d2b79f5 (src/check/random.ts).
  seed: A.opt.int(1, 2 ** 32 - 1, "the PRNG's state is a u32, and 0 would alias another seed"),
  random: A.opt.int(0, MAX_RANDOM, "the cases are held in memory"),
  warps: A.opt.int(1, MAX_WARPS, "the warps are held in memory"),
  compact: A.opt.boolean,
  compiledWarps: A.opt.oneOf(["tenth", "all"]),
  onProgress: A.opt.func,
  onNote: A.opt.func,
};

/**
 * Checks every (spec × profile) on every target with the seeded checker; one row per rule.
 * `targets`: `{ kind: "amdgpu", mcpu }`, `{ kind: "js" }`, `{ kind: "c" }`, and the callable
 * outputs compiled for a processor, `{ kind: "hip", mcpu }` (clang-19) and `{ kind: "llvm", mcpu }` (llc-19).
 * `warps` (per spec, or `opts.warps` for all; default 10,000): random warps per warp routine,
 * 1 to 100,000 (`MAX_WARPS`: they are held in memory); `opts.random`: random scalar cases per
 * routine beyond the fixed ones, 0 to 1,000,000; `opts.seed`: a u32. A row on which no input
 * ran is never `tested`: it is `skipped`, saying so.
 * @throws TypeError for a wrong argument.
 */
export async function verify(specs: { spec: RoutineSpec; profile: Profile; warps?: number }[], targets: VerifyTarget[], opts: VerifyOptions = {}): Promise<VerifyRow[]> {
  A.arity("verify", arguments, 3);
  A.array(specs, "verify: specs", "an array of { spec, profile, warps? }", (s, w) => {
    A.options<{ spec: unknown; profile: unknown; warps?: unknown }>(s, w, { spec: (x, ww) => void checkSpec(x, ww), profile: (x, ww) => void checkProfile(x, ww), warps: VERIFY_OPTIONS.warps });
    if (A.isObject(s) && s.spec === undefined) checkSpec(undefined, `${w}.spec`);
    if (A.isObject(s) && s.profile === undefined) checkProfile(undefined, `${w}.profile`);
  });
  A.array(targets, "verify: targets", "an array of targets ({ kind: 'js' }, { kind: 'amdgpu', mcpu }, …)", (t, w) => void checkTarget(t, w, ["amdgpu", "js", "c", "hip", "llvm"]));
  A.options(opts, "verify: opts", VERIFY_OPTIONS);
  const rows = await verifyImpl(specs, targets, opts);
  // Never `tested` where nothing ran.
  return rows.map((r) => (r.verdict.status === "tested" && r.verdict.n === 0 ? { ...r, verdict: { status: "skipped", why: "no input ran" } } : r));
}

/** The `CheckTargets` object form of `runVectors`' targets. */
const CHECK_TARGETS: A.OptionChecks<CheckTargets> = {
  ref: A.opt.boolean,
  js: A.opt.boolean,
  c: A.opt.boolean,
  amdgpu: (x, w) => void A.array(x, w, `an array of processors (${mcpus().join(", ")})`, (m, mw) => A.mcpu(m, mw)),
  hip: (x, w) => void A.array(x, w, `an array of processors (${mcpus().join(", ")})`, (m, mw) => A.mcpu(m, mw)),
  llvm: (x, w) => void A.array(x, w, `an array of processors (${mcpus().join(", ")})`, (m, mw) => A.mcpu(m, mw)),
};

/**
 * Runs every vector that holds under `profile` on the chosen targets; a vector passes when
 * every target agrees with its `out`. `targets` is a list of targets (`{ kind: "ref" }`,
 * `{ kind: "amdgpu", mcpu }`, `{ kind: "js" }`, `{ kind: "c" }`, `{ kind: "hip" | "llvm", mcpu }`),
 * or a `CheckTargets` object whose missing fields are "do not run"; omitted: the reference,
 * AMDGPU on every processor, JS and C. The counts are of vector × target row (`VectorReport`:
 * `rows`, and `vectors` for the per-vector outcome).
 * @throws TypeError for a wrong argument.
 */
export async function runVectors(vectors: Vector[], profile: Profile, targets?: Partial<CheckTargets> | readonly LibraryTarget[]): Promise<VectorReport> {
  A.arity("runVectors", arguments, 3);
  A.array(vectors, "runVectors: vectors", "an array (readVectors(text, file).vectors)", checkVector);
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
  } else if (A.isObject(targets)) {
    const o = A.options<Partial<CheckTargets>>(targets, "runVectors: targets", CHECK_TARGETS);
    t = { ref: o.ref ?? false, amdgpu: [...(o.amdgpu ?? [])], js: o.js ?? false, c: o.c ?? false, hip: [...(o.hip ?? [])], llvm: [...(o.llvm ?? [])] };
  } else A.fail("runVectors: targets", "a list of targets or { ref, amdgpu, js, c, hip, llvm }", targets);
  return runVectorsImpl(vectors, profile, t);
}

/** A prover target: `{ kind: "amdgpu", mcpu }` or `{ kind: "pir" }` (`PIR`, `amdgpu(mcpu)`). */
const checkProveTarget = (x: unknown, where: string): ProveTarget => toProve(checkTarget(x, where, ["amdgpu", "pir"]));

/**
 * A prover target for an AMDGPU processor: `{ kind: "amdgpu", mcpu }`.
 * @throws TypeError for a processor that is not one of the registered ones.
 */
export function amdgpu(mcpu: string): ProveTarget {
  A.arity("amdgpu", arguments, 1);
  return amdgpuImpl(A.mcpu(mcpu, "amdgpu: mcpu"));
}
export { PIR };

const MANY_OPTIONS: A.OptionChecks<ManyOptions> = {
  timeoutMs: PROVE_OPTIONS.timeoutMs,
  bugFinder: PROVE_OPTIONS.bugFinder,
  bugLanes: PROVE_OPTIONS.bugLanes,
  bugTimeoutMs: PROVE_OPTIONS.bugTimeoutMs,
  workers: A.opt.int(1, 1024, "worker threads"),
  share: A.opt.boolean,
  reduce: A.opt.boolean,
  itemTimeoutMs: A.opt.int(1, 2 ** 31 - 1, "milliseconds"),
  onProgress: A.opt.func,
  cache: (x, w) => {
    if (!A.isObject(x)) A.fail(w, "a ProofCache (src/check/proof_cache.ts)", x);
  },
};

/**
 * Proves many items on a worker pool, identical queries once (src/check/prove_worker.ts).
 * Each item: `{ spec, target, profile, rule }` with `target` `PIR` or `amdgpu(mcpu)` and `rule`
 * the name of one of `rulesFor(spec, target, profile)` (or `ruleModule`/`ruleExport`: a rule
 * exported by a module, for tests of broken rules).
 * @throws TypeError for a wrong argument.
 */
export async function proveMany(items: ProveItem[], opts: ManyOptions = {}): Promise<ItemResult[]> {
  A.arity("proveMany", arguments, 2);
  A.array(items, "proveMany: items", "an array of { spec, target, profile, rule }", (x, w) => {
    const it = A.options<ProveItem>(x, w, {
      spec: (s, ww) => void checkSpec(s, ww),
      target: (s, ww) => void checkProveTarget(s, ww),
      profile: (s, ww) => void checkProfile(s, ww),
      rule: A.opt.string,
      ruleModule: A.opt.string,
      ruleExport: A.opt.string,
    });
    if (!A.isObject(x)) return;
    checkSpec(it.spec, `${w}.spec`);
    const t = checkProveTarget(it.target, `${w}.target`);
    checkProfile(it.profile, `${w}.profile`);
    A.string(it.rule, `${w}.rule`, "a rule's name");
    if (it.ruleModule === undefined) {
      const names = rulesForImpl(it.spec, t, it.profile).map((r) => r.name);
      if (!names.includes(it.rule)) A.fail(`${w}.rule`, `the name of one of rulesFor(spec, target, profile) (${names.join(", ") || "none apply"})`, it.rule);
    }
  });
  A.options(opts, "proveMany: opts", MANY_OPTIONS);
  return proveManyImpl(items, opts);
}

/**
 * The prover matrix of a family: every form × operand kinds × target × profile with its
 * rules; `every`: keep one form in `every` (a positive integer; 1 = all).
 * @throws TypeError for an unknown family or a wrong `every`.
 */
export function matrixRows(family: string, every = 1): ReturnType<typeof matrixRowsImpl> {
  A.arity("matrixRows", arguments, 2);
  const f = A.family(family, "matrixRows: family");
  A.int(every, "matrixRows: every", 1, Number.MAX_SAFE_INTEGER);
  return matrixRowsImpl(f, every);
}
