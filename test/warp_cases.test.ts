/**
 * The random warps of the warp-level family (src/check/warp_cases.ts), the inputs phase 2's
 * checker runs every lowering on: reproducible, the operand kinds kept, and covering what
 * issue 15 asks for — per-lane b/c, segment widths 1–32, holes in the mask, exited sources,
 * divergent membermasks in consistent groups (whose results are then defined).
 */
import { describe, expect, it } from "vitest";
import { randomWarpCases, warpReference } from "../src/check/warp_cases.js";
import { warpForms, warpFormName, type WarpForm } from "../src/ir/warp_forms.js";
import { concrete } from "../src/sem/bv.js";
import { warpLevel } from "../src/sem/warp.js";
import { toWarpLanes } from "../src/check/warp_cases.js";

const V = { kind: "v" } as const;
const S = { kind: "s" } as const;
const shflIdx: WarpForm = { op: "shfl", sync: true, mode: "idx", type: "b32", dest: "d|p" };
const lanesOf = (m: number) => Array.from({ length: 32 }, (_, l) => l).filter((l) => (m >>> l) & 1);

describe("randomWarpCases", () => {
  it("is reproducible from its seed and differs between seeds", () => {
    const a = randomWarpCases(shflIdx, {}, 7, 50, true);
    expect(randomWarpCases(shflIdx, {}, 7, 50, true)).toEqual(a);
    expect(randomWarpCases(shflIdx, {}, 8, 50, true)).not.toEqual(a);
  });

  it("runs for every form, and the reference gives a result for it", () => {
    for (const f of warpForms()) {
      for (const c of randomWarpCases(f, {}, 1, 20, true)) {
        const r = warpReference(f, c);
        expect(r.d.length, warpFormName(f)).toBe(32);
        // Lanes that have exited have no result.
        for (let l = 0; l < 32; l++) if (!((c.active >>> l) & 1)) expect(r.d[l]).toBeNull();
      }
    }
  });

  it("keeps immediates and uniform operands (one value in every lane), and vote predicates 0/1", () => {
    for (const c of randomWarpCases(shflIdx, { a: S, b: { kind: "imm", value: 0x1_0000_0003n }, c: { kind: "imm", value: 0x1fn }, membermask: S }, 3, 200)) {
      expect(new Set(c.a).size).toBe(1);
      expect(c.b).toEqual(new Array(32).fill(3n)); // truncated to 32 bits, as ptxas does
      expect(c.c).toEqual(new Array(32).fill(0x1fn));
      expect(new Set(c.membermask).size).toBe(1);
    }
    const vote: WarpForm = { op: "vote", sync: true, mode: "all", type: "pred", negA: false };
    for (const c of randomWarpCases(vote, {}, 4, 200, true)) {
      expect(c.a.every((x) => x === 0n || x === 1n)).toBe(true);
      expect(c.dPrior.every((x) => x === 0n || x === 1n)).toBe(true);
    }
  });

  it("draws per-lane b and c, every segment width 1–32, stray c bits, b ≥ 32 and negative b", () => {
    const cases = randomWarpCases(shflIdx, { b: V, c: V }, 11, 3000);
    const widths = new Set(cases.flatMap((c) => c.c.map((x) => 32 - Number((x >> 8n) & 31n))));
    for (let w = 1; w <= 32; w++) expect(widths.has(w), `width ${w}`).toBe(true);
    expect(cases.some((c) => new Set(c.b).size > 8)).toBe(true);
    expect(cases.some((c) => new Set(c.c).size > 8)).toBe(true);
    expect(cases.some((c) => c.c.some((x) => (x & 0xe0n) !== 0n || x >> 13n !== 0n))).toBe(true);
    expect(cases.some((c) => c.b.some((x) => x >= 32n && x < 64n))).toBe(true);
    expect(cases.some((c) => c.b.some((x) => x >= 0xffffffd0n))).toBe(true);
  });

  it("makes exited sources (d undefined, p defined), holes in masks, and defined results for consistent groups", () => {
    const cases = randomWarpCases(shflIdx, { b: V, c: V, membermask: V }, 5, 3000);
    let exitedSource = 0;
    let holes = 0;
    let groups = 0;
    for (const c of cases) {
      const r = warpReference(shflIdx, c);
      if (r.d.some((d, l) => d === null && r.p[l] !== null)) exitedSource++;
      const mm = c.membermask!;
      if (lanesOf(c.active).some((l) => lanesOf(Number(mm[l])).length > 0 && !((Number(mm[l]) >>> l) & 1))) holes++;
      // Consistent groups without holes, unguarded: every executing lane's p is defined.
      if (/mm=groups\([^)]*\)/.test(c.label) && !c.label.includes("holes")) {
        groups++;
        for (const l of lanesOf(c.active)) expect(r.p[l], `${c.label} lane ${l}`).not.toBeNull();
      }
    }
    expect(exitedSource).toBeGreaterThan(50);
    expect(holes).toBeGreaterThan(50);
    expect(groups).toBeGreaterThan(300);
  });

  it("gives vote and redux members that have exited (results defined and not counting them)", () => {
    const redux: WarpForm = { op: "redux", reduxOp: "add", type: "u32" };
    let seen = 0;
    for (const c of randomWarpCases(redux, { membermask: S }, 9, 500)) {
      const w = toWarpLanes(redux, c);
      const r = warpLevel(concrete, redux, w);
      const mm = Number(c.membermask![0]!);
      const named = lanesOf(mm);
      if (!named.some((l) => !w.active[l]) || !named.some((l) => w.active[l])) continue;
      const lane = named.find((l) => w.active[l])!;
      if (!r.dDefined[lane]) continue;
      seen++;
      const sum = named.filter((l) => w.active[l]).reduce((s, l) => s + c.a[l]!, 0n) & 0xffffffffn;
      expect(r.d[lane]!.x).toBe(sum);
    }
    expect(seen).toBeGreaterThan(20);
  });
});

describe("randomWarpCases: a census of the features issue 15 lists (a regression that stops generating one fails)", () => {
  /** Whether the set bits of a u32 form one run (no hole). */
  const contiguous = (m: number) => (((m + ((m & -m) >>> 0)) & m) === 0);
  const cases = randomWarpCases(shflIdx, { b: V, c: V, membermask: V }, 21, 2000, true);
  const census = new Map<string, number>();
  const count = (k: string) => census.set(k, (census.get(k) ?? 0) + 1);
  for (const c of cases) {
    const act = lanesOf(c.active);
    const r = warpReference(shflIdx, c);
    if (new Set(c.b).size > 1) count("per-lane b");
    if (new Set(c.c).size > 1) count("per-lane c");
    for (const x of new Set(c.c)) count(`width ${32 - Number((x >> 8n) & 31n)}`);
    if (c.b.some((x) => x >= 32n && x < 64n)) count("b in 32..63");
    if (c.b.some((x) => x >= 0x80000000n)) count("negative b");
    if (c.c.some((x) => (x & 0xe0n) !== 0n)) count("c bits 5-7");
    if (c.c.some((x) => x >> 13n !== 0n)) count("c bits 13-31");
    if (c.active !== 0xffffffff) count("exited lanes");
    const mm = c.membermask!.map(Number);
    if (act.some((l) => !contiguous(mm[l]! >>> 0))) count("holes in a membermask");
    if (act.some((l) => mm[l]! !== 0 && (mm[l]! & ~c.active) !== 0)) count("a membermask naming exited lanes");
    const values = new Set(act.map((l) => mm[l]!));
    if (values.size > 1) {
      // Divergent masks: consistent when every executing lane's named, active lanes share its mask.
      const consistent = act.every((l) => lanesOf(mm[l]! & c.active).every((j) => mm[j] === mm[l]));
      count(consistent ? "divergent masks, consistent groups" : "divergent masks, inconsistent");
      if (!consistent && act.some((l) => r.p[l] === null && (!c.guard || c.guard[l]))) count("inconsistent: undefined results");
    }
    // An exited source: d undefined, p defined (executing lane).
    if (act.some((l) => r.d[l] === null && r.p[l] !== null && (!c.guard || c.guard[l]))) count("exited or non-member source");
    if (c.guard && c.guard.some((g, l) => !g && ((c.active >>> l) & 1))) count("guarded-off lanes");
  }
  const want: Record<string, number> = {
    "per-lane b": 500,
    "per-lane c": 500,
    "b in 32..63": 200,
    "negative b": 200,
    "c bits 5-7": 200,
    "c bits 13-31": 200,
    "exited lanes": 800,
    "holes in a membermask": 300,
    "a membermask naming exited lanes": 300,
    "divergent masks, consistent groups": 200,
    "divergent masks, inconsistent": 50,
    "inconsistent: undefined results": 50,
    "exited or non-member source": 200,
    "guarded-off lanes": 500,
  };
  for (let w = 1; w <= 32; w++) want[`width ${w}`] = 5;
  it.each(Object.entries(want))("%s: at least %i of 2,000 warps", (k, n) => {
    expect(census.get(k) ?? 0, `${k}: ${census.get(k) ?? 0}`).toBeGreaterThanOrEqual(n);
  });

  it("vote and redux: divergent membermasks in consistent groups and members that have exited, per form", () => {
    for (const f of [{ op: "vote", sync: true, mode: "ballot", type: "b32", negA: false }, { op: "redux", reduxOp: "min", type: "s32" }] as WarpForm[]) {
      let groups = 0;
      let exited = 0;
      for (const c of randomWarpCases(f, { membermask: V }, 22, 1000)) {
        const act = lanesOf(c.active);
        const mm = c.membermask!.map(Number);
        if (new Set(act.map((l) => mm[l])).size > 1 && act.every((l) => lanesOf(mm[l]! & c.active).every((j) => mm[j] === mm[l]))) groups++;
        if (act.some((l) => (mm[l]! & ~c.active) !== 0 && (mm[l]! >>> l) & 1)) exited++;
      }
      expect(groups, warpFormName(f)).toBeGreaterThan(100);
      expect(exited, warpFormName(f)).toBeGreaterThan(100);
    }
  });
});

describe("warpVerifyKinds / warpMainKind", () => {
  it("give every form kinds for each of its sources, main kinds among them, and guarded ones", async () => {
    const { warpVerifyKinds, warpMainKind, warpSources } = await import("../src/ir/warp_forms.js");
    for (const f of warpForms()) {
      const ks = warpVerifyKinds(f, true);
      const name = warpFormName(f);
      for (const k of ks) expect(Object.keys(k.kinds).sort(), name).toEqual([...warpSources(f)].sort());
      expect(ks.some((k) => k.guarded), name).toBe(true);
      if (f.op !== "activemask" && f.op !== "bar.warp") expect(ks.some(warpMainKind), name).toBe(true);
      // The cases generator takes every one of them.
      for (const k of ks.slice(0, 3)) expect(randomWarpCases(f, k.kinds, 1, 3, k.guarded).length).toBe(3);
    }
  });
});

describe("verify --all for the warp family, the CI sample (scripts/verify-all-warp.ts at scale)", () => {
  it("one seeded routine of each form's main kinds × amdgpu (all five), js and c: 0 refuted, every row tested", async () => {
    const { warpAllSpecs, runWarpAllChunk } = await import("../src/check/warp_verify_all.js");
    const { Rng } = await import("../src/check/random.js");
    const specs = warpAllSpecs();
    // Every form has routines; activemask and bar.warp.sync have no main kind (no `a`).
    expect(new Set(specs.map((s) => warpFormName(s.form as WarpForm))).size).toBe([...warpForms()].length);
    const rng = new Rng(15);
    const byForm = new Map<string, typeof specs>();
    for (const s of specs) byForm.set(warpFormName(s.form as WarpForm), [...(byForm.get(warpFormName(s.form as WarpForm)) ?? []), s]);
    const sample = [...byForm.values()].map((xs) => rng.pick(xs));
    const targets = [...["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100"].map((mcpu) => ({ kind: "amdgpu" as const, mcpu: mcpu as "gfx900" })), { kind: "js" as const }, { kind: "c" as const }];
    const rows = await runWarpAllChunk({ specs: sample, targets, seed: 15, warps: 64 });
    const refuted = rows.filter((r) => r.status === "refuted");
    expect(refuted.map((r) => `${r.routine} [${r.target}] ${r.rule}\n${r.counterexample}`)).toEqual([]);
    // redux .f32 (sm_100a) has no AMDGPU lowering yet: its AMDGPU rows are unknown with the reason; every other row is tested on every warp.
    for (const r of rows) {
      if (r.status === "unknown") expect(`${r.form} ${r.target} ${r.why}`).toMatch(/^redux\.sync\.\S*f32 amdgpu \S+ .*no AMDGPU lowering/);
      else expect(r, `${r.routine} ${r.target}`).toMatchObject({ status: "tested", n: 64 });
    }
    for (const t of ["amdgpu gfx900", "amdgpu gfx1100", "js", "c"]) expect(new Set(rows.filter((r) => r.target === t).map((r) => r.form)).size, t).toBe(byForm.size);
  });
});
