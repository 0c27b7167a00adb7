import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { szextForms } from "../src/ir/forms.js";
import type { OperandKind, RoutineSpec } from "../src/ir/ir.js";
import { routineName } from "../src/ir/ir.js";
import { formId } from "../src/ir/forms.js";
import type { ScalarCase } from "../src/check/inputs.js";
import { familyOf } from "../src/families/index.js";
import { checkScalar } from "../src/check/scalar.js";
import { amdgpuExecutor } from "../targets/amdgpu/verify.js";
import { MCPUS, TARGETS } from "../targets/amdgpu/regs.js";
import { applicableRules, lowerRoutine, lowerWithRule, printRoutine } from "../targets/amdgpu/lower.js";
import type { AmdRule } from "../targets/amdgpu/rules/rule.js";
import { imm } from "../targets/amdgpu/minst.js";

const V: OperandKind = { kind: "v" };
const S: OperandKind = { kind: "s" };
const I = (x: bigint): OperandKind => ({ kind: "imm", value: x });

function allSpecs(): RoutineSpec[] {
  const out: RoutineSpec[] = [];
  for (const form of szextForms())
    for (const a of [V, S, I(0x80n), I(0xffffffffn)])
      for (const b of [V, S, I(0n), I(1n), I(8n), I(16n), I(31n), I(32n), I(33n), I(0x100000005n & 0xffffffffn), I(0xffffffffn)])
        for (const guarded of [false, true]) out.push({ form, kinds: { a, b }, guarded });
  return out;
}

describe("szext → AMDGPU", () => {
  it("every rule of every routine equals the reference on every mcpu (shadowed rules included)", async () => {
    let checked = 0;
    const seen = new Set<string>();
    for (const spec of allSpecs())
      for (const mcpu of MCPUS) {
        const t = TARGETS[mcpu];
        const rules = applicableRules(spec, t, "isa");
        expect(rules.length, `no rule for ${routineName(spec, formId)} on ${mcpu}`).toBeGreaterThan(0);
        for (const rule of rules) {
          const r = lowerWithRule(spec, t, "isa", rule);
          // Identical code on the same wave size runs identically: check it once.
          const key = `${t.wave} ${JSON.stringify(spec, (_k, x) => (typeof x === "bigint" ? String(x) : x))} ${printRoutine("r", r)}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const res = await checkScalar(spec.form, "isa", amdgpuExecutor(r), familyOf(spec.form).cases(spec, { seed: 7, random: 200 }) as ScalarCase[]);
          expect(res.failure, `${rule.name} ${routineName(spec, formId)} ${mcpu}`).toBeUndefined();
          checked++;
        }
      }
    expect(checked).toBeGreaterThan(500);
  });

  it("meets the instruction budgets: .wrap 1, .clamp ≤ 3, +1 for an SGPR or literal a on gfx9", () => {
    for (const form of szextForms())
      for (const mcpu of MCPUS)
        for (const a of [V, S, I(0x12345n)]) {
          const r = lowerRoutine({ form, kinds: { a, b: V }, guarded: false }, TARGETS[mcpu], "isa");
          const extra = TARGETS[mcpu].gen === 9 && a.kind !== "v" ? 1 : 0;
          const budget = (form.mode === "wrap" ? 1 : 3) + extra;
          expect(r.count - r.waits, `${form.mode}.${form.type} a=${a.kind} ${mcpu}: ${r.rule}`).toBeLessThanOrEqual(budget);
          if (a.kind === "v") expect(r.count - r.waits).toBe(form.mode === "wrap" ? 1 : 3);
        }
  });

  const llvmMc = spawnSync("llvm-mc-19", ["--version"]).status === 0;
  it.skipIf(!llvmMc)("llvm-mc-19 accepts every routine for its mcpu", () => {
    if (!llvmMc) console.log("skipped: llvm-mc-19 is not installed");
    const dir = mkdtempSync(join(tmpdir(), "szext-mc-"));
    for (const mcpu of MCPUS) {
      const text = allSpecs()
        .map((spec) => printRoutine(routineName(spec, formId), lowerRoutine(spec, TARGETS[mcpu], "isa")))
        .join("\n");
      const file = join(dir, `${mcpu}.s`);
      writeFileSync(file, text);
      const r = spawnSync("llvm-mc-19", ["-arch=amdgcn", `-mcpu=${mcpu}`, file, "-o", "/dev/null"], { encoding: "utf8" });
      expect(r.stderr, mcpu).toBe("");
      expect(r.status).toBe(0);
    }
  });

  it("a broken rule (v_bfe for .clamp without the select) is refuted", async () => {
    const broken: AmdRule = {
      name: "szext_clamp_bfe_only",
      prio: 0,
      when: () => true,
      emit: (f, m) => m.emit(f.op === "szext" && f.type === "s32" ? "v_bfe_i32" : "v_bfe_u32", m.d(), m.src("a"), imm(0), m.src("b")),
    };
    const spec: RoutineSpec = { form: { op: "szext", mode: "clamp", type: "s32" }, kinds: { a: V, b: V }, guarded: false };
    const r = lowerWithRule(spec, TARGETS.gfx942, "isa", broken);
    const res = await checkScalar(spec.form, "isa", amdgpuExecutor(r), familyOf(spec.form).cases(spec, { seed: 1, random: 10 }) as ScalarCase[]);
    expect(res.failure).toBeDefined();
    expect(res.failure!.case.b).toBeGreaterThanOrEqual(32n);
  });
});


