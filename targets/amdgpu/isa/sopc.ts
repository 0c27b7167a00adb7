/**
 * @fileoverview SOPC records: scalar compares writing SCC (AMD "Vega" ISA manual §12.4,
 * "RDNA3" §16.4).
 */
import type { BV } from "../../../src/sem/bv.js";
import type { IsaRecord, Relation } from "./record.js";
import { sopc } from "./record.js";

type Cmp = <V, B>(bv: BV<V, B>, x: V, y: V) => B;
/** AMD's spelling of each relation in `s_cmp_<name>_*`, its symbol and its unsigned test. */
const U = [
  ["eq", "eq", "==", (bv, x, y) => bv.eq(x, y)],
  ["lg", "ne", "!=", (bv, x, y) => bv.notB(bv.eq(x, y))],
  ["lt", "lt", "<", (bv, x, y) => bv.ult(x, y)],
  ["le", "le", "<=", (bv, x, y) => bv.ule(x, y)],
  ["gt", "gt", ">", (bv, x, y) => bv.ult(y, x)],
  ["ge", "ge", ">=", (bv, x, y) => bv.ule(y, x)],
] as const satisfies readonly (readonly [string, Relation, string, Cmp])[];
const I: Partial<Record<Relation, Cmp>> = {
  lt: (bv, x, y) => bv.slt(x, y),
  le: (bv, x, y) => bv.sle(x, y),
  gt: (bv, x, y) => bv.slt(y, x),
  ge: (bv, x, y) => bv.sle(y, x),
};

export const SOPC = [
  ...U.flatMap(([name, rel, sym, cmp]) => [
    sopc(`s_cmp_${name}_u32` as const, `SCC = S0.u ${sym} S1.u`, (bv, [s0, s1]) => ({ d: [], scc: cmp(bv, s0!, s1!) }), 32, { rel, signed: false, bits: 32 }),
    sopc(`s_cmp_${name}_i32` as const, `SCC = S0.i ${sym} S1.i`, (bv, [s0, s1]) => ({ d: [], scc: (I[rel] ?? cmp)(bv, s0!, s1!) }), 32, { rel, signed: true, bits: 32 }),
  ]),
  sopc("s_cmp_eq_u64", "SCC = S0.u64 == S1.u64", (bv, [s0, s1]) => ({ d: [], scc: bv.eq(s0!, s1!) }), 64, { rel: "eq", signed: false, bits: 64 }),
  // Emitted by llc-19 (checked against LLVM in targets/amdgpu/oracle/llvm.ts); Vega ISA ch. 12 (SOPC).
  sopc("s_bitcmp0_b32", "SCC = S0.u[S1.u[4:0]] == 0", (bv, [s0, s1]) => ({ d: [], scc: bv.notB(bv.bitAt(bv.lshr(s0!, bv.zext(bv.extract(s1!, 4, 0), 32)), 0)) })),
  sopc("s_bitcmp1_b32", "SCC = S0.u[S1.u[4:0]] == 1", (bv, [s0, s1]) => ({ d: [], scc: bv.bitAt(bv.lshr(s0!, bv.zext(bv.extract(s1!, 4, 0), 32)), 0) })),
  sopc("s_cmp_lg_u64", "SCC = S0.u64 != S1.u64", (bv, [s0, s1]) => ({ d: [], scc: bv.notB(bv.eq(s0!, s1!)) }), 64, { rel: "ne", signed: false, bits: 64 }),
] as const satisfies readonly IsaRecord[];
