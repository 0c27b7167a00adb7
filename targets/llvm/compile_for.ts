/**
 * The compiles of the callable rows (`hip`, `llvm`): a routine list printed once as a HIP
 * header or an LLVM IR module and compiled for each processor, and the names the rows give
 * the functions. Kept apart from the checker (./verify.ts) so that the provers of the compiled
 * functions (./prove_compiled_rows.ts, ./prove_compiled_matrix.ts), which compile with it, do
 * not carry the checker in their import closure: the proof cache's source fingerprint
 * (src/check/proof_cache.ts) covers that closure, and a checker edit would make every stored
 * verdict of those rows stale.
 */
import type { Profile } from "../../src/ir/forms.js";
import { formId } from "../../src/ir/forms.js";
import type { RoutineSpec } from "../../src/ir/ir.js";
import { routineName, sourcesOf } from "../../src/ir/ir.js";
import type { Mcpu } from "../amdgpu/regs.js";
import { TARGETS } from "../amdgpu/regs.js";
import { inregRegisters } from "../amdgpu/oracle/llvm.js";
import type { CallableFn, RoutineLike } from "./callable.js";
import { callableFunctions, collapseSpec } from "./callable.js";
import type { CompiledSet } from "./compiled.js";
import { COMPILERS } from "./compiled.js";
import { printHipModule } from "../hip/print.js";
import type { Variant } from "../hip/compile.js";
import { compileHip } from "../hip/compile.js";
import { printLlvmModule } from "./print.js";
import { compileLlvm } from "./compile.js";

export type CompiledKind = "hip" | "llvm";

/** The compiler that produced a row's code, for the `rule` column: `clang-19 -O2: NAME`. */
export const compiledRule = (kind: CompiledKind, fn: string) => `${COMPILERS[kind]} -O2: ${fn}`;

/** The name of a routine's callable function (the contract name with kinds collapsed). */
export const callableName = (spec: RoutineSpec) => routineName(collapseSpec(spec), formId);

/** The spec of a form's alias (every source a `v` parameter, unguarded). */
export function aliasSpec(spec: RoutineSpec): RoutineSpec {
  return { form: spec.form, kinds: Object.fromEntries(sourcesOf(spec.form).map((s) => [s, { kind: "v" as const }])), guarded: false };
}

/** Compiles the functions of `routines` for one processor: the header (`hip`) or the module (`llvm`). */
export async function compileFor(kind: CompiledKind, routines: readonly RoutineLike[], mcpu: Mcpu, profile: Profile, variants?: readonly Variant[]): Promise<{ set: CompiledSet; fns: CallableFn[]; sregs: number[] }> {
  return (await compileForEach(kind, routines, [mcpu], profile, variants))[0]!;
}

/**
 * `compileFor` on several processors: the header or module printed once, and one compiler
 * process per processor, run side by side (at most as many at a time as there are cores:
 * src/tools.ts). clang-19 takes several `--offload-arch` in one invocation, but it compiles
 * them one after the other (clang-19 has no parallel-jobs option), so separate processes
 * finish sooner on a machine with more than one core and cost the same on one. Results in
 * `mcpus` order; `variants`: the argument layouts wanted (default both).
 * @throws Error when clang or llc fails on the text (a printer bug)
 */
export async function compileForEach(
  kind: CompiledKind,
  routines: readonly RoutineLike[],
  mcpus: readonly Mcpu[],
  profile: Profile,
  variants?: readonly Variant[],
): Promise<{ set: CompiledSet; fns: CallableFn[]; sregs: number[] }[]> {
  return Promise.all(compileEach(kind, routines, mcpus, profile, variants));
}

/** `compileForEach`'s compiles, one promise per processor (each fails on its own). */
export function compileEach(kind: CompiledKind, routines: readonly RoutineLike[], mcpus: readonly Mcpu[], profile: Profile, variants?: readonly Variant[]): Promise<{ set: CompiledSet; fns: CallableFn[]; sregs: number[] }>[] {
  const fns = callableFunctions(routines);
  const text = kind === "hip" ? printHipModule(routines, { profile }) : printLlvmModule(routines, { profile });
  return mcpus.map(async (mcpu) => {
    const set = kind === "hip" ? await compileHip(text, fns, mcpu, variants ? { variants } : {}) : await compileLlvm(text, fns, mcpu, variants);
    const sregs = kind === "llvm" ? await inregRegisters({ mcpu, wave: TARGETS[mcpu].wave }) : [];
    return { set, fns, sregs };
  });
}
