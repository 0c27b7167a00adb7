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
 *   and written directly; it is never replaced or truncated to a regular file. Standard
 *   output and error are written through descriptors 1 and 2; any other `/dev/fd/N` (or
 *   `/proc/self/fd/N`) is checked to be a descriptor the caller opened for writing (not one
 *   of Node's own: an `anon_inode:`, a pipe with both ends here) and reopened by its path in
 *   append mode — never written by its raw number.
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
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readdirSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import type { Stats } from "node:fs";
import { getSystemErrorMap } from "node:util";
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

/** Every errno name Node knows → its plain description (libuv's: `too many symbolic links encountered`). */
const SYSTEM_REASONS = (() => {
  const m = new Map<string, string>();
  try {
    for (const [name, description] of getSystemErrorMap().values()) m.set(name, description);
  } catch {
    // an older Node: the table above and the message's own description
  }
  return m;
})();

/**
 * A short, plain reason for a file-system error, for every code: ptx-lower's wording for the
 * common ones (the table above), else the system's description of the code (`EINVAL` →
 * `invalid argument`); for an error without a known code, the description part of Node's
 * message (`ELOOP: too many symbolic links encountered, stat '/x'` → `too many symbolic links
 * encountered`), without the code, the system call or the path.
 */
export function reasonOf(e: unknown): string {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  if (typeof code === "string") {
    const known = REASONS[code] ?? SYSTEM_REASONS.get(code);
    if (known) return known;
  }
  const message = e instanceof Error ? e.message : String(e);
  const m = /^[A-Z][A-Z0-9_]*: (.*?)(?:, \w+(?: '.*')?(?: -> '.*')?)?$/s.exec(message);
  return m ? m[1]! : message;
}

/**
 * Creates the directory `path` and its missing parents, one mkdir(2) each from the topmost
 * missing one down, as `mkdir -p` does; an existing directory is fine.
 * Why not Node's `mkdirSync(path, { recursive: true })`: on Node 20 it never returns where
 * mkdir fails with ENOENT under an existing parent (`-o /proc/out` spun at 100% CPU), and it
 * reports ENOENT for a directory on a read-only file system, where mkdir(2) says EROFS.
 * @throws the error of the first mkdir(2) (or stat(2)) that fails, its code kept for `reasonOf`.
 */
export function makeDirectory(path: string): void {
  const missing: string[] = [];
  // The path as written, not resolve()d: `link/../x` is x beside the link's target to the
  // kernel, and x in the working directory to a lexical normalisation.
  for (let p = path.replace(/(?<=.)\/+$/, ""); ; ) {
    try {
      statSync(p);
      break; // exists: a directory, or the mkdir below it fails with ENOTDIR
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
    }
    missing.push(p);
    const parent = dirname(p);
    if (parent === p) break;
    p = parent;
  }
  for (const d of missing.reverse()) {
    try {
      mkdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      // A symbolic link to nothing (stat said ENOENT; mkdir says EEXIST): say so.
      if (lstatSync(d).isSymbolicLink() && !existsPath(d)) throw Object.assign(new Error(`${d} is a symbolic link to nothing (${readlinkSync(d)})`), { code: "EDANGLING" });
      // Created meanwhile by someone else: fine if it is a directory.
      if (!statSync(d).isDirectory()) throw e;
    }
  }
}

/** Whether `p` exists, following links. */
function existsPath(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * `dir/name` as the kernel resolves it. Not path.join, which removes `..` lexically: with
 * `link → a/b`, `link/../x` is a/x to the kernel (and to mkdir) but x to join.
 */
export function inDirectory(dir: string, name: string): string {
  return dir.endsWith("/") ? dir + name : `${dir}/${name}`;
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

/**
 * The descriptor number a path names (`/dev/stdout` 1, `/dev/stderr` 2, `/dev/stdin` 0,
 * `/dev/fd/N`, `/proc/self/fd/N`, `/proc/thread-self/fd/N`, `/proc/PID/fd/N` of this
 * process), or null.
 */
function descriptorOf(abs: string): number | null {
  const m = /^\/dev\/(stdout|stderr|stdin|fd\/(\d+))$|^\/proc\/(self|thread-self|\d+)\/fd\/(\d+)$/.exec(abs);
  if (!m) return null;
  if (m[3] !== undefined && m[3] !== "self" && m[3] !== "thread-self" && Number(m[3]) !== process.pid) return null;
  return m[1] === "stdout" ? 1 : m[1] === "stderr" ? 2 : m[1] === "stdin" ? 0 : Number(m[2] ?? m[4]);
}

/**
 * Checks that descriptor `fd` (named by a `/dev/fd/N`-like path) is one the user could have
 * given: open, open for writing, and not one of Node's own (an `anon_inode:` such as its
 * epoll or eventfd descriptors, or a pipe whose other end is open in this process too, such
 * as libuv's wake-up pipes). @returns "socket" for a socket (written through the
 * descriptor: a socket cannot be reopened by path), "path" otherwise. @throws OutputError
 */
function checkDescriptor(path: string, fd: number): "socket" | "path" {
  const fail = (why: string): never => {
    throw new OutputError(`cannot write ${path}: ${why}`);
  };
  let link: string;
  try {
    link = readlinkSync(`/proc/self/fd/${fd}`);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") fail(`descriptor ${fd} is not open (open it in the shell, e.g. ${fd}>FILE)`);
    // No /proc (not Linux): the descriptor must at least be open.
    try {
      fstatSync(fd);
    } catch {
      fail(`descriptor ${fd} is not open (open it in the shell, e.g. ${fd}>FILE)`);
    }
    return "path";
  }
  const notUsers = () => fail(`descriptor ${fd} was not opened for ptx-lower (${link} is its own; open one in the shell, e.g. ${fd}>FILE)`);
  if (link.startsWith("anon_inode:")) notUsers();
  const accmode = (n: number): number | null => {
    try {
      const m = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${n}`, "utf8"));
      return m ? Number.parseInt(m[1]!, 8) & 3 : null;
    } catch {
      return null;
    }
  };
  const mode = accmode(fd);
  if (mode === 0) fail(`descriptor ${fd} is not open for writing`);
  if (link.startsWith("pipe:")) {
    // A pipe both of whose ends are here is Node's own (a user's pipe has its reader elsewhere).
    for (const other of readdirSync("/proc/self/fd")) {
      const n = Number(other);
      if (n === fd || n <= 2) continue;
      let l: string;
      try {
        l = readlinkSync(`/proc/self/fd/${n}`);
      } catch {
        continue;
      }
      if (l === link && accmode(n) === 0) notUsers();
    }
  }
  const channel = Number(process.env.NODE_CHANNEL_FD);
  if (link.startsWith("socket:")) {
    if (process.env.NODE_CHANNEL_FD !== undefined && channel === fd) notUsers();
    return "socket";
  }
  return "path";
}

type Plan = { path: string; text: string | Uint8Array; how: "replace"; real: string; mode?: number } | { path: string; text: string | Uint8Array; how: "direct"; fd?: number; append?: boolean };

/**
 * `path` made absolute as the kernel resolves it. resolve() removes `..` lexically, which is
 * wrong after a symbolic link (`link/../x` is beside the link's target): a path with a `..`
 * has its directory resolved by realpath where that directory exists. Other paths are
 * resolve()d, so that /dev/fd/N and /proc/self/fd/N keep their names (./descriptorOf).
 */
function absolute(path: string): string {
  if (!/(^|\/)\.\.(\/|$)/.test(path)) return resolve(path);
  try {
    return join(realpathSync.native(dirname(path)), basename(path)); // the JS realpathSync normalises `..` first
  } catch {
    return resolve(path);
  }
}

/** How one output is written (see the file comment). @throws OutputError */
function plan(path: string, text: string | Uint8Array, inputs: Set<string>): Plan {
  if (path === "") throw new OutputError("cannot write '': an empty path names no file");
  const abs = absolute(path);
  const fd = descriptorOf(abs);
  if (fd !== null) {
    // Standard output and error are always the user's: written through the descriptor, so
    // that `>>` and an earlier write's offset hold. Any other descriptor is checked, then
    // its path is opened (reaching what the shell connected); never the raw number.
    if (fd === 1 || fd === 2) return { path, text, how: "direct", fd };
    const how = checkDescriptor(path, fd);
    let s: Stats | undefined;
    try {
      s = statSync(abs);
    } catch {
      // a socket or an unreachable file: the open below says why
    }
    if (s?.isDirectory()) throw new OutputError(`cannot write ${path}: is a directory`);
    if (s?.isFile() && inputs.has(idOf(s))) throw new OutputError(`cannot write ${path}: it is the input file (refusing to overwrite it)`);
    return how === "socket" ? { path, text, how: "direct", fd } : { path, text, how: "direct", append: true };
  }
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

/**
 * Writes `text` to an already existing non-regular file (device, FIFO), to standard output
 * or error through its descriptor `own` (so that a shell's `>>` or an earlier write's offset
 * is respected), or to what a checked `/dev/fd/N` names, reopened by its path (`append`: in
 * append mode, so that `>>` appends and a fresh `>` file is simply written).
 */
function writeDirect(path: string, text: string | Uint8Array, own: number | null = null, append = false): void {
  let fd: number;
  try {
    fd = own ?? openSync(path, constants.O_WRONLY | constants.O_NOCTTY | (append ? constants.O_APPEND : 0));
  } catch (e) {
    throw new OutputError(`cannot write ${path}: ${reasonOf(e)}`, (e as NodeJS.ErrnoException).code === "EPIPE");
  }
  try {
    const buf = typeof text === "string" ? Buffer.from(text, "utf8") : Buffer.from(text.buffer, text.byteOffset, text.byteLength);
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
 * no regular file has changed. A `text` is written as UTF-8; bytes (a `Uint8Array`) as they are.
 * @param inputs the command's input paths (`-` for standard input): outputs that are one of
 *   them are refused.
 * @throws OutputError
 */
export function writeOutputs(files: { path: string; text: string | Uint8Array }[], inputs: string[] = []): void {
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
    for (const p of plans) if (p.how === "direct") writeDirect(p.path, p.text, p.fd ?? null, !!p.append);
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

export { shellQuote } from "../src/quote.js";
