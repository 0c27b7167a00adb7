/**
 * @fileoverview The `hip` and `llvm` rows of `verify` and `verify --prove`, their columns in
 * `report` and their runs in `check` (issue 14 item 3): a routine's callable function
 * (targets/llvm/callable.ts: kinds collapsed, guard dropped) compiled for a processor by
 * clang-19 (the header) or llc-19 (the module), extracted, checked for hazards, and run in the
 * interpreter against the reference (targets/llvm/compiled.ts) or proved by the AMDGPU
 * prover (targets/llvm/prove_compiled.ts).
 *
 * Batching: `verify` collects the jobs, and `flush` compiles one header / module per
 * (target, processor, profile) holding every pending routine's function, so a module costs one
 * compile per processor. Each routine's row is its function's row (routines whose kinds
 * collapse to the same function share it); each form of the batch adds one row for its
 * `ptxl_<formId>` alias (every source a parameter). Where clang-19 or llc-19 cannot run,
 * every row is `skipped` with the reason.
 */
import type { Profile } from "../../src/ir/forms.js";
import { formId } from "../../src/ir/forms.js";
import type { RoutineSpec } from "../../src/ir/ir.js";
import type { Verdict, VerifyRow, VerifyTarget } from "../../src/check/verify.js";
import { missingLowering } from "../../src/check/verify.js";
import type { MatchCase } from "../../src/check/warps.js";
import type { WarpCase } from "../../src/check/warp_cases.js";
import type { VerifyJob, VerifyService } from "../../src/target/check.js";
import type { VectorOut, VectorRun, VectorService } from "../../src/target/vectors.js";
import type { ReportService } from "../../src/target/report.js";
import { verdictOf } from "../../src/report.js";
import { guarded, keepLane } from "../../src/sem/guard.js";
import { staticCycles } from "../amdgpu/lower.js";
import type { MLine } from "../amdgpu/minst.js";
import type { Mcpu } from "../amdgpu/regs.js";
import { TARGETS } from "../amdgpu/regs.js";
import { checkHazards, formatViolation, LLVM_ENTRY } from "../amdgpu/hazards.js";
import { llcHazardTarget } from "../amdgpu/oracle/llc_hazards.js";
import type { CallableFn, RoutineLike } from "./callable.js";
import type { CompiledFor, CompiledFunction, CompiledRow, CompiledSet } from "./compiled.js";
import { COMPILERS, compiledToolsAvailable, execCompiled, warpWave } from "./compiled.js";
import { checkCompiledSetsPooled } from "./compiled_pool.js";
import type { CompiledKind } from "./compile_for.js";
import { aliasSpec, callableName, compileEach, compiledRule, compileFor } from "./compile_for.js";

function toVerdict(v: CompiledRow["verdict"]): Verdict {
  return v;
}

/**
 * Static issue cycles (`staticCycles`, as for our fragments: s_nop N = N + 1) of a function's
 * divergent-argument (`vgpr`) code as extracted: the entry `s_waitcnt` included, the return
 * (`s_setpc_b64`) not.
 */
function countOf(set: CompiledSet, fn: string): number | undefined {
  const cf = set.functions.find((f) => f.fn.name === fn && f.variant === "vgpr");
  return cf && Array.isArray(cf.lines) ? staticCycles(cf.lines) : undefined;
}

interface Pending {
  job: VerifyJob;
  rows: { row: VerifyRow; fn: string }[];
}

const groupKey = (t: VerifyTarget, profile: Profile) => `${t.kind}|${"mcpu" in t ? t.mcpu : ""}|${profile}`;

/**
 * The `verify` service of the `hip` or `llvm` target (see the file overview). Warp functions
 * run on a tenth of the job's random warps (`--warps`), at least 1,000 (all of them where the
 * job has fewer), or all of them where the job says so (`compiledWarps: "all"`:
 * `compiledWarpCount`), in both argument layouts and both wave64 layouts; scalar functions
 * on the checker's cases, grown to ≥ 1,000 where the immediates leave room
 * (`compiledScalarCases`).
 */
export function compiledVerify(kind: CompiledKind): VerifyService {
  let pending: Pending[] = [];
  return {
    kind,
    async verify(job) {
      const t = job.target as { kind: CompiledKind; mcpu: Mcpu };
      const missing = missingLowering(kind === "hip" ? "HIP" : "LLVM IR", job.spec.form);
      if (missing) return [{ spec: job.spec, profile: job.profile, target: t, rule: "(none)", chosen: true, verdict: { status: "unknown", why: missing } }];
      const fn = callableName(job.spec);
      // The alias is checked too but serves no routine: not "chosen" (report keeps chosen rows).
      const mk = (spec: RoutineSpec, name: string): VerifyRow => ({
        spec,
        profile: job.profile,
        target: t,
        rule: compiledRule(kind, name),
        chosen: !name.startsWith("ptxl_"),
        verdict: { status: "skipped", why: "not run" },
      });
      const rows = [{ row: mk(job.spec, fn), fn }];
      // Each form's alias once per verify call and target row.
      const aliasKey = `${kind}-alias|${groupKey(t, job.profile)}|${formId(job.spec.form)}`;
      if (!job.cache.has(aliasKey)) {
        job.cache.set(aliasKey, true);
        const name = `ptxl_${formId(job.spec.form)}`;
        rows.push({ row: mk(aliasSpec(job.spec), name), fn: name });
      }
      pending.push({ job, rows });
      return rows.map((r) => r.row);
    },
    pending: () => pending.length,
    async flush(note) {
      const batch = pending;
      pending = [];
      if (!batch.length) return;
      const tools = await compiledToolsAvailable([kind]);
      const groups = new Map<string, Pending[]>();
      for (const p of batch) {
        const k = groupKey(p.job.target, p.job.profile);
        groups.set(k, [...(groups.get(k) ?? []), p]);
      }
      // Compile every group, then check the compiles of one profile and warp count together
      // (`checkCompiledSets`: inputs made once per function, identical code run once).
      const ready: { ps: Pending[]; all: Pending["rows"]; c: CompiledFor; profile: Profile; warps: number }[] = [];
      // The groups of one profile and routine list are compiled together: the text printed
      // once, one compiler process per processor, side by side (`compileForEach`).
      const together = new Map<string, { ps: Pending[]; all: Pending["rows"]; mcpu: Mcpu; warps: number }[]>();
      for (const ps of groups.values()) {
        const all = ps.flatMap((p) => p.rows);
        if (!tools.ok) {
          for (const r of all) r.row.verdict = { status: "skipped", why: tools.reason };
          continue;
        }
        const { mcpu } = ps[0]!.job.target as { mcpu: Mcpu };
        const warps = Math.max(1, ...ps.map((p) => (p.job.cases[0] && "label" in p.job.cases[0] ? compiledWarpCount(p.job.cases.length, p.job.compiledWarps ?? "tenth") : 0)));
        const k = `${ps[0]!.job.profile}|${ps.map((p) => callableName(p.job.spec)).join(",")}`;
        together.set(k, [...(together.get(k) ?? []), { ps, all, mcpu, warps }]);
      }
      for (const gs of together.values()) {
        const ps = gs[0]!.ps;
        const profile = ps[0]!.job.profile;
        const routines = ps.map((p) => ({ name: callableName(p.job.spec), spec: p.job.spec }));
        const mcpus = gs.map((g) => g.mcpu);
        note?.(`${kind} ${mcpus.join(", ")}: compiling the functions of ${routines.length} routine${routines.length === 1 ? "" : "s"} (${kind === "hip" ? "clang-19" : "llc-19"})`);
        const compiled = await Promise.allSettled(compileEach(kind, routines, mcpus, profile));
        gs.forEach((g, i) => {
          const c = compiled[i]!;
          if (c.status === "fulfilled") ready.push({ ps: g.ps, all: g.all, c: { mcpu: g.mcpu, set: c.value.set, sregs: c.value.sregs }, profile, warps: g.warps });
          else for (const r of g.all) r.row.verdict = { status: "refuted", n: 0, counterexample: `${kind} ${g.mcpu}: the ${kind === "hip" ? "header" : "module"} does not compile: ${(c.reason as Error).message}` };
        });
      }
      for (const key of new Set(ready.map((g) => `${g.profile}|${g.warps}`))) {
        const gs = ready.filter((g) => `${g.profile}|${g.warps}` === key);
        const rowsOf = await checkCompiledSetsPooled(
          kind,
          gs.map((g) => g.c),
          { profile: gs[0]!.profile, warps: gs[0]!.warps, onFunction: (d, t) => note?.(`${kind}: ${d}/${t} functions run on ${gs.length} processor${gs.length === 1 ? "" : "s"}`) },
        );
        gs.forEach((g, i) => {
          const byFn = new Map(rowsOf[i]!.map((r) => [r.fn, r]));
          for (const r of g.all) {
            const c = byFn.get(r.fn);
            r.row.verdict = c ? toVerdict(c.verdict) : { status: "unknown", why: `${r.fn}: not among the compiled functions` };
            if (c?.warps !== undefined) r.row.warps = c.warps;
            const count = countOf(g.c.set, r.fn);
            if (count !== undefined) r.row.count = count;
          }
        });
      }
    },
  };
}

/**
 * The random warps a hip/llvm row runs of a job's `n` (each in both argument layouts and, on
 * wave64, both wave layouts, in code several times longer than a fragment): `all` of them, or
 * (`tenth`, `verify`'s default) a tenth, at least 1,000 — all of them where the job has fewer
 * (a lean budget: report's robustness run).
 */
export function compiledWarpCount(n: number, share: "tenth" | "all"): number {
  return share === "all" ? n : Math.max(Math.min(1000, n), Math.floor(n / 10));
}

/**
 * `verify --prove` on `hip`/`llvm` targets: ./prove_compiled_rows.ts `proveCompiledVerifyRows`
 * (what `prove:all` runs for these rows, with the stored verdicts). Kept for the callers of
 * this name; without caches.
 */
export async function proveCompiledRows(specs: readonly { spec: RoutineSpec; profile: Profile }[], targets: readonly VerifyTarget[], onDone?: () => void): Promise<VerifyRow[]> {
  const { proveCompiledVerifyRows } = await import("./prove_compiled_rows.js");
  return proveCompiledVerifyRows(specs, targets, onDone ? { onDone } : {});
}

/**
 * The `check` service of the `hip` or `llvm` target: every vector's function compiled in one
 * header/module per processor and profile and run once on the vector's inputs — a scalar
 * vector in every lane, a warp vector as one CUDA warp (lanes 32–63 inactive on wave64). A
 * guarded vector runs as its caller's `if`: guarded-off lanes do not execute the call and keep
 * their prior d and p (src/sem/guard.ts). Code with a hazard fails the vector.
 */
export function compiledVectors(kind: CompiledKind): VectorService {
  /** The compiles `prepare` started, for the `runs` array it was given, by `mcpu|profile`. */
  let prepared: { runs: readonly VectorRun[]; compiles: Map<string, Promise<{ set: CompiledSet; sregs: number[] }>> } | null = null;
  /** Each profile's vectors that the target can lower (by index into `runs`) and their routines. */
  const byProfile = (runs: readonly VectorRun[]) =>
    [...new Set(runs.map((r) => r.profile))].map((profile) => {
      const idx = runs.flatMap((r, i) => (r.profile === profile && !missingLowering(kind === "hip" ? "HIP" : "LLVM IR", r.spec.form) ? [i] : []));
      return { profile, idx, routines: idx.map((i) => ({ name: callableName(runs[i]!.spec), spec: runs[i]!.spec })) };
    });
  return {
    kind,
    prepare(runs, mcpus) {
      const compiles = new Map<string, Promise<{ set: CompiledSet; sregs: number[] }>>();
      for (const { profile, routines } of byProfile(runs)) {
        if (!routines.length) continue;
        // Only the `vgpr` layout: a vector runs as one call with its values in VGPRs. A text
        // that does not print is left to `run`, which fails its vectors with the reason.
        let each: ReturnType<typeof compileEach>;
        try {
          each = compileEach(kind, routines, mcpus as Mcpu[], profile, ["vgpr"]);
        } catch {
          continue;
        }
        each.forEach((p, i) => {
          p.catch(() => {}); // reported by the `run` that awaits it
          compiles.set(`${mcpus[i]}|${profile}`, p);
        });
      }
      prepared = { runs, compiles };
    },
    async run(runs, mcpuName) {
      const tools = await compiledToolsAvailable([kind]);
      if (!tools.ok) return { skipped: tools.reason };
      const mcpu = (mcpuName ?? "gfx942") as Mcpu;
      const outs: VectorOut[] = new Array(runs.length);
      runs.forEach((r, i) => {
        const missing = missingLowering(kind === "hip" ? "HIP" : "LLVM IR", r.spec.form);
        if (missing) outs[i] = { failure: missing };
      });
      for (const { profile, idx, routines } of byProfile(runs)) {
        if (!idx.length) continue;
        const mine = prepared?.runs === runs ? prepared.compiles.get(`${mcpu}|${profile}`) : undefined;
        prepared?.compiles.delete(`${mcpu}|${profile}`);
        const { set, sregs } = await (mine ?? compileFor(kind, routines, mcpu, profile, ["vgpr"]));
        const byName = new Map<string, CompiledFunction>();
        for (const cf of set.functions) if (cf.variant === "vgpr") byName.set(cf.fn.name, cf);
        for (const i of idx) outs[i] = runVector(runs[i]!, byName.get(callableName(runs[i]!.spec)), mcpu, sregs, kind);
      }
      return { outs };
    },
  };
}

function runVector(r: VectorRun, cf: CompiledFunction | undefined, mcpu: Mcpu, sregs: number[], kind: CompiledKind): VectorOut {
  const rule = cf ? compiledRule(kind, cf.fn.name) : undefined;
  if (!cf) return { failure: `no compiled function for ${callableName(r.spec)}` };
  if (!Array.isArray(cf.lines)) return { failure: `${cf.symbol}: ${cf.lines.error}` };
  const lines = cf.lines as MLine[];
  const hz = checkHazards(lines, llcHazardTarget(mcpu, TARGETS[mcpu].wave), LLVM_ENTRY);
  if (hz.length) return { failure: `${cf.symbol}: hazard: ${hz.map(formatViolation).join("; ")}` };
  const W = TARGETS[mcpu].wave;
  if (r.scalar) {
    const x = r.scalar;
    const perLane = Array.from({ length: W }, () => cf.args.map((a) => x[a.name as "a" | "b" | "c"]));
    const out = execCompiled(cf, lines, mcpu, perLane, (1n << BigInt(W)) - 1n, sregs);
    if ("failure" in out) return { failure: out.failure };
    return { d: guarded(r.spec.guarded ? (x.g ?? true) : undefined, () => out.d[0]!, () => x.dPrior ?? 0n), ...(rule ? { rule } : {}) };
  }
  const w = r.warp as MatchCase | WarpCase;
  const { perLane, exec } = warpWave(cf, mcpu, w);
  const out = execCompiled(cf, lines, mcpu, perLane, exec, sregs);
  if ("failure" in out) return { failure: out.failure };
  const g = (l: number) => (r.spec.guarded ? (w.guard?.[l] ?? true) : undefined);
  const active = (l: number) => ((w.active >>> l) & 1) === 1;
  const lanes = Array.from({ length: 32 }, (_, l) => l);
  return {
    d: lanes.map((l) => keepLane(active(l), g(l), () => (cf.dReg !== undefined ? out.d[l]! : null), () => w.dPrior[l]!)),
    p: lanes.map((l) => keepLane(active(l), g(l), () => (cf.pReg !== undefined ? out.p[l] === 1n : null), () => w.pPrior[l]!)),
    ...(rule ? { rule } : {}),
  };
}

/** The `report` column of the `hip` or `llvm` target on a processor: the compiled function and the checker's verdict. */
export function compiledReport(kind: CompiledKind): ReportService {
  return {
    kind,
    row: (spec, _profile, t, row, ran) => ({
      target: `${kind} ${(t as { mcpu: Mcpu }).mcpu}`,
      mcpu: (t as { mcpu: Mcpu }).mcpu,
      rule: compiledRule(kind, callableName(spec)),
      static: row?.count ?? null,
      dynamic: null,
      verdict: verdictOf(row, ran, "the checker did not run (it failed on this routine)"),
    }),
  };
}
