/**
 * @fileoverview Warps for the warp-level family (issue 15): the concrete reference of one
 * case (src/sem/warp.ts under the guard rule of src/sem/guard.ts), and seeded random cases —
 * the inputs phase 2's checker runs every lowering on, as src/check/warps.ts does for
 * match.sync (whose active-mask and lane-group helpers are shared).
 *
 * What the generator mixes (each case says which in `label`):
 *   - active lanes: full, a partial last warp, random masks (so shfl sources, vote and redux
 *     members may have exited), or equal to an immediate membermask;
 *   - membermask: all ones, the active mask, the lane's group mask (groups contiguous like a
 *     tile, interleaved or random — consistent, so results stay defined), a group with holes
 *     (lanes missing from every member's mask), one group (uniform), or random per lane
 *     (mostly undefined results); the deprecated forms have none;
 *   - shfl `c`: the CUDA value for a segment width 1–32 (`((32 - w) << 8) | 0x1f`, `.up`
 *     `(32 - w) << 8`), powers of two or not, a random clamp and segment mask, stray bits
 *     5–7 and 13–31 set; one value, or one per lane group, or per lane;
 *   - shfl `b`: small offsets / lanes (0–31), ≥ 32, negative, per lane (a per-lane source lane);
 *   - `a`: random words, small integers, INT_MIN/INT_MAX and neighbours, f32 specials
 *     (±0, NaNs, infinities, subnormals) for `.f32`; for vote, predicates all true, all
 *     false, per group, random;
 *   - guards: all true, all false, per group, random, all but one lane.
 * An immediate operand keeps the routine's value in every lane.
 */
import type { OperandKind, SourceName } from "../ir/ir.js";
import type { WarpForm } from "../ir/warp_forms.js";
import { warpFormId, warpPredicateDest, warpSources } from "../ir/warp_forms.js";
import type { BV, CV } from "../sem/bv.js";
import { concrete } from "../sem/bv.js";
import { concreteNumber, nvValue } from "../sem/bv_number.js";
import { keepLane } from "../sem/guard.js";
import { type ShflReading, WARP, type WarpLanes, warpLevel } from "../sem/warp.js";
import { Rng } from "./random.js";
import { groupMasks, lanesOf, randomActive, randomGroups } from "./warps.js";

/**
 * One warp (every array has 32 entries, index = laneid). Values are u32; vote's `a` and a
 * `.pred` `d` are 0 or 1 (the predicate as written, before a `!` of the form).
 */
export interface WarpCase {
  label: string;
  a: bigint[];
  /** shfl's `b` and `c` per lane (a uniform or immediate one repeated); empty for the other forms. */
  b: bigint[];
  c: bigint[];
  /** Each lane's membermask; null for the deprecated forms and activemask. */
  membermask: bigint[] | null;
  /** Lanes that have not exited (u32 mask). */
  active: number;
  /** The guard per lane for guarded routines, null for unguarded ones. */
  guard: boolean[] | null;
  /** Prior `d` per lane (0/1 for a `.pred` d) and prior `p`, which guarded-off lanes keep. */
  dPrior: bigint[];
  pPrior: boolean[];
}

/** Per-lane expected results: null where the lane has exited or the ISA leaves the result undefined. */
export interface WarpExpected {
  d: (bigint | null)[];
  p: (boolean | null)[];
}

/** A case as the reference's input (`executes` = active and, if guarded, the guard), over `concrete` or another concrete algebra. */
export function toWarpLanes(f: WarpForm, c: WarpCase): WarpLanes<CV, boolean>;
export function toWarpLanes<V>(f: WarpForm, c: WarpCase, bv: BV<V, boolean>): WarpLanes<V, boolean>;
export function toWarpLanes<V>(f: WarpForm, c: WarpCase, bv: BV<V, boolean> = concrete as unknown as BV<V, boolean>): WarpLanes<V, boolean> {
  const active = Array.from({ length: WARP }, (_, l) => ((c.active >>> l) & 1) === 1);
  const aWidth = f.op === "vote" ? 1 : 32;
  return {
    a: c.a.map((x) => bv.k(x, aWidth)),
    b: c.b.map((x) => bv.k(x, 32)),
    c: c.c.map((x) => bv.k(x, 32)),
    membermask: c.membermask ? c.membermask.map((x) => bv.k(x, 32)) : null,
    active,
    executes: active.map((on, l) => on && (c.guard ? c.guard[l]! : true)),
  };
}

/** `warpReference`'s results by case and form: every target row of a routine compares with the same warps. */
const referenceCache = new WeakMap<WarpCase, Map<string, WarpExpected>>();

/**
 * The reference's result for a case: the semantics, and the guard rule for lanes that do not
 * execute (`reading`: shfl's reading of `b`/`c`, src/sem/warp.ts; the other one only for
 * `hwgen --probe`). Computed once per (case, form) and kept while the case lives (do not mutate a
 * case after asking).
 */
export function warpReference(f: WarpForm, c: WarpCase, reading: ShflReading = "isa"): WarpExpected {
  let byForm = referenceCache.get(c);
  if (!byForm) referenceCache.set(c, (byForm = new Map()));
  const key = `${warpFormId(f)}/${reading}`;
  let r = byForm.get(key);
  if (!r) byForm.set(key, (r = computeReference(f, c, reading)));
  return r;
}

function computeReference(f: WarpForm, c: WarpCase, reading: ShflReading): WarpExpected {
  // On numbers (src/sem/bv_number.ts: the same semantics, another concrete carrier; bigint-free).
  const w = toWarpLanes(f, c, concreteNumber);
  const r = warpLevel(concreteNumber, f, w, reading);
  const out: WarpExpected = { d: [], p: [] };
  for (let l = 0; l < WARP; l++) {
    const g = c.guard ? c.guard[l] : undefined;
    out.d.push(keepLane(w.active[l]!, g, () => (r.dDefined[l] ? nvValue(r.d[l]!) : null), () => c.dPrior[l]!));
    out.p.push(keepLane(w.active[l]!, g, () => (r.pDefined[l] ? r.p[l]! : null), () => c.pPrior[l]!));
  }
  return out;
}

const FULL = 0xffffffff;
const INT_EDGES = [0n, 1n, 0x7fffffffn, 0x80000000n, 0x7ffffffen, 0x80000001n, 0xffffffffn, 0xfffffffen];
const F32_EDGES = [0x00000000n, 0x80000000n, 0x00000001n, 0x80000001n, 0x007fffffn, 0x3f800000n, 0xbf800000n, 0x7f7fffffn, 0xff7fffffn, 0x7f800000n, 0xff800000n, 0x7fc00000n, 0xffc00001n, 0x7f800001n, 0x7fffffffn];

/** A `c` for segment width `w` (1–32) in CUDA's packing (sm_30_intrinsics.hpp). */
export function cudaC(w: number, up: boolean): bigint {
  return (BigInt(32 - w) << 8n) | (up ? 0n : 0x1fn);
}

/**
 * `n` random warps for one routine of a warp form, reproducible from `seed`. `kinds` gives
 * each source's kind (`v` divergent: per-lane values; `s` uniform: one value; `imm`: that
 * value); missing sources are divergent.
 */
export function randomWarpCases(f: WarpForm, kinds: Partial<Record<SourceName, OperandKind>>, seed: number, n: number, guarded = false): WarpCase[] {
  const rng = new Rng(seed);
  const sources = warpSources(f);
  const kindOf = (s: SourceName) => kinds[s] ?? { kind: "v" as const };
  const imm = (s: SourceName) => {
    const k = kindOf(s);
    return k.kind === "imm" ? k.value & 0xffffffffn : undefined;
  };
  const out: WarpCase[] = [];
  for (let t = 0; t < n; t++) {
    const labels: string[] = [];
    const immM = sources.includes("membermask") ? imm("membermask") : undefined;
    const [active, aLabel] = randomActive(rng, immM);
    labels.push(`active=${aLabel}`);
    const [groups, gLabel] = randomGroups(rng);
    const nGroups = Math.max(...groups) + 1;

    // A value per lane under a kind: the immediate, one value, one per group, or one per lane.
    const perLane = (s: SourceName, draw: () => bigint, name: string): bigint[] => {
      const k = kindOf(s);
      if (k.kind === "imm") {
        labels.push(`${name}=imm`);
        return new Array<bigint>(WARP).fill(k.value & 0xffffffffn);
      }
      if (k.kind === "s") {
        labels.push(`${name}=uniform`);
        return new Array<bigint>(WARP).fill(draw());
      }
      const how = rng.below(3);
      if (how === 0) {
        labels.push(`${name}=one`);
        return new Array<bigint>(WARP).fill(draw());
      }
      if (how === 1) {
        labels.push(`${name}=per-group`);
        const per = Array.from({ length: nGroups }, draw);
        return groups.map((g) => per[g]!);
      }
      labels.push(`${name}=per-lane`);
      return Array.from({ length: WARP }, draw);
    };

    // Membermask.
    let membermask: bigint[] | null = null;
    if (sources.includes("membermask")) {
      if (immM !== undefined) {
        membermask = new Array<bigint>(WARP).fill(immM);
        labels.push("mm=imm");
      } else {
        const r = rng.below(kindOf("membermask").kind === "s" ? 4 : 7);
        const masks = groupMasks(groups);
        let m: number[];
        if (r === 0) {
          m = new Array<number>(WARP).fill(FULL);
          labels.push("mm=ones");
        } else if (r === 1) {
          m = new Array<number>(WARP).fill(active);
          labels.push("mm=active");
        } else if (r === 2) {
          m = new Array<number>(WARP).fill(rng.pick(masks));
          labels.push(`mm=group(${gLabel})`);
        } else if (r === 3) {
          // One mask with holes: lanes missing from it (and from every member's mask).
          let hole = rng.u32() | rng.u32();
          if (rng.bool()) hole &= active;
          m = new Array<number>(WARP).fill(hole >>> 0);
          labels.push("mm=holes");
        } else if (r <= 5) {
          const holes = r === 5 ? rng.u32() | rng.u32() | rng.u32() : FULL;
          m = groups.map((g) => (masks[g]! & holes) >>> 0);
          labels.push(`mm=groups(${gLabel}${r === 5 ? ",holes" : ""})`);
        } else {
          m = Array.from({ length: WARP }, () => rng.u32());
          labels.push("mm=random-per-lane");
        }
        membermask = m.map((x) => BigInt(x >>> 0));
      }
    }

    // shfl's b and c.
    let b: bigint[] = [];
    let c: bigint[] = [];
    if (f.op === "shfl") {
      const up = f.mode === "up";
      const drawC = (): bigint => {
        const r = rng.below(8);
        if (r <= 3) return cudaC(rng.pick([1, 2, 4, 8, 16, 32]), up);
        if (r === 4) return cudaC(1 + rng.below(32), up);
        if (r === 5) return BigInt(rng.below(32)) | (BigInt(rng.below(32)) << 8n);
        if (r === 6) return (cudaC(rng.pick([1, 2, 4, 8, 16, 32]), up) | (BigInt(rng.below(8)) << 5n) | (BigInt(rng.u32() >>> 13) << 13n)) & 0xffffffffn;
        return BigInt(rng.u32());
      };
      const drawB = (): bigint => {
        const r = rng.below(8);
        if (r <= 4) return BigInt(rng.pick([0, 1, 2, 4, 8, 16, rng.below(32)]));
        if (r === 5) return BigInt(32 + rng.below(32));
        if (r === 6) return BigInt(-(1 + rng.below(40))) & 0xffffffffn;
        return BigInt(rng.u32());
      };
      b = perLane("b", drawB, "b");
      c = perLane("c", drawC, "c");
    }

    // a.
    let a: bigint[];
    if (f.op === "vote") {
      const r = rng.below(4);
      const drawP = () => BigInt(rng.below(2));
      if (imm("a") !== undefined) a = perLane("a", drawP, "a").map((x) => (x !== 0n ? 1n : 0n));
      else if (kindOf("a").kind === "s") a = perLane("a", drawP, "a");
      else if (r === 0) {
        a = new Array<bigint>(WARP).fill(1n);
        labels.push("a=all-true");
      } else if (r === 1) {
        a = new Array<bigint>(WARP).fill(0n);
        labels.push("a=all-false");
      } else a = perLane("a", drawP, "a");
    } else if (f.op === "activemask" || f.op === "bar.warp") {
      a = new Array<bigint>(WARP).fill(0n);
    } else {
      const pool = f.op === "redux" && f.type === "f32" ? F32_EDGES : INT_EDGES;
      const style = rng.below(3);
      const draw = style === 0 ? () => rng.pick(pool) : style === 1 ? () => BigInt(rng.below(64)) : () => BigInt(rng.u32());
      a = perLane("a", draw, `a(${["edges", "small", "random"][style]})`);
    }

    // Guard.
    let guard: boolean[] | null = null;
    if (guarded) {
      const r = rng.below(6);
      if (r <= 1) guard = new Array<boolean>(WARP).fill(true);
      else if (r === 2) guard = new Array<boolean>(WARP).fill(false);
      else if (r === 3) {
        const per = Array.from({ length: nGroups }, () => rng.bool());
        guard = groups.map((g) => per[g]!);
      } else if (r === 4) guard = Array.from({ length: WARP }, () => rng.bool());
      else {
        guard = new Array<boolean>(WARP).fill(true);
        guard[rng.pick(lanesOf(active))] = false;
      }
      labels.push(`g=${["all", "all", "none", "per-group", "random", "all-but-one"][r]}`);
    }

    const pred = warpPredicateDest(f);
    out.push({
      label: labels.join(" "),
      a,
      b,
      c,
      membermask,
      active,
      guard,
      dPrior: Array.from({ length: WARP }, () => (pred ? BigInt(rng.below(2)) : BigInt(rng.u32()))),
      pPrior: Array.from({ length: WARP }, () => rng.bool()),
    });
  }
  return out;
}
