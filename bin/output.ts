/**
 * @fileoverview Where the CLI's outputs go, and how they get there without destroying what
 * they are written to.
 *
 * - A regular file, or a path that does not exist yet: written to a temporary file beside
 *   it, then renamed over it (atomic; the file's permission bits are kept). Every such
 *   output of one command is renamed only once all of them (and all the direct writes
 *   below) have succeeded.
 * - A character or block device, a FIFO or a socket (`/dev/null`, a named pipe), and
 *   anything reached through `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/`: opened
 *   and written directly; it is never replaced or truncated to a regular file.
 * - A symbolic link: written through. The link stays as it is and what it points to is
 *   written by the rules above (a regular file is replaced atomically at its real path).
 *   A link to nothing is refused ("a symbolic link to a missing file").
 * - An output that is an input of the same command (the same device and inode, whatever
 *   the path says; standard input included) is refused, and so is a directory.
 *
 * Errors are `OutputError`s whose message is `cannot write PATH: reason` (the CLI prints
 * `ptx-lower: error: ` before it and exits 1). A write to a pipe whose reader has gone
 * (EPIPE) is an `OutputError` with `quiet` set: the command ends without a message.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import type { Stats } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** A command-line mistake (bad option combination): exit 1 with a message. */
export class UsageError extends Error {}

/** An output that cannot be written: `cannot write PATH: reason`; `quiet` for EPIPE. */
export class OutputError extends UsageError {
  constructor(
    message: string,
    readonly quiet = false,
  ) {
    super(message);
  }
}

const REASONS: Record<string, string> = {
  ENOENT: "no such file or directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "is a directory",
  EEXIST: "exists and is not a directory",
  ENOTDIR: "a parent is not a directory",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  EPIPE: "broken pipe",
  EIO: "input/output error",
  EFBIG: "file too large",
  ENXIO: "no such device or address",
};

/** A short reason for a file-system error (its errno name mapped to words). */
export function reasonOf(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return (code && REASONS[code]) ?? (e instanceof Error ? e.message : String(e));
}

/** The identity of a file: (device, inode). */
const idOf = (s: Stats) => `${s.dev}:${s.ino}`;

/**
 * The (device, inode) of each regular-file input; `-` is standard input (file descriptor 0).
 * Inputs that cannot be stat'ed are left out (reading them has already failed).
 */
export function inputIds(inputs: string[]): Set<string> {
  const ids = new Set<string>();
  for (const f of inputs) {
    try {
      const s = f === "-" ? fstatSync(0) : statSync(f);
      if (s.isFile()) ids.add(idOf(s));
    } catch {
      // unreadable: already reported by the reader
    }
  }
  return ids;
}

/** Paths that name a process's own descriptors: always written directly. */
const isDescriptorPath = (p: string) => /^\/dev\/(stdout|stderr|stdin|fd\/)|^\/proc\//.test(p);

type Plan = { path: string; text: string; how: "replace"; real: string; mode?: number } | { path: string; text: string; how: "direct" };

/** How one output is written (see the file comment). @throws OutputError */
function plan(path: string, text: string, inputs: Set<string>): Plan {
  const abs = resolve(path);
  let l: Stats | undefined;
  try {
    l = lstatSync(abs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { path, text, how: "replace", real: abs };
    throw new OutputError(`cannot write ${path}: ${reasonOf(e)}`);
  }
  let s: Stats = l;
  if (l.isSymbolicLink()) {
    try {
      s = statSync(abs);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new OutputError(`cannot write ${path}: ${code === "ENOENT" ? "a symbolic link to a missing file" : reasonOf(e)}`);
    }
  }
  if (s.isDirectory()) throw new OutputError(`cannot write ${path}: is a directory`);
  if (s.isFile() && inputs.has(idOf(s))) throw new OutputError(`cannot write ${path}: it is the input file (refusing to overwrite it)`);
  if (!s.isFile() || isDescriptorPath(abs)) return { path, text, how: "direct" };
  let real = abs;
  if (l.isSymbolicLink()) {
    try {
      real = realpathSync(abs);
    } catch (e) {
      throw new OutputError(`cannot write ${path}: ${reasonOf(e)}`);
    }
    if (isDescriptorPath(real)) return { path, text, how: "direct" };
  }
  return { path, text, how: "replace", real, mode: s.mode & 0o7777 };
}

/** The descriptor a path names (`/dev/stdout` 1, `/dev/stderr` 2, `/dev/fd/N`, `/proc/self/fd/N`), or null. */
function descriptorOf(abs: string): number | null {
  const m = /^\/dev\/(stdout|stderr|fd\/(\d+))$|^\/proc\/self\/fd\/(\d+)$/.exec(abs);
  if (!m) return null;
  return m[1] === "stdout" ? 1 : m[1] === "stderr" ? 2 : Number(m[2] ?? m[3]);
}

/**
 * Writes `text` to an already existing non-regular file (device, FIFO), or to the process's
 * own descriptor that `/dev/stdout` and the like name — that descriptor itself, so that a
 * shell's `>>` (append) or an earlier write's offset is respected.
 */
function writeDirect(path: string, text: string): void {
  let fd: number;
  const own = descriptorOf(resolve(path));
  try {
    fd = own ?? openSync(path, constants.O_WRONLY | constants.O_NOCTTY);
  } catch (e) {
    throw new OutputError(`cannot write ${path}: ${reasonOf(e)}`, (e as NodeJS.ErrnoException).code === "EPIPE");
  }
  try {
    const buf = Buffer.from(text, "utf8");
    for (let off = 0; off < buf.length; ) {
      try {
        off += writeSync(fd, buf, off, buf.length - off);
      } catch (e) {
        // A descriptor Node has made non-blocking (a pipe on standard output): wait, retry.
        if ((e as NodeJS.ErrnoException).code !== "EAGAIN") throw e;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      }
    }
  } catch (e) {
    throw new OutputError(`cannot write ${path}: ${reasonOf(e)}`, (e as NodeJS.ErrnoException).code === "EPIPE");
  } finally {
    if (own === null) closeSync(fd);
  }
}

/**
 * Writes every output by the rules of the file comment, as one unit: temporary files first,
 * then the direct writes, then the renames. On any failure the temporaries are removed and
 * no regular file has changed.
 * @param inputs the command's input paths (`-` for standard input): outputs that are one of
 *   them are refused.
 * @throws OutputError
 */
export function writeOutputs(files: { path: string; text: string }[], inputs: string[] = []): void {
  const ids = inputIds(inputs);
  const plans = files.map((f) => plan(f.path, f.text, ids));
  const temps: { tmp: string; real: string }[] = [];
  try {
    for (const p of plans) {
      if (p.how !== "replace") continue;
      const tmp = join(dirname(p.real), `.${basename(p.real)}.${process.pid}.${Date.now()}.tmp`);
      try {
        writeFileSync(tmp, p.text, { flag: "wx", ...(p.mode !== undefined ? { mode: p.mode } : {}) });
      } catch (e) {
        rmSync(tmp, { force: true });
        throw new OutputError(`cannot write ${p.path}: ${reasonOf(e)}`);
      }
      temps.push({ tmp, real: p.real });
    }
    for (const p of plans) if (p.how === "direct") writeDirect(p.path, p.text);
    for (const t of temps) {
      try {
        renameSync(t.tmp, t.real);
      } catch (e) {
        throw new OutputError(`cannot write ${t.real}: ${reasonOf(e)}`);
      }
    }
  } finally {
    for (const t of temps) rmSync(t.tmp, { force: true });
  }
}

/**
 * Quotes a command line for a POSIX shell, so that pasting it runs the same command: words
 * of safe characters as they are, anything else in single quotes (a `'` inside becomes
 * `'\''`). Control characters stay as they are; the printers escape them in comments.
 */
export function shellQuote(argv: readonly string[]): string {
  return argv.map((a) => (a !== "" && /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(" ");
}
