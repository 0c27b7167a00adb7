/**
 * @fileoverview The page of `ptx-lower port --html OUT.html`: the port's `--json` document
 * (bin/port.ts `portJson`, the very object `--json` prints) as one self-contained HTML page
 * (src/html/page.ts), with each file's original and ported text side by side.
 *
 * What it shows: the totals at a glance (files; asm statements rewritten live, dead, depending on
 * macros, and left; warp intrinsic calls; `warpSize` uses; why statements were left and the
 * instructions that block the most), then per file a table of its asm statements, intrinsic calls,
 * `warpSize` uses and CUDA-only includes — sortable, filterable; a row scrolls to its line — and the
 * original beside the ported text: the statements marked by what became of them, each left one
 * with its reason under it, the lines the port added or changed highlighted (a line diff, jsdiff),
 * long unchanged stretches folded. Every number comes from the document.
 */
import type { portJson } from "../../bin/port.js";
import { barChart, esc, filterBox, page, stackedBar, td, th, total } from "./page.js";
import type { Bar } from "./page.js";

/** The `--json` document of `port` (docs/port.schema.json). */
export type PortDocument = ReturnType<typeof portJson>;
type PortFile = PortDocument["files"][number];
type Liveness = PortFile["statements"][number]["liveness"];

/** What the page shows of one file beside the document's entry: its text before and after the port, and its header. */
export interface PortPageText {
  /** The source as read (null: not read). */
  original: string | null;
  /** The ported text, as written (or as it would be written: without -o). */
  ported: string | null;
  /** The header it includes (null: none, or the shared header). */
  header: string | null;
}

/** Unchanged lines kept around a change before the rest of an unchanged stretch is folded. */
const CONTEXT = 3;

type Mark = "live" | "dead" | "depends" | "left";
const RANK: Record<Mark, number> = { live: 0, dead: 1, depends: 2, left: 3 };

const statusOf = (status: string, l: Liveness | undefined): { text: string; mark: Mark } =>
  status !== "rewritten" ? { text: "left", mark: "left" } : !l || l.state === "live" ? { text: "rewritten", mark: "live" } : { text: `rewritten (${l.state})`, mark: l.state };

const livenessText = (l: Liveness | undefined) => (!l || l.state === "live" ? "" : l.state === "dead" ? `dead: ${l.guard.text} at line ${l.guard.line}` : `depends on ${l.names.join(", ")} (${l.guard.text} at line ${l.guard.line})`);

/** One row of a file's table, with where it marks the original text. */
interface Item {
  line: number;
  col: number;
  endLine: number;
  kind: string;
  status: { text: string; mark: Mark };
  what: string;
  calls: string;
  /** The reasons of a left item, shown under its last line. */
  notes: string[];
}

function itemsOf(f: PortFile, semantics: string): Item[] {
  const items: Item[] = [];
  const why = (rs: { line: number; col: number; message: string }[]) => rs.map((r) => `${r.line}:${r.col}: ${r.message}`);
  for (const s of f.statements) {
    const st = statusOf(s.status, s.liveness);
    const live = livenessText(s.liveness);
    const what = s.status === "rewritten" ? s.forms.join("; ") + (live ? ` — ${live}` : "") + (s.ptxHeader ? ` [${s.ptxHeader}]` : "") : why(s.reasons).join("\n");
    // A rewritten statement whose meaning depends on the semantics profile: which departure, and an input that shows it.
    const departs = s.departures.map((d) => `sm90 departs from the ISA here (${d.ids.join(", ")}; ${Object.entries(d.example.inputs).map(([k, v]) => `${k}=${v}`).join(" ")}: isa ${d.example.isa}, sm90 ${d.example.sm90}); rewritten as ${semantics}`);
    items.push({ line: s.line, col: s.col, endLine: s.endLine, kind: s.keyword + (s.macro ? ` (macro ${s.macro})` : ""), status: st, what, calls: s.calls.join(", "), notes: s.status === "rewritten" ? departs : why(s.reasons) });
  }
  for (const c of f.intrinsics) {
    const st = statusOf(c.status, c.liveness);
    const live = livenessText(c.liveness);
    const what = c.status === "rewritten" ? `${c.name} → ${c.to ?? ""}${live ? ` — ${live}` : ""}` : `${c.name}: ${why(c.reasons).join("; ")}`;
    items.push({ line: c.line, col: c.col, endLine: c.endLine, kind: c.kind === "cooperative_groups" ? "cooperative_groups" : "intrinsic", status: st, what, calls: c.to ?? "", notes: c.status === "rewritten" ? [] : why(c.reasons) });
  }
  for (const w of f.warpSize) {
    const st = statusOf(w.status, w.liveness);
    const live = livenessText(w.liveness);
    items.push({ line: w.line, col: w.col, endLine: w.line, kind: "warpSize", status: st, what: w.status === "rewritten" ? `warpSize → ptxl_warpSize (32)${live ? ` — ${live}` : ""}` : why(w.reasons).join("; "), calls: w.status === "rewritten" ? "ptxl_warpSize" : "", notes: w.status === "rewritten" ? [] : why(w.reasons) });
  }
  for (const i of f.includes) {
    const note = `#include <${i.name}>: CUDA only; ${i.hip ? `HIP has <${i.hip}>` : "HIP has no counterpart"}`;
    items.push({ line: i.line, col: i.col, endLine: i.line, kind: "#include", status: { text: "left", mark: "left" }, what: note, calls: "", notes: [note] });
  }
  items.sort((a, b) => a.line - b.line || a.col - b.col);
  return items;
}

/** Lines of a text (line breaks CRLF or LF), without a last empty one. */
function linesOf(s: string): string[] {
  const l = s.replace(/\r\n/g, "\n").split("\n");
  if (l.length && l[l.length - 1] === "") l.pop();
  return l;
}

interface DiffRow {
  kind: "eq" | "del" | "add" | "chg";
  l: number | null;
  lt: string;
  r: number | null;
  rt: string;
}

/** The side-by-side rows of a line diff (jsdiff `diffLines`): a removed run beside the added run after it. */
async function sideBySide(original: string, ported: string): Promise<DiffRow[]> {
  const { diffLines } = await import("diff");
  const a = original.replace(/\r\n/g, "\n");
  const b = ported.replace(/\r\n/g, "\n");
  const parts = diffLines(a, b);
  const rows: DiffRow[] = [];
  let l = 1;
  let r = 1;
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k]!;
    const lines = linesOf(p.value);
    if (!p.added && !p.removed) {
      for (const x of lines) rows.push({ kind: "eq", l: l++, lt: x, r: r++, rt: x });
    } else if (p.removed) {
      const next = parts[k + 1];
      const added = next?.added ? linesOf(next.value) : [];
      if (next?.added) k++;
      const n = Math.max(lines.length, added.length);
      for (let i = 0; i < n; i++) {
        const hasL = i < lines.length;
        const hasR = i < added.length;
        rows.push({ kind: hasL && hasR ? "chg" : hasL ? "del" : "add", l: hasL ? l++ : null, lt: hasL ? lines[i]! : "", r: hasR ? r++ : null, rt: hasR ? added[i]! : "" });
      }
    } else {
      for (const x of lines) rows.push({ kind: "add", l: null, lt: "", r: r++, rt: x });
    }
  }
  return rows;
}

/** The original beside the ported text: statements marked, reasons under left ones, changes highlighted, long unchanged stretches folded. */
async function diffTable(fi: number, t: PortPageText, items: Item[]): Promise<string> {
  if (t.original === null || t.ported === null) return "";
  const rows = await sideBySide(t.original, t.ported);
  const mark = new Map<number, Mark>();
  const notes = new Map<number, string[]>();
  for (const it of items) {
    for (let x = it.line; x <= Math.max(it.line, it.endLine); x++) {
      const old = mark.get(x);
      if (old === undefined || RANK[it.status.mark] > RANK[old]) mark.set(x, it.status.mark);
    }
    if (it.notes.length) notes.set(it.endLine, [...(notes.get(it.endLine) ?? []), ...it.notes.map((n) => `${it.status.mark === "left" ? "left" : "note"} (${it.kind} at ${it.line}:${it.col}): ${n}`)]);
  }
  const plain = (row: DiffRow) => row.kind === "eq" && !mark.has(row.l!) && !notes.has(row.l!);
  const render = (row: DiffRow) => {
    const m = row.l !== null ? mark.get(row.l) : undefined;
    const id = row.l !== null ? ` id="f${fi}-L${row.l}"` : "";
    const tr = `<tr class="${row.kind}"${id}><td class="ln">${row.l ?? ""}</td><td class="l${m ? ` st-${m}` : ""}">${esc(row.lt)}</td><td class="ln">${row.r ?? ""}</td><td class="r">${esc(row.rt)}</td></tr>`;
    const ns = row.l !== null ? notes.get(row.l) : undefined;
    return ns ? tr + ns.map((n) => `<tr class="note"><td colspan="4">${esc(`↑ ${n}`)}</td></tr>`).join("") : tr;
  };
  const out: string[] = [];
  let open: string[] = [];
  let folds = 0;
  const flushPlain = (run: DiffRow[], atStart: boolean, atEnd: boolean) => {
    const keepHead = atStart ? 0 : CONTEXT;
    const keepTail = atEnd ? 0 : CONTEXT;
    if (run.length <= keepHead + keepTail + 2) {
      open.push(...run.map(render));
      return;
    }
    open.push(...run.slice(0, keepHead).map(render));
    out.push(`<tbody>${open.join("")}</tbody>`);
    open = [];
    const hidden = run.slice(keepHead, run.length - keepTail);
    const id = `f${fi}-fold${folds++}`;
    out.push(`<tbody class="foldbar"><tr><td colspan="4"><button class="fold" type="button" data-fold="${id}">⋯ ${hidden.length} unchanged lines (${hidden[0]!.l}–${hidden[hidden.length - 1]!.l}): show</button></td></tr></tbody><tbody class="hid" id="${id}">${hidden.map(render).join("")}</tbody>`);
    open.push(...run.slice(run.length - keepTail).map(render));
  };
  let run: DiffRow[] = [];
  let seenChange = false;
  for (const row of rows) {
    if (plain(row)) {
      run.push(row);
      continue;
    }
    if (run.length) flushPlain(run, !seenChange, false);
    run = [];
    seenChange = true;
    open.push(render(row));
  }
  if (run.length) flushPlain(run, !seenChange, true);
  out.push(`<tbody>${open.join("")}</tbody>`);
  return `<h3>Original (left) and ported (right)</h3><table class="diff"><colgroup><col class="ln"><col><col class="ln"><col></colgroup><thead><tr><th></th><th>original</th><th></th><th>ported</th></tr></thead>${out.join("")}</table><div class="legend"><span><span class="sw c2"></span>rewritten (live)</span><span><span class="sw c5"></span>rewritten, dead under the build's macros</span><span><span class="sw c3"></span>rewritten, depends on macros</span><span><span class="sw c4"></span>left, reason below it</span></div>`;
}

async function fileSection(f: PortFile, fi: number, t: PortPageText | undefined, semantics: string): Promise<string> {
  const items = itemsOf(f, semantics);
  const facts = [`<span class="badge s-${f.error !== null ? "failed" : f.state}">${esc(f.error !== null ? "failed" : f.state)}</span>`, esc(f.language)];
  if (f.output) facts.push(`written to <code>${esc(f.output)}</code>`);
  if (f.headerName) facts.push(`header <code>${esc(f.headerName)}</code>${f.header ? ` (<code>${esc(f.header)}</code>)` : ""}`);
  if (f.routines.length) facts.push(`${f.routines.length} function${f.routines.length === 1 ? "" : "s"} called`);
  const notes: string[] = [];
  if (f.error !== null) notes.push(`<p class="diag error">${esc(`${f.input}: error: ${f.error}`)}</p>`);
  for (const w of f.warnings) notes.push(`<p class="diag warning">${esc(`${f.input}:${w.line}:${w.col}: warning: ${w.message}`)}</p>`);
  for (const s of f.hipSwitches) notes.push(`<p class="diag note">${esc(`${f.input}:${s.line}:${s.col}: note: ${s.name} looks like a HIP build switch: pass --hip-macro ${s.name} if a HIP build defines it`)}</p>`);
  if (f.alreadyPorted) notes.push(`<p class="diag note">${esc(`${f.input}: note: already ported by ptx-lower port: nothing rewritten again`)}</p>`);
  const head = `<header><h2>${esc(f.input)}</h2><p class="meta">${facts.join(" · ")}</p></header>`;
  const tid = `f${fi}-items`;
  const table = items.length
    ? `${filterBox(tid, "filter rows (status, form, reason…)")}<table class="sortable" id="${tid}"><thead><tr>${th("line:col", true)}${th("kind")}${th("status")}${th("forms / reason")}${th("calls")}</tr></thead><tbody>${items
        .map(
          (it) =>
            `<tr class="row" tabindex="0" data-goto="f${fi}-L${it.line}">${td(`${it.line}:${it.col}`, { v: it.line * 100000 + it.col, cls: "num" })}${td(it.kind)}${td(`<span class="badge s-${it.status.mark}">${esc(it.status.text)}</span>`, { html: true, v: it.status.text })}${td(it.what, { cls: "mono" })}${td(it.calls, { cls: "mono" })}</tr>`,
        )
        .join("")}</tbody></table><p class="muted">Click a row to see its line in the original and the ported text.</p>`
    : `<p class="muted">Nothing to rewrite: no asm statement, warp intrinsic, warpSize or CUDA-only include.</p>`;
  const diff = t && items.length ? await diffTable(fi, t, items) : "";
  const header = t?.header ? `<details><summary>The header ${esc(f.headerName ?? "")} (${t.header.split("\n").length} lines)</summary><pre>${esc(t.header)}</pre></details>` : "";
  return `<section class="unit" id="f${fi}">${head}<div class="body">${notes.join("")}${table}${diff}${header}</div></section>`;
}

/**
 * The page of a port run: `doc` is the run's `--json` document, `texts[i]` the texts of
 * `doc.files[i]` (missing ones: no side-by-side view). @returns the whole HTML document.
 */
export async function portPage(doc: PortDocument, texts: readonly (PortPageText | undefined)[] = []): Promise<string> {
  const t = doc.totals;
  const st = t.statements;
  const stmtBars: Bar[] = [
    { label: "rewritten, live", value: st.rewritten.live, cls: "c2" },
    { label: "dead", value: st.rewritten.dead, cls: "c5" },
    { label: "depends on macros", value: st.rewritten.depends, cls: "c3" },
    { label: "left", value: st.left, cls: "c4" },
  ];
  const ib = t.intrinsics.rewrittenByLiveness;
  const intrBars: Bar[] = [
    { label: "rewritten, live", value: ib.live, cls: "c2" },
    { label: "dead", value: ib.dead, cls: "c5" },
    { label: "depends on macros", value: ib.depends, cls: "c3" },
    { label: "left", value: t.intrinsics.left, cls: "c4" },
  ];
  const dd = (label: string, key: string, n: number) => `<dt>${esc(label)}</dt>${total(key, n)}`;
  const o = doc.options;
  const opts = [`semantics ${doc.semantics}`, ...(o.language ? [`language ${o.language}`] : []), ...(o.ptxTarget ? [`--ptx-target ${o.ptxTarget}`] : []), ...o.hipMacros.map((m) => `--hip-macro ${m}`), ...(o.renameShared ? ["--rename-shared"] : [])];
  const header = `<header class="top"><h1>ptx-lower port</h1><p class="meta">${t.files.inputs} file${t.files.inputs === 1 ? "" : "s"} · ${esc(opts.join(" · "))} · ${st.total} asm statement${st.total === 1 ? "" : "s"}: ${st.total - st.left} rewritten, ${st.left} left${doc.summary.errors ? ` · <span class="overall failed">${doc.summary.errors} error${doc.summary.errors === 1 ? "" : "s"}</span>` : ""}</p></header>`;
  const reasons = st.leftByReason.slice(0, 12).map((r, i): Bar => ({ label: r.reason.length > 34 ? `${r.reason.slice(0, 33)}…` : r.reason, value: r.statements, cls: i % 2 ? "c3" : "c4" }));
  const glance = `<div class="glance">
<div class="card"><h3>Files</h3><dl>${dd("inputs", "files.inputs", t.files.inputs)}${dd("ported", "files.ported", t.files.ported)}${dd("unchanged", "files.unchanged", t.files.unchanged)}${dd("already ported", "files.alreadyPorted", t.files.alreadyPorted)}${dd("failed", "files.failed", t.files.failed)}${dd("written", "files.written", t.files.written)}${dd("skipped", "files.skipped", t.files.skipped)}</dl></div>
<div class="card chart"><h3>asm statements</h3><dl>${dd("total", "statements.total", st.total)}${dd("rewritten, live", "statements.rewritten.live", st.rewritten.live)}${dd("rewritten, dead", "statements.rewritten.dead", st.rewritten.dead)}${dd("rewritten, depends on macros", "statements.rewritten.depends", st.rewritten.depends)}${dd("left", "statements.left", st.left)}</dl>${stackedBar(stmtBars, 280)}</div>
<div class="card chart"><h3>Warp intrinsic calls</h3><dl>${dd("rewritten", "intrinsics.rewritten", t.intrinsics.rewritten)}${dd("live", "intrinsics.rewrittenByLiveness.live", ib.live)}${dd("dead", "intrinsics.rewrittenByLiveness.dead", ib.dead)}${dd("depends on macros", "intrinsics.rewrittenByLiveness.depends", ib.depends)}${dd("left", "intrinsics.left", t.intrinsics.left)}</dl>${stackedBar(intrBars, 280)}<h3>warpSize uses</h3><dl>${dd("rewritten", "warpSize.rewritten", t.warpSize.rewritten)}${dd("left", "warpSize.left", t.warpSize.left)}</dl></div>
${reasons.length ? `<div class="card chart"><h3>Why statements were left (first reason)</h3>${barChart(reasons, { width: 420, labelWidth: 200 })}</div>` : ""}
</div>`;
  const leftTable = st.leftByReason.length
    ? `<details><summary>Statements left, by reason (${st.leftByReason.length} reason${st.leftByReason.length === 1 ? "" : "s"}); instructions that block the most</summary><table class="sortable" id="reasons"><thead><tr>${th("reason")}${th("statements", true)}</tr></thead><tbody>${st.leftByReason.map((r) => `<tr>${td(r.reason, { cls: "mono" })}${td(String(r.statements), { v: r.statements, cls: "num" })}</tr>`).join("")}</tbody></table><table class="sortable" id="blocking"><thead><tr>${th("instruction")}${th("statements it blocks", true)}</tr></thead><tbody>${t.blocking.map((b) => `<tr>${td(b.instruction, { cls: "mono" })}${td(String(b.statements), { v: b.statements, cls: "num" })}</tr>`).join("")}</tbody></table></details>`
    : "";
  const extra: string[] = [];
  for (const s of doc.skipped) extra.push(`<p class="diag note">${esc(`${s.path}: note: skipped, ${s.reason}`)}</p>`);
  if (doc.includePath) extra.push(`<p class="meta">Build the mirror with the include path <code>${esc(doc.includePath.join(" "))}</code></p>`);
  if (doc.sharedHeader) extra.push(`<p class="meta">Shared header: <code>${esc(doc.sharedHeader)}</code></p>`);
  const nav = doc.files.length > 1 ? `<p class="meta">Files: ${doc.files.map((f, i) => `<a href="#f${i}">${esc(f.input)}</a>`).join(" · ")}</p>` : "";
  const sections: string[] = [];
  for (let i = 0; i < doc.files.length; i++) sections.push(await fileSection(doc.files[i]!, i, texts[i], doc.semantics));
  return page(`ptx-lower port: ${doc.files.map((f) => f.input).join(", ")}`.slice(0, 200), `${header}<main>${glance}${leftTable}${extra.join("")}${nav}${sections.join("\n")}</main>`);
}
