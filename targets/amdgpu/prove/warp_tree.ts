/**
 * @fileoverview Two value reductions of the warp-level prover (./warp.ts) for the loop-free
 * reductions (the DPP butterfly of rules/redux_tree.ts), whose full-width 32-lane queries are
 * past the per-query timeout: z3 does not see that a tree and the reference's sequential fold
 * agree when they combine the 32 values in different orders.
 *
 * The linear-form reduction, for `redux.add`. Fix every input but a (the active mask, the membermask, the guard, every other
 * register). Call a value *affine* when, as a function of a's register (its lanes a_0 … a_{W−1},
 * each in Z/2^32), it is c_0 + Σ c_i·a_i mod 2^32 with c_i fixed by the other inputs; a value
 * that does not depend on a is affine (c_i = 0). `linearOnly` checks, conservatively and from
 * the instructions' records (not from the rule), that every value the routine derives from a
 * is affine:
 *   - a sum (v_add_u32, v_add_nc_u32 and their DPP forms, v_add_co_u32's vdst, s_add_u32's
 *     sdst) of affine values is affine (the records have no clamp operand: addition mod 2^32);
 *   - a copy (v_mov, s_mov, v_readlane's value, a DPP move), either data arm of a select
 *     (v_cndmask, s_cselect) and a lane-masked write (the old value kept where exec is off) is
 *     a choice between affine values made by a-independent conditions (exec, the select's
 *     mask or SCC, v_readlane's lane, DPP's lane pattern, row/bank masks and bound control),
 *     so, the other inputs fixed, one of them: affine;
 *   - a carry out of a sum of a-values (s_add_u32's SCC, v_add_co_u32's sdst) is not affine: it
 *     is "poison", which no instruction may read and which may be left at the end only in SCC
 *     or vcc (scratch: the contract, ../contract.ts, compares neither; redux writes no p);
 *   - every other use of a value of a (a lane index, a mask, exec, a condition, an operand of
 *     any other instruction) fails the check.
 * The walk runs over the straight-line sequence in order (flow-sensitive: an SGPR or SCC write
 * replaces its state; a VGPR write, lane-masked, joins the old state).
 *
 * The reference's `.add` (src/sem/warp.ts `reduceInt`) is Σ_{j member} a_j: a fold of `bv.add`
 * under member selects that depend on the mask and the active and executing lanes only, so
 * affine too. Every condition of the proof (./warp.ts: `warpLaneBads`, ../contract.ts) is then,
 * per lane, C ∧ ¬(X = Y) with C a-independent and X, Y affine (a lane's d against the
 * reference's or its prior d; a watched register against its value at entry). X − Y is affine:
 * c_0 + Σ c_i·a_i. It is 0 for every a iff c_0 = 0 (a = 0) and c_0 + c_i = 0 for each i (a = the
 * unit vector e_i, a_i = 1, the other lanes 0) — exactly, mod 2^32, with no bound on the c_i.
 * So the condition is satisfiable over all values of a iff it is over the W + 1 vectors 0, e_0,
 * …, e_{W−1}, and ./warp.ts proves the routine on those (a_l = [l = k] for a symbolic lane
 * number k, k ≥ W giving 0); a counterexample found there is a real input.
 *
 * The threshold reduction, for a loop-free `redux.min` / `.max` (the same butterfly with
 * v_min/v_max, whose full-width query is past the timeout as well), and the bit-slice
 * reduction, for a loop-free `redux.and` / `.or` / `.xor`: the argument and the algebra that
 * checks each on the run (`LatticeBV`) are src/check/lattice.ts's, shared with the portable
 * prover (targets/portable/prove.ts).
 */
import type { MOp, MLine } from "../minst.js";
import { isLabel, printOp } from "../minst.js";
import type { Mnemonic } from "../isa/index.js";
import { record } from "../isa/index.js";
import type { Verdict } from "../../../src/check/prove_types.js";
import { symbolicInit } from "../../../src/check/prove_types.js";
import type { WarpForm } from "../../../src/ir/warp_forms.js";
import { membership } from "../../../src/sem/members.js";
import { LANES } from "../../../src/check/prove_warp.js";
import type { BitVec, Bool, Z3Env } from "../../../src/check/smt.js";
import { solve } from "../../../src/check/smt.js";
import type { AmdRoutine } from "../lower.js";
import { contractBads } from "../contract.js";
import { cloneState, execPaths } from "./paths.js";
import { warpInit, warpLaneBads } from "./warp.js";
import { generalise, keyChain, refOver } from "./warp_loop.js";
import { latticeInit, latticeOnly } from "../../../src/check/lattice.js";

/** The sums whose data output is affine in affine operands (file comment); their other outputs are carries. */
const SUMS = new Set<string>(["v_add_u32", "v_add_nc_u32", "v_add_co_u32", "s_add_u32"]);

/** A register key of an operand (`v5`, `s3`; both of a pair), for the walk. */
function keysOf(o: MOp): string[] {
  if (o.k === "v" || o.k === "s") return Array.from({ length: o.count }, (_, i) => `${o.k}${o.n + i}`);
  if (o.k === "vcc" || o.k === "vcc_lo" || o.k === "vcc_hi") return ["vcc"];
  if (o.k === "exec" || o.k === "exec_lo" || o.k === "exec_hi") return ["exec"];
  return [];
}

type State = "affine" | "poison";

/**
 * Whether every value a straight-line routine derives from a (in `aReg`) is affine in a's lane
 * values (file comment), a carry of such a sum being read by nothing.
 * @returns null when it is, else the first offending instruction and why.
 */
export function linearOnly(lines: readonly MLine[], aReg: MOp): string | null {
  const st = new Map<string, State>();
  for (const k of keysOf(aReg)) st.set(k, "affine");
  const join = (xs: (State | undefined)[]): State | undefined => (xs.includes("poison") ? "poison" : xs.includes("affine") ? "affine" : undefined);
  for (const l of lines) {
    if (isLabel(l)) return `a label (${l.label}): not straight-line`;
    const rec = record(l.op);
    if (rec.ops.some((s) => s.name === "clamp")) return `${l.op}: a clamp operand`;
    const where = `${l.op} ${l.ops.map(printOp).join(", ")}`;
    const base = (l.op.endsWith("_dpp") ? l.op.slice(0, -4) : l.op) as Mnemonic;
    const baseRec = record(base);
    // Operand indices read (a tied output is read: DPP's kept old value), and which carry data.
    const ins = rec.ops.map((s, i) => (s.out && !s.tied ? -1 : i)).filter((i) => i >= 0);
    const sources = ins.filter((i) => !rec.ops[i]!.out);
    const data = new Set<number>(ins.filter((i) => rec.ops[i]!.out));
    const sum = SUMS.has(base);
    if (sum) sources.forEach((i) => data.add(i));
    else if (baseRec.move === "copy") data.add(sources[0]!);
    else if (baseRec.move === "select") sources.slice(0, 2).forEach((i) => data.add(i));
    else data.clear();
    const stateOf = (i: number) => join(keysOf(l.ops[i]!).map((k) => st.get(k)));
    for (const i of ins) {
      const s = stateOf(i);
      if (s === "poison") return `${where}: reads the carry of a sum of values of a`;
      if (s === "affine" && !data.has(i)) return `${where}: a value of a is ${sum || baseRec.move ? "its lane index, mask or condition" : `an operand of ${l.op}, which neither adds nor moves it`}`;
    }
    for (const k of rec.uses ?? []) if (st.get(k)) return `${where}: reads ${k}, which depends on a`;
    const got = join([...data].map(stateOf));
    const firstOut = rec.ops.findIndex((s) => s.out);
    rec.ops.forEach((s, i) => {
      if (!s.out) return;
      const o = l.ops[i]!;
      const val: State | undefined = i === firstOut ? got : sum && got ? "poison" : undefined;
      const masked = o.k === "v" || o.k === "vcc_lo" || o.k === "vcc_hi" || o.k === "exec_lo" || o.k === "exec_hi";
      for (const k of keysOf(o)) {
        const next = masked ? join([st.get(k), val]) : val;
        if (next) st.set(k, next);
        else st.delete(k);
      }
    });
    for (const k of rec.defs ?? []) {
      if (sum && got) st.set(k, "poison");
      else st.delete(k);
    }
    if (st.get("exec")) return `${where}: exec depends on a`;
  }
  const left = [...st].filter(([k, s]) => s === "poison" && k !== "scc" && k !== "vcc").map(([k]) => k);
  return left.length ? `a carry of a sum of values of a is left in ${left.join(", ")}` : null;
}

// ---------------------------------------------------------------------------------------
// The .f32 key tree: a VALU key prologue, the butterfly over the keys, the decode

/**
 * Proves a loop-free `.f32` redux that folds keys (rules/redux_f32.ts on the butterfly), or
 * null where the shape does not fit (the caller goes on). The prologue P is the lines before
 * the first write of exec; the rest R. Two steps:
 *   A. (the threshold reduction in u32 order on the keys) R run, on the lattice-tracked
 *      algebra, from P's state with a VGPR kv written by P replaced by ⊥/⊤ key lanes: some
 *      SGPR s left `lat` at the end equals REF_g(kv's lanes, the lanes of an SGPR m written by P)
 *      wherever m ≠ 0 (g: the u32 min/max, ./warp_loop.ts `refOver`). Proved for every value
 *      of kv and of the rest of P's state, so for the value P gives kv.
 *   B. (the exit, as for the key loop: ./warp_loop.ts `keyChain`) the plain run's conditions,
 *      with s's final term (the tree's fold) replaced by ite(m = 0, x, REF_g(keys, U(G_i)))
 *      for lane i's outputs and by a fresh x elsewhere (sound: A, and "for every x" covers the
 *      fold's value), under the key chain's H_32(G_i) and "where lane i executes with a defined
 *      d, m = lane i's number members"; the outputs' query generalised over the folds' 32-lane
 *      terms (./warp_loop.ts `keyChain`, "The generalisation").
 */
export async function proveKeyTree(env: Z3Env, r: AmdRoutine, timeoutMs: number, t0: number): Promise<Verdict | null> {
  const f = r.spec.form as unknown as WarpForm;
  const aReg = r.layout.src.a;
  if (f.op !== "redux" || f.type !== "f32" || aReg?.k !== "v" || r.lines.some((l) => isLabel(l))) return null;
  const lines = r.lines as Exclude<MLine, { label: string }>[];
  const writesExec = (l: (typeof lines)[number]) => record(l.op).ops.some((s, i) => s.out && keysOf(l.ops[i]!).includes("exec"));
  const cut = lines.findIndex(writesExec);
  if (cut <= 0) return null;
  const P = lines.slice(0, cut);
  const R = lines.slice(cut);
  const outs = (k: "v" | "s") => [...new Set(P.flatMap((l) => record(l.op).ops.flatMap((s, i) => (s.out && l.ops[i]!.k === k ? [(l.ops[i] as { n: number }).n] : []))))];
  const g: WarpForm = { op: "redux", reduxOp: f.reduxOp, type: "u32" };
  const bv = env.bv;
  const base = symbolicInit(env);
  // A, for each key and mask candidate.
  let found: { kv: number; s: number; m: number; queries: number } | null = null;
  let queries = 0;
  for (const kv of outs("v")) {
    const li = latticeInit(base, false);
    const lb = li.bv;
    const { st } = warpInit(li, r);
    const Sc = execPaths(lb, P, st, { maxBack: 0 }).final!;
    const lanes = Sc.vgpr.get(kv)!;
    const keys = lanes.slice(0, LANES).map((_, l) => li.ordered(`k.ord.${l}`, false));
    keys.forEach((k, l) => (lanes[l] = k));
    const fin = execPaths(lb, R, Sc, { maxBack: 0 }).final;
    if (!fin) continue;
    for (const [s, x] of fin.sgpr) {
      if (x.k !== "lat") continue;
      for (const m of outs("s")) {
        const M = Sc.sgpr.get(m)!;
        const bits = keys.map((_, l) => lb.bitAt(M, l));
        const bad = lb.andB(lb.notB(lb.eq(M, lb.k(0, 32))), lb.notB(lb.eq(x, refOver(lb, g, keys, bits))));
        if (latticeOnly([{ what: "the fold", cond: bad }]) !== null) continue;
        queries++;
        const res = await solve(env, [bad.b], timeoutMs);
        if (process.env.PROVE_DEBUG) console.log("key tree A", `v${kv} s${s} s${m}`, res.status, Math.round(res.ms));
        if (res.status === "unsat") {
          found = { kv, s, m, queries };
          break;
        }
      }
      if (found) break;
    }
    if (found) break;
  }
  if (!found) return null;
  // B.
  const init = symbolicInit(env);
  const { st, before, w } = warpInit(init, r);
  const Sc = execPaths(bv, P, cloneState(st), { maxBack: 0 }).final!;
  const fin = execPaths(bv, lines, st, { maxBack: 0 }).final!;
  const fold = fin.sgpr.get(found.s)!;
  const M = Sc.sgpr.get(found.m)!;
  const keysH = Sc.vgpr.get(found.kv)!.slice(0, LANES);
  const chain = await keyChain(env, r, f, g, P, { k: "v", n: found.kv, count: 1 }, M, keysH, Sc, timeoutMs);
  if (!chain.ok) return { verdict: "unknown", ms: performance.now() - t0, reason: chain.reason, ...(chain.fault ? { fault: true } : {}) };
  const x = init.mk("x.acc", 32);
  const sub = (b: Bool, to: BitVec) => env.ctx.substitute(b, [fold, to]) as Bool;
  const bitsM = keysH.map((_, l) => bv.bitAt(M, l));
  const sameQ: Bool[] = [];
  const laneBads: Bool[] = [];
  const assume: Bool[] = [];
  const hs = new Map<string, Bool>();
  const pairs: [BitVec, BitVec][] = [];
  const contract = contractBads(bv, r, before, fin, (l) => (l < LANES ? w.activeB[l]! : bv.false));
  for (let i = 0; i < LANES; i++) {
    const Gi = membership(bv, w.lanes, i).members;
    const on = bv.andB(w.lanes.executes[i]!, w.ref.dDefined[i]!);
    const U = Gi.map((gl, l) => bv.andB(gl, chain.number[l]!));
    const same = bv.all(U.map((u, l) => bv.eqB(u, bitsM[l]!)));
    sameQ.push(bv.andB(on, bv.notB(same)));
    const acc = bv.ite(bv.eq(M, bv.k(0, 32)), x, refOver(bv, g, keysH, U));
    for (const b of warpLaneBads(bv, f, w, fin, i)) laneBads.push(sub(b.cond, b.what.startsWith("Value mismatch") ? acc : x));
    const gk = Gi.map((y) => y.id()).join(",");
    if (!hs.has(gk)) {
      hs.set(gk, chain.H(Gi));
      pairs.push(...chain.gen(Gi));
    }
    assume.push(bv.implies(on, same), hs.get(gk)!);
  }
  // The outputs' query generalised over the folds' terms (./warp_loop.ts `keyChain`, "The
  // generalisation": a proof of the generalised query is one of the query).
  const [outBad, ...outAssume] = generalise(env, [bv.any(laneBads), ...assume], pairs);
  const goals = [
    { what: "every lane's number members are the mask", bad: bv.any(sameQ), assume: [] as Bool[] },
    { what: "every lane's outputs", bad: outBad!, assume: outAssume },
    { what: "the contract", bad: bv.any(contract.map((b) => sub(b.cond, x))), assume: [] as Bool[] },
  ];
  for (const goal of goals) {
    queries++;
    const res = await solve(env, [...goal.assume, goal.bad], timeoutMs);
    if (process.env.PROVE_DEBUG) console.log("key tree B", goal.what, res.status, Math.round(res.ms));
    if (res.status !== "unsat")
      return { verdict: "unknown", ms: performance.now() - t0, reason: res.status === "sat" ? `key tree: ${goal.what} fails (not proved, not a counterexample)` : `key tree (${goal.what}): ${res.reason ?? "unknown"} (per-query timeout ${timeoutMs / 1000} s)`, ...(res.fault ? { fault: true } : {}) };
  }
  return {
    verdict: "proved",
    ms: performance.now() - t0,
    method: `z3 key tree: the fold of v${found.kv} (keys) by the threshold reduction (s${found.s} = the reference's u32 fold over s${found.m}), the exit by the key chain (${chain.text}; the folds' terms generalised), 32 lanes, full-width values, ${queries} more queries`,
    queries: queries + chain.queries,
  };
}
