/**
 * @fileoverview `verify --all` at scale for the warp-level family (issue 15 item 5): every
 * form × main operand kind (`a` divergent; membermask uniform or divergent; `b`/`c` uniform
 * or immediate: `warpMainKind`) × target, on ≥ 10,000 random warps each (src/check/warp_cases.ts),
 * through the same `verify` as the CLI (src/check/verify.ts) — so the verdicts are the CLI's.
 * scripts/verify-all-warp.ts runs the chunks in worker threads (this module is also the
 * worker: `workerData.job === WORKER_JOB`) and prints the table; the CI sample
 * (test/warp_cases.test.ts) runs a seeded chunk in-process.
 *
 * Rows are summarised (no cases kept), so a worker's memory is one chunk's warps.
 */
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import type { RoutineSpec } from "../ir/ir.js";
import { routineName } from "../ir/ir.js";
import { PROFILES } from "../ir/form_types.js";
import type { WarpForm } from "../ir/warp_forms.js";
import { warpFormId, warpFormName, warpForms, warpMainKind, warpVerifyKinds } from "../ir/warp_forms.js";
import type { VerifyTarget } from "./verify.js";
import { targetName, verify } from "./verify.js";

/** The worker job tag in `workerData` (`{ job: WORKER_JOB }`). */
export const WORKER_JOB = "ptx-lower/warp-verify-all";

/** One verify row, summarised: the routine, the target and rule, the verdict and its warp count. */
export interface WarpAllRow {
  form: string;
  routine: string;
  target: string;
  rule: string;
  chosen: boolean;
  status: "tested" | "refuted" | "proved" | "unknown" | "skipped";
  /** Warps compared (tested: over every layout the target runs), or the index of the refuting warp. */
  n?: number;
  /** Random warps run (per layout, where the target says: hip/llvm). */
  warps?: number;
  why?: string;
  counterexample?: string;
  dynMax?: number;
}

/** A chunk of routines for one worker message. */
export interface WarpAllChunk {
  specs: RoutineSpec[];
  targets: VerifyTarget[];
  seed: number;
  warps: number;
  /** The warps the hip/llvm rows run: a tenth, at least 1,000 (`verify`'s default), or all. */
  compiledWarps?: "tenth" | "all";
}

/**
 * The routines of the run: every warp-level form (in `warpForms` order) with each of its main
 * kinds (`warpMainKind` over `warpVerifyKinds(f, false)`); `activemask` and `bar.warp.sync`,
 * which have no main kind (no `a`, nothing but a membermask), with their unguarded kinds.
 * `keep` filters forms (by display name).
 */
export function warpAllSpecs(keep: (name: string, f: WarpForm) => boolean = () => true): RoutineSpec[] {
  const out: RoutineSpec[] = [];
  for (const f of warpForms()) {
    if (!keep(warpFormName(f), f)) continue;
    const ks = warpVerifyKinds(f, false);
    const main = ks.filter(warpMainKind);
    const chosen = main.length ? main : ks.filter((k) => !k.guarded && Object.values(k.kinds).every((x) => x?.kind !== "imm"));
    for (const k of chosen) out.push({ form: f, kinds: k.kinds, guarded: k.guarded });
  }
  return out;
}

/**
 * Splits `specs` into chunks of at most `size` routines of one form each (a form's routines
 * together: the hip/llvm rows compile one header/module per chunk and processor). With
 * `group`, routines of one form with the same group (the hip/llvm rows' callable function:
 * `callableName`, whose kinds collapse) go in one chunk, in first-occurrence order, so that
 * the function is compiled and run once; a group larger than `size` is a chunk of its own.
 */
export function warpAllChunks(specs: RoutineSpec[], size: number, group?: (s: RoutineSpec) => string): RoutineSpec[][] {
  const out: RoutineSpec[][] = [];
  const forms = new Map<string, Map<string, RoutineSpec[]>>();
  for (const s of specs) {
    const fid = warpFormId(s.form as WarpForm);
    if (!forms.has(fid)) forms.set(fid, new Map());
    const gs = forms.get(fid)!;
    const g = group ? group(s) : String(gs.size);
    gs.set(g, [...(gs.get(g) ?? []), s]);
  }
  for (const gs of forms.values()) {
    let cur: RoutineSpec[] | null = null;
    for (const g of gs.values()) {
      if (!cur || (cur.length && cur.length + g.length > size)) out.push((cur = []));
      cur.push(...g);
    }
  }
  return out;
}

/**
 * Verifies one chunk on every target (the caller has imported src/compose.ts, which registers them) (`verify`, profile `isa`: the family is
 * profile-insensitive) with `warps` random warps per routine from `seed`.
 * @returns one summarised row per routine × target × applicable rule.
 */
export async function runWarpAllChunk(chunk: WarpAllChunk): Promise<WarpAllRow[]> {
  const rows = await verify(
    chunk.specs.map((spec) => ({ spec, profile: PROFILES[0]!, warps: chunk.warps })),
    chunk.targets,
    { seed: chunk.seed, warps: chunk.warps, compiledWarps: chunk.compiledWarps },
  );
  return rows.map((r) => {
    const v = r.verdict;
    const base: WarpAllRow = {
      form: warpFormName(r.spec.form as WarpForm),
      routine: routineName(r.spec, (f) => warpFormId(f as WarpForm)),
      target: targetName(r.target),
      rule: r.rule,
      chosen: r.chosen,
      status: v.status,
      ...(r.dynMax !== undefined ? { dynMax: r.dynMax } : {}),
    };
    if (v.status === "tested") return { ...base, n: v.n, warps: r.warps ?? v.n };
    if (v.status === "refuted") return { ...base, n: v.n, counterexample: v.counterexample };
    if (v.status === "unknown" || v.status === "skipped") return { ...base, why: v.why };
    return base;
  });
}

// The worker: one chunk per message, its rows (or the error) back.
if (!isMainThread && (workerData as { job?: string } | null)?.job === WORKER_JOB) {
  await import("../compose.js");
  parentPort!.on("message", (chunk: WarpAllChunk & { id: number }) => {
    runWarpAllChunk(chunk).then(
      (rows) => parentPort!.postMessage({ id: chunk.id, rows }),
      (e: unknown) => parentPort!.postMessage({ id: chunk.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
    );
  });
}
