import { defineConfig } from "vitest/config";

// test/prove.test.ts (the z3 proof sample, ~9 minutes on 2 cores) runs with `npm run test:prove`;
// it is kept out of the default run until its worker-crash test is stable (see the issue note).
export default defineConfig({
  test: { include: ["test/**/*.test.ts"], exclude: ["test/prove.test.ts", "**/node_modules/**"], testTimeout: 120_000, hookTimeout: 120_000 },
});
