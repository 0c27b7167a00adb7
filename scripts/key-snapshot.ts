/**
 * Prints one line per proof item of a matrix sample — family, target, profile, rule, query
 * key — then a SHA-1 over all lines. The redesign must keep this output identical (the keys
 * are what `prove:all` shares proofs by). Usage: npx tsx scripts/key-snapshot.ts [videoEvery=200]
 */
import "../src/compose.js";
import { createHash } from "node:crypto";
import { matrixRows, itemKey } from "../src/check/prove_worker.js";
import { routineName } from "../src/ir/ir.js";
import { formId } from "../src/ir/forms.js";

const every = Number(process.argv[2] ?? 200);
const lines: string[] = [];
for (const [family, ev] of [["szext", 1], ["match", 1], ["video", every]] as const) {
  for (const row of matrixRows(family, ev)) {
    for (const rule of row.rules) {
      const key = await itemKey({ spec: row.spec, target: row.target, profile: row.profile, rule });
      const t = row.target.kind === "amdgpu" ? row.target.mcpu : "pir";
      lines.push(`${family} ${routineName(row.spec, formId)} ${t} ${row.profile} ${rule} ${key}`);
    }
  }
}
process.stdout.write(lines.join("\n") + "\n");
process.stderr.write(`${lines.length} items, ${new Set(lines.map((l) => l.split(" ").pop())).size} distinct keys, sha1 ${createHash("sha1").update(lines.join("\n")).digest("hex")}\n`);
