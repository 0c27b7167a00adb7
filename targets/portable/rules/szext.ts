/**
 * @fileoverview Portable (JS/C) lowering rules for `szext.mode.type d, a, b`
 * (PTX ISA §9.7.1.21; reference: src/sem/szext.ts). N = b & 31 under `.wrap`, min(b, 32)
 * under `.clamp`; d = the low N bits of a, sign- (`.s32`) or zero-extended (`.u32`); N = 0
 * gives 0 and N = 32 gives a.
 *
 * The classic `(a << (32 - N)) >> (32 - N)` shifts by 32 when N = 0: poison in PIR, a shift by
 * 0 in JS (giving a, not 0) and undefined behaviour in C. Every rule below keeps that count out
 * of reach, so no poison reaches d.
 */
import type { SzextForm } from "../../../src/ir/forms.js";
import type { RoutineSpec } from "../../../src/ir/ir.js";
import { szext } from "../../../src/sem/szext.js";
import type { PExpr } from "../pir.js";
import type { Stage } from "../stage.js";
import { scalarRoutine } from "../stage.js";
import type { PortableRule } from "./index.js";

const formOf = (spec: RoutineSpec): SzextForm | undefined => (spec.form.op === "szext" ? spec.form : undefined);
const is = (mode: SzextForm["mode"] | null, type: SzextForm["type"] | null) => (spec: RoutineSpec) => {
  const f = formOf(spec);
  return !!f && (mode === null || f.mode === mode) && (type === null || f.type === type);
};
const immB = (spec: RoutineSpec): bigint | undefined => {
  const k = spec.kinds.b;
  return k?.kind === "imm" ? BigInt.asUintN(32, k.value) : undefined;
};
/** N for an immediate b (b & 31 under .wrap, min(b, 32) under .clamp); undefined otherwise. */
const immN = (spec: RoutineSpec): number | undefined => {
  const f = formOf(spec);
  const b = immB(spec);
  if (!f || b === undefined) return undefined;
  return f.mode === "clamp" ? (b >= 32n ? 32 : Number(b)) : Number(b & 31n);
};

/** (a << s) >>a s with s = 32 - n: the low n bits of a, sign-extended. Needs 1 ≤ n ≤ 31. */
const shlSar = (P: Stage, a: PExpr, n: PExpr) => {
  const s = P.bin("sub", P.c(32, 32), n);
  return P.bin("ashr", P.bin("shl", a, s), s);
};
/** a & ((1 << n) - 1): the low n bits of a; n = 0 gives 0. Needs n ≤ 31. */
const andMask = (P: Stage, a: PExpr, n: PExpr) =>
  P.bin("and", a, P.bin("sub", P.bin("shl", P.c(1, 32), n), P.c(1, 32)));

export const szextRules: PortableRule[] = [
  {
    name: "szext_imm_zero",
    prio: 20,
    why: "An immediate b with N = 0 (b & 31 = 0 under .wrap, b = 0 under .clamp): PTX gives 0 for N = 0, so d is the constant 0. Beats every general rule, which would compute it.",
    when: (spec) => immN(spec) === 0,
    build: (spec) => scalarRoutine(spec, (P) => P.c(0, 32)),
  },
  {
    name: "szext_imm_keep",
    prio: 20,
    why: ".clamp with an immediate b ≥ 32: N = 32 keeps a whole, so d is a itself.",
    when: (spec) => immN(spec) === 32,
    build: (spec) => scalarRoutine(spec, (_P, { a }) => a),
  },
  {
    name: "szext_imm_extend",
    prio: 20,
    why: "An immediate b with 1 ≤ N ≤ 31: N is known, so d is the low N bits of a sign- (.s32) or zero-extended (.u32), the language's own byte/half/field extension, with no shift count that could reach 32.",
    when: (spec) => {
      const n = immN(spec);
      return n !== undefined && n >= 1 && n <= 31;
    },
    build: (spec) =>
      scalarRoutine(spec, (P, { a }) => {
        const low = P.trunc(a, immN(spec)!);
        return formOf(spec)!.type === "s32" ? P.sext(low, 32) : P.zext(low, 32);
      }),
  },
  {
    name: "szext_wrap_u32_and_mask",
    prio: 10,
    why: ".wrap .u32 with a register b: n = b & 31 ≤ 31 keeps 1 << n in range, and (1 << 0) - 1 = 0 gives the N = 0 case for free: two operations, no select, no poison.",
    when: is("wrap", "u32"),
    build: (spec) => scalarRoutine(spec, (P, { a, b }) => andMask(P, a, P.and(b, P.c(31, 32)))),
  },
  {
    name: "szext_clamp_u32_and_mask",
    prio: 10,
    why: ".clamp .u32 with a register b: b ≥ 32 keeps a whole; the other arm has b ≤ 31, so its mask shift is in range, and b = 0 gives the mask 0. One select over the .wrap mask.",
    when: is("clamp", "u32"),
    build: (spec) => scalarRoutine(spec, (P, { a, b }) => P.select(P.cmp("ult", b, P.c(32, 32)), andMask(P, a, b), a)),
  },
  {
    name: "szext_wrap_s32_shl_sar",
    prio: 10,
    why: ".wrap .s32 with a register b: the classic shift pair sign-extends the low n bits; the n == 0 arm is what makes it right, since there 32 - n = 32 would be out of range (poison in PIR, a no-op shift in JS, undefined in C).",
    //   n = b & 31
    //   d = n == 0 ? 0 : (a << (32 - n)) >>a (32 - n)
    // The n == 0 arm is what makes this right: there 32 - n = 32 is out of range.
    when: is("wrap", "s32"),
    build: (spec) =>
      scalarRoutine(spec, (P, { a, b }) => {
        const n = P.and(b, P.c(31, 32));
        return P.select(P.cmp("eq", n, P.c(0, 32)), P.c(0, 32), shlSar(P, a, n));
      }),
  },
  {
    name: "szext_clamp_s32_shl_sar",
    prio: 10,
    why: ".clamp .s32 with a register b: b ≥ 32 keeps a, b = 0 gives 0, and inside both guards 1 ≤ b ≤ 31, so both shift counts of the sign-extending shift pair are in 1..31.",
    //   d = b >= 32 ? a : b == 0 ? 0 : (a << (32 - b)) >>a (32 - b)
    // Inside both guards 1 ≤ b ≤ 31, so both shift counts are in 1..31.
    when: is("clamp", "s32"),
    build: (spec) =>
      scalarRoutine(spec, (P, { a, b }) =>
        P.select(P.cmp("ult", b, P.c(32, 32)), P.select(P.cmp("eq", b, P.c(0, 32)), P.c(0, 32), shlSar(P, a, b)), a),
      ),
  },
  {
    name: "szext_staged_reference",
    prio: 0,
    why: "src/sem/szext.ts staged into PIR: the ISA pseudocode itself, correct by construction (its shifts are staged with explicit guards). The fallback for every form, and a second, checked lowering where a faster rule wins.",
    when: is(null, null),
    build: (spec) => scalarRoutine(spec, (P, { a, b }) => szext(P, formOf(spec)!, a, b).value),
  },
];
