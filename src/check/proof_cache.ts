/**
 * @fileoverview The proof cache of `prove:all --resume FILE` (scripts/prove-all.ts): the
 * verdicts of an earlier run, reused only where nothing they depend on can have changed.
 *
 * A verdict is stored under its query key (./prove_worker.ts `itemKey`; the compiled rows'
 * job key, targets/llvm/prove_compiled_matrix.ts: both hash what is proved — the emitted or
 * compiled lines, the contract layout, the spec's terms) together with the **source
 * fingerprint** (`sourceFingerprint`): a hash of every TypeScript file of the prover and the
 * semantics (`src/`, `targets/`, `scripts/prove-all.ts`) and of `package-lock.json` (the
 * z3-solver build). A line whose fingerprint is not the current one is ignored, so any edit to
 * the semantics, a rule, the interpreter or the prover makes every stored verdict stale: the
 * cache can only return a verdict that this exact code obtained for this exact query.
 *
 * Only `proved` and `refuted` verdicts are stored — neither depends on the per-query timeout
 * or the worker count; an `unknown` is asked again. The file is JSON lines, appended as
 * verdicts arrive (a stopped run keeps them); each line is
 * `{ fingerprint, key, label, at, value }` (`at`: when it was proved, ISO 8601).
 */
import { appendFileSync, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { hash } from "./prove_text.js";

/** An open proof cache (`openProofCache`). */
export interface ProofCache {
  /** The source fingerprint its lines must carry. */
  readonly fingerprint: string;
  /** The stored value of `key` under this fingerprint (the last one written), or undefined. */
  get(key: string): unknown;
  /** Stores `value` under `key` (appended to the file at once). */
  put(key: string, label: string, value: unknown): void;
  /** Lines read that carried another fingerprint (stale). */
  readonly stale: number;
}

/**
 * The source fingerprint (file comment): SHA-1 over the relative path and contents of every
 * `.ts` file under `root/src` and `root/targets`, `root/scripts/prove-all.ts` and
 * `root/package-lock.json`, in sorted path order.
 * @throws Error (from node:fs) when `root/src` cannot be read.
 */
export function sourceFingerprint(root: string): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(".ts")) files.push(p);
    }
  };
  for (const d of ["src", "targets"]) walk(join(root, d));
  for (const f of ["scripts/prove-all.ts", "package-lock.json"]) if (existsSync(join(root, f))) files.push(join(root, f));
  const rel = files.map((f) => relative(root, f)).sort();
  return hash(rel.map((f) => `${f}\n${readFileSync(join(root, f), "utf8")}`).join("\n\0\n"));
}

/**
 * Opens (or creates on the first `put`) the cache file `path` for `fingerprint`.
 * Malformed lines (a run killed mid-write) are skipped.
 * @throws Error (from node:fs) when `path` exists but cannot be read.
 */
export function openProofCache(path: string, fingerprint: string): ProofCache {
  const map = new Map<string, unknown>();
  let stale = 0;
  if (existsSync(path))
    for (const line of readFileSync(path, "utf8").split("\n")) {
      if (!line.trim()) continue;
      let x: { fingerprint?: unknown; key?: unknown; value?: unknown };
      try {
        x = JSON.parse(line) as typeof x;
      } catch {
        continue;
      }
      if (typeof x.key !== "string") continue;
      if (x.fingerprint !== fingerprint) stale++;
      else map.set(x.key, x.value);
    }
  return {
    fingerprint,
    stale,
    get: (key) => map.get(key),
    put: (key, label, value) => {
      map.set(key, value);
      appendFileSync(path, JSON.stringify({ fingerprint, key, label, at: new Date().toISOString(), value }, (_k, v: unknown) => (typeof v === "bigint" ? `${v}` : v)) + "\n");
    },
  };
}

/** Whether a verdict may be stored (file comment: proved and refuted only). */
export function cacheable(v: { verdict: string }): boolean {
  return v.verdict === "proved" || v.verdict === "refuted";
}
