/**
 * @fileoverview Issue 14 item 3 from the command line: compiles the `hip` header and the
 * `llvm` module of PTX modules for every processor, extracts each function, checks hazards
 * and runs it in the AMDGPU interpreter against the reference (targets/llvm/compiled.ts).
 * Prints one line per row × function: `tested(n)` or `refuted`, and the counterexample.
 *
 *   npx tsx scripts/verify-compiled.ts [--target hip|llvm] [--mcpu M] [--warps N] [--prove] FILE.ptx…
 *
 * With `--prove`, the extracted code of every scalar function is also proved by the AMDGPU
 * prover (targets/llvm/prove_compiled.ts) and a summary `N proved, R refuted, U unknown` per
 * row is printed (warp functions and the hip uniform wrappers count as not proved, with why).
 *
 * Exit 0 when every row is tested, 1 when one is refuted or unknown, 2 on bad arguments.
 */
import { readFileSync } from "node:fs";
import { parseModule } from "../src/index.js";
import { collectRoutines } from "../src/lower.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import { isMcpu, MCPUS } from "../targets/amdgpu/regs.js";
import { compiledToolsAvailable, verifyCompiled } from "../targets/llvm/compiled.js";
import { proveCompiled } from "../targets/llvm/prove_compiled.js";
import { TARGETS } from "../targets/amdgpu/regs.js";
import { inregRegisters } from "../targets/amdgpu/oracle/llvm.js";

const argv = process.argv.slice(2);
const files: string[] = [];
let targets: ("hip" | "llvm")[] = ["hip", "llvm"];
let mcpus: readonly Mcpu[] = MCPUS;
let warps = 1000;
let prove = false;
for (let i = 0; i < argv.length; i++) {
  const a = argv[i]!;
  if (a === "--target" && (argv[i + 1] === "hip" || argv[i + 1] === "llvm")) targets = [argv[++i] as "hip" | "llvm"];
  else if (a === "--mcpu" && isMcpu(argv[i + 1] ?? "")) mcpus = [argv[++i] as Mcpu];
  else if (a === "--warps" && /^\d+$/.test(argv[i + 1] ?? "")) warps = Number(argv[++i]);
  else if (a === "--prove") prove = true;
  else if (!a.startsWith("-")) files.push(a);
  else {
    process.stderr.write(`verify-compiled: error: unknown or incomplete option '${a}'\n`);
    process.exit(2);
  }
}
if (!files.length) {
  process.stderr.write("usage: verify-compiled [--target hip|llvm] [--mcpu M] [--warps N] FILE.ptx…\n");
  process.exit(2);
}
const tools = await compiledToolsAvailable(targets);
if (!tools.ok) {
  process.stderr.write(`verify-compiled: error: ${tools.reason}\n`);
  process.exit(2);
}
let bad = 0;
for (const file of files) {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    process.stderr.write(`${file}: error: cannot read: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const mod = parseModule(text, file);
  const errors = mod.diagnostics.filter((d) => d.severity === "error");
  if (errors.length) {
    for (const d of errors) process.stderr.write(`${d.loc.file}:${d.loc.line}:${d.loc.col}: error: ${d.message}\n`);
    process.exit(2);
  }
  const t0 = Date.now();
  await verifyCompiled(collectRoutines(mod), {
    targets,
    mcpus,
    warps,
    onCompiled: prove
      ? async (target, mcpu, set) => {
          const sregs = target === "llvm" ? await inregRegisters({ mcpu, wave: TARGETS[mcpu].wave }) : [];
          const res = await proveCompiled(set.functions, mcpu, target, sregs);
          const count = (v: string) => res.filter((r) => r.verdict.verdict === v).length;
          for (const r of res)
            if (r.verdict.verdict === "refuted") {
              bad++;
              process.stdout.write(`${file}  ${target} ${mcpu}  ${r.cf.symbol} REFUTED: ${r.verdict.reason}\n${r.verdict.counterexample.replace(/^/gm, "    ")}\n`);
            }
          const why = [...new Set(res.filter((r) => r.verdict.verdict === "unknown").map((r) => (r.verdict as { reason: string }).reason))];
          process.stdout.write(`${file}  ${`${target} ${mcpu}`.padEnd(12)} prove: ${count("proved")} proved, ${count("refuted")} refuted, ${count("unknown")} unknown${why.length ? ` (${why.join("; ")})` : ""}\n`);
        }
      : undefined,
    onRow: (r) => {
      const v = r.verdict;
      const parts = Object.entries(r.parts).map(([k, n]) => `${k} ${n}`).join(", ");
      const what = v.status === "tested" ? `tested(${v.n})` : v.status === "refuted" ? "refuted" : `${v.status}: ${v.why}`;
      if (v.status !== "tested") bad++;
      process.stdout.write(`${file}  ${r.row.padEnd(12)} ${r.fn.padEnd(36)} ${what}${parts ? `  [${parts}; waits ${r.waits}]` : ""}\n`);
      if (v.status === "refuted") process.stdout.write(v.counterexample.replace(/^/gm, "    ") + "\n");
    },
  });
  process.stderr.write(`${file}: ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}
process.exit(bad ? 1 : 0);
