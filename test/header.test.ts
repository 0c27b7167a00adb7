/**
 * The module header as ptxas 13.0 checks it (src/ptx/targets.ts, src/ptx/parser.ts
 * `checkVersion` / `checkTarget`): an unsupported `.version` or `.target`, a first target name
 * that is no architecture (fatal in ptxas: nothing else is checked, nothing is lowered), a
 * `.version` too old for the target (an error; the module is checked on), map_f64_to_f32 and
 * conflicting texmodes. Each case: ptx-lower's diagnostics (line, column, message), the CLI's
 * exit status, and — where ptxas is on PATH — the same lines and messages from ptxas.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { formatDiagnostic } from "../src/diag.js";
import { moduleContext, parseModule } from "../src/ir/build.js";
import { PTX_VERSIONS, TARGET_MIN_VERSION } from "../src/ptx/targets.js";

const ROOT = join(import.meta.dirname, "..");
const DIR = mkdtempSync(join(tmpdir(), "ptx-lower-header-"));
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

/** Line 7: legal from .version 7.0 / sm_80 on; rejected below ("Feature 'redux' requires …"). */
const BODY = `.address_size 64
.visible .entry k()
{
\t.reg .b32 %r<4>;
\tredux.sync.add.u32 %r1, %r2, 0xffffffff;
\tret;
}
`;
const moduleText = (version: string, target: string) => `${version}\n${target}\n${BODY}`;

interface Case {
  version: string;
  target: string;
  /** `line:col: error: message`, FILE for the file's path. */
  expected: string[];
  /** ptxas stops at the header: no instruction is checked or lowered. */
  fatal: boolean;
}

const CASES: Case[] = [
  { version: ".version 99.0", target: ".target sm_90", expected: ["1:10: error: Unsupported .version 99.0; current version is '9.0'"], fatal: true },
  { version: ".version 8.9", target: ".target sm_90", expected: ["1:10: error: Unsupported .version 8.9; current version is '9.0'"], fatal: true },
  { version: ".version 99.0", target: ".target foo", expected: ["1:10: error: Unsupported .version 99.0; current version is '9.0'"], fatal: true },
  { version: ".version 8.0", target: ".target sm_999", expected: ["2:9: error: Unsupported .target 'sm_999'"], fatal: true },
  { version: ".version 8.0", target: ".target sm_125", expected: ["2:9: error: Unsupported .target 'sm_125'"], fatal: true },
  { version: ".version 8.0", target: ".target compute_999", expected: ["2:9: error: Unsupported .target 'compute_999'"], fatal: true },
  { version: ".version 8.0", target: ".target sm_", expected: ["2:9: error: Unsupported .target 'sm_'"], fatal: true },
  { version: ".version 8.0", target: ".target sm_90, foo", expected: ["2:16: error: Unsupported .target 'foo'"], fatal: true },
  { version: ".version 7.0", target: ".target sm_90, sm_999", expected: ["2:16: error: Unsupported .target 'sm_999'"], fatal: true },
  { version: ".version 8.0", target: ".target foo", expected: ["2:9: error: Target architecture not defined at start of file 'FILE'"], fatal: true },
  { version: ".version 8.0", target: ".target texmode_unified, sm_90", expected: ["2:9: error: Target architecture not defined at start of file 'FILE'"], fatal: true },
  { version: ".version 8.0", target: ".target SM_90", expected: ["2:9: error: Target architecture not defined at start of file 'FILE'"], fatal: true },
  { version: ".version 7.0", target: ".target sm_90", expected: ["2:9: error: PTX .version 7.0 does not support .target sm_90"], fatal: false },
  { version: ".version 8.5", target: ".target sm_100a", expected: ["2:9: error: PTX .version 8.5 does not support .target sm_100a"], fatal: false },
  { version: ".version 7.0", target: ".target compute_90", expected: ["2:9: error: PTX .version 7.0 does not support .target compute_90"], fatal: false },
  // Several architectures: the highest minimum is needed, and ptxas names the last one.
  { version: ".version 7.0", target: ".target sm_90, sm_80", expected: ["2:16: error: PTX .version 7.0 does not support .target sm_80"], fatal: false },
  // ptxas goes on after this error: redux is checked (and rejected) too.
  { version: ".version 6.0", target: ".target sm_80, sm_90", expected: ["2:16: error: PTX .version 6.0 does not support .target sm_90", "7:2: error: Feature 'redux' requires PTX ISA .version 7.0 or later"], fatal: false },
  // The version as written: ptxas reads 8.10 as (8, 10), older than 9.0.
  { version: ".version 8.10", target: ".target sm_110", expected: ["2:9: error: PTX .version 8.10 does not support .target sm_110"], fatal: false },
  { version: ".version 8.0", target: ".target sm_90, map_f64_to_f32", expected: ["2:16: error: Directive map_f64_to_f32 is not supported with SM 1.3 or higher"], fatal: false },
  { version: ".version 8.0", target: ".target sm_90, texmode_independent, texmode_unified", expected: ["2:37: error: Conflicting .target option 'texmode_unified'"], fatal: false },
  // compute_NN is sm_NN: redux needs sm_80 (before, compute_ gave no target and no check).
  { version: ".version 8.0", target: ".target compute_20", expected: ["7:2: error: Feature 'redux' requires .target sm_80 or higher"], fatal: false },
  // A malformed target list is ptxas's fatal syntax error, at the token.
  { version: ".version 8.5", target: ".target sm_90 sm_80", expected: ["2:15: error: Parsing error near 'sm_80': syntax error"], fatal: true },
  { version: ".version 8.5", target: ".target sm_90,,sm_80", expected: ["2:15: error: Parsing error near ',': syntax error"], fatal: true },
  { version: ".version 8.5", target: ".target ,sm_90", expected: ["2:9: error: Parsing error near ',': syntax error"], fatal: true },
  { version: ".version 8.5", target: ".target sm_90,", expected: ["3:1: error: Parsing error near '.address_size': syntax error"], fatal: true },
  // The number is read: sm_090 is sm_90, quoted as written.
  { version: ".version 7.0", target: ".target sm_090", expected: ["2:9: error: PTX .version 7.0 does not support .target sm_090"], fatal: false },
  // Accepted.
  { version: ".version 8.0", target: ".target compute_90", expected: [], fatal: false },
  { version: ".version 8.5", target: ".target sm_090", expected: [], fatal: false },
  { version: ".version 8.10", target: ".target sm_90", expected: [], fatal: false },
  { version: ".version 8.0", target: ".target sm_90, texmode_unified, debug", expected: [], fatal: false },
  { version: ".version 9.0", target: ".target sm_120f", expected: [], fatal: false },
];

const PTXAS = spawnSync("ptxas", ["--version"], { encoding: "utf8" }).status === 0;
if (!PTXAS) console.log("header.test.ts: ptxas not on PATH; skipping the ptxas parity cases");

/** ptxas's located errors, `line: message`, sorted. */
function ptxasErrors(path: string): string[] {
  const r = spawnSync("ptxas", ["-arch=sm_120", path, "-o", "/dev/null"], { encoding: "utf8", timeout: 30_000 });
  return r.stderr
    .split("\n")
    .flatMap((l) => {
      const m = /, line (\d+); (?:error|fatal)\s*: (.*)$/.exec(l);
      return m ? [`${m[1]}: ${m[2].trim()}`] : [];
    })
    .sort();
}

describe.each(CASES.map((c, i) => ({ ...c, i, name: `${c.version} / ${c.target}` })))("$name", ({ version, target, expected, fatal, i }) => {
  const path = join(DIR, `h${i}.ptx`);
  const text = moduleText(version, target);
  writeFileSync(path, text);
  const mod = parseModule(text, path);
  const want = expected.map((e) => `${path}:${e.replace("FILE", path)}`);

  it("ptx-lower reports ptxas's message at the header (and nothing more when ptxas stops there)", () => {
    expect(mod.diagnostics.map(formatDiagnostic)).toEqual(want);
    if (fatal) expect(mod.insts).toEqual([]);
    else expect(mod.insts.length).toBe(expected.some((e) => e.startsWith("7:")) ? 0 : 1);
    if (!fatal) expect(moduleContext(mod.ast).sm).not.toBeNull();
  });

  it.skipIf(!PTXAS)("ptxas says the same, on the same lines", () => {
    const mine = mod.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.loc.line}: ${d.message}`).sort();
    expect(ptxasErrors(path)).toEqual(mine);
  });
});

describe("the table", () => {
  it("every supported version and target of the brief's measurement", () => {
    expect(PTX_VERSIONS.size).toBe(44);
    expect(TARGET_MIN_VERSION.size).toBe(45);
    expect(TARGET_MIN_VERSION.get("90")).toEqual([7, 8]);
    expect(TARGET_MIN_VERSION.get("120")).toEqual([8, 7]);
  });

  it.skipIf(!PTXAS)("each target at its minimum version is accepted by ptxas, and refused one version below", () => {
    const versions = [...PTX_VERSIONS].sort((a, b) => a - b);
    const problems: string[] = [];
    // A sample (the whole table is measured in src/ptx/targets.ts's comment): old, new, a/f suffixes.
    for (const arch of ["12", "35", "75", "82", "90a", "100f", "110", "121a"]) {
      const [maj, min] = TARGET_MIN_VERSION.get(arch)!;
      const at = versions.indexOf(maj * 10 + min);
      for (const [code, ok] of [[versions[at], true], [versions[at - 1], false]] as const) {
        if (code === undefined) continue;
        const v = `${Math.floor(code / 10)}.${code % 10}`;
        const p = join(DIR, `t_${arch}_${code}.ptx`);
        const src = `.version ${v}\n.target sm_${arch}\n.visible .entry k()\n{\n\tret;\n}\n`;
        writeFileSync(p, src);
        const theirs = ptxasErrors(p);
        const mine = parseModule(src, p).diagnostics.map((d) => `${d.loc.line}: ${d.message}`);
        if (JSON.stringify(theirs) !== JSON.stringify(mine) || (theirs.length === 0) !== ok) problems.push(`sm_${arch} .version ${v}: ptxas ${JSON.stringify(theirs)}, ptx-lower ${JSON.stringify(mine)}`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("the CLI", () => {
  const cli = (file: string) => spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bin", "ptx-lower.ts"), "lower", file, "--target", "js"], { cwd: ROOT, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  it.each([
    [".version 99.0", ".target sm_90", "1:10: error: Unsupported .version 99.0; current version is '9.0'"],
    [".version 8.0", ".target sm_999", "2:9: error: Unsupported .target 'sm_999'"],
    [".version 8.0", ".target sm_90, foo", "2:16: error: Unsupported .target 'foo'"],
    [".version 8.0", ".target foo", "2:9: error: Target architecture not defined at start of file 'FILE'"],
    [".version 7.0", ".target sm_90", "2:9: error: PTX .version 7.0 does not support .target sm_90"],
  ])("%s / %s: exit 1, %s, nothing lowered", (version, target, message) => {
    const path = join(DIR, `cli_${version.slice(9)}_${target.slice(8).replace(/\W/g, "_")}.ptx`);
    writeFileSync(path, moduleText(version, target));
    const r = cli(path);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`${path}:${message.replace("FILE", path)}`);
    expect(r.stdout).toBe("");
  });

  it(".version 9.0 / .target sm_90 with redux: lowered, exit 0", () => {
    const path = join(DIR, "cli_ok.ptx");
    writeFileSync(path, moduleText(".version 9.0", ".target sm_90"));
    const r = cli(path);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("redux");
  });
});

describe(".version without a minor number", () => {
  it("is no version for ptxas: 'Missing .version directive' (ptxas adds the file name), nothing checked", () => {
    const mod = parseModule(moduleText(".version 8", ".target sm_90"), "t.ptx");
    expect(mod.diagnostics.map(formatDiagnostic)).toEqual(["t.ptx:1:1: error: Missing .version directive at start of file"]);
    expect(mod.insts).toEqual([]);
  });
});

describe("a .version that is no number, or has more on its line: ptxas 13.0's fatal 'Missing' errors, and nothing more", () => {
  it.each([
    [".version 8.", "1:1: error: Missing .version directive at start of file"],
    [".version -8.5", "1:1: error: Missing .version directive at start of file"],
    [".version .5", "1:1: error: Missing .version directive at start of file"],
    [".version 8.5e0", "1:1: error: Missing .target directive at start of file"],
    [".version 8.5 foo", "1:1: error: Missing .target directive at start of file"],
    [".version 8.5;", "1:1: error: Missing .target directive at start of file"],
    [".version 8.5.1", "1:13: error: Missing .target directive at start of file"],
  ])("%s: %s", (version, message) => {
    const mod = parseModule(moduleText(version, ".target sm_90"), "t.ptx");
    expect(mod.diagnostics.map(formatDiagnostic)).toEqual([`t.ptx:${message}`]);
    expect(mod.insts).toEqual([]);
  });
  it("a comment after the version is fine", () => {
    expect(parseModule(moduleText(".version 8.5 // c", ".target sm_90"), "t.ptx").diagnostics).toEqual([]);
  });
});
