/**
 * @fileoverview The trust base of the AMDGPU side: the project's instruction records and
 * interpreter checked against LLVM 19, an implementation nobody here wrote.
 *
 * 1. Record level. For every record with an LLVM counterpart (`COUNTERPARTS`), thousands of
 *    calls on constant operands are written as one `.ll` file, one function per call, and
 *    folded by `opt-19 -mtriple=amdgcn -passes=instcombine` (without the AMDGPU triple the
 *    `llvm.amdgcn.*` intrinsics stay unfolded). Each folded constant is compared with the
 *    record's own executable semantics (`sem.lane/cmp/scalar/wave`) run through `concrete`.
 *    A record without a counterpart is listed with the manual section its semantics come
 *    from (`NO_COUNTERPART`).
 * 2. Sequence level. LLVM IR with the PTX meaning — derived from the reference semantics by
 *    `LlvmIrBV` (targets/llvm/ir.ts), plus hand-written "best" IR with AMDGPU intrinsics,
 *    the match.sync loops and the known-defect pattern — is compiled by `llc-19` for every
 *    target, parsed (targets/amdgpu/asm.ts), run in the project's interpreter, and compared
 *    with the reference. Each disagreement is triaged: `opt-19 -O2` folds the IR on the
 *    failing inputs (the IR's own meaning, per LLVM's middle end); if that equals the
 *    reference, the IR is right and LLVM's code disagrees with it under instruction
 *    semantics that LLVM's own folder agrees with at record level — so the backend is wrong;
 *    otherwise the IR is.
 * 3. Hazards. llc's code is parsed with its waits kept (`s_nop`, `s_waitcnt*`, `s_delay_alu`
 *    are records); `crosscheckSequences`' `onCode` hands every parsed function to the hazard
 *    crosscheck of llc's own code (targets/amdgpu/oracle/llc_hazards.ts, issue 11 item 4(b)). Counts of
 *    llc's code include those waits (issue cycles: targets/amdgpu/interp.ts `issueCyclesOf`).
 */
import { hashString, Rng } from "../../../src/check/random.js";
import { spawnSync } from "node:child_process";
import { cachedTool, runTool } from "../../../src/tools.js";
import type { BV, CV } from "../../../src/sem/bv.js";
import { concrete, u } from "../../../src/sem/bv.js";
import type { MatchForm, Profile, SzextForm, VshForm } from "../../../src/ir/forms.js";
import { formId, formName, szextForms, vshForms, SELS } from "../../../src/ir/forms.js";
import type { Sel } from "../../../src/ir/forms.js";
import { szext } from "../../../src/sem/szext.js";
import { vsh } from "../../../src/sem/vsh.js";
import { matchSync, WARP } from "../../../src/sem/match_sync.js";
import { RECORDS, isMnemonic, record } from "../isa/index.js";
import type { IsaRecord, Relation, WaveIO } from "../isa/record.js";
import { isRead } from "../isa/record.js";
import type { MLine } from "../minst.js";
import { isLabel, printOp } from "../minst.js";
import { functionBody, parseAsm, recorded } from "../asm.js";
import { outstandingDs, run } from "../interp.js";
import type { WaveState } from "../interp.js";
import type { Mcpu } from "../regs.js";
import { TARGETS } from "../regs.js";
import type { ArgKinds, IrFunc } from "../../llvm/ir.js";
import { formIrVariants, irModule, matchIr, shlShrIr, shlShrMeaning } from "../../llvm/ir.js";
import { bValues, CORNERS } from "../../../src/check/inputs.js";
import { selField } from "../../../src/sem/vsh.js";

// ---------------------------------------------------------------------------------------
// Tools

export interface LlvmTools {
  opt: string;
  llc: string;
}
export const LLVM19: LlvmTools = { opt: "opt-19", llc: "llc-19" };

/** Whether opt and llc run; the reason when not (tests skip with it). */
export function llvmAvailable(tools: LlvmTools = LLVM19): { ok: true } | { ok: false; reason: string } {
  for (const t of [tools.opt, tools.llc]) {
    const r = spawnSync(t, ["--version"], { encoding: "utf8" });
    if (r.error || r.status !== 0) return { ok: false, reason: `${t} not runnable (${r.error?.message ?? `exit ${r.status}`})` };
    if (!/LLVM version 19\./.test(r.stdout)) return { ok: false, reason: `${t} is not LLVM 19: ${r.stdout.split("\n").find((l) => /version/.test(l))}` };
  }
  return { ok: true };
}

export { runTool };

export { Rng };

const EDGE32 = [
  0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 0x7fff, 0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000,
  0x80000001, 0xfffffffe, 0xffffffff, 0xffffff80, 0xffff8000, 0x55555555, 0xaaaaaaaa, 0x12345678,
].map(BigInt);
const EDGE64 = [
  ...EDGE32,
  1n << 32n,
  (1n << 32n) + 1n,
  (1n << 63n) - 1n,
  1n << 63n,
  (1n << 64n) - 1n,
  0xffffffff00000000n,
  0xffffffff80000000n,
  0x000000007fffffffn,
];
/** Shift counts, offsets and widths: the edges 0, 1, 31, 32, 33, 63, 64 and neighbours. */
const COUNTS = [0, 1, 2, 5, 7, 8, 15, 16, 17, 24, 30, 31, 32, 33, 34, 47, 48, 62, 63, 64, 65, 95, 96, 127, 128, 255, 256].map(BigInt);

/** Operand generator kinds. */
export type Gen = "val" | "cnt" | "sel" | "sbfe" | "sbfe64" | "small" | "lshl64";

function genValue(rng: Rng, g: Gen, w: number, i: number): bigint {
  switch (g) {
    case "cnt":
      // Mostly edge counts, sometimes with garbage in the bits the hardware ignores.
      if (rng.chance(0.7)) return rng.pick(COUNTS);
      return rng.chance(0.5) ? BigInt(rng.below(130)) : rng.bits(w);
    case "sel": {
      // v_perm_b32 selectors: the first 16 cases put every code 0x00–0x0f in every byte;
      // then random codes 0x00–0x0f, and sometimes any byte (≥ 13 gives 0xff).
      let s = 0n;
      for (let k = 0; k < 4; k++) {
        const code = i < 16 ? (i + 5 * k) % 16 : rng.chance(0.85) ? rng.below(16) : rng.below(256);
        s |= BigInt(code) << BigInt(8 * k);
      }
      return s;
    }
    case "sbfe": {
      // s_bfe's S1: offset S1[4:0], width S1[22:16] < 32 (w ≥ 32 is unspecified), garbage elsewhere.
      const off = rng.chance(0.6) ? rng.pick(COUNTS) : BigInt(rng.below(32));
      const width = rng.chance(0.5) ? rng.pick([0n, 1n, 2n, 7n, 8n, 15n, 16n, 24n, 30n, 31n]) : BigInt(rng.below(32));
      const junk = rng.chance(0.5) ? rng.bits(32) & ~((0x7fn << 16n) | 0x1fn) : 0n;
      return (junk | (off & 0x1fn) | (width << 16n)) & 0xffffffffn;
    }
    case "sbfe64": {
      // The 64-bit s_bfe's S1: offset S1[5:0], width S1[22:16] < 64.
      const off = rng.chance(0.6) ? rng.pick(COUNTS) : BigInt(rng.below(64));
      const width = rng.chance(0.5) ? rng.pick([0n, 1n, 8n, 16n, 31n, 32n, 33n, 48n, 63n]) : BigInt(rng.below(64));
      const junk = rng.chance(0.5) ? rng.bits(32) & ~((0x7fn << 16n) | 0x3fn) : 0n;
      return (junk | (off & 0x3fn) | (width << 16n)) & 0xffffffffn;
    }
    case "small":
      return BigInt.asUintN(w, BigInt(rng.below(80) - 16));
    case "lshl64":
      // v_lshl_add_u64's shift: 0–4 (the amounts LLVM selects it for; the CDNA3 manual gives
      // the instruction for those), with garbage above bit 2 half the time.
      return BigInt(rng.below(5)) | (rng.chance(0.5) ? rng.bits(w) & ~7n : 0n);
    default: {
      const r = rng.below(10);
      if (r < 4) return BigInt.asUintN(w, rng.pick(w > 32 ? EDGE64 : EDGE32));
      if (r < 5) return BigInt.asUintN(w, BigInt(rng.below(80) - 16));
      return rng.bits(w);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Record level: counterparts

/** A tiny IR writer for counterpart bodies (constants in, typed operands out). */
export class CIr {
  readonly lines: string[] = [];
  readonly decls = new Set<string>();
  private n = 0;
  /** `%cN = rhs`; returns `%cN`. */
  op(rhs: string): string {
    const nm = `%c${this.n++}`;
    this.lines.push(`  ${nm} = ${rhs}`);
    return nm;
  }
  /** `call ret @name(args)`; args are `"ty value"`. */
  call(ret: string, name: string, args: string[]): string {
    this.decls.add(`declare ${ret} @${name}(${args.map((a) => a.split(" ")[0]).join(", ")})`);
    return this.op(`call ${ret} @${name}(${args.join(", ")})`);
  }
}

/** One output of a counterpart: an IR operand of `w` bits. */
export interface Out {
  w: number;
  v: string;
}

/** What a counterpart receives: the source operands (signed decimal IR constants) and extras. */
export interface CpIn {
  src: string[];
  /** SCC input (`true`/`false`), for records that read SCC. */
  scc: string;
  /** EXEC (64-bit) for wave records; the lane index for per-lane records with a lane-mask operand. */
  exec: string;
  lane: number;
}

export interface Counterpart {
  /** The LLVM construct, in words (`llvm.amdgcn.ubfe.i32`). */
  llvm: string;
  /** Generator per source operand (default "val"). */
  gen?: Gen[];
  /** Indices of the record's outputs this counterpart vouches for (default: all). */
  pick?: number[];
  /** Why some outputs are not compared. */
  note?: string;
  ir(e: CIr, x: CpIn): Out[];
}

const ty = (w: number) => `i${w}`;
const scc32 = (e: CIr, d: string, w = 32): Out => ({ w: 1, v: e.op(`icmp ne ${ty(w)} ${d}, 0`) });
const masked = (e: CIr, x: string, bits: number, w: number) => {
  const m = e.op(`and i32 ${x}, ${bits}`);
  return w === 32 ? m : e.op(`zext i32 ${m} to i${w}`);
};
const bitreverse = (e: CIr, x: string) => e.call("i32", "llvm.bitreverse.i32", [`i32 ${x}`]);

/** Binary bitwise / arithmetic op with SCC = D != 0 (SALU logic) or without (VALU). */
function binop(op: string, w: number, withScc: boolean, how = `${op} i${w}`): Counterpart {
  return {
    llvm: how + (withScc ? "; SCC = icmp ne 0" : ""),
    ir: (e, { src: [a, b] }) => {
      const d = op === "andn2" ? e.op(`and i${w} ${a}, ${e.op(`xor i${w} ${b}, -1`)}`) : e.op(`${op} i${w} ${a}, ${b}`);
      return withScc ? [{ w, v: d }, scc32(e, d, w)] : [{ w, v: d }];
    },
  };
}

/** Shift of src `val` by src `cnt` masked to `bits` (5 or 6), as the hardware masks it. */
function shift(op: "shl" | "lshr" | "ashr", w: number, val: number, cnt: number, withScc: boolean): Counterpart {
  const gen: Gen[] = [];
  gen[val] = "val";
  gen[cnt] = "cnt";
  return {
    llvm: `${op} i${w} of the count & ${w - 1}` + (withScc ? "; SCC = icmp ne 0" : ""),
    gen,
    ir: (e, { src }) => {
      const d = e.op(`${op} i${w} ${src[val]}, ${masked(e, src[cnt]!, w - 1, w)}`);
      return withScc ? [{ w, v: d }, scc32(e, d, w)] : [{ w, v: d }];
    },
  };
}

function minmax(fn: string, w = 32, pick?: number[]): Counterpart {
  return {
    llvm: `llvm.${fn}.i${w}` + (pick ? " (SCC: no LLVM counterpart; manual: SCC = 1 iff S0 is chosen)" : ""),
    ...(pick ? { pick } : {}),
    ir: (e, { src: [a, b] }) => [{ w, v: e.call(ty(w), `llvm.${fn}.i${w}`, [`${ty(w)} ${a}`, `${ty(w)} ${b}`]) }],
  };
}

function identity(w: number): Counterpart {
  return { llvm: "freeze (identity)", ir: (e, { src: [a] }) => [{ w, v: e.op(`freeze i${w} ${a}`) }] };
}

function overflow(intr: string): Counterpart {
  return {
    llvm: `llvm.${intr}.with.overflow.i32 (D, SCC = overflow bit)`,
    ir: (e, { src: [a, b] }) => {
      const r = e.call("{ i32, i1 }", `llvm.${intr}.with.overflow.i32`, [`i32 ${a}`, `i32 ${b}`]);
      return [
        { w: 32, v: e.op(`extractvalue { i32, i1 } ${r}, 0`) },
        { w: 1, v: e.op(`extractvalue { i32, i1 } ${r}, 1`) },
      ];
    },
  };
}

/** v_addc_co_u32 / v_add_co_ci_u32: S0 + S1 + the lane's carry-in bit of S2, in i33. */
function addCarryIn(): Counterpart {
  return {
    llvm: "add i33 (zext S0), (zext S1), (zext (trunc (lshr S2, lane))): D = trunc, carry = bit 32",
    ir: (e, { src: [a, b, m], lane }) => {
      const cin = e.op(`zext i1 ${e.op(`trunc i64 ${e.op(`lshr i64 ${m}, ${lane}`)} to i1`)} to i33`);
      const s = e.op(`add i33 ${e.op(`add i33 ${e.op(`zext i32 ${a} to i33`)}, ${e.op(`zext i32 ${b} to i33`)}`)}, ${cin}`);
      return [
        { w: 32, v: e.op(`trunc i33 ${s} to i32`) },
        { w: 1, v: e.op(`trunc i33 ${e.op(`lshr i33 ${s}, 32`)} to i1`) },
      ];
    },
  };
}

/** v_sub*_co_u32 with a borrow: S0 − S1 (`rev`: S1 − S0) − the lane's bit of S2, in i33; borrow = bit 32. */
function subBorrowIn(rev: boolean): Counterpart {
  return {
    llvm: `sub i33 (zext ${rev ? "S1" : "S0"}), (zext ${rev ? "S0" : "S1"}), (zext (trunc (lshr S2, lane))): D = trunc, borrow = bit 32`,
    ir: (e, { src: [a, b, m], lane }) => {
      const [x, y] = rev ? [b, a] : [a, b];
      const bin = e.op(`zext i1 ${e.op(`trunc i64 ${e.op(`lshr i64 ${m}, ${lane}`)} to i1`)} to i33`);
      const d = e.op(`sub i33 ${e.op(`sub i33 ${e.op(`zext i32 ${x} to i33`)}, ${e.op(`zext i32 ${y} to i33`)}`)}, ${bin}`);
      return [
        { w: 32, v: e.op(`trunc i33 ${d} to i32`) },
        { w: 1, v: e.op(`trunc i33 ${e.op(`lshr i33 ${d}, 32`)} to i1`) },
      ];
    },
  };
}

/** v_subrev_co_u32: llvm.usub.with.overflow.i32 of (S1, S0). */
function usubRev(): Counterpart {
  return {
    llvm: "llvm.usub.with.overflow.i32 (S1, S0) (D, this lane's borrow bit)",
    ir: (e, { src: [a, b] }) => {
      const r = e.call("{ i32, i1 }", "llvm.usub.with.overflow.i32", [`i32 ${b}`, `i32 ${a}`]);
      return [
        { w: 32, v: e.op(`extractvalue { i32, i1 } ${r}, 0`) },
        { w: 1, v: e.op(`extractvalue { i32, i1 } ${r}, 1`) },
      ];
    },
  };
}

/** v_{min,max}3_{i,u}32: llvm.<op>(llvm.<op>(S0, S1), S2). */
const minMax3 = (fn: "smin" | "umin" | "smax" | "umax"): Counterpart => ({
  llvm: `llvm.${fn}.i32(llvm.${fn}.i32(S0, S1), S2)`,
  ir: (e, { src: [a, b, c] }) => [{ w: 32, v: e.call("i32", `llvm.${fn}.i32`, [`i32 ${e.call("i32", `llvm.${fn}.i32`, [`i32 ${a}`, `i32 ${b}`])}`, `i32 ${c}`]) }],
});

/** v_maxmin/v_minmax (gfx11): llvm.<outer>(llvm.<inner>(S0, S1), S2). */
const minMax2 = (inner: "smin" | "umin" | "smax" | "umax", outer: "smin" | "umin" | "smax" | "umax"): Counterpart => ({
  llvm: `llvm.${outer}.i32(llvm.${inner}.i32(S0, S1), S2)`,
  ir: (e, { src: [a, b, c] }) => [{ w: 32, v: e.call("i32", `llvm.${outer}.i32`, [`i32 ${e.call("i32", `llvm.${inner}.i32`, [`i32 ${a}`, `i32 ${b}`])}`, `i32 ${c}`]) }],
});

const med3 = (s: "s" | "u"): Counterpart => ({
  llvm: `llvm.${s}max(llvm.${s}min(a,b), llvm.${s}min(llvm.${s}max(a,b), c)) (llvm.amdgcn.fmed3 is float only)`,
  ir: (e, { src: [a, b, c] }) => {
    const mn = e.call("i32", `llvm.${s}min.i32`, [`i32 ${a}`, `i32 ${b}`]);
    const mx = e.call("i32", `llvm.${s}max.i32`, [`i32 ${a}`, `i32 ${b}`]);
    const m2 = e.call("i32", `llvm.${s}min.i32`, [`i32 ${mx}`, `i32 ${c}`]);
    return [{ w: 32, v: e.call("i32", `llvm.${s}max.i32`, [`i32 ${mn}`, `i32 ${m2}`]) }];
  },
});

const bfe = (signed: boolean): Counterpart => ({
  llvm: `llvm.amdgcn.${signed ? "s" : "u"}bfe.i32`,
  gen: ["val", "cnt", "cnt"],
  ir: (e, { src: [a, o, w] }) => [{ w: 32, v: e.call("i32", `llvm.amdgcn.${signed ? "s" : "u"}bfe.i32`, [`i32 ${a}`, `i32 ${o}`, `i32 ${w}`]) }],
});

const sbfeScalar = (signed: boolean): Counterpart => ({
  llvm: `llvm.amdgcn.${signed ? "s" : "u"}bfe.i32(S0, S1 & 31, (S1 >> 16) & 127) for width < 32 (≥ 32 is unspecified); SCC = icmp ne 0`,
  gen: ["val", "sbfe"],
  ir: (e, { src: [a, s1] }) => {
    const off = e.op(`and i32 ${s1}, 31`);
    const wd = e.op(`and i32 ${e.op(`lshr i32 ${s1}, 16`)}, 127`);
    const d = e.call("i32", `llvm.amdgcn.${signed ? "s" : "u"}bfe.i32`, [`i32 ${a}`, `i32 ${off}`, `i32 ${wd}`]);
    return [{ w: 32, v: d }, scc32(e, d)];
  },
});

const sbfeScalar64 = (signed: boolean): Counterpart => ({
  llvm: `llvm.amdgcn.${signed ? "s" : "u"}bfe.i64(S0, S1 & 63, (S1 >> 16) & 127) for width < 64 (≥ 64 is unspecified); SCC = icmp ne 0`,
  gen: ["val", "sbfe64"],
  ir: (e, { src: [a, s1] }) => {
    const off = e.op(`and i32 ${s1}, 63`);
    const wd = e.op(`and i32 ${e.op(`lshr i32 ${s1}, 16`)}, 127`);
    const d = e.call("i64", `llvm.amdgcn.${signed ? "s" : "u"}bfe.i64`, [`i64 ${a}`, `i32 ${off}`, `i32 ${wd}`]);
    return [{ w: 64, v: d }, scc32(e, d, 64)];
  },
});

const ff1 = (w: 32 | 64): Counterpart => ({
  llvm: `select(x == 0, -1, llvm.cttz.i${w}(x, i1 false))`,
  ir: (e, { src: [a] }) => {
    const c = e.call(ty(w), `llvm.cttz.i${w}`, [`i${w} ${a}`, "i1 false"]);
    const c32 = w === 32 ? c : e.op(`trunc i64 ${c} to i32`);
    const z = e.op(`icmp eq i${w} ${a}, 0`);
    return [{ w: 32, v: e.op(`select i1 ${z}, i32 -1, i32 ${c32}`) }];
  },
});

const bcnt1 = (w: 32 | 64): Counterpart => ({
  llvm: `llvm.ctpop.i${w}(x); SCC = icmp ne 0`,
  ir: (e, { src: [a] }) => {
    const c = e.call(ty(w), `llvm.ctpop.i${w}`, [`i${w} ${a}`]);
    const c32 = w === 32 ? c : e.op(`trunc i64 ${c} to i32`);
    return [{ w: 32, v: c32 }, scc32(e, c32)];
  },
});

const sext = (from: number, name = "sext(trunc)"): Counterpart => ({
  llvm: `${name} i32 → i${from} → i32`,
  ir: (e, { src: [a] }) => [{ w: 32, v: e.op(`sext i${from} ${e.op(`trunc i32 ${a} to i${from}`)} to i32`) }],
});

const saveexec = (w: 32 | 64, op: "and" | "andn2" = "and"): Counterpart => ({
  llvm: `D = exec; EXEC = and S0, ${op === "and" ? "exec" : "(xor exec, -1)"}; SCC = icmp ne EXEC, 0`,
  ir: (e, { src: [a], exec }) => {
    const ex = w === 64 ? exec : e.op(`trunc i64 ${exec} to i32`);
    const next = e.op(`and i${w} ${a}, ${op === "and" ? ex : e.op(`xor i${w} ${ex}, -1`)}`);
    const full = w === 64 ? next : e.op(`or i64 ${e.op(`and i64 ${exec}, -4294967296`)}, ${e.op(`zext i32 ${next} to i64`)}`);
    return [
      { w, v: e.op(`freeze i${w} ${ex}`) },
      { w: 64, v: full },
      { w: 1, v: e.op(`icmp ne i${w} ${next}, 0`) },
    ];
  },
});

const PRED: Record<Relation, [string, string]> = {
  eq: ["eq", "eq"],
  ne: ["ne", "ne"],
  lt: ["ult", "slt"],
  le: ["ule", "sle"],
  gt: ["ugt", "sgt"],
  ge: ["uge", "sge"],
};

/**
 * Compares (records with `cmp`): `v_cmp_<op>_<t><w>` (a lane bit) and `s_cmp_<op>_<t><w>`
 * (SCC) ↔ `icmp`; `v_cmpx_*` (writes EXEC) ↔ a select of EXEC.
 */
function compareCounterpart(mn: string): Counterpart | undefined {
  const rec = isMnemonic(mn) ? record(mn) : undefined;
  if (!rec?.cmp) return undefined;
  const pred = PRED[rec.cmp.rel][rec.cmp.signed ? 1 : 0];
  const w = rec.cmp.bits; // 16-bit compares read the low half of a 32-bit operand
  if (rec.defs?.includes("exec")) {
    return {
      llvm: `EXEC = select (icmp ${pred} i${w}), EXEC, 0 (operands uniform across lanes)`,
      ir: (e, { src: [a, b], exec }) => [{ w: 64, v: e.op(`select i1 ${e.op(`icmp ${pred} i${w} ${a}, ${b}`)}, i64 ${exec}, i64 0`) }],
    };
  }
  return {
    llvm: `icmp ${pred} i${w}` + (w === 16 ? " of the low halves (trunc)" : ""),
    ir: (e, { src: [a, b] }) => {
      const x = w === 16 ? e.op(`trunc i32 ${a} to i16`) : a;
      const y = w === 16 ? e.op(`trunc i32 ${b} to i16`) : b;
      return [{ w: 1, v: e.op(`icmp ${pred} i${w} ${x}, ${y}`) }];
    },
  };
}

/**
 * The LLVM counterpart of each record that has one. Shifts count as the hardware masks
 * them (`S0[4:0]`, `S0[5:0]`); the intrinsics fold only with an AMDGPU triple.
 */
export const COUNTERPARTS: Readonly<Record<string, Counterpart>> = {
  // SOP1
  s_mov_b32: identity(32),
  s_mov_b64: identity(64),
  s_not_b32: { llvm: "xor i32 -1; SCC = icmp ne 0", ir: (e, { src: [a] }) => { const d = e.op(`xor i32 ${a}, -1`); return [{ w: 32, v: d }, scc32(e, d)]; } },
  s_sext_i32_i8: sext(8),
  s_sext_i32_i16: sext(16),
  s_ff1_i32_b32: ff1(32),
  s_ff1_i32_b64: ff1(64),
  s_bcnt1_i32_b32: bcnt1(32),
  s_bcnt1_i32_b64: bcnt1(64),
  s_and_saveexec_b64: saveexec(64),
  s_and_saveexec_b32: saveexec(32),
  s_andn2_saveexec_b64: saveexec(64, "andn2"),
  s_andn2_saveexec_b32: saveexec(32, "andn2"),
  s_brev_b32: { llvm: "llvm.bitreverse.i32", ir: (e, { src: [a] }) => [{ w: 32, v: bitreverse(e, a!) }] },
  s_movk_i32: sext(16, "sext of the 16-bit immediate:"),
  // SOP2
  ...Object.fromEntries(
    (["and", "or", "xor", "andn2"] as const).flatMap((op) => [32, 64].map((w) => [`s_${op}_b${w}`, binop(op, w, true, op === "andn2" ? `and i${w} S0, (xor S1, -1)` : undefined)])),
  ),
  s_lshl_b32: shift("shl", 32, 0, 1, true),
  s_lshr_b32: shift("lshr", 32, 0, 1, true),
  s_ashr_i32: shift("ashr", 32, 0, 1, true),
  s_lshl_b64: shift("shl", 64, 0, 1, true),
  s_lshr_b64: shift("lshr", 64, 0, 1, true),
  s_ashr_i64: shift("ashr", 64, 0, 1, true),
  s_add_u32: overflow("uadd"),
  s_sub_u32: overflow("usub"),
  s_addc_u32: {
    llvm: "add i33 (zext S0), (zext S1), (zext SCC): D = trunc, SCC = bit 32",
    ir: (e, { src: [a, b], scc }) => {
      const s = e.op(`add i33 ${e.op(`add i33 ${e.op(`zext i32 ${a} to i33`)}, ${e.op(`zext i32 ${b} to i33`)}`)}, ${e.op(`zext i1 ${scc} to i33`)}`);
      return [
        { w: 32, v: e.op(`trunc i33 ${s} to i32`) },
        { w: 1, v: e.op(`trunc i33 ${e.op(`lshr i33 ${s}, 32`)} to i1`) },
      ];
    },
  },
  s_subb_u32: {
    llvm: "sub i33 (zext S0), (zext S1), (zext SCC): D = trunc, SCC = bit 32 (the borrow)",
    ir: (e, { src: [a, b], scc }) => {
      const s = e.op(`sub i33 ${e.op(`sub i33 ${e.op(`zext i32 ${a} to i33`)}, ${e.op(`zext i32 ${b} to i33`)}`)}, ${e.op(`zext i1 ${scc} to i33`)}`);
      return [
        { w: 32, v: e.op(`trunc i33 ${s} to i32`) },
        { w: 1, v: e.op(`trunc i33 ${e.op(`lshr i33 ${s}, 32`)} to i1`) },
      ];
    },
  },
  s_bitset0_b32: {
    llvm: "and D, (xor (shl 1, S0 & 31), -1) (D tied)",
    gen: ["val", "cnt"],
    ir: (e, { src: [d, s0] }) => [{ w: 32, v: e.op(`and i32 ${d}, ${e.op(`xor i32 ${e.op(`shl i32 1, ${masked(e, s0!, 31, 32)}`)}, -1`)}`) }],
  },
  s_bitset1_b32: {
    llvm: "or D, (shl 1, S0 & 31) (D tied)",
    gen: ["val", "cnt"],
    ir: (e, { src: [d, s0] }) => [{ w: 32, v: e.op(`or i32 ${d}, ${e.op(`shl i32 1, ${masked(e, s0!, 31, 32)}`)}`) }],
  },
  s_add_i32: overflow("sadd"),
  s_sub_i32: overflow("ssub"),
  s_min_u32: minmax("umin", 32, [0]),
  s_max_u32: minmax("umax", 32, [0]),
  s_min_i32: minmax("smin", 32, [0]),
  s_max_i32: minmax("smax", 32, [0]),
  s_bfe_u32: sbfeScalar(false),
  s_bfe_i32: sbfeScalar(true),
  s_bfe_u64: sbfeScalar64(false),
  s_bfe_i64: sbfeScalar64(true),
  s_bfm_b32: {
    llvm: "shl (sub (shl 1, S0 & 31), 1), S1 & 31 (the pattern LLVM selects to s_bfm_b32)",
    gen: ["cnt", "cnt"],
    ir: (e, { src: [a, b] }) => [{ w: 32, v: e.op(`shl i32 ${e.op(`sub i32 ${e.op(`shl i32 1, ${masked(e, a!, 31, 32)}`)}, 1`)}, ${masked(e, b!, 31, 32)}`) }],
  },
  s_cselect_b32: { llvm: "select i1 SCC", ir: (e, { src: [a, b], scc }) => [{ w: 32, v: e.op(`select i1 ${scc}, i32 ${a}, i32 ${b}`) }] },
  s_cselect_b64: { llvm: "select i1 SCC", ir: (e, { src: [a, b], scc }) => [{ w: 64, v: e.op(`select i1 ${scc}, i64 ${a}, i64 ${b}`) }] },
  s_bitcmp1_b32: {
    llvm: "icmp ne (and (lshr S0, S1 & 31), 1), 0",
    gen: ["val", "cnt"],
    ir: (e, { src: [a, b] }) => [{ w: 1, v: e.op(`icmp ne i32 ${e.op(`and i32 ${e.op(`lshr i32 ${a}, ${masked(e, b!, 31, 32)}`)}, 1`)}, 0`) }],
  },
  s_bitcmp0_b32: {
    llvm: "icmp eq (and (lshr S0, S1 & 31), 1), 0",
    gen: ["val", "cnt"],
    ir: (e, { src: [a, b] }) => [{ w: 1, v: e.op(`icmp eq i32 ${e.op(`and i32 ${e.op(`lshr i32 ${a}, ${masked(e, b!, 31, 32)}`)}, 1`)}, 0`) }],
  },
  // VOP1
  v_mov_b32: identity(32),
  v_mov_b64: identity(64),
  v_not_b32: { llvm: "xor i32 -1", ir: (e, { src: [a] }) => [{ w: 32, v: e.op(`xor i32 ${a}, -1`) }] },
  v_bfrev_b32: { llvm: "llvm.bitreverse.i32", ir: (e, { src: [a] }) => [{ w: 32, v: bitreverse(e, a!) }] },
  // VOP2
  v_and_b32: binop("and", 32, false),
  v_or_b32: binop("or", 32, false),
  v_xor_b32: binop("xor", 32, false),
  v_lshlrev_b32: shift("shl", 32, 1, 0, false),
  v_lshrrev_b32: shift("lshr", 32, 1, 0, false),
  v_ashrrev_i32: shift("ashr", 32, 1, 0, false),
  v_min_u32: minmax("umin"),
  v_max_u32: minmax("umax"),
  v_min_i32: minmax("smin"),
  v_max_i32: minmax("smax"),
  v_add_u32: binop("add", 32, false),
  v_add_nc_u32: binop("add", 32, false),
  v_sub_u32: binop("sub", 32, false),
  v_sub_nc_u32: binop("sub", 32, false),
  v_subrev_u32: { llvm: "sub i32 S1, S0", ir: (e, { src: [a, b] }) => [{ w: 32, v: e.op(`sub i32 ${b}, ${a}`) }] },
  v_subrev_nc_u32: { llvm: "sub i32 S1, S0", ir: (e, { src: [a, b] }) => [{ w: 32, v: e.op(`sub i32 ${b}, ${a}`) }] },
  v_cndmask_b32: {
    llvm: "select i1 (trunc (lshr mask, lane)), S1, S0",
    ir: (e, { src: [a, b, m], lane }) => {
      const bit = e.op(`trunc i64 ${e.op(`lshr i64 ${m}, ${lane}`)} to i1`);
      return [{ w: 32, v: e.op(`select i1 ${bit}, i32 ${b}, i32 ${a}`) }];
    },
  },
  // VOP3
  v_bfe_u32: bfe(false),
  v_bfe_i32: bfe(true),
  v_bfi_b32: {
    llvm: "or (and S0, S1), (and (xor S0, -1), S2)",
    ir: (e, { src: [a, b, c] }) => [{ w: 32, v: e.op(`or i32 ${e.op(`and i32 ${a}, ${b}`)}, ${e.op(`and i32 ${e.op(`xor i32 ${a}, -1`)}, ${c}`)}`) }],
  },
  v_alignbit_b32: {
    llvm: "llvm.amdgcn.alignbit (instcombine: llvm.fshr.i32)",
    gen: ["val", "val", "cnt"],
    ir: (e, { src: [a, b, c] }) => [{ w: 32, v: e.call("i32", "llvm.amdgcn.alignbit", [`i32 ${a}`, `i32 ${b}`, `i32 ${c}`]) }],
  },
  v_perm_b32: {
    llvm: "llvm.amdgcn.perm",
    gen: ["val", "val", "sel"],
    ir: (e, { src: [a, b, c] }) => [{ w: 32, v: e.call("i32", "llvm.amdgcn.perm", [`i32 ${a}`, `i32 ${b}`, `i32 ${c}`]) }],
  },
  v_min3_i32: minMax3("smin"),
  v_min3_u32: minMax3("umin"),
  v_max3_i32: minMax3("smax"),
  v_max3_u32: minMax3("umax"),
  v_maxmin_i32: minMax2("smax", "smin"),
  v_maxmin_u32: minMax2("umax", "umin"),
  v_minmax_i32: minMax2("smin", "smax"),
  v_minmax_u32: minMax2("umin", "umax"),
  v_med3_i32: med3("s"),
  v_med3_u32: med3("u"),
  v_and_or_b32: { llvm: "or (and S0, S1), S2", ir: (e, { src: [a, b, c] }) => [{ w: 32, v: e.op(`or i32 ${e.op(`and i32 ${a}, ${b}`)}, ${c}`) }] },
  v_or3_b32: { llvm: "or (or S0, S1), S2", ir: (e, { src: [a, b, c] }) => [{ w: 32, v: e.op(`or i32 ${e.op(`or i32 ${a}, ${b}`)}, ${c}`) }] },
  v_add3_u32: { llvm: "add (add S0, S1), S2", ir: (e, { src: [a, b, c] }) => [{ w: 32, v: e.op(`add i32 ${e.op(`add i32 ${a}, ${b}`)}, ${c}`) }] },
  v_lshl_or_b32: {
    llvm: "or (shl S0, S1 & 31), S2",
    gen: ["val", "cnt", "val"],
    ir: (e, { src: [a, b, c] }) => [{ w: 32, v: e.op(`or i32 ${e.op(`shl i32 ${a}, ${masked(e, b!, 31, 32)}`)}, ${c}`) }],
  },
  v_lshl_add_u32: {
    llvm: "add (shl S0, S1 & 31), S2",
    gen: ["val", "cnt", "val"],
    ir: (e, { src: [a, b, c] }) => [{ w: 32, v: e.op(`add i32 ${e.op(`shl i32 ${a}, ${masked(e, b!, 31, 32)}`)}, ${c}`) }],
  },
  v_add_co_u32: { ...overflow("uadd"), llvm: "llvm.uadd.with.overflow.i32 (D, this lane's carry bit)" },
  v_addc_co_u32: addCarryIn(),
  v_add_co_ci_u32: addCarryIn(),
  v_sub_co_u32: { ...overflow("usub"), llvm: "llvm.usub.with.overflow.i32 (D, this lane's borrow bit)" },
  v_subrev_co_u32: usubRev(),
  v_subb_co_u32: subBorrowIn(false),
  v_subbrev_co_u32: subBorrowIn(true),
  v_sub_co_ci_u32: subBorrowIn(false),
  v_subrev_co_ci_u32: subBorrowIn(true),
  v_add_lshl_u32: {
    llvm: "shl (add S0, S1), (S2 & 31)",
    gen: ["val", "val", "cnt"],
    ir: (e, { src: [a, b, c] }) => [{ w: 32, v: e.op(`shl i32 ${e.op(`add i32 ${a}, ${b}`)}, ${masked(e, c!, 31, 32)}`) }],
  },
  v_xad_u32: { llvm: "add (xor S0, S1), S2", ir: (e, { src: [a, b, c] }) => [{ w: 32, v: e.op(`add i32 ${e.op(`xor i32 ${a}, ${b}`)}, ${c}`) }] },
  v_lshl_add_u64: {
    llvm: "add (shl i64 S0, zext (S1 & 7)), S2",
    gen: ["val", "lshl64", "val"],
    ir: (e, { src: [a, b, c] }) => [{ w: 64, v: e.op(`add i64 ${e.op(`shl i64 ${a}, ${masked(e, b!, 7, 64)}`)}, ${c}`) }],
  },
  v_lshlrev_b64: shift("shl", 64, 1, 0, false),
  v_lshrrev_b64: shift("lshr", 64, 1, 0, false),
  v_ashrrev_i64: shift("ashr", 64, 1, 0, false),
  v_pk_mov_b32: {
    llvm: "shufflevector <2 x i32> S0, <2 x i32> S1, <op_sel[0], 2 + op_sel[1]>",
    gen: ["val", "val", "small"],
    ir: (e, { src: [a, b, sel] }) => {
      const s = Number(BigInt.asUintN(32, BigInt(sel!)) & 3n);
      const va = e.op(`bitcast i64 ${a} to <2 x i32>`);
      const vb = e.op(`bitcast i64 ${b} to <2 x i32>`);
      const sh = e.op(`shufflevector <2 x i32> ${va}, <2 x i32> ${vb}, <2 x i32> <i32 ${s & 1}, i32 ${2 + (s >> 1)}>`);
      return [{ w: 64, v: e.op(`bitcast <2 x i32> ${sh} to i64`) }];
    },
  },
};

/**
 * Records with no LLVM folding counterpart, with the manual text their semantics come from.
 * The cross-lane ones are run at sequence level (match.sync and cross-lane IR); whether llc's
 * code exercised a record is reported by the sequence level (`SeqClassReport.mnemonics`).
 */
export const NO_COUNTERPART: Readonly<Record<string, string>> = {
  s_branch: "AMD Vega ISA ch. 12 (SOPP) S_BRANCH / RDNA3 ch. 16 (SOPP): PC = label; control flow has no constant-folding oracle",
  s_cbranch_scc0: "AMD Vega ISA ch. 12 (SOPP) S_CBRANCH_SCC0 / RDNA3 ch. 16: branch if SCC == 0",
  s_cbranch_scc1: "AMD Vega ISA ch. 12 (SOPP) S_CBRANCH_SCC1 / RDNA3 ch. 16: branch if SCC == 1",
  s_cbranch_execz: "AMD Vega ISA ch. 12 (SOPP) S_CBRANCH_EXECZ / RDNA3 ch. 16: branch if EXEC == 0",
  s_cbranch_execnz: "AMD Vega ISA ch. 12 (SOPP) S_CBRANCH_EXECNZ / RDNA3 ch. 16: branch if EXEC != 0",
  s_cbranch_vccz: "AMD Vega ISA ch. 12 (SOPP) S_CBRANCH_VCCZ / RDNA3 ch. 16: branch if VCC == 0",
  s_cbranch_vccnz: "AMD Vega ISA ch. 12 (SOPP) S_CBRANCH_VCCNZ / RDNA3 ch. 16: branch if VCC != 0",
  v_readfirstlane_b32:
    "AMD Vega ISA ch. 12 (VOP1) V_READFIRSTLANE_B32 / RDNA3 ch. 16 (VOP1): SDST = S0 of the first active lane (lane 0 if EXEC = 0); cross-lane, LLVM folds llvm.amdgcn.readfirstlane only for uniform operands",
  v_mbcnt_lo_u32_b32:
    "AMD Vega ISA ch. 12 (VOP3) V_MBCNT_LO_U32_B32 / RDNA3 ch. 16 (VOP3): D = S1 + popcount(S0 & ThreadMask[31:0]); depends on the lane's position, so LLVM cannot fold it on constants: run at sequence level (xlane `mbcnt`)",
  v_mbcnt_hi_u32_b32:
    "AMD Vega ISA ch. 12 (VOP3) V_MBCNT_HI_U32_B32 / RDNA3 ch. 16 (VOP3): D = S1 + popcount(S0 & ThreadMask[63:32]); depends on the lane's position, so LLVM cannot fold it on constants: run at sequence level (xlane `mbcnt`)",
  // Cross-lane records: no per-call constant to fold; each is checked at the sequence level on
  // llc's code for its intrinsic (./warp_records.ts: ds.bpermute, ds.permute, update.dpp and its
  // combined add/min/max forms, permlane16/x16, writelane).
  ds_bpermute_b32: "AMD Vega ISA ch. 12 (DS) DS_BPERMUTE_B32 / RDNA3 ch. 16 (DS): lane i reads DATA0 of lane (ADDR[i] + OFFSET)[7:2] (gfx9) / [6:2] (gfx10+), 0 from an EXEC=0 lane; cross-lane (sequence level: llvm.amdgcn.ds.bpermute)",
  ds_permute_b32: "AMD Vega ISA ch. 12 (DS) DS_PERMUTE_B32 / RDNA3 ch. 16 (DS): forward permute, the highest source lane wins; cross-lane (no sequence case yet)",
  v_writelane_b32: "AMD Vega ISA ch. 12 (VOP3) V_WRITELANE_B32 / RDNA3 ch. 16 (VOP3): VDST[S1[5:0]] = S0 (wave32: S1[4:0]), EXEC ignored; cross-lane (sequence level: llvm.amdgcn.writelane)",
  v_permlane16_b32: "AMD Vega ISA ch. 12 has none (gfx10+ only) / RDNA3 ch. 16 (VOP3) V_PERMLANE16_B32: row-local gather by {S2,S1} nibbles; cross-lane (sequence level: llvm.amdgcn.permlane16)",
  v_permlanex16_b32: "AMD Vega ISA ch. 12 has none (gfx10+ only) / RDNA3 ch. 16 (VOP3) V_PERMLANEX16_B32: gather from the other row of the pair; cross-lane (sequence level: llvm.amdgcn.permlanex16)",
  v_mov_b32_dpp: "AMD Vega ISA ch. 12 (VOP1, DPP §6.2) / RDNA3 ch. 16 (VOP1, DPP §7.7): src0 from another lane by DPP_CTRL; cross-lane (sequence level: llvm.amdgcn.update.dpp)",
  v_add_u32_dpp: "AMD Vega ISA ch. 12 (VOP2, DPP §6.2) / RDNA3 ch. 16 has v_add_nc_u32: S0 (DPP-fetched) + S1; cross-lane (sequence level: update.dpp + add, when llc combines them)",
  v_add_nc_u32_dpp: "AMD Vega ISA ch. 12 has v_add_u32 / RDNA3 ch. 16 (VOP2, DPP §7.7): S0 (DPP-fetched) + S1; cross-lane (sequence level: update.dpp + add, when llc combines them)",
  v_max_u32_dpp: "AMD Vega ISA ch. 12 (VOP2, DPP §6.2) / RDNA3 ch. 16 (VOP2, DPP §7.7): max(S0 DPP-fetched, S1); cross-lane",
  v_min_u32_dpp: "AMD Vega ISA ch. 12 (VOP2, DPP §6.2) / RDNA3 ch. 16 (VOP2, DPP §7.7): min(S0 DPP-fetched, S1); cross-lane",
  v_max_i32_dpp: "AMD Vega ISA ch. 12 (VOP2, DPP §6.2) / RDNA3 ch. 16 (VOP2, DPP §7.7): signed max(S0 DPP-fetched, S1); cross-lane",
  v_min_i32_dpp: "AMD Vega ISA ch. 12 (VOP2, DPP §6.2) / RDNA3 ch. 16 (VOP2, DPP §7.7): signed min(S0 DPP-fetched, S1); cross-lane",
  v_readlane_b32: "AMD Vega ISA ch. 12 (VOP3) V_READLANE_B32 / RDNA3 ch. 16 (VOP3): SDST = S0 of lane S1[5:0] (wave32: S1[4:0]), regardless of EXEC; cross-lane",
  // The waits (isa/sopp.ts) compute nothing: no value to fold. Their wait states are checked
  // against LLVM's hazard recognizer instead (targets/amdgpu/oracle/llc_hazards.ts, targets/amdgpu/mir.ts).
  s_nop: "AMD Vega ISA ch. 12 (SOPP) S_NOP / RDNA3 ch. 16 (SOPP): SIMM16[3:0] + 1 wait states, no result; hazards: §4.5 and post-RA-hazard-rec",
  s_waitcnt: "AMD Vega ISA ch. 12 (SOPP) S_WAITCNT / RDNA3 ch. 16 (SOPP): waits for the memory counters, no result (lgkmcnt: the interpreter's LDS wait model; checked against si-insert-waitcnts)",
  s_waitcnt_depctr: "AMD Vega ISA ch. 12 has none (gfx10+ only) / RDNA3 ch. 16 (SOPP) S_WAITCNT_DEPCTR: waits for the dependency counters, no result; hazards: §4.5 and post-RA-hazard-rec",
  s_delay_alu: "AMD Vega ISA ch. 12 has none (gfx11 only) / RDNA3 ch. 16 (SOPP) S_DELAY_ALU: a scheduling hint, no result and no wait states",
};

/** The counterpart of a record (explicit table, then the compare families). */
export function counterpartOf(mnemonic: string): Counterpart | undefined {
  return COUNTERPARTS[mnemonic] ?? compareCounterpart(mnemonic);
}

// ---------------------------------------------------------------------------------------
// Record level: evaluation of the record's own semantics

/** One record-level case: the inputs of one call. */
export interface RecordCase {
  src: bigint[];
  scc: boolean;
  exec: bigint;
  lane: number;
}

const opWidth = (w: number | "wave") => (w === "wave" ? 64 : w);

/** The record's outputs on one case, by its own semantics run concretely (wave64 for masks). */
export function recordOutputs(rec: IsaRecord, c: RecordCase): CV[] {
  const srcSpecs = rec.ops.filter(isRead);
  const src = srcSpecs.map((o, i) => u(c.src[i]!, opWidth(o.w)));
  const sem = rec.sem;
  if ("lane" in sem) return sem.lane(concrete, src, c.lane);
  if ("cmp" in sem) return [concrete.fromB(sem.cmp(concrete, src))];
  if ("scalar" in sem) {
    const r = sem.scalar(concrete, src, c.scc);
    return [...r.d, ...(r.scc !== undefined ? [concrete.fromB(r.scc)] : [])];
  }
  if ("wave" in sem) {
    // Only the scalar wave records (saveexec) are evaluated here; cross-lane ones have no case.
    const writes: CV[] = [];
    let exec = u(c.exec, 64);
    let scc = c.scc;
    const ops = rec.ops;
    const io: WaveIO<CV, boolean> = {
      wave: 64,
      gen: undefined,
      read: (i) => u(c.src[ops.slice(0, i).filter(isRead).length]!, opWidth(ops[i]!.w)),
      // Lane-wise wave records (v_cmpx) see the case's operands in every lane; the
      // cross-lane ones (readlane, readfirstlane) have no case here.
      readLanes: (i) => new Array<CV>(64).fill(u(c.src[ops.slice(0, i).filter(isRead).length]!, opWidth(ops[i]!.w))),
      write: (_i, x) => void writes.push(x),
      writeLanes: () => {
        throw new Error(`${rec.mnemonic}: a cross-lane record has no record-level case`);
      },
      exec: () => exec,
      setExec: (x) => void (exec = x),
      scc: () => scc,
      setScc: (b) => void (scc = b),
    };
    sem.wave(concrete, io);
    return [...writes, ...(rec.defs?.includes("exec") ? [exec] : []), ...(rec.defs?.includes("scc") ? [concrete.fromB(scc)] : [])];
  }
  throw new Error(`${rec.mnemonic}: branch records have no record-level case`);
}

// ---------------------------------------------------------------------------------------
// Record level: folding

/** A folded function result: a constant, poison, undef, or a body LLVM left unfolded. */
export type Folded = { kind: "const"; value: bigint } | { kind: "poison" | "undef" } | { kind: "unfolded"; body: string };

/** Parses `opt -S` output: the result of each `@<prefix><N>()` function, by N. */
export function parseFolded(ll: string, prefix = "t"): Map<number, Folded> {
  const out = new Map<number, Folded>();
  const re = new RegExp(`^define [^@]*@${prefix}(\\d+)\\(\\)[^{]*\\{\\n([\\s\\S]*?)\\n\\}`, "gm");
  for (const m of ll.matchAll(re)) {
    const n = Number(m[1]);
    const body = m[2]!.trim();
    const r = /^ret i(\d+) (\S+)$/.exec(body);
    if (!r) {
      out.set(n, { kind: "unfolded", body });
      continue;
    }
    const w = Number(r[1]);
    const v = r[2]!;
    if (v === "poison" || v === "undef") out.set(n, { kind: v });
    else if (v === "true" || v === "false") out.set(n, { kind: "const", value: v === "true" ? 1n : 0n });
    else if (/^-?\d+$/.test(v)) out.set(n, { kind: "const", value: BigInt.asUintN(w, BigInt(v)) });
    else out.set(n, { kind: "unfolded", body });
  }
  return out;
}

const irLit = (x: bigint, w: number) => (w === 1 ? (x ? "true" : "false") : BigInt.asIntN(w, x).toString());

/** Packs outputs into one integer: out[0] in the low bits. */
function pack(outs: { w: number; x: bigint }[]): { w: number; x: bigint } {
  let x = 0n;
  let w = 0;
  for (const o of outs) {
    x |= BigInt.asUintN(o.w, o.x) << BigInt(w);
    w += o.w;
  }
  return { w, x };
}

/** The `@t<id>` function of one record case: the counterpart's outputs packed into one integer. */
function caseFunction(id: number, cp: Counterpart, c: RecordCase, widths: number[], decls: Set<string>): string {
  const e = new CIr();
  const outs = cp.ir(e, {
    src: c.src.map((x, i) => irLit(x, widths[i]!)),
    scc: c.scc ? "true" : "false",
    exec: irLit(c.exec, 64),
    lane: c.lane,
  });
  for (const d of e.decls) decls.add(d);
  const total = outs.reduce((s, o) => s + o.w, 0);
  let acc = "";
  let off = 0;
  for (const o of outs) {
    const z = o.w === total ? o.v : e.op(`zext i${o.w} ${o.v} to i${total}`);
    const sh = off === 0 ? z : e.op(`shl i${total} ${z}, ${off}`);
    acc = acc ? e.op(`or i${total} ${acc}, ${sh}`) : sh;
    off += o.w;
  }
  if (!acc.startsWith("%")) acc = e.op(`freeze i${total} ${acc}`);
  return `define i${total} @t${id}() {\n${e.lines.join("\n")}\n  ret i${total} ${acc}\n}`;
}

export interface RecordDisagreement {
  inputs: string;
  record: string;
  llvm: string;
}

export interface RecordReport {
  mnemonic: string;
  /**
   * agrees: every folded case equal; disagrees: some differ; not-folded: LLVM folded none;
   * no-counterpart: listed with its manual section; uncovered: neither table knows it.
   */
  status: "agrees" | "disagrees" | "not-folded" | "no-counterpart" | "uncovered";
  llvm?: string;
  /** Manual section (no-counterpart) or a note on uncompared outputs. */
  note?: string;
  cases: number;
  agreed: number;
  notFolded: number;
  disagreements: RecordDisagreement[];
}

const hex = (x: bigint, w: number) => `0x${BigInt.asUintN(w, x).toString(16).padStart(Math.ceil(w / 4), "0")}`;

/**
 * Generates `perRecord` cases for each record with a counterpart, folds them with opt, and
 * compares. Records are taken from the live table (`RECORDS`), so records others add are
 * reported as "uncovered" until they get an entry here.
 */
export async function crosscheckRecords(opts: {
  perRecord: number;
  seed: number;
  /** Restrict to these mnemonics. */
  only?: readonly string[];
  /** Replace counterparts (the tests use this to show a wrong counterpart is refuted). */
  override?: Readonly<Record<string, Counterpart>>;
  tools?: LlvmTools;
}): Promise<RecordReport[]> {
  const tools = opts.tools ?? LLVM19;
  const reports: RecordReport[] = [];
  const jobs: { rep: RecordReport; rec: IsaRecord; cp: Counterpart; cases: RecordCase[]; first: number }[] = [];
  const funcs: string[] = [];
  const decls = new Set<string>();
  let id = 0;
  const recs = [...RECORDS.values()].filter((r) => !opts.only || opts.only.includes(r.mnemonic));
  for (const rec of recs) {
    const cp = opts.override?.[rec.mnemonic] ?? counterpartOf(rec.mnemonic);
    const rep: RecordReport = { mnemonic: rec.mnemonic, status: "agrees", cases: 0, agreed: 0, notFolded: 0, disagreements: [] };
    reports.push(rep);
    if (!cp) {
      const why = NO_COUNTERPART[rec.mnemonic];
      rep.status = why ? "no-counterpart" : "uncovered";
      rep.note = why ?? `no counterpart and no manual section listed (record: ${rec.desc})`;
      continue;
    }
    rep.llvm = cp.llvm;
    if (cp.note) rep.note = cp.note;
    const srcW = rec.ops.filter(isRead).map((o) => opWidth(o.w));
    const rng = new Rng(opts.seed ^ hashString(rec.mnemonic));
    const cases: RecordCase[] = [];
    for (let i = 0; i < opts.perRecord; i++) {
      cases.push({
        src: srcW.map((w, j) => genValue(rng, cp.gen?.[j] ?? "val", w, i)),
        scc: rng.chance(0.5),
        exec: rng.chance(0.2) ? rng.pick([0n, (1n << 64n) - 1n, 1n, 1n << 63n]) : rng.bits(64),
        lane: rng.below(64),
      });
    }
    jobs.push({ rep, rec, cp, cases, first: id });
    for (const c of cases) funcs.push(caseFunction(id++, cp, c, srcW, decls));
  }
  // Fold in chunks, in parallel.
  const CHUNK = 20000;
  const folded = new Map<number, Folded>();
  const chunks: Promise<void>[] = [];
  for (let i = 0; i < funcs.length; i += CHUNK) {
    const text = [...decls, ...funcs.slice(i, i + CHUNK)].join("\n") + "\n";
    chunks.push(
      runTool(tools.opt, ["-mtriple=amdgcn", "-passes=instcombine", "-S"], text).then((out) => {
        for (const [k, v] of parseFolded(out)) folded.set(k, v);
      }),
    );
  }
  await Promise.all(chunks);
  for (const { rep, rec, cp, cases, first } of jobs) {
    const srcW = rec.ops.filter(isRead).map((o) => opWidth(o.w));
    cases.forEach((c, i) => {
      rep.cases++;
      const f = folded.get(first + i);
      if (!f || f.kind !== "const") {
        rep.notFolded++;
        return;
      }
      const all = recordOutputs(rec, c);
      const picked = (cp.pick ?? all.map((_, j) => j)).map((j) => ({ w: all[j]!.w, x: all[j]!.x }));
      const mine = pack(picked);
      if (mine.x === f.value) rep.agreed++;
      else {
        rep.status = "disagrees";
        if (rep.disagreements.length < 10)
          rep.disagreements.push({
            inputs: c.src.map((x, j) => hex(x, srcW[j]!)).join(", ") + (rec.uses?.includes("scc") ? ` scc=${c.scc}` : "") + ("lane" in rec.sem && srcW.includes(64) && rec.ops.some((o) => o.w === "wave") ? ` lane=${c.lane}` : ""),
            record: hex(mine.x, mine.w),
            llvm: hex(f.value, mine.w),
          });
      }
    });
    if (rep.status === "agrees" && rep.agreed === 0) rep.status = "not-folded";
  }
  return reports;
}

// ---------------------------------------------------------------------------------------
// Sequence level: targets, llc, extraction

/** A compilation target: an mcpu and a wave size (gfx9 is wave64 only; gfx10+ default wave32). */
export interface SeqTarget {
  mcpu: Mcpu;
  wave: 32 | 64;
}
export const LANE_TARGETS: readonly SeqTarget[] = [
  { mcpu: "gfx900", wave: 64 },
  { mcpu: "gfx90a", wave: 64 },
  { mcpu: "gfx942", wave: 64 },
  { mcpu: "gfx1030", wave: 32 },
  { mcpu: "gfx1100", wave: 32 },
];
export const WAVE_TARGETS: readonly SeqTarget[] = [...LANE_TARGETS, { mcpu: "gfx1030", wave: 64 }, { mcpu: "gfx1100", wave: 64 }];
export const targetName = (t: SeqTarget) => `${t.mcpu}${t.mcpu.startsWith("gfx1") ? (t.wave === 64 ? "+w64" : "/w32") : ""}`;

/**
 * llc flags. SDWA peepholes and VOPD dual issue are switched off: the interpreter models
 * neither encoding (asm.ts rejects them), and both only re-encode the same operations.
 */
export function llcArgs(t: SeqTarget): string[] {
  const a = ["-O2", "-march=amdgcn", `-mcpu=${t.mcpu}`, "-amdgpu-sdwa-peephole=0", "-amdgpu-enable-vopd=0"];
  if (t.mcpu.startsWith("gfx1") && t.wave === 64) a.push("-mattr=+wavefrontsize64");
  return a;
}

/**
 * llc's assembly for IR text `ll` on target `t` (`llcArgs`); the same text and target again
 * in a process is not compiled again (`cachedTool`).
 * @throws Error when llc fails (its first error lines)
 */
export async function llc(ll: string, t: SeqTarget, tools: LlvmTools = LLVM19): Promise<string> {
  return cachedTool(tools.llc, llcArgs(t), ll);
}

/**
 * Compiles IR functions for a target and returns each one's code as `MLine`s (or why it
 * cannot be parsed): what the benchmark compares the project's routines with.
 */
export async function compileIr(funcs: readonly IrFunc[], t: SeqTarget, tools: LlvmTools = LLVM19): Promise<Map<string, { lines: MLine[] } | { error: string }>> {
  const asm = await llc(irModule(funcs), t, tools);
  const out = new Map<string, { lines: MLine[] } | { error: string }>();
  for (const f of funcs) {
    try {
      const code = recorded(parseAsm(functionBody(asm, f.name), { rule: `llc:${targetName(t)}`, gen: TARGETS[t.mcpu].gen }));
      out.set(f.name, "lines" in code ? code : { error: `no record for ${code.missing.join(", ")}` });
    } catch (e) {
      out.set(f.name, { error: (e as Error).message });
    }
  }
  return out;
}

/** Where llc's calling convention puts the first three `inreg` (uniform) i32 arguments. */
export async function inregRegisters(t: SeqTarget, tools: LlvmTools = LLVM19): Promise<number[]> {
  const fns = [0, 1, 2].map((k) => `define i32 @p${k}(i32 %v, i32 inreg %a0, i32 inreg %a1, i32 inreg %a2) {\n  ret i32 %a${k}\n}`);
  const asm = await llc(fns.join("\n") + "\n", t, tools);
  return [0, 1, 2].map((k) => {
    const m = /v_mov_b32_e32 v0, s(\d+)/.exec(functionBody(asm, `p${k}`));
    if (!m) throw new Error(`cannot locate inreg argument ${k} on ${targetName(t)}`);
    return Number(m[1]);
  });
}

// ---------------------------------------------------------------------------------------
// Sequence level: the cases

/** A lane-wise meaning: results (u32) per lane from the lane's arguments, or undefined. */
export type LaneMeaning = (args: bigint[]) => { values: bigint[]; defined: boolean };

export interface SeqFunction {
  /** Form class: szext, video, match, defect (the known LLVM defect), xlane, control (branches). */
  cls: "szext" | "video" | "match" | "defect" | "xlane" | "control";
  fn: IrFunc;
  /** Readable: form name, variant, operand kinds. */
  label: string;
  variant: "derived" | "best" | "ir";
  /** Only for this wave size (the match IR picks its ballot width). */
  wave?: 32 | 64;
  /** Only on these ISA generations (a DPP control gfx9 alone has, such as `wave_shr`). */
  gens?: readonly (9 | 10 | 11)[];
  /** The lane-wise form, whose selectors shape the checker inputs. */
  form?: SzextForm | VshForm;
  meaning: { lane: LaneMeaning } | { warp: MatchForm; variant: "loop" | "uniform" } | { xlane: XlaneKind } | { wave: WaveMeaning };
}

type XlaneKind = "readfirstlane" | "readlane" | "ballot" | "mbcnt";

/**
 * A whole-wave meaning, for cross-lane IR whose meaning the caller states (the warp records'
 * crosscheck, ./warp_records.ts): `inputs` draws one wave's arguments (per lane,
 * uniform ones read from lane 0) and exec; `expect` gives each active lane's results, or
 * undefined where the IR leaves the lane undefined. `gen` is the target's ISA generation.
 */
export interface WaveMeaning {
  inputs: (rng: Rng, W: 32 | 64) => { perLane: bigint[][]; exec: bigint };
  expect: (perLane: bigint[][], exec: bigint, W: 32 | 64, gen: 9 | 10 | 11) => (bigint[] | undefined)[];
}

const kindsTag = (k: ArgKinds, names: readonly string[]) => names.map((n) => k[n as "a"] ?? "v").join("");

/** szext: the 4 forms × derived/best × operand kinds (vv, vs, sv, ss). */
export function szextFunctions(): SeqFunction[] {
  const out: SeqFunction[] = [];
  const kindsList: ArgKinds[] = [{}, { b: "s" }, { a: "s" }, { a: "s", b: "s" }];
  for (const f of szextForms())
    for (const kinds of kindsList) {
      const tag = kindsTag(kinds, ["a", "b"]);
      const v = formIrVariants(`${formId(f)}__${tag}`, f, "isa", kinds);
      const meaning: LaneMeaning = ([a, b]) => ({ values: [szext(concrete, f, u(a!), u(b!)).value.x], defined: true });
      for (const variant of ["derived", "best"] as const)
        out.push({ cls: "szext", fn: v[variant], label: `${formName(f)} [${variant}, ${tag}]`, variant, form: f, meaning: { lane: meaning } });
    }
  return out;
}

/** Every (vop, dtype, atype, sat, mode, tail) combination: 2·2·2·2·2·10 = 320. */
function* vshCombos(): Generator<VshForm> {
  for (const f of vshForms()) if (f.asel === null && f.bsel === null) yield f;
}

/**
 * A representative set of video forms: every (vop, dtype, atype, sat, mode, tail kind)
 * combination without selectors, and `withSel` more per combination with selectors chosen
 * so that every asel and bsel value occurs for each combination class.
 */
export function videoForms(withSel: number): VshForm[] {
  const out: VshForm[] = [];
  let i = 0;
  const opt: (Sel | null)[] = [null, ...SELS];
  for (const f of vshCombos()) {
    out.push(f);
    for (let j = 0; j < withSel; j++, i++) {
      const asel = opt[1 + ((i + j) % 6)]!;
      const bsel = opt[(i * 5 + j * 3) % 7]!;
      out.push({ ...f, asel, bsel });
    }
  }
  return out;
}

export function videoFunctions(forms: readonly VshForm[], profiles: readonly Profile[], uniformEvery = 0): SeqFunction[] {
  const out: SeqFunction[] = [];
  forms.forEach((f, idx) => {
    for (const profile of profiles) {
      const kindsList: ArgKinds[] = [{}];
      if (uniformEvery > 0 && idx % uniformEvery === 0) kindsList.push({ a: "s", b: "s", c: "s" });
      for (const kinds of kindsList) {
        const names = f.tail.kind === "none" ? ["a", "b"] : ["a", "b", "c"];
        const tag = kindsTag(kinds, names);
        const v = formIrVariants(`${formId(f)}__${profile}__${tag}`, f, profile, kinds);
        const meaning: LaneMeaning = ([a, b, c]) => ({ values: [vsh(concrete, f, profile, u(a!), u(b!), u(c ?? 0n)).value.x], defined: true });
        for (const variant of ["derived", "best"] as const)
          out.push({ cls: "video", fn: v[variant], label: `${formName(f)} [${profile}, ${variant}, ${tag}]`, variant, form: f, meaning: { lane: meaning } });
      }
    }
  });
  return out;
}

/** match.any/all × b32/b64 × IR variant, one function per wave size. */
export function matchFunctions(): SeqFunction[] {
  const out: SeqFunction[] = [];
  for (const type of ["b32", "b64"] as const)
    for (const mode of ["any", "all"] as const)
      for (const variant of mode === "any" ? (["loop"] as const) : (["loop", "uniform"] as const))
        for (const wave of [32, 64] as const) {
          const f: MatchForm = { op: "match", mode, type, dest: mode === "all" ? "d|p" : "d" };
          out.push({
            cls: "match",
            fn: matchIr(`${formId(f)}__${variant}__w${wave}`, f, wave, variant),
            label: `${formName(f)} [${variant} IR, ballot.i${wave}]`,
            variant: "ir",
            wave,
            meaning: { warp: f, variant },
          });
        }
  return out;
}

/**
 * The known-defect patterns `(x << (32 - n)) >>a (32 - n)` and its `>>` twin, divergent and
 * uniform; their meaning is the IR's own (LLVM shifts), not PTX's.
 */
export function defectFunctions(): SeqFunction[] {
  const out: SeqFunction[] = [];
  for (const op of ["ashr", "lshr"] as const)
    for (const inreg of [false, true]) {
      const meaning: LaneMeaning = ([x, n]) => {
        const r = shlShrMeaning(concrete, op, u(x!), u(n!));
        return { values: [r.value.x], defined: r.defined };
      };
      out.push({
        cls: "defect",
        fn: shlShrIr(`shl_${op}_32_minus_n__${inreg ? "ss" : "vv"}`, op, inreg),
        label: `${op}(shl(x, 32 - n), 32 - n) [${inreg ? "ss" : "vv"}]`,
        variant: "ir",
        meaning: { lane: meaning },
      });
    }
  return out;
}

const M32 = 0xffffffffn;
const CONTROL_IR = `
define i32 @uniform_if_else(i32 inreg %a, i32 inreg %b, i32 %v) {
entry:
  %c = icmp ult i32 %a, %b
  br i1 %c, label %t, label %e
t:
  %x1 = shl i32 %v, 3
  %x2 = xor i32 %x1, %b
  %x3 = lshr i32 %x2, 5
  %x4 = add i32 %x3, %v
  %x5 = or i32 %x4, %a
  br label %j
e:
  %y1 = lshr i32 %v, 7
  %y2 = sub i32 %y1, %a
  %y3 = xor i32 %y2, %v
  %y4 = shl i32 %y3, 2
  %y5 = and i32 %y4, %b
  br label %j
j:
  %r = phi i32 [ %x5, %t ], [ %y5, %e ]
  ret i32 %r
}
define i32 @divergent_if_else(i32 %v, i32 %w) {
entry:
  %c = icmp ult i32 %v, %w
  br i1 %c, label %t, label %e
t:
  %x1 = shl i32 %v, 3
  %x2 = xor i32 %x1, %w
  %x3 = lshr i32 %x2, 5
  %x4 = add i32 %x3, %v
  %x5 = or i32 %x4, %w
  br label %j
e:
  %y1 = lshr i32 %v, 7
  %y2 = sub i32 %y1, %w
  %y3 = xor i32 %y2, %v
  %y4 = shl i32 %y3, 2
  %y5 = and i32 %y4, %w
  br label %j
j:
  %r = phi i32 [ %x5, %t ], [ %y5, %e ]
  ret i32 %r
}
define i32 @uniform_loop(i32 inreg %n, i32 %v) {
entry:
  %k = and i32 %n, 15
  %z = icmp eq i32 %k, 0
  br i1 %z, label %exit, label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %r = phi i32 [ %v, %entry ], [ %r1, %loop ]
  %s = shl i32 %r, 1
  %r1 = xor i32 %s, %i
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %k
  br i1 %more, label %loop, label %exit
exit:
  %out = phi i32 [ %v, %entry ], [ %r1, %loop ]
  ret i32 %out
}
define i32 @divergent_loop(i32 %n, i32 %v) {
entry:
  %k = and i32 %n, 15
  %z = icmp eq i32 %k, 0
  br i1 %z, label %exit, label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i1, %loop ]
  %r = phi i32 [ %v, %entry ], [ %r1, %loop ]
  %s = shl i32 %r, 1
  %r1 = xor i32 %s, %i
  %i1 = add i32 %i, 1
  %more = icmp ult i32 %i1, %k
  br i1 %more, label %loop, label %exit
exit:
  %out = phi i32 [ %v, %entry ], [ %r1, %loop ]
  ret i32 %out
}
`;

/**
 * Branches and loops, uniform (SCC branches) and divergent (exec masking, v_cmpx,
 * s_and/andn2_saveexec, s_cbranch_execz/execnz): the SOPP records have no folding oracle,
 * so llc's control flow is their check. The meaning is plain u32 arithmetic.
 */
export function controlFunctions(): SeqFunction[] {
  // then: (((v << 3) ^ q) >> 5) + v) | p;  else: ((((v >> 7) - p) ^ v) << 2) & q
  const ifElse = (cond: boolean, p: bigint, q: bigint, v: bigint) =>
    cond ? ((((((v << 3n) & M32) ^ q) >> 5n) + v) & M32) | p : ((((((v >> 7n) - p) & M32) ^ v) << 2n) & M32) & q;
  const loop = (n: bigint, v: bigint) => {
    let r = v;
    for (let i = 0n; i < (n & 15n); i++) r = ((r << 1n) & M32) ^ i;
    return r;
  };
  const mk = (name: string, args: IrFunc["args"], meaning: LaneMeaning): SeqFunction => {
    const text = CONTROL_IR.split(/\n(?=define )/).find((t) => t.includes(`@${name}(`))!.trim() + "\n";
    return { cls: "control", fn: { name, args, results: [32], text, decls: [] }, label: name.replace(/_/g, " "), variant: "ir", meaning: { lane: meaning } };
  };
  return [
    mk("uniform_if_else", [{ name: "a", width: 32, inreg: true }, { name: "b", width: 32, inreg: true }, { name: "v", width: 32 }], ([a, b, v]) => ({ values: [ifElse(a! < b!, a!, b!, v!)], defined: true })),
    mk("divergent_if_else", [{ name: "v", width: 32 }, { name: "w", width: 32 }], ([v, w]) => ({ values: [ifElse(v! < w!, w!, w!, v!)], defined: true })),
    mk("uniform_loop", [{ name: "n", width: 32, inreg: true }, { name: "v", width: 32 }], ([n, v]) => ({ values: [loop(n!, v!)], defined: true })),
    mk("divergent_loop", [{ name: "n", width: 32 }, { name: "v", width: 32 }], ([n, v]) => ({ values: [loop(n!, v!)], defined: true })),
  ];
}

/** Cross-lane primitives: readfirstlane, readlane (uniform lane index), ballot. Meaning per LLVM's AMDGPUUsage. */
export function xlaneFunctions(): SeqFunction[] {
  const out: SeqFunction[] = [];
  for (const wave of [32, 64] as const) {
    const mk = (kind: XlaneKind, text: string, decl: string, args: IrFunc["args"], results: number[]) =>
      out.push({
        cls: "xlane",
        fn: { name: `${kind}__w${wave}`, args, results, text, decls: [decl] },
        label: `llvm.amdgcn.${kind} [ballot.i${wave}]`,
        variant: "ir",
        wave,
        meaning: { xlane: kind },
      });
    mk(
      "readfirstlane",
      `define i32 @readfirstlane__w${wave}(i32 %a) {\n  %r = call i32 @llvm.amdgcn.readfirstlane.i32(i32 %a)\n  ret i32 %r\n}\n`,
      "declare i32 @llvm.amdgcn.readfirstlane.i32(i32)",
      [{ name: "a", width: 32 }],
      [32],
    );
    mk(
      "readlane",
      `define i32 @readlane__w${wave}(i32 %a, i32 inreg %l) {\n  %r = call i32 @llvm.amdgcn.readlane.i32(i32 %a, i32 %l)\n  ret i32 %r\n}\n`,
      "declare i32 @llvm.amdgcn.readlane.i32(i32, i32)",
      [
        { name: "a", width: 32 },
        { name: "l", width: 32, inreg: true },
      ],
      [32],
    );
    mk(
      "mbcnt",
      `define { i32, i32 } @mbcnt__w${wave}(i32 %a, i32 %b) {\n  %lo = call i32 @llvm.amdgcn.mbcnt.lo(i32 %a, i32 %b)\n  %hi = call i32 @llvm.amdgcn.mbcnt.hi(i32 %a, i32 %b)\n  %r0 = insertvalue { i32, i32 } undef, i32 %lo, 0\n  %r1 = insertvalue { i32, i32 } %r0, i32 %hi, 1\n  ret { i32, i32 } %r1\n}\n`,
      "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)\ndeclare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)",
      [
        { name: "a", width: 32 },
        { name: "b", width: 32 },
      ],
      [32, 32],
    );
    const ball =
      wave === 64
        ? `  %bal = call i64 @llvm.amdgcn.ballot.i64(i1 %c)\n  %lo = trunc i64 %bal to i32\n  %s = lshr i64 %bal, 32\n  %hi = trunc i64 %s to i32`
        : `  %lo = call i32 @llvm.amdgcn.ballot.i32(i1 %c)\n  %hi = add i32 0, 0`;
    mk(
      "ballot",
      `define { i32, i32 } @ballot__w${wave}(i32 %a, i32 %b) {\n  %c = icmp ult i32 %a, %b\n${ball}\n  %r0 = insertvalue { i32, i32 } undef, i32 %lo, 0\n  %r1 = insertvalue { i32, i32 } %r0, i32 %hi, 1\n  ret { i32, i32 } %r1\n}\n`,
      `declare i${wave} @llvm.amdgcn.ballot.i${wave}(i1)`,
      [
        { name: "a", width: 32 },
        { name: "b", width: 32 },
      ],
      [32, 32],
    );
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Sequence level: running

/** One comparison that failed. */
export interface SeqDisagreement {
  cls: SeqFunction["cls"];
  label: string;
  fn: string;
  target: string;
  lane: number;
  /** Argument values (lane-wise) or a warp description. */
  inputs: string;
  args?: bigint[];
  expected: string;
  got: string;
  /** The compared values (absent when the run itself failed). */
  expectedValues?: bigint[];
  gotValues?: bigint[];
  code: string[];
  /** Filled by triage: who is wrong and why; the IR's value on these inputs per `opt -O2`. */
  side?: "LLVM" | "project IR" | "project interpreter" | "undecided";
  why?: string;
  irMeaning?: string;
}

export interface SeqClassReport {
  cls: SeqFunction["cls"];
  functions: number;
  compiled: number;
  /** Per-lane results compared / agreeing. */
  cases: number;
  agreed: number;
  disagreements: SeqDisagreement[];
  /** Functions whose llc output the interpreter cannot run (missing record, modifier …). */
  unsupported: { label: string; target: string; reason: string }[];
  /** Mnemonics executed, with counts (what the records were exercised on). */
  mnemonics: Map<string, number>;
}

type Fail = (lane: number, inputs: string, args: bigint[] | undefined, expected: bigint[] | string, got: bigint[] | string) => void;

function hexArgs(args: bigint[]): string {
  return args.map((x) => hex(x, 32)).join(", ");
}

/**
 * The checker's inputs for a lane-wise function (src/check/inputs.ts): every corner a ×
 * every b of `bValues()` (0..70, 2^k ± 1, huge), c a corner, then `random` seeded random
 * cases; shuffled with the seed. A selector's field receives the corner (the other bytes get
 * garbage), so `.b2`/`.h1` see b = 0, 31, 32, 33 … too.
 */
export function checkerCases(sf: SeqFunction, rng: Rng, random = 256): bigint[][] {
  const f = sf.form;
  const place = (x: bigint, sel: Sel | null | undefined) => {
    if (!sel || rng.chance(0.25)) return x;
    const { lo, width } = selField(sel);
    const field = ((1n << BigInt(width)) - 1n) << BigInt(lo);
    return ((x << BigInt(lo)) & field) | (rng.bits(32) & ~field & 0xffffffffn);
  };
  const asel = f?.op === "szext" ? null : f?.asel;
  const bsel = f?.op === "szext" ? null : f?.bsel;
  const out: bigint[][] = [];
  const bs = bValues();
  for (const a of CORNERS) for (const b of bs) out.push([place(a, asel), place(b, bsel), CORNERS[Number(b % BigInt(CORNERS.length))]!]);
  for (let i = 0; i < random; i++) {
    const b = rng.chance(0.5) ? BigInt(rng.below(72)) : rng.bits(32);
    out.push([place(rng.chance(0.5) ? rng.bits(32) : rng.pick(CORNERS), asel), place(b, bsel), rng.bits(32)]);
  }
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.below(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out.map((c) => c.slice(0, sf.fn.args.length));
}

/** Run k's per-lane arguments: lane l takes case k·W + l; uniform (inreg) args come from lane 0's case. */
function laneArgsFor(cases: bigint[][], sf: SeqFunction, W: number, k: number): bigint[][] {
  const at = (i: number) => cases[i % cases.length]!;
  const base = k * W;
  return Array.from({ length: W }, (_, l) => sf.fn.args.map((a, i) => (a.inreg ? at(base)[i]! : at(base + l)[i]!)));
}

/** Registers the code names (pairs counted), so a run can start with them holding garbage. */
function registersOf(code: MLine[]): { v: number[]; s: number[] } {
  const v = new Set<number>();
  const s = new Set<number>();
  for (const l of code)
    if (!isLabel(l))
      for (const o of l.ops) if (o.k === "v" || o.k === "s") for (let i = 0; i < o.count; i++) (o.k === "v" ? v : s).add(o.n + i);
  return { v: [...v], s: [...s] };
}

/** `initialStateIn`'s garbage VGPR lanes per algebra, by register and wave. */
const fillCache = new WeakMap<object, Map<number, unknown[]>>();

/** Registers the code names, per code array (a compiled function is run once per warp). */
const registersCache = new WeakMap<MLine[], { v: number[]; s: number[] }>();

/**
 * A fresh wave with `args` placed: VGPR args in v0.. (pairs for i64), inreg args in `sregs`.
 * Every other register the code names holds garbage, as on hardware. Also the start state of
 * the compiled `hip`/`llvm` functions (targets/llvm/compiled.ts).
 */
export function initialState(W: 32 | 64, fn: IrFunc, perLane: bigint[][], exec: bigint, sregs: number[], code: MLine[], gen?: 9 | 10 | 11): WaveState<CV, boolean> {
  return initialStateIn(concrete, W, fn, perLane, exec, sregs, code, gen);
}

/** `initialState` over another concrete interpretation `bv` (targets/llvm/compiled.ts runs on src/sem/bv_number.ts). */
export function initialStateIn<V>(bv: BV<V, boolean>, W: 32 | 64, fn: IrFunc, perLane: bigint[][], exec: bigint, sregs: number[], code: MLine[], gen?: 9 | 10 | 11): WaveState<V, boolean> {
  const k = (x: bigint, w: number) => bv.k(x, w);
  const st: WaveState<V, boolean> = { wave: W, vgpr: new Map(), sgpr: new Map(), vcc: k(0x5a5a5a5a5a5a5a5an, W), exec: k(exec, W), scc: false };
  if (gen !== undefined) st.gen = gen;
  let regs = registersCache.get(code);
  if (!regs) registersCache.set(code, (regs = registersOf(code)));
  // The garbage lanes, made once per (algebra, wave, register): values are immutable, and a
  // run gets its own copy of the array.
  let fill = fillCache.get(bv);
  if (!fill) fillCache.set(bv, (fill = new Map()));
  for (const n of regs.v) {
    const key = n * 2 + (W === 64 ? 1 : 0);
    let lanes = fill.get(key) as V[] | undefined;
    if (!lanes) fill.set(key, (lanes = Array.from({ length: W }, (_, l) => bv.k(0xbad00000 + n * 64 + l, 32))));
    st.vgpr.set(n, lanes.slice());
  }
  for (const n of regs.s) st.sgpr.set(n, bv.k(0x5ca1ab1e + n, 32));
  let vn = 0;
  let sn = 0;
  fn.args.forEach((a, i) => {
    const parts = a.width / 32;
    for (let p = 0; p < parts; p++) {
      // A u32 argument (the common case) as a number: no bigint shift per lane.
      const part = (x: bigint) => (p === 0 && x >= 0n && x <= 0xffffffffn ? bv.k(Number(x), 32) : k(x >> BigInt(32 * p), 32));
      if (a.inreg) st.sgpr.set(sregs[sn++]!, part(perLane[0]![i]!));
      else {
        // A plain loop (Array.from is several times slower here, and this runs per wave), and
        // one conversion per run of equal lane values (a uniform argument: one per wave).
        const lanes = new Array<V>(W);
        let prev: bigint | undefined;
        let value: V | undefined;
        for (let l = 0; l < W; l++) {
          const x = perLane[l]?.[i] ?? 0xdeadbeefn;
          if (x !== prev || value === undefined) {
            value = part(x);
            prev = x;
          }
          lanes[l] = value;
        }
        st.vgpr.set(vn++, lanes);
      }
    }
  });
  return st;
}

function countMnemonics(code: MLine[], into: Map<string, number>): void {
  for (const l of code) if (!isLabel(l)) into.set(l.op, (into.get(l.op) ?? 0) + 1);
}

function listing(code: MLine[]): string[] {
  return code.map((l) => (isLabel(l) ? `${l.label}:` : `  ${l.op}${l.enc ? `_${l.enc}` : ""} ${l.ops.map(printOp).join(", ")}`));
}

/** Random defined warps for match.sync: active lanes, membermask groups, values with collisions. */
function matchWarp(rng: Rng, f: MatchForm, variant: "loop" | "uniform") {
  const full = 0xffffffff;
  const r = rng.below(8);
  let active = r === 0 ? full : r === 1 ? 1 << rng.below(32) : rng.u32() | (1 << rng.below(32));
  active >>>= 0;
  const lanes = [...Array(WARP).keys()].filter((l) => (active >>> l) & 1);
  const nGroups = variant === "uniform" ? 1 : 1 + rng.below(Math.min(4, lanes.length));
  const group = new Map<number, number>();
  for (const l of lanes) group.set(l, rng.below(nGroups));
  const mms: number[] = [];
  for (let g = 0; g < nGroups; g++) {
    let mm = 0;
    for (const l of lanes) if (group.get(l) === g) mm |= 1 << l;
    // Exited lanes may be named: they are dropped (shared/vectors/FORMAT.md).
    if (rng.chance(0.5)) mm |= rng.u32() & ~active;
    mms.push(mm >>> 0);
  }
  const w = f.type === "b64" ? 64 : 32;
  const nVals = rng.chance(0.3) ? 1 : 1 + rng.below(6);
  const base = rng.bits(w);
  const pool = [...Array(nVals).keys()].map((i) => {
    if (w === 64 && i % 3 === 1) return base ^ (rng.bits(32) << 32n); // same low half
    if (w === 64 && i % 3 === 2) return base ^ rng.bits(32); // same high half
    return i === 0 ? base : rng.bits(w);
  });
  const a = [...Array(WARP).keys()].map((l) => (group.has(l) ? rng.pick(pool) : rng.bits(w)));
  const membermask = [...Array(WARP).keys()].map((l) => (group.has(l) ? mms[group.get(l)!]! : rng.u32()));
  return { active, a, membermask, w };
}

/**
 * Compiles `funcs` for every target, runs each in the interpreter on `runs` waves of inputs,
 * and compares with the meaning. Returns one report per form class.
 */
export async function crosscheckSequences(opts: {
  funcs: readonly SeqFunction[];
  targets?: readonly SeqTarget[];
  /** Waves of inputs per function and target. */
  runs: number;
  /** Per-class overrides of `runs` (e.g. more random warps for match). */
  runsFor?: Partial<Record<SeqFunction["cls"], number>>;
  /** Classes whose lane-wise functions run on every checker input (`checkerCases`), not `runs` waves. */
  allInputs?: readonly SeqFunction["cls"][];
  /** For all-uniform functions under `allInputs`: checker cases per run (1 = every case). */
  uniformLanes?: number;
  seed: number;
  tools?: LlvmTools;
  /** Record-level verdicts, for triage (a record that disagreed or has no counterpart leaves a case undecided). */
  recordVerdicts?: ReadonlyMap<string, RecordReport["status"]>;
  onProgress?: (msg: string) => void;
  /**
   * Called with every function's parsed code (waits kept) that the interpreter runs: the hazard
   * crosscheck of llc's own code (targets/amdgpu/oracle/llc_hazards.ts) takes it from here.
   */
  onCode?: (sf: SeqFunction, t: SeqTarget, code: readonly MLine[]) => void;
}): Promise<SeqClassReport[]> {
  const tools = opts.tools ?? LLVM19;
  const targets = opts.targets ?? WAVE_TARGETS;
  // One function per name (a module cannot define a name twice).
  const byName = new Map(opts.funcs.map((f) => [f.fn.name, f]));
  const allFuncs = [...byName.values()];
  const reports = new Map<SeqFunction["cls"], SeqClassReport>();
  const rep = (cls: SeqFunction["cls"]) => {
    let r = reports.get(cls);
    if (!r) reports.set(cls, (r = { cls, functions: 0, compiled: 0, cases: 0, agreed: 0, disagreements: [], unsupported: [], mnemonics: new Map() }));
    return r;
  };
  for (const f of allFuncs) rep(f.cls).functions++;

  const runOne = (sf: SeqFunction, t: SeqTarget, asm: string, sregs: number[]) => {
    const r = rep(sf.cls);
    let parsed: ReturnType<typeof recorded>;
    try {
      parsed = recorded(parseAsm(functionBody(asm, sf.fn.name), { rule: `llc:${targetName(t)}`, gen: TARGETS[t.mcpu].gen }));
    } catch (e) {
      r.unsupported.push({ label: sf.label, target: targetName(t), reason: (e as Error).message });
      return;
    }
    if ("missing" in parsed) {
      r.unsupported.push({ label: sf.label, target: targetName(t), reason: `no record for ${parsed.missing.join(", ")}` });
      return;
    }
    const code = parsed.lines;
    r.compiled++;
    opts.onCode?.(sf, t, code);
    countMnemonics(code, r.mnemonics);
    const W = t.wave;
    const rng = new Rng(opts.seed ^ hashString(sf.fn.name + targetName(t)));
    const cases = "lane" in sf.meaning ? checkerCases(sf, rng) : [];
    const allUniform = sf.fn.args.every((a) => a.inreg);
    const runs =
      "lane" in sf.meaning && opts.allInputs?.includes(sf.cls)
        ? Math.ceil(cases.length / (allUniform ? Math.max(1, opts.uniformLanes ?? 1) : W))
        : (opts.runsFor?.[sf.cls] ?? opts.runs);
    const fail: Fail = (lane, inputs, args, expected, got) => {
      const show = (x: bigint[] | string) => (typeof x === "string" ? x : x.map((v) => hex(v, 32)).join(", "));
      const d: SeqDisagreement = { cls: sf.cls, label: sf.label, fn: sf.fn.name, target: targetName(t), lane, inputs, expected: show(expected), got: show(got), code: listing(code) };
      if (args) d.args = args;
      if (typeof expected !== "string" && typeof got !== "string") {
        d.expectedValues = expected;
        d.gotValues = got;
      }
      r.disagreements.push(d);
    };
    for (let k = 0; k < runs; k++) {
      try {
        if ("lane" in sf.meaning) {
          const perLane = laneArgsFor(cases, sf, W, allUniform ? k * (opts.uniformLanes ?? 1) : k);
          const exec = allUniform ? 1n : k % 4 === 3 ? rng.bits(W) | 1n : (1n << BigInt(W)) - 1n;
          const st = initialState(W, sf.fn, perLane, exec, sregs, code);
          const res = run(concrete, code, st);
          if (res.status !== "ok") throw new Error("step limit");
          for (let l = 0; l < W; l++) {
            if (!((exec >> BigInt(l)) & 1n)) continue;
            const m = sf.meaning.lane(perLane[l]!);
            if (!m.defined) continue;
            r.cases++;
            const got = m.values.map((_, j) => st.vgpr.get(j)![l]!.x);
            if (got.every((g, j) => g === m.values[j])) r.agreed++;
            else fail(l, hexArgs(perLane[l]!), perLane[l]!, m.values, got);
          }
        } else if ("warp" in sf.meaning) {
          const f = sf.meaning.warp;
          const w = matchWarp(rng, f, sf.meaning.variant);
          const ref = matchSync(concrete, f, {
            a: w.a.map((x) => u(x, w.w)),
            membermask: w.membermask.map((x) => u(x)),
            active: [...Array(WARP).keys()].map((l) => ((w.active >>> l) & 1) === 1),
            executes: [...Array(WARP).keys()].map((l) => ((w.active >>> l) & 1) === 1),
          });
          const perLane = [...Array(W).keys()].map((l) => [l < WARP ? w.a[l]! : rng.bits(w.w), l < WARP ? BigInt(w.membermask[l]!) : rng.bits(32)]);
          const st = initialState(W, sf.fn, perLane, BigInt(w.active), sregs, code);
          const res = run(concrete, code, st);
          if (res.status !== "ok") throw new Error("step limit");
          if (st.exec.x !== BigInt(w.active)) fail(-1, describeWarp(w), undefined, `exec ${hex(BigInt(w.active), W)}`, `exec ${hex(st.exec.x, W)}`);
          for (let l = 0; l < WARP; l++) {
            if (!((w.active >>> l) & 1)) continue;
            if (!ref.defined[l]) throw new Error(`generator produced an undefined match case (lane ${l})`);
            r.cases++;
            const want = f.mode === "all" ? [ref.d[l]!.x, ref.p[l] ? 1n : 0n] : [ref.d[l]!.x];
            const got = want.map((_, j) => st.vgpr.get(j)![l]!.x);
            if (got.every((g, j) => g === want[j])) r.agreed++;
            else fail(l, describeWarp(w), undefined, want, got);
          }
        } else if ("wave" in sf.meaning) {
          waveRun(sf, sf.meaning.wave, W, TARGETS[t.mcpu].gen, rng, code, sregs, r, fail);
        } else {
          xlaneRun(sf, W, rng, code, sregs, r, fail);
        }
      } catch (e) {
        fail(-1, `run ${k}`, undefined, "a completed run", `interpreter error: ${(e as Error).message}`);
        break;
      }
    }
  };

  const CHUNK = 150;
  const work: Promise<void>[] = [];
  for (const t of targets) {
    const waveOnlyTarget = !LANE_TARGETS.some((x) => x.mcpu === t.mcpu && x.wave === t.wave);
    const gen = TARGETS[t.mcpu].gen;
    const funcs = allFuncs.filter((f) => (f.wave === undefined ? !waveOnlyTarget : f.wave === t.wave) && (f.gens === undefined || f.gens.includes(gen)));
    const sregs = inregRegisters(t, tools);
    for (let i = 0; i < funcs.length; i += CHUNK) {
      const chunk = funcs.slice(i, i + CHUNK);
      work.push(
        (async () => {
          let asm: string;
          try {
            asm = await llc(irModule(chunk.map((f) => f.fn)), t, tools);
          } catch (e) {
            for (const sf of chunk) rep(sf.cls).unsupported.push({ label: sf.label, target: targetName(t), reason: (e as Error).message });
            return;
          }
          const regs = await sregs;
          for (const sf of chunk) runOne(sf, t, asm, regs);
          opts.onProgress?.(`${targetName(t)}: ${Math.min(i + CHUNK, funcs.length)}/${funcs.length}`);
        })(),
      );
    }
  }

  await Promise.all(work);
  const out = [...reports.values()];
  await triage(out, allFuncs, tools, opts.recordVerdicts);
  return out;
}

function describeWarp(w: { active: number; a: bigint[]; membermask: number[]; w: number }): string {
  const lanes = [...Array(WARP).keys()].filter((l) => (w.active >>> l) & 1);
  return `active=${hex(BigInt(w.active), 32)} ` + lanes.map((l) => `[${l}] a=${hex(w.a[l]!, w.w)} mm=${hex(BigInt(w.membermask[l]!), 32)}`).join(" ");
}

/**
 * One wave of a `WaveMeaning` function: its inputs drawn, llc's code run (with the target's
 * generation, so the LDS wait model and `ds_bpermute_b32`'s lane wrap apply), each active
 * lane's results compared with the stated meaning; no DS result may be outstanding at the end.
 */
function waveRun(sf: SeqFunction, m: WaveMeaning, W: 32 | 64, gen: 9 | 10 | 11, rng: Rng, code: MLine[], sregs: number[], r: SeqClassReport, fail: Fail): void {
  const { perLane, exec } = m.inputs(rng, W);
  const st = initialState(W, sf.fn, perLane, exec, sregs, code, gen);
  const res = run(concrete, code, st);
  if (res.status !== "ok") throw new Error("step limit");
  const left = outstandingDs(st);
  if (left.length) throw new Error(left.join("; "));
  const want = m.expect(perLane, exec, W, gen);
  for (let l = 0; l < W; l++) {
    const w = want[l];
    if (!((exec >> BigInt(l)) & 1n) || !w) continue;
    const got = w.map((_, j) => st.vgpr.get(j)![l]!.x);
    r.cases++;
    if (got.every((g, j) => g === w[j])) r.agreed++;
    else fail(l, `exec=${hex(exec, W)} lane args ${hexArgs(perLane[l]!)}`, perLane[l], w, got);
  }
}

function xlaneRun(
  sf: SeqFunction,
  W: 32 | 64,
  rng: Rng,
  code: MLine[],
  sregs: number[],
  r: SeqClassReport,
  fail: Fail,
): void {
  const kind = (sf.meaning as { xlane: XlaneKind }).xlane;
  const exec = rng.chance(0.2) ? (1n << BigInt(W)) - 1n : rng.bits(W) | (1n << BigInt(rng.below(W)));
  const lanesA = [...Array(W).keys()].map(() => (rng.chance(0.3) ? BigInt(rng.below(8)) : rng.bits(32)));
  const idx = BigInt(rng.below(W)) | (rng.chance(0.3) ? BigInt(rng.below(4)) << BigInt(W === 64 ? 6 : 5) : 0n);
  const perLane = lanesA.map((a) => (kind === "ballot" || kind === "mbcnt" ? [kind === "mbcnt" && rng.chance(0.3) ? 0xffffffffn : a, rng.bits(32)] : kind === "readlane" ? [a, idx] : [a]));
  if (kind === "ballot") for (const p of perLane) p[1] = rng.chance(0.5) ? p[0]! + 1n : p[0]!; // a < b about half the time
  const st = initialState(W, sf.fn, perLane, exec, sregs, code);
  const res = run(concrete, code, st);
  if (res.status !== "ok") throw new Error("step limit");
  // Meaning (AMDGPUUsage): readfirstlane = the value of the lowest active lane; readlane =
  // the value of lane idx mod W (the hardware reads idx[5:0] / [4:0]); ballot = the mask of
  // active lanes where the condition holds, 0 elsewhere; mbcnt.lo/hi(a, b) = b + the count of
  // a's set bits among the lanes below this one, in lanes 0–31 / 32–63 (EXEC not read).
  let first = 0;
  while (!((exec >> BigInt(first)) & 1n)) first++;
  let ball = 0n;
  if (kind === "ballot") for (let l = 0; l < W; l++) if ((exec >> BigInt(l)) & 1n && perLane[l]![0]! < BigInt.asUintN(32, perLane[l]![1]!)) ball |= 1n << BigInt(l);
  for (let l = 0; l < W; l++) {
    if (!((exec >> BigInt(l)) & 1n)) continue;
    const popBelow = (x: bigint, from: number, to: number) => {
      let n = 0n;
      for (let i = from; i < to; i++) n += (x >> BigInt(i - (from >= 32 ? 32 : 0))) & 1n;
      return n;
    };
    const [ma, mb] = perLane[l]!;
    const want =
      kind === "readfirstlane"
        ? [lanesA[first]!]
        : kind === "readlane"
          ? [lanesA[Number(idx % BigInt(W))]!]
          : kind === "mbcnt"
            ? [BigInt.asUintN(32, mb! + popBelow(ma!, 0, Math.min(l, 32))), BigInt.asUintN(32, mb! + popBelow(ma!, 32, Math.max(l, 32)))]
            : [ball & 0xffffffffn, ball >> 32n];
    const got = want.map((_, j) => st.vgpr.get(j)![l]!.x);
    r.cases++;
    if (got.every((g, j) => g === want[j])) r.agreed++;
    else fail(l, `exec=${hex(exec, W)} idx=${idx}`, undefined, want, got);
  }
}

// ---------------------------------------------------------------------------------------
// Triage

/**
 * A disagreement explained once, with the AMD manual, and matched on its features. `side`
 * says who is wrong.
 */
export interface KnownDisagreement {
  id: string;
  side: "LLVM" | "project IR" | "project interpreter";
  why: string;
  matches(d: SeqDisagreement): boolean;
}

const usesVariableBfeWidth = (code: string[]) => code.some((l) => /v_bfe_[iu]32 v\d+, \S+, \S+, [vs]\d+/.test(l));

export const KNOWN_DISAGREEMENTS: readonly KnownDisagreement[] = [
  {
    id: "llvm-bfe-width-32",
    side: "LLVM",
    why:
      "LLVM 19 selects `(x << (32 - n)) >>a (32 - n)` (and the lshr variant) as `v_bfe_{i,u}32 x, 0, n`. " +
      "V_BFE reads its width from S2[4:0] (AMD Vega ISA ch. 12, VOP3 V_BFE_I32/U32: `(S0 >> S1[4:0]) & ((1 << S2[4:0]) - 1)`, RDNA3 ch. 16 the same), so n = 32 " +
      "extracts 0 bits and yields 0, while the IR yields x (both shifts by 0). LLVM's own folder agrees with the record " +
      "(llvm.amdgcn.sbfe width 32 folds to 0, record-level check), so the backend's pattern is wrong: llvm-project issue " +
      "#114282, fixed by PRs #114279/#115372/#116115 after LLVM 19.",
    matches: (d) => usesVariableBfeWidth(d.code) && d.args !== undefined && (d.args[1]! & 31n) === 0n && d.args[1]! !== 0n,
  },
];

/**
 * The IR's own meaning on constant arguments, per LLVM's middle end: each call is wrapped in
 * a function of no arguments and `opt -O2` folds it (inlining included). One `Folded` per
 * result of each call.
 */
export async function foldCalls(calls: readonly { fn: IrFunc; args: bigint[] }[], tools: LlvmTools = LLVM19): Promise<Folded[][]> {
  const fns = new Map<string, IrFunc>();
  const wrappers: string[] = [];
  const stride = Math.max(1, ...calls.map((c) => c.fn.results.length));
  calls.forEach(({ fn, args }, id) => {
    fns.set(fn.name, fn);
    const retTy = fn.results.length === 1 ? `i${fn.results[0]}` : `{ ${fn.results.map((x) => `i${x}`).join(", ")} }`;
    const call = `call ${retTy} @${fn.name}(${fn.args.map((a, i) => `i${a.width} ${BigInt.asIntN(a.width, args[i]!)}`).join(", ")})`;
    fn.results.forEach((w, j) => {
      const body = fn.results.length === 1 ? `  %r = ${call}` : `  %s = ${call}\n  %r = extractvalue ${retTy} %s, ${j}`;
      wrappers.push(`define i${w} @q${id * stride + j}() {\n${body}\n  ret i${w} %r\n}`);
    });
  });
  const out = parseFolded(await runTool(tools.opt, ["-mtriple=amdgcn", "-O2", "-S"], irModule([...fns.values()], wrappers.join("\n"))), "q");
  return calls.map(({ fn }, id) => fn.results.map((_, j) => out.get(id * stride + j) ?? { kind: "unfolded", body: "missing" }));
}

async function triage(reports: SeqClassReport[], funcs: readonly SeqFunction[], tools: LlvmTools, verdicts?: ReadonlyMap<string, RecordReport["status"]>): Promise<void> {
  const byName = new Map(funcs.map((f) => [f.fn.name, f]));
  const all = reports.flatMap((r) => r.disagreements);
  // The IR's own meaning on the failing inputs, per opt -O2 (lane-wise functions only).
  const probes: { d: SeqDisagreement; f: SeqFunction; id: number }[] = [];
  const seen = new Set<string>();
  for (const d of all) {
    const f = byName.get(d.fn);
    if (!f || !d.args || !("lane" in f.meaning)) continue;
    const key = `${d.fn} ${d.inputs}`;
    if (seen.has(key) && probes.length > 0) {
      const prev = probes.find((p) => `${p.d.fn} ${p.d.inputs}` === key);
      if (prev) {
        probes.push({ d, f, id: prev.id });
        continue;
      }
    }
    seen.add(key);
    probes.push({ d, f, id: probes.length });
  }
  const meaning = new Map<number, Folded[]>();
  if (probes.length) {
    const uniq = new Map<number, { f: SeqFunction; args: bigint[] }>();
    for (const p of probes) if (!uniq.has(p.id)) uniq.set(p.id, { f: p.f, args: p.d.args! });
    try {
      const folded = await foldCalls([...uniq.values()].map(({ f, args }) => ({ fn: f.fn, args })), tools);
      [...uniq.keys()].forEach((id, i) => meaning.set(id, folded[i]!));
    } catch {
      /* leave undecided */
    }
  }
  const probeOf = new Map(probes.map((p) => [p.d, p.id]));
  for (const d of all) {
    const known = KNOWN_DISAGREEMENTS.find((k) => k.matches(d));
    const id = probeOf.get(d);
    const m = id !== undefined ? meaning.get(id) : undefined;
    const irAgreesWithRef = m && d.expectedValues ? m.every((x, j) => x.kind === "const" && x.value === d.expectedValues![j]) : undefined;
    const irAgreesWithCode = m && d.gotValues ? m.every((x, j) => x.kind === "const" && x.value === d.gotValues![j]) : undefined;
    const used = [...new Set(d.code.map((l) => l.trim().split(" ")[0]!.replace(/_e(32|64)$/, "")).filter((x) => x && !x.endsWith(":")))];
    const unvouched = used.filter((mn) => verdicts && verdicts.get(mn) !== "agrees");
    const ir = m ? m.map((x) => (x.kind === "const" ? hex(x.value, 32) : x.kind)).join(", ") : "not folded";
    d.irMeaning = ir;
    if (known) {
      d.side = known.side;
      d.why = known.why;
    } else if (irAgreesWithRef === false && irAgreesWithCode) {
      d.side = "project IR";
      d.why = `the IR does not mean the reference here: opt -O2 folds it to what llc's code computes; the ${byName.get(d.fn)?.variant} IR is wrong`;
    } else if (irAgreesWithRef && unvouched.length === 0 && verdicts) {
      d.side = "LLVM";
      d.why = `opt -O2 folds the IR to the reference value and every instruction in llc's code agrees with LLVM's own folder at record level, yet the code computes something else: the backend's selection is wrong (unexplained: add a KNOWN_DISAGREEMENTS entry)`;
    } else {
      d.side = "undecided";
      d.why = `instructions without a record-level LLVM oracle: ${unvouched.join(", ") || "none"}`;
    }
  }
}

// ---------------------------------------------------------------------------------------
// Reports

export function formatRecordReport(r: RecordReport): string {
  switch (r.status) {
    case "agrees":
      return `${r.mnemonic.padEnd(22)} agrees on ${r.agreed} cases (${r.llvm})${r.notFolded ? `, ${r.notFolded} not folded` : ""}${r.note ? `; ${r.note}` : ""}`;
    case "no-counterpart":
      return `${r.mnemonic.padEnd(22)} no LLVM counterpart: ${r.note}`;
    case "uncovered":
      return `${r.mnemonic.padEnd(22)} UNCOVERED: ${r.note}`;
    case "not-folded":
      return `${r.mnemonic.padEnd(22)} NOT FOLDED by LLVM in any of ${r.cases} cases (${r.llvm})`;
    default:
      return (
        `${r.mnemonic.padEnd(22)} DISAGREES on ${r.cases - r.agreed - r.notFolded} of ${r.cases} cases (${r.llvm}); agreed ${r.agreed}, not folded ${r.notFolded}\n` +
        r.disagreements.map((d) => `    ${d.inputs}: record ${d.record}, LLVM ${d.llvm}`).join("\n")
      );
  }
}

export function formatSeqReport(r: SeqClassReport, maxShown = 8): string {
  const lines = [
    `${r.cls}: ${r.functions} IR functions, ${r.compiled} (function × target) compiled and run, ${r.agreed} of ${r.cases} lane results agreed, ${r.disagreements.length} disagreed, ${r.unsupported.length} not runnable`,
  ];
  const bySide = new Map<string, SeqDisagreement[]>();
  for (const d of r.disagreements) {
    const k = `${d.side}: ${d.why}`;
    bySide.set(k, [...(bySide.get(k) ?? []), d]);
  }
  for (const [k, ds] of bySide) {
    const targets = [...new Set(ds.map((d) => d.target))].join(" ");
    const fns = [...new Set(ds.map((d) => d.label))];
    lines.push(`  ${ds.length} disagreement(s) — ${k}`);
    lines.push(`    targets: ${targets}; functions: ${fns.slice(0, 6).join("; ")}${fns.length > 6 ? ` (+${fns.length - 6})` : ""}`);
    for (const d of ds.slice(0, maxShown))
      lines.push(`    ${d.label} on ${d.target}, lane ${d.lane}: ${d.inputs} → expected ${d.expected}, llc code ${d.got}${d.irMeaning ? `, opt -O2 on the IR ${d.irMeaning}` : ""}`);
    const ex = ds[0]!;
    lines.push(`    code (${ex.target}, ${ex.label}):`, ...ex.code.map((c) => `      ${c}`));
  }
  for (const x of r.unsupported.slice(0, maxShown)) lines.push(`  not runnable: ${x.label} on ${x.target}: ${x.reason}`);
  if (r.unsupported.length > maxShown) lines.push(`  … ${r.unsupported.length - maxShown} more not runnable`);
  return lines.join("\n");
}
