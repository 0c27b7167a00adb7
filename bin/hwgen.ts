/**
 * @fileoverview `ptx-lower hwgen`: adapts src/hw/hwgen.ts.
 */
import type { Diagnostic } from "../src/diag.js";

export function hwgenFile(_text: string, _file: string): { text: string | null; count: number; diagnostics: Diagnostic[] } {
  throw new Error("hwgen: not implemented yet");
}
