/**
 * Not a broken lowering: a rule whose emission kills the thread it runs in, to test that the
 * prover's worker pool records the item as unknown, retries it once in a fresh worker, and
 * finishes the rest (test/prove.test.ts).
 */
import type { AmdRule } from "../../../targets/amdgpu/rules/rule.js";

export const rule: AmdRule = {
  name: "crash_the_worker",
  prio: 0,
  why: "not a lowering: kills its thread, to test the worker pool's retry",
  when: () => true,
  emit: () => {
    process.exit(3);
  },
};
