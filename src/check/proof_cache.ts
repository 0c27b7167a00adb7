/**
 * @fileoverview The proof cache of `prove:all --resume FILE` (scripts/prove-all.ts): the
 * verdicts of an earlier run, reused only where nothing they depend on can have changed.
 *
 * A verdict is stored under its query key (./prove_worker.ts `itemKey`; the compiled rows'
 * job key, targets/llvm/prove_compiled_matrix.ts: both hash what is proved — the emitted or
 * compiled lines, the contract layout, the spec's terms) together with the **source
 * fingerprint** of the prover that obtained it (`sourceFingerprint`): a hash of every
 * TypeScript file the prover's entry modules import (their code: comments and layout left
 * out), directly or through others (relative
 * `import … from`, `export … from` and `import("…")` with a literal path: the semantics, the
 * rules, the interpreter, the solver glue), and of the `package-lock.json` entries of the
 * packages they load (the z3-solver build and its dependencies). A line whose fingerprint is not the current one is ignored, so an edit
 * to any of those files makes the stored verdicts of that prover stale: the cache can only
 * return a verdict that this exact code obtained for this exact query. scripts/prove-all.ts
 * takes one fingerprint for the AMDGPU and PIR provers (./prove_worker.ts,
 * targets/amdgpu/prove/model.ts, targets/portable/prove.ts: an edit to the compiled-function
 * prover does not touch them) and two for the hip/llvm rows
 * (targets/llvm/prove_compiled_matrix.ts, which imports the AMDGPU interpreter it runs on):
 * one for the compiled functions with a loop, and one, without
 * targets/llvm/prove_compiled_loop.ts (the loop induction, never run on loop-free code), for
 * the loop-free ones — so work on the loop induction leaves the loop-free verdicts standing.
 *
 * Only `proved` and `refuted` verdicts are stored — neither depends on the per-query timeout
 * or the worker count; an `unknown` is asked again. The file is JSON lines, appended as
 * verdicts arrive (a stopped run keeps them); each line is
 * `{ fingerprint, key, label, at, value }` (`at`: when it was proved, ISO 8601).
 *
 * **Stored verdicts** (`openProofCache`'s `stored`; prove:all `--stored PATH`): files of the
 * same lines, read only, before the cache file — the verdicts earlier sittings obtained,
 * committed under proofs/ (gzip, one file per sitting) so that a matrix bigger than one
 * machine's sitting is proved across sittings on machines that do not share a disk. They are
 * the same verdicts under the same fingerprints: a stored line counts only where this exact
 * source obtained it, and `prove:all --recheck` proves a sample of them again.
 */
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { dirname, join, relative } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { hash } from "./prove_text.js";

/** An open proof cache (`openProofCache`). */
export interface ProofCache {
  /** The source fingerprint its lines must carry. */
  readonly fingerprint: string;
  /** The stored value of `key` under this fingerprint (the last one written), or undefined. */
  get(key: string): unknown;
  /** Stores `value` under `key` (appended to the file at once). */
  put(key: string, label: string, value: unknown): void;
  /** Lines read that carried another fingerprint (another prover's, or stale). */
  readonly others: number;
}

/**
 * The source fingerprint (file comment) of the modules `entries` (paths relative to `root`,
 * `.ts`): SHA-1 over the relative path and code of each file of their import closure (printed
 * by TypeScript's printer without comments, so comments and layout do not count) and over
 * `root/package-lock.json`, in sorted path order. `exclude` (paths relative to `root`): files
 * neither hashed nor followed — only for a file the verdicts stored under this fingerprint are
 * obtained without running (scripts/prove-all.ts: the loop-free compiled functions' verdicts
 * and targets/llvm/prove_compiled_loop.ts, which runs only on a loop); a file it imports is
 * still hashed where another file of the closure imports it.
 * @throws Error when a relative import does not resolve to a `.ts` file (a dependency the
 *   fingerprint would miss), or (from node:fs) when a file cannot be read.
 */
export function sourceFingerprint(root: string, entries: readonly string[], exclude: readonly string[] = []): string {
  // Each .ts file as TypeScript's printer writes it without comments: an edit to a comment or
  // to the layout leaves the fingerprint (and the verdicts) as they were; any token changes it.
  // The TypeScript compiler (through ts-morph) is loaded here, at proof time, not with this
  // file: the prover workers import it, and nothing else in a command needs TypeScript.
  const { ts } = createRequire(import.meta.url)("ts-morph") as typeof import("ts-morph");
  const printer = ts.createPrinter({ removeComments: true });
  const code = new Map<string, string>();
  const todo = [...entries];
  const importRe = /(?:\bfrom|\bimport)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g;
  while (todo.length) {
    const f = todo.pop()!;
    if (code.has(f) || exclude.includes(f)) continue;
    const path = join(root, f);
    const source = readFileSync(path, "utf8");
    const seen = printedCode.get(path);
    const text = seen?.source === source ? seen.text : printer.printFile(ts.createSourceFile(f, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
    printedCode.set(path, { source, text });
    code.set(f, text);
    for (const m of text.matchAll(importRe)) {
      const p = relative(root, join(root, dirname(f), m[1]!.replace(/\.js$/, ".ts")));
      if (!p.endsWith(".ts") || !existsSync(join(root, p))) throw new Error(`${f}: import '${m[1]}' does not resolve to a .ts file; the source fingerprint would miss it`);
      todo.push(p);
    }
  }
  const texts = [...code.keys()].sort().map((f) => `${f}\n${code.get(f)!}`);
  // The packages the closure loads (`from "pkg"`, `import("pkg")`: z3-solver), each with its
  // package-lock.json entry and those of its dependencies, transitively: a lock change to
  // another package (a test tool) leaves the verdicts standing.
  if (existsSync(join(root, "package-lock.json"))) {
    const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")) as { packages?: Record<string, { version?: string; integrity?: string; dependencies?: Record<string, string> }> };
    const bare = /(?:\bfrom|\bimport|\brequire)\s*\(?\s*["']((?:@[^/"']+\/)?[^./"'][^/"']*)/g;
    const todo = [...new Set([...code.values()].flatMap((x) => [...x.matchAll(bare)].map((m) => m[1]!)).filter((n) => !n.startsWith("node:")))];
    const seen = new Set<string>();
    while (todo.length) {
      const n = todo.pop()!;
      if (seen.has(n)) continue;
      seen.add(n);
      const e = lock.packages?.[`node_modules/${n}`];
      todo.push(...Object.keys(e?.dependencies ?? {}));
    }
    for (const n of [...seen].sort()) {
      const e = lock.packages?.[`node_modules/${n}`];
      texts.push(`package-lock.json ${n}\n${e ? `${e.version} ${e.integrity}` : "absent"}`);
    }
  }
  return hash(texts.join("\n\0\n"));
}

/**
 * Each file as `sourceFingerprint` printed it, by its path, with the text
 * it was printed from: the three closures of `proverFingerprints` share most of their files,
 * and a file is printed again only when its text changed.
 */
const printedCode = new Map<string, { source: string; text: string }>();

/**
 * The repository root whose `.ts` sources the fingerprints hash: this file's `../..` (a source
 * checkout), or its `../../..` (a build under `dist/`, run in the checkout); null where the
 * sources are absent (the npm package: no stored verdict can be checked there).
 */
export function proverRoot(): string | null {
  for (const up of ["../..", "../../.."]) {
    const root = fileURLToPath(new URL(`${up}/`, import.meta.url));
    if (existsSync(join(root, "src/check/prove_worker.ts")) && existsSync(join(root, "targets/llvm/prove_compiled_matrix.ts"))) return root;
  }
  return null;
}

/**
 * The three source fingerprints (`sourceFingerprint`) the proof cache keys its verdicts by, in
 * one place for scripts/prove-all.ts, scripts/proof-cache-status.ts and `verify --prove`: the
 * AMDGPU and PIR provers'; the hip/llvm compiled functions' with a loop (and the scalar ones':
 * targets/llvm/prove_compiled_matrix.ts's whole closure); and the loop-free ones', whose proofs
 * never run targets/llvm/prove_compiled_loop.ts, so that file is left out of theirs.
 * The first costs ~1–3 s (its closure parsed and printed); the other two reuse the files they share
 * with it (`printedCode`).
 * @throws Error (from node:fs) where `root` lacks the sources.
 */
export function proverFingerprints(root: string): { amdgpuPir: string; loops: string; loopFree: string } {
  return {
    amdgpuPir: sourceFingerprint(root, ["src/check/prove_worker.ts", "targets/amdgpu/prove/model.ts", "targets/portable/prove.ts"]),
    loops: sourceFingerprint(root, ["targets/llvm/prove_compiled_matrix.ts"]),
    loopFree: sourceFingerprint(root, ["targets/llvm/prove_compiled_matrix.ts"], ["targets/llvm/prove_compiled_loop.ts"]),
  };
}

/**
 * The files a `stored` path names (`openProofCache`): the path itself, or, for a folder, its
 * `*.jsonl` and `*.jsonl.gz` files in name order (not its subfolders).
 * @throws Error (from node:fs) when `path` does not exist or cannot be read.
 */
export function storedFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((f) => /\.jsonl(\.gz)?$/.test(f))
    .sort()
    .map((f) => join(path, f));
}

/**
 * Opens (or creates on the first `put`) the cache file `path` (null: none, the new verdicts
 * kept in memory) for `fingerprint`, after the
 * read-only `stored` files or folders (file comment; `.gz` files are gunzipped): a key's
 * value is the last one read, the cache file's last. Lines that are not a cache entry (a run
 * killed mid-write: torn JSON; `null`, an array, no string key) are skipped.
 * @throws Error (from node:fs or node:zlib) when `path` exists but cannot be read, or a
 *   `stored` path does not exist, cannot be read or is not gzip where it ends `.gz`.
 */
export function openProofCache(path: string | null, fingerprint: string, stored: readonly string[] = []): ProofCache {
  const map = new Map<string, unknown>();
  let others = 0;
  const read = (text: string) => {
    for (const line of text.split("\n")) {
      if (!line.trim()) continue;
      let x: unknown;
      try {
        x = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof x !== "object" || x === null || Array.isArray(x)) continue;
      const e = x as { fingerprint?: unknown; key?: unknown; value?: unknown };
      if (typeof e.key !== "string") continue;
      if (e.fingerprint !== fingerprint) others++;
      else map.set(e.key, e.value);
    }
  };
  for (const f of stored.flatMap(storedFiles)) read(f.endsWith(".gz") ? gunzipSync(readFileSync(f)).toString("utf8") : readFileSync(f, "utf8"));
  if (path !== null && existsSync(path)) read(readFileSync(path, "utf8"));
  return {
    fingerprint,
    others,
    get: (key) => map.get(key),
    put: (key, label, value) => {
      map.set(key, value);
      if (path !== null)
        appendFileSync(path, JSON.stringify({ fingerprint, key, label, at: new Date().toISOString(), value }, (_k, v: unknown) => (typeof v === "bigint" ? `${v}` : v)) + "\n");
    },
  };
}

/** Whether a verdict may be stored (file comment: proved and refuted only). */
export function cacheable(v: { verdict: string }): boolean {
  return v.verdict === "proved" || v.verdict === "refuted";
}

// The audit of stored verdicts (`prove:all --recheck RATE`, `verify --prove --recheck
// FRACTION`): a stored line is a claim, not a proof, so a seeded sample of the stored keys is
// proved again and compared. `rechecking(cache, rate, seed)` wraps a cache: for a key whose
// sample hash (SHA-1 of `seed`, the key) falls below `rate`, `get` answers nothing although a
// value is stored, so the prover solves the query again; its `put` then compares the new
// verdicts with the stored ones (per wave64 layout for a compiled job) and stores the new value
// as usual. `report()` counts the sampled keys: agreeing, disagreeing (named), and not settled
// (no `put`: the new proof was `unknown`).

/** What a recheck found (`rechecking`). */
export interface RecheckReport {
  /** Stored keys sampled and solved again. */
  sampled: number;
  /** Of them, the new verdicts equal the stored ones. */
  agree: number;
  /** Keys whose new verdicts differ: `KEY (LABEL): stored … , now …`. */
  disagree: string[];
  /** Sampled keys with no new stored verdict (the new proof was unknown). */
  unsettled: number;
}

/**
 * The verdicts of a stored value, in a fixed order, as `[layout, verdict]` pairs: `{ verdict }`
 * (AMDGPU, PIR) gives one with no layout; `{ [layout]: { verdict } }` (a compiled job) one per
 * layout, sorted by layout; another shape gives `[[undefined, "malformed"]]`. The one reading
 * of a stored value's shape, shared by the recheck and scripts/proof-cache-status.ts.
 */
export function storedVerdictRows(v: unknown): Array<[layout: string | undefined, verdict: string]> {
  const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
  if (isObject(v) && typeof v.verdict === "string") return [[undefined, v.verdict]];
  if (!isObject(v)) return [[undefined, "malformed"]];
  const rows = Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1));
  if (!rows.length || !rows.every(([, r]) => isObject(r) && typeof r.verdict === "string")) return [[undefined, "malformed"]];
  return rows.map(([l, r]) => [l, (r as { verdict: string }).verdict]);
}

/**
 * The verdict strings of a stored value (`storedVerdictRows`): `verdict` where it has no
 * layout, `layout=verdict` per layout of a compiled job, `["malformed"]` for another shape.
 */
export function storedVerdicts(v: unknown): string[] {
  return storedVerdictRows(v).map(([l, verdict]) => (l === undefined ? verdict : `${l}=${verdict}`));
}

/** Whether `key` is in the sample of `rate` (a fraction in [0, 1]) under `seed`. */
export function sampled(key: string, rate: number, seed: string): boolean {
  const h = createHash("sha1").update(`${seed}\0${key}`).digest();
  return h.readUInt32BE(0) / 2 ** 32 < rate;
}

/**
 * Wraps `cache` so that the stored keys `sampled(key, rate, seed)` picks are proved again and
 * compared (file comment). `report()` may be called at any time.
 */
export function rechecking(cache: ProofCache, rate: number, seed: string): { cache: ProofCache; report: () => RecheckReport } {
  const stored = new Map<string, unknown>();
  const settled = new Map<string, string | null>(); // key → disagreement text, or null: agrees
  return {
    cache: {
      fingerprint: cache.fingerprint,
      others: cache.others,
      get(key) {
        const v = cache.get(key);
        if (v === undefined || settled.has(key) || !sampled(key, rate, seed)) return v;
        stored.set(key, v);
        return undefined;
      },
      put(key, label, value) {
        if (stored.has(key) && !settled.has(key)) {
          const was = storedVerdicts(stored.get(key)).join(", ");
          const now = storedVerdicts(value).join(", ");
          settled.set(key, was === now ? null : `${key} (${label}): stored ${was}, now ${now}`);
        }
        cache.put(key, label, value);
      },
    },
    report: () => {
      const d = [...settled.values()].filter((x): x is string => x !== null);
      return {
        sampled: stored.size,
        agree: settled.size - d.length,
        disagree: d,
        unsettled: stored.size - settled.size,
      };
    },
  };
}
