import { defineConfig } from "vitest/config";

// `npm run test:prove`: the z3 proof sample (test/prove.test.ts, also in CI) and the costly
// proofs that CI leaves out (test/prove-full/: each file says which cheaper instance CI runs),
// one file at a time, as test/prove.test.ts runs two prover workers of its own.
export default defineConfig({ test: { include: ["test/prove.test.ts", "test/prove-full/**/*.test.ts"], setupFiles: ["test/setup.ts"], testTimeout: 600_000, hookTimeout: 600_000, maxWorkers: 1 } });
