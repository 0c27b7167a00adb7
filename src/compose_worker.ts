/**
 * @fileoverview The prover worker thread's entry (started by src/check/prove_worker.ts
 * `startWorker`): a second composition root, and the only other file under src/ besides
 * src/compose.ts that exists to wire the targets in. It registers the targets (imports
 * ./compose.ts) before the worker side of ./check/prove_worker.ts starts serving, so the
 * thread resolves the `ProveTarget` refs and rule names it receives through the same registry.
 */
import "./compose.js";
import "./check/prove_worker.js";
