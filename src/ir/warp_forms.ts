/**
 * @fileoverview The typed forms of the warp-level family (issue 15, phase 1): `shfl.sync`,
 * `vote.sync`, `redux.sync`, `activemask`, `bar.warp.sync`, and the deprecated `shfl` / `vote`
 * (without `.sync`). A leaf module, like src/ir/form_types.ts: nothing here imports the
 * registry. `WarpForm` is a member of the `Form` union (src/ir/form_types.ts); the family
 * definition (src/families/warp.ts) is assembled from `warpForms`, `warpFormName`,
 * `warpFormId`, `warpSources`, `warpWrites` and the operand kinds below.
 *
 * Modifier and operand names are the PTX ISA's: `.mode` (shfl's `.up/.down/.bfly/.idx`,
 * vote's `.all/.any/.uni/.ballot`), `.op` of redux — named `reduxOp` here, since `op` is the
 * union's opcode discriminant — `.type`, `.abs`, `.NaN`; operands `d`, `p`, `a`, `b`, `c`,
 * `membermask`. Illegal combinations cannot be represented (`.abs`/`.NaN` only with `.f32`,
 * `.f32` only with `.min/.max`, `.ballot` only with `.b32`).
 *
 * Sources: PTX ISA 9.1 §9.7.9.5 "shfl (deprecated)", §9.7.9.6 "shfl.sync", §9.7.13.2
 * "bar.warp.sync", §9.7.13.8 "vote (deprecated)", §9.7.13.9 "vote.sync", §9.7.13.11
 * "activemask", §9.7.13.12 "redux.sync" (../shared/isa/); the accepted forms of ptxas 13.0,
 * ../shared/notes/warp-ptxas-matrix.md.
 */

/** shfl's `.mode`. */
export type ShflMode = "up" | "down" | "bfly" | "idx";
export const SHFL_MODES: readonly ShflMode[] = ["up", "down", "bfly", "idx"];

/**
 * shfl's destination shape: `d`, `d|p`, or `d|_` (ptxas accepts the sink for `p`, rejects it
 * for `d`: "Result discard mode is not allowed for instruction 'shfl'").
 */
export type ShflDest = "d" | "d|p" | "d|_";
export const SHFL_DESTS: readonly ShflDest[] = ["d", "d|p", "d|_"];

/**
 * `shfl.sync.mode.b32 d[|p], a, b, c, membermask;` (`sync`), or the deprecated
 * `shfl.mode.b32 d[|p], a, b, c;` (no membermask; PTX ≤ 6.3 on sm_70+, any version below
 * sm_70). Only `.b32` (a `.f32` register is accepted with it).
 */
export interface ShflForm {
  op: "shfl";
  sync: boolean;
  mode: ShflMode;
  type: "b32";
  dest: ShflDest;
}

/** vote's `.mode`: the three reductions (`.pred` d) and `.ballot` (`.b32` d). */
export type VoteMode = "all" | "any" | "uni" | "ballot";
export const VOTE_MODES: readonly VoteMode[] = ["all", "any", "uni", "ballot"];

/**
 * `vote.sync.mode.pred d, {!}a, membermask;` / `vote.sync.ballot.b32 d, {!}a, membermask;`
 * (`sync`), or the deprecated forms without `.sync` and membermask. `negA`: the source is
 * written `!a` (the predicate is negated per lane before the reduction). `d` may end in `|_`
 * (accepted by ptxas, the same as `d`).
 */
export type VoteForm =
  | { op: "vote"; sync: boolean; mode: "all" | "any" | "uni"; type: "pred"; negA: boolean }
  | { op: "vote"; sync: boolean; mode: "ballot"; type: "b32"; negA: boolean };

/** redux's integer `.op` with `.u32`/`.s32`, the bitwise ones with `.b32`. */
export type ReduxIntOp = "add" | "min" | "max";
export type ReduxBitOp = "and" | "or" | "xor";

/**
 * `redux.sync.op.type d, a, membermask;` (the ISA's `dst, src` written `d, a`, as the
 * vectors do): `.add/.min/.max` with `.u32/.s32`, `.and/.or/.xor` with `.b32`, and (PTX 8.6,
 * sm_100a; sm_100f/sm_103f from PTX 8.8) `.min/.max{.abs}{.NaN}.f32`.
 */
export type ReduxForm =
  | { op: "redux"; reduxOp: ReduxIntOp; type: "u32" | "s32" }
  | { op: "redux"; reduxOp: ReduxBitOp; type: "b32" }
  | { op: "redux"; reduxOp: "min" | "max"; type: "f32"; abs: boolean; NaN: boolean };

/** `activemask.b32 d;` (PTX 6.2, sm_30+). */
export interface ActivemaskForm {
  op: "activemask";
  type: "b32";
}

/**
 * `bar.warp.sync membermask;` (PTX 6.0, sm_30+): no result. The opcode is `bar` with the
 * modifier `.warp` in PTX text, and ptxas's messages name it `bar.warp`; the form's `op`
 * is that name (phase 2 routes `bar` with `.warp` to it; `bar.sync` etc. are other
 * instructions).
 */
export interface BarWarpForm {
  op: "bar.warp";
}

/** Every warp-level form. */
export type WarpForm = ShflForm | VoteForm | ReduxForm | ActivemaskForm | BarWarpForm;

/** Opcodes of the warp-level forms (`bar.warp` stands for `bar` with `.warp`). */
export const WARP_OPS = ["shfl", "vote", "redux", "activemask", "bar.warp"] as const satisfies readonly WarpForm["op"][];

/**
 * Every legal form: shfl 2 × 4 modes × 3 dests = 24; vote 2 × 4 modes × 2 = 16; redux 6
 * integer + 3 bitwise + 2 × 4 f32 = 17; activemask 1; bar.warp 1 — 59 in all.
 */
export function* warpForms(): Generator<WarpForm> {
  for (const sync of [true, false]) for (const mode of SHFL_MODES) for (const dest of SHFL_DESTS) yield { op: "shfl", sync, mode, type: "b32", dest };
  for (const sync of [true, false]) {
    for (const negA of [false, true]) {
      for (const mode of ["all", "any", "uni"] as const) yield { op: "vote", sync, mode, type: "pred", negA };
      yield { op: "vote", sync, mode: "ballot", type: "b32", negA };
    }
  }
  for (const reduxOp of ["add", "min", "max"] as const) for (const type of ["u32", "s32"] as const) yield { op: "redux", reduxOp, type };
  for (const reduxOp of ["and", "or", "xor"] as const) yield { op: "redux", reduxOp, type: "b32" };
  for (const reduxOp of ["min", "max"] as const) for (const abs of [false, true]) for (const NaN of [false, true]) yield { op: "redux", reduxOp, type: "f32", abs, NaN };
  yield { op: "activemask", type: "b32" };
  yield { op: "bar.warp" };
}

/** The canonical PTX spelling of a form, without operands (`shfl.sync.idx.b32 d|p`, `vote.sync.all.pred !a`). */
export function warpFormName(f: WarpForm): string {
  switch (f.op) {
    case "shfl":
      return `shfl${f.sync ? ".sync" : ""}.${f.mode}.b32` + (f.dest === "d" ? "" : ` ${f.dest}`);
    case "vote":
      return `vote${f.sync ? ".sync" : ""}.${f.mode}.${f.type}` + (f.negA ? " !a" : "");
    case "redux":
      return `redux.sync.${f.reduxOp}` + (f.type === "f32" ? `${f.abs ? ".abs" : ""}${f.NaN ? ".NaN" : ""}` : "") + `.${f.type}`;
    case "activemask":
      return "activemask.b32";
    case "bar.warp":
      return "bar.warp.sync";
  }
}

/** An identifier-safe name (routine names): `shfl_sync_idx_b32_dp`, `vote_sync_all_pred_not`, `redux_sync_min_abs_NaN_f32`. */
export function warpFormId(f: WarpForm): string {
  switch (f.op) {
    case "shfl":
      return `shfl${f.sync ? "_sync" : ""}_${f.mode}_b32` + { d: "", "d|p": "_dp", "d|_": "_d" }[f.dest];
    case "vote":
      return `vote${f.sync ? "_sync" : ""}_${f.mode}_${f.type}` + (f.negA ? "_not" : "");
    case "redux":
      return `redux_sync_${f.reduxOp}` + (f.type === "f32" ? `${f.abs ? "_abs" : ""}${f.NaN ? "_NaN" : ""}` : "") + `_${f.type}`;
    case "activemask":
      return "activemask_b32";
    case "bar.warp":
      return "bar_warp_sync";
  }
}

/** The opcode text of a form without operands (inline asm for the hardware generator). */
export function warpAsmOpcode(f: WarpForm): string {
  return warpFormName(f).split(" ")[0]!;
}

/** The source operands a form reads, in PTX operand order. */
export function warpSources(f: WarpForm): ("a" | "b" | "c" | "membermask")[] {
  switch (f.op) {
    case "shfl":
      return f.sync ? ["a", "b", "c", "membermask"] : ["a", "b", "c"];
    case "vote":
      return f.sync ? ["a", "membermask"] : ["a"];
    case "redux":
      return ["a", "membermask"];
    case "activemask":
      return [];
    case "bar.warp":
      return ["membermask"];
  }
}

/** The results a form writes: `d` (32 bits, or a predicate for vote's reductions) and shfl's `p`. */
export function warpWrites(f: WarpForm): { d: boolean; p: boolean } {
  if (f.op === "bar.warp") return { d: false, p: false };
  return { d: true, p: f.op === "shfl" && f.dest === "d|p" };
}

/** `d` is a predicate (vote's `.all/.any/.uni`), not a 32-bit value. */
export function warpPredicateDest(f: WarpForm): boolean {
  return f.op === "vote" && f.type === "pred";
}

/** `a` is a predicate (vote), not a 32-bit value. */
export function warpPredicateSource(f: WarpForm): boolean {
  return f.op === "vote";
}

// ---------------------------------------------------------------------------------------
// Operand kinds for `verify` and the prover (the family definition's `verifyKinds`,
// `mainKind`, `proveSpecs` in phase 2). Issue 15's main kinds: `a` divergent; membermask
// uniform or divergent; `b`/`c` uniform and immediate.

/** An operand kind (the shape of src/ir/ir.ts `OperandKind`, repeated here to keep this module a leaf). */
type Kind = { kind: "v" } | { kind: "s" } | { kind: "imm"; value: bigint };
const V: Kind = { kind: "v" };
const S: Kind = { kind: "s" };
const IMM = (value: bigint): Kind => ({ kind: "imm", value });

/** One operand-kind combination of a form's sources (`KindSample` of src/family/types.ts). */
export interface WarpKindSample {
  kinds: Partial<Record<"a" | "b" | "c" | "membermask", Kind>>;
  guarded: boolean;
}

/**
 * The kinds `verify` runs a form with: the main kinds, immediates of every source that takes
 * one (CUDA's `c` for width 32 and 16, a full membermask and a tile), uniform `a`, and guarded
 * routines; `wide` adds divergent `b`/`c` and immediate `b` ≥ 32.
 */
export function warpVerifyKinds(f: WarpForm, wide: boolean): WarpKindSample[] {
  const src = warpSources(f);
  const out: WarpKindSample[] = [];
  const add = (k: WarpKindSample["kinds"], guarded = false) => out.push({ kinds: Object.fromEntries(src.map((s) => [s, k[s] ?? V])), guarded });
  const masks = f.op === "activemask" ? [] : src.includes("membermask") ? [V, S, IMM(0xffffffffn), IMM(0x0000ffffn)] : [undefined];
  if (f.op === "activemask") {
    add({});
    add({}, true);
    return out;
  }
  if (f.op === "shfl") {
    const cs = f.mode === "up" ? [IMM(0n), IMM(0x1000n), S] : [IMM(0x1fn), IMM(0x101fn), S];
    for (const m of masks) for (const b of [S, IMM(1n), IMM(5n)]) for (const c of cs) add({ a: V, b, c, ...(m ? { membermask: m } : {}) });
    add({ a: S, b: S, c: cs[0]!, ...(masks[0] ? { membermask: S } : {}) });
    add({ a: V, b: S, c: cs[0]!, ...(masks[0] ? { membermask: V } : {}) }, true);
    if (wide) for (const m of masks) add({ a: V, b: V, c: V, ...(m ? { membermask: m } : {}) }), add({ a: V, b: IMM(33n), c: cs[0]!, ...(m ? { membermask: m } : {}) });
    return out;
  }
  for (const m of masks) for (const a of f.op === "bar.warp" ? [undefined] : [V, S, IMM(f.op === "vote" ? 1n : 5n)]) add({ ...(a ? { a } : {}), ...(m ? { membermask: m } : {}) });
  add({ ...(f.op === "bar.warp" ? {} : { a: V }), ...(masks[0] ? { membermask: V } : {}) }, true);
  add({ ...(f.op === "bar.warp" ? {} : { a: V }), ...(masks[0] ? { membermask: S } : {}) }, true);
  return out;
}

/** The main kinds (the full warp count in `verify`): `a` divergent, membermask uniform or divergent, `b`/`c` uniform or immediate, unguarded. */
export function warpMainKind(k: WarpKindSample): boolean {
  const { a, b, c, membermask } = k.kinds;
  if (k.guarded) return false;
  if (a !== undefined && a.kind !== "v") return false;
  if (membermask !== undefined && membermask.kind === "imm") return false;
  return (b === undefined || b.kind !== "v") && (c === undefined || c.kind !== "v");
}

/** The instruction's name as messages give it: `shfl.sync`, `shfl` (deprecated), `vote.sync`, `redux.sync`, `activemask`, `bar.warp.sync`. */
export function warpInstName(f: WarpForm): string {
  switch (f.op) {
    case "shfl":
    case "vote":
      return f.sync ? `${f.op}.sync` : f.op;
    case "redux":
      return "redux.sync";
    case "activemask":
      return "activemask";
    case "bar.warp":
      return "bar.warp.sync";
  }
}
