// src/tools.ts cachedTool: a deterministic tool's output kept by (tool --version, arguments,
// input) within a process and, under PTXL_COMPILE_CACHE, on disk for other processes; a failed
// run is not kept. `cat` stands in for the compiler (its output is its input).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "ptxl-cache-test-"));
const saved = process.env.PTXL_COMPILE_CACHE;
afterAll(() => {
  if (saved === undefined) delete process.env.PTXL_COMPILE_CACHE;
  else process.env.PTXL_COMPILE_CACHE = saved;
  rmSync(dir, { recursive: true, force: true });
});

describe("cachedTool", () => {
  it("keeps an output on disk by its key, and a fresh process (module instance) reads it from there", async () => {
    process.env.PTXL_COMPILE_CACHE = dir;
    vi.resetModules();
    const a = await import("../src/tools.js");
    expect(await a.cachedTool("cat", [], "one text")).toBe("one text");
    const files = readdirSync(dir).filter((f) => f.endsWith(".out"));
    expect(files).toHaveLength(1);
    expect(readFileSync(join(dir, files[0]!), "utf8")).toBe("one text");
    // Within the process, the same call is answered from memory (the file is not read again).
    writeFileSync(join(dir, files[0]!), "changed on disk");
    expect(await a.cachedTool("cat", [], "one text")).toBe("one text");
    // Another instance (as another test file's process) takes the disk's copy: no second run.
    vi.resetModules();
    const b = await import("../src/tools.js");
    expect(await b.cachedTool("cat", [], "one text")).toBe("changed on disk");
    // Other arguments or input: another key.
    expect(await b.cachedTool("cat", ["-"], "one text")).toBe("one text");
    expect(readdirSync(dir).filter((f) => f.endsWith(".out"))).toHaveLength(2);
  });

  it("does not keep a failed run", async () => {
    process.env.PTXL_COMPILE_CACHE = dir;
    vi.resetModules();
    const t = await import("../src/tools.js");
    const before = readdirSync(dir).length;
    await expect(t.cachedTool("cat", ["/nonexistent/ptxl"], "")).rejects.toThrow(/cat .* failed \(exit 1\)/);
    expect(readdirSync(dir)).toHaveLength(before);
  });
});
