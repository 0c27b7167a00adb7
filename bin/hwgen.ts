/**
 * @fileoverview `ptx-lower hwgen`: validates the vectors (as `check` does) and writes the
 * CUDA harness of src/hw/hwgen.ts.
 */
import type { Diagnostic } from "../src/diag.js";
import { readVectors } from "../src/check/vectors.js";
import { hwgenDetailed } from "../src/hw/hwgen.js";

export function hwgenFile(text: string, file: string): { text: string | null; count: number; diagnostics: Diagnostic[]; skipped: { id: string; reason: string }[] } {
  const { vectors, diagnostics } = readVectors(text, file);
  if (diagnostics.length) return { text: null, count: 0, diagnostics, skipped: [] };
  const r = hwgenDetailed(text, {}, file);
  return { text: r.cuda, count: vectors.length - r.skipped.length, diagnostics: [], skipped: r.skipped };
}
