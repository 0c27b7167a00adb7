/**
 * What a new user meets first (issue 37, item 4): progress of `report` and `check` on standard
 * error (standard output unchanged), and the rough edges the issue lists, each reproduced here
 * as the user met it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import "../src/compose.js";
import { groupedTable } from "../bin/commands.js";
import { FAMILY_INSTRUCTIONS, MAX_SEED, positiveInt } from "../bin/options.js";
import { OUTPUT_TARGETS } from "../src/target/lower.js";
import { familyNamed } from "../src/families/index.js";
import { formName } from "../src/ir/forms.js";
import type { VerifyRow } from "../src/check/verify.js";

const ROOT = join(import.meta.dirname, "..");
const scratch = () => mkdtempSync(join(tmpdir(), "ptx-lower-edges-"));
function cli(args: string[], cwd = ROOT) {
  const r = spawnSync(process.execPath, ["--import", pathToFileURL(join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href, join(ROOT, "bin", "ptx-lower.ts"), ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const HEAD = ".version 8.5\n.target sm_90\n.address_size 64\n";
const kernel = (body: string) => `.visible .entry k()\n{\n.reg .b32 %r<4>;\n${body}\nret;\n}\n`;
const GOOD = HEAD + kernel("szext.clamp.s32 %r1, %r2, %r3;\nszext.wrap.u32 %r1, %r2, 8;");
/** A module with nothing to lower (reported in no time: the progress is what is tested). */
const PLAIN = HEAD + kernel("add.s32 %r1, %r2, %r3;");

describe("progress on standard error, standard output unchanged", () => {
  it("report: a line per module (the one that runs next named), the last all modules done; --json on stdout is the document alone", () => {
    const dir = scratch();
    writeFileSync(join(dir, "a.ptx"), PLAIN);
    writeFileSync(join(dir, "b.ptx"), PLAIN);
    const r = cli(["report", "a.ptx", "b.ptx", "--mcpu", "gfx942", "--json"], dir);
    expect(r.code, r.err).toBe(0);
    const lines = r.err.trim().split("\n");
    expect(lines[0]).toMatch(/^report: 0\/2 modules done, \d+\.\d s; at a\.ptx$/);
    expect(lines[1]).toMatch(/^report: 1\/2 modules done, \d+\.\d s, about \d+ s left; at b\.ptx$/);
    expect(lines[2]).toMatch(/^report: 2\/2 modules done, \d+\.\d s$/);
    expect(lines).toHaveLength(3);
    const doc = JSON.parse(r.out) as { modules: { file: string }[] };
    expect(doc.modules.map((m) => m.file)).toEqual(["a.ptx", "b.ptx"]);
  });

  // (Fewer vectors stay silent: test/shell.test.ts "check --mcpu" sees stderr hold only its warning.)
  it("check: lines per vector × target row naming the rows that run (20 vectors or more); the result alone on stdout", () => {
    const dir = scratch();
    const v = (k: number) => JSON.stringify({ id: `v${k}`, ptx: "szext.clamp.s32 d, a, b;", in: { a: "0x000000f0", b: "0x00000005" }, out: { d: "0xfffffff0" } });
    writeFileSync(join(dir, "many.jsonl"), Array.from({ length: 20 }, (_, k) => v(k)).join("\n") + "\n");
    const r = cli(["check", "many.jsonl", "--target", "amdgpu", "--mcpu", "gfx942"], dir);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe("20 passed, 0 failed\n");
    const lines = r.err.trim().split("\n");
    expect(lines[0]).toBe("check: 0/20 vector runs done, 0.0 s; at amdgpu gfx942");
    expect(lines.slice(1, -1).every((l) => /^check: \d+\/20 vector runs done, \d+\.\d s, about \d+ s left; at amdgpu gfx942$/.test(l)), r.err).toBe(true);
    expect(lines.at(-1)).toMatch(/^check: 20\/20 vector runs done, \d+\.\d s$/);
  });
});

describe("usage errors", () => {
  it("a mistyped option: commander's suggestion on a line of its own (no literal \\x0a); a line feed the user typed is still escaped", () => {
    const r = cli(["lower", "examples/bitfields.sm_90.ptx", "--tagret", "js"]);
    expect(r.code).toBe(1);
    expect(r.err).toBe("ptx-lower: error: unknown option '--tagret'\n(Did you mean --target?)\nsee 'ptx-lower lower --help'\n");
    const lf = cli(["lower", "x.ptx", "--tag\nret"]);
    expect(lf.err).toBe("ptx-lower: error: unknown option '--tag\\x0aret'\n(Did you mean --target?)\nsee 'ptx-lower lower --help'\n");
  });

  it("--seed past the generator's 32 bits is told the real bound, not 'not a positive integer'; every seed up to it is taken", () => {
    const r = cli(["verify", "examples/bitfields.sm_90.ptx", "--seed", "99999999999999999999"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^ptx-lower: error: .*--seed must be at most 4294967295 \(the random generator keeps 32 bits of state\), not '99999999999999999999'\n/);
    const seed = positiveInt("--seed", { max: MAX_SEED, why: "32 bits" });
    expect(seed("4294967295")).toBe(2 ** 32 - 1);
    expect(() => seed("4294967296")).toThrow("--seed must be at most 4294967295 (32 bits), not '4294967296'");
    expect(() => seed("0")).toThrow("--seed must be a positive integer, not '0'");
    // Without a bound of its own: the largest integer a number holds exactly.
    expect(() => positiveInt("--jobs")("99999999999999999999")).toThrow("--jobs must be at most 9007199254740991");
  });
});

describe("verify's table of many rows", () => {
  it("a form whose name holds | (shfl.sync.up.b32 d|p) stays one cell, its target kept; rows of one class, profile and target add up", async () => {
    const form = [...familyNamed("warp").forms()].find((f) => formName(f) === "shfl.sync.up.b32 d|p")!;
    expect(form).toBeDefined();
    const row = (target: VerifyRow["target"], verdict: VerifyRow["verdict"], count: number): VerifyRow => ({ spec: { form, kinds: {}, guarded: false }, profile: "isa", target, rule: "r", chosen: true, count, verdict });
    const rows = [
      row({ kind: "amdgpu", mcpu: "gfx942" }, { status: "tested", n: 100 }, 7),
      row({ kind: "amdgpu", mcpu: "gfx942" }, { status: "tested", n: 50 }, 9),
      row({ kind: "hip", mcpu: "gfx1100" }, { status: "refuted", n: 3, counterexample: "x" }, 4),
    ];
    const cells = (await groupedTable(rows, false))
      .split("\n")
      .filter((l) => l.startsWith("│"))
      .map((l) => l.split("│").slice(1, -1).map((c) => c.trim()));
    expect(cells).toEqual([
      ["class", "profile", "target", "rows", "cycles (max)", "cases run", "refuted"],
      ["shfl.sync.up.b32 d|p", "isa", "amdgpu gfx942", "2", "9", "150", "0"],
      ["shfl.sync.up.b32 d|p", "isa", "hip gfx1100", "1", "4", "0", "1"],
    ]);
  });
});

describe("lower with several outputs: -o names a directory", () => {
  const EXAMPLE = join(ROOT, "examples", "bitfields.sm_90.ptx");
  const NAMES = "bitfields.sm_90.amdgpu.gfx942.s, bitfields.sm_90.mjs, bitfields.sm_90.h, bitfields.sm_90.hip.h, bitfields.sm_90.ll";
  it("-o file.s (missing, an output's extension) is refused and creates nothing; an existing file is said to be a file and stays as it was", () => {
    const dir = scratch();
    const r = cli(["lower", EXAMPLE, "--target", "all", "-o", "file.s"], dir);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`ptx-lower: error: -o file.s names a file (.s), not a directory: 5 outputs (${NAMES}) go into a directory; write -o file.s/ to create a directory by that name, or choose one --target (and --mcpu) for one file; nothing was written\n`);
    expect(readdirSync(dir)).toEqual([]);
    writeFileSync(join(dir, "old.s"), "mine\n");
    const e = cli(["lower", EXAMPLE, "--target", "all", "-o", "old.s"], dir);
    expect(e.code).toBe(1);
    expect(e.err).toBe(`ptx-lower: error: -o old.s is a file, not a directory: 5 outputs (${NAMES}) go into a directory; name a directory with -o (created if missing), or choose one --target (and --mcpu) for one file; nothing was written\n`);
    expect(readdirSync(dir)).toEqual(["old.s"]);
    expect(readFileSync(join(dir, "old.s"), "utf8")).toBe("mine\n");
    expect(existsSync(join(dir, "file.s"))).toBe(false);
  });
});

describe("what the tool says it is", () => {
  /** How each output target is named in prose; a target added without a name here fails. */
  const PROSE: Record<string, string> = { amdgpu: "AMDGPU", js: "JavaScript", c: "C", hip: "HIP", llvm: "LLVM IR" };
  it("--help and the package description name every family's instructions, every output target, and port", () => {
    const help = cli(["--help"]);
    expect(help.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { description: string; keywords: string[] };
    for (const [what, text] of [["--help", help.out.split("\n\n")[1]!.replace(/\s+/g, " ")], ["package.json description", pkg.description]] as const) {
      for (const inst of Object.values(FAMILY_INSTRUCTIONS).flatMap((x) => x.split("/"))) expect(text, `${what}: ${inst}`).toContain(inst);
      for (const t of OUTPUT_TARGETS) expect(text, `${what}: target ${t}`).toMatch(new RegExp(`\\b${PROSE[t] ?? `(no prose name for ${t})`}\\b`));
      expect(text, what).toMatch(/\bport/);
    }
    expect(pkg.keywords).toEqual(expect.arrayContaining(["hip", "llvm-ir", "warp", "match.sync", "szext"]));
  });
});

describe("port says how to compile what it ported", () => {
  const clang = spawnSync("clang-19", ["--version"]).status === 0;
  const headers = existsSync("/usr/include/hip/hip_runtime.h");
  /** Debian's ROCm device library (rocm-device-libs); clang-19 looks for it under a ROCm installation otherwise. */
  const DEVICE_LIBS = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";
  if (!clang || !headers) console.log(`rough_edges.test.ts: the compile of the hint skipped: ${!clang ? "clang-19" : "/usr/include/hip/hip_runtime.h"} is absent`);
  it.skipIf(!clang || !headers)("the last lines of port's report: the command that compiles the ported file as HIP, which compiles it (-include hip/hip_runtime.h)", () => {
    const dir = scratch();
    const r = cli(["port", "examples/bitfields.cu", "-o", join(dir, "bitfields.hip")]);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    const hint = /^compile a ported file as HIP: (.*)$/.exec(lines.at(-2)!)?.[1];
    expect(hint, r.out).toBe(`clang-19 -x hip --offload-arch=gfx90a -include hip/hip_runtime.h -c ${join(dir, "bitfields.hip")}`);
    expect(lines.at(-1)).toMatch(/^ {2}\(--offload-arch: your GPU; .*--rocm-device-lib-path=DIR\)$/);
    const words = hint!.split(" ");
    const extra = existsSync(DEVICE_LIBS) ? [`--rocm-device-lib-path=${DEVICE_LIBS}`] : [];
    const cc = spawnSync(words[0]!, [...words.slice(1), ...extra, "-o", join(dir, "bitfields.o")], { cwd: dir, encoding: "utf8" });
    expect(cc.status, cc.stderr).toBe(0);
    expect(existsSync(join(dir, "bitfields.o"))).toBe(true);
  }, 60_000);
});

describe("port --html naming the output directory", () => {
  it("is a usage error that names both options, before anything is written (a tester's finding: 'cannot write D: is a directory')", () => {
    const dir = scratch();
    writeFileSync(join(dir, "k.cu"), readFileSync(join(ROOT, "examples", "bitfields.cu"), "utf8"));
    const out = join(dir, "out");
    const r = cli(["port", dir, "-o", out, "--html", out]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/--html .*out is the output directory \(-o .*out\): name a file for the page/);
    expect(existsSync(out)).toBe(false);
  });
});
