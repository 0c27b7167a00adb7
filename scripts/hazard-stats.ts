/**
 * @fileoverview `tsx scripts/hazard-stats.ts [--every N]`: what the hazard pass costs and what
 * its reordering hides, per processor, over the form matrix of the hazard oracle
 * (scripts/hazard-oracle.ts `matrixOfSpecs`, every applicable rule, both profiles, distinct
 * routines): routines with waits, the waits' static issue cycles, and the wait cycles that
 * reordering hid (a loop body's counted 32 times, as the pass weighs them).
 */
import { FAMILIES } from "../src/ir/forms.js";
import { MCPUS } from "../targets/amdgpu/regs.js";
import { matrixOfSpecs, matrixRoutines } from "./hazard-oracle.js";

const i = process.argv.indexOf("--every");
const every = i >= 0 ? Number(process.argv[i + 1]) : 1;
const specs = matrixOfSpecs(FAMILIES, every);
for (const mcpu of MCPUS) {
  const t0 = performance.now();
  const { items } = matrixRoutines(mcpu, specs);
  let withWaits = 0;
  let waits = 0;
  let hidden = 0;
  let reordered = 0;
  let cycles = 0;
  for (const { routine: r } of items) {
    cycles += r.count;
    waits += r.waits;
    hidden += r.hidden;
    if (r.waits) withWaits++;
    if (r.hidden) reordered++;
  }
  console.log(
    `${mcpu}: ${items.length} routines, ${cycles} static issue cycles; ${withWaits} with waits (${waits} wait cycles, ${((100 * waits) / cycles).toFixed(1)}%); reordering hid ${hidden} wait cycles in ${reordered} routines (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
  );
}
