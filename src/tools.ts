/**
 * @fileoverview Running the native tools the checks use (llvm-mc-19, llc-19, opt-19): one
 * process per call with the input on stdin, at most `availableParallelism()` at a time.
 */
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";

/** A finished tool process: its exit code (−1 when killed) and its output. */
export interface ToolRun {
  code: number;
  out: string;
  err: string;
}

const slots = { free: Math.max(1, availableParallelism()), waiting: [] as (() => void)[] };

/**
 * Runs `cmd args` with `input` on stdin and resolves with its exit code and output, whatever
 * the code.
 * @throws the spawn error when `cmd` cannot be started (e.g. ENOENT)
 */
export async function runProcess(cmd: string, args: readonly string[], input: string): Promise<ToolRun> {
  if (slots.free === 0) await new Promise<void>((res) => slots.waiting.push(res));
  else slots.free--;
  try {
    return await new Promise<ToolRun>((resolve, reject) => {
      const p = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      p.stdout.on("data", (b: Buffer) => out.push(b));
      p.stderr.on("data", (b: Buffer) => err.push(b));
      p.on("error", reject);
      p.on("close", (code) => resolve({ code: code ?? -1, out: Buffer.concat(out).toString("utf8"), err: Buffer.concat(err).toString("utf8") }));
      p.stdin.on("error", () => {});
      p.stdin.end(input);
    });
  } finally {
    const next = slots.waiting.shift();
    if (next) next();
    else slots.free++;
  }
}

/**
 * Runs `cmd args` with `input` on stdin and resolves with its standard output.
 * @throws Error naming the command and its first error lines when it exits non-zero
 */
export async function runTool(cmd: string, args: readonly string[], input: string): Promise<string> {
  const r = await runProcess(cmd, args, input);
  if (r.code === 0) return r.out;
  const first = r.err.split("\n").filter((l) => /error|LLVM ERROR/i.test(l)).slice(0, 3).join("\n") || r.err.slice(0, 500);
  throw new Error(`${cmd} ${args.join(" ")} failed (exit ${r.code}): ${first}`);
}

/** The in-process outputs of `cachedTool`, most recently used last (each up to a few MB). */
const outputs = new Map<string, Promise<string>>();
const OUTPUTS_KEPT = 24;

/**
 * `runTool` for a deterministic compile (clang-19, llc-19 on a text): the same command, its
 * version and the same input give the same output, so within a process each distinct call
 * runs once (the last `OUTPUTS_KEPT` kept). Where the environment names a directory in
 * `PTXL_COMPILE_CACHE` (the test suite does, under the OS temp dir), outputs are kept there
 * too, by the SHA-256 of the tool's `--version` text, its arguments and the input, written
 * atomically, so processes that compile the same text share the result.
 * @throws as `runTool` (a failed run is not kept)
 */
export async function cachedTool(cmd: string, args: readonly string[], input: string): Promise<string> {
  const { createHash } = await import("node:crypto");
  const version = await toolVersion(cmd);
  const key = createHash("sha256").update(JSON.stringify([cmd, version, args])).update("\0").update(input).digest("hex");
  const hit = outputs.get(key);
  if (hit) {
    outputs.delete(key);
    outputs.set(key, hit);
    return hit;
  }
  const p = fromDisk(key).then((out) => out ?? runTool(cmd, args, input).then((o) => toDisk(key, o)));
  p.catch(() => outputs.delete(key));
  if (outputs.size >= OUTPUTS_KEPT) outputs.delete(outputs.keys().next().value!);
  outputs.set(key, p);
  return p;
}

const versions = new Map<string, Promise<string>>();

/** `cmd --version`'s output (once per process): part of `cachedTool`'s key. */
function toolVersion(cmd: string): Promise<string> {
  let v = versions.get(cmd);
  if (!v) {
    v = runProcess(cmd, ["--version"], "").then((r) => r.out + r.err, () => "");
    versions.set(cmd, v);
  }
  return v;
}

async function fromDisk(key: string): Promise<string | undefined> {
  const dir = process.env.PTXL_COMPILE_CACHE;
  if (!dir) return undefined;
  const { readFile } = await import("node:fs/promises");
  const { join } = await import("node:path");
  return readFile(join(dir, `${key}.out`), "utf8").catch(() => undefined);
}

async function toDisk(key: string, out: string): Promise<string> {
  const dir = process.env.PTXL_COMPILE_CACHE;
  if (!dir) return out;
  const { mkdir, rename, writeFile } = await import("node:fs/promises");
  const { join } = await import("node:path");
  // Best effort: a cache that cannot be written only costs the next process a compile.
  try {
    await mkdir(dir, { recursive: true });
    const tmp = join(dir, `${key}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
    await writeFile(tmp, out);
    await rename(tmp, join(dir, `${key}.out`));
  } catch {
    /* not kept */
  }
  return out;
}
