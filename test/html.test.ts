/**
 * `report --html` and `port --html` pages in a real browser: Debian's chromium driven by
 * puppeteer-core (which downloads nothing). The pages are made once — the report's by the
 * library functions the CLI calls (src/report.ts buildReport, src/html/report.ts), the port's by
 * the CLI itself — and opened in one browser. Each page must load with no console error, no page
 * error, no dialog and no request but its own; its totals must equal the --json document of the
 * same run; a column header click must reorder the rows; typing in a filter box must change the
 * visible row count; a file named `<img src=x onerror=alert(1)>` (and asm text holding markup)
 * must appear as text. Skipped, saying why, only where no chromium executable exists.
 */
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "puppeteer-core";
import { parseModule } from "../src/ir/build.js";
import { buildReport } from "../src/report.js";
import { formatReportJson } from "../bin/report.js";
import { reportPage, routineCode } from "../src/html/report.js";
import { checkHtmlPath } from "../bin/html_output.js";
import { MCPUS } from "../targets/amdgpu/regs.js";

const ROOT = join(import.meta.dirname, "..");
const SHARED = join(ROOT, "..", "shared");
const HOSTILE = "<img src=x onerror=alert(1)>";
const CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-headless-shell", "/usr/lib/chromium/chromium", "/usr/lib/chromium/chromium-headless-shell"].find((p) => existsSync(p)) ?? null;
if (!CHROMIUM) console.log("test/html.test.ts: skipped: no chromium executable (/usr/bin/chromium or chromium-headless-shell; apt-get install chromium)");

/** What a page did that it must not: console errors, page errors, dialogs, requests other than itself. */
interface Trouble {
  console: string[];
  pageErrors: string[];
  dialogs: string[];
  requests: string[];
}

/** Every number-valued leaf of an object (arrays left out), by dotted path. */
function leaves(o: unknown, at = ""): Map<string, number> {
  const out = new Map<string, number>();
  if (typeof o === "number") out.set(at, o);
  else if (o && typeof o === "object" && !Array.isArray(o)) for (const [k, v] of Object.entries(o)) for (const [p, n] of leaves(v, at ? `${at}.${k}` : k)) out.set(p, n);
  return out;
}

describe.skipIf(!CHROMIUM)("--html pages in headless chromium", { timeout: 120_000 }, () => {
  let browser: Browser;
  let dir: string;
  const pages: { name: string; file: string; json: { totals: unknown } }[] = [];
  let portJson: { totals: unknown; files: { input: string }[] };
  let portFile: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "ptxl-html-"));
    // port: a copy of the bundled examples beside a hostile file name and hostile asm text,
    // with ../shared/real-cuda, by the CLI (outputs to the temporary directory), in the background.
    const src = join(dir, "src");
    mkdirSync(src);
    for (const f of readdirSync(join(ROOT, "examples")).filter((f) => f.endsWith(".cu"))) copyFileSync(join(ROOT, "examples", f), join(src, f));
    writeFileSync(
      join(src, `${HOSTILE}.cu`),
      `__device__ unsigned f(unsigned x) { unsigned d; asm("szext.clamp.s32 %0, %1, 8; // </pre><script>alert(2)</script>" : "=r"(d) : "r"(x)); return d; }\n` +
        `__device__ unsigned g(unsigned x) { unsigned d; asm("bogus.op %0, %1; <img src=y onerror=alert(3)>" : "=r"(d) : "r"(x)); return d; }\n`,
    );
    portFile = join(dir, "port.html");
    const realCuda = join(SHARED, "real-cuda");
    const portArgs = ["port", src, ...(existsSync(realCuda) ? [realCuda] : []), "-o", join(dir, "out"), "--html", portFile, "--json"];
    const tsx = pathToFileURL(join(ROOT, "node_modules", "tsx", "dist", "loader.mjs")).href;
    const portRun = new Promise<string>((resolve, reject) => {
      const p = spawn(process.execPath, ["--import", tsx, join(ROOT, "bin", "ptx-lower.ts"), ...portArgs], { cwd: ROOT });
      let out = "";
      let err = "";
      p.stdout.on("data", (d: Buffer) => (out += d));
      p.stderr.on("data", (d: Buffer) => (err += d));
      p.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`port exited ${code}: ${err}`))));
    });
    // report: the bundled examples and a hostile module name (every target's code), and
    // ../shared/ptx (AMDGPU, hip and llvm code: the JS and C printers take most of the time).
    const examples = readdirSync(join(ROOT, "examples")).filter((f) => f.endsWith(".ptx"));
    const mods = examples.map((f) => parseModule(readFileSync(join(ROOT, "examples", f), "utf8"), `examples/${f}`));
    mods.push(parseModule(readFileSync(join(ROOT, "examples", "bitfields.sm_90.ptx"), "utf8"), `${HOSTILE}.ptx`));
    const sets: { name: string; mods: typeof mods; targets?: string[] }[] = [{ name: "examples", mods }];
    const sharedPtx = join(SHARED, "ptx");
    if (existsSync(sharedPtx))
      sets.push({
        name: "shared-ptx",
        mods: readdirSync(sharedPtx)
          .filter((f) => f.endsWith(".ptx"))
          .map((f) => parseModule(readFileSync(join(sharedPtx, f), "utf8"), `../shared/ptx/${f}`)),
        targets: ["amdgpu", "hip", "llvm"],
      });
    else console.log("test/html.test.ts: ../shared/ptx is absent: the report page of the examples alone");
    for (const s of sets) {
      const rep = await buildReport(s.mods, { mcpus: [...MCPUS], profile: "isa", check: false });
      const file = join(dir, `report-${s.name}.html`);
      writeFileSync(file, reportPage(rep, await routineCode(s.mods, rep, s.targets ? { targets: s.targets } : {})));
      pages.push({ name: s.name, file, json: JSON.parse(formatReportJson(rep)) });
    }
    portJson = JSON.parse(await portRun);
    const { default: puppeteer } = await import("puppeteer-core");
    // --no-sandbox: CI runs as root, where chromium's sandbox refuses to start; /dev/shm may be small in a container.
    browser = await puppeteer.launch({ executablePath: CHROMIUM!, headless: true, args: ["--no-sandbox", "--headless", "--disable-dev-shm-usage", "--disable-gpu"] });
  });

  afterAll(async () => {
    await browser?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Opens `file` with every request but its own refused, and records what must not happen. */
  async function open(file: string): Promise<{ page: Page; trouble: Trouble }> {
    const page = await browser.newPage();
    const url = pathToFileURL(file).href;
    const trouble: Trouble = { console: [], pageErrors: [], dialogs: [], requests: [] };
    page.on("console", (m) => {
      if (m.type() === "error") trouble.console.push(m.text());
    });
    page.on("pageerror", (e) => trouble.pageErrors.push(String(e)));
    page.on("dialog", (d) => {
      trouble.dialogs.push(d.message());
      void d.dismiss();
    });
    await page.setRequestInterception(true);
    page.on("request", (r) => {
      if (r.url() === url) void r.continue();
      else {
        trouble.requests.push(r.url());
        void r.abort();
      }
    });
    await page.goto(url, { waitUntil: "load" });
    return { page, trouble };
  }

  const clean = (t: Trouble) => expect(t).toEqual({ console: [], pageErrors: [], dialogs: [], requests: [] });

  /** The page's `data-total` numbers equal the document's totals, and every total is on the page. */
  async function totalsMatch(page: Page, totals: unknown) {
    const shown = new Map((await page.$$eval("[data-total]", (els) => els.map((e) => [e.getAttribute("data-total")!, e.textContent!.trim()] as const))).map(([k, v]) => [k, Number(v)]));
    expect(shown).toEqual(leaves(totals));
  }

  /** The texts of column `col` of the visible rows of table `sel`. */
  const column = (page: Page, sel: string, col: number) => page.$$eval(`${sel} > tbody > tr.row`, (rows, c) => rows.filter((r) => (r as HTMLElement).offsetParent !== null).map((r) => (r as HTMLTableRowElement).cells[c as number]!.textContent!), col);

  it("report pages: clean load, totals = --json, sort, filter, code panes, hostile module name as text", async () => {
    expect(pages.length).toBeGreaterThan(0);
    for (const p of pages) {
      const { page, trouble } = await open(p.file);
      await totalsMatch(page, p.json.totals);
      if (p.name === "examples") {
        const table = "#m0-occ";
        const before = await column(page, table, 1);
        expect(new Set(before).size).toBeGreaterThan(1);
        await page.click(`${table} thead th:nth-child(2)`);
        const asc = await column(page, table, 1);
        expect(asc).not.toEqual(before);
        expect(asc).toEqual([...before].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0)));
        await page.click(`${table} thead th:nth-child(2)`);
        expect(await column(page, table, 1)).toEqual([...asc].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? 1 : a.toLowerCase() > b.toLowerCase() ? -1 : 0)));
        // The filter box: fewer rows, but some.
        await page.type(`input.filter[data-table="m0-occ"]`, "wrap");
        const shown = await column(page, table, 1);
        expect(shown.length).toBeGreaterThan(0);
        expect(shown.length).toBeLessThan(before.length);
        expect(shown.every((t) => t.includes("wrap"))).toBe(true);
        expect(await page.$eval(`.count[data-table="m0-occ"]`, (e) => e.textContent)).toBe(`${shown.length} of ${before.length} rows`);
        // A row opens its PTX line beside each target's code.
        await page.click(`${table} > tbody > tr.row:not(.hid)`);
        const detail = await page.$eval(`${table} td.detail`, (e) => ({ text: e.textContent!, panes: e.querySelectorAll(".pane").length, ptx: e.querySelector("[data-slot=ptxtext]")!.textContent }));
        expect(detail.ptx).toBe(shown[0]);
        expect(detail.panes).toBe(1 + MCPUS.length + 4);
        expect(detail.text).toMatch(/v_\w+/); // AMDGPU code
        expect(detail.text).toContain("export function"); // JS code
        // The hostile module name is a heading's text; no img element came of it.
        const heads = await page.$$eval("section.unit h2", (hs) => hs.map((h) => h.textContent));
        expect(heads).toContain(`${HOSTILE}.ptx`);
        expect(await page.$$eval("img", (x) => x.length)).toBe(0);
      }
      clean(trouble);
      await page.close();
    }
  });

  it("port page: clean load, totals = --json, sort, filter, side by side, hostile file name and asm text as text", async () => {
    const { page, trouble } = await open(portFile);
    await totalsMatch(page, portJson.totals);
    const k = portJson.files.findIndex((f) => f.input.endsWith(`${HOSTILE}.cu`));
    expect(k).toBeGreaterThanOrEqual(0);
    expect(await page.$eval(`#f${k} h2`, (h) => h.textContent)).toBe(portJson.files[k]!.input);
    expect(await page.$$eval("img", (x) => x.length)).toBe(0);
    expect(await page.$$eval("script", (x) => x.length)).toBe(1);
    // The hostile asm text, shown as text in the original column, and the left statement's reason under it.
    const diff = await page.$eval(`#f${k} table.diff`, (t) => ({ text: t.textContent!, left: t.querySelectorAll("td.st-left").length, live: t.querySelectorAll("td.st-live").length, notes: [...t.querySelectorAll("tr.note")].map((n) => n.textContent) }));
    expect(diff.text).toContain("</pre><script>alert(2)</script>");
    expect(diff.text).toContain("<img src=y onerror=alert(3)>");
    expect(diff.left).toBeGreaterThan(0);
    expect(diff.live).toBeGreaterThan(0);
    expect(diff.notes.some((n) => /bogus\.op/.test(n ?? ""))).toBe(true);
    // Sort and filter the table of the file with the most rows of both statuses.
    const biggest = await page.$$eval("table.sortable[id$=-items]", (ts) =>
      ts
        .map((t) => [t.id, [...(t as HTMLTableElement).tBodies[0]!.rows].map((r) => r.cells[2]!.textContent)] as const)
        .filter(([, st]) => new Set(st).size > 1)
        .map(([id, st]) => [id, st.length] as const)
        .sort((a, b) => b[1] - a[1])[0]!,
    );
    const table = `#${biggest[0]}`;
    const before = await column(page, table, 2);
    expect(new Set(before).size).toBeGreaterThan(1);
    await page.click(`${table} thead th:nth-child(3)`);
    const after = await column(page, table, 2);
    expect(after).not.toEqual(before);
    expect(after).toEqual([...before].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : a.toLowerCase() > b.toLowerCase() ? 1 : 0)));
    await page.type(`input.filter[data-table="${biggest[0]}"]`, "rewritten");
    const shown = await column(page, table, 2);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.length).toBeLessThan(before.length);
    clean(trouble);
    await page.close();
  });

  it("--html refuses a directory, an input, standard output, a path under a file and a file that is not its own page", () => {
    const input = join(ROOT, "examples", "bitfields.sm_90.ptx");
    expect(() => checkHtmlPath(dir, [input])).toThrow(/is a directory/);
    expect(() => checkHtmlPath(input, [input])).toThrow(/it is an input file/);
    expect(() => checkHtmlPath("-", [input])).toThrow(/goes to a file/);
    expect(() => checkHtmlPath(join(input, "page.html"), [input])).toThrow(/a parent is not a directory/);
    const mine = join(dir, "notes.html");
    writeFileSync(mine, "<p>my notes</p>");
    expect(() => checkHtmlPath(mine, [input])).toThrow(/not a page ptx-lower wrote/);
    // A page it wrote is replaced; a new path is fine.
    expect(() => checkHtmlPath(pages[0]!.file, [input])).not.toThrow();
    expect(() => checkHtmlPath(join(dir, "new.html"), [input])).not.toThrow();
  });
});
