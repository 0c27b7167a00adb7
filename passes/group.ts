/**
 * @fileoverview Module pass "group": the module's family instructions grouped by routine
 * identity (form × operand kinds × guarded, src/ir/ir.ts `routineName`), in first-occurrence
 * order; every occurrence of one identity shares one routine.
 */
import type { ParsedModule } from "../src/ir/build.js";
import type { RoutineSpec } from "../src/ir/ir.js";
import { routineName } from "../src/ir/ir.js";
import { formId } from "../src/ir/forms.js";
import type { FamilyInst } from "../src/ir/ir.js";
import type { ModuleRoutine } from "../src/target/lower.js";
import type { Pass } from "./types.js";

export const group: Pass<{ mod: ParsedModule; specs: ReadonlyMap<FamilyInst, RoutineSpec> }, ModuleRoutine[]> = {
  name: "group",
  run({ mod, specs }) {
    const byName = new Map<string, ModuleRoutine>();
    // Occurrences share form objects (src/ir/build.ts): name each form once.
    const formIds = new Map<RoutineSpec["form"], string>();
    const idOf = (f: RoutineSpec["form"]) => {
      let id = formIds.get(f);
      if (id === undefined) formIds.set(f, (id = formId(f)));
      return id;
    };
    mod.insts.forEach((inst) => {
      const spec = specs.get(inst)!;
      const name = routineName(spec, idOf);
      const r = byName.get(name);
      if (r) r.insts.push(inst);
      else byName.set(name, { name, spec, insts: [inst] });
    });
    // The resolved instructions served the uniformity pass; they are tens of MB in a large
    // module, and nothing after this needs them (routineSpecs would resolve `mod.ast` again).
    delete mod.resolved;
    return [...byName.values()];
  },
};
