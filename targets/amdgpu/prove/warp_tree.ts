/**
 * @fileoverview The linear-form reduction of the warp-level prover (./warp.ts) for a loop-free
 * `redux.add` (the DPP butterfly of rules/redux_tree.ts), whose full-width 32-lane query is
 * past the per-query timeout: z3 does not see that two adder trees that sum the same 32 values
 * in different orders agree.
 *
 * The argument. Fix every input but a (the active mask, the membermask, the guard, every other
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
 * …, e_{W−1}, and ./warp.ts proves the routine on those (`unitLane`: a_l = [l = k] for a
 * symbolic lane number k, k ≥ W giving 0); a counterexample found there is a real input.
 */
import type { MOp, MLine } from "../minst.js";
import { isLabel, printOp } from "../minst.js";
import type { Mnemonic } from "../isa/index.js";
import { record } from "../isa/index.js";

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
