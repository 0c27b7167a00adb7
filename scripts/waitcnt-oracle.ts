/**
 * @fileoverview LLVM's `si-insert-waitcnts` as the oracle of our LDS waits (issue 15 item 3,
 * "Done when" line 4), over every warp-level routine on all five processors:
 *
 *   npx tsx scripts/waitcnt-oracle.ts [--mcpu gfx942|all] [--family warp|all] [--every N] [--show N]
 *
 * Routines: the matrix of scripts/hazard-oracle.ts (`matrixOfSpecs`: `verify --all`'s operand
 * kinds and the prove matrix, every applicable rule, both profiles, deduplicated). Each runs,
 * in every boundary pairing of the routine contract, through
 * `llc-19 -run-pass=si-insert-waitcnts` (targets/amdgpu/mir.ts `oracle`, which drops the
 * `S_WAITCNT 0` the pass puts at function entry): it must add nothing. Teeth: every
 * `s_waitcnt` of a routine deleted once must make LLVM add a wait back (the wait is needed:
 * a `ds_bpermute_b32` result read, or outstanding at exit); test/hazard_oracle.test.ts also
 * has our interpreter's LDS wait model refute those variants, so the two models agree on a
 * sample. Exits 1 when LLVM adds a wait to a routine, or a deleted wait
 * is not asked back by LLVM.
 */
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { Family } from "../src/ir/forms.js";
import { FAMILIES } from "../src/ir/forms.js";
import type { MInst, MLine } from "../targets/amdgpu/minst.js";
import { isLabel } from "../targets/amdgpu/minst.js";
import type { OracleItem } from "../targets/amdgpu/mir.js";
import { findingText, mirToolsAvailable, oracle } from "../targets/amdgpu/mir.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import { MCPUS, TARGETS } from "../targets/amdgpu/regs.js";
import { matrixOfSpecs, matrixRoutines } from "./hazard-oracle.js";

/** The result on one processor. */
export interface WaitcntReport {
  mcpu: Mcpu;
  routines: number;
  functions: number;
  /** Routines to which LLVM added a wait (beyond the entry `S_WAITCNT 0`), with what. */
  added: { label: string; finding: string }[];
  /** `s_waitcnt` lines in the routines, and those whose deletion LLVM did not answer with a wait. */
  waits: number;
  notAskedBack: { label: string; line: number }[];
  seconds: number;
}

const isWaitcnt = (l: MLine): l is MInst => !isLabel(l) && l.op === "s_waitcnt";

/** One variant per `s_waitcnt`: that line deleted. */
export function waitcntDeletions(lines: readonly MLine[]): { line: number; lines: MLine[] }[] {
  const out: { line: number; lines: MLine[] }[] = [];
  lines.forEach((l, k) => {
    if (isWaitcnt(l)) out.push({ line: k, lines: lines.filter((_, j) => j !== k) });
  });
  return out;
}

/**
 * Runs the oracle over `items` on `mcpu`: what LLVM adds to each routine, and to each
 * routine with one `s_waitcnt` deleted.
 * @throws Error when llc-19 / llvm-mc-19 are absent.
 */
export async function waitcntOracle(mcpu: Mcpu, items: readonly OracleItem[]): Promise<WaitcntReport> {
  const have = mirToolsAvailable();
  if (!have.ok) throw new Error(`waitcnt oracle: ${have.reason}`);
  const t0 = performance.now();
  const t = TARGETS[mcpu];
  const verdicts = await oracle(t, items, "si-insert-waitcnts");
  const added = verdicts.filter((v) => !v.clean).map((v) => ({ label: v.item.label, finding: findingText(v.findings[0]!) }));
  const vs = items.flatMap((it) => waitcntDeletions(it.lines ?? it.routine.lines).map((d) => ({ it, d })));
  const got = await oracle(
    t,
    vs.map(({ it, d }) => ({ label: it.label, routine: it.routine, lines: d.lines })),
    "si-insert-waitcnts",
  );
  const notAskedBack = got.flatMap((g, k) => (g.findings.some((f) => !f.error && f.inserted.some((x) => /^S_WAITCNT/.test(x.text))) ? [] : [{ label: vs[k]!.it.label, line: vs[k]!.d.line }]));
  return { mcpu, routines: items.length, functions: verdicts.reduce((n, v) => n + v.functions, 0), added, waits: vs.length, notAskedBack, seconds: (performance.now() - t0) / 1000 };
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      mcpu: { type: "string", default: "all" },
      family: { type: "string", default: "warp" },
      every: { type: "string", default: "1" },
      show: { type: "string", default: "5" },
    },
  });
  const mcpus = values.mcpu === "all" ? MCPUS : (values.mcpu!.split(",") as Mcpu[]);
  for (const m of mcpus) if (!MCPUS.includes(m)) throw new Error(`unknown mcpu ${m}`);
  const families = values.family === "all" ? FAMILIES : (values.family!.split(",") as Family[]);
  for (const f of families) if (!FAMILIES.includes(f)) throw new Error(`unknown family ${f}`);
  const show = Number(values.show);
  const specs = matrixOfSpecs(families, Number(values.every));
  let routines = 0;
  let added = 0;
  let waits = 0;
  let notBack = 0;
  const t0 = performance.now();
  for (const mcpu of mcpus) {
    const { items } = matrixRoutines(mcpu, specs);
    const r = await waitcntOracle(mcpu, items);
    routines += r.routines;
    added += r.added.length;
    waits += r.waits;
    notBack += r.notAskedBack.length;
    console.log(`${mcpu}: si-insert-waitcnts adds nothing beyond the entry S_WAITCNT 0: ${r.routines - r.added.length}/${r.routines} routines (${r.functions} MIR functions); s_waitcnt deleted → LLVM asks it back: ${r.waits - r.notAskedBack.length}/${r.waits}; ${r.seconds.toFixed(1)} s`);
    for (const a of r.added.slice(0, show)) console.log(`  ADDED ${a.label}: ${a.finding}`);
    for (const n of r.notAskedBack.slice(0, show)) console.log(`  NOT ASKED BACK ${n.label}: line ${n.line}`);
  }
  console.log(`total: ${routines} routines × processors, waits added ${added}; ${waits} s_waitcnt, ${waits - notBack} asked back when deleted; ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return added === 0 && notBack === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) process.exit(await main());
