/**
 * @fileoverview Portable (JS/C) lowering rules for `vshl` / `vshr` (PTX ISA §9.7.18.1.3;
 * reference: src/sem/vsh.ts, both profiles).
 */
import type { Profile, VshForm } from "../../../src/ir/forms.js";
import type { RoutineSpec } from "../../../src/ir/ir.js";
import { selField, vsh } from "../../../src/sem/vsh.js";
import { scalarRoutine } from "../stage.js";
import type { PortableRule } from "./index.js";

const formOf = (spec: RoutineSpec): VshForm | undefined =>
  spec.form.op === "vshl" || spec.form.op === "vshr" ? spec.form : undefined;

export const vshRules: PortableRule[] = [
  {
    name: "vsh_nosat_shift32",
    prio: 10,
    // Without .sat and .min/.max nothing reads tmp above bit 31, and bits 31..0 of the 33-bit
    // shift only need 32 bits:
    //   x = a{.asel} extended per atype to 32 bits;  t = b{.bsel} zero-extended
    //   vshl:          t < 32 ? x << t : 0          (clamp; wrap shifts by t & 31)
    //   vshr, u atype: t < 32 ? x >> t : 0          (ta's bit 32 is 0)
    //   vshr, s atype: x >>a min(t, 31)             (ta's bit 32 equals bit 31)
    // then .add c (mod 2^32) or the dsel merge into c (sm90: d.h1 takes tmp's upper half, D2).
    when: (spec) => {
      const f = formOf(spec);
      return !!f && !f.sat && !(f.tail.kind === "op2" && f.tail.op2 !== "add");
    },
    build: (spec, profile: Profile) =>
      scalarRoutine(spec, (P, { a, b, c }) => {
        const f = formOf(spec)!;
        const k = (v: number | bigint) => P.c(v, 32);
        const field = (x: typeof a, sel: VshForm["asel"], signed: boolean) => {
          const { lo, width } = selField(sel);
          const part = P.extract(x, lo + width - 1, lo);
          return signed ? P.sext(part, 32) : P.zext(part, 32);
        };
        const x = field(a, f.asel, f.atype === "s32");
        const t = field(b, f.bsel, false);
        const inRange = P.cmp("ult", t, k(32));
        let r;
        if (f.mode === "wrap")
          r = P.bin(f.op === "vshl" ? "shl" : f.atype === "s32" ? "ashr" : "lshr", x, P.and(t, k(31)));
        else if (f.op === "vshr" && f.atype === "s32") r = P.bin("ashr", x, P.select(inRange, t, k(31)));
        else r = P.select(inRange, P.bin(f.op === "vshl" ? "shl" : "lshr", x, t), k(0));
        if (f.tail.kind === "op2") return P.add(r, c);
        if (f.tail.kind === "merge") {
          const { lo, width } = selField(f.tail.dsel);
          const fieldMask = ((1n << BigInt(width)) - 1n) << BigInt(lo);
          const keepC = P.and(c, k(~fieldMask));
          if (profile === "sm90" && f.tail.dsel === "h1") return P.or(P.and(r, k(0xffff0000)), keepC);
          return P.or(P.bin("shl", P.and(r, k((1n << BigInt(width)) - 1n)), k(lo)), keepC);
        }
        return r;
      }),
  },
  {
    name: "vsh_staged_reference",
    prio: 0,
    // src/sem/vsh.ts staged into PIR: the ISA pipeline written literally (33-bit inputs, the
    // exact shift kept to 64 bits, .s34 tmp, saturation, op2 or merge), per profile. Correct by
    // construction for every form; the staging adds the shift-count guards explicitly.
    when: (spec) => !!formOf(spec),
    build: (spec, profile) => scalarRoutine(spec, (P, { a, b, c }) => vsh(P, formOf(spec)!, profile, a, b, c).value),
  },
];
