/**
 * @fileoverview The typed forms of the PTX families, with every modifier (a leaf module: the
 * family definitions in src/families/ import it; src/ir/forms.ts re-exports it with the
 * dispatchers over the registry). A form is an instruction's opcode and modifiers without its operands
 * (operands live in `PtxInst`, src/ir/ir.ts). Illegal combinations cannot be represented:
 * `tail` makes `.op2` and `.dsel` exclusive, as ptxas requires ("Video instruction cannot
 * have destination selector and secondary operation").
 *
 * Sources: PTX ISA 9.0 "szext" (§9.7.1.21), "vshl, vshr" (§9.7.18.1.3), "vadd, vsub, vabsdiff, vmin, vmax" (§9.7.18.1.1), "match.sync"
 * (§9.7.13.8); the accepted-form matrix of ../shared/notes/ptx-semantics.md §5(c).
 */

/** Byte or half-word selector of the scalar video instructions. */
export type Sel = "b0" | "b1" | "b2" | "b3" | "h0" | "h1";
export const SELS: readonly Sel[] = ["b0", "b1", "b2", "b3", "h0", "h1"];

/** `szext.mode.type d, a, b` */
export interface SzextForm {
  op: "szext";
  mode: "clamp" | "wrap";
  type: "u32" | "s32";
}

/** The part after the shift: nothing, a secondary op with `c`, or a merge into `d.dsel`. */
export type VshTail =
  | { kind: "none" }
  | { kind: "op2"; op2: "add" | "min" | "max" }
  | { kind: "merge"; dsel: Sel };

/** `vop.dtype.atype.u32{.sat}.mode{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}` */
export interface VshForm {
  op: "vshl" | "vshr";
  dtype: "u32" | "s32";
  atype: "u32" | "s32";
  sat: boolean;
  mode: "clamp" | "wrap";
  asel: Sel | null;
  bsel: Sel | null;
  tail: VshTail;
}

/**
 * `vop.dtype.atype.btype{.sat}{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}` with vop one of the five
 * scalar video operations of PTX ISA 9.0 §9.7.18.1.1 (`vadd vsub vabsdiff vmin vmax`): unlike
 * the shifts, btype is free and b is extended by it.
 */
/** vset's comparison (PTX ISA 9.0 §9.7.18.1.4: `.cmp = {.eq, .ne, .lt, .le, .gt, .ge}`). */
export type VsetCmp = "eq" | "ne" | "lt" | "le" | "gt" | "ge";

/**
 * `vop.dtype.atype.btype{.sat}{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}` for vadd…vmax, and
 * `vset.atype.btype.cmp{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}`: vset has no dtype and no
 * `.sat` — "the intermediate result of the comparison is always unsigned, and therefore
 * destination d and operand c are also unsigned" (§9.7.18.1.4) — so its forms carry
 * dtype `.u32` and sat false, and `cmp` is set only for vset.
 */
export interface VopForm {
  op: "vadd" | "vsub" | "vabsdiff" | "vmin" | "vmax" | "vset";
  cmp: VsetCmp | null;
  dtype: "u32" | "s32";
  atype: "u32" | "s32";
  btype: "u32" | "s32";
  sat: boolean;
  asel: Sel | null;
  bsel: Sel | null;
  tail: VshTail;
}

/** Destination shape of match: `.any` has only `d`; `.all` may add `|p` and sink either. */
export type MatchDest = "d" | "d|p" | "_|p" | "d|_" | "_";

/** `match.mode.sync.type d[|p], a, membermask` */
export interface MatchForm {
  op: "match";
  mode: "any" | "all";
  type: "b32" | "b64";
  dest: MatchDest;
}

import type { WarpForm } from "./warp_forms.js";
export type { WarpForm } from "./warp_forms.js";

/** Every form of every family: the scalar families, match.sync, and the warp-level family (src/ir/warp_forms.ts). */
export type Form = SzextForm | VshForm | VopForm | MatchForm | WarpForm;

/** Semantics profile: the ISA read literally (repaired), or ptxas's sm_75+ emulation. */
export type Profile = "isa" | "sm90";
export const PROFILES: readonly Profile[] = Object.freeze(["isa", "sm90"]);
