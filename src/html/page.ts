/**
 * @fileoverview The shell of the HTML pages `report --html` and `port --html` write: one
 * self-contained document (no network access: no external script, style sheet, font or image)
 * whose only script and only style sheet are inline and named by their SHA-256 in a
 * `Content-Security-Policy` of `default-src 'none'`, so nothing else can run or load in it —
 * not even markup that slipped through escaping. Every text from an input (a file name, an asm
 * statement, a diagnostic) goes through `esc`.
 *
 * The script makes every `table.sortable` sortable (click a column header; again for the other
 * order), every `input.filter` filter its table's rows (case-insensitive substring of the row's
 * text), a `tr.row` with `data-tpl` open a detail row below it holding a copy of that
 * `<template>` (its `[data-slot=C]` elements given the text of the row's `td.C`), a `tr.row` with `data-goto` scroll to that element, and a `button.fold` show
 * the rows it stands for. Nothing it does changes the numbers on the page.
 */
import { createHash } from "node:crypto";

/** The `<meta name="generator">` every page carries: how an existing page is recognised as ptx-lower's own (bin/html_output.ts). */
export const PAGE_MARK = '<meta name="generator" content="ptx-lower">';

/**
 * The text `s` as HTML text or a quoted attribute value: `& < > " '` as character references.
 * Control characters other than tab and line feed are shown as `\xNN` (a page is read, not run).
 */
export function esc(s: string): string {
  return s
    .replace(/[&<>"']/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : c === '"' ? "&quot;" : "&#39;"))
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, (c) => (c === "\r" ? "" : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`));
}

/** `'sha256-…'`: the CSP source expression of an inline script or style element's exact text. */
export function cspHash(text: string): string {
  return `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
}

const STYLE = `
:root{--fg:#1d232b;--muted:#5b6573;--bg:#fff;--panel:#f5f7fa;--line:#d9dee5;--ok:#1a7f37;--okbg:#dcf5e3;--bad:#b42318;--badbg:#fde4e1;--warn:#9a6700;--warnbg:#fff4cc;--dead:#6e7781;--deadbg:#eceff2;--accent:#2457c5;--addbg:#e6f6ea;--stmt:#fff8c5}
@media (prefers-color-scheme:dark){:root{--fg:#e6e9ee;--muted:#9aa4b2;--bg:#14181d;--panel:#1c2128;--line:#333b45;--ok:#4ac26b;--okbg:#15351f;--bad:#ff7b72;--badbg:#3d1a18;--warn:#d4a72c;--warnbg:#352a0b;--dead:#8b949e;--deadbg:#262c33;--accent:#6ea1ff;--addbg:#173322;--stmt:#33300f}}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header.top{padding:18px 28px 10px;border-bottom:1px solid var(--line)}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:0;word-break:break-all}h3{font-size:14px;margin:14px 0 6px}
main{padding:14px 28px 40px}
.meta{color:var(--muted);margin:0}
.overall{display:inline-block;padding:1px 8px;border-radius:10px;font-weight:600}
.overall.ok{background:var(--okbg);color:var(--ok)}.overall.failed{background:var(--badbg);color:var(--bad)}
.glance{display:flex;flex-wrap:wrap;gap:14px;margin:14px 0 20px}
.card{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:10px 14px;min-width:180px}
.card h3{margin:0 0 6px;font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted)}
.card dl{display:grid;grid-template-columns:auto auto;gap:2px 14px;margin:0}
.card dt{color:var(--muted)}.card dd{margin:0;text-align:right;font-variant-numeric:tabular-nums;font-weight:600}
.chart svg{display:block;overflow:visible}.chart text{font-size:11px;fill:var(--fg)}.chart .axis{fill:var(--muted)}
.legend{display:flex;flex-wrap:wrap;gap:4px 12px;font-size:12px;color:var(--muted);margin-top:4px}
.sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:-1px}
.c0{background:#2f81f7;fill:#2f81f7}.c1{background:#8250df;fill:#8250df}.c2{background:#1a7f37;fill:#1a7f37}.c3{background:#bf8700;fill:#bf8700}.c4{background:#cf222e;fill:#cf222e}.c5{background:#8c959f;fill:#8c959f}
section.unit{border:1px solid var(--line);border-radius:8px;margin:0 0 18px;overflow:hidden}
section.unit>header{background:var(--panel);padding:10px 14px;border-bottom:1px solid var(--line)}
section.unit>.body{padding:10px 14px;overflow-x:auto}
.tools{display:flex;gap:10px;align-items:center;margin:4px 0 8px}
input.filter{font:inherit;padding:4px 8px;border:1px solid var(--line);border-radius:6px;min-width:260px;background:var(--bg);color:var(--fg)}
.count{color:var(--muted);font-size:12px}
table{border-collapse:collapse;width:100%}
th,td{padding:3px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{background:var(--panel);font-weight:600;white-space:nowrap;position:sticky;top:0}
table.sortable th{cursor:pointer;user-select:none}
table.sortable th::after{content:"\\2195";color:var(--muted);margin-left:4px;font-size:11px}
table.sortable th[aria-sort=ascending]::after{content:"\\25B2";color:var(--accent)}
table.sortable th[aria-sort=descending]::after{content:"\\25BC";color:var(--accent)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tr.row{cursor:pointer}tr.row:hover{background:var(--panel)}tr.row.open{background:var(--panel)}
tr.hid,tbody.hid{display:none}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
td.mono{white-space:pre-wrap;overflow-wrap:break-word}td.nowrap{white-space:nowrap}td.brk{overflow-wrap:anywhere}
pre{margin:0;white-space:pre;overflow:auto}
.badge{display:inline-block;padding:0 6px;border-radius:8px;font-size:12px;font-weight:600;white-space:nowrap}
.v-tested,.s-live{background:var(--okbg);color:var(--ok)}
.v-refuted,.v-error,.s-left,.s-failed{background:var(--badbg);color:var(--bad)}
.v-skipped,.v-not-run,.s-depends{background:var(--warnbg);color:var(--warn)}
.s-dead,.s-unchanged,.s-already-ported{background:var(--deadbg);color:var(--dead)}
.s-ported{background:var(--okbg);color:var(--ok)}
.diag{margin:2px 0;font-family:ui-monospace,monospace;font-size:12px;white-space:pre-wrap;word-break:break-word}
.diag.error{color:var(--bad)}.diag.warning{color:var(--warn)}.diag.note{color:var(--muted)}
td.detail{background:var(--panel);padding:10px}
.side{display:flex;gap:10px;overflow-x:auto;align-items:flex-start;width:calc(100vw - 150px)}
.side>.pane{flex:0 0 auto;min-width:240px;max-width:560px;border:1px solid var(--line);border-radius:6px;background:var(--bg)}
.pane>.ph{padding:4px 8px;border-bottom:1px solid var(--line);font-size:12px}
.pane>.ph b{font-size:13px}.pane pre{padding:6px 8px;max-height:360px}
.pane table td,.pane table th{font-size:12px;padding:1px 6px}
.ptx{background:var(--stmt)}
table.diff{table-layout:fixed;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
table.diff td{border:0;padding:0 6px;white-space:pre-wrap;overflow-wrap:anywhere}
table.diff td.ln{width:4.5em;text-align:right;color:var(--muted);user-select:none;border-right:1px solid var(--line)}
table.diff col.ln{width:4.5em}
table.diff tr.add td.r,table.diff tr.chg td.r{background:var(--addbg)}
table.diff tr.del td.l,table.diff tr.chg td.l{background:var(--deadbg)}
table.diff tr td.l.st-live{background:var(--okbg);box-shadow:inset 3px 0 var(--ok)}
table.diff tr td.l.st-dead{background:var(--deadbg);box-shadow:inset 3px 0 var(--dead)}
table.diff tr td.l.st-depends{background:var(--warnbg);box-shadow:inset 3px 0 var(--warn)}
table.diff tr td.l.st-left{background:var(--badbg);box-shadow:inset 3px 0 var(--bad)}
table.diff tr.note td{background:var(--badbg);color:var(--bad);padding:2px 8px 2px 5.5em;font-family:system-ui,sans-serif}
table.diff tr.flash td{outline:2px solid var(--accent)}
button.fold{font:inherit;font-size:12px;color:var(--accent);background:none;border:0;cursor:pointer;padding:2px 0}
details>summary{cursor:pointer;color:var(--accent)}
.muted{color:var(--muted)}
`;

const SCRIPT = `
"use strict";
(function () {
  function key(cell, num) {
    var v = cell.getAttribute("data-v");
    if (v === null) v = cell.textContent || "";
    if (num) { var n = parseFloat(v); return isNaN(n) ? -Infinity : n; }
    return v.toLowerCase();
  }
  function closeDetails(tbody) {
    var ds = tbody.querySelectorAll("tr.detail");
    for (var i = 0; i < ds.length; i++) ds[i].remove();
    var os = tbody.querySelectorAll("tr.row.open");
    for (var j = 0; j < os.length; j++) os[j].classList.remove("open");
  }
  function sortBy(table, th) {
    var ths = table.tHead.rows[0].cells, col = th.cellIndex, num = th.classList.contains("num");
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    for (var i = 0; i < ths.length; i++) ths[i].removeAttribute("aria-sort");
    th.setAttribute("aria-sort", dir);
    var tb = table.tBodies[0];
    closeDetails(tb);
    var rows = Array.prototype.slice.call(tb.rows);
    rows.forEach(function (r, i) { r._i = i; });
    var sign = dir === "ascending" ? 1 : -1;
    rows.sort(function (a, b) {
      var x = key(a.cells[col], num), y = key(b.cells[col], num);
      return x < y ? -sign : x > y ? sign : a._i - b._i;
    });
    for (var k = 0; k < rows.length; k++) tb.appendChild(rows[k]);
  }
  function filter(input) {
    var table = document.getElementById(input.getAttribute("data-table"));
    if (!table) return;
    var q = input.value.trim().toLowerCase(), tb = table.tBodies[0], shown = 0, total = 0;
    closeDetails(tb);
    for (var i = 0; i < tb.rows.length; i++) {
      var r = tb.rows[i];
      total++;
      var hit = q === "" || (r.textContent || "").toLowerCase().indexOf(q) >= 0;
      r.classList.toggle("hid", !hit);
      if (hit) shown++;
    }
    var c = document.querySelector('.count[data-table="' + table.id + '"]');
    if (c) c.textContent = shown === total ? total + " rows" : shown + " of " + total + " rows";
  }
  function toggle(row) {
    var next = row.nextElementSibling;
    if (next && next.classList.contains("detail")) { next.remove(); row.classList.remove("open"); return; }
    var tpl = document.getElementById(row.getAttribute("data-tpl"));
    if (!tpl) return;
    var tr = document.createElement("tr"), td = document.createElement("td");
    tr.className = "detail";
    td.className = "detail";
    td.colSpan = row.cells.length;
    var frag = tpl.content.cloneNode(true), slots = frag.querySelectorAll("[data-slot]");
    for (var i = 0; i < slots.length; i++) {
      var src = row.querySelector("td." + slots[i].getAttribute("data-slot"));
      if (src) slots[i].textContent = src.textContent;
    }
    td.appendChild(frag);
    tr.appendChild(td);
    row.after(tr);
    row.classList.add("open");
  }
  function go(row) {
    var el = document.getElementById(row.getAttribute("data-goto"));
    if (!el) return;
    var fold = el.closest("tbody.hid");
    if (fold) { fold.classList.remove("hid"); var prev = fold.previousElementSibling; if (prev && prev.querySelector("button.fold")) prev.remove(); }
    el.scrollIntoView({ block: "center" });
    el.classList.add("flash");
    setTimeout(function () { el.classList.remove("flash"); }, 1200);
  }
  document.addEventListener("click", function (e) {
    var t = e.target;
    if (!(t instanceof Element)) return;
    var th = t.closest("table.sortable > thead th");
    if (th) return sortBy(th.closest("table"), th);
    var fb = t.closest("button.fold");
    if (fb) {
      var g = document.getElementById(fb.getAttribute("data-fold"));
      if (g) g.classList.remove("hid");
      fb.closest("tbody").remove();
      return;
    }
    if (t.closest("a,input,button,summary,pre")) return;
    var row = t.closest("tr.row");
    if (!row) return;
    if (row.hasAttribute("data-tpl")) toggle(row);
    else if (row.hasAttribute("data-goto")) go(row);
  });
  document.addEventListener("keydown", function (e) {
    var h = e.target instanceof Element ? e.target.closest("table.sortable > thead th") : null;
    if (h && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); return sortBy(h.closest("table"), h); }
    var row = e.target instanceof Element ? e.target.closest("tr.row") : null;
    if (row && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); if (row.hasAttribute("data-tpl")) toggle(row); else go(row); }
  });
  var inputs = document.querySelectorAll("input.filter");
  for (var i = 0; i < inputs.length; i++) {
    inputs[i].addEventListener("input", function (e) { filter(e.target); });
    filter(inputs[i]);
  }
})();
`;

/**
 * A whole page: `title` (text, escaped here) and `body` (HTML, escaped by its maker), with the
 * inline style and script and the CSP naming their hashes.
 */
export function page(title: string, body: string): string {
  const csp = `default-src 'none'; script-src ${cspHash(SCRIPT)}; style-src ${cspHash(STYLE)}`;
  return [
    "<!DOCTYPE html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${esc(csp)}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    PAGE_MARK,
    `<title>${esc(title)}</title>`,
    `<style>${STYLE}</style>`,
    "</head>",
    "<body>",
    body,
    `<script>${SCRIPT}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}

/** One bar of a chart: a label (text), a value, and the colour class `c0`…`c5`. */
export interface Bar {
  label: string;
  value: number;
  cls: string;
  /** The text after the bar (default: the value). */
  note?: string;
}

/**
 * A horizontal bar chart as inline SVG (no style attributes: the page's CSP allows only its own
 * style sheet): one bar per entry, scaled to the largest value, its note after it. `width` and
 * `labelWidth` in CSS pixels.
 */
export function barChart(bars: Bar[], o: { width?: number; labelWidth?: number } = {}): string {
  const width = o.width ?? 360;
  const lw = o.labelWidth ?? 110;
  const row = 18;
  const max = Math.max(1, ...bars.map((b) => b.value));
  // Room after the longest bar for its note (about 6.5 px a character at 11 px).
  const span = Math.max(40, width - lw - 8 - Math.ceil(7.5 * Math.max(1, ...bars.map((b) => (b.note ?? String(b.value)).length))));
  const h = bars.length * row + 4;
  const parts = bars.map((b, i) => {
    const y = i * row + 2;
    const w = b.value === 0 ? 0 : Math.max(2, Math.round((b.value / max) * span));
    return `<text x="${lw - 6}" y="${y + 12}" text-anchor="end">${esc(b.label)}</text><rect class="${b.cls}" x="${lw}" y="${y + 2}" width="${w}" height="${row - 6}" rx="2"><title>${esc(b.label)}: ${b.value}</title></rect><text class="axis" x="${lw + w + 4}" y="${y + 12}">${esc(b.note ?? String(b.value))}</text>`;
  });
  return `<svg role="img" width="${width}" height="${h}" viewBox="0 0 ${width} ${h}" xmlns="http://www.w3.org/2000/svg">${parts.join("")}</svg>`;
}

/**
 * One stacked horizontal bar (SVG) of the parts' shares and its legend: the proportions of a
 * whole (verdicts; rewritten live/dead/left).
 */
export function stackedBar(parts: Bar[], width = 360): string {
  const total = parts.reduce((n, p) => n + p.value, 0);
  let x = 0;
  const rects = parts
    .filter((p) => p.value > 0)
    .map((p) => {
      const w = (p.value / total) * width;
      const r = `<rect class="${p.cls}" x="${x.toFixed(2)}" y="0" width="${w.toFixed(2)}" height="16"><title>${esc(p.label)}: ${p.value}</title></rect>`;
      x += w;
      return r;
    });
  const svg = `<svg role="img" width="${width}" height="16" viewBox="0 0 ${width} 16" xmlns="http://www.w3.org/2000/svg">${total === 0 ? `<rect class="c5" x="0" y="0" width="${width}" height="16"/>` : rects.join("")}</svg>`;
  const legend = `<div class="legend">${parts.map((p) => `<span><span class="sw ${p.cls}"></span>${esc(p.label)} ${p.value}</span>`).join("")}</div>`;
  return svg + legend;
}

/** A filter box and row count for the table with id `tableId`. */
export function filterBox(tableId: string, placeholder: string): string {
  return `<div class="tools"><input class="filter" type="search" data-table="${esc(tableId)}" placeholder="${esc(placeholder)}" aria-label="${esc(placeholder)}"><span class="count" data-table="${esc(tableId)}"></span></div>`;
}

/** A `<th>`: `num` for a numeric column (sorted as numbers, right-aligned). */
export const th = (label: string, num = false) => `<th scope="col" tabindex="0"${num ? ' class="num"' : ""}>${esc(label)}</th>`;

/** A `<td>` with text (escaped), an optional sort key and classes. */
export function td(text: string, o: { v?: string | number; cls?: string; html?: boolean } = {}): string {
  return `<td${o.cls ? ` class="${o.cls}"` : ""}${o.v !== undefined ? ` data-v="${esc(String(o.v))}"` : ""}>${o.html ? text : esc(text)}</td>`;
}

/** A number as the page shows it, with its `data-total` key (compared with the JSON document by the test). */
export const total = (key: string, n: number) => `<dd data-total="${esc(key)}">${n}</dd>`;
