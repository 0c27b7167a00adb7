/**
 * The shared warp vectors (../shared/vectors/warp.jsonl, FORMAT.md) as the warp tests read them:
 * each vector's instruction wrapped in a module with its header and registers, parsed, and its
 * inputs as a `WarpCase` (src/check/warp_cases.ts). Used by test/warp_vectors.test.ts (the
 * reference) and test/warp_amdgpu.test.ts (the AMDGPU rules).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { WarpInst } from "../src/ir/warp_check.js";
import { parseModule } from "../src/ir/build.js";
import { familyOf } from "../src/families/index.js";
import type { PtxOperand } from "../src/ir/ir.js";
import type { WarpCase } from "../src/check/warp_cases.js";

export const FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "shared", "vectors", "warp.jsonl");

export type Json = string | boolean | null | Json[];
export interface RawVector {
  id: string;
  ptx: string;
  warp: { active: string };
  in: Record<string, Json>;
  out: Record<string, Json>;
  module?: { version: string; target: string };
}

/** The module's diagnostics and its warp-level instructions. */
export function checkWarpModule(text: string, file: string): { diagnostics: ReturnType<typeof parseModule>["diagnostics"]; insts: WarpInst[] } {
  const m = parseModule(text, file);
  return { diagnostics: m.diagnostics, insts: m.insts.filter((i) => familyOf(i.form).name === "warp") as WarpInst[] };
}

export const VECTORS: RawVector[] = readFileSync(FILE, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l) as RawVector);

/** The vector's instruction in a module with its header and its registers declared (FORMAT.md: vote's `a`, and `d` but for `.ballot`, are `.pred`). */
export function wrap(v: RawVector): string {
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

export const toBig = (x: Json): bigint => (typeof x === "boolean" ? (x ? 1n : 0n) : BigInt(x as string));

/** A source's 32 lane values: the immediate, or the vector's `in` entry (one value or 32). */
export function lanesOf(v: RawVector, op: PtxOperand | undefined, name: string): bigint[] {
  if (op === undefined) return [];
  if (op.kind === "imm") return new Array<bigint>(32).fill(op.value);
  const x = v.in[op.kind === "reg" ? op.name : name];
  if (x === undefined) throw new Error(`${v.id}: no in.${name}`);
  return Array.isArray(x) ? x.map(toBig) : new Array<bigint>(32).fill(toBig(x));
}

export function caseOf(v: RawVector, inst: WarpInst): WarpCase {
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

