/**
 * The hardware-truth harness generator (src/hw/hwgen.ts): the inline PTX keeps each vector's
 * exact form, and the program for the shared vectors compiles with nvcc for sm_90.
 * (It is not run: no GPU is lent to this project's tests.)
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cstr, hwgen, hwgenDetailed } from "../src/hw/hwgen.js";
import { spawnSync } from "node:child_process";

const NVCC = ["/usr/local/bin/nvcc", "/usr/local/cuda/bin/nvcc"].find((p) => existsSync(p));
const PUBLIC = new URL("../../shared/vectors/public.jsonl", import.meta.url);

const line = (v: object) => JSON.stringify(v);
const lanes = (f: (l: number) => string | boolean) => Array.from({ length: 32 }, (_, l) => f(l));

describe("hwgen", () => {
  it("keeps immediates, selectors, sinks and guards in the inline PTX", () => {
    const text = [
      line({ id: "s1", ptx: "szext.wrap.u32 d, 0xffffffff, 0;", in: {}, out: { d: "0x00000000" } }),
      line({ id: "v1", ptx: "vshl.u32.u32.u32.wrap d.b2, a.b0, b.b1, c;", in: { a: "0x000000ff", b: "0x00000804", c: "0xdeadbeef" }, out: { d: "0xde00beef" } }),
      line({ id: "v2", ptx: "@!g vshr.s32.s32.u32.clamp d, a, 33;", in: { g: false, a: "0x80000000", d: "0x12345678" }, out: { d: "0xffffffff" } }),
      line({
        id: "m1",
        ptx: "match.all.sync.b32 _|p, a, 0x0000ffff;",
        warp: { active: "0x0000ffff" },
        in: { a: lanes(() => "0x00000005") },
        out: { p: lanes((l) => l < 16) },
      }),
      line({
        id: "m2",
        ptx: "match.any.sync.b64 d, a, membermask;",
        warp: { active: "0xffffffff" },
        in: { a: lanes((l) => (l ? "0x0000000000000000" : "0x0000000100000000")), membermask: "0xffffffff" },
        out: { d: lanes((l) => (l ? "0xfffffffe" : "0x00000001")) },
      }),
    ].join("\n");
    const cu = hwgen(text);
    expect(cu).toContain('asm volatile("szext.wrap.u32 %0, 0xffffffff, 0;" : "=r"(d));');
    expect(cu).toContain('"vshl.u32.u32.u32.wrap %0.b2, %1.b0, %2.b1, %3;"');
    expect(cu).toContain("setp.ne.u32 G, %2, 0; @!G vshr.s32.s32.u32.clamp %0, %1, 33;");
    expect(cu).toContain('"+r"(d)'); // a guarded lane keeps its prior d
    expect(cu).toContain("match.all.sync.b32 _|P, %1, 0x0000ffff; selp.u32 %0, 1, 0, P;");
    expect(cu).toContain('"l"(a)'); // .b64 lane values
    expect(cu).toContain("if (!((active[v] >> lane) & 1u)) return; // this lane has exited");
    // Observations print in the vector format, with the GPU named.
    expect(cu).toContain('\\"out\\":{');
    expect(cu).toContain('\\"hw\\":\\"%s\\"}');
    expect(cu).toContain('"{\\"id\\":\\"s1\\",\\"ptx\\":\\"szext.wrap.u32 d, 0xffffffff, 0;\\",\\"in\\":{}"');
  });

  it("leaves out match vectors that could hang hardware (an active named lane that does not execute)", () => {
    const v = {
      id: "hang",
      ptx: "@g match.any.sync.b32 d, a, 0x00000003;",
      warp: { active: "0x00000003" },
      in: { g: lanes((l) => l !== 1), a: lanes(() => "0x00000001"), d: lanes(() => "0x00000000") },
      out: { d: lanes((l) => (l === 1 ? "0x00000000" : null) as string) },
    };
    const r = hwgenDetailed(line(v));
    expect(r.skipped.map((s) => s.id)).toEqual(["hang"]);
    expect(hwgenDetailed(line(v), { unsafe: true }).skipped).toEqual([]);
  });

  it("rejects a vector whose instruction ptxas would reject", () => {
    expect(() => hwgen(line({ id: "bad", ptx: "szext.wrap.s64 d, a, b;", in: {}, out: {} }))).toThrow(/bad/);
  });

  it.skipIf(!NVCC)(`compiles for sm_90 with nvcc for ../shared/vectors/public.jsonl${NVCC ? "" : " (skipped: no nvcc at /usr/local/bin/nvcc)"}`, () => {
    const text = readFileSync(PUBLIC, "utf8");
    const { cuda, skipped } = hwgenDetailed(text);
    const n = text.split("\n").filter((l) => l.trim()).length;
    expect(n - skipped.length).toBeGreaterThan(300);
    const dir = mkdtempSync(join(tmpdir(), "hwgen-"));
    try {
      writeFileSync(join(dir, "harness.cu"), cuda);
      execFileSync(NVCC!, ["-arch=sm_90", "-o", join(dir, "harness"), join(dir, "harness.cu")], { stdio: "pipe", timeout: 300_000 });
      expect(existsSync(join(dir, "harness"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a vector id with ??/ (a trigraph) and other hostile text: no ?? anywhere in the harness", () => {
    const text = line({ id: "x??/y\\ ??= \"q\" ??'", ptx: "szext.wrap.u32 d, a, b;", in: { a: "0x00000001", b: "0x00000002" }, out: { d: "0x00000001" } });
    const cu = hwgen(text);
    expect(cu).toContain("x\\?\\?/y");
    expect(cu).not.toContain("??");
  });

  it.skipIf(spawnSync("g++", ["--version"]).status !== 0)("cstr: string literals that g++ reads back exactly, with trigraphs on (-trigraphs -Wtrigraphs -Werror)", () => {
    const strings = ["x??/y", "??=??(??)??!??<??>??-??'", 'a"b\\c', "tab\tnl\nesc\x1bA", "caf\u00e9 \u2028", "???/", "\\"];
    const dir = mkdtempSync(join(tmpdir(), "hwgen-cstr-"));
    try {
      writeFileSync(join(dir, "s.cc"), `#include <cstdio>\nint main() {\n${strings.map((x) => `  std::fputs(${cstr(x)}, stdout); std::fputs("\\x01", stdout);\n`).join("")}  return 0;\n}\n`);
      const cc = spawnSync("g++", ["-std=c++11", "-trigraphs", "-Wall", "-Wtrigraphs", "-Werror", "s.cc", "-o", "s"], { cwd: dir, encoding: "utf8" });
      expect(cc.stderr).toBe("");
      const out = spawnSync(join(dir, "s"), { encoding: "utf8" }).stdout;
      expect(out.split("\x01").slice(0, -1)).toEqual(strings);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
