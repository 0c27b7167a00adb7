/**
 * The proof cache of `prove:all --resume` (src/check/proof_cache.ts): a verdict comes back
 * only under the source fingerprint it was stored with; unknown verdicts are never reused;
 * `proveMany` settles a query the cache holds without solving it and marks the result.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { RoutineSpec } from "../src/ir/ir.js";
import { amdgpu, rulesFor } from "../src/check/prove.js";
import type { ProveItem } from "../src/check/prove_worker.js";
import { proveMany } from "../src/check/prove_worker.js";
import { openProofCache, sourceFingerprint } from "../src/check/proof_cache.js";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { proverFingerprints } from "../scripts/proof_fingerprints.js";

const dir = () => mkdtempSync(join(tmpdir(), "ptxl-cache-"));

describe("the proof cache", () => {
  it("returns a value only under the fingerprint it was stored with, and skips a torn line", () => {
    const f = join(dir(), "c.jsonl");
    openProofCache(f, "A").put("k1", "label", { verdict: "proved", ms: 5, method: "m" });
    appendFileSync(f, '{"fingerprint":"A","key":"k2","val'); // a run killed mid-write
    const a = openProofCache(f, "A");
    expect(a.get("k1")).toEqual({ verdict: "proved", ms: 5, method: "m" });
    expect(a.get("k2")).toBeUndefined();
    const b = openProofCache(f, "B");
    expect(b.get("k1")).toBeUndefined();
    expect(b.others).toBe(1);
  });

  it("the source fingerprint covers the code of the entry's import closure and package-lock.json, not comments, layout or other files; an unresolved import is an error", () => {
    const root = dir();
    for (const d of ["src/sem", "targets/amdgpu", "targets/llvm"]) mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, "targets/amdgpu/entry.ts"), 'import type { A } from "../../src/sem/a.js";\nexport { b } from "./b.js";\nconst m = () => import("./lazy.js");\n');
    writeFileSync(join(root, "src/sem/a.ts"), "export type A = number;\n");
    writeFileSync(join(root, "targets/amdgpu/b.ts"), "export const b = 2;\n");
    writeFileSync(join(root, "targets/amdgpu/lazy.ts"), "export const z = 1;\n");
    writeFileSync(join(root, "targets/llvm/other.ts"), "export const o = 1;\n");
    writeFileSync(join(root, "package-lock.json"), "{}\n");
    const fp = () => sourceFingerprint(root, ["targets/amdgpu/entry.ts"]);
    const f0 = fp();
    writeFileSync(join(root, "targets/llvm/other.ts"), "export const o = 2;\n");
    expect(fp()).toBe(f0);
    // A comment or the layout: the same code, the same fingerprint.
    writeFileSync(join(root, "targets/amdgpu/b.ts"), "/** b, documented. */\nexport const   b = 2; // two\n");
    expect(fp()).toBe(f0);
    for (const [f, text] of [["src/sem/a.ts", "export type A = bigint;\n"], ["targets/amdgpu/b.ts", "export const b = 3;\n"], ["targets/amdgpu/lazy.ts", "export const z = 2;\n"], ["package-lock.json", '{"z3":1}\n']] as const) {
      const before = fp();
      writeFileSync(join(root, f), text);
      expect(fp(), f).not.toBe(before);
    }
    // `exclude`: the excluded file's code does not count, the rest of the closure does.
    const fx = () => sourceFingerprint(root, ["targets/amdgpu/entry.ts"], ["targets/amdgpu/lazy.ts"]);
    const x0 = fx();
    expect(x0).not.toBe(fp());
    writeFileSync(join(root, "targets/amdgpu/lazy.ts"), "export const z = 3;\n");
    expect(fx()).toBe(x0);
    writeFileSync(join(root, "targets/amdgpu/b.ts"), "export const b = 4;\n");
    expect(fx()).not.toBe(x0);
    writeFileSync(join(root, "targets/amdgpu/b.ts"), 'export { c } from "./gone.js";\n');
    expect(fp).toThrow(/import '\.\/gone\.js' does not resolve/);
  });

  it("proveMany: a proved query is stored, then settled from the cache (marked cached); a stored unknown is solved again", async () => {
    const spec: RoutineSpec = { form: { op: "szext", mode: "wrap", type: "u32" }, kinds: { a: { kind: "v" }, b: { kind: "v" } }, guarded: false };
    const item: ProveItem = { spec, target: amdgpu("gfx900"), profile: "isa", rule: rulesFor(spec, amdgpu("gfx900"), "isa")[0]!.name };
    const f = join(dir(), "c.jsonl");
    const [first] = await proveMany([item], { workers: 1, timeoutMs: 60_000, cache: openProofCache(f, "A") });
    expect(first!.verdict.verdict).toBe("proved");
    expect(first!.cached).toBeUndefined();
    const stored = readFileSync(f, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { key: string; value: { verdict: string } });
    expect(stored.map((x) => [x.key, x.value.verdict])).toEqual([[first!.query.key, "proved"]]);
    const [second] = await proveMany([item], { workers: 1, timeoutMs: 60_000, cache: openProofCache(f, "A") });
    expect(second!.cached).toBe(true);
    expect(second!.verdict).toEqual(first!.verdict);
    // An unknown under the key (written by hand: the cache never stores one) is not trusted.
    const g = join(dir(), "c.jsonl");
    writeFileSync(g, JSON.stringify({ fingerprint: "A", key: first!.query.key, label: "x", value: { verdict: "unknown", ms: 0, reason: "timeout" } }) + "\n");
    const [third] = await proveMany([item], { workers: 1, timeoutMs: 60_000, cache: openProofCache(g, "A") });
    expect(third!.cached).toBeUndefined();
    expect(third!.verdict.verdict).toBe("proved");
  }, 300_000);

  it("scripts/proof-cache-status.ts counts the current fingerprints' keys and verdicts (the last line of a key), the stale lines, and exits 1 on a refutation or a malformed entry", () => {
    const f = join(dir(), "c.jsonl");
    const fp = proverFingerprints();
    const line = (fingerprint: string, key: string, value: unknown) => `${JSON.stringify({ fingerprint, key, label: key, at: "2026-12-05T00:00:00.000Z", value })}\n`;
    writeFileSync(f, line(fp.amdgpuPir, "a1", { verdict: "refuted" }) + line(fp.amdgpuPir, "a1", { verdict: "proved" }) + line(fp.amdgpuPir, "a2", { verdict: "proved" }) + line(fp.loopFree, "h1", { "one warp": { verdict: "proved" }, "two warps": { verdict: "proved" } }) + line("0".repeat(40), "old", { verdict: "refuted" }));
    const script = fileURLToPath(new URL("../scripts/proof-cache-status.ts", import.meta.url));
    const run = () => spawnSync(process.execPath, ["--import", "tsx", script, "--resume", f], { encoding: "utf8" });
    let r = run();
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("5 lines, 1 under other (stale) fingerprints");
    expect(r.stdout).toContain(`${fp.amdgpuPir.slice(0, 12)} (amdgpu, pir): 2 keys, 2 verdicts: 2 proved`);
    expect(r.stdout).toContain(`${fp.loopFree.slice(0, 12)} (hip, llvm loop-free): 1 keys, 2 verdicts: 2 proved`);
    expect(r.stdout).toContain(`${fp.loops.slice(0, 12)} (hip, llvm with a loop): 0 keys, 0 verdicts: none`);
    appendFileSync(f, line(fp.loops, "h2", { "two warps": { verdict: "refuted" } }));
    r = run();
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("(hip, llvm with a loop): 1 keys, 1 verdicts: 1 refuted");
    // A line that is not an entry is skipped with a warning; a value of another shape is "malformed".
    appendFileSync(f, `null\n${line(fp.amdgpuPir, "a3", "proved")}`);
    r = run();
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/c\.jsonl:7:1: warning: not a cache entry/);
    expect(r.stdout).toContain("8 lines, 1 under other (stale) fingerprints, 1 not cache entries");
    expect(r.stdout).toContain("(amdgpu, pir): 3 keys, 3 verdicts: 2 proved, 1 malformed");
  }, 60_000);
});
