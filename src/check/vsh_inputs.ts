/**
 * @fileoverview Checker inputs aimed at one scalar video form (vshl/vshr; `vopCases`: vadd…vmax): the corner values of
 * ptx-semantics.md §5(a) placed in the bytes and halves the form's selectors read, shift
 * amounts around 0, 31, 32, 33 in the selected field of b, the edges of the .s34 wrap and of
 * the saturation ranges, c corners, then seeded random values. src/check/inputs.ts adds the
 * generic corners × small b and its own random cases after these.
 */
import type { Sel, VshForm } from "../ir/forms.js";
import type { ScalarCase } from "./inputs.js";
import { Rng } from "./random.js";

const M32 = 0xffffffffn;

/** The word corners every operand is tried with. */
export const VSH_CORNERS: readonly bigint[] = [0n, 1n, 31n, 32n, 33n, 0x7fffffffn, 0x80000000n, 0xffffffffn];

/** Values placed in a subword: the corners' low bits and the subword's own edges. */
function subwordValues(width: number): bigint[] {
  const mask = (1n << BigInt(width)) - 1n;
  const half = 1n << BigInt(width - 1);
  const out = new Set<bigint>();
  for (const x of VSH_CORNERS) out.add(x & mask);
  for (const x of [half - 1n, half, half + 1n, mask - 1n, mask, 2n, 3n]) out.add(x & mask);
  return [...out];
}

/** `x` placed in the field `sel` of a word whose other bits are `fill`. */
function place(sel: Sel, x: bigint, fill: bigint): bigint {
  const n = Number(sel[1]);
  const lo = BigInt(sel[0] === "b" ? 8 * n : 16 * n);
  const mask = ((1n << BigInt(sel[0] === "b" ? 8 : 16)) - 1n) << lo;
  return ((fill & ~mask) | ((x << lo) & mask)) & M32;
}

/** Values for a source read through `sel` (or the whole word), with varied unselected bits. */
function valuesFor(sel: Sel | null, fills: readonly bigint[], extra: readonly bigint[] = []): bigint[] {
  const xs = new Set<bigint>();
  if (!sel) {
    for (const x of [...VSH_CORNERS, ...extra]) xs.add(x & M32);
    return [...xs];
  }
  const width = sel[0] === "b" ? 8 : 16;
  for (const x of [...subwordValues(width), ...extra.filter((e) => e < 1n << BigInt(width))]) for (const fill of fills) xs.add(place(sel, x, fill));
  return [...xs];
}

/**
 * a values: word corners and the patterns that sit on the .s34 wrap and the 32-bit
 * saturation edges after a shift by 1, 2, 31 or 32 (bits 0, 1, 30, 31 set or clear).
 */
const A_EXTRA: readonly bigint[] = [2n, 3n, 0x40000000n, 0xc0000000n, 0x3fffffffn, 0xbfffffffn, 0xfffffffen, 0x00008000n, 0xffff8000n, 0x7fn, 0x80n, 0xffn];
/** b values: amounts around 0, 31, 32, 33 and large ones with small low bits. */
const B_EXTRA: readonly bigint[] = [2n, 15n, 16n, 30n, 34n, 63n, 64n, 65n, 0xffn, 0x100n, 0x120n, 0xffffn, 0x10000n, 0xffffffe0n];
/** c values: word corners, and values around the subword ranges. */
const C_EXTRA: readonly bigint[] = [0x7fn, 0x80n, 0xffn, 0x7fffn, 0x8000n, 0xffffn, 0xffffff80n, 0xffff8000n, 0x90000000n, 0xa0000000n, 0xdeadbeefn];

/**
 * Inputs for one video form: corners of a × b (each placed in the selected field, with
 * both all-zero and all-one surrounding bits), each paired with a c corner in rotation,
 * then every c corner with a few (a, b), then `random` seeded random triples whose b field
 * is small half of the time.
 */
export function vshCases(f: VshForm, seed: number, random = 200): ScalarCase[] {
  const rng = new Rng(seed ^ 0x5eed51);
  const as = valuesFor(f.asel, [0n, M32, 0x5a5a5a5an], A_EXTRA);
  const bs = valuesFor(f.bsel, [0n, M32], B_EXTRA);
  const cs = [...VSH_CORNERS, ...C_EXTRA];
  const out: ScalarCase[] = [];
  let k = 0;
  for (const a of as) for (const b of bs) out.push({ a, b, c: cs[k++ % cs.length]! });
  for (const c of cs) for (const [a, b] of [[1n, 31n], [0x80000000n, 0n], [0xffffffffn, 32n], [3n, 31n], [0x7fffffffn, 1n]] as const) out.push({ a, b, c });
  for (let i = 0; i < random; i++) {
    const a = BigInt(rng.u32());
    const r = BigInt(rng.u32());
    const b = rng.bool() ? (f.bsel ? place(f.bsel, BigInt(rng.below(40)), r) : BigInt(rng.below(40))) : r;
    out.push({ a, b, c: BigInt(rng.u32()) });
  }
  return out;
}

/** Word values for vadd…vmax operands: the signed and unsigned edges, where ±1 crosses 2^31 or 2^32. */
const VOP_EXTRA: readonly bigint[] = [2n, 0x7ffffffen, 0x80000001n, 0xfffffffen, 0x7fn, 0x80n, 0xffn, 0x7fffn, 0x8000n, 0xffffn, 0xffffff80n, 0xffff8000n, 0x00010000n];

/**
 * Inputs for one vadd…vmax form: a × b corners (each placed in the selected field, with
 * all-zero and all-one surrounding bits), paired with c corners in rotation, then every c
 * corner with the pairs whose result sits on a saturation or comparison edge, then `random`
 * seeded random triples.
 */
export function vopCases(f: { asel: Sel | null; bsel: Sel | null }, seed: number, random = 200): ScalarCase[] {
  const rng = new Rng(seed ^ 0x5eed52);
  const as = valuesFor(f.asel, [0n, M32], VOP_EXTRA);
  const bs = valuesFor(f.bsel, [0n, M32], VOP_EXTRA);
  const cs = [...VSH_CORNERS, ...C_EXTRA];
  const out: ScalarCase[] = [];
  let k = 0;
  for (const a of as) for (const b of bs) out.push({ a, b, c: cs[k++ % cs.length]! });
  for (const c of cs) for (const [a, b] of [[0xffffffffn, 1n], [0x7fffffffn, 1n], [1n, 2n], [0x80000000n, 0x7fffffffn], [0n, 0xffffffffn]] as const) out.push({ a, b, c });
  for (let i = 0; i < random; i++) out.push({ a: BigInt(rng.u32()), b: BigInt(rng.u32()), c: BigInt(rng.u32()) });
  return out;
}
