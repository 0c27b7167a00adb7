/**
 * @fileoverview AMDGPU machine instructions as emitted by the lowering rules: flat records
 * of a mnemonic, operands in assembly order, and the rule that emitted them.
 */
import type { Mnemonic } from "./isa/index.js";

/** An operand, in llvm-mc's spelling once printed (`v2`, `v[2:3]`, `s4`, `s[4:5]`, `vcc`, `exec_lo`, `exec_hi` (wave64: the upper 32 lanes), `31`, `.L1`). */
export type MOp =
  | { k: "v"; n: number; count: 1 | 2; mod?: SrcMod }
  | { k: "s"; n: number; count: 1 | 2; mod?: SrcMod }
  | { k: "vcc" | "vcc_lo" | "vcc_hi" | "exec" | "exec_lo" | "exec_hi" | "scc" | "null" }
  /** `fp64`: the operand was an inline float constant (`2.0`): its bits as a 64-bit operand (value: as a 32-bit one). */
  | { k: "imm"; value: bigint; fp64?: bigint; mod?: SrcMod }
  | { k: "label"; name: string };

/**
 * A VOP3 source modifier as clang writes it (`-v3`, `neg(0)`, `|v3|`, `-|v3|`): the
 * floating-point `abs` (clear the sign bit) and `neg` (flip it; applied after `abs`) of the
 * encoding's ABS/NEG fields, on the operand's bits. Only records that declare `srcMods` take
 * one (targets/amdgpu/isa/record.ts); the interpreter refuses it elsewhere. Emitted by
 * clang-19 on `v_cndmask_b32_e64` for selects between values that differ in bit 31.
 */
export type SrcMod = "neg" | "abs" | "negabs";

/**
 * One machine instruction. `enc` picks the VOP1/VOP2/VOPC encoding (chosen by legalize).
 * `Op` is a table mnemonic; parsed text that may name anything (targets/amdgpu/asm.ts)
 * is `MInst<string>` until `isMnemonic` narrows it.
 */
export interface MInst<Op extends string = Mnemonic> {
  op: Op;
  ops: MOp[];
  enc?: "e32" | "e64";
  /** The lowering rule that emitted it. */
  rule: string;
}

/** A label definition inside a routine. */
export interface MLabel {
  label: string;
}

export type MLine<Op extends string = Mnemonic> = MInst<Op> | MLabel;

export function isLabel<Op extends string>(l: MLine<Op>): l is MLabel {
  return (l as MLabel).label !== undefined;
}

export const v = (n: number, count: 1 | 2 = 1): MOp => ({ k: "v", n, count });
export const s = (n: number, count: 1 | 2 = 1): MOp => ({ k: "s", n, count });
export const imm = (value: bigint | number): MOp => ({ k: "imm", value: BigInt(value) });

/** Prints an operand as llvm-mc reads it. */
export function printOp(o: MOp): string {
  if ((o.k === "v" || o.k === "s" || o.k === "imm") && o.mod) {
    const bare = printOp({ ...o, mod: undefined } as MOp);
    if (o.k === "imm") return o.mod === "neg" ? `neg(${bare})` : o.mod === "abs" ? `abs(${bare})` : `neg(abs(${bare}))`;
    return o.mod === "neg" ? `-${bare}` : o.mod === "abs" ? `|${bare}|` : `-|${bare}|`;
  }
  switch (o.k) {
    case "v":
    case "s":
      return o.count === 1 ? `${o.k}${o.n}` : `${o.k}[${o.n}:${o.n + o.count - 1}]`;
    case "imm": {
      const x = BigInt.asIntN(64, o.value);
      return x >= -16n && x <= 64n ? x.toString() : `0x${BigInt.asUintN(32, o.value).toString(16)}`;
    }
    case "label":
      return o.name;
    default:
      return o.k;
  }
}

