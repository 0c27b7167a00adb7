/**
 * The order CI starts the test files in (vitest.config.ts `sequence.sequencer`): within a
 * group, the files known to be long first, then the rest by size, largest first, so that the
 * two workers finish close together instead of one running a long file alone at the end.
 * Vitest's own order does that from its results cache, which a clean clone (CI) does not have:
 * there it keeps the glob order, alphabetical, which started warp_amdgpu (176 s) and
 * vsh_amdgpu 9 and 12 minutes into a 17-minute group. Where the cache is there (a second local
 * run), vitest's order stands.
 */
import { statSync } from "node:fs";
import { relative } from "node:path";
import type { TestSpecification } from "vitest/node";
import { BaseSequencer } from "vitest/node";

/**
 * Wall seconds per file in a clean-clone `bash .ci/run` (2 cores, 2026-12-07), the files over
 * 40 s; a stale figure only changes the order, never what runs.
 */
const SECONDS: Record<string, number> = {
  "test/warp_amdgpu.test.ts": 176,
  "test/hazard_oracle.test.ts": 174,
  "test/warp_prove_tree.test.ts": 127,
  "test/port.test.ts": 126,
  "test/prove_compiled_loop.test.ts": 121,
  "test/proof_cache.test.ts": 95,
  "test/robustness.test.ts": 93,
  "test/vsh_amdgpu.test.ts": 88,
  "test/operand_parity.test.ts": 68,
  "test/warp_waterfall.test.ts": 66,
  "test/cli.test.ts": 63,
  "test/output.test.ts": 61,
  "test/hip_llvm.test.ts": 61,
  "test/regs.test.ts": 60,
  "test/prove_compiled_warp.test.ts": 60,
  "test/szext_amdgpu.test.ts": 60,
  "test/shell.test.ts": 59,
  "test/portable.test.ts": 57,
  "test/port_real.test.ts": 48,
  "test/docs.test.ts": 47,
  "test/port_header.test.ts": 46,
};

export default class LongFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const cached = files.every((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(root, f.moduleId)}`));
    if (cached) return super.sort(files);
    const weight = (f: TestSpecification) => {
      const rel = relative(root, f.moduleId);
      // Unknown files after every listed one, by size (bytes, a few hundred thousand at most).
      return (SECONDS[rel] ?? 0) * 1e9 + statSync(f.moduleId).size;
    };
    return [...files].sort((a, b) => a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || weight(b) - weight(a));
  }
}
