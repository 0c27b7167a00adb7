/**
 * @fileoverview Portable (JS/C) lowering rules for `vadd vsub vabsdiff vmin vmax` (PTX ISA
 * §9.7.18.1.1) and `vset` (§9.7.18.1.4; reference: src/sem/vsh.ts `vop`, both profiles).
 */
import type { VopForm } from "../../../src/ir/forms.js";
import type { RoutineSpec } from "../../../src/ir/ir.js";
import { partSelectSignExtend, scalarTail, vop, vopCSigned } from "../../../src/sem/vsh.js";
import type { PExpr } from "../pir.js";
import type { Stage } from "../stage.js";
import { scalarRoutine } from "../stage.js";
import type { PortableRule } from "./index.js";

const VOPS = new Set(["vadd", "vsub", "vabsdiff", "vmin", "vmax", "vset"]);
const formOf = (spec: RoutineSpec): VopForm | undefined =>
  VOPS.has(spec.form.op) ? (spec.form as VopForm) : undefined;

/**
 * Bits 31..0 of vadd/vsub/vabsdiff/vmin/vmax in 32-bit arithmetic. ta, tb are the .s33
 * inputs; their low words x, y are the operands extended to 32 bits, and whether bit 32 is
 * a sign copy (`.s32` or a signed selector) or zero:
 *   vadd/vsub:          x ± y                         (the low word of a sum is the sum of the low words)
 *   vmin/vmax:          the 33-bit compare: same kind of extension → one 32-bit compare of that
 *                       signedness; signed x, unsigned y → x < 0 or y ≥ 2^31 decide, else either compare
 *   vabsdiff:           max − min (mod 2^32)
 */
function low32(P: Stage, f: VopForm, a: PExpr, b: PExpr): PExpr {
  const k = (v: number | bigint) => P.c(v, 32);
  const x = partSelectSignExtend(P, a, f.atype === "s32", f.asel, 32);
  const y = partSelectSignExtend(P, b, f.btype === "s32", f.bsel, 32);
  if (f.op === "vadd") return P.add(x, y);
  if (f.op === "vsub") return P.sub(x, y);
  // x < y as .s33 values. A signed selector or .s32 word is sign-extended; an unsigned one is
  // zero-extended; for a mixed pair, the signed one is less when it is negative or the unsigned
  // one has bit 31 set (it is then ≥ 2^31 > any signed word); otherwise both lie in [0, 2^31).
  const sx = f.atype === "s32";
  const sy = f.btype === "s32";
  const neg = (w: PExpr) => P.slt(w, k(0));
  const less =
    sx === sy
      ? sx
        ? P.slt(x, y)
        : P.ult(x, y)
      : sx
        ? P.orB(P.orB(neg(x), neg(y)), P.ult(x, y))
        : P.andB(P.andB(P.notB(neg(y)), P.notB(neg(x))), P.ult(x, y));
  if (f.op === "vmin") return P.ite(less, x, y);
  if (f.op === "vmax") return P.ite(less, y, x);
  return P.ite(less, P.sub(y, x), P.sub(x, y));
}

/** Without .sat and .min/.max nothing reads tmp above bit 31 (vadd…vmax; vset's 0/1 is staged). */
const lowWordOnly = (f: VopForm): boolean =>
  f.op !== "vset" && !f.sat && !(f.tail.kind === "op2" && f.tail.op2 !== "add");

export const vopRules: PortableRule[] = [
  {
    name: "vop_low32",
    prio: 10,
    why: "No .sat and no .min/.max: d reads only tmp's low word (the tail is none, .add, or a merge of its low byte/half, sm90's .h1 its high half), so 32-bit arithmetic on the extended operands (low32) replaces the reference's 64-bit pipeline.",
    when: (spec) => {
      const f = formOf(spec);
      return !!f && lowWordOnly(f);
    },
    build: (spec, profile) =>
      scalarRoutine(spec, (P, { a, b, c }) => {
        const f = formOf(spec)!;
        return scalarTail(
          P,
          f.tail,
          profile,
          vopCSigned(f, profile),
          low32(P, f, a, b),
          () => {
            throw new Error("vop_low32: .min/.max needs the wide intermediate");
          },
          c,
        );
      }),
  },
  {
    name: "vop_staged_reference",
    prio: 0,
    why: "src/sem/vsh.ts `vop` staged into PIR: the ISA pipeline written literally (.s33 inputs, the exact result in 64 bits, saturation, op2 or merge), per profile. Correct by construction for every form; the fallback wherever the 32-bit rule does not apply.",
    when: (spec) => !!formOf(spec),
    build: (spec, profile) =>
      scalarRoutine(
        spec,
        (P, { a, b, c }) => vop(P, formOf(spec)!, profile, a, b, c).value,
      ),
  },
];
