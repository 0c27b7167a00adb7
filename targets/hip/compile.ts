/**
 * @fileoverview Compiles a `hip` header (targets/hip/print.ts) for one processor and extracts
 * each function's machine code (issue 14 item 3): `clang-19 -x hip --cuda-device-only
 * -nogpulib -nogpuinc -O2 --offload-arch=M -S` (shared/notes/toolchain.md §5) on the header
 * plus one `extern "C"` wrapper per function and argument layout, marked `used, noinline`
 * so that -O2 keeps it and its body is the inlined function:
 *   - `ptxl_chk_v_NAME`: every argument in VGPRs (v0…, a u64 in a pair), as a caller passes
 *     divergent values;
 *   - `ptxl_chk_s_NAME`: every argument made uniform with `__builtin_amdgcn_readfirstlane`
 *     first (a u64 by halves), so the function's code reads SGPRs: the uniform case, where
 *     clang's device calling convention has no `inreg`.
 * A warp wrapper returns `d | (uint64_t)p << 32` (d in v0, p in v1; a `bool` d, vote's
 * `.pred` result, as 0/1 in v0).
 * SDWA peepholes and VOPD dual issue are switched off (`-mllvm`), as for the trust-base
 * crosscheck (src/check/llvm.ts `llcArgs`): the interpreter models neither encoding.
 */
import { cachedTool } from "../../src/tools.js";
import { functionBodies, parseAsm, recorded } from "../amdgpu/asm.js";
import type { Mcpu } from "../amdgpu/regs.js";
import { TARGETS } from "../amdgpu/regs.js";
import type { CallableFn } from "../llvm/callable.js";
import type { CompiledFunction, CompiledSet } from "../llvm/compiled.js";
import { hipReturnType } from "./print.js";
import { isWarpLevel } from "../../src/check/verify.js";

/** clang's flags for the device-only compile of a header for `mcpu`. */
export function clangArgs(mcpu: Mcpu): string[] {
  return ["-x", "hip", "--cuda-device-only", "-nogpulib", "-nogpuinc", "-O2", `--offload-arch=${mcpu}`, "-mllvm", "-amdgpu-sdwa-peephole=0", "-mllvm", "-amdgpu-enable-vopd=0", "-S", "-o", "-", "-"];
}

const cType = (w: number) => (w === 64 ? "uint64_t" : w === 1 ? "bool" : "uint32_t");

function uniform(name: string, width: number): string {
  if (width === 1) return `(__builtin_amdgcn_readfirstlane((int)${name}) != 0)`;
  return width === 64
    ? `((uint64_t)(uint32_t)__builtin_amdgcn_readfirstlane((int)(uint32_t)${name}) | ((uint64_t)(uint32_t)__builtin_amdgcn_readfirstlane((int)(uint32_t)(${name} >> 32)) << 32))`
    : `(uint32_t)__builtin_amdgcn_readfirstlane((int)${name})`;
}

/** The argument layouts a compile extracts: `vgpr` (divergent arguments) and `sgpr` (uniform). */
export type Variant = CompiledFunction["variant"];
export const VARIANTS: readonly Variant[] = ["vgpr", "sgpr"];

/** The wrappers of one function (see the file overview), for the layouts `variants` (default both). */
export function hipWrappers(fn: CallableFn, variants: readonly Variant[] = VARIANTS): { text: string; fns: Omit<CompiledFunction, "lines">[] } {
  const warp = fn.spec.form.op === "match" || isWarpLevel(fn.spec.form);
  const params = fn.params.map((p) => `${cType(p.width)} ${p.name}`).join(", ") || "void";
  const out: string[] = [];
  const fns: Omit<CompiledFunction, "lines">[] = [];
  for (const variant of variants) {
    const sym = `ptxl_chk_${variant === "vgpr" ? "v" : "s"}_${fn.name}`;
    const args = fn.params.map((p) => (variant === "vgpr" ? p.name : uniform(p.name, p.width)));
    const both = fn.writes.d && fn.writes.p;
    if (both) args.push("&p");
    const call = `${fn.name}(${args.join(", ")})`;
    const ret = hipReturnType(fn);
    let body: string;
    if (!warp) body = `return ${call};`;
    else if (both) body = `bool p = false;\n  const uint32_t d = ${call};\n  return (uint64_t)d | ((uint64_t)p << 32);`;
    else if (ret === "uint32_t" || (ret === "bool" && fn.writes.d)) body = `return (uint64_t)${call};`;
    else if (ret === "bool") body = `return (uint64_t)${call} << 32;`;
    else body = `${call};\n  return 0;`;
    out.push(`extern "C" __attribute__((device, used, noinline)) ${warp ? "uint64_t" : "uint32_t"} ${sym}(${params}) {\n  ${body}\n}`);
    // A bool argument (vote's predicate a) arrives as a whole 32-bit register (0 or 1).
    fns.push({ fn, variant, symbol: sym, args: fn.params.map((p) => ({ name: p.name, width: Math.max(32, p.width) })), dReg: fn.writes.d ? 0 : undefined, pReg: warp && fn.writes.p ? 1 : undefined });
  }
  return { text: out.join("\n"), fns };
}

/**
 * Compiles `header` (the `hip` target's text) with the wrappers of `fns` for `mcpu` and
 * extracts each wrapper's code (waits kept). `variants`: the argument layouts wanted (default
 * both; `check` runs `vgpr` alone). The same text compiled again in a process is not
 * compiled again (`cachedTool`).
 * @throws Error when clang fails (its first error lines); a function whose code does not
 *   parse gets `lines: { error }` instead.
 */
export async function compileHip(header: string, fns: readonly CallableFn[], mcpu: Mcpu, opts: { clang?: string; variants?: readonly Variant[] } = {}): Promise<CompiledSet> {
  const wrappers = fns.map((f) => hipWrappers(f, opts.variants));
  const text = `${header}\n${wrappers.map((w) => w.text).join("\n")}\n`;
  const asm = await cachedTool(opts.clang ?? "clang-19", clangArgs(mcpu), text);
  return { asm, functions: extract(asm, wrappers.flatMap((w) => w.fns), `clang:${mcpu}`, TARGETS[mcpu].gen) };
}

/** The label `withOneReturn` branches to. */
export const RETURN_LABEL = ".Lptxl_return";

/**
 * A function body with one exit: every `s_setpc_b64` (a return, which the parser drops) but
 * the last instruction's becomes `s_branch .Lptxl_return`, a label put at the end. clang and
 * llc duplicate the return into the blocks after a loop (the warp-level redux functions: one
 * return after the loop, one for a wave with no lane to fold); dropped, the first would fall
 * through into the next block. A body with one return at its end is unchanged.
 */
export function withOneReturn(body: string): string {
  const lines = body.split("\n");
  const code = (l: string) => l.replace(/(;|\/\/).*$/, "").trim();
  const isReturn = (l: string) => /^s_setpc_b64\b/.test(code(l));
  const last = lines.map((l, i) => [l, i] as const).filter(([l]) => code(l) !== "" && !code(l).startsWith(".") && !code(l).endsWith(":")).pop()?.[1] ?? -1;
  if (!lines.some((l, i) => isReturn(l) && i !== last)) return body;
  return [...lines.map((l, i) => (isReturn(l) && i !== last ? `\ts_branch ${RETURN_LABEL}` : l)), `${RETURN_LABEL}:`].join("\n");
}

/**
 * Each function's body in `asm`, parsed (targets/amdgpu/asm.ts, waits kept) and narrowed to
 * the record table; a mnemonic without a record makes `lines` an error naming it.
 */
export function extract(asm: string, fns: readonly Omit<CompiledFunction, "lines">[], rule: string, gen?: 9 | 10 | 11): CompiledFunction[] {
  const bodyOf = functionBodies(asm);
  return fns.map((f) => {
    try {
      const body = bodyOf(f.symbol);
      if (body === undefined) throw new Error(`function ${f.symbol} not found in assembly`);
      const code = recorded(parseAsm(withOneReturn(body), gen === undefined ? { rule } : { rule, gen }));
      return { ...f, lines: "lines" in code ? code.lines : { error: `no instruction record for ${code.missing.join(", ")}` } };
    } catch (e) {
      return { ...f, lines: { error: (e as Error).message } };
    }
  });
}
