/**
 * @fileoverview What the `port` command line is checked with before bin/port.ts (and the
 * porting engine it loads) is imported: the source extensions, the `-D`/`-U`/`--ptx-target`
 * parsers, and the one-line refusal of a source given to `lower`, `verify` or `report`.
 * bin/port.ts re-exports each.
 */
import { extname } from "node:path";
import type { PortLanguage } from "../src/port/rewrite.js";
import { escapeLine } from "../src/diag.js";
import { targetMinVersion } from "../src/ptx/targets.js";
import { UsageError, shellQuote } from "./output.js";

/** The source kinds `port` reads (by extension; `--language` for any other name). */
export const PORT_EXTENSIONS = [".cu", ".cuh", ".hip", ".h", ".hh", ".hpp", ".hxx", ".inl", ".inc", ".cc", ".cpp", ".cxx", ".cl"] as const;

/** The language a file's extension says (`.cl`: OpenCL C; the other `PORT_EXTENSIONS`: CUDA/HIP C++), or null for any other name. */
export function languageOf(file: string): PortLanguage | null {
  const ext = extname(file).toLowerCase();
  if (!(PORT_EXTENSIONS as readonly string[]).includes(ext)) return null;
  return ext === ".cl" ? "opencl" : "cuda";
}

/**
 * For `lower`, `verify` and `report`: the one-line error for an input that is a C/C++/CUDA/
 * OpenCL source by its extension (`x.cu: error: a CUDA/C++ source, not PTX: use 'ptx-lower
 * port x.cu'`), or null for any other name.
 */
export function sourceNotPtx(file: string): string | null {
  const lang = languageOf(file);
  if (lang === null) return null;
  const what = lang === "opencl" ? "an OpenCL source" : "a CUDA/C++ source";
  return escapeLine(`${file}: error: ${what}, not PTX: use 'ptx-lower port ${shellQuote([file])}'`);
}

/** A `-D NAME[=V]` or `-U NAME`, in command-line order (src/port/rewrite.ts `PortOptions.predefined`). */
export type Predefined = { define: string; value: string } | { undef: string };

/** A C macro name. */
export const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `--ptx-target` values: an `sm_XX` target ptxas 13.0 knows (src/ptx/targets.ts).
 * @throws UsageError naming the value.
 */
export function checkPtxTarget(t: string): string {
  if (!/^sm_\w+$/.test(t) || targetMinVersion(t) === null) throw new UsageError(`--ptx-target ${t}: not a target ptxas 13.0 knows (sm_70, sm_90, sm_90a, sm_100a, sm_120, …)`);
  return t;
}

/**
 * `-D NAME[=V]` → `{ define, value }` (no `=`: the value 1, as a compiler takes it).
 * @throws UsageError naming the value.
 */
export function parseDefine(x: string): Predefined {
  const eq = x.indexOf("=");
  const name = eq < 0 ? x : x.slice(0, eq);
  if (!IDENT.test(name)) throw new UsageError(`-D ${x}: not NAME or NAME=VALUE with a macro name`);
  return { define: name, value: eq < 0 ? "1" : x.slice(eq + 1) };
}

/** `-U NAME` → `{ undef }`. @throws UsageError naming the value. */
export function parseUndef(x: string): Predefined {
  if (!IDENT.test(x)) throw new UsageError(`-U ${x}: not a macro name`);
  return { undef: x };
}
