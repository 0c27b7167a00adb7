/**
 * @fileoverview `ptx-lower port PATH… [-o OUT] [--json] …`: rewrites the inline PTX of CUDA
 * sources (and whole source trees) into calls of the HIP header's functions (src/port/rewrite.ts
 * says how), writes each ported file and its header atomically (bin/output.ts), and prints a
 * report — one row per asm statement, warp intrinsic call, `warpSize` use and CUDA-only
 * include, then a totals table — or, with `--json`, one document (docs/port.schema.json).
 *
 * What is read: a file named on the command line whose extension is one of `PORT_EXTENSIONS`
 * (`.cl` is OpenCL C, the others CUDA/HIP C++), or any file with `--language cuda|opencl`
 * (which then sets the language of every input named directly, and of standard input, `-`);
 * a directory, searched recursively for files with those extensions (sorted by name; symbolic
 * links inside it are not followed, each one is named in the report; the output directory
 * is not searched when it lies inside).
 *
 * Where things go:
 * - One input file without `-o` (or with `-o -`): the ported file to standard output, with
 *   the header inlined in it, and the report to standard error.
 * - `-o FILE` for one input file: FILE, and its header `STEM.hip.h` beside it (STEM: FILE's
 *   name without its last extension), or where `--header NAME` says.
 * - `-o DIR` (a directory, created if missing; required for several inputs or a directory):
 *   the tree is mirrored — a file named directly goes to `DIR/ITS-NAME`, a file found in a
 *   directory SRC to `DIR/ITS-PATH-RELATIVE-TO-SRC`. Files with nothing to rewrite are written
 *   (unchanged) only with `--copy-all`. Each ported file gets the header `STEM.hip.h` in its
 *   own directory, where STEM is its name without the last extension — unless two files of
 *   one output directory would share that name (`x.cu` and `x.cuh`), or it is the name of an
 *   output there: then each of those files' headers is named after its whole name
 *   (`x.cu.hip.h`, `x.cuh.hip.h`). The names depend only on the set of inputs, never on the
 *   order or on which files turn out to have rewrites. With `--shared-header NAME` one header
 *   `DIR/NAME` holds the functions of all the CUDA files (each once) and every ported file
 *   includes it by its relative path (OpenCL files keep headers of their own: the dialects
 *   differ). The report ends with the include path that builds the mirror, `-I DIR -I SRC…`
 *   (not with `--copy-all`, whose mirror holds every source).
 * - `--json` without `-o`: nothing is written, the document alone goes to standard output.
 *
 * Nothing is written over an input. A header that exists and was not written by `port` (it
 * has no `portBanner`) is never replaced: the run is refused, naming it (`--header NAME`
 * writes the header elsewhere). A run with any error — an input that cannot be read or is
 * no source, two inputs that would write one path, such a header — writes nothing at all,
 * not even a directory; every problem is one line, `PATH: error: message`, and the exit
 * status is 1 (with `--json` the document still goes to standard output, the errors in it).
 *
 * Many files are ported on every core (worker threads, bin/port_worker.ts; `--jobs N`), with
 * a progress bar on standard error when it is a terminal, and a line per twentieth of the
 * files otherwise (runs of 20 files or more).
 *
 * The header's semantics profile is `sm90` unless `--semantics isa`: the asm being replaced
 * ran on NVIDIA hardware, where ptxas emulates vshl/vshr (sm_75 and later), so sm90 keeps
 * what the CUDA code computed; the banner says which (`portBanner`).
 */
import { outputTargets } from "../src/target/registry.js";
import { collectRoutines } from "../src/lower.js";
import { lstatSync, readdirSync, readFileSync, realpathSync, rmdirSync, statSync, openSync, readSync, closeSync } from "node:fs";
import type { Dirent } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, dirname, extname, isAbsolute, join, posix, relative, resolve, sep } from "node:path";
import type { ParsedModule } from "../src/ir/build.js";
import type { ModuleRoutine, OutputTargetService } from "../src/target/lower.js";
import type { RoutineSpec } from "../src/ir/ir.js";
import { escapeLine } from "../src/diag.js";
import type { Loc } from "../src/ir/ir.js";
import type { Profile } from "../src/ir/forms.js";
import { PROFILES } from "../src/ir/forms.js";
import type { Reason } from "../src/port/bind.js";
import type { Liveness, PortLanguage, PortOptions, PortResult } from "../src/port/rewrite.js";
import type { ProfileDeparture } from "../src/check/departures.js";
import { portSource } from "../src/port/rewrite.js";
import { OutputError, UsageError, inDirectory, makeDirectory, reasonOf, shellQuote, writeOutputs } from "./output.js";
// The command line's arguments (read before this file is loaded: bin/port_args.ts).
export type { Predefined } from "./port_args.js";
export { checkPtxTarget, languageOf, parseDefine, parseUndef, PORT_EXTENSIONS, sourceNotPtx } from "./port_args.js";
import type { Predefined } from "./port_args.js";
import { checkPtxTarget, IDENT, languageOf, PORT_EXTENSIONS } from "./port_args.js";

/** Version of the `--json` document's shape (docs/port.schema.json). */
export const PORT_SCHEMA_VERSION = 4;



const hex32 = (x: bigint) => `0x${x.toString(16).padStart(8, "0")}`;

/** A statement's profile departures in `port --json` (docs/port.schema.json `departure`). */
export function departureJson(d: ProfileDeparture) {
  return { form: d.form, ids: d.ids, example: { inputs: Object.fromEntries(Object.entries(d.example.inputs).map(([k, v]) => [k, hex32(v)])), isa: hex32(d.example.isa), sm90: hex32(d.example.sm90) } };
}

/** A statement's profile departures in its table cell, after its forms: ` [sm90 departs: D2]`. */
export function departuresTag(ds: readonly ProfileDeparture[]): string {
  return ds.length ? ` [sm90 departs: ${[...new Set(ds.flatMap((d) => d.ids))].join(", ")}]` : "";
}

/**
 * One profile departure as the note under the table: the form, the departures, an input that
 * tells the profiles apart and the profile the rewrite follows, e.g. `vadd.u32.u32.u32 d.h1,
 * a, b, c: sm90 departs from the ISA here (D2; a=0x00000000 b=0x00000001 c=0x00000001: isa
 * 0x00010001, sm90 0x00000001); rewritten as sm90`.
 */
export function departureText(d: ProfileDeparture, profile: Profile): string {
  const ins = Object.entries(d.example.inputs).map(([k, v]) => `${k}=${hex32(v)}`).join(" ");
  return `${d.form}: sm90 departs from the ISA here (${d.ids.join(", ")}; ${ins}: isa ${hex32(d.example.isa)}, sm90 ${hex32(d.example.sm90)}); rewritten as ${profile}`;
}

/**
 * The header's banner: who wrote it, for which file (or, `shared`, for how many files), and
 * under which semantics profile — `sm90` (the default) is what the replaced asm computed on
 * NVIDIA hardware, where ptxas emulates the scalar video instructions for sm_75 and later;
 * `isa` is the PTX ISA's meaning, the one `ptx-lower lower --target hip` headers have by
 * default (the two differ only for the scalar video instructions: vshl/vshr, vadd…vmax, vset;
 * docs/profiles.md). Its first line is how `port` recognises a header it wrote (`PORT_MARK`).
 */
export function portBanner(file: string, profile: Profile, shared?: number): string {
  const why =
    profile === "sm90"
      ? ["semantics profile: sm90 — what the replaced asm computed on NVIDIA hardware (ptxas's emulation of the scalar video", "instructions, sm_75 and later); 'ptx-lower lower --target hip' headers default to isa, the PTX ISA's meaning (port --semantics isa)."]
      : ["semantics profile: isa — the PTX ISA's meaning, the default of 'ptx-lower lower --target hip' headers; the replaced", "asm computed sm90 on NVIDIA hardware (ptxas's emulation of the scalar video instructions), the port's default."];
  const whose = shared === undefined ? `The functions ${file} calls after ptx-lower port.` : `The functions the ${shared} file${shared === 1 ? "" : "s"} ported into ${file} call after ptx-lower port (each once).`;
  return [`NOTE: generated by ptx-lower port — do not edit.`, whose, ...why].join("\n");
}

/** What every header `port` writes holds in its first lines (`portBanner`): how an existing header is recognised as its own. */
export const PORT_MARK = "generated by ptx-lower port";

/** Extra inputs of the header generator: the file's language, and whether it uses the header's `ptxl_warpSize`. */
export interface HeaderExtra {
  language?: PortLanguage;
  warpSize?: boolean;
}

/** The banner the cached headers are printed with (`hipHeaderOf`): replaced by each file's own. */
const BANNER_TOKEN = "@ptx-lower port: banner@";

/** Headers already printed, by routines, profile, language and warpSize, with `BANNER_TOKEN` as their banner (a tree's files often call the same functions). */
const headerCache = new Map<string, string>();
const HEADER_CACHE_MAX = 256;

/** The first comment block of a header (its banner: the HIP printer puts it first), or null. */
function bannerBlock(text: string): string | null {
  if (!text.startsWith("/*")) return null;
  const end = text.indexOf("\n */");
  return end < 0 ? null : text.slice(0, end + 4);
}

/**
 * The header for a set of routines: the registered `hip` output target (targets/hip/module.ts,
 * `printHipModule` over the routines), under the semantics profile `profile`. A header for
 * the same routines (and profile, language, warpSize) as an earlier call is that header with
 * this banner: the banner is printed alone (no routines) and put in place of the earlier one's.
 * @throws UsageError when no `hip` target is registered: no header is made up in its place.
 */
export async function hipHeaderOf(routines: readonly ModuleRoutine[], banner: string, profile: Profile = "sm90", extra: HeaderExtra = {}, target?: OutputTargetService): Promise<string> {
  const hip = target ?? outputTargets().targets.find((t) => t.name === "hip");
  if (!hip) throw new UsageError("port: this build has no HIP target, so the header the ported file includes cannot be written; nothing was written");
  // `language` and `warpSize`: the HIP target's options for port headers (the OpenCL C dialect; the `ptxl_warpSize` constant).
  const lower = async (rs: readonly ModuleRoutine[], b: string) =>
    (await hip.lowerModule({ routines: rs, profile, banner: b.split("\n"), served: () => [], language: extra.language ?? "cuda", warpSize: extra.warpSize ?? false })).text;
  const key = [profile, extra.language ?? "cuda", extra.warpSize ? "w" : "", ...routines.map((r) => r.name)].join("\0");
  let cached = headerCache.get(key);
  if (cached === undefined) {
    cached = await lower(routines, BANNER_TOKEN);
    if (headerCache.size >= HEADER_CACHE_MAX) headerCache.delete(headerCache.keys().next().value!);
    headerCache.set(key, cached);
  }
  const old = bannerBlock(cached);
  const own = bannerBlock(await lower([], banner));
  if (old === null || own === null || !old.includes(BANNER_TOKEN)) return lower(routines, banner);
  return own + cached.slice(old.length);
}

/**
 * The header for a routines module (`hipHeaderOf` over its routines): the port's default
 * profile is sm90, what the replaced asm computed on NVIDIA hardware (src/port/rewrite.ts).
 * @throws UsageError when no `hip` target is registered.
 */
export async function hipHeader(mod: ParsedModule, banner: string, profile: Profile = "sm90", extra: HeaderExtra = {}): Promise<string> {
  return hipHeaderOf(collectRoutines(mod), banner, profile, extra);
}

/**
 * `hipHeader` over the given HIP output target instead of the registered one: for the port
 * worker (bin/port_worker.ts), which loads that target alone rather than every target's
 * composition (src/compose.ts: ~2 s of start-up a thread, against ~0.3 s).
 */
export function hipHeaderWith(target: OutputTargetService): NonNullable<PortCommandOptions["header"]> {
  return (mod, banner, profile, extra) => hipHeaderOf(collectRoutines(mod), banner, profile, extra, target);
}


/** Options of `portCommand`. */
export interface PortCommandOptions {
  output?: string;
  json?: boolean;
  /** `--html PATH`: also the page of the run (src/html/port.ts, made from the `--json` document); without `output` nothing else is written. */
  html?: string;
  /** The semantics profile of the header (default sm90). */
  semantics?: Profile;
  /** The language of every input named directly and of standard input (default: by extension). */
  language?: PortLanguage;
  /** `--ptx-target sm_XX`: the PTX module header every statement is checked under. */
  ptxTarget?: string;
  /** `--hip-macro NAME`, repeatable. */
  hipMacro?: string[];
  /** `-D`/`-U`, in order. */
  predefined?: Predefined[];
  renameShared?: boolean;
  /** Write files with nothing to rewrite too (a directory output). */
  copyAll?: boolean;
  /** One header for every CUDA file of a directory output, at `-o DIR/NAME`. */
  sharedHeader?: string;
  /** Where the header of the one input goes (instead of `STEM.hip.h` beside it). */
  headerPath?: string;
  /** Worker threads (default: every core; small runs are ported in this thread). */
  jobs?: number;
  /** The header generator (default `hipHeader`); tests inject one (the run is then in this thread). */
  header?: (mod: ParsedModule, banner: string, profile: Profile, extra: HeaderExtra) => Promise<string>;
}

/** `file: error: message`, one line, escaped. */
const fileError = (file: string, message: string) => process.stderr.write(escapeLine(`${file}: error: ${message}`) + "\n");

/** The name locations and the document give standard input. */
const STDIN = "<stdin>";

/** Control bytes no C source holds (tab, line feed, vertical tab, form feed, carriage return and escape are allowed). */
const CONTROL = /[\x00-\x08\x0e-\x1a\x1c-\x1f]/;

/**
 * Decodes a source: UTF-8 (a byte-order mark kept), or else one byte a character (written
 * back the same way, so that what is not rewritten stays byte-identical: a Latin-1 comment).
 * @returns the reason for a binary file: a NUL byte, or bytes that are not UTF-8 together
 *   with control bytes no source holds.
 */
function decodeSource(bytes: Buffer): { text: string; latin1: boolean } | { binary: string } {
  const nul = bytes.indexOf(0);
  if (nul >= 0) return { binary: `a binary file (a NUL byte at offset ${nul}), not a C/C++/CUDA/HIP/OpenCL source` };
  try {
    return { text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes), latin1: false };
  } catch {
    const text = bytes.toString("latin1");
    const c = CONTROL.exec(text);
    if (c) return { binary: `a binary file (not UTF-8, and a control byte 0x${c[0].charCodeAt(0).toString(16).padStart(2, "0")} at offset ${c.index}), not a C/C++/CUDA/HIP/OpenCL source` };
    return { text, latin1: true };
  }
}

/** Reads standard input to its end. */
async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

// =======================================================================================
// One file (in this thread or a worker's)

/** The placeholder the header callback returns; the real header is made once the result is known (its `warpSize` uses). */
const HEADER_PLACEHOLDER = "/*@ptx-lower port: header@*/";

/** What a worker is given for one file: everything serialisable. */
export interface PortFileJob {
  index: number;
  /** The name locations give. */
  name: string;
  text: string;
  headerName: string;
  inlineHeader: boolean;
  language: PortLanguage;
  /** The header's banner (`portBanner`). */
  banner: string;
  profile: Profile;
  /** Leave the header to the shared header: return the routines instead. */
  shared: boolean;
  ptxTarget?: string;
  hipMacros: string[];
  predefined: Predefined[];
  renameShared: boolean;
}

/** A file's port, without its routines module (not sent between threads). */
export type PortFileResult = Omit<PortResult, "routinesModule"> & {
  /** The routines it calls (name and contract), for a shared header; null when it has its own header or none. */
  routineSpecs: { name: string; spec: RoutineSpec }[] | null;
};

/**
 * Ports one file: `portSource` with the job's options, then its header made by `header` (with
 * the file's language and whether it uses `ptxl_warpSize`), inlined for standard output.
 */
export async function portFile(job: PortFileJob, header: NonNullable<PortCommandOptions["header"]>): Promise<PortFileResult> {
  const opts: PortOptions = {
    header: async () => HEADER_PLACEHOLDER,
    headerName: job.headerName,
    inlineHeader: job.inlineHeader,
    language: job.language,
    hipMacros: job.hipMacros,
    predefined: job.predefined,
    renameShared: job.renameShared,
    ...(job.ptxTarget !== undefined ? { ptxTarget: job.ptxTarget } : {}),
  };
  const r = await portSource(job.text, job.name, opts);
  const { routinesModule: mod, ...rest } = r;
  const out: PortFileResult = { ...rest, routineSpecs: null };
  if (r.header === null || mod === null) return out;
  const warpSize = r.warpSize.some((w) => w.status === "rewritten");
  if (job.shared) {
    out.routineSpecs = collectRoutines(mod).map((x) => ({ name: x.name, spec: x.spec }));
    out.header = "";
    return out;
  }
  // The header in the source's line endings (a CRLF source gets a CRLF header).
  const printed = await header(mod, job.banner, job.profile, { language: job.language, warpSize });
  const text = r.text.includes("\r\n") ? printed.replace(/\r?\n/g, "\r\n") : printed;
  out.header = text;
  if (job.inlineHeader) {
    const at = r.text.indexOf(HEADER_PLACEHOLDER);
    if (at >= 0) {
      const nl = r.text.startsWith("\r\n", at + HEADER_PLACEHOLDER.length) ? "\r\n" : "\n";
      out.text = r.text.slice(0, at) + text.replace(/\r?\n$/, "").replace(/\r?\n/g, nl) + r.text.slice(at + HEADER_PLACEHOLDER.length);
    }
  }
  return out;
}

// =======================================================================================
// Many files: worker threads

/** Fewer files than this are ported in this thread (a worker's start-up costs more). */
const PARALLEL_MIN = 16;

/** The worker's entry (bin/port_worker.ts, or .js when built), and whether tsx must be registered in it (./portAll). */
function workerUrl(): { url: URL; viaTsx: boolean } {
  const here = import.meta.url;
  return here.endsWith(".ts") ? { url: new URL("./port_worker.ts", here), viaTsx: true } : { url: new URL("./port_worker.js", here), viaTsx: false };
}

/**
 * Ports every job on `threads` threads: this one and `threads - 1` workers (fewer for few
 * files), all taking the next file from one queue — this thread starts at once, each worker
 * joins when it has loaded (a worker's start-up is a module load and its own warm-up). Runs
 * in this thread alone for fewer than `PARALLEL_MIN` files, or with an injected header.
 * Calls `done` after each file. @returns the results in job order.
 */
async function portAll(jobs: PortFileJob[], threads: number, header: PortCommandOptions["header"], done: () => void): Promise<PortFileResult[]> {
  const results: PortFileResult[] = new Array(jobs.length);
  const nWorkers = header !== undefined || jobs.length < PARALLEL_MIN ? 0 : Math.min(threads - 1, Math.floor(jobs.length / 8));
  if (nWorkers < 1) {
    for (const j of jobs) {
      results[j.index] = await portFile(j, header ?? hipHeader);
      done();
    }
    return results;
  }
  const { Worker } = await import("node:worker_threads");
  const { url, viaTsx } = workerUrl();
  let entry = url;
  if (viaTsx) {
    // A .ts worker (tsx, tests): register tsx's loader inside the thread first.
    const { createRequire } = await import("node:module");
    const { pathToFileURL } = await import("node:url");
    const api = pathToFileURL(createRequire(url).resolve("tsx/package.json").replace(/package\.json$/, "dist/esm/api/index.mjs")).href;
    entry = new URL(`data:text/javascript,${encodeURIComponent(`import { register } from ${JSON.stringify(api)}; register(); await import(${JSON.stringify(url.href)});`)}`);
  }
  const pool = Array.from({ length: nWorkers }, () => new Worker(entry));
  let next = 0;
  let finished = 0;
  let failure: Error | null = null;
  let wake: (() => void) | null = null;
  const settle = () => {
    finished++;
    done();
    wake?.();
  };
  for (const w of pool) {
    const feed = () => {
      if (next < jobs.length && failure === null) w.postMessage(jobs[next++]);
    };
    w.on("message", (m: { ready?: true; index: number; result?: PortFileResult; error?: string }) => {
      // Loaded: two files queued, so that the next one is there when it finishes one.
      if (m.ready) return (feed(), feed());
      if (m.error !== undefined) failure ??= new Error(m.error);
      else results[m.index] = m.result!;
      settle();
      feed();
    });
    w.on("error", (e) => {
      failure ??= e;
      wake?.();
    });
    w.on("exit", (code) => {
      if (finished < jobs.length) failure ??= new Error(`port: a worker thread exited with code ${code} before the files were ported`);
      wake?.();
    });
  }
  try {
    // This thread works on the same queue, letting the workers' messages in between files.
    while (next < jobs.length && failure === null) {
      const j = jobs[next++]!;
      results[j.index] = await portFile(j, hipHeader);
      settle();
      await new Promise((r) => setImmediate(r));
    }
    while (finished < jobs.length && failure === null) await new Promise<void>((r) => (wake = r));
    if (failure) throw failure;
  } finally {
    await Promise.all(pool.map((w) => w.terminate()));
  }
  return results;
}

/** Progress on standard error (bin/progress.ts): a bar on a terminal, a line per twentieth of the files otherwise (20 files or more). */
async function progress(total: number, quiet: boolean): Promise<{ tick: () => void; stop: () => void }> {
  const { startProgress } = await import("./progress.js");
  const p = await startProgress({ command: "port", unit: "files", total, quiet: quiet || total < 2, minTotal: 20 });
  let done = 0;
  return { tick: () => p.update(++done), stop: () => p.stop() };
}

// =======================================================================================
// The command

/** One input file, as found. */
interface Input {
  /** The path to read (`-`: standard input). */
  path: string;
  /** The name locations give (`<stdin>` for standard input). */
  name: string;
  language: PortLanguage;
  /** Where it is written (null: nowhere). */
  output: string | null;
  /** The source directory it was found in (for the include path), or its own directory. */
  root: string | null;
  /** Why it is not ported (it, or the path named, cannot be read or is no source; it collides with another). */
  error?: string;
}

/** What happened to one input. */
type Ported = {
  file: string;
  language: PortLanguage;
  output: string | null;
  headerPath: string | null;
  headerName: string | null;
  r: PortFileResult | null;
  error: string | null;
  /** ported (something rewritten), unchanged, already-ported, failed. */
  state: "ported" | "unchanged" | "already-ported" | "failed";
};


/** Validates the options that can be wrong in themselves. @throws UsageError */
function checkOptions(o: PortCommandOptions): void {
  if (o.output === "") throw new UsageError("-o '': an empty path names no file (- is standard output)");
  if (o.semantics !== undefined && !(PROFILES as readonly string[]).includes(o.semantics)) throw new UsageError(`--semantics must be one of ${PROFILES.join(", ")}`);
  if (o.language !== undefined && o.language !== "cuda" && o.language !== "opencl") throw new UsageError(`--language ${o.language}: must be cuda or opencl`);
  if (o.ptxTarget !== undefined) checkPtxTarget(o.ptxTarget);
  for (const m of o.hipMacro ?? []) if (!IDENT.test(m)) throw new UsageError(`--hip-macro ${m}: not a macro name (letters, digits, _; not starting with a digit)`);
  for (const p of o.predefined ?? []) {
    const name = "define" in p ? p.define : p.undef;
    if (!IDENT.test(name)) throw new UsageError(`${"define" in p ? "-D" : "-U"} ${name}: not a macro name (letters, digits, _; not starting with a digit)`);
  }
  if (o.jobs !== undefined && (!Number.isInteger(o.jobs) || o.jobs < 1)) throw new UsageError(`--jobs ${o.jobs}: must be a positive integer`);
  if (o.json && o.output === "-") throw new UsageError("--json prints its document on standard output, so -o - cannot send the ported file there too: name a file or a directory, or leave -o out (nothing is written then)");
  if (o.sharedHeader !== undefined) {
    const n = o.sharedHeader;
    if (n === "" || isAbsolute(n) || n.split(/[\\/]/).some((s) => s === ".." || s === "") || n.endsWith("/")) throw new UsageError(`--shared-header ${n}: name a file inside the output directory (a relative path without '..')`);
  }
  if (o.headerPath === "") throw new UsageError("--header '': an empty path names no file");
}



/** `dir/name`, or `name` alone when dir is `.` not written as such (so the report names files as the output was named). */
const beside = (output: string, name: string) => {
  const d = dirname(output);
  return d === "." && !output.startsWith("./") ? name : inDirectory(d, name);
};

/** A path relative to a directory, with `/`. */
const relPosix = (from: string, to: string) => relative(from, to).split(sep).join("/");

/** Reads the first bytes of a file (or null when it cannot be read). */
function head(path: string, n = 4096): string | null {
  let fd: number | null = null;
  try {
    fd = openSync(path, "r");
    const buf = Buffer.alloc(n);
    const k = readSync(fd, buf, 0, n, 0);
    return buf.subarray(0, k).toString("utf8");
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** Whether `path` exists as something other than a file that `port` wrote (`named`: by `--header`): refused as a header. @returns the reason, or null. */
function foreignHeader(path: string, named: boolean): string | null {
  let st;
  try {
    st = statSync(path);
  } catch {
    return null;
  }
  if (!st.isFile()) return null; // a directory or a device: writeOutputs says why
  const h = head(path);
  if (h !== null && h.includes(PORT_MARK)) return null;
  return `exists and was not written by ptx-lower port (no ptx-lower banner): it is not replaced; ${named ? "name with --header a file that does not exist yet, or one port wrote" : "name another place for the header with --header NAME, or move it"}`;
}

/**
 * Whether writing `text` to `path` would replace a file of the user's: one that exists, is not
 * `port`'s output (no `/* ptx-lower port *\/` guard) and differs from `text` (a copy `--copy-all`
 * made before is the same text). @returns the reason, or null.
 */
function foreignOutput(path: string, text: string | Uint8Array): string | null {
  let old: Buffer;
  try {
    if (!statSync(path).isFile()) return null; // a directory or a device: writeOutputs says why
    old = readFileSync(path);
  } catch {
    return null;
  }
  if (old.includes("/* ptx-lower port */") || old.equals(typeof text === "string" ? Buffer.from(text) : Buffer.from(text))) return null;
  return "exists and is not an output of ptx-lower port: it is not replaced; name an output directory outside the sources";
}

/**
 * `ptx-lower port`. @returns the exit code: 0 (also when statements are left, which the
 * report gives), 1 for any input that cannot be read or is no source, two inputs that would
 * write one path, or a header that is not port's own — nothing is written then; with `--json`
 * the document still goes to standard output, the errors in it.
 * @throws UsageError, OutputError
 */
export async function portCommand(paths: string[], o: PortCommandOptions): Promise<number> {
  checkOptions(o);
  const profile: Profile = o.semantics ?? "sm90";
  const dryRun = (o.json === true || o.html !== undefined) && o.output === undefined;
  // --html PATH: refused before the work if it cannot take the page (bin/html_output.ts).
  const html = o.html !== undefined ? await import("./html_output.js") : null;
  html?.checkHtmlPath(o.html!, paths);
  if (paths.filter((f) => f === "-").length > 1) throw new UsageError("- (standard input) is named more than once");
  const kinds = paths.map((p) => {
    if (p === "-") return "stdin";
    try {
      return statSync(p).isDirectory() ? "dir" : "file";
    } catch {
      return "missing";
    }
  });
  const anyDir = kinds.includes("dir");
  const noOutput = o.output === undefined || o.output === "-";
  if (!dryRun && noOutput && (paths.length > 1 || anyDir)) throw new UsageError(anyDir && paths.length === 1 ? `${paths[0]} is a directory: name an output directory with -o` : `${paths.length} inputs: name a directory with -o`);
  const toStdout = !dryRun && noOutput;
  const outIsDir = (() => {
    if (o.output === undefined || o.output === "-") return false;
    try {
      return statSync(o.output).isDirectory();
    } catch {
      return o.output.endsWith("/");
    }
  })();
  const dirMode = !toStdout && !dryRun && (paths.length > 1 || anyDir || outIsDir);
  const outDir = dirMode ? o.output! : null;
  if (o.sharedHeader !== undefined && !dirMode && !dryRun) throw new UsageError("--shared-header is for a directory output (-o DIR): one input written to a file or to standard output has a header of its own");
  if (o.headerPath !== undefined && (paths.length !== 1 || anyDir || toStdout || dryRun)) throw new UsageError("--header NAME is for one input file written with -o (standard output inlines the header)");
  if (o.headerPath !== undefined && o.sharedHeader !== undefined) throw new UsageError("--header and --shared-header cannot be used together");
  // The header is written beside the ported file: an -o that is a device, FIFO or socket
  // (/dev/null, /dev/stdout) has no "beside", so it is refused rather than writing into /dev.
  if (!toStdout && !dirMode && !dryRun) {
    let st: ReturnType<typeof statSync> | null = null;
    try {
      st = statSync(o.output!);
    } catch {
      st = null;
    }
    if (st && !st.isFile())
      throw new UsageError(`-o ${o.output}: not a regular file; the header is written beside the ported file, so name a file in a directory, a directory, or omit -o (standard output, header inlined)`);
  }
  if (outDir !== null && o.html !== undefined && resolve(o.html) === resolve(outDir)) throw new UsageError(`--html ${o.html} is the output directory (-o ${outDir}): name a file for the page, e.g. ${join(outDir, "port.html")}`);
  if (outDir !== null) for (let k = 0; k < paths.length; k++) if (kinds[k] === "dir" && resolve(paths[k]!) === resolve(outDir)) throw new UsageError(`-o ${outDir} is the source directory ${paths[k]}: the ported files would replace the sources; name another directory`);

  // 1. The inputs: files named, and files found in directories.
  const errors: { name: string; message: string }[] = [];
  const fail = (name: string, message: string) => {
    fileError(name, message);
    errors.push({ name, message });
  };
  const skipped: { path: string; reason: string }[] = [];
  const inputs: Input[] = [];
  /** Directories named in which no source was found (said in the report). */
  const empty: string[] = [];
  /** A path named (or a directory in a tree) that is not ported: reported, and a file of the document. */
  const failPath = (name: string, message: string) => {
    fail(name, message);
    inputs.push({ path: name, name, language: o.language ?? languageOf(name) ?? "cuda", output: null, root: null, error: message });
  };
  const outReal = (() => {
    if (outDir === null) return null;
    try {
      return realpathSync(outDir);
    } catch {
      return null;
    }
  })();
  const walk = (dir: string, root: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      failPath(dir, `cannot read the directory: ${reasonOf(e)}`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = inDirectory(dir, e.name);
      if (e.isSymbolicLink()) skipped.push({ path: p, reason: "a symbolic link: not followed" });
      else if (e.isDirectory()) {
        if (outReal !== null) {
          try {
            if (realpathSync(p) === outReal) {
              skipped.push({ path: p, reason: "the output directory: not searched" });
              continue;
            }
          } catch {
            // unreadable: the walk below says why
          }
        }
        walk(p, root);
      } else if (e.isFile()) {
        const lang = languageOf(e.name);
        if (lang !== null) inputs.push({ path: p, name: p, language: lang, output: outDir === null ? null : inDirectory(outDir, relPosix(root, p)), root });
      }
    }
  };
  for (let k = 0; k < paths.length; k++) {
    const p = paths[k]!;
    if (p === "-") {
      if (dirMode) failPath(STDIN, `standard input has no name to write under the directory ${o.output}: port it alone (-o FILE, or standard output)`);
      else inputs.push({ path: "-", name: STDIN, language: o.language ?? "cuda", output: toStdout || dryRun ? null : o.output!, root: null });
      continue;
    }
    if (kinds[k] === "missing") {
      let reason = "no such file";
      try {
        statSync(p);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") reason = reasonOf(e);
      }
      failPath(p, `cannot read: ${reason}`);
      continue;
    }
    if (kinds[k] === "dir") {
      if (!dirMode && !dryRun) {
        failPath(p, "is a directory: name an output directory with -o (the tree is mirrored there)");
        continue;
      }
      // `-o x.cu` that does not exist: a file name, most likely a slip (end it with / to mean a directory).
      if (o.output !== undefined && !outIsDir && languageOf(o.output) !== null) {
        failPath(p, `is a directory, and -o ${o.output} names a source file: name an output directory (the tree is mirrored there; end the name with / to make it one)`);
        continue;
      }
      const before = inputs.length;
      walk(p.replace(/(?<=.)\/+$/, ""), p.replace(/(?<=.)\/+$/, ""));
      if (inputs.length === before) empty.push(p);
      continue;
    }
    const lang = o.language ?? languageOf(p);
    if (lang === null) {
      failPath(p, `not a C/C++/CUDA/HIP/OpenCL source by its name (${PORT_EXTENSIONS.join(" ")}); --language cuda or --language opencl ports it anyway`);
      continue;
    }
    const output = toStdout || dryRun ? null : dirMode ? inDirectory(outDir!, basename(p)) : o.output!;
    inputs.push({ path: p, name: p, language: lang, output, root: dirname(p) });
  }
  // The same file reached twice for the same output (a directory and a file in it): once.
  {
    const seen = new Set<string>();
    for (let k = 0; k < inputs.length; k++) {
      const x = inputs[k]!;
      const key = `${x.path === "-" ? "-" : resolve(x.path)}\0${x.output === null ? "" : resolve(x.output)}`;
      if (seen.has(key)) inputs.splice(k--, 1);
      seen.add(key);
    }
  }
  // 2. Where each output and header goes; two inputs writing one path is an error of both.
  const taken = new Map<string, string>();
  const claim = (path: string, by: string, x?: Input): boolean => {
    const key = resolve(path);
    const other = taken.get(key);
    if (other !== undefined && other !== by) {
      const message = `${other} and ${by} would both be written here`;
      fail(path, message);
      if (x) x.error ??= `${path}: ${message}`;
      return false;
    }
    taken.set(key, by);
    return true;
  };
  for (const x of inputs) if (x.output !== null && x.error === undefined) claim(x.output, x.name, x);
  const headerNames = new Map<Input, { name: string; path: string | null }>();
  const sharedPath = outDir !== null && o.sharedHeader !== undefined ? inDirectory(outDir, o.sharedHeader) : null;
  {
    // Per output directory: STEM.hip.h, or NAME.hip.h for the files whose stems collide there.
    const byDir = new Map<string, Input[]>();
    for (const x of inputs) {
      const d = x.output === null ? "" : dirname(resolve(x.output));
      const group = byDir.get(d);
      if (group) group.push(x);
      else byDir.set(d, [x]);
    }
    for (const group of byDir.values()) {
      const nameOf = (x: Input) => basename(x.output ?? (x.path === "-" ? "stdin" : x.path));
      // The name the ported file includes is the name written: what an #include "…" cannot hold (a quote, a backslash, a line break) is '_' in both.
      const clean = (n: string) => n.replace(/["\\\r\n]/g, "_");
      const stem = (x: Input) => clean(`${nameOf(x).replace(/\.[^.]*$/, "")}.hip.h`);
      const outputs = new Set(group.map(nameOf));
      const count = new Map<string, number>();
      for (const x of group) count.set(stem(x), (count.get(stem(x)) ?? 0) + 1);
      const used = new Set<string>();
      for (const x of group) {
        const s = stem(x);
        let name = dirMode && ((count.get(s) ?? 0) > 1 || outputs.has(s)) ? clean(`${nameOf(x)}.hip.h`) : s;
        // Still taken (`k.hip` beside `k.hip.h`: the one's full name is the other's stem name): numbered.
        for (let n = 2; outputs.has(name) || used.has(name); n++) name = clean(`${nameOf(x)}.${n}.hip.h`);
        used.add(name);
        if (sharedPath !== null && x.language === "cuda" && x.output !== null) {
          headerNames.set(x, { name: relPosix(dirname(x.output), sharedPath), path: sharedPath });
        } else if (o.headerPath !== undefined && x.output !== null) {
          headerNames.set(x, { name: relPosix(dirname(resolve(x.output)), resolve(o.headerPath)), path: o.headerPath });
        } else headerNames.set(x, { name, path: x.output === null ? null : beside(x.output, name) });
      }
    }
  }
  // 3. Read every input: one that cannot be read stops the command before anything is written.
  const texts = new Map<Input, { text: string; latin1: boolean }>();
  for (const x of inputs) {
    if (x.error !== undefined) continue;
    let bytes: Buffer;
    try {
      bytes = x.path === "-" ? await readStdin() : readFileSync(x.path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      x.error = `cannot read: ${code === "ENOENT" ? "no such file" : reasonOf(e)}`;
      fail(x.name, x.error);
      continue;
    }
    const decoded = decodeSource(bytes);
    if ("binary" in decoded) {
      fail(x.name, decoded.binary);
      x.error = decoded.binary;
    }
    else texts.set(x, decoded);
  }
  if (errors.length > 0 && !o.json) return 1;
  // 4. Port.
  const jobs: PortFileJob[] = [];
  const jobOf = new Map<Input, number>();
  for (const x of inputs) {
    const t = texts.get(x);
    if (!t) continue;
    const h = headerNames.get(x)!;
    jobOf.set(x, jobs.length);
    jobs.push({
      index: jobs.length,
      name: x.name,
      text: t.text,
      headerName: h.name,
      inlineHeader: toStdout,
      language: x.language,
      banner: portBanner(x.path === "-" ? STDIN : basename(x.path), profile),
      profile,
      shared: sharedPath !== null && x.language === "cuda",
      hipMacros: o.hipMacro ?? [],
      predefined: o.predefined ?? [],
      renameShared: o.renameShared === true,
      ...(o.ptxTarget !== undefined ? { ptxTarget: o.ptxTarget } : {}),
    });
  }
  const bar = await progress(jobs.length, false);
  let portedResults: PortFileResult[];
  try {
    portedResults = await portAll(jobs, o.jobs ?? availableParallelism(), o.header, bar.tick);
  } finally {
    bar.stop();
  }
  // 5. What is written.
  const writing = errors.length === 0 && !dryRun;
  const results: Ported[] = [];
  const writes: { path: string; text: string | Uint8Array }[] = [];
  const sharedRoutines = new Map<string, ModuleRoutine>();
  let sharedFiles = 0;
  let sharedWarp = false;
  for (const x of inputs) {
    const k = jobOf.get(x);
    const error = x.error ?? null;
    if (k === undefined) {
      results.push({ file: x.name, language: x.language, output: null, headerPath: null, headerName: null, r: null, error, state: "failed" });
      continue;
    }
    const r = portedResults[k]!;
    const t = texts.get(x)!;
    const changed = r.header !== null || r.text !== t.text;
    const state = r.alreadyPorted ? "already-ported" : changed ? "ported" : "unchanged";
    const write = writing && x.output !== null && (!dirMode || changed || o.copyAll === true);
    const h = headerNames.get(x)!;
    const headerPath = writing && r.header !== null ? h.path : null;
    results.push({ file: x.name, language: x.language, output: write ? x.output : null, headerPath, headerName: r.header !== null ? h.name : null, r, error, state });
    if (write) writes.push({ path: x.output!, text: t.latin1 ? Buffer.from(r.text, "latin1") : r.text });
    if (r.routineSpecs !== null) {
      sharedFiles++;
      sharedWarp ||= r.warpSize.some((w) => w.status === "rewritten");
      for (const s of r.routineSpecs) if (!sharedRoutines.has(s.name)) sharedRoutines.set(s.name, { name: s.name, spec: s.spec, insts: [] });
    } else if (headerPath !== null) {
      if (headerPath !== sharedPath && !claim(headerPath, `${x.name} (its header)`)) continue;
      writes.push({ path: headerPath, text: r.header! });
    }
  }
  let sharedWritten: string | null = null;
  if (sharedPath !== null && sharedRoutines.size > 0) {
    const text = await hipHeaderOf([...sharedRoutines.values()], portBanner(outDir!, profile, sharedFiles), profile, { language: "cuda", warpSize: sharedWarp });
    if (writing) {
      if (claim(sharedPath, "--shared-header")) writes.push({ path: sharedPath, text });
      sharedWritten = sharedPath;
    }
  }
  // A header that is not port's own is never replaced.
  const headers = new Set(results.map((x) => x.headerPath));
  for (const w of writes) {
    if (w.path !== sharedWritten && !headers.has(w.path)) continue;
    const why = foreignHeader(w.path, o.headerPath !== undefined);
    if (why !== null) {
      fail(w.path, why);
      for (const x of results) if (x.headerPath === w.path) x.error ??= `its header ${w.path} ${why.split(":")[0]}`;
    }
  }
  // Nor is a file of the user's where a ported or copied source would go (an output directory inside the source tree, a file left there).
  const inputPaths = new Set(inputs.filter((x) => x.path !== "-").map((x) => resolve(x.path)));
  for (const w of writes) {
    // (An output that is an input is refused where it is written, saying so.)
    if (w.path === sharedWritten || headers.has(w.path) || inputPaths.has(resolve(w.path))) continue;
    const why = foreignOutput(w.path, w.text);
    if (why !== null) {
      fail(w.path, why);
      for (const x of results) if (x.output === w.path) x.error ??= `its output ${w.path} ${why.split(":")[0]}`;
    }
  }
  // The page is one more output: not where a ported file or header goes.
  if (o.html !== undefined) claim(o.html, "--html (the page)");
  const failed = errors.length > 0;
  if (failed) for (const x of results) (x.output = null), (x.headerPath = null);
  const roots = [...new Set(inputs.filter((x) => x.root !== null && x.output !== null).map((x) => x.root!))];
  const includePath = dirMode && !failed && o.copyAll !== true && writes.length > 0 ? ["-I", outDir!, ...roots.flatMap((r) => ["-I", r])] : null;
  const options = { language: o.language ?? null, ptxTarget: o.ptxTarget ?? null, hipMacros: o.hipMacro ?? [], predefined: o.predefined ?? [], renameShared: o.renameShared === true };
  // A file left out of the mirror that includes a ported one by a quoted #include gets the original: "…" resolves beside the includer first.
  const includers: string[] = [];
  if (includePath !== null) {
    // `results` holds one entry per input, in order.
    const ported = new Set(inputs.filter((x, k) => results[k]?.output !== null).map((x) => resolve(x.path)));
    inputs.forEach((x, k) => {
      const res = results[k];
      if (!res || res.output !== null || res.error !== null || x.path === "-") return;
      const t = texts.get(x)?.text ?? "";
      for (const m of t.matchAll(/^[ \t]*#[ \t]*include[ \t]*"([^"\r\n]+)"/gm))
        if (ported.has(resolve(dirname(x.path), m[1]!))) includers.push(`${x.name}: note: its #include "${m[1]}" names a ported file, but a quoted include is found beside ${basename(x.name)} first, so a build from -I ${outDir} picks the original: port with --copy-all to build from the mirror alone`);
    });
  }
  const extras = { skipped, empty, problems: errors.length, sharedHeader: failed ? null : sharedWritten, includePath, outDir, options, includers };
  // One document for --json and the page (its numbers are the document's).
  const doc = o.json || html ? portJson(results, profile, extras) : null;
  const inputFiles = inputs.filter((x) => x.path !== "-").map((x) => x.path);
  if (html && !failed) {
    // results[k] is inputs[k]'s.
    const shown = results.map((x, k) => ({ original: texts.get(inputs[k]!)?.text ?? null, ported: x.r?.text ?? null, header: x.r?.header || null }));
    writes.push({ path: o.html!, text: await html.portHtml(doc!, shown) });
  }
  if (toStdout && !failed) {
    if (html) writeAllOrNothing(writes, inputFiles);
    const t = texts.get(inputs[0]!)!;
    process.stdout.write(t.latin1 ? Buffer.from(results[0]!.r!.text, "latin1") : results[0]!.r!.text);
  } else if ((writing || html) && !failed) writeAllOrNothing(writes, inputFiles);
  if (o.json) process.stdout.write(JSON.stringify(doc, null, 2) + "\n");
  else (toStdout ? process.stderr : process.stdout).write(await summary(results, extras, profile));
  if (html && !failed) process.stderr.write(`port: wrote the page ${escapeLine(o.html!)}\n`);
  return failed ? 1 : 0;
}

/**
 * Creates the directories the outputs need and writes them (bin/output.ts `writeOutputs`);
 * on any failure the directories it created are removed again, so a failed run leaves
 * nothing behind. @throws OutputError
 */
export function writeAllOrNothing(writes: { path: string; text: string | Uint8Array }[], inputs: string[]): void {
  const created: string[] = [];
  const exists = (p: string) => {
    try {
      lstatSync(p);
      return true;
    } catch {
      return false;
    }
  };
  try {
    const dirs = [...new Set(writes.map((w) => dirname(w.path)))].sort((a, b) => a.length - b.length);
    for (const d of dirs) {
      const missing: string[] = [];
      for (let p = d; !exists(p); p = dirname(p)) {
        missing.push(p);
        if (dirname(p) === p) break;
      }
      try {
        makeDirectory(d);
      } catch (e) {
        throw new OutputError(`cannot write ${d}: cannot create the directory: ${reasonOf(e)}`);
      }
      created.push(...missing.reverse());
    }
    writeOutputs(writes, inputs);
  } catch (e) {
    for (const d of created.reverse()) {
      try {
        rmdirSync(d);
      } catch {
        // not empty (someone else's file) or gone: left as it is
      }
    }
    throw e;
  }
}

// =======================================================================================
// The report

const where = (l: Loc) => `${l.line}:${l.col}`;

/** How a rewrite's liveness reads in the table: nothing for live, `dead: GUARD at L` or `depends on A, B (GUARD at L)`. */
function livenessText(l: Liveness | undefined): string {
  if (!l || l.state === "live") return "";
  if (l.state === "dead") return `dead: ${l.guard.text} at line ${l.guard.loc.line}`;
  return `depends on ${l.names.join(", ")} (${l.guard.text} at line ${l.guard.loc.line})`;
}

/**
 * The group a reason for leaving a statement falls in, and the instruction it names if it
 * is one ptx-lower does not support (`'selp.s32' is not an instruction ptx-lower supports` →
 * `blocked by selp`, instruction `selp`). Other reasons are grouped by their wording with
 * the numbers, names and quoted parts taken out.
 */
export function reasonGroup(message: string): { group: string; instruction: string | null } {
  const m = message.replace(/^(?:inside a macro body: )+(?:with the use at \d+:\d+: )?/, "");
  const inst = /^'([A-Za-z_][A-Za-z0-9_]*)[^']*' is not an instruction ptx-lower supports/.exec(m) ?? /^(?:Instruction |instruction )?'([a-z][a-z0-9_]*)(?:\.[^']*)?'/.exec(m);
  if (inst) return { group: `blocked by ${inst[1]}`, instruction: inst[1]! };
  if (/^another asm statement of /.test(m)) return { group: "another asm statement of its macro cannot be rewritten", instruction: null };
  const colon = m.indexOf(": ");
  const lead = /^malformed asm statement/.test(m) ? "malformed asm statement" : m;
  const g = (colon > 0 && /^operand %/.test(lead) ? lead.slice(colon + 2) : lead)
    .replace(/%\[\w+\]|%\d+/g, "%N")
    .replace(/\b\d+:\d+\b/g, "L:C")
    .replace(/'[^']*'/g, "'…'")
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\b0x[0-9a-fA-F]+\b|\b\d+\b/g, "N")
    .replace(/\s*\(.*\)\s*$/, "");
  return { group: g.length > 100 ? g.slice(0, 99) + "…" : g, instruction: null };
}

/** The totals over all files (the table's and the document's). */
export function totalsOf(results: Ported[], skipped: number) {
  const t = {
    files: { inputs: results.length, ported: 0, unchanged: 0, alreadyPorted: 0, failed: 0, written: 0, skipped },
    statements: { total: 0, rewritten: { live: 0, dead: 0, depends: 0 }, left: 0, leftByReason: [] as { reason: string; instruction: string | null; statements: number }[] },
    intrinsics: { rewritten: 0, left: 0, rewrittenByLiveness: { live: 0, dead: 0, depends: 0 } },
    warpSize: { rewritten: 0, left: 0 },
    blocking: [] as { instruction: string; statements: number }[],
  };
  const reasons = new Map<string, { instruction: string | null; n: number }>();
  const blocking = new Map<string, number>();
  for (const x of results) {
    if (x.state === "ported") t.files.ported++;
    else if (x.state === "unchanged") t.files.unchanged++;
    else if (x.state === "already-ported") t.files.alreadyPorted++;
    if (x.error !== null) t.files.failed++;
    if (x.output !== null) t.files.written++;
    const r = x.r;
    if (!r) continue;
    for (const s of r.statements) {
      t.statements.total++;
      if (s.status === "rewritten") t.statements.rewritten[s.liveness?.state ?? "live"]++;
      else {
        t.statements.left++;
        const first = s.reasons[0];
        const g = first ? reasonGroup(first.message) : { group: "no reason given", instruction: null };
        const e = reasons.get(g.group) ?? { instruction: g.instruction, n: 0 };
        e.n++;
        reasons.set(g.group, e);
        const insts = new Set(s.reasons.map((x) => reasonGroup(x.message).instruction).filter((i): i is string => i !== null));
        for (const i of insts) blocking.set(i, (blocking.get(i) ?? 0) + 1);
      }
    }
    for (const c of r.intrinsics) {
      t.intrinsics[c.status === "rewritten" ? "rewritten" : "left"]++;
      if (c.status === "rewritten") t.intrinsics.rewrittenByLiveness[c.liveness.state]++;
    }
    for (const w of r.warpSize ?? []) t.warpSize[w.status === "rewritten" ? "rewritten" : "left"]++;
  }
  t.statements.leftByReason = [...reasons].map(([reason, e]) => ({ reason, instruction: e.instruction, statements: e.n })).sort((a, b) => b.statements - a.statements || (a.reason < b.reason ? -1 : 1));
  t.blocking = [...blocking].map(([instruction, statements]) => ({ instruction, statements })).sort((a, b) => b.statements - a.statements || (a.instruction < b.instruction ? -1 : 1));
  return t;
}

/** Rows up to this many are drawn by cli-table3 (whose layout time grows with the square of the rows); more are printed as plain aligned columns. */
const TABLE_ROWS_MAX = 300;

/**
 * The per-row table: cli-table3's box for up to `TABLE_ROWS_MAX` rows, plain aligned
 * columns (two spaces apart, widths computed in one pass) for more, so that the time stays
 * linear in the rows (cli-table3 takes ~40 s for 20,000).
 */
export async function rowsTable(head: string[], rows: string[][]): Promise<string> {
  if (rows.length <= TABLE_ROWS_MAX) {
    const { default: Table } = await import("cli-table3");
    const table = new Table({ head, chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" }, style: { head: [], border: [] } });
    for (const r of rows) table.push(r);
    return table.toString();
  }
  const w = head.map((h) => h.length);
  for (const r of rows) for (let k = 0; k < w.length; k++) w[k] = Math.max(w[k]!, (r[k] ?? "").length);
  const line = (r: string[]) => r.map((c, k) => (k === r.length - 1 ? c : c.padEnd(w[k]!))).join("  ").trimEnd();
  const out: string[] = [line(head)];
  for (const r of rows) out.push(line(r));
  return out.join("\n");
}

/**
 * The report: one row per asm statement, warp intrinsic call, cooperative_groups call,
 * `warpSize` use and CUDA-only include, in source order; the file's notes (warnings, likely
 * HIP switches, already ported); links not followed; the totals table and the instructions
 * that block the most statements; a one-line summary; and, for a directory output, the
 * include path that builds the mirror.
 */
async function summary(results: Ported[], extras: { skipped: { path: string; reason: string }[]; empty: string[]; problems: number; sharedHeader: string | null; includePath: string[] | null; outDir: string | null; includers: string[] }, profile: Profile): Promise<string> {
  const { default: Table } = await import("cli-table3");
  const style = { head: [] as string[], border: [] as string[] };
  const compact = { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" };
  const head = ["file", "at", "status", "forms / reason", "calls"];
  const all: string[][] = [];
  const notes: string[] = [];
  for (const { file, r } of results) {
    if (!r) continue;
    const f = escapeLine(file);
    const rows: { loc: Loc; row: string[] }[] = [];
    for (const s of r.statements) {
      const why = s.reasons[0];
      const live = livenessText(s.liveness);
      const status = s.status === "rewritten" && s.liveness && s.liveness.state !== "live" ? `rewritten (${s.liveness.state})` : s.status;
      const what = s.status === "rewritten" ? s.forms.join("; ") + (live ? ` — ${live}` : "") + (s.ptxHeader && !/sm_90$/.test(s.ptxHeader) ? ` [${s.ptxHeader}]` : "") + departuresTag(s.departures ?? []) : why ? `${where(why.loc)}: ${why.message}` : "";
      for (const d of s.departures ?? []) notes.push(escapeLine(`${file}:${where(s.loc)}: note: ${departureText(d, profile)}`));
      rows.push({ loc: s.loc, row: [f, where(s.loc) + (s.macro ? ` (${s.macro})` : ""), status, escapeLine(what), s.calls.join(", ")] });
    }
    for (const c of r.intrinsics) {
      const live = livenessText(c.liveness);
      const what = c.status === "rewritten" ? `${c.name} → ${c.to}${live ? ` — ${live}` : ""}` : `${c.name}: ${c.reasons[0]?.message ?? ""}`;
      const status = c.status === "rewritten" && c.liveness && c.liveness.state !== "live" ? `rewritten (${c.liveness.state})` : c.status;
      rows.push({ loc: c.loc, row: [f, where(c.loc) + (c.macro ? ` (${c.macro})` : ""), status, escapeLine(what), c.to ?? ""] });
    }
    for (const w of r.warpSize ?? []) {
      const live = livenessText(w.liveness);
      const what = w.status === "rewritten" ? `warpSize → ptxl_warpSize (32)${live ? ` — ${live}` : ""}` : `warpSize: ${w.reasons[0]?.message ?? ""}`;
      const status = w.status === "rewritten" && w.liveness && w.liveness.state !== "live" ? `rewritten (${w.liveness.state})` : w.status;
      rows.push({ loc: w.loc, row: [f, where(w.loc), status, escapeLine(what), w.status === "rewritten" ? "ptxl_warpSize" : ""] });
    }
    for (const i of r.includes ?? []) rows.push({ loc: i.loc, row: [f, where(i.loc), "left", escapeLine(`#include <${i.name}>: CUDA only; ${i.hip ? `HIP has <${i.hip}>` : "HIP has no counterpart"}`), ""] });
    rows.sort((a, b) => a.loc.line - b.loc.line || a.loc.col - b.loc.col);
    for (const x of rows) all.push(x.row);
    for (const w of r.warnings ?? []) notes.push(escapeLine(`${file}:${where(w.loc)}: warning: ${w.message}`));
    for (const s of r.hipSwitches ?? []) notes.push(escapeLine(`${file}:${where(s.loc)}: note: ${s.name} looks like a HIP build switch: pass --hip-macro ${s.name} if a HIP build defines it`));
    if (r.alreadyPorted) notes.push(escapeLine(`${file}: note: already ported by ptx-lower port: nothing rewritten again`));
  }
  for (const s of extras.skipped) notes.push(escapeLine(`${s.path}: note: skipped, ${s.reason}`));
  for (const d of extras.empty) notes.push(escapeLine(`${d}: note: no source in it (${PORT_EXTENSIONS.join(" ")})`));
  for (const n of extras.includers) notes.push(escapeLine(n));
  let out = all.length > 0 ? (await rowsTable(head, all)) + "\n" : "";
  if (notes.length) out += notes.join("\n") + "\n";
  const t = totalsOf(results, extras.skipped.length);
  const tt = new Table({ head: ["totals", ""], chars: compact, style });
  const fileParts = [`${t.files.ported} ported`, `${t.files.unchanged} unchanged`, ...(t.files.alreadyPorted ? [`${t.files.alreadyPorted} already ported`] : []), `${t.files.failed} failed`];
  tt.push(["files", fileParts.join(", ") + (t.files.skipped ? `; ${t.files.skipped} skipped` : "")]);
  tt.push(["asm statements rewritten", `${t.statements.rewritten.live} live, ${t.statements.rewritten.dead} dead, ${t.statements.rewritten.depends} depend on macros`]);
  tt.push(["asm statements left", String(t.statements.left)]);
  for (const g of t.statements.leftByReason) tt.push([`  left: ${escapeLine(g.reason)}`, String(g.statements)]);
  const byL = t.intrinsics.rewrittenByLiveness;
  tt.push(["warp intrinsic calls", `${t.intrinsics.rewritten} rewritten (${byL.live} live, ${byL.dead} dead, ${byL.depends} depend on macros), ${t.intrinsics.left} left`]);
  tt.push(["warpSize uses", `${t.warpSize.rewritten} rewritten, ${t.warpSize.left} left`]);
  out += tt.toString() + "\n";
  if (t.blocking.length) {
    const bt = new Table({ head: ["rank", "instruction", "statements it blocks"], chars: compact, style });
    t.blocking.slice(0, 10).forEach((b, k) => bt.push([String(k + 1), b.instruction, String(b.statements)]));
    out += bt.toString() + "\n";
  }
  const n = t.statements.total;
  const rewritten = n - t.statements.left;
  const plural = (k: number, what: string) => `${k} ${what}${k === 1 ? "" : "s"}`;
  const cg = results.reduce((k, x) => k + (x.r?.intrinsics.filter((c) => c.kind === "cooperative_groups").length ?? 0), 0);
  const leftWarp = t.intrinsics.left - cg;
  const calls =
    (t.intrinsics.rewritten ? `; ${plural(t.intrinsics.rewritten, "CUDA warp intrinsic call")} rewritten` : "") +
    (leftWarp ? `; ${plural(leftWarp, "CUDA warp intrinsic call")} left` : "") +
    (cg ? `; ${plural(cg, "cooperative_groups call")} left` : "");
  const written = results.flatMap((x) => [x.output, x.headerPath].filter((p): p is string => p !== null));
  if (extras.sharedHeader) written.push(extras.sharedHeader);
  // A shared header is one file, however many ported files include it.
  const distinct = [...new Set(written)];
  const wrote = distinct.length === 0 ? "" : extras.outDir !== null && distinct.length > 4 ? `; wrote ${distinct.length} files under ${escapeLine(extras.outDir)}` : `; wrote ${distinct.map(escapeLine).join(", ")}`;
  out += `${plural(n, "asm statement")}: ${rewritten} rewritten, ${n - rewritten} left${calls}${wrote}\n`;
  if (extras.includePath) out += `build the mirror with the include path: ${shellQuote(extras.includePath)}\n`;
  // How to compile what was ported: a CUDA file ported is a HIP file (OpenCL stays OpenCL).
  const hip = results.filter((x) => x.state === "ported" && x.language === "cuda");
  if (hip.length && !extras.problems) out += hipCompileHint(hip.length === 1 ? (hip[0]!.output ?? "FILE") : "FILE", extras.includePath ?? []);
  if (extras.problems) out += `nothing was written: ${plural(extras.problems, "problem")} (the error lines above)\n`;
  return out;
}

/**
 * The command that compiles a ported CUDA file as HIP (clang-19's HIP mode; checked on the
 * port of examples/bitfields.cu by test/rough_edges.test.ts): `-include hip/hip_runtime.h`
 * because nvcc includes cuda_runtime.h by itself and a HIP compiler does not; `--offload-arch`
 * is the user's GPU. Arguments after `clang-19`, the file last.
 */
export function hipCompileCommand(file: string, includePath: readonly string[] = []): string[] {
  return ["clang-19", "-x", "hip", "--offload-arch=gfx90a", "-include", "hip/hip_runtime.h", ...includePath, "-c", file];
}

/** The two lines at the end of port's text report that say how to compile a ported file (`hipCompileCommand`). */
function hipCompileHint(file: string, includePath: readonly string[]): string {
  return (
    `compile a ported file as HIP: ${escapeLine(shellQuote(hipCompileCommand(file, includePath)))}\n` +
    "  (--offload-arch: your GPU; hip_runtime.h named, as nvcc includes cuda_runtime.h by itself; where clang finds no ROCm device library, add --rocm-device-lib-path=DIR)\n"
  );
}

/** A liveness for the document. */
const livenessJson = (l: Liveness | undefined) =>
  !l || l.state === "live"
    ? { state: "live" as const }
    : l.state === "dead"
      ? { state: "dead" as const, guard: { line: l.guard.loc.line, col: l.guard.loc.col, text: l.guard.text } }
      : { state: "depends" as const, names: l.names, guard: { line: l.guard.loc.line, col: l.guard.loc.col, text: l.guard.text } };

/** The `--json` document (docs/port.schema.json). */
export function portJson(
  results: Ported[],
  profile: Profile,
  extras: { skipped?: { path: string; reason: string }[]; sharedHeader?: string | null; includePath?: string[] | null; options?: { language: PortLanguage | null; ptxTarget: string | null; hipMacros: string[]; predefined: Predefined[]; renameShared: boolean } } = {},
) {
  let n = 0;
  let rewritten = 0;
  let calls = 0;
  let callsRewritten = 0;
  const reasons = (rs: Reason[]) => rs.map((x) => ({ line: x.loc.line, col: x.loc.col, message: x.message }));
  const files = results.map(({ file, language, output, headerPath, headerName, r, error, state }) => ({
    input: file,
    error,
    language,
    state,
    output,
    header: headerPath,
    headerName,
    alreadyPorted: r?.alreadyPorted ?? false,
    routines: r?.routines ?? [],
    statements: (r?.statements ?? []).map((s) => {
      n++;
      if (s.status === "rewritten") rewritten++;
      return {
        line: s.loc.line,
        col: s.loc.col,
        endLine: s.end.line,
        endCol: s.end.col,
        keyword: s.keyword,
        status: s.status,
        macro: s.macro,
        forms: s.forms,
        calls: s.calls,
        reasons: reasons(s.reasons),
        liveness: livenessJson(s.liveness),
        ptxHeader: s.ptxHeader ?? null,
        departures: (s.departures ?? []).map(departureJson),
      };
    }),
    intrinsics: (r?.intrinsics ?? []).map((c) => {
      calls++;
      if (c.status === "rewritten") callsRewritten++;
      return { line: c.loc.line, col: c.loc.col, endLine: c.end.line, endCol: c.end.col, name: c.name, kind: c.kind, status: c.status, to: c.to, macro: c.macro, reasons: reasons(c.reasons), liveness: livenessJson(c.liveness) };
    }),
    warpSize: (r?.warpSize ?? []).map((w) => ({ line: w.loc.line, col: w.loc.col, status: w.status, reasons: reasons(w.reasons), liveness: livenessJson(w.liveness) })),
    includes: (r?.includes ?? []).map((i) => ({ line: i.loc.line, col: i.loc.col, name: i.name, hip: i.hip })),
    warnings: reasons(r?.warnings ?? []),
    hipSwitches: (r?.hipSwitches ?? []).map((s) => ({ name: s.name, line: s.loc.line, col: s.loc.col })),
  }));
  const errors = results.filter((x) => x.error !== null).length;
  return {
    tool: "ptx-lower port",
    schemaVersion: PORT_SCHEMA_VERSION,
    semantics: profile,
    options: extras.options ?? { language: null, ptxTarget: null, hipMacros: [], predefined: [], renameShared: false },
    files,
    skipped: extras.skipped ?? [],
    sharedHeader: extras.sharedHeader ?? null,
    includePath: extras.includePath ?? null,
    summary: { statements: n, rewritten, left: n - rewritten, intrinsics: { calls, rewritten: callsRewritten, left: calls - callsRewritten }, errors },
    totals: totalsOf(results, (extras.skipped ?? []).length),
  };
}
