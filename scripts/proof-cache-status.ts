/**
 * @fileoverview What a proof cache (`prove:all --resume FILE`, src/check/proof_cache.ts)
 * holds for the current source: per fingerprint of ./proof_fingerprints.ts, the distinct
 * query keys stored (the last line of a key counts) and their verdicts — for the AMDGPU and
 * PIR rows one per key; for the hip/llvm rows one per wave64 layout of a job (`one warp`,
 * `two warps`; a wave32 job has one) — and how many lines carry another, stale fingerprint.
 * It reads the file only: it does not compile the matrix, so it says what is proved, not
 * what is left (a prove:all run with the same --resume prints that).
 *
 *   npx tsx scripts/proof-cache-status.ts --resume FILE   (prove:all's option, the same file)
 *
 * Exits 1 where a current line holds a verdict other than `proved` (a refutation in the
 * cache), 2 on a bad command line or an unreadable file.
 */
import { readFileSync } from "node:fs";
import { scriptArgs, scriptUsageError } from "./script_args.js";
import { proverFingerprints } from "./proof_fingerprints.js";

const USAGE = "usage: npx tsx scripts/proof-cache-status.ts --resume FILE";
const file = scriptArgs("proof-cache-status", USAGE, { resume: { type: "string" } }).resume;
if (!file) scriptUsageError("proof-cache-status", USAGE, "--resume FILE is required");
let text: string;
try {
  text = readFileSync(file, "utf8");
} catch (e) {
  scriptUsageError("proof-cache-status", USAGE, `${file}: ${(e as Error).message}`);
}
const fp = proverFingerprints();
const names = new Map([
  [fp.amdgpuPir, "amdgpu, pir"],
  [fp.loops, "hip, llvm with a loop"],
  [fp.loopFree, "hip, llvm loop-free"],
]);
const last = new Map<string, Map<string, unknown>>();
let lines = 0;
let stale = 0;
let bad = 0;
for (const [i, line] of text.split("\n").entries()) {
  if (!line.trim()) continue;
  lines++;
  let x: { fingerprint?: unknown; key?: unknown; value?: unknown };
  try {
    x = JSON.parse(line) as typeof x;
  } catch {
    process.stderr.write(`${file}:${i + 1}:1: warning: not JSON, skipped\n`);
    continue;
  }
  if (typeof x.fingerprint !== "string" || typeof x.key !== "string" || !names.has(x.fingerprint)) {
    stale++;
    continue;
  }
  let m = last.get(x.fingerprint);
  if (!m) last.set(x.fingerprint, (m = new Map()));
  m.set(x.key, x.value);
}
const out: string[] = [`${file}: ${lines} lines, ${stale} under other (stale) fingerprints`];
for (const [f, name] of names) {
  const m = last.get(f) ?? new Map<string, unknown>();
  const verdicts = new Map<string, number>();
  let layouts = 0;
  for (const v of m.values()) {
    // AMDGPU/PIR: { verdict }; hip/llvm: { [layout]: { verdict } }.
    const rows = v && typeof v === "object" && "verdict" in v ? [v] : Object.values((v ?? {}) as Record<string, unknown>);
    for (const r of rows) {
      const verdict = String((r as { verdict?: unknown })?.verdict ?? "malformed");
      verdicts.set(verdict, (verdicts.get(verdict) ?? 0) + 1);
      layouts++;
      if (verdict !== "proved") bad++;
    }
  }
  const vs = [...verdicts].map(([k, n]) => `${n} ${k}`).join(", ") || "none";
  out.push(`  ${f.slice(0, 12)} (${name}): ${m.size} keys, ${layouts} verdicts: ${vs}`);
}
process.stdout.write(`${out.join("\n")}\n`);
process.exit(bad ? 1 : 0);
