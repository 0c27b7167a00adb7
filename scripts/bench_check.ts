/**
 * @fileoverview The bench's `check-rows` and `verify-default` tables (issue 37 items 2 and 4),
 * each command a child process of the CLI from source (`node --import tsx bin/ptx-lower.ts`,
 * start-up included, as a user runs it):
 *   - check-rows: `check ../shared/vectors/public.jsonl --target K` for K = c, hip, llvm (each
 *     target row alone, all five processors for hip and llvm): wall seconds, CPU seconds (the
 *     process and the compilers it ran, from /proc: user + system of it and its reaped
 *     children) and the ratio to the c row; goal: hip and llvm each within 3× c.
 *   - verify-default: `verify FILE` with no options on each module of ../shared/ptx: wall and
 *     CPU seconds, peak RSS of the CLI process, the verdict line; goal: within 60 s.
 * With `--base DIR` (a checkout of an earlier commit with its node_modules, e.g.
 * `git worktree add /tmp/base c91f7ac && ln -s $PWD/node_modules /tmp/base/`), each command is
 * run there too, interleaved with this tree's run (base, this, …), for before/after figures on
 * the same machine in the same run.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Table from "cli-table3";

const style = { head: [] as string[], border: [] as string[] };
const compact = { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" };

/** CPU seconds of this process and its reaped children (Linux /proc; NaN elsewhere). */
function cpuWithChildren(): number {
  try {
    const f = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    // Fields 14–17 of proc(5) (utime, stime, cutime, cstime), here 0-based after the comm field.
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100;
  } catch {
    return NaN;
  }
}

/** One CLI run: wall and CPU seconds, peak RSS (MB) of the CLI process, exit status, output. */
interface CliRun {
  wall: number;
  cpu: number;
  rssMb: number;
  status: number | null;
  out: string;
  err: string;
}

/**
 * Runs `ptx-lower ARGS` from the source tree `root` in a child process.
 * @throws Error when the command cannot be started
 */
function runCli(root: string, args: readonly string[], scratch: string): CliRun {
  const usage = join(scratch, "rusage.json");
  const hook = join(scratch, "rusage.mjs");
  if (!existsSync(hook)) writeFileSync(hook, `import { writeFileSync } from "node:fs";\nprocess.on("exit", () => { try { writeFileSync(${JSON.stringify(usage)}, JSON.stringify(process.resourceUsage())); } catch {} });\n`);
  rmSync(usage, { force: true });
  const c0 = cpuWithChildren();
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ["--import", "tsx", "--import", pathToFileURL(hook).href, join(root, "bin", "ptx-lower.ts"), ...args], { cwd: root, encoding: "utf8", maxBuffer: 1 << 28 });
  const wall = (performance.now() - t0) / 1000;
  if (r.error) throw r.error;
  const rss = existsSync(usage) ? (JSON.parse(readFileSync(usage, "utf8")) as { maxRSS: number }).maxRSS / 1024 : NaN;
  return { wall, cpu: cpuWithChildren() - c0, rssMb: rss, status: r.status, out: r.stdout, err: r.stderr };
}

const s1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : "-");

/** The check-rows table (file overview). */
export function checkRows(root: string, base?: string): string {
  const vectors = join(root, "..", "shared", "vectors", "public.jsonl");
  if (!existsSync(vectors)) return `check-rows: ${vectors} is missing: skipped\n`;
  const scratch = mkdtempSync(join(tmpdir(), "ptx-lower-bench-check-"));
  try {
    const rows = ["c", "hip", "llvm"];
    const now = new Map<string, CliRun>();
    const before = new Map<string, CliRun>();
    for (const k of rows) {
      const args = ["check", vectors, "--target", k];
      if (base) before.set(k, runCli(base, args, scratch));
      now.set(k, runCli(root, args, scratch));
    }
    const head = ["row (check public.jsonl --target K)", "wall s", "CPU s (with compilers)", "× c (wall)", "goal", ""];
    if (base) head.push("before: wall s", "before: CPU s", "before: × c");
    const table = new Table({ head, style, chars: compact });
    for (const k of rows) {
      const r = now.get(k)!;
      const ratio = r.wall / now.get("c")!.wall;
      const goal = k === "c" ? "" : "≤ 3×";
      const line = [k === "c" ? "c" : `${k} (5 processors)`, s1(r.wall), s1(r.cpu), k === "c" ? "1" : `${ratio.toFixed(2)}×`, goal, k === "c" ? "" : ratio <= 3 ? "met" : "NOT met"];
      if (r.status !== 0 && r.status !== 1) line[5] = `exit ${r.status}`;
      if (base) {
        const b = before.get(k)!;
        line.push(s1(b.wall), s1(b.cpu), k === "c" ? "1" : `${(b.wall / before.get("c")!.wall).toFixed(2)}×`);
      }
      table.push(line);
    }
    const verdicts = rows.map((k) => `${k}: ${now.get(k)!.out.trim().split("\n").pop()}`).join("; ");
    return [`check-rows: each target row of check ../shared/vectors/public.jsonl alone, a child process each (${availableParallelism()} cores)${base ? `; before: ${base}` : ""}`, table.toString(), verdicts, ""].join("\n");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The verify-default table (file overview). */
export function verifyDefault(root: string, base?: string, only?: string): string {
  const dir = join(root, "..", "shared", "ptx");
  if (!existsSync(dir)) return `verify-default: ${dir} is missing: skipped\n`;
  const files = readdirSync(dir).filter((f) => f.endsWith(".ptx") && (!only || f.includes(only))).sort();
  const scratch = mkdtempSync(join(tmpdir(), "ptx-lower-bench-verify-"));
  try {
    const head = ["module (verify FILE, no options)", "wall s", "CPU s (with compilers)", "peak RSS MB", "goal ≤ 60 s", "verdicts"];
    if (base) head.push("before: wall s", "before: peak RSS MB");
    const table = new Table({ head, style, chars: compact });
    for (const f of files) {
      const args = ["verify", join(dir, f)];
      const b = base ? runCli(base, args, scratch) : undefined;
      const r = runCli(root, args, scratch);
      const summary = r.out.trim().split("\n").pop() ?? "";
      const line = [f, s1(r.wall), s1(r.cpu), s1(r.rssMb), r.wall <= 60 ? "met" : "NOT met", r.status === 0 ? summary.slice(0, 60) : `exit ${r.status}: ${r.err.trim().split("\n").pop()}`];
      if (b) line.push(s1(b.wall), s1(b.rssMb));
      table.push(line);
    }
    return [`verify-default: verify FILE with its defaults on each ../shared/ptx module, a child process each (${availableParallelism()} cores)${base ? `; before: ${base}` : ""}`, table.toString(), ""].join("\n");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
