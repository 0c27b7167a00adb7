/**
 * @fileoverview Test vectors (../shared/vectors/FORMAT.md): reading them, and running each
 * on the reference and on every lowering (AMDGPU interpreter per mcpu, JS, C).
 *
 * A vector's register operands run as divergent VGPR sources and, in a second AMDGPU run,
 * as uniform SGPR sources where the vector gives one value for all lanes; immediates are
 * folded as in real modules. A lane whose expected value is `null` is not compared.
 */
import type { Profile } from "../ir/forms.js";
import { formWrites } from "../ir/forms.js";
import type { FamilyInst, OperandKind, RoutineSpec, SourceName } from "../ir/ir.js";
import { sourcesOf } from "../ir/ir.js";
import { parseModule } from "../ir/build.js";
import type { Diagnostic } from "../diag.js";
import type { CV } from "../sem/bv.js";
import { concrete, u } from "../sem/bv.js";
import { matchSync } from "../sem/match_sync.js";
import { guarded, keepLane } from "../sem/guard.js";
import type { McpuName as Mcpu } from "../target/lower.js";
import { targetServices } from "../target/registry.js";
import type { VectorOut, VectorRun, VectorService } from "../target/vectors.js";
import { FAMILIES, familyOf } from "../families/index.js";
import type { ScalarCase } from "./inputs.js";
import type { MatchCase } from "./warps.js";
import type { WarpCase } from "./warp_cases.js";
import { warpReference } from "./warp_cases.js";
import type { WarpForm } from "../ir/warp_forms.js";
import { warpInstName, warpPredicateDest } from "../ir/warp_forms.js";
import { isWarpLevel } from "./verify.js";
import { scalarSemantics } from "./scalar.js";

type Json = string | boolean | null | Json[];

/** One vector as read from a file, with its parsed instruction. */
export interface Vector {
  id: string;
  ptx: string;
  in: Record<string, Json>;
  out: Record<string, Json>;
  warp?: { active: string };
  /** The `.version` and `.target` the instruction needs (FORMAT.md `module`); absent: 9.0 / sm_90. */
  module?: { version: string; target: string };
  semantics?: Profile;
  /** 1-based line in the file. */
  line: number;
  inst: FamilyInst;
}

/** What `vectorModule` puts around the instruction (hwgen's kernel); the checker's is empty. */
export interface VectorKernel {
  /** The entry's name (default `vector_wrapper`) and its parameter list text. */
  entry?: string;
  params?: string;
  /** Lines before and after the instruction (the entry's other registers, loads, stores). */
  before?: string[];
  after?: string[];
}

/**
 * The standalone PTX module a vector's instruction is read in (FORMAT.md): the vector's
 * `module` header (absent: `.version 9.0` / `.target sm_90`), one `.entry` declaring the
 * registers the `ptx` text names — `d`, `a`, `b`, `c`, `p`, `membermask`, `g`; vote's `a`, and
 * its `d` but for `.ballot`, as `.pred`; a `.b64` `a` — and the instruction as written. Used by
 * `readVectors` (to parse it) and by hwgen (src/hw/hwgen.ts: the kernel that runs it on a GPU).
 */
export function vectorModule(v: { ptx: string; module?: { version: string; target: string } }, k: VectorKernel = {}): string {
  const is64 = /\.b64\b/.test(v.ptx);
  // FORMAT.md: vote's a, and its d but for .ballot, are predicates.
  const vote = /^\s*(@!?\w+\s+)?vote\b/.test(v.ptx);
  const predD = vote && !/\.ballot\b/.test(v.ptx);
  return [
    `.version ${v.module ? v.module.version : "9.0"}`,
    `.target ${v.module ? v.module.target : "sm_90"}`,
    ".address_size 64",
    `.visible .entry ${k.entry ?? "vector_wrapper"}(${k.params ?? ""})`,
    "{",
    `.reg .b32 ${predD ? "" : "d, "}${is64 || vote ? "" : "a, "}b, c, membermask;`,
    ...(is64 ? [".reg .b64 a;"] : []),
    `.reg .pred p, g${vote ? ", a" : ""}${predD ? ", d" : ""};`,
    ...(k.before ?? []),
    v.ptx,
    ...(k.after ?? []),
    "ret;",
    "}",
  ].join("\n");
}

/**
 * Reads a `.jsonl` vector file. Malformed lines and instructions ptx-lower rejects become
 * diagnostics (`file:line:1`), not exceptions.
 */
export function readVectors(text: string, file: string): { vectors: Vector[]; diagnostics: Diagnostic[] } {
  const vectors: Vector[] = [];
  const diagnostics: Diagnostic[] = [];
  const ids = new Map<string, number>();
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a UTF-8 byte-order mark
  text.split("\n").forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim()) return;
    const bad = (message: string) => diagnostics.push({ loc: { file, line, col: 1 }, severity: "error", message });
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(raw) as Record<string, unknown>;
    } catch (e) {
      // The column JSON.parse names (`… in JSON at position 110`), 1-based.
      const at = /at position (\d+)/.exec((e as Error).message);
      diagnostics.push({ loc: { file, line, col: at ? Number(at[1]) + 1 : 1 }, severity: "error", message: `not a JSON object: ${(e as Error).message}` });
      return;
    }
    if (v === null || typeof v !== "object" || Array.isArray(v) || typeof v.id !== "string" || typeof v.ptx !== "string" || typeof v.in !== "object" || typeof v.out !== "object" || !v.in || !v.out) {
      bad("a vector needs string fields id and ptx and objects in and out");
      return;
    }
    if (!/^[^;]*;\s*$/.test(v.ptx)) {
      bad(`vector ${v.id}: ptx must be one instruction ending in ';'`);
      return;
    }
    if (ids.has(v.id)) {
      bad(`vector ${v.id}: duplicate id (first on line ${ids.get(v.id)})`);
      return;
    }
    ids.set(v.id, line);
    const mh = v.module as { version?: unknown; target?: unknown } | undefined;
    if (mh !== undefined && (typeof mh !== "object" || mh === null || typeof mh.version !== "string" || !/^\d+\.\d+$/.test(mh.version) || typeof mh.target !== "string" || !/^sm_\w+$/.test(mh.target))) {
      bad(`vector ${v.id}: module must be {"version": "M.N", "target": "sm_XX"}`);
      return;
    }
    const wrapped = vectorModule({ ptx: v.ptx, ...(mh ? { module: mh as { version: string; target: string } } : {}) });
    const mod = parseModule(wrapped, file);
    const errs = mod.diagnostics.filter((d) => d.severity === "error");
    if (errs.length || mod.insts.length !== 1) {
      bad(`vector ${v.id}: ${errs.map((d) => d.message).join("; ") || `no instruction ptx-lower lowers (${FAMILIES.map((f) => f.spelled).join(", ")})`}`);
      return;
    }
    const sem = v.semantics;
    if (sem !== undefined && sem !== "isa" && sem !== "sm90") {
      bad(`vector ${v.id}: unknown semantics ${String(sem)}`);
      return;
    }
    const vector: Vector = {
      id: v.id,
      ptx: v.ptx,
      in: v.in as Record<string, Json>,
      out: v.out as Record<string, Json>,
      ...(v.warp ? { warp: v.warp as { active: string } } : {}),
      ...(mh ? { module: mh as { version: string; target: string } } : {}),
      ...(sem ? { semantics: sem } : {}),
      line,
      inst: mod.insts[0]!,
    };
    const problem = shapeProblem(vector, v.warp);
    if (problem) {
      bad(`vector ${v.id}: ${problem}`);
      return;
    }
    vectors.push(vector);
  });
  if (vectors.length === 0 && diagnostics.length === 0) diagnostics.push({ loc: { file, line: 1, col: 1 }, severity: "error", message: "no vectors (the file has no non-blank line)" });
  return { vectors, diagnostics };
}

/** A FORMAT.md value as a bigint: a hex string, or a predicate (true 1n, false 0n). */
const big = (x: Json | undefined): bigint => (typeof x === "string" ? BigInt(x) : x === true ? 1n : 0n);

/** A FORMAT.md value: "0x" and 8 hex digits (16 for a .b64 `a`). */
function isHex(x: unknown, digits: 8 | 16): boolean {
  return typeof x === "string" && new RegExp(`^0x[0-9a-fA-F]{${digits}}$`).test(x);
}

/**
 * Checks a vector's fields against FORMAT.md for its instruction: every register the
 * instruction reads has an `in` value of the right shape (one per lane for `a` of a warp
 * instruction), every destination an `out` value, guards their `g` and prior values.
 * @returns a description of the first problem, or null.
 */
function shapeProblem(v: Vector, warp: unknown): string | null {
  const f = v.inst.form;
  const isWarp = familyOf(f).shape === "warp";
  if (isWarp && (typeof warp !== "object" || warp === null || !isHex((warp as { active?: unknown }).active, 8)))
  {
    const name = f.op === "match" ? "match.sync" : warpInstName(f as WarpForm);
    return `${/^[aeiou]/.test(name) ? "an" : "a"} ${name} vector needs warp.active ("0x" + 8 hex digits)`;
  }
  const lanes = (x: unknown, ok: (e: unknown) => boolean, nullable: boolean) =>
    Array.isArray(x) && x.length === 32 && x.every((e) => (nullable && e === null) || ok(e));
  const isBool = (e: unknown) => typeof e === "boolean";
  const predD = isWarpLevel(f) && warpPredicateDest(f);
  for (const name of sourcesOf(f)) {
    const o = v.inst[name];
    if (!o || o.kind !== "reg") continue;
    const x = v.in[o.name];
    if (f.op === "vote" && name === "a") {
      if (!lanes(x, isBool, false)) return `in.${o.name} must be 32 booleans`;
      continue;
    }
    const digits = f.op === "match" && f.type === "b64" && name === "a" ? 16 : 8;
    const perLaneOk = isWarp && lanes(x, (e) => isHex(e, digits), false);
    if (isWarp && name === "a" && !perLaneOk) return `in.${o.name} must be 32 values of ${digits} hex digits`;
    if (!perLaneOk && !isHex(x, digits)) return `in.${o.name} must be "0x" + ${digits} hex digits${isWarp ? " or 32 of them" : ""}`;
  }
  const writes = formWrites(f);
  const dests = (["d", "p"] as const).filter((k) => writes[k]);
  const okOf = (k: "d" | "p") => (k === "p" || predD ? isBool : (e: unknown) => isHex(e, 8));
  for (const k of dests) {
    const x = v.out[k];
    const ok = okOf(k);
    if (isWarp ? !lanes(x, ok, true) : !ok(x)) return `out.${k} must be ${isWarp ? "32 entries (null for undefined lanes)" : k === "p" ? "a boolean" : '"0x" + 8 hex digits'}`;
  }
  for (const k of Object.keys(v.out)) if (!dests.includes(k as "d" | "p")) return `out.${k} is not a destination of this instruction`;
  // An input no operand reads is a mistake (a misspelt register name would otherwise leave
  // the real one missing or, where it is read elsewhere, run the vector on something else).
  const reads = new Set<string>(sourcesOf(f).flatMap((name) => (v.inst[name]?.kind === "reg" ? [(v.inst[name] as { name: string }).name] : [])));
  if (v.inst.guard) for (const k of ["g", ...dests]) reads.add(k);
  for (const k of Object.keys(v.in)) if (!reads.has(k)) return `in.${k} is not read by this instruction (it reads ${[...reads].map((r) => `in.${r}`).join(", ") || "no register"})`;
  if (v.inst.guard) {
    // FORMAT.md: the guard is @g or @!g, and in.g gives it.
    if (v.inst.guard.reg !== "g") return `the guard must be @g or @!g (in.g gives its value), not @${v.inst.guard.negate ? "!" : ""}${v.inst.guard.reg}`;
    const g = v.in.g;
    if (isWarp ? !lanes(g, (e) => typeof e === "boolean", false) : typeof g !== "boolean") return `a guarded vector needs in.g (${isWarp ? "32 booleans" : "a boolean"})`;
    for (const k of dests) {
      const x = v.in[k];
      const ok = okOf(k);
      if (isWarp ? !lanes(x, ok, false) : !ok(x)) return `a guarded vector needs the prior in.${k}`;
    }
  }
  return null;
}

/**
 * The `in` value a source operand reads: by its register's name, which need not be the
 * operand's own (`vshr.u32.u32.u32.clamp.add d, a, 5, a` reads `a` as c too).
 */
function inputOf(v: Vector, name: SourceName): Json | undefined {
  const o = v.inst[name];
  if (!o) return undefined;
  if (o.kind === "imm") return `0x${o.value.toString(16)}`;
  return o.kind === "reg" ? v.in[o.name] : undefined;
}

/** The routine identity a vector runs as: registers divergent ("v") or uniform ("s"). */
export function vectorSpec(v: Vector, regKind: "v" | "s"): RoutineSpec {
  const kinds: Partial<Record<SourceName, OperandKind>> = {};
  for (const name of sourcesOf(v.inst.form)) {
    const o = v.inst[name];
    if (!o) continue;
    if (o.kind === "imm") kinds[name] = { kind: "imm", value: o.value };
    else {
      // A per-lane array can only be divergent.
      const perLane = Array.isArray(inputOf(v, name));
      kinds[name] = { kind: perLane ? "v" : regKind };
    }
  }
  return { form: v.inst.form, kinds, guarded: v.inst.guard !== null };
}

/** The value of a guard in lane i (scalar vectors: one boolean). */
function guardOf(v: Vector, lane = 0): boolean {
  if (!v.inst.guard) return true;
  const g = v.in.g;
  const raw = Array.isArray(g) ? g[lane] === true : g === true;
  return v.inst.guard.negate ? !raw : raw;
}

/** Inputs of a warp vector in concrete form. */
interface WarpIn {
  a: bigint[];
  membermask: bigint[];
  membermaskUniform: boolean;
  active: bigint;
  g: boolean[];
  dPrior: bigint[];
  pPrior: boolean[];
}

function warpIn(v: Vector): WarpIn {
  const lanes = (x: Json | undefined, dflt: bigint) => Array.from({ length: 32 }, (_, i) => (Array.isArray(x) ? big(x[i]) : x === undefined ? dflt : big(x)));
  const mmOp = v.inst.membermask!;
  const mm = mmOp.kind === "imm" ? lanes(undefined, mmOp.value) : lanes(inputOf(v, "membermask"), 0n);
  const aOp = v.inst.a!;
  const a = aOp.kind === "imm" ? lanes(undefined, aOp.value) : lanes(inputOf(v, "a"), 0n);
  const pPriorRaw = v.in.p;
  return {
    a,
    membermask: mm,
    membermaskUniform: !Array.isArray(inputOf(v, "membermask")),
    active: big(v.warp?.active ?? "0xffffffff"),
    g: Array.from({ length: 32 }, (_, i) => guardOf(v, i)),
    dPrior: lanes(v.in.d, 0n),
    pPrior: Array.from({ length: 32 }, (_, i) => (Array.isArray(pPriorRaw) ? pPriorRaw[i] === true : pPriorRaw === true)),
  };
}

/** What a target produced for a warp vector. */
interface WarpOut {
  d: (bigint | null)[];
  p: (boolean | null)[];
}

/** Compares a warp result with the vector's expected `out` (null lanes skipped). */
function compareWarp(v: Vector, got: WarpOut): string | null {
  const ed = v.out.d;
  const ep = v.out.p;
  for (let i = 0; i < 32; i++) {
    if (Array.isArray(ed) && ed[i] !== null && ed[i] !== undefined) {
      const want = big(ed[i]);
      if (got.d[i] !== want) return `lane ${i}: d = ${fmt(got.d[i])}, expected ${fmt(want)}`;
    }
    if (Array.isArray(ep) && ep[i] !== null && ep[i] !== undefined) {
      if (got.p[i] !== ep[i]) return `lane ${i}: p = ${got.p[i]}, expected ${ep[i]}`;
    }
  }
  return null;
}

const fmt = (x: bigint | null | undefined) => (x === null || x === undefined ? "undefined" : `0x${x.toString(16).padStart(8, "0")}`);

/**
 * A warp-level vector's inputs as a `WarpCase` (src/check/warp_cases.ts): per-lane a, b, c and
 * membermask (null where the form has none: the deprecated forms, activemask), the guard as "this lane's guard lets it execute" (null unguarded), the priors;
 * predicates (vote's a, a `.pred` d) as 0n/1n, an immediate predicate true when non-zero.
 */
export function warpLevelCase(v: Vector): WarpCase {
  const f = v.inst.form as WarpForm;
  const lanes = (name: SourceName): bigint[] => {
    const o = v.inst[name];
    if (!o) return [];
    if (o.kind === "imm") return new Array<bigint>(32).fill(o.value);
    const x = inputOf(v, name);
    return Array.from({ length: 32 }, (_, i) => big(Array.isArray(x) ? x[i] : x));
  };
  const a = lanes("a");
  const pPriorRaw = v.in.p;
  return {
    label: `vector ${v.id}`,
    a: f.op === "vote" ? a.map((x) => (x !== 0n ? 1n : 0n)) : a.length ? a : new Array<bigint>(32).fill(0n),
    b: lanes("b"),
    c: lanes("c"),
    membermask: v.inst.membermask ? lanes("membermask") : null,
    active: Number(big(v.warp?.active ?? "0xffffffff")),
    guard: v.inst.guard ? Array.from({ length: 32 }, (_, i) => guardOf(v, i)) : null,
    dPrior: Array.from({ length: 32 }, (_, i) => big(Array.isArray(v.in.d) ? v.in.d[i] : v.in.d)),
    pPrior: Array.from({ length: 32 }, (_, i) => (Array.isArray(pPriorRaw) ? pPriorRaw[i] === true : pPriorRaw === true)),
  };
}

/** The reference's result for a warp vector (guarded-off lanes: the prior values). */
export function referenceWarp(v: Vector): WarpOut {
  const f = v.inst.form;
  if (isWarpLevel(f)) return warpReference(f, warpLevelCase(v));
  const w = warpIn(v);
  if (f.op !== "match") throw new Error("not a warp form");
  const width = f.type === "b64" ? 64 : 32;
  const active = Array.from({ length: 32 }, (_, i) => ((w.active >> BigInt(i)) & 1n) === 1n);
  const r = matchSync(concrete, f, {
    a: w.a.map((x) => u(x, width)),
    membermask: w.membermask.map((x) => u(x & 0xffffffffn)),
    active,
    executes: active.map((x, i) => x && w.g[i]!),
  });
  return {
    d: r.d.map((x, i) => keepLane(active[i]!, w.g[i]!, () => (r.defined[i] ? x.x : null), () => w.dPrior[i]!)),
    p: r.p.map((x, i) => keepLane(active[i]!, w.g[i]!, () => (r.defined[i] ? x : null), () => w.pPrior[i]!)),
  };
}

/** Which executors `check` runs. */
export interface CheckTargets {
  ref: boolean;
  amdgpu: Mcpu[];
  js: boolean;
  c: boolean;
  /** Processors for the `hip` header (clang-19) and the `llvm` module (llc-19); none when absent. */
  hip?: Mcpu[];
  llvm?: Mcpu[];
}

export interface VectorFailure {
  vector: Vector;
  target: string;
  message: string;
}

/**
 * What `runVectors` found. The counts are of vector × target row: `rows` names the target
 * rows run (`ref`, `amdgpu gfx942` — both register layouts of a vector in one row —, `js`,
 * `c`, `hip gfx1030`, `llvm gfx90a`, …), so `--target all` over N vectors counts N × 18. A
 * failure of the portable IR's own meaning counts against the js and c rows it feeds; an
 * internal error against every row. `skipped`: the vectors of the other profile, on every
 * row, and every vector on a row whose tool is absent (a note says which).
 */
export interface VectorReport {
  passed: number;
  failed: number;
  skipped: number;
  /** The target rows counted, in the order they ran. */
  rows: string[];
  /** The same outcome per vector: a vector passes when every row agrees with its `out`. */
  vectors: { passed: number; failed: number; skipped: number };
  failures: VectorFailure[];
  /** Why some targets did not run (e.g. no C compiler). */
  notes: string[];
}

/**
 * Runs every vector of `vectors` that holds under `profile` on the chosen targets.
 * A vector passes when every target agrees with its `out`. `onProgress(done, total, now)`:
 * vector × row runs done of `total` (the vectors run × the rows), and the rows that run now
 * (`ref, amdgpu gfx900, …` vector by vector, then `js`, `c`, each `hip`/`llvm` processor).
 */
export async function runVectors(vectors: Vector[], profile: Profile, targets: CheckTargets, o: { onProgress?: (done: number, total: number, now: string) => void } = {}): Promise<VectorReport> {
  const failures: VectorFailure[] = [];
  const notes: string[] = [];
  const failed = new Set<Vector>();
  // The rows, and per vector the rows it failed on (a failure's target names its row, with a
  // qualifier after " (" for the uniform-source layout).
  const rows: string[] = [
    ...(targets.ref ? ["ref"] : []),
    ...targets.amdgpu.map((m) => `amdgpu ${m}`),
    ...(targets.js ? ["js"] : []),
    ...(targets.c ? ["c"] : []),
    ...(targets.hip ?? []).map((m) => `hip ${m}`),
    ...(targets.llvm ?? []).map((m) => `llvm ${m}`),
  ];
  const rowsSkipped = new Set<string>();
  const failedRows = new Map<Vector, Set<string>>();
  const rowsOf = (target: string): string[] => {
    if (target === "all") return rows;
    if (target === "portable IR") return rows.filter((r) => r === "js" || r === "c");
    const row = target.split(" (")[0]!;
    return rows.includes(row) ? [row] : [];
  };
  const fail = (vector: Vector, target: string, message: string) => {
    failed.add(vector);
    failures.push({ vector, target, message });
    if (!failedRows.has(vector)) failedRows.set(vector, new Set());
    for (const r of rowsOf(target)) failedRows.get(vector)!.add(r);
  };
  const run = vectors.filter((v) => !v.semantics || v.semantics === profile);
  const skipped = vectors.length - run.length;
  const total = run.length * rows.length;
  // A row's runs are counted when the next row starts (or at the end): one call per step.
  let done = 0;
  let finished = 0;
  let now = "";
  const begin = (rows: string) => {
    done += finished;
    finished = 0;
    now = rows;
    o.onProgress?.(done, total, now);
  };
  const perVector = rows.filter((r) => r === "ref" || r.startsWith("amdgpu "));
  if (perVector.length) begin(perVector.join(", "));

  const services = targetServices().vectors;
  const service = (kind: VectorService["kind"]) => services.find((x) => x.kind === kind)!;
  /** Checks a target's result for `v`; a failure names the target (and the rule, where the target says). */
  const check = (v: Vector, target: string, out: VectorOut) => {
    if ("failure" in out) return fail(v, target, out.failure);
    const rule = out.rule ? ` (rule ${out.rule})` : "";
    if (familyOf(v.inst.form).shape === "warp") {
      const d = out.d as readonly (bigint | null)[] | undefined;
      const msg = compareWarp(v, { d: d ? [...d] : new Array(32).fill(null), p: out.p ? [...out.p] : new Array(32).fill(null) });
      if (msg) fail(v, target, msg + rule);
    } else {
      const want = big(v.out.d);
      if (out.d !== want) fail(v, target, `d = ${fmt(out.d as bigint)}, expected ${fmt(want)}${rule}`);
    }
  };
  const inputs = (v: Vector, spec: RoutineSpec): VectorRun =>
    familyOf(v.inst.form).shape === "warp" ? { spec, profile, warp: warpCase(v) } : { spec, profile, scalar: scalarCase(v) };

  const portable: { v: Vector; run: VectorRun }[] = [];
  for (const v of run) {
    const f = v.inst.form;
    const warp = familyOf(f).shape === "warp";
    try {
      if (targets.ref) {
        if (warp) {
          const msg = compareWarp(v, referenceWarp(v));
          if (msg) fail(v, "ref", msg);
        } else {
          const got = guarded(
            guardOf(v),
            () => scalarSemantics(concrete, f, profile, u(big(inputOf(v, "a"))), u(big(inputOf(v, "b"))), u(big(inputOf(v, "c")))).value.x,
            () => big(v.in.d),
          );
          const want = big(v.out.d);
          if (got !== want) fail(v, "ref", `d = ${fmt(got)}, expected ${fmt(want)}`);
        }
      }
      for (const mcpu of targets.amdgpu) {
        for (const regKind of ["v", "s"] as const) {
          const spec = vectorSpec(v, regKind);
          if (regKind === "s" && !Object.values(spec.kinds).some((k) => k?.kind === "s")) continue;
          const r = await service("amdgpu").run([inputs(v, spec)], mcpu);
          if ("outs" in r) check(v, `amdgpu ${mcpu}${regKind === "s" ? " (uniform sources)" : ""}`, r.outs[0]!);
        }
      }
      if (targets.js || targets.c) portable.push({ v, run: inputs(v, vectorSpec(v, "v")) });
    } catch (e) {
      fail(v, "all", `internal error: ${(e as Error).message}`);
    }
    if (perVector.length) o.onProgress?.((done += perVector.length), total, now);
  }
  // JS and C each run every vector's routine at once; the PIR's own meaning must agree too.
  for (const kind of [...(targets.js ? ["js"] : []), ...(targets.c ? ["c"] : []), ...(portable.length ? ["portable IR"] : [])] as VectorService["kind"][]) {
    if (!portable.length) break;
    if (kind !== "portable IR") begin(kind);
    const r = await service(kind).run(portable.map((x) => x.run));
    if (kind !== "portable IR") finished = run.length;
    if ("skipped" in r) {
      notes.push(`C target skipped: ${r.skipped}`);
      rowsSkipped.add("c");
    }
    else if (kind === "portable IR") r.outs.forEach((out, i) => "failure" in out && fail(portable[i]!.v, kind, out.failure));
    else r.outs.forEach((out, i) => check(portable[i]!.v, kind, out));
  }
  // hip and llvm: every vector's function in one header / module per processor.
  const compiled = run.map((v) => ({ v, run: inputs(v, vectorSpec(v, "v")) }));
  // Every processor's compile of both targets started at once (side by side), then the rows run in turn.
  const compiledRuns = compiled.map((x) => x.run);
  for (const kind of ["hip", "llvm"] as const) if (compiled.length && targets[kind]?.length) service(kind).prepare?.(compiledRuns, targets[kind]!);
  for (const kind of ["hip", "llvm"] as const)
    for (const mcpu of targets[kind] ?? []) {
      if (!compiled.length) break;
      begin(`${kind} ${mcpu}`);
      let r: Awaited<ReturnType<VectorService["run"]>>;
      try {
        r = await service(kind).run(compiledRuns, mcpu);
      } catch (e) {
        for (const x of compiled) fail(x.v, `${kind} ${mcpu}`, `internal error: ${(e as Error).message}`);
        finished = run.length;
        continue;
      }
      finished = run.length;
      if ("skipped" in r) {
        notes.push(`${kind} ${mcpu} skipped: ${r.skipped}`);
        rowsSkipped.add(`${kind} ${mcpu}`);
      }
      else r.outs.forEach((out, i) => check(compiled[i]!.v, `${kind} ${mcpu}`, out));
    }
  if (finished) o.onProgress?.(done + finished, total, now);
  const ran = rows.filter((r) => !rowsSkipped.has(r));
  let failedPairs = 0;
  for (const rs of failedRows.values()) failedPairs += [...rs].filter((r) => !rowsSkipped.has(r)).length;
  return {
    passed: run.length * ran.length - failedPairs,
    failed: failedPairs,
    skipped: skipped * rows.length + run.length * rowsSkipped.size,
    rows,
    vectors: { passed: run.length - failed.size, failed: failed.size, skipped },
    failures,
    notes,
  };
}

/** A scalar vector's inputs as a checker case. */
function scalarCase(v: Vector): ScalarCase {
  return { a: big(inputOf(v, "a")), b: big(inputOf(v, "b")), c: big(inputOf(v, "c")), g: guardOf(v), dPrior: big(v.in.d) };
}

/** A warp vector's inputs as a checker warp. */
function warpCase(v: Vector): MatchCase | WarpCase {
  if (isWarpLevel(v.inst.form)) return warpLevelCase(v);
  const w = warpIn(v);
  return { label: "vector", a: w.a, membermask: w.membermask, active: Number(w.active), guard: w.g, dPrior: w.dPrior, pPrior: w.pPrior };
}
