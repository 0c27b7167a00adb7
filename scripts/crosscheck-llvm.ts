/**
 * @fileoverview `npm run crosscheck:llvm`: the AMDGPU records and interpreter checked in full
 * against LLVM 19 (targets/amdgpu/oracle/llvm.ts). Prints, per record, "agrees on N cases" or "no LLVM
 * counterpart: <manual section>"; per form class, how many lane results agreed; and every
 * disagreement with the side that is wrong and why. Exits 1 when a record disagrees or is
 * uncovered, when llc's code cannot be run, or when a disagreement is not put on LLVM's side.
 *
 * Hazards (issue 11 item 4): every function of llc's code run at sequence level is checked
 * by our hazard model under LLVM's entry assumption, and every wait LLVM put there must be
 * needed by it (targets/amdgpu/oracle/llc_hazards.ts); then every routine of the form matrix, on all five
 * processors, runs through `llc-19 -run-pass=post-RA-hazard-rec` with its boundary producers
 * and consumers and must get nothing added, and every wait in it must be minimal
 * (scripts/hazard-oracle.ts `hazardOracleMatrix`). Both print their wall time; failures are
 * grouped by site and likely rule, and make the exit status 1.
 *
 *   tsx scripts/crosscheck-llvm.ts [--seed N] [--per-record N] [--sel N] [--runs N] [--quick]
 *        [--oracle-every N] [--no-oracle]
 */
import {
  controlFunctions,
  crosscheckRecords,
  crosscheckSequences,
  defectFunctions,
  formatRecordReport,
  formatSeqReport,
  llvmAvailable,
  matchFunctions,
  szextFunctions,
  videoForms,
  videoFunctions,
  xlaneFunctions,
} from "../targets/amdgpu/oracle/llvm.js";
import type { SeqFunction } from "../targets/amdgpu/oracle/llvm.js";
import type { LlcFunction } from "../targets/amdgpu/oracle/llc_hazards.js";
import { checkLlcHazards, formatLlcHazards } from "../targets/amdgpu/oracle/llc_hazards.js";
import { targetName } from "../targets/amdgpu/oracle/llvm.js";
import { warpRecordFunctions, warpRecordGroups } from "../targets/amdgpu/oracle/warp_records.js";
import { mirToolsAvailable } from "../targets/amdgpu/mir.js";
import { hazardOracleMatrix } from "./hazard-oracle.js";

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

async function main(): Promise<number> {
  const t0 = Date.now();
  const quick = process.argv.includes("--quick");
  const seed = arg("seed", 20261129);
  const perRecord = arg("per-record", quick ? 100 : 1200);
  const sel = arg("sel", quick ? 0 : 3);
  const runs = arg("runs", quick ? 1 : 3);
  const have = llvmAvailable();
  if (!have.ok) {
    console.log(`crosscheck:llvm skipped: ${have.reason}`);
    return 0;
  }
  console.log(`AMDGPU records and interpreter vs LLVM 19 (opt-19, llc-19); seed ${seed}`);

  console.log(`\n== Record level: ${perRecord} constant-operand calls per record, folded by opt-19 -mtriple=amdgcn -passes=instcombine`);
  const records = await crosscheckRecords({ perRecord, seed });
  for (const r of records) console.log(formatRecordReport(r));
  const verdicts = new Map(records.map((r) => [r.mnemonic, r.status]));
  const count = (s: string) => records.filter((r) => r.status === s).length;
  console.log(
    `records: ${count("agrees")} agree, ${count("no-counterpart")} have no LLVM counterpart, ${count("disagrees")} disagree, ${count("not-folded")} not folded, ${count("uncovered")} uncovered (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
  );

  const profiles = ["isa", "sm90"] as const;
  const funcs: SeqFunction[] = [
    ...szextFunctions(),
    ...defectFunctions(),
    ...matchFunctions(),
    ...xlaneFunctions(),
    ...warpRecordFunctions(),
    ...controlFunctions(),
    ...videoFunctions(videoForms(sel), profiles, 4),
  ];
  console.log(
    `\n== Sequence level: ${funcs.length} IR functions (derived from the reference / best IR / match loops / the known defect / cross-lane primitives and the warp records' intrinsics / branches and loops), llc-19 for gfx900 gfx90a gfx942 gfx1030 gfx1100 (+wave64 for gfx10/11 wave code), run in targets/amdgpu/interp.ts`,
  );
  const t1 = Date.now();
  let last = 0;
  const llcCode: LlcFunction[] = [];
  const seq = await crosscheckSequences({
    funcs,
    runs,
    seed,
    allInputs: ["szext", "defect", "control"],
    runsFor: { match: quick ? 10 : 200, xlane: quick ? 10 : 100 },
    uniformLanes: quick ? 16 : 1,
    recordVerdicts: verdicts,
    onCode: (sf, t, code) => llcCode.push({ label: sf.label, target: targetName(t), mcpu: t.mcpu, wave: t.wave, lines: code }),
    onProgress: (m) => {
      if (Date.now() - last > 20000) {
        last = Date.now();
        console.log(`  … ${m} (${((Date.now() - t1) / 1000).toFixed(0)} s)`);
      }
    },
  });
  for (const r of seq) console.log(formatSeqReport(r));

  // What vouches for the records without a folding counterpart: the sequence-level runs, if
  // llc's code used them (every such run agreed, or its disagreement is listed above).
  const used = new Map<string, number>();
  for (const r of seq) for (const [m, n] of r.mnemonics) used.set(m, (used.get(m) ?? 0) + n);
  console.log("\n== Records without an LLVM folding counterpart, as exercised by llc's code at sequence level");
  for (const r of records.filter((x) => x.status === "no-counterpart")) {
    const n = used.get(r.mnemonic) ?? 0;
    console.log(`${r.mnemonic.padEnd(22)} ${n ? `in ${n} static instruction(s) of llc's code run above` : "not used by llc's code here: only the manual vouches for it"}`);
  }
  // The warp records' intrinsics (./warp_records.ts) exist to exercise these: llc's code for
  // them not using one means that record went unchecked, a failure.
  const unexercised = [...new Set(Object.values(warpRecordGroups()).flatMap((g) => g.mnemonics))].filter((m) => !used.has(m));
  if (unexercised.length) console.log(`NOT EXERCISED: llc's code for the warp records' intrinsics never used ${unexercised.join(", ")}`);

  // Issue 11 item 4(b): llc's own functions (the ones run above, waits kept) under our hazard model.
  const tH = Date.now();
  console.log(`\n== Hazards in llc's code: checkHazards(…, target at its wave, LLVM_ENTRY) on every function above; every wait LLVM inserted weakened once`);
  const llcHaz = checkLlcHazards(llcCode);
  for (const l of formatLlcHazards(llcHaz)) console.log(l);
  console.log(`  (${((Date.now() - tH) / 1000).toFixed(1)} s)`);
  const hazardBad = llcHaz.flagged.length + llcHaz.unexplained.length;

  // Issue 11 item 4(a): every routine of the form matrix, every processor, through LLVM's recognizer.
  let oracleBad = 0;
  const mirHave = mirToolsAvailable();
  if (process.argv.includes("--no-oracle")) console.log("\n== Hazard oracle: skipped (--no-oracle)");
  else if (!mirHave.ok) console.log(`\n== Hazard oracle: skipped, ${mirHave.reason}`);
  else {
    const every = arg("oracle-every", quick ? 8 : 1);
    const tO = Date.now();
    console.log(`\n== Hazard oracle: the form matrix${every > 1 ? ` (one form in ${every})` : ""} as MIR through llc-19 -run-pass=post-RA-hazard-rec, every boundary producer/consumer; minimality of every wait`);
    const reps = await hazardOracleMatrix({ every, show: 8 });
    for (const r of reps) {
      const notMin = r.minimality.filter((m) => !m.minimal);
      const required = notMin.filter((m) => m.requiredBy.length > 0);
      console.log(
        `${r.mcpu}: post-RA-hazard-rec adds nothing: ${r.clean}/${r.routines} routines; minimality: ${r.waits - notMin.length}/${r.waits} waits make LLVM add a wait back when weakened` +
          `${required.length ? `, ${required.length} more required by the manual's row although LLVM does not` : ""}${notMin.length - required.length ? `, ${notMin.length - required.length} NOT MINIMAL` : ""} (${r.seconds.toFixed(1)} s)`,
      );
      oracleBad += r.failing.length + notMin.length - required.length;
    }
    console.log(`hazard oracle wall time ${((Date.now() - tO) / 1000).toFixed(1)} s`);
  }

  const seqDis = seq.flatMap((r) => r.disagreements);
  const notLlvm = seqDis.filter((d) => d.side !== "LLVM");
  const unsupported = seq.flatMap((r) => r.unsupported);
  const bad = count("disagrees") + count("uncovered") + count("not-folded") + unsupported.length + notLlvm.length + unexercised.length + hazardBad + oracleBad;
  console.log(
    `\n== Summary: records ${count("agrees")}/${records.length} agree (${count("no-counterpart")} without counterpart, listed with their manual section); ` +
      `sequences ${seq.reduce((s, r) => s + r.agreed, 0)} of ${seq.reduce((s, r) => s + r.cases, 0)} lane results agreed; ` +
      `${seqDis.length} disagreements, ${seqDis.length - notLlvm.length} of them LLVM's; ${unsupported.length} not runnable; ${unexercised.length} warp records not exercised; ` +
      `hazards: ${llcHaz.flagged.length} of llc's ${llcHaz.functions} functions flagged, ${llcHaz.unexplained.length} of its ${llcHaz.waits} waits unexplained; ` +
      `oracle: ${oracleBad} routines with an LLVM insertion or a non-minimal wait; ` +
      `${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  if (bad) console.log(`FAILED: ${bad} problem(s) above are not LLVM's (record disagreements, uncovered records, unrunnable code, disagreements on the project's side, warp records llc's code did not exercise, our hazard flags on llc's code or its unexplained waits, routines LLVM adds a wait to, non-minimal waits)`);
  return bad ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(2);
  },
);
