/**
 * @fileoverview The three source fingerprints the proof cache of `prove:all --resume` keys its
 * verdicts by (src/check/proof_cache.ts `proverFingerprints`, where `verify --prove` reads them
 * too), for scripts/prove-all.ts and scripts/proof-cache-status.ts, over this checkout.
 */
import { fileURLToPath } from "node:url";
import { proverFingerprints as fingerprintsAt } from "../src/check/proof_cache.js";

/** The repository root (this file's parent folder's parent). */
export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The fingerprints of the current source (40 hex digits each); each costs ~1–3 s (the closure parsed). */
export function proverFingerprints(root = ROOT): { amdgpuPir: string; loops: string; loopFree: string } {
  return fingerprintsAt(root);
}
