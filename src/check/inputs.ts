/**
 * @fileoverview Checker inputs for the scalar forms (szext, vshl/vshr), in the order of
 * design.md §2.5: the ISA's examples, corner values, every small b (0..70) and 2^k ± 1,
 * then seeded random values. Immediate operands keep their folded value.
 */
import type { Form } from "../ir/forms.js";
import type { RoutineSpec, SourceName } from "../ir/ir.js";
import { Rng } from "./random.js";

/** One scalar test case (u32 values), with the guard and prior d of guarded routines. */
export interface ScalarCase {
  a: bigint;
  b: bigint;
  c: bigint;
  g?: boolean;
  dPrior?: bigint;
}

export const CORNERS: readonly bigint[] = [0n, 1n, 31n, 32n, 33n, 0x7fn, 0x80n, 0xffn, 0x7fffffffn, 0x80000000n, 0xffffffffn, 0x12345678n, 0x87654321n];

/** b values every scalar form is checked on: 0..70, 2^k ± 1, and huge ones. */
export function bValues(): bigint[] {
  const out = new Set<bigint>();
  for (let i = 0n; i <= 70n; i++) out.add(i);
  for (let k = 0n; k < 32n; k++) {
    const p = 1n << k;
    out.add(p);
    out.add((p + 1n) & 0xffffffffn);
    out.add((p - 1n) & 0xffffffffn);
  }
  for (const x of [0x100n, 0x108n, 0xffffn, 0x10000n, 0x7fffffffn, 0x80000000n, 0xffffffe0n, 0xffffffffn]) out.add(x);
  return [...out];
}

/**
 * Inputs for one routine: fixed immediates, then `extra` (the family's: the ISA's examples, form-specific corners),
 * corners × small b (unless `generic` is false), and `random` seeded random cases. Guarded
 * routines alternate the guard and carry a prior d.
 */
export function scalarCases(spec: RoutineSpec, sources: readonly SourceName[], seed: number, random: number, extra: ScalarCase[] = [], generic = true): ScalarCase[] {
  const rng = new Rng(seed);
  const fix = (name: SourceName, x: bigint) => {
    const k = spec.kinds[name];
    return k?.kind === "imm" ? k.value & 0xffffffffn : x;
  };
  const cases: ScalarCase[] = [...extra];
  const bs = bValues();
  if (generic) for (const a of CORNERS) for (const b of bs) cases.push({ a, b, c: CORNERS[Number(b % BigInt(CORNERS.length))]! });
  for (let i = 0; i < random; i++) {
    const r = rng.u32();
    const b = r & 1 ? BigInt(rng.below(72)) : BigInt(rng.u32());
    cases.push({ a: BigInt(rng.u32()), b, c: BigInt(rng.u32()) });
  }
  return dedupe(
    sources,
    cases.map((x, i) => {
      const out: ScalarCase = { a: fix("a", x.a), b: fix("b", x.b), c: fix("c", x.c) };
      if (spec.guarded) {
        out.g = i % 3 !== 1;
        out.dPrior = BigInt(rng.u32());
      }
      return out;
    }),
  );
}

/** Drops repeated cases, comparing only the sources the form reads. */
function dedupe(read: readonly SourceName[], xs: ScalarCase[]): ScalarCase[] {
  const seen = new Set<string>();
  return xs.filter((x) => {
    const key = `${read.includes("a") ? x.a : ""},${read.includes("b") ? x.b : ""},${read.includes("c") ? x.c : ""},${x.g},${x.dPrior}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
