/**
 * @fileoverview `verify --all` for the warp-level family at scale (issue 15 item 5, Done-when
 * line 4): every form × main operand kind × target on ≥ 10,000 random warps each, 0 refuted
 * required; prints a table (form × target: rows tested / refuted / unknown, fewest warps of a
 * tested row) and the wall time, and exits 1 when a row is refuted.
 *
 *   npx tsx scripts/verify-all-warp.ts [--warps 10000] [--workers N] [--seed 1]
 *        [--target amdgpu,js,c,hip,llvm] [--mcpu all|gfx942,...] [--forms REGEX] [--chunk 6]
 *        [--compiled-warps all|tenth] [--json rows.jsonl] [--no-build]
 *
 * Speed: the chunks run in worker threads (`--workers`, default the CPU count) on the compiled
 * package (it runs `npm run build` first unless `--no-build`): tsx's transform wraps every
 * closure in a naming helper, which made the interpreter's inner loops 2–3× slower. The rows
 * are src/check/warp_verify_all.ts's, i.e. `verify`'s (src/check/verify.ts). The hip and llvm
 * rows run all `--warps` warps here (`--compiled-warps all`, the default: the Done-when counts
 * every row), each in both argument layouts and, on wave64, with one and with two CUDA warps
 * per wave; `--compiled-warps tenth` runs a tenth, at least 1,000, as the CLI's `verify` does
 * (there the hip/llvm rows sit beside the fragments' and a tenth keeps `verify` quick). A
 * form's routines that share a hip/llvm function are chunked together, so that it is
 * compiled and run once per processor.
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import Table from "cli-table3";
import type { VerifyTarget } from "../src/check/verify.js";
import type { WarpAllChunk, WarpAllRow } from "../src/check/warp_verify_all.js";
import { warpAllChunks, warpAllSpecs, WORKER_JOB } from "../src/check/warp_verify_all.js";
import type { WarpForm } from "../src/ir/warp_forms.js";
import { warpFormName } from "../src/ir/warp_forms.js";
import { callableName } from "../targets/llvm/compile_for.js";
import { scriptArgs, scriptUsageError } from "./script_args.js";

const MCPUS = ["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100"] as const;
const KINDS = ["amdgpu", "js", "c", "hip", "llvm"] as const;
const USAGE = `usage: npx tsx scripts/verify-all-warp.ts [--warps N] [--workers N] [--seed N]
       [--target amdgpu,js,c,hip,llvm] [--mcpu all|gfx900,...] [--forms REGEX] [--chunk N]
       [--compiled-warps all|tenth] [--json FILE] [--no-build]`;

const usageError = (message: string): never => scriptUsageError("verify-all-warp", USAGE, message);
const values = scriptArgs("verify-all-warp", USAGE, {
  warps: { type: "string", default: "10000" },
  workers: { type: "string", default: String(availableParallelism()) },
  seed: { type: "string", default: "1" },
  target: { type: "string", default: KINDS.join(",") },
  mcpu: { type: "string", default: "all" },
  forms: { type: "string" },
  chunk: { type: "string", default: "6" },
  "compiled-warps": { type: "string", default: "all" },
  json: { type: "string" },
  "no-build": { type: "boolean" },
});
const int = (name: "warps" | "workers" | "seed" | "chunk", min: number) => {
  const v = values[name]!;
  if (!/^\d+$/.test(v) || Number(v) < min) usageError(`--${name} must be an integer ≥ ${min}, not '${v}'`);
  return Number(v);
};
const warps = int("warps", 1);
const workers = int("workers", 1);
const seed = int("seed", 0);
const chunkSize = int("chunk", 1);
const compiledWarps = values["compiled-warps"]!;
if (compiledWarps !== "all" && compiledWarps !== "tenth") usageError(`--compiled-warps takes all or tenth, not '${compiledWarps}'`);
const kinds = values.target.split(",");
for (const k of kinds) if (!(KINDS as readonly string[]).includes(k)) usageError(`--target takes ${KINDS.join(", ")} (comma-separated), not '${k}'`);
const mcpus = values.mcpu === "all" ? [...MCPUS] : values.mcpu.split(",");
for (const m of mcpus) if (!(MCPUS as readonly string[]).includes(m)) usageError(`--mcpu takes all or ${MCPUS.join(", ")}, not '${m}'`);
let formRe: RegExp | null = null;
try {
  formRe = values.forms ? new RegExp(values.forms) : null;
} catch (e) {
  usageError(`--forms: ${(e as Error).message}`);
}

const targets: VerifyTarget[] = [];
for (const k of KINDS) {
  if (!kinds.includes(k)) continue;
  if (k === "js" || k === "c") targets.push({ kind: k });
  else for (const m of mcpus) targets.push({ kind: k, mcpu: m as (typeof MCPUS)[number] });
}
const columns = targets.map((t) => ("mcpu" in t ? `${t.kind} ${t.mcpu}` : t.kind));

// The compiled package: the worker is dist/src/check/warp_verify_all.js.
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
if (!values["no-build"]) {
  const b = spawnSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: root, encoding: "utf8" });
  if (b.status !== 0) {
    process.stderr.write(`verify-all-warp: error: npm run build failed:\n${b.stdout}${b.stderr}`);
    process.exit(1);
  }
}
const workerFile = join(root, "dist/src/check/warp_verify_all.js");
if (!existsSync(workerFile)) {
  process.stderr.write(`verify-all-warp: error: ${workerFile} is missing: run npm run build (or drop --no-build)\n`);
  process.exit(1);
}

const specs = warpAllSpecs((name) => !formRe || formRe.test(name));
if (!specs.length) usageError(`--forms '${values.forms}' matches no form`);
const compiledRows = kinds.includes("hip") || kinds.includes("llvm");
const chunks = warpAllChunks(specs, chunkSize, compiledRows ? callableName : undefined);
if (values.json) writeFileSync(values.json, "");

const started = Date.now();
const cpuStart = process.cpuUsage();
const rows: WarpAllRow[] = [];
let done = 0;
let next = 0;
let failed: string | null = null;

/** Runs the chunks on one worker, one at a time, until none is left. */
function drive(): Promise<void> {
  return new Promise((resolve) => {
    const w = new Worker(pathToFileURL(workerFile), { workerData: { job: WORKER_JOB } });
    const give = () => {
      if (next >= chunks.length || failed) {
        void w.terminate().then(() => resolve());
        return;
      }
      const id = next++;
      const chunk: WarpAllChunk & { id: number } = { id, specs: chunks[id]!, targets, seed, warps, compiledWarps: compiledWarps as "all" | "tenth" };
      w.postMessage(chunk);
    };
    w.on("message", (m: { id: number; rows?: WarpAllRow[]; error?: string }) => {
      if (m.error) failed = `chunk ${m.id} (${chunks[m.id]![0]!.form.op}…): ${m.error}`;
      else {
        rows.push(...m.rows!);
        if (values.json) appendFileSync(values.json, m.rows!.map((r) => JSON.stringify(r)).join("\n") + "\n");
        done++;
        const s = (Date.now() - started) / 1000;
        process.stderr.write(`verify-all-warp: ${done}/${chunks.length} chunks, ${s.toFixed(0)} s\n`);
      }
      give();
    });
    w.on("error", (e) => {
      failed = `worker: ${e.stack ?? e.message}`;
      resolve();
    });
    give();
  });
}

await Promise.all(Array.from({ length: Math.min(workers, chunks.length) }, drive));
if (failed) {
  process.stderr.write(`verify-all-warp: error: ${failed}\n`);
  process.exit(1);
}
const seconds = (Date.now() - started) / 1000;
const cpu = process.cpuUsage(cpuStart);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;

// The table: one line per form; a cell per target: tested rows (≥ the fewest random warps of one), refuted, unknown/skipped.
const forms = [...new Set(specs.map((s) => warpFormName(s.form as WarpForm)))].filter((f) => rows.some((r) => r.form === f));
const table = new Table({ head: ["form", "routines", ...columns], style: { head: [], border: [] }, chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" } });
const cell = (rs: WarpAllRow[]) => {
  const t = rs.filter((r) => r.status === "tested");
  const bad = rs.filter((r) => r.status === "refuted").length;
  const other = rs.length - t.length - bad;
  const parts = [];
  if (t.length) parts.push(`${t.length} ≥${Math.min(...t.map((r) => r.warps ?? r.n!))}`);
  if (bad) parts.push(`${bad} REFUTED`);
  if (other) parts.push(`${other} ${rs.find((r) => r.status !== "tested" && r.status !== "refuted")!.status}`);
  return parts.join(", ") || "-";
};
for (const f of forms) {
  const fr = rows.filter((r) => r.form === f);
  table.push([f, new Set(fr.map((r) => r.routine)).size, ...columns.map((c) => cell(fr.filter((r) => r.target === c)))]);
}
process.stdout.write(`${table.toString()}\n`);
const count = (s: WarpAllRow["status"]) => rows.filter((r) => r.status === s).length;
const warpRuns = rows.reduce((s, r) => s + (r.status === "tested" ? r.n! : 0), 0);
const whys = [...new Set(rows.filter((r) => r.why).map((r) => `${r.target}: ${r.why}`))];
for (const w of whys.slice(0, 20)) process.stdout.write(`note: ${w}\n`);
for (const r of rows.filter((x) => x.status === "refuted").slice(0, 5)) process.stdout.write(`\n${r.routine} [${r.target}] ${r.rule}\n${r.counterexample}\n`);
process.stdout.write(
  `\n${specs.length} routines of ${forms.length} forms × ${columns.length} targets: ${rows.length} rows — ${count("tested")} tested, ${count("refuted")} refuted, ${count("unknown")} unknown, ${count("skipped")} skipped; ` +
    `${warps} warps per routine (a cell: tested rows ≥ the fewest random warps of one; hip/llvm rows ${compiledWarps === "all" ? "all of them" : "a tenth, at least 1,000"}, each in both argument layouts and on wave64 with one and two warps per wave); ` +
    `${warpRuns} row × warp checks (an amdgpu row whose code is another's on the same processor shares its run) ` +
    `in ${seconds.toFixed(1)} s wall, ${cpuSeconds.toFixed(0)} s CPU in this process (${(specs.length * warps / seconds).toFixed(0)} routine-warps/s; ${Math.min(workers, chunks.length)} workers, seed ${seed})\n`,
);
process.exit(count("refuted") > 0 ? 1 : 0);
