/**
 * src/check/smt.ts defers z3-solver's finalizers (`Z3_dec_ref`) while a check runs in z3's
 * thread: a term dropped and collected during a check is freed after it, not during it (a
 * concurrent dec_ref corrupts z3's heap). Without the gate the count stays 0 and the freed
 * terms' finalizers run while the check is in flight.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { finalizersDeferred, loadZ3, solve } from "../src/check/smt.js";

setFlagsFromString("--expose_gc");
const gc = runInNewContext("gc") as () => void;
const tick = () => new Promise((r) => setTimeout(r, 0));

describe("z3-solver finalizers during a check", () => {
  it("wait for the check to end, then run", async () => {
    const env = await loadZ3();
    const { ctx } = env;
    // A query that keeps z3 busy for a while: 2^61 - 1 (prime) as a product of two factors > 1.
    const x = ctx.BitVec.const("x", 64);
    const y = ctx.BitVec.const("y", 64);
    const n = ctx.BitVec.val((1n << 61n) - 1n, 64);
    const one = ctx.BitVec.val(1, 64);
    const lim = ctx.BitVec.val(1n << 31n, 64);
    const busy = ctx.And(x.mul(y).eq(n), x.ugt(one), y.ugt(one), x.ult(lim), y.ult(lim));
    // Terms held only by this array (built on the context directly, not through Z3BV), dropped
    // and collected once the check runs (no z3 call is made during it).
    const terms: unknown[] = [];
    for (let i = 0; i < 5000; i++) terms.push(ctx.BitVec.val(BigInt(i) * 7919n, 64).eq(x));
    const before = finalizersDeferred();
    const check = solve(env, [busy], 1500);
    for (let i = 0; i < 3; i++) await tick();
    terms.length = 0;
    gc();
    for (let i = 0; i < 10; i++) await tick();
    const during = finalizersDeferred() - before;
    const res = await check;
    expect(res.fault).toBeUndefined();
    expect(during).toBeGreaterThan(0);
    // After the check the queue is empty: another check runs clean.
    const again = await solve(env, [x.eq(one)], 1000);
    expect(again.status).toBe("sat");
  }, 30_000);
});
