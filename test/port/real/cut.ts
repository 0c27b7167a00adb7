/**
 * @fileoverview Minimal units for test/port_real.test.ts: the definitions that hold the port's
 * rewrites, cut at run time out of a ported file and, the same ones, out of the original.
 *
 * The report's locations are the original's; each is taken to its enclosing definition there
 * (test/port/real/scan.ts `enclosingDefinition`: brace matching, or the `#define`), and to the
 * same place in the ported output through a line alignment of the two texts (a longest common
 * subsequence of their lines, with the port's renames `ptxl_X` → `__X` undone for the
 * comparison only), where the definition is found again by brace matching in the output. A
 * `#define` the port duplicated under its own guard is cut with that guard, `#else` branch and
 * all, so that the HIP compile takes the guard's own branch.
 */
import { blankLiterals, directives, enclosingDefinition, lineStarts } from "./scan.js";

const RENAMED = /(?<![\w$])ptxl_(activemask|all_sync|any_sync|uni_sync|ballot_sync|match_any_sync|match_all_sync|shfl_sync|shfl_up_sync|shfl_down_sync|shfl_xor_sync|reduce_(?:add|min|max|and|or|xor)_sync|syncwarp|warpSize)(?![\w$])/g;
const unrename = (line: string) => line.replace(RENAMED, (_, n: string) => (n === "warpSize" ? "warpSize" : `__${n}`));

/** For each line of `a` (0-based), the line of `b` it is aligned with, or -1 (longest common subsequence of lines). */
export function alignLines(a: string[], b: string[]): number[] {
  const n = a.length;
  const m = b.length;
  const an = a.map((l) => unrename(l.replace(/\r$/, "")));
  const bn = b.map((l) => unrename(l.replace(/\r$/, "")));
  // Suffix LCS lengths, row by row (n+1) × (m+1).
  const L = new Uint32Array((n + 1) * (m + 1));
  const at = (i: number, j: number) => i * (m + 1) + j;
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) L[at(i, j)] = an[i] === bn[j] ? L[at(i + 1, j + 1)]! + 1 : Math.max(L[at(i + 1, j)]!, L[at(i, j + 1)]!);
  const map = new Array<number>(n).fill(-1);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (an[i] === bn[j]) {
      map[i] = j;
      i++;
      j++;
    } else if (L[at(i + 1, j)]! >= L[at(i, j + 1)]!) i++;
    else j++;
  }
  return map;
}

/** A definition cut from a text. */
export interface Cut {
  /** Offsets in its text. */
  start: number;
  end: number;
  kind: "code" | "macro" | "line";
  name?: string;
}

/**
 * The definitions enclosing `locs` (1-based line and column in `original`), cut from the
 * original and from the ported output, in the original's order, each once.
 * @throws Error when a definition cannot be found again in the output.
 */
export function cutBoth(original: string, ported: string, locs: { line: number; col: number }[]): { original: string; ported: string; names: string[]; defs: { orig: Cut; port: Cut }[] } {
  const oStarts = lineStarts(original);
  const pStarts = lineStarts(ported);
  const oLines = original.split("\n");
  const pLines = ported.split("\n");
  const map = alignLines(oLines, pLines);
  const defs: { orig: Cut; port: Cut }[] = [];
  const pBlank = blankLiterals(ported);
  const pDirs = directives(pBlank);
  for (const loc of locs) {
    const off = oStarts[loc.line - 1]! + loc.col - 1;
    const d = enclosingDefinition(original, off);
    if (defs.some((x) => x.orig.start === d.start)) continue;
    // The same place in the output: the aligned line, or the nearest aligned line before it.
    let k = loc.line - 1;
    while (k >= 0 && map[k]! < 0) k--;
    if (k < 0) throw new Error(`line ${loc.line}: no line before it is in the output`);
    const pLine = map[k]! + (k === loc.line - 1 ? 0 : 1);
    const col = k === loc.line - 1 ? loc.col : 1;
    const pOff = pStarts[Math.min(pLine, pStarts.length - 1)]! + col - 1;
    let p = enclosingDefinition(ported, pOff);
    if (d.kind === "macro") {
      if (p.kind !== "macro" || p.name !== d.name) throw new Error(`line ${loc.line}: #define ${d.name} is not at line ${pLine + 1} of the output`);
      // Duplicated under the port's guard? The enclosing #if group whose #if line the original does not have.
      const inGroup = enclosingGroup(pDirs, p.start);
      if (inGroup && !map.includes(lineIndex(pStarts, inGroup.open.start))) p = { kind: "macro", start: inGroup.open.start, end: inGroup.endif.end, name: d.name };
    } else if (p.kind !== d.kind) throw new Error(`line ${loc.line}: the output's definition at line ${pLine + 1} is a ${p.kind}, the original's a ${d.kind}`);
    defs.push({ orig: { ...d }, port: { ...p } });
  }
  defs.sort((x, y) => x.orig.start - y.orig.start);
  const piece = (text: string, c: Cut) => text.slice(c.start, c.end).replace(/\r?\n?$/, "") + "\n";
  return {
    original: defs.map((x) => piece(original, x.orig)).join("\n"),
    ported: defs.map((x) => piece(ported, x.port)).join("\n"),
    names: defs.map((x) => x.orig.name ?? nameOf(original.slice(x.orig.start, x.orig.end))),
    defs,
  };
}

const lineIndex = (starts: number[], off: number) => {
  let k = 0;
  while (k + 1 < starts.length && starts[k + 1]! <= off) k++;
  return k;
};

/** The innermost `#if` group holding `off`: its opening directive and its `#endif`. */
function enclosingGroup(ds: ReturnType<typeof directives>, off: number) {
  const stack: (typeof ds)[number][] = [];
  let best: { open: (typeof ds)[number]; endif: (typeof ds)[number] } | null = null;
  for (const d of ds) {
    if (d.kind === "if" || d.kind === "ifdef" || d.kind === "ifndef") stack.push(d);
    else if (d.kind === "endif") {
      const open = stack.pop();
      if (open && open.start < off && off < d.start && (!best || open.start > best.open.start)) best = { open, endif: d };
    }
  }
  return best;
}

/** The name a code definition defines: the identifier before its parameter list or the class name. */
export function nameOf(def: string): string {
  const code = blankLiterals(def);
  const brace = code.indexOf("{");
  const head = code.slice(0, brace < 0 ? code.length : brace);
  const cls = /\b(?:struct|class|union)\s+([A-Za-z_]\w*)/.exec(head.replace(/template\s*<[^{]*?>/g, ""));
  if (cls && !/\(/.test(head.replace(/template\s*<[^{]*?>/g, "").split(cls[0])[0]!)) return cls[1]!;
  // The last identifier before a top-level '(' in the head.
  let depth = 0;
  for (let i = 0; i < head.length; i++) {
    const c = head[i];
    if (c === "<") depth++;
    else if (c === ">") depth = Math.max(0, depth - 1);
    else if (c === "(" && depth === 0) {
      const m = /([A-Za-z_~][\w]*)\s*$/.exec(head.slice(0, i));
      if (m && !/^(__attribute__|__declspec|alignas|decltype|__launch_bounds__)$/.test(m[1]!)) return m[1]!;
    }
  }
  return head.trim().split(/\s+/).pop() ?? "";
}
