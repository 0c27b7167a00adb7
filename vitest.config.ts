import { defineConfig } from "vitest/config";
import LongFirst from "./test/sequencer.js";

// Three groups, run one after the other (`sequence.groupOrder`); a group's files start only when
// the one before has finished:
// - "suite": every file but the proofs, two at a time. Vitest's default on a 2-core machine is
//   one file at a time (cores − 1), which left a core idle for most of CI's run.
// - "proofs": the files whose single-threaded z3 queries run under wall-clock timeouts (a query
//   past its timeout is `unknown`, and the test fails), two at a time, with no compiler or CLI
//   child processes beside them.
// - "prove-sample": test/prove.test.ts (the z3 proof sample: every family, target, profile and
//   rule) alone, as it runs two prover workers of its own.
// Not in this config: test/prove-full/, the costly instances of prover paths that CI covers
// on cheaper ones (each file says which); `npm run test:prove` (vitest.prove.config.ts) runs
// them with the proof sample.
const PROVE_FULL = ["test/prove-full/**"];
const PROVE_SAMPLE = ["test/prove.test.ts"];
const PROOFS = ["test/warp_waterfall.test.ts", "test/warp_prove_tree.test.ts", "test/warp_prove_amdgpu.test.ts", "test/warp_prove_pir.test.ts", "test/prove_compiled_warp.test.ts", "test/prove_compiled_loop.test.ts", "test/library.test.ts", "test/regs.test.ts"];

export default defineConfig({
  test: {
    setupFiles: ["test/setup.ts"],
    // Long files first in each group (test/sequencer.ts): a clean clone has no results cache.
    sequence: { sequencer: LongFirst },
    exclude: ["**/node_modules/**", ...PROVE_FULL],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    projects: [
      { extends: true, test: { name: "suite", include: ["test/**/*.test.ts"], exclude: ["**/node_modules/**", ...PROVE_FULL, ...PROOFS, ...PROVE_SAMPLE], maxWorkers: 2, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: "proofs", include: PROOFS, maxWorkers: 2, sequence: { groupOrder: 2 } } },
      // maxWorkers 1 at groupOrder 0 would put it in vitest's own sequential group, run last.
      { extends: true, test: { name: "prove-sample", include: PROVE_SAMPLE, maxWorkers: 1, sequence: { groupOrder: 3 } } },
    ],
  },
});
