/**
 * The shared warp-level vectors, ../shared/vectors/warp.jsonl, read as they are (FORMAT.md:
 * per-lane `b`/`c`/membermask, predicate booleans, the optional `module` header, guards with
 * prior `d`/`p`), each through `parseModule` (the warp front end of src/ir/warp_check.ts, in a
 * module with the vector's `.version`/`.target`) and the reference semantics run concretely
 * (src/check/warp_cases.ts → src/sem/warp.ts). The reference must agree with every lane of
 * every vector exactly: the same value where the vector gives one, and undefined (null)
 * exactly where the vector says null. The expected values are the vectors', never ours.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { WarpInst } from "../src/ir/warp_check.js";
import { parseModule } from "../src/ir/build.js";
import { familyOf } from "../src/families/index.js";
import { warpFormName, warpPredicateDest } from "../src/ir/warp_forms.js";
import type { PtxOperand } from "../src/ir/ir.js";
import { type WarpCase, warpReference } from "../src/check/warp_cases.js";

const FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "shared", "vectors", "warp.jsonl");

type Json = string | boolean | null | Json[];
interface RawVector {
  id: string;
  ptx: string;
  warp: { active: string };
  in: Record<string, Json>;
  out: Record<string, Json>;
  module?: { version: string; target: string };
}

/** The module's diagnostics and its warp-level instructions. */
function checkWarpModule(text: string, file: string): { diagnostics: ReturnType<typeof parseModule>["diagnostics"]; insts: WarpInst[] } {
  const m = parseModule(text, file);
  return { diagnostics: m.diagnostics, insts: m.insts.filter((i) => familyOf(i.form).name === "warp") as WarpInst[] };
}

const VECTORS: RawVector[] = readFileSync(FILE, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as RawVector);

/** The vector's instruction in a module with its header and its registers declared (FORMAT.md: vote's `a`, and `d` but for `.ballot`, are `.pred`). */
function wrap(v: RawVector): string {
  const vote = /\bvote\b/.test(v.ptx);
  const predD = vote && !/\.ballot\b/.test(v.ptx);
  const regs32 = ["b", "c", "membermask", ...(vote ? [] : ["a"]), ...(predD ? [] : ["d"])];
  const preds = ["p", "g", ...(vote ? ["a"] : []), ...(predD ? ["d"] : [])];
  return [
    `.version ${v.module?.version ?? "9.0"}`,
    `.target ${v.module?.target ?? "sm_90"}`,
    ".address_size 64",
    ".visible .entry vector_wrapper()",
    "{",
    `.reg .b32 ${regs32.join(", ")};`,
    `.reg .pred ${preds.join(", ")};`,
    v.ptx,
    "ret;",
    "}",
  ].join("\n");
}

const toBig = (x: Json): bigint => (typeof x === "boolean" ? (x ? 1n : 0n) : BigInt(x as string));

/** A source's 32 lane values: the immediate, or the vector's `in` entry (one value or 32). */
function lanesOf(v: RawVector, op: PtxOperand | undefined, name: string): bigint[] {
  if (op === undefined) return [];
  if (op.kind === "imm") return new Array<bigint>(32).fill(op.value);
  const x = v.in[op.kind === "reg" ? op.name : name];
  if (x === undefined) throw new Error(`${v.id}: no in.${name}`);
  return Array.isArray(x) ? x.map(toBig) : new Array<bigint>(32).fill(toBig(x));
}

function caseOf(v: RawVector, inst: WarpInst): WarpCase {
  const f = inst.form;
  const guarded = inst.guard !== null;
  const g = v.in.g;
  const a = f.op === "activemask" ? new Array<bigint>(32).fill(0n) : lanesOf(v, inst.a, "a");
  return {
    label: v.id,
    // vote: an immediate predicate is true when non-zero.
    a: f.op === "vote" ? a.map((x) => (x !== 0n ? 1n : 0n)) : a,
    b: lanesOf(v, inst.b, "b"),
    c: lanesOf(v, inst.c, "c"),
    membermask: inst.membermask ? lanesOf(v, inst.membermask, "membermask") : null,
    active: Number(BigInt(v.warp.active)),
    // The lane executes when its guard predicate holds (`@g`) or fails (`@!g`).
    guard: guarded ? (Array.isArray(g) ? (g as boolean[]) : new Array<boolean>(32).fill(g as boolean)).map((x) => x !== inst.guard!.negate) : null,
    dPrior: guarded ? lanesOf(v, { kind: "reg", name: "d", loc: inst.loc }, "d") : new Array<bigint>(32).fill(0n),
    pPrior: guarded && Array.isArray(v.in.p) ? (v.in.p as boolean[]) : new Array<boolean>(32).fill(false),
  };
}

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
