/**
 * The warp-level family → AMDGPU (issue 15 item 3): every rule of targets/amdgpu/rules/warp.ts
 * (shadowed ones too) that applies to a form × operand kinds × guard, on all five processors
 * (wave64 gfx9: lanes 32..63 inactive; wave32 gfx10/11), run in the interpreter under the routine
 * contract (execRoutine: hazards checked by the hazard model, the LDS wait model active,
 * exec/scratch/inactive lanes checked) on seeded random warps (src/check/warp_cases.ts) and
 * compared with the reference (`warpReference`, src/sem/warp.ts) on every lane it defines;
 * then every vector of ../shared/vectors/warp.jsonl; the sequences assemble with llvm-mc-19.
 * Expected values are the reference's and the vectors', never the rules'.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { Form } from "../src/ir/forms.js";
import type { OperandKind, PtxOperand, RoutineSpec, SourceName } from "../src/ir/ir.js";
import type { WarpForm } from "../src/ir/warp_forms.js";
import { warpFormId, warpFormName, warpForms, warpSources, warpWrites } from "../src/ir/warp_forms.js";
import { type Json, type RawVector, caseOf, checkWarpModule, toBig, wrap } from "./warp_vector_cases.js";
import { BROKEN } from "./warp_broken.js";

import { hashString } from "../src/check/random.js";
import type { WarpCase } from "../src/check/warp_cases.js";
import { randomWarpCases, warpReference } from "../src/check/warp_cases.js";
import { runWarpLevel } from "../targets/amdgpu/warp_exec.js";
import type { AmdRoutine } from "../targets/amdgpu/lower.js";
import { lowerWithRule, printRoutine } from "../targets/amdgpu/lower.js";
import { MCPUS, TARGETS } from "../targets/amdgpu/regs.js";
import type { AmdRule } from "../targets/amdgpu/rules/rule.js";
import { warpRulesOf } from "../targets/amdgpu/rules/warp.js";

type Kinds = Partial<Record<SourceName, OperandKind>>;
const V: OperandKind = { kind: "v" };
const S: OperandKind = { kind: "s" };
const IMM = (value: bigint): OperandKind => ({ kind: "imm", value });

/**
 * Warps per form × kinds × guard × processor for the main kinds, and for the others. The
 * issue's ≥ 2,000 is `PTXL_WARP_AMD_WARPS=2000` (about an hour here); the default keeps the
 * file near two minutes.
 */
const MAIN_WARPS = Number(process.env.PTXL_WARP_AMD_WARPS ?? 50);
const OTHER_WARPS = Math.max(30, Math.floor(MAIN_WARPS / 10));

/** A routine spec of a warp form (not yet a member of the `Form` union: routine.ts `isWarpForm`). */
export function warpSpec(f: WarpForm, kinds: Kinds, guarded: boolean): RoutineSpec {
  return { form: f as unknown as Form, kinds, guarded };
}

/** The operand kinds each form is run with: the main kinds (a divergent; membermask v/s; b, c uniform or immediate) and others. */
function kindsOf(f: WarpForm): { kinds: Kinds; guarded: boolean; main: boolean }[] {
  const src = warpSources(f);
  const out: { kinds: Kinds; guarded: boolean; main: boolean }[] = [];
  const masks = src.includes("membermask") ? [V, S, IMM(0xffffffffn), IMM(0x0000ffffn)] : [undefined];
  const add = (k: Kinds, guarded: boolean, main: boolean) => out.push({ kinds: Object.fromEntries(src.map((s) => [s, k[s] ?? V])), guarded, main });
  if (f.op === "activemask" || f.op === "bar.warp") {
    add({}, false, true);
    add({}, true, false);
    return out;
  }
  const isMain = (m: OperandKind | undefined) => m === undefined || m.kind !== "imm";
  if (f.op === "shfl") {
    const cs = f.mode === "up" ? [IMM(0n), IMM(0x1000n), S] : [IMM(0x1fn), IMM(0x101fn), IMM(0x1c1fn), S];
    for (const m of masks)
      for (const b of [S, IMM(1n), IMM(3n), IMM(5n), IMM(8n), ...(isMain(m) ? [IMM(21n)] : [])]) for (const c of cs) add({ a: V, b, c, ...(m ? { membermask: m } : {}) }, false, isMain(m));
    add({ a: S, b: S, c: cs[0]!, ...(masks[0] ? { membermask: S } : {}) }, false, false);
    add({ a: V, b: V, c: V, ...(masks[0] ? { membermask: V } : {}) }, false, false);
    add({ a: V, b: S, c: cs[0]!, ...(masks[0] ? { membermask: V } : {}) }, true, false);
    add({ a: V, b: IMM(3n), c: cs[1]!, ...(masks[0] ? { membermask: S } : {}) }, true, false);
    return out;
  }
  for (const m of masks) for (const a of [V, S, IMM(f.op === "vote" ? 1n : 5n)]) add({ a, ...(m ? { membermask: m } : {}) }, false, a === V && isMain(m));
  for (const m of masks) add({ a: V, ...(m ? { membermask: m } : {}) }, true, false);
  return out;
}

const hex = (x: bigint) => `0x${x.toString(16).padStart(8, "0")}`;

/**
 * Runs one case (`runWarpLevel`, as `verify` does: the interpreter over concreteNumber, which
 * test/bv_number.test.ts checks against concrete): mismatches against the reference, or why
 * the run is not a value (hazard, contract).
 */
function check(r: AmdRoutine, f: WarpForm, c: WarpCase, expected?: { d: (bigint | null)[]; p: (boolean | null)[] }): { errors: string[]; cycles: number } {
  const run = runWarpLevel(r, f, c);
  if ("failure" in run) return { errors: [run.failure], cycles: 0 };
  const want = expected ?? warpReference(f, c);
  const errors: string[] = [];
  for (let l = 0; l < 32; l++) {
    const wd = warpWrites(f).d ? want.d[l] : null;
    if (wd !== null && wd !== undefined && run.d[l]! !== wd) errors.push(`lane ${l}: d ${hex(run.d[l]!)}, want ${hex(wd)}`);
    const wp = want.p[l];
    if (f.op === "shfl" && f.dest === "d|p" && wp !== null && wp !== undefined && run.p[l] !== wp) errors.push(`lane ${l}: p ${run.p[l]}, want ${wp}`);
  }
  return { errors, cycles: run.cycles };
}

/** Every (form, kinds, guard) with its applicable rules, per processor. */
const FORMS = [...warpForms()];

/** Dynamic-cycle figures per rule × processor (min / max / mean over the warps), for the report. */
const FIGURES = new Map<string, { n: number; sum: number; min: number; max: number; stat: number }>();
function note(r: AmdRoutine, cycles: number) {
  const key = `${r.rule}\t${r.target.mcpu}\t${r.spec.guarded ? "g" : "-"}`;
  const x = FIGURES.get(key) ?? { n: 0, sum: 0, min: Infinity, max: 0, stat: r.count };
  x.n++;
  x.sum += cycles;
  x.min = Math.min(x.min, cycles);
  x.max = Math.max(x.max, cycles);
  x.stat = Math.max(x.stat, r.count);
  FIGURES.set(key, x);
}

describe("warp-level rules on AMDGPU: random warps against the reference", () => {
  for (const f of FORMS) {
    it(`${warpFormName(f)}: every applicable rule, every kind, all five processors`, () => {
      const bad: string[] = [];
      let runs = 0;
      for (const { kinds, guarded, main } of kindsOf(f)) {
        const spec = warpSpec(f, kinds, guarded);
        const key = `${warpFormId(f)}/${JSON.stringify(kinds, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}/${guarded}`;
        const cases = randomWarpCases(f, kinds, hashString(key), main ? MAIN_WARPS : OTHER_WARPS, guarded);
        for (const mcpu of MCPUS) {
          const t = TARGETS[mcpu];
          const rules = warpRulesOf(f).filter((r) => r.when(f, { spec, t, profile: "isa" }));
          if (rules.length === 0) bad.push(`${key} ${mcpu}: no rule`);
          for (const rule of rules) {
            const r = lowerWithRule(spec, t, "isa", rule as unknown as AmdRule);
            for (const c of cases) {
              const { errors, cycles } = check(r, f, c);
              runs++;
              if (errors.length) {
                bad.push(`${key} ${mcpu} ${rule.name} [${c.label}]: ${errors.slice(0, 3).join("; ")}`);
                break;
              }
              note(r, cycles);
            }
          }
        }
      }
      expect(bad.slice(0, 10), bad.slice(0, 10).join("\n")).toEqual([]);
      expect(runs).toBeGreaterThan(0);
    });
  }

  it("prints the static / dynamic cycle figures per rule and processor", () => {
    const rows = [...FIGURES].sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => `${k}\tstatic ${x.stat}\tdynamic ${x.min}..${x.max} mean ${(x.sum / x.n).toFixed(1)} (${x.n} runs)`);
    if (process.env.PTXL_WARP_AMD_FIGURES) writeFileSync(process.env.PTXL_WARP_AMD_FIGURES, rows.join("\n") + "\n");
    expect(rows.length).toBeGreaterThan(0);
  });
});

describe("the broken corpus: each variant refuted for its own reason", () => {
  for (const b of BROKEN) {
    it(b.name, () => {
      const spec = warpSpec(b.f, b.kinds, b.guarded ?? false);
      const cases = randomWarpCases(b.f, b.kinds, hashString(b.name), 400, b.guarded ?? false);
      for (const mcpu of b.mcpus) {
        const r = lowerWithRule(spec, TARGETS[mcpu], "isa", b.rule as unknown as AmdRule);
        const first = cases.map((c) => check(r, b.f, c).errors).find((e) => e.length > 0);
        expect(first, `${b.name} on ${mcpu}: not refuted`).toBeDefined();
        expect(first!.join("; "), mcpu).toMatch(b.reason);
      }
    });
  }
});

// ../shared/vectors/warp.jsonl, read as test/warp_vectors.test.ts reads it (FORMAT.md); the
// expected values are the vectors' own.
const VEC_FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "shared", "vectors", "warp.jsonl");
/** The vector's operand kinds: an immediate, one value (uniform), or 32 (divergent). */
function vecKind(v: RawVector, op: PtxOperand | undefined, name: string): OperandKind | undefined {
  if (op === undefined) return undefined;
  if (op.kind === "imm") return IMM(op.value);
  const x = v.in[op.kind === "reg" ? op.name : name];
  return Array.isArray(x) ? V : S;
}

describe("warp.jsonl on AMDGPU: every vector, every applicable rule, all five processors", () => {
  it("every lane the vector defines", () => {
    const vectors: RawVector[] = readFileSync(VEC_FILE, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as RawVector);
    const bad: string[] = [];
    let runs = 0;
    for (const vec of vectors) {
      const inst = checkWarpModule(wrap(vec), `${vec.id}.ptx`).insts[0]!;
      const f = inst.form;
      const kinds: Kinds = {};
      for (const n of warpSources(f)) kinds[n] = vecKind(vec, inst[n], n);
      const c = caseOf(vec, inst);
      const want = {
        d: (vec.out.d as Json[]).map((x) => (x === null ? null : toBig(x))),
        p: vec.out.p === undefined ? new Array<null>(32).fill(null) : (vec.out.p as (boolean | null)[]),
      };
      const spec = warpSpec(f, kinds, inst.guard !== null);
      for (const mcpu of MCPUS) {
        const t = TARGETS[mcpu];
        const rules = warpRulesOf(f).filter((r) => r.when(f, { spec, t, profile: "isa" }));
        if (!rules.length) bad.push(`${vec.id} ${mcpu}: no rule`);
        for (const rule of rules) {
          runs++;
          const { errors } = check(lowerWithRule(spec, t, "isa", rule as unknown as AmdRule), f, c, want);
          if (errors.length) bad.push(`${vec.id} ${mcpu} ${rule.name}: ${errors.slice(0, 3).join("; ")}`);
        }
      }
    }
    console.log(`warp.jsonl on AMDGPU: ${runs} vector × processor × rule runs, ${bad.length} failed`);
    expect(bad.slice(0, 20), bad.slice(0, 20).join("\n")).toEqual([]);
  });
});

describe("llvm-mc-19 assembles every warp routine and rule", () => {
  const mc = spawnSync("llvm-mc-19", ["--version"], { encoding: "utf8" }).status === 0 ? "llvm-mc-19" : null;
  if (!mc) console.log("llvm-mc-19 not found on PATH: skipping the assembly check");
  for (const mcpu of MCPUS) {
    it.skipIf(!mc)(`${mcpu}: every form × kinds × guard × applicable rule`, () => {
      const t = TARGETS[mcpu];
      const texts: string[] = [];
      for (const f of FORMS)
        kindsOf(f).forEach(({ kinds, guarded }, i) => {
          const spec = warpSpec(f, kinds, guarded);
          for (const rule of warpRulesOf(f).filter((r) => r.when(f, { spec, t, profile: "isa" })))
            texts.push(printRoutine(`${warpFormId(f)}__k${i}${guarded ? "__g" : ""}__${rule.name}`, lowerWithRule(spec, t, "isa", rule as unknown as AmdRule)));
        });
      const file = join(mkdtempSync(join(tmpdir(), "warp-mc-")), `${mcpu}.s`);
      writeFileSync(file, texts.join("\n"));
      const res = spawnSync(mc!, ["-arch=amdgcn", `-mcpu=${mcpu}`, file, "-o", "/dev/null"], { encoding: "utf8" });
      expect(res.stderr).toBe("");
      expect(res.status).toBe(0);
      expect(texts.join("\n")).toMatch(/ds_bpermute_b32/);
    });
  }
});
