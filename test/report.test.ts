/**
 * `ptx-lower report`: the data (src/report.ts), the JSON document against
 * docs/report.schema.json, and the tables (bin/report.ts).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseModule } from "../src/ir/build.js";
import { buildReport } from "../src/report.js";
import type { Report } from "../src/report.js";
import { formatReportJson, formatReportTables, report } from "../bin/report.js";
import { matchBound } from "../targets/amdgpu/verify.js";
import { collectRoutines } from "../src/lower.js";
import { lowerRoutine } from "../targets/amdgpu/lower.js";
import { TARGETS } from "../targets/amdgpu/regs.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import { validate } from "./schema.js";
import type { Schema } from "./schema.js";

const PTX = `.version 9.0
.target sm_90
.address_size 64

.visible .entry k(.param .u64 p0, .param .u32 p1)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<4>;
	ld.param.u64 	%rd1, [p0];
	ld.param.u32 	%r1, [p1];
	mov.u32 	%r2, %tid.x;
	cvt.u64.u32 	%rd2, %r2;
	szext.clamp.s32 	%r3, %r2, %r1;
	szext.wrap.u32 	%r4, %r2, 8;
	szext.wrap.u32 	%r5, %r3, 8;
	setp.lt.u32 	%p1, %r2, 16;
	@%p1 match.any.sync.b32 	%r6, %r2, 0xffffffff;
	match.all.sync.b64 	%r7|%p2, %rd2, %r1;
	vshr.s32.s32.u32.clamp.add 	%r8, %r2, %r1, %r3;
	add.s32 	%r9, %r8, %r7;
	st.global.u32 	[%rd1], %r9;
	ret;
}
`;

const mod = parseModule(PTX, "k.ptx");

/**
 * The routines of PTX, in order, and their static counts in issue cycles (one per
 * instruction, N + 1 for `s_nop N`) on gfx900 and gfx1100, written out from the listings
 * (`ptx-lower lower k.ptx --target amdgpu --mcpu gfx900|gfx1100`: the "N instructions (M issue
 * cycles)" line of each routine, the same form as test/cases/*.amdgpu.*.s): gfx900 ends each
 * routine with `s_nop 1` (2 cycles), gfx1100 has no waits here.
 */
const ROUTINES: { name: string; gfx900: number; gfx1100: number }[] = [
  { name: "szext_clamp_s32__v_s", gfx900: 5, gfx1100: 3 }, // v_bfe, v_cmp, v_cndmask (+ s_nop 1)
  { name: "szext_wrap_u32__v_imm8", gfx900: 3, gfx1100: 1 }, // v_bfe (+ s_nop 1)
  { name: "match_any_sync_b32__v_imm0xffffffff__g", gfx900: 10, gfx1100: 8 }, // saveexec, 5-instruction loop, s_mov exec, v_cndmask (+ s_nop 1)
  { name: "match_all_sync_b64_dp__v_s", gfx900: 10, gfx1100: 8 }, // saveexec, 2 readfirstlane, v_cmp, s_cmp, s_cselect, s_mov exec, v_mov (+ s_nop 1)
  { name: "vshr_s32_s32_clamp_add__v_s_v", gfx900: 5, gfx1100: 3 }, // v_min, v_ashrrev, v_add (+ s_nop 1)
];
const staticOf = (name: string, mcpu: string) => ROUTINES.find((r) => r.name === name)![mcpu as "gfx900" | "gfx1100"];

const schema = JSON.parse(readFileSync(new URL("../docs/report.schema.json", import.meta.url), "utf8")) as Schema;

describe("report", () => {
  let rep: Report;
  it("reports every occurrence, routine and target, with verdicts", async () => {
    expect(mod.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    rep = await buildReport([mod], { mcpus: ["gfx900", "gfx1100"], profile: "isa", check: { random: 20, warps: 60, seed: 3 } });
    const m = rep.modules[0]!;
    expect(m.occurrences.map((o) => `${o.line}:${o.col}`)).toEqual(["14:2", "15:2", "16:2", "18:7", "19:2", "20:2"]);
    expect(m.summary.byFamily).toEqual({ szext: 3, video: 1, vop: 0, match: 2, warp: 0 });
    // %r2 and %r3 are divergent, so both `szext.wrap.u32 …, 8` share one routine.
    expect(m.routines.map((r) => r.name)).toEqual(ROUTINES.map((r) => r.name));
    const wrap = m.routines.find((r) => r.form === "szext.wrap.u32")!;
    expect(wrap.occurrences).toBe(2);
    expect(wrap.operands).toEqual({ a: "v", b: "imm 0x8" });
    const clamp = m.routines.find((r) => r.form === "szext.clamp.s32")!;
    expect(clamp.operands).toEqual({ a: "v", b: "s" });
    for (const r of m.routines) {
      expect(r.targets.map((t) => t.target)).toEqual(["amdgpu gfx900", "amdgpu gfx1100", "js", "c", "hip gfx900", "hip gfx1100", "llvm gfx900", "llvm gfx1100"]);
      for (const t of r.targets) {
        expect(["tested", "skipped"]).toContain(t.verdict.status); // skipped only without a C compiler
        expect(t.rule).not.toBe("(none)");
        if (t.target.startsWith("amdgpu")) {
          expect(t.static, `${r.name} ${t.mcpu}`).toBe(staticOf(r.name, t.mcpu!));
          expect(t.dynamic).not.toBeNull();
        } else if (t.mcpu) {
          // hip / llvm: the compiled function's issue cycles; no dynamic count.
          expect(t.rule).toMatch(/^(clang|llc)-19 -O2: /);
          expect(t.static).toBeGreaterThan(0);
          expect(t.dynamic).toBeNull();
        } else expect(t.static).toBeNull();
      }
    }
    expect(m.summary.verdicts.error).toBe(0);
    expect(m.summary.verdicts.refuted).toBe(0);
  });

  it("counts dynamic instructions: straight-line scalar = static, match at k = 1 and 32", () => {
    const m = rep.modules[0]!;
    const specs = new Map(collectRoutines(mod).map((r) => [r.name, r.spec]));
    // match.any's waterfall at k = 32 (32 distinct values): the saveexec once, the 5-instruction
    // loop body 32 times, then s_mov exec, v_cndmask and (gfx900) s_nop 1 = 2 cycles:
    // gfx900 1 + 160 + 4 = 165, gfx1100 1 + 160 + 2 = 163. match.all with a uniform
    // membermask is loop-free: k = 32 costs what k = 1 does, its static count.
    const K32: Record<string, Record<string, number>> = {
      match_any_sync_b32__v_imm0xffffffff__g: { gfx900: 165, gfx1100: 163 },
      match_all_sync_b64_dp__v_s: { gfx900: 10, gfx1100: 8 },
    };
    for (const r of m.routines)
      for (const t of r.targets) {
        if (!t.dynamic) continue;
        const where = `${r.name} ${t.mcpu}`;
        // Straight-line code, and one round of a waterfall (k = 1), run every instruction once.
        if (t.dynamic.kind === "scalar") expect(t.dynamic.steps, where).toBe(staticOf(r.name, t.mcpu!));
        else {
          const spec = specs.get(r.name)!;
          expect(t.dynamic.k1, where).toBe(staticOf(r.name, t.mcpu!));
          expect(t.dynamic.k32, where).toBe(K32[r.name]![t.mcpu!]);
          expect(t.dynamic.checkerMax).not.toBeNull();
          const bound = matchBound(spec, 32);
          // The issue's bound counts the rule's own instructions; the hazard pass's waits come
          // on top, at most once per executed copy of the routine's text (32 rounds at k = 32).
          const waits = lowerRoutine(spec, TARGETS[t.mcpu as Mcpu], "isa").waits;
          if (bound !== undefined) expect(t.dynamic.k32!).toBeLessThanOrEqual(bound + 32 * waits);
        }
      }
  });

  it("keeps a census of every other instruction", () => {
    const m = rep.modules[0]!;
    const byOp = Object.fromEntries(m.census.map((c) => [c.opcode, c]));
    expect(byOp.ld!.count).toBe(2);
    expect(byOp.ld!.forms).toEqual([
      { opcode: "ld.param.u32", count: 1 },
      { opcode: "ld.param.u64", count: 1 },
    ]);
    expect(Object.keys(byOp).sort()).toEqual(["add", "cvt", "ld", "mov", "ret", "setp", "st"]);
    expect(m.summary.otherInstructions).toBe(8);
  });

  it("prints JSON that follows docs/report.schema.json", () => {
    const doc = JSON.parse(formatReportJson(rep)) as unknown;
    expect(validate(schema, schema, doc)).toEqual([]);
    // The validator itself notices a wrong document.
    const bad = JSON.parse(formatReportJson(rep)) as Report;
    (bad.modules[0]!.routines[0]!.targets[0]! as { static: unknown }).static = "3";
    delete (bad.modules[0]!.summary as Partial<Report["modules"][0]["summary"]>).verdicts;
    expect(validate(schema, schema, bad).length).toBe(2);
  });

  it("prints tables for people", () => {
    const text = formatReportTables(rep);
    expect(text).toContain("== k.ptx");
    expect(text).toContain("18:7");
    expect(text).toMatch(/match\.any\.sync\.b32 %r6, %r2, 0xffffffff;/);
    expect(text).toMatch(/k=1: \d+, k=32: \d+/);
    expect(text).toContain("ld.param.u32 1, ld.param.u64 1");
    expect(text).toMatch(/verdicts: \d+ tested, 0 refuted/);
    // The summary names every target the tables have rows for, hip and llvm included.
    expect(text).toContain("targets: amdgpu gfx900, amdgpu gfx1100, js, c, hip gfx900, hip gfx1100, llvm gfx900, llvm gfx1100; semantics isa;");
  });

  it("runs without the checker and is deterministic", async () => {
    const a = await report([mod], { mcpus: ["gfx942"], profile: "sm90", json: true, check: false });
    const b = await report([mod], { mcpus: ["gfx942"], profile: "sm90", json: true, check: false });
    expect(a).toBe(b);
    const doc = JSON.parse(a) as Report;
    expect(validate(schema, schema, doc)).toEqual([]);
    expect(doc.check).toBeNull();
    // amdgpu gfx942, js, c, hip gfx942, llvm gfx942.
    expect(doc.modules[0]!.summary.verdicts["not-run"]).toBe(doc.modules[0]!.routines.length * 5);
  });
});
