/**
 * Start-up: each command loads only what it uses (issue 37 item 1). The CLI is run from source
 * with a preload that names, on standard error, every package module it loads — through
 * `import` (an ESM load hook) or `require` (Module._load: ts-morph and the clang-format
 * WebAssembly are loaded with `createRequire`). The speed itself is measured in
 * `npm run bench -- --only startup`, not here; this test keeps the heavy packages out of the
 * commands that do not use them, and in those that do (so that a broken detector fails too).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const DIR = mkdtempSync(join(tmpdir(), "ptx-lower-startup-"));
const ONE = join(DIR, "one.ptx");
writeFileSync(ONE, ".version 9.0\n.target sm_90\n.address_size 64\n\n.visible .func (.reg .b32 d) f(.reg .b32 a, .reg .b32 b)\n{\n\tszext.clamp.s32 \td, a, b;\n\tret;\n}\n");
// A routine whose C signature is longer than a line (match.sync's arrays): clang-format formats it.
const LONG = join(DIR, "long.ptx");
writeFileSync(LONG, ".version 9.0\n.target sm_90\n.address_size 64\n\n.visible .func (.reg .b32 d) f(.reg .b32 a)\n{\n\tmatch.any.sync.b32 \td, a, 0xffffffff;\n\tret;\n}\n");
const CU = join(DIR, "one.cu");
writeFileSync(CU, '__device__ unsigned clamp(unsigned a, unsigned b) { unsigned r; asm("szext.clamp.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); return r; }\n');

// The preload: an ESM load hook (in the hooks thread) and a wrapper of Module._load, each
// writing `LOADED <what>` to standard error.
const HOOKS = join(DIR, "hooks.mjs");
writeFileSync(HOOKS, 'export async function load(url, ctx, next) { if (url.includes("/node_modules/")) process.stderr.write("LOADED " + url + "\\n"); return next(url, ctx); }\n');
const PRELOAD = join(DIR, "preload.mjs");
writeFileSync(
  PRELOAD,
  [
    'import Module, { register } from "node:module";',
    `register(${JSON.stringify(pathToFileURL(HOOKS).href)});`,
    "const load = Module._load;",
    'Module._load = function (request, ...rest) { process.stderr.write("LOADED require " + request + "\\n"); return load.call(this, request, ...rest); };',
  ].join("\n") + "\n",
);

/** The heavy packages, by how a loaded module's URL or `require` request names them. */
const HEAVY = { "ts-morph": /ts-morph|\/typescript\//, prettier: /\/prettier\/|require prettier/, "clang-format": /@wasm-fmt\/clang-format/, z3: /z3-solver/ } as const;
type Heavy = keyof typeof HEAVY;

/** Runs the CLI from source; @returns its exit status and the heavy packages it loaded. */
function loads(args: string[]): { code: number | null; heavy: Heavy[]; err: string } {
  const r = spawnSync(process.execPath, ["--import", "tsx", "--import", pathToFileURL(PRELOAD).href, join(ROOT, "bin", "ptx-lower.ts"), ...args], { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  const lines = r.stderr.split("\n").filter((l) => l.startsWith("LOADED "));
  const heavy = (Object.keys(HEAVY) as Heavy[]).filter((k) => lines.some((l) => HEAVY[k].test(l)));
  return { code: r.status, heavy, err: r.stderr.split("\n").filter((l) => !l.startsWith("LOADED ")).join("\n") };
}

describe("start-up: a command loads only the packages it uses", { timeout: 120_000 }, () => {
  const cases: [string, string[], Heavy[]][] = [
    ["--help", ["--help"], []],
    ["lower --target amdgpu", ["lower", ONE, "--target", "amdgpu"], []],
    ["lower --target llvm", ["lower", ONE, "--target", "llvm"], []],
    // One short routine: printed as clang-format would print it, without it (targets/c/print.ts presumedFormatted).
    ["lower --target c", ["lower", ONE, "--target", "c"], []],
    ["lower --target hip", ["lower", ONE, "--target", "hip"], []],
    ["lower --target c of a routine longer than a line (clang-format only)", ["lower", LONG, "--target", "c"], ["clang-format"]],
    ["lower --target js (prettier only, not the TypeScript compiler)", ["lower", ONE, "--target", "js"], ["prettier"]],
    ["port of one file", ["port", CU], []],
  ];
  for (const [name, args, expected] of cases)
    it(name, () => {
      const r = loads(args);
      expect(r.code, r.err).toBe(0);
      expect(r.heavy).toEqual(expected);
    });
});
