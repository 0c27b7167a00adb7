/**
 * @fileoverview The functions the `hip` and `llvm` targets print (issue 14 items 1–2): one per
 * (form, immediates) of a module, shared by both printers and by the compiled-code check.
 *
 * In HIP and LLVM IR the operand kinds `v` and `s` collapse (uniformity is the compiler's
 * business once the function is inlined) and so does the guard (`@p` is the caller's `if`):
 * a function's name is the routine contract's name with every register kind spelled `v`
 * and no `__g` (`szext_clamp_s32__v_imm8`). Immediates stay folded by name. Each form also
 * gets a readable alias `ptxl_<formId>` that takes every source as an argument
 * (`ptxl_szext_clamp_s32(a, b)`).
 *
 * Per-thread values (design.md, README "The routine contract" for the fragment shapes):
 * scalar forms `(a, b[, c]) → d` over u32; warp forms are called by every thread of the warp
 * with its own `a` (u32, or u64 for `.b64`) and its 32-bit `membermask`, and return `d` (u32)
 * and/or `p` (bool) as the PTX destination has them (`formWrites`). The warp-level family
 * (issue 15 item 4) the same way: sources in PTX operand order (a, b, c, membermask, each u32
 * and per thread, so b, c and membermask may differ between threads), vote's predicate `a` a
 * `bool` (`i1`), and `d` (u32; a `bool`/`i1` for vote's `.pred` reductions) and/or shfl's `p`
 * (bool); bar.warp.sync returns nothing. On wave64 a wavefront
 * holds two CUDA warps: lane = mbcnt & 31, the membermask names lanes of the thread's own
 * half (targets/hip/print.ts and targets/llvm/print.ts implement that).
 */
import type { Form, Profile } from "../../src/ir/forms.js";
import { formId, formWrites } from "../../src/ir/forms.js";
import { warpPredicateSource } from "../../src/ir/warp_forms.js";
import type { OperandKind, RoutineSpec, SourceName } from "../../src/ir/ir.js";
import { routineName, sourcesOf } from "../../src/ir/ir.js";

/** What the printers need of one routine of a module (`ModuleRoutine` in src/lower.ts has it). */
export interface RoutineLike {
  name: string;
  spec: RoutineSpec;
}

/** One printed function. */
export interface CallableFn {
  /** The collapsed contract name, or the `ptxl_<formId>` alias. */
  name: string;
  alias: boolean;
  /** Kinds collapsed (`s` → `v`), unguarded. */
  spec: RoutineSpec;
  /** Parameters in PTX operand order: the sources that are not immediates, with their widths (1: a predicate, vote's `a`). */
  params: { name: SourceName; width: 1 | 32 | 64 }[];
  /** Whether the function returns d and/or p (`formWrites`). */
  writes: { d: boolean; p: boolean };
  /** The module's routine names this function serves (none for an alias). */
  serves: string[];
}

/** The routine spec with `v`/`s` collapsed to `v` and the guard dropped. */
export function collapseSpec(spec: RoutineSpec): RoutineSpec {
  const kinds: Partial<Record<SourceName, OperandKind>> = {};
  for (const s of sourcesOf(spec.form)) {
    const k = spec.kinds[s];
    kinds[s] = k?.kind === "imm" ? k : { kind: "v" };
  }
  return { form: spec.form, kinds, guarded: false };
}

function paramsOf(spec: RoutineSpec): CallableFn["params"] {
  const f = spec.form;
  return sourcesOf(f)
    .filter((s) => spec.kinds[s]?.kind !== "imm")
    .map((s) => ({ name: s, width: f.op === "match" && f.type === "b64" && s === "a" ? 64 : s === "a" && f.op === "vote" && warpPredicateSource(f) ? 1 : 32 }));
}

/**
 * The functions of a module, in first-occurrence order: each collapsed routine once, then
 * for each form (first-occurrence order) its alias `ptxl_<formId>` with every source a
 * parameter. Shapes: see `CallableFn`. Errors: none.
 */
export function callableFunctions(routines: readonly RoutineLike[]): CallableFn[] {
  const byName = new Map<string, CallableFn>();
  const forms = new Map<string, Form>();
  for (const r of routines) {
    const spec = collapseSpec(r.spec);
    const name = routineName(spec, formId);
    const fn = byName.get(name);
    if (fn) fn.serves.push(r.name);
    else byName.set(name, { name, alias: false, spec, params: paramsOf(spec), writes: formWrites(spec.form), serves: [r.name] });
    const id = formId(r.spec.form);
    if (!forms.has(id)) forms.set(id, r.spec.form);
  }
  const aliases = [...forms].map(([id, form]): CallableFn => {
    const spec: RoutineSpec = { form, kinds: Object.fromEntries(sourcesOf(form).map((s) => [s, { kind: "v" }])), guarded: false };
    return { name: `ptxl_${id}`, alias: true, spec, params: paramsOf(spec), writes: formWrites(form), serves: [] };
  });
  return [...byName.values(), ...aliases];
}

/**
 * Whether a function's meaning depends on the semantics profile: vshl/vshr (src/sem/vsh.ts
 * takes the profile; szext and match.sync do not). Such a function has the same name in
 * every profile, so the printers keep two profiles from meeting under one name: the header
 * by an `#error` (targets/hip/print.ts), the module by a module flag (targets/llvm/print.ts).
 */
export function profileSensitive(fn: CallableFn): boolean {
  const op = fn.spec.form.op;
  return op === "vshl" || op === "vshr";
}

/** An immediate source's value (undefined for a parameter). */
export function immOf(spec: RoutineSpec, s: SourceName): bigint | undefined {
  const k = spec.kinds[s];
  return k?.kind === "imm" ? k.value : undefined;
}

/** Options both printers take. */
export interface CallablePrintOptions {
  /** Comment text at the top (the `lower` banner), lines separated by `\n`. */
  banner?: string;
  /** Semantics profile of the video forms (default isa). */
  profile?: Profile;
}
