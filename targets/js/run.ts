/**
 * @fileoverview Loading a printed JS module and calling its routines on concrete values, for
 * the differential checks. Values cross the boundary as in the routine contract: u32 as
 * numbers, 33..64-bit as BigInts, lanes as Uint32Array / BigUint64Array / boolean[].
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { PirFunction, PirValue, PType, Scalar } from "../portable/pir.js";

/** A routine exported by a loaded module. */
export type JsRoutine = (...args: unknown[]) => unknown;

/**
 * Imports a module from source: writes it to a temporary `.mjs` file and `import()`s it
 * (the file is removed afterwards).
 * @returns the module's exports.
 */
export async function loadJsModule(src: string): Promise<Record<string, JsRoutine>> {
  const dir = mkdtempSync(join(tmpdir(), "ptx-lower-js-"));
  const file = join(dir, "routines.mjs");
  writeFileSync(file, src);
  try {
    return (await import(pathToFileURL(file).href)) as Record<string, JsRoutine>;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const big = (t: Scalar) => t.t === "bv" && t.w > 32;

/** A concrete value as the JS routine takes it. */
export function toJs(t: PType, v: PirValue): unknown {
  if (t.t === "arr") {
    const xs = v as readonly (bigint | boolean)[];
    if (t.elem.t === "bool") return xs.map(Boolean);
    return big(t.elem) ? BigUint64Array.from(xs as bigint[]) : Uint32Array.from(xs as bigint[], Number);
  }
  if (t.t === "bool") return Boolean(v);
  return big(t) ? BigInt(v as bigint) : Number(v as bigint);
}

/** A JS routine's output value back as a concrete value of type t. */
export function fromJs(t: PType, v: unknown): PirValue {
  const one = (s: Scalar, x: unknown): bigint | boolean => {
    if (s.t === "bool") {
      if (typeof x !== "boolean") throw new Error(`expected a boolean, got ${String(x)}`);
      return x;
    }
    if (typeof x !== "number" && typeof x !== "bigint") throw new Error(`expected a number, got ${String(x)}`);
    const n = BigInt(x);
    if (n < 0n || n >= 1n << BigInt(s.w)) throw new Error(`value ${x} out of range for u${s.w}`);
    return n;
  };
  if (t.t === "arr") {
    const xs = Array.from(v as ArrayLike<unknown>);
    if (xs.length !== t.n) throw new Error(`expected ${t.n} lanes, got ${xs.length}`);
    return xs.map((x) => one(t.elem, x));
  }
  return one(t, v);
}

/**
 * Calls the JS routine `f` (printed from `fn`) on concrete arguments.
 * @returns each result of `fn` as a concrete value.
 * @throws when an output is missing, of the wrong kind, or out of its type's range.
 */
export function callJs(fn: PirFunction, f: JsRoutine, args: Record<string, PirValue>): Record<string, PirValue> {
  const out = f(...fn.params.map((p) => toJs(p.type, args[p.name]!)));
  const single = fn.results.length === 1 && fn.results[0]!.type.t !== "arr";
  const obj = single ? { [fn.results[0]!.name]: out } : (out as Record<string, unknown>);
  return Object.fromEntries(fn.results.map((r) => [r.name, fromJs(r.type, obj[r.name])]));
}
