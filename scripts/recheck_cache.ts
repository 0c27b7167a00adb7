/**
 * @fileoverview `prove:all --recheck RATE` (scripts/prove-all.ts): an audit of the proof
 * cache. A stored verdict (src/check/proof_cache.ts: the cache file's or `--stored` files')
 * is reused only where this exact prover source obtained it, but a stored line is a claim,
 * not a proof: this proves a sample of the stored keys again and compares the verdicts.
 *
 * `rechecking(cache, rate, seed)` wraps a cache: for a key whose sample hash
 * (SHA-1 of `seed`, the key) falls below `rate` (a fraction in [0, 1]), `get` answers
 * nothing although a value is stored, so the prover (src/check/prove_worker.ts `proveMany`,
 * targets/llvm/prove_compiled_matrix.ts) solves the query again; its `put` then compares the
 * new verdicts with the stored ones (per wave64 layout for a compiled job) and stores the
 * new value as usual. `report()` counts the sampled keys: agreeing, disagreeing (named), and
 * not settled (no `put`: the new proof was `unknown`, past the per-query timeout).
 */
import { createHash } from "node:crypto";
import type { ProofCache } from "../src/check/proof_cache.js";

/** What a recheck found (`rechecking`). */
export interface RecheckReport {
  /** Stored keys sampled and solved again. */
  sampled: number;
  /** Of them, the new verdicts equal the stored ones. */
  agree: number;
  /** Keys whose new verdicts differ: `KEY (LABEL): stored … , now …`. */
  disagree: string[];
  /** Sampled keys with no new stored verdict (the new proof was unknown). */
  unsettled: number;
}

/**
 * The verdicts of a stored value, in a fixed order, as `[layout, verdict]` pairs: `{ verdict }`
 * (AMDGPU, PIR) gives one with no layout; `{ [layout]: { verdict } }` (a compiled job) one per
 * layout, sorted by layout; another shape gives `[[undefined, "malformed"]]`. The one reading
 * of a stored value's shape, shared by the recheck and scripts/proof-cache-status.ts.
 */
export function storedVerdictRows(v: unknown): Array<[layout: string | undefined, verdict: string]> {
  const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
  if (isObject(v) && typeof v.verdict === "string") return [[undefined, v.verdict]];
  if (!isObject(v)) return [[undefined, "malformed"]];
  const rows = Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1));
  if (!rows.length || !rows.every(([, r]) => isObject(r) && typeof r.verdict === "string")) return [[undefined, "malformed"]];
  return rows.map(([l, r]) => [l, (r as { verdict: string }).verdict]);
}

/**
 * The verdict strings of a stored value (`storedVerdictRows`): `verdict` where it has no
 * layout, `layout=verdict` per layout of a compiled job, `["malformed"]` for another shape.
 */
export function storedVerdicts(v: unknown): string[] {
  return storedVerdictRows(v).map(([l, verdict]) => (l === undefined ? verdict : `${l}=${verdict}`));
}

/** Whether `key` is in the sample of `rate` (a fraction in [0, 1]) under `seed`. */
export function sampled(key: string, rate: number, seed: string): boolean {
  const h = createHash("sha1").update(`${seed}\0${key}`).digest();
  return h.readUInt32BE(0) / 2 ** 32 < rate;
}

/**
 * Wraps `cache` so that the stored keys `sampled(key, rate, seed)` picks are proved again and
 * compared (file comment). `report()` may be called at any time.
 */
export function rechecking(cache: ProofCache, rate: number, seed: string): { cache: ProofCache; report: () => RecheckReport } {
  const stored = new Map<string, unknown>();
  const settled = new Map<string, string | null>(); // key → disagreement text, or null: agrees
  return {
    cache: {
      fingerprint: cache.fingerprint,
      others: cache.others,
      get(key) {
        const v = cache.get(key);
        if (v === undefined || settled.has(key) || !sampled(key, rate, seed)) return v;
        stored.set(key, v);
        return undefined;
      },
      put(key, label, value) {
        if (stored.has(key) && !settled.has(key)) {
          const was = storedVerdicts(stored.get(key)).join(", ");
          const now = storedVerdicts(value).join(", ");
          settled.set(key, was === now ? null : `${key} (${label}): stored ${was}, now ${now}`);
        }
        cache.put(key, label, value);
      },
    },
    report: () => {
      const d = [...settled.values()].filter((x): x is string => x !== null);
      return {
        sampled: stored.size,
        agree: settled.size - d.length,
        disagree: d,
        unsettled: stored.size - settled.size,
      };
    },
  };
}
