/**
 * @fileoverview Is an asm statement one ptx-lower supports, and what does it compute? The
 * template is handed to the project's own PTX parser and validator (src/ir/build.ts
 * `parseModule`) inside a synthesized module, as nvcc -arch=sm_90 hands it to ptxas:
 *
 *   .version 9.0 / .target sm_90 / .address_size 64
 *   .visible .entry __ptxl_port() { .reg .b32 %__ptxl_op0; …  TEMPLATE }
 *
 * with each asm operand `%N` / `%[name]` bound to a declared register of its constraint's
 * width (`r` .b32, `l` .b64, `h` .b16, `f` .f32, `d` .f64; a matching constraint `"K"` shares
 * operand K's register), each `n` operand replaced by its literal value (evaluated as a C
 * integer constant expression), and `%%` by `%`. A statement is supported when the parse has
 * no error and every instruction of the template is a family instruction the parser turned
 * into a `FamilyInst` (so support follows the parser's families and forms, never a list of
 * mnemonics here). Registers declared in the template's `{ .reg … }` scopes are temporaries.
 *
 * The result is a list of calls, one per instruction, of the routine named by the contract
 * (src/ir/ir.ts `routineName`) with every register operand kind `v`, immediates folded and
 * no guard (a guard becomes a C `if`): see src/port/rewrite.ts for the calling convention.
 */
import type { Loc, OperandKind, PtxOperand, RoutineSpec, SourceName } from "../ir/ir.js";
import { routineName, sourcesOf } from "../ir/ir.js";
import { formId, formWrites } from "../ir/forms.js";
import type { ParsedModule } from "../ir/build.js";
import { flattenModule, parseModule, specialRegister } from "../ir/build.js";
import type { Statement } from "../ptx/ast.js";
import type { AsmOperand, AsmStatement, Scan, Token } from "./scan.js";
import { PTXAS_PTX_VERSION, TARGET_MIN_VERSION, targetMinVersion } from "../ptx/targets.js";

/** The PTX context of the synthesized module: what nvcc -arch=sm_90 (CUDA 13) emits. */
export const PORT_MODULE_HEAD = ".version 9.0\n.target sm_90\n.address_size 64\n";

/** A PTX module header a statement may be checked under: `.version V` / `.target T`. */
export interface PtxHead {
  version: string;
  target: string;
}

/** The module text of a head: `.version V\n.target T\n.address_size 64\n`. */
export const headText = (h: PtxHead): string => `.version ${h.version}\n.target ${h.target}\n.address_size 64\n`;

/** How reports name a head: `.version 9.0 / .target sm_90`. */
export const headName = (h: PtxHead): string => `.version ${h.version} / .target ${h.target}`;

/**
 * The module headers a statement is checked under, in order; the first one ptxas 13.0 accepts
 * for all its instructions is used (issue 34 item 1):
 * 1. `.version 9.0 / .target sm_90` — what nvcc -arch=sm_90 (CUDA 13) hands ptxas;
 * 2. the targets above sm_90 that src/ptx/targets.ts knows, lowest first, at ptxas's own
 *    `.version` 9.0 (which supports them all) — an instruction that needs more than sm_90
 *    (`redux.sync.max.NaN.f32`: sm_100a) is checked under the lowest target that has it;
 * 3. `.version 6.3 / .target sm_70` — the deprecated `shfl`/`vote` without `.sync`, which
 *    sm_70 code from PTX ISA 6.4 on may not use (pre-Volta code, and the branch of some
 *    headers that a HIP compile takes).
 * The later ones are tried only when the first is refused for its target (a message naming a
 * `.target`), so an illegal form costs one parse.
 */
export function portHeads(): PtxHead[] {
  const above = [...TARGET_MIN_VERSION.keys()]
    .filter((a) => Number.parseInt(a, 10) >= 90 && a !== "90")
    .sort((x, y) => Number.parseInt(x, 10) - Number.parseInt(y, 10) || x.localeCompare(y));
  return [{ version: PTXAS_PTX_VERSION, target: "sm_90" }, ...above.map((a) => ({ version: PTXAS_PTX_VERSION, target: `sm_${a}` })), { version: "6.3", target: "sm_70" }];
}

/** The heads tried, compactly: `sm_90, sm_90a, …, sm_121f at .version 9.0; sm_70 at .version 6.3`. */
function triedHeads(heads: readonly PtxHead[]): string {
  const byVersion = new Map<string, string[]>();
  for (const h of heads) byVersion.set(h.version, [...(byVersion.get(h.version) ?? []), h.target]);
  return [...byVersion].map(([v, ts]) => `${ts.length > 4 ? `${ts.slice(0, 3).join(", ")}, …, ${ts[ts.length - 1]}` : ts.join(", ")} at .version ${v}`).join("; ");
}

/** Whether a diagnostic says the instruction is refused for the module's target (so another head may accept it). */
const TARGET_REFUSAL = /\.target|\btarget\b.*\bsm_|sm_\d+ and (higher|later)/;

/**
 * The head `--ptx-target T` pins: `.version 6.3 / .target T` when ptxas accepts T under 6.3
 * (sm_75 and below: the deprecated `shfl`/`vote` stay legal, as in pre-Volta builds), else
 * `.version 9.0 / .target T`. @returns null when T is no `sm_` target src/ptx/targets.ts knows.
 */
export function pinnedHead(target: string): PtxHead | null {
  const min = targetMinVersion(target);
  if (min === null || !/^sm_/.test(target)) return null;
  return min[0] < 6 || (min[0] === 6 && min[1] <= 3) ? { version: "6.3", target } : { version: PTXAS_PTX_VERSION, target };
}

/** Register class of a constraint letter, and the PTX declaration it is bound to. */
const CLASS_DECL: Record<string, string> = { r: ".b32", l: ".b64", h: ".b16", f: ".f32", d: ".f64" };

/** One asm operand, read. */
export interface BoundOperand {
  index: number;
  name: string | null;
  /** `out` for `=`, `inout` for `+`, `in` otherwise. */
  dir: "out" | "inout" | "in";
  /** Register class letter (`r l h f d`), `n` for an immediate, or `tied` for a matching constraint. */
  cls: string;
  /** The output operand a matching constraint `"K"` ties this input to. */
  tied: number | null;
  expr: string;
  exprTokens: Token[];
  /** An `n` operand's value. */
  value?: bigint;
  loc: Loc;
}

/** Where a routine argument or result lives in the C code. */
export type Ref = { kind: "operand"; index: number } | { kind: "temp"; key: string };

/** A temporary of a `{ .reg … }` scope. */
export interface Temp {
  key: string;
  /** Its PTX name. */
  ptx: string;
  type: "u32" | "u64" | "pred";
}

/** One call of a header function. */
export interface Call {
  /** The function's name (the routine contract name, kinds `v`, unguarded). */
  name: string;
  spec: RoutineSpec;
  /** Arguments in PTX source order (`a b c membermask`), immediates left out. */
  args: Ref[];
  d: Ref | null;
  p: Ref | null;
  guard: { ref: Ref; negate: boolean } | null;
  loc: Loc;
  /**
   * The instruction as the template wrote it, unguarded, each register operand renamed to a
   * register of its own (`%s0`, `%s1`, … in operand order of the text) of the declared type
   * in `types`: what the routines module is made of.
   */
  ptx: { text: string; types: string[]; head: PtxHead };
}

/** Why a statement is left as it is: a message and where (in the C source). */
export interface Reason {
  loc: Loc;
  message: string;
}

export type BindResult = { ok: true; operands: BoundOperand[]; calls: Call[]; temps: Temp[]; head: PtxHead } | { ok: false; operands: BoundOperand[]; reasons: Reason[]; head?: PtxHead };

/**
 * The value of a C integer constant expression: literals (decimal, octal, hex, binary, digit
 * separators, suffixes), character literals, parentheses, unary `+ - ~ !`, binary
 * `* / % + - << >> & ^ |`. Null for anything else (a name, a call, a cast).
 */
export function evalConst(tokens: readonly Token[]): bigint | null {
  let k = 0;
  const peek = (n = 0) => tokens[k + n]?.text;
  const fail = (): never => {
    throw new Error("not constant");
  };
  const literal = (text: string): bigint => {
    const t = text.replace(/'/g, "").replace(/[uUlLzZ]+$/, "");
    if (/^0[xX][0-9a-fA-F]+$/.test(t) || /^0[bB][01]+$/.test(t) || /^[1-9][0-9]*$/.test(t) || t === "0") return BigInt(t);
    if (/^0[0-7]+$/.test(t)) return BigInt("0o" + t.slice(1));
    return fail();
  };
  const primary = (): bigint => {
    const tk = tokens[k];
    if (!tk) return fail();
    if (tk.kind === "number") {
      k++;
      return literal(tk.text);
    }
    if (tk.kind === "char" && /^'(?:[^\\']|\\[ntr0\\'])'$/.test(tk.text)) {
      k++;
      const body = tk.text.slice(1, -1);
      const esc: Record<string, number> = { "\\n": 10, "\\t": 9, "\\r": 13, "\\0": 0, "\\\\": 92, "\\'": 39 };
      return BigInt(esc[body] ?? body.charCodeAt(0));
    }
    if (tk.text === "(") {
      k++;
      const v = binary(0);
      if (peek() !== ")") fail();
      k++;
      return v;
    }
    if (tk.text === "-" || tk.text === "+" || tk.text === "~" || tk.text === "!") {
      k++;
      const v = primary();
      return tk.text === "-" ? -v : tk.text === "+" ? v : tk.text === "~" ? ~v : v === 0n ? 1n : 0n;
    }
    return fail();
  };
  const LEVELS: string[][] = [["|"], ["^"], ["&"], ["<<", ">>"], ["+", "-"], ["*", "/", "%"]];
  const opAt = (): string | undefined => {
    const a = peek();
    if ((a === "<" || a === ">") && peek(1) === a && tokens[k + 1]!.start === tokens[k]!.end) return a + a;
    return a;
  };
  const binary = (level: number): bigint => {
    if (level === LEVELS.length) return primary();
    let v = binary(level + 1);
    for (;;) {
      const op = opAt();
      if (op === undefined || !LEVELS[level]!.includes(op)) return v;
      // `&&`, `||`, `|=`… are not ours.
      const next = tokens[k + op.length];
      if ((op === "&" || op === "|") && next?.text === op && next.start === tokens[k]!.end) return fail();
      k += op.length;
      const w = binary(level + 1);
      if ((op === "/" || op === "%") && w === 0n) return fail();
      v = op === "|" ? v | w : op === "^" ? v ^ w : op === "&" ? v & w : op === "<<" ? v << w : op === ">>" ? v >> w : op === "+" ? v + w : op === "-" ? v - w : op === "*" ? v * w : op === "/" ? v / w : v % w;
    }
  };
  try {
    const v = binary(0);
    return k === tokens.length ? v : null;
  } catch {
    return null;
  }
}

/** Reads the operands of `st` (outputs first, then inputs, numbered from 0). */
export function readOperands(st: AsmStatement): { operands: BoundOperand[]; reasons: Reason[] } {
  const reasons: Reason[] = [];
  const operands: BoundOperand[] = [];
  const all: [AsmOperand, boolean][] = [...st.outputs.map((o): [AsmOperand, boolean] => [o, true]), ...st.inputs.map((o): [AsmOperand, boolean] => [o, false])];
  all.forEach(([o, isOut], index) => {
    if (o.constraintNotLiteral) {
      reasons.push({ loc: o.loc, message: `operand %${index}: the constraint is built from macro names ('${o.constraintNotLiteral.text}'), not only string literals` });
      operands.push({ index, name: o.name, dir: isOut ? "out" : "in", cls: "?", tied: null, expr: o.expr, exprTokens: o.exprTokens, loc: o.loc });
      return;
    }
    let c = o.constraint;
    const dir = c.startsWith("=") ? "out" : c.startsWith("+") ? "inout" : "in";
    c = c.replace(/[=+&%]/g, "");
    let cls = c;
    let tied: number | null = null;
    if (/^[0-9]+$/.test(c)) {
      cls = "tied";
      tied = Number(c);
      if (isOut || tied >= st.outputs.length) reasons.push({ loc: o.loc, message: `operand %${index}: the matching constraint "${o.constraint}" names no output operand` });
    } else if (!(c in CLASS_DECL) && c !== "n") reasons.push({ loc: o.loc, message: `operand %${index}: constraint "${o.constraint}" is not one of r, l, h, f, d, n (or a matching digit)` });
    if (isOut !== (dir !== "in")) reasons.push({ loc: o.loc, message: `operand %${index}: constraint "${o.constraint}" ${isOut ? "is an output without = or +" : "has = or + among the inputs"}` });
    if (o.exprTokens.length === 0) reasons.push({ loc: o.loc, message: `operand %${index}: no expression` });
    operands.push({ index, name: o.name, dir, cls, tied, expr: o.expr, exprTokens: o.exprTokens, loc: o.loc });
  });
  return { operands, reasons };
}

/**
 * Why an integer literal of the template (after `n` operands are substituted) cannot be
 * rewritten as written, or null: wider than 64 bits, or not fitting its operand, which the
 * parser (src/ir/family_inst.ts) truncates silently as ptxas does. `imm.value` is the
 * literal truncated to the operand's width W; the literal fits when it is that value read
 * unsigned, or read signed (v < 0 and `value - v` = 2^W with `value` ≥ 2^(W-1)), so W
 * itself is not needed. Constant expressions (`(1+2)`) and float literals (`0f…`) are taken
 * as the parser reads them (64-bit arithmetic, exact bit patterns).
 */
function immediateTruncated(imm: Extract<PtxOperand, { kind: "imm" }>): string | null {
  const m = /^([+-]?)\s*(0[xX][0-9a-fA-F]+|0[bB][01]+|0[0-7]+|[1-9][0-9]*|0)U?$/.exec(imm.text.trim());
  if (!m) return null;
  const digits = m[2]!;
  const magnitude = BigInt(/^0[0-7]+$/.test(digits) ? `0o${digits.slice(1)}` : digits);
  const v = m[1] === "-" ? -magnitude : magnitude;
  if (v < -(1n << 63n) || v >= 1n << 64n) return "is wider than 64 bits (it would be truncated)";
  const p = imm.value;
  if (p === v) return null;
  const span = p - v;
  if (v < 0n && (span & (span - 1n)) === 0n && p >= span >> 1n && p < span) return null;
  return `does not fit its operand (it would be truncated to 0x${p.toString(16)})`;
}

/** PTX name of operand N's register in the synthesized module. */
const regName = (n: number) => `%__ptxl_op${n}`;
const REG_RE = /^%__ptxl_op(\d+)$/;

/**
 * Binds and validates one asm statement.
 * @param values the value of each `n` operand (by index) — when absent, the operand's
 *   expression is evaluated as a constant; `asRegister`: `n` operands bound as `.b32`
 *   registers instead (a macro's HIP copy passes them as values).
 */
export function bindStatement(st: AsmStatement, scan: Scan, opts: { values?: Map<number, bigint>; asRegister?: Set<number>; heads?: readonly PtxHead[] } = {}): BindResult {
  if (st.malformed) return { ok: false, operands: [], reasons: [{ loc: st.malformed.loc, message: `malformed asm statement: ${st.malformed.message}` }] };
  const { operands, reasons } = readOperands(st);
  const fail = (loc: Loc, message: string): BindResult => ({ ok: false, operands, reasons: [...reasons, { loc, message }] });
  if (st.templateNotLiteral) return fail(scan.source.loc(st.templateNotLiteral.start), `the template is built from macro names ('${st.templateNotLiteral.text}'), not only string literals`);
  if (st.labels.length || st.qualifiers.includes("goto")) return fail(st.loc, "asm goto (jumps to C labels) is not rewritten");
  if (reasons.length) return { ok: false, operands, reasons };
  const asReg = (o: BoundOperand) => o.cls === "n" && (opts.asRegister?.has(o.index) ?? false);
  for (const o of operands) {
    if (o.cls !== "n" || asReg(o)) continue;
    const v = opts.values?.get(o.index) ?? evalConst(o.exprTokens);
    if (v === null) return fail(o.loc, `operand %${o.index}: the value of an "n" operand is not a literal: ${o.expr}`);
    if (v < -(1n << 63n) || v >= 1n << 64n) return fail(o.loc, `operand %${o.index}: the "n" value ${v} is wider than 64 bits (it would be truncated)`);
    o.value = v;
  }
  // The template with operands substituted; per character, its C source offset.
  let body = "";
  const at: number[] = [];
  const emit = (s: string, off: number) => {
    body += s;
    for (let i = 0; i < s.length; i++) at.push(off);
  };
  const T = st.template;
  const byName = new Map(operands.filter((o) => o.name !== null).map((o) => [o.name!, o]));
  for (let i = 0; i < T.length; i++) {
    const ch = T[i]!;
    const off = st.templateAt[i]!;
    if (ch !== "%" || st.basic) {
      emit(ch, off);
      continue;
    }
    const next = T[i + 1];
    let o: BoundOperand | undefined;
    let len = 1;
    if (next === "%") {
      emit("%", off);
      i++;
      continue;
    }
    if (next !== undefined && /[0-9]/.test(next)) {
      let j = i + 1;
      while (j < T.length && /[0-9]/.test(T[j]!)) j++;
      const n = Number(T.slice(i + 1, j));
      o = operands[n];
      len = j - i;
      if (!o) return fail(scan.source.locOfOrig(off), `%${n} names no operand (the statement has ${operands.length})`);
    } else if (next === "[") {
      const j = T.indexOf("]", i);
      const name = j < 0 ? "" : T.slice(i + 2, j);
      o = byName.get(name);
      len = j - i + 1;
      if (!o) return fail(scan.source.locOfOrig(off), `%[${name}] names no operand`);
    } else return fail(scan.source.locOfOrig(off), `'%${next ?? ""}' in the template is not an operand reference (%N, %[name] or %%)`);
    if (o.cls === "n" && !asReg(o)) emit(o.value!.toString(), off);
    else emit(regName(o.cls === "tied" ? o.tied! : o.index), off);
    i += len - 1;
  }
  const decls = operands
    .filter((o) => o.cls !== "tied" && (o.cls !== "n" || asReg(o)))
    .map((o) => `.reg ${asReg(o) ? ".b32" : CLASS_DECL[o.cls]} ${regName(o.index)};`)
    .join(" ");
  // The first module header whose target accepts every instruction (`portHeads`; one, when pinned).
  const heads = opts.heads ?? portHeads();
  let ptxHead = heads[0]!;
  let head = "";
  let text = "";
  let mod!: ParsedModule;
  for (const h of heads) {
    const candidate = `${headText(h)}.visible .entry __ptxl_port()\n{\n${decls}\n`;
    const m = parseModule(candidate + body + "\n}\n", scan.source.file);
    const errors = m.diagnostics.filter((d) => d.severity === "error");
    if (h === heads[0]) {
      [ptxHead, head, text, mod] = [h, candidate, candidate + body + "\n}\n", m];
      if (!errors.some((d) => TARGET_REFUSAL.test(d.message))) break;
    } else if (errors.length === 0) {
      [ptxHead, head, text, mod] = [h, candidate, candidate + body + "\n}\n", m];
      break;
    }
  }
  // PTX locations back to the C source.
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") lineStarts.push(i + 1);
  const cLoc = (l: Loc): Loc => {
    const off = (lineStarts[l.line - 1] ?? 0) + l.col - 1 - head.length;
    return off >= 0 && off < at.length ? scan.source.locOfOrig(at[off]!) : st.loc;
  };
  const inBody = (l: Loc) => (lineStarts[l.line - 1] ?? 0) + l.col - 1 >= head.length;
  const out: Reason[] = [];
  const tried = heads.length > 1 && ptxHead === heads[0] ? ` (no module header accepts it; tried ${triedHeads(heads)})` : "";
  for (const d of mod.diagnostics)
    if (d.severity === "error") {
      const loc = cLoc(d.loc);
      // ptxas's messages that quote a line ("…encountered on line 7") name the synthesized module's: the user's is the C source's.
      const message = d.message.replace(/\bon line \d+/, `on line ${loc.line}`);
      out.push({ loc, message: message + (TARGET_REFUSAL.test(d.message) ? tried : "") });
    }
  const family = new Map(mod.insts.map((fi) => [`${fi.loc.line}:${fi.loc.col}`, fi]));
  const fn = mod.ast.items.find((x) => x.kind === "function");
  let count = 0;
  const walk = (stmts: Statement[]) => {
    for (const s of stmts) {
      if (!inBody(s.loc)) continue;
      if (s.kind === "block") walk(s.stmts);
      else if (s.kind === "inst") {
        count++;
        const faulty = mod.diagnostics.some((d) => d.severity === "error" && d.loc.line === s.loc.line && d.loc.col >= s.loc.col && d.loc.col < s.loc.col + s.text.length);
        if (!family.has(`${s.loc.line}:${s.loc.col}`) && !faulty)
          out.push({ loc: cLoc(s.loc), message: `'${[s.opcode, ...s.modifiers].join(".")}' is not an instruction ptx-lower supports` });
      } else if (s.kind === "label") out.push({ loc: cLoc(s.loc), message: `a label (${s.name}): branches are not rewritten` });
      else if (s.kind === "var" && s.space !== "reg") out.push({ loc: cLoc(s.loc), message: `a .${s.space} declaration: only .reg temporaries are rewritten` });
      else if (s.kind === "directive") out.push({ loc: cLoc(s.loc), message: `the directive .${s.name} is not rewritten` });
    }
  };
  if (fn?.kind === "function" && fn.body) walk(fn.body.stmts);
  if (count === 0 && out.length === 0) out.push({ loc: st.loc, message: "the template holds no instruction" });
  if (out.length) return { ok: false, operands, reasons: out };
  // Bind every instruction's registers.
  const flat = flattenModule(mod.ast).functions[0]!;
  const scopes = new Map(flat.items.filter((x) => x.kind === "inst").map((x) => [`${x.inst.loc.line}:${x.inst.loc.col}`, x.scope] as const));
  const temps = new Map<string, Temp>();
  const calls: Call[] = [];
  /** The output operands an unguarded instruction of the template has written so far. */
  const written = new Set<number>();
  for (const fi of mod.insts) {
    const scope = scopes.get(`${fi.loc.line}:${fi.loc.col}`)!;
    const loc = cLoc(fi.loc);
    const ref = (name: string, at: Loc): Ref | Reason => {
      const m = REG_RE.exec(name);
      if (m) return { kind: "operand", index: Number(m[1]) };
      const info = scope.lookup(name);
      if (info && info.kind === "reg") {
        const type = info.type === "pred" ? "pred" : /^[bus]32$/.test(info.type ?? "") ? "u32" : /^[bus]64$/.test(info.type ?? "") ? "u64" : null;
        if (type === null) return { loc: cLoc(at), message: `the temporary ${name} has type .${info.type}: only 32- and 64-bit integer and .pred temporaries are rewritten` };
        if (info.vector !== null) return { loc: cLoc(at), message: `the temporary ${name} is a vector` };
        if (!temps.has(info.key)) temps.set(info.key, { key: info.key, ptx: name, type });
        return { kind: "temp", key: info.key };
      }
      const dot = name.indexOf(".");
      if (specialRegister(dot < 0 ? name : name.slice(0, dot))) return { loc: cLoc(at), message: `reads the special register ${name}, which has no C operand` };
      return { loc: cLoc(at), message: `cannot bind ${name} to a C operand` };
    };
    const src = (o: PtxOperand | undefined): Ref | Reason | null => (o === undefined || o.kind !== "reg" ? null : ref(o.name, o.loc));
    const isReason = (x: unknown): x is Reason => typeof x === "object" && x !== null && "message" in x;
    const kinds: Partial<Record<SourceName, OperandKind>> = {};
    const args: Ref[] = [];
    for (const s of sourcesOf(fi.form)) {
      const o = fi[s];
      if (o?.kind === "imm") {
        const why = immediateTruncated(o);
        if (why) return fail(cLoc(o.loc), `the immediate ${o.text} ${why}`);
        kinds[s] = { kind: "imm", value: o.value };
        continue;
      }
      kinds[s] = { kind: "v" };
      const r = src(o);
      if (r === null) return fail(loc, `operand ${s} of ${fi.text} cannot be bound`);
      if (isReason(r)) return { ok: false, operands, reasons: [r] };
      args.push(r);
    }
    // An `=r` output holds no value until the asm writes it (a matching input gives it one).
    // (A guard is a .pred, never an operand: operands are .b16/.b32/.b64 registers.)
    for (const r of args) {
      if (r.kind !== "operand" || operands[r.index]!.dir !== "out" || written.has(r.index) || operands.some((o) => o.tied === r.index)) continue;
      return fail(loc, `reads the output operand %${r.index} before the template writes it: an "=r" operand holds no value on entry (GNU asm); "+r" passes the C value in`);
    }
    const writes = formWrites(fi.form);
    const d = writes.d ? src(fi.d) : null;
    const p = writes.p ? src(fi.p) : null;
    for (const r of [d, p]) {
      if (isReason(r)) return { ok: false, operands, reasons: [r] };
      if (r?.kind === "operand" && operands[r.index]!.dir === "in") return fail(loc, `writes the input operand %${r.index} (an input may not be changed by the asm)`);
      if (r?.kind === "operand" && !fi.guard) written.add(r.index);
    }
    let guard: Call["guard"] = null;
    if (fi.guard) {
      const g = ref(fi.guard.reg, fi.loc);
      if (isReason(g)) return { ok: false, operands, reasons: [g] };
      guard = { ref: g, negate: fi.guard.negate };
    }
    // The instruction text with a register of its own per operand, for the routines module.
    const from = text.indexOf(fi.text, lineStarts[fi.loc.line - 1] ?? 0);
    const at0 = from >= 0 ? from : text.indexOf(fi.text);
    const slots = Object.entries(fi)
      .filter(([k, v]) => k !== "guard" && typeof v === "object" && v !== null && (v as PtxOperand).kind === "reg")
      .map(([, v]) => v as Extract<PtxOperand, { kind: "reg" }>)
      .map((o) => ({ o, off: (lineStarts[o.loc.line - 1] ?? 0) + o.loc.col - 1 - at0 }))
      .sort((x, y) => x.off - y.off);
    if (at0 < 0 || slots.some(({ o, off }) => fi.text.slice(off, off + o.name.length) !== o.name)) return fail(loc, `internal: cannot re-read ${fi.text}`);
    let inst = fi.text;
    const types: string[] = [];
    slots.forEach(({ o }) => types.push(scope.lookup(o.name)?.type ?? "b32"));
    for (let k = slots.length - 1; k >= 0; k--) inst = inst.slice(0, slots[k]!.off) + `%s${k}` + inst.slice(slots[k]!.off + slots[k]!.o.name.length);
    inst = inst.replace(/^@!?\s*[%$\w]+\s*/, "");
    const spec: RoutineSpec = { form: fi.form, kinds, guarded: false };
    calls.push({ name: routineName(spec, formId), spec, args, d: d as Ref | null, p: p as Ref | null, guard, loc, ptx: { text: inst, types, head: ptxHead } });
  }
  return { ok: true, operands, calls, temps: [...temps.values()], head: ptxHead };
}

/**
 * The PTX module of the routines a ported file calls: one instruction per routine, as its
 * first call's template wrote it (`Call.ptx`), unguarded, every register operand a register
 * of its own that is read but never written (so the uniformity pass finds it divergent, kind
 * `v`) or only written. Its routines (src/lower.ts `collectRoutines`) are exactly the calls'
 * functions, by name (and `extra`'s); this is what the header generator is given.
 */
export function routinesModuleText(calls: readonly Call[], name: string, extra: readonly RoutinePtx[] = [], head: PtxHead | null = null): string {
  const decls: string[] = [];
  const insts: string[] = [];
  [...calls.map((c) => c.ptx), ...extra].forEach((ptx, i) => {
    ptx.types.forEach((t, k) => decls.push(`\t.reg .${t} %r${i}_${k};`));
    insts.push(`\t${ptx.text.replace(/%s(\d+)/g, (_, k: string) => `%r${i}_${k}`)}`);
  });
  const h = head ?? calls[0]?.ptx.head ?? portHeads()[0]!;
  // The name in a PTX comment: ptxas reads ASCII only (a non-ASCII byte anywhere is its fatal error), so other characters are '?'.
  return [`// The routines ${name.replace(/[^\x20-\x7e]/g, "?")} calls (ptx-lower port).`, headText(h).trimEnd(), "", ".visible .entry __ptxl_port_routines()", "{", ...decls, ...insts, "\tret;", "}", ""].join("\n");
}

/** An instruction of the routines module: `Call.ptx`'s shape, its head optional (the CUDA warp intrinsics' PTX has none: it is legal under every head). */
export type RoutinePtx = { text: string; types: string[]; head?: PtxHead };

/**
 * Parses `routinesModuleText` under `head` (default: the first call's); throws if the module
 * does not parse clean (an internal error). `extra`: more instructions in `Call.ptx`'s shape,
 * after the calls' — the PTX of the CUDA warp intrinsics the file calls
 * (src/port/intrinsics.ts), whose HIP functions the drop-ins call.
 */
export function routinesModule(calls: readonly Call[], name: string, extra: readonly RoutinePtx[] = [], head: PtxHead | null = null): ParsedModule {
  const mod = parseModule(routinesModuleText(calls, name, extra, head), `${name.replace(/[^\x20-\x7e]/g, "?")}.routines.ptx`);
  const errors = mod.diagnostics.filter((d) => d.severity === "error");
  if (errors.length) throw new Error(`port: the routines module does not parse: ${errors.map((e) => e.message).join("; ")}`);
  return mod;
}
