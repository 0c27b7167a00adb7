/**
 * @fileoverview What the portable printers (targets/js, targets/c) share: the routine they
 * print, and how they format a module in pieces (the run size, and the routine names whose
 * spelling cannot change a formatter's output beyond their shape).
 */
import type { PirFunction } from "./pir.js";

/** One routine to print: its name, PIR, and the text of its header comment. */
export interface Routine {
  name: string;
  fn: PirFunction;
  /** Block-comment text: the routine contract, the rule, the PTX locations served. */
  header: string;
}

/** Characters of pieces per formatter run (see each printer's `formatPieces`). */
export const CHUNK = 1 << 14;

/** A routine name whose spelling cannot matter to a formatter beyond its length and the class of each character. */
export function plainName(name: string): boolean {
  return /^[a-z][a-z0-9_]*__[a-z0-9_]*$/.test(name);
}

/** `name` with each character replaced by its class (letter, digit, underscore). */
export function nameShape(name: string): string {
  return name.replace(/[a-z]/g, "a").replace(/[A-Z]/g, "A").replace(/[0-9]/g, "0");
}
