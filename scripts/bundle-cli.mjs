/**
 * @fileoverview The CLI's start-up bundle (issue 37 item 1), run by `npm run build` after `tsc`.
 *
 * `tsc` emits one file per module; loading the CLI for `lower --target amdgpu` of one
 * instruction opened, resolved and compiled 91 of them, and Node's ES module loader spends
 * more time on that than on the command's work (a CPU profile: resolve, realpath, open, read
 * and link per module). This script rebundles the entry `dist/bin/ptx-lower.js` with esbuild:
 * the modules every command loads become one file, and each `await import()` of a command's
 * code (lower, verify, port, …) one chunk beside it, loaded as before only by the command that
 * uses it. Packages stay external (loaded by Node from node_modules, as before).
 *
 * Every other file of `dist/` is left as `tsc` emitted it: the library (`dist/src/index.js`,
 * its types), and the worker threads' entries, which are started by URL (bin/port_worker.js,
 * src/compose_worker.js, targets/llvm/prove_compiled_matrix.js). For those URLs to stay right,
 * each bundled module's `import.meta.url` is rewritten to the URL of the file `tsc` emitted for
 * it (relative to the bundle's own URL, as every output file lies in `dist/bin/`), so that
 * `new URL("./port_worker.js", import.meta.url)`, `createRequire(import.meta.url)` and the
 * docs' paths resolve as in the unbundled build.
 *
 * Usage: node scripts/bundle-cli.mjs (from the project root, after tsc).
 * @throws exits 1 when esbuild reports an error, or when the entry is a bundle already (run
 * `npm run build`, which emits it again first).
 */
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const BIN = join(ROOT, "dist", "bin");
const ENTRY = join(BIN, "ptx-lower.js");
const MARK = "// ptx-lower: bundled by scripts/bundle-cli.mjs";

if (readFileSync(ENTRY, "utf8").startsWith("#!/usr/bin/env node\n" + MARK) || readFileSync(ENTRY, "utf8").startsWith(MARK)) {
  console.error(`bundle-cli: ${relative(ROOT, ENTRY)} is a bundle already: run 'npm run build' (tsc emits it again first)`);
  process.exit(1);
}
// Chunks of an earlier bundle.
for (const f of readdirSync(BIN)) if (/^chunk-[A-Z0-9]+\.js$/.test(f)) rmSync(join(BIN, f));

const { build } = await import("esbuild");

/** Rewrites `import.meta.url` in each module of dist/ to the URL of that module's own file. */
const ownUrl = {
  name: "own-import-meta-url",
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      const text = readFileSync(args.path, "utf8");
      if (!text.includes("import.meta.url")) return undefined;
      const rel = relative(BIN, args.path).split(sep).join("/");
      const href = `new URL(${JSON.stringify(rel.startsWith(".") ? rel : "./" + rel)}, import.meta.url).href`;
      return { contents: text.replace(/\bimport\.meta\.url\b/g, href), loader: "js", resolveDir: dirname(args.path) };
    });
  },
};

/** Marks every package import external but those named in `bundled`. */
function externalPackagesBut(bundled) {
  return {
    name: "external-packages",
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        const name = args.path.startsWith("@") ? args.path.split("/").slice(0, 2).join("/") : args.path.split("/")[0];
        return bundled.includes(name) && args.kind !== "require-call" ? undefined : { path: args.path, external: true };
      });
    },
  };
}

const r = await build({
  entryPoints: { "ptx-lower": ENTRY },
  outdir: BIN,
  allowOverwrite: true,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  // Packages stay in node_modules (loaded by Node at first use, as before), but commander, which
  // every command loads: bundled, its CommonJS compiled in (Node's CommonJS loader and its
  // export lexer then never run at start-up).
  plugins: [ownUrl, externalPackagesBut(["commander"])],
  chunkNames: "chunk-[hash]",
  // commander's CommonJS `require`s Node's built-ins: through a `require` of the output file's own.
  banner: { js: `${MARK}\nimport { createRequire as ptxlCreateRequire } from "node:module";\nconst require = ptxlCreateRequire(import.meta.url);` },
  logLevel: "warning",
});
if (r.errors.length) process.exit(1);
