/**
 * src/sem/bv_number.ts against src/sem/bv.ts: every operation of `concreteNumber` gives
 * `concrete`'s value (and raises its width errors) on random and edge values of widths 1–128.
 */
import { describe, expect, it } from "vitest";
import type { CV } from "../src/sem/bv.js";
import { concrete } from "../src/sem/bv.js";
import type { NV } from "../src/sem/bv_number.js";
import { concreteNumber as N, nvValue } from "../src/sem/bv_number.js";

let seed = 0x2545f491;
const rnd = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
};
const randBig = (w: number) => {
  let x = 0n;
  for (let i = 0; i < w; i += 32) x = (x << 32n) | BigInt(rnd());
  return BigInt.asUintN(w, x);
};
/** Values of width w: 0, 1, all ones, the top bit, its neighbours, shift amounts around 32, the 32-bit word boundary, random. */
function values(w: number): bigint[] {
  const top = 1n << BigInt(w - 1);
  const all = (1n << BigInt(w)) - 1n;
  const edge = [0n, 1n, 2n, all, all - 1n, top, top - 1n, top + 1n, BigInt(w), BigInt(w - 1), 5n, 16n, 31n, 32n, 33n, 40n, 0xffffffffn, 0x100000000n, 0x1234567890n].map((x) => BigInt.asUintN(w, x));
  return [...edge, ...Array.from({ length: 12 }, () => randBig(w))];
}
const WIDTHS = [1, 2, 3, 5, 8, 16, 31, 32, 33, 48, 63, 64, 96, 128];
const same = (n: NV | boolean, c: CV | boolean) => (typeof c === "boolean" ? n === c : typeof n !== "boolean" && n.w === c.w && nvValue(n) === c.x && (n.w > 64 || (n.n >= 0 && n.n < 2 ** Math.min(n.w, 32) && n.h >= 0 && n.h < 2 ** Math.max(n.w - 32, 0))));

describe("concreteNumber", () => {
  it("binary operations and compares agree with concrete at every width", () => {
    const ops = ["add", "sub", "mul", "and", "or", "xor", "shl", "lshr", "ashr", "eq", "ult", "ule", "slt", "sle"] as const;
    let n = 0;
    for (const w of WIDTHS)
      for (const x of values(w))
        for (const y of values(w))
          for (const op of ops) {
            const got = (N[op] as (a: NV, b: NV) => NV | boolean)(N.k(x, w), N.k(y, w));
            const want = (concrete[op] as (a: CV, b: CV) => CV | boolean)(concrete.k(x, w), concrete.k(y, w));
            if (!same(got, want)) throw new Error(`${op} w=${w} ${x} ${y}: got ${JSON.stringify(got, (_k, v) => (typeof v === "bigint" ? String(v) : v))}, want ${String(want === true || want === false ? want : want.x)}`);
            n++;
          }
    expect(n).toBeGreaterThan(50_000);
  });

  it("unary, width-changing and bit operations agree with concrete", () => {
    for (const w of WIDTHS)
      for (const x of values(w)) {
        const a = N.k(x, w);
        const c = concrete.k(x, w);
        expect(same(N.not(a), concrete.not(c)), `not ${w} ${x}`).toBe(true);
        expect(same(N.neg(a), concrete.neg(c)), `neg ${w} ${x}`).toBe(true);
        for (const to of WIDTHS.filter((t) => t >= w)) {
          expect(same(N.zext(a, to), concrete.zext(c, to)), `zext ${w}→${to} ${x}`).toBe(true);
          expect(same(N.sext(a, to), concrete.sext(c, to)), `sext ${w}→${to} ${x}`).toBe(true);
        }
        for (let i = 0; i < w + 2; i++) expect(N.bitAt(a, i), `bitAt ${w} ${x} ${i}`).toBe(concrete.bitAt(c, i));
        for (const [hi, lo] of [[w - 1, 0], [w - 1, w - 1], [Math.min(w - 1, 31), 0], [w - 1, Math.floor(w / 2)], [Math.floor(w / 2), Math.floor(w / 3)]] as const)
          expect(same(N.extract(a, hi, lo), concrete.extract(c, hi, lo)), `extract ${w} [${hi}:${lo}] ${x}`).toBe(true);
        for (const w2 of [1, 7, 32, 64].filter((t) => t + w <= 128)) {
          const y = randBig(w2);
          expect(same(N.concat(a, N.k(y, w2)), concrete.concat(c, concrete.k(y, w2))), `concat ${w}+${w2}`).toBe(true);
          expect(same(N.concat(N.k(y, w2), a), concrete.concat(concrete.k(y, w2), c)), `concat ${w2}+${w}`).toBe(true);
        }
        expect(N.asBigint(a)).toBe(concrete.asBigint(c));
      }
  });

  it("constants wrap as concrete's (numbers of any sign, bigints) and widths mismatch as concrete's", () => {
    for (const w of WIDTHS)
      for (const v of [-1, -(2 ** 31), 2 ** 32, 2 ** 33 + 5, 0x7fffffff, -(2 ** 52), 2 ** 53 - 1, -5n, 1n << 100n])
        expect(same(N.k(v, w), concrete.k(v, w)), `k(${v}, ${w})`).toBe(true);
    expect(same(N.fromB(true), concrete.fromB(true))).toBe(true);
    expect(() => N.add(N.k(1, 32), N.k(1, 31))).toThrow("BV width mismatch in add: 32 vs 31");
    expect(() => N.extract(N.k(1, 8), 8, 0)).toThrow("BV extract [8:0] of 8 bits");
    expect(() => N.zext(N.k(1, 8), 4)).toThrow("BV zext 8 → 4");
  });
});
