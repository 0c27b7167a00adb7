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
import { itemLabel, proveMany } from "../src/check/prove_worker.js";
import { openProofCache, sourceFingerprint } from "../src/check/proof_cache.js";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { proverFingerprints } from "../scripts/proof_fingerprints.js";
import { rechecking, sampled, storedVerdicts } from "../scripts/recheck_cache.js";
import { gzipSync } from "node:zlib";

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

  it("the source fingerprint covers the code of the entry's import closure and the package-lock.json entries of the packages it loads (and theirs), not comments, layout, other files or other packages; an unresolved import is an error", () => {
    const root = dir();
    for (const d of ["src/sem", "targets/amdgpu", "targets/llvm"]) mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, "targets/amdgpu/entry.ts"), 'import type { A } from "../../src/sem/a.js";\nexport { b } from "./b.js";\nconst m = () => import("./lazy.js");\nconst z = () => import("z3-solver");\n');
    // The lock: the package the closure loads (z3-solver), its dependency, and one it does not load.
    const lock = (z3: string, dep: string, other: string) => JSON.stringify({ packages: { "node_modules/z3-solver": { version: z3, integrity: "sha-z", dependencies: { "async-mutex": "^0.3" } }, "node_modules/async-mutex": { version: dep, integrity: "sha-m" }, "node_modules/puppeteer-core": { version: other, integrity: "sha-p" } } }) + "\n";
    writeFileSync(join(root, "src/sem/a.ts"), "export type A = number;\n");
    writeFileSync(join(root, "targets/amdgpu/b.ts"), "export const b = 2;\n");
    writeFileSync(join(root, "targets/amdgpu/lazy.ts"), "export const z = 1;\n");
    writeFileSync(join(root, "targets/llvm/other.ts"), "export const o = 1;\n");
    writeFileSync(join(root, "package-lock.json"), lock("5.2.0", "0.3.2", "24.43.1"));
    const fp = () => sourceFingerprint(root, ["targets/amdgpu/entry.ts"]);
    const f0 = fp();
    writeFileSync(join(root, "targets/llvm/other.ts"), "export const o = 2;\n");
    expect(fp()).toBe(f0);
    // A comment or the layout: the same code, the same fingerprint.
    writeFileSync(join(root, "targets/amdgpu/b.ts"), "/** b, documented. */\nexport const   b = 2; // two\n");
    expect(fp()).toBe(f0);
    for (const [f, text] of [["src/sem/a.ts", "export type A = bigint;\n"], ["targets/amdgpu/b.ts", "export const b = 3;\n"], ["targets/amdgpu/lazy.ts", "export const z = 2;\n"], ["package-lock.json", lock("5.2.1", "0.3.2", "24.43.1")], ["package-lock.json", lock("5.2.1", "0.3.3", "24.43.1")]] as const) {
      const before = fp();
      writeFileSync(join(root, f), text);
      expect(fp(), f).not.toBe(before);
    }
    // A lock change to a package the closure does not load leaves it.
    const l0 = fp();
    writeFileSync(join(root, "package-lock.json"), lock("5.2.1", "0.3.3", "25.0.0"));
    expect(fp()).toBe(l0);
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
    // --stored: a folder of committed sittings (one gzipped), read before the cache file.
    const d = dir();
    writeFileSync(join(d, "s1.jsonl.gz"), gzipSync(line(fp.loops, "h3", { "one warp": { verdict: "proved" } })));
    writeFileSync(join(d, "s2.jsonl"), line(fp.loops, "h2", { "two warps": { verdict: "proved" } }));
    writeFileSync(join(d, "notes.txt"), "not read\n");
    const only = spawnSync(process.execPath, ["--import", "tsx", script, "--stored", d], { encoding: "utf8" });
    expect(only.status, only.stderr).toBe(0);
    expect(only.stdout).toContain("(hip, llvm with a loop): 2 keys, 2 verdicts: 2 proved");
    // The cache file comes last: its refutation of h2 is the one that counts.
    r = spawnSync(process.execPath, ["--import", "tsx", script, "--stored", d, "--resume", f], { encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain("(hip, llvm with a loop): 2 keys, 2 verdicts: 1 proved, 1 refuted");
    const none = spawnSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8" });
    expect(none.status).toBe(2);
    expect(none.stderr).toContain("--resume FILE or --stored PATH is required");
  }, 60_000);

  it("stored verdicts: files or a folder (gzip or not) read before the cache file, never written; lines that are not entries (null, an array) skipped", () => {
    const d = dir();
    const entry = (key: string, verdict: string) => `${JSON.stringify({ fingerprint: "A", key, label: key, at: "2026-12-06T00:00:00.000Z", value: { verdict } })}\n`;
    writeFileSync(join(d, "a.jsonl.gz"), gzipSync(entry("k1", "proved") + "null\n[1]\n" + entry("k2", "refuted")));
    writeFileSync(join(d, "b.jsonl"), entry("k2", "proved"));
    const f = join(dir(), "c.jsonl");
    writeFileSync(f, "null\n" + entry("k3", "proved"));
    const c = openProofCache(f, "A", [d]);
    expect([c.get("k1"), c.get("k2"), c.get("k3")]).toEqual([{ verdict: "proved" }, { verdict: "proved" }, { verdict: "proved" }]);
    c.put("k4", "k4", { verdict: "proved" });
    expect(readFileSync(join(d, "b.jsonl"), "utf8")).toBe(entry("k2", "proved"));
    expect(readFileSync(f, "utf8").trim().split("\n")).toHaveLength(3);
    expect(openProofCache(f, "A", [join(d, "a.jsonl.gz")]).get("k2")).toEqual({ verdict: "refuted" });
    expect(() => openProofCache(f, "A", [join(d, "gone")])).toThrow(/ENOENT/);
  });

  it("--recheck (scripts/recheck_cache.ts): a sampled stored verdict is proved again, not reused, and compared; a wrong stored verdict is named", async () => {
    const spec: RoutineSpec = { form: { op: "szext", mode: "clamp", type: "s32" }, kinds: { a: { kind: "v" }, b: { kind: "v" } }, guarded: false };
    const item: ProveItem = { spec, target: amdgpu("gfx1100"), profile: "isa", rule: rulesFor(spec, amdgpu("gfx1100"), "isa")[0]!.name };
    const f = join(dir(), "c.jsonl");
    const [first] = await proveMany([item], { workers: 1, timeoutMs: 60_000, cache: openProofCache(f, "A") });
    expect(first!.verdict.verdict).toBe("proved");
    // The whole sample (rate 1): solved again, and it agrees.
    const all = rechecking(openProofCache(f, "A"), 1, "0");
    const [again] = await proveMany([item], { workers: 1, timeoutMs: 60_000, cache: all.cache });
    expect(again!.cached).toBeUndefined();
    expect(all.report()).toEqual({ sampled: 1, agree: 1, disagree: [], unsettled: 0 });
    // Rate 0: reused.
    const none = rechecking(openProofCache(f, "A"), 0, "0");
    expect((await proveMany([item], { workers: 1, timeoutMs: 60_000, cache: none.cache }))[0]!.cached).toBe(true);
    expect(none.report().sampled).toBe(0);
    // A stored refutation of a query that proves (a line written by hand) is named.
    const g = join(dir(), "c.jsonl");
    writeFileSync(g, JSON.stringify({ fingerprint: "A", key: first!.query.key, label: "x", value: { verdict: "refuted", ms: 0, reason: "r", counterexample: "c" } }) + "\n");
    const bad = rechecking(openProofCache(g, "A"), 1, "0");
    await proveMany([item], { workers: 1, timeoutMs: 60_000, cache: bad.cache });
    expect(bad.report().disagree).toEqual([`${first!.query.key} (${itemLabel(item)}): stored refuted, now proved`]);
    // The sample is a fixed fraction of keys under a seed, and moves with the seed.
    const keys = Array.from({ length: 2000 }, (_, i) => `k${i}`);
    const n = keys.filter((k) => sampled(k, 0.1, "0")).length;
    expect(n).toBeGreaterThan(150);
    expect(n).toBeLessThan(250);
    expect(keys.filter((k) => sampled(k, 0.1, "0") !== sampled(k, 0.1, "1")).length).toBeGreaterThan(100);
    expect(storedVerdicts({ "two warps": { verdict: "proved" }, "one warp": { verdict: "refuted" } })).toEqual(["one warp=refuted", "two warps=proved"]);
    expect(storedVerdicts("proved")).toEqual(["malformed"]);
  }, 300_000);
});

// Issue 37 item 5: `verify --prove` reuses the verdicts a cache holds for the current prover
// source, says so per row, and `--fresh` proves them again (one szext instruction, gfx942).
describe("verify --prove with stored verdicts", () => {
  it("a second run reports 'proved (stored)' on every row and 0 unknown; --fresh proves again; a fingerprint other than the current source's is not used", () => {
    const d = dir();
    const ptx = join(d, "one.ptx");
    writeFileSync(ptx, ".version 9.0\n.target sm_90\n.address_size 64\n\n.visible .func (.reg .b32 d) f(.reg .b32 a, .reg .b32 b)\n{\n\tszext.wrap.u32 \td, a, b;\n\tret;\n}\n");
    const cache = join(d, "proofs.jsonl");
    const root = fileURLToPath(new URL("..", import.meta.url));
    const run = (...extra: string[]) => {
      const r = spawnSync(process.execPath, ["--import", "tsx", join(root, "bin", "ptx-lower.ts"), "verify", "--prove", ptx, "--target", "amdgpu", "--mcpu", "gfx942", "--proof-cache", cache, ...extra], { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
      return { status: r.status, out: r.stdout, err: r.stderr };
    };
    const fresh = run("--fresh");
    expect(fresh.status, fresh.err).toBe(0);
    const n = Number(/(\d+) proved, 0 refuted, 0 unknown/.exec(fresh.out)?.[1]);
    expect(n).toBeGreaterThan(0);
    expect(fresh.out).not.toContain("(stored)");
    expect(fresh.err).toContain("--fresh: every verdict proved again");
    // Every verdict proved went into the cache file, under the current fingerprint.
    expect(readFileSync(cache, "utf8").trim().split("\n").length).toBeGreaterThan(0);
    const stored = run("--recheck", "0");
    expect(stored.status, stored.err).toBe(0);
    expect(stored.out).toContain(`${n} proved (${n} stored), 0 refuted, 0 unknown`);
    expect(stored.out.split("\n").filter((l) => l.includes("amdgpu gfx942")).every((l) => l.includes("proved (stored)"))).toBe(true);
    // The same lines under another fingerprint (stale: an edited prover) are proved again.
    writeFileSync(cache, readFileSync(cache, "utf8").replace(/"fingerprint":"[0-9a-f]+"/g, '"fingerprint":"0000"'));
    const stale = run("--recheck", "0");
    expect(stale.out).toContain(`${n} proved, 0 refuted, 0 unknown`);
  }, 300_000);
});
