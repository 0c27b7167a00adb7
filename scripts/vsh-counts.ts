/**
 * @fileoverview Static instruction counts of the vshl/vshr AMDGPU routines, per class
 * (vop, .sat, tail kind, selectors yes/no) and mcpu: min–max (mean) over every form of the
 * class, both profiles, all operands divergent by default (kinds v, v, v). Also the
 * winning rules.
 *
 *   npx tsx scripts/vsh-counts.ts            # the table
 *   npx tsx scripts/vsh-counts.ts --profile isa|sm90
 *   npx tsx scripts/vsh-counts.ts --kinds s,v,imm7     # a, b, c kinds (imm<N>: an immediate)
 */
import type { Profile, VshForm } from "../src/ir/forms.js";
import { PROFILES, vshForms } from "../src/ir/forms.js";
import type { OperandKind, RoutineSpec } from "../src/ir/ir.js";
import { lowerRoutine } from "../targets/amdgpu/lower.js";
import { MCPUS, TARGETS } from "../targets/amdgpu/regs.js";

const arg = process.argv.indexOf("--profile");
const profiles: readonly Profile[] = arg > 0 ? [process.argv[arg + 1] as Profile] : PROFILES;
const karg = process.argv.indexOf("--kinds");
const kindSpec = karg > 0 ? process.argv[karg + 1]!.split(",") : ["v", "v", "v"];
const kindOf = (x: string): OperandKind => (x.startsWith("imm") ? { kind: "imm", value: BigInt(x.slice(3)) & 0xffffffffn } : { kind: x as "v" | "s" });
const kinds = { a: kindOf(kindSpec[0]!), b: kindOf(kindSpec[1]!), c: kindOf(kindSpec[2]!) };

const tailKind = (f: VshForm) => (f.tail.kind === "op2" ? f.tail.op2 : f.tail.kind);
const classOf = (f: VshForm) => `${f.op} ${f.sat ? "sat " : "    "}${tailKind(f).padEnd(5)} ${f.asel || f.bsel ? "sel" : "-  "}`;

interface Stat {
  min: number;
  max: number;
  sum: number;
  n: number;
}
const stats = new Map<string, Map<string, Stat>>();
const rules = new Map<string, number>();
for (const f of vshForms()) {
  const cls = classOf(f);
  let row = stats.get(cls);
  if (!row) stats.set(cls, (row = new Map()));
  for (const profile of profiles)
    for (const mcpu of MCPUS) {
      const spec: RoutineSpec = { form: f, kinds, guarded: false };
      const r = lowerRoutine(spec, TARGETS[mcpu], profile);
      rules.set(r.rule, (rules.get(r.rule) ?? 0) + 1);
      const s = row.get(mcpu) ?? { min: Infinity, max: 0, sum: 0, n: 0 };
      s.min = Math.min(s.min, r.count);
      s.max = Math.max(s.max, r.count);
      s.sum += r.count;
      s.n++;
      row.set(mcpu, s);
    }
}

const cell = (s: Stat) => `${s.min === s.max ? `${s.min}` : `${s.min}-${s.max}`} (${(s.sum / s.n).toFixed(1)})`.padEnd(13);
console.log(`static instruction counts, kinds ${kindSpec.join(",")}, profiles ${profiles.join("+")}: min-max (mean) per class`);
console.log(`${"class".padEnd(22)} ${MCPUS.map((m) => m.padEnd(13)).join(" ")}`);
for (const [cls, row] of [...stats].sort(([a], [b]) => a.localeCompare(b))) console.log(`${cls.padEnd(22)} ${MCPUS.map((m) => cell(row.get(m)!)).join(" ")}`);
console.log("\nchosen rules:", [...rules].map(([r, n]) => `${r} ${n}`).join(", "));
