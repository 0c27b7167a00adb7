/**
 * @fileoverview The inductive proof of a warp-level routine whose one loop is a scalar fold
 * over a lane mask (redux.sync's `s_ff1`/`v_readlane` loop over the members M = membermask ∩ E),
 * recognised from its instructions, not from the rule's name (./warp.ts calls it first for
 * every one-loop routine; where the shape does not fit it says why and ./warp.ts goes on).
 *
 * The shape. One do-while loop (match.ts `loopShape`) whose body is straight-line SALU/lane-read
 * work: it writes no VGPR, no exec, no DS result, and reads before writing exactly two SGPRs
 * it also writes — `mem`, the one the body maps to `mem & (mem − 1)` (its lowest set bit
 * cleared; found by a query), and `acc`. a's register is written neither by the prologue nor by
 * the body.
 *
 * The reduction over a set. For a lane set G (32 booleans), REF(G) is the reference's own fold
 * (src/sem/warp.ts, `warpLevel`) of a's values at the loop head over G: lane 0's d of a warp
 * whose membermask names all lanes and whose active and executing lanes are G, so its members
 * are G. Nothing about the operation is restated here.
 *
 * The invariant at the loop head, indexed by l = the lowest set bit of mem (M = mem at the head
 * the first time): I_l: mem = M ∩ [l, 32) with bit l set, and acc = REF(M ∩ [0, l)).
 * The loop lemma (`foldLoopLemma`, the one copy of it: ./warp_waterfall.ts proves its rounds'
 * inner fold loop with it too; cached per loop, over a fully symbolic head state), one query
 * per l ∈ 0..31:
 * from any state with mem's bits below l clear, bit l set, bits above l arbitrary (m_t), and
 * acc = REF({t < l : m_t}), one trip gives mem' = mem without bit l, acc' = REF({t < l : m_t} ∪
 * {l}), and the back-edge is taken iff mem' ≠ 0; and from mem = 0 one trip leaves mem' = 0 and
 * exits. Then by induction over the trips (each clears one bit: at most 32), from I_l with
 * M ∩ [0, l) arbitrary, the loop exits with acc = REF(M) when M ≠ 0 (M ∩ [0, l'] = M ∩ [0, l) ∪ {l}
 * when l' is the next bit; at exit no bit is left), and with mem = 0 when M = 0.
 * The entry: the prologue's acc is REF(∅) (I_l holds at the first head with l = ff1(M)); checked
 * here on the routine's own inputs, by the lemma itself from any state where its caller asks
 * (the waterfall's round).
 * The exit, per lane i: the state after the loop is the prologue's, with mem = 0, acc = REF(M)
 * (M ≠ 0; else arbitrary), every other register the body writes arbitrary. Lane i's members
 * under the reference are G_i (src/sem/members.ts `membership`); one query shows that where
 * lane i executes with a defined d, G_i = M; so there acc = REF(G_i), which is the reference's
 * d of lane i term for term, and the epilogue runs from that state for lane i's value. Guard-off
 * lanes and the contract are checked on the summary state itself.
 *
 * The folded values. The body's v_readlane may read a VGPR other than a's: `.f32`'s key loop
 * (rules/redux_f32.ts) folds the total-order keys a VALU prologue computed, by s_min/max_u32,
 * over the number members M' (the NaN lanes dropped). Then REF above is the reference's
 * `redux.{min,max}.u32` fold (g) of that VGPR's lanes at the head — the lemma is the same, with
 * g for f — and the exit relates REF_g(keys, U) to the reference's `.f32` fold of a by the key
 * chain (`keyChain`, below): a fact about the reference alone, for the routine's key map Kp,
 * proved once per (form, Kp) by an induction over lane prefixes and shared by every routine
 * with that key map; a congruence of the integer fold (`congruenceChain`, once per g); and one
 * lane-local query per routine (the lanes of M hold Kp of their a). Its H(G_i), with lane i's
 * members, is an assumption of the exit's query, together with "where lane i executes with a
 * defined d, M' = lane i's number members" (a query). The exit's acc is REF_g(keys, U(G_i))
 * where U(G_i) ≠ ∅, arbitrary where it is empty, and the epilogue (decode, NaN fix-up) runs
 * from there; the query is generalised over the folds' 32-lane terms (`keyChain`, "The
 * generalisation"), so it is about H and the lane-local terms only. H may be taken for a family
 * of masks M(X), X fresh (the waterfall: every round's mask, X ∩ the executing lanes).
 */
import type { Form, Profile } from "../../../src/ir/forms.js";
import { formId } from "../../../src/ir/forms.js";
import type { WarpForm } from "../../../src/ir/warp_forms.js";
import type { SourceName } from "../../../src/ir/ir.js";
import { membership } from "../../../src/sem/members.js";
import { warpLevel } from "../../../src/sem/warp.js";
import type { Bad, Init, Verdict } from "../../../src/check/prove_types.js";
import { symbolicInit } from "../../../src/check/prove_types.js";
import { hash } from "../../../src/check/prove_text.js";
import { LANES } from "../../../src/check/prove_warp.js";
import type { Bool, BitVec, Z3Env } from "../../../src/check/smt.js";
import { solve } from "../../../src/check/smt.js";
import type { AmdRoutine } from "../lower.js";
import type { WaveState } from "../interp.js";
import { InterpError } from "../interp.js";
import { contractBads } from "../contract.js";
import { record } from "../isa/index.js";
import type { MLine, MOp } from "../minst.js";
import { isLabel } from "../minst.js";
import { cloneState, execPaths, initialState, readSource, showLine } from "./paths.js";
import type { AmdWarp } from "./warp.js";
import { warpInit, warpLaneBads } from "./warp.js";

/** Why the shape does not fit, or the verdict. */
export type LoopOutcome = { verdict: Verdict } | { notApplicable: string };

/** The per-loop lemma results of this thread, by loop key. */
const lemmas = new Map<string, Promise<Lemma>>();

type Line = Exclude<MLine, { label: string }>;

/** SGPR numbers an operand names (both of a pair), or `vcc`/`exec`/`v` markers. */
function keysOf(o: MOp): string[] {
  if (o.k === "s" || o.k === "v") return Array.from({ length: o.count }, (_, i) => `${o.k}${o.n + i}`);
  if (o.k === "vcc" || o.k === "vcc_lo" || o.k === "vcc_hi") return ["vcc"];
  if (o.k === "exec" || o.k === "exec_lo" || o.k === "exec_hi") return ["exec"];
  return [];
}

/** Registers a straight-line list writes, and those it reads before writing. */
export function flow(lines: readonly Line[]): { written: Set<string>; readFirst: Set<string>; ds: boolean } {
  const written = new Set<string>();
  const readFirst = new Set<string>();
  let ds = false;
  for (const l of lines) {
    const rec = record(l.op);
    if (rec.enc === "DS") ds = true;
    const reads: string[] = [...(rec.uses ?? [])];
    const writes: string[] = [...(rec.defs ?? [])];
    rec.ops.forEach((s, i) => {
      const ks = keysOf(l.ops[i]!);
      if (!s.out || s.tied) reads.push(...ks);
      if (s.out) writes.push(...ks);
    });
    for (const k of reads) if (!written.has(k)) readFirst.add(k);
    for (const k of writes) written.add(k);
  }
  return { written, readFirst, ds };
}

/** a's lane values in `st` (a uniform or immediate a: the same value in every lane). */
export function aLanes<V, B>(bv: Init<V, B>["bv"], r: AmdRoutine, st: WaveState<V, B>): V[] {
  const k = r.spec.kinds.a ?? { kind: "v" };
  const lanes = Array.from({ length: LANES }, (_, l) => l);
  if (k.kind === "imm") return lanes.map(() => bv.k(k.value & 0xffffffffn, 32));
  return lanes.map((l) => readSource(bv, st, r.layout.src.a!, 32, l));
}

/**
 * REF(G): the reference's fold of `a` over the lane set G (file comment; ./warp_tree.ts uses it
 * too): lane 0's d of the form with every membermask all ones and the lanes of G the active ones
 * (lane 0's members are then G, whether or not lane 0 is in G). Only lane 0 is computed.
 */
export function refOver<V, B>(bv: Init<V, B>["bv"], f: WarpForm, a: V[], G: B[]): V {
  const ones = a.map(() => bv.k(0xffffffffn, 32));
  return warpLevel(bv, f, { a, b: [], c: [], membermask: ones, active: G, executes: G }, "isa", [0]).d[0]!;
}

/** The back-edge condition of `br` in state `st`. */
export function branchTaken<V, B>(bv: Init<V, B>["bv"], br: Line, st: WaveState<V, B>): B {
  const rec = record(br.op);
  if (!("branch" in rec.sem)) throw new InterpError("loop does not end in a branch");
  const no = (): never => {
    throw new InterpError("branch reads an operand");
  };
  return rec.sem.branch(bv, { wave: st.wave, gen: st.gen, read: no, readLanes: no, write: no, writeLanes: no, exec: () => st.exec, setExec: no, scc: () => st.scc, setScc: no });
}

/** The result of a fold loop's lemma (`foldLoopLemma`). */
export type Lemma = { ok: boolean; reason: string; queries: number; ms: number; fault?: boolean };

/**
 * The folded values of a fold loop (file comment, "The folded values"): `fv`, the VGPR the
 * body's one v_readlane reads when it is not a's (a lane-wise prologue value, `.f32`'s keys),
 * folded by the integer form g (`foldForm`, `redux.{min,max}.u32`); else null and a, by the
 * routine's own form. A string: why the body folds neither.
 */
export function foldedOf(r: AmdRoutine, body: readonly Line[]): { fv: Extract<MOp, { k: "v" }> | null; foldForm: WarpForm } | string {
  const f = r.spec.form as unknown as WarpForm;
  const reads = body.filter((l) => l.op === "v_readlane_b32");
  const fv = reads.length === 1 && reads[0]!.ops[1]!.k === "v" && !(r.layout.src.a?.k === "v" && r.layout.src.a.n === reads[0]!.ops[1]!.n) ? (reads[0]!.ops[1] as Extract<MOp, { k: "v" }>) : null;
  if (!fv) return { fv, foldForm: f };
  if (f.op !== "redux" || f.type !== "f32") return `the loop folds ${showLine({ op: "v_mov_b32", ops: [fv] } as Line).split(" ")[1]}, not a`;
  return { fv, foldForm: { op: "redux", reduxOp: f.reduxOp, type: "u32" } };
}

/** The folded values' lanes in `st`: `fv`'s, or a's when `fv` is null (`foldedOf`). */
export function foldedLanes<V, B>(bv: Init<V, B>["bv"], r: AmdRoutine, fv: Extract<MOp, { k: "v" }> | null, st: WaveState<V, B>): V[] {
  return fv ? Array.from({ length: LANES }, (_, l) => readSource(bv, st, fv, 32, l)) : aLanes(bv, r, st);
}

/**
 * The loop lemma of a scalar fold loop (file comment: one query per lowest bit l ∈ 0..31 and
 * one for mem = 0, over a fully symbolic head state, REF the reference's fold by `foldForm` of
 * the folded values `fv`, `foldedOf`), cached in this thread under `key` (the caller's text
 * naming the loop; equal texts must mean equal queries) together with the fold. `entry`: code
 * run from a fully symbolic state before the loop head; when given, one more query shows it
 * leaves acc = REF(∅) (./warp_waterfall.ts's round; ./warp.ts's one-loop routines check the
 * entry on their own inputs instead). A fault (the solver's) is not cached.
 */
export function foldLoopLemma(
  env: Z3Env,
  r: AmdRoutine,
  loop: { body: Line[]; br: Line; mem: number; acc: number; fv: Extract<MOp, { k: "v" }> | null; foldForm: WarpForm; entry?: Line[] },
  key: string,
  timeoutMs: number,
): { key: string; lemma: Promise<Lemma>; cached: boolean } {
  const bv = env.bv;
  const W = r.target.wave;
  const { body, br, mem, acc, fv, foldForm, entry } = loop;
  const k = hash(["fold-loop-lemma", formId(foldForm as unknown as Form), fv ? `v${fv.n}` : "a", entry ? "entry" : "", key].join("\n"));
  const hit = lemmas.get(k);
  if (hit) return { key: k, lemma: hit, cached: true };
  const run = (code: readonly Line[], S: WaveState<BitVec, Bool>) => {
    const p = execPaths(bv, code, S, { maxBack: 0 });
    if (!p.final || bv.asBool(p.stuck) !== false) throw new InterpError("straight-line code does not reach its end");
    return p.final;
  };
  const lemma = (async (): Promise<Lemma> => {
    const t1 = performance.now();
    let queries = 0;
    const fail = (reason: string, fault?: boolean): Lemma => ({ ok: false, reason, queries, ms: performance.now() - t1, ...(fault ? { fault } : {}) });
    try {
      if (entry) {
        // The entry: the code before the loop leaves acc = REF(∅), from any state.
        const li = symbolicInit(env);
        const S = run(entry, initialState(li, r, li.mk("e.exec", W)));
        const none = Array.from({ length: LANES }, () => bv.false);
        queries++;
        const res = await solve(env, [bv.notB(bv.eq(S.sgpr.get(acc)!, refOver(bv, foldForm, foldedLanes(bv, r, fv, S), none)))], timeoutMs);
        if (res.status !== "unsat") return fail(res.status === "sat" ? "the loop's accumulator does not start at the fold over no lane" : `loop entry: ${res.reason ?? "unknown"} (per-query timeout ${timeoutMs / 1000} s)`, res.fault);
      }
      for (let l = -1; l < 32; l++) {
        const li = symbolicInit(env);
        const S = initialState(li, r, li.mk("h.exec", W));
        const m = Array.from({ length: 32 }, (_, t) => li.mkB(`m.${t}`));
        const bitsAbove = (k: number) => {
          let x = bv.k(0, 32);
          for (let t = k + 1; t < 32; t++) x = bv.or(x, bv.ite(m[t]!, bv.k(1n << BigInt(t), 32), bv.k(0, 32)));
          return x;
        };
        const a = foldedLanes(bv, r, fv, S);
        const goals: Bool[] = [];
        if (l < 0) {
          // mem = 0: one trip, mem stays 0 and the loop exits.
          S.sgpr.set(mem, bv.k(0, 32));
          const S1 = run(body, S);
          goals.push(bv.eq(S1.sgpr.get(mem)!, bv.k(0, 32)), bv.notB(branchTaken(bv, br, S1)));
        } else {
          S.sgpr.set(mem, bv.or(bv.k(1n << BigInt(l), 32), bitsAbove(l)));
          S.sgpr.set(acc, refOver(bv, foldForm, a, m.map((x, t) => (t < l ? x : bv.false))));
          const S1 = run(body, S);
          const mem1 = bitsAbove(l);
          const G1 = m.map((x, t) => (t < l ? x : t === l ? bv.true : bv.false));
          goals.push(bv.eq(S1.sgpr.get(mem)!, mem1), bv.eq(S1.sgpr.get(acc)!, refOver(bv, foldForm, a, G1)), bv.eqB(branchTaken(bv, br, S1), bv.notB(bv.eq(mem1, bv.k(0, 32)))));
        }
        queries++;
        const res = await solve(env, [bv.notB(bv.all(goals))], timeoutMs);
        if (process.env.PROVE_DEBUG) console.log("fold loop lemma", l, res.status, Math.round(res.ms));
        const at = l < 0 ? "mem = 0" : `lowest bit ${l}`;
        if (res.status === "sat") return fail(`loop lemma fails at ${at} (not proved, not a counterexample)`);
        if (res.status === "unknown") return fail(`loop lemma (${at}): ${res.reason ?? "unknown"} (per-query timeout ${timeoutMs / 1000} s)`, res.fault);
      }
    } catch (e) {
      if (!(e instanceof InterpError)) throw e;
      return fail(`loop lemma: ${e.message}`);
    }
    return { ok: true, reason: "", queries, ms: performance.now() - t1 };
  })();
  lemmas.set(k, lemma);
  void lemma.then((l) => {
    if (l.fault) lemmas.delete(k);
  });
  return { key: k, lemma, cached: false };
}

/**
 * Proves a one-loop warp-level routine whose loop is a scalar fold over a lane mask (file
 * comment), or says why the shape does not fit.
 */
export async function proveScalarLoop(env: Z3Env, r: AmdRoutine, profile: Profile, shape: { label: number; branch: number }, timeoutMs: number, t0: number): Promise<LoopOutcome> {
  void profile;
  const bv = env.bv;
  const f = r.spec.form as unknown as WarpForm;
  const pro = r.lines.slice(0, shape.label) as Line[];
  const body = r.lines.slice(shape.label + 1, shape.branch) as Line[];
  const br = r.lines[shape.branch] as Line;
  const epi = r.lines.slice(shape.branch + 1);
  const bf = flow(body);
  const pf = flow(pro);
  if (bf.ds) return { notApplicable: "the loop body issues a DS instruction" };
  if (bf.written.has("exec")) return { notApplicable: "the loop writes exec (a waterfall over lane groups: the warp-level prover has no induction for it yet)" };
  if ([...bf.written].some((k) => /^v\d+$/.test(k))) return { notApplicable: "the loop body writes a VGPR (not a scalar fold)" };
  if (f.op !== "redux") return { notApplicable: "the loop-fold invariant is the reference's reduction, which only redux has" };
  const carried = [...bf.readFirst].filter((k) => bf.written.has(k));
  const sgprs = carried.filter((k) => /^s\d+$/.test(k)).map((k) => Number(k.slice(1)));
  if (carried.length !== 2 || sgprs.length !== 2) return { notApplicable: `the loop carries ${carried.join(", ") || "nothing"}, not a mask and an accumulator` };
  const aKeys = r.layout.src.a ? keysOf(r.layout.src.a) : [];
  if (aKeys.some((k) => bf.written.has(k) || pf.written.has(k))) return { notApplicable: "a's register is written before or in the loop" };
  const fo = foldedOf(r, body);
  if (typeof fo === "string") return { notApplicable: fo };
  const { fv, foldForm } = fo;
  const folded = <V, B>(bv: Init<V, B>["bv"], st: WaveState<V, B>): V[] => foldedLanes(bv, r, fv, st);

  // Which carried SGPR is the mask: the body maps it to mem & (mem − 1).
  const init = symbolicInit(env);
  const W = r.target.wave;
  const probe = initialState(init, r, init.mk("probe.exec", W));
  const probeOut = execPaths(bv, body, cloneState(probe), { maxBack: 0 }).final!;
  let mem: number | undefined;
  for (const n of sgprs) {
    const x = probe.sgpr.get(n)!;
    const res = await solve(env, [bv.notB(bv.eq(probeOut.sgpr.get(n)!, bv.and(x, bv.sub(x, bv.k(1, 32)))))], timeoutMs);
    if (res.status === "unsat") mem = n;
  }
  if (mem === undefined) return { notApplicable: "no carried SGPR loses its lowest set bit per trip" };
  const acc = sgprs.find((n) => n !== mem)!;

  // The loop lemma (file comment), cached per loop.
  const { key, lemma, cached } = foldLoopLemma(env, r, { body, br, mem, acc, fv, foldForm }, [W, r.target.gen, formId(r.spec.form), JSON.stringify(r.spec.kinds.a ?? "v", (_k, v) => (typeof v === "bigint" ? `${v}` : v)), r.layout.src.a ? showLine({ op: "v_mov_b32", ops: [r.layout.src.a] } as Line) : "", mem, acc, ...body.map(showLine), showLine(br)].join("\n"), timeoutMs);
  const lem = await lemma;
  if (!lem.ok) return { verdict: { verdict: "unknown", ms: performance.now() - t0, reason: lem.reason, ...(lem.fault ? { fault: true } : {}) } };

  // Entry and exit on the routine's own inputs.
  const { st, before, w } = warpInit(init, r);
  const Sh = execPaths(bv, pro, st, { maxBack: 0 }).final!;
  if (Sh.lds?.length) return { notApplicable: "a DS result is outstanding at the loop head (the lemma's head state has none)" };
  const M = Sh.sgpr.get(mem!)!;
  const aH = folded(bv, Sh);
  const none = aH.map(() => bv.false);
  const summary = (accVal: BitVec): WaveState<BitVec, Bool> => {
    const S = cloneState(Sh);
    for (const k of bf.written) {
      if (/^s\d+$/.test(k)) S.sgpr.set(Number(k.slice(1)), init.mk(`x.${k}`, 32));
      if (k === "vcc") S.vcc = init.mk("x.vcc", W);
    }
    S.scc = init.mkB("x.scc");
    S.sgpr.set(mem!, bv.k(0, 32));
    S.sgpr.set(acc, accVal);
    return S;
  };
  const epilogue = (S: WaveState<BitVec, Bool>) => {
    const fin = execPaths(bv, epi, S, { maxBack: 0 });
    if (!fin.final || bv.asBool(fin.stuck) !== false) throw new InterpError("the epilogue has a loop");
    return fin.final;
  };
  const bitsM = Array.from({ length: LANES }, (_, t) => bv.bitAt(M, t));
  // Guard-off lanes and the contract are checked for every value of acc (a fresh symbol), which
  // covers the summary's; a defined lane's value from REF(G_i) (see below).
  let finX: WaveState<BitVec, Bool>;
  try {
    finX = epilogue(summary(init.mk("x.acc", 32)));
  } catch (e) {
    if (!(e instanceof InterpError)) throw e;
    return { notApplicable: `the epilogue: ${e.message}` };
  }
  type Goal = { what: string; bad: Bool; assume?: Bool[] };
  let keyNote = "";
  const goals: Goal[] = [{ what: "the loop entry (acc = the fold over no lane)", bad: bv.notB(bv.eq(Sh.sgpr.get(acc)!, refOver(bv, foldForm, aH, none))) }];
  const offOrContract: Bad<Bool>[] = contractBads(bv, r, before, finX, (l) => (l < LANES ? w.activeB[l]! : bv.false));
  const lanesOf = new Map<number, Bool[]>();
  for (const b of offOrContract) if (b.lane !== undefined && b.lane < LANES) lanesOf.set(b.lane, [...(lanesOf.get(b.lane) ?? []), b.cond]);
  // The folded values are not a (.f32's keys): every lane's outputs from the summary itself,
  // acc = REF_g(M) where M ≠ 0, arbitrary where M = 0 (the file comment); the members of a lane
  // need not be M (the key loop's M drops the NaN members), the epilogue's fix-up decides.
  if (fv) {
    const chain = await keyChain(env, r, f as Extract<WarpForm, { op: "redux" }>, foldForm, pro, fv, M, aH, Sh, timeoutMs);
    if (!chain.ok) return { verdict: { verdict: "unknown", ms: performance.now() - t0, reason: chain.reason, ...(chain.fault ? { fault: true } : {}) } };
    keyNote = `; ${chain.text}`;
    const laneBads: Bool[] = [];
    const assume: Bool[] = [];
    const hs = new Map<string, Bool>();
    const pairs: [BitVec, BitVec][] = [];
    for (let i = 0; i < LANES; i++) {
      // Lane i's members G_i; where lane i executes with a defined d, the loop's mask is G_i's
      // number members U(G_i) (the query below), so the summary's acc is REF_g(keys, U(G_i))
      // where U(G_i) ≠ ∅, and the chain's H_32 for T = G_i holds.
      const Gi = membership(bv, w.lanes, i).members;
      const on = bv.andB(w.lanes.executes[i]!, w.ref.dDefined[i]!);
      const U = Gi.map((g, l) => bv.andB(g, chain.number[l]!));
      const same = bv.all(U.map((u, l) => bv.eqB(u, bitsM[l]!)));
      goals.push({ what: `lane ${i}'s number members are the loop's mask`, bad: bv.andB(on, bv.notB(same)) });
      let finI: WaveState<BitVec, Bool>;
      try {
        finI = epilogue(summary(bv.ite(bv.eq(M, bv.k(0, 32)), init.mk("x.acc", 32), refOver(bv, foldForm, aH, U))));
      } catch (e) {
        if (!(e instanceof InterpError)) throw e;
        return { notApplicable: `the epilogue: ${e.message}` };
      }
      laneBads.push(...warpLaneBads(bv, f, w as AmdWarp<BitVec, Bool>, finI, i).filter((b) => b.what.startsWith("Value mismatch")).map((b) => b.cond));
      laneBads.push(...warpLaneBads(bv, f, w as AmdWarp<BitVec, Bool>, finX, i).filter((b) => !b.what.startsWith("Value mismatch")).map((b) => b.cond), ...(lanesOf.get(i) ?? []));
      // Lanes with the same members (z3's terms are hash-consed: the same AST) share H_32.
      const gk = Gi.map((x) => x.id()).join(",");
      if (!hs.has(gk)) {
        hs.set(gk, chain.H(Gi));
        pairs.push(...chain.gen(Gi));
      }
      assume.push(bv.implies(on, same), hs.get(gk)!);
    }
    const members = goals.filter((g) => g.what.endsWith("the loop's mask"));
    // The outputs' query generalised over the folds' terms (./warp_loop.ts `keyChain`, "The
    // generalisation": a proof of the generalised query is one of the query).
    const [outBad, ...outAssume] = generalise(env, [bv.any(laneBads), ...assume], pairs);
    goals.splice(0, goals.length, goals[0]!, { what: "every lane's number members are the loop's mask", bad: bv.any(members.map((g) => g.bad)) }, { what: "every lane's outputs", bad: outBad!, assume: outAssume });
    const rest = offOrContract.filter((b) => b.lane === undefined || b.lane >= LANES);
    if (rest.length) goals.push({ what: "the contract (exec, SGPRs, upper lanes)", bad: bv.any(rest.map((b) => b.cond)) });
  }
  for (let i = 0; i < LANES && !fv; i++) {
    const Gi = membership(bv, w.lanes, i).members;
    const on = bv.andB(w.lanes.executes[i]!, w.ref.dDefined[i]!);
    const same = bv.all(Gi.map((g, t) => bv.eqB(g, bitsM[t]!)));
    goals.push({ what: `lane ${i}'s members are the loop's mask`, bad: bv.andB(on, bv.notB(same)) });
    let finI: WaveState<BitVec, Bool>;
    try {
      // Where lane i executes with a defined d, G_i = M (the query above) and G_i holds lane i,
      // so M ≠ 0 and the summary's acc is REF(M) = REF(G_i): the on-condition is checked there.
      finI = epilogue(summary(refOver(bv, f, aH, Gi)));
    } catch (e) {
      if (!(e instanceof InterpError)) throw e;
      return { notApplicable: `the epilogue: ${e.message}` };
    }
    const onBads = warpLaneBads(bv, f, w as AmdWarp<BitVec, Bool>, finI, i).filter((b) => b.what.startsWith("Value mismatch"));
    const offBads = warpLaneBads(bv, f, w as AmdWarp<BitVec, Bool>, finX, i).filter((b) => !b.what.startsWith("Value mismatch"));
    goals.push({ what: `lane ${i}`, bad: bv.any([...onBads, ...offBads].map((b) => b.cond).concat(lanesOf.get(i) ?? [])), assume: [bv.implies(on, same)] });
  }
  const rest = fv ? [] : offOrContract.filter((b) => b.lane === undefined || b.lane >= LANES);
  if (rest.length && !fv) goals.push({ what: "the contract (exec, SGPRs, upper lanes)", bad: bv.any(rest.map((b) => b.cond)) });
  // One query for the members of every lane and one for every lane's outputs (their terms are
  // the reference's own, so the lanes share them): fewer, larger queries solve faster here.
  if (!fv) {
    const members = goals.filter((g) => g.what.endsWith("the loop's mask"));
    const lanesG = goals.filter((g) => /^lane \d+$/.test(g.what));
    const others = goals.filter((g) => !members.includes(g) && !lanesG.includes(g));
    goals.length = 0;
    goals.push(...others, { what: "every lane's members are the loop's mask", bad: bv.any(members.map((g) => g.bad)) }, { what: "every lane's outputs", bad: bv.any(lanesG.map((g) => g.bad)), assume: lanesG.flatMap((g) => g.assume ?? []) });
  }
  let n = 0;
  const t2 = performance.now();
  for (const g of goals) {
    if (bv.asBool(g.bad) === false) continue;
    n++;
    const res = await solve(env, [...(g.assume ?? []), g.bad], timeoutMs);
    if (process.env.PROVE_DEBUG) console.log("exit", g.what, res.status, Math.round(res.ms));
    if (res.status === "unsat") continue;
    // Not a counterexample by itself (the summary abstracts the loop): the caller's unrolled
    // search may still refute; here it is unknown.
    return { verdict: { verdict: "unknown", ms: performance.now() - t0, reason: res.status === "sat" ? `loop-fold exit query fails at ${g.what} (not proved, not a counterexample)` : `loop-fold exit query (${g.what}): ${res.reason ?? "unknown"} (per-query timeout ${timeoutMs / 1000} s)`, ...(res.fault ? { fault: true } : {}) } };
  }
  const lemmaText = cached ? `loop lemma ${key.slice(0, 8)} (shared)` : `loop lemma ${key.slice(0, 8)}: ${lem.queries} queries ${(lem.ms / 1000).toFixed(1)} s`;
  return {
    verdict: {
      verdict: "proved",
      ms: performance.now() - t0,
      method: `z3 inductive loop-fold invariant (acc = the reference's fold over the retired lanes of the mask s${mem}), 32 lanes, full-width values (${lemmaText}; exit ${n} queries ${((performance.now() - t2) / 1000).toFixed(1)} s${keyNote})`,
      queries: (cached ? 0 : lem.queries) + n,
    },
  };
}

export type { SourceName };

/** The outcome of a generic key chain (`keyChain`): proved or why not. */
type ChainRun = { ok: boolean; reason: string; queries: number; ms: number; fault?: boolean };

/** The generic key chains of this thread (`keyChain`), by form and key map Kp (its term). */
const chains = new Map<string, Promise<ChainRun>>();

/** Fresh symbols of the exit's generalisation (`keyChain`'s `gen`), numbered in this thread. */
let genCount = 0;

/**
 * The key chain of a `.f32` redux f whose routine folds keys (a prologue VGPR `fv`, by the
 * integer form g) — the fact about the reference that relates its `.f32` fold of a to the
 * integer fold of the keys — with the routine's link to it and the exit's generalisation.
 *
 * Notation. Kp(x): the prologue run in a lane whose a is x (exec all ones), fv's value there —
 * the routine's own key map. f' = f without `.NaN`; canonical = REF_f'(∅); number_l =
 * (REF_f'({l}) ≠ canonical), the reference's own "lane l is a number" (one lane); for a lane set
 * T, T_j = T ∩ [0, j), U_j = {l ∈ T_j : number_l}, V_j = T_j ∖ U_j, R_j = REF_f(T_j) (the form
 * itself, `.NaN` included), KF_j = REF_g(Kp(a), U_j) (the integer fold of the lanes' Kp), and
 *   H_j(a, T):  (U_j = ∅ → R_j = canonical)
 *             ∧ (.NaN ∧ V_j ≠ ∅ → R_j = canonical)
 *             ∧ (U_j ≠ ∅ ∧ ¬(.NaN ∧ V_j ≠ ∅) → KF_j = Kp(R_j) ∧ R_j = REF_f({R_j}))
 * (the last conjunct: R_j is a fixpoint of the reference's one-member reduction — for `.abs`,
 * |R_j| = R_j — so that the routine's decode of Kp(R_j) can be checked without R_j's term).
 *
 * The generic chain (cached). Over fresh a, T (32 lanes each): H_0, and H_{j−1} → H_j for
 * j = 1 … 32 (33 queries, each one lane's step of both folds; H_{j−1} is a hint only — each
 * query shows H_j valid). So H_32 holds for every a and T, and for every value of any other
 * symbol in Kp's term: a valid formula's free symbols are universally quantified, so every
 * instance — a, T replaced by the routine's terms — holds. The queries are built from f, g and
 * Kp alone, and Kp(y) is Kp(x)'s term with y for x (the prologue is run on an opaque value), so
 * the chain is cached in this thread under (f, g, Kp(x)'s simplified printed term for one fixed
 * symbol x; z3's simplify keeps meaning, so equal texts mean equal key maps and equivalent
 * queries): routines whose prologues compute the same key map, on any processor, share it.
 *
 * The link (per routine, one query). M: the loop's mask at its head (a term over the routine's
 * inputs), or M(X) for a fresh 32-bit X (the waterfall: every round's mask); keys: the folded
 * VGPR's lanes at the head. link(X): every lane l with bit l of M(X) holds keys_l = Kp(a_l),
 * proved for a fresh X, so for every X. With the congruence C(g, keys, Kp(a), U)
 * (`congruenceChain`: the integer fold over U reads its values only at the lanes of U; proved
 * once per g, for fresh values) and the exit's own query "U(G_i) ⊆ M where lane i is defined",
 * REF_g(keys, U(G_i)) — the loop's accumulator — is REF_g(Kp(a), U(G_i)), which H_32 relates to
 * the reference. `H(T, X)` is link(X) ∧ C(g, keys, Kp(a), U(T)) ∧ H_32(a, T) over the routine's
 * a: all proved, so an assumption of any exit query.
 *
 * The generalisation (`gen(T)`). In the exit's query the 32-lane terms REF_f(a, T) (the
 * reference's d of a lane whose members are T: the same term, z3's terms being hash-consed),
 * REF_g(keys, U(T)) (the loop's accumulator) and REF_g(Kp(a), U(T)) occur only where `H(T)`
 * relates them; `gen` gives a fresh symbol for each. Replacing terms by fresh symbols in every
 * formula of a query (z3 `substitute`) is sound for a proof: a model of the original query is
 * one of the generalised query (each symbol taking its term's value), so "generalised unsat"
 * implies "unsat". A sat generalised query proves nothing: the exit reports `unknown`, never a
 * counterexample (./warp.ts's bug-finder refutes). So the exit is proved from what H says and
 * the lane-local terms, without the folds' 32-lane terms.
 */
export async function keyChain(
  env: Z3Env,
  r: AmdRoutine,
  f: Extract<WarpForm, { op: "redux" }>,
  g: WarpForm,
  pro: Line[],
  fv: Extract<MOp, { k: "v" }>,
  M: BitVec | ((X: BitVec) => BitVec),
  keys: BitVec[],
  Sh: WaveState<BitVec, Bool>,
  timeoutMs: number,
): Promise<ChainRun & { text: string; number: Bool[]; H: (T: Bool[], X?: BitVec) => Bool; gen: (T: Bool[]) => [BitVec, BitVec][] }> {
  const bv = env.bv;
  const init = symbolicInit(env);
  const fNo = { ...f, NaN: false } as WarpForm;
  const nanForm = f.type === "f32" && f.NaN;
  const t1 = performance.now();
  // Kp(x): the prologue run in a lane whose a is x (exec all ones: the lane executes).
  const kpOf = new Map<number, BitVec>();
  const kp = (x: BitVec): BitVec => {
    const hit = kpOf.get(x.id());
    if (hit) return hit;
    const S = initialState(init, r, bv.k((1n << BigInt(r.target.wave)) - 1n, r.target.wave));
    const o = r.layout.src.a as Extract<MOp, { k: "v" }>;
    S.vgpr.get(o.n)![0] = x;
    const y = execPaths(bv, pro, S, { maxBack: 0 }).final!.vgpr.get(fv.n)![0]!;
    kpOf.set(x.id(), y);
    return y;
  };
  const only = (l: number) => Array.from({ length: LANES }, (_, t) => (t === l ? bv.true : bv.false));
  const none = Array.from({ length: LANES }, () => bv.false);
  /** number_l per lane (one lane's reference), canonical and Kp per lane, for lane values a. */
  const lanesOf = (a: BitVec[]) => {
    const canonical = refOver(bv, fNo, a, none);
    return { canonical, number: a.map((_, l) => bv.notB(bv.eq(refOver(bv, fNo, a, only(l)), canonical))), k: a.map(kp) };
  };
  type Lanes = ReturnType<typeof lanesOf>;
  const uOf = (nb: Lanes, T: Bool[]) => T.map((t, l) => bv.andB(t, nb.number[l]!));
  /** H_j(a, T) (the comment). */
  const Hj = (a: BitVec[], T: Bool[], j: number, nb: Lanes): Bool => {
    const Tj = T.map((t, l) => (l < j ? t : bv.false));
    const U = uOf(nb, Tj);
    const emptyU = bv.all(U.map((u) => bv.notB(u)));
    const nanCase = nanForm ? bv.any(Tj.map((t, l) => bv.andB(t, bv.notB(nb.number[l]!)))) : bv.false;
    const R = refOver(bv, f, a, Tj);
    const fix = refOver(bv, f, a.map((_, l) => (l === 0 ? R : bv.k(0, 32))), only(0));
    const numberCase = bv.andB(bv.eq(refOver(bv, g, nb.k, U), kp(R)), bv.eq(R, fix));
    return bv.all([bv.implies(emptyU, bv.eq(R, nb.canonical)), bv.implies(nanCase, bv.eq(R, nb.canonical)), bv.implies(bv.andB(bv.notB(emptyU), bv.notB(nanCase)), numberCase)]);
  };
  // The key map's term, simplified (z3's simplify keeps a term's meaning: equal simplified
  // terms are equal functions of x, so the chains' queries are equivalent).
  // x's own printed name (z3's symbols carry a unique suffix) is replaced by "x"; any other
  // symbol keeps its unique name, so a key map reading one is shared with no other routine.
  const x = init.mk("chain.x", 32);
  const xKey = (await env.ctx.simplify(kp(x))).sexpr().split(x.sexpr()).join("x");
  const key = hash(["key-chain", formId(f as unknown as Form), formId(g as unknown as Form), xKey].join("\n"));
  let run = chains.get(key);
  const cached = run !== undefined;
  if (!run) {
    run = (async (): Promise<ChainRun> => {
      const t2 = performance.now();
      let queries = 0;
      const ga = Array.from({ length: LANES }, (_, l) => init.mk(`kc.a.${l}`, 32));
      const gT = Array.from({ length: LANES }, (_, l) => init.mkB(`kc.T.${l}`));
      const nb = lanesOf(ga);
      let prev: Bool | null = null;
      for (let j = 0; j <= LANES; j++) {
        queries++;
        const h = Hj(ga, gT, j, nb);
        const res = await solve(env, prev === null ? [bv.notB(h)] : [prev, bv.notB(h)], timeoutMs);
        prev = h;
        if (process.env.PROVE_DEBUG) console.log("key chain", j, res.status, Math.round(res.ms));
        if (res.status === "unsat") continue;
        const at = j === 0 ? "H_0" : `H_${j - 1} → H_${j}`;
        return { ok: false, reason: res.status === "sat" ? `key chain fails at ${at} (not proved, not a counterexample)` : `key chain (${at}): ${res.reason ?? "unknown"} (per-query timeout ${timeoutMs / 1000} s)`, queries, ms: performance.now() - t2, ...(res.fault ? { fault: true } : {}) };
      }
      return { ok: true, reason: "", queries, ms: performance.now() - t2 };
    })();
    chains.set(key, run);
  }
  const out = await run;
  if (out.fault) chains.delete(key);
  const a = aLanes(bv, r, Sh);
  const nb = lanesOf(a);
  const maskOf = typeof M === "function" ? M : () => M;
  const X0 = init.mk("chain.X", 32);
  /** The lane-local link for mask argument X (the comment). */
  const link = (X: BitVec) => {
    const Mx = maskOf(X);
    return bv.all(a.map((_, l) => bv.implies(bv.bitAt(Mx, l), bv.eq(keys[l]!, nb.k[l]!))));
  };
  const H = (T: Bool[], X: BitVec = X0) => {
    const U = uOf(nb, T);
    return bv.all([link(X), congruence(bv, g, keys, nb.k, U), Hj(a, T, LANES, nb)]);
  };
  const fail = { text: "", number: nb.number, H, gen: (): [BitVec, BitVec][] => [] };
  if (!out.ok) return { ...out, ...fail };
  const cong = await congruenceChain(env, g, timeoutMs);
  if (!cong.ok) return { ...cong, ...fail };
  const res = await solve(env, [bv.notB(link(X0))], timeoutMs);
  if (process.env.PROVE_DEBUG) console.log("key link", res.status, Math.round(res.ms));
  const queries = (cached ? 0 : out.queries) + (cong.cached ? 0 : cong.queries) + 1;
  if (res.status !== "unsat")
    return { ok: false, reason: res.status === "sat" ? "key link: a lane of the mask does not hold Kp of its a (not proved, not a counterexample)" : `key link: ${res.reason ?? "unknown"} (per-query timeout ${timeoutMs / 1000} s)`, queries, ms: performance.now() - t1, ...(res.fault ? { fault: true } : {}), ...fail };
  const text = cached ? `key chain ${key.slice(0, 8)} (shared), key link` : `key chain 33 queries ${(out.ms / 1000).toFixed(1)} s (${key.slice(0, 8)}), key link`;
  const fresh = new Map<number, BitVec>();
  const freshOf = (t: BitVec) => fresh.get(t.id()) ?? (fresh.set(t.id(), init.mk(`kc.gen.${genCount++}`, 32)), fresh.get(t.id())!);
  const gen = (T: Bool[]): [BitVec, BitVec][] => {
    const U = uOf(nb, T);
    return [refOver(bv, f, a, T), refOver(bv, g, keys, U), refOver(bv, g, nb.k, U)].map((t): [BitVec, BitVec] => [t, freshOf(t)]);
  };
  return { ok: true, reason: "", text, queries, ms: performance.now() - t1, number: nb.number, H, gen };
}

/** `fs` with every term of `pairs` replaced by its fresh symbol (`keyChain`'s `gen`: sound for an unsat query). */
export function generalise(env: Z3Env, fs: readonly Bool[], pairs: readonly [BitVec, BitVec][]): Bool[] {
  if (!pairs.length) return [...fs];
  return fs.map((b) => env.ctx.substitute(b, ...pairs) as Bool);
}

/** The congruence chains of this thread (`congruenceChain`), by integer form. */
const congruences = new Map<string, Promise<ChainRun>>();

/**
 * C(g, v, w, U): (∀ l ∈ U: v_l = w_l) → REF_g(v, U) = REF_g(w, U) — the reference's integer fold
 * over U reads its values only at the lanes of U. `congruence` builds it for given terms.
 */
function congruence(bv: Z3Env["bv"], g: WarpForm, v: BitVec[], w: BitVec[], U: Bool[], j = LANES): Bool {
  const Uj = U.map((u, l) => (l < j ? u : bv.false));
  return bv.implies(bv.all(Uj.map((u, l) => bv.implies(u, bv.eq(v[l]!, w[l]!)))), bv.eq(refOver(bv, g, v, Uj), refOver(bv, g, w, Uj)));
}

/**
 * Proves C(g, v, w, U) (`congruence`) for fresh v, w, U by the same induction over lane
 * prefixes as the key chain (C_0, then C_{j−1} → C_j, j = 1 … 32, the hint only), cached per g
 * in this thread: every instance of it holds.
 */
async function congruenceChain(env: Z3Env, g: WarpForm, timeoutMs: number): Promise<ChainRun & { cached: boolean }> {
  const bv = env.bv;
  const key = formId(g as unknown as Form);
  let run = congruences.get(key);
  const cached = run !== undefined;
  if (!run) {
    run = (async (): Promise<ChainRun> => {
      const t2 = performance.now();
      const init = symbolicInit(env);
      const v = Array.from({ length: LANES }, (_, l) => init.mk(`cg.v.${l}`, 32));
      const w = Array.from({ length: LANES }, (_, l) => init.mk(`cg.w.${l}`, 32));
      const U = Array.from({ length: LANES }, (_, l) => init.mkB(`cg.U.${l}`));
      let prev: Bool | null = null;
      let queries = 0;
      for (let j = 0; j <= LANES; j++) {
        queries++;
        const c = congruence(bv, g, v, w, U, j);
        const res = await solve(env, prev === null ? [bv.notB(c)] : [prev, bv.notB(c)], timeoutMs);
        prev = c;
        if (process.env.PROVE_DEBUG) console.log("congruence", j, res.status, Math.round(res.ms));
        if (res.status === "unsat") continue;
        return { ok: false, reason: res.status === "sat" ? `congruence chain fails at C_${j} (not proved, not a counterexample)` : `congruence chain (C_${j}): ${res.reason ?? "unknown"} (per-query timeout ${timeoutMs / 1000} s)`, queries, ms: performance.now() - t2, ...(res.fault ? { fault: true } : {}) };
      }
      return { ok: true, reason: "", queries, ms: performance.now() - t2 };
    })();
    congruences.set(key, run);
  }
  const out = await run;
  if (out.fault) congruences.delete(key);
  return { ...out, cached };
}
