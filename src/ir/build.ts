/**
 * @fileoverview From PTX text to the typed IR: parse (src/ptx), resolve names in their scopes,
 * and turn every `szext`, `vshl`/`vshr` and `match` instruction into a `FamilyInst`, checking
 * it exactly as ptxas 13.0 does (`ptxas -arch=sm_90`; ../shared/notes/ptx-semantics.md §5(c)
 * and its "read first" block). Every other instruction is only counted (`census`).
 *
 * ptxas checks an instruction in phases, and the order decides which messages appear when
 * several things are wrong. Reconstructed from ptxas's output (test/diagnostics.test.ts
 * compares the two tools line by line):
 *   1. while parsing: unknown modifiers, "Multiple clamp modifiers specified", two of
 *      `.any/.all`, unknown selector spellings ("Unknown video selector: '.x'"), a suffix on
 *      a name that is not a 32-bit register ("Unknown field '.b0'"), a guard that is not a
 *      predicate;
 *   2. template match, which stops at the first failure: template-level illegal modifiers
 *      (`.add/.min/.max` on szext and match; `.sync .and .or .xor .cas .relu .satfinite`
 *      where they do not belong), the type suffixes ("Unexpected instruction types"), the
 *      operand count, the operands' kinds and widths ("Arguments mismatch");
 *   3. per-family semantic checks, all reported, in a fixed order per family (see
 *      `checkSzext`, `checkVsh`, `checkMatch`); a `_` destination where discard is not
 *      allowed is fatal in ptxas, so nothing after it is reported;
 *   4. "Unknown symbol" for every undeclared name, last.
 * (ptxas prints a few messages twice, e.g. "Illegal modifier 'Clamp'"; they appear once here.)
 * An instruction with any error yields no `FamilyInst`.
 *
 * Where ptxas 13.0 accepts more than §5(c) says, this follows ptxas: modifiers and types in
 * any order (types keep their relative order dtype.atype.btype), a repeated `.sat` or
 * `.sync`, `d|_` on every family (same as `d`), a `0f…` immediate as a `.b32` match `a`
 * and a `0d…` one as a `.b64` match `a`.
 */
import { type Diagnostic, error, messages, warning } from "../diag.js";
import { PTX_OPCODES } from "../ptx/opcodes.js";
import { type Block, type FunctionDecl, type Instruction, type Module, type Operand, type TopLevel, type VarDecl } from "../ptx/ast.js";
import { parsePtx } from "../ptx/parser.js";
import type { Form } from "./forms.js";
import { formId } from "./forms.js";
import type { FamilyInst, Loc } from "./ir.js";
import type { AnyFamily, FamilySyntax } from "../family/types.js";
import { type FamilyOpcode, familyByOp, familyOpOf } from "../families/index.js";

/** The result of `parseModule`. */
export interface ParsedModule {
  file: string;
  /**
   * The syntax tree. Kept from the parse for modules up to `KEEP_AST_MAX_CHARS` characters
   * (or as `ParseModuleOptions.keepAst` says); for larger ones the module keeps only its
   * text and parses it again on the first read of `ast` (a dataflow pass needs `resolved`,
   * not the tree).
   */
  ast: Module;
  /** Every valid family instruction, in source order. */
  insts: FamilyInst[];
  /** Full opcode with modifiers (`ld.param.u64`) → count, for every instruction outside the three families. */
  census: Map<string, number>;
  /** Syntax and validation diagnostics, sorted by line. */
  diagnostics: Diagnostic[];
  /**
   * Every function's instructions with their names resolved, packed (see `ResolvedModule`):
   * what passes/uniformity.ts reads instead of flattening the tree again. Absent on a module
   * not made by `parseModule` (`resolveModule` computes it from `ast`), and released by
   * `collectRoutines` (src/lower.ts) once the module's routines are known — from the
   * lowering's own view of the module where the library is called (src/api.ts
   * `lowerersView`): the caller's object keeps it.
   */
  resolved?: ResolvedModule;
}

/** Options of `parseModule`. */
export interface ParseModuleOptions {
  /** Keep the syntax tree from the parse (default: for texts up to `KEEP_AST_MAX_CHARS`). */
  keepAst?: boolean;
}

/**
 * Modules up to this many characters keep their syntax tree (about 1 KB of memory per line);
 * larger ones parse again when `ast` is read.
 */
export const KEEP_AST_MAX_CHARS = 1 << 20;

/**
 * Parse and validate a PTX module. Never throws (any input, including random bytes).
 * Errors: every ptxas rejection of a family instruction, with ptxas's message, located at
 * the opcode (or the operand at fault); syntax errors from src/ptx/parser.ts.
 *
 * One pass: each function is checked and resolved as soon as it has been parsed, so that
 * (unless the tree is kept) only one function's syntax tree is alive at a time.
 */
export function parseModule(text: string | Uint8Array, file: string, opts: ParseModuleOptions = {}): ParsedModule {
  // The arguments are checked by the library's parseModule (src/api.ts, src/args.ts).
  if (typeof text !== "string") text = new TextDecoder("utf-8").decode(text);
  // ptxas reads the module as a C string: it ends at the first NUL, wherever it is (a
  // comment included), and nothing after it is parsed. A warning says so.
  const nul = text.indexOf("\0");
  if (nul < 0) return parseWith(text, file, opts.keepAst ?? text.length <= KEEP_AST_MAX_CHARS, null);
  const head = text.slice(0, nul);
  const mod = parseWith(head, file, opts.keepAst ?? head.length <= KEEP_AST_MAX_CHARS, null);
  const line = countNewlines(head) + 1;
  const col = nul - (head.lastIndexOf("\n") + 1) + 1;
  mod.diagnostics.push(warning({ file, line, col }, messages.nulEndsInput()));
  mod.diagnostics.sort((a, b) => a.loc.line - b.loc.line);
  return mod;
}

/**
 * `parseModule` with `ctx` fixed (null: as the module says when each function is reached).
 * `.version` and `.target` normally come first; if one comes after a function, the module is
 * parsed again with the final context, as a check after the whole parse would see it.
 */
function parseWith(text: string, file: string, keepAst: boolean, fixedCtx: ModuleContext | null): ParsedModule {
  const flattener = new Flattener();
  const resolver = new Resolver();
  const candidates: FamilyInst[] = [];
  const familyDiags: Diagnostic[] = [];
  const interner = new Interner();
  const unknownSeen = new Set<string>();
  let ctxSeen: ModuleContext | null = fixedCtx;
  let ctxChanged = false;
  let failure: unknown = null;
  const onItem = (item: TopLevel, partial: Module): boolean => {
    if (failure === null) {
      try {
        const fn = flattener.add(item);
        if (fn) {
          let ctx = ctxSeen;
          if (fixedCtx === null) {
            ctx = moduleContext(partial);
            if (ctxSeen !== null && !sameContext(ctx, ctxSeen)) ctxChanged = true;
            ctxSeen = ctx;
          }
          const family = new Map<Instruction, FamilyInst>();
          const kinds: number[] = [];
          for (const item of fn.items) {
            if (item.kind !== "inst") continue;
            const inst = item.inst;
            kinds.push(resolver.kind(inst));
            // A module ptxas rejects as fatal (src/ptx/parser.ts): no target to check against,
            // and ptxas checks nothing more; its error fails the module.
            if (partial.fatal) continue;
            if (familyOpOf(inst) === null) {
              // An unknown opcode (a typo of szext?): warned once per name, where first seen.
              if (!PTX_OPCODES.has(inst.opcode) && !unknownSeen.has(inst.opcode)) {
                unknownSeen.add(inst.opcode);
                familyDiags.push(warning(inst.loc, messages.unknownInstruction(inst.opcode)));
              }
              continue;
            }
            const r = checkFamily(inst, item.scope, fn, ctx!, interner);
            for (const d of r.diagnostics) familyDiags.push(d);
            if (r.inst) {
              candidates.push(r.inst);
              family.set(inst, r.inst);
            }
          }
          resolver.add(fn, (inst) => family.get(inst), kinds);
        }
      } catch (e) {
        failure = e;
      }
    }
    return keepAst;
  };
  const { module: parsed, diagnostics } = parsePtx(text, file, { onItem });
  if (failure === null && fixedCtx === null && ctxSeen !== null) {
    const final = moduleContext(parsed);
    if (ctxChanged || !sameContext(final, ctxSeen)) return parseWith(text, file, keepAst, final);
  }
  // Census: every kind outside the families, in order of first appearance.
  const census = new Map<string, number>();
  resolver.module.kinds.forEach((k, i) => {
    if (familyOpOf(k) === null) census.set(k.key, resolver.kindCounts[i]);
  });
  const out: ParsedModule = { file, ast: parsed, insts: [], census, diagnostics };
  // After an internal failure some functions were not resolved; passes then resolve the tree.
  if (failure === null) out.resolved = resolver.module;
  if (!keepAst) parseAstOnRead(out, text);
  // A syntax error inside the instruction (say "Constant overflow") also disqualifies it.
  const syntaxLines = new Set(diagnostics.map((d) => d.loc.line));
  for (const fi of candidates) {
    let clean = true;
    for (let l = fi.loc.line, end = l + countNewlines(fi.text); l <= end; l++) if (syntaxLines.has(l)) clean = false;
    if (clean) out.insts.push(fi);
  }
  for (const d of familyDiags) diagnostics.push(d);
  if (failure !== null) diagnostics.push(error({ file, line: 1, col: 1 }, messages.internalError(failure instanceof Error ? failure.message : String(failure))));
  diagnostics.sort((a, b) => a.loc.line - b.loc.line);
  return out;
}

/** Makes `mod.ast` parse `text` on its first read (a closure of its own, so that it keeps nothing else alive). */
function parseAstOnRead(mod: ParsedModule, text: string): void {
  let ast: Module | null = null;
  Object.defineProperty(mod, "ast", { enumerable: true, configurable: true, get: () => (ast ??= parsePtx(text, mod.file).module) });
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf("\n"); i >= 0; i = s.indexOf("\n", i + 1)) n++;
  return n;
}

/** The opcodes this tool lowers (the families' `ops`; src/families/index.ts). */
export { type FamilyOpcode, isFamilyOpcode, familyOpOf } from "../families/index.js";

// ==================================================================== names and scopes

/**
 * What a name refers to. `key` identifies the declaration (two registers with the same name
 * in different scopes have different keys), which is what a dataflow pass needs.
 */
export interface SymInfo {
  key: string;
  kind: "reg" | "var" | "special" | "label" | "function";
  /** State space without the dot (`reg`, `param`, `global`, …); `sreg` for special registers. */
  space: string;
  type: string | null;
  vector: number | null;
  /** A `.param` of an `.entry`: the same value in every thread of the grid. */
  kernelParam: boolean;
  /** A parameter or return register of a `.func` (its value comes from the caller). */
  funcParam: boolean;
}

/** Name lookup as seen from one point of the program. */
export interface NameScope {
  /** The declaration `name` refers to here, or null. */
  lookup(name: string): SymInfo | null;
}

/**
 * One lexical scope (module, function parameters, or a `{ }` block). Declarations carry a
 * sequence number from a module-wide clock, so that a lookup can see only what was declared
 * before a given point (PTX requires declaration before use).
 */
export class Scope implements NameScope {
  private readonly names = new Map<string, { seq: number; info: SymInfo }[]>();
  private readonly ranges = new Map<string, { seq: number; count: number; info: SymInfo }[]>();
  /** `%r7` → its SymInfo, for prefixes declared by a single range (cleared when a range is added). */
  private readonly rangeHits = new Map<string, { seq: number; info: SymInfo }>();
  private view: { seq: number; scope: NameScope } | null = null;
  constructor(
    readonly parent: Scope | null,
    private readonly id: number,
    private readonly clock: { seq: number },
  ) {}

  /** Declare every name of `decl`. */
  declare(decl: VarDecl, extra: { kernelParam?: boolean; funcParam?: boolean } = {}): void {
    for (const d of decl.declarators) {
      const info: SymInfo = {
        key: `${this.id}:${d.name}`,
        kind: decl.space === "reg" ? "reg" : "var",
        space: decl.space,
        type: decl.type,
        vector: decl.vector,
        kernelParam: extra.kernelParam ?? false,
        funcParam: extra.funcParam ?? false,
      };
      const seq = this.clock.seq++;
      if (d.range !== null) {
        push(this.ranges, d.name, { seq, count: d.range, info });
        this.rangeHits.clear();
      }
      else push(this.names, d.name, { seq, info });
    }
  }

  /** Declare a non-variable name (function) in this scope. */
  declareName(name: string, kind: "function"): void {
    const info: SymInfo = { key: `${this.id}:${name}`, kind, space: "", type: null, vector: null, kernelParam: false, funcParam: false };
    push(this.names, name, { seq: this.clock.seq++, info });
  }

  /** A view of this scope at the current point of the walk: later declarations are invisible. */
  here(): NameScope {
    const before = this.clock.seq;
    if (this.view?.seq !== before) this.view = { seq: before, scope: new ScopeAt(this, before) };
    return this.view.scope;
  }

  /**
   * The declaration `name` refers to, among those made before `before` (all by default).
   * `%r7` (or `%r07`, as ptxas allows) matches a range `%r<N>` with N > 7.
   */
  lookup(name: string, before = Infinity): SymInfo | null {
    for (let s: Scope | null = this; s; s = s.parent) {
      const list = s.names.get(name);
      if (list) {
        for (let k = list.length - 1; k >= 0; k--) if (list[k].seq < before) return list[k].info;
      }
      if (s.ranges.size === 0) continue;
      const hit = s.rangeHits.get(name);
      if (hit && hit.seq < before) return hit.info;
      let i = name.length;
      while (i > 0 && name.charCodeAt(i - 1) >= 48 && name.charCodeAt(i - 1) <= 57) i--;
      if (i === name.length || i === 0) continue;
      const rl = s.ranges.get(name.slice(0, i));
      if (!rl) continue;
      const n = Number(name.slice(i));
      for (let k = rl.length - 1; k >= 0; k--) {
        if (rl[k].seq < before && n < rl[k].count) {
          const info = { ...rl[k].info, key: `${rl[k].info.key}${n}` };
          if (rl.length === 1) s.rangeHits.set(name, { seq: rl[k].seq, info }); // the only candidate: safe to remember
          return info;
        }
      }
    }
    return null;
  }
}

/** A scope as seen from one point: declarations made later are invisible. */
class ScopeAt implements NameScope {
  constructor(
    private readonly scope: Scope,
    private readonly before: number,
  ) {}
  lookup(name: string): SymInfo | null {
    return this.scope.lookup(name, this.before);
  }
}

function push<T>(m: Map<string, T[]>, k: string, v: T): void {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
}

/** Special registers (PTX ISA "Special Registers") and their widths; `vec` ones take `.x/.y/.z`. */
const SPECIAL_VEC = new Set(["%tid", "%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid"]);
const SPECIAL_32 = new Set([
  "%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%lanemask_eq", "%lanemask_le", "%lanemask_lt", "%lanemask_ge",
  "%lanemask_gt", "%clock", "%clock_hi", "%globaltimer_lo", "%globaltimer_hi", "%total_smem_size", "%aggr_smem_size",
  "%dynamic_smem_size", "%cluster_ctarank", "%cluster_nctarank", "%reserved_smem_offset_begin",
  "%reserved_smem_offset_end", "%reserved_smem_offset_cap", "%reserved_smem_offset_0", "%reserved_smem_offset_1",
]);
const SPECIAL_64 = new Set(["%clock64", "%gridid", "%globaltimer", "%current_graph_exec"]);

/** The special register `name` (without a component), or null. */
export function specialRegister(name: string): { width: 32 | 64; vec: boolean; pred: boolean } | null {
  if (SPECIAL_VEC.has(name)) return { width: 32, vec: true, pred: false };
  if (SPECIAL_32.has(name)) return { width: 32, vec: false, pred: false };
  if (SPECIAL_64.has(name)) return { width: 64, vec: false, pred: false };
  if (name === "%is_explicit_cluster") return { width: 32, vec: false, pred: true };
  if (name.startsWith("%envreg") && /^%envreg([0-9]|[12][0-9]|3[01])$/.test(name)) return { width: 32, vec: false, pred: false };
  if (/^%pm[0-7]$/.test(name)) return { width: 32, vec: false, pred: false };
  if (/^%pm[0-7]_64$/.test(name)) return { width: 64, vec: false, pred: false };
  return null;
}

/** One statement of a flattened function: an instruction with its scope, or a label. */
export type FlatItem = { kind: "inst"; inst: Instruction; scope: NameScope } | { kind: "label"; name: string; loc: Loc };

/** A function with its nested blocks flattened into program order. */
export interface FlatFunction {
  fn: FunctionDecl;
  items: FlatItem[];
  labels: Set<string>;
}

/**
 * Walk the module in order, declaring names as ptxas does (declare before use; inner blocks
 * shadow outer ones), and flatten every function body. `parseModule` does the same one item
 * at a time (`Flattener`), and `resolveModule` builds on it, so that the checks here and the
 * dataflow passes agree on what each register name means.
 */
export function flattenModule(ast: Module): { globals: Scope; functions: FlatFunction[] } {
  const f = new Flattener();
  const functions: FlatFunction[] = [];
  for (const item of ast.items) {
    const fn = f.add(item);
    if (fn) functions.push(fn);
  }
  return { globals: f.globals, functions };
}

/** `flattenModule` one top-level item at a time, in source order. */
class Flattener {
  private nextId = 0;
  private readonly clock = { seq: 0 };
  readonly globals = new Scope(null, this.nextId++, this.clock);

  /** Declares what `item` declares; returns its flattened body if it is a function with one. */
  add(item: TopLevel): FlatFunction | null {
    if (item.kind === "var") {
      this.globals.declare(item);
      return null;
    }
    if (item.kind !== "function") return null;
    this.globals.declareName(item.name, "function");
    if (!item.body) return null;
    const fscope = new Scope(this.globals, this.nextId++, this.clock);
    for (const p of item.rets) fscope.declare(p, { funcParam: true });
    for (const p of item.params) fscope.declare(p, { kernelParam: item.entry && p.space === "param", funcParam: !item.entry });
    const flat: FlatFunction = { fn: item, items: [], labels: new Set() };
    const stack: { stmts: Block["stmts"]; i: number; scope: Scope }[] = [{ stmts: item.body.stmts, i: 0, scope: new Scope(fscope, this.nextId++, this.clock) }];
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (top.i >= top.stmts.length) {
        stack.pop();
        continue;
      }
      const s = top.stmts[top.i++];
      if (s.kind === "inst") flat.items.push({ kind: "inst", inst: s, scope: top.scope.here() });
      else if (s.kind === "label") {
        flat.items.push({ kind: "label", name: s.name, loc: s.loc });
        flat.labels.add(s.name);
      } else if (s.kind === "var") top.scope.declare(s);
      else if (s.kind === "block") stack.push({ stmts: s.stmts, i: 0, scope: new Scope(top.scope, this.nextId++, this.clock) });
    }
    return flat;
  }
}

// ==================================================================== resolved instructions

/**
 * Every function of a module with its instructions' names resolved, packed into integers:
 * the facts a dataflow pass (passes/uniformity.ts) needs, without the syntax tree. One
 * module-wide table of instruction kinds (opcode with modifiers) and of strings; per function,
 * the instructions in `ResolvedFunction.code`.
 */
export interface ResolvedModule {
  /** Instruction kinds, in order of first appearance: `ld.param.u64` → opcode `ld`, modifiers `["param", "u64"]`. */
  kinds: { key: string; opcode: string; modifiers: readonly string[] }[];
  /** Interned strings: the names kept in `code` and the labels. */
  strings: string[];
  functions: ResolvedFunction[];
}

/** Operand kinds in `ResolvedFunction.code`. An address is told apart by whether its base is a symbol. */
export const OPK = { sym: 0, int: 1, float: 2, sink: 3, pair: 4, vector: 5, address: 6, addressSym: 7, list: 8 } as const;

/** What a symbol refers to, in `ResolvedFunction.code`: a register number (≥ 0) or one of these. */
export const REF = {
  /** A variable (its address) that is not a kernel parameter. */
  var: -1,
  /** A `.param` of an `.entry`. */
  kernelParam: -2,
  function: -3,
  /** Not declared: a special register, a label, or an unknown name (its name is kept). */
  undeclared: -4,
} as const;

/** One function with a body, resolved. */
export interface ResolvedFunction {
  name: string;
  entry: boolean;
  /** Number of instructions. */
  count: number;
  /** Number of registers its instructions (and `.func` parameters) name. */
  regCount: number;
  /**
   * Per instruction, in program order:
   *   kind (`ResolvedModule.kinds` index); operand count × 2 + 1 if guarded; the guard's ref
   *   if guarded; the line if the opcode is `bra` or `brx`; then per operand: symbol count × 16 +
   *   kind (`OPK`), and per symbol: its ref, then its name if the ref is `REF.undeclared` or the
   *   opcode is `bra` (its target).
   * Symbols are the `sym` operands nested in the operand, in order (a pair's halves; a
   * vector's or list's elements; an address's base, then its elements). A ref is a register
   * number (≥ 0) or a `REF` code; a name is a `strings` index.
   */
  code: Int32Array;
  /** Labels in program order, as pairs: name (`strings` index), index of the instruction that follows. */
  labels: Int32Array;
  /** Register parameters and return registers of a `.func`, resolved where its first instruction is. */
  paramRegs: number[];
  /** The valid family instructions of the function (see `parseModule`), in order. */
  family: FamilyInst[];
  /** Per `family` entry, the refs of its sources a, b, c, membermask (in that order; REF.undeclared where absent or not a register). */
  familyRefs: Int32Array;
  /** With `resolveModule(…, true)` only: register number → declaration key (`SymInfo.key`). */
  regKeys?: string[];
  /** With `resolveModule(…, true)` only: register number → the name it is last written with among the operands (undefined if none). */
  regNames?: (string | undefined)[];
}

/** Source slots of `ResolvedFunction.familyRefs`. */
export const FAMILY_SOURCES = ["a", "b", "c", "membermask"] as const;

/** Builds a `ResolvedModule` one flattened function at a time. */
class Resolver {
  readonly module: ResolvedModule = { kinds: [], strings: [], functions: [] };
  /** Instructions per kind (`module.kinds`). */
  readonly kindCounts: number[] = [];
  private readonly kindIds = new Map<string, number>();
  private readonly stringIds = new Map<string, number>();
  private buf = new Int32Array(1 << 12);
  private len = 0;
  // Per function:
  private regIds = new Map<string, number>();
  private regKeys: string[] = [];
  private regNames: (string | undefined)[] = [];
  private bra = false;
  private scope: NameScope | null = null;
  private symCount = 0;

  /** @param detail also record each register's key and name (`ResolvedFunction.regKeys`, `regNames`) */
  constructor(private readonly detail = false) {}

  /** The kind of `inst` (counted). */
  kind(inst: Instruction): number {
    const m = inst.modifiers;
    const key = m.length === 0 ? inst.opcode : m.length === 1 ? inst.opcode + "." + m[0] : inst.opcode + "." + m.join(".");
    let id = this.kindIds.get(key);
    if (id === undefined) {
      id = this.module.kinds.length;
      this.module.kinds.push({ key, opcode: inst.opcode, modifiers: m });
      this.kindCounts.push(0);
      this.kindIds.set(key, id);
    }
    this.kindCounts[id]++;
    return id;
  }

  private str(s: string): number {
    let id = this.stringIds.get(s);
    if (id === undefined) {
      id = this.module.strings.length;
      this.module.strings.push(s);
      this.stringIds.set(s, id);
    }
    return id;
  }

  private put(x: number): void {
    if (this.len === this.buf.length) {
      const b = new Int32Array(this.buf.length * 2);
      b.set(this.buf);
      this.buf = b;
    }
    this.buf[this.len++] = x;
  }

  private ref(info: SymInfo | null): number {
    if (!info) return REF.undeclared;
    if (info.kind === "reg") {
      let id = this.regIds.get(info.key);
      if (id === undefined) {
        id = this.regKeys.length;
        this.regKeys.push(info.key);
        this.regIds.set(info.key, id);
      }
      return id;
    }
    if (info.kind === "var") return info.kernelParam ? REF.kernelParam : REF.var;
    return info.kind === "function" ? REF.function : REF.undeclared;
  }

  private syms(o: Operand): void {
    switch (o.kind) {
      case "sym": {
        const r = this.ref(this.scope!.lookup(o.name));
        this.symCount++;
        this.put(r);
        if (r === REF.undeclared || this.bra) this.put(this.str(o.name));
        if (this.detail && r >= 0) this.regNames[r] = o.name;
        break;
      }
      case "pair":
        this.syms(o.first);
        this.syms(o.second);
        break;
      case "vector":
      case "list":
        for (const e of o.elems) this.syms(e);
        break;
      case "address":
        if (o.base) this.syms(o.base);
        for (const e of o.elems) this.syms(e);
        break;
      default:
        break;
    }
  }

  /**
   * Resolves `fn`. `family` gives the valid family instruction built from an instruction, if
   * any; `kinds`, the kind of each instruction in order (as `kind` gave it), else they are
   * computed here.
   */
  add(fn: FlatFunction, family: (inst: Instruction) => FamilyInst | undefined, kinds?: readonly number[]): void {
    this.regIds = new Map();
    this.regKeys = [];
    this.regNames = [];
    const labels: number[] = [];
    const fam: FamilyInst[] = [];
    const famRefs: number[] = [];
    let firstScope: NameScope | null = null;
    let count = 0;
    this.len = 0;
    for (const item of fn.items) {
      if (item.kind === "label") {
        labels.push(this.str(item.name), count);
        continue;
      }
      const { inst, scope } = item;
      firstScope ??= scope;
      this.scope = scope;
      this.bra = inst.opcode === "bra";
      this.put(kinds ? kinds[count] : this.kind(inst));
      count++;
      this.put(inst.operands.length * 2 + (inst.guard ? 1 : 0));
      if (inst.guard) this.put(this.ref(scope.lookup(inst.guard.reg)));
      if (this.bra || inst.opcode === "brx") this.put(inst.loc.line);
      for (const o of inst.operands) {
        const at = this.len;
        this.put(0);
        const before = this.symCount;
        this.syms(o);
        this.buf[at] = (this.symCount - before) * 16 + (o.kind === "address" ? (o.base?.kind === "sym" ? OPK.addressSym : OPK.address) : OPK[o.kind]);
      }
      const fi = family(inst);
      if (fi) {
        fam.push(fi);
        for (const s of FAMILY_SOURCES) {
          const o = fi[s];
          famRefs.push(o && o.kind === "reg" ? this.ref(scope.lookup(o.name)) : REF.undeclared);
        }
      }
    }
    const paramRegs: number[] = [];
    if (firstScope && !fn.fn.entry) {
      for (const p of [...fn.fn.rets, ...fn.fn.params]) {
        for (const d of p.declarators) {
          const r = this.ref(firstScope.lookup(d.name));
          if (r >= 0) paramRegs.push(r);
        }
      }
    }
    const out: ResolvedFunction = {
      name: fn.fn.name,
      entry: fn.fn.entry,
      count,
      regCount: this.regKeys.length,
      code: this.buf.slice(0, this.len),
      labels: Int32Array.from(labels),
      paramRegs,
      family: fam,
      familyRefs: Int32Array.from(famRefs),
    };
    if (this.detail) {
      out.regKeys = this.regKeys;
      out.regNames = this.regNames;
    }
    this.module.functions.push(out);
    this.scope = null;
  }
}

/**
 * The `ResolvedModule` of a syntax tree, with `insts` (valid family instructions of that
 * module) matched to their instructions by position. `parseModule` builds the same while it
 * parses (without `detail`: each register's key and name, for reports).
 */
export function resolveModule(ast: Module, insts: readonly FamilyInst[], detail = false): ResolvedModule {
  const byLoc = new Map<string, FamilyInst>();
  for (const fi of insts) byLoc.set(`${fi.loc.line}:${fi.loc.col}`, fi);
  const r = new Resolver(detail);
  for (const fn of flattenModule(ast).functions) r.add(fn, (inst) => byLoc.get(`${inst.loc.line}:${inst.loc.col}`));
  return r.module;
}

// ==================================================================== module context

export interface ModuleContext {
  version: { major: number; minor: number } | null;
  /** The lowest `sm_NN` (or `compute_NN`, the same to ptxas) of `.target`, or null if none (then the header has an error, src/ptx/parser.ts). */
  sm: number | null;
  /** That target as written, with its suffix (`sm_100a`, `sm_100f`), or null if none. */
  target?: string | null;
}

/** The module's `.version` and `.target` as the checks need them. */
export function moduleContext(ast: Pick<Module, "version" | "target">): ModuleContext {
  let sm: number | null = null;
  let target: string | null = null;
  for (const t of ast.target?.names ?? []) {
    const p = t.startsWith("sm_") ? 3 : t.startsWith("compute_") ? 8 : 0;
    if (p === 0) continue;
    let i = p;
    while (i < t.length && t.charCodeAt(i) >= 48 && t.charCodeAt(i) <= 57) i++;
    if (i > p) {
      const n = Number(t.slice(p, i));
      if (sm === null || n < sm) target = t;
      sm = sm === null ? n : Math.min(sm, n);
    }
  }
  return { version: ast.version ? { major: ast.version.major, minor: ast.version.minor } : null, sm, target };
}

function sameContext(a: ModuleContext, b: ModuleContext): boolean {
  return a.sm === b.sm && a.target === b.target && a.version?.major === b.version?.major && a.version?.minor === b.version?.minor;
}

// ==================================================================== modifier vocabulary

const TYPE_NAMES = new Set([
  "b1", "b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "f16", "f16x2",
  "bf16", "bf16x2", "f32", "f64", "tf32", "e4m3", "e5m2", "e4m3x2", "e5m2x2", "e2m1", "e2m1x2", "e3m2", "e2m3",
  "ue8m0", "ue8m0x2", "s4", "u4", "pred",
]);
const ROUNDING = new Set(["rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi", "rna", "rs"]);
const COMPARISON = new Set(["eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]);
const STATE_SPACES = new Set(["global", "shared", "local", "param", "const", "tex", "generic", "shared::cta", "shared::cluster", "param::entry", "param::func"]);
const VECTORS = new Set(["v2", "v4", "v8", "v16"]);
/** Illegal modifiers that ptxas rejects while matching the instruction template (nothing else is checked then). */
const TEMPLATE_ILLEGAL = new Set(["and", "or", "xor", "cas", "relu", "satfinite", "sync"]);
/** Other modifiers ptxas knows (so it says "Illegal modifier" rather than "Unknown modifier"). */
const KNOWN_OTHER = new Set([
  "ftz", "approx", "cc", "volatile", "relaxed", "acquire", "release", "acq_rel", "sc", "mmio", "aligned", "ballot",
  "exch", "inc", "dec", "popc", "up", "down", "bfly", "idx", "shiftamt", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "nc",
  "wait", "cta", "gpu", "sys", "cluster", "noftz", "L1", "L2", "1d", "2d", "3d", "a1d", "a2d", "cube", "acube", "2dms",
  "a2dms", "weak", "f4e", "b4e", "rc8", "ecl", "ecr", "rc16", "trap", "zero", "abs", "NaN", "po", "shr7", "shr15",
]);
/** How ptxas names a known modifier in "Illegal modifier" where not as written (video-semantics.md §2: vmad's scales on vadd). */
const OTHER_NAMES: Readonly<Record<string, string>> = { shr7: "Shift-right", shr15: "Shift-right" };

/** Selector spellings ptxas recognises at all (`.b0123`, `.h10` belong to the SIMD video ops). */
function knownSelectorSyntax(sel: string): boolean {
  const c0 = sel.charCodeAt(0);
  const max = c0 === 98 /* b */ ? 55 : c0 === 104 /* h */ ? 51 : 0;
  if (max === 0) return false;
  for (let i = 1; i < sel.length; i++) {
    const c = sel.charCodeAt(i);
    if (c < 48 || c > max) return false;
  }
  return true;
}

/** Register class of a declared register or variable: i32 (.b32/.u32/.s32), f32, h2 (.f16x2), i64, f64, pred or other. */
export function regClass(info: SymInfo): "i32" | "f32" | "h2" | "i64" | "f64" | "pred" | "other" {
  if (info.vector !== null) return "other";
  switch (info.type) {
    case "b32":
    case "u32":
    case "s32":
      return "i32";
    case "f32":
      return "f32";
    // `.f16x2`: 32 bits that ptxas 13.0 takes in most 32-bit operands of these families (FamilySyntax class lists).
    case "f16x2":
      return "h2";
    case "b64":
    case "u64":
    case "s64":
      return "i64";
    case "f64":
      return "f64";
    case "pred":
      return "pred";
    default:
      return "other";
  }
}

// ==================================================================== family check

type SymOperand = Extract<Operand, { kind: "sym" }>;

/** Operand role names in PTX order. */
export type Role = "d" | "a" | "b" | "c" | "membermask";

/** The operands of an instruction that passed the template phase. */
export interface Resolved {
  /** `d` (or the first half of `d|p`). */
  d: Operand;
  /** The second half of `d|p`. */
  p: Operand | null;
  sources: { role: Role; op: Operand; index: number }[];
  /** Operands that are special registers (legal syntax, rejected later). */
  specials: Operand[];
  /** A vector special register written without a component (`%tid`). */
  vectorSpecial: Operand | null;
  /** Operands that are variables or addresses, with their argument index ("must be register"). */
  notRegister: { op: Operand; index: number }[];
  /** A destination whose "Unknown field" made it a value (ptxas then wants a result register). */
  fieldValue: Operand | null;
}

/** The parts of a family the checker uses: its template and its phase-3 checks. */
export type FamilyFrontEnd = Pick<AnyFamily, "syntax" | "validate">;

/** The state of checking one family instruction; see the file comment for the phases. */
export class FamilyChecker {
  readonly diags: Diagnostic[] = [];
  readonly op: string;
  /** The family whose instruction this is (its template and phase-3 checks). */
  readonly def: FamilyFrontEnd;
  types: string[] = [];
  mode: "clamp" | "wrap" | null = null;
  modeCount = 0;
  sat = 0;
  postOps: { m: string; i: number }[] = [];
  /** `.any/.all/.uni` (ptxas's "vote modifier"): the last one written, and how many. */
  vote: "any" | "all" | "uni" | null = null;
  votes: string[] = [];
  sync = false;
  /** Index of a `.clamp/.wrap` on match, which ptxas rejects while matching the template. */
  matchClamp: number | null = null;
  /** First modifier rejected during template matching (`.sync` on szext, `.and`, …). */
  templateIllegal: { m: string; i: number } | null = null;
  others: { m: string; i: number }[] = [];
  rounding: number[] = [];
  comparison: number[] = [];
  spaces: number[] = [];
  vectors: number[] = [];
  /**
   * Operands whose suffix is an "Unknown field". ptxas then reads a declared register as
   * itself (its width is still checked) and anything else as a value, like an immediate.
   */
  badField = new Set<Operand>();
  /** Vector special registers with a suffix that is no component (`%tid.b0`): "vector swizzle", neither a vector nor a selector. */
  swizzled = new Set<Operand>();
  /** Undeclared names, reported last; `mismatch` if the name also makes "Arguments mismatch". */
  unknown: { name: string; loc: Loc; mismatch: boolean }[] = [];

  constructor(
    readonly inst: Instruction,
    readonly scope: NameScope,
    readonly fn: FlatFunction,
    readonly ctx: ModuleContext,
    readonly interner: Interner | null = null,
    /**
     * The family and the instruction name its messages use, where not the registry's family
     * of `inst.opcode` and the opcode itself: for a family checked before it is registered
     * (src/ir/warp_check.ts), and for `bar.warp`, whose messages name `bar.warp`.
     */
    own: { def: FamilyFrontEnd; op: string } | null = null,
  ) {
    const op = familyOpOf(inst);
    this.op = own ? own.op : (op ?? inst.opcode);
    this.def = own ? own.def : familyByOp(op as FamilyOpcode);
    const s = this.def.syntax;
    this.syntax = "perOp" in s ? (s.perOp as Record<string, FamilySyntax>)[this.op]! : s;
  }

  /** The template of this instruction's opcode (`FamilySyntax`). */
  readonly syntax: FamilySyntax;

  /** The family's own modifiers (`FamilySyntax.own`) as written, with their indices. */
  own: { m: string; i: number }[] = [];

  /**
   * An instruction's error: at `loc` (an operand, a modifier) when that is on the opcode's
   * line, else at the opcode. ptxas 13.0 gives an instruction's errors the line of its opcode
   * when the statement spans lines, and only its naming errors (`nameErr`) the operand's own.
   */
  err(loc: Loc, message: string): void {
    this.diags.push(error(loc.line === this.inst.loc.line ? loc : this.inst.loc, message));
  }

  /** A naming error (an unknown symbol, field or selector, `!` of a non-predicate, the guard): at the name, on its own line (ptxas 13.0). */
  private nameErr(loc: Loc, message: string): void {
    this.diags.push(error(loc, message));
  }

  /** Column of each modifier's dot, computed once (modifierLoc per modifier is quadratic). */
  private modCols: number[] | null = null;

  modLoc(i: number): Loc {
    if (this.modCols === null) {
      const ms = this.inst.modifiers;
      this.modCols = new Array<number>(ms.length + 1);
      let col = this.inst.loc.col + this.inst.opcode.length;
      for (let j = 0; j <= ms.length; j++) {
        this.modCols[j] = col;
        if (j < ms.length) col += ms[j]!.length + 1;
      }
    }
    const col = this.modCols[Math.max(0, Math.min(i, this.modCols.length - 1))]!;
    return { file: this.inst.loc.file, line: this.inst.loc.line, col };
  }

  /** Phase 1a: classify modifiers as written; "Unknown modifier" and "Multiple clamp modifiers". */
  modifiers(): void {
    // One diagnostic per kind of repeated modifier (ptxas: one), however many repeats.
    const unknownSeen = new Set<string>();
    const otherSeen = new Set<string>();
    let anyAllReported = false;
    let absRepeated = false;
    const own = this.syntax.own;
    this.inst.modifiers.forEach((m, i) => {
      if (own?.has(m)) this.own.push({ m, i });
      else if (TYPE_NAMES.has(m)) this.types.push(m);
      else if (m === "clamp" || m === "wrap") {
        if (this.modeCount++ === 1) this.err(this.modLoc(i), messages.multipleClamp());
        else this.mode = m;
        if (this.syntax.clampIllegal) this.matchClamp ??= i;
      } else if (m === "sat") this.sat++;
      // `.and/.or/.xor` after a post-op is a second post-op (ptxas 13.0); before one, or alone, the template's illegal modifier.
      else if (m === "add" || m === "min" || m === "max" || ((m === "and" || m === "or" || m === "xor") && this.syntax.postOps && this.postOps.length > 0)) {
        this.postOps.push({ m, i });
        if (!this.syntax.postOps && !this.templateIllegal) this.templateIllegal = { m, i };
      } else if (m === "any" || m === "all" || m === "uni") {
        this.votes.push(m);
        if (this.votes.length > 1 && m !== "uni" && this.vote !== null && this.vote !== "uni" && !anyAllReported) {
          anyAllReported = true;
          this.err(this.modLoc(i), messages.multipleAnyAll());
        }
        if (m !== "uni" || this.vote === null) this.vote = m; // `.uni` does not override `.any/.all`
      } else if (m === "sync" && this.syntax.sync) this.sync = true;
      else if (TEMPLATE_ILLEGAL.has(m)) this.templateIllegal ??= { m, i };
      else if (ROUNDING.has(m)) this.rounding.push(i);
      else if (COMPARISON.has(m)) {
        // ptxas 13.0 says this for every further comparison, whatever the instruction (measured on vset and vadd).
        if (this.comparison.length > 0) this.err(this.modLoc(i), messages.multipleComparisons());
        this.comparison.push(i);
      }
      else if (STATE_SPACES.has(m)) this.spaces.push(i);
      else if (VECTORS.has(m)) this.vectors.push(i);
      else if (KNOWN_OTHER.has(m) || m.startsWith("L2::") || m.startsWith("L1::")) {
        if (m === "abs" && otherSeen.has(m) && !absRepeated) {
          absRepeated = true;
          this.err(this.modLoc(i), messages.multipleModifier(".abs"));
        }
        if (!otherSeen.has(m)) this.others.push({ m, i });
        otherSeen.add(m);
      } else if (!unknownSeen.has(m)) {
        unknownSeen.add(m);
        this.err(this.modLoc(i), messages.unknownModifier(m));
      }
    });
  }

  private *allSyms(): Generator<SymOperand> {
    for (const o of this.inst.operands) {
      if (o.kind === "sym") yield o;
      else if (o.kind === "pair") {
        if (o.first.kind === "sym") yield o.first;
        if (o.second.kind === "sym") yield o.second;
      } else if (o.kind === "address" && o.base?.kind === "sym") yield o.base;
    }
  }

  /**
   * An address operand: ptxas says "must be register" when its base is a 32-bit integer
   * register or variable (or of the classes `base`, `FamilySyntax.addressBase`), and
   * "Arguments mismatch" otherwise.
   */
  private addressOk(o: Extract<Operand, { kind: "address" }>, base: readonly string[] = ["i32"]): boolean {
    if (!o.base || o.base.kind !== "sym" || o.elems.length > 0) return false;
    const info = this.scope.lookup(o.base.name);
    return info !== null && (info.kind === "reg" || info.kind === "var") && base.includes(regClass(info));
  }

  /** `%tid.x`: a component of a vector special register, not a video selector. */
  isComponent(o: SymOperand): boolean {
    return o.sel !== null && SPECIAL_VEC.has(o.name) && (o.sel === "x" || o.sel === "y" || o.sel === "z" || o.sel === "w");
  }

  /** The video selector written on an operand (not a special register's component). */
  selOf(o: Operand): string | null {
    return o.kind === "sym" && o.sel !== null && !this.isComponent(o) && !this.badField.has(o) && !this.swizzled.has(o) ? o.sel : null;
  }

  /**
   * Phase 1b, name resolution: the guard must be a predicate; a suffix is a video selector
   * on a 32-bit register, and an "Unknown field" on anything else; undeclared names are
   * remembered for "Unknown symbol", which ptxas reports after everything else.
   */
  names(): void {
    const g = this.inst.guard;
    if (g) {
      const info = this.scope.lookup(g.reg);
      if (!info) this.unknown.push({ name: g.reg, loc: g.loc, mismatch: false });
      if (!info || info.kind !== "reg" || regClass(info) !== "pred") this.nameErr(g.loc, messages.predicateExpression());
    }
    for (const o of this.allSyms()) {
      const info = this.scope.lookup(o.name);
      // `!x` negates a predicate; ptxas rejects it on any other register (and then also finds the arguments mismatched where `!` is not allowed).
      if (o.neg && info && info.kind === "reg" && regClass(info) !== "pred") this.nameErr(o.loc, messages.illegalNegation());
      const special = !info && specialRegister(o.name) !== null;
      const undeclared = !info && !special && !this.fn.labels.has(o.name);
      // `-x` parses on any name; ptxas takes it on a 32-bit integer register or a special register.
      if (o.minus && !special && !(info && info.kind === "reg" && regClass(info) === "i32")) this.nameErr(o.loc, messages.illegalMinus());
      if (o.neg && undeclared) this.nameErr(o.loc, messages.illegalNegation());
      const field = o.sel !== null && !this.isComponent(o) && !special && !(info && info.kind === "reg" && ["i32", "f32", "h2", "pred"].includes(regClass(info)));
      if (undeclared) this.unknown.push({ name: o.name, loc: o.loc, mismatch: !field });
      if (o.sel === null || this.isComponent(o)) continue;
      if (special) {
        // A suffix that is no component (ptxas 13.0): "Unknown field" on a scalar special
        // register, which is then no register (as d: "Result register required"); on a vector
        // one (`%tid.b0`) "Unimplemented feature: vector swizzle", a special register still.
        if (specialRegister(o.name)!.vec) {
          this.nameErr(o.loc, messages.vectorSwizzle());
          this.swizzled.add(o);
        } else {
          this.nameErr(o.loc, messages.unknownField(o.sel));
          this.badField.add(o);
        }
        continue;
      }
      const cls = info && info.kind === "reg" ? regClass(info) : null;
      if (cls === "i32" || cls === "f32" || cls === "h2" || cls === "pred") {
        if (!knownSelectorSyntax(o.sel)) this.nameErr(o.loc, messages.unknownSelector(o.sel));
        continue;
      }
      this.nameErr(o.loc, messages.unknownField(o.sel));
      this.badField.add(o);
    }
  }

  /** Report the undeclared names. */
  unknownSymbols(): void {
    for (const u of this.unknown) this.nameErr(u.loc, messages.unknownSymbol(u.name));
  }

  /**
   * Phase 2, template matching; stops at the first failure. Checks template-level illegal
   * modifiers, the type suffixes, the operand count, and each operand's kind and width.
   */
  template(): Resolved | null {
    const inst = this.inst;
    const op = this.op;
    if (this.templateIllegal) {
      const { m, i } = this.templateIllegal;
      this.err(this.modLoc(i), messages.illegalModifier("." + m, op));
      return null;
    }

    const t = this.types;
    const typesOk = this.syntax.types(t);
    if (!typesOk) {
      this.err(inst.loc, messages.unexpectedTypes(op));
      return null;
    }
    const ops = inst.operands;
    const arityOk = this.syntax.arity(ops.length, this.postOps.length, this.sync);
    if (!arityOk) {
      this.err(inst.loc, messages.argumentsMismatch(op));
      return null;
    }
    const roles = this.syntax.roles;
    const noDest = this.syntax.noDest === true;
    const destClasses = this.syntax.destClasses?.(t) ?? ["i32"];
    const floatD = this.syntax.floatTyped?.("d", t) === true;
    /** An integer-typed register or a variable where the operand must carry the float type (`FamilySyntax.floatTyped`). */
    const notFloat = (info: SymInfo) => info.kind === "var" || info.type === "u32" || info.type === "s32";
    let mismatch: Loc | null = null;
    // Without a destination (`bar.warp.sync`), `d` stands for the instruction: a sink at the opcode.
    const res: Resolved = { d: noDest ? { kind: "sink", loc: inst.loc } : ops[0], p: null, sources: [], specials: [], vectorSpecial: null, notRegister: [], fieldValue: null };

    // Destination: a register of `destClasses` (32-bit integer by default), `_`, or an immediate (rejected later); optionally `|p`.
    const d0 = noDest ? res.d : ops[0];
    if (d0.kind === "address") {
      // `[x]` as d: "must be register" when x could be a d, unless the template refuses addresses there.
      if (!this.syntax.addressMismatch?.("d") && this.addressOk(d0, destClasses)) res.notRegister.push({ op: d0, index: 0 });
      else mismatch ??= d0.loc;
    }
    else if (d0.kind === "vector") {
      if (this.syntax.vectorOperandMismatch?.("d")) mismatch ??= d0.loc;
      else {
        this.err(d0.loc, messages.vectorOperand(op));
        return null;
      }
    }
    // A float literal where d may be `.f32` (the warp family; any width where d must be a float) is a value: "Result register required" in phase 3.
    else if ((d0.kind === "float" && !((d0.width === 32 || floatD) && destClasses.includes("f32"))) || d0.kind === "list") mismatch ??= d0.loc;
    else if (d0.kind === "int" && floatD) mismatch ??= d0.loc;
    const parts = d0.kind === "pair" ? [d0.first, d0.second] : [d0];
    res.d = parts[0];
    if (d0.kind === "pair") res.p = d0.second;
    for (let k = 0; k < parts.length; k++) {
      const o = parts[k];
      if (o.kind !== "sym") continue; // `_`, or an immediate `d`
      if (o.neg) {
        // `!x` where d is a predicate is a value ("Result register required"); elsewhere a mismatch.
        if (k === 0 && destClasses.includes("pred")) res.fieldValue = o;
        else mismatch ??= o.loc;
        continue;
      }
      if (this.badField.has(o)) {
        if (k === 0) res.fieldValue = o;
        continue;
      }
      const info = this.scope.lookup(o.name);
      if (!info) {
        const sp = specialRegister(o.name);
        if (sp && k === 0 && !sp.pred && sp.width === 32 && destClasses.includes("i32") && !this.vectorMismatch(o, sp, "d")) this.special(res, o, sp);
        else mismatch ??= o.loc;
        continue;
      }
      if (k === 1) continue; // `p` is checked in phase 3
      if (floatD && notFloat(info)) mismatch ??= o.loc;
      else if (info.kind === "var" && destClasses.includes(regClass(info))) res.notRegister.push({ op: o, index: 0 });
      else if (info.kind !== "reg" || !destClasses.includes(regClass(info))) mismatch ??= o.loc;
    }

    // Sources.
    for (let i = noDest ? 0 : 1; i < ops.length; i++) {
      const o = ops[i];
      const role = roles[i];
      if (o.kind === "vector") {
        if (this.syntax.vectorOperandMismatch?.(role)) {
          mismatch ??= o.loc;
          continue;
        }
        this.err(o.loc, messages.vectorOperand(op));
        return null;
      }
      res.sources.push({ role, op: o, index: i });
      const floatSrc = this.syntax.floatTyped?.(role, t) === true;
      if (o.kind === "int") {
        if (floatSrc) mismatch ??= o.loc;
        continue;
      }
      if (o.kind === "sink" && noDest) continue; // `bar.warp.sync _`: discard, judged in phase 3
      if (o.kind === "address") {
        if (!this.syntax.addressMismatch?.(role) && this.addressOk(o, this.syntax.addressBase?.(role))) res.notRegister.push({ op: o, index: i });
        else mismatch ??= o.loc;
        continue;
      }
      if (o.kind === "float") {
        const ok = this.syntax.floatSource(role, o.width, t);
        if (!ok) mismatch ??= o.loc;
        continue;
      }
      if (o.kind !== "sym" || (o.neg && !this.syntax.negatable?.(role))) {
        mismatch ??= o.loc;
        continue;
      }
      const want = this.syntax.sourceClasses(role, t);
      const info = this.scope.lookup(o.name);
      if (this.badField.has(o)) continue;
      if (!info) {
        const sp = specialRegister(o.name);
        if (sp && !sp.pred && want.includes(sp.width === 64 ? "i64" : "i32") && !this.vectorMismatch(o, sp, role)) this.special(res, o, sp);
        else mismatch ??= o.loc;
        continue;
      }
      // `!x` of a register that is not a predicate: reported while naming ("Illegal argument to predicate negation").
      if (o.neg && info.kind === "reg" && regClass(info) !== "pred") continue;
      if (floatSrc && notFloat(info)) {
        mismatch ??= o.loc;
        continue;
      }
      if (info.kind === "var") {
        if (this.syntax.strictVariables && !want.includes(regClass(info))) mismatch ??= o.loc;
        else res.notRegister.push({ op: o, index: i });
      } else if (info.kind !== "reg" || !want.includes(regClass(info))) mismatch ??= o.loc;
    }
    const unknownLoc = this.unknown.find((u) => u.mismatch)?.loc ?? null;
    if (mismatch || unknownLoc) {
      this.err(mismatch ?? unknownLoc!, messages.argumentsMismatch(op));
      return null;
    }
    return res;
  }

  /** A vector special register without its component where the template takes none (`FamilySyntax.vectorOperandMismatch`). */
  private vectorMismatch(o: SymOperand, sp: NonNullable<ReturnType<typeof specialRegister>>, role: Role): boolean {
    return sp.vec && !this.isComponent(o) && !this.swizzled.has(o) && this.syntax.vectorOperandMismatch?.(role) === true;
  }

  private special(res: Resolved, o: SymOperand, sp: NonNullable<ReturnType<typeof specialRegister>>): void {
    res.specials.push(o);
    if (sp.vec && !this.isComponent(o) && !this.swizzled.has(o)) res.vectorSpecial ??= o;
  }

  // ---- phase 3 building blocks, called in each family's order

  /** `.uni` with `.any`/`.all` (two `.any/.all` were reported while parsing). */
  multipleVotes(): void {
    // `.ballot` with `.any/.all/.uni` where votes are modifiers (match): "Multiple vote modifiers", not an illegal `.ballot`.
    const ballot = this.syntax.votes ? this.others.findIndex((o) => o.m === "ballot") : -1;
    if (ballot >= 0 && this.votes.length > 0) {
      this.err(this.modLoc(this.others[ballot]!.i), messages.multipleVote());
      this.others.splice(ballot, 1);
      return;
    }
    if (this.votes.length < 2 || !this.votes.includes("uni")) return;
    const i = this.inst.modifiers.lastIndexOf(this.votes[this.votes.length - 1]);
    this.err(this.modLoc(i), messages.multipleVote());
  }

  illegalSat(): void {
    if (this.sat > 0) this.err(this.modLoc(this.inst.modifiers.indexOf("sat")), messages.illegalModifier(".sat", this.op));
  }

  /** Known modifiers that do not apply, by ptxas's categories. */
  illegalOthers(): void {
    const op = this.op;
    if (!this.syntax.votes && this.vote !== null) {
      this.err(this.modLoc(this.inst.modifiers.lastIndexOf(this.vote)), messages.illegalModifier("." + this.vote, op));
    }
    if (this.spaces.length > 0) this.err(this.modLoc(this.spaces[0]), messages.noStateSpace(op));
    for (const { m, i } of this.others) {
      this.err(this.modLoc(i), messages.illegalModifier(OTHER_NAMES[m] ?? "." + m, op));
      // `.abs` is min/max's (with `.xorsign`): ptxas says so too.
      if (m === "abs") this.err(this.modLoc(i), messages.absNeedsXorsign());
    }
    if (this.vectors.length > 0) this.err(this.modLoc(this.vectors[0]), messages.vectorQualifier(op));
    if (this.comparison.length > 0 && !this.syntax.comparisons) this.err(this.modLoc(this.comparison[0]), messages.comparisonNotAllowed(op));
    if (this.rounding.length > 0) this.err(this.modLoc(this.rounding[0]), messages.illegalRounding(op));
  }

  /** `d|p` with a real `p` on an instruction that has no predicate output. */
  predicateNotAllowed(r: Resolved, name: string): void {
    if (r.p && r.p.kind === "sym") this.err(r.p.loc, messages.predicateNotAllowed(name));
  }

  /** `d|x` where `x` is a register but not a predicate. */
  predicateExpected(r: Resolved): void {
    const p = r.p;
    if (!p || p.kind !== "sym") return;
    const info = this.scope.lookup(p.name);
    if (info && (info.kind !== "reg" || regClass(info) !== "pred")) this.err(p.loc, messages.predicateExpected(this.op));
  }

  /** A `_` destination where discard is not allowed: fatal in ptxas. Returns true if reported. */
  discard(r: Resolved, allowed: boolean, name: string): boolean {
    if (allowed || r.d.kind !== "sink") return false;
    this.err(r.d.loc, messages.discardNotAllowed(name));
    return true;
  }

  specials(r: Resolved): void {
    // One per special-register operand, as ptxas 13.0 says it.
    for (const s of r.specials) this.err(s.loc, messages.specialRegister(this.op));
    if (r.vectorSpecial) this.err(r.vectorSpecial.loc, messages.vectorOperand(this.op));
  }

  clampRequired(): void {
    if (this.mode === null) this.err(this.inst.loc, messages.clampRequired(this.op));
  }

  /** szext and match: no selector anywhere. */
  noSelectors(r: Resolved): void {
    if (this.selOf(r.d)) this.err(r.d.loc, messages.selectorOnDest(this.op));
    // Without a destination (`bar.warp.sync`) the first operand stands where d does: ptxas says "destination".
    for (const s of r.sources) if (this.selOf(s.op)) this.err(s.op.loc, this.syntax.noDest && s.index === 0 ? messages.selectorOnDest(this.op) : messages.selectorOnSource(this.op));
  }

  /**
   * Operand negations `-x` (ptxas 13.0, measured on every family): allowed in the template's
   * shape "(source A xor source B) or source C" — on `d` or a fourth source, or on C with one
   * of A/B, it is "Operand negation limited to …"; a negation left after that is "not allowed"
   * (no family instruction takes one). `-a, -b` together cancel: ptxas accepts them and emits
   * the same cubin as for `a, b`, so they are lowered as that, with a warning. Run after the
   * family's checks; `matched`: the template matched (else only the shape is judged).
   */
  negations(matched: boolean): void {
    // Positions as written: the first operand is d's place even without a destination (`bar.warp.sync -m` is "limited").
    const ops = this.inst.operands;
    const minus = (o: Operand | undefined) => o?.kind === "sym" && o.minus === true; // `-d|p` is a syntax error
    const [nA, nB, nC] = [minus(ops[1]), minus(ops[2]), minus(ops[3])];
    const shape = !(nC && nA !== nB);
    // "limited" is the operands' shape, said whether the template matched; "not allowed" only after it did.
    if (!shape || minus(ops[0]) || ops.slice(4).some(minus)) this.err(this.inst.loc, messages.negationLimited());
    if (!matched) return;
    if (shape && (nA !== nB || nC)) this.err(this.inst.loc, messages.negationNotAllowed(this.op));
    else if (nA && nB && !nC && !minus(ops[0]) && !ops.slice(4).some(minus)) this.diags.push(warning(ops[1]!.loc, messages.negationsCancel(this.op)));
  }

  /**
   * The comparison the instruction keeps (`FamilySyntax.comparisons`): the last one written,
   * as ptxas 13.0 does (`vset.u32.u32.lo.equ` is a type mismatch, `.equ.lo` is not); null if none.
   */
  comparisonKept(): string | null {
    const i = this.comparison[this.comparison.length - 1];
    return i === undefined ? null : this.inst.modifiers[i]!;
  }

  /** A check ptxas makes after every other of phase 3, negations included: reported only if none of those failed. */
  private late: { loc: Loc; message: string; n: number } | null = null;
  lastErr(loc: Loc, message: string): void {
    this.late = { loc, message, n: this.diags.length };
  }
  /** Run by checkFamily after the negations. */
  flushLate(): void {
    if (this.late && this.diags.length === this.late.n) this.err(this.late.loc, this.late.message);
  }

  notRegister(r: Resolved): void {
    for (const { op, index } of r.notRegister) this.err(op.loc, messages.mustBeRegister(index, this.op));
  }
}

/** Check one family instruction; returns its diagnostics and, if there are none, its FamilyInst. */
function checkFamily(inst: Instruction, scope: NameScope, fn: FlatFunction, ctx: ModuleContext, interner: Interner | null = null): { diagnostics: Diagnostic[]; inst: FamilyInst | null } {
  const c = new FamilyChecker(inst, scope, fn, ctx, interner);
  c.modifiers();
  c.names();
  const r = c.template();
  let built: FamilyInst | null = null;
  if (r) built = c.def.validate(c, r);
  c.negations(r !== null);
  c.flushLate();
  c.unknownSymbols();
  return { diagnostics: c.diags, inst: c.diags.some((d) => d.severity === "error") ? null : built };
}

/**
 * Shares equal forms and equal register names among the FamilyInsts of one module (a large
 * module has 10^5 of them; forms and names repeat).
 */
export class Interner {
  private readonly forms = new Map<string, Form>();
  private readonly names = new Map<string, string>();

  form<F extends Form>(f: F): F {
    const key = formId(f);
    const seen = this.forms.get(key);
    if (seen) return seen as F;
    this.forms.set(key, f);
    return f;
  }

  name(s: string): string {
    const seen = this.names.get(s);
    if (seen !== undefined) return seen;
    this.names.set(s, s);
    return s;
  }
}
