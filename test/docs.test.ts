/**
 * The docs cannot drift from the tool: README.md's commands and every example of
 * docs/commands/*.md are run, and what they print is compared with what the page shows.
 *
 * The conventions the pages follow (docs/development.md repeats them for writers):
 * - A ```console block holds commands, each on a line starting with `$ ` (a line ending in
 *   ` \` continues on the next), each followed by its output as a terminal shows it (standard
 *   output and standard error together, in order). `ptx-lower` and `npx ptx-lower` run the
 *   CLI of this tree; everything else is bash. Every command must exit 0 (as bash reports
 *   it): a page that shows a failure shows its status too, `…; echo "exit status $?"`.
 * - A fenced block whose info string names a file, ```ptx file=szext.ptx, is written to
 *   that file before the next command runs.
 * - README.md's ```sh block (the two commands of the developers' guide) is run as written,
 *   except `npm ci` and `bash .ci/run`; it must exit 0 (its output is not shown).
 * - Each page runs in a fresh temporary directory holding a copy of examples/, its blocks in
 *   page order; standard input is empty and not a terminal (no progress bar, no colour).
 * The comparison, after these rules applied to both sides:
 * - a line `...` in the shown output stands for any number of lines (0 included);
 * - a time, a number followed by `s` or `ms` (`0.8 s`, `12ms`), reads `<time>`;
 * - the temporary directory's absolute path reads `.`;
 * - progress lines (`verify: 3/10 routines done, 2.1 s`: a command name, a `D/T` count or
 *   `compiling`, and a time) are dropped from the actual output: their number depends on
 *   the machine's speed; pages do not show them;
 * - trailing blanks of each line and trailing empty lines are dropped.
 *
 * The CLI is dist/bin/ptx-lower.js where the build is at least as new as every source file
 * (CI's `npm ci` builds it through "prepare"), else bin/ptx-lower.ts through tsx.
 * docs/*.md pages with console examples (the library's) run the same way, `ptx-lower` resolving
 * to this tree's package (skipped, saying why, where dist/ is older than the sources).
 * Besides: README.md is at most 150 lines, its command table links a page per command of
 * bin/ptx-lower.ts, each page has LLVM's CommandGuide sections and names every option its
 * `--help` lists, and no shipped page links outside the package.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const COMMANDS_DIR = join(ROOT, "docs", "commands");
/** The commands bin/ptx-lower.ts defines, in its order. */
const COMMANDS = [...readFileSync(join(ROOT, "bin", "ptx-lower.ts"), "utf8").matchAll(/\.command\("([a-z]+)"\)/g)].map((m) => m[1]!);

/** True when dist/ holds a build at least as new as every source file it is built from. */
function distIsFresh(): boolean {
  const walk = (dir: string): string[] =>
    readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : e.name.endsWith(".ts") && !e.name.endsWith(".d.ts") ? [join(dir, e.name)] : []));
  for (const src of ["bin", "src", "passes", "targets"].flatMap(walk)) {
    const out = join(ROOT, "dist", src.replace(/\.ts$/, ".js"));
    if (!existsSync(out) || statSync(out).mtimeMs < statSync(join(ROOT, src)).mtimeMs) return false;
  }
  return true;
}
const USE_DIST = distIsFresh();
/** A directory holding a `ptx-lower` that runs this tree's CLI; first on PATH for the pages' commands. */
const SHIM = mkdtempSync(join(tmpdir(), "ptxl-docs-bin-"));
writeFileSync(
  join(SHIM, "ptx-lower"),
  USE_DIST
    ? `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, "dist", "bin", "ptx-lower.js")}" "$@"\n`
    : `#!/bin/sh\nexec "${process.execPath}" --import "${pathToFileURL(join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href}" "${join(ROOT, "bin", "ptx-lower.ts")}" "$@"\n`,
);
chmodSync(join(SHIM, "ptx-lower"), 0o755);
const ENV = { ...process.env, PATH: `${SHIM}:${process.env.PATH ?? ""}`, NO_COLOR: "1", FORCE_COLOR: "0" };

/** A fenced block of a page. */
interface Block {
  info: string;
  lines: string[];
  /** The line of the opening fence (1-based). */
  line: number;
  /** The `## ` heading it is under. */
  section: string;
}
function blocksOf(text: string): Block[] {
  const out: Block[] = [];
  const lines = text.split("\n");
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    const h = /^##\s+(.*)$/.exec(lines[i]!);
    if (h) section = h[1]!.trim();
    const open = /^(`{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i] !== open[1]; i++) body.push(lines[i]!);
    out.push({ info: open[2]!.trim(), lines: body, line: start + 1, section });
  }
  return out;
}

/** A console block's commands, each with the output shown after it. */
function commandsOf(b: Block): { command: string; shown: string[] }[] {
  const out: { command: string; shown: string[] }[] = [];
  for (let i = 0; i < b.lines.length; i++) {
    const l = b.lines[i]!;
    if (l.startsWith("$ ")) {
      let command = l.slice(2);
      while (command.endsWith("\\") && i + 1 < b.lines.length) command = command.slice(0, -1) + " " + b.lines[++i]!.trim();
      out.push({ command, shown: [] });
    } else {
      if (!out.length) throw new Error(`console block at line ${b.line}: output before any command: ${l}`);
      out.at(-1)!.shown.push(l);
    }
  }
  return out;
}

const PROGRESS = /^[a-z]+: .*(\d+\/\d+ |compiling ).*\d+(\.\d+)? ?m?s\b/;
const TIME = /\b\d+(\.\d+)? ?m?s\b/g;
/** The comparison rules of the file comment, on one side. */
function normalize(lines: readonly string[], dir: string, actual: boolean): string[] {
  const out = lines
    .filter((l) => !(actual && PROGRESS.test(l)))
    .map((l) => l.split(dir).join(".").replace(TIME, "<time>").trimEnd());
  while (out.length && out.at(-1) === "") out.pop();
  return out;
}
/** Whether `actual` matches `shown`, a line `...` of which stands for any lines. */
function matches(shown: readonly string[], actual: readonly string[]): boolean {
  const memo = new Map<string, boolean>();
  const go = (i: number, j: number): boolean => {
    const k = `${i},${j}`;
    if (memo.has(k)) return memo.get(k)!;
    let r: boolean;
    if (i === shown.length) r = j === actual.length;
    else if (shown[i] === "...") r = go(i + 1, j) || (j < actual.length && go(i, j + 1));
    else r = j < actual.length && shown[i] === actual[j] && go(i + 1, j + 1);
    memo.set(k, r);
    return r;
  };
  return go(0, 0);
}

/** Runs a page's command in `dir`; the output as a terminal shows it (2>&1), and the status. */
function run(command: string, dir: string): { out: string[]; status: number | null; seconds: number } {
  const t0 = performance.now();
  const r = spawnSync("bash", ["-c", `exec 2>&1; ${command.replace(/\bnpx ptx-lower\b/g, "ptx-lower")}`], { cwd: dir, env: ENV, encoding: "utf8", input: "", timeout: 120_000 });
  return { out: r.stdout.split("\n"), status: r.status, seconds: (performance.now() - t0) / 1000 };
}

/** A fresh directory for a page, with a copy of examples/. */
const made: string[] = [SHIM];
function pageDir(linkPackage = false): string {
  const dir = mkdtempSync(join(tmpdir(), "ptxl-docs-"));
  made.push(dir);
  cpSync(join(ROOT, "examples"), join(dir, "examples"), { recursive: true });
  // `import … from "ptx-lower"` in a page's example resolves to this tree's package (its dist/).
  if (linkPackage) {
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(ROOT, join(dir, "node_modules", "ptx-lower"));
  }
  return dir;
}

const timings: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
  if (timings.length) console.log(`docs examples (${USE_DIST ? "dist/bin/ptx-lower.js" : "bin/ptx-lower.ts through tsx"}):\n${timings.join("\n")}`);
});

/** Runs a page's file and console blocks in order; one expectation per command. */
function checkPage(page: string, blocks: readonly Block[], dir = pageDir()): void {
  for (const b of blocks) {
    const file = /(?:^|\s)file=(\S+)/.exec(b.info);
    if (file) {
      const path = join(dir, file[1]!);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, b.lines.join("\n") + "\n");
      continue;
    }
    if (b.info !== "console") continue;
    for (const { command, shown } of commandsOf(b)) {
      const r = run(command, dir);
      timings.push(`  ${r.seconds.toFixed(1).padStart(5)} s  ${page}: ${command}`);
      const actual = normalize(r.out, dir, true);
      const expected = normalize(shown, dir, false);
      expect(r.status, `${page}:${b.line}: \`${command}\` exited ${r.status}:\n${r.out.join("\n")}`).toBe(0);
      if (!matches(expected, actual)) expect(actual.join("\n"), `${page}:${b.line}: \`${command}\``).toBe(expected.join("\n"));
    }
  }
}

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const PAGES = COMMANDS.map((c) => join(COMMANDS_DIR, `${c}.md`));

describe("README.md", () => {
  it("is a front page: at most 150 lines, the two commands first, a page linked per command", () => {
    expect(README.split("\n").length).toBeLessThanOrEqual(151);
    const first = blocksOf(README)[0]!;
    expect(first.info).toBe("sh");
    expect(first.lines[0]).toMatch(/^npm ci && npx ptx-lower lower examples\/bitfields\.sm_90\.ptx /);
    expect(first.lines[1]).toBe("bash .ci/run");
    for (const c of COMMANDS) expect(README, c).toContain(`(docs/commands/${c}.md)`);
  });

  it("its commands (but npm ci and bash .ci/run) succeed, and its examples print what it shows", { timeout: 300_000 }, () => {
    const dir = pageDir();
    // The developers' guide's first command, as written but for `npm ci` (the CLI is this tree's).
    const [main] = blocksOf(README)[0]!.lines;
    const command = main!.replace(/^npm ci && /, "");
    const r = run(command, dir);
    timings.push(`  ${r.seconds.toFixed(1).padStart(5)} s  README.md: ${command}`);
    expect(r.status, r.out.join("\n")).toBe(0);
    for (const f of ["out/bitfields.sm_90.amdgpu.gfx942.s", "out/bitfields.sm_90.mjs", "out/bitfields.sm_90.h", "out/bitfields.sm_90.hip.h", "out/bitfields.sm_90.ll", "out/bitfields.hip", "out/bitfields.hip.h"]) expect(existsSync(join(dir, f)), f).toBe(true);
    checkPage("README.md", blocksOf(README).slice(1));
  });
});

describe("docs/commands", () => {
  it("has a page per command, and no page for a command that is not", () => {
    expect(COMMANDS.length).toBeGreaterThanOrEqual(6);
    expect(readdirSync(COMMANDS_DIR).filter((f) => f.endsWith(".md")).sort()).toEqual(COMMANDS.map((c) => `${c}.md`).sort());
  });

  for (const [i, page] of PAGES.entries()) {
    const name = relative(ROOT, page);
    describe(name, () => {
      const text = existsSync(page) ? readFileSync(page, "utf8") : "";
      it("has LLVM's CommandGuide sections, in order, and names every option of --help", () => {
        const sections = [...text.matchAll(/^## (.*)$/gm)].map((m) => m[1]!.trim());
        const want = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES"];
        expect(sections.filter((s) => want.includes(s))).toEqual(want);
        const help = run(`ptx-lower ${COMMANDS[i]} --help`, ROOT);
        expect(help.status).toBe(0);
        const options = text.slice(text.indexOf("## OPTIONS"), text.indexOf("## EXIT STATUS"));
        // An option's line starts with two spaces (commander's layout); its wrapped text is indented further.
        for (const flag of help.out.join("\n").matchAll(/^  (?:-\w, )?(--[a-z][a-z0-9-]*)/gm)) if (flag[1] !== "--help") expect(options, `${name} OPTIONS names ${flag[1]}`).toContain(flag[1]!);
      });
      it("every example prints what the page shows", { timeout: 120_000 }, () => {
        const blocks = blocksOf(text);
        const examples = blocks.filter((b) => b.section === "EXAMPLES");
        expect(examples.some((b) => b.info === "console"), "EXAMPLES has a console block").toBe(true);
        // Every example is run: EXAMPLES holds console blocks and the files they use only.
        for (const b of examples) expect(b.info === "console" || /(?:^|\s)file=\S+/.test(b.info), `${name}:${b.line}: a \`\`\`${b.info} block in EXAMPLES is not run`).toBe(true);
        checkPage(name, blocks.filter((b) => b.info === "console" || /(?:^|\s)file=\S+/.test(b.info)));
      });
    });
  }
});

describe("docs pages' examples", () => {
  // Pages besides the command pages that show console examples (the library's).
  const pages = readdirSync(join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => join(ROOT, "docs", f));
  for (const page of pages) {
    const text = readFileSync(page, "utf8");
    if (!blocksOf(text).some((b) => b.info === "console")) continue;
    const name = relative(ROOT, page);
    // The package's entry is its build: examples that import it need a dist/ as new as the sources.
    const stale = /from "ptx-lower"/.test(text) && !USE_DIST;
    it.skipIf(stale)(`${name}: every example prints what the page shows${stale ? " (skipped: dist/ is older than the sources, and the examples import the package's build: npm run build)" : ""}`, { timeout: 120_000 }, () => {
      checkPage(name, blocksOf(text).filter((b) => b.info === "console" || /(?:^|\s)file=\S+/.test(b.info)), pageDir(true));
    });
  }
});

describe("links", () => {
  const shipped = [join(ROOT, "README.md"), ...readdirSync(join(ROOT, "docs"), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".md")).map((f) => join(ROOT, "docs", f))];
  it("every relative link of the README and docs/ resolves to a file the npm package ships; none names ../shared", () => {
    const inPackage = (p: string) => ["docs", "examples"].some((d) => p.startsWith(join(ROOT, d) + "/")) || ["README.md", "LICENSE"].some((f) => p === join(ROOT, f));
    for (const file of shipped) {
      const text = readFileSync(file, "utf8");
      expect(text, `${relative(ROOT, file)} mentions ../shared, which the package does not hold`).not.toContain("../shared");
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^(https?:|mailto:|#)/.test(target)) continue;
        const path = resolve(dirname(file), target.replace(/#.*$/, ""));
        expect(existsSync(path) && inPackage(path), `${relative(ROOT, file)} links ${target}`).toBe(true);
      }
    }
  });
});
