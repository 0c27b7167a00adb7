/**
 * @fileoverview What a proof cache (`prove:all --resume FILE`, src/check/proof_cache.ts)
 * holds for the current source: per fingerprint of ./proof_fingerprints.ts, the distinct
 * query keys stored (the last line of a key counts) and their verdicts — for the AMDGPU and
 * PIR rows one per key; for the hip/llvm rows one per wave64 layout of a job (`one warp`,
 * `two warps`; a wave32 job has one) — and how many lines carry another, stale fingerprint.
 * It reads the file only: it does not compile the matrix, so it says what is proved, not
 * what is left (a prove:all run with the same --resume prints that).
 *
 *   npx tsx scripts/proof-cache-status.ts [--stored PATH …] [--resume FILE]   (prove:all's options)
 *
 * `--stored` (repeatable): the committed sittings' files or folders (proofs/), read first, as
 * prove:all reads them; the counts are over all the files read, a key's last line counting.
 *
 * Exits 1 where a current entry's verdict is not `proved` (a refutation, or a value of
 * another shape: "malformed"), 2 on a bad command line or an unreadable file; a line that is
 * not a cache entry is skipped with a `FILE:LINE:1: warning` and counted.
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { storedFiles } from "../src/check/proof_cache.js";
import { scriptArgs, scriptUsageError } from "./script_args.js";
import { proverFingerprints } from "./proof_fingerprints.js";
import { storedVerdictRows } from "./recheck_cache.js";

const USAGE = "usage: npx tsx scripts/proof-cache-status.ts [--stored PATH …] [--resume FILE]  (one at least)";
const args = scriptArgs("proof-cache-status", USAGE, { resume: { type: "string" }, stored: { type: "string", multiple: true } });
if (!args.resume && !args.stored?.length) scriptUsageError("proof-cache-status", USAGE, "--resume FILE or --stored PATH is required");
// The files read, in prove:all's order: the stored ones, then the cache file.
const texts: [string, string][] = [];
try {
  for (const f of (args.stored ?? []).flatMap(storedFiles)) texts.push([f, f.endsWith(".gz") ? gunzipSync(readFileSync(f)).toString("utf8") : readFileSync(f, "utf8")]);
  if (args.resume) texts.push([args.resume, readFileSync(args.resume, "utf8")]);
} catch (e) {
  scriptUsageError("proof-cache-status", USAGE, (e as Error).message);
}
const file = texts.map(([f]) => f).join(", ");
const fp = proverFingerprints();
const names = new Map([
  [fp.amdgpuPir, "amdgpu, pir"],
  [fp.loops, "hip, llvm with a loop"],
  [fp.loopFree, "hip, llvm loop-free"],
]);
const last = new Map<string, Map<string, unknown>>();
let lines = 0;
let stale = 0;
let malformed = 0;
let notProved = 0;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
for (const [name, text] of texts)
  for (const [i, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    lines++;
    let x: unknown;
    try {
      x = JSON.parse(line);
    } catch {
      x = undefined;
    }
    if (!isObject(x) || typeof x.fingerprint !== "string" || typeof x.key !== "string") {
      malformed++;
      process.stderr.write(`${name}:${i + 1}:1: warning: not a cache entry ({ fingerprint, key, label, at, value }), skipped\n`);
      continue;
    }
    if (!names.has(x.fingerprint)) {
      stale++;
      continue;
    }
    let m = last.get(x.fingerprint);
    if (!m) last.set(x.fingerprint, (m = new Map()));
    m.set(x.key, x.value);
  }
const out: string[] = [`${file}: ${lines} lines, ${stale} under other (stale) fingerprints${malformed ? `, ${malformed} not cache entries` : ""}`];
for (const [f, name] of names) {
  const m = last.get(f) ?? new Map<string, unknown>();
  const verdicts = new Map<string, number>();
  let n = 0;
  for (const v of m.values())
    for (const [, verdict] of storedVerdictRows(v)) {
      verdicts.set(verdict, (verdicts.get(verdict) ?? 0) + 1);
      n++;
      if (verdict !== "proved") notProved++;
    }
  const vs = [...verdicts].map(([k, c]) => `${c} ${k}`).join(", ") || "none";
  out.push(`  ${f.slice(0, 12)} (${name}): ${m.size} keys, ${n} verdicts: ${vs}`);
}
process.stdout.write(`${out.join("\n")}\n`);
if (notProved) process.stderr.write(`proof-cache-status: ${notProved} current verdicts are not "proved"\n`);
process.exit(notProved ? 1 : 0);
