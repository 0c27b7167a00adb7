/**
 * @fileoverview The page of `ptx-lower report --html OUT.html`: the report (src/report.ts
 * `buildReport`, the very object `--json` prints) as one self-contained HTML page (src/html/page.ts).
 *
 * What it shows: the totals at a glance (modules, occurrences, routines, verdicts; charts of the
 * occurrences per family, the static issue cycles per processor of our AMDGPU lowering and of the
 * hip/llvm rows, the verdicts); then per module a table of its occurrences — sortable, filterable —
 * whose row opens the occurrence's PTX line beside each target's code, each with its rule, counts
 * and verdict; the census of other instructions; the module's diagnostics. Every number comes from
 * the `Report`; only the code text is printed here (`routineCode`), by the registered output targets.
 */
import type { ParsedModule } from "../ir/build.js";
import type { Family } from "../ir/forms.js";
import { FAMILIES } from "../ir/forms.js";
import type { ModuleReport, Report, ReportRoutine, ReportTarget, ReportVerdict, UnreadableModule } from "../report.js";
import { collectRoutines } from "../lower.js";
import { outputTargets } from "../target/registry.js";
import { dynamicText, verdictText } from "../../bin/report.js";
import { barChart, esc, filterBox, page, stackedBar, td, th, total } from "./page.js";
import type { Bar } from "./page.js";

/**
 * The printed code of each routine: per module (in the report's order), routine name → target
 * key (`amdgpu gfx942`, `js`, `c`, `hip`, `llvm`) → the text the output target prints for that
 * routine alone (no banner), or `{ missing }` where the target has no lowering or printing failed.
 */
export type RoutineCode = Map<string, Map<string, { text: string } | { missing: string }>>[];

const FAMILY_LABEL: Record<Family, string> = { szext: "szext", video: "vshl/vshr", vop: "vadd/vsub/vabsdiff/vmin/vmax/vset", match: "match.sync", warp: "warp-level" };
const VERDICTS: ReportVerdict["status"][] = ["tested", "refuted", "skipped", "not-run", "error"];
const VERDICT_CLS: Record<ReportVerdict["status"], string> = { tested: "c2", refuted: "c4", skipped: "c3", "not-run": "c5", error: "c1" };

/** Blank lines at either end of a printed routine removed. */
const trimBlank = (s: string) => s.replace(/^(?:\s*\n|\s*\.text\s*\n)+/, "").replace(/\s+$/, "");

/**
 * Prints every routine of every module on each output target (AMDGPU once per processor of the
 * report, JS, C, the hip header and the llvm module once), in the report's semantics profile.
 * `mods` are the modules the report was built from, in its order. Needs the composition loaded
 * (src/compose.ts). Never throws for a routine: a target that cannot print it gives `{ missing }`.
 * `o.targets`: the output targets to print (names, default all): the others' panes say "no code".
 */
export async function routineCode(mods: readonly (ParsedModule | UnreadableModule)[], rep: Report, o: { targets?: readonly string[] } = {}): Promise<RoutineCode> {
  const targets = outputTargets().targets.filter((t) => o.targets === undefined || o.targets.includes(t.name));
  for (const t of targets) await t.load?.();
  const out: RoutineCode = [];
  for (let i = 0; i < mods.length; i++) {
    const mod = mods[i]!;
    const byName = new Map<string, Map<string, { text: string } | { missing: string }>>();
    out.push(byName);
    if ("unreadable" in mod || rep.modules[i]?.status !== "ok") continue;
    let routines;
    try {
      routines = collectRoutines(mod);
    } catch {
      continue;
    }
    for (const r of routines) {
      const code = new Map<string, { text: string } | { missing: string }>();
      byName.set(r.name, code);
      for (const t of targets) {
        const keys = t.name === "amdgpu" ? rep.mcpus.map((m) => ({ key: `amdgpu ${m}`, mcpu: m as string })) : [{ key: t.name, mcpu: rep.mcpus[0] as string }];
        for (const { key, mcpu } of keys) {
          const missing = t.missing?.(r.spec) ?? null;
          if (missing !== null) {
            code.set(key, { missing });
            continue;
          }
          try {
            const printed = await t.lowerModule({ routines: [{ ...r, insts: [] }], profile: rep.semantics, mcpu, banner: [], served: () => [] });
            code.set(key, { text: trimBlank(printed.text) });
          } catch (e) {
            code.set(key, { missing: e instanceof Error ? e.message : String(e) });
          }
        }
      }
    }
  }
  return out;
}

const verdictBadge = (v: ReportVerdict) => `<span class="badge v-${v.status}">${esc(verdictText(v))}</span>`;

/** The verdicts of a routine's rows, counted: the occurrence table's verdict cell and its sort key (worst first when descending). */
function verdictSummary(r: ReportRoutine): { text: string; v: number } {
  const n: Record<string, number> = {};
  for (const t of r.targets) n[t.verdict.status] = (n[t.verdict.status] ?? 0) + 1;
  const parts = VERDICTS.filter((s) => n[s]).map((s) => `<span class="badge v-${s}">${n[s]} ${s}</span>`);
  const v = (n.error ?? 0) * 1e6 + (n.refuted ?? 0) * 1e4 + (n.skipped ?? 0) * 100 + (n["not-run"] ?? 0);
  return { text: parts.join(" "), v };
}

function codePane(title: string, t: ReportTarget | null, code: { text: string } | { missing: string } | undefined, extra = ""): string {
  const head = [`<b>${esc(title)}</b>`];
  if (t) {
    head.push(`rule <code>${esc(t.rule)}</code>`);
    if (t.static !== null) head.push(`static ${t.static} cycles`);
    const dyn = dynamicText(t.dynamic);
    if (dyn) head.push(`dynamic ${esc(dyn)}`);
    head.push(verdictBadge(t.verdict));
  }
  const why = t?.verdict.status === "refuted" ? `<pre class="diag error">${esc(t.verdict.counterexample)}</pre>` : t?.verdict.status === "error" ? `<p class="diag error">${esc(t.verdict.message)}</p>` : t?.verdict.status === "skipped" ? `<p class="diag warning">${esc(t.verdict.why)}</p>` : "";
  const body = code === undefined ? `<p class="muted">no code</p>` : "missing" in code ? `<p class="diag warning">${esc(code.missing)}</p>` : `<pre>${esc(code.text)}</pre>`;
  return `<div class="pane"><div class="ph">${head.join(" · ")}</div>${why}${extra}${body}</div>`;
}

/** The rows of hip or llvm, one per processor: static count and verdict (their code is one text). */
function perProcessor(rows: ReportTarget[]): string {
  if (!rows.length) return "";
  const body = rows.map((t) => `<tr><td>${esc(t.mcpu ?? "")}</td><td class="num">${t.static ?? "—"}</td><td>${verdictBadge(t.verdict)}</td></tr>`).join("");
  const notes = rows
    .filter((t) => t.verdict.status === "refuted" || t.verdict.status === "error")
    .map((t) => `<pre class="diag error">${esc(`${t.target}: ${t.verdict.status === "refuted" ? t.verdict.counterexample : t.verdict.status === "error" ? t.verdict.message : ""}`)}</pre>`)
    .join("");
  return `<table><thead><tr><th>processor</th><th class="num">static</th><th>verdict</th></tr></thead><tbody>${body}</tbody></table>${notes}`;
}

/** The detail of a routine (a `<template>`): the PTX pane (filled from the clicked row), then each target's code. */
function routineTemplate(id: string, r: ReportRoutine, code: Map<string, { text: string } | { missing: string }> | undefined, occurrences: string): string {
  const panes: string[] = [];
  panes.push(
    `<div class="pane ptx"><div class="ph"><b>PTX</b> · line <span data-slot="at"></span> · <code>${esc(r.form)}</code> · operands ${esc(
      Object.entries(r.operands)
        .map(([k, v]) => `${k}:${v}`)
        .join(" "),
    )}${r.guarded ? " · guarded" : ""}</div><pre data-slot="ptxtext"></pre><div class="ph">routine <code>${esc(r.name)}</code> serves ${r.occurrences} occurrence${r.occurrences === 1 ? "" : "s"}</div><pre>${occurrences}</pre></div>`,
  );
  for (const t of r.targets) if (t.target.startsWith("amdgpu ")) panes.push(codePane(t.target, t, code?.get(t.target)));
  for (const k of ["js", "c"]) {
    const t = r.targets.find((x) => x.target === k);
    if (t) panes.push(codePane(k === "js" ? "js" : "c", t, code?.get(k)));
  }
  for (const k of ["hip", "llvm"] as const) {
    const rows = r.targets.filter((x) => x.target.startsWith(`${k} `));
    if (!rows.length) continue;
    const head = rows[0]!;
    panes.push(codePane(k === "hip" ? "hip (clang-19, per processor)" : "llvm (llc-19, per processor)", { ...head, static: null, dynamic: null, verdict: worst(rows) }, code?.get(k), perProcessor(rows)));
  }
  return `<template id="${esc(id)}"><div class="side">${panes.join("")}</div></template>`;
}

/** The worst verdict of some rows (error, refuted, skipped, not-run, tested). */
function worst(rows: ReportTarget[]): ReportVerdict {
  for (const s of ["error", "refuted", "skipped", "not-run"] as const) {
    const t = rows.find((x) => x.verdict.status === s);
    if (t) return t.verdict;
  }
  return rows[0]!.verdict;
}

function moduleSection(m: ModuleReport, mi: number, rep: Report, code: RoutineCode[number] | undefined): string {
  const s = m.summary;
  const diags = m.diagnostics.map((d) => `<p class="diag ${d.severity}">${esc(`${m.file}:${d.line}:${d.col}: ${d.severity}: ${d.message}`)}</p>`).join("");
  const head = `<header><h2>${esc(m.file)}</h2><p class="meta">${
    m.status === "failed"
      ? `<span class="badge v-error">FAILED</span> not reported`
      : `${s.occurrences} occurrence${s.occurrences === 1 ? "" : "s"} (${(Object.keys(FAMILY_LABEL) as Family[])
          .filter((f) => s.byFamily[f] > 0)
          .map((f) => `${FAMILY_LABEL[f]} ${s.byFamily[f]}`)
          .join(", ")}) → ${s.routines} routine${s.routines === 1 ? "" : "s"}; ${s.otherInstructions} other instructions (${s.otherOpcodes} opcodes)`
  }</p></header>`;
  if (m.status === "failed") return `<section class="unit" id="m${mi}">${head}<div class="body">${diags}</div></section>`;
  const tid = `m${mi}-occ`;
  const byId = new Map(m.routines.map((r) => [r.id, r]));
  const mcpus = rep.mcpus;
  const rows = m.occurrences.map((o) => {
    const r = byId.get(o.routineId)!;
    const vs = verdictSummary(r);
    const cycles = mcpus.map((c) => {
      const t = r.targets.find((x) => x.target === `amdgpu ${c}`);
      return t?.static == null ? td("—", { v: -1, cls: "num" }) : td(String(t.static), { v: t.static, cls: "num" });
    });
    return `<tr class="row" tabindex="0" data-tpl="m${mi}-r${o.routineId}">${td(`${o.line}:${o.col}`, { v: o.line * 100000 + o.col, cls: "num at" })}${td(o.text, { cls: "mono ptxtext" })}${td(FAMILY_LABEL[o.family])}${td(o.form, { cls: "mono" })}${td(`#${o.routineId} ${o.routine}`, { v: o.routineId, cls: "mono brk" })}${cycles.join("")}${td(vs.text, { v: vs.v, html: true })}</tr>`;
  });
  const table =
    m.occurrences.length === 0
      ? `<p class="muted">No occurrence of the families ptx-lower lowers.</p>`
      : `${filterBox(tid, "filter occurrences (text, form, routine…)")}<table class="sortable" id="${tid}"><thead><tr>${th("line:col", true)}${th("instruction")}${th("family")}${th("form")}${th("routine", true)}${mcpus.map((c) => th(c, true)).join("")}${th("verdicts", true)}</tr></thead><tbody>${rows.join("")}</tbody></table><p class="muted">Click a row: the PTX line beside each target's code, rule, counts (AMDGPU issue cycles, s_nop N = N + 1) and verdict. The ${mcpus.join(", ")} columns: static issue cycles of ptx-lower's AMDGPU routine.</p>`;
  const templates = m.routines
    .map((r) => {
      const occ = m.occurrences
        .filter((o) => o.routineId === r.id)
        .map((o) => `${o.line}:${o.col}  ${o.text.replace(/\s+/g, " ")}`)
        .join("\n");
      return routineTemplate(`m${mi}-r${r.id}`, r, code?.get(r.name), esc(occ));
    })
    .join("");
  const census = m.census.length
    ? `<details><summary>Other instructions: ${s.otherInstructions} in ${s.otherOpcodes} opcodes (what a full port still has to handle)</summary><table class="sortable" id="m${mi}-census"><thead><tr>${th("opcode")}${th("count", true)}${th("spellings")}</tr></thead><tbody>${m.census
        .map((c) => `<tr>${td(c.opcode, { cls: "mono" })}${td(String(c.count), { v: c.count, cls: "num" })}${td(c.forms.map((f) => `${f.opcode} ${f.count}`).join(", "), { cls: "mono" })}</tr>`)
        .join("")}</tbody></table></details>`
    : "";
  return `<section class="unit" id="m${mi}">${head}<div class="body">${diags}${table}${census}</div>${templates}</section>`;
}

/**
 * The page of a report. `code` (`routineCode`) supplies each routine's printed code; without it
 * the panes show counts and verdicts only. @returns the whole HTML document.
 */
export function reportPage(rep: Report, code: RoutineCode = []): string {
  const t = rep.totals;
  const byFamily = Object.fromEntries(FAMILIES.map((f) => [f, 0])) as Record<Family, number>;
  const forms = Object.fromEntries(FAMILIES.map((f) => [f, new Set<string>()])) as Record<Family, Set<string>>;
  for (const m of rep.modules) {
    for (const f of Object.keys(byFamily) as Family[]) byFamily[f] += m.summary.byFamily[f];
    for (const r of m.routines) forms[r.family].add(r.form);
  }
  const famBars: Bar[] = (Object.keys(FAMILY_LABEL) as Family[]).map((f, i) => ({ label: FAMILY_LABEL[f], value: byFamily[f], cls: `c${i}`, note: `${byFamily[f]} (${forms[f].size} form${forms[f].size === 1 ? "" : "s"})` }));
  // Static issue cycles per processor, summed over the routines that have a count on that row.
  const kinds = [
    { kind: "amdgpu", label: "ptx-lower", cls: "c0" },
    { kind: "hip", label: "hip", cls: "c1" },
    { kind: "llvm", label: "llvm", cls: "c3" },
  ];
  const cycleBars: Bar[] = [];
  for (const mcpu of rep.mcpus)
    for (const k of kinds) {
      let sum = 0;
      let n = 0;
      for (const m of rep.modules)
        for (const r of m.routines) {
          const x = r.targets.find((y) => y.target === `${k.kind} ${mcpu}`);
          if (x?.static != null) (sum += x.static), n++;
        }
      if (n > 0) cycleBars.push({ label: `${mcpu} ${k.label}`, value: sum, cls: k.cls, note: n === t.routines ? String(sum) : `${sum} (${n} of ${t.routines} routines)` });
    }
  const verdictBars: Bar[] = VERDICTS.map((s) => ({ label: s, value: t.verdicts[s], cls: VERDICT_CLS[s] }));
  const budget = rep.check ? `checker: ${rep.check.random} random cases / ${rep.check.warps} warps per routine, seed ${rep.check.seed}` : "checker not run";
  const header = `<header class="top"><h1>ptx-lower report</h1><p class="meta">${t.modules} module${t.modules === 1 ? "" : "s"} · semantics ${esc(rep.semantics)} · processors ${esc(rep.mcpus.join(", "))} · ${esc(budget)} · overall <span class="overall ${rep.verdict}">${rep.verdict === "ok" ? "ok" : "FAILED"}</span></p></header>`;
  const glance = `<div class="glance">
<div class="card"><h3>Modules</h3><dl><dt>modules</dt>${total("modules", t.modules)}<dt>failed</dt>${total("failedModules", t.failedModules)}<dt>occurrences</dt>${total("occurrences", t.occurrences)}<dt>routines</dt>${total("routines", t.routines)}</dl></div>
<div class="card chart"><h3>Occurrences per family</h3>${barChart(famBars, { width: 300, labelWidth: 80 })}</div>
<div class="card chart"><h3>Verdicts (routines × targets)</h3><dl>${VERDICTS.map((s) => `<dt>${s}</dt>${total(`verdicts.${s}`, t.verdicts[s])}`).join("")}</dl>${stackedBar(verdictBars, 260)}</div>
${cycleBars.length ? `<div class="card chart"><h3>Static issue cycles per processor, summed over the ${t.routines} routines</h3>${barChart(cycleBars, { width: 380, labelWidth: 120 })}<div class="legend">${kinds.filter((k) => cycleBars.some((b) => b.cls === k.cls)).map((k) => `<span><span class="sw ${k.cls}"></span>${k.kind === "amdgpu" ? "ptx-lower's AMDGPU routine" : `${k.kind} row (compiled)`}</span>`).join("")}</div></div>` : ""}
</div>`;
  const nav = rep.modules.length > 1 ? `<p class="meta">Modules: ${rep.modules.map((m, i) => `<a href="#m${i}">${esc(m.file)}</a>${m.status === "failed" ? " (FAILED)" : ""}`).join(" · ")}</p>` : "";
  const sections = rep.modules.map((m, i) => moduleSection(m, i, rep, code[i])).join("\n");
  return page(`ptx-lower report: ${rep.modules.map((m) => m.file).join(", ")}`.slice(0, 200), `${header}<main>${glance}${nav}${sections}</main>`);
}
