/**
 * The hardware-truth harness generator (src/hw/hwgen.ts): the inline PTX keeps each vector's
 * exact form, and the program for the shared vectors compiles with nvcc for sm_90.
 * (It is not run: no GPU is lent to this project's tests.)
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { cstr, hwgen, hwgenDetailed, probeVectors } from "../src/hw/hwgen.js";
import { spawnSync } from "node:child_process";

const NVCC = ["/usr/local/bin/nvcc", "/usr/local/cuda/bin/nvcc"].find((p) => existsSync(p));
const PUBLIC = new URL("../../shared/vectors/public.jsonl", import.meta.url);
const WARP = new URL("../../shared/vectors/warp.jsonl", import.meta.url);
const PTXAS = ["/usr/local/bin/ptxas", "/usr/local/cuda/bin/ptxas"].find((p) => existsSync(p));

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

describe("hwgen: the warp-level family (issue 15 item 6)", () => {
  const text = readFileSync(WARP, "utf8");
  const r = hwgenDetailed(text);
  const n = text.split("\n").filter((l) => l.trim()).length;

  it("makes every warp vector a standalone module (the module header kept), loaded with cuModuleLoadData; sm_100a ones skipped on other GPUs", () => {
    expect(r.modules.length + r.skipped.length).toBe(n);
    // Only vectors that could hang (a named lane guarded off) are left out.
    for (const s of r.skipped) expect(s.reason).toMatch(/does not execute|different membermasks/);
    const f32 = r.modules.filter((m) => /redux\.sync\.(min|max)[.a-zA-Z]*\.f32/.test(m.ptx));
    expect(f32.length).toBeGreaterThanOrEqual(30);
    for (const m of f32) expect(m.ptx.startsWith(".version 8.6\n.target sm_100a\n")).toBe(true);
    const old = r.modules.filter((m) => /^(@!?g )?(shfl|vote)\.(up|down|bfly|idx|all|any|uni|ballot)\b/m.test(m.ptx));
    expect(old.length).toBe(32);
    for (const m of old) expect(m.ptx.startsWith(".version 6.3\n.target sm_70\n")).toBe(true);
    expect(r.cuda).toContain("cuModuleLoadData(&mod, ptx)");
    expect(r.cuda).toContain('"skipped %s: its module targets sm_%d%s, this GPU is sm_%d\\n"');
    expect(r.cuda).toMatch(/runWarp\("[^"]+", ptx, 100, 1, in,/); // sm_100a: that GPU only
    expect(r.cuda).toMatch(/runWarp\("[^"]+", ptx, 70, 0, in,/); // sm_70 and later
    // Exited lanes leave before the instruction; lanes that ran report d (and p).
    expect(r.modules[0]!.ptx).toContain("@%hq exit; // this lane has exited");
  });

  it.skipIf(!PTXAS)(`each module passes ptxas (-arch=sm_90; sm_100a ones -arch=sm_100a)${PTXAS ? "" : " (skipped: no ptxas at /usr/local/bin/ptxas)"}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "hwgen-ptx-"));
    try {
      const bad: string[] = [];
      r.modules.forEach((m, i) => {
        const file = join(dir, `m${i}.ptx`);
        writeFileSync(file, m.ptx);
        const arch = m.target === "sm_100a" ? "sm_100a" : "sm_90";
        const x = spawnSync(PTXAS!, [`-arch=${arch}`, file, "-o", join(dir, `m${i}.cubin`)], { encoding: "utf8" });
        if (x.status !== 0) bad.push(`${m.id}: ${x.stderr.trim()}`);
      });
      expect(bad).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!NVCC)(`the program for warp.jsonl compiles with nvcc -arch=sm_90 and links with -lcuda${NVCC ? "" : " (skipped: no nvcc at /usr/local/bin/nvcc)"}`, () => {
    const dir = mkdtempSync(join(tmpdir(), "hwgen-warp-"));
    try {
      writeFileSync(join(dir, "harness.cu"), r.cuda);
      execFileSync(NVCC!, ["-arch=sm_90", "-c", "-o", join(dir, "harness.o"), join(dir, "harness.cu")], { stdio: "pipe", timeout: 300_000 });
      // No GPU driver here (no libcuda.so): link against a stub defining the driver-API symbols
      // the object needs, so the link step and -lcuda are exercised; nothing runs.
      const undef = spawnSync("nm", ["-u", join(dir, "harness.o")], { encoding: "utf8" }).stdout.split("\n").map((l) => l.trim().split(/\s+/).pop()!).filter((x) => /^cu[A-Z]/.test(x));
      expect(undef).toEqual(expect.arrayContaining(["cuModuleLoadData", "cuLaunchKernel", "cuModuleGetFunction"]));
      const system = ["/usr/lib/x86_64-linux-gnu/libcuda.so", "/usr/local/cuda/lib64/stubs/libcuda.so"].find((p) => existsSync(p));
      const lib = system ? dirname(system) : join(dir, "stub");
      if (!system) {
        execFileSync("mkdir", ["-p", lib]);
        writeFileSync(join(lib, "s.c"), undef.map((x) => `int ${x}(void) { return 0; }\n`).join(""));
        execFileSync("gcc", ["-shared", "-fPIC", "-o", join(lib, "libcuda.so"), join(lib, "s.c")], { stdio: "pipe" });
      }
      execFileSync(NVCC!, ["-arch=sm_90", "-o", join(dir, "harness"), join(dir, "harness.o"), `-L${lib}`, "-lcuda"], { stdio: "pipe", timeout: 300_000 });
      expect(existsSync(join(dir, "harness"))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("hwgen --probe: the open points A4 (b ≥ 32, negative b) and A5 (stray c bits) of warp-semantics.md", () => {
  const probes = probeVectors()
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: string; ptx: string; in: Record<string, string | string[]>; out: { d: (string | null)[]; p: (boolean | null)[] }; probe: { point: string; readings: Record<string, { d: (string | null)[]; p: (boolean | null)[] }>; differ: boolean } });
  const aOf = (l: number) => `0x${(0xa0000000 + l).toString(16)}`;

  it("covers b in 32…63 and negative for every mode and width, and c with bits 5–7 and 13–31 set", () => {
    for (const mode of ["up", "down", "bfly", "idx"])
      for (const w of [1, 2, 4, 8, 16, 32]) {
        const mine = probes.filter((p) => p.ptx === `shfl.sync.${mode}.b32 d|p, a, b, c, membermask;` && ((Number(BigInt(p.in.c as string)) >>> 8) & 31) === 32 - w);
        const bs = new Set(mine.filter((p) => p.probe.point === "A4").map((p) => Number(BigInt(p.in.b as string)) | 0));
        for (let b = 32; b < 64; b++) expect(bs.has(b), `${mode} w${w} b${b}`).toBe(true);
        expect([...bs].filter((b) => b < 0).length, `${mode} w${w} negative b`).toBeGreaterThanOrEqual(4);
        const cs = mine.filter((p) => p.probe.point === "A5").map((p) => Number(BigInt(p.in.c as string)));
        for (const bit of [5, 6, 7, 13, 14, 15, 16, 31]) expect(cs.some((c) => (c >>> bit) & 1), `${mode} w${w} c bit ${bit}`).toBe(true);
      }
    // Most b probes separate the readings (so one GPU run decides them).
    expect(probes.filter((p) => p.probe.point === "A4" && p.probe.differ).length).toBeGreaterThan(600);
    expect(probes.filter((p) => p.probe.point === "A5" && p.probe.differ).length).toBeGreaterThan(20);
    // `out` is the ISA reading, so check passes them against the reference.
    for (const p of probes) expect(p.out).toEqual(p.probe.readings.isa);
  });

  it("gives both readings' values, as the pseudocode gives them by hand", () => {
    const get = (mode: string, w: number, b: number) => probes.find((p) => p.ptx.startsWith(`shfl.sync.${mode}.`) && p.probe.point === "A4" && p.in.b === `0x${(b >>> 0).toString(16).padStart(8, "0")}` && ((Number(BigInt(p.in.c as string)) >>> 8) & 31) === 32 - w)!;
    // .up by 33, width 32: the ISA reads b[4:0] = 1 (lane l gets lane l-1; lane 0 its own, p false);
    // the wide reading moves every source out of range (own value, p false).
    const up = get("up", 32, 33);
    expect(up.probe.readings.isa.d).toEqual(Array.from({ length: 32 }, (_, l) => aOf(l ? l - 1 : 0)));
    expect(up.probe.readings.isa.p).toEqual(Array.from({ length: 32 }, (_, l) => l > 0));
    expect(up.probe.readings.wide.d).toEqual(Array.from({ length: 32 }, (_, l) => aOf(l)));
    expect(up.probe.readings.wide.p).toEqual(new Array(32).fill(false));
    // .down by -1 (0xffffffff), width 32: ISA b[4:0] = 31 (lane 0 reads lane 31, the rest keep
    // their own, p false); wide, on 8-bit lanes j = l + 255 = l - 1: lane l ≥ 1 reads lane l-1,
    // lane 0's source (-1) is no lane (d undefined), p true everywhere.
    const down = get("down", 32, -1);
    expect(down.probe.readings.isa.d).toEqual(Array.from({ length: 32 }, (_, l) => aOf(l === 0 ? 31 : l)));
    expect(down.probe.readings.isa.p).toEqual(Array.from({ length: 32 }, (_, l) => l === 0));
    expect(down.probe.readings.wide.d).toEqual(Array.from({ length: 32 }, (_, l) => (l === 0 ? null : aOf(l - 1))));
    expect(down.probe.readings.wide.p).toEqual(new Array(32).fill(true));
  });
});
