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
