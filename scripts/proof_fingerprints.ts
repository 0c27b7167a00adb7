/**
 * @fileoverview The three source fingerprints (src/check/proof_cache.ts `sourceFingerprint`)
 * the proof cache of `prove:all --resume` keys its verdicts by, in one place for
 * scripts/prove-all.ts (which stores and reuses them) and scripts/proof-cache-status.ts
 * (which counts them): the AMDGPU and PIR provers'; the hip/llvm compiled functions' with a
 * loop (targets/llvm/prove_compiled_matrix.ts's whole closure); and the loop-free ones', whose
 * proofs never run targets/llvm/prove_compiled_loop.ts (targets/llvm/prove_compiled_warp.ts
 * `compiledHasLoop`), so that file is left out of theirs.
 */
import { fileURLToPath } from "node:url";
import { sourceFingerprint } from "../src/check/proof_cache.js";

/** The repository root (this file's parent folder's parent). */
export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The fingerprints of the current source (40 hex digits each); each costs ~1–3 s (the closure parsed). */
export function proverFingerprints(root = ROOT): { amdgpuPir: string; loops: string; loopFree: string } {
  return {
    amdgpuPir: sourceFingerprint(root, ["src/check/prove_worker.ts", "targets/amdgpu/prove/model.ts", "targets/portable/prove.ts"]),
    loops: sourceFingerprint(root, ["targets/llvm/prove_compiled_matrix.ts"]),
    loopFree: sourceFingerprint(root, ["targets/llvm/prove_compiled_matrix.ts"], ["targets/llvm/prove_compiled_loop.ts"]),
  };
}
