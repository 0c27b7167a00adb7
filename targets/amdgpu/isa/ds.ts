/**
 * @fileoverview DS (LDS) records: the two cross-lane permutes that go through the LDS
 * crossbar without touching LDS memory. Semantics from the AMD "RDNA3" ISA manual §16.14
 * (DS opcodes, DS_PERMUTE_B32 / DS_BPERMUTE_B32 pseudocode) and the "Vega"/"CDNA3" manuals
 * §12.13 (the same instructions, wave64, lane index mod 64); ../shared/notes/warp-semantics.md
 * §9.1.
 *
 * Like every DS instruction they return their result asynchronously: the destination is valid
 * only after an `s_waitcnt` whose lgkmcnt covers it. That is the interpreter's LDS wait model
 * (targets/amdgpu/interp.ts), keyed on `enc: "DS"`; the semantics below are the value the
 * destination holds once the wait is done.
 */
import type { BV } from "../../../src/sem/bv.js";
import type { Gen, IsaRecord, WaveIO } from "./record.js";
import { InterpRefusal } from "./util.js";

/**
 * Which bits of `addr + offset` name the lane: the byte address divided by 4, "high-order
 * bits are ignored" — bits [7:2] (mod 64) on gfx9/CDNA, bits [6:2] ("MOD 32 regardless of
 * wave size", RDNA2/RDNA3 pseudocode) on gfx10+. A gfx10+ wave64 is refused: the pseudocode
 * reads lane `index mod 32` of the whole wave while the wave runs as two 32-lane halves, and
 * which half an upper lane then reads is not settled here (warp-semantics.md §9.1 says each
 * half keeps to itself; nothing on this machine can decide it).
 */
function laneBits(gen: Gen | undefined, wave: 32 | 64, op: string): number {
  if (gen === undefined) throw new InterpRefusal(`${op}: the lane wrap depends on the processor generation, which this run does not carry`);
  if (gen === 9) return 6;
  if (wave === 64) throw new InterpRefusal(`${op} on a gfx10+ wave64 is not modelled (which half an upper lane reads is not settled)`);
  return 5;
}

/** The lane index of each lane's `addr + offset` (see `laneBits`), as a value of `bits` bits. */
function laneIndex<V, B>(bv: BV<V, B>, io: WaveIO<V, B>, op: string): V[] {
  const n = laneBits(io.gen, io.wave, op);
  const addr = io.readLanes(1);
  const off = bv.zext(io.read(3), 32);
  return addr.map((a) => bv.extract(bv.add(a, off), n + 1, 2));
}

/** `old` where lane i's EXEC bit is 0, else `x[i]`: DS writes only EXEC lanes. */
function execMerge<V, B>(bv: BV<V, B>, exec: V, x: V[], old: V[]): V[] {
  return x.map((v, i) => {
    const on = bv.bitAt(exec, i);
    const c = bv.asBool(on);
    return c === true ? v : c === false ? old[i]! : bv.ite(on, v, old[i]!);
  });
}

const dsOps = [
  { name: "vdst", out: true, w: 32 },
  { name: "addr", w: 32 },
  { name: "data0", w: 32 },
  { name: "offset", ctrl: true, w: 16 },
] as const;

export const DS = [
  {
    mnemonic: "ds_bpermute_b32",
    enc: "DS",
    crossLane: true,
    desc: "VDST[i] = EXEC[src] ? DATA0[src] : 0, src = (ADDR[i] + OFFSET) / 4 mod 64 (gfx9) / mod 32 (gfx10+); only EXEC lanes written",
    ops: dsOps,
    uses: ["exec"],
    sem: {
      wave: <V, B>(bv: BV<V, B>, io: WaveIO<V, B>) => {
        const idx = laneIndex(bv, io, "ds_bpermute_b32");
        const exec = io.exec();
        const data = io.readLanes(2);
        const lanes = 1 << bv.width(idx[0]!);
        // "EXEC is applied to the source VGPR reads": a disabled source lane gives 0.
        const readable = Array.from({ length: lanes }, (_, j) => bv.ite(bv.bitAt(exec, j), data[j]!, bv.k(0, 32)));
        const got = idx.map((s): V => {
          const c = bv.asBigint(s);
          if (c !== undefined) return readable[Number(c)]!;
          let r: V = readable[0]!;
          for (let j = 1; j < lanes; j++) r = bv.ite(bv.eq(s, bv.k(j, bv.width(s))), readable[j]!, r);
          return r;
        });
        io.writeLanes(0, execMerge(bv, exec, got, io.readLanes(0)));
      },
    },
  },
  {
    mnemonic: "ds_permute_b32",
    enc: "DS",
    crossLane: true,
    desc: "tmp[(ADDR[i] + OFFSET) / 4 mod 64|32] = DATA0[i] for EXEC lanes i (highest i wins; tmp starts 0); VDST[i] = tmp[i] for EXEC lanes",
    ops: dsOps,
    uses: ["exec"],
    sem: {
      wave: <V, B>(bv: BV<V, B>, io: WaveIO<V, B>) => {
        const idx = laneIndex(bv, io, "ds_permute_b32");
        const exec = io.exec();
        const data = io.readLanes(2);
        const W = io.wave;
        const tmp = Array.from({ length: W }, (_, d) => {
          let r = bv.k(0, 32);
          // Ascending source lanes, each overriding: "the highest-numbered source thread wins".
          for (let i = 0; i < W; i++) r = bv.ite(bv.andB(bv.bitAt(exec, i), bv.eq(idx[i]!, bv.k(d, bv.width(idx[i]!)))), data[i]!, r);
          return r;
        });
        io.writeLanes(0, execMerge(bv, exec, tmp, io.readLanes(0)));
      },
    },
  },
] as const satisfies readonly IsaRecord[];
