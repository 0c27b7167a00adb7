/**
 * @fileoverview The `hip` and `llvm` output targets of the main job (issue 14): the module's
 * routines as callable functions — one HIP header (`NAME.hip.h`, `__device__` functions) or
 * one LLVM IR module (`NAME.ll`) — one function per (form, immediates), operand kinds
 * collapsed (targets/llvm/callable.ts). Processor-independent: one output serves all five.
 */
import type { LoweredRoutine, ModuleLowering, OutputTargetService } from "../../src/target/lower.js";
import { missingLowering } from "../../src/check/missing.js";
import type { printHipModule } from "./print.js";

/**
 * A callable-functions target: `print` (imported at the first module lowered: the LLVM IR
 * target does not load the HIP printer and the C printer under it) over the module's routines. The HIP header also takes
 * the module's `language` and `warpSize` (src/target/lower.ts `ModuleLowering`); LLVM IR is
 * the same for every source language and has no `warpSize` to define, so it ignores them.
 */
function callableOutput(name: "hip" | "llvm", load: () => Promise<typeof printHipModule>): OutputTargetService {
  return {
    name,
    // The warp-level family has no callable functions yet (issue 15 item 4): src/lower.ts leaves it out, with a warning.
    missing: (spec) => missingLowering(name === "hip" ? "HIP" : "LLVM IR", spec.form),
    describe: () => `${name} (callable functions; every processor)`,
    async lowerModule(m: ModuleLowering) {
      const print = await load();
      const routines: LoweredRoutine[] = m.routines.map((r) => ({ name: r.name, spec: r.spec, rule: name === "hip" ? "hip_callable" : "llvm_callable", insts: r.insts }));
      const opts = { banner: m.banner.join("\n"), profile: m.profile };
      return { text: name === "hip" ? print(m.routines, { ...opts, language: m.language, warpSize: m.warpSize }) : print(m.routines, opts), routines };
    },
  };
}

export const hipOutput = callableOutput("hip", async () => (await import("./print.js")).printHipModule);
export const llvmOutput = callableOutput("llvm", async () => (await import("../llvm/print.js")).printLlvmModule);
