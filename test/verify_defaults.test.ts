// `verify FILE` with no options (issue 37 item 4): every row on at least 1,000 inputs per scalar
// routine where its immediates leave that many (edge cases included), and 200 random warps per
// warp routine on every row (hip/llvm: each in both argument layouts, so 400 compared on wave32);
// --warps and --thorough ask for more.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import "../src/compose.js";
import { scalarCasesAtLeast } from "../src/check/verify.js";

const ROOT = join(import.meta.dirname, "..");
const C09 = join(ROOT, "..", "shared", "ptx", "c09_szext_forms.sm_90.ptx");
const C01 = join(ROOT, "..", "shared", "ptx", "c01_match_any_b32.sm_90.ptx");
const clang = spawnSync("clang-19", ["--version"]).status === 0;

/** `verify ARGS --json`'s rows as (kinds, compared count). */
function rows(args: string[]): { form: string; kinds: string; n: number }[] {
  const r = spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bin", "ptx-lower.ts"), "verify", ...args, "--json"], { cwd: ROOT, encoding: "utf8", maxBuffer: 1 << 26 });
  expect(r.status, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { rows: { form: string; kinds: string; verdict: { status: string; n: number } }[] }).rows.map((x) => {
    expect(x.verdict.status).toBe("tested");
    return { form: x.form, kinds: x.kinds, n: x.verdict.n };
  });
}

describe("verify's defaults", () => {
  it("random 0 asks for the edge cases alone, and gets them (0 doubled is 0: it looped for ever, hanging report --check random 0)", () => {
    const spec = { form: { op: "szext", mode: "clamp", type: "s32" }, kinds: { a: { kind: "imm", value: 5n }, b: { kind: "v" } }, guarded: false } as const;
    const edge = scalarCasesAtLeast(spec as never, 1, 0);
    expect(edge.length).toBeGreaterThan(0);
    expect(edge.length).toBeLessThan(1000);
    expect(scalarCasesAtLeast(spec as never, 1, 400).length).toBeGreaterThanOrEqual(1000);
  });

  it("a scalar routine gets at least 1,000 inputs where its immediates leave room (one where every source is an immediate)", () => {
    const rs = rows([C09, "--target", "js"]);
    expect(rs.length).toBeGreaterThan(0);
    for (const r of rs) {
      if (r.kinds === "a:imm 0xffffffff b:imm 0") expect(r.n).toBe(1);
      else expect(r.n, `${r.form} ${r.kinds}`).toBeGreaterThanOrEqual(1000);
    }
    // a:imm 5 leaves b's 2^32 values: the random cases grow past 1,000 (400 gave 335 distinct inputs).
    expect(rs.some((r) => r.kinds === "a:imm 5 b:v")).toBe(true);
  }, 60_000);

  it("a warp routine gets 200 random warps by default, and what --warps asks", () => {
    for (const r of rows([C01, "--target", "js"])) expect(r.n, `${r.form} ${r.kinds}`).toBe(200);
    for (const r of rows([C01, "--target", "js", "--warps", "300"])) expect(r.n, `${r.form} ${r.kinds}`).toBe(300);
  }, 60_000);

  it.skipIf(!clang)("the hip rows run the same 200 warps in both argument layouts (wave32: 400 compared)", () => {
    for (const r of rows([C01, "--target", "hip", "--mcpu", "gfx1030"])) expect(r.n, `${r.form} ${r.kinds}`).toBe(400);
  }, 60_000);
});
