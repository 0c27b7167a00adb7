/**
 * @fileoverview Compiles an `llvm` module (targets/llvm/print.ts) for one processor and
 * extracts each function's machine code (issue 14 item 3), with the trust-base crosscheck's
 * llc (src/check/llvm.ts `llc`, `llcArgs`: `-O2`, SDWA and VOPD off, which only re-encode):
 *   - `vgpr`: the module's own function, arguments in VGPRs (v0…, an i64 in a pair);
 *   - `sgpr`: a wrapper `ptxl_chk_s_NAME` with every argument `inreg` (SGPRs where llc's
 *     calling convention puts them, `inregRegisters`) calling the function with a call-site
 *     `alwaysinline` (llc's AMDGPU pipeline inlines it), the uniform case.
 * Results: d in v0 and p (0/1) in v1 for `{ i32, i1 }`; a lone `i32`/`i1` in v0.
 * The module's functions are `linkonce_odr` (targets/llvm/print.ts): a definition nothing
 * uses may be discarded (llvm-link takes none of them, and GlobalDCE deletes them; llc 19
 * happens to emit them, even once the `sgpr` wrapper has inlined the last call). So that the
 * extraction does not rest on that, the compiled text lists every function in `@llvm.used`
 * (`usedGlobal`).
 */
import { llc } from "../amdgpu/oracle/llvm.js";
import type { Mcpu } from "../amdgpu/regs.js";
import { TARGETS } from "../amdgpu/regs.js";
import type { CallableFn } from "./callable.js";
import type { CompiledFunction, CompiledSet } from "./compiled.js";
import type { Variant } from "../hip/compile.js";
import { extract, VARIANTS } from "../hip/compile.js";
import { llvmReturnType } from "./print.js";
import { isWarpLevel } from "../../src/check/verify.js";

/** The functions to extract for one callable function in the layouts `variants` (default both), and the `sgpr` wrapper's text (empty without `sgpr`). */
export function llvmWrappers(fn: CallableFn, variants: readonly Variant[] = VARIANTS): { text: string; fns: Omit<CompiledFunction, "lines">[] } {
  const ret = llvmReturnType(fn);
  const both = fn.writes.d && fn.writes.p;
  const warp = fn.spec.form.op === "match" || isWarpLevel(fn.spec.form);
  const regs = !warp ? { dReg: 0 } : both ? { dReg: 0, pReg: 1 } : fn.writes.d ? { dReg: 0 } : fn.writes.p ? { pReg: 0 } : {};
  const sym = `ptxl_chk_s_${fn.name}`;
  const params = fn.params.map((p) => `i${p.width} inreg %${p.name}`).join(", ");
  const args = fn.params.map((p) => `i${p.width} %${p.name}`).join(", ");
  const text =
    ret === "void"
      ? `define void @${sym}(${params}) {\n  call void @${fn.name}(${args}) #9\n  ret void\n}\n`
      : `define ${ret} @${sym}(${params}) {\n  %r = call ${ret} @${fn.name}(${args}) #9\n  ret ${ret} %r\n}\n`;
  // An i1 argument (vote's predicate a) arrives as a whole 32-bit register (0 or 1).
  const argsOf = (inreg: boolean) => fn.params.map((p) => ({ name: p.name, width: Math.max(32, p.width), ...(inreg ? { inreg: true } : {}) }));
  return {
    text: variants.includes("sgpr") ? text : "",
    fns: [
      ...(variants.includes("vgpr") ? [{ fn, variant: "vgpr" as const, symbol: fn.name, args: argsOf(false), ...regs }] : []),
      ...(variants.includes("sgpr") ? [{ fn, variant: "sgpr" as const, symbol: sym, args: argsOf(true), ...regs }] : []),
    ],
  };
}

/**
 * `@llvm.used` over the functions `names` (LangRef, "The llvm.used Global Variable"): neither
 * the optimiser nor llc removes a function listed there, whatever its linkage.
 */
export function usedGlobal(names: readonly string[]): string {
  return `@llvm.used = appending global [${names.length} x ptr] [${names.map((n) => `ptr @${n}`).join(", ")}], section "llvm.metadata"\n`;
}

/**
 * Compiles `module` (the `llvm` target's text) with the `sgpr` wrappers of `fns` for `mcpu`
 * (at its default wave size) and extracts every function's code (waits kept). `variants`:
 * the argument layouts wanted (default both; `check` runs `vgpr` alone, without wrappers).
 * The same text compiled again in a process is not compiled again (`llc`: `cachedTool`).
 * @throws Error when llc fails (its first error lines); a function whose code does not parse
 *   gets `lines: { error }` instead.
 */
export async function compileLlvm(module: string, fns: readonly CallableFn[], mcpu: Mcpu, variants: readonly Variant[] = VARIANTS): Promise<CompiledSet> {
  const wrappers = fns.map((f) => llvmWrappers(f, variants));
  const text = `${module}\n${wrappers.map((w) => w.text).join("\n")}\n${usedGlobal(fns.map((f) => f.name))}attributes #9 = { alwaysinline }\n`;
  const asm = await llc(text, { mcpu, wave: TARGETS[mcpu].wave });
  return { asm, functions: extract(asm, wrappers.flatMap((w) => w.fns), `llc:${mcpu}`, TARGETS[mcpu].gen) };
}
