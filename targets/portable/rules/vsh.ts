/**
 * @fileoverview Portable (JS/C) lowering rules for `vshl` / `vshr` (PTX ISA §9.7.18.1.3;
 * reference: src/sem/vsh.ts, both profiles).
 */
import type { Profile, VshForm } from "../../../src/ir/forms.js";
import type { RoutineSpec } from "../../../src/ir/ir.js";
import { selField, vsh } from "../../../src/sem/vsh.js";
import type { PExpr } from "../pir.js";
import type { Stage } from "../stage.js";
import { scalarRoutine } from "../stage.js";
import type { PortableRule } from "./index.js";

const formOf = (spec: RoutineSpec): VshForm | undefined =>
  spec.form.op === "vshl" || spec.form.op === "vshr" ? spec.form : undefined;

/** Without .sat and .min/.max nothing reads tmp above bit 31 (the 32-bit rules' domain). */
const lowWordOnly = (f: VshForm): boolean => !f.sat && !(f.tail.kind === "op2" && f.tail.op2 !== "add");

/**
 * Bits 31..0 of the 33-bit shift of a vsh form, in 32 bits:
 *   x = a{.asel} extended per atype to 32 bits;  t = b{.bsel} zero-extended
 *   vshl:          t < 32 ? x << t : 0          (clamp; wrap shifts by t & 31)
 *   vshr, u atype: t < 32 ? x >> t : 0          (ta's bit 32 is 0)
 *   vshr, s atype: x >>a min(t, 31)             (ta's bit 32 equals bit 31)
 */
function shift32(P: Stage, f: VshForm, a: PExpr, b: PExpr): PExpr {
  const k = (v: number | bigint) => P.c(v, 32);
  const field = (x: PExpr, sel: VshForm["asel"], signed: boolean) => {
    const { lo, width } = selField(sel);
    const part = P.extract(x, lo + width - 1, lo);
    return signed ? P.sext(part, 32) : P.zext(part, 32);
  };
  const x = field(a, f.asel, f.atype === "s32");
  const t = field(b, f.bsel, false);
  const inRange = P.cmp("ult", t, k(32));
  if (f.mode === "wrap") return P.bin(f.op === "vshl" ? "shl" : f.atype === "s32" ? "ashr" : "lshr", x, P.and(t, k(31)));
  if (f.op === "vshr" && f.atype === "s32") return P.bin("ashr", x, P.select(inRange, t, k(31)));
  return P.select(inRange, P.bin(f.op === "vshl" ? "shl" : "lshr", x, t), k(0));
}

/** The low-word rule of one tail kind (`none`, `.add`, merge). */
const lowWord = (spec: RoutineSpec, tail: VshForm["tail"]["kind"]): boolean => {
  const f = formOf(spec);
  return !!f && lowWordOnly(f) && f.tail.kind === tail;
};

export const vshRules: PortableRule[] = [
  {
    name: "vsh_nosat_shift32",
    prio: 10,
    why: "No .sat, no .min/.max and no tail: d is tmp's low word, and bits 31..0 of the 33-bit shift need only a 32-bit shift with the count guarded (shift32). Cheaper than the staged reference's 64-bit pipeline.",
    when: (spec) => lowWord(spec, "none"),
    build: (spec) => scalarRoutine(spec, (P, { a, b }) => shift32(P, formOf(spec)!, a, b)),
  },
  {
    name: "vsh_nosat_shift32_add",
    prio: 10,
    why: ".add without .sat: d = tmp + c mod 2^32 reads only tmp's low word, so the 32-bit shift (shift32) and one add are exact.",
    when: (spec) => lowWord(spec, "op2"),
    build: (spec) => scalarRoutine(spec, (P, { a, b, c }) => P.add(shift32(P, formOf(spec)!, a, b), c)),
  },
  {
    name: "vsh_nosat_shift32_merge",
    prio: 10,
    why: "A dsel merge without .sat: the merge reads only tmp's low byte/half (sm90's .h1 reads tmp[31:16], D2: the profile picks which), all inside the low word, so the 32-bit shift (shift32) and a mask-and-or into c are exact.",
    when: (spec) => lowWord(spec, "merge"),
    build: (spec, profile: Profile) =>
      scalarRoutine(spec, (P, { a, b, c }) => {
        const f = formOf(spec)!;
        const r = shift32(P, f, a, b);
        const k = (v: number | bigint) => P.c(v, 32);
        if (f.tail.kind !== "merge") throw new Error("vsh_nosat_shift32_merge: not a merge");
        const { lo, width } = selField(f.tail.dsel);
        const fieldMask = ((1n << BigInt(width)) - 1n) << BigInt(lo);
        const keepC = P.and(c, k(~fieldMask));
        if (profile === "sm90" && f.tail.dsel === "h1") return P.or(P.and(r, k(0xffff0000)), keepC);
        return P.or(P.bin("shl", P.and(r, k((1n << BigInt(width)) - 1n)), k(lo)), keepC);
      }),
  },
  {
    name: "vsh_staged_reference",
    prio: 0,
    why: "src/sem/vsh.ts staged into PIR: the ISA pipeline written literally (33-bit inputs, the exact shift kept to 64 bits, .s34 tmp, saturation, op2 or merge), per profile. Correct by construction for every form (the staging adds the shift-count guards); the fallback wherever the 32-bit rules do not apply.",
    when: (spec) => !!formOf(spec),
    build: (spec, profile) => scalarRoutine(spec, (P, { a, b, c }) => vsh(P, formOf(spec)!, profile, a, b, c).value),
  },
];
