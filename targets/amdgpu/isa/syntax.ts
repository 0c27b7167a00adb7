/**
 * @fileoverview The modifier syntax of the records' encoding fields (`ctrl` operands), stated
 * once for the printer (what `lower` emits, the MIR oracle's llvm-mc text) and the asm parser
 * (targets/amdgpu/asm.ts): DS `offset:N`; DPP `quad_perm:[…]`/`row_shr:N`/… (./dpp.ts),
 * `row_mask:`, `bank_mask:`, `bound_ctrl:1`, `fi:1`; the permlanes' `op_sel:[fi,bound_ctrl]`.
 * Spelling as llvm-mc-19 prints it (LLVM `docs/AMDGPUModifierSyntax.rst`).
 */
import type { MOp } from "../minst.js";
import type { Gen, IsaRecord } from "./record.js";
import { dppCtrlOf, dppCtrlText } from "./dpp.js";

const hex = (n: bigint) => `0x${n.toString(16)}`;

/**
 * The modifier text of `rec`'s encoding fields with values `vals` (by operand index; only the
 * `ctrl` operands are read): llvm-mc's spelling, defaults left out where llvm-mc leaves them
 * out (`offset:0`, `bound_ctrl` clear, `fi:0`, `op_sel:[0,0]`). Empty for a record without
 * encoding fields.
 */
export function modifierText(rec: IsaRecord, vals: readonly (bigint | undefined)[]): string {
  const out: string[] = [];
  const at = (name: string) => {
    const i = rec.ops.findIndex((o) => o.ctrl && o.name === name);
    return i < 0 ? undefined : (vals[i] ?? 0n);
  };
  const offset = at("offset");
  if (offset) out.push(`offset:${offset}`);
  const ctrl = at("dpp_ctrl");
  if (ctrl !== undefined) {
    out.push(dppCtrlText(Number(ctrl)), `row_mask:${hex(at("row_mask")!)}`, `bank_mask:${hex(at("bank_mask")!)}`);
    if (at("bound_ctrl")) out.push("bound_ctrl:1");
    if (at("fi")) out.push("fi:1");
  } else if (at("bound_ctrl") !== undefined) {
    const fi = at("fi")!;
    const bc = at("bound_ctrl")!;
    if (fi || bc) out.push(`op_sel:[${fi ? 1 : 0},${bc ? 1 : 0}]`);
  }
  return out.join(" ");
}

/**
 * The values of `rec`'s encoding fields from the modifier words after its last operand, on
 * generation `gen` (undefined: only what means the same on every generation). Absent fields
 * get their defaults (0; `row_mask`/`bank_mask` 0xf). Returns the values by operand index.
 * @throws Error naming a modifier the record does not take, a DPP control of another
 *   generation, or `bound_ctrl:0` without a generation (it sets the bit on gfx9/gfx10 and
 *   clears it on gfx11: llvm-mc-19, warp-semantics.md §9.1).
 */
export function parseModifiers(rec: IsaRecord, words: readonly string[], gen: Gen | undefined): Map<number, bigint> {
  const idx = (name: string) => rec.ops.findIndex((o) => o.ctrl && o.name === name);
  const vals = new Map<number, bigint>();
  rec.ops.forEach((o, i) => {
    if (o.ctrl) vals.set(i, o.name === "row_mask" || o.name === "bank_mask" ? 0xfn : 0n);
  });
  const set = (name: string, v: bigint, w: string) => {
    const i = idx(name);
    if (i < 0) throw new Error(`modifier "${w}" is not modelled for ${rec.mnemonic}`);
    vals.set(i, v);
  };
  const num = (t: string) => BigInt(t);
  let sawCtrl = false;
  for (const w of words) {
    let m: RegExpExecArray | null;
    if ((m = /^offset:(\d+|0x[0-9a-f]+)$/i.exec(w))) set("offset", num(m[1]!), w);
    else if ((m = /^(row_mask|bank_mask):(\d+|0x[0-9a-f]+)$/i.exec(w))) set(m[1]!, num(m[2]!), w);
    else if ((m = /^bound_ctrl:([01])$/.exec(w))) {
      if (m[1] === "0" && gen === undefined) throw new Error(`"${w}" sets the bound-control bit on gfx9/gfx10 and clears it on gfx11: the generation is needed`);
      set("bound_ctrl", m[1] === "1" || gen !== 11 ? 1n : 0n, w);
    } else if ((m = /^fi:([01])$/.exec(w))) {
      if (m[1] === "1" && gen === 9) throw new Error(`"${w}" (fetch inactive) does not exist on gfx9`);
      set("fi", BigInt(m[1]!), w);
    }
    else if ((m = /^op_sel:\[([01]),([01])\]$/.exec(w)) && idx("fi") >= 0 && idx("dpp_ctrl") < 0) {
      set("fi", BigInt(m[1]!), w);
      set("bound_ctrl", BigInt(m[2]!), w);
    } else {
      if (idx("dpp_ctrl") < 0) throw new Error(`modifier "${w}" is not modelled`);
      const c = dppCtrlOf(w, gen);
      if (c === null) throw new Error(`modifier "${w}" is not modelled`);
      set("dpp_ctrl", BigInt(c), w);
      sawCtrl = true;
    }
  }
  if (idx("dpp_ctrl") >= 0 && !sawCtrl) throw new Error(`${rec.mnemonic} without a DPP control`);
  return vals;
}

/**
 * An instruction's operand text as llvm-mc reads it: the operands that are not encoding
 * fields, comma-separated (each by `opText`), then the fields' modifiers (`modifierText`).
 * For a record without encoding fields this is exactly the operands joined by ", ".
 */
export function operandText(rec: IsaRecord, ops: readonly MOp[], opText: (o: MOp) => string): string {
  const regs = ops.filter((_, i) => !rec.ops[i]?.ctrl).map(opText);
  if (!rec.ops.some((o) => o.ctrl)) return regs.join(", ");
  const mods = modifierText(
    rec,
    ops.map((o) => (o.k === "imm" ? o.value : undefined)),
  );
  return [regs.join(", "), mods].filter((x) => x).join(" ");
}
