/**
 * Profile departures (src/check/departures.ts) and `port`'s report of them (issue 35 item 6):
 * which forms' meaning differs between `sm90` and `isa`, checked against what the notes
 * measured (../shared/notes/video-semantics.md §4.3, ptx-semantics.md §2.4), not against the
 * code's own conditions; each found departure is named (the semantics marks every place it
 * departs) and comes with an input on which the two profiles differ.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import "../src/compose.js";
import { profileDeparture } from "../src/check/departures.js";
import { formsOf } from "../src/ir/forms.js";
import type { VopForm, VshForm } from "../src/ir/forms.js";
import type { RoutineSpec } from "../src/ir/ir.js";
import { scalarSemantics } from "../src/check/scalar.js";
import { concrete, u } from "../src/sem/bv.js";
import type { ParsedModule } from "../src/ir/build.js";
import { portSource } from "../src/port/rewrite.js";
import { collectRoutines } from "../src/lower.js";

const v = { kind: "v" } as const;
const spec = (form: VopForm | VshForm): RoutineSpec => ({ form, kinds: { a: v, b: v, c: v }, guarded: false });
const ROOT = join(import.meta.dirname, "..");
const TSX = join(ROOT, "node_modules", "tsx", "dist", "esm", "index.mjs");

describe("profileDeparture", () => {
  it("vset: exactly the .h1 merges (D2) and the .min/.max with atype .s32 (V1) differ (video-semantics.md §4.3), one form in 7", () => {
    let k = 0;
    let found = 0;
    for (const f of formsOf("vop") as Iterable<VopForm>) {
      if (f.op !== "vset" || k++ % 7 !== 0) continue;
      const d = profileDeparture(spec(f));
      const h1 = f.tail.kind === "merge" && f.tail.dsel === "h1";
      const v1 = f.tail.kind === "op2" && f.tail.op2 !== "add" && f.atype === "s32";
      expect(d !== null, f.op + JSON.stringify(f)).toBe(h1 || v1);
      if (d) {
        found++;
        expect(d.ids).toEqual(h1 ? ["D2"] : ["V1"]);
      }
    }
    expect(found).toBeGreaterThan(100);
  });

  it("every departure found is named, and its example differs; vadd…vmax and the shifts, one form in 23", () => {
    const seen = new Set<string>();
    let k = 0;
    for (const f of [...(formsOf("vop") as Iterable<VopForm>), ...(formsOf("video") as Iterable<VshForm>)]) {
      if (k++ % 23 !== 0) continue;
      const d = profileDeparture(spec(f));
      if (!d) continue;
      expect(d.ids.length, d.form).toBeGreaterThan(0);
      for (const id of d.ids) seen.add(id);
      const x = { a: d.example.inputs.a ?? 0n, b: d.example.inputs.b ?? 0n, c: d.example.inputs.c ?? 0n };
      const at = (p: "isa" | "sm90") => scalarSemantics(concrete, f, p, u(x.a), u(x.b), u(x.c)).value.x;
      expect([at("isa"), at("sm90")]).toEqual([d.example.isa, d.example.sm90]);
      expect(d.example.isa).not.toBe(d.example.sm90);
    }
    // Every departure of the notes appears (D1 D2 D3 A1 for the shifts; S1 S2 S3 A1 for vadd…vmax; V1 for vset).
    expect([...seen].sort()).toEqual(["A1", "D1", "D2", "D3", "S1", "S2", "S3", "V1"]);
  });

  it("the notes' examples: .h1 merge (D2), .sat with a dsel (S1), .sat dtype .u32 (S2), vadd .max (S3), vmin .u32 .min (A1)", () => {
    const f = (o: Partial<VopForm>): VopForm => ({ op: "vadd", cmp: null, dtype: "u32", atype: "u32", btype: "u32", sat: false, asel: null, bsel: null, tail: { kind: "none" }, ...o });
    const ids = (g: VopForm) => profileDeparture(spec(g))?.ids ?? [];
    expect(ids(f({ tail: { kind: "merge", dsel: "h1" } }))).toEqual(["D2"]);
    expect(ids(f({ op: "vsub", sat: true, tail: { kind: "merge", dsel: "b0" } }))).toEqual(["S1"]);
    expect(ids(f({ sat: true }))).toEqual(["S2"]);
    expect(ids(f({ dtype: "s32", atype: "s32", btype: "s32", tail: { kind: "op2", op2: "max" } }))).toEqual(["S3"]);
    expect(ids(f({ op: "vmin", btype: "s32", atype: "s32", tail: { kind: "op2", op2: "min" } }))).toEqual(["A1"]);
    // No departure: the plain forms, .add, and what is not profile-sensitive.
    expect(profileDeparture(spec(f({ tail: { kind: "op2", op2: "add" } })))).toBeNull();
    expect(profileDeparture(spec(f({ op: "vmin", sat: true })))).toBeNull(); // S2 is taken, but a vmin of u32 words never leaves [0, 2^32)
    expect(profileDeparture({ form: { op: "szext", mode: "clamp", type: "s32" }, kinds: { a: v, b: v }, guarded: false })).toBeNull();
  });
});

describe("port reports the statements whose meaning depends on the profile", () => {
  const src = [
    "__device__ unsigned h1(unsigned a, unsigned b, unsigned c) { unsigned d; asm(\"vadd.u32.u32.u32 %0.h1, %1, %2, %3;\" : \"=r\"(d) : \"r\"(a), \"r\"(b), \"r\"(c)); return d; }",
    "__device__ unsigned add3(unsigned a, unsigned b, unsigned c) { unsigned d; asm(\"vadd.u32.u32.u32.add %0, %1, %2, %3;\" : \"=r\"(d) : \"r\"(a), \"r\"(b), \"r\"(c)); return d; }",
    "",
  ].join("\n");
  const names = async (mod: ParsedModule) => `/* ${collectRoutines(mod).length} routines */\n`;

  it("portSource: the .h1 merge names D2 with an input that shows it; the three-input add names nothing", async () => {
    const r = await portSource(src, "p.cu", { header: names, headerName: "p.hip.h" });
    expect(r.statements.map((s) => s.status)).toEqual(["rewritten", "rewritten"]);
    const [h1, add3] = r.statements;
    expect(h1!.departures.map((d) => [d.form, d.ids])).toEqual([["vadd.u32.u32.u32 d.h1, a, b, c", ["D2"]]]);
    expect(add3!.departures).toEqual([]);
  });

  it("the CLI's table and --json say it, with the profile the rewrite follows", () => {
    const d = mkdtempSync(join(tmpdir(), "ptxl-dep-"));
    try {
      writeFileSync(join(d, "p.cu"), src);
      const run = (...args: string[]) => spawnSync(process.execPath, ["--import", TSX, join(ROOT, "bin", "ptx-lower.ts"), "port", join(d, "p.cu"), ...args], { encoding: "utf8", cwd: ROOT });
      // One file and no -o: the ported text on stdout, the table on stderr.
      const table = run();
      expect(table.status, table.stderr).toBe(0);
      expect(table.stderr).toContain("vadd.u32.u32.u32 d.h1, a, b, c [sm90 departs: D2]");
      expect(table.stderr).toMatch(/p\.cu:1:\d+: note: vadd\.u32\.u32\.u32 d\.h1, a, b, c: sm90 departs from the ISA here \(D2; a=0x[0-9a-f]{8} b=0x[0-9a-f]{8} c=0x[0-9a-f]{8}: isa 0x[0-9a-f]{8}, sm90 0x[0-9a-f]{8}\); rewritten as sm90\n/);
      expect(table.stderr).not.toContain("vadd.u32.u32.u32.add d, a, b, c [sm90");
      const isa = run("--semantics", "isa");
      expect(isa.stderr).toContain("rewritten as isa");
      const json = run("--json");
      const doc = JSON.parse(json.stdout) as { files: { statements: { departures: { ids: string[]; example: { isa: string; sm90: string } }[] }[] }[] };
      const [s1, s2] = doc.files[0]!.statements;
      expect(s1!.departures.map((x) => x.ids)).toEqual([["D2"]]);
      expect(s1!.departures[0]!.example.isa).not.toBe(s1!.departures[0]!.example.sm90);
      expect(s2!.departures).toEqual([]);
    } finally {
      rmSync(d, { recursive: true, force: true });
    }
  });
});
