/**
 * @fileoverview The AMDGPU output target of the main job: a module's routines lowered for one
 * processor (the cheapest correct rule, hazard-padded; targets/amdgpu/lower.ts), each in the
 * routine contract's registers or in the caller's (`regs`, ./assign.ts), and printed
 * as one assembly file, the banner and each routine's `serves:` lines as comments.
 */
import type { ModuleLowering, OutputTargetService, LoweredRoutine } from "../../src/target/lower.js";
import type { AmdRoutine } from "./lower.js";
import { asmCommentText, lowerRoutine, printRoutine, rulesOf } from "./lower.js";
import { formName } from "../../src/ir/forms.js";
import { missingLowering } from "../../src/check/missing.js";
import type { Mcpu } from "./regs.js";
import { TARGETS } from "./regs.js";

declare module "../../src/target/lower.js" {
  interface TargetTypes {
    mcpu: Mcpu;
    amdgpu: AmdRoutine;
  }
}

export const amdgpuOutput: OutputTargetService = {
  name: "amdgpu",
  // The warp-level family has no AMDGPU rules yet (issue 15): src/lower.ts leaves it out, with a warning.
  missing: (spec) => (rulesOf(spec.form).length ? null : (missingLowering("AMDGPU", spec.form) ?? `no AMDGPU rule for ${formName(spec.form)}`)),
  describe: (mcpu) => `amdgpu ${mcpu ?? "gfx942"} (wave${TARGETS[(mcpu ?? "gfx942") as Mcpu].wave})`,
  async lowerModule(m: ModuleLowering) {
    const t = TARGETS[(m.mcpu ?? "gfx942") as Mcpu];
    const out: LoweredRoutine[] = [];
    const parts: string[] = [m.banner.map((l) => `; ${asmCommentText(l)}`).join("\n"), "\t.text"];
    for (const r of m.routines) {
      let amd: AmdRoutine;
      try {
        amd = lowerRoutine(r.spec, t, m.profile, m.regs ? { regs: m.regs, ...(m.scratch ? { scratch: m.scratch } : {}) } : "contract");
      } catch (e) {
        // An assignment the routine cannot take: named with the routine and where it is used.
        if (e instanceof TypeError && m.regs) throw new TypeError(`routine ${r.name} (${m.served(r.insts.slice(0, 1))[0]}): ${e.message.replace(/^lowerRoutine: /, "")}`);
        throw e;
      }
      out.push({ name: r.name, spec: r.spec, rule: amd.rule, insts: r.insts, count: amd.count, amdgpu: amd });
      parts.push(printRoutine(r.name, amd, ["serves:", ...m.served(r.insts).map((w) => `  ${w}`)]));
    }
    return { text: parts.join("\n\n") + "\n", routines: out };
  },
};
