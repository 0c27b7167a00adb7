/**
 * The warp-level reference semantics (src/sem/warp.ts) against statements made elsewhere —
 * the CUDA Programming Guide's width semantics of `__shfl*_sync` with the header's `c`
 * packing, the PTX ISA's own examples and sentences, ../shared/notes/warp-semantics.md's
 * decisions — concretely, and symbolically (z3) for the ISA's identities, so that the same
 * code is shown to run on both interpretations. Expected values come from those texts, written
 * out here, never from the code under test.
 */
import { describe, expect, it } from "vitest";
import { concrete, type CV } from "../src/sem/bv.js";
import { warpLevel, type WarpLanes } from "../src/sem/warp.js";
import { type ShflMode, type WarpForm, warpFormName, warpForms } from "../src/ir/warp_forms.js";
import { randomWarpCases, toWarpLanes } from "../src/check/warp_cases.js";
import { loadZ3, solve } from "../src/check/smt.js";

const L = 32;
const all = <T>(x: T): T[] => new Array<T>(L).fill(x);
const u32 = (x: bigint | number) => concrete.k(BigInt(x), 32);

/** A full warp, every lane executing, membermask all ones unless given. */
function warp(a: bigint[], opts: Partial<{ b: bigint[]; c: bigint[]; membermask: bigint[] | null; active: boolean[]; executes: boolean[]; aWidth: number }> = {}): WarpLanes<CV, boolean> {
  const active = opts.active ?? all(true);
  return {
    a: a.map((x) => concrete.k(x, opts.aWidth ?? 32)),
    b: (opts.b ?? []).map(u32),
    c: (opts.c ?? []).map(u32),
    membermask: opts.membermask === null ? null : (opts.membermask ?? all(0xffffffffn)).map(u32),
    active,
    executes: opts.executes ?? active,
  };
}

const shfl = (mode: ShflMode, sync = true): WarpForm => ({ op: "shfl", sync, mode, type: "b32", dest: "d|p" });
const A = Array.from({ length: L }, (_, l) => BigInt(l * 7 + 3));

describe("shfl.sync against the CUDA Programming Guide (width semantics, sm_30_intrinsics.hpp's c)", () => {
  // c = ((warpSize - width) << 8) | 0x1f, and (warpSize - width) << 8 for __shfl_up_sync.
  const cOf = (w: number, up: boolean) => (BigInt(32 - w) << 8n) | (up ? 0n : 0x1fn);
  // Guide §10.22: each width-wide subsection is its own entity; idx reads srcLane modulo
  // width; up leaves the lower delta lanes, down the upper delta lanes unchanged; xor may read
  // earlier groups but returns the own value for a later group.
  const guide: Record<ShflMode, (lane: number, b: number, w: number) => number> = {
    idx: (lane, b, w) => (lane & ~(w - 1)) + (((b % w) + w) % w),
    up: (lane, b, w) => (lane % w >= b ? lane - b : lane),
    down: (lane, b, w) => (lane % w) + b < w ? lane + b : lane,
    bfly: (lane, b, w) => ((lane ^ b) < (lane & ~(w - 1)) + w ? lane ^ b : lane),
  };
  for (const mode of ["idx", "up", "down", "bfly"] as const) {
    it(`${mode}: every width 1–32 (powers of two), lane and ${mode === "idx" ? "srcLane −40…99" : "delta/laneMask 0…31"}`, () => {
      const bad: string[] = [];
      for (const w of [1, 2, 4, 8, 16, 32]) {
        const bs = mode === "idx" ? Array.from({ length: 140 }, (_, i) => i - 40) : Array.from({ length: 32 }, (_, i) => i);
        for (const b of bs) {
          const r = warpLevel(concrete, shfl(mode), warp(A, { b: all(BigInt(b) & 0xffffffffn), c: all(cOf(w, mode === "up")) }));
          for (let lane = 0; lane < L; lane++) {
            const want = A[guide[mode](lane, b, w)]!;
            if (!r.dDefined[lane] || r.d[lane]!.x !== want) bad.push(`w=${w} b=${b} lane ${lane}: ${r.dDefined[lane] ? r.d[lane]!.x : "undefined"}, guide ${want}`);
          }
        }
      }
      expect(bad.slice(0, 10)).toEqual([]);
    });
  }

  it("bfly with width 16 reads an earlier segment: lane 16, laneMask 16 reads lane 0 (the note's consequence)", () => {
    const r = warpLevel(concrete, shfl("bfly"), warp(A, { b: all(16n), c: all(cOf(16, false)) }));
    expect(r.d[16]!.x).toBe(A[0]);
    expect(r.p[16]).toBe(true);
    expect(r.d[0]!.x).toBe(A[0]); // lane 0 would read lane 16, a later segment: its own value
    expect(r.p[0]).toBe(false);
  });
});

describe("shfl against the PTX ISA's examples and sentences", () => {
  const x = Array.from({ length: L }, (_, l) => BigInt(l + 1));
  /** Runs the ISA's scan / reduction step `Ry|p = shfl(Rx, b, c); @p Rx += Ry` (or unconditional). */
  function steps(mode: ShflMode, c: bigint, sync: boolean, predicated: boolean): bigint[] {
    let v = x.slice();
    for (const b of [1n, 2n, 4n, 8n, 16n]) {
      const r = warpLevel(concrete, shfl(mode, sync), warp(v, { b: all(b), c: all(c), membermask: sync ? all(0xffffffffn) : null }));
      v = v.map((rx, l) => (!predicated || r.p[l] ? (rx + r.d[l]!.x) & 0xffffffffn : rx));
    }
    return v;
  }
  const prefix = x.map((_, l) => x.slice(0, l + 1).reduce((s, y) => s + y, 0n));
  const suffix = x.map((_, l) => x.slice(l).reduce((s, y) => s + y, 0n));
  const total = x.reduce((s, y) => s + y, 0n);
  for (const sync of [true, false]) {
    it(`${sync ? "shfl.sync" : "shfl"}: the inclusive plus scan (up, c = 0), reverse scan (down, c = 0x1f) and butterfly reduction`, () => {
      expect(steps("up", 0n, sync, true)).toEqual(prefix);
      expect(steps("down", 0x1fn, sync, true)).toEqual(suffix);
      // Butterfly: laneMask 16, 8, 4, 2, 1 — every lane ends with the sum.
      let v = x.slice();
      for (const b of [16n, 8n, 4n, 2n, 1n]) {
        const r = warpLevel(concrete, shfl("bfly", sync), warp(v, { b: all(b), c: all(0x1fn), membermask: sync ? all(0xffffffffn) : null }));
        v = v.map((rx, l) => (rx + r.d[l]!.x) & 0xffffffffn);
      }
      expect(v).toEqual(all(total));
    });
  }

  it("an out-of-range b may still give a valid j: data moves and p is true (b[4:0] counts)", () => {
    // idx with b = 33: bval = 1, lane 1 for everyone.
    const r = warpLevel(concrete, shfl("idx"), warp(A, { b: all(33n), c: all(0x1fn) }));
    expect(r.d.map((d) => d.x)).toEqual(all(A[1]));
    expect(r.p).toEqual(all(true));
  });

  it("sourcing a lane outside membermask or exited: d undefined, p defined (D3); out of range: own a, p false (D4)", () => {
    const active = all(true);
    active[3] = false; // lane 3 has exited
    // Two consistent groups: lane 0 alone (mask 1), lanes 1–31 (mask 0xfffffffe).
    const mm = all(0xfffffffen);
    mm[0] = 1n;
    const b = all(1n);
    const r = warpLevel(concrete, shfl("down"), warp(A, { b, c: all(0x1fn), membermask: mm, active }));
    // lane 2 reads lane 3 (exited): d undefined, p true and defined.
    expect([r.dDefined[2], r.pDefined[2], r.p[2]]).toEqual([false, true, true]);
    // lane 0 reads lane 1, outside lane 0's membermask (1): d undefined, p defined true.
    expect([r.dDefined[0], r.pDefined[0], r.p[0]]).toEqual([false, true, true]);
    // lane 31: j = 32 > maxLane 31: own a, p false.
    expect([r.dDefined[31], r.d[31]!.x, r.p[31]]).toEqual([true, A[31], false]);
    // lane 5 reads lane 6: defined.
    expect([r.dDefined[5], r.d[5]!.x]).toEqual([true, A[6]]);
  });

  it("an executing lane outside its own membermask, or naming a guarded-off lane: nothing defined", () => {
    const executes = all(true);
    executes[7] = false; // guarded off, not exited
    const mm = all(0xffffffffn);
    mm[9] = 0xfffffdffn; // lane 9 is not in its own mask (and uses another value than the others)
    const r = warpLevel(concrete, shfl("idx"), warp(A, { b: all(0n), c: all(0x1fn), membermask: mm, executes }));
    expect([r.dDefined[9], r.pDefined[9]]).toEqual([false, false]);
    // Everyone else names lane 7 (guarded off) and lane 9 (another mask): undefined too (W2, W3).
    expect(r.dDefined[0]).toBe(false);
  });
});

describe("vote, redux, activemask against the ISA's sentences", () => {
  const voteF = (mode: "all" | "any" | "uni" | "ballot", negA = false, sync = true): WarpForm =>
    mode === "ballot" ? { op: "vote", sync, mode, type: "b32", negA } : { op: "vote", sync, mode, type: "pred", negA };
  const preds = (f: (l: number) => boolean) => Array.from({ length: L }, (_, l) => (f(l) ? 1n : 0n));

  it("ballot: a thread not in membermask, or exited, contributes 0 (D8)", () => {
    const active = all(true);
    active[4] = false;
    const r = warpLevel(concrete, voteF("ballot"), warp(preds(() => true), { aWidth: 1, membermask: all(0x0000ffffn).map((m, l) => (l < 16 ? m : 0xffff0000n)), active }));
    expect(r.d[0]!.x).toBe(0x0000ffefn);
    expect(r.d[20]!.x).toBe(0xffff0000n);
  });

  it("all/any/uni over the non-exited members; exited lanes never matter (D9, A7)", () => {
    const active = all(true);
    active[31] = false;
    const a = preds((l) => l !== 31); // only the exited lane is false
    for (const [mode, want] of [["all", 1n], ["any", 1n], ["uni", 1n]] as const) {
      expect(warpLevel(concrete, voteF(mode), warp(a, { aWidth: 1, active })).d[0]!.x, mode).toBe(want);
    }
    const b = preds((l) => l === 5);
    expect(warpLevel(concrete, voteF("uni"), warp(b, { aWidth: 1 })).d[0]!.x).toBe(0n);
    expect(warpLevel(concrete, voteF("all", true), warp(b, { aWidth: 1 })).d[0]!.x).toBe(0n); // .none
    expect(warpLevel(concrete, voteF("any", true), warp(b, { aWidth: 1 })).d[0]!.x).toBe(1n); // .not_all
  });

  it("the deprecated vote reduces over the lanes that execute (an inactive thread contributes 0)", () => {
    const executes = all(true);
    executes[2] = false;
    const r = warpLevel(concrete, voteF("ballot", false, false), warp(preds(() => true), { aWidth: 1, membermask: null, executes }));
    expect(r.d[0]!.x).toBe(0xfffffffbn);
    expect(r.dDefined[2]).toBe(false);
  });

  const reduxF = (reduxOp: string, type: string, abs = false, NaN = false) =>
    (type === "f32" ? { op: "redux", reduxOp, type, abs, NaN } : { op: "redux", reduxOp, type }) as WarpForm;
  const twoLanes = (x: bigint, y: bigint) => {
    const a = all(0n);
    a[0] = x;
    a[1] = y;
    return warp(a, { membermask: all(3n).map((m, l) => (l < 2 ? m : 0xfffffffcn)) });
  };

  it("integer redux: .add truncated to 32 bits, .min/.max signed for .s32 and unsigned for .u32, .and/.or/.xor bitwise (A10)", () => {
    const d = (op: string, type: string, x: bigint, y: bigint) => warpLevel(concrete, reduxF(op, type), twoLanes(x, y)).d[0]!.x;
    expect(d("add", "u32", 0xffffffffn, 2n)).toBe(1n);
    expect(d("add", "s32", 0x80000000n, 0x80000000n)).toBe(0n);
    expect(d("min", "s32", 0x80000000n, 1n)).toBe(0x80000000n);
    expect(d("min", "u32", 0x80000000n, 1n)).toBe(1n);
    expect(d("max", "s32", 0xffffffffn, 0n)).toBe(0n);
    expect(d("max", "u32", 0xffffffffn, 0n)).toBe(0xffffffffn);
    expect(d("and", "b32", 2n, 1n)).toBe(0n); // logical && would give 1
    expect(d("or", "b32", 2n, 1n)).toBe(3n);
    expect(d("xor", "b32", 2n, 3n)).toBe(1n); // logical != of (!!2, !!3) would give 0
  });

  it("a reduction over one member is that member's value, for every operation and value (no identity leaks in)", () => {
    const bad: string[] = [];
    const values = [0n, 1n, 0x7fffffffn, 0x80000000n, 0xffffffffn, 0x12345678n];
    for (const [op, type] of [["add", "u32"], ["add", "s32"], ["min", "u32"], ["min", "s32"], ["max", "u32"], ["max", "s32"], ["and", "b32"], ["or", "b32"], ["xor", "b32"]] as const) {
      for (const x of values) {
        // Every lane alone in its membermask.
        const r = warpLevel(concrete, reduxF(op, type), warp(all(x), { membermask: Array.from({ length: L }, (_, l) => 1n << BigInt(l)) }));
        if (r.d.some((d, l) => !r.dDefined[l] || d.x !== x)) bad.push(`${op}.${type} of ${x}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it(".f32: +0.0 > −0.0, .abs reduces |x|, NaNs skipped unless .NaN, all NaN gives the canonical NaN", () => {
    const d = (op: string, x: bigint, y: bigint, abs = false, NaN = false) => warpLevel(concrete, reduxF(op, "f32", abs, NaN), twoLanes(x, y)).d[0]!.x;
    const NEG0 = 0x80000000n, POS0 = 0n, ONE = 0x3f800000n, M3 = 0xc0400000n, TWO = 0x40000000n, QNAN = 0x7fc00000n, SNAN_NEG = 0xffc00001n;
    expect(d("min", NEG0, POS0)).toBe(NEG0);
    expect(d("max", NEG0, POS0)).toBe(POS0);
    expect(d("min", M3, TWO)).toBe(M3);
    expect(d("min", M3, TWO, true)).toBe(TWO);
    expect(d("max", M3, TWO, true)).toBe(0x40400000n); // |−3| = 3
    expect(d("min", QNAN, ONE)).toBe(ONE);
    expect(d("min", QNAN, ONE, false, true)).toBe(0x7fffffffn);
    expect(d("max", QNAN, SNAN_NEG)).toBe(0x7fffffffn);
  });

  it("activemask: the lanes that execute (predicated-on, not exited), in each of them (D11)", () => {
    const active = all(true);
    active[0] = false;
    const executes = active.map((x, l) => x && l !== 1);
    const r = warpLevel(concrete, { op: "activemask", type: "b32" }, warp(all(0n), { membermask: null, active, executes }));
    expect(r.d[5]!.x).toBe(0xfffffffcn);
    expect([r.dDefined[0], r.dDefined[1], r.dDefined[2]]).toEqual([false, false, true]);
  });
});

describe("the same semantics, symbolically (z3)", () => {
  it("proves the ISA's identities over every predicate, active mask and membermask: .uni of !a = .uni of a; .all of !a = not .any of a; .any of !a = not .all of a", async () => {
    const env = await loadZ3();
    const Z = env.bv;
    const w = {
      a: Array.from({ length: L }, (_, l) => Z.sym(`a${l}`, 1)),
      b: [],
      c: [],
      membermask: Array.from({ length: L }, (_, l) => Z.sym(`m${l}`, 32)),
      active: Array.from({ length: L }, (_, l) => Z.symB(`act${l}`)),
      executes: [] as ReturnType<typeof Z.symB>[],
    };
    w.executes = w.active.map((x, l) => Z.andB(x, Z.symB(`g${l}`)));
    const run = (mode: "all" | "any" | "uni", negA: boolean) => warpLevel(Z, { op: "vote", sync: true, mode, type: "pred", negA }, w);
    const bads = [];
    for (const lane of [0, 13, 31]) {
      const [uni, uniN, allN, any, anyN, allP] = [run("uni", false), run("uni", true), run("all", true), run("any", false), run("any", true), run("all", false)];
      const def = uni.dDefined[lane]!;
      bads.push(Z.andB(def, Z.notB(Z.eq(uni.d[lane]!, uniN.d[lane]!))));
      bads.push(Z.andB(def, Z.notB(Z.eq(allN.d[lane]!, Z.not(any.d[lane]!)))));
      bads.push(Z.andB(def, Z.notB(Z.eq(anyN.d[lane]!, Z.not(allP.d[lane]!)))));
    }
    const r = await solve(env, [Z.any(bads)], 60_000);
    expect(r.status).toBe("unsat");
  }, 120_000);

  // One test per op (each form's case and seed as when they were one test: form i of
  // warpForms(), seed 1000 + i + 1): together ~600 s on a 2-core machine, past one test's limit.
  const forms = [...warpForms()];
  for (const op of [...new Set(forms.map((f) => f.op))])
  it(`runs every ${op} form on z3 terms (inputs, lane states, masks all symbolic) and agrees with the concrete run`, async () => {
    const env = await loadZ3();
    const Z = env.bv;
    const failures: string[] = [];
    for (const [i, f] of forms.entries()) {
      if (f.op !== op) continue;
      const tag = `f${i}`;
      for (const c of randomWarpCases(f, {}, 1000 + i + 1, 1, true)) {
        const w = toWarpLanes(f, c);
        const want = warpLevel(concrete, f, w);
        const binds: ReturnType<typeof Z.symB>[] = [];
        const symV = (name: string, x: CV) => {
          const v = Z.sym(`${tag}_${name}`, x.w);
          binds.push(Z.eq(v, Z.k(x.x, x.w)));
          return v;
        };
        const symB = (name: string, x: boolean) => {
          const v = Z.symB(`${tag}_${name}`);
          binds.push(Z.eqB(v, x ? Z.true : Z.false));
          return v;
        };
        const zw = {
          a: w.a.map((x, l) => symV(`a${l}`, x)),
          b: w.b.map((x, l) => symV(`b${l}`, x)),
          c: w.c.map((x, l) => symV(`c${l}`, x)),
          membermask: w.membermask ? w.membermask.map((x, l) => symV(`m${l}`, x)) : null,
          active: w.active.map((x, l) => symB(`act${l}`, x)),
          executes: w.executes.map((x, l) => symB(`ex${l}`, x)),
        };
        const got = warpLevel(Z, f, zw);
        const bads = [];
        const B = (x: boolean) => (x ? Z.true : Z.false);
        for (let l = 0; l < L; l++) {
          bads.push(Z.notB(Z.eqB(got.dDefined[l]!, B(want.dDefined[l]!))), Z.notB(Z.eqB(got.pDefined[l]!, B(want.pDefined[l]!))));
          if (want.dDefined[l]) bads.push(Z.notB(Z.eq(got.d[l]!, Z.k(want.d[l]!.x, want.d[l]!.w))));
          if (want.pDefined[l]) bads.push(Z.notB(Z.eqB(got.p[l]!, B(want.p[l]!))));
        }
        const r = await solve(env, [...binds, Z.any(bads)], 60_000);
        if (r.status !== "unsat") failures.push(`${warpFormName(f)} (${c.label}): ${r.status}`);
      }
      env.bv.release();
    }
    expect(failures).toEqual([]);
  }, 900_000);

  it("proves shfl.sync.idx with c = 0x1f on a full warp reads a[b[4:0]] for every b and a, with p true", async () => {
    const env = await loadZ3();
    const Z = env.bv;
    const b = Z.sym("b", 32);
    const w = {
      a: Array.from({ length: L }, (_, l) => Z.sym(`a${l}`, 32)),
      b: all(b),
      c: all(Z.k(0x1f, 32)),
      membermask: all(Z.k(0xffffffff, 32)),
      active: all(Z.true),
      executes: all(Z.true),
    };
    const r = warpLevel(Z, shfl("idx"), w);
    const bads = [];
    for (const lane of [0, 17]) {
      let want = w.a[0]!;
      for (let k = 1; k < L; k++) want = Z.ite(Z.eq(Z.and(b, Z.k(31, 32)), Z.k(k, 32)), w.a[k]!, want);
      bads.push(Z.notB(Z.andB(Z.andB(r.dDefined[lane]!, r.p[lane]!), Z.eq(r.d[lane]!, want))));
    }
    expect((await solve(env, [Z.any(bads)], 60_000)).status).toBe("unsat");
  }, 120_000);
});
