/**
 * @fileoverview The generic PTX syntax tree: every statement of a module as written, with its
 * source location. Nothing here knows what an instruction means; src/ir/build.ts gives the
 * three supported families their meaning and keeps every other instruction only for its count.
 *
 * Locations are 1-based line and column (a tab counts as one column).
 */
import type { Loc } from "../ir/ir.js";

/**
 * An operand as written.
 * - `sym`: a register, special register, variable, parameter or label name, with an optional
 *   suffix after a dot (`%r2.b1` video selector, `%tid.x` component) and an optional `!`
 *   (negated predicate source, as in `setp ... , !%p2`) or `-` (`minus`: the operand negation
 *   ptxas parses on any register and judges per instruction, src/ir/build.ts `negations`).
 * - `int`: an integer literal or constant expression; `value` is its 64-bit two's-complement
 *   value (0 ≤ value < 2^64), as ptxas computes it. Truncation to the operand's width is the
 *   consumer's job.
 * - `float`: a decimal float (`1.5`, `1e3`), which PTX reads as .f64, or a hex float
 *   `0fXXXXXXXX` (.f32) / `0dXXXXXXXXXXXXXXXX` (.f64); `bits` are the IEEE bits.
 * - `sink`: `_`. `pair`: `d|p`. `vector`: `{%r1, %r2}`. `address`: `[%rd1+8]`, `[name]`,
 *   `[tex, {x, y}]`. `list`: a parenthesised operand list, as in `call (r), f, (a, b)`.
 */
export type Operand =
  | { kind: "sym"; name: string; sel: string | null; neg: boolean; minus?: true; loc: Loc }
  | { kind: "int"; value: bigint; text: string; loc: Loc }
  | { kind: "float"; text: string; bits: bigint; width: 32 | 64; loc: Loc }
  | { kind: "sink"; loc: Loc }
  | { kind: "pair"; first: Operand; second: Operand; loc: Loc }
  | { kind: "vector"; elems: Operand[]; loc: Loc }
  | { kind: "address"; base: Operand | null; offset: bigint; elems: Operand[]; text: string; loc: Loc }
  | { kind: "list"; elems: Operand[]; loc: Loc };

/** A guard `@p` / `@!p`. */
export interface AstGuard {
  reg: string;
  negate: boolean;
  loc: Loc;
}

/**
 * One instruction: `opcode` is the base mnemonic (`ld`), `modifiers` the dotted parts in
 * the order written without their dots (`["param", "u64"]`), `loc` the opcode's position,
 * `text` the statement as written (guard to `;`). Modifiers are glued to the opcode, so
 * their positions follow from the opcode's (`modifierLoc`).
 */
export interface Instruction {
  kind: "inst";
  guard: AstGuard | null;
  opcode: string;
  modifiers: string[];
  operands: Operand[];
  loc: Loc;
  text: string;
}

/** `name:` */
export interface Label {
  kind: "label";
  name: string;
  loc: Loc;
}

/** One declared name: `%r<12>` (range 12), `buf[16][4]` (dims), `x = 1` (init). */
export interface Declarator {
  name: string;
  /** `%r<N>` declares %r0 … %r(N-1). */
  range: number | null;
  /** Array dimensions; null for `[]`. */
  dims: (number | null)[];
  init: boolean;
  loc: Loc;
}

/**
 * A state-space declaration: `.reg .b32 %r<12>;`, `.global .align 4 .b8 x[4] = {1,2,3,4};`,
 * `.param .u64 k_param_0` (also used for function parameters, with one declarator).
 */
export interface VarDecl {
  kind: "var";
  /** `reg`, `param`, `shared`, `local`, `global`, `const`, `tex`, … (without the dot). */
  space: string;
  /** Element type without the dot (`b32`, `pred`, `u64`, `texref`), or null if absent. */
  type: string | null;
  /** 2, 4 or 8 for `.v2/.v4/.v8`. */
  vector: number | null;
  align: number | null;
  /** Linkage and other attributes in order (`visible`, `extern`, `ptr`, `global`, …). */
  attrs: string[];
  declarators: Declarator[];
  loc: Loc;
}

/** A `{ … }` scope. */
export interface Block {
  kind: "block";
  stmts: Statement[];
  loc: Loc;
}

/**
 * Any other directive kept as text: `.pragma`, `.loc`, `.file`, `.section`, `.maxntid`,
 * `.callprototype`, `.branchtargets`, `.alias`, `.version`, `.target`, `.address_size`, ….
 */
export interface Directive {
  kind: "directive";
  /** Without the dot. */
  name: string;
  /** The rest of the directive as written (trimmed). */
  args: string;
  loc: Loc;
}

export type Statement = Instruction | Label | VarDecl | Block | Directive;

/** `.entry` / `.func`: return parameters (`.func` only), parameters, and an optional body. */
export interface FunctionDecl {
  kind: "function";
  entry: boolean;
  /** `visible`, `extern`, `weak`, `noreturn`, … */
  linkage: string[];
  name: string;
  rets: VarDecl[];
  params: VarDecl[];
  /** Performance directives between the header and the body (`.maxntid 256, 1, 1`). */
  perf: Directive[];
  /** null for a declaration `... ;`. */
  body: Block | null;
  loc: Loc;
}

export type TopLevel = FunctionDecl | VarDecl | Directive;

/** A whole PTX module. */
export interface Module {
  kind: "module";
  file: string;
  /** `.version major.minor`. */
  version: { major: number; minor: number; loc: Loc } | null;
  /** `.target sm_90, texmode_independent` → ["sm_90", "texmode_independent"]. */
  target: { names: string[]; loc: Loc } | null;
  addressSize: number | null;
  items: TopLevel[];
  /**
   * Set when the module had an error that is fatal in ptxas: a header error (a missing
   * `.version` or `.target`, one ptxas does not support, a first target name that is no
   * architecture), or a non-ASCII byte anywhere (the module is then not parsed at all).
   * ptxas checks nothing more, and the module may have no target to check instructions
   * against, so src/ir/build.ts checks none of them.
   */
  fatal?: true;
}

/** Position of the dot that starts `inst.modifiers[i]` (modifiers follow the opcode without spaces). */
export function modifierLoc(inst: Instruction, i: number): Loc {
  let col = inst.loc.col + inst.opcode.length;
  for (let j = 0; j < i && j < inst.modifiers.length; j++) col += inst.modifiers[j].length + 1;
  return { file: inst.loc.file, line: inst.loc.line, col };
}

/** Position of the dot that starts a symbol's suffix (`.b1` in `%r2.b1`), which is glued to the name. */
export function selectorLoc(op: { name: string; loc: Loc }): Loc {
  return { file: op.loc.file, line: op.loc.line, col: op.loc.col + op.name.length };
}
