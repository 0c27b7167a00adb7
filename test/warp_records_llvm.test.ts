/**
 * Issue 15 item 3, the LLVM crosscheck of the warp family's new records, a seeded sample per
 * record group: the IR functions and their meanings written out from the AMD manuals and
 * LLVM's text (targets/amdgpu/oracle/warp_records.ts, which `npm run crosscheck:llvm` runs in
 * full), compiled by llc-19 for every processor, run in the project's interpreter with the LDS
 * wait model, and compared lane by lane. Per-record figures are printed. Skipped, with the
 * reason printed, when llc-19 is absent.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Rng } from "../src/check/random.js";
import { concrete } from "../src/sem/bv.js";
import { LdsWaitError, outstandingDs, run } from "../targets/amdgpu/interp.js";
import { TARGETS } from "../targets/amdgpu/regs.js";
import { LANE_TARGETS, compileIr, crosscheckSequences, initialState, inregRegisters, llvmAvailable } from "../targets/amdgpu/oracle/llvm.js";
import type { SeqClassReport, WaveMeaning } from "../targets/amdgpu/oracle/llvm.js";
import { warpRecordGroups } from "../targets/amdgpu/oracle/warp_records.js";

const have = llvmAvailable();
if (!have.ok) console.log(`warp_records_llvm: skipped, ${have.reason}`);
const SEED = 0x15a3;

const GROUPS = warpRecordGroups();

describe.skipIf(!have.ok)("the warp records agree with LLVM 19 (llc's code run in the interpreter)", () => {
  const reports = new Map<string, SeqClassReport>();
  beforeAll(async () => {
    for (const [g, { funcs }] of Object.entries(GROUPS)) {
      const [r] = await crosscheckSequences({ funcs, targets: LANE_TARGETS, runs: 12, seed: SEED });
      reports.set(g, r!);
      const mn = [...r!.mnemonics].filter(([m]) => /dpp|permute|permlane|writelane|waitcnt/.test(m)).map(([m, n]) => `${m}×${n}`).join(" ");
      console.log(`warp records vs LLVM 19 — ${g}: ${r!.compiled} functions compiled, ${r!.agreed}/${r!.cases} lanes agree, ${r!.disagreements.length} disagree, ${r!.unsupported.length} unsupported [${mn}]`);
    }
  }, 600_000);

  for (const g of Object.keys(GROUPS))
    it(`${g}: every lane agrees on every processor`, () => {
      const r = reports.get(g)!;
      expect(r.unsupported).toEqual([]);
      expect(r.disagreements.slice(0, 5).map((d) => `${d.label} ${d.target} lane ${d.lane}: ${d.inputs} → want ${d.expected}, got ${d.got}\n${d.code.join("\n")}`)).toEqual([]);
      expect(r.cases).toBeGreaterThan(200);
      for (const m of GROUPS[g]!.mnemonics) expect(r.mnemonics.get(m) ?? 0, m).toBeGreaterThan(0);
    });

  it("the LDS wait model has teeth on llc's code: without its s_waitcnt lgkmcnt the bpermute result is read too early", async () => {
    for (const t of LANE_TARGETS) {
      const f = GROUPS.ds_bpermute_b32!.funcs[0]!;
      const got = (await compileIr([f.fn], t)).get(f.fn.name)!;
      if (!("lines" in got)) throw new Error(got.error);
      const i = got.lines.findIndex((l) => "op" in l && l.op === "ds_bpermute_b32");
      const w = got.lines.findIndex((l, k) => k > i && "op" in l && l.op === "s_waitcnt");
      expect(i, t.mcpu).toBeGreaterThanOrEqual(0);
      expect(w, t.mcpu).toBeGreaterThan(i);
      const gen = TARGETS[t.mcpu].gen;
      const { perLane, exec } = (f.meaning as { wave: WaveMeaning }).wave.inputs(new Rng(SEED), t.wave);
      const regs = await inregRegisters(t);
      const st = initialState(t.wave, f.fn, perLane, exec, regs, got.lines, gen);
      expect(run(concrete, got.lines, st).status).toBe("ok");
      expect(outstandingDs(st)).toEqual([]);
      // llc returns the result in v0 right after the wait: without it, the result is still
      // outstanding when the function returns (the contract failure waveRun reports) …
      const weakened = got.lines.filter((_, k) => k !== w);
      const st2 = initialState(t.wave, f.fn, perLane, exec, regs, weakened, gen);
      run(concrete, weakened, st2);
      expect(outstandingDs(st2), t.mcpu).toEqual([expect.stringMatching(/^v0 from ds_bpermute_b32 v0, v1, v0, 0 is still outstanding/)]);
      // … and any use of it before the wait is refuted.
      const use = [...weakened.slice(0, w), { op: "v_mov_b32" as const, enc: "e32" as const, ops: [{ k: "v" as const, n: 2, count: 1 as const }, { k: "v" as const, n: 0, count: 1 as const }], rule: "test" }];
      expect(() => run(concrete, use, initialState(t.wave, f.fn, perLane, exec, regs, use, gen)), t.mcpu).toThrow(LdsWaitError);
    }
  });

  it("llc folds op(update.dpp) into the DPP forms of add/max/min on every generation", () => {
    const r = reports.get("v_add_u32_dpp/v_add_nc_u32_dpp, v_max_u32_dpp, v_min_u32_dpp, v_max_i32_dpp, v_min_i32_dpp")!;
    const n = (m: string) => r.mnemonics.get(m) ?? 0;
    expect(n("v_add_u32_dpp") + n("v_add_nc_u32_dpp")).toBeGreaterThan(0);
    expect(n("v_max_u32_dpp")).toBeGreaterThan(0);
    expect(n("v_min_u32_dpp")).toBeGreaterThan(0);
    expect(n("v_max_i32_dpp")).toBeGreaterThan(0);
    expect(n("v_min_i32_dpp")).toBeGreaterThan(0);
  });
});
