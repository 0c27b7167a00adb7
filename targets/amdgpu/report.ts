/**
 * @fileoverview The AMDGPU columns of `report`: per routine and processor, the selected rule,
 * its static count (issue cycles) and its dynamic count in the interpreter on a representative
 * input, with the verdict of the checker's row.
 */
import type { Profile } from "../../src/ir/forms.js";
import type { RoutineSpec, SourceName } from "../../src/ir/ir.js";
import { sourcesOf } from "../../src/ir/ir.js";
import type { CV } from "../../src/sem/bv.js";
import { concrete, u } from "../../src/sem/bv.js";
import type { VerifyRow, VerifyTarget } from "../../src/check/verify.js";
import type { DynamicCount, ReportTarget, ReportVerdict } from "../../src/report.js";
import { errText, verdictOf } from "../../src/report.js";
import type { ReportService } from "../../src/target/report.js";
import type { AmdRoutine } from "./lower.js";
import { lowerRoutine } from "./lower.js";
import { execRoutine, runFailure } from "./exec.js";
import type { Mcpu } from "./regs.js";
import { TARGETS } from "./regs.js";
import { isWarpLevel, missingLowering } from "../../src/check/verify.js";
import type { WarpCase } from "../../src/check/warp_cases.js";
import { runWarpLevel } from "./warp_exec.js";

const hex = (x: bigint) => `0x${x.toString(16)}`;

function amdTarget(spec: RoutineSpec, mcpu: Mcpu, profile: Profile, row: VerifyRow | undefined, ran: boolean): ReportTarget {
  const target = `amdgpu ${mcpu}`;
  // The warp-level family has no AMDGPU rules yet (issue 15): an error row that says so.
  const missing = missingLowering("AMDGPU", spec.form);
  if (missing) return { target, mcpu, rule: "(none)", static: null, dynamic: null, verdict: { status: "error", message: missing } };
  let r: AmdRoutine;
  try {
    r = lowerRoutine(spec, TARGETS[mcpu], profile);
  } catch (e) {
    return { target, mcpu, rule: "(none)", static: null, dynamic: null, verdict: { status: "error", message: errText(e) } };
  }
  let dynamic: DynamicCount | null;
  let problem: string | null = null;
  try {
    dynamic = dynamicCount(r, row?.dynMax ?? null);
  } catch (e) {
    dynamic = null;
    problem = `dynamic count: ${errText(e)}`;
  }
  const verdict: ReportVerdict = problem ? { status: "error", message: problem } : verdictOf(row, ran, "the checker did not run (it failed on this routine)");
  return { target, mcpu, rule: r.rule, static: r.count, dynamic, verdict };
}

/** The representative scalar input: a has a set sign bit in its low byte, b a mid-range count. */
const SCALAR_INPUT = { a: 0x123456f8n, b: 12n, c: 0x00c0ffeen };

/**
 * Dynamic count of an AMDGPU routine. Scalar forms: the interpreter's steps on
 * `SCALAR_INPUT` (immediates keep their value), every lane active, guard true. match.sync:
 * a full warp, membermask all ones (or the immediate), k = 1 and k = 32 distinct values.
 * @throws Error if the routine does not terminate or breaks its contract on that input.
 */
export function dynamicCount(r: AmdRoutine, checkerMax: number | null = null): DynamicCount {
  const spec = r.spec;
  const f = spec.form;
  const full = u(0xffffffff);
  const guard = spec.guarded ? { guard: new Array<boolean>(32).fill(true), dPrior: new Array<CV>(32).fill(u(0)), pPrior: new Array<boolean>(32).fill(false) } : {};
  const once = (src: Partial<Record<SourceName, CV | CV[]>>) => {
    const run = execRoutine(concrete, r, { src, active: full, ...guard }, { stepLimit: 10_000 });
    const failure = runFailure(run);
    if (failure) throw new Error(failure);
    return run.cycles;
  };
  if (isWarpLevel(f)) {
    // The warp-level family: a full warp, membermask all lanes, b = 1, c = 0x1f (a width-32
    // segment); `a` the same in every lane (k1) and 32 distinct values (k32).
    const at = (a: (l: number) => bigint) => {
      const c: WarpCase = {
        label: "report",
        a: Array.from({ length: 32 }, (_, l) => (f.op === "vote" ? a(l) & 1n : a(l))),
        b: new Array<bigint>(32).fill(1n),
        c: new Array<bigint>(32).fill(0x1fn),
        membermask: new Array<bigint>(32).fill(0xffffffffn),
        active: 0xffffffff,
        guard: spec.guarded ? new Array<boolean>(32).fill(true) : null,
        dPrior: new Array<bigint>(32).fill(0n),
        pPrior: new Array<boolean>(32).fill(false),
      };
      const run = runWarpLevel(r, f, c);
      if ("failure" in run) throw new Error(run.failure);
      return run.cycles;
    };
    const aKind = spec.kinds.a?.kind ?? "v";
    return { kind: "warp", k1: at(() => 5n), k32: aKind === "v" && f.op !== "activemask" && f.op !== "bar.warp" ? at((l) => BigInt(l * 0x01010101 + 7) & 0xffffffffn) : null, checkerMax };
  }
  if (f.op !== "match") {
    const src: Partial<Record<SourceName, CV | CV[]>> = {};
    const input: Record<string, string> = {};
    for (const s of sourcesOf(f)) {
      const k = spec.kinds[s];
      const x = k?.kind === "imm" ? k.value & 0xffffffffn : SCALAR_INPUT[s as "a" | "b" | "c"];
      input[s] = hex(x);
      if (k?.kind === "imm") continue;
      src[s] = k?.kind === "s" ? u(x) : new Array<CV>(32).fill(u(x));
    }
    return { kind: "scalar", steps: once(src), input };
  }
  const w = f.type === "b64" ? 64 : 32;
  const aKind = spec.kinds.a?.kind ?? "v";
  const mKind = spec.kinds.membermask?.kind ?? "v";
  const mm = u(0xffffffff);
  const srcFor = (values: bigint[]) => {
    const src: Partial<Record<SourceName, CV | CV[]>> = {};
    if (aKind === "v") src.a = values.map((x) => u(x, w));
    else if (aKind === "s") src.a = u(values[0]!, w);
    if (mKind === "v") src.membermask = new Array<CV>(32).fill(mm);
    else if (mKind === "s") src.membermask = mm;
    return src;
  };
  const same = new Array<bigint>(32).fill(w === 64 ? 0x0123456789abcdefn : 0x5n);
  // Distinct values that differ only in one half for b64, the worst case for a half compare.
  const distinct = Array.from({ length: 32 }, (_, l) => (w === 64 ? (BigInt(l) << 32n) | 0x5n : BigInt(l * 0x01010101 + 7) & 0xffffffffn));
  return { kind: "warp", k1: once(srcFor(same)), k32: aKind === "v" ? once(srcFor(distinct)) : null, checkerMax };
}

export const amdgpuReport: ReportService = {
  kind: "amdgpu",
  row: (spec: RoutineSpec, profile: Profile, t: VerifyTarget, row: VerifyRow | undefined, ran: boolean) => amdTarget(spec, (t as { mcpu: Mcpu }).mcpu, profile, row, ran),
};
