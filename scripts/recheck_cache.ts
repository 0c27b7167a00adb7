/**
 * @fileoverview `prove:all --recheck RATE` (scripts/prove-all.ts): an audit of the proof
 * cache. A stored verdict (src/check/proof_cache.ts: the cache file's or `--stored` files')
 * is reused only where this exact prover source obtained it, but a stored line is a claim,
 * not a proof: this proves a sample of the stored keys again and compares the verdicts.
 *
 * The audit itself lives in src/check/proof_cache.ts (`verify --prove --recheck` runs it too).
 * `rechecking(cache, rate, seed)` wraps a cache: for a key whose sample hash
 * (SHA-1 of `seed`, the key) falls below `rate` (a fraction in [0, 1]), `get` answers
 * nothing although a value is stored, so the prover (src/check/prove_worker.ts `proveMany`,
 * targets/llvm/prove_compiled_matrix.ts) solves the query again; its `put` then compares the
 * new verdicts with the stored ones (per wave64 layout for a compiled job) and stores the
 * new value as usual. `report()` counts the sampled keys: agreeing, disagreeing (named), and
 * not settled (no `put`: the new proof was `unknown`, past the per-query timeout).
 */
export type { RecheckReport } from "../src/check/proof_cache.js";
export { rechecking, sampled, storedVerdictRows, storedVerdicts } from "../src/check/proof_cache.js";
