/**
 * @fileoverview DPP records (data-parallel primitives: a VOP1/VOP2 whose src0 is read from
 * another lane) and the DPP_CTRL field, stated once: its text (llvm-mc's modifier syntax,
 * LLVM `docs/AMDGPUModifierSyntax.rst` "DPP"), its 9-bit encoding (LLVM
 * `AMDGPU::DPP::DppCtrl`) and the source lane it names (AMD "Vega" ISA §6.2 / "RDNA3" §7.7
 * "Data Parallel Processing", DPP_CTRL enumeration).
 *
 * Operands: `vdst` (tied: the old value, which lanes that do not write keep), the sources, then
 * the encoding fields as `ctrl` immediates: `dpp_ctrl` (the 9-bit field), `row_mask`,
 * `bank_mask`, `bound_ctrl` (the BIT, not llvm-mc's text: `bound_ctrl:0` sets the bit on
 * gfx9/gfx10 and clears it on gfx11 — measured with llvm-mc-19, warp-semantics.md §9.1) and
 * `fi` (gfx10+, "fetch inactive").
 *
 * Per lane i (AMDGPUModifierSyntax.rst, Vega §6.2): the lane writes only if EXEC[i] and its
 * row's `row_mask` bit and its bank's `bank_mask` bit (bank = (i mod 16) / 4) are set. Its
 * source lane is `dppSource(ctrl, i)`; the source is *invalid* when it is out of range or
 * EXEC = 0 there (unless `fi`). With an invalid source, `bound_ctrl` = 1 reads 0 ("accessing
 * data from an invalid lane will return zero") and `bound_ctrl` = 0 disables the write
 * ("disables data sharing with invalid lanes": the lane keeps its old value).
 */
import type { BV } from "../../../src/sem/bv.js";
import type { Gen, IsaRecord, OpSpec, WaveIO } from "./record.js";
import { InterpRefusal } from "./util.js";
import { VOP1 } from "./vop1.js";
import { VOP2 } from "./vop2.js";

/** One DPP_CTRL form: its text, its encoding range and the generations that have it. */
interface CtrlForm {
  name: string;
  /** Field value of the form with argument `n`. */
  base: number;
  /** Arguments allowed (none: a bare word). */
  args?: readonly number[];
  only?: readonly Gen[];
}
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const CTRL_FORMS: readonly CtrlForm[] = [
  { name: "row_shl", base: 0x100, args: range(1, 15) },
  { name: "row_shr", base: 0x110, args: range(1, 15) },
  { name: "row_ror", base: 0x120, args: range(1, 15) },
  { name: "wave_shl", base: 0x130 - 1, args: [1], only: [9] },
  { name: "wave_rol", base: 0x134 - 1, args: [1], only: [9] },
  { name: "wave_shr", base: 0x138 - 1, args: [1], only: [9] },
  { name: "wave_ror", base: 0x13c - 1, args: [1], only: [9] },
  { name: "row_mirror", base: 0x140 },
  { name: "row_half_mirror", base: 0x141 },
  { name: "row_bcast", base: 0x142 - 15, args: [15], only: [9] },
  { name: "row_bcast", base: 0x143 - 31, args: [31], only: [9] },
  { name: "row_share", base: 0x150, args: range(0, 15), only: [10, 11] },
  { name: "row_xmask", base: 0x160, args: range(0, 15), only: [10, 11] },
];

/**
 * The DPP_CTRL field of a modifier text (`quad_perm:[1,0,3,2]`, `row_shr:1`, `row_mirror`) on
 * generation `gen` (undefined: only the controls every generation has), or null when the text
 * is not a DPP control. @throws Error for a control this generation does not have, or an
 * argument out of range.
 */
export function dppCtrlOf(text: string, gen: Gen | undefined): number | null {
  const q = /^quad_perm:\[([0-3]),([0-3]),([0-3]),([0-3])\]$/.exec(text);
  if (q) return Number(q[1]) | (Number(q[2]) << 2) | (Number(q[3]) << 4) | (Number(q[4]) << 6);
  const m = /^([a-z_]+)(?::(\d+))?$/.exec(text);
  if (!m) return null;
  const forms = CTRL_FORMS.filter((f) => f.name === m[1]);
  if (!forms.length) return null;
  const n = m[2] === undefined ? undefined : Number(m[2]);
  const f = forms.find((f) => (n === undefined ? !f.args : f.args?.includes(n)));
  if (!f) throw new Error(`DPP control ${text}: argument out of range`);
  if (f.only && gen === undefined) throw new Error(`DPP control ${f.name} exists only on some generations: the generation is needed`);
  if (f.only && gen !== undefined && !f.only.includes(gen)) throw new Error(`DPP control ${f.name} does not exist on gfx${gen === 9 ? "9" : gen === 10 ? "10" : "11"}`);
  return f.base + (n ?? 0);
}

/** The modifier text of a DPP_CTRL value (the inverse of `dppCtrlOf`). @throws Error for an unused encoding. */
export function dppCtrlText(ctrl: number): string {
  if (ctrl >= 0 && ctrl <= 0xff) return `quad_perm:[${[0, 2, 4, 6].map((s) => (ctrl >> s) & 3).join(",")}]`;
  for (const f of CTRL_FORMS) {
    if (!f.args) {
      if (ctrl === f.base) return f.name;
    } else for (const n of f.args) if (f.base + n === ctrl) return `${f.name}:${n}`;
  }
  throw new Error(`DPP_CTRL 0x${ctrl.toString(16)} is not a DPP control`);
}

/**
 * The lane lane `i` reads under DPP_CTRL `ctrl` in a wave of `wave` lanes: a lane number,
 * or null when the source is out of range (Vega §6.2 / RDNA3 §7.7 DPP_CTRL table). Rows are
 * 16 lanes. @throws InterpRefusal where the manual names no source (`row_bcast:15` in row 0,
 * `row_bcast:31` in rows 0–1: the manual says only "broadcast thread 15 to the next row" /
 * "thread 31 to rows 2 and 3").
 */
export function dppSource(ctrl: number, i: number, wave: 32 | 64): number | null {
  const row = i & ~15;
  const r = i & 15;
  const inRow = (x: number) => (x >= 0 && x < 16 ? row + x : null);
  if (ctrl <= 0xff) return (i & ~3) | ((ctrl >> (2 * (i & 3))) & 3);
  if (ctrl > 0x100 && ctrl <= 0x10f) return inRow(r + (ctrl - 0x100));
  if (ctrl > 0x110 && ctrl <= 0x11f) return inRow(r - (ctrl - 0x110));
  if (ctrl > 0x120 && ctrl <= 0x12f) return row + ((r - (ctrl - 0x120)) & 15);
  if (ctrl === 0x130) return i + 1 < wave ? i + 1 : null;
  if (ctrl === 0x134) return (i + 1) % wave;
  if (ctrl === 0x138) return i > 0 ? i - 1 : null;
  if (ctrl === 0x13c) return (i + wave - 1) % wave;
  if (ctrl === 0x140) return row + 15 - r;
  if (ctrl === 0x141) return (i & ~7) + 7 - (i & 7);
  if (ctrl === 0x142) {
    if (row === 0) throw new InterpRefusal("row_bcast:15 names no source for row 0 (mask row 0 off with row_mask)");
    return row - 1;
  }
  if (ctrl === 0x143) {
    if (row < 32) throw new InterpRefusal("row_bcast:31 names no source for rows 0–1 (mask them off with row_mask)");
    return 31;
  }
  if (ctrl >= 0x150 && ctrl <= 0x15f) return row + (ctrl - 0x150);
  if (ctrl >= 0x160 && ctrl <= 0x16f) return row + (r ^ (ctrl - 0x160));
  throw new InterpRefusal(`DPP_CTRL 0x${ctrl.toString(16)} is not a DPP control`);
}

/** The trailing encoding fields of every DPP record, in this order. */
export const DPP_FIELDS: readonly OpSpec[] = [
  { name: "dpp_ctrl", ctrl: true, w: 32 },
  { name: "row_mask", ctrl: true, w: 32 },
  { name: "bank_mask", ctrl: true, w: 32 },
  { name: "bound_ctrl", ctrl: true, w: 32 },
  { name: "fi", ctrl: true, w: 32 },
];

const concreteField = <V, B>(bv: BV<V, B>, io: WaveIO<V, B>, i: number, name: string): number => {
  const x = bv.asBigint(io.read(i));
  if (x === undefined) throw new InterpRefusal(`DPP ${name} must be an immediate`);
  return Number(x);
};

/**
 * The DPP form of a VOP1/VOP2 record `base` (`v_add_u32` → `v_add_u32_dpp`): `vdst` (tied),
 * base's sources with src0 read across lanes, then the DPP fields. The lane result is base's
 * own semantics on (src0 as fetched, the other sources): nothing is restated here.
 */
function dppOf<M extends string>(base: IsaRecord<M>): IsaRecord<`${M}_dpp`> {
  const sem = base.sem;
  if (!("lane" in sem)) throw new Error(`${base.mnemonic}: DPP needs a per-lane record`);
  const srcs = base.ops.filter((o) => !o.out);
  const extra = srcs.length - 1;
  const f0 = 2 + extra; // index of dpp_ctrl
  return {
    mnemonic: `${base.mnemonic}_dpp`,
    enc: base.enc,
    desc: `${base.desc}; src0 from lane dppSource(dpp_ctrl, i) (DPP)`,
    ops: [{ name: "vdst", out: true, tied: true, w: 32 }, ...srcs, ...DPP_FIELDS],
    uses: ["exec"],
    hazard: { dpp: true },
    crossLane: true,
    ...(base.only ? { only: base.only } : {}),
    sem: {
      wave: <V, B>(bv: BV<V, B>, io: WaveIO<V, B>) => {
        const W = io.wave;
        const [ctrl, rowMask, bankMask, bc, fi] = [0, 1, 2, 3, 4].map((k) => concreteField(bv, io, f0 + k, DPP_FIELDS[k]!.name));
        const old = io.readLanes(0);
        const s0 = io.readLanes(1);
        const others = Array.from({ length: extra }, (_, k) => io.readLanes(2 + k));
        const exec = io.exec();
        const out = old.map((o, i) => {
          if (!((rowMask! >> (i >> 4)) & 1) || !((bankMask! >> ((i & 15) >> 2)) & 1)) return o;
          const on = bv.bitAt(exec, i);
          if (bv.asBool(on) === false) return o;
          const j = dppSource(ctrl!, i, W);
          // valid: in range and (fi, or EXEC set in the source lane).
          const valid = j === null ? bv.false : fi ? bv.true : bv.bitAt(exec, j);
          const fetched = j === null ? bv.k(0, 32) : bv.ite(valid, s0[j]!, bv.k(0, 32));
          const r = sem.lane(bv, [fetched, ...others.map((x) => x[i]!)], i)[0]!;
          // bound_ctrl = 0 and an invalid source: the lane is not written.
          const writes = bc ? on : bv.andB(on, valid);
          return bv.ite(writes, r, o);
        });
        io.writeLanes(0, out);
      },
    },
  };
}

const base = <M extends string>(m: M): IsaRecord<M> => {
  const r = [...VOP1, ...VOP2].find((x) => x.mnemonic === m);
  if (!r) throw new Error(`no base record ${m}`);
  return r as IsaRecord<M>;
};

export const DPP = [
  dppOf(base("v_mov_b32")),
  dppOf(base("v_add_u32")),
  dppOf(base("v_add_nc_u32")),
  dppOf(base("v_max_u32")),
  dppOf(base("v_min_u32")),
  dppOf(base("v_max_i32")),
  dppOf(base("v_min_i32")),
] as const satisfies readonly IsaRecord[];
