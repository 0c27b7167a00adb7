/**
 * @fileoverview Hardware truth: `hwgen(vectorsJsonl)` writes a CUDA program that executes
 * each test vector (../shared/vectors/FORMAT.md) on an NVIDIA GPU with inline PTX for the
 * exact form, and prints what the GPU computed in the same vector format — same ids, `out`
 * filled with the observed values, no `semantics`, and an `hw` field naming the GPU, its
 * compute capability and the driver/runtime versions — so `ptx-lower check` can compare the
 * observations with either profile.
 *
 *   ptx-lower hwgen VECTORS.jsonl -o harness.cu
 *   nvcc -arch=sm_90 -o harness harness.cu && ./harness > observed.jsonl
 *
 * Each vector's instruction is parsed and validated by the project's parser
 * (src/ir/build.ts) and re-printed from its form: immediates stay immediates (their original
 * spelling), selectors stay on their operands, `_` sinks stay sinks, and a guard `@g`/`@!g`
 * becomes a predicate set from `in.g` inside the asm block. Guarded destinations start from
 * the vector's prior values (`in.d`, `in.p`), which a lane whose guard is false keeps.
 *
 * Scalar vectors sharing an instruction text run as one kernel, one thread per vector.
 * match.sync vectors run one warp (a 32-thread block) each; lanes outside `warp.active`
 * return before the instruction (they have exited), and their results print as null.
 * A vector whose ISA result is undefined because an executing lane's membermask names an
 * active lane that does not execute, or that uses a different membermask, may hang real
 * hardware (the named lane never arrives); such vectors are left out (listed on stderr)
 * unless `unsafe` is set.
 *
 * The warp-level family (shfl, vote, redux, activemask, bar.warp.sync; issue 15 item 6): each
 * vector becomes a standalone PTX module — its `module` header (FORMAT.md; absent: `.version
 * 9.0` / `.target sm_90`), its registers and its instruction as written (src/check/vectors.ts
 * `vectorModule`), in a kernel run by one warp — embedded in the program and loaded with
 * cuModuleLoadData, i.e. JIT-compiled for the GPU present (build with `-lcuda`). A module
 * whose `.target` needs another GPU (`sm_100a`: sm_100 only; otherwise a newer one) is skipped
 * at run time with the reason on stderr. `probeVectors` (`hwgen --probe`) writes the probe
 * vectors of warp-semantics.md's open points A4/A5 with both readings' expected values.
 */
import { familyOf } from "../families/index.js";
import { escapeControls, PtxLowerError } from "../diag.js";
import type { Vector as CheckedVector } from "../check/vectors.js";
import { readVectors, vectorModule, warpLevelCase } from "../check/vectors.js";
import type { WarpForm } from "../ir/warp_forms.js";
import { warpFormName, warpPredicateDest } from "../ir/warp_forms.js";
import type { ShflReading } from "../sem/warp.js";
import { cudaC, warpReference, type WarpCase, type WarpExpected } from "../check/warp_cases.js";
import type { FamilyInst, PtxOperand } from "../ir/ir.js";
import type { MatchForm, Sel, VshTail } from "../ir/forms.js";
import type { AnyFamily } from "../family/types.js";
import { isWarpLevel } from "../check/verify.js";

/** One vector line as FORMAT.md defines it. */
export interface Vector {
  id: string;
  ptx: string;
  in: Record<string, string | boolean | (string | boolean | null)[]>;
  out?: Record<string, unknown>;
  warp?: { active: string };
  semantics?: string;
  [extra: string]: unknown;
}

export interface HwgenOptions {
  /** Include vectors that may deadlock real hardware (see the file comment). */
  unsafe?: boolean;
}

export interface HwgenResult {
  /** The CUDA source. */
  cuda: string;
  /**
   * The warp-level family's standalone PTX modules, one per vector (embedded in `cuda`, loaded
   * with cuModuleLoadData): the vector's id, the module text and its `.target`.
   */
  modules: { id: string; ptx: string; target: string }[];
  /** Vectors left out, with the reason. */
  skipped: { id: string; reason: string }[];
}

/** The CUDA program for `vectorsJsonl` (see `hwgenDetailed` for the skipped list). */
export function hwgen(vectorsJsonl: string, opts: HwgenOptions = {}): string {
  return hwgenDetailed(vectorsJsonl, opts).cuda;
}

const hex = (x: unknown): bigint => BigInt(String(x));
const u32 = (x: bigint) => `0x${BigInt.asUintN(32, x).toString(16)}u`;

/** Operand → inline-asm text: `%n` for a register (with its selector), the literal otherwise. */
function opText(o: PtxOperand | undefined, slot: string | undefined, sel: Sel | null = null): string {
  if (!o) return "";
  if (o.kind === "sink") return "_";
  if (o.kind === "imm") return o.text;
  return `${slot}${sel ? `.${sel}` : ""}`;
}

function opcodeOf(inst: FamilyInst): string {
  return familyOf(inst.form).asmOpcode(inst.form);
}

interface Asm {
  /** The asm template. */
  text: string;
  outs: string[];
  ins: string[];
}

/**
 * The inline asm for one instruction. Variables in the generated kernels: d, p (u32
 * in/out), a (u32, or u64 for .b64), b, c, mm, g (u32).
 */
function asmFor(inst: FamilyInst): Asm {
  const f = inst.form;
  const outs: string[] = [];
  const ins: string[] = [];
  const slot = new Map<string, string>();
  const guarded = inst.guard !== null;
  const isMatchAll = f.op === "match" && f.mode === "all";
  const hasP = inst.p?.kind === "reg";
  const hasD = inst.d.kind === "reg";
  // Outputs first: d, then p ("+r": guarded lanes keep the prior value).
  if (hasD) {
    slot.set("d", `%${outs.length}`);
    outs.push(`"${guarded ? "+r" : "=r"}"(d)`);
  }
  if (hasP) {
    slot.set("p", `%${outs.length}`);
    outs.push(`"+r"(p)`);
  }
  let n = outs.length;
  const input = (name: string, o: PtxOperand | undefined, cons: string, expr: string) => {
    if (o?.kind !== "reg") return;
    slot.set(name, `%${n++}`);
    ins.push(`"${cons}"(${expr})`);
  };
  input("a", inst.a, f.op === "match" && f.type === "b64" ? "l" : "r", "a");
  input("b", inst.b, "r", "b");
  input("c", inst.c, "r", "c");
  input("membermask", inst.membermask, "r", "mm");
  if (guarded) {
    slot.set("g", `%${n++}`);
    ins.push(`"r"(g)`);
  }
  // The video selectors, through the registry (a family's `selectorStage`; `d.dsel` is a merge tail).
  const split = (familyOf(f) as AnyFamily).selectorStage?.(f) ?? null;
  const tail = "tail" in f ? (f.tail as VshTail) : null;
  const dsel = tail && tail.kind === "merge" ? tail.dsel : null;
  let dest = opText(inst.d, slot.get("d"), dsel);
  if (isMatchAll && inst.p) dest += `|${inst.p.kind === "sink" ? "_" : "P"}`;
  const operands = [dest];
  operands.push(opText(inst.a, slot.get("a"), split?.asel ?? null));
  if (f.op === "match") operands.push(opText(inst.membermask, slot.get("membermask")));
  else {
    operands.push(opText(inst.b, slot.get("b"), split?.bsel ?? null));
    if (inst.c) operands.push(opText(inst.c, slot.get("c")));
  }
  const body: string[] = [];
  const decl: string[] = [];
  if (guarded) {
    decl.push(".reg .pred G;");
    body.push(`setp.ne.u32 G, ${slot.get("g")}, 0;`);
  }
  if (hasP) {
    decl.push(".reg .pred P;");
    body.push(`setp.ne.u32 P, ${slot.get("p")}, 0;`);
  }
  const guard = guarded ? `@${inst.guard!.negate ? "!" : ""}G ` : "";
  body.push(`${guard}${opcodeOf(inst)} ${operands.join(", ")};`);
  if (hasP) body.push(`selp.u32 ${slot.get("p")}, 1, 0, P;`);
  const text = decl.length || body.length > 1 ? `{ ${[...decl, ...body].join(" ")} }` : body[0]!;
  void (f as MatchForm);
  return { text, outs, ins };
}

/** Whether the asm reads variable `v`. */
const uses = (asm: Asm, v: string) => asm.ins.some((x) => x.endsWith(`(${v})`));

/**
 * `s` as a C/C++ string literal: printable ASCII as it is except `"`, `\\` and `?` (escaped,
 * so that no trigraph such as `??/` can form, with trigraphs on or off); every other byte of
 * its UTF-8 as a three-digit octal escape (never a hex escape, which would swallow a
 * following hex digit).
 */
export function cstr(s: string): string {
  let out = '"';
  for (const b of Buffer.from(s, "utf8")) {
    if (b === 0x22 || b === 0x5c || b === 0x3f) out += "\\" + String.fromCharCode(b);
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += "\\" + b.toString(8).padStart(3, "0");
  }
  return out + '"';
}

/**
 * `s` as the text of a `//` comment line: control characters escaped, no `??` (a trigraph
 * `??/` would splice the next line into the comment), no backslash at the end (a splice).
 */
export function lineCommentText(s: string): string {
  return escapeControls(s.replace(/[\r\n\u2028\u2029]+/g, " ")).replace(/\?(?=\?)/g, "?\\").replace(/\\+\s*$/, (m) => m + ".");
}

/**
 * The CUDA program and the list of vectors left out. The vectors are read and validated by
 * src/check/vectors.ts `readVectors` (FORMAT.md); throws `PtxLowerError` with its
 * diagnostics (`file:line:1`) when a line is malformed or its instruction is rejected.
 */
export function hwgenDetailed(vectorsJsonl: string, opts: HwgenOptions = {}, file = "<vectors>"): HwgenResult {
  // Validated and parsed as `check` reads them; the raw objects are kept for the output lines.
  const checked = readVectors(vectorsJsonl, file);
  if (checked.diagnostics.length) throw new PtxLowerError(checked.diagnostics);
  const lines = vectorsJsonl.split("\n");
  const skipped: HwgenResult["skipped"] = [];
  const groups = new Map<string, { inst: FamilyInst; vs: Vector[] }>();
  const warpVectors: { v: Vector; cv: CheckedVector }[] = [];
  for (const cv of checked.vectors) {
    const v = JSON.parse(lines[cv.line - 1]!) as Vector;
    const inst = cv.inst;
    if ((inst.form.op === "match" || isWarpLevel(inst.form)) && !opts.unsafe) {
      const why = hangRisk(v, inst);
      if (why) {
        skipped.push({ id: v.id, reason: why });
        continue;
      }
    }
    // The warp-level family: a standalone module per vector (below).
    if (isWarpLevel(inst.form)) {
      warpVectors.push({ v, cv });
      continue;
    }
    const g = groups.get(v.ptx);
    if (g) g.vs.push(v);
    else groups.set(v.ptx, { inst, vs: [v] });
  }

  const out: string[] = [];
  out.push(
    "// Generated by ptx-lower hwgen — do not edit.",
    "// Runs each test vector's PTX instruction on the GPU (inline asm, exact form) and prints",
    "// the observed outputs in the vector format, one JSON line per vector.",
    "// Build: nvcc -arch=sm_90 -o harness harness.cu -lcuda   Run: ./harness > observed.jsonl",
    `// Vectors: ${checked.vectors.length - skipped.length} run, ${skipped.length} left out (undefined by the ISA, may hang).`,
    ...(warpVectors.length ? ["// Warp-level vectors run as standalone PTX modules, JIT-compiled for the GPU present: build with -lcuda."] : []),
    ...skipped.map((s) => `//   left out ${lineCommentText(s.id)}: ${lineCommentText(s.reason)}`),
    "#include <cstdint>",
    "#include <cstdio>",
    "#include <cstdlib>",
    "#include <cuda_runtime.h>",
    ...(warpVectors.length ? ["#include <cuda.h>"] : []),
    "",
    "#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, \"%s:%d: %s\\n\", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)",
    "",
    "static char hw[256];",
    "static int sm = 0; // this GPU's compute capability, major * 10 + minor",
    "",
    ...(warpVectors.length ? WARP_RUNNER : []),
  );
  const main: string[] = [];
  let k = 0;
  for (const { inst, vs } of groups.values()) {
    const asm = asmFor(inst);
    const name = `k${k++}`;
    const isMatch = inst.form.op === "match";
    const b64 = isMatch && (inst.form as MatchForm).type === "b64";
    const constraints = `asm volatile(${cstr(asm.text)} : ${asm.outs.join(", ")}${asm.ins.length ? ` : ${asm.ins.join(", ")}` : ""});`;
    out.push(`// ${lineCommentText(vs[0]!.ptx)}  (${vs.length} vector${vs.length > 1 ? "s" : ""})`);
    if (!isMatch) {
      // Per vector: a, b, c, g, d (prior) → d.
      out.push(
        `__global__ void ${name}(const uint32_t* in, uint32_t* res, int n) {`,
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;",
        "  if (i >= n) return;",
        "  const uint32_t* x = in + 5 * i;",
        `  ${["a", "b", "c", "g"].map((v, j) => (uses(asm, v) ? `uint32_t ${v} = x[${j}]; ` : "")).join("")}uint32_t d = x[4];`,
        `  ${constraints}`,
        "  res[i] = d;",
        "}",
        "",
      );
      const word = (x: unknown) => (typeof x === "string" ? u32(hex(x)) : "0u");
      const data = vs.flatMap((v) => [word(v.in.a), word(v.in.b), word(v.in.c), v.in.g === true ? "1u" : "0u", word(v.in.d)]);
      main.push(`  { // ${name}`, `    static const uint32_t in[] = {${data.join(", ")}};`, `    const int n = ${vs.length};`, `    uint32_t res[${vs.length}];`);
      main.push(
        "    uint32_t *din, *dres;",
        "    CHECK(cudaMalloc(&din, sizeof in)); CHECK(cudaMalloc(&dres, sizeof res));",
        "    CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));",
        `    ${name}<<<(n + 127) / 128, 128>>>(din, dres, n);`,
        "    CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());",
        "    CHECK(cudaMemcpy(res, dres, sizeof res, cudaMemcpyDeviceToHost));",
        "    CHECK(cudaFree(din)); CHECK(cudaFree(dres));",
      );
      vs.forEach((v, i) => main.push(`    printf("%s,\\"out\\":{\\"d\\":\\"0x%08x\\"},\\"hw\\":\\"%s\\"}\\n", ${cstr(prefix(v))}, res[${i}], hw);`));
      main.push("  }");
      continue;
    }
    // match: one warp per vector; per lane: a lo, a hi, membermask, g, d prior, p prior → d, p, ran.
    const f = inst.form as MatchForm;
    out.push(
      `__global__ void ${name}(const uint32_t* in, const uint32_t* active, uint32_t* res) {`,
      "  const int v = blockIdx.x, lane = threadIdx.x;",
      "  const uint32_t* x = in + 6 * (32 * v + lane);",
      "  uint32_t* r = res + 3 * (32 * v + lane);",
      "  r[2] = 0;",
      "  if (!((active[v] >> lane) & 1u)) return; // this lane has exited",
      `  ${uses(asm, "a") ? (b64 ? "uint64_t a = ((uint64_t)x[1] << 32) | x[0];" : "uint32_t a = x[0];") : ""}`,
      `  ${uses(asm, "mm") ? "uint32_t mm = x[2]; " : ""}${uses(asm, "g") ? "uint32_t g = x[3]; " : ""}uint32_t d = x[4], p = x[5];`,
      `  ${constraints}`,
      "  r[0] = d; r[1] = p; r[2] = 1;",
      "}",
      "",
    );
    const data: string[] = [];
    const act: string[] = [];
    for (const v of vs) {
      act.push(u32(hex(v.warp?.active ?? "0xffffffff")));
      const lane = (key: string, l: number): unknown => {
        const x = v.in[key];
        return Array.isArray(x) ? x[l] : x;
      };
      for (let l = 0; l < 32; l++) {
        const a = lane("a", l) === undefined || lane("a", l) === null ? 0n : hex(lane("a", l));
        const mm = lane("membermask", l);
        const g = lane("g", l);
        const d = lane("d", l);
        const p = lane("p", l);
        data.push(u32(a & 0xffffffffn), u32(a >> 32n), u32(mm === undefined || mm === null ? 0n : hex(mm)), g === true ? "1u" : "0u", u32(d === undefined || d === null ? 0n : hex(d)), p === true ? "1u" : "0u");
      }
    }
    const n = vs.length;
    main.push(
      `  { // ${name}`,
      `    static const uint32_t in[] = {${data.join(", ")}};`,
      `    static const uint32_t active[] = {${act.join(", ")}};`,
      `    static uint32_t res[${3 * 32 * n}];`,
      "    uint32_t *din, *dact, *dres;",
      "    CHECK(cudaMalloc(&din, sizeof in)); CHECK(cudaMalloc(&dact, sizeof active)); CHECK(cudaMalloc(&dres, sizeof res));",
      "    CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));",
      "    CHECK(cudaMemcpy(dact, active, sizeof active, cudaMemcpyHostToDevice));",
      `    ${name}<<<${n}, 32>>>(din, dact, dres);`,
      "    CHECK(cudaGetLastError()); CHECK(cudaDeviceSynchronize());",
      "    CHECK(cudaMemcpy(res, dres, sizeof res, cudaMemcpyDeviceToHost));",
      "    CHECK(cudaFree(din)); CHECK(cudaFree(dact)); CHECK(cudaFree(dres));",
    );
    const keys = outKeys(inst);
    vs.forEach((v, i) => {
      main.push(`    printf("%s,\\"out\\":{", ${cstr(prefix(v))});`);
      keys.forEach((key, j) => {
        main.push(`    printf("${j ? "," : ""}\\"${key}\\":[");`);
        main.push(
          `    for (int l = 0; l < 32; l++) { const uint32_t* r = res + 3 * (32 * ${i} + l); if (l) printf(","); ` +
            (key === "d" ? `if (r[2]) printf("\\"0x%08x\\"", r[0]); else printf("null"); }` : `if (r[2]) printf(r[1] ? "true" : "false"); else printf("null"); }`),
        );
        main.push(`    printf("]");`);
      });
      main.push(`    printf("},\\"hw\\":\\"%s\\"}\\n", hw);`);
    });
    main.push("  }");
    void f;
  }
  const modules: HwgenResult["modules"] = [];
  warpVectors.forEach(({ v, cv }, i) => {
    const m = warpModule(cv);
    modules.push({ id: v.id, ptx: m.ptx, target: m.target });
    main.push(...warpMain(v, cv, m, i));
  });
  out.push(
    "int main() {",
    "  int dev = 0, drv = 0, rt = 0;",
    "  cudaDeviceProp prop;",
    "  CHECK(cudaGetDevice(&dev));",
    "  CHECK(cudaGetDeviceProperties(&prop, dev));",
    "  CHECK(cudaDriverGetVersion(&drv));",
    "  CHECK(cudaRuntimeGetVersion(&rt));",
    '  snprintf(hw, sizeof hw, "%s (sm_%d%d), CUDA driver %d, runtime %d", prop.name, prop.major, prop.minor, drv, rt);',
    "  for (char* q = hw; *q; q++) if (*q == '\"' || *q == '\\\\') *q = ' ';",
    "  sm = prop.major * 10 + prop.minor;",
    ...(warpVectors.length ? ["  CHECK(cudaFree(0)); // the primary context, current for the driver API (cuModuleLoadData)", "  if (cuInit(0) != CUDA_SUCCESS) { fprintf(stderr, \"cuInit failed\\n\"); return 1; }"] : []),
    ...main,
    "  return 0;",
    "}",
    "",
  );
  return { cuda: out.join("\n"), skipped, modules };
}

/** The vector's JSON without `out`, `semantics` and the closing brace. */
function prefix(v: Vector): string {
  const { out: _o, semantics: _s, hw: _h, ...rest } = v;
  void _o;
  void _s;
  void _h;
  return JSON.stringify(rest).slice(0, -1);
}

/** The outputs a vector reports: d and/or p as the instruction writes them. */
function outKeys(inst: FamilyInst): string[] {
  const keys: string[] = [];
  if (inst.d.kind === "reg") keys.push("d");
  if (inst.p?.kind === "reg") keys.push("p");
  return keys;
}

/**
 * Why running a match or warp-level `.sync` vector could hang: an executing lane whose
 * membermask names an active lane that does not execute (guarded off), or one with a
 * different membermask.
 */
function hangRisk(v: Vector, inst: FamilyInst): string | null {
  const active = hex(v.warp?.active ?? "0xffffffff");
  const lane = (key: string, l: number): unknown => {
    const x = v.in[key];
    return Array.isArray(x) ? x[l] : x;
  };
  if (!inst.membermask) return null; // the deprecated shfl/vote, activemask: nothing waits for another lane
  const mmOf = (l: number): bigint => (inst.membermask?.kind === "imm" ? inst.membermask.value : hex(lane("membermask", l) ?? 0));
  const executes = (l: number) => ((active >> BigInt(l)) & 1n) === 1n && (inst.guard === null || (lane("g", l) === true) !== inst.guard.negate);
  for (let i = 0; i < 32; i++) {
    if (!executes(i)) continue;
    const mm = BigInt.asUintN(32, mmOf(i));
    for (let j = 0; j < 32; j++) {
      if (((mm >> BigInt(j)) & 1n) === 0n || ((active >> BigInt(j)) & 1n) === 0n) continue;
      if (!executes(j)) return `lane ${i}'s membermask names lane ${j}, which is active but does not execute`;
      if (BigInt.asUintN(32, mmOf(j)) !== mm) return `lanes ${i} and ${j} name each other with different membermasks`;
    }
  }
  return null;
}

// ---------------------------------------------------------------------------------------
// The warp-level family (issue 15 item 6): one standalone PTX module per vector.

/** Per lane in: a, b, c, membermask, g (the raw predicate), prior d, prior p (u32 each); out: d, p, ran. */
const IN_WORDS = 7;
const OUT_WORDS = 3;

/**
 * The host side of the warp-level vectors: `runWarp` JIT-loads a vector's module
 * (cuModuleLoadData, for the GPU present) and runs its kernel `k` on one warp, or prints on
 * stderr why it skips it (a newer GPU needed: `sm_100a` modules run on sm_100 only, others from
 * their `.target` up; or the JIT's error).
 */
const WARP_RUNNER = [
  "// Runs one warp-level vector's module: 0 when skipped (the reason on stderr), 1 when run.",
  "static int runWarp(const char* id, const char* ptx, int needSm, int exact, const uint32_t* in, uint32_t active, uint32_t* res) {",
  "  if (exact ? sm != needSm : sm < needSm) { fprintf(stderr, \"skipped %s: its module targets sm_%d%s, this GPU is sm_%d\\n\", id, needSm, exact ? \"a\" : \"\", sm); return 0; }",
  "  CUmodule mod; CUfunction fn;",
  "  CUresult e = cuModuleLoadData(&mod, ptx);",
  "  if (e != CUDA_SUCCESS) { const char* why = 0; cuGetErrorString(e, &why); fprintf(stderr, \"skipped %s: cuModuleLoadData: %s\\n\", id, why ? why : \"?\"); return 0; }",
  "  if (cuModuleGetFunction(&fn, mod, \"k\") != CUDA_SUCCESS) { fprintf(stderr, \"skipped %s: no kernel k\\n\", id); cuModuleUnload(mod); return 0; }",
  `  uint32_t *din, *dres;`,
  `  CHECK(cudaMalloc(&din, 32 * ${IN_WORDS} * sizeof(uint32_t))); CHECK(cudaMalloc(&dres, 32 * ${OUT_WORDS} * sizeof(uint32_t)));`,
  `  CHECK(cudaMemcpy(din, in, 32 * ${IN_WORDS} * sizeof(uint32_t), cudaMemcpyHostToDevice));`,
  "  void* args[] = {&din, &dres, &active};",
  "  e = cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, 0, args, 0);",
  "  if (e == CUDA_SUCCESS) e = cuCtxSynchronize();",
  "  if (e != CUDA_SUCCESS) { const char* why = 0; cuGetErrorString(e, &why); fprintf(stderr, \"%s: launch failed: %s\\n\", id, why ? why : \"?\"); exit(1); }",
  `  CHECK(cudaMemcpy(res, dres, 32 * ${OUT_WORDS} * sizeof(uint32_t), cudaMemcpyDeviceToHost));`,
  "  CHECK(cudaFree(din)); CHECK(cudaFree(dres));",
  "  cuModuleUnload(mod);",
  "  return 1;",
  "}",
  "",
];

/** A vector's module (its kernel loads and stores through `%h…` registers, apart from the vector's own names). */
interface WarpModule {
  ptx: string;
  target: string;
  /** The module's `.target` as a compute capability (major * 10 + minor) and whether it is arch-specific (`sm_100a`). */
  needSm: number;
  exact: boolean;
  predD: boolean;
}

/**
 * A warp-level vector as a standalone PTX module (src/check/vectors.ts `vectorModule`: the
 * vector's `module` header, its registers, its instruction as written) with one kernel
 * `k(pin, pres, active)` run by one warp: each thread loads its lane's inputs, a lane outside
 * `active` exits before the instruction, and each lane that ran stores d, p and 1.
 */
function warpModule(cv: CheckedVector): WarpModule {
  const f = cv.inst.form as WarpForm;
  const vote = f.op === "vote";
  const predD = warpPredicateDest(f);
  const target = cv.module?.target ?? "sm_90";
  const m = /^sm_(\d+)(a?)$/.exec(target);
  const before = [
    ".reg .b32 %hr<10>;",
    ".reg .b64 %hd<4>;",
    ".reg .pred %hq;",
    "ld.param.u64 %hd0, [pin];",
    "ld.param.u64 %hd1, [pres];",
    "ld.param.u32 %hr0, [pact];",
    "cvta.to.global.u64 %hd0, %hd0;",
    "cvta.to.global.u64 %hd1, %hd1;",
    "mov.u32 %hr1, %tid.x;",
    `mul.wide.u32 %hd2, %hr1, ${4 * IN_WORDS};`,
    "add.u64 %hd0, %hd0, %hd2;",
    `mul.wide.u32 %hd3, %hr1, ${4 * OUT_WORDS};`,
    "add.u64 %hd1, %hd1, %hd3;",
    "mov.u32 %hr9, 0;",
    "st.global.u32 [%hd1+8], %hr9;",
    "shr.b32 %hr2, %hr0, %hr1;",
    "and.b32 %hr2, %hr2, 1;",
    "setp.eq.u32 %hq, %hr2, 0;",
    "@%hq exit; // this lane has exited",
    "ld.global.u32 %hr3, [%hd0];",
    "ld.global.u32 b, [%hd0+4];",
    "ld.global.u32 c, [%hd0+8];",
    "ld.global.u32 membermask, [%hd0+12];",
    "ld.global.u32 %hr4, [%hd0+16];",
    "setp.ne.u32 g, %hr4, 0;",
    "ld.global.u32 %hr5, [%hd0+20];",
    "ld.global.u32 %hr6, [%hd0+24];",
    "setp.ne.u32 p, %hr6, 0;",
    vote ? "setp.ne.u32 a, %hr3, 0;" : "mov.b32 a, %hr3;",
    predD ? "setp.ne.u32 d, %hr5, 0;" : "mov.b32 d, %hr5;",
  ];
  const after = [
    predD ? "selp.u32 %hr7, 1, 0, d;" : "mov.b32 %hr7, d;",
    "selp.u32 %hr8, 1, 0, p;",
    "st.global.u32 [%hd1], %hr7;",
    "st.global.u32 [%hd1+4], %hr8;",
    "mov.u32 %hr9, 1;",
    "st.global.u32 [%hd1+8], %hr9;",
  ];
  const ptx = vectorModule(cv, { entry: "k", params: ".param .u64 pin, .param .u64 pres, .param .u32 pact", before, after }) + "\n";
  return { ptx, target, needSm: m ? Number(m[1]) : 90, exact: m?.[2] === "a", predD };
}

/** The lines of `main` that run warp-level vector `v` (the `i`th) and print what the GPU computed. */
function warpMain(v: Vector, cv: CheckedVector, m: WarpModule, i: number): string[] {
  const c: WarpCase = warpLevelCase(cv);
  const lane = (key: string, l: number): unknown => {
    const x = v.in[key];
    return Array.isArray(x) ? x[l] : x;
  };
  const word = (xs: bigint[], l: number) => u32(xs.length ? xs[l]! : 0n);
  const data: string[] = [];
  for (let l = 0; l < 32; l++) data.push(word(c.a, l), word(c.b, l), word(c.c, l), c.membermask ? u32(c.membermask[l]!) : "0u", lane("g", l) === true ? "1u" : "0u", u32(c.dPrior[l]!), c.pPrior[l] ? "1u" : "0u");
  const keys = outKeys(cv.inst);
  const lines = [
    `  { // w${i}: ${lineCommentText(v.id)} (${lineCommentText(warpFormName(cv.inst.form as WarpForm))}, module .target ${m.target})`,
    `    static const char ptx[] = ${cstr(m.ptx)};`,
    `    static const uint32_t in[] = {${data.join(", ")}};`,
    `    static uint32_t res[32 * ${OUT_WORDS}];`,
    `    if (runWarp(${cstr(v.id)}, ptx, ${m.needSm}, ${m.exact ? 1 : 0}, in, ${u32(BigInt(c.active >>> 0))}, res)) {`,
    `      printf("%s,\\"out\\":{", ${cstr(prefix(v))});`,
  ];
  keys.forEach((key, j) => {
    const show = key === "d" && !m.predD ? `printf("\\"0x%08x\\"", r[0])` : `printf(r[${key === "d" ? 0 : 1}] ? "true" : "false")`;
    lines.push(
      `      printf("${j ? "," : ""}\\"${key}\\":[");`,
      `      for (int l = 0; l < 32; l++) { const uint32_t* r = res + ${OUT_WORDS} * l; if (l) printf(","); if (r[2]) ${show}; else printf("null"); }`,
      `      printf("]");`,
    );
  });
  lines.push(`      printf("},\\"hw\\":\\"%s\\"}\\n", hw);`, "    }", "  }");
  return lines;
}

// ---------------------------------------------------------------------------------------
// Probe vectors (`hwgen --probe`) for the open points of ../shared/notes/warp-semantics.md.

/** The segment widths CUDA passes (`width` of `__shfl*_sync`), and every mode. */
const PROBE_WIDTHS = [1, 2, 4, 8, 16, 32];
const PROBE_MODES = ["up", "down", "bfly", "idx"] as const;
/** `b` in 32…63, and negative (as u32). */
const PROBE_B = [...Array.from({ length: 32 }, (_, i) => 32 + i), -1, -2, -3, -8, -16, -31, -32, -33];
/** Stray `c` bits: 5–7, 13–31 (each alone where it matters, and together). */
const PROBE_C_STRAY = [0x20, 0x40, 0x80, 0xe0, 0x2000, 0x4000, 0x8000, 0xe000, 0x10000, 0x80000000, 0xffffe000, 0xffffe0e0];

const hx = (x: bigint) => `0x${(x & 0xffffffffn).toString(16).padStart(8, "0")}`;

/** A probe's expected lanes under one reading, in FORMAT.md's shape (null: undefined). */
function expectedJson(e: WarpExpected): { d: (string | null)[]; p: (boolean | null)[] } {
  return { d: e.d.map((x) => (x === null ? null : hx(x))), p: e.p.slice() };
}

/**
 * The probe vectors for the open points A4 (`b` in 32…63 and negative, every mode and segment
 * width) and A5 (`c` with bits 5–7 and 13–31 set) of warp-semantics.md, one JSON line each
 * (FORMAT.md): `shfl.sync.MODE.b32 d|p, a, b, c, membermask;` on a full warp, every source a
 * register (so ptxas cannot fold `b` or `c`), lane l's `a` = 0xa0000000 + l (the value read
 * names its source lane). `out` is the reference's (reading `isa`, so `check` passes them);
 * `probe` gives the open point, the expected lanes under both readings of src/sem/warp.ts
 * (`isa`: the slices the ISA names; `wide`: the bits it drops counting) and whether they differ
 * — where they do, one GPU run (`hwgen` on this file) decides.
 */
export function probeVectors(): string {
  const lines: string[] = [];
  const a = Array.from({ length: 32 }, (_, l) => 0xa0000000n + BigInt(l));
  const add = (point: "A4" | "A5", mode: (typeof PROBE_MODES)[number], w: number, b: bigint, c: bigint) => {
    const f: WarpForm = { op: "shfl", sync: true, mode, type: "b32", dest: "d|p" };
    const wc: WarpCase = { label: "probe", a, b: new Array<bigint>(32).fill(b), c: new Array<bigint>(32).fill(c), membermask: new Array<bigint>(32).fill(0xffffffffn), active: 0xffffffff, guard: null, dPrior: new Array<bigint>(32).fill(0n), pPrior: new Array<boolean>(32).fill(false) };
    const reading = (r: ShflReading) => expectedJson(warpReference(f, wc, r));
    const isa = reading("isa");
    const wide = reading("wide");
    lines.push(
      JSON.stringify({
        id: `probe-${point}-${mode}-w${w}-b${hx(b)}-c${hx(c)}`,
        ptx: `shfl.sync.${mode}.b32 d|p, a, b, c, membermask;`,
        warp: { active: "0xffffffff" },
        in: { a: a.map(hx), b: hx(b), c: hx(c), membermask: "0xffffffff" },
        out: isa,
        probe: { point, readings: { isa, wide }, differ: JSON.stringify(isa) !== JSON.stringify(wide) },
      }),
    );
  };
  for (const mode of PROBE_MODES)
    for (const w of PROBE_WIDTHS) {
      const c = cudaC(w, mode === "up");
      for (const b of PROBE_B) add("A4", mode, w, BigInt(b) & 0xffffffffn, c);
      // A5: a small in-range b (1; idx: 3), c with stray bits.
      for (const stray of PROBE_C_STRAY) add("A5", mode, w, mode === "idx" ? 3n : 1n, (c | BigInt(stray)) & 0xffffffffn);
    }
  return lines.join("\n") + "\n";
}
