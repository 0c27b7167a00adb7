/**
 * @fileoverview AMDGPU routine pass "rename90a": on gfx90a a 64-bit shift's count must not be
 * in v(8k+7) (LLVM `fixShift64HighRegBug`; targets/amdgpu/hazards.ts `shift64HighRegHits`).
 * Such a scratch count is renamed to a fresh scratch VGPR: register choice, not semantics.
 */
import type { RoutineState } from "../targets/amdgpu/lower.js";
import { hazardTarget, shift64HighRegHits } from "../targets/amdgpu/hazards.js";
import { isLabel } from "../targets/amdgpu/minst.js";
import type { Pass } from "./types.js";

export const rename90a: Pass<RoutineState> = {
  name: "rename90a",
  run(x) {
    const { m } = x;
    let emitted = x.lines;
    for (const n of shift64HighRegHits(emitted, hazardTarget(x.t))) {
      const inPair = emitted.some((l) => !isLabel(l) && l.ops.some((o) => o.k === "v" && o.count === 2 && (o.n === n || o.n + 1 === n)));
      if (n < m.layout.vScratch || inPair) continue;
      let fresh = m.vtmp();
      while (fresh.k === "v" && fresh.n % 8 === 7) fresh = m.vtmp();
      emitted = emitted.map((l) => (isLabel(l) ? l : { ...l, ops: l.ops.map((o) => (o.k === "v" && o.count === 1 && o.n === n ? fresh : o)) }));
    }
    x.lines = emitted;
    return x;
  },
};
