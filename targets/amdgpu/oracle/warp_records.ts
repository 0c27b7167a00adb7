/**
 * @fileoverview The warp family's new records (issue 15 item 3) against LLVM 19: small IR
 * functions using `llvm.amdgcn.ds.bpermute`, `ds.permute`, `update.dpp` (alone, and combined
 * with add/umax/umin/smax/smin, which llc folds into `v_add_u32_dpp`, `v_max_u32_dpp`,
 * `v_max_i32_dpp` …), `permlane16`/`permlanex16` and `writelane`, each with its meaning stated
 * HERE — lane maps written out from the AMD manuals (AMD Vega ISA ch. 12 DS_BPERMUTE_B32, DPP
 * §6.2; RDNA3 ISA ch. 16 DS_BPERMUTE_B32, DPP §7.7, V_PERMLANE16_B32 §16.10) and LLVM's
 * AMDGPUUsage / AMDGPUModifierSyntax text, not computed by the project's records. llc-19
 * compiles them for every processor and ./llvm.ts `crosscheckSequences` runs llc's code in
 * targets/amdgpu/interp.ts (with the LDS wait model: llc's own `s_waitcnt lgkmcnt` must cover
 * every `ds_bpermute_b32` result) and compares lane by lane.
 *
 * Used by `npm run crosscheck:llvm` (scripts/crosscheck-llvm.ts, all of them) and by
 * test/warp_records_llvm.test.ts (per record group, seeded).
 */
import type { Rng } from "../../../src/check/random.js";
import type { IrFunc } from "../../llvm/ir.js";
import type { SeqFunction, WaveMeaning } from "./llvm.js";

const bit = (x: bigint, i: number) => ((x >> BigInt(i)) & 1n) === 1n;
const rnd32 = (rng: Rng) => (rng.chance(0.2) ? BigInt(rng.below(16)) : rng.bits(32));
/** exec: all lanes, or a random mask with holes (never empty). */
const execOf = (rng: Rng, W: number) => (rng.chance(0.3) ? (1n << BigInt(W)) - 1n : rng.bits(W) | (1n << BigInt(rng.below(W))));

const fn = (name: string, args: IrFunc["args"], body: string, decls: string[]): IrFunc => ({
  name,
  args,
  results: [32],
  text: `define i32 @${name}(${args.map((a) => `i32${a.inreg ? " inreg" : ""} %${a.name}`).join(", ")}) {\n${body}\n}\n`,
  decls,
});
/** `only`: 32 = wave32 only (the gfx10+ forms), 9 = gfx9 only (whose waves are 64 lanes; gfx10+ in wave64 lacks its DPP wave controls). */
const seqFn = (f: IrFunc, label: string, wave: WaveMeaning, only?: 32 | 9): SeqFunction => ({
  cls: "xlane",
  fn: f,
  label,
  variant: "ir",
  meaning: { wave },
  ...(only === 32 ? { wave: 32 as const } : only === 9 ? { gens: [9] as const } : {}),
});

// ---------------------------------------------------------------------------------------
// ds.bpermute: lane l reads a of lane (addr / 4) mod 64 on gfx9 (CDNA/Vega: 64 lanes), mod 32
// on gfx10+ ("MOD 32 regardless of wave size", RDNA3 DS_BPERMUTE_B32); a disabled source
// lane gives 0 ("EXEC is applied to the source VGPR reads"). `k` picks the pattern.

function bpermute(k: "xor1" | "xor33" | "junk" | "offset8"): SeqFunction {
  const body =
    k === "offset8"
      ? "  %p = add i32 %addr, 8\n  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %p, i32 %a)\n  ret i32 %r"
      : "  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %addr, i32 %a)\n  ret i32 %r";
  const f = fn(`bperm_${k}`, [{ name: "a", width: 32 }, { name: "addr", width: 32 }], body, ["declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)"]);
  return seqFn(f, `llvm.amdgcn.ds.bpermute (${k})`, {
    inputs: (rng, W) => ({
      perLane: Array.from({ length: W }, (_, l) => {
        const src = k === "xor1" ? l ^ 1 : k === "xor33" ? l ^ 33 : rng.below(64);
        // `junk`: random high bits above the lane field too (bits 8+ are ignored).
        const hi = k === "junk" ? BigInt(rng.below(1 << 20)) << 8n : 0n;
        return [rnd32(rng), BigInt(4 * src) + hi];
      }),
      exec: execOf(rng, W),
    }),
    expect: (perLane, exec, W, gen) =>
      perLane.map((args) => {
        const addr = BigInt.asUintN(32, args[1]! + (k === "offset8" ? 8n : 0n));
        const src = Number((addr >> 2n) % (gen === 9 ? 64n : 32n));
        if (src >= W) return undefined;
        return [bit(exec, src) ? perLane[src]![0]! : 0n];
      }),
  });
}

/** ds.permute (forward): lane (addr / 4) mod 64|32 receives a from every EXEC lane naming it, the highest wins; a lane nobody names reads 0. */
function permute(): SeqFunction {
  const f = fn("perm_fwd", [{ name: "a", width: 32 }, { name: "addr", width: 32 }], "  %r = call i32 @llvm.amdgcn.ds.permute(i32 %addr, i32 %a)\n  ret i32 %r", ["declare i32 @llvm.amdgcn.ds.permute(i32, i32)"]);
  return seqFn(f, "llvm.amdgcn.ds.permute", {
    inputs: (rng, W) => ({ perLane: Array.from({ length: W }, () => [rnd32(rng), BigInt(4 * rng.below(W)) + (rng.chance(0.3) ? 256n : 0n)]), exec: execOf(rng, W) }),
    expect: (perLane, exec, W, gen) => {
      const got: bigint[] = new Array<bigint>(W).fill(0n);
      perLane.forEach((a, i) => {
        if (bit(exec, i)) got[Number((a[1]! >> 2n) % (gen === 9 ? 64n : 32n))] = a[0]!;
      });
      return got.map((x) => [x]);
    },
  });
}

// ---------------------------------------------------------------------------------------
// update.dpp(old, src, ctrl, row_mask, bank_mask, bound_ctrl): lane l writes (EXEC, row_mask bit
// l/16, bank_mask bit (l mod 16)/4) src of lane map(l) when that lane is valid (in range and
// EXEC there), else 0 if bound_ctrl, else keeps old. The control values are LLVM's DppCtrl.

type LaneMap = (l: number, W: number) => number | null;
const row = (l: number) => l & ~15;
interface Ctrl {
  name: string;
  ctrl: number;
  map: LaneMap;
  rowMask?: number;
  bankMask?: number;
  only?: 32 | 9;
}
const CTRLS: Ctrl[] = [
  { name: "quad_perm_1032", ctrl: 0xb1, map: (l) => l ^ 1 },
  { name: "quad_perm_3333", ctrl: 0xff, map: (l) => (l & ~3) + 3 },
  { name: "row_shl1", ctrl: 0x101, map: (l) => ((l & 15) < 15 ? l + 1 : null) },
  { name: "row_shr3", ctrl: 0x113, map: (l) => ((l & 15) >= 3 ? l - 3 : null) },
  { name: "row_ror8", ctrl: 0x128, map: (l) => row(l) + (((l & 15) + 8) & 15) },
  { name: "row_mirror", ctrl: 0x140, map: (l) => row(l) + 15 - (l & 15) },
  { name: "row_half_mirror", ctrl: 0x141, map: (l) => l ^ 7 },
  { name: "masks_5_9", ctrl: 0xb1, map: (l) => l ^ 1, rowMask: 0x5, bankMask: 0x9 },
  // gfx9 only (wave64; gfx10+ has no wave shifts or row broadcasts, in either wave size).
  { name: "wave_shr1", ctrl: 0x138, map: (l) => (l > 0 ? l - 1 : null), only: 9 },
  { name: "wave_rol1", ctrl: 0x134, map: (l, W) => (l + 1) % W, only: 9 },
  { name: "row_bcast15", ctrl: 0x142, map: (l) => row(l) - 1, rowMask: 0xa, only: 9 },
  { name: "row_bcast31", ctrl: 0x143, map: () => 31, rowMask: 0xc, only: 9 },
  // gfx10+ (wave32) only.
  { name: "row_share5", ctrl: 0x155, map: (l) => row(l) + 5, only: 32 },
  { name: "row_xmask3", ctrl: 0x163, map: (l) => l ^ 3, only: 32 },
];

/** The DPP fetch of lane l: the source value, or undefined when invalid; and whether l writes. */
function dppLane(c: Ctrl, l: number, W: number, exec: bigint, src: (j: number) => bigint): { writes: boolean; v: bigint | undefined } {
  const rm = c.rowMask ?? 0xf;
  const bm = c.bankMask ?? 0xf;
  const writes = bit(BigInt(rm), l >> 4) && bit(BigInt(bm), (l & 15) >> 2);
  const j = c.map(l, W);
  return { writes, v: j !== null && j >= 0 && j < W && bit(exec, j) ? src(j) : undefined };
}

function updateDpp(c: Ctrl, bc: boolean): SeqFunction {
  const f = fn(
    `dpp_${c.name}_bc${bc ? 1 : 0}`,
    [{ name: "old", width: 32 }, { name: "src", width: 32 }],
    `  %r = call i32 @llvm.amdgcn.update.dpp.i32(i32 %old, i32 %src, i32 ${c.ctrl}, i32 ${c.rowMask ?? 15}, i32 ${c.bankMask ?? 15}, i1 ${bc})\n  ret i32 %r`,
    ["declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)"],
  );
  return seqFn(
    f,
    `llvm.amdgcn.update.dpp ${c.name} bound_ctrl=${bc}`,
    {
      inputs: (rng, W) => ({ perLane: Array.from({ length: W }, () => [rnd32(rng), rnd32(rng)]), exec: execOf(rng, W) }),
      expect: (perLane, exec, W) =>
        perLane.map((args, l) => {
          const { writes, v } = dppLane(c, l, W, exec, (j) => perLane[j]![1]!);
          return [!writes ? args[0]! : v !== undefined ? v : bc ? 0n : args[0]!];
        }),
    },
    c.only,
  );
}

/** op(update.dpp(identity, src, ctrl, 0xf, 0xf, bound_ctrl=1), b): llc's DPP combiner makes it one `v_<op>_dpp`. */
function combined(c: Ctrl, op: "add" | "umax" | "umin" | "smax" | "smin"): SeqFunction {
  const identity = { add: 0, umax: 0, umin: -1, smax: -2147483648, smin: 2147483647 }[op];
  const apply = op === "add" ? "add i32 %t, %b" : `call i32 @llvm.${op}.i32(i32 %t, i32 %b)`;
  const f = fn(
    `dpp_${op}_${c.name}`,
    [{ name: "src", width: 32 }, { name: "b", width: 32 }],
    `  %t = call i32 @llvm.amdgcn.update.dpp.i32(i32 ${identity}, i32 %src, i32 ${c.ctrl}, i32 15, i32 15, i1 true)\n  %r = ${apply}\n  ret i32 %r`,
    ["declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)", ...(op === "add" ? [] : [`declare i32 @llvm.${op}.i32(i32, i32)`])],
  );
  const signed = op === "smax" || op === "smin";
  const key = (x: bigint) => (signed ? BigInt.asIntN(32, x) : x);
  const m = (x: bigint, y: bigint) => (op === "add" ? BigInt.asUintN(32, x + y) : op === "umax" || op === "smax" ? (key(x) > key(y) ? x : y) : key(x) < key(y) ? x : y);
  return seqFn(
    f,
    `${op}(update.dpp ${c.name}, b)`,
    {
      inputs: (rng, W) => ({ perLane: Array.from({ length: W }, () => [rnd32(rng), rnd32(rng)]), exec: execOf(rng, W) }),
      expect: (perLane, exec, W) =>
        perLane.map((args, l) => {
          // bound_ctrl = 1: an invalid source reads 0 (not the identity passed as old).
          const { v } = dppLane(c, l, W, exec, (j) => perLane[j]![0]!);
          return [m(v ?? 0n, args[1]!)];
        }),
    },
    c.only,
  );
}

// ---------------------------------------------------------------------------------------
// permlane16 / permlanex16 (gfx10+, wave32): lane l reads src of lane row·16 + nibble(l mod 16)
// of {s2, s1} (x16: of the other row of the pair), RDNA3 §16.10 pseudocode; with fi an inactive
// source is read too (fi = 0 runs on full waves only, see the inputs).

function permlane(x16: boolean, fi: boolean, bc: boolean): SeqFunction {
  const name = x16 ? "permlanex16" : "permlane16";
  const f = fn(
    `${name}_fi${fi ? 1 : 0}_bc${bc ? 1 : 0}`,
    [{ name: "old", width: 32 }, { name: "src", width: 32 }, { name: "s1", width: 32, inreg: true }, { name: "s2", width: 32, inreg: true }],
    `  %r = call i32 @llvm.amdgcn.${name}.i32(i32 %old, i32 %src, i32 %s1, i32 %s2, i1 ${fi}, i1 ${bc})\n  ret i32 %r`,
    [`declare i32 @llvm.amdgcn.${name}.i32(i32, i32, i32, i32, i1, i1)`],
  );
  return seqFn(
    f,
    `llvm.amdgcn.${name} fi=${fi} bound_ctrl=${bc}`,
    {
      inputs: (rng, W) => {
        const s1 = rng.bits(32);
        const s2 = rng.bits(32);
        // fi = 0 with an inactive source is refused by the interpreter (the RDNA3 pseudocode
        // and LLVM's fi/bound_ctrl reading differ there: isa/vop3.ts), so those run on full waves.
        return { perLane: Array.from({ length: W }, () => [rnd32(rng), rnd32(rng), s1, s2]), exec: fi ? execOf(rng, W) : (1n << BigInt(W)) - 1n };
      },
      expect: (perLane, exec) => {
        const sel = (perLane[0]![3]! << 32n) | perLane[0]![2]!;
        return perLane.map((args, l) => {
          const j = ((l & 16) ^ (x16 ? 16 : 0)) + Number((sel >> BigInt(4 * (l & 15))) & 15n);
          const valid = fi || bit(exec, j);
          return [valid ? perLane[j]![1]! : bc ? 0n : args[0]!];
        });
      },
    },
    32,
  );
}

// ---------------------------------------------------------------------------------------
// writelane(val, lane, old): lane (lane mod W) gets val, every other lane keeps old; EXEC not read.
// `val`/`idx` each an SGPR (inreg) or a constant. Both SGPRs only on gfx10+: on gfx9 (one
// constant-bus slot) llc moves the lane select to m0, which the interpreter does not model.

function writelane(val: "sgpr" | number, idx: "sgpr" | number): SeqFunction {
  const args: IrFunc["args"] = [];
  if (val === "sgpr") args.push({ name: "val", width: 32, inreg: true });
  if (idx === "sgpr") args.push({ name: "idx", width: 32, inreg: true });
  args.push({ name: "old", width: 32 });
  const v = val === "sgpr" ? "%val" : String(val);
  const i = idx === "sgpr" ? "%idx" : String(idx);
  const f = fn(`writelane_${val}_${idx}`, args, `  %r = call i32 @llvm.amdgcn.writelane.i32(i32 ${v}, i32 ${i}, i32 %old)\n  ret i32 %r`, ["declare i32 @llvm.amdgcn.writelane.i32(i32, i32, i32)"]);
  return seqFn(
    f,
    `llvm.amdgcn.writelane (value ${val}, lane ${idx})`,
    {
      inputs: (rng, W) => {
        const vv = rng.bits(32);
        const ii = BigInt(rng.below(W)) + (rng.chance(0.3) ? BigInt(W * rng.below(4)) : 0n);
        return {
          perLane: Array.from({ length: W }, () => [...(val === "sgpr" ? [vv] : []), ...(idx === "sgpr" ? [ii] : []), rnd32(rng)]),
          exec: execOf(rng, W),
        };
      },
      expect: (perLane, _exec, W) =>
        perLane.map((a, l) => {
          const vv = val === "sgpr" ? a[0]! : BigInt(val);
          const ii = idx === "sgpr" ? a[val === "sgpr" ? 1 : 0]! : BigInt(idx);
          return [l === Number(ii % BigInt(W)) ? vv : a[a.length - 1]!];
        }),
    },
    val === "sgpr" && idx === "sgpr" ? 32 : undefined,
  );
}

/**
 * The warp records' crosscheck functions, grouped by the record(s) llc's code for them must
 * use (`mnemonics`: each must appear in llc's code for the five processors at least once, else
 * the group checks nothing about it). Built anew on each call.
 */
export function warpRecordGroups(): Record<string, { funcs: SeqFunction[]; mnemonics: string[] }> {
  return {
  ds_bpermute_b32: { funcs: (["xor1", "xor33", "junk", "offset8"] as const).map(bpermute), mnemonics: ["ds_bpermute_b32", "s_waitcnt"] },
  ds_permute_b32: { funcs: [permute()], mnemonics: ["ds_permute_b32", "s_waitcnt"] },
  v_mov_b32_dpp: { funcs: CTRLS.flatMap((c) => [updateDpp(c, false), updateDpp(c, true)]), mnemonics: ["v_mov_b32_dpp"] },
  "v_add_u32_dpp/v_add_nc_u32_dpp, v_max_u32_dpp, v_min_u32_dpp, v_max_i32_dpp, v_min_i32_dpp": {
    funcs: CTRLS.filter((c) => ["row_shr3", "quad_perm_1032", "row_mirror"].includes(c.name)).flatMap((c) => (["add", "umax", "umin", "smax", "smin"] as const).map((op) => combined(c, op))),
    // v_add_u32_dpp on gfx9, v_add_nc_u32_dpp on gfx10+: each appears on the processors that have it.
    mnemonics: ["v_add_u32_dpp", "v_add_nc_u32_dpp", "v_max_u32_dpp", "v_min_u32_dpp", "v_max_i32_dpp", "v_min_i32_dpp"],
  },
  "v_permlane16_b32, v_permlanex16_b32": {
    funcs: [false, true].flatMap((x) => [permlane(x, false, false), permlane(x, false, true), permlane(x, true, false)]),
    mnemonics: ["v_permlane16_b32", "v_permlanex16_b32"],
  },
  v_writelane_b32: { funcs: [writelane("sgpr", "sgpr"), writelane("sgpr", 13), writelane(7, "sgpr")], mnemonics: ["v_writelane_b32"] },
};
}

/** Every function of `warpRecordGroups`, for the full crosscheck. */
export function warpRecordFunctions(): SeqFunction[] {
  return Object.values(warpRecordGroups()).flatMap((g) => g.funcs);
}
