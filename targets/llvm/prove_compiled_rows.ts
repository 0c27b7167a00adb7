/**
 * @fileoverview `verify --prove`'s `hip` and `llvm` rows (issue 37 item 5): what `prove:all`
 * runs for them, with its proof cache.
 *   - The warp-shaped families' functions (match.sync and the warp-level family: the registry's
 *     `shape`) through ./prove_compiled_matrix.ts `proveCompiledMatrix`, as `prove:all` proves
 *     them: every function and form alias, both argument variants, every layout of the wave,
 *     on worker threads, the compiled loop induction included (redux); match.sync by
 *     ./prove_compiled_match.ts.
 *   - The scalar families' functions by ./prove_compiled.ts `proveCompiled` (the AMDGPU
 *     scalar prover on the extracted code), one function at a time.
 * Each verdict may come from `caches` (src/check/proof_cache.ts: the stored verdicts under
 * proofs/ whose prover fingerprint is the current source's), and each verdict proved here is
 * stored in them; a row all of whose verdicts came from a cache says so (`stored`).
 * Rows as targets/llvm/verify.ts `compiledVerify` gives them: per target × processor ×
 * function (the routine's, and each form's alias), every variant and layout combined.
 */
import type { Profile } from "../../src/ir/forms.js";
import { formId } from "../../src/ir/forms.js";
import type { RoutineSpec } from "../../src/ir/ir.js";
import type { Verdict, VerifyRow, VerifyTarget } from "../../src/check/verify.js";
import type { Verdict as ProveVerdict } from "../../src/check/prove_types.js";
import type { ProofCache } from "../../src/check/proof_cache.js";
import { cacheable } from "../../src/check/proof_cache.js";
import { hash } from "../../src/check/prove_text.js";
import { familyOf } from "../../src/families/index.js";
import { staticCycles } from "../amdgpu/lower.js";
import { isLabel } from "../amdgpu/minst.js";
import { showLine } from "../amdgpu/prove/paths.js";
import type { Mcpu } from "../amdgpu/regs.js";
import { TARGETS } from "../amdgpu/regs.js";
import type { CompiledSet } from "./compiled.js";
import { compiledToolsAvailable } from "./compiled.js";
import { aliasSpec, callableName, compiledRule, compileFor } from "./compile_for.js";
import { proveCompiled } from "./prove_compiled.js";
import type { CompiledProveRow } from "./prove_compiled_matrix.js";
import { proveCompiledMatrix } from "./prove_compiled_matrix.js";

/** The caches `proveCompiledVerifyRows` reads and fills (scripts/prove-all.ts's two compiled ones). */
export interface CompiledCaches {
  /** Functions with a loop, and the scalar functions (targets/llvm/prove_compiled_matrix.ts's whole closure). */
  loops: ProofCache;
  /** Loop-free warp functions (the closure without ./prove_compiled_loop.ts). */
  loopFree: ProofCache;
}

/** One verdict of a row's function, and whether it came from a cache. */
type Part = { verdict: ProveVerdict; stored: boolean; what: string };

function combine(parts: Part[]): Verdict {
  const bad = parts.find((p) => p.verdict.verdict === "refuted") ?? parts.find((p) => p.verdict.verdict !== "proved");
  if (bad) {
    const v = bad.verdict;
    if (v.verdict === "refuted") return { status: "refuted", n: 0, counterexample: `${bad.what}: ${v.reason}\n${v.counterexample}` };
    if (v.verdict === "tested") return { status: "tested", n: v.n };
    return { status: "unknown", why: `${bad.what}: ${(v as { reason: string }).reason}` };
  }
  const stored = parts.length > 0 && parts.every((p) => p.stored);
  return { status: "proved", by: parts.map((p) => `${p.what}: ${(p.verdict as { method: string }).method}`).join("; "), ...(stored ? { stored: true } : {}) };
}

/**
 * The `hip`/`llvm` rows of `verify --prove` for `specs` on `targets` (others ignored; file
 * comment). `workers`: threads for the warp functions' proofs; `onDone`: called per compile.
 * @throws Error when clang or llc fails on the printed text (a printer bug).
 */
export async function proveCompiledVerifyRows(
  specs: readonly { spec: RoutineSpec; profile: Profile }[],
  targets: readonly VerifyTarget[],
  o: { caches?: CompiledCaches; workers?: number; timeoutMs?: number; onDone?: () => void } = {},
): Promise<VerifyRow[]> {
  const rows: VerifyRow[] = [];
  const tools = { hip: await compiledToolsAvailable(["hip"]), llvm: await compiledToolsAvailable(["llvm"]) };
  const isWarp = (s: RoutineSpec) => familyOf(s.form).shape === "warp";
  for (const kind of ["hip", "llvm"] as const) {
    const mine = targets.filter((t): t is VerifyTarget & { kind: typeof kind; mcpu: Mcpu } => t.kind === kind);
    if (!mine.length) continue;
    for (const profile of [...new Set(specs.map((s) => s.profile))]) {
      const ofProfile = specs.filter((s) => s.profile === profile);
      // The functions a row is made for: each routine's, and each form's alias.
      const want: { spec: RoutineSpec; fn: string }[] = [];
      const seen = new Set<string>();
      for (const { spec } of ofProfile) {
        want.push({ spec, fn: callableName(spec) });
        const id = formId(spec.form);
        if (!seen.has(id)) {
          seen.add(id);
          want.push({ spec: aliasSpec(spec), fn: `ptxl_${id}` });
        }
      }
      const mk = (t: VerifyTarget, w: { spec: RoutineSpec; fn: string }, verdict: Verdict, count?: number): VerifyRow => ({
        spec: w.spec,
        profile,
        target: t,
        rule: compiledRule(kind, w.fn),
        chosen: !w.fn.startsWith("ptxl_"),
        ...(count !== undefined ? { count } : {}),
        verdict,
      });
      const ready = tools[kind];
      if (!ready.ok) {
        for (const t of mine) rows.push(...want.map((w) => mk(t, w, { status: "skipped", why: ready.reason })));
        continue;
      }
      // Per processor: the verdicts per function name, and the compiled set (the counts).
      const parts = new Map<Mcpu, Map<string, Part[]>>(mine.map((t) => [t.mcpu, new Map()]));
      const sets = new Map<Mcpu, CompiledSet[]>();
      const add = (mcpu: Mcpu, fn: string, p: Part) => {
        const m = parts.get(mcpu)!;
        m.set(fn, [...(m.get(fn) ?? []), p]);
      };
      // Warp functions: prove:all's rows (every layout, the induction, workers, the cache).
      const warp = ofProfile.filter((s) => isWarp(s.spec)).map((s) => s.spec);
      if (warp.length) {
        const out: CompiledProveRow[] = [];
        await proveCompiledMatrix(warp, {
          kinds: [kind],
          mcpus: mine.map((t) => t.mcpu),
          profiles: [profile],
          induction: true,
          ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
          ...(o.workers !== undefined ? { workers: o.workers } : {}),
          ...(o.caches ? { cache: o.caches.loops, loopFreeCache: o.caches.loopFree } : {}),
          onCompiled: (_k, mcpu, _p, set) => sets.set(mcpu, [...(sets.get(mcpu) ?? []), set]),
          onRow: (r) => out.push(r),
        });
        for (const r of out) add(r.mcpu, r.fn, { verdict: r.verdict, stored: !!r.cached, what: `${r.symbol} (${r.variant}, ${r.layout})` });
      }
      // Scalar functions: one at a time, each cached under its code's key.
      const scalar = ofProfile.filter((s) => !isWarp(s.spec));
      if (scalar.length)
        for (const t of mine) {
          const { set, sregs } = await compileFor(kind, scalar.map(({ spec }) => ({ name: callableName(spec), spec })), t.mcpu, profile);
          sets.set(t.mcpu, [...(sets.get(t.mcpu) ?? []), set]);
          for (const cf of set.functions) {
            const tw = TARGETS[t.mcpu];
            const key = hash(["scalar", kind === "hip" ? "clang" : "llc", tw.wave, tw.gen, profile, cf.variant, formId(cf.fn.spec.form), JSON.stringify(cf.fn.spec.kinds, (_k, v) => (typeof v === "bigint" ? `${v}` : v)), JSON.stringify(cf.args), cf.dReg, ...(Array.isArray(cf.lines) ? cf.lines.map((l) => (isLabel(l) ? `${l.label}:` : showLine(l))) : [JSON.stringify(cf.lines)]), sregs.join(",")].join("\n"));
            const what = `${cf.symbol} (${cf.variant})`;
            const hit = o.caches?.loops.get(key) as ProveVerdict | undefined;
            if (hit && cacheable(hit)) {
              add(t.mcpu, cf.fn.name, { verdict: hit, stored: true, what });
              continue;
            }
            const [r] = await proveCompiled([cf], t.mcpu, kind, sregs, { profile, ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}) });
            if (o.caches && cacheable(r!.verdict)) o.caches.loops.put(key, `${kind} ${t.mcpu} ${cf.symbol} ${cf.variant} ${profile}`, r!.verdict);
            add(t.mcpu, cf.fn.name, { verdict: r!.verdict, stored: false, what });
          }
        }
      for (const t of mine) {
        const count = (fn: string) => {
          for (const set of sets.get(t.mcpu) ?? []) {
            const cf = set.functions.find((f) => f.fn.name === fn && f.variant === "vgpr");
            if (cf && Array.isArray(cf.lines)) return staticCycles(cf.lines);
          }
          return undefined;
        };
        const m = parts.get(t.mcpu)!;
        for (const w of want) rows.push(mk(t, w, m.has(w.fn) ? combine(m.get(w.fn)!) : { status: "unknown", why: `${w.fn}: not among the compiled functions` }, count(w.fn)));
        o.onDone?.();
      }
    }
  }
  return rows;
}
