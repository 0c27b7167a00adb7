import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MCPUS } from "../targets/amdgpu/regs.js";

const ROOT = join(import.meta.dirname, "..");
const SHARED = join(ROOT, "..", "shared");
const C09 = join(SHARED, "ptx", "c09_szext_forms.sm_90.ptx");

/** Runs the CLI from source (as `npx ptx-lower` runs the build of the same code). */
function cli(args: string[], input?: string) {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bin", "ptx-lower.ts"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    input,
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const have = (tool: string, arg = "--version") => spawnSync(tool, [arg]).status === 0;
const tmp = () => mkdtempSync(join(tmpdir(), "ptx-lower-cli-"));

describe("ptx-lower CLI", () => {
  it.skipIf(!have("llvm-mc-19"))("lower c09: a routine for every szext occurrence on each mcpu, accepted by llvm-mc-19", () => {
    const occurrences = readFileSync(C09, "utf8").split("\n").filter((l) => /^\s*szext\./.test(l)).length;
    expect(occurrences).toBeGreaterThan(5);
    const dir = tmp();
    const r = cli(["lower", C09, "--target", "amdgpu", "--mcpu", "all", "-o", dir]);
    expect(r.code, r.err).toBe(0);
    for (const mcpu of MCPUS) {
      const file = join(dir, `c09_szext_forms.sm_90.amdgpu.${mcpu}.s`);
      const text = readFileSync(file, "utf8");
      const served = text.split("\n").filter((l) => /^;\s+\S+:\d+:\d+\s+szext\./.test(l)).length;
      expect(served, mcpu).toBe(occurrences);
      const mc = spawnSync("llvm-mc-19", ["-arch=amdgcn", `-mcpu=${mcpu}`, file, "-o", "/dev/null"], { encoding: "utf8" });
      expect(mc.stderr, mcpu).toBe("");
      expect(mc.status).toBe(0);
    }
  });

  it.skipIf(!have("llvm-mc-19"))("the match and video real files lower for every mcpu, accepted by llvm-mc-19", { timeout: 300_000 }, () => {
    const files = ["c05_warp_aggregated_atomic.sm_90.ptx", "c08_vshl_vshr_forms.sm_90.ptx"].map((f) => join(SHARED, "ptx", f));
    for (const profile of ["sm90"]) {
      const dir = tmp();
      for (const file of files) {
        const r = cli(["lower", file, "--target", "amdgpu", "--mcpu", "all", "--semantics", profile, "-o", dir]);
        expect(r.code, r.err).toBe(0);
      }
      for (const f of readdirSync(dir)) {
        const mcpu = /\.amdgpu\.(\w+)\.s$/.exec(f)![1]!;
        const mc = spawnSync("llvm-mc-19", ["-arch=amdgcn", `-mcpu=${mcpu}`, join(dir, f), "-o", "/dev/null"], { encoding: "utf8" });
        expect(mc.stderr, f).toBe("");
      }
    }
  });

  it.skipIf(!have("gcc"))("lower --target c compiles with -Werror; --target js imports in Node", async () => {
    const dir = tmp();
    for (const file of readdirSync(join(SHARED, "ptx")).map((f) => join(SHARED, "ptx", f))) {
      for (const profile of ["isa", "sm90"]) {
        const c = cli(["lower", file, "--target", "c", "--semantics", profile]);
        expect(c.code, c.err).toBe(0);
        writeFileSync(join(dir, "m.c"), c.out);
        const gcc = spawnSync("gcc", ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Wstrict-prototypes", "-Werror", "-c", "m.c", "-o", "m.o"], { cwd: dir, encoding: "utf8" });
        expect(gcc.stderr, file).toBe("");
        const js = cli(["lower", file, "--target", "js", "--semantics", profile]);
        expect(js.code, js.err).toBe(0);
        const path = join(dir, `m${Math.random().toString(36).slice(2)}.mjs`);
        writeFileSync(path, js.out);
        const mod = (await import(path)) as Record<string, unknown>;
        expect(Object.values(mod).every((f) => typeof f === "function")).toBe(true);
        expect(Object.keys(mod).length).toBeGreaterThan(0);
      }
    }
  });

  it("--target all -o DIR writes one file per target and mcpu", () => {
    const dir = join(tmp(), "out");
    const r = cli(["lower", join(ROOT, "examples", "bitfields.sm_90.ptx"), "--target", "all", "--mcpu", "all", "-o", dir]);
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(
      [...MCPUS.map((m) => `bitfields.sm_90.amdgpu.${m}.s`), "bitfields.sm_90.h", "bitfields.sm_90.mjs", "bitfields.sm_90.hip.h", "bitfields.sm_90.ll"].sort(),
    );
  });

  it("illegal forms: every one reported as file:line:col, exit 1, and nothing written", () => {
    const dir = tmp();
    const bad = join(dir, "bad.ptx");
    writeFileSync(
      bad,
      [".version 9.0", ".target sm_90", ".address_size 64", ".visible .entry k()", "{", "  .reg .b32 %r<4>;", "  szext.s32 %r1, %r2, %r3;", "  szext.clamp.wrap.s32 %r1, %r2, %r3;", "  szext.clamp.b32 %r1, %r2, %r3;", "  ret;", "}", ""].join("\n"),
    );
    const out = join(dir, "out.s");
    writeFileSync(out, "previous contents\n");
    const r = cli(["lower", bad, "-o", out]);
    expect(r.code).toBe(1);
    const lines = r.err.trim().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines[0]).toMatch(/bad\.ptx:7:\d+: error: Clamp modifier required for instruction 'szext'/);
    expect(lines[1]).toMatch(/bad\.ptx:8:\d+: error: Multiple clamp modifiers specified/);
    expect(lines[2]).toMatch(/bad\.ptx:9:\d+: error: Unexpected instruction types specified for 'szext'/);
    expect(r.err).not.toMatch(/at \S+\.ts:\d+/); // no stack trace
    expect(readFileSync(out, "utf8")).toBe("previous contents\n");
  });

  it("unreadable input and bad options are clear errors with exit 1", () => {
    const r = cli(["lower", "/nonexistent/x.ptx"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^\/nonexistent\/x\.ptx:1:1: error: cannot read: no such file/);
    const o = cli(["lower", C09, "--target", "wasm"]);
    expect(o.code).toBe(1);
    expect(o.err).toMatch(/--target must be one of/);
    const d = cli(["lower", tmp()]);
    expect(d.code).toBe(1);
    expect(d.err).toMatch(/error: is a directory/);
  });

  it("usage errors: `ptx-lower: error: …` and one line pointing at the command's help, exit 1, no help dump", () => {
    const cases: [string[], RegExp, string][] = [
      [["lower", C09, "--mcpu", "gfx908"], /^ptx-lower: error: option '--mcpu <name>' argument 'gfx908' is invalid\. --mcpu must be one of /, "lower"],
      [["lower", C09, "--bogus"], /^ptx-lower: error: unknown option '--bogus'/, "lower"],
      [["lower", C09, C09], /^ptx-lower: error: too many arguments for 'lower'/, "lower"],
      [["check"], /^ptx-lower: error: missing required argument 'vectors'/, "check"],
      [["frob"], /^ptx-lower: error: unknown command 'frob'/, ""],
      [["lower", C09, "--x\x1b[2J"], /^ptx-lower: error: unknown option '--x\\x1b\[2J'/, "lower"],
      // More warps than memory holds: an error, not a heap-exhaustion abort minutes later.
      [["verify", C09, "--target", "js", "--warps", "100001"], /^ptx-lower: error: option '--warps <n>' argument '100001' is invalid\. --warps must be at most 100000 \(the warps are held in memory\), not '100001'$/, "verify"],
    ];
    for (const [args, first, cmd] of cases) {
      const r = cli(args);
      expect(r.code, args.join(" ")).toBe(1);
      const lines = r.err.split("\n");
      expect(lines[0]).toMatch(first);
      expect(lines.slice(1)).toEqual([`see 'ptx-lower ${cmd ? `${cmd} ` : ""}--help'`, ""]);
    }
  });

  it("reads standard input with -", () => {
    const r = cli(["lower", "-", "--target", "amdgpu", "--mcpu", "gfx1100"], readFileSync(C09, "utf8"));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("v_bfe_i32");
  });

  it("check prints one line per failure and ends with N passed, N failed, N skipped", () => {
    const dir = tmp();
    const vectors = join(dir, "v.jsonl");
    writeFileSync(
      vectors,
      [
        JSON.stringify({ id: "good", ptx: "szext.clamp.s32 d, a, b;", in: { a: "0x000000f0", b: "0x00000005" }, out: { d: "0xfffffff0" } }),
        JSON.stringify({ id: "wrong-expectation", ptx: "szext.clamp.s32 d, a, b;", in: { a: "0x000000f0", b: "0x00000005" }, out: { d: "0x00000010" } }),
        JSON.stringify({ id: "other-profile", semantics: "sm90", ptx: "vshl.u32.u32.u32.clamp d, a, b;", in: { a: "0x00000001", b: "0x00000001" }, out: { d: "0x00000002" } }),
      ].join("\n") + "\n",
    );
    const r = cli(["check", vectors, "--target", "ref"]);
    expect(r.code).toBe(1);
    const lines = r.out.trim().split("\n");
    expect(lines.at(-1)).toBe("1 passed, 1 failed, 1 skipped");
    expect(lines.filter((l) => l.includes("FAIL")).length).toBe(1);
    expect(r.out).toContain("wrong-expectation");
  });

  it("check counts vector × target row, and prints no skipped count when nothing was skipped", () => {
    const dir = tmp();
    const vectors = join(dir, "v.jsonl");
    writeFileSync(
      vectors,
      [
        JSON.stringify({ id: "good", ptx: "szext.clamp.s32 d, a, b;", in: { a: "0x000000f0", b: "0x00000005" }, out: { d: "0xfffffff0" } }),
        JSON.stringify({ id: "wrong-expectation", ptx: "szext.clamp.s32 d, a, b;", in: { a: "0x000000f0", b: "0x00000005" }, out: { d: "0x00000010" } }),
      ].join("\n") + "\n",
    );
    // Five processors: each vector on five rows; the wrong one fails on every row (and the lines say which).
    const r = cli(["check", vectors, "--target", "amdgpu", "--mcpu", "all"]);
    expect(r.code).toBe(1);
    const lines = r.out.trim().split("\n");
    expect(lines.at(-1)).toBe("5 passed, 5 failed");
    expect(lines.filter((l) => l.includes("FAIL wrong-expectation [amdgpu gfx")).length).toBeGreaterThanOrEqual(5);
  });

});
