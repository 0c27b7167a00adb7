/**
 * @fileoverview The JS and C output targets of the main job: a module's routines lowered
 * once to the portable IR (the rule of targets/portable/rules, shared by both), and printed
 * as one ES module or one C header, each routine under a header comment with its contract
 * and the PTX locations it serves.
 */
import type { Profile } from "../../src/ir/forms.js";
import { formName } from "../../src/ir/forms.js";
import type { RoutineSpec } from "../../src/ir/ir.js";
import { familyOf } from "../../src/families/index.js";
import type { LoweredRoutine, ModuleLowering, ModuleRoutine, OutputTargetService } from "../../src/target/lower.js";
import { lowerPortable } from "./rules/index.js";
import type { PirFunction } from "./pir.js";
import { printJsModule } from "../js/print.js";
import { printCModule } from "../c/print.js";

declare module "../../src/target/lower.js" {
  interface TargetTypes {
    pir: PirFunction;
  }
}

/**
 * Text of the routine contract for the portable targets (design.md appendix), with the
 * parameter list of the printed function itself (`fn.params`: an operand folded as an
 * immediate is no parameter), lanes as `name[32]`.
 */
function portableContract(spec: RoutineSpec, fn: PirFunction): string {
  const warp = familyOf(spec.form).shape === "warp";
  if (familyOf(spec.form).name === "warp") {
    // The warp-level family: predicates are u32 lane masks (targets/portable/rules/warp.ts).
    const lane = (p: PirFunction["params"][number], pred: boolean) => (pred ? `${p.name} (u32 lane mask)` : p.type.t === "arr" ? `${p.name}[${p.type.n}]` : p.name);
    const ps = fn.params.map((p) => lane(p, p.type.t !== "arr" && ((p.name === "a" && spec.form.op === "vote") || p.name === "dPrior" || p.name === "active"))).join(", ");
    const rs = fn.results.map((r) => (r.type.t === "arr" ? `${r.name}[${r.type.n}]` : `${r.name} (u32 lane mask)`));
    const folded = Object.values(spec.kinds).some((k) => k?.kind === "imm");
    const keeps = ["dPrior", "pPrior"].filter((n) => fn.params.some((p) => p.name === n));
    return `contract: (${ps}) → ${rs.length ? `{${rs.join(", ")}}` : "nothing"}; ${spec.guarded && keeps.length ? `lanes with g false keep ${keeps.join("/")}; ` : ""}lanes outside active or with an undefined result may hold any value${folded ? " (immediates folded into the routine)" : ""}`;
  }
  const params = fn.params
    .map((p) => (warp && p.name === "membermask" ? "membermask (u32 or u32[32])" : warp && p.name === "active" ? "active (u32 lane mask)" : p.type.t === "arr" ? `${p.name}[${p.type.n}]` : p.name))
    .join(", ");
  const folded = Object.values(spec.kinds).some((k) => k?.kind === "imm");
  if (!warp)
    return `contract: (${params}) → d over u32 values${spec.guarded ? "; d = dPrior where g is false" : ""}${folded ? " (immediates folded into the routine)" : ""}`;
  return `contract: (${params}) → {d[32], p[32]}; ${spec.guarded ? `lanes with g false keep ${["dPrior", "pPrior"].filter((n) => fn.params.some((p) => p.name === n)).join("/")}; ` : ""}lanes outside active or with an undefined result may hold any value${folded ? " (immediates folded into the routine)" : ""}`;
}

/**
 * The header comment of a routine in JS and C output: its name, form and rule, the contract,
 * and the PTX locations it serves.
 */
export function portableHeader(name: string, spec: RoutineSpec, fn: PirFunction, rule: string, served: readonly string[]): string {
  return [`${name}: ${formName(spec.form)}  —  rule ${rule}`, portableContract(spec, fn), "serves:", ...served.map((w) => `  ${w}`)].join("\n");
}

/**
 * The include guard of a routine in C output: its name, and where the family's meaning
 * depends on it (vshl/vshr) the profile, so that including an `isa` and an `sm90` header that
 * both define a video routine fails to compile (a redefinition) instead of silently picking one.
 */
function cGuard(r: ModuleRoutine, profile: Profile): string {
  return `PTX_LOWER_${r.name}${familyOf(r.spec.form).profileSensitive ? `_${profile}` : ""}`;
}

/** A routine's portable lowering (rule and PIR), made once for both the JS and the C target. */
type Portable = ReturnType<typeof lowerPortable>;
const portables = new WeakMap<ModuleRoutine, Map<Profile, Portable>>();

function portableOf(r: ModuleRoutine, profile: Profile): Portable {
  let byProfile = portables.get(r);
  if (!byProfile) portables.set(r, (byProfile = new Map()));
  let p = byProfile.get(profile);
  if (!p) byProfile.set(profile, (p = lowerPortable(r.spec, profile)));
  return p;
}

function portableOutput(name: "js" | "c"): OutputTargetService {
  return {
    name,
    describe: () => name,
    async lowerModule(m: ModuleLowering) {
      const out: LoweredRoutine[] = [];
      const printable = m.routines.map((r) => {
        const { rule, fn } = portableOf(r, m.profile);
        out.push({ name: r.name, spec: r.spec, rule: rule.name, insts: r.insts, pir: fn });
        const header = portableHeader(r.name, r.spec, fn, rule.name, m.served(r.insts));
        return { name: r.name, fn: { ...fn, name: r.name }, header };
      });
      const banner = m.banner.join("\n");
      const text =
        name === "js"
          ? await printJsModule(printable, { banner })
          : printCModule(printable, { banner, inline: true, guards: m.routines.map((r) => cGuard(r, m.profile)) });
      return { text, routines: out };
    },
  };
}

export const jsOutput = portableOutput("js");
export const cOutput = portableOutput("c");
