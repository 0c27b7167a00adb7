import { defineConfig } from "vitest/config";

export default defineConfig({ test: { include: ["test/prove.test.ts"], setupFiles: ["test/setup.ts"], testTimeout: 600_000, hookTimeout: 600_000 } });
