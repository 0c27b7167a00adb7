/**
 * The npm package: what `npm pack` would publish (no tests, scripts, CI or configs; the
 * build, docs, examples and LICENSE), the metadata a registry needs, and the docs the
 * package points to.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as Record<string, unknown>;

describe("package.json", () => {
  it("is publishable: no private flag; license (with a LICENSE file), description, repository, engines, files", () => {
    expect(pkg.private).toBeUndefined();
    expect(pkg.license).toBe("MIT");
    expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toMatch(/^MIT License\n/);
    expect(typeof pkg.description).toBe("string");
    expect((pkg.repository as { url: string }).url).toMatch(/^git\+https:\/\//);
    expect((pkg.engines as { node: string }).node).toMatch(/^>=20/);
    expect(pkg.files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "docs/", "examples/"]));
  });
});

describe("npm pack --dry-run", { timeout: 180_000 }, () => {
  // With its prepare script (the build), as `npm pack` and `npm publish` run it.
  const r = spawnSync("npm", ["pack", "--dry-run", "--json"], { cwd: ROOT, encoding: "utf8", timeout: 170_000 });
  const files: string[] = r.status === 0 ? (JSON.parse(r.stdout.slice(r.stdout.indexOf("["))) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path) : [];

  it("runs", () => {
    expect(r.status, r.stderr).toBe(0);
  });

  it("lists no test, script, CI or config file", () => {
    const unwanted = files.filter((f) => /^(test|scripts|\.ci|\.github)\//.test(f) || /(^|\/)(vitest[^/]*|tsconfig[^/]*\.json|\.vitest\.json|prove-all\.jsonl)$/.test(f) || /\.test\.(ts|js)$/.test(f) || /^(src|bin|targets|passes)\/.*\.ts$/.test(f));
    expect(unwanted).toEqual([]);
  });

  it("lists the CLI, the library and its types, the docs, the examples, LICENSE and README", () => {
    for (const f of ["dist/bin/ptx-lower.js", "dist/src/index.js", "dist/src/index.d.ts", "docs/vectors.md", "docs/report.schema.json", "docs/verify.schema.json", "examples/bitfields.sm_90.ptx", "LICENSE", "README.md", "package.json"]) expect(files, f).toContain(f);
    expect(files.every((f) => /^(dist\/(bin|src|passes|targets)\/|docs\/|examples\/|LICENSE$|README\.md$|package\.json$)/.test(f)), files.join("\n")).toBe(true);
  });

  it("the CLI's shebang survives the build, and the build makes it executable (npx runs it as it is)", () => {
    expect(readFileSync(join(ROOT, "dist", "bin", "ptx-lower.js"), "utf8")).toMatch(/^#!\/usr\/bin\/env node\n/);
    expect(statSync(join(ROOT, "dist", "bin", "ptx-lower.js")).mode & 0o111).toBe(0o111);
  });
});

describe("docs", () => {
  it("docs/vectors.md describes every field, and check --help points to it", () => {
    const doc = readFileSync(join(ROOT, "docs", "vectors.md"), "utf8");
    for (const f of ["`id`", "`ptx`", "`in`", "`out`", "`warp`", "`semantics`", "`module`"]) expect(doc).toContain(f);
    const help = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bin", "ptx-lower.ts"), "check", "--help"], { cwd: ROOT, encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain("docs/vectors.md");
    expect(help.stdout).toContain(join(ROOT, "docs", "vectors.md"));
    expect(existsSync(join(ROOT, "docs", "verify.schema.json"))).toBe(true);
  });
});
