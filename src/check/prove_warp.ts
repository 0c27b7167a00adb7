/**
 * @fileoverview The match.sync warp shared by the targets' match proofs
 * (targets/amdgpu/prove/match.ts, targets/portable/prove.ts): the inputs and the reference
 * per lane, the output conditions, and the counterexample's input and spec lines.
 */
import type { MatchForm } from "../ir/forms.js";
import { formWrites } from "../ir/forms.js";
import type { RoutineSpec, SourceName } from "../ir/ir.js";
import type { WarpForm } from "../ir/warp_forms.js";
import { warpPredicateSource, warpSources } from "../ir/warp_forms.js";
import type { WarpLanes } from "../sem/warp.js";
import type { BV, CV } from "../sem/bv.js";
import type { MatchResult } from "../sem/match_sync.js";
import type { Bad } from "./prove_types.js";
import { fmt } from "./prove_text.js";

/** The PTX warp: lanes of a match.sync. */
export const LANES = 32;

/** A data-independence check's failure (thrown inside the taint walks, caught as the reason). */
export class TaintError extends Error {}

/** One warp's inputs, its active/executing lanes and the reference's result, per lane. */
export interface Warp<V, B> {
  active: V;
  a: V[];
  membermask: V[];
  g?: B[];
  dPrior?: V[];
  pPrior?: B[];
  executes: B[];
  activeB: B[];
  ref: MatchResult<V, B>;
}

/**
 * The output conditions of lane `l`, for each result the form writes (formWrites): the
 * reference's value where the lane executes with a defined result (`on`), the prior value
 * where the guard keeps it (`off`, src/sem/guard.ts). `got` reads the lowered result, null
 * where the routine has none.
 */
export function resultBads<V, B>(
  bv: BV<V, B>,
  f: MatchForm,
  w: Warp<V, B>,
  l: number,
  on: B,
  off: B,
  got: { d: () => V | null; p: () => B | null },
): Bad<B>[] {
  const bads: Bad<B>[] = [];
  const check = <T>(name: "d" | "p", x: T | null, ref: T, prior: T[] | undefined, same: (x: T, y: T) => B) => {
    if (x === null) {
      bads.push({ what: `the routine has no ${name} result`, cond: bv.true });
      return;
    }
    bads.push({ what: `Value mismatch: ${name} in lane ${l}`, cond: bv.andB(on, bv.notB(same(x, ref))), lane: l });
    if (prior) bads.push({ what: `lane ${l} (guard false) does not keep its prior ${name}`, cond: bv.andB(off, bv.notB(same(x, prior[l]!))), lane: l });
  };
  const writes = formWrites(f);
  if (writes.d) check("d", got.d(), w.ref.d[l]!, w.dPrior, (x, y) => bv.eq(x, y));
  if (writes.p) check("p", got.p(), w.ref.p[l]!, w.pPrior, (x, y) => bv.eqB(x, y));
  return bads;
}


/** Bit i of a concrete value. */
export const concreteBit = (x: CV, i: number): boolean => ((x.x >> BigInt(i)) & 1n) === 1n;

/** A match counterexample's inputs: active, a, membermask (per lane or uniform), guard, prior d. */
export function warpInputLines(spec: RoutineSpec, w: Warp<CV, boolean>): string[] {
  const out = [`  active = ${fmt(w.active)}`];
  const kind = (s: "a" | "membermask") => spec.kinds[s]?.kind ?? "v";
  const perLane = (name: string, xs: (CV | boolean)[], k: string) =>
    k === "v" ? xs.map((x, l) => `  ${name}[${l}] = ${fmt(x)}`).filter((_, l) => w.activeB[l] || (w.g !== undefined && false)) : [`  ${name} = ${fmt(xs[0]!)}${k === "imm" ? "  (immediate)" : "  (uniform)"}`];
  out.push(...perLane("a", w.a, kind("a")));
  out.push(...perLane("membermask", w.membermask, kind("membermask")));
  if (w.g) out.push(`  g = ${w.g.map((x) => (x ? "1" : "0")).reverse().join("")} (lane 31 … lane 0)`);
  if (w.dPrior) out.push(...w.dPrior.map((x, l) => `  d_prior[${l}] = ${fmt(x)}`).filter((_, l) => w.activeB[l]));
  return out;
}

/** The reference per active lane: executes, defined, d (and p for .all). */
export function warpSpecLines(f: MatchForm, w: Warp<CV, boolean>): string[] {
  const out: string[] = [];
  for (let l = 0; l < LANES; l++) {
    if (!w.activeB[l]) continue;
    const parts = [`executes ${w.executes[l] ? 1 : 0}`, `defined ${w.ref.defined[l] ? 1 : 0}`, `d = ${fmt(w.ref.d[l]!)}`];
    if (f.mode === "all") parts.push(`p = ${w.ref.p[l]}`);
    out.push(`  lane ${l}: ${parts.join("  ")}`);
  }
  return out;
}

/**
 * The reference's lanes (`WarpLanes`, 32 of each) of a warp-level routine's sources as both
 * provers read them (targets/amdgpu/prove/warp.ts and targets/portable/prove.ts): `src32(name)`
 * a u32 source's 32 lanes (an immediate in every lane, the prover's own contract otherwise),
 * `predicateA()` vote's `a` as a lane mask (bit l = lane l; both contracts carry it so), an
 * immediate predicate `a` its bit 0 in every lane; `active` and `executes` per lane (`executes`
 * = active ∩ guard). Sources the form lacks are empty (b, c) or null (membermask).
 */
export function proverWarpLanes<V, B>(
  bv: BV<V, B>,
  f: WarpForm,
  kinds: RoutineSpec["kinds"],
  src32: (name: SourceName) => V[],
  predicateA: () => V,
  active: B[],
  executes: B[],
): WarpLanes<V, B> {
  const lanes = Array.from({ length: active.length }, (_, l) => l);
  const sources = warpSources(f);
  let a: V[];
  if (warpPredicateSource(f)) {
    const k = kinds.a ?? { kind: "v" };
    if (k.kind === "imm") a = lanes.map(() => bv.k((k.value & 1n) !== 0n ? 1 : 0, 1));
    else {
      const m = predicateA();
      a = lanes.map((l) => bv.extract(m, l, l));
    }
  } else a = sources.includes("a") ? src32("a") : lanes.map(() => bv.k(0, 32));
  return {
    a,
    b: sources.includes("b") ? src32("b") : [],
    c: sources.includes("c") ? src32("c") : [],
    membermask: sources.includes("membermask") ? src32("membermask") : null,
    active,
    executes,
  };
}
