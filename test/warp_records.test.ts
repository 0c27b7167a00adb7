/**
 * The warp family's machine level (issue 15 item 3): the new AMDGPU records (`ds_bpermute_b32`,
 * `ds_permute_b32`, DPP, `v_writelane_b32`, `v_permlane16/x16_b32`, `s_bcnt1_i32_*`), their
 * modifier syntax (parsed and printed as llvm-mc-19 does), the interpreter's LDS wait model
 * (a DS result read before an `s_waitcnt` lgkmcnt covers it is refuted, one outstanding at
 * exit breaks the contract; the same model in the prover's path executor) and the hazard
 * roles of the new records, checked against LLVM's hazard recognizer and si-insert-waitcnts.
 *
 * Expected values are stated here from the manuals' text (lane maps written out per case),
 * not computed by the records. The llvm-mc/llc parts skip, saying why, when the tools are absent.
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { concrete, u } from "../src/sem/bv.js";
import type { CV } from "../src/sem/bv.js";
import { parseAsm, recorded } from "../targets/amdgpu/asm.js";
import type { AsmLine } from "../targets/amdgpu/asm.js";
import { LLVM_ENTRY, checkHazards, hazardTarget } from "../targets/amdgpu/hazards.js";
import { InterpError, LdsWaitError, outstandingDs, run } from "../targets/amdgpu/interp.js";
import type { WaveState } from "../targets/amdgpu/interp.js";
import { RECORDS, record } from "../targets/amdgpu/isa/index.js";
import type { Mnemonic } from "../targets/amdgpu/isa/index.js";
import { lgkmcntField, waitcntSimm16 } from "../targets/amdgpu/isa/sopp.js";
import { operandText } from "../targets/amdgpu/isa/syntax.js";
import type { MInst, MLine, MOp } from "../targets/amdgpu/minst.js";
import { imm, printOp, s, v } from "../targets/amdgpu/minst.js";
import { mirToolsAvailable, runSequence } from "../targets/amdgpu/mir.js";
import { execPaths } from "../targets/amdgpu/prove/paths.js";
import { TARGETS } from "../targets/amdgpu/regs.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import { contractBads } from "../targets/amdgpu/contract.js";
import { loadZ3, solve } from "../src/check/smt.js";
import type { BitVec, Bool } from "../src/check/smt.js";

const haveMc = spawnSync("llvm-mc-19", ["--version"]).status === 0;
if (!haveMc) console.log("warp_records: llvm-mc-19 parts skipped, llvm-mc-19 is not installed");
const mir = mirToolsAvailable();
if (!mir.ok) console.log(`warp_records: LLVM oracle parts skipped, ${mir.reason}`);

const I = (op: Mnemonic, ops: MOp[], enc?: "e32" | "e64"): MInst => ({ op, ops, ...(enc ? { enc } : {}), rule: "test" });
const lines = (text: string, gen: 9 | 10 | 11): MLine[] => {
  const r = recorded(parseAsm(text, { gen }));
  if ("missing" in r) throw new Error(`no record for ${r.missing.join(", ")}`);
  return r.lines;
};

/** A wave whose VGPR n holds `vals[n](lane)`, exec `exec`, SGPRs `sg`. */
function wave(W: 32 | 64, gen: 9 | 10 | 11, exec: bigint, vals: Record<number, (l: number) => bigint>, sg: Record<number, bigint> = {}): WaveState<CV, boolean> {
  const st: WaveState<CV, boolean> = { wave: W, gen, vgpr: new Map(), sgpr: new Map(), vcc: u(0, W), exec: u(exec, W), scc: false };
  for (let n = 0; n < 12; n++) st.vgpr.set(n, Array.from({ length: W }, (_, l) => u(vals[n] ? vals[n]!(l) : 0xdead0000n + BigInt(n * 64 + l))));
  for (let n = 0; n < 8; n++) st.sgpr.set(n, u(sg[n] ?? 0x5ca1ab1en + BigInt(n)));
  return st;
}
const lanesOf = (st: WaveState<CV, boolean>, n: number) => st.vgpr.get(n)!.map((x) => x.x);
const ALL = (W: number) => (1n << BigInt(W)) - 1n;
const bit = (x: bigint, i: number) => ((x >> BigInt(i)) & 1n) === 1n;
const data = (l: number) => 0x1000n + BigInt(l) * 3n;
const old = (l: number) => 0xa0000n + BigInt(l);

describe("records exist with their roles", () => {
  it("has the new records, with the hazard roles the rules key on", () => {
    for (const m of ["ds_bpermute_b32", "ds_permute_b32", "v_writelane_b32", "v_permlane16_b32", "v_permlanex16_b32", "v_mov_b32_dpp", "v_add_u32_dpp", "v_add_nc_u32_dpp", "v_max_u32_dpp", "v_min_i32_dpp", "s_bcnt1_i32_b32", "s_bcnt1_i32_b64"])
      expect(RECORDS.has(m as Mnemonic), m).toBe(true);
    expect(record("ds_bpermute_b32").enc).toBe("DS");
    expect(record("v_writelane_b32").hazard).toMatchObject({ laneSelect: 2, rwLane: true });
    expect(record("v_mov_b32_dpp").hazard).toMatchObject({ dpp: true });
    expect(record("v_mov_b32_dpp").ops[0]).toMatchObject({ out: true, tied: true });
    expect(record("v_permlane16_b32").only).toEqual([10, 11]);
  });
});

describe("modifier syntax", () => {
  it("parses DS offset, DPP controls and masks, the bound-control bit per generation, fi and op_sel", () => {
    const [ds, dsNoOff] = parseAsm("ds_bpermute_b32 v1, v2, v3 offset:8\nds_bpermute_b32 v1, v2, v3", { gen: 9 }) as MInst<string>[];
    expect(ds!.ops.map(printOp)).toEqual(["v1", "v2", "v3", "8"]);
    expect(dsNoOff!.ops.map(printOp)).toEqual(["v1", "v2", "v3", "0"]);
    // quad_perm:[1,0,3,2] = 1 | 0<<2 | 3<<4 | 2<<6 = 0xb1; row_shr:1 = 0x111 (LLVM DppCtrl).
    const q = (t: string, gen: 9 | 10 | 11) => (parseAsm(t, { gen })[0] as MInst<string>).ops.slice(2).map((o) => (o as { value: bigint }).value);
    expect(q("v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", 9)).toEqual([0xb1n, 15n, 15n, 0n, 0n]);
    expect(q("v_mov_b32_dpp v1, v2 row_shr:1 row_mask:0xa bank_mask:0x3 bound_ctrl:1", 10)).toEqual([0x111n, 10n, 3n, 1n, 0n]);
    // bound_ctrl:0 is the bit SET on gfx9/gfx10 and CLEAR on gfx11 (llvm-mc-19 encodings, below).
    expect(q("v_mov_b32_dpp v1, v2 row_mirror row_mask:0xf bank_mask:0xf bound_ctrl:0", 9)[3]).toBe(1n);
    expect(q("v_mov_b32_dpp v1, v2 row_mirror row_mask:0xf bank_mask:0xf bound_ctrl:0", 10)[3]).toBe(1n);
    expect(q("v_mov_b32_dpp v1, v2 row_mirror row_mask:0xf bank_mask:0xf bound_ctrl:0", 11)[3]).toBe(0n);
    expect(() => parseAsm("v_mov_b32_dpp v1, v2 row_mirror bound_ctrl:0")).toThrow(/generation is needed/);
    expect(q("v_mov_b32_dpp v1, v2 row_xmask:5 row_mask:0xf bank_mask:0xf fi:1", 11)).toEqual([0x165n, 15n, 15n, 0n, 1n]);
    expect(q("v_mov_b32_dpp v1, v2 row_bcast:15 row_mask:0xa bank_mask:0xf", 9)[0]).toBe(0x142n);
    expect(q("v_mov_b32_dpp v1, v2 wave_ror:1 row_mask:0xf bank_mask:0xf", 9)[0]).toBe(0x13cn);
    expect(() => parseAsm("v_mov_b32_dpp v1, v2 row_bcast:15 row_mask:0xa bank_mask:0xf", { gen: 10 })).toThrow(/does not exist on gfx10/);
    expect(() => parseAsm("v_mov_b32_dpp v1, v2 row_share:3 row_mask:0xf bank_mask:0xf", { gen: 9 })).toThrow(/does not exist on gfx9/);
    expect(() => parseAsm("v_mov_b32_dpp v1, v2 quad_perm:[0,0,0,0] fi:1", { gen: 9 })).toThrow(/fi:1.*gfx9/);
    expect(() => parseAsm("v_mov_b32_dpp v1, v2 row_mask:0xf", { gen: 9 })).toThrow(/without a DPP control/);
    const [pl] = parseAsm("v_permlane16_b32 v1, v2, s3, s4 op_sel:[1,0]", { gen: 10 }) as MInst<string>[];
    expect(pl!.ops.map(printOp)).toEqual(["v1", "v2", "s3", "s4", "1", "0"]);
    expect(() => parseAsm("v_mov_b32_sdwa v1, v2 dst_sel:WORD_1", { gen: 9 })).toThrow(/SDWA/);
  });

  it("reads s_waitcnt's counters per generation (the lgkmcnt field measured with llvm-mc-19)", () => {
    const w = (t: string, gen: 9 | 10 | 11) => (parseAsm(t, { gen })[0] as MInst<string>).ops[0];
    // llvm-mc-19 -show-encoding (little-endian SIMM16 = bytes 0..1).
    expect(w("s_waitcnt lgkmcnt(0)", 9)).toEqual(imm(0xc07f));
    expect(w("s_waitcnt lgkmcnt(1)", 9)).toEqual(imm(0xc17f));
    expect(w("s_waitcnt vmcnt(0)", 9)).toEqual(imm(0x0f70));
    expect(w("s_waitcnt lgkmcnt(1)", 10)).toEqual(imm(0xc17f));
    expect(w("s_waitcnt vmcnt(0)", 10)).toEqual(imm(0x3f70));
    expect(w("s_waitcnt lgkmcnt(0)", 11)).toEqual(imm(0xfc07));
    expect(w("s_waitcnt lgkmcnt(1)", 11)).toEqual(imm(0xfc17));
    expect(w("s_waitcnt vmcnt(0)", 11)).toEqual(imm(0x03f7));
    expect(w("s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)", 11)).toEqual(imm(0));
    expect(w("s_waitcnt_vscnt null, 0x0", 10)).toEqual(imm(waitcntSimm16({}, 10)));
    expect(lgkmcntField(0xc17fn, 9)).toBe(1n);
    expect(lgkmcntField(0x3f70n, 10)).toBe(63n);
    expect(lgkmcntField(0xfc17n, 11)).toBe(1n);
    // Without a generation only a gen-independent reading is accepted.
    expect((parseAsm("s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)")[0] as MInst<string>).ops[0]).toEqual(imm(0));
    expect(() => parseAsm("s_waitcnt lgkmcnt(1)")).toThrow(/needs the processor generation/);
  });

  const SAMPLES: Record<Mcpu, string[]> = {
    gfx900: [
      "ds_bpermute_b32 v1, v2, v3 offset:8",
      "ds_permute_b32 v1, v2, v3",
      "v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:0",
      "v_add_u32_dpp v1, v2, v3 row_shr:1 row_mask:0xa bank_mask:0x3",
      "v_max_u32_dpp v1, v2, v3 row_bcast:15 row_mask:0xa bank_mask:0xf",
      "v_min_i32_dpp v1, v2, v3 wave_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1",
      "v_writelane_b32 v1, s2, 3",
      "s_bcnt1_i32_b64 s2, s[4:5]",
      "s_waitcnt lgkmcnt(1)",
    ],
    gfx90a: ["v_mov_b32_dpp v1, v2 row_half_mirror row_mask:0xf bank_mask:0xf"],
    gfx942: ["v_mov_b32_dpp v1, v2 row_ror:8 row_mask:0xf bank_mask:0xf", "ds_bpermute_b32 v1, v2, v3"],
    gfx1030: [
      "v_mov_b32_dpp v1, v2 row_xmask:3 row_mask:0xf bank_mask:0xf fi:1",
      "v_add_nc_u32_dpp v1, v2, v3 row_share:5 row_mask:0xf bank_mask:0xf bound_ctrl:0",
      "v_permlane16_b32 v1, v2, s3, s4 op_sel:[1,1]",
      "v_permlanex16_b32 v1, v2, s3, s4",
      "s_waitcnt lgkmcnt(0)",
    ],
    gfx1100: [
      "v_mov_b32_dpp v1, v2 row_mirror row_mask:0xf bank_mask:0xf bound_ctrl:0",
      "v_mov_b32_dpp v1, v2 row_mirror row_mask:0xf bank_mask:0xf bound_ctrl:1",
      "ds_bpermute_b32 v1, v2, v3 offset:4",
      "v_permlanex16_b32 v1, v2, s3, s4 op_sel:[0,1]",
      "s_waitcnt lgkmcnt(1)",
    ],
  };
  it.skipIf(!haveMc).each(Object.keys(SAMPLES) as Mcpu[])("prints what it parsed exactly as llvm-mc-19 prints it (%s)", (mcpu) => {
    const gen = TARGETS[mcpu].gen;
    const res = spawnSync("llvm-mc-19", ["-arch=amdgcn", `-mcpu=${mcpu}`, "-show-encoding"], { input: SAMPLES[mcpu].join("\n") + "\n", encoding: "utf8" });
    expect(res.stderr).toBe("");
    const canon = res.stdout
      .split("\n")
      .map((l) => l.replace(/;.*$/, "").trim())
      .filter((l) => l && !l.startsWith("."));
    expect(canon.length).toBe(SAMPLES[mcpu].length);
    for (const text of canon) {
      // llvm-mc's own spelling of every sample (s_waitcnt symbolic: compared by encoding below).
      const [l] = parseAsm(text, { gen }) as MInst<string>[];
      const mine = `${l!.op} ${operandText(record(l!.op as Mnemonic), l!.ops, printOp)}`;
      if (l!.op === "s_waitcnt") {
        const back = spawnSync("llvm-mc-19", ["-arch=amdgcn", `-mcpu=${mcpu}`, "-show-encoding"], { input: mine + "\n", encoding: "utf8" }).stdout;
        expect(back.replace(/^[\s\S]*?; encoding: /, ""), text).toBe(res.stdout.split("\n").find((x) => x.includes(text))!.replace(/^[\s\S]*?; encoding: /, "") + "\n");
      } else expect(mine).toBe(text);
    }
  });
});

describe("ds_bpermute_b32 / ds_permute_b32 semantics (RDNA3 §16.14 pseudocode; Vega/CDNA3: mod 64)", () => {
  const bperm = (gen: 9 | 10 | 11) => lines("ds_bpermute_b32 v2, v0, v1\ns_waitcnt lgkmcnt(0)", gen);
  it("gfx9 wave64: lane = (addr + offset)[7:2], so an index into the upper half is read there (mod 64, not 32)", () => {
    const exec = ALL(64) & ~(1n << 7n); // lane 7 off: it is a source for lane 6 and keeps its own v2
    // Lane l asks for lane l ^ 33 with junk in the high bits (byte address 4·j + 256·k).
    const st = wave(64, 9, exec, { 0: (l) => 4n * BigInt(l ^ 33) + 256n * BigInt(l % 5), 1: data, 2: old });
    expect(run(concrete, bperm(9), st).status).toBe("ok");
    const got = lanesOf(st, 2);
    for (let l = 0; l < 64; l++) {
      const src = l ^ 33;
      const want = !bit(exec, l) ? old(l) : bit(exec, src) ? data(src) : 0n;
      expect(got[l], `lane ${l}`).toBe(want);
    }
    expect(got[6 ^ 33]).toBe(data(6)); // lane 39 reads lane 6
    expect(got[7 ^ 33]).toBe(0n); // lane 38 reads the disabled lane 7: 0
  });
  it("gfx10+/gfx11 wave32: mod 32, with the offset added first", () => {
    for (const gen of [10, 11] as const) {
      const st = wave(32, gen, ALL(32), { 0: (l) => 4n * BigInt(l + 1) + 128n, 1: data, 2: old });
      run(concrete, lines("ds_bpermute_b32 v2, v0, v1 offset:8\ns_waitcnt lgkmcnt(0)", gen), st);
      // (4(l+1) + 128 + 8) / 4 = l + 35 → lane (l + 3) mod 32.
      expect(lanesOf(st, 2)).toEqual(Array.from({ length: 32 }, (_, l) => data((l + 3) % 32)));
    }
  });
  it("refuses what it does not model: gfx10+ wave64, and a run without the generation", () => {
    expect(() => run(concrete, bperm(10), wave(64, 10, ALL(64), { 0: () => 0n }))).toThrow(/gfx10\+ wave64 is not modelled/);
    const st = wave(32, 10, ALL(32), { 0: () => 0n });
    delete st.gen;
    expect(() => run(concrete, lines("ds_bpermute_b32 v2, v0, v1", 10), st)).toThrow(InterpError);
  });
  it("ds_permute_b32: forward, the highest source lane wins, unwritten lanes read 0", () => {
    // Every lane l sends to lane l >> 1 (so lane d gets from 2d and 2d+1: 2d+1 wins), lanes 16.. get nothing.
    const st = wave(32, 10, ALL(32), { 0: (l) => 4n * BigInt(l >> 1), 1: data, 2: old });
    run(concrete, lines("ds_permute_b32 v2, v0, v1\ns_waitcnt lgkmcnt(0)", 10), st);
    expect(lanesOf(st, 2)).toEqual(Array.from({ length: 32 }, (_, d) => (d < 16 ? data(2 * d + 1) : 0n)));
  });
});

describe("DPP semantics (AMDGPUModifierSyntax.rst DPP; Vega §6.2, RDNA3 §7.7)", () => {
  /** v_mov_b32_dpp v2, v1 <ctrl> on W lanes; returns v2. */
  const dpp = (W: 32 | 64, gen: 9 | 10 | 11, mods: string, exec = ALL(W)) => {
    const st = wave(W, gen, exec, { 1: data, 2: old });
    expect(run(concrete, lines(`v_mov_b32_dpp v2, v1 ${mods}`, gen), st).status).toBe("ok");
    return lanesOf(st, 2);
  };
  /** The expected v2 for a lane map (null = out of range): bound_ctrl 1 reads 0, 0 keeps the old value. */
  const expectMap = (W: number, src: (l: number) => number | null, bc: boolean, exec = ALL(W), enabled = (_l: number) => true) =>
    Array.from({ length: W }, (_, l) => {
      if (!bit(exec, l) || !enabled(l)) return old(l);
      const j = src(l);
      const ok = j !== null && bit(exec, j);
      return ok ? data(j!) : bc ? 0n : old(l);
    });
  const row = (l: number) => l & ~15;
  const CASES: [string, (l: number) => number | null][] = [
    ["quad_perm:[1,0,3,2]", (l) => l ^ 1],
    ["quad_perm:[3,3,3,3]", (l) => (l & ~3) + 3],
    ["row_shl:1", (l) => ((l & 15) + 1 < 16 ? l + 1 : null)],
    ["row_shr:3", (l) => ((l & 15) >= 3 ? l - 3 : null)],
    ["row_ror:8", (l) => row(l) + (((l & 15) + 8) & 15)],
    ["row_ror:1", (l) => row(l) + (((l & 15) + 15) & 15)],
    ["row_mirror", (l) => row(l) + 15 - (l & 15)],
    ["row_half_mirror", (l) => l ^ 7],
  ];
  for (const [ctrl, src] of CASES)
    it(`${ctrl} on every generation, bound_ctrl set and clear`, () => {
      for (const [W, gen] of [[64, 9], [32, 10], [32, 11]] as const) {
        expect(dpp(W, gen, `${ctrl} row_mask:0xf bank_mask:0xf bound_ctrl:1`), `${gen}`).toEqual(expectMap(W, src, true));
        expect(dpp(W, gen, `${ctrl} row_mask:0xf bank_mask:0xf`), `${gen}`).toEqual(expectMap(W, src, false));
      }
    });
  it("an inactive source lane is invalid (0 with bound_ctrl, old value without); fi:1 reads it anyway (gfx10+)", () => {
    const exec = ALL(32) & ~0x0000_0f0fn;
    const src = (l: number) => l ^ 1;
    expect(dpp(32, 10, "quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:1", exec)).toEqual(expectMap(32, src, true, exec));
    expect(dpp(32, 11, "quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf", exec)).toEqual(expectMap(32, src, false, exec));
    expect(dpp(32, 10, "quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf fi:1", exec)).toEqual(Array.from({ length: 32 }, (_, l) => (bit(exec, l) ? data(l ^ 1) : old(l))));
  });
  it("row_mask and bank_mask disable the write of whole rows / banks (bank = (lane mod 16) / 4)", () => {
    const got = dpp(64, 9, "quad_perm:[1,0,3,2] row_mask:0x5 bank_mask:0x9");
    expect(got).toEqual(expectMap(64, (l) => l ^ 1, false, ALL(64), (l) => [0, 2].includes(l >> 4) && [0, 3].includes((l & 15) >> 2)));
  });
  it("gfx9 wave shifts and broadcasts; gfx10+ row_share and row_xmask", () => {
    expect(dpp(64, 9, "wave_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1")).toEqual(expectMap(64, (l) => (l > 0 ? l - 1 : null), true));
    expect(dpp(64, 9, "wave_rol:1 row_mask:0xf bank_mask:0xf")).toEqual(expectMap(64, (l) => (l + 1) % 64, false));
    expect(dpp(64, 9, "row_bcast:15 row_mask:0xa bank_mask:0xf")).toEqual(expectMap(64, (l) => row(l) - 1, false, ALL(64), (l) => [1, 3].includes(l >> 4)));
    expect(dpp(64, 9, "row_bcast:31 row_mask:0xc bank_mask:0xf")).toEqual(expectMap(64, () => 31, false, ALL(64), (l) => l >= 32));
    expect(() => dpp(64, 9, "row_bcast:15 row_mask:0xf bank_mask:0xf")).toThrow(/row_bcast:15 names no source for row 0/);
    expect(dpp(32, 10, "row_share:5 row_mask:0xf bank_mask:0xf")).toEqual(expectMap(32, (l) => row(l) + 5, false));
    expect(dpp(32, 11, "row_xmask:6 row_mask:0xf bank_mask:0xf")).toEqual(expectMap(32, (l) => l ^ 6, false));
  });
  it("VOP2 DPP: src0 is fetched (0 when invalid with bound_ctrl), src1 is the lane's own", () => {
    const st = wave(32, 10, ALL(32), { 1: data, 3: (l) => BigInt(l) << 20n, 2: old });
    run(concrete, lines("v_add_nc_u32_dpp v2, v1, v3 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:1", 10), st);
    expect(lanesOf(st, 2)).toEqual(Array.from({ length: 32 }, (_, l) => ((l & 15) >= 1 ? data(l - 1) : 0n) + (BigInt(l) << 20n)));
    const m = wave(64, 9, ALL(64), { 1: (l) => BigInt(l % 7), 3: (l) => BigInt(l % 5), 2: old });
    run(concrete, lines("v_max_u32_dpp v2, v1, v3 row_mirror row_mask:0xf bank_mask:0xf", 9), m);
    expect(lanesOf(m, 2)).toEqual(Array.from({ length: 64 }, (_, l) => BigInt(Math.max((row(l) + 15 - (l & 15)) % 7, l % 5))));
  });
});

describe("v_writelane_b32, v_permlane16/x16_b32, s_bcnt1", () => {
  it("v_writelane_b32 writes lane S1[5:0] (wave32: [4:0]) whatever EXEC says; other lanes keep VDST", () => {
    const st = wave(64, 9, 0n, { 2: old }, { 2: 0xcafen, 3: 64n + 37n });
    run(concrete, lines("v_writelane_b32 v2, s2, s3", 9), st);
    expect(lanesOf(st, 2)).toEqual(Array.from({ length: 64 }, (_, l) => (l === 37 ? 0xcafen : old(l))));
    const w = wave(32, 11, ALL(32), { 2: old }, { 2: 7n, 3: 32n + 5n });
    run(concrete, lines("v_writelane_b32 v2, s2, s3", 11), w);
    expect(lanesOf(w, 2)).toEqual(Array.from({ length: 32 }, (_, l) => (l === 5 ? 7n : old(l))));
  });
  it("v_permlane16_b32 gathers within the row by {s2, s1} nibbles; x16 from the other row", () => {
    // Nibble k of {s2, s1} = (k * 5 + 3) mod 16.
    let sel = 0n;
    for (let k = 15; k >= 0; k--) sel = (sel << 4n) | BigInt((k * 5 + 3) % 16);
    const sg = { 3: sel & 0xffffffffn, 4: sel >> 32n };
    for (const [op, other] of [["v_permlane16_b32", 0], ["v_permlanex16_b32", 16]] as const) {
      const st = wave(32, 10, ALL(32), { 1: data, 2: old }, sg);
      run(concrete, lines(`${op} v2, v1, s3, s4`, 10), st);
      expect(lanesOf(st, 2), op).toEqual(Array.from({ length: 32 }, (_, l) => data(((l & 16) ^ other) + (((l & 15) * 5 + 3) % 16))));
    }
    // An inactive source lane: with fi (op_sel:[1,x]) its VGPR is read (the RDNA3 pseudocode and
    // LLVM's fi agree); with fi = 0 the two readings differ, and the interpreter refuses.
    const exec = ALL(32) & ~(1n << 3n); // lane 3 off; lane 0 reads nibble 0 = 3
    const r = (mods: string) => {
      const st = wave(32, 11, exec, { 1: data, 2: old }, sg);
      run(concrete, lines(`v_permlane16_b32 v2, v1, s3, s4${mods}`, 11), st);
      return lanesOf(st, 2);
    };
    expect(r(" op_sel:[1,0]")[0]).toBe(data(3));
    expect(r(" op_sel:[1,1]")[0]).toBe(data(3));
    expect(r(" op_sel:[1,0]")[3]).toBe(old(3)); // lane 3 itself is not written
    expect(() => r("")).toThrow(/fi = 0 reading lane 3 whose EXEC bit is 0/);
    expect(() => r(" op_sel:[0,1]")).toThrow(/differ there/);
  });
  it("s_bcnt1_i32_b32/b64 count the set bits; SCC = result != 0", () => {
    const st = wave(32, 10, ALL(32), {}, { 4: 0xf0f0_0001n, 5: 0x8000_0000n, 6: 0n });
    run(concrete, lines("s_bcnt1_i32_b64 s0, s[4:5]", 10), st);
    expect([st.sgpr.get(0)!.x, st.scc]).toEqual([10n, true]);
    run(concrete, lines("s_bcnt1_i32_b32 s1, s6", 10), st);
    expect([st.sgpr.get(1)!.x, st.scc]).toEqual([0n, false]);
  });
});

describe("the LDS wait model (interpreter, symbolic paths, contract)", () => {
  const seq = (gen: 9 | 10 | 11, text: string) => lines(text, gen);
  const W = (gen: 9 | 10 | 11) => (gen === 9 ? 64 : 32);
  for (const gen of [9, 10, 11] as const) {
    it(`gfx${gen}: a read before s_waitcnt lgkmcnt is refuted; lgkmcnt(0) covers it`, () => {
      const bad = seq(gen, "ds_bpermute_b32 v3, v0, v1\nv_add_u32_e32 v4, v3, v1".replace("v_add_u32", gen === 9 ? "v_add_u32" : "v_add_nc_u32"));
      expect(() => run(concrete, bad, wave(W(gen), gen, 1n, { 0: () => 0n }))).toThrow(LdsWaitError);
      expect(() => run(concrete, bad, wave(W(gen), gen, 1n, { 0: () => 0n }))).toThrow(/v3 read by v_add_(nc_)?u32_e32 v4, v3, v1 before s_waitcnt lgkmcnt covers ds_bpermute_b32 v3, v0, v1/);
      const good = seq(gen, `ds_bpermute_b32 v3, v0, v1\ns_waitcnt lgkmcnt(0)\n${gen === 9 ? "v_add_u32" : "v_add_nc_u32"}_e32 v4, v3, v1`);
      const st = wave(W(gen), gen, 1n, { 0: () => 0n });
      expect(run(concrete, good, st).status).toBe("ok");
      expect(outstandingDs(st)).toEqual([]);
    });
  }
  it("lgkmcnt(N) leaves the newest N outstanding (LDS returns in order); overwriting a pending register is refuted", () => {
    const two = "ds_bpermute_b32 v3, v0, v1\nds_bpermute_b32 v4, v0, v1\ns_waitcnt lgkmcnt(1)\n";
    expect(run(concrete, seq(10, two + "v_mov_b32_e32 v5, v3"), wave(32, 10, 1n, { 0: () => 0n })).status).toBe("ok");
    expect(() => run(concrete, seq(10, two + "v_mov_b32_e32 v5, v4"), wave(32, 10, 1n, { 0: () => 0n }))).toThrow(/v4 read .* covers ds_bpermute_b32 v4/);
    expect(() => run(concrete, seq(11, "ds_bpermute_b32 v3, v0, v1\nv_mov_b32_e32 v3, 0"), wave(32, 11, 1n, { 0: () => 0n }))).toThrow(/v3 overwritten by v_mov_b32_e32 v3, 0/);
    // A DS instruction reading a pending result is refuted too (its address or data).
    expect(() => run(concrete, seq(9, "ds_bpermute_b32 v3, v0, v1\nds_bpermute_b32 v4, v3, v1"), wave(64, 9, 1n, { 0: () => 0n }))).toThrow(LdsWaitError);
    // vmcnt(0) alone does not cover an LDS result.
    expect(() => run(concrete, seq(9, "ds_bpermute_b32 v3, v0, v1\ns_waitcnt vmcnt(0)\nv_mov_b32_e32 v5, v3"), wave(64, 9, 1n, { 0: () => 0n }))).toThrow(LdsWaitError);
  });
  it("a result outstanding at exit is a contract failure (contractBads, for the checker and the prover)", () => {
    const st = wave(32, 10, 1n, { 0: () => 0n });
    run(concrete, seq(10, "ds_bpermute_b32 v3, v0, v1"), st);
    expect(outstandingDs(st)).toEqual(["v3 from ds_bpermute_b32 v3, v0, v1, 0 is still outstanding at routine exit (no s_waitcnt lgkmcnt covers it)"]);
    const layout = { vScratch: 1, sScratch: 0 } as never;
    const bads = contractBads(concrete, { layout, vEnd: 12, sEnd: 8 }, st, st, () => true, "exec").map((b) => b.what);
    expect(bads).toContain(outstandingDs(st)[0]);
  });
  it("the prover's path executor carries the model across branches (one definition: interp.ts)", () => {
    // Both arms merge at .L1; the taken arm waits, the other does not: the read after the merge is refuted.
    const code = seq(10, "ds_bpermute_b32 v3, v0, v1\ns_cmp_eq_u32 s0, 0\ns_cbranch_scc1 .L1\ns_waitcnt lgkmcnt(0)\n.L1:\nv_mov_b32_e32 v5, v3");
    const st = wave(32, 10, 1n, { 0: () => 0n }, { 0: 0n });
    expect(() => execPaths(concrete, code, st, { maxBack: 0 })).toThrow(LdsWaitError);
    const ok = seq(10, "ds_bpermute_b32 v3, v0, v1\ns_cmp_eq_u32 s0, 0\ns_cbranch_scc1 .L1\n.L1:\ns_waitcnt lgkmcnt(0)\nv_mov_b32_e32 v5, v3");
    expect(execPaths(concrete, ok, wave(32, 10, 1n, { 0: () => 0n }, { 0: 1n }), { maxBack: 0 }).final).not.toBeNull();
  });
});

describe("the same records and wait model run symbolically (z3: the prover's algebra)", () => {
  it("a symbolic branch: the path without the wait is refuted at the merge; ds_bpermute's result is the manual's term", async () => {
    const env = await loadZ3();
    const bv = env.bv;
    const W = 64;
    const sym = (name: string): WaveState<BitVec, Bool> => {
      const st: WaveState<BitVec, Bool> = { wave: W, gen: 9, vgpr: new Map(), sgpr: new Map(), vcc: bv.sym("vcc", W), exec: bv.sym("exec", W), scc: bv.symB("scc") };
      for (let n = 0; n < 8; n++) st.vgpr.set(n, Array.from({ length: W }, (_, l) => bv.sym(`${name}v${n}.${l}`, 32)));
      for (let n = 0; n < 4; n++) st.sgpr.set(n, bv.sym(`${name}s${n}`, 32));
      return st;
    };
    const branchy = lines("ds_bpermute_b32 v3, v0, v1\ns_cmp_eq_u32 s0, 0\ns_cbranch_scc1 .L1\ns_waitcnt lgkmcnt(0)\n.L1:\nv_mov_b32_e32 v5, v3", 9);
    expect(() => execPaths(bv, branchy, sym("a"), { maxBack: 0 })).toThrow(LdsWaitError);
    const st = sym("b");
    // Lane l asks for lane l ^ 33 (4·(l ^ 33) in v0); exec, v1 (data) and v3 (old) symbolic.
    st.vgpr.set(0, Array.from({ length: W }, (_, l) => bv.k(4 * (l ^ 33), 32)));
    const v1 = st.vgpr.get(1)!;
    const v3 = st.vgpr.get(3)!;
    const exec = st.exec;
    const res = execPaths(bv, lines("ds_bpermute_b32 v3, v0, v1\ns_waitcnt lgkmcnt(0)", 9), st, { maxBack: 0 });
    for (const l of [0, 6, 38, 63]) {
      const src = l ^ 33;
      const want = bv.ite(bv.bitAt(exec, l), bv.ite(bv.bitAt(exec, src), v1[src]!, bv.k(0, 32)), v3[l]!);
      const r = await solve(env, [bv.notB(bv.eq(res.final!.vgpr.get(3)![l]!, want))], 20_000);
      expect(r.status, `lane ${l}`).toBe("unsat");
    }
  }, 60_000);
});

describe("hazard roles of the new records (checkHazards) and LLVM's recognizer", () => {
  const V = (n: number) => v(n);
  const valuAdd = (gen: 9 | 10 | 11, d: number): MInst => I(gen === 9 ? "v_add_u32" : "v_add_nc_u32", [V(d), V(0), V(0)], "e32");
  const dppMov = (src: number): MInst => I("v_mov_b32_dpp", [V(6), V(src), imm(0xb1), imm(15), imm(15), imm(1), imm(0)]);
  const writelane = (sel: MOp): MInst => I("v_writelane_b32", [V(6), imm(7), sel]);
  const viol = (mcpu: Mcpu, code: MLine[]) => checkHazards(code, hazardTarget(TARGETS[mcpu]), LLVM_ENTRY).map((h) => h.rule);

  const seqs: { name: string; mcpu: Mcpu; code: (gen: 9 | 10 | 11) => MLine[]; llvm: string[]; rules: string[] }[] = [
    { name: "VALU writes v1 → DPP reads v1", mcpu: "gfx900", code: (g) => [valuAdd(g, 1), dppMov(1)], llvm: ["S_NOP 1"], rules: ["dpp-reads-vgpr"] },
    { name: "VALU writes v1 → DPP reads v1", mcpu: "gfx942", code: (g) => [valuAdd(g, 1), dppMov(1)], llvm: ["S_NOP 1"], rules: ["dpp-reads-vgpr"] },
    { name: "VALU writes v1 → DPP reads v1", mcpu: "gfx1030", code: (g) => [valuAdd(g, 1), dppMov(1)], llvm: [], rules: [] },
    { name: "v_readfirstlane_b32 s4 → v_writelane_b32 lane select s4", mcpu: "gfx90a", code: () => [I("v_readfirstlane_b32", [s(4), V(0)]), writelane(s(4))], llvm: ["S_NOP 3"], rules: ["lane-select-after-valu-sgpr"] },
    { name: "v_readfirstlane_b32 s4 → v_writelane_b32 lane select s4", mcpu: "gfx1100", code: () => [I("v_readfirstlane_b32", [s(4), V(0)]), writelane(s(4))], llvm: [], rules: [] },
    ...(["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100"] as Mcpu[]).map((mcpu) => ({
      name: "VALU writes v1 → ds_bpermute_b32 reads it as the address",
      mcpu,
      code: (g: 9 | 10 | 11) => [valuAdd(g, 1), I("ds_bpermute_b32", [V(3), V(1), V(2), imm(0)]), I("s_waitcnt", [imm(waitcntSimm16({ lgkmcnt: 0 }, g))])],
      llvm: [] as string[],
      rules: [] as string[],
    })),
    // The gfx9 v_cmpx form (it writes vcc too) has no record (llc uses s_and_saveexec); the
    // hazard view only needs the GFX10+ record's implicit EXEC def, and llvm-mc reads the text.
    { name: "v_cmpx (VALU writes EXEC) → v_writelane_b32 (gfx940 rwLane)", mcpu: "gfx942", code: () => [I("v_cmpx_eq_u32", [{ k: "vcc" }, imm(0), V(0)], "e32"), writelane(imm(3))], llvm: ["S_NOP 3"], rules: ["rwlane-after-valu-exec"] },
  ];
  it("flags each violated rule on the processors it applies to", () => {
    for (const x of seqs) {
      const g = TARGETS[x.mcpu].gen;
      const vs = viol(x.mcpu, x.code(g));
      expect(vs, `${x.name} on ${x.mcpu}`).toEqual(x.rules);
    }
  });
  it.skipIf(!mir.ok).each(seqs.map((x) => [x.name, x.mcpu, x] as const))("%s on %s: LLVM's post-RA-hazard-rec agrees", async (_n, mcpu, x) => {
    const ins = await runSequence(TARGETS[mcpu], x.code(TARGETS[mcpu].gen));
    expect(ins.map((i) => i.text)).toEqual(x.llvm);
  });
  // Producer → new-record consumer (and DPP → VALU) pairs on every processor: our rules flag a pair
  // exactly when LLVM's recognizer pads it, with the same wait states (S_NOP N = N + 1).
  const matrix = (mcpu: Mcpu): [string, MLine[]][] => {
    const g = TARGETS[mcpu].gen;
    const pairs: [string, MLine[]][] = [
      ["SALU writes exec → ds_bpermute_b32", [g === 9 ? I("s_mov_b64", [{ k: "exec" }, s(4, 2)]) : I("s_mov_b32", [{ k: "exec_lo" }, s(4)]), I("ds_bpermute_b32", [V(6), V(1), V(2), imm(0)])]],
      ["v_readfirstlane_b32 s2 → v_writelane_b32 value s2", [I("v_readfirstlane_b32", [s(2), V(0)]), I("v_writelane_b32", [V(6), s(2), imm(3)])]],
      ["VALU writes v2 → ds_bpermute_b32 data v2", [valuAdd(g, 2), I("ds_bpermute_b32", [V(6), V(1), V(2), imm(0)])]],
      ["VALU writes v6 → DPP's tied old v6", [valuAdd(g, 6), dppMov(1)]],
      ["VALU writes v6 → v_writelane_b32's tied v6", [valuAdd(g, 6), I("v_writelane_b32", [V(6), imm(7), imm(3)])]],
      ["DPP writes v6 → VALU reads v6", [dppMov(1), I(g === 9 ? "v_add_u32" : "v_add_nc_u32", [V(2), V(6), V(6)], "e32")]],
    ];
    if (g !== 9)
      pairs.push(
        ["v_readfirstlane_b32 s2 → v_permlane16_b32 select s2", [I("v_readfirstlane_b32", [s(2), V(0)]), I("v_permlane16_b32", [V(6), V(1), s(2), s(3), imm(1), imm(0)])]],
        ["VALU writes v1 → v_permlanex16_b32 reads v1", [valuAdd(g, 1), I("v_permlanex16_b32", [V(6), V(1), s(2), s(3), imm(1), imm(0)])]],
      );
    return pairs;
  };
  it.skipIf(!mir.ok).each(["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100"] as Mcpu[])("%s: our rules and LLVM's recognizer agree on every new-record pair", async (mcpu) => {
    for (const [name, code] of matrix(mcpu)) {
      const ins = (await runSequence(TARGETS[mcpu], code)).map((i) => i.text);
      const ours = checkHazards(code, hazardTarget(TARGETS[mcpu]), LLVM_ENTRY);
      const llvmStates = ins.map((t) => /^S_NOP (\d+)$/.exec(t)).reduce((n, m) => Math.max(n, m ? Number(m[1]) + 1 : 99), 0);
      const ourStates = ours.reduce((n, h) => Math.max(n, h.needed - h.have), 0);
      expect([name, ourStates], mcpu).toEqual([name, llvmStates]);
    }
  });
  it.skipIf(!mir.ok).each(["gfx900", "gfx942", "gfx1030", "gfx1100"] as Mcpu[])("%s: si-insert-waitcnts needs a wait exactly where the LDS model refutes", async (mcpu) => {
    const gen = TARGETS[mcpu].gen;
    const read = I("v_mov_b32", [V(5), V(3)], "e32");
    const bp = I("ds_bpermute_b32", [V(3), V(0), V(1), imm(0)]);
    const wait = I("s_waitcnt", [imm(waitcntSimm16({ lgkmcnt: 0 }, gen))]);
    const cases: [MLine[], boolean][] = [
      [[bp, read], true],
      [[bp, wait, read], false],
      [[bp, I("v_mov_b32", [V(5), V(1)], "e32")], false],
    ];
    for (const [code, refuted] of cases) {
      const ins = await runSequence(TARGETS[mcpu], code, "si-insert-waitcnts");
      const st = wave(TARGETS[mcpu].wave, gen, 1n, { 0: () => 0n });
      let ours = false;
      try {
        run(concrete, code, st);
      } catch (e) {
        if (!(e instanceof LdsWaitError)) throw e;
        ours = true;
      }
      expect(ours, code.map((l) => ("op" in l ? l.op : "")).join(";")).toBe(refuted);
      expect(ins.some((i) => /^S_WAITCNT/.test(i.text)), mcpu).toBe(refuted);
    }
  });
});

void ({} as AsmLine);
