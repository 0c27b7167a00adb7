/**
 * @fileoverview What the scalar video families (the shifts, src/families/video.ts, and
 * vadd…vmax, src/families/vop.ts) share in their definitions: the tails and selectors a form
 * may carry, the part of ptxas's phase-3 check that judges selectors and the tail, and the
 * operand part of a form's name and identifier (PTX ISA 9.0 §9.7.18.1; ptxas 13.0 as measured
 * in ptx-semantics.md §5(c) and video-semantics.md §2).
 */
import type { Sel, VshTail } from "../ir/form_types.js";
import type { FamilySyntax } from "../family/types.js";
import { SELS } from "../ir/form_types.js";
import { messages } from "../diag.js";
import type { FamilyChecker, Resolved } from "../ir/build.js";
import { VIDEO_SELS } from "../ir/family_inst.js";

const int32 = (x: string) => x === "u32" || x === "s32";

/**
 * The template every scalar video instruction shares: `types` `.u32/.s32` suffixes, d, a, b
 * and an optional c (R25: the 4-operand form without op2 or dsel is accepted, c ignored),
 * 32-bit registers (`.f16x2` ones too, ptxas 13.0), `.add/.min/.max` as its post-ops. Per
 * instruction: whether `.clamp/.wrap` are "Illegal modifier 'Clamp'" (all but the shifts) and
 * whether the comparisons are its own (vset).
 */
export function scalarVideoSyntax(types: number, o: { clampIllegal: boolean; comparisons?: boolean }): FamilySyntax {
  return {
    types: (t) => t.length === types && t.every(int32),
    arity: (n, postOps) => n === 4 || (n === 3 && postOps === 0),
    roles: ["d", "a", "b", "c"],
    sourceClasses: () => ["i32", "h2"],
    destClasses: () => ["i32", "h2"],
    floatSource: () => false,
    sync: false,
    postOps: true,
    votes: false,
    clampIllegal: o.clampIllegal,
    ...(o.comparisons ? { comparisons: true } : {}),
  };
}

/** Every tail: none, `.add/.min/.max` with c, or a merge into `d.dsel`. */
export const VIDEO_TAILS: readonly VshTail[] = [
  { kind: "none" },
  { kind: "op2", op2: "add" },
  { kind: "op2", op2: "min" },
  { kind: "op2", op2: "max" },
  ...SELS.map((dsel): VshTail => ({ kind: "merge", dsel })),
];

/** A source's selector: none or one of the six. */
export const OPT_SELS: readonly (Sel | null)[] = [null, ...SELS];

/**
 * The selector and tail checks, in ptxas's order: "Incorrect video selector" on any operand,
 * a selector on c, dsel with a secondary op or without c, non-registers, and an immediate
 * destination (ptxas expands the video op before it notices one, hence 'mov').
 * @returns the destination's selector as written (null: none)
 */
export function videoSelectorChecks(c: FamilyChecker, r: Resolved): string | null {
  const all = [{ op: r.d, index: 0 }, ...r.sources.map((s) => ({ op: s.op, index: s.index }))];
  for (const { op: o, index } of all) {
    const sel = c.selOf(o);
    if (sel !== null && !VIDEO_SELS.has(sel)) c.err(o.loc, messages.incorrectSelector(index));
  }
  const cOp = r.sources.find((s) => s.role === "c")?.op ?? null;
  if (cOp && c.selOf(cOp) !== null) c.err(cOp.loc, messages.selectorOnC());
  const dsel = c.selOf(r.d);
  if (dsel !== null && c.postOps.length > 0) c.err(r.d.loc, messages.dselAndOp2());
  else if (dsel !== null && !cOp) c.err(r.d.loc, messages.selectorOnDest(c.op));
  c.notRegister(r);
  if (r.d.kind === "int" && c.diags.length === 0) c.err(r.d.loc, messages.resultRegister("mov"));
  return dsel;
}

/** The tail a checked instruction wrote: its secondary op, else its dsel merge, else none. */
export function videoTailOf(c: FamilyChecker, dsel: string | null): VshTail {
  if (c.postOps.length > 0) return { kind: "op2", op2: c.postOps[0]!.m as "add" | "min" | "max" };
  return dsel !== null ? { kind: "merge", dsel: dsel as Sel } : { kind: "none" };
}

/** The operands of a form's name: `d.b1, a.h0, b, c`. */
export function videoOperandsName(f: { asel: Sel | null; bsel: Sel | null; tail: VshTail }): string {
  const d = f.tail.kind === "merge" ? `d.${f.tail.dsel}` : "d";
  const a = f.asel ? `a.${f.asel}` : "a";
  const b = f.bsel ? `b.${f.bsel}` : "b";
  return `${d}, ${a}, ${b}${f.tail.kind === "none" ? "" : ", c"}`;
}

/** The tail and selector parts of a form's identifier: `add`, `db1`, `ah0`, `bb2`. */
export function videoIdParts(f: { asel: Sel | null; bsel: Sel | null; tail: VshTail }): string[] {
  const parts: string[] = [];
  if (f.tail.kind === "op2") parts.push(f.tail.op2);
  if (f.tail.kind === "merge") parts.push(`d${f.tail.dsel}`);
  if (f.asel) parts.push(`a${f.asel}`);
  if (f.bsel) parts.push(`b${f.bsel}`);
  return parts;
}
