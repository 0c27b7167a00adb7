/**
 * @fileoverview The inductive proof of a warp-level routine that is a waterfall over a
 * divergent key (the warp-level rules' loop over the distinct values of a per-lane membermask,
 * targets/amdgpu/rules/warp_common.ts `waterfallRoutine`), with at most one scalar fold loop
 * (redux's `s_ff1`/`v_readlane` loop) nested in its round. Recognised from the instructions,
 * not from the rule's name: ./warp.ts calls it first for every routine with a loop; where the
 * shape does not fit it says why and ./warp.ts goes on (the bug-finder can still refute).
 *
 * The shape. A straight-line prologue; the outer do-while loop (one label, the back-edge at its
 * end) whose round writes exec and reads the key K (a VGPR) by `v_readfirstlane_b32 sm, K`
 * before any inner loop; inside the round at most one inner do-while loop with a straight-line
 * body; a straight-line epilogue. No other branch.
 *
 * The inner loop (a scalar fold). Its body writes no VGPR, exec, vcc or DS result and reads
 * before writing exactly two SGPRs it also writes: `mem`, which it maps to mem & (mem − 1)
 * (found by a query), and `acc`; a's register is written nowhere in the round. REF(G) is the
 * reference's own fold (src/sem/warp.ts `warpLevel`) of a's values over the lane set G: lane
 * 0's d of a warp whose membermask names every lane and whose active and executing lanes are
 * G. The loop lemma is ./warp_loop.ts's `foldLoopLemma` (its one copy, with its cache), over a
 * fully symbolic head state, one query per l ∈ 0..31: from mem with bits below l clear, bit l set, the
 * bits above arbitrary, and acc = REF({t < l : mem_t}), one trip clears bit l, gives
 * acc = REF({t ≤ l : mem_t}), and takes the back-edge iff a bit is left; from mem = 0 one trip
 * leaves mem = 0 and exits. With the entry query (the round's code before the inner loop
 * leaves acc = REF(∅), from any state) the inner loop ends, by induction over its ≤ 32 trips,
 * with mem = 0 and acc = REF(M) when M (mem at its head) ≠ 0, and in the state of one trip
 * when M = 0. Its summary: ite(M = 0, that one trip, the head state with mem = 0 and
 * acc = REF(M)). The summary keeps every other register the inner body writes (the set D) at
 * its head value; that is sound because D is dead at the loop's exit (a flow check: every
 * path from there writes a register of D before reading it — the rest of the round, the next
 * rounds, the epilogue), and the exit state's D registers, which the contract may observe,
 * are arbitrary in the loop summary below (D ⊆ the SGPRs the round writes; vcc never in D).
 * So the summary and the machine agree on everything but dead registers: the same lane
 * results, the same control flow. The lemma is cached per loop under its lines with the
 * registers renamed in order of first appearance (a's kept), as match.ts's loop facts: every
 * other register starts symbolic, so a consistent renaming maps its queries to themselves.
 * The summaries keep the registers the flow analysis does not list as written; that the
 * round's and one trip's terms leave every other register's term untouched is checked.
 *
 * The outer loop (match.ts's waterfall induction, keyed by K instead of a). S_h: the state at
 * the first head, rem0 = its exec (the executing lanes E). For a lane l of rem0, E_l(R) is lane
 * l of the lane-wise register R (a VGPR the round writes, or vcc's bit l) after one round from
 * S_h with exec = {l} and sm = K_l (what `v_readfirstlane` reads with exec = {l}; set, so that
 * E_l's terms are the very terms a round from any head computes for a lane of key K_l — a
 * definition, so any term is sound; this one makes the queries cheap). The invariant I(S) at
 * the head, rem = exec: (1) rem ⊆ rem0; (2) in each retired lane l ∈ rem0 ∖ rem every
 * lane-wise register R holds E_l(R), in each lane outside rem0 its value in S_h, in the lanes
 * of rem anything; (3) the SGPRs the round writes and SCC anything; every other register its
 * value in S_h. I(S_h) holds (nothing retired). Unlike match.ts's, the invariant needs no
 * key classes: a lane's value depends on its own key only, not on which lanes share it.
 * Queries, over a fully symbolic I-state S and one round S → S1 (inner loop summarised;
 * rem1 = exec of S1; c = the back-edge), each split by cases the solver then sees as units:
 *   - rem = ∅ ⇒ ¬c ∧ rem1 = ∅; and per lane f, when f is the lowest lane of rem: sm = K_f,
 *     and in the round with sm forced to K_f (which is then the same round) c ⇒ rem1 ⊊ rem
 *     and ¬c ⇒ rem1 = ∅ (so rem1 ⊆ rem0, and a round retires a lane: ≤ 32 rounds);
 *   - per lane l: a lane of rem the round retires (l ∈ rem ∖ rem1) has sm = K_l (its v_cmp
 *     bit), and then — in the round with sm forced to K_l, the same round — R holds E_l(R)
 *     after it (one query: sm ≠ K_l ∨ (sm = K_l ∧ R ≠ E_l(R))); a lane outside rem keeps
 *     every lane-wise register.
 * Together: I ∧ c ⇒ I(S1) (the newly retired lanes hold E, the others keep theirs), and
 * I ∧ ¬c ⇒ every lane of rem0 holds E_l at exit. The exit: the epilogue runs from S_h with
 * exec = ∅, E_l in each lane of rem0, S_h's values elsewhere, the round's SGPRs and SCC
 * arbitrary; per lane i the outputs are checked against the reference (./warp.ts
 * `warpLaneBads`: d / p where defined, the prior values where the guard is off) and once the
 * contract (exec restored, registers outside the scratch window unchanged). With an inner loop
 * lane i's value is taken from E'_i, E_i's round with the inner loop's exit state
 * acc = REF(G_i) (G_i: lane i's members under the reference, src/sem/members.ts
 * `membership`) in place of its summary: one query per lane shows M = G_i wherever lane i
 * executes with a defined d, and there G_i holds lane i, so M ≠ 0, the summary is its
 * acc = REF(M) = REF(G_i) state and E'_i = E_i; REF(G_i) is the reference's d of lane i term
 * for term.
 *
 * The key loop (`.f32`, rules/redux_f32.ts): the inner body folds the keys, a VGPR `fv` the
 * outer prologue computes from a (./warp_loop.ts `foldedOf`; written nowhere in the round), by
 * the integer form g; REF above is then REF_g over the keys (the lemma and the entry, whose
 * acc starts at REF_g(∅), are the same with g for f), and a round's M is the members' number
 * lanes U(G) (the NaN lanes dropped), possibly empty. The exit relates REF_g to the `.f32`
 * reference by ./warp_loop.ts's key chain, proved once for every mask X ∩ rem0 (X fresh: every
 * round's mask lies in rem0; the keys are the prologue's there). Per lane i: one query shows
 * U(G_i) = M_i (the round's M for lane i) wherever lane i executes with a defined d; E'_i's
 * inner exit state has acc = REF_g(keys, U(G_i)) where M_i ≠ 0 — the summary's — and a fresh
 * x.acc where M_i = 0, where the machine's state is the one trip, which differs from it only in
 * acc (every value of x.acc is covered: the query holds for all) and in the dead D; the
 * lane's value query assumes that and H(G_i, M_i), and is generalised over the folds' 32-lane
 * terms (./warp_loop.ts `keyChain`, "The generalisation").
 *
 * Values stay full width: the key is not only compared (the round ANDs it with E), and with
 * the invariant above nothing needs a reduction. A failing query is `unknown`, never a
 * refutation (the invariant may be too weak): ./warp.ts's bug-finder refutes.
 */
import type { Profile } from "../../../src/ir/forms.js";
import { formId } from "../../../src/ir/forms.js";
import type { WarpForm } from "../../../src/ir/warp_forms.js";
import { membership } from "../../../src/sem/members.js";
import type { Bad, Verdict } from "../../../src/check/prove_types.js";
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
import { isLabel, printOp } from "../minst.js";
import { cloneState, execPaths, initialState, mergeState, readSource, showLine } from "./paths.js";
import type { AmdWarp } from "./warp.js";
import { warpInit, warpLaneBads } from "./warp.js";
import type { Lemma } from "./warp_loop.js";
import { branchTaken, flow, foldLoopLemma, foldedLanes, foldedOf, generalise, keyChain, refOver } from "./warp_loop.js";

/** Why the shape does not fit, or the verdict. */
export type WaterfallOutcome = { verdict: Verdict } | { notApplicable: string };

type Line = Exclude<MLine, { label: string }>;
type St = WaveState<BitVec, Bool>;

/** A loop: the index of its label and of its back-edge. */
interface Loop {
  label: number;
  branch: number;
}

/** The waterfall's shape (file comment), or why the lines do not have it. */
export function waterfallShape(lines: readonly MLine[]): { outer: Loop; inner?: Loop } | string {
  const labels = new Map<string, number>();
  lines.forEach((l, i) => {
    if (isLabel(l)) labels.set(l.label, i);
  });
  const back: Loop[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (isLabel(l) || !("branch" in record(l.op).sem)) continue;
    const lab = l.ops[0];
    const to = lab?.k === "label" ? labels.get(lab.name) : undefined;
    if (to === undefined || to > i || l.op === "s_branch") return `a branch other than a conditional back-edge (${showLine(l)})`;
    back.push({ label: to, branch: i });
  }
  if (back.length === 0 || back.length > 2) return `${back.length} loops`;
  const outer = back.reduce((x, y) => (y.label < x.label ? y : x));
  const inner = back.find((b) => b !== outer);
  if (inner && !(outer.label < inner.label && inner.branch < outer.branch)) return "two loops, not nested";
  const loopLabels = new Set(back.map((b) => b.label));
  if (lines.some((l, i) => isLabel(l) && !loopLabels.has(i))) return "a label that is not a loop head";
  return inner ? { outer, inner } : { outer };
}

/** Runs straight-line code (no label, no branch) from `st` (mutated). */
function straight(bv: Z3Env["bv"], lines: readonly MLine[], st: St): St {
  const p = execPaths(bv, lines, st, { maxBack: 0 });
  if (!p.final || bv.asBool(p.stuck) !== false) throw new InterpError("straight-line code does not reach its end");
  return p.final;
}

/**
 * Throws unless `after` holds `before`'s very terms in every register outside `written`
 * (register keys of ./warp_loop.ts `flow`): the summaries keep those registers, so a write
 * the flow analysis missed must not go unseen.
 */
function keeps(before: St, after: St, written: Set<string>, what: string): void {
  const same = (k: string, x: unknown, y: unknown) => {
    if (!written.has(k) && x !== y) throw new InterpError(`${what} writes ${k}, which its flow analysis misses`);
  };
  for (const [n, v] of before.vgpr) v.forEach((x, l) => same(`v${n}`, x, after.vgpr.get(n)![l]));
  for (const [n, x] of before.sgpr) same(`s${n}`, x, after.sgpr.get(n));
  same("exec", before.exec, after.exec);
  same("vcc", before.vcc, after.vcc);
  same("scc", before.scc, after.scc);
}

const keys = (o: MOp): string[] => (o.k === "s" || o.k === "v" ? Array.from({ length: o.count }, (_, i) => `${o.k}${o.n + i}`) : []);

/** The inner fold loop: mem, acc, and its lemma (file comment), or why it is not one. */
interface Fold {
  mem: number;
  acc: number;
  body: Line[];
  /** The folded values and their form (./warp_loop.ts `foldedOf`): `.f32`'s keys by g, or a by f. */
  fv: Extract<MOp, { k: "v" }> | null;
  foldForm: WarpForm;
}

/**
 * Recognises the inner fold loop (file comment): its mem and acc, or why it is not one.
 * `live`: the registers live at its exit; `roundWritten`: what the whole round writes.
 */
async function recogniseFold(env: Z3Env, r: AmdRoutine, body: Line[], live: Set<string>, roundWritten: Set<string>, timeoutMs: number): Promise<Fold | string> {
  const bv = env.bv;
  const f = r.spec.form as unknown as WarpForm;
  if (f.op !== "redux") return "an inner loop whose invariant would be the reference's reduction, which only redux has";
  const bf = flow(body);
  if (bf.ds) return "the inner loop issues a DS instruction";
  if ([...bf.written].some((k) => k === "exec" || k === "vcc" || /^v\d+$/.test(k))) return "the inner loop writes exec, vcc or a VGPR (not a scalar fold)";
  const carried = [...bf.readFirst].filter((k) => bf.written.has(k));
  const sgprs = carried.filter((k) => /^s\d+$/.test(k)).map((k) => Number(k.slice(1)));
  if (carried.length !== 2 || sgprs.length !== 2) return `the inner loop carries ${carried.join(", ") || "nothing"}, not a mask and an accumulator`;
  const aKeys = r.layout.src.a ? keys(r.layout.src.a) : [];
  if (aKeys.some((k) => roundWritten.has(k))) return "a's register is written in the round";
  const fo = foldedOf(r, body);
  if (typeof fo === "string") return `the inner loop: ${fo}`;
  if (fo.fv && roundWritten.has(`v${fo.fv.n}`)) return "the inner loop's folded VGPR is written in the round";
  const init = symbolicInit(env);
  const W = r.target.wave;
  const probe = initialState(init, r, init.mk("probe.exec", W));
  const probeOut = straight(bv, body, cloneState(probe));
  let mem: number | undefined;
  for (const n of sgprs) {
    const x = probe.sgpr.get(n)!;
    const res = await solve(env, [bv.notB(bv.eq(probeOut.sgpr.get(n)!, bv.and(x, bv.sub(x, bv.k(1, 32)))))], timeoutMs);
    if (res.status === "unsat") mem = n;
  }
  if (mem === undefined) return "no carried SGPR of the inner loop loses its lowest set bit per trip";
  const acc = sgprs.find((n) => n !== mem)!;
  // D (file comment): dead at the inner loop's exit.
  const D = [...bf.written].filter((k) => k !== `s${mem}` && k !== `s${acc}`);
  const liveD = D.filter((k) => live.has(k));
  if (liveD.length) return `the inner loop leaves ${liveD.join(", ")} live at its exit`;
  return { mem, acc, body, ...fo };
}

/** The inner loop's lemma (file comment), cached per loop. */
function foldLemma(env: Z3Env, r: AmdRoutine, pre: Line[], fold: Fold, br: Line, timeoutMs: number): { key: string; lemma: Promise<Lemma>; cached: boolean } {
  const W = r.target.wave;
  const { mem, acc, body } = fold;
  // The key: the lines with registers renamed in order of first appearance (a's kept), as
  // match.ts's loop key — every register but a's starts symbolic and is treated alike, so a
  // consistent renaming maps the lemma's queries to the lemma's queries, and routines whose
  // rounds differ only in register allocation (guarded or not) share one lemma.
  const fixed = new Set(r.layout.src.a ? keys(r.layout.src.a) : []);
  const names = new Map<string, string>();
  const name = (k: string) => (fixed.has(k) ? k.toUpperCase() : names.get(k) ?? (names.set(k, `${k[0]}'${names.size}`), names.get(k)!));
  const canon = (l: Line) => `${l.op}${l.enc ? "_" + l.enc : ""} ${l.ops.map((o) => (o.k === "s" || o.k === "v" ? keys(o).map(name).join(":") : printOp(o))).join(",")}`;
  const text = [...pre.map(canon), ".", ...body.map(canon), canon(br)];
  const key = hash(["waterfall-fold", W, r.target.gen, formId(r.spec.form), JSON.stringify(r.spec.kinds.a ?? "v", (_k, v) => (typeof v === "bigint" ? `${v}` : v)), r.layout.src.a ? keys(r.layout.src.a).map(name).join(":") : "", name(`s${mem}`), name(`s${acc}`), ...text].join("\n"));
  return foldLoopLemma(env, r, { body, br, mem, acc, fv: fold.fv, foldForm: fold.foldForm, entry: pre }, key, timeoutMs);
}

/**
 * Proves a waterfall routine (file comment), or says why the shape does not fit. Never throws
 * for a wrong lowering: a failing query is `unknown`.
 */
export async function proveWaterfall(env: Z3Env, r: AmdRoutine, profile: Profile, timeoutMs: number, t0: number): Promise<WaterfallOutcome> {
  void profile;
  const bv = env.bv;
  const f = r.spec.form as unknown as WarpForm;
  const W = r.target.wave;
  const shape = waterfallShape(r.lines);
  if (typeof shape === "string") return { notApplicable: shape };
  const { outer, inner } = shape;
  const L = r.lines as readonly MLine[];
  const pro = L.slice(0, outer.label) as Line[];
  const outerBr = L[outer.branch] as Line;
  const epi = L.slice(outer.branch + 1) as Line[];
  const pre = L.slice(outer.label + 1, inner ? inner.label : outer.branch) as Line[];
  const innerBody = inner ? (L.slice(inner.label + 1, inner.branch) as Line[]) : [];
  const innerBr = inner ? (L[inner.branch] as Line) : undefined;
  const post = inner ? (L.slice(inner.branch + 1, outer.branch) as Line[]) : [];
  const roundLines = [...pre, ...innerBody, ...post];
  const rf = flow([...roundLines, outerBr]);
  if (!rf.written.has("exec")) return { notApplicable: "the loop does not write exec (not a waterfall)" };
  if (rf.ds) return { notApplicable: "the round issues a DS instruction" };
  const rfi = pre.findIndex((l) => l.op === "v_readfirstlane_b32" && l.ops[0]?.k === "s" && l.ops[1]?.k === "v");
  if (rfi < 0) return { notApplicable: "the round does not read its key by v_readfirstlane before the inner loop" };
  const smReg = (pre[rfi]!.ops[0] as Extract<MOp, { k: "s" }>).n;
  const keyReg = (pre[rfi]!.ops[1] as Extract<MOp, { k: "v" }>).n;
  if (rf.written.has(`v${keyReg}`) || flow(pro).written.has(`v${keyReg}`)) return { notApplicable: "the key's VGPR is written" };

  let fold: Fold | undefined;
  let lemmaText = "";
  let lemmaQueries = 0;
  if (inner) {
    // Liveness at the inner exit (file comment): the rest of the round then the back-edge,
    // and what follows the round (the next round from its head, the epilogue) where the rest
    // of the round does not write it.
    const rest = flow([...post, outerBr]);
    const live = new Set([...rest.readFirst, ...[...rf.readFirst, ...flow(epi).readFirst].filter((k) => !rest.written.has(k))]);
    const fr = await recogniseFold(env, r, innerBody, live, rf.written, timeoutMs);
    if (typeof fr === "string") return { notApplicable: fr };
    fold = fr;
    const { key, lemma, cached } = foldLemma(env, r, pre, fr, innerBr!, timeoutMs);
    const lem = await lemma;
    if (!lem.ok) return { verdict: { verdict: "unknown", ms: performance.now() - t0, reason: `the inner loop: ${lem.reason}`, ...(lem.fault ? { fault: true } : {}) } };
    lemmaText = cached ? `inner loop lemma ${key.slice(0, 8)} (shared)` : `inner loop lemma ${key.slice(0, 8)}: ${lem.queries} queries ${(lem.ms / 1000).toFixed(1)} s`;
    lemmaQueries = cached ? 0 : lem.queries;
  }

  /** The inner loop's summary (file comment); `G`: REF over G instead of M; `onM` sees M. */
  // REF(M) by M's term (z3 terms are hash-consed: the rounds of E_l and of the forced run
  // for lane l build the same M) and a's lane values (unchanged registers: the same objects).
  const refs = new Map<string, { a: BitVec[]; ref: BitVec }>();
  const refOfM = (a: BitVec[], M: BitVec): BitVec => {
    const key = `${M.id()}`;
    const hit = refs.get(key);
    if (hit && hit.a.every((x, t) => x === a[t])) return hit.ref;
    const ref = refOver(bv, fold!.foldForm, a, Array.from({ length: LANES }, (_, t) => bv.bitAt(M, t)));
    refs.set(key, { a, ref });
    return ref;
  };
  /**
   * The inner loop's summary (file comment); `onM` sees M. `G`: where lane i's members G_i
   * stand for M (the exit, under "lane i is defined", where M = G_i ∋ i, so M ≠ 0): the
   * state with acc = REF(G_i), not merged with the one trip of M = 0. A key loop's: M = U(G_i)
   * there, acc = REF_g(keys, U(G_i)) where M ≠ 0, else `x.acc` (file comment).
   */
  const innerWritten = flow(innerBody).written;
  const innerSummary = (Si: St, G?: Bool[], onM?: (M: BitVec) => void): St => {
    const M = Si.sgpr.get(fold!.mem)!;
    onM?.(M);
    const Sx = cloneState(Si);
    Sx.sgpr.set(fold!.mem, bv.k(0, 32));
    const vals = foldedLanes(bv, r, fold!.fv, Si);
    const accG = (G: Bool[]) => (chain ? bv.ite(bv.eq(M, bv.k(0, 32)), init.mk("x.acc", 32), refOver(bv, fold!.foldForm, vals, G.map((g, t) => bv.andB(g, chain!.number[t]!)))) : refOver(bv, f, vals, G));
    Sx.sgpr.set(fold!.acc, G ? accG(G) : refOfM(vals, M));
    if (G) return Sx;
    const T1 = straight(bv, fold!.body, cloneState(Si));
    keeps(Si, T1, innerWritten, "the inner loop");
    return mergeState(bv, bv.eq(M, bv.k(0, 32)), T1, Sx);
  };
  /** One round from `S` (copied): sm forced to `sm` when given; the inner loop summarised. */
  const round = (S: St, opts: { sm?: BitVec; G?: Bool[]; onM?: (M: BitVec) => void } = {}): { out: St; sm: BitVec } => {
    let st = straight(bv, pre.slice(0, rfi + 1), cloneState(S));
    if (opts.sm) st.sgpr.set(smReg, opts.sm);
    const sm = st.sgpr.get(smReg)!;
    st = straight(bv, pre.slice(rfi + 1), st);
    if (fold) st = straight(bv, post, innerSummary(st, opts.G, opts.onM));
    return { out: st, sm };
  };

  const init = symbolicInit(env);
  let S_h: St;
  let w: AmdWarp<BitVec, Bool>;
  let before: St;
  try {
    const wi = warpInit(init, r);
    w = wi.w;
    before = wi.before;
    S_h = straight(bv, pro, wi.st);
  } catch (e) {
    if (!(e instanceof InterpError)) throw e;
    return { notApplicable: `the prologue: ${e.message}` };
  }
  if (S_h.lds?.length) return { notApplicable: "a DS result is outstanding at the loop head" };
  const rem0 = S_h.exec;
  // A key loop's key chain (file comment), for every round's mask: M(X) = X ∩ rem0.
  let chain: Awaited<ReturnType<typeof keyChain>> | undefined;
  let chainText = "";
  if (fold?.fv) {
    const rem0lo = W === 64 ? bv.extract(rem0, 31, 0) : rem0;
    chain = await keyChain(env, r, f as Extract<WarpForm, { op: "redux" }>, fold.foldForm, pro, fold.fv, (X) => bv.and(X, rem0lo), foldedLanes(bv, r, fold.fv, S_h), S_h, timeoutMs);
    if (!chain.ok) return { verdict: { verdict: "unknown", ms: performance.now() - t0, reason: chain.reason, ...(chain.fault ? { fault: true } : {}) } };
    chainText = `; ${chain.text}`;
    lemmaQueries += chain.queries;
  }
  const lane = (x: BitVec, l: number) => bv.bitAt(x, l);
  const allLanes = Array.from({ length: W }, (_, l) => l);
  const in0 = allLanes.map((l) => lane(rem0, l));
  const lanes0 = allLanes.filter((l) => bv.asBool(in0[l]!) !== false);
  const K = (st: St, l: number) => st.vgpr.get(keyReg)![l]!;
  const wrV = [...rf.written].filter((k) => /^v\d+$/.test(k)).map((k) => Number(k.slice(1)));
  const wrS = [...rf.written].filter((k) => /^s\d+$/.test(k)).map((k) => Number(k.slice(1)));
  const wrVcc = rf.written.has("vcc");
  /** The lane-wise registers of lane l in a state: the round's VGPRs, then vcc's bit l (as 1 bit). */
  const laneRegs = (st: St, l: number): BitVec[] => [...wrV.map((n) => st.vgpr.get(n)![l]!), ...(wrVcc ? [bv.extract(st.vcc, l, l)] : [])];
  /** `st` with lane l's lane-wise registers replaced by `xs` (laneRegs order). */
  const setLane = (st: St, l: number, xs: BitVec[]) => {
    wrV.forEach((n, i) => {
      const v = [...st.vgpr.get(n)!];
      v[l] = xs[i]!;
      st.vgpr.set(n, v);
    });
    if (wrVcc) {
      const bit = xs[wrV.length]!;
      const m = bv.k(1n << BigInt(l), W);
      st.vcc = bv.or(bv.and(st.vcc, bv.not(m)), bv.ite(bv.eq(bit, bv.k(1, 1)), m, bv.k(0, W)));
    }
  };

  const buildQueries = () => {
    // E_l (file comment).
    const E = new Map<number, BitVec[]>();
    for (const l of lanes0) {
      const S = cloneState(S_h);
      S.exec = bv.k(1n << BigInt(l), W);
      E.set(l, laneRegs(round(S, { sm: K(S_h, l) }).out, l));
    }
    // The I-state S.
    const rem = W === 64 ? bv.zext(init.mk("rem", 32), 64) : init.mk("rem", 32);
    const S = cloneState(S_h);
    S.exec = rem;
    for (const n of wrS) S.sgpr.set(n, init.mk(`h.s${n}`, 32));
    S.scc = init.mkB("h.scc");
    const hVcc = init.mk("h.vcc", W);
    for (const l of lanes0) {
      const retired = bv.andB(in0[l]!, bv.notB(lane(rem, l)));
      const old = laneRegs(S_h, l);
      const fresh = [...wrV.map((n) => init.mk(`h.v${n}.${l}`, 32)), ...(wrVcc ? [bv.extract(hVcc, l, l)] : [])];
      setLane(S, l, E.get(l)!.map((e, i) => bv.ite(retired, e, bv.ite(in0[l]!, fresh[i]!, old[i]!))));
    }
    const subset = (x: BitVec, y: BitVec) => bv.eq(bv.and(x, bv.not(y)), bv.k(0, W));
    const inv = subset(rem, rem0);
    const real = round(S);
    const S1 = real.out;
    keeps(S, S1, rf.written, "the round");
    const c = branchTaken(bv, outerBr, S1);
    const rem1 = S1.exec;
    // Each goal: `bad` under the invariant and the assertions `given` (kept apart, so that the
    // solver's value propagation sees them as units). The remaining lanes, split by the lowest
    // lane f of rem (the one v_readfirstlane reads): there sm = K_f, and the round is the one
    // with sm forced to K_f.
    const goals: { what: string; bad: Bool; given: Bool[] }[] = [{ what: "no lane remaining", bad: bv.orB(c, bv.notB(bv.eq(rem1, bv.k(0, W)))), given: [bv.eq(rem, bv.k(0, W))] }];
    const forcedOf = new Map<number, St>();
    const firsts: Bool[] = [];
    for (const l of lanes0) {
      const forced = round(S, { sm: K(S, l) }).out;
      forcedOf.set(l, forced);
      const r1 = forced.exec;
      const cf = branchTaken(bv, outerBr, forced);
      const progress = bv.orB(bv.andB(cf, bv.notB(bv.andB(subset(r1, rem), bv.notB(bv.eq(r1, rem))))), bv.andB(bv.notB(cf), bv.notB(bv.eq(r1, bv.k(0, W)))));
      goals.push({ what: `the remaining lanes when lane ${l} is the first (rem' ⊊ rem; none at the exit)`, bad: bv.orB(bv.notB(bv.eq(real.sm, K(S, l))), progress), given: [lane(rem, l), ...firsts] });
      firsts.push(bv.notB(lane(rem, l)));
    }
    const eqs = (xs: BitVec[], ys: BitVec[]) => bv.all(xs.map((x, i) => bv.eq(x, ys[i]!)));
    for (const l of allLanes) {
      const stays = bv.notB(eqs(laneRegs(S1, l), laneRegs(S, l)));
      if (!lanes0.includes(l)) {
        goals.push({ what: `lane ${l} (outside the executing lanes)`, bad: stays, given: [] });
        continue;
      }
      const retiredNow = [lane(rem, l), bv.notB(lane(rem1, l))];
      const Kl = K(S, l);
      // A retired lane reads its own key and then holds E_l: one query, sm ≠ K_l or (sm = K_l
      // and the forced round's lane differs from E_l) — the disjunction of the two queries it
      // replaces (unsat iff both are); measured on redux.add.u32 (gfx900): 1.4 s for the 32
      // lanes against 3.7 s for the two apart.
      const wrongE = bv.andB(bv.eq(real.sm, Kl), bv.notB(eqs(laneRegs(forcedOf.get(l)!, l), E.get(l)!)));
      goals.push(
        { what: `lane ${l} retired by the round reads its own key and holds E_${l}`, bad: bv.orB(bv.notB(bv.eq(real.sm, Kl)), wrongE), given: retiredNow },
        { what: `lane ${l} outside rem keeps its values`, bad: stays, given: [bv.notB(lane(rem, l))] },
      );
    }

    // The exit (file comment).
    const Sx = cloneState(S_h);
    Sx.exec = bv.k(0, W);
    for (const n of wrS) Sx.sgpr.set(n, init.mk(`x.s${n}`, 32));
    Sx.scc = init.mkB("x.scc");
    for (const l of lanes0) {
      const old = laneRegs(S_h, l);
      setLane(Sx, l, E.get(l)!.map((e, i) => bv.ite(in0[l]!, e, old[i]!)));
    }
    const epilogue = (st: St) => straight(bv, epi, st);
    const finX = epilogue(cloneState(Sx));
    const exitGoals: { what: string; bad: Bool; assume?: Bool[] }[] = [];
    const contract: Bad<Bool>[] = contractBads(bv, r, before, finX, (l) => (l < LANES ? w.activeB[l]! : bv.false));
    const members: { what: string; bad: Bool }[] = [];
    for (let i = 0; i < LANES; i++) {
      const onBads = (fin: St) => warpLaneBads(bv, f, w, fin, i).filter((b) => b.what.startsWith("Value mismatch"));
      const offBads = warpLaneBads(bv, f, w, finX, i).filter((b) => !b.what.startsWith("Value mismatch"));
      let on = onBads(finX);
      let assume: Bool[] = [];
      let pairs: [BitVec, BitVec][] = [];
      if (fold && lanes0.includes(i)) {
        const Gi = membership(bv, w.lanes, i).members;
        const defined = bv.andB(w.lanes.executes[i]!, w.ref.dDefined[i]!);
        let Mi: BitVec | undefined;
        const S0 = cloneState(S_h);
        S0.exec = bv.k(1n << BigInt(i), W);
        const Ei = laneRegs(round(S0, { sm: K(S_h, i), G: Gi, onM: (M) => (Mi = M) }).out, i);
        // A key loop's M is the members' numbers U(G_i) (file comment), and H_32(G_i, M_i) holds.
        const U = chain ? Gi.map((g, t) => bv.andB(g, chain!.number[t]!)) : Gi;
        const same = bv.all(U.map((g, t) => bv.eqB(g, lane(Mi!, t))));
        // One query per lane (their disjunction, with every lane's definedness, is far slower).
        members.push({ what: `lane ${i}'s ${chain ? "number members" : "members"} are its round's M`, bad: bv.andB(defined, bv.notB(same)) });
        const Sxi = cloneState(Sx);
        const old = laneRegs(S_h, i);
        setLane(Sxi, i, Ei.map((e, k) => bv.ite(in0[i]!, e, old[k]!)));
        on = onBads(epilogue(Sxi));
        assume = chain ? [bv.implies(defined, same), chain.H(Gi, Mi!)] : [bv.implies(defined, same)];
        pairs = chain ? chain.gen(Gi) : [];
      }
      // One query per condition: each is a conjunction whose lane conditions (executes,
      // defined, guard off) the solver's value propagation then sees as units.
      // A key loop's value queries generalised over the folds' terms (./warp_loop.ts
      // `keyChain`, "The generalisation": a proof of the generalised query is one of the query).
      for (const b of on) {
        const [bad, ...as] = generalise(env, [b.cond, ...assume], pairs);
        exitGoals.push({ what: `lane ${i} at the exit: ${b.what}`, bad: bad!, assume: as });
      }
      for (const b of offBads) exitGoals.push({ what: `lane ${i} at the exit: ${b.what}`, bad: b.cond });
      for (const b of contract.filter((b) => b.lane === i)) exitGoals.push({ what: `lane ${i} at the exit: ${b.what}`, bad: b.cond });
    }
    exitGoals.unshift(...members);
    const rest = contract.filter((b) => b.lane === undefined || b.lane >= LANES);
    if (rest.length) exitGoals.push({ what: "the contract (exec, SGPRs, upper lanes)", bad: bv.any(rest.map((b) => b.cond)) });
    return { inv, goals, exitGoals };
  };
  let built: ReturnType<typeof buildQueries>;
  try {
    built = buildQueries();
  } catch (e) {
    if (!(e instanceof InterpError)) throw e;
    return { notApplicable: `the round or the epilogue: ${e.message}` };
  }
  if (process.env.PROVE_DEBUG) console.log("waterfall built", Math.round(performance.now() - t0), "ms");
  let n = 0;
  const t2 = performance.now();
  const all = [...built.goals.map((g) => ({ ...g, assume: [built.inv, ...g.given] })), ...built.exitGoals];
  for (const g of all) {
    if (bv.asBool(g.bad) === false) continue;
    n++;
    const res = await solve(env, [...(g.assume ?? []), g.bad], timeoutMs);
    if (process.env.PROVE_DEBUG) console.log("waterfall", g.what, res.status, Math.round(res.ms));
    if (res.status === "unsat") continue;
    return { verdict: { verdict: "unknown", ms: performance.now() - t0, reason: res.status === "sat" ? `waterfall query fails at ${g.what} (not proved, not a counterexample)` : `waterfall query (${g.what}): ${res.reason ?? "unknown"} (per-query timeout ${timeoutMs / 1000} s)`, ...(res.fault ? { fault: true } : {}) } };
  }
  return {
    verdict: {
      verdict: "proved",
      ms: performance.now() - t0,
      method: `z3 inductive waterfall invariant over the key v${keyReg} (retired lanes hold their round's values)${fold ? `, the inner fold loop over s${fold.mem} summarised (${lemmaText}${chainText})` : ""}, 32 lanes, full-width values (${n} queries ${((performance.now() - t2) / 1000).toFixed(1)} s)`,
      queries: lemmaQueries + n,
    },
  };
}
