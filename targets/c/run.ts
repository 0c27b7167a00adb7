/**
 * @fileoverview Compiling printed C and running its routines on many vectors in one process,
 * under UBSan (`-fsanitize=undefined -fno-sanitize-recover=all`), so that an over-wide shift or
 * a signed overflow fails the run instead of passing silently. A generated harness reads one
 * call per line on stdin (`<routine index> <hex arg>…`, arrays as their lanes, booleans as
 * 0/1) and prints the results the same way.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PirFunction, PirValue, PType, Scalar } from "../portable/pir.js";
import { checkIdent, widthOf } from "../portable/pir.js";
import { printCModule } from "./print.js";

/** The C compiler (`$CC`, default gcc). */
export const CC = process.env.CC ?? "gcc";
/** The warning gate every printed module must pass. */
export const STRICT_FLAGS = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Wstrict-prototypes", "-Werror"];
/** The build the vectors run under. */
export const UBSAN_FLAGS = ["-std=c99", "-O1", "-fsanitize=undefined", "-fno-sanitize-recover=all"];

let ccState: { ok: boolean; reason: string } | undefined;
/**
 * Whether a C compiler with UBSan is available; `reason` says why not (for `it.skipIf`).
 */
export function haveCc(): { ok: boolean; reason: string } {
  if (ccState) return ccState;
  const dir = mkdtempSync(join(tmpdir(), "ptx-lower-cc-"));
  try {
    writeFileSync(join(dir, "t.c"), "int main(void) { return 0; }\n");
    const r = spawnSync(CC, [...UBSAN_FLAGS, "t.c", "-o", "t"], { cwd: dir, encoding: "utf8" });
    ccState = r.error
      ? { ok: false, reason: `${CC} not found (${r.error.message})` }
      : r.status !== 0
        ? { ok: false, reason: `${CC} cannot build with UBSan: ${r.stderr.trim().split("\n")[0]}` }
        : { ok: true, reason: "" };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return ccState;
}

/**
 * Compiles `src` as one translation unit with `flags` (default: the strict warning gate) and
 * no output.
 * @returns ok and the compiler's diagnostics.
 */
export function compileC(src: string, flags: string[] = STRICT_FLAGS): { ok: boolean; stderr: string } {
  const dir = mkdtempSync(join(tmpdir(), "ptx-lower-cc-"));
  try {
    writeFileSync(join(dir, "m.c"), src);
    const r = spawnSync(CC, [...flags, "-c", "m.c", "-o", "m.o"], { cwd: dir, encoding: "utf8" });
    return { ok: r.status === 0, stderr: (r.stderr ?? "") + (r.error ? String(r.error) : "") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ctype = (t: Scalar) => (t.t === "bool" ? "bool" : widthOf(t) > 32 ? "uint64_t" : "uint32_t");

/** The harness `main` that dispatches calls to `routines` by index. */
function harness(routines: { name: string; fn: PirFunction }[]): string {
  const cases = routines.map(({ name, fn }, k) => {
    const lines: string[] = [];
    const read = (v: string, t: PType) => {
      if (t.t === "arr") {
        lines.push(`${ctype(t.elem)} ${v}[${t.n}];`);
        lines.push(`for (int k = 0; k < ${t.n}; k++) ${v}[k] = (${ctype(t.elem)})rd();`);
      } else lines.push(`${ctype(t)} ${v} = (${ctype(t)})rd();`);
    };
    const args: string[] = [];
    for (const p of fn.params) (read(`in_${checkIdent(p.name)}`, p.type), args.push(`in_${p.name}`));
    const outs: string[] = [];
    let scalar: string | undefined;
    for (const r of fn.results) {
      if (r.type.t === "arr") {
        lines.push(`${ctype(r.type.elem)} out_${checkIdent(r.name)}[${r.type.n}] = {0};`);
        args.push(`out_${r.name}`);
        outs.push(`for (int k = 0; k < ${r.type.n}; k++) wr(out_${r.name}[k]);`);
      } else {
        scalar = `out_${checkIdent(r.name)}`;
        outs.push(`wr(${scalar});`);
      }
    }
    const call = `${checkIdent(name)}(${args.join(", ")})`;
    lines.push(
      scalar ? `${ctype(fn.results.find((r) => r.type.t !== "arr")!.type as Scalar)} ${scalar} = ${call};` : `${call};`,
    );
    lines.push(...outs);
    return `static void call_${k}(void) {\n${lines.join("\n")}\n}`;
  });
  return `#include <stdio.h>
#include <stdlib.h>
static unsigned long long rd(void) {
  char buf[24];
  if (scanf("%23s", buf) != 1) exit(2);
  return strtoull(buf, NULL, 16);
}
static void wr(unsigned long long x) { printf(" %llx", x); }
${cases.join("\n")}
static void (*const calls[])(void) = { ${routines.map((_, k) => `call_${k}`).join(", ")} };
int main(void) {
  unsigned long op;
  while (scanf("%lu", &op) == 1) {
    if (op >= ${routines.length}u) return 3;
    calls[op]();
    putchar('\\n');
  }
  return 0;
}
`;
}

/** One call: the routine's name and a concrete value per parameter. */
export interface CCall {
  routine: string;
  args: Record<string, PirValue>;
}

/**
 * Prints `routines` as C, compiles them with a harness under UBSan, and runs every call in
 * one process.
 * @returns per call, each result of the routine's PIR as a concrete value.
 * @throws Error with the compiler's or the sanitizer's message when the build or a call fails.
 */
export function runCRoutines(
  routines: { name: string; fn: PirFunction }[],
  calls: CCall[],
): Record<string, PirValue>[] {
  const index = new Map(routines.map((r, k) => [r.name, k]));
  const module = printCModule(
    routines.map((r) => ({ ...r, header: r.name })),
    { format: false },
  );
  const dir = mkdtempSync(join(tmpdir(), "ptx-lower-cc-"));
  try {
    writeFileSync(join(dir, "h.c"), module + "\n" + harness(routines));
    const cc = spawnSync(CC, [...UBSAN_FLAGS, "h.c", "-o", "h"], { cwd: dir, encoding: "utf8" });
    if (cc.status !== 0) throw new Error(`C build failed:\n${cc.stderr}${cc.error ?? ""}`);
    const hexOf = (v: bigint | boolean) => (typeof v === "boolean" ? (v ? "1" : "0") : v.toString(16));
    const input = calls
      .map((c) => {
        const k = index.get(c.routine);
        if (k === undefined) throw new Error(`unknown routine ${c.routine}`);
        const fn = routines[k]!.fn;
        const toks = fn.params.flatMap((p) => {
          const v = c.args[p.name];
          if (v === undefined) throw new Error(`${c.routine}: missing ${p.name}`);
          return Array.isArray(v) ? v.map(hexOf) : [hexOf(v as bigint | boolean)];
        });
        return `${k} ${toks.join(" ")}`;
      })
      .join("\n");
    const run = spawnSync(join(dir, "h"), [], {
      input: input + "\n",
      encoding: "utf8",
      maxBuffer: 1 << 30,
      timeout: 300_000,
    });
    if (run.status !== 0) throw new Error(`C run failed (status ${run.status}):\n${run.stderr.slice(0, 2000)}`);
    const lines = run.stdout.split("\n");
    return calls.map((c, n) => {
      const toks = (lines[n] ?? "").trim().split(/\s+/);
      let at = 0;
      const one = (s: Scalar): bigint | boolean => {
        const x = BigInt("0x" + toks[at++]!);
        return s.t === "bool" ? x !== 0n : x;
      };
      const fn = routines[index.get(c.routine)!]!.fn;
      return Object.fromEntries(
        fn.results.map((r) => [
          r.name,
          r.type.t === "arr"
            ? Array.from({ length: r.type.n }, () => one((r.type as { elem: Scalar }).elem))
            : one(r.type),
        ]),
      );
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
