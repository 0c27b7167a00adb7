/**
 * @fileoverview The output targets of the composition root (src/compose.ts), each imported at
 * its first use: importing this file registers them (src/target/registry.ts
 * `registerOutputTargets`) without loading any of them, so that `ptx-lower lower --target
 * amdgpu` loads the AMDGPU lowering and not the JavaScript printer (prettier), the C printer
 * (the clang-format WebAssembly) or the checkers and provers. src/compose.ts registers these
 * same objects with every other service; the CLI's `lower` and `port` import only this file.
 */
import { registerOutputTargets } from "./target/registry.js";
import type { LowerServices, OutputTargetService } from "./target/lower.js";
import { MCPUS } from "../targets/amdgpu/regs.js";

/**
 * An output target whose implementation `load` imports at the first `load()` or
 * `lowerModule` call; `describe` and `missing` answer once it is loaded (src/lower.ts awaits
 * `load()` before calling them).
 */
function lazyOutput(name: string, load: () => Promise<OutputTargetService>): OutputTargetService {
  let impl: OutputTargetService | null = null;
  const loaded = (): OutputTargetService => {
    if (!impl) throw new Error(`ptx-lower: the ${name} output target is not loaded yet (await its load() first)`);
    return impl;
  };
  return {
    name,
    async load() {
      impl ??= await load();
    },
    describe: (mcpu) => loaded().describe(mcpu),
    missing: (spec) => loaded().missing?.(spec) ?? null,
    async lowerModule(m) {
      impl ??= await load();
      return impl.lowerModule(m);
    },
  };
}

/** The output targets, in `--target all` order, and the AMDGPU processors. */
export const OUTPUTS: LowerServices = {
  targets: [
    lazyOutput("amdgpu", async () => (await import("../targets/amdgpu/module.js")).amdgpuOutput),
    lazyOutput("js", async () => (await import("../targets/portable/module.js")).jsOutput),
    lazyOutput("c", async () => (await import("../targets/portable/module.js")).cOutput),
    lazyOutput("hip", async () => (await import("../targets/hip/module.js")).hipOutput),
    lazyOutput("llvm", async () => (await import("../targets/hip/module.js")).llvmOutput),
  ],
  mcpus: MCPUS,
};
registerOutputTargets(OUTPUTS);
