/**
 * @fileoverview Formatting of `ptx-lower report` (table or JSON) over src/report.ts.
 */
import type { ParsedModule } from "../src/ir/build.js";
import type { Profile } from "../src/ir/forms.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";

export async function report(_mods: ParsedModule[], _o: { mcpus: Mcpu[]; profile: Profile; json: boolean }): Promise<string> {
  throw new Error("report: not implemented yet");
}
