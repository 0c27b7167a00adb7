/**
 * The shared warp-level vectors, ../shared/vectors/warp.jsonl, read as they are (FORMAT.md:
 * per-lane `b`/`c`/membermask, predicate booleans, the optional `module` header, guards with
 * prior `d`/`p`), each through `parseModule` (the warp front end of src/ir/warp_check.ts, in a
 * module with the vector's `.version`/`.target`) and the reference semantics run concretely
 * (src/check/warp_cases.ts → src/sem/warp.ts). The reference must agree with every lane of
 * every vector exactly: the same value where the vector gives one, and undefined (null)
 * exactly where the vector says null. The expected values are the vectors', never ours.
 */
import { describe, expect, it } from "vitest";
import { warpFormName, warpPredicateDest } from "../src/ir/warp_forms.js";
import { warpReference } from "../src/check/warp_cases.js";
import { type Json, VECTORS, caseOf, checkWarpModule, toBig, wrap } from "./warp_vector_cases.js";


describe("warp.jsonl", () => {
  it("has the 369 vectors FORMAT.md lists", () => {
    expect(VECTORS.length).toBe(369);
  });

  it("every vector's instruction passes the warp front end as one instruction, without errors", () => {
    const bad: string[] = [];
    for (const v of VECTORS) {
      const { diagnostics, insts } = checkWarpModule(wrap(v), `${v.id}.ptx`);
      const errors = diagnostics.filter((d) => d.severity === "error");
      if (errors.length > 0 || insts.length !== 1) bad.push(`${v.id}: ${v.ptx} → ${errors.map((d) => d.message).join("; ") || `${insts.length} instructions`}`);
    }
    expect(bad).toEqual([]);
  });

  it("the deprecated shfl/vote vectors get ptxas's two warnings, the others none", () => {
    for (const v of VECTORS) {
      const warnings = checkWarpModule(wrap(v), "v.ptx").diagnostics.filter((d) => d.severity === "warning");
      const deprecated = !/\.sync\b/.test(v.ptx) && !/^(@!?g\s+)?activemask/.test(v.ptx);
      expect(warnings.length, v.id).toBe(deprecated ? 2 : 0);
    }
  });

  it("the reference agrees with every lane of every vector (values, and undefined exactly where null)", () => {
    const problems: string[] = [];
    let agree = 0;
    for (const v of VECTORS) {
      const inst = checkWarpModule(wrap(v), "v.ptx").insts[0]!;
      const want = warpReference(inst.form, caseOf(v, inst));
      const pred = warpPredicateDest(inst.form);
      const expD = (v.out.d as Json[]).map((x) => (x === null ? null : toBig(x)));
      const lanes: string[] = [];
      for (let l = 0; l < 32; l++) {
        if (want.d[l] !== expD[l]) lanes.push(`lane ${l}: d ${fmt(want.d[l]!, pred)} (vector ${fmt(expD[l]!, pred)})`);
        if (v.out.p !== undefined) {
          const expP = (v.out.p as (boolean | null)[])[l];
          if (want.p[l] !== expP) lanes.push(`lane ${l}: p ${want.p[l]} (vector ${expP})`);
        }
      }
      if (lanes.length === 0) agree++;
      else problems.push(`${v.id} ${warpFormName(inst.form)}: ${lanes.slice(0, 4).join("; ")}${lanes.length > 4 ? ` (+${lanes.length - 4})` : ""}`);
    }
    console.log(`warp.jsonl: ${agree}/${VECTORS.length} vectors agree with the reference`);
    expect(problems, problems.join("\n")).toEqual([]);
  });
});

function fmt(x: bigint | null, pred: boolean): string {
  if (x === null) return "null";
  return pred ? String(x === 1n) : `0x${x.toString(16).padStart(8, "0")}`;
}
