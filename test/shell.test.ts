/**
 * The shell around the core, as a build system meets it: `report` over a tree with one bad
 * file, `verify` that cannot pass vacuously, progress in logs, JSON documents against their
 * schemas, input text that never reaches a terminal or a generated file raw, generated JS
 * that refuses misuse, and banners that record the command as it ran.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { validate } from "./schema.js";
import type { Schema } from "./schema.js";
import { loadJsModule } from "../targets/js/run.js";
import { parseModule } from "../src/ir/build.js";
import { lowerModule } from "../src/index.js";

const ROOT = join(import.meta.dirname, "..");
const scratch = () => mkdtempSync(join(tmpdir(), "ptx-lower-shell-"));
function cli(args: string[], cwd = ROOT) {
  const r = spawnSync(process.execPath, ["--import", pathToFileURL(join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href, join(ROOT, "bin", "ptx-lower.ts"), ...args], { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const schemaOf = (name: string) => JSON.parse(readFileSync(join(ROOT, "docs", name), "utf8")) as Schema;

const HEAD = ".version 8.5\n.target sm_90\n.address_size 64\n";
const kernel = (body: string) => `.visible .entry k()\n{\n.reg .b32 %r<4>;\n${body}\nret;\n}\n`;
const GOOD = HEAD + kernel("szext.clamp.s32 %r1, %r2, %r3;\nszext.wrap.u32 %r1, %r2, 8;");
const BAD = HEAD + kernel("szext.s32 %r1, %r2, %r3;");
/** Raw terminal controls: set the window title, clear the screen, colour red, bell. */
const CONTROLS = "\x1b]0;pwned\x07\x1b[2J\x1b[31m\x01\x7f";
const RAW = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

describe("report over several files, one of them bad", () => {
  const dir = scratch();
  writeFileSync(join(dir, "bad.ptx"), BAD);
  writeFileSync(join(dir, "good.ptx"), GOOD);

  it("--json: both reported, the good one fully, the bad one with its diagnostics; totals, verdict failed; exit 1", () => {
    const r = cli(["report", "bad.ptx", "good.ptx", "--json", "--mcpu", "gfx942"], dir);
    expect(r.code).toBe(1);
    const doc = JSON.parse(r.out) as { modules: { file: string; status: string; diagnostics: { message: string }[]; occurrences: unknown[]; routines: { targets: unknown[] }[] }[]; totals: Record<string, unknown>; verdict: string };
    expect(validate(schemaOf("report.schema.json"), schemaOf("report.schema.json"), doc)).toEqual([]);
    expect(doc.modules.map((m) => [m.file, m.status])).toEqual([["bad.ptx", "failed"], ["good.ptx", "ok"]]);
    expect(doc.modules[0]!.diagnostics.map((d) => d.message)).toEqual(["Clamp modifier required for instruction 'szext'"]);
    expect(doc.modules[1]!.occurrences.length).toBe(2);
    expect(doc.modules[1]!.routines.length).toBe(2);
    expect(doc.modules[1]!.routines[0]!.targets.length).toBe(5); // amdgpu gfx942, js, c, hip gfx942, llvm gfx942
    expect(doc.totals).toMatchObject({ modules: 2, failedModules: 1, occurrences: 2, routines: 2 });
    expect(doc.verdict).toBe("failed");
    expect(r.err).toMatch(/^bad\.ptx:7:1: error: Clamp modifier required/);
  });

  it("tables: the good module's tables, the bad one listed as FAILED with its diagnostic; an unreadable file too", () => {
    const r = cli(["report", "bad.ptx", "good.ptx", "missing.ptx", "--mcpu", "gfx942"], dir);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/== bad\.ptx\nFAILED: 1 error; not reported\nbad\.ptx:7:1: error: Clamp modifier required/);
    expect(r.out).toMatch(/== good\.ptx\n2 occurrences/);
    expect(r.out).toMatch(/== missing\.ptx\nFAILED: 1 error; not reported\nmissing\.ptx:1:1: error: cannot read: no such file/);
    expect(r.out).toMatch(/report: 3 modules \(2 FAILED\)/);
    expect(r.out).toMatch(/overall: FAILED\n$/);
  });

  it("all good: overall ok, exit 0", () => {
    const r = cli(["report", "good.ptx", "--mcpu", "gfx942", "--json"], dir);
    expect(r.code, r.err).toBe(0);
    expect((JSON.parse(r.out) as { verdict: string }).verdict).toBe("ok");
  });
});

describe("control characters from the input never reach the terminal or a generated file raw", () => {
  const dir = scratch();
  const ptx = HEAD + `// comment ${CONTROLS} end\n` + kernel(`szext.clamp.s32 %r1, %r2, /* ${CONTROLS} */ %r3;`);
  writeFileSync(join(dir, "ctl.ptx"), ptx);

  it("ptxas-accepted: the module parses without errors", () => {
    expect(parseModule(ptx, "ctl.ptx").diagnostics.filter((d) => d.severity === "error")).toEqual([]);
  });

  it("report tables show them escaped (\\x1b), no raw control byte in stdout", () => {
    const r = cli(["report", "ctl.ptx", "--mcpu", "gfx942"], dir);
    expect(r.code, r.err).toBe(0);
    expect(r.out).not.toMatch(RAW);
    expect(r.out).toContain("/* \\x1b]0;pwned\\x07\\x1b[2J\\x1b[31m\\x01\\x7f */");
  });

  it("a file name with controls: diagnostics on stderr show it escaped", () => {
    const name = `e\x1b[2Jvil.ptx`;
    writeFileSync(join(dir, name), BAD);
    const r = cli(["lower", name], dir);
    expect(r.code).toBe(1);
    expect(r.err).not.toMatch(RAW);
    expect(r.err).toContain("e\\x1b[2Jvil.ptx:7:1: error:");
  });

  it("a file name with ESC, CR, LF and tab: every message naming it is one line, escaped (diagnostics, wrote …, errors)", () => {
    const name = `n\x1b[2J\r\n\tx.ptx`;
    const shown = "n\\x1b[2J\\x0d\\x0a\\x09x.ptx";
    writeFileSync(join(dir, name), GOOD);
    writeFileSync(join(dir, `b${name}`), BAD);
    const bad = cli(["lower", `b${name}`], dir);
    expect(bad.code).toBe(1);
    expect(bad.err).toBe(`b${shown}:7:1: error: Clamp modifier required for instruction 'szext'\n`);
    const out = `o\x1b\n`;
    const r = cli(["lower", name, "--target", "all", "-o", out], dir);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/^wrote 5 files to o\\x1b\\x0a: n\\x1b\[2J\\x0d\\x0a\\x09x\.amdgpu\.gfx942\.s, /);
    expect(r.err.split("\n")).toHaveLength(2);
    expect(r.err).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f]/);
    const e = cli(["lower", name, "--target", "js", "-o", join("missing\x1b\n", "x.mjs")], dir);
    expect(e.code).toBe(1);
    expect(e.err).toBe("ptx-lower: error: cannot write missing\\x1b\\x0a/x.mjs: no such file or directory\n");
  });

  it("report: a file name with LF and tab is shown escaped (\\x0a), not as raw lines or spaces", () => {
    const name = "r\n\tx.ptx";
    writeFileSync(join(dir, name), BAD);
    const r = cli(["report", name, "--mcpu", "gfx942"], dir);
    expect(r.code).toBe(1);
    expect(r.out).toContain("== r\\x0a\\x09x.ptx\n");
    expect(r.out).toContain("r\\x0a\\x09x.ptx:7:1: error: Clamp modifier required");
    expect(r.err).toContain("r\\x0a\\x09x.ptx:7:1: error: Clamp modifier required");
  });

  it("JS and C outputs: no raw control byte; JS comments escape them", async () => {
    const mod = parseModule(ptx, "ctl.ptx");
    const js = (await lowerModule(mod, { target: "js", profile: "isa" })).text;
    expect(js).not.toMatch(RAW);
    expect(js).toContain("\\x1b]0;pwned\\x07");
    const exports = await loadJsModule(js);
    expect(Object.keys(exports).length).toBe(1);
    const c = (await lowerModule(mod, { target: "c", profile: "isa" })).text;
    expect(c).not.toMatch(RAW);
  });
});

describe("generated JS refuses misuse and normalises its arguments", async () => {
  const text = HEAD + kernel("szext.clamp.s32 %r1, %r2, %r3;\nmatch.any.sync.b32 %r1, %r2, %r3;\nmatch.any.sync.b64 %r1, %rd1, %r3;").replace(".reg .b32 %r<4>;", ".reg .b32 %r<4>;\n.reg .b64 %rd<2>;");
  const mod = parseModule(text, "m.ptx");
  const js = await loadJsModule((await lowerModule(mod, { target: "js", profile: "isa" })).text);
  const szext = js.szext_clamp_s32__v_v!;
  const any32 = js.match_any_sync_b32__v_v!;
  const any64 = js.match_any_sync_b64__v_v!;

  it("the module has the three routines", () => {
    expect(mod.diagnostics).toEqual([]);
    expect(typeof szext).toBe("function");
    expect(typeof any32).toBe("function");
    expect(typeof any64).toBe("function");
  });

  it("negative numbers are u32 values: szext.clamp.s32(0x80000001, -1) is b = 0xffffffff ≥ 32, so d = a", () => {
    expect(szext(0x80000001, -1)).toBe(0x80000001);
    // -16 is 0xfffffff0: the low 5 bits 0b10000 sign-extended.
    expect(szext(-16, 5)).toBe(0xfffffff0);
  });

  it("a number where lanes are expected, the wrong lane count, a string: TypeError naming the parameter", () => {
    expect(() => any32(5, new Uint32Array(32), 1)).toThrow(TypeError);
    expect(() => any32(5, new Uint32Array(32), 1)).toThrow(/^a must be 32 lanes/);
    expect(() => any32(new Uint32Array(31), new Uint32Array(32), 1)).toThrow(/^a must be 32 lanes .*not length 31/);
    expect(() => any32(new Uint32Array(32), 0xffffffff, 1)).toThrow(/^membermask must be 32 lanes/);
    expect(() => szext("1", 2)).toThrow(/^a must be an integer number/);
    expect(() => any64(new Uint32Array(32).fill(1), new Uint32Array(32), 1)).not.toThrow(); // numbers become BigInts
    expect(() => any64([1.5, ...new Array(31).fill(0)], new Uint32Array(32), 1)).toThrow(RangeError);
  });

  it("plain arrays of negative numbers are lanes of u32 values", () => {
    const all = new Array(32).fill(-1);
    const r = any32(all, all, -1) as { d: Uint32Array };
    expect(r.d[0]).toBe(0xffffffff); // every lane holds the same value, every lane a member
    const r64 = any64(new Array(32).fill(-1n), all, -1) as { d: Uint32Array };
    expect(r64.d[31]).toBe(0xffffffff);
  });
});

describe("verify never passes vacuously", () => {
  const dir = scratch();
  writeFileSync(join(dir, "empty.ptx"), HEAD + kernel("add.s32 %r1, %r2, %r3;"));
  writeFileSync(join(dir, "good.ptx"), GOOD);

  it("a file with no occurrence: error 'no routine matched', exit 1; --allow-empty accepts it", () => {
    const r = cli(["verify", "empty.ptx"], dir);
    expect(r.code).toBe(1);
    expect(r.err).toBe("ptx-lower: error: no routine matched (empty.ptx has no szext / vshl/vshr / vadd/vsub/vabsdiff/vmin/vmax/vset / match.sync / shfl/vote/redux/activemask/bar.warp.sync occurrence): nothing to verify; --allow-empty accepts that\n");
    const ok = cli(["verify", "empty.ptx", "--allow-empty"], dir);
    expect(ok.code).toBe(0);
  });

  it("--family that matches nothing in the file: exit 1", () => {
    const r = cli(["verify", "good.ptx", "--family", "match"], dir);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/no routine matched \(good\.ptx has no match\.sync occurrence\)/);
  });

  it("--all with a FILE is rejected", () => {
    const r = cli(["verify", "good.ptx", "--all"], dir);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^ptx-lower: error: --all is for the families without a FILE/);
  });

  const haveClang = spawnSync("clang-19", ["--version"]).status === 0;
  if (!haveClang) console.log("shell.test.ts: the hip progress test skipped: clang-19 is absent");
  it.skipIf(!haveClang)("not on a terminal: after the routines, what the hip rows do (compiling, functions run), so the log never goes silent", () => {
    const r = cli(["verify", "good.ptx", "--target", "hip", "--mcpu", "gfx1100"], dir);
    expect(r.code, r.err).toBe(0);
    const lines = r.err.trim().split("\n");
    const queued = lines.findIndex((l) => /^verify: 2\/2 routines done/.test(l));
    expect(queued, r.err).toBeGreaterThanOrEqual(0);
    expect(lines.slice(queued + 1)[0]).toMatch(/^verify: hip gfx1100: compiling the functions of 2 routines \(clang-19\), \d+\.\d s$/);
    expect(lines.slice(queued + 1).some((l) => /^verify: hip: \d+\/\d+ functions run on 1 processor, \d+\.\d s$/.test(l)), r.err).toBe(true);
  });

  it("not on a terminal: progress lines on stderr, the last one all routines done; --json rows follow docs/verify.schema.json with names and locations", () => {
    const r = cli(["verify", "good.ptx", "--target", "js", "--json"], dir);
    expect(r.code, r.err).toBe(0);
    const lines = r.err.trim().split("\n");
    expect(lines.every((l) => /^verify: \d+\/2 routines done, \d+\.\d s(, about \d+ s left)?$/.test(l)), r.err).toBe(true);
    expect(lines.at(-1)).toMatch(/^verify: 2\/2 routines done/);
    const doc = JSON.parse(r.out) as { rows: { routine: string; locations: { file: string; line: number; col: number }[] }[] };
    const schema = schemaOf("verify.schema.json");
    expect(validate(schema, schema, doc)).toEqual([]);
    expect([...new Set(doc.rows.map((x) => x.routine))]).toEqual(["szext_clamp_s32__v_v", "szext_wrap_u32__v_imm8"]);
    expect(doc.rows.find((x) => x.routine === "szext_wrap_u32__v_imm8")!.locations).toEqual([{ file: "good.ptx", line: 8, col: 1, text: "szext.wrap.u32 %r1, %r2, 8;" }]);
    // The validator notices a row without its routine.
    delete (doc.rows[0] as Partial<(typeof doc.rows)[0]>).routine;
    expect(validate(schema, schema, doc).length).toBe(1);
  });
});

describe("banners record the command as it ran", () => {
  it("argv shell-quoted, and the source path relative to the working directory (no absolute build path)", () => {
    const dir = scratch();
    writeFileSync(join(dir, "it's here.ptx"), GOOD);
    const r = cli(["lower", join(dir, "it's here.ptx"), "--target", "js"], ROOT);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(` * ptx-lower lower '${join(dir, "it'\\''s here.ptx")}' --target js\n`);
    const source = /^ \* source: (.*); target: js/m.exec(r.out)![1]!;
    expect(source.startsWith("/")).toBe(false);
    expect(source.endsWith("it's here.ptx")).toBe(true);
    // Only the argv line names the absolute path; serves: lines are relative too.
    expect(r.out.split("\n").filter((l) => l.replaceAll(`..${dir}/`, "").includes(`${dir}/`))).toEqual([` * ptx-lower lower '${join(dir, "it'\\''s here.ptx")}' --target js`]);
    expect(r.out).toMatch(/^ \*   \.\.\/.*it's here\.ptx:7:1  szext\.clamp\.s32/m);
  });

  it("a control character in argv is escaped in the banner ($'…\\x1b…'), never a space or raw", () => {
    const dir = scratch();
    writeFileSync(join(dir, "c\x1b[2J\nx.ptx"), GOOD);
    const r = cli(["lower", "c\x1b[2J\nx.ptx", "--target", "js"], dir);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(" * ptx-lower lower $'c\\x1b[2J\\x0ax.ptx' --target js\n");
    expect(r.out).toContain(" * source: c\\x1b[2J\\x0ax.ptx; target: js");
    expect(r.out).not.toMatch(RAW);
  });

  it("library: command is argv words, quoted as the CLI quotes them; sourceName's controls escaped; a string command is a TypeError", async () => {
    const mod = parseModule(GOOD, "m.ptx");
    for (const target of ["js", "c", "amdgpu"] as const) {
      const text = (await lowerModule(mod, { target, profile: "isa", command: ["x", "a b", "it's", "e\x1bf"], sourceName: "a\nb" })).text;
      expect(text).toContain("x 'a b' 'it'\\''s' $'e\\x1bf'");
      expect(text).toContain("source: a\\x0ab;");
      expect(text).not.toContain("x,a");
      expect(text).not.toMatch(/a\nb/);
    }
    await expect(lowerModule(mod, { target: "js", profile: "isa", command: "ptx-lower x" as unknown as string[] })).rejects.toThrow(/options\.command must be an array of argv words/);
  });
});

describe("routine comments name the function's own parameters", () => {
  it("every JS and C `contract:` lists exactly the parameters of the function after it (folded immediates are none)", async () => {
    for (const name of ["szext", "match", "video", "warp"]) {
      const mod = parseModule(readFileSync(join(ROOT, "test", "cases", `${name}.ptx`), "utf8"), `${name}.ptx`);
      const js = (await lowerModule(mod, { target: "js", profile: "isa" })).text;
      // A long parameter list is wrapped over lines (prettier, with a trailing comma).
      const pairs = [...js.matchAll(/contract: \((.*?)\) →[^]*?export function (\w+)\(([^)]*)\)/g)];
      expect(pairs.length).toBeGreaterThan(3);
      const list = (ps: string) => ps.split(",").map((p) => p.trim()).filter((p) => p !== "").join(", ");
      for (const [, contract, fn, params] of pairs) expect(contract!.replace(/ \(u32 or u32\[32\]\)| \(u32 lane mask\)|\[\d+\]/g, ""), fn).toBe(list(params!));
      // `active`, the executing lanes, is said to be a lane mask where the function takes it (match, warp).
      for (const [, contract, fn] of pairs) if (/\bactive\b/.test(contract!)) expect(contract, fn).toMatch(/(^|, )active \(u32 lane mask\)(,|$)/);
      if (name === "match" || name === "warp") expect(pairs.some(([, contract]) => /\bactive\b/.test(contract!))).toBe(true);
      // C prints the same routine headers over the same parameters.
      const c = (await lowerModule(mod, { target: "c", profile: "isa" })).text;
      expect([...c.matchAll(/contract: .*/g)].map((m) => m[0])).toEqual([...js.matchAll(/contract: .*/g)].map((m) => m[0]));
    }
    const one = (await lowerModule(parseModule(HEAD + kernel("szext.wrap.s32 %r1, 5, %r2;\nszext.wrap.u32 %r1, 0xffffffff, 0;"), "m.ptx"), { target: "js", profile: "isa" })).text;
    expect(one).toMatch(/contract: \(b\) → d over u32 values \(immediates folded into the routine\)\n[^]*?export function szext_wrap_s32__imm5_v\(b\)/);
    const oneC = (await lowerModule(parseModule(HEAD + kernel("szext.wrap.s32 %r1, 5, %r2;"), "m.ptx"), { target: "c", profile: "isa" })).text;
    expect(oneC).toMatch(/contract: \(b\) → d over u32 values[^]*?szext_wrap_s32__imm5_v\(uint32_t b\)/);
    expect(one).toMatch(/contract: \(\) → d over u32 values \(immediates folded into the routine\)\n[^]*?export function szext_wrap_u32__imm0xffffffff_imm0\(\)/);
  });
});

describe("check --mcpu", () => {
  const dir = scratch();
  writeFileSync(join(dir, "v.jsonl"), '{"id":"ex1","ptx":"szext.clamp.s32 d, a, b;","in":{"a":"0x000000f0","b":"0x00000005"},"out":{"d":"0xfffffff0"}}\n');
  it("with ref, js or c alone is unused: a warning, the rows the same; with amdgpu it picks the rows, no warning", () => {
    for (const t of ["ref", "js", "c"]) {
      const r = cli(["check", "v.jsonl", "--target", t, "--mcpu", "gfx1100"], dir);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toBe(`ptx-lower: warning: --mcpu gfx1100 is unused: --target ${t} has no per-processor rows\n`);
      expect(r.out).toBe("1 passed, 0 failed\n");
    }
    const a = cli(["check", "v.jsonl", "--target", "amdgpu", "--mcpu", "gfx1100"], dir);
    expect(a.err).toBe("");
    expect(a.out).toBe("1 passed, 0 failed\n");
  });
});
