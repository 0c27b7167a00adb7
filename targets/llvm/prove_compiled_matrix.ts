/**
 * @fileoverview The `hip` and `llvm` rows of `prove:all` (scripts/prove-all.ts, issue 15 item
 * 5): every warp-level routine spec of the matrix, printed into one HIP header / one LLVM
 * module per processor (one compile per kind × processor × batch), and each compiled function
 * (every callable function and form alias, both argument variants `vgpr` / `sgpr`) proved in
 * every layout of its wave (./prove_compiled_warp.ts) after the hazard check under LLVM's
 * function boundary. A row is function × variant × layout × processor × profile.
 *
 * The warp-level functions do not depend on the semantics profile (targets/llvm/callable.ts
 * `profileSensitive`); each profile's text is printed and, where it is the same text, the
 * compile and the proofs are shared (the row of the second profile names the same key).
 * Identical extracted code (same wave, generation, variant, layout, form, kinds, argument
 * registers and lines) is proved once: processors whose compilers emit the same code share.
 * The scalar families' compiled functions are not in these rows (`verify --prove --target
 * hip|llvm` proves them).
 */
import type { Profile } from "../../src/ir/forms.js";
import { formId, formName } from "../../src/ir/forms.js";
import type { RoutineSpec } from "../../src/ir/ir.js";
import type { Verdict } from "../../src/check/prove_types.js";
import { hash } from "../../src/check/prove_text.js";
import { loadZ3 } from "../../src/check/smt.js";
import { isWarpLevel } from "../../src/check/verify.js";
import { checkHazards, formatViolation, LLVM_ENTRY } from "../amdgpu/hazards.js";
import { llcHazardTarget } from "../amdgpu/oracle/llc_hazards.js";
import { isLabel } from "../amdgpu/minst.js";
import type { Mcpu } from "../amdgpu/regs.js";
import { TARGETS } from "../amdgpu/regs.js";
import { showLine } from "../amdgpu/prove/paths.js";
import { printHipModule } from "../hip/print.js";
import { printLlvmModule } from "./print.js";
import { callableName, compileFor } from "./verify.js";
import type { CompiledWarpLayout } from "./prove_compiled_warp.js";
import { compiledWarpLayouts, proveCompiledWarpLayout } from "./prove_compiled_warp.js";

/** One row: a compiled function × variant × layout on one processor and profile. */
export interface CompiledProveRow {
  kind: "hip" | "llvm";
  mcpu: Mcpu;
  /** `hip gfx942`, as the table names the target. */
  target: string;
  profile: Profile;
  /** The function's symbol and callable name (`ptxl_<formId>` for an alias). */
  symbol: string;
  fn: string;
  form: string;
  kinds: RoutineSpec["kinds"];
  variant: "vgpr" | "sgpr";
  layout: CompiledWarpLayout;
  /** How many of the matrix's routine specs this function serves (0 for an alias). */
  serves: number;
  /** The proof's key (identical code shares it) and whether this row reused it. */
  key: string;
  shared: boolean;
  verdict: Verdict;
}

/**
 * Proves the compiled warp-level functions of `specs` (non-warp specs are ignored) for each
 * kind × processor × profile (file comment). `onRow` is called as each row is done.
 * @throws Error when clang or llc fails on the printed text (a printer bug).
 */
export async function proveCompiledMatrix(
  specs: readonly RoutineSpec[],
  opts: { kinds: readonly ("hip" | "llvm")[]; mcpus: readonly Mcpu[]; profiles: readonly Profile[]; timeoutMs?: number; onRow?: (r: CompiledProveRow) => void },
): Promise<CompiledProveRow[]> {
  const env = await loadZ3();
  const warp = specs.filter((s) => isWarpLevel(s.form));
  const routines = warp.map((spec) => ({ name: callableName(spec), spec }));
  const rows: CompiledProveRow[] = [];
  const proofs = new Map<string, Verdict>();
  for (const kind of opts.kinds)
    for (const mcpu of opts.mcpus) {
      const printed = new Map<string, { profile: Profile; rows: CompiledProveRow[] }>();
      for (const profile of opts.profiles) {
        const text = kind === "hip" ? printHipModule(routines, { profile }) : printLlvmModule(routines, { profile });
        const same = printed.get(text);
        if (same) {
          // The same text: the same compile and proofs (file comment).
          for (const r of same.rows) {
            const row = { ...r, profile, shared: true };
            rows.push(row);
            opts.onRow?.(row);
          }
          continue;
        }
        const mine: CompiledProveRow[] = [];
        printed.set(text, { profile, rows: mine });
        const { set, sregs } = await compileFor(kind, routines, mcpu, profile);
        for (const cf of set.functions) {
          if (!isWarpLevel(cf.fn.spec.form)) continue;
          const lines = cf.lines;
          const hz = Array.isArray(lines) ? checkHazards(lines, llcHazardTarget(mcpu, TARGETS[mcpu].wave), LLVM_ENTRY) : [];
          for (const layout of compiledWarpLayouts(mcpu)) {
            const t = TARGETS[mcpu];
            const key = hash([kind === "hip" ? "clang" : "llc", t.wave, t.gen, cf.variant, layout, formId(cf.fn.spec.form), JSON.stringify(cf.fn.spec.kinds, (_k, v) => (typeof v === "bigint" ? `${v}` : v)), JSON.stringify(cf.args), cf.dReg, cf.pReg, ...(Array.isArray(lines) ? lines.map((l) => (isLabel(l) ? `${l.label}:` : showLine(l))) : [JSON.stringify(lines)]), sregs.join(",")].join("\n"));
            let verdict = proofs.get(key);
            const shared = verdict !== undefined;
            if (!verdict) {
              if (hz.length) verdict = { verdict: "refuted", ms: 0, reason: `Hazard: ${hz.map(formatViolation).join("; ")}`, counterexample: "" };
              else {
                await env.recycle(1);
                verdict = await proveCompiledWarpLayout(env, cf, mcpu, kind, sregs, layout, { profile, timeoutMs: opts.timeoutMs });
              }
              if (!(verdict.verdict === "unknown" && verdict.fault)) proofs.set(key, verdict);
            }
            const row: CompiledProveRow = {
              kind,
              mcpu,
              target: `${kind} ${mcpu}`,
              profile,
              symbol: cf.symbol,
              fn: cf.fn.name,
              form: formName(cf.fn.spec.form),
              kinds: cf.fn.spec.kinds,
              variant: cf.variant,
              layout,
              serves: cf.fn.serves.length,
              key,
              shared,
              verdict,
            };
            mine.push(row);
            rows.push(row);
            opts.onRow?.(row);
          }
        }
      }
    }
  return rows;
}
