/**
 * vshl/vshr → AMDGPU (targets/amdgpu/rules/vsh.ts):
 *   1. coverage: every one of the 15,680 forms × {isa, sm90} × 5 mcpus has a rule and lowers,
 *      for kinds (v, v, v); a strided sample of forms for uniform/immediate kinds;
 *   2. correctness: a seeded sample of forms covering every (vop, dtype, atype, sat, mode,
 *      tail kind) × both profiles × 5 mcpus × operand-kind mixes (guarded ones too), every
 *      applicable rule (shadowed ones included) run in the interpreter under the routine
 *      contract (execRoutine, 32 lanes per run carrying different inputs) against vsh() on
 *      the corner and random inputs of src/check/vsh_inputs.ts;
 *   3. llvm-mc-19 assembles every listing of the sample, one file per mcpu.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Profile, Sel, VshForm, VshTail } from "../src/ir/forms.js";
import { formId, formName, PROFILES, SELS, vshForms } from "../src/ir/forms.js";
import type { OperandKind, RoutineSpec, SourceName } from "../src/ir/ir.js";
import { routineName } from "../src/ir/ir.js";
import type { CV } from "../src/sem/bv.js";
import { concrete, u } from "../src/sem/bv.js";
import { vsh } from "../src/sem/vsh.js";
import type { ScalarCase } from "../src/check/inputs.js";
import { Rng } from "../src/check/random.js";
import { vshCases } from "../src/check/vsh_inputs.js";
import { execRoutine } from "../targets/amdgpu/exec.js";
import type { AmdRoutine } from "../targets/amdgpu/lower.js";
import { applicableRules, lowerRoutine, lowerWithRule, printRoutine } from "../targets/amdgpu/lower.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import { MCPUS, TARGETS } from "../targets/amdgpu/regs.js";
import { vshRules } from "../targets/amdgpu/rules/vsh.js";

type Kinds = Partial<Record<SourceName, OperandKind>>;
interface Mix {
  kinds: Kinds;
  guarded: boolean;
}
const V: OperandKind = { kind: "v" };
const S: OperandKind = { kind: "s" };
const I = (value: bigint): OperandKind => ({ kind: "imm", value });

const VVV: Mix = { kinds: { a: V, b: V, c: V }, guarded: false };
/** The other operand-kind mixes; each sampled routine gets (v, v, v) and one of these. */
const MIXES: readonly Mix[] = [
  { kinds: { a: S, b: V, c: S }, guarded: false },
  { kinds: { a: V, b: S, c: V }, guarded: false },
  { kinds: { a: S, b: S, c: S }, guarded: false },
  { kinds: { a: I(0x80000001n), b: V, c: I(0x7fn) }, guarded: false },
  { kinds: { a: V, b: I(33n), c: V }, guarded: false },
  { kinds: { a: I(0xfffffff3n), b: I(0x0102n), c: V }, guarded: false },
  { kinds: { a: V, b: V, c: I(0x90000000n) }, guarded: false },
  { kinds: { a: S, b: I(5n), c: V }, guarded: true },
  { kinds: { a: V, b: V, c: V }, guarded: true },
  { kinds: { a: S, b: S, c: S }, guarded: true },
  { kinds: { a: I(0x7fffffffn), b: I(31n), c: I(0xffffffffn) }, guarded: false },
  { kinds: { a: V, b: I(0x2000n), c: S }, guarded: false },
];

const TAILS: readonly string[] = ["none", "add", "min", "max", "merge"];
const OPT_SELS: readonly (Sel | null)[] = [null, ...SELS];

/**
 * Two forms for each (vop, dtype, atype, sat, mode, tail kind): 160 × 2 = 320, with the
 * selectors and the merge's dsel rotating so that every value of each appears often (three
 * until issue 35: CI's 25 minutes now hold vadd…vmax and vset too; the whole matrix is proved
 * by `npm run prove:all`).
 */
function sampleForms(): VshForm[] {
  const out: VshForm[] = [];
  let i = 0;
  for (const op of ["vshl", "vshr"] as const)
    for (const dtype of ["u32", "s32"] as const)
      for (const atype of ["u32", "s32"] as const)
        for (const sat of [false, true])
          for (const mode of ["clamp", "wrap"] as const)
            for (const tk of TAILS) {
              for (let j = 0; j < 2; j++) {
                const tail: VshTail =
                  tk === "none" ? { kind: "none" } : tk === "merge" ? { kind: "merge", dsel: SELS[(i + 2 * j) % 6]! } : { kind: "op2", op2: tk as "add" | "min" | "max" };
                out.push({ op, dtype, atype, sat, mode, tail, asel: OPT_SELS[(i + j) % 7]!, bsel: OPT_SELS[(3 * i + 5 * j + 1) % 7]! });
              }
              i++;
            }
  return out;
}

const kindsTag = (k: Kinds) => JSON.stringify(k, (_, x) => (typeof x === "bigint" ? `0x${x.toString(16)}` : x));
const where = (spec: RoutineSpec, profile: Profile, mcpu: Mcpu, rule: string) =>
  `${formName(spec.form)} [${profile} ${mcpu} ${kindsTag(spec.kinds)}${spec.guarded ? " guarded" : ""}] ${rule}`;

/** The active masks runs alternate between (lanes ≥ 32 are never active on wave64). */
const ACTIVE = [0xffffffffn, 0xdfff7ffen];

/**
 * Runs `r` on `cases`, 32 per run: divergent sources take one case per lane; a uniform
 * source takes the run's first case's value; immediates their own. The expected d of
 * each active lane is vsh() on the values that lane actually saw (the prior d where the
 * guard is off). Returns the problems found (wrong values, contract violations).
 */
function check(r: AmdRoutine, profile: Profile, cases: ScalarCase[], rng: Rng): string[] {
  const f = r.spec.form as VshForm;
  const names: SourceName[] = f.tail.kind === "none" ? ["a", "b"] : ["a", "b", "c"];
  for (let off = 0, run = 0; off < cases.length; off += 32, run++) {
    const batch = cases.slice(off, off + 32);
    const at = (l: number) => batch[l % batch.length]!;
    const value = (name: SourceName, l: number): bigint => {
      const k = r.spec.kinds[name] ?? V;
      if (k.kind === "imm") return k.value & 0xffffffffn;
      return (k.kind === "s" ? at(0) : at(l))[name as "a" | "b" | "c"];
    };
    const src: Partial<Record<SourceName, CV | CV[]>> = {};
    for (const name of names) {
      const k = r.spec.kinds[name] ?? V;
      if (k.kind === "v") src[name] = Array.from({ length: 32 }, (_, l) => u(value(name, l)));
      if (k.kind === "s") src[name] = u(value(name, 0));
    }
    const active = ACTIVE[run % ACTIVE.length]!;
    const guard = Array.from({ length: 32 }, () => rng.below(4) !== 0);
    const dPrior = Array.from({ length: 32 }, () => u(rng.u32()));
    const res = execRoutine(concrete, r, { src, active: u(active), ...(r.spec.guarded ? { guard, dPrior } : {}) }, { salt: run + 1 });
    if (res.status !== "ok") return [`step limit`];
    if (res.violations.length) return [`contract: ${res.violations.join("; ")}`];
    for (let l = 0; l < 32; l++) {
      if (!((active >> BigInt(l)) & 1n)) continue;
      const [a, b, c] = [value("a", l), value("b", l), f.tail.kind === "none" ? 0n : value("c", l)];
      const want = r.spec.guarded && !guard[l] ? dPrior[l]!.x : vsh(concrete, f, profile, u(a), u(b), u(c)).value.x;
      const got = res.d[l]!.x;
      if (got !== want) return [`lane ${l}: a=0x${a.toString(16)} b=0x${b.toString(16)} c=0x${c.toString(16)}: want 0x${want.toString(16)}, got 0x${got.toString(16)}`];
    }
  }
  return [];
}

/** Listings of every checked routine, per mcpu, for llvm-mc. */
const listings = new Map<Mcpu, string[]>(MCPUS.map((m) => [m, []]));

describe("vshl/vshr → AMDGPU", () => {
  it("coverage: every form × profile × mcpu lowers with kinds (v, v, v)", () => {
    const gaps: string[] = [];
    let n = 0;
    for (const form of vshForms())
      for (const profile of PROFILES)
        for (const mcpu of MCPUS) {
          const spec: RoutineSpec = { form, kinds: VVV.kinds, guarded: false };
          n++;
          if (applicableRules(spec, TARGETS[mcpu], profile).length === 0) gaps.push(`${formName(form)} ${profile} ${mcpu}`);
          else lowerRoutine(spec, TARGETS[mcpu], profile);
        }
    expect(n).toBe(15_680 * 2 * 5);
    expect(gaps.slice(0, 10)).toEqual([]);
  }, 300_000); // ≈ 10 s alone (the hazard pass reuses its work per sequence shape: hazards.ts `shapeOf`)

  it("coverage: every 7th form × every kinds mix × profile × mcpu has a rule (every 35th lowers)", () => {
    const gaps: string[] = [];
    let i = 0;
    for (const form of vshForms()) {
      if (i++ % 7 !== 0) continue;
      for (const mix of MIXES)
        for (const profile of PROFILES)
          for (const mcpu of MCPUS) {
            const spec: RoutineSpec = { form, kinds: mix.kinds, guarded: mix.guarded };
            if (applicableRules(spec, TARGETS[mcpu], profile).length === 0) gaps.push(where(spec, profile, mcpu, "-"));
            else if (i % 35 === 1) lowerRoutine(spec, TARGETS[mcpu], profile);
          }
    }
    expect(gaps.slice(0, 10)).toEqual([]);
  });

  it("correctness: 320 sampled forms × 2 profiles × 5 mcpus × 2 kinds mixes, every applicable rule, against vsh()", () => {
    const forms = sampleForms();
    expect(forms.length).toBe(320);
    const problems: string[] = [];
    const used = new Map<string, number>();
    let routines = 0;
    forms.forEach((form, fi) => {
      const all = vshCases(form, fi);
      PROFILES.forEach((profile, pi) =>
        MCPUS.forEach((mcpu, mi) => {
          // This target's share of the form's cases: every 10th, at its own offset, so that
          // the ten (profile, mcpu) targets together run every case.
          const ti = pi * MCPUS.length + mi;
          const cases = all.filter((_, k) => k % 10 === ti);
          const rng = new Rng(fi * 31 + ti);
          for (const mix of [VVV, MIXES[(fi * 7 + ti) % MIXES.length]!]) {
            const spec: RoutineSpec = { form, kinds: mix.kinds, guarded: mix.guarded };
            const chosen = lowerRoutine(spec, TARGETS[mcpu], profile).rule;
            for (const rule of applicableRules(spec, TARGETS[mcpu], profile)) {
              const r = lowerWithRule(spec, TARGETS[mcpu], profile, rule);
              routines++;
              if (rule.name === chosen) used.set(rule.name, (used.get(rule.name) ?? 0) + 1);
              listings.get(mcpu)!.push(printRoutine(`r${routines}_${routineName(spec, formId)}__${profile}__${rule.name}`, r));
              for (const p of check(r, profile, cases, rng)) problems.push(`${where(spec, profile, mcpu, rule.name)}: ${p}`);
            }
          }
        }),
      );
    });
    expect(problems.slice(0, 10)).toEqual([]);
    // Every rule wins somewhere in the sample.
    for (const rule of vshRules) expect(used.get(rule.name) ?? 0, rule.name).toBeGreaterThan(0);
    expect(routines).toBeGreaterThan(forms.length * 2 * 5 * 2);
  });

  const mc = spawnSync("llvm-mc-19", ["--version"], { encoding: "utf8" }).status === 0;
  for (const mcpu of MCPUS)
    it.skipIf(!mc)(`llvm-mc-19 -mcpu=${mcpu} assembles every listing of the sample`, () => {
      const text = listings.get(mcpu)!;
      expect(text.length).toBeGreaterThan(0);
      const dir = mkdtempSync(join(tmpdir(), "vsh-mc-"));
      const file = join(dir, `${mcpu}.s`);
      writeFileSync(file, text.join("\n"));
      const r = spawnSync("llvm-mc-19", ["-arch=amdgcn", `-mcpu=${mcpu}`, file, "-o", "/dev/null"], { encoding: "utf8", maxBuffer: 64 << 20 });
      expect(r.stderr.split("\n").slice(0, 20).join("\n")).toBe("");
      expect(r.status).toBe(0);
    });
});
