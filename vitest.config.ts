import { defineConfig } from "vitest/config";

// test/prove.test.ts (the z3 proof sample: every family, target, profile and rule; about
// 8 minutes on 2 cores) is part of the default run; `npm run test:prove` runs it alone.
export default defineConfig({
  test: { include: ["test/**/*.test.ts"], setupFiles: ["test/setup.ts"], exclude: ["**/node_modules/**"], testTimeout: 120_000, hookTimeout: 120_000 },
});
