/**
 * @fileoverview The bench's warp section (`npm run bench -- --only warp`; issue 15 item 3 and
 * "Done when" line 5): per class — shfl idx (uniform and divergent b), up, down, bfly, vote
 * any/all, ballot, redux per op, activemask — the dynamic AMDGPU issue cycles of
 *   ours:  the routine `lower` chooses (targets/amdgpu/rules/*.ts, the routine contract);
 *   llvm:  llc-19 -O2 on the natural IR over `llvm.amdgcn.*` (written here per class:
 *          ds.bpermute, readlane, update.dpp, ballot, mbcnt, and for every reduction the
 *          cttz/readlane loop over ballot(true) that wave.reduce.umin/umax also lower to);
 *   hip:   HIP 5.2's non-sync `__shfl`/`__shfl_up`/`__shfl_down`/`__shfl_xor`/`__ballot`/
 *          `__any`/`__all` (width 32), compiled with clang-19 -O2 `--cuda-device-only
 *          -include hip/hip_runtime.h` to bitcode, linked with the device library's ockl
 *          (`__any`/`__all` call `__ockl_wf{any,all}_i32`; Debian ships no gfx1100/gfx942 ISA
 *          libraries, so clang cannot link them itself), then opt-19 -O2 and llc-19 with the
 *          crosscheck's flags; HIP 5.2 has no redux and no `__activemask` (—).
 * Counting as in table a: the interpreter's issue cycles (`s_nop N` = N + 1, `s_delay_alu`
 * 0), llc's function-entry `s_waitcnt` and `s_setpc` left out, every other wait kept (the
 * `s_waitcnt lgkmcnt(0)` after a ds_bpermute counts on both sides). Input: one full warp
 * (32 lanes active, membermask all ones; wave64: lanes 32–63 inactive), fixed values; every
 * run's d is compared with the reference (src/sem/warp.ts via `warpReference`) on lanes
 * 0–31, `!` marking a difference. The predicate of vote is a lane mask for ours (the
 * routine contract) and a 0/1 VGPR for llc and HIP, which build that mask with a v_cmp.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Table from "cli-table3";
import type { Form } from "../src/ir/forms.js";
import type { OperandKind, SourceName } from "../src/ir/ir.js";
import type { WarpForm } from "../src/ir/warp_forms.js";
import { warpFormName } from "../src/ir/warp_forms.js";
import type { WarpCase } from "../src/check/warp_cases.js";
import { warpReference } from "../src/check/warp_cases.js";
import { concrete } from "../src/sem/bv.js";
import type { IrArg, IrFunc } from "../targets/llvm/ir.js";
import { irModule } from "../targets/llvm/ir.js";
import type { SeqTarget } from "../targets/amdgpu/oracle/llvm.js";
import { initialState, inregRegisters, LANE_TARGETS, llc, llcArgs, llvmAvailable } from "../targets/amdgpu/oracle/llvm.js";
import { functionBody, parseAsm, recorded } from "../targets/amdgpu/asm.js";
import { outstandingDs, run } from "../targets/amdgpu/interp.js";
import type { MLine } from "../targets/amdgpu/minst.js";
import { isLabel } from "../targets/amdgpu/minst.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import { TARGETS } from "../targets/amdgpu/regs.js";
import { lowerRoutine } from "../targets/amdgpu/lower.js";
import { runWarpLevel } from "../targets/amdgpu/warp_exec.js";

const V: OperandKind = { kind: "v" };
const S: OperandKind = { kind: "s" };
const IMM = (value: bigint): OperandKind => ({ kind: "imm", value });
const FULL = IMM(0xffffffffn);

/** One bench class: the form and operand kinds, the natural IR body, the HIP expression. */
interface WarpClass {
  label: string;
  f: WarpForm;
  kinds: Partial<Record<SourceName, OperandKind>>;
  /** IR arguments (a first; `inreg` = uniform) and the body computing `%r` (i32), given the wave size. */
  irArgs: IrArg[];
  ir: (w: 32 | 64) => string;
  /** A HIP expression over `a` (and `b`) for the non-sync function, or null (HIP 5.2 has none). */
  hip: string | null;
  /** HIP wrapper parameters. */
  hipParams?: string;
}

const SHFL = (mode: "up" | "down" | "bfly" | "idx"): WarpForm => ({ op: "shfl", sync: true, mode, type: "b32", dest: "d" });
const REDUX = (reduxOp: "add" | "min" | "max" | "and" | "or" | "xor"): WarpForm =>
  reduxOp === "add" || reduxOp === "min" || reduxOp === "max" ? { op: "redux", reduxOp, type: "u32" } : { op: "redux", reduxOp, type: "b32" };

/** `%lane` (the lane id within the warp: lanes 0–31 are the PTX lanes on wave64 too). */
const LANE = "  %lane = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)\n";
/** `%r` = a of lane `%src` by ds_bpermute. */
const BPERM = "  %addr = shl i32 %src, 2\n  %r = call i32 @llvm.amdgcn.ds.bpermute(i32 %addr, i32 %a)\n";
const ballot = (w: 32 | 64, p: string, out: string) =>
  w === 64 ? `  ${out}.w = call i64 @llvm.amdgcn.ballot.i64(i1 ${p})\n  ${out} = trunc i64 ${out}.w to i32\n` : `  ${out} = call i32 @llvm.amdgcn.ballot.i32(i1 ${p})\n`;

/** The s_ff1/readlane-shaped reduction loop in IR: over the lanes of ballot(true). */
function reduceLoop(w: 32 | 64, op: string, identity: number): string {
  const combine = op.startsWith("@") ? `call i32 ${op}(i32 %acc, i32 %x)` : `${op} i32 %acc, %x`;
  return [
    ballot(w, "true", "%m0"),
    "  br label %loop",
    "loop:",
    "  %m = phi i32 [ %m0, %0 ], [ %m1, %loop ]",
    `  %acc = phi i32 [ ${identity}, %0 ], [ %acc1, %loop ]`,
    "  %l = call i32 @llvm.cttz.i32(i32 %m, i1 true)",
    "  %x = call i32 @llvm.amdgcn.readlane(i32 %a, i32 %l)",
    `  %acc1 = ${combine}`,
    "  %mm1 = sub i32 %m, 1",
    "  %m1 = and i32 %m, %mm1",
    "  %more = icmp ne i32 %m1, 0",
    "  br i1 %more, label %loop, label %done",
    "done:",
    "  %r = or i32 %acc1, 0",
    "",
  ].join("\n");
}

const A: IrArg = { name: "a", width: 32 };
const B: IrArg = { name: "b", width: 32 };
const Bs: IrArg = { name: "b", width: 32, inreg: true };

/** The classes (see the file comment). */
export function warpClasses(): WarpClass[] {
  const redux = (op: "add" | "and" | "or" | "xor", llop: string, id: number): WarpClass => ({
    label: `redux.sync.${op}`,
    f: REDUX(op),
    kinds: { a: V, membermask: FULL },
    irArgs: [A],
    ir: (w) => reduceLoop(w, llop, id),
    hip: null,
  });
  const reduxMinMax = (op: "min" | "max"): WarpClass => ({
    label: `redux.sync.${op}.u32`,
    f: REDUX(op),
    kinds: { a: V, membermask: FULL },
    irArgs: [A],
    // llvm.amdgcn.wave.reduce.u{min,max} would be the shortest IR, but its s_bitset0 has no
    // interpreter record: the same loop as the other reductions, over llvm.u{min,max}.
    ir: (w) => reduceLoop(w, `@llvm.u${op}.i32`, op === "min" ? -1 : 0),
    hip: null,
  });
  const vote = (mode: "any" | "all" | "ballot"): WarpClass => ({
    label: mode === "ballot" ? "vote.sync.ballot.b32" : `vote.sync.${mode}.pred`,
    f: mode === "ballot" ? { op: "vote", sync: true, mode, type: "b32", negA: false } : { op: "vote", sync: true, mode, type: "pred", negA: false },
    kinds: { a: V, membermask: FULL },
    irArgs: [A],
    ir: (w) =>
      "  %p = icmp ne i32 %a, 0\n" +
      ballot(w, "%p", "%bal") +
      (mode === "ballot"
        ? "  %r = or i32 %bal, 0\n"
        : mode === "any"
          ? "  %t = icmp ne i32 %bal, 0\n  %r = zext i1 %t to i32\n"
          : ballot(w, "true", "%ex") + "  %t = icmp eq i32 %bal, %ex\n  %r = zext i1 %t to i32\n"),
    hip: mode === "ballot" ? "(int)__ballot(a)" : mode === "any" ? "__any(a)" : "__all(a)",
  });
  return [
    {
      label: "shfl.sync.idx, b uniform",
      f: SHFL("idx"),
      kinds: { a: V, b: S, c: IMM(0x1fn), membermask: FULL },
      irArgs: [A, Bs],
      ir: () => "  %l = and i32 %b, 31\n  %r = call i32 @llvm.amdgcn.readlane(i32 %a, i32 %l)\n",
      hip: "__shfl(a, __builtin_amdgcn_readfirstlane(b), 32)",
      hipParams: "int a, int b",
    },
    {
      label: "shfl.sync.idx, b divergent",
      f: SHFL("idx"),
      kinds: { a: V, b: V, c: IMM(0x1fn), membermask: FULL },
      irArgs: [A, B],
      ir: () => "  %src = and i32 %b, 31\n" + BPERM,
      hip: "__shfl(a, b, 32)",
      hipParams: "int a, int b",
    },
    {
      label: "shfl.sync.up 1",
      f: SHFL("up"),
      kinds: { a: V, b: IMM(1n), c: IMM(0n), membermask: FULL },
      irArgs: [A],
      ir: () => LANE + "  %j = sub i32 %lane, 1\n  %ok = icmp sge i32 %j, 0\n  %src = select i1 %ok, i32 %j, i32 %lane\n" + BPERM,
      hip: "__shfl_up(a, 1, 32)",
    },
    {
      label: "shfl.sync.down 1",
      f: SHFL("down"),
      kinds: { a: V, b: IMM(1n), c: IMM(0x1fn), membermask: FULL },
      irArgs: [A],
      ir: () => LANE + "  %j = add i32 %lane, 1\n  %ok = icmp ule i32 %j, 31\n  %src = select i1 %ok, i32 %j, i32 %lane\n" + BPERM,
      hip: "__shfl_down(a, 1, 32)",
    },
    {
      label: "shfl.sync.bfly 1",
      f: SHFL("bfly"),
      kinds: { a: V, b: IMM(1n), c: IMM(0x1fn), membermask: FULL },
      irArgs: [A],
      // quad_perm [1,0,3,2] (0xb1): lane ^ 1 within every quad, all rows and banks.
      ir: () => "  %r = call i32 @llvm.amdgcn.update.dpp.i32(i32 poison, i32 %a, i32 177, i32 15, i32 15, i1 false)\n",
      hip: "__shfl_xor(a, 1, 32)",
    },
    {
      label: "shfl.sync.bfly 16",
      f: SHFL("bfly"),
      kinds: { a: V, b: IMM(16n), c: IMM(0x1fn), membermask: FULL },
      irArgs: [A],
      ir: () => LANE + "  %src = xor i32 %lane, 16\n" + BPERM,
      hip: "__shfl_xor(a, 16, 32)",
    },
    vote("any"),
    vote("all"),
    vote("ballot"),
    redux("add", "add", 0),
    reduxMinMax("min"),
    reduxMinMax("max"),
    redux("and", "and", -1),
    redux("or", "or", 0),
    redux("xor", "xor", 0),
    {
      label: "activemask",
      f: { op: "activemask", type: "b32" },
      kinds: {},
      irArgs: [A],
      ir: (w) => ballot(w, "true", "%r0") + "  %r = or i32 %r0, 0\n",
      hip: null,
    },
  ];
}

const DECLS = [
  "declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)",
  "declare i32 @llvm.amdgcn.ds.bpermute(i32, i32)",
  "declare i32 @llvm.amdgcn.readlane(i32, i32)",
  "declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)",
  "declare i32 @llvm.amdgcn.ballot.i32(i1)",
  "declare i64 @llvm.amdgcn.ballot.i64(i1)",
  "declare i32 @llvm.amdgcn.wave.reduce.umin.i32(i32, i32)",
  "declare i32 @llvm.amdgcn.wave.reduce.umax.i32(i32, i32)",
  "declare i32 @llvm.cttz.i32(i32, i1)",
  "declare i32 @llvm.umin.i32(i32, i32)",
  "declare i32 @llvm.umax.i32(i32, i32)",
];

function irOf(q: WarpClass, name: string, w: 32 | 64): IrFunc {
  const params = q.irArgs.map((a) => `i32${a.inreg ? " inreg" : ""} %${a.name}`).join(", ");
  const text = `define i32 @${name}(${params}) {\n${q.ir(w)}  ret i32 %r\n}`;
  return { name, args: q.irArgs, results: [32], text, decls: DECLS };
}

/** The bench's warp: lane values, b per lane (a uniform b: one value), all 32 lanes active. */
function benchCase(q: WarpClass): WarpCase {
  const a = Array.from({ length: 32 }, (_, l) => (q.f.op === "vote" ? BigInt(l % 3 !== 0 ? 1 : 0) : (BigInt(l) * 0x9e3779b1n + 0x1234n) & 0xffffffffn));
  const bk = q.kinds.b;
  const b = Array.from({ length: 32 }, (_, l) => (bk?.kind === "imm" ? bk.value : bk?.kind === "s" ? 5n : BigInt((l * 7 + 3) % 32)));
  const ck = q.kinds.c;
  const c = Array.from({ length: 32 }, () => (ck?.kind === "imm" ? ck.value : 0x1fn));
  const hasMask = q.kinds.membermask !== undefined;
  return { label: "bench", a, b, c, membermask: hasMask ? new Array<bigint>(32).fill(0xffffffffn) : null, active: 0xffffffff, guard: null, dPrior: new Array<bigint>(32).fill(0n), pPrior: new Array<boolean>(32).fill(false) };
}

interface Cell {
  cycles: number | null;
  ok: boolean;
  note?: string;
}

/** d on lanes 0–31 against the reference (lanes it leaves undefined not compared). */
function agrees(f: WarpForm, c: WarpCase, d: bigint[]): boolean {
  const want = warpReference(f, c);
  return want.d.every((x, l) => x === null || d[l] === x);
}

function measureOurs(q: WarpClass, mcpu: Mcpu): Cell {
  const r = lowerRoutine({ form: q.f as unknown as Form, kinds: q.kinds, guarded: false }, TARGETS[mcpu], "isa");
  const c = benchCase(q);
  const got = runWarpLevel(r, q.f, c);
  if ("failure" in got) return { cycles: null, ok: false, note: got.failure };
  return { cycles: got.cycles, ok: agrees(q.f, c, got.d), note: r.rule };
}

/** Compiled code (llc's or clang's) run on the bench warp; args in v0.. / the inreg SGPRs. */
function measureCode(q: WarpClass, code: MLine[] | string, args: IrArg[], t: SeqTarget, sregs: number[]): Cell {
  if (typeof code === "string") return { cycles: null, ok: false, note: code };
  const c = benchCase(q);
  const perLane = Array.from({ length: t.wave }, (_, l) => args.map((x) => (l >= 32 ? 0n : x.name === "a" ? c.a[l]! : c.b[l]!)));
  // The function-entry s_waitcnt (the calling convention's, before any of the operation) is left out.
  const firstOp = code.findIndex((l) => !isLabel(l));
  const body = code.filter((l, i) => !(i === firstOp && !isLabel(l) && l.op === "s_waitcnt"));
  const fn: IrFunc = { name: "x", args, results: [32], text: "", decls: [] };
  try {
    const st = initialState(t.wave, fn, perLane, 0xffffffffn, sregs, body, TARGETS[t.mcpu].gen);
    const res = run(concrete, body, st, { stepLimit: 100_000 });
    if (res.status !== "ok") return { cycles: null, ok: false, note: `${res.status}` };
    const left = outstandingDs(st);
    const d = st.vgpr.get(0)!.slice(0, 32).map((x) => x.x);
    return { cycles: res.cycles, ok: left.length === 0 && agrees(q.f, c, d), ...(left.length ? { note: left.join("; ") } : {}) };
  } catch (e) {
    return { cycles: null, ok: false, note: (e as Error).message };
  }
}

function codeOf(asm: string, name: string, t: SeqTarget): MLine[] | string {
  try {
    const code = recorded(parseAsm(functionBody(asm, name), { rule: `bench:${t.mcpu}`, gen: TARGETS[t.mcpu].gen }));
    return "missing" in code ? `no interpreter record for ${code.missing.join(", ")}` : code.lines;
  } catch (e) {
    return (e as Error).message;
  }
}

const BITCODE = "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode";

/** HIP 5.2 compiled for `t` (file comment), or why not. */
function hipAsm(classes: readonly WarpClass[], t: SeqTarget): string | { error: string } {
  const src = ["#include <stdint.h>"];
  classes.forEach((q, i) => {
    if (q.hip) src.push(`extern "C" __attribute__((device, used, noinline)) int bw${i}(${q.hipParams ?? "int a"}) { return ${q.hip}; }`);
  });
  const dir = mkdtempSync(join(tmpdir(), "bench-warp-"));
  try {
    writeFileSync(join(dir, "w.hip"), src.join("\n") + "\n");
    const w64 = t.wave === 64 ? "on" : "off";
    const steps: [string, string[]][] = [
      ["clang-19", ["-x", "hip", "--cuda-device-only", "-nogpulib", "-O2", `--offload-arch=${t.mcpu}`, "-include", "hip/hip_runtime.h", "-emit-llvm", "-c", "-o", join(dir, "w.bc"), join(dir, "w.hip")]],
      ["llvm-link-19", [join(dir, "w.bc"), "--only-needed", join(BITCODE, "ockl.bc"), join(BITCODE, `oclc_wavefrontsize64_${w64}.bc`), "-o", join(dir, "l.bc")]],
      ["opt-19", ["-O2", join(dir, "l.bc"), "-o", join(dir, "o.bc")]],
      ["llc-19", [...llcArgs(t).map((a) => (a === "-march=amdgcn" ? "-mtriple=amdgcn-amd-amdhsa" : a)), join(dir, "o.bc"), "-o", join(dir, "w.s")]],
    ];
    for (const [cmd, args] of steps) {
      const r = spawnSync(cmd, args, { encoding: "utf8" });
      if (r.error) return { error: `${cmd}: ${r.error.message}` };
      if (r.status !== 0) return { error: `${cmd}: ${r.stderr.split("\n").slice(0, 3).join(" ")}` };
    }
    return spawnSync("cat", [join(dir, "w.s")], { encoding: "utf8" }).stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The warp section's table (see the file comment). */
export async function warpBench(mcpus: readonly Mcpu[]): Promise<string> {
  const have = llvmAvailable();
  if (!have.ok) return `w. Warp-level: skipped: ${have.reason} (apt-get install llvm-19)\n`;
  const hipOk = spawnSync("clang-19", ["--version"]).status === 0 && spawnSync("llvm-link-19", ["--version"]).status === 0;
  const classes = warpClasses();
  const targets = LANE_TARGETS.filter((t) => mcpus.includes(t.mcpu));
  const cells = new Map<string, { ours: Cell; llvm: Cell; hip: Cell | null }>();
  const notes = new Set<string>();
  await Promise.all(
    targets.map(async (t) => {
      const fns = classes.map((q, i) => irOf(q, `w${i}`, t.wave));
      const asm = await llc(irModule(fns), t);
      const sregs = await inregRegisters(t);
      const hip = hipOk ? hipAsm(classes, t) : { error: "clang-19 / llvm-link-19 not found" };
      if (typeof hip !== "string") notes.add(`${t.mcpu} hip: ${hip.error}`);
      classes.forEach((q, i) => {
        const llvm = measureCode(q, codeOf(asm, `w${i}`, t), q.irArgs, t, sregs);
        const h = q.hip === null ? null : typeof hip === "string" ? measureCode(q, codeOf(hip, `bw${i}`, t), q.hipParams ? [A, B] : [A], t, []) : { cycles: null, ok: false, note: hip.error };
        cells.set(`${i}|${t.mcpu}`, { ours: measureOurs(q, t.mcpu), llvm, hip: h });
      });
    }),
  );
  const show = (c: Cell | null) => (c === null ? "—" : c.cycles === null ? "?" : `${c.cycles}${c.ok ? "" : "!"}`);
  const table = new Table({ head: ["class (full warp)", ...targets.map((t) => t.mcpu), "our rule"], style: { head: [], border: [] }, chars: { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" } });
  const tot = new Map<string, { ours: number; llvm: number; oursH: number; hip: number }>();
  classes.forEach((q, i) => {
    const rules = new Set<string>();
    const row = targets.map((t) => {
      const c = cells.get(`${i}|${t.mcpu}`)!;
      if (c.ours.note) rules.add(c.ours.note);
      for (const [who, m] of [["ours", c.ours], ["llvm", c.llvm], ["hip", c.hip]] as const) if (m && m.cycles === null && m.note) notes.add(`${t.mcpu} ${q.label} ${who}: ${m.note}`);
      const x = tot.get(t.mcpu) ?? { ours: 0, llvm: 0, oursH: 0, hip: 0 };
      if (c.ours.cycles !== null && c.llvm.cycles !== null) {
        x.ours += c.ours.cycles;
        x.llvm += c.llvm.cycles;
      }
      if (c.ours.cycles !== null && c.hip?.cycles != null) {
        x.oursH += c.ours.cycles;
        x.hip += c.hip.cycles;
      }
      tot.set(t.mcpu, x);
      return `${show(c.ours)} / ${show(c.llvm)} / ${show(c.hip)}`;
    });
    table.push([`${q.label}  (${warpFormName(q.f)})`.replace(/ {2}\(activemask\.b32\)$/, ""), ...row, [...rules].join(", ")]);
  });
  table.push(["total: ours / llvm", ...targets.map((t) => `${tot.get(t.mcpu)!.ours} / ${tot.get(t.mcpu)!.llvm}`), ""]);
  table.push(["total where HIP has it: ours / hip", ...targets.map((t) => `${tot.get(t.mcpu)!.oursH} / ${tot.get(t.mcpu)!.hip}`), ""]);
  const lines = [
    "w. Warp-level: dynamic AMDGPU issue cycles on one full warp, ours / llc-19 on IR over llvm.amdgcn.* / HIP 5.2 non-sync (clang-19 -O2)",
    "   (! = d differs from the reference on the bench warp; ? = code the interpreter cannot run; — = HIP 5.2 has no such function)",
    table.toString(),
  ];
  for (const n of notes) lines.push(`note: ${n}`);
  return lines.join("\n") + "\n";
}
