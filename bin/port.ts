/**
 * @fileoverview `ptx-lower port FILE… [-o OUT] [--json]`: rewrites the inline PTX of CUDA
 * sources into calls of the HIP header's functions (src/port/rewrite.ts says how), writes
 * each ported file and its header atomically (bin/output.ts), and prints a summary table or,
 * with `--json`, one document (docs/port.schema.json).
 *
 * Where things go: one input without `-o` (or with `-o -`): the ported file to standard
 * output, with the header inlined in it, and the table to standard error (`--json` then needs
 * `-o`). `-o FILE` for one input: FILE, and the header `STEM.hip.h` beside it (STEM: FILE's
 * name without its last extension). Several inputs: `-o DIR` (created if missing), each
 * output `DIR/NAME` with the input's name and its header `DIR/STEM.hip.h`. Nothing is
 * written over an input. A header is written only for a file with something rewritten.
 */
import { targetServices } from "../src/target/registry.js";
import { collectRoutines } from "../src/lower.js";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, extname, join, resolve } from "node:path";
import Table from "cli-table3";
import type { ParsedModule } from "../src/ir/build.js";
import { escapeLine } from "../src/diag.js";
import type { PortResult, PortStatement } from "../src/port/rewrite.js";
import { portSource } from "../src/port/rewrite.js";
import { OutputError, UsageError, reasonOf, writeOutputs } from "./output.js";

/** The source kinds `port` reads. */
export const PORT_EXTENSIONS = [".cu", ".cuh", ".hip", ".h", ".cl"] as const;

/**
 * The header for a routines module: the registered `hip` output target (targets/hip/module.ts,
 * `printHipModule` over the module's routines), under the sm90 profile — what the replaced
 * asm computed on NVIDIA hardware (src/port/rewrite.ts).
 * @throws UsageError when no `hip` target is registered: no header is made up in its place.
 */
export async function hipHeader(mod: ParsedModule, banner: string): Promise<string> {
  const hip = targetServices().lower.targets.find((t) => t.name === "hip");
  if (!hip) throw new UsageError("port: this build has no HIP target, so the header the ported file includes cannot be written; nothing was written");
  const lowered = await hip.lowerModule({ routines: collectRoutines(mod), profile: "sm90", banner: banner.split("\n"), served: () => [] });
  return lowered.text;
}

/** Options of `portCommand`. */
export interface PortCommandOptions {
  output?: string;
  json?: boolean;
  /** The header generator (default `hipHeader`); tests inject one. */
  header?: (mod: ParsedModule, banner: string) => Promise<string>;
}

const isDir = (p: string) => {
  try {
    return statSync(p).isDirectory();
  } catch {
    return p.endsWith("/");
  }
};

/** `file: error: message`, one line, escaped. */
const fileError = (file: string, message: string) => process.stderr.write(escapeLine(`${file}: error: ${message}`) + "\n");

/**
 * `ptx-lower port`. @returns the exit code: 0 (also when statements are left, which the
 * summary reports), 1 for an unreadable input (nothing is written then).
 * @throws UsageError, OutputError
 */
export async function portCommand(files: string[], o: PortCommandOptions): Promise<number> {
  if (o.output === "") throw new UsageError("-o '': an empty path names no file (- is standard output)");
  const toStdout = files.length === 1 && (o.output === undefined || o.output === "-");
  if (files.length > 1 && (o.output === undefined || o.output === "-")) throw new UsageError(`${files.length} inputs: name a directory with -o`);
  if (toStdout && o.json) throw new UsageError("--json needs -o: the ported file goes to standard output");
  // Read every input first: one that cannot be read stops the command before anything is written.
  const inputs: { file: string; text: string; latin1: boolean }[] = [];
  let bad = false;
  for (const file of files) {
    if (!(PORT_EXTENSIONS as readonly string[]).includes(extname(file).toLowerCase())) {
      fileError(file, `not a C/C++/CUDA/HIP/OpenCL source (${PORT_EXTENSIONS.join(" ")})`);
      bad = true;
      continue;
    }
    try {
      if (statSync(file).isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
      // UTF-8 (a byte-order mark kept); any other bytes are read one byte a character and
      // written back the same way, so that what is not rewritten stays byte-identical.
      const bytes = readFileSync(file);
      try {
        inputs.push({ file, text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes), latin1: false });
      } catch {
        inputs.push({ file, text: bytes.toString("latin1"), latin1: true });
      }
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      fileError(file, `cannot read: ${code === "ENOENT" ? "no such file" : reasonOf(e)}`);
      bad = true;
    }
  }
  if (bad) return 1;
  const dirMode = !toStdout && (files.length > 1 || isDir(o.output!));
  if (dirMode) {
    try {
      mkdirSync(o.output!, { recursive: true });
    } catch (e) {
      throw new OutputError(`cannot write ${o.output}: cannot create the directory: ${reasonOf(e)}`);
    }
  }
  // The header is written beside the ported file: an -o that is a device, FIFO or socket
  // (/dev/null, /dev/stdout) has no "beside", so it is refused rather than writing into /dev.
  if (!toStdout && !dirMode) {
    let st: ReturnType<typeof statSync> | null = null;
    try {
      st = statSync(o.output!);
    } catch {
      st = null;
    }
    if (st && !st.isFile())
      throw new UsageError(`-o ${o.output}: not a regular file; the header is written beside the ported file, so name a file in a directory, a directory, or omit -o (standard output, header inlined)`);
  }
  const header = o.header ?? hipHeader;
  const results: { file: string; output: string | null; headerPath: string | null; r: PortResult }[] = [];
  const writes: { path: string; text: string | Uint8Array }[] = [];
  const taken = new Map<string, string>();
  const claim = (path: string, file: string) => {
    const key = resolve(path);
    const other = taken.get(key);
    if (other !== undefined) throw new UsageError(`${file} and ${other} would both write ${path}`);
    taken.set(key, file);
  };
  for (const { file, text, latin1 } of inputs) {
    const output = toStdout ? null : dirMode ? join(o.output!, basename(file)) : o.output!;
    const stem = basename(output ?? file).replace(/\.[^.]*$/, "");
    const headerName = `${stem}.hip.h`;
    const headerPath = output === null ? null : join(dirname(output), headerName);
    const banner = `NOTE: generated by ptx-lower port — do not edit.\nThe functions ${basename(file)} calls after ptx-lower port.`;
    const r = await portSource(text, file, { header: (mod) => header(mod, banner), headerName, inlineHeader: toStdout });
    results.push({ file, output, headerPath: r.header !== null ? headerPath : null, r });
    if (output !== null) {
      claim(output, file);
      writes.push({ path: output, text: latin1 ? Buffer.from(r.text, "latin1") : r.text });
      if (r.header !== null && headerPath !== null) {
        claim(headerPath, file);
        writes.push({ path: headerPath, text: r.header });
      }
    }
  }
  if (toStdout) process.stdout.write(inputs[0]!.latin1 ? Buffer.from(results[0]!.r.text, "latin1") : results[0]!.r.text);
  else writeOutputs(writes, files);
  if (o.json) process.stdout.write(JSON.stringify(portJson(results), null, 2) + "\n");
  else (toStdout ? process.stderr : process.stdout).write(summary(results));
  return 0;
}

const where = (s: PortStatement) => `${s.loc.line}:${s.loc.col}`;

/** The summary table: one row per asm statement, and a totals line. */
function summary(results: { file: string; output: string | null; headerPath: string | null; r: PortResult }[]): string {
  const table = new Table({
    head: ["file", "at", "status", "forms / reason", "calls"],
    chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" },
    style: { head: [], border: [] },
  });
  let n = 0;
  let rewritten = 0;
  for (const { file, r } of results)
    for (const s of r.statements) {
      n++;
      if (s.status === "rewritten") rewritten++;
      const why = s.reasons[0];
      table.push([escapeLine(file), where(s) + (s.macro ? ` (${s.macro})` : ""), s.status, escapeLine(s.status === "rewritten" ? s.forms.join("; ") : why ? `${why.loc.line}:${why.loc.col}: ${why.message}` : ""), s.calls.join(", ")]);
    }
  const wrote = results.flatMap((x) => [x.output, x.headerPath].filter((p): p is string => p !== null));
  return `${n ? table.toString() + "\n" : ""}${n} asm statement${n === 1 ? "" : "s"}: ${rewritten} rewritten, ${n - rewritten} left${wrote.length ? `; wrote ${wrote.map(escapeLine).join(", ")}` : ""}\n`;
}

/** The `--json` document (docs/port.schema.json). */
export function portJson(results: { file: string; output: string | null; headerPath: string | null; r: PortResult }[]) {
  let n = 0;
  let rewritten = 0;
  const files = results.map(({ file, output, headerPath, r }) => ({
    input: file,
    output,
    header: headerPath,
    routines: r.routines,
    statements: r.statements.map((s) => {
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
        reasons: s.reasons.map((x) => ({ line: x.loc.line, col: x.loc.col, message: x.message })),
      };
    }),
  }));
  return { tool: "ptx-lower port", schemaVersion: 1, files, summary: { statements: n, rewritten, left: n - rewritten } };
}
