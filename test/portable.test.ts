/**
 * Differential checks of the portable lowerings (targets/portable → PIR, JS, C) against the
 * reference semantics (src/sem): for every rule that matches each checked RoutineSpec
 * (shadowed rules included), (a) evalPir over `concrete`, with poison tracked, (b) the printed
 * JS module, (c) the printed C module built with UBSan; all on corner and seeded random values.
 * These are tests (verdict `tested(n)`), not proofs.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Form, MatchForm, Profile, SzextForm, VshForm } from "../src/ir/forms.js";
import { formId, matchForms, PROFILES, szextForms, vshForms } from "../src/ir/forms.js";
import type { OperandKind, RoutineSpec, SourceName } from "../src/ir/ir.js";
import { routineName, sourcesOf } from "../src/ir/ir.js";
import { concrete, u } from "../src/sem/bv.js";
import { szext } from "../src/sem/szext.js";
import { vsh } from "../src/sem/vsh.js";
import { matchSync } from "../src/sem/match_sync.js";
import type { PirFunction, PirOut, PirValue } from "../targets/portable/pir.js";
import type { PExpr } from "../targets/portable/pir.js";
import { bool, evalPir, evalPirConcrete, nodesOf, shiftSafety, stmtRoots, u32 } from "../targets/portable/pir.js";
import { scalarRoutine, stage } from "../targets/portable/stage.js";
import type { PortableRule } from "../targets/portable/rules/index.js";
import { portableRulesFor, selectPortableRule } from "../targets/portable/rules/index.js";
import { portableHeader } from "../targets/portable/module.js";
import { Rng } from "../src/check/random.js";
import { printJsModule } from "../targets/js/print.js";
import { callJs, loadJsModule } from "../targets/js/run.js";
import { printCModule } from "../targets/c/print.js";
import { compileC, haveCc, runCRoutines } from "../targets/c/run.js";

// ---------------------------------------------------------------------------------------
// Inputs (seeded: the same vectors on every run)

const CORNERS = [
  0n,
  1n,
  31n,
  32n,
  33n,
  0x7fn,
  0x80n,
  0xffn,
  0x7fffn,
  0x8000n,
  0x12345678n,
  0x40000000n,
  0x7fffffffn,
  0x80000000n,
  0xffffffffn,
];
const POW2 = Array.from({ length: 31 }, (_, k) => [(1n << BigInt(k + 1)) - 1n, (1n << BigInt(k + 1)) + 1n]).flat();
const B_SMALL = Array.from({ length: 71 }, (_, k) => BigInt(k));
const B_EXTRA = [0x100n, 0x108n, 0x2100n, 0x10000n, 0x7fffffffn, 0x80000000n, 0xffffffffn];

// ---------------------------------------------------------------------------------------
// Cases: a routine, and vectors with the reference's expected results (null: don't care)

type Want = bigint | boolean | null;
interface Vector {
  args: Record<string, PirValue>;
  want: Record<string, Want | Want[]>;
}
interface Case {
  id: string;
  rule: string;
  fn: PirFunction;
  vectors: Vector[];
  header?: string;
}

/** The first few mismatches between `want` and what a target produced. */
function compare(c: Case, v: Vector, got: Record<string, PirValue | PirOut>, who: string, out: string[]) {
  for (const [k, w] of Object.entries(v.want)) {
    const g = got[k];
    const ws = Array.isArray(w) ? w : [w];
    const gs = (Array.isArray(g) ? g : [g]) as (PirValue | PirOut)[];
    ws.forEach((wi, lane) => {
      if (wi === null) return;
      const gi = gs[lane] as bigint | boolean | { value: bigint | boolean; defined: boolean } | undefined;
      const plain = typeof gi === "object" && gi !== null ? gi : { value: gi, defined: true };
      if (!plain.defined || plain.value !== wi) {
        const show = (x: unknown) => (typeof x === "bigint" ? `0x${x.toString(16)}` : String(x));
        const args = Object.entries(v.args)
          .map(([n, x]) => `${n}=${Array.isArray(x) ? `[${x.slice(0, 4).map(show).join(",")},…]` : show(x)}`)
          .join(" ");
        if (out.length < 12)
          out.push(
            `${who} ${c.id} [${c.rule}] ${args}: ${k}${Array.isArray(w) ? `[${lane}]` : ""} = ${plain.defined ? show(plain.value) : "poison"}, want ${show(wi)}`,
          );
      }
    });
  }
}

/** All three targets against the expected values of `cases`. */
function checks(family: string, cases: () => Case[]) {
  let src = "";
  let calls = 0;
  beforeAll(async () => {
    src = await printJsModule(cases().map((c) => ({ name: c.id, fn: c.fn, header: c.header ?? `rule ${c.rule}` })));
    calls = cases().reduce((n, c) => n + c.vectors.length, 0);
  });

  it(`${family}: evalPir (concrete, with poison) equals the reference`, () => {
    const bad: string[] = [];
    for (const c of cases()) for (const v of c.vectors) compare(c, v, evalPirConcrete(c.fn, v.args), "pir", bad);
    expect(bad).toEqual([]);
    expect(calls).toBeGreaterThan(0);
  });

  it(`${family}: the printed JS module imports and equals the reference`, async () => {
    const mod = await loadJsModule(src);
    const bad: string[] = [];
    for (const c of cases()) {
      const f = mod[c.id];
      expect(f, c.id).toBeTypeOf("function");
      for (const v of c.vectors) compare(c, v, callJs(c.fn, f!, v.args), "js", bad);
    }
    expect(bad).toEqual([]);
  });

  const cc = haveCc();
  it.skipIf(!cc.ok)(
    `${family}: the printed C compiles with -std=c99 -Wall -Wextra -pedantic -Wstrict-prototypes -Werror ${cc.reason}`,
    () => {
      const r = compileC(
        printCModule(cases().map((c) => ({ name: c.id, fn: c.fn, header: c.header ?? `rule ${c.rule}` }))),
      );
      expect(r.stderr).toBe("");
      expect(r.ok).toBe(true);
    },
  );

  it.skipIf(!cc.ok)(`${family}: the C routines under UBSan equal the reference ${cc.reason}`, () => {
    const cs = cases();
    const flat = cs.flatMap((c) => c.vectors.map((v) => ({ c, v })));
    const got = runCRoutines(
      cs.map((c) => ({ name: c.id, fn: c.fn })),
      flat.map(({ c, v }) => ({ routine: c.id, args: v.args })),
    );
    const bad: string[] = [];
    flat.forEach(({ c, v }, n) => compare(c, v, got[n]!, "c", bad));
    expect(bad).toEqual([]);
  });
}

/** One case per matching rule of `spec`. */
function casesOf(spec: RoutineSpec, profile: Profile, vectors: (fn: PirFunction) => Vector[], tag = ""): Case[] {
  const rules = portableRulesFor(spec);
  expect(rules.length, routineName(spec, formId)).toBeGreaterThan(0);
  return rules.map((r) => {
    const fn = r.build(spec, profile);
    const id = `${routineName(spec, formId)}__${profile}${tag}__${r.name}`;
    const header = portableHeader(id, spec, fn, r.name, ["test/portable.test.ts"]);
    return {
      id,
      rule: r.name,
      fn,
      vectors: vectors(fn),
      header,
    };
  });
}

const imm = (value: bigint): OperandKind => ({ kind: "imm", value });
/** The value of source `s`: the folded immediate, or the vector's argument. */
const operand = (spec: RoutineSpec, s: SourceName, args: Record<string, PirValue>): bigint => {
  const k = spec.kinds[s];
  return k?.kind === "imm" ? BigInt.asUintN(32, k.value) : ((args[s] as bigint | undefined) ?? 0n);
};

/** Scalar vectors: every grid point of (a, b[, c]) given, plus guard/dPrior when guarded. */
function scalarVectors(
  spec: RoutineSpec,
  fn: PirFunction,
  grid: Record<string, bigint>[],
  ref: (a: bigint, b: bigint, c: bigint) => bigint,
  r: Rng,
): Vector[] {
  const params = new Set(fn.params.map((p) => p.name));
  return grid.map((g) => {
    const args: Record<string, PirValue> = {};
    for (const s of ["a", "b", "c"]) if (params.has(s)) args[s] = g[s] ?? r.bits(32);
    const d = ref(operand(spec, "a", args), operand(spec, "b", args), operand(spec, "c", args));
    if (!spec.guarded) return { args, want: { d } };
    args.g = r.chance(0.5);
    args.dPrior = r.bits(32);
    return { args, want: { d: args.g ? d : (args.dPrior as bigint) } };
  });
}

// ---------------------------------------------------------------------------------------
// szext

describe("szext: every form × operand kinds, every matching rule", () => {
  const r = new Rng(0x5ce7);
  const A = [...CORNERS, ...POW2.filter((_, k) => k % 3 === 0)];
  const grid = (full: boolean) =>
    (full ? A : CORNERS).flatMap((a) => [...B_SMALL, ...B_EXTRA, r.bits(32), r.bits(32)].map((b) => ({ a, b })));
  const fullGrid = grid(true);
  const smallGrid = grid(false);
  const kindSets: [OperandKind, OperandKind, boolean][] = [
    [{ kind: "v" }, { kind: "v" }, false],
    [{ kind: "s" }, { kind: "v" }, false],
    [{ kind: "v" }, { kind: "s" }, false],
    [{ kind: "s" }, { kind: "s" }, false],
    [{ kind: "v" }, { kind: "v" }, true],
    ...[0n, 1n, 7n, 8n, 15n, 16n, 31n, 32n, 33n, 40n, 64n, 0x108n, 0xffffffffn].map(
      (b): [OperandKind, OperandKind, boolean] => [{ kind: "v" }, imm(b), false],
    ),
    [{ kind: "v" }, imm(8n), true],
    [imm(0x80n), { kind: "v" }, false],
    [imm(0x12345678n), { kind: "v" }, false],
    [imm(0xffffffffn), imm(0n), false],
    [imm(0xf0n), imm(5n), false],
  ];
  const cases: Case[] = [];
  for (const form of szextForms())
    for (const [ka, kb, guarded] of kindSets) {
      const spec: RoutineSpec = { form, kinds: { a: ka, b: kb }, guarded };
      const ref = (a: bigint, b: bigint) => szext(concrete, form, u(a), u(b)).value.x;
      const full = ka.kind === "v" && kb.kind === "v" && !guarded;
      cases.push(...casesOf(spec, "isa", (fn) => scalarVectors(spec, fn, full ? fullGrid : smallGrid, ref, r)));
    }

  it("has a rule for every case, and at least 4 forms × 25 kind sets", () => {
    expect(new Set(cases.map((c) => c.fn.name)).size).toBe(4 * kindSets.length);
  });
  checks("szext", () => cases);

  it("the hand-written shifts need no printed guard (the rule's guards prove the counts)", () => {
    for (const c of cases.filter((c) => /shl_sar|and_mask/.test(c.rule) && c.fn.name.endsWith("__v_v"))) {
      const shifts = nodesOf(stmtRoots(c.fn.body)).filter((e) => e.op === "shl" || e.op === "lshr" || e.op === "ashr");
      expect(shifts.length).toBeGreaterThan(0);
      expect(shiftSafety(c.fn).size, c.id).toBe(shifts.length);
    }
  });
});

// ---------------------------------------------------------------------------------------
// Broken rules are caught

describe("a broken rule is caught", () => {
  const form: SzextForm = { op: "szext", mode: "wrap", type: "s32" };
  const spec: RoutineSpec = { form, kinds: {}, guarded: false };
  // szext_wrap_s32_shl_sar without its n == 0 arm: (a << (32 - n)) >>a (32 - n), n = b & 31.
  const noGuard: PortableRule = {
    name: "szext_wrap_s32_shl_sar_noguard",
    prio: 0,
    when: () => true,
    build: (s) =>
      scalarRoutine(s, (P, { a, b }) => {
        const sh = P.bin("sub", P.c(32, 32), P.and(b, P.c(31, 32)));
        return P.bin("ashr", P.bin("shl", a, sh), sh);
      }),
  };
  // The same with a logical right shift: zero- instead of sign-extension.
  const logical: PortableRule = {
    ...noGuard,
    name: "szext_wrap_s32_shl_shr_wrong",
    build: (s) =>
      scalarRoutine(s, (P, { a, b }) => {
        const n = P.and(b, P.c(31, 32));
        const sh = P.bin("sub", P.c(32, 32), n);
        return P.select(P.cmp("eq", n, P.c(0, 32)), P.c(0, 32), P.bin("lshr", P.bin("shl", a, sh), sh));
      }),
  };
  const ref = (a: bigint, b: bigint) => szext(concrete, form, u(a), u(b)).value.x;
  const mk = (rule: PortableRule): Case => {
    const fn = rule.build(spec, "isa");
    const r = new Rng(7);
    return {
      id: `broken_${rule.name}`,
      rule: rule.name,
      fn,
      vectors: scalarVectors(
        spec,
        fn,
        CORNERS.flatMap((a) => B_SMALL.map((b) => ({ a, b }))),
        ref,
        r,
      ),
    };
  };

  it("no n == 0 guard: poison reaches d (b = 0, 32, 64), so evalPir refutes it", () => {
    const c = mk(noGuard);
    const bad: string[] = [];
    for (const v of c.vectors) compare(c, v, evalPirConcrete(c.fn, v.args), "pir", bad);
    expect(bad.length).toBeGreaterThan(0);
    expect(bad[0]).toMatch(/d = poison, want/);
    // The printers guard the unproven counts, so the printed code is not masked-shift JS:
    // b = 0 gives (a << 32 → 0) >> 32 → 0 = the reference, and the PIR check alone catches it.
    expect(shiftSafety(c.fn).size).toBe(0);
  });

  it("logical instead of arithmetic shift: every target reports a value mismatch", async () => {
    const c = mk(logical);
    const [pir, js, cc]: string[][] = [[], [], []];
    for (const v of c.vectors) compare(c, v, evalPirConcrete(c.fn, v.args), "pir", pir);
    const mod = await loadJsModule(await printJsModule([{ name: c.id, fn: c.fn, header: "broken" }]));
    for (const v of c.vectors) compare(c, v, callJs(c.fn, mod[c.id]!, v.args), "js", js);
    expect(pir.length).toBeGreaterThan(0);
    expect(js.length).toBeGreaterThan(0);
    if (haveCc().ok) {
      const got = runCRoutines(
        [{ name: c.id, fn: c.fn }],
        c.vectors.map((v) => ({ routine: c.id, args: v.args })),
      );
      c.vectors.forEach((v, n) => compare(c, v, got[n]!, "c", cc));
      expect(cc.length).toBeGreaterThan(0);
    }
  });
});

// ---------------------------------------------------------------------------------------
// vshl / vshr

describe("vshl/vshr: ≥ 300 sampled forms × both profiles, every matching rule", () => {
  const r = new Rng(0x7e5);
  const all = [...vshForms()];
  // Every (vop, dtype, atype, sat, mode, tail kind) combination, 4 random forms of each.
  const combo = (f: VshForm) => `${f.op}.${f.dtype}.${f.atype}.${f.sat}.${f.mode}.${f.tail.kind}`;
  const groups = new Map<string, VshForm[]>();
  for (const f of all) groups.set(combo(f), [...(groups.get(combo(f)) ?? []), f]);
  const forms: VshForm[] = [];
  for (const g of groups.values()) {
    const picked = new Set<VshForm>();
    while (picked.size < 4) picked.add(r.pick(g));
    forms.push(...picked);
  }
  const A = [...CORNERS, 0xff00n, 0x8000ffffn, 0xffffff00n, 0x00010000n, 0x90000000n, 0xc0000000n];
  const bAll = (n: bigint) => n | (n << 8n) | (n << 16n) | (n << 24n);
  const B = [0n, 1n, 2n, 4n, 8n, 16n, 30n, 31n, 32n, 33n, 34n, 63n, 64n, 65n, 255n].flatMap((n) => [n, bAll(n)]);
  const C = [0n, 1n, 5n, 0x7fffffffn, 0x80000000n, 0xa0000000n, 0xffffffffn, 0x11223344n];
  const grid = () => {
    const g: Record<string, bigint>[] = [];
    for (let k = 0; k < 48; k++)
      g.push({
        a: r.chance(0.8) ? r.pick(A) : r.bits(32),
        b: r.chance(0.8) ? r.pick(B) : r.bits(32),
        c: r.chance(0.7) ? r.pick(C) : r.bits(32),
      });
    return g;
  };
  const cases: Case[] = [];
  for (const form of forms) {
    const kinds: RoutineSpec["kinds"] = {};
    for (const s of sourcesOf(form)) {
      const x = r.below(10);
      kinds[s] = x < 6 ? { kind: "v" } : x < 8 ? { kind: "s" } : imm(s === "b" ? r.pick(B) : r.pick(A));
    }
    const spec: RoutineSpec = { form, kinds, guarded: r.chance(0.15) };
    for (const profile of PROFILES) {
      const ref = (a: bigint, b: bigint, c: bigint) => vsh(concrete, form, profile, u(a), u(b), u(c)).value.x;
      cases.push(...casesOf(spec, profile, (fn) => scalarVectors(spec, fn, grid(), ref, r)));
    }
  }

  it("covers ≥ 300 forms, all 96 (vop, dtype, atype, sat, mode, tail kind) combinations, both rules", () => {
    expect(new Set(forms.map((f) => formId(f))).size).toBeGreaterThanOrEqual(300);
    expect(new Set(forms.map(combo)).size).toBe(96);
    expect(new Set(cases.map((c) => c.rule))).toEqual(new Set(["vsh_staged_reference", "vsh_nosat_shift32"]));
  });
  checks("vsh", () => cases);

  it("every one of the 15,680 video forms has a portable rule", () => {
    for (const form of all) expect(selectPortableRule({ form, kinds: {}, guarded: false }).name).toMatch(/^vsh_/);
  });
});

// ---------------------------------------------------------------------------------------
// match.sync

describe("match.sync: all 12 forms × operand kinds × guard, every matching rule", () => {
  const r = new Rng(0x3a7c);
  const FULL = 0xffffffffn;
  const bits = (m: bigint) => Array.from({ length: 32 }, (_, j) => ((m >> BigInt(j)) & 1n) === 1n);

  /** Per-lane membermasks that name consistent groups (defined cases), or noise. */
  const groupMasks = (): bigint[] => {
    if (r.chance(0.15)) return Array.from({ length: 32 }, () => r.bits(32));
    const n = 1 + r.below(3);
    const group = Array.from({ length: 32 }, () => r.below(n));
    const masks = Array.from({ length: n }, (_, g) =>
      group.reduce((m, gj, j) => (gj === g ? m | (1n << BigInt(j)) : m), 0n),
    );
    return group.map((g) => masks[g]!);
  };
  const laneValues = (type: MatchForm["type"]): bigint[] => {
    const pool =
      type === "b64"
        ? [0n, 1n << 32n, 1n, r.u64(), 0x8000000000000000n, 0xffffffffn]
        : [0n, 1n, 0x80000000n, 0xffffffffn, r.bits(32), 5n];
    const k = 1 + r.below(4);
    const use = Array.from({ length: k }, () => r.pick(pool));
    return Array.from({ length: 32 }, () => r.pick(use));
  };

  const cases: Case[] = [];
  const kindsA: OperandKind[] = [{ kind: "v" }, { kind: "s" }, imm(0x1234n)];
  const kindsM: OperandKind[] = [{ kind: "v" }, { kind: "s" }, imm(FULL), imm(0x0000ffffn)];
  for (const form of matchForms())
    for (const ka of kindsA)
      for (const km of kindsM)
        for (const guarded of [false, true]) {
          // Uniform a is checked with fewer mask kinds: its lanes never differ.
          if (
            ka.kind !== "v" &&
            ((km.kind === "imm" && (guarded || km.value !== FULL)) || (ka.kind === "imm" && guarded))
          )
            continue;
          const spec: RoutineSpec = { form, kinds: { a: ka, membermask: km }, guarded };
          const vectors = (fn: PirFunction): Vector[] =>
            Array.from({ length: 10 }, (): Vector => {
              const params = new Set(fn.params.map((p) => p.name));
              const active = r.pick([FULL, 0x0000ffffn, 0x000003ffn, 0x80000001n, r.bits(32), r.bits(32)]);
              const lanesA = laneValues(form.type);
              const aOf =
                ka.kind === "imm" ? Array(32).fill(ka.value) : ka.kind === "s" ? Array(32).fill(lanesA[0]) : lanesA;
              const mmV = groupMasks();
              const mmS = r.pick([FULL, mmV[0]!, r.bits(32), active]);
              const mmOf = km.kind === "imm" ? Array(32).fill(km.value) : km.kind === "s" ? Array(32).fill(mmS) : mmV;
              const g = Array.from({ length: 32 }, () => r.chance(0.8));
              const dPrior = Array.from({ length: 32 }, () => r.bits(32));
              const pPrior = Array.from({ length: 32 }, () => r.chance(0.5));
              const args: Record<string, PirValue> = { active };
              if (params.has("a")) args.a = ka.kind === "v" ? lanesA : lanesA[0]!;
              if (params.has("membermask")) args.membermask = km.kind === "v" ? mmV : mmS;
              if (guarded) Object.assign(args, { g, dPrior }, form.mode === "all" ? { pPrior } : {});
              const alive = bits(active);
              const executes = alive.map((x, i) => x && (!guarded || g[i]!));
              const w = form.type === "b64" ? 64 : 32;
              const ref = matchSync(concrete, form, {
                a: aOf.map((x: bigint) => u(x, w)),
                membermask: mmOf.map((x: bigint) => u(x)),
                active: alive,
                executes,
              });
              // Executing lanes: the reference where it is defined; others keep dPrior/pPrior
              // (guarded) or get 0/false.
              const pick = (i: number, val: bigint | boolean, prior: bigint | boolean): Want =>
                executes[i] ? (ref.defined[i] ? val : null) : guarded ? prior : typeof val === "boolean" ? false : 0n;
              const want: Vector["want"] = { d: ref.d.map((x, i) => pick(i, x.x, dPrior[i]!)) };
              if (form.mode === "all") want.p = ref.p.map((x, i) => pick(i, x, pPrior[i]!));
              return { args, want };
            });
          cases.push(...casesOf(spec, "isa", vectors));
        }

  it("covers the 12 forms, and both rules", () => {
    expect(new Set(cases.map((c) => c.fn.name.split("__")[0])).size).toBe(12);
    expect(new Set(cases.map((c) => c.rule))).toEqual(new Set(["match_loop_eqmask", "match_uniform_a_members"]));
  });
  it("some vectors have defined lanes that disagree between lanes (not just all-equal)", () => {
    const some = cases.some((c) =>
      c.vectors.some((v) => new Set((v.want.d as Want[]).filter((x) => x !== null && x !== 0n)).size > 1),
    );
    expect(some).toBe(true);
  });
  checks("match", () => cases);
});

// ---------------------------------------------------------------------------------------
// Coverage of the rule table

describe("rule coverage", () => {
  it("every form of every family, with every operand kind and guard, selects a rule", () => {
    const forms: Form[] = [...szextForms(), ...matchForms(), ...[...vshForms()].filter((_, k) => k % 37 === 0)];
    const kinds: OperandKind[] = [{ kind: "v" }, { kind: "s" }, imm(3n)];
    for (const form of forms)
      for (const k of kinds)
        for (const guarded of [false, true]) {
          const spec: RoutineSpec = { form, kinds: Object.fromEntries(sourcesOf(form).map((s) => [s, k])), guarded };
          const rule = selectPortableRule(spec);
          expect(rule.name.startsWith(form.op === "vshl" || form.op === "vshr" ? "vsh" : form.op)).toBe(true);
          expect(rule.build(spec, "isa").name).toBe(routineName(spec, formId));
        }
  });
});

// ---------------------------------------------------------------------------------------
// The PIR core: poison rules, and evaluation over a non-concrete algebra

describe("PIR evaluator", () => {
  // F(x, y): var acc = 0; for i < 4 { if (x < y) acc += i else acc ^= x }; z = x << y (poison
  // for y ≥ 32); d = y < 32 ? z : acc; e = (x << y) < 5 ? 1 : 2 (an if on a poison condition).
  const P = stage();
  const x = P.ref("x", u32);
  const y = P.ref("y", u32);
  const acc = P.ref("acc", u32);
  const cond = P.cmp("ult", x, y);
  const z = P.bin("shl", x, y);
  const F: PirFunction = {
    name: "f",
    params: [
      { name: "x", type: u32 },
      { name: "y", type: u32 },
    ],
    results: [
      { name: "d", type: u32 },
      { name: "e", type: u32 },
    ],
    body: [
      { s: "var", name: "acc", value: P.c(0, 32) },
      {
        s: "for",
        index: "i",
        n: 4,
        body: [
          {
            s: "if",
            c: cond,
            then: [{ s: "set", name: "acc", value: P.add(acc, P.ref("i", u32)) }],
            else: [{ s: "set", name: "acc", value: P.xor(acc, x) }],
          },
        ],
      },
      { s: "var", name: "e", value: P.c(2, 32) },
      { s: "if", c: P.cmp("ult", z, P.c(5, 32)), then: [{ s: "set", name: "e", value: P.c(1, 32) }], else: [] },
      { s: "return", values: { d: P.select(P.cmp("ult", y, P.c(32, 32)), z, acc), e: P.ref("e", u32) } },
    ],
  };
  const grid = [0n, 1n, 3n, 5n, 31n, 32n, 40n, 0xffffffffn].flatMap((a) =>
    [0n, 2n, 4n, 31n, 32n, 33n].map((b) => [a, b] as const),
  );

  it("select takes only the chosen arm's poison; an if on poison poisons what it writes", () => {
    for (const [a, b] of grid) {
      const r = evalPirConcrete(F, { x: a, y: b }) as Record<string, { value: bigint; defined: boolean }>;
      let want = 0n;
      for (let i = 0n; i < 4n; i++) want = a < b ? want + i : want ^ a;
      expect(r.d).toEqual({ value: b < 32n ? BigInt.asUintN(32, a << b) : want, defined: true });
      expect(r.e!.defined).toBe(b < 32n);
      if (b < 32n) expect(r.e!.value).toBe(BigInt.asUintN(32, a << b) < 5n ? 1n : 2n);
    }
  });

  it("is generic over BV: over the staging algebra it runs symbolically, merging if-arms, and agrees concretely", () => {
    const S = stage();
    const out = evalPir(F, S, { x: S.ref("x", u32), y: S.ref("y", u32) });
    const slot = (k: string) => out[k] as { value: PExpr; defined: PExpr };
    const G: PirFunction = {
      name: "g",
      params: F.params,
      results: [
        { name: "d", type: u32 },
        { name: "dDef", type: bool },
        { name: "eDef", type: bool },
      ],
      body: [{ s: "return", values: { d: slot("d").value, dDef: slot("d").defined, eDef: slot("e").defined } }],
    };
    for (const [a, b] of grid) {
      const f = evalPirConcrete(F, { x: a, y: b }) as Record<string, { value: bigint; defined: boolean }>;
      const g = evalPirConcrete(G, { x: a, y: b }) as Record<string, { value: bigint | boolean; defined: boolean }>;
      expect(g.d!.value).toBe(f.d!.value);
      expect(g.dDef!.value).toBe(f.d!.defined);
      expect(g.eDef!.value).toBe(f.e!.defined);
    }
  });

  it("stages the SMT shifts with guards only where the count may reach the width", () => {
    const S = stage();
    const a = S.ref("a", u32);
    const n = S.ref("n", u32);
    expect(S.shl(a, S.and(n, S.k(31, 32))).op).toBe("shl"); // n & 31 < 32: no guard
    expect(S.shl(a, n).op).toBe("select");
    expect(S.ashr(a, n).op).toBe("ashr"); // count clamped to 31 instead
    expect(S.shl(a, S.k(40, 32))).toBe(S.k(0, 32));
    expect(S.add(S.k(0xffffffff, 32), S.k(2, 32))).toBe(S.k(1, 32)); // folded, hash-consed
    expect(S.add(a, n)).toBe(S.add(a, n));
  });
});
