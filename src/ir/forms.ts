/**
 * @fileoverview The typed forms of the three PTX families, with every modifier, and their
 * enumerators. A form is an instruction's opcode and modifiers without its operands
 * (operands live in `PtxInst`, src/ir/ir.ts). Illegal combinations cannot be represented:
 * `tail` makes `.op2` and `.dsel` exclusive, as ptxas requires ("Video instruction cannot
 * have destination selector and secondary operation").
 *
 * Sources: PTX ISA 9.0 "szext" (§9.7.1.21), "vshl, vshr" (§9.7.18.1.3), "match.sync"
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

/** Destination shape of match: `.any` has only `d`; `.all` may add `|p` and sink either. */
export type MatchDest = "d" | "d|p" | "_|p" | "d|_" | "_";

/** `match.mode.sync.type d[|p], a, membermask` */
export interface MatchForm {
  op: "match";
  mode: "any" | "all";
  type: "b32" | "b64";
  dest: MatchDest;
}

export type Form = SzextForm | VshForm | MatchForm;
export type Family = "szext" | "video" | "match";

export function familyOf(f: Form): Family {
  return f.op === "szext" ? "szext" : f.op === "match" ? "match" : "video";
}

/** Semantics profile: the ISA read literally (repaired), or ptxas's sm_75+ emulation. */
export type Profile = "isa" | "sm90";
export const PROFILES: readonly Profile[] = ["isa", "sm90"];

/** Canonical PTX spelling of a form, e.g. `vshl.u32.s32.u32.sat.clamp.add` or `d.b1`-merges as `vshl.u32.u32.u32.clamp d.b1, a.h0, b`. */
export function formName(f: Form): string {
  switch (f.op) {
    case "szext":
      return `szext.${f.mode}.${f.type}`;
    case "match":
      return `match.${f.mode}.sync.${f.type}` + (f.mode === "all" ? ` ${f.dest}` : "");
    default: {
      const head = `${f.op}.${f.dtype}.${f.atype}.u32${f.sat ? ".sat" : ""}.${f.mode}`;
      const op2 = f.tail.kind === "op2" ? `.${f.tail.op2}` : "";
      const d = f.tail.kind === "merge" ? `d.${f.tail.dsel}` : "d";
      const a = f.asel ? `a.${f.asel}` : "a";
      const b = f.bsel ? `b.${f.bsel}` : "b";
      const c = f.tail.kind === "none" ? "" : ", c";
      return `${head}${op2} ${d}, ${a}, ${b}${c}`;
    }
  }
}

/** An identifier-safe name for a form: `szext_clamp_s32`, `vshl_u32_s32_sat_clamp_add_ab0_bh1`. */
export function formId(f: Form): string {
  switch (f.op) {
    case "szext":
      return `szext_${f.mode}_${f.type}`;
    case "match": {
      const dest = { d: "", "d|p": "_dp", "_|p": "_p", "d|_": "_d", _: "_none" }[f.dest];
      return `match_${f.mode}_sync_${f.type}${f.mode === "all" ? dest : ""}`;
    }
    default: {
      const parts: string[] = [f.op, f.dtype, f.atype];
      if (f.sat) parts.push("sat");
      parts.push(f.mode);
      if (f.tail.kind === "op2") parts.push(f.tail.op2);
      if (f.tail.kind === "merge") parts.push(`d${f.tail.dsel}`);
      if (f.asel) parts.push(`a${f.asel}`);
      if (f.bsel) parts.push(`b${f.bsel}`);
      return parts.join("_");
    }
  }
}

/** Every legal szext form (4). */
export function* szextForms(): Generator<SzextForm> {
  for (const mode of ["clamp", "wrap"] as const) for (const type of ["s32", "u32"] as const) yield { op: "szext", mode, type };
}

const TAILS: readonly VshTail[] = [
  { kind: "none" },
  { kind: "op2", op2: "add" },
  { kind: "op2", op2: "min" },
  { kind: "op2", op2: "max" },
  ...SELS.map((dsel): VshTail => ({ kind: "merge", dsel })),
];
const OPT_SELS: readonly (Sel | null)[] = [null, ...SELS];

/** Every legal vshl/vshr form: 2 × 2 × 2 × 2 × 2 × 10 × 7 × 7 = 15,680. */
export function* vshForms(): Generator<VshForm> {
  for (const op of ["vshl", "vshr"] as const)
    for (const dtype of ["u32", "s32"] as const)
      for (const atype of ["u32", "s32"] as const)
        for (const sat of [false, true])
          for (const mode of ["clamp", "wrap"] as const)
            for (const tail of TAILS)
              for (const asel of OPT_SELS) for (const bsel of OPT_SELS) yield { op, dtype, atype, sat, mode, asel, bsel, tail };
}

/** Every legal match form: `.any` × 2 types, `.all` × 2 types × 5 destination shapes = 12. */
export function* matchForms(): Generator<MatchForm> {
  for (const type of ["b32", "b64"] as const) {
    yield { op: "match", mode: "any", type, dest: "d" };
    for (const dest of ["d|p", "d", "_|p", "d|_", "_"] as const) yield { op: "match", mode: "all", type, dest };
  }
}

/** Every legal form of a family. */
export function* formsOf(family: Family): Generator<Form> {
  if (family === "szext") yield* szextForms();
  else if (family === "video") yield* vshForms();
  else yield* matchForms();
}

export const FAMILIES: readonly Family[] = ["szext", "match", "video"];

/**
 * The results a form writes: `d` (every form but `.all` with `d` sunk) and `p` (`match.all`
 * with `d|p` or `_|p`). Stated once for the lowerings, the checker and the contract.
 */
export function formWrites(f: Form): { d: boolean; p: boolean } {
  if (f.op !== "match") return { d: true, p: false };
  if (f.mode === "any") return { d: true, p: false };
  return { d: f.dest === "d" || f.dest === "d|p" || f.dest === "d|_", p: f.dest === "d|p" || f.dest === "_|p" };
}
