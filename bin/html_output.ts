/**
 * @fileoverview `--html PATH` of `report` and `port`: the page's path checked before any work,
 * and the page written by the rules of bin/output.ts (a temporary file renamed over it, only once
 * the command has succeeded). Loaded only when `--html` is given.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { ParsedModule } from "../src/ir/build.js";
import type { Report, UnreadableModule } from "../src/report.js";
import type { PortDocument, PortPageText } from "../src/html/port.js";
import { PAGE_MARK } from "../src/html/page.js";
import { dirname } from "node:path";
import { OutputError, UsageError, inputIds, makeDirectory, reasonOf, writeOutputs } from "./output.js";

/** The first bytes of a file, or null when it cannot be read. */
function head(path: string, n = 2048): string | null {
  let fd: number | null = null;
  try {
    fd = openSync(path, "r");
    const buf = Buffer.alloc(n);
    return buf.subarray(0, readSync(fd, buf, 0, n, 0)).toString("utf8");
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/**
 * Refuses an `--html` path that cannot take the page, before the command does its work: empty,
 * `-` (standard output holds the tables or the `--json` document), a directory, one of the
 * command's inputs, or an existing file that is not empty and not a page ptx-lower wrote (it is
 * the user's: never replaced). A path that does not exist yet, or a device (`/dev/null`), is fine.
 * @throws UsageError naming the path and why.
 */
export function checkHtmlPath(path: string, inputs: string[]): void {
  if (path === "") throw new UsageError("--html '': an empty path names no file");
  if (path === "-") throw new UsageError("--html -: the page goes to a file (standard output holds the tables or the --json document): name one, e.g. --html report.html");
  let st;
  try {
    st = statSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return; // written there (its missing directories made) once the work is done
    throw new UsageError(`--html ${path}: ${reasonOf(e)}`);
  }
  if (st.isDirectory()) throw new UsageError(`--html ${path}: is a directory; name the page's file in it (e.g. ${path.replace(/\/+$/, "")}/page.html)`);
  if (!st.isFile()) return;
  if (inputIds(inputs).has(`${st.dev}:${st.ino}`)) throw new UsageError(`--html ${path}: it is an input file: name another file for the page`);
  const h = head(path);
  if (st.size > 0 && (h === null || !h.includes(PAGE_MARK))) throw new UsageError(`--html ${path}: exists and is not a page ptx-lower wrote: it is not replaced; name another file, or remove it`);
}

/**
 * Writes the page atomically (bin/output.ts `writeOutputs`: a temporary file beside it renamed
 * over it), making its missing directories as port does for its outputs; `inputs` are refused as
 * its path. @throws OutputError
 */
export function writeHtml(path: string, html: string, inputs: string[]): void {
  try {
    makeDirectory(dirname(path));
  } catch (e) {
    throw new OutputError(`cannot write ${path}: cannot create the directory: ${reasonOf(e)}`);
  }
  writeOutputs([{ path, text: html }], inputs);
}

/**
 * `report --html PATH`: the page of `rep` (the object `--json` prints) with each routine's code
 * printed by the output targets, written to `path`. `mods` are the modules `rep` was built from.
 * @throws OutputError
 */
export async function writeReportHtml(path: string, rep: Report, mods: readonly (ParsedModule | UnreadableModule)[], inputs: string[]): Promise<void> {
  const { reportPage, routineCode } = await import("../src/html/report.js");
  writeHtml(path, reportPage(rep, await routineCode(mods, rep)), inputs);
}

/** `port --html PATH`: the page of a port run's `--json` document and its files' texts (src/html/port.ts). */
export async function portHtml(doc: PortDocument, texts: readonly (PortPageText | undefined)[]): Promise<string> {
  const { portPage } = await import("../src/html/port.js");
  return portPage(doc, texts);
}
