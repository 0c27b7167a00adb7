/**
 * @fileoverview Formatting of `ptx-lower report` (tables for people, or one JSON document
 * whose shape is docs/report.schema.json) over the data of src/report.ts.
 */
import Table from "cli-table3";
import type { ParsedModule } from "../src/ir/build.js";
import type { Profile } from "../src/ir/forms.js";
import type { DynamicCount, ModuleReport, Report, ReportOptions, ReportVerdict, UnreadableModule } from "../src/report.js";
import { escapeControls, escapeLine } from "../src/diag.js";
import { buildReport, reportTargets } from "../src/report.js";
import { targetName } from "../src/check/verify.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import type { FamilyName } from "../src/families/index.js";
import { FAMILY_INSTRUCTIONS } from "./options.js";

/** The families after the first three (always shown), each only where it occurs: `, warp-level 3`. */
function laterFamilies(byFamily: Record<string, number>): string {
  return Object.entries(byFamily)
    .filter(([f, n]) => n > 0 && f !== "szext" && f !== "video" && f !== "match")
    .map(([f, n]) => `, ${f === "warp" ? "warp-level" : FAMILY_INSTRUCTIONS[f as FamilyName]} ${n}`)
    .join("");
}

/**
 * The report of `mods` as text: tables, or with `json` one JSON document (trailing newline),
 * its overall verdict, and the report itself (the object the JSON is made of: the HTML page's
 * source). `onProgress` is called after each module (done, total).
 */
export async function reportWithVerdict(
  mods: (ParsedModule | UnreadableModule)[],
  o: { mcpus: Mcpu[]; profile: Profile; json: boolean; check?: ReportOptions["check"]; onProgress?: ReportOptions["onProgress"] },
): Promise<{ text: string; verdict: Report["verdict"]; report: Report }> {
  const rep = await buildReport(mods, { mcpus: o.mcpus, profile: o.profile, ...(o.check !== undefined ? { check: o.check } : {}), ...(o.onProgress ? { onProgress: o.onProgress } : {}) });
  return { text: o.json ? formatReportJson(rep) : formatReportTables(rep), verdict: rep.verdict, report: rep };
}

/** The report of `mods` as text: tables, or with `json` one JSON document (trailing newline). */
export async function report(mods: (ParsedModule | UnreadableModule)[], o: { mcpus: Mcpu[]; profile: Profile; json: boolean; check?: ReportOptions["check"] }): Promise<string> {
  return (await reportWithVerdict(mods, o)).text;
}

export function formatReportJson(rep: Report): string {
  return JSON.stringify(rep, null, 2) + "\n";
}

const style = { head: [] as string[], border: [] as string[] };
/** No rule between body rows (the header rule stays). */
const compact = { mid: "", "left-mid": "", "mid-mid": "", "right-mid": "" };
/** One line: whitespace runs (newlines, tabs) become one space, so table cells stay aligned. */
const oneLine = (s: string) => escapeControls(s).replace(/\s+/g, " ").trim();

export function verdictText(v: ReportVerdict): string {
  switch (v.status) {
    case "tested":
      return `tested(${v.n})`;
    case "refuted":
      return `REFUTED`;
    case "skipped":
      return `skipped (${v.why})`;
    case "not-run":
      return "not run";
    case "error":
      return "ERROR";
  }
}

export function dynamicText(d: DynamicCount | null): string {
  if (!d) return "";
  if (d.kind === "scalar") return String(d.steps);
  const parts = [`k=1: ${d.k1}`];
  if (d.k32 !== null) parts.push(`k=32: ${d.k32}`);
  if (d.checkerMax !== null) parts.push(`max: ${d.checkerMax}`);
  return parts.join(", ");
}

function moduleTables(m: ModuleReport, rep: Report): string {
  const out: string[] = [];
  const s = m.summary;
  out.push(`== ${escapeLine(m.file)}`);
  if (m.status === "failed") {
    const n = m.diagnostics.filter((d) => d.severity === "error").length;
    out.push(`FAILED: ${n} error${n === 1 ? "" : "s"}; not reported`);
    for (const d of m.diagnostics) out.push(`${escapeLine(m.file)}:${d.line}:${d.col}: ${d.severity}: ${oneLine(d.message)}`);
    return out.join("\n");
  }
  out.push(
    `${s.occurrences} occurrence${s.occurrences === 1 ? "" : "s"} (szext ${s.byFamily.szext}, vshl/vshr ${s.byFamily.video}, match.sync ${s.byFamily.match}${laterFamilies(s.byFamily)}) → ${s.routines} routine${s.routines === 1 ? "" : "s"}; ` +
      `${s.otherInstructions} other instruction${s.otherInstructions === 1 ? "" : "s"} (${s.otherOpcodes} opcode${s.otherOpcodes === 1 ? "" : "s"})`,
  );
  for (const d of m.diagnostics) out.push(`${escapeLine(m.file)}:${d.line}:${d.col}: ${d.severity}: ${d.message}`);

  if (m.occurrences.length) {
    const occ = new Table({ head: ["line:col", "instruction", "form", "operands", "routine"], style, chars: compact });
    const byId = new Map(m.routines.map((r) => [r.id, r]));
    for (const o of m.occurrences) {
      const r = byId.get(o.routineId)!;
      const ops = Object.entries(r.operands)
        .map(([k, v]) => `${k}:${v}`)
        .join(" ");
      occ.push([`${o.line}:${o.col}`, oneLine(o.text), o.form, ops + (r.guarded ? " guarded" : ""), `#${o.routineId}`]);
    }
    out.push("", "Occurrences", occ.toString());

    const rt = new Table({ head: ["#", "routine", "target", "rule", "static", "dynamic", "verdict"], style });
    for (const r of m.routines) {
      r.targets.forEach((t, i) => {
        const row = [t.target, t.rule, t.static ?? "", dynamicText(t.dynamic), verdictText(t.verdict)];
        if (i === 0) rt.push([{ content: `#${r.id}`, rowSpan: r.targets.length }, { content: `${r.name}\n(${r.occurrences} occurrence${r.occurrences === 1 ? "" : "s"})`, rowSpan: r.targets.length }, ...row]);
        else rt.push(row);
      });
    }
    out.push("", "Routines (static / dynamic: AMDGPU issue cycles, s_nop N = N + 1; dynamic for match.sync at k distinct values)", rt.toString());
  }

  if (m.census.length) {
    const ct = new Table({ head: ["opcode", "count", "spellings"], style, chars: compact, colWidths: [12, 8, 78], wordWrap: true });
    for (const c of m.census) ct.push([c.opcode, c.count, c.forms.map((f) => `${f.opcode} ${f.count}`).join(", ")]);
    out.push("", "Other instructions (what a full port still has to handle)", ct.toString());
  }

  for (const r of m.routines)
    for (const t of r.targets) {
      if (t.verdict.status === "refuted") out.push("", `#${r.id} ${r.name} on ${t.target}:`, t.verdict.counterexample);
      if (t.verdict.status === "error") out.push("", `#${r.id} ${r.name} on ${t.target}: error: ${t.verdict.message}`);
    }
  void rep;
  return out.join("\n");
}

/**
 * The report as tables for a terminal. Control characters from the input (file names,
 * instruction text, messages) are shown escaped (`\x1b`), never sent to the terminal.
 */
export function formatReportTables(rep: Report): string {
  const parts = rep.modules.map((m) => moduleTables(m, rep));
  const t = rep.totals;
  const total = { occ: t.occurrences, routines: t.routines, tested: t.verdicts.tested, refuted: t.verdicts.refuted, skipped: t.verdicts.skipped, notRun: t.verdicts["not-run"], error: t.verdicts.error };
  const budget = rep.check ? `checker: ${rep.check.random} random cases / ${rep.check.warps} warps per routine, seed ${rep.check.seed}` : "checker not run";
  parts.push(
    "",
    `report: ${rep.modules.length} module${rep.modules.length === 1 ? "" : "s"}${t.failedModules ? ` (${t.failedModules} FAILED)` : ""}, ${total.occ} occurrences, ${total.routines} routines; targets: ${reportTargets(rep.mcpus).map(targetName).join(", ")}; semantics ${rep.semantics}; ${budget}`,
    `verdicts: ${total.tested} tested, ${total.refuted} refuted, ${total.skipped} skipped, ${total.error} error${total.notRun ? `, ${total.notRun} not run` : ""}`,
    `overall: ${rep.verdict === "ok" ? "ok" : "FAILED"}`,
  );
  return escapeControls(parts.join("\n") + "\n");
}
