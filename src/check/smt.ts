/**
 * @fileoverview The symbolic interpretation of the BV algebra (src/sem/bv.ts) on z3-solver
 * bit-vectors, and the solver wrapper every proof goes through.
 *
 * `Z3BV implements BV<BitVec, Bool>` and is used unchanged by the PTX reference semantics
 * (src/sem), the AMDGPU instruction records (through targets/amdgpu/interp.ts) and the
 * portable IR (targets/portable/pir.ts `evalPir`). Its shifts have the algebra's (SMT's)
 * meaning; a target's own shift behaviour — AMDGPU's `S1[4:0]` masking, PIR's poison for a
 * count ≥ the width — is stated in that target's records, never borrowed from here.
 *
 * Constants fold: a value built only from constants stays a z3 numeral whose bigint is known
 * on the JS side (`asBigint`), so the interpreter can run concrete `exec` masks and branch on
 * concrete conditions while the data stays symbolic.
 *
 * z3-solver is loaded lazily (`await import("z3-solver")`) and initialised once per thread:
 * each worker of src/check/prove_worker.ts has its own `Context`.
 */
import type { BitVec as Z3BitVec, Bool as Z3Bool, Context, Model } from "z3-solver";
import type { BV } from "../sem/bv.js";
import { concrete } from "../sem/bv.js";

export type BitVec = Z3BitVec<number, "main">;
export type Bool = Z3Bool<"main">;
export type Z3Context = Context<"main">;

/** One initialised z3 per thread. */
export interface Z3Env {
  ctx: Z3Context;
  bv: Z3BV;
  /**
   * Between proofs: after `weight` units of work (about 100 scalar proofs), or once
   * `RECYCLE_HELD` terms are held, force a garbage collection. z3-solver frees terms only from JS finalizers, and V8 sees little JS garbage
   * while the WASM heap (2 GB at most) fills, so without this a long run aborts with
   * "Cannot enlarge memory arrays". (The Context is kept: dropping one lets its finalizer
   * delete it before its terms' finalizers run, a use-after-free in z3-solver.)
   */
  recycle(weight: number): Promise<void>;
  /** Terminates the WASM threads (call at the end of a CLI). */
  shutdown(): void;
}

let forceGc: (() => void) | null | undefined;
async function gcFunction(): Promise<(() => void) | null> {
  if (forceGc !== undefined) return forceGc;
  try {
    const v8 = await import("node:v8");
    const vm = await import("node:vm");
    v8.setFlagsFromString("--expose_gc");
    forceGc = vm.runInNewContext("gc") as () => void;
  } catch {
    forceGc = null;
  }
  return forceGc;
}

let loading: Promise<Z3Env> | null = null;

/**
 * Finalizers deferred while a check runs. z3-solver frees a term from a JS finalizer
 * (`FinalizationRegistry` callback → `Z3_dec_ref`), and its `check` runs in z3's own thread
 * while the JS thread awaits it; a `dec_ref` then races the check and corrupts z3's heap
 * ("RuntimeError: memory access out of bounds", seen when a proof released terms between its
 * own queries). z3-solver builds its registry once, in `init()`; `loadZ3` gives it a
 * registry whose callbacks are queued while `checking > 0` and run when the last check ends
 * (`solve`). With this, terms may be released at any point between checks, not only between
 * proofs.
 */
let checking = 0;
const deferred: (() => void)[] = [];
let deferredCount = 0;
/** How many z3-solver finalizers have waited for a check to end, since the thread began (for tests). */
export function finalizersDeferred(): number {
  return deferredCount;
}
function endCheck(): void {
  if (--checking > 0) return;
  for (let cb = deferred.shift(); cb; cb = deferred.shift()) cb();
}
class GatedFinalizationRegistry<T> extends FinalizationRegistry<T> {
  constructor(callback: (held: T) => void) {
    super((held) => {
      if (checking > 0) {
        deferredCount++;
        deferred.push(() => callback(held));
      }
      else callback(held);
    });
  }
}

/**
 * `recycle` also collects once this many terms are held, whatever the weight: z3's tactic
 * solver rebuilds and regrows its table of every live term on each check (the SAT tactic's
 * `compact_memory`, then the bit-blaster's inserts), so a check costs more the more terms
 * earlier proofs left alive. A warp-level proof builds 10k–500k terms (recycling after each
 * halved the CPU time of 20 shfl_bpermute proofs), a scalar one a few hundred.
 */
const RECYCLE_HELD = 20_000;

/** The thread's z3 (initialised on first use: ~0.2–0.3 s). */
export function loadZ3(): Promise<Z3Env> {
  if (!loading) {
    loading = (async () => {
      const mod = await import("z3-solver");
      // z3-solver's registry is built in init(): the gated one (`checking`) for its span only.
      const native = globalThis.FinalizationRegistry;
      globalThis.FinalizationRegistry = GatedFinalizationRegistry;
      let api: Awaited<ReturnType<typeof mod.init>>;
      try {
        api = await mod.init();
      } finally {
        globalThis.FinalizationRegistry = native;
      }
      const gc = await gcFunction();
      const ctx = new api.Context("main");
      let load = 0;
      const env: Z3Env = {
        ctx,
        bv: new Z3BV(ctx),
        recycle: async (weight) => {
          load += weight;
          if (load < 100 && env.bv.held < RECYCLE_HELD) return;
          load = 0;
          env.bv.release();
          gc?.();
          // Let the finalizers (dec_ref) run now, while no check runs.
          for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 0));
        },
        shutdown: () => {
          try {
            mod.killThreads(api.em);
          } catch {
            // already gone
          }
        },
      };
      return env;
    })();
  }
  return loading;
}

const MASK = (w: number) => (1n << BigInt(w)) - 1n;

/**
 * BV over z3 terms. Numerals carry their bigint in a side table, so operations on constants
 * fold to constants (z3 is not consulted), and `ite`/`andB`/`orB` with a constant condition
 * pick an operand. Everything else builds a z3 term.
 */
export class Z3BV implements BV<BitVec, Bool> {
  readonly true: Bool;
  readonly false: Bool;
  private readonly known = new WeakMap<object, bigint>();
  private readonly widths = new WeakMap<object, number>();
  /** For symbolic x: bits at and above `low.get(x)` are known to be 0 (zext, and, masks). */
  private readonly low = new WeakMap<object, number>();
  private fresh = 0;
  /**
   * Every term built since the last `release()`, held until then so that terms are freed in
   * batches (`recycle`), not one finalizer at a time. (Holding them was first the guard against
   * a `dec_ref` during a check; that guard is now `checking`, which defers z3-solver's
   * finalizers while a check runs, so a release between any two checks is safe.)
   */
  private live: object[] = [];
  private keep<T extends object>(t: T): T {
    this.live.push(t);
    return t;
  }
  /** Holds any z3-solver object (a solver, a model) until the next release. */
  hold<T extends object>(x: T): T {
    return this.keep(x);
  }
  /** How many terms are held (built since the last release). */
  get held(): number {
    return this.live.length;
  }
  /** Drops the terms held since the last release (call between proofs only). */
  release(): void {
    this.live = [];
    this.numerals.clear();
  }
  /**
   * The numerals built since the last release, by width and value: a proof builds the same
   * lane numbers and masks thousands of times (a lane select compares an index with every
   * lane number), and one term per value serves them all (a third of a shfl proof's build).
   */
  private readonly numerals = new Map<string, BitVec>();

  constructor(readonly ctx: Z3Context) {
    this.true = ctx.Bool.val(true);
    this.false = ctx.Bool.val(false);
  }

  /** A fresh bit-vector constant (a symbolic input); `name` is made unique. */
  sym(name: string, width: number): BitVec {
    const x = this.keep(this.ctx.BitVec.const(`${name}!${this.fresh++}`, width));
    this.widths.set(x, width);
    return x;
  }
  /** A fresh boolean constant. */
  symB(name: string): Bool {
    return this.keep(this.ctx.Bool.const(`${name}!${this.fresh++}`));
  }

  k(value: bigint | number, width: number): BitVec {
    const x = BigInt(value) & MASK(width);
    const key = `${width}:${x}`;
    const had = this.numerals.get(key);
    if (had) return had;
    const t = this.keep(this.ctx.BitVec.val(x, width));
    this.known.set(t, x);
    this.widths.set(t, width);
    this.numerals.set(key, t);
    return t;
  }
  width(x: BitVec): number {
    let w = this.widths.get(x);
    if (w === undefined) {
      w = x.size();
      this.widths.set(x, w);
    }
    return w;
  }
  private wrap(t: BitVec, w: number): BitVec {
    this.keep(t);
    this.widths.set(t, w);
    return t;
  }
  private cv(x: BitVec) {
    const v = this.known.get(x);
    return v === undefined ? undefined : concrete.k(v, this.width(x));
  }
  /** Number of low bits of x that may be nonzero. */
  private lowOf(x: BitVec): number {
    const k = this.known.get(x);
    if (k !== undefined) return k.toString(2).length - (k === 0n ? 1 : 0);
    return this.low.get(x) ?? this.width(x);
  }
  private withLow(t: BitVec, n: number): BitVec {
    if (n < this.width(t)) this.low.set(t, n);
    return t;
  }
  private kb(b: boolean): Bool {
    return b ? this.true : this.false;
  }
  /** Folds with `concrete` when every operand is a numeral. */
  private fold2(x: BitVec, y: BitVec, op: "add" | "sub" | "mul" | "and" | "or" | "xor" | "shl" | "lshr" | "ashr"): BitVec | undefined {
    const a = this.cv(x);
    const b = this.cv(y);
    if (a === undefined || b === undefined) return undefined;
    const r = concrete[op](a, b);
    return this.k(r.x, r.w);
  }
  private sameW(x: BitVec, y: BitVec, op: string): number {
    const w = this.width(x);
    if (w !== this.width(y)) throw new Error(`BV width mismatch in ${op}: ${w} vs ${this.width(y)}`);
    return w;
  }

  add(x: BitVec, y: BitVec): BitVec {
    const w = this.sameW(x, y, "add");
    if (this.known.get(x) === 0n) return y;
    if (this.known.get(y) === 0n) return x;
    return this.fold2(x, y, "add") ?? this.wrap(x.add(y), w);
  }
  sub(x: BitVec, y: BitVec): BitVec {
    const w = this.sameW(x, y, "sub");
    if (this.known.get(y) === 0n) return x;
    return this.fold2(x, y, "sub") ?? this.wrap(x.sub(y), w);
  }
  mul(x: BitVec, y: BitVec): BitVec {
    const w = this.sameW(x, y, "mul");
    return this.fold2(x, y, "mul") ?? this.wrap(x.mul(y), w);
  }
  and(x: BitVec, y: BitVec): BitVec {
    const w = this.sameW(x, y, "and");
    const kx = this.known.get(x);
    const ky = this.known.get(y);
    if (kx === 0n || ky === 0n) return this.k(0, w);
    if (kx === MASK(w)) return y;
    if (ky === MASK(w)) return x;
    const f = this.fold2(x, y, "and");
    if (f) return f;
    const n = Math.min(this.lowOf(x), this.lowOf(y));
    if (n === 0) return this.k(0, w);
    return this.withLow(this.wrap(x.and(y), w), n);
  }
  or(x: BitVec, y: BitVec): BitVec {
    const w = this.sameW(x, y, "or");
    const kx = this.known.get(x);
    const ky = this.known.get(y);
    if (kx === 0n) return y;
    if (ky === 0n) return x;
    if (kx === MASK(w) || ky === MASK(w)) return this.k(MASK(w), w);
    return this.fold2(x, y, "or") ?? this.withLow(this.wrap(x.or(y), w), Math.max(this.lowOf(x), this.lowOf(y)));
  }
  xor(x: BitVec, y: BitVec): BitVec {
    const w = this.sameW(x, y, "xor");
    if (this.known.get(x) === 0n) return y;
    if (this.known.get(y) === 0n) return x;
    return this.fold2(x, y, "xor") ?? this.withLow(this.wrap(x.xor(y), w), Math.max(this.lowOf(x), this.lowOf(y)));
  }
  not(x: BitVec): BitVec {
    const a = this.cv(x);
    if (a) return this.k(concrete.not(a).x, a.w);
    return this.wrap(x.not(), this.width(x));
  }
  neg(x: BitVec): BitVec {
    const a = this.cv(x);
    if (a) return this.k(concrete.neg(a).x, a.w);
    return this.wrap(x.neg(), this.width(x));
  }
  // SMT meaning (bvshl/bvlshr/bvashr): an amount ≥ the width gives 0 / the sign fill.
  shl(x: BitVec, y: BitVec): BitVec {
    const w = this.sameW(x, y, "shl");
    if (this.known.get(y) === 0n) return x;
    return this.fold2(x, y, "shl") ?? this.wrap(x.shl(y), w);
  }
  lshr(x: BitVec, y: BitVec): BitVec {
    const w = this.sameW(x, y, "lshr");
    if (this.known.get(y) === 0n) return x;
    return this.fold2(x, y, "lshr") ?? this.wrap(x.lshr(y), w);
  }
  ashr(x: BitVec, y: BitVec): BitVec {
    const w = this.sameW(x, y, "ashr");
    if (this.known.get(y) === 0n) return x;
    return this.fold2(x, y, "ashr") ?? this.wrap(x.shr(y), w);
  }

  eq(x: BitVec, y: BitVec): Bool {
    this.sameW(x, y, "eq");
    if (x === y) return this.true;
    const a = this.cv(x);
    const b = this.cv(y);
    if (a && b) return this.kb(a.x === b.x);
    return this.keep(x.eq(y));
  }
  ult(x: BitVec, y: BitVec): Bool {
    this.sameW(x, y, "ult");
    const a = this.cv(x);
    const b = this.cv(y);
    if (a && b) return this.kb(concrete.ult(a, b));
    return this.keep(x.ult(y));
  }
  ule(x: BitVec, y: BitVec): Bool {
    this.sameW(x, y, "ule");
    const a = this.cv(x);
    const b = this.cv(y);
    if (a && b) return this.kb(concrete.ule(a, b));
    return this.keep(x.ule(y));
  }
  slt(x: BitVec, y: BitVec): Bool {
    this.sameW(x, y, "slt");
    const a = this.cv(x);
    const b = this.cv(y);
    if (a && b) return this.kb(concrete.slt(a, b));
    return this.keep(x.slt(y));
  }
  sle(x: BitVec, y: BitVec): Bool {
    this.sameW(x, y, "sle");
    const a = this.cv(x);
    const b = this.cv(y);
    if (a && b) return this.kb(concrete.sle(a, b));
    return this.keep(x.sle(y));
  }

  ite(c: Bool, t: BitVec, e: BitVec): BitVec {
    const w = this.sameW(t, e, "ite");
    if (c === this.true) return t;
    if (c === this.false) return e;
    if (t === e) return t;
    return this.withLow(this.wrap(this.ctx.If(c, t, e) as BitVec, w), Math.max(this.lowOf(t), this.lowOf(e)));
  }
  iteB(c: Bool, t: Bool, e: Bool): Bool {
    if (c === this.true) return t;
    if (c === this.false) return e;
    if (t === e) return t;
    if (t === this.true && e === this.false) return c;
    if (t === this.false && e === this.true) return this.notB(c);
    return this.keep(this.ctx.If(c, t, e) as Bool);
  }
  andB(x: Bool, y: Bool): Bool {
    if (x === this.false || y === this.false) return this.false;
    if (x === this.true) return y;
    if (y === this.true) return x;
    return this.keep(this.ctx.And(x, y));
  }
  orB(x: Bool, y: Bool): Bool {
    if (x === this.true || y === this.true) return this.true;
    if (x === this.false) return y;
    if (y === this.false) return x;
    return this.keep(this.ctx.Or(x, y));
  }
  notB(x: Bool): Bool {
    if (x === this.true) return this.false;
    if (x === this.false) return this.true;
    return this.keep(this.ctx.Not(x));
  }
  eqB(x: Bool, y: Bool): Bool {
    if (x === y) return this.true;
    if ((x === this.true || x === this.false) && (y === this.true || y === this.false)) return this.false;
    return this.keep(this.ctx.Eq(x, y));
  }

  extract(x: BitVec, hi: number, lo: number): BitVec {
    const w = this.width(x);
    if (hi < lo || hi >= w || lo < 0) throw new Error(`BV extract [${hi}:${lo}] of ${w} bits`);
    if (hi === w - 1 && lo === 0) return x;
    const a = this.cv(x);
    if (a) return this.k(concrete.extract(a, hi, lo).x, hi - lo + 1);
    const n = this.lowOf(x);
    if (lo >= n) return this.k(0, hi - lo + 1);
    return this.withLow(this.wrap(this.ctx.Extract(hi, lo, x), hi - lo + 1), n - lo);
  }
  zext(x: BitVec, width: number): BitVec {
    const w = this.width(x);
    if (width < w) throw new Error(`BV zext ${w} → ${width}`);
    if (width === w) return x;
    const a = this.cv(x);
    if (a) return this.k(a.x, width);
    return this.withLow(this.wrap(x.zeroExt(width - w), width), this.lowOf(x));
  }
  sext(x: BitVec, width: number): BitVec {
    const w = this.width(x);
    if (width < w) throw new Error(`BV sext ${w} → ${width}`);
    if (width === w) return x;
    const a = this.cv(x);
    if (a) return this.k(concrete.sext(a, width).x, width);
    return this.wrap(x.signExt(width - w), width);
  }
  concat(hi: BitVec, lo: BitVec): BitVec {
    const w = this.width(hi) + this.width(lo);
    const a = this.cv(hi);
    const b = this.cv(lo);
    if (a && b) return this.k(concrete.concat(a, b).x, w);
    const t = this.wrap(this.ctx.Concat(hi, lo), w);
    return this.known.get(hi) === 0n ? this.withLow(t, this.lowOf(lo)) : t;
  }
  bitAt(x: BitVec, i: number): Bool {
    const a = this.cv(x);
    if (a) return this.kb(concrete.bitAt(a, i));
    if (i >= this.lowOf(x)) return this.false;
    return this.keep(this.keep(this.ctx.Extract(i, i, x)).eq(this.k(1, 1)));
  }
  fromB(b: Bool): BitVec {
    if (b === this.true) return this.k(1, 1);
    if (b === this.false) return this.k(0, 1);
    return this.ite(b, this.k(1, 1), this.k(0, 1));
  }
  asBigint(x: BitVec): bigint | undefined {
    return this.known.get(x);
  }
  asBool(b: Bool): boolean | undefined {
    return b === this.true ? true : b === this.false ? false : undefined;
  }

  /** Disjunction of many booleans (false when empty). */
  any(xs: Bool[]): Bool {
    const ys = xs.filter((x) => x !== this.false);
    if (ys.some((x) => x === this.true)) return this.true;
    if (ys.length === 0) return this.false;
    return ys.length === 1 ? ys[0]! : this.keep(this.ctx.Or(...ys));
  }
  /** Conjunction of many booleans (true when empty). */
  all(xs: Bool[]): Bool {
    const ys = xs.filter((x) => x !== this.true);
    if (ys.some((x) => x === this.false)) return this.false;
    if (ys.length === 0) return this.true;
    return ys.length === 1 ? ys[0]! : this.keep(this.ctx.And(...ys));
  }
  implies(x: Bool, y: Bool): Bool {
    return this.orB(this.notB(x), y);
  }
}

// ---------------------------------------------------------------------------------------
// Solving

export type SolveStatus = "sat" | "unsat" | "unknown";

export interface SolveResult {
  status: SolveStatus;
  ms: number;
  /** Why the result is unknown: z3's reason (e.g. "timeout", "canceled") or a solver fault. */
  reason?: string;
  /** True when z3 threw (WASM fault): the context may be damaged; the worker should restart. */
  fault?: boolean;
  model?: Model<"main">;
}

/**
 * A lighter pipeline than `QF_BV`'s for the small selection queries of the warp-level
 * shuffle proofs (targets/amdgpu/prove/warp.ts, `shuffleOnly` values): z3's `simplify`,
 * `propagate-values`, `solve-eqs`, then bit-blasting into its SAT solver — `QF_BV`'s tactic
 * without its bit-vector size reduction, `max-bv-sharing` and AIG passes, which cost more
 * than they save on those queries (measured: about 15 % less CPU on shfl_bpermute routines; on the
 * waterfall's invariant queries it is slower, so it is not the default). Any pipeline's
 * `unsat` is a proof; only the time differs.
 */
export const LIGHT_BV: { tactics: readonly string[] } = { tactics: ["simplify", "propagate-values", "solve-eqs", "bit-blast", "sat"] };

/**
 * Checks whether `assertions` are satisfiable within `timeoutMs`. A z3 exception is a fault
 * (`status: "unknown", fault: true`), never a pass. Every query here is quantifier-free
 * bit-vector logic: `QF_BV` by default (its solver starts in about half the time of the
 * default one), `null` for z3's default, `{ tactics }` for a solver made of those z3 tactics
 * run in order (`LIGHT_BV`; the last must decide the goal, e.g. `sat` after `bit-blast`).
 */
export async function solve(env: Z3Env, assertions: Bool[], timeoutMs: number, logic: string | null | { tactics: readonly string[] } = "QF_BV"): Promise<SolveResult> {
  const t0 = performance.now();
  const { ctx, bv } = env;
  if (assertions.some((a) => a === bv.false)) return { status: "unsat", ms: performance.now() - t0 };
  const live = assertions.filter((a) => a !== bv.true);
  let s: InstanceType<Z3Context["Solver"]> | undefined;
  try {
    if (logic !== null && typeof logic === "object") {
      const [t1, t2, ...ts] = logic.tactics;
      if (!t1 || !t2) throw new Error("a tactic pipeline needs at least two tactics");
      s = env.bv.hold(ctx.AndThen(t1, t2, ...ts)).solver();
    } else s = logic ? new ctx.Solver(logic) : new ctx.Solver();
    env.bv.hold(s);
    s.set("timeout", Math.max(1, Math.round(timeoutMs)));
    for (const a of live) s.add(a);
    // Pending finalizers (dec_ref of terms nobody holds) run now; during the check they wait (`checking`).
    await new Promise((r) => setTimeout(r, 0));
    checking++;
    let status: Awaited<ReturnType<typeof s.check>>;
    try {
      status = await s.check();
    } finally {
      endCheck();
    }
    const ms = performance.now() - t0;
    if (status === "sat") return { status, ms, model: env.bv.hold(s.model()) };
    const reason = status === "unknown" ? s.reasonUnknown() || "unknown" : undefined;
    s.release();
    return reason !== undefined ? { status, ms, reason } : { status, ms };
  } catch (e) {
    return { status: "unknown", ms: performance.now() - t0, reason: `solver fault: ${(e as Error).message ?? String(e)}`, fault: true };
  }
}

/** The value of `x` in `model` (completed: unconstrained symbols read 0). */
export function modelValue(env: Z3Env, model: Model<"main">, x: BitVec): bigint {
  const k = env.bv.asBigint(x);
  if (k !== undefined) return k;
  const v = env.bv.hold(model.eval(x, true));
  if (!env.ctx.isBitVecVal(v)) throw new Error(`model value of ${x.sexpr()} is not a numeral`);
  return v.value();
}

/** The value of boolean `b` in `model`. */
export function modelBool(env: Z3Env, model: Model<"main">, b: Bool): boolean {
  const k = env.bv.asBool(b);
  if (k !== undefined) return k;
  const v = env.bv.hold(model.eval(b, true));
  if (env.ctx.isTrue(v)) return true;
  if (env.ctx.isFalse(v)) return false;
  throw new Error(`model value of ${b.sexpr()} is not a boolean`);
}
