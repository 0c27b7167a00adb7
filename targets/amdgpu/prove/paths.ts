/**
 * @fileoverview The AMDGPU prover's symbolic machine (moved from src/check/prove.ts): the
 * routine's initial state, whole-state merge, operand reads, and the predicated path
 * executor `execPaths` over targets/amdgpu/interp.ts (both arms of a branch merged,
 * back-edges unrolled to a bound), plus the lowering's trace lines for counterexamples.
 */
import type { BV, CV } from "../../../src/sem/bv.js";
import type { Init } from "../../../src/check/prove_types.js";
import { fmt } from "../../../src/check/prove_text.js";
import type { RunResult, StepTrace, WaveState } from "../interp.js";
import { InterpError, run } from "../interp.js";
import { record } from "../isa/index.js";
import type { WaveIO } from "../isa/record.js";
import type { MLine, MOp } from "../minst.js";
import { isLabel, printOp } from "../minst.js";
import type { AmdRoutine } from "../lower.js";
import { regSpan } from "../contract.js";

/**
 * The routine's initial machine state: VGPRs v0..v(vEnd+7) and SGPRs s0..s(sEnd+7) (past
 * the highest register a caller's assignment names, ../contract.ts `regSpan`), every
 * lane, plus vcc and scc, all from `init` (symbolic: arbitrary values, so a read of a
 * register the routine did not set is caught). `exec` is given.
 */
export function initialState<V, B>(init: Init<V, B>, r: AmdRoutine, exec: V, oneActiveLane = false): WaveState<V, B> {
  const W = r.target.wave;
  const st: WaveState<V, B> = { wave: W, gen: r.target.gen, vgpr: new Map(), sgpr: new Map(), vcc: init.mk("vcc", W), exec, scc: init.mkB("scc") };
  const span = regSpan(r);
  for (let n = 0; n < span.v + 8; n++) {
    // One active lane (lane-local routines, see laneCoupling): no instruction reads the
    // other lanes, so one value per register stands for all of them (and stays unchanged).
    const other = oneActiveLane ? init.mk(`v${n}.x`, 32) : undefined;
    st.vgpr.set(n, Array.from({ length: W }, (_, l) => (l > 0 && other !== undefined ? other : init.mk(`v${n}.${l}`, 32))));
  }
  for (let n = 0; n < span.s + 8; n++) st.sgpr.set(n, init.mk(`s${n}`, 32));
  return st;
}

/** A copy of the state (lane arrays copied; values shared). */
export function cloneState<V, B>(st: WaveState<V, B>): WaveState<V, B> {
  const c: WaveState<V, B> = { wave: st.wave, vgpr: new Map([...st.vgpr].map(([k, x]) => [k, [...x]])), sgpr: new Map(st.sgpr), vcc: st.vcc, exec: st.exec, scc: st.scc };
  if (st.gen !== undefined) c.gen = st.gen;
  if (st.lds) c.lds = st.lds.map((p) => ({ ...p }));
  return c;
}

/**
 * The outstanding DS results where two paths meet: those of either path (a register
 * outstanding on one path is outstanding for the code after the merge), in issue order of the
 * longer list. The model is structural: which results are outstanding never depends on data.
 */
function mergeLds(a: WaveState<unknown, unknown>["lds"], b: WaveState<unknown, unknown>["lds"]): WaveState<unknown, unknown>["lds"] {
  if (!a?.length && !b?.length) return undefined;
  const [x, y] = (a?.length ?? 0) >= (b?.length ?? 0) ? [a ?? [], b ?? []] : [b ?? [], a ?? []];
  return [...x.map((p) => ({ ...p })), ...y.filter((p) => !x.some((q) => q.reg === p.reg)).map((p) => ({ ...p }))];
}

/** ite(c, a, b) over whole states. */
export function mergeState<V, B>(bv: BV<V, B>, c: B, a: WaveState<V, B>, b: WaveState<V, B>): WaveState<V, B> {
  const W = a.wave;
  const vgpr = new Map<number, V[]>();
  for (const n of new Set([...a.vgpr.keys(), ...b.vgpr.keys()])) {
    const x = a.vgpr.get(n);
    const y = b.vgpr.get(n);
    const zero = Array.from({ length: W }, () => bv.k(0, 32));
    const xa = x ?? zero;
    const ya = y ?? zero;
    vgpr.set(n, xa.map((v, l) => bv.ite(c, v, ya[l]!)));
  }
  const sgpr = new Map<number, V>();
  for (const n of new Set([...a.sgpr.keys(), ...b.sgpr.keys()])) {
    const x = a.sgpr.get(n) ?? bv.k(0, 32);
    const y = b.sgpr.get(n) ?? bv.k(0, 32);
    sgpr.set(n, bv.ite(c, x, y));
  }
  const m: WaveState<V, B> = { wave: W, vgpr, sgpr, vcc: bv.ite(c, a.vcc, b.vcc), exec: bv.ite(c, a.exec, b.exec), scc: bv.iteB(c, a.scc, b.scc) };
  if (a.gen !== undefined) m.gen = a.gen;
  const lds = mergeLds(a.lds, b.lds);
  if (lds) m.lds = lds;
  return m;
}

/** Reads a source operand of the routine (VGPR: lane `lane`; SGPR: uniform; immediate). */
export function readSource<V, B>(bv: BV<V, B>, st: WaveState<V, B>, o: MOp, width: number, lane: number): V {
  if (o.k === "imm") return bv.k(o.value, width);
  if (o.k === "v") {
    const lo = st.vgpr.get(o.n)![lane]!;
    return o.count === 2 ? bv.concat(st.vgpr.get(o.n + 1)![lane]!, lo) : lo;
  }
  if (o.k === "s") {
    const lo = st.sgpr.get(o.n)!;
    return o.count === 2 ? bv.concat(st.sgpr.get(o.n + 1)!, lo) : lo;
  }
  throw new Error(`source operand ${printOp(o)}`);
}

/** Outcome of `execPaths`: the state at the end (paths merged), and when it is reached. */
export interface PathsResult<V, B> {
  /** The merged final state (null when no path reaches the end). */
  final: WaveState<V, B> | null;
  /** Condition under which the end is reached. */
  done: B;
  /** Condition under which some path exceeded the back-edge bound (or step limit). */
  stuck: B;
  /** An interpreter error on some path (ill-formed code), if any. */
  error?: string;
  trace: StepTrace<V>[];
  steps: number;
}

/**
 * Runs `code` on every path at once (predicated execution): forward branches split the path
 * condition and the states merge (`ite`) where paths meet; a back-edge re-enters its target
 * with the path's iteration count + 1, up to `maxBack` back-edges per path (beyond that the
 * path is `stuck`). Pending states are processed in program order, so a loop unrolls
 * iteration by iteration and every exit merges into the state after it. With a concrete
 * algebra there is one path and this is the interpreter's `run`.
 */
export function execPaths<V, B>(bv: BV<V, B>, code: readonly MLine[], st0: WaveState<V, B>, opts: { maxBack: number; trace?: boolean; stepLimit?: number }): PathsResult<V, B> {
  const labels = new Map<string, number>();
  code.forEach((l, i) => {
    if (isLabel(l)) labels.set(l.label, i);
  });
  type P = { st: WaveState<V, B>; cond: B; back: number };
  const pending = new Map<number, P>();
  const add = (pc: number, p: P) => {
    if (bv.asBool(p.cond) === false) return;
    const q = pending.get(pc);
    if (!q) pending.set(pc, p);
    else pending.set(pc, { st: mergeState(bv, p.cond, p.st, q.st), cond: bv.orB(p.cond, q.cond), back: Math.max(p.back, q.back) });
  };
  add(0, { st: st0, cond: bv.true, back: 0 });
  let stuck: B = bv.false;
  let final: P | null = null;
  const trace: StepTrace<V>[] = [];
  let steps = 0;
  const limit = opts.stepLimit ?? 1_000_000;
  while (pending.size) {
    const pc0 = Math.min(...pending.keys());
    const p = pending.get(pc0)!;
    pending.delete(pc0);
    if (pc0 >= code.length) {
      final = p;
      continue;
    }
    let pc = pc0;
    let st = p.st;
    for (;;) {
      if (pc >= code.length) {
        add(code.length, { st, cond: p.cond, back: p.back });
        break;
      }
      const line = code[pc]!;
      if (isLabel(line)) {
        pc++;
        // A label another pending path also reaches: merge there first.
        if (pending.has(pc)) {
          add(pc, { st, cond: p.cond, back: p.back });
          break;
        }
        continue;
      }
      if (++steps > limit) {
        stuck = bv.orB(stuck, p.cond);
        break;
      }
      const rec = record(line.op);
      if ("branch" in rec.sem) {
        const io = branchIO(bv, st);
        const c = rec.sem.branch(bv, io);
        const label = line.ops[0];
        if (!label || label.k !== "label") throw new InterpError(`${line.op}: operand must be a label`);
        const to = labels.get(label.name);
        if (to === undefined) throw new InterpError(`unknown label ${label.name}`);
        if (opts.trace) trace.push({ inst: line, writes: [] });
        const taken = bv.andB(p.cond, c);
        const fall = bv.andB(p.cond, bv.notB(c));
        if (to <= pc) {
          if (p.back + 1 > opts.maxBack) stuck = bv.orB(stuck, taken);
          else add(to, { st: cloneState(st), cond: taken, back: p.back + 1 });
        } else add(to, { st: cloneState(st), cond: taken, back: p.back });
        add(pc + 1, { st, cond: fall, back: p.back });
        break;
      }
      const res: RunResult<V> = run(bv, [line], st, { trace: opts.trace ?? false });
      if (opts.trace) trace.push(...res.trace);
      pc++;
      st = st; // run mutates st in place
    }
  }
  return { final: final?.st ?? null, done: final?.cond ?? bv.false, stuck, trace, steps };
}

function branchIO<V, B>(bv: BV<V, B>, st: WaveState<V, B>): WaveIO<V, B> {
  const no = (): never => {
    throw new InterpError("branch semantics read an operand");
  };
  return {
    wave: st.wave,
    gen: st.gen,
    read: no,
    readLanes: no,
    write: no,
    writeLanes: no,
    exec: () => st.exec,
    setExec: no,
    scc: () => st.scc,
    setScc: no,
    // s_cbranch_vccz / vccnz (llc's `.f32` redux loop: targets/llvm/prove_compiled_loop.ts).
    vcc: () => st.vcc,
  };
}

/**
 * `lines` without the instructions that only take issue slots: records without value
 * semantics that wait for no counter (`s_nop`, `s_delay_alu`, `s_waitcnt_depctr`; not
 * `s_waitcnt`, whose lgkmcnt the LDS wait model reads). The interpreter steps over them
 * reading and writing no state (./interp.ts `run`: their cycles are counted, nothing else), so
 * a loop-free routine runs in `execPaths` exactly as these lines do — what lets the warp-level
 * query key (./model.ts `keyText`) share one proof between processors that differ only in
 * hazard waits. Those waits are checked per processor before any proof (./model.ts `prove`:
 * targets/amdgpu/hazards.ts), and each key carries its own routine's hazard verdict.
 */
export function waitFreeLines(lines: readonly MLine[]): MLine[] {
  return lines.filter((l) => {
    if (isLabel(l)) return true;
    const rec = record(l.op);
    // (One with the wrong operand count stays: the interpreter refuses it.)
    return !("none" in rec.sem) || rec.lgkmcnt !== undefined || l.ops.length !== rec.ops.length;
  });
}

/** One line as printed in traces and query keys: `label:` or `op[_enc] operands`. */
export function showLine(l: MLine): string {
  if (isLabel(l)) return `${l.label}:`;
  return `${l.op}${l.enc ? "_" + l.enc : ""} ${l.ops.map(printOp).join(", ")}`.trimEnd();
}

/** The lowering's trace, instruction by instruction, showing lane `lane`'s values. */
export function amdTraceLines(trace: StepTrace<CV>[], lane: number): string[] {
  return trace.map((s) => {
    const text = showLine(s.inst);
    const w = s.writes.map((wr) => `${wr.what} = ${fmt(Array.isArray(wr.value) ? wr.value[lane]! : wr.value)}`).join("  ");
    return `  ${text.padEnd(40)} ${w}`.trimEnd();
  });
}
