/**
 * @fileoverview The routine contract's "changes nothing else" conditions (targets/amdgpu/routine.ts),
 * stated once: exec restored; no DS result outstanding (an `s_waitcnt` covers every one); every VGPR outside the scratch window unchanged in every lane,
 * except v0 in lanes that are active (`active(l)`); every SGPR outside the scratch window
 * unchanged. Under a caller's register assignment (./assign.ts) the same conditions with its
 * `d` register for v0 and its scratch registers for the window. vcc and scc are scratch (a `p` result in vcc is checked as a value by the caller).
 *
 * Two callers, one set of conditions:
 *   - the prover (./prove/scalar.ts, ./prove/match.ts), symbolically: every lane is a condition
 *     over the inputs, and a register written that did not exist before is a violation;
 *   - execRoutine (./exec.ts), concretely (`style: "exec"`): the conditions that hold, the
 *     first lane per register, over the registers that exist before the run, in its own
 *     wording.
 */
import type { BV } from "../../src/sem/bv.js";
import type { WaveState } from "./interp.js";
import { outstandingDs } from "./interp.js";
import type { AmdRoutine } from "./lower.js";

/** One way a run breaks the contract, as a condition over the inputs. */
export interface ContractBad<B> {
  what: string;
  cond: B;
  /** Lane the failure is about (for traces), if any. */
  lane?: number;
}

/**
 * `prove`: every lane, symbolic conditions (those not known false), registers new after the
 * run reported. `exec`: the conditions known true, the first lane per register, registers
 * new after the run not looked at; v-register messages as execRoutine words them.
 */
export type ContractStyle = "prove" | "exec";

type Regs<V, B> = Pick<WaveState<V, B>, "vgpr" | "sgpr" | "exec" | "lds">;

/** What the conditions read of a routine: its layout, its scratch window, and a caller's register assignment if any. */
export type ContractView = Pick<AmdRoutine, "layout" | "vEnd" | "sEnd" | "assigned">;

/**
 * The VGPR whose active lanes are the routine's `d`: v0 under the contract (whatever the
 * form writes, as before), the caller's `d` register under an assignment
 * (./assign.ts), none for a predicate or unwritten `d` there.
 */
export function dVgpr(r: ContractView): number | null {
  if (!r.assigned) return 0;
  return r.assigned.dVgpr;
}

/** Whether register `k``n` is scratch: in the contract's window, or in an assignment's scratch set. */
export function isScratch(r: ContractView, k: "v" | "s", n: number): boolean {
  if (r.assigned) return (k === "v" ? r.assigned.vScratch : r.assigned.sScratch).includes(n);
  return k === "v" ? n >= r.layout.vScratch && n < r.vEnd : n >= r.layout.sScratch && n < r.sEnd;
}

/**
 * One past the highest VGPR and SGPR a run must hold: the scratch window's end under the
 * contract; under an assignment, past every register its lines and layout name.
 */
export function regSpan(r: Pick<AmdRoutine, "vEnd" | "sEnd" | "assigned">): { v: number; s: number } {
  return r.assigned ? { v: r.assigned.vSpan, s: r.assigned.sSpan } : { v: r.vEnd, s: r.sEnd };
}

/** The contract's conditions on a run from `before` to `after` (see the file comment). */
export function contractBads<V, B>(
  bv: BV<V, B>,
  r: ContractView,
  before: Regs<V, B>,
  after: Regs<V, B>,
  active: (lane: number) => B,
  style: ContractStyle = "prove",
): ContractBad<B>[] {
  const exec = style === "exec";
  const holds = (b: ContractBad<B>) => (exec ? bv.asBool(b.cond) === true : bv.asBool(b.cond) !== false);
  const bads: ContractBad<B>[] = [];
  const ne = (x: V, y: V): B => (x === y ? bv.false : bv.notB(bv.eq(x, y)));
  bads.push({ what: "exec is not restored", cond: ne(after.exec, before.exec) });
  // No LDS operation may be outstanding at exit (interp.ts, the LDS wait model).
  for (const what of outstandingDs(after)) bads.push({ what, cond: bv.true });
  const vs = r.layout.vScratch;
  const dn = dVgpr(r);
  const window = r.assigned ? "the scratch registers" : `the scratch window v${vs}..v${r.vEnd - 1}`;
  for (const [n, lanes] of after.vgpr) {
    if (isScratch(r, "v", n)) continue;
    const old = before.vgpr.get(n);
    if (!old) {
      if (!exec) bads.push({ what: `v${n} is written but is outside ${window}`, cond: bv.true });
      continue;
    }
    // The same array: no lane changed (the interpreter replaces an array it writes).
    if (lanes === old) continue;
    for (let l = 0; l < lanes.length; l++) {
      const changed = ne(lanes[l]!, old[l]!);
      if (changed === bv.false) continue;
      const what = exec
        ? `v${n} lane ${l} changed${n === dn ? " (inactive lane of d)" : ""}`
        : n === dn
          ? `v${n} lane ${l} changed in a lane that does not execute`
          : `v${n} lane ${l} changed (not scratch)`;
      const bad = { what, cond: n === dn ? bv.andB(bv.notB(active(l)), changed) : changed, lane: l };
      if (exec && !holds(bad)) continue;
      bads.push(bad);
      if (exec) break; // the first lane per register
    }
  }
  for (const [n, x] of after.sgpr) {
    if (isScratch(r, "s", n)) continue;
    const old = before.sgpr.get(n);
    if (old === undefined) {
      if (!exec) bads.push({ what: `s${n} is written but is outside the scratch window`, cond: bv.true });
      continue;
    }
    const changed = ne(x, old);
    if (changed !== bv.false) bads.push({ what: `s${n} changed (not scratch)`, cond: changed });
  }
  return bads.filter(holds);
}
