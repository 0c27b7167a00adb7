/**
 * @fileoverview The `.version`s and `.target`s ptxas 13.0 accepts, and the lowest `.version`
 * that supports each target.
 *
 * Measured on ptxas 13.0 (V13.0.88), `ptxas -arch=sm_120 FILE.ptx -o /dev/null`, on a module
 * `.version V` / `.target T` / an empty `.entry`, for every V in 0.0…9.9 and every T in
 * `sm_N`, `sm_Na`, `sm_Nf`, `compute_N…` (N from 1 to 130): a version outside `PTX_VERSIONS`
 * is `Unsupported .version V; current version is '9.0'` (fatal, line 1); a target outside
 * `TARGET_MIN_VERSION` is `Unsupported .target 'T'` (fatal, line 2); the value is the first
 * V that ptxas does not answer with `PTX .version V does not support .target T` (an error;
 * ptxas goes on checking the module). `compute_N` names the same targets, with the same
 * minimum versions, as `sm_N` (`compute_90a` and the like too; ptxas only refuses to compile
 * one for another `-arch`, which is no property of the module).
 */

/** ptxas 13.0's own version, as its "Unsupported .version" message says it. */
export const PTXAS_PTX_VERSION = "9.0";

/**
 * Every `.version` ptxas 13.0 accepts, as `major * 10 + minor` with `minor` the integer after
 * the dot: ptxas reads `.version 1.05` as 1.5 and `.version 8.10` as 9.0 for this check
 * (both accepted), while its target check compares (major, minor) in order (`.version 8.10`
 * does not support sm_110, `.version 1.05` supports sm_12).
 */
export const PTX_VERSIONS: ReadonlySet<number> = new Set([
  10, 11, 12, 13, 14, 15, 20, 21, 22, 23, 30, 31, 32, 40, 41, 42, 43, 50, 51,
  60, 61, 62, 63, 64, 65, 70, 71, 72, 73, 74, 75, 76, 77, 78, 80, 81, 82, 83, 84, 85, 86, 87, 88, 90,
]);

/** Every architecture ptxas 13.0 accepts as `sm_X` (and `compute_X`), with the lowest `.version` [major, minor] that supports it. */
export const TARGET_MIN_VERSION: ReadonlyMap<string, readonly [number, number]> = new Map<string, readonly [number, number]>([
  ["10", [1, 0]], ["11", [1, 0]], ["12", [1, 2]], ["13", [1, 2]],
  ["20", [2, 0]], ["21", [2, 0]],
  ["30", [3, 0]], ["32", [4, 0]], ["35", [3, 1]], ["37", [4, 1]],
  ["50", [4, 0]], ["52", [4, 1]], ["53", [4, 2]],
  ["60", [5, 0]], ["61", [5, 0]], ["62", [5, 0]],
  ["70", [5, 1]], ["72", [6, 1]], ["75", [6, 3]],
  ["80", [7, 0]], ["82", [6, 2]], ["86", [7, 1]], ["87", [7, 4]], ["88", [7, 3]], ["89", [7, 8]],
  ["90", [7, 8]], ["90a", [8, 0]],
  ["100", [8, 6]], ["100a", [8, 6]], ["100f", [8, 8]],
  ["101", [8, 6]], ["101a", [8, 6]], ["101f", [8, 8]],
  ["103", [8, 8]], ["103a", [8, 8]], ["103f", [8, 8]],
  ["110", [9, 0]], ["110a", [9, 0]], ["110f", [9, 0]],
  ["120", [8, 7]], ["120a", [8, 7]], ["120f", [8, 8]],
  ["121", [8, 8]], ["121a", [8, 8]], ["121f", [8, 8]],
]);

/** The `.target` names that are no architecture, accepted after the first name (ptxas 13.0). */
export const TARGET_QUALIFIERS: ReadonlySet<string> = new Set(["texmode_unified", "texmode_independent", "debug", "map_f64_to_f32"]);

/** `sm_90a` / `compute_90a` → "90a", `sm_` → "" (ptxas: "Unsupported .target 'sm_'"); any other name (`foo`, `SM_90`) → null. Whether ptxas supports it is `TARGET_MIN_VERSION`'s concern. */
export function archOfTarget(name: string): string | null {
  const m = /^(?:sm|compute)_(.*)$/.exec(name);
  return m ? m[1] : null;
}

/** The lowest `.version` supporting the architecture target `name` (`sm_90`, `compute_90`), or null when ptxas 13.0 does not know it. */
export function targetMinVersion(name: string): readonly [number, number] | null {
  const arch = archOfTarget(name);
  // ptxas reads the number: `sm_090` is sm_90 (its messages quote the name as written).
  return arch === null ? null : (TARGET_MIN_VERSION.get(arch.replace(/^0+(?=\d)/, "")) ?? null);
}
