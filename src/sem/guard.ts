/**
 * @fileoverview The guard rule, stated once — PTX ISA 9.0 §9.7.1 "Predicated execution"
 * (`@p` / `@!p`): a lane whose guard is false does not execute the instruction, so it keeps
 * its prior d and p. Its active lanes with a true guard take the form's result; an inactive
 * lane has no result to compare (`null` in the concrete per-lane forms).
 *
 * The reference (src/check/scalar.ts, verify.ts, vectors.ts) uses the concrete forms
 * (`guarded`, `keepLane`); the provers (targets/amdgpu/prove/, targets/portable/prove.ts) use the symbolic
 * ones (`keep`, `guardOff`) over their own BV.
 */
import type { BV } from "./bv.js";

/** The value a guarded write leaves, symbolically: `g ? value : prior`. */
export function keep<V, B>(bv: Pick<BV<V, B>, "ite">, g: B, value: V, prior: V): V {
  return bv.ite(g, value, prior);
}

/**
 * The lanes the guard rule keeps: active with a false guard (`false` when there is no guard).
 * `g` is the lane's guard, undefined for an unguarded instruction.
 */
export function guardOff<V, B>(bv: Pick<BV<V, B>, "andB" | "notB" | "false">, active: B, g: B | undefined): B {
  return g !== undefined ? bv.andB(active, bv.notB(g)) : bv.false;
}

/**
 * The value a guarded write leaves, concretely: the prior value where the guard is false,
 * else the result (each computed only when needed). `g` undefined: unguarded.
 */
export function guarded<T>(g: boolean | undefined, value: () => T, prior: () => T): T {
  return g === false ? prior() : value();
}

/** One lane of a warp form, concretely: null where inactive, else `guarded`. */
export function keepLane<T>(active: boolean, g: boolean | undefined, value: () => T | null, prior: () => T): T | null {
  return !active ? null : guarded<T | null>(g, value, prior);
}

/** The lanes that execute: active with a true guard (every active lane when unguarded). */
export function guardOn<V, B>(bv: Pick<BV<V, B>, "andB">, active: B, g: B | undefined): B {
  return g !== undefined ? bv.andB(active, g) : active;
}
