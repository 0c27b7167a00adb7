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
import type { WarpCase } from "../src/check/warp_cases.js";
import { vectorModule, warpLevelCase } from "../src/check/vectors.js";

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

/** The vector's instruction in a module with its header and its registers declared: `vectorModule` of src/check/vectors.ts, as `check` reads it. */
export function wrap(v: RawVector): string {
  return vectorModule(v);
}

export const toBig = (x: Json): bigint => (typeof x === "boolean" ? (x ? 1n : 0n) : BigInt(x as string));

/** The vector's inputs as a `WarpCase`: `warpLevelCase` of src/check/vectors.ts, the reading `check` uses. */
export function caseOf(v: RawVector, inst: WarpInst): WarpCase {
  return warpLevelCase({ ...v, line: 0, inst });
}
