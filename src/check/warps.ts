/**
 * @fileoverview Seeded random warps for checking `match.sync` lowerings against the reference
 * (src/sem/match_sync.ts). One case is a whole 32-lane warp: lane values, each lane's
 * membermask, the lanes that have not exited, and for guarded routines the guard and the
 * prior d / p that guarded-off lanes must keep.
 *
 * What the generator mixes (each case says which in `label`, for failure reports):
 *   - active lanes: a full warp; a partial last warp (lanes n..31 exited); random masks,
 *     sparse to dense; for an immediate membermask also active = the mask;
 *   - lane groups: one group, or a partition into 2..8 groups (contiguous, interleaved or
 *     random); the group masks may name exited lanes (which must drop out) or not;
 *   - membermask: all ones, equal to the active mask, each lane's group mask (per-lane
 *     masks), one group (uniform masks), or, rarely, random per-lane masks (results then
 *     mostly undefined; the case still checks the routine contract); an immediate
 *     membermask is the routine's own value;
 *   - values: pools of 1, 2, 4, 8 and 32 distinct values, drawn per lane, or one value per
 *     group (so `.all` is often true), or per group with one lane changed; pools of random
 *     words, float bit patterns compared bitwise (+0.0 = 0x00000000 vs −0.0 = 0x80000000,
 *     several NaNs, infinities; for `.b64` the double patterns), `.b64` values differing
 *     only in the high half (or only in the low half), and small integers; a uniform or
 *     immediate `a` is one value (the routine's immediate);
 *   - guards: all true, all false, per group, per lane at random, all but one lane.
 */
import type { MatchForm } from "../ir/forms.js";
import type { OperandKind, SourceName } from "../ir/ir.js";
import type { CV } from "../sem/bv.js";
import { concrete } from "../sem/bv.js";
import type { MatchWarp } from "../sem/match_sync.js";
import { WARP } from "../sem/match_sync.js";
import { Rng } from "./random.js";

/** One generated warp (all arrays have 32 entries, index = laneid). */
export interface MatchCase {
  /** The generator's choices, e.g. `active=partial(12) mm=groups(4,interleaved) a=pool(8,float)`. */
  label: string;
  /** Lane values: u32, or u64 for `.b64`. */
  a: bigint[];
  /** Each lane's membermask (u32); a uniform or immediate membermask is one value 32 times. */
  membermask: bigint[];
  /** Lanes that have not exited (u32 mask, never 0). */
  active: number;
  /** Guarded routines: the guard per lane; null for unguarded ones. */
  guard: boolean[] | null;
  /** Prior d per lane (guarded-off lanes keep it) and prior p per lane. */
  dPrior: bigint[];
  pPrior: boolean[];
}

const FULL = 0xffffffff;
const F32_SPECIAL = [0x00000000n, 0x80000000n, 0x7fc00000n, 0x7fc00001n, 0xffc00000n, 0x7f800001n, 0x7f800000n, 0xff800000n, 0x3f800000n, 0xbf800000n];
const F64_SPECIAL = [
  0x0000000000000000n,
  0x8000000000000000n,
  0x7ff8000000000000n,
  0x7ff8000000000001n,
  0xfff8000000000000n,
  0x7ff0000000000001n,
  0x7ff0000000000000n,
  0xfff0000000000000n,
  0x3ff0000000000000n,
  0xbff0000000000000n,
];

/** The lanes of a u32 mask. */
function lanesOf(mask: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < WARP; i++) if ((mask >>> i) & 1) out.push(i);
  return out;
}

function maskOfLanes(lanes: Iterable<number>): number {
  let m = 0;
  for (const l of lanes) m |= 1 << l;
  return m >>> 0;
}

/** Random active mask (never 0) and its label. */
function randomActive(rng: Rng, immMask: bigint | undefined): [number, string] {
  const r = rng.below(immMask !== undefined ? 6 : 5);
  if (r === 0 || r === 1) return [FULL, "full"];
  if (r === 2) {
    const n = 1 + rng.below(31);
    return [(FULL >>> (32 - n)) >>> 0, `partial(${n})`];
  }
  if (r === 3 || r === 4) {
    // Density 1/4, 1/2 or 3/4.
    const d = rng.pick([1, 2, 3]);
    let m = 0;
    for (let i = 0; i < WARP; i++) if (rng.below(4) < d) m |= 1 << i;
    m >>>= 0;
    return m === 0 ? [(1 << rng.below(32)) >>> 0, "random(1)"] : [m, `random(${d}/4)`];
  }
  const m = Number(immMask! & 0xffffffffn);
  return m === 0 ? [FULL, "full"] : [m, "=mask"];
}

/** A partition of the 32 lanes into groups: group index per lane, and its label. */
function randomGroups(rng: Rng): [number[], string] {
  const g = rng.pick([1, 2, 2, 4, 4, 8, 3, 5]);
  if (g === 1) return [new Array<number>(WARP).fill(0), "1"];
  const style = rng.below(3);
  if (style === 0) {
    const size = Math.ceil(WARP / g);
    return [Array.from({ length: WARP }, (_, l) => Math.floor(l / size)), `${g},contiguous`];
  }
  if (style === 1) return [Array.from({ length: WARP }, (_, l) => l % g), `${g},interleaved`];
  return [Array.from({ length: WARP }, () => rng.below(g)), `${g},random`];
}

/** Group masks (u32) of a partition, optionally restricted to `within`. */
function groupMasks(groups: number[], within = FULL): number[] {
  const n = Math.max(...groups) + 1;
  const masks = new Array<number>(n).fill(0);
  groups.forEach((gi, l) => {
    masks[gi] = (masks[gi]! | (1 << l)) >>> 0;
  });
  return masks.map((m) => (m & within) >>> 0);
}

/** A pool of `n` distinct values of `w` bits, and its label. */
function randomPool(rng: Rng, n: number, w: 32 | 64): [bigint[], string] {
  const style = rng.below(w === 64 ? 5 : 3);
  const pool = new Set<bigint>();
  const fresh = () => (w === 64 ? rng.u64() : BigInt(rng.u32()));
  let label = "random";
  if (style === 1) {
    label = "float";
    const specials = w === 64 ? F64_SPECIAL : F32_SPECIAL;
    // ±0.0 first, so small pools still hold the pair that must not match.
    for (const x of specials) if (pool.size < n) pool.add(x);
  } else if (style === 2) {
    label = "small";
    while (pool.size < Math.min(n, 32)) pool.add(BigInt(rng.below(n * 2)));
  } else if (style === 3) {
    label = "hi-only";
    const low = BigInt(rng.u32());
    while (pool.size < n) pool.add((BigInt(rng.u32()) << 32n) | low);
  } else if (style === 4) {
    label = "lo-only";
    const high = BigInt(rng.u32()) << 32n;
    while (pool.size < n) pool.add(high | BigInt(rng.u32()));
  }
  while (pool.size < n) pool.add(fresh());
  return [[...pool], label];
}

/**
 * Inputs for `n` warps of one routine (form × kinds × guarded), reproducible from `seed`.
 * Immediate operands keep the routine's value: an immediate `a` in every lane, an immediate
 * membermask (truncated to 32 bits, as ptxas does) as every lane's mask.
 */
export function randomWarps(form: MatchForm, kinds: Partial<Record<SourceName, OperandKind>>, seed: number, n: number, guarded = false): MatchCase[] {
  const rng = new Rng(seed);
  const w: 32 | 64 = form.type === "b64" ? 64 : 32;
  const wMask = (1n << BigInt(w)) - 1n;
  const aKind = kinds.a?.kind ?? "v";
  const mKind = kinds.membermask?.kind ?? "v";
  const immA = kinds.a?.kind === "imm" ? kinds.a.value & wMask : undefined;
  const immM = kinds.membermask?.kind === "imm" ? kinds.membermask.value & 0xffffffffn : undefined;
  const out: MatchCase[] = [];
  for (let c = 0; c < n; c++) {
    const labels: string[] = [];
    const [active, aLabel] = randomActive(rng, immM);
    labels.push(`active=${aLabel}`);
    const [groups, gLabel] = randomGroups(rng);
    const nGroups = Math.max(...groups) + 1;

    // Membermask.
    let membermask: bigint[];
    if (immM !== undefined) {
      membermask = new Array<bigint>(WARP).fill(immM);
      labels.push(`mm=imm`);
    } else if (mKind === "s") {
      const r = rng.below(5);
      let m: number;
      if (r === 0) {
        m = FULL;
        labels.push("mm=ones");
      } else if (r === 1) {
        m = active;
        labels.push("mm=active");
      } else if (r === 2) {
        // One group of the partition (it may name exited lanes).
        m = rng.pick(groupMasks(groups));
        labels.push(`mm=group(${gLabel})`);
      } else if (r === 3) {
        const lo = rng.below(32);
        const len = 1 + rng.below(32 - lo);
        m = ((FULL >>> (32 - len)) << lo) >>> 0;
        labels.push(`mm=range(${lo},${len})`);
      } else {
        m = rng.u32();
        labels.push("mm=random");
      }
      membermask = new Array<bigint>(WARP).fill(BigInt(m >>> 0));
    } else {
      const r = rng.below(20);
      if (r < 3) {
        membermask = new Array<bigint>(WARP).fill(0xffffffffn);
        labels.push("mm=ones");
      } else if (r < 6) {
        membermask = new Array<bigint>(WARP).fill(BigInt(active));
        labels.push("mm=active");
      } else if (r < 19) {
        const within = rng.bool() ? FULL : active;
        const masks = groupMasks(groups, within);
        membermask = groups.map((gi) => BigInt(masks[gi]!));
        labels.push(`mm=groups(${gLabel}${within === FULL ? "" : ",active"})`);
      } else {
        membermask = Array.from({ length: WARP }, () => BigInt(rng.u32()));
        labels.push("mm=random-per-lane");
      }
    }

    // Values.
    let a: bigint[];
    if (immA !== undefined) {
      a = new Array<bigint>(WARP).fill(immA);
      labels.push("a=imm");
    } else {
      const size = rng.pick([1, 2, 4, 8, 32]);
      const [pool, pLabel] = randomPool(rng, size, w);
      if (aKind === "s") {
        a = new Array<bigint>(WARP).fill(rng.pick(pool));
        labels.push(`a=uniform(${pLabel})`);
      } else {
        const how = rng.below(3);
        if (how === 0) {
          a = Array.from({ length: WARP }, () => rng.pick(pool));
          labels.push(`a=pool(${size},${pLabel})`);
        } else {
          const per = Array.from({ length: nGroups }, () => rng.pick(pool));
          a = groups.map((gi) => per[gi]!);
          if (how === 2 && size > 1) {
            const lane = rng.pick(lanesOf(active));
            const other = pool.find((x) => x !== a[lane]) ?? a[lane]!;
            a[lane] = other;
            labels.push(`a=per-group-but-lane-${lane}(${size},${pLabel})`);
          } else labels.push(`a=per-group(${size},${pLabel})`);
        }
      }
    }

    // Guard.
    let guard: boolean[] | null = null;
    if (guarded) {
      const r = rng.below(6);
      if (r <= 1) {
        guard = new Array<boolean>(WARP).fill(true);
        labels.push("g=all");
      } else if (r === 2) {
        guard = new Array<boolean>(WARP).fill(false);
        labels.push("g=none");
      } else if (r === 3) {
        const per = Array.from({ length: nGroups }, () => rng.bool());
        guard = groups.map((gi) => per[gi]!);
        labels.push("g=per-group");
      } else if (r === 4) {
        guard = Array.from({ length: WARP }, () => rng.bool());
        labels.push("g=random");
      } else {
        guard = new Array<boolean>(WARP).fill(true);
        const lane = rng.pick(lanesOf(active));
        guard[lane] = false;
        labels.push(`g=all-but-${lane}`);
      }
    }

    out.push({
      label: labels.join(" "),
      a,
      membermask,
      active,
      guard,
      dPrior: Array.from({ length: WARP }, () => BigInt(rng.u32())),
      pPrior: Array.from({ length: WARP }, () => rng.bool()),
    });
  }
  return out;
}

/** A case as the reference's input (`executes` = active and, if guarded, the guard). */
export function toMatchWarp(form: MatchForm, c: MatchCase): MatchWarp<CV, boolean> {
  const w = form.type === "b64" ? 64 : 32;
  const active = Array.from({ length: WARP }, (_, l) => ((c.active >>> l) & 1) === 1);
  return {
    a: c.a.map((x) => concrete.k(x, w)),
    membermask: c.membermask.map((x) => concrete.k(x, 32)),
    active,
    executes: active.map((on, l) => on && (c.guard ? c.guard[l]! : true)),
  };
}

/** The number of distinct values among the active lanes (the waterfall's round count k). */
export function distinctActive(c: MatchCase): number {
  return new Set(lanesOf(c.active).map((l) => c.a[l]!)).size;
}

export { lanesOf, maskOfLanes, randomActive, randomGroups, groupMasks };
