/**
 * @fileoverview Do the rewrites of `ptx-lower port` keep the asm's operand bindings? Checked on
 * an NVIDIA GPU, independently of any AMD lowering: each header function is implemented here
 * by its own PTX instruction (an inline asm of the routines module's instruction
 * for it, src/port/bind.ts `routinesModuleText`), the ported file's HIP branch is compiled with nvcc
 * (`-D__HIP__`), and its results are compared with the original file's, on the same inputs
 * (seeded), function by function. A wrong operand order, a lost `+r`, a temporary or a guard
 * bound wrongly, or a macro expanded wrongly shows up as a difference.
 *
 *   npx tsx scripts/port-nvidia-check.ts build DIR    # here: port, write, nvcc -arch=sm_90
 *   DIR/run.sh                                        # on a machine with a GPU: runs both, compares
 *
 * `build` needs nvcc; `run.sh` needs only the NVIDIA driver (the binaries link cudart
 * statically) and prints `PORT-NVIDIA-CHECK NAME: N values, M differ` per file, exit 1 on any
 * difference — and on a control that must differ (the ported patterns.cu with two arguments
 * of one call swapped), so the comparison itself is shown able to fail.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import type { ParsedModule } from "../src/ir/build.js";
import { collectRoutines } from "../src/lower.js";
import { sourcesOf } from "../src/ir/ir.js";
import { formWrites } from "../src/ir/forms.js";
import { portSource } from "../src/port/rewrite.js";

/** Each routine of the routines module as a `__device__` function running its own PTX instruction. */
async function asmHeader(mod: ParsedModule): Promise<string> {
  await Promise.resolve();
  const out = ["// port-nvidia-check: each function is its routine's own PTX instruction", "#pragma once"];
  for (const r of collectRoutines(mod)) {
    const f = r.spec.form;
    const w = formWrites(f);
    const srcs = sourcesOf(f).filter((s) => r.spec.kinds[s]?.kind !== "imm");
    const wide = f.op === "match" && f.type === "b64";
    const params = srcs.map((s) => `${s === "a" && wide ? "unsigned long long" : "unsigned int"} ${s}`);
    if (w.p) params.push("bool *p");
    // The routine's instruction with d → %0, p → P (then %1 through selp), the sources after.
    const fi = r.insts[0]!;
    const slot = new Map<string, string>();
    let n = 0;
    slot.set(fi.d.kind === "reg" ? fi.d.name : "%none", `%${n++}`);
    if (w.p && fi.p?.kind === "reg") slot.set(fi.p.name, "P"), n++;
    for (const s of srcs) {
      const o = fi[s];
      if (o?.kind === "reg") slot.set(o.name, `%${n++}`);
    }
    const inst = fi.text.replace(/%r\d+_\d+/g, (m) => slot.get(m) ?? m);
    const body = w.p ? `{ .reg .pred P; ${inst} selp.u32 %1, 1, 0, P; }` : inst;
    const outs = [`"=r"(d)`, ...(w.p ? [`"=r"(pp)`] : [])];
    const ins = srcs.map((s) => `"${s === "a" && wide ? "l" : "r"}"(${s})`);
    out.push(
      `__device__ __forceinline__ ${w.d ? "unsigned int" : "void"} ${r.name}(${params.join(", ")}) {`,
      `  unsigned int d = 0${w.p ? ", pp = 0" : ""};`,
      `  asm volatile(${JSON.stringify(body)} : ${outs.join(", ")}${ins.length ? ` : ${ins.join(", ")}` : ""});`,
      ...(w.p ? ["  *p = pp != 0;"] : []),
      w.d ? "  return d;" : "  (void)d;",
      "}",
    );
  }
  return out.join("\n") + "\n";
}

/** Harness bodies: per file, a kernel calling each function, and which file it includes. */
const HARNESS: Record<string, { src: string; perThread: number; kernel: string }> = {
  patterns: {
    src: "test/port/patterns.cu",
    perThread: 8,
    kernel: `
__global__ void each(const uint32_t *in, uint32_t *out) {
  unsigned t = threadIdx.x; uint32_t a = in[t], b = in[t + 32], c = in[t + 64];
  uint32_t *o = out + t * 8;
  o[0] = shr_add(a, b, c);
  o[1] = hit_bits(a, b, (float)(c & 3), 1.5f);
  o[2] = low_bits((int32_t)a, b);
  o[3] = (uint32_t)twice(a, b);
  o[4] = two_steps(a, b);
  o[5] = peers_of(c & 7, ((unsigned long long)(c & 1) << 40) | (b & 3), 0xffffffffu);
  o[6] = mixed(a, b);
  o[7] = (uint32_t)macros(a, b);
}`,
  },
  bitfields: {
    src: "examples/bitfields.cu",
    perThread: 8,
    kernel: `
__global__ void each(const uint32_t *in, uint32_t *out) {
  unsigned t = threadIdx.x; uint32_t a = in[t], b = in[t + 32], c = in[t + 64];
  uint32_t *o = out + t * 8;
  o[0] = (uint32_t)sext_clamp(a, b); o[1] = (uint32_t)sext_wrap(a, b);
  o[2] = zext_clamp(a, b); o[3] = zext_wrap(a, b);
  int32_t s[1]; uint32_t rec[1] = {a};
  decode_fixed(rec - t, s - t, c & 255, 32); o[4] = (uint32_t)s[0];
  o[5] = o[6] = o[7] = 0;
}`,
  },
  warp_match: {
    src: "examples/warp_match.cu",
    perThread: 1,
    kernel: `
__global__ void each(const uint32_t *in, uint32_t *out) {
  video_shifts(in, in + 32, out, 32);
}`,
  },
};

function main(): void {
  const [cmd, dir] = process.argv.slice(2);
  if (cmd !== "build" || !dir) {
    process.stderr.write("usage: npx tsx scripts/port-nvidia-check.ts build DIR\n");
    process.exit(1);
  }
  mkdirSync(dir, { recursive: true });
  const run: string[] = ["#!/bin/sh", "# Runs each pair and compares (written by scripts/port-nvidia-check.ts).", 'cd "$(dirname "$0")"', "bad=0"];
  void (async () => {
    for (const [name, h] of Object.entries(HARNESS)) {
      const text = readFileSync(h.src, "utf8");
      const r = await portSource(text, h.src, { header: asmHeader, headerName: `${name}.hip.h` });
      copyFileSync(h.src, join(dir, `${name}.orig.cu`));
      writeFileSync(join(dir, `${name}.ported.cu`), r.text);
      writeFileSync(join(dir, `${name}.hip.h`), r.header!);
      // A kernel that the examples lack for the harness is written around each; decode_fixed is
      // a __global__ in bitfields.cu, so it is called through a device-side copy: compile it as
      // a plain function by including the file with __global__ mapped for that one include.
      const harness = `#include <cstdio>
#include <cstdint>
#include <cstdlib>
${name !== "patterns" ? '#pragma push_macro("__global__")\n#undef __global__\n#define __global__ __device__\n#include SRC\n#pragma pop_macro("__global__")' : "#include SRC"}
${h.kernel}
int main(int argc, char **argv) {
  int trials = argc > 1 ? atoi(argv[1]) : 2000;
  uint32_t *din, *dout, hin[96], hout[32 * ${h.perThread}];
  cudaMalloc(&din, sizeof hin); cudaMalloc(&dout, sizeof hout);
  uint64_t s = 0x9e3779b97f4a7c15ull;
  for (int k = 0; k < trials; k++) {
    for (int i = 0; i < 96; i++) {
      s ^= s << 13; s ^= s >> 7; s ^= s << 17;
      uint32_t v = (uint32_t)(s >> 16);
      hin[i] = (s & 3) == 0 ? v % 48 : (s & 3) == 1 ? (v | 0x80000000u) : v;
    }
    cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice);
    each<<<1, 32>>>(din, dout);
    if (cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost) != cudaSuccess) { fprintf(stderr, "cuda error\\n"); return 2; }
    for (int i = 0; i < 32 * ${h.perThread}; i++) printf("%08x\\n", hout[i]);
  }
  return 0;
}
`;
      writeFileSync(join(dir, `${name}.harness.cu`), harness);
      for (const [which, extra] of [["orig", []], ["ported", ["-D__HIP__"]]] as const) {
        const args = ["-arch=sm_90", "-O2", "-w", ...extra, `-DSRC="${name}.${which}.cu"`, `${name}.harness.cu`, "-o", `${name}.${which}`];
        const c = spawnSync("nvcc", args, { cwd: dir, encoding: "utf8" });
        if (c.status !== 0) {
          process.stderr.write(`nvcc ${args.join(" ")}: ${c.stderr}\n`);
          process.exit(1);
        }
      }
      process.stdout.write(`built ${name}: ${r.statements.filter((x) => x.status === "rewritten").length} statements rewritten, ${r.routines.length} functions\n`);
      run.push(
        `./${name}.orig > ${name}.orig.txt || bad=1`,
        `./${name}.ported > ${name}.ported.txt || bad=1`,
        `n=$(wc -l < ${name}.orig.txt); m=$(diff ${name}.orig.txt ${name}.ported.txt | grep -c '^<')`,
        `echo "PORT-NVIDIA-CHECK ${name}: $n values, $m differ"; [ "$m" = 0 ] && [ "$n" -gt 0 ] || bad=1`,
      );
      if (name === "patterns") {
        // The control: the same port with two arguments of one call swapped must differ.
        const mutant = r.text.replace("(child_bits, bit_index, hit_mask);", "(bit_index, child_bits, hit_mask);");
        if (mutant === r.text) throw new Error("port-nvidia-check: the mutant's call is not in the ported patterns.cu");
        writeFileSync(join(dir, "patterns.mutant.cu"), mutant);
        const args = ["-arch=sm_90", "-O2", "-w", "-D__HIP__", `-DSRC="patterns.mutant.cu"`, "patterns.harness.cu", "-o", "patterns.mutant"];
        const c = spawnSync("nvcc", args, { cwd: dir, encoding: "utf8" });
        if (c.status !== 0) throw new Error(`nvcc ${args.join(" ")}: ${c.stderr}`);
        run.push(
          "./patterns.mutant > patterns.mutant.txt || bad=1",
          "m=$(diff patterns.orig.txt patterns.mutant.txt | grep -c '^<')",
          'echo "PORT-NVIDIA-CHECK control (two arguments swapped): $m differ"; [ "$m" -gt 0 ] || bad=1',
        );
      }
    }
    run.push("exit $bad");
    writeFileSync(join(dir, "run.sh"), run.join("\n") + "\n");
    chmodSync(join(dir, "run.sh"), 0o755);
  })();
}

main();
