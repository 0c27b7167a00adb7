/**
 * @fileoverview Diagnostics: the record every phase reports, its one-line format, and the
 * table of messages. Messages for the three families are ptxas 13.0's own wording (checked
 * against `ptxas -arch=sm_90`, see ../shared/notes/ptx-semantics.md §5(c)), so that a user
 * who knows ptxas recognises them and the parity test can compare the two tools.
 *
 * ptxas prints `FILE, line N; error   : MESSAGE` with no column; ptx-lower prints
 * `file:line:col: error: message` (the GNU format editors understand).
 */
import type { Loc } from "./ir/ir.js";

/** One problem found in the input. */
export interface Diagnostic {
  loc: Loc;
  severity: "error" | "warning";
  message: string;
}

/** `file:line:col: error: message`. */
export function formatDiagnostic(d: Diagnostic): string {
  return `${d.loc.file}:${d.loc.line}:${d.loc.col}: ${d.severity}: ${d.message}`;
}

/**
 * Control characters (C0 but tab and line breaks, DEL, C1) and the bidirectional overrides
 * and isolates, which would act on a terminal or an editor showing the file, as the text
 * `\xNN` / `\uNNNN`. A `\r` not before `\n` is one of them. With `oneLine`, every control
 * character is escaped, line feed, carriage return and tab included (and the Unicode line
 * and paragraph separators): for a message that must stay one line (a diagnostic, an error,
 * a `wrote …` line) but names a path or echoes input.
 */
export function escapeControls(text: string, opts: { oneLine?: boolean } = {}): string {
  const re = opts.oneLine ? /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g : /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;
  return text.replace(re, (c) => {
    const n = c.charCodeAt(0);
    return n < 0x100 ? `\\x${n.toString(16).padStart(2, "0")}` : `\\u${n.toString(16).padStart(4, "0")}`;
  });
}

/** `escapeControls(text, { oneLine: true })`: a message line that names a path or echoes input. */
export const escapeLine = (text: string): string => escapeControls(text, { oneLine: true });

/** A warning at `loc` (printed; does not fail the command). */
export function warning(loc: Loc, message: string): Diagnostic {
  return { loc, severity: "warning", message };
}

/** An error diagnostic at `loc`. */
export function error(loc: Loc, message: string): Diagnostic {
  return { loc, severity: "error", message };
}

/** True when any diagnostic is an error. */
export function hasErrors(ds: readonly Diagnostic[]): boolean {
  return ds.some((d) => d.severity === "error");
}

/**
 * Every message ptx-lower emits. `op` is the instruction name as ptxas spells it in the
 * message (`szext`, `vshl`, `vshr`, `match`, or `match.any` for the predicate rule).
 */
export const messages = {
  // --- modifiers (ptxas) ---
  clampRequired: (op: string) => `Clamp modifier required for instruction '${op}'`,
  multipleClamp: () => "Multiple clamp modifiers specified",
  multipleAnyAll: () => "Multiple .any/.all modifiers specified",
  multipleVote: () => "Multiple vote modifiers specified",
  multiplePostOp: () => "Multiple instruction post-operation flags set",
  absNeedsXorsign: () => "Modifier '.abs' requires modifier '.xorsign'",
  unexpectedTypes: (op: string) => `Unexpected instruction types specified for '${op}'`,
  requiresU32: () => "Operation requires .u32 type",
  syncRequired: (op: string) => `.sync modifier required for instruction '${op}'`,
  anyAllRequired: (op: string) => `'.any' or '.all' modifier required for instruction '${op}'`,
  /** `mod` as ptxas prints it: `.sat`, `.add`, or the category name `Clamp` for .clamp/.wrap on match. */
  illegalModifier: (mod: string, op: string) => `Illegal modifier '${mod}' for instruction '${op}'`,
  unknownModifier: (mod: string) => `Unknown modifier '.${mod}'`,
  illegalRounding: (op: string) => `Illegal rounding modifier for instruction '${op}'`,
  comparisonNotAllowed: (op: string) => `Comparison qualifier is not allowed for instruction '${op}'`,
  multipleComparisons: () => "Multiple comparisons set",
  comparisonRequired: (op: string) => `Comparison modifier required for instruction '${op}'`,
  comparisonTypeMismatch: () => "Mismatch between instruction type and comparison qualifier",
  noStateSpace: (op: string) => `No state space qualifier expected for instruction '${op}'`,
  vectorQualifier: (op: string) => `Vector qualifier is not allowed for instruction '${op}'`,
  featureVersion: (op: string, version: string) => `Feature '${op}' requires PTX ISA .version ${version} or later`,
  targetRequired: (op: string, sm: string) => `Instruction '${op}' requires .target ${sm} or higher`,
  // --- warp-level family (ptxas; ../shared/notes/warp-ptxas-matrix.md) ---
  shuffleRequired: (op: string) => `Shuffle modifier required for instruction '${op}'`,
  multipleShuffle: () => "Multiple shuffle modifiers specified",
  modeRequired: (op: string) => `.mode modifier required for instruction '${op}'`,
  /** `type` and `mod` with their dots: `requiresTypeWith("vote", ".b32", ".ballot")`. */
  requiresTypeWith: (op: string, type: string, mod: string) => `Instruction '${op}' requires '${type}' type with '${mod}' modifier.`,
  incorrectType: (type: string, operation: string, op: string) => `Incorrect type '${type}' for operation '${operation}' in instruction '${op}'`,
  reductionRequired: (op: string) => `Reduction operation is required for instruction '${op}'`,
  /** `mod` with its dot: `Multiple .abs modifiers specified`. */
  multipleModifier: (mod: string) => `Multiple ${mod} modifiers specified`,
  featureTarget: (feature: string, sm: string) => `Feature '${feature}' requires .target ${sm} or higher`,
  notSupportedOnTarget: (what: string, target: string) => `Instruction '${what}' not supported on .target '${target}'`,
  withoutSyncRemoved: (op: string) => `Instruction '${op}' without '.sync' is not supported on .target sm_70 and higher from PTX ISA version 6.4`,
  /** A warning. */
  withoutSyncUnpredictable: (op: string) => `Instruction '${op}' without '.sync' may produce unpredictable results on sm_70 and later architectures`,
  /** A warning. */
  withoutSyncDeprecated: (op: string) => `Instruction '${op}' without '.sync' is deprecated since PTX ISA version 6.0 and will be discontinued in a future PTX ISA version`,
  // --- operands (ptxas) ---
  argumentsMismatch: (op: string) => `Arguments mismatch for instruction '${op}'`,
  unknownSymbol: (name: string) => `Unknown symbol '${name}'`,
  mustBeRegister: (n: number, op: string) => `Argument ${n} of instruction '${op}': must be register`,
  vectorOperand: (op: string) => `Vector operand is not allowed for instruction '${op}'`,
  resultRegister: (op: string) => `Result register required for instruction '${op}'`,
  specialRegister: (op: string) => `Special register argument not allowed for instruction '${op}'`,
  predicateNotAllowed: (op: string) => `Predicate output not allowed for instruction '${op}'`,
  predicateExpected: (op: string) => `Predicate output expected for instruction '${op}'`,
  discardNotAllowed: (op: string) => `Result discard mode is not allowed for instruction '${op}'`,
  predicateExpression: () => "Predicate expression expected",
  /** `!x` where x is a register but not a predicate. */
  illegalNegation: () => "Illegal argument to predicate negation",
  illegalMinus: () => "Illegal argument to unary minus",
  vectorSwizzle: () => "Unimplemented feature: vector swizzle",
  negationLimited: () => "Operand negation limited to either (source A xor source B) or source C",
  negationNotAllowed: (op: string) => `Operand negation not allowed for instruction '${op}'`,
  negationsCancel: (op: string) =>
    `'-' on both of ${op}'s first two sources: ptxas 13.0 cancels the two negations and compiles the instruction as if neither were written (the same cubin); lowered so`,
  // --- video selectors (ptxas) ---
  dselAndOp2: () => "Video instruction cannot have destination selector and secondary operation",
  selectorOnC: () => "Video selector is not allowed on 'source C' operand",
  selectorOnDest: (op: string) => `Video selector is not allowed on destination for instruction '${op}'`,
  selectorOnSource: (op: string) => `Video selector is not allowed on source operand for instruction '${op}'`,
  incorrectSelector: (n: number) => `Incorrect video selector for operand ${n}`,
  unknownSelector: (sel: string) => `Unknown video selector: '.${sel}'`,
  /** A suffix on a name that is not a 32-bit register (`%rd1.b0`, `%h1.h1`, `%r99.b0`). */
  unknownField: (sel: string) => `Unknown field '.${sel}'`,
  // --- syntax (ptxas wording where ptxas has one) ---
  parseError: (near: string) => `Parsing error near '${near}': syntax error`,
  constantOverflow: () => "Constant overflow",
  /** A warning here (ptxas: a fatal error): ptx-lower does not validate other instructions. */
  unknownInstruction: (name: string) => `Not a name of any known instruction: '${name}'`,
  /** The first statement of a module must be `.version`, the second `.target` (ptxas). */
  missingHeader: (what: "version" | "target") => `Missing .${what} directive at start of file`,
  /** A `.version` ptxas 13.0 does not know (fatal in ptxas); `version` as written. */
  unsupportedVersion: (version: string, current: string) => `Unsupported .version ${version}; current version is '${current}'`,
  /** A `.target` name ptxas 13.0 does not know (fatal in ptxas). */
  unsupportedTarget: (name: string) => `Unsupported .target '${name}'`,
  /** `.target` whose first name is no architecture (`.target foo`, `.target texmode_unified`; fatal in ptxas). */
  targetNotDefined: (file: string) => `Target architecture not defined at start of file '${file}'`,
  /** A `.target` newer than the module's `.version` (an error; ptxas goes on). `version` as written. */
  versionTarget: (version: string, target: string) => `PTX .version ${version} does not support .target ${target}`,
  /** `.target …, map_f64_to_f32` with an architecture of sm_13 or later. */
  mapF64NotSupported: () => "Directive map_f64_to_f32 is not supported with SM 1.3 or higher",
  /** `texmode_unified` and `texmode_independent` in one `.target`: the second one named. */
  conflictingTarget: (name: string) => `Conflicting .target option '${name}'`,
  /** ptxas stops reading at a NUL byte; ptx-lower too, and says so (a warning). */
  nulEndsInput: () => "NUL character: the input ends here (ptxas reads no further)",
  nonAscii: (line: number) => `Unexpected non-ASCII character encountered on line ${line}`,
  divisionByZero: () => "Constant expression has division by zero",
  // --- syntax (ptx-lower's own) ---
  expected: (what: string, near: string) => `Parsing error near '${near}': expected ${what}`,
  unterminatedComment: () => "Unterminated /* comment",
  unterminatedString: () => "Unterminated string literal",
  /** Invisible characters (controls, DEL, a byte-order mark, …) are shown as code points. */
  invalidCharacter: (ch: string) => `Invalid character '${[...ch].map((c) => (/^[\x21-\x7e]$/.test(c) ? c : `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`)).join("")}'`,
  nestingTooDeep: (max: number) => `Nesting too deep (more than ${max} levels)`,
  unknownDirective: (name: string) => `Unknown directive '.${name}'`,
  unbalancedBrace: () => "Unmatched '}'",
  missingBrace: () => "Missing '}' at end of input",
  tooManyErrors: (max: number) => `Too many errors (${max}); parsing stopped`,
  internalError: (what: string) => `Internal error in ptx-lower: ${what}`,
  /** A target without a lowering for an instruction ptx-lower accepts (issue 15: the warp-level family on AMDGPU, HIP, LLVM IR). */
  noLoweringYet: (target: string, inst: string) => `no ${target} lowering for ${inst} yet (issue 15)`,
} as const;

/** Thrown by library entry points that cannot continue; carries every diagnostic found. */
export class PtxLowerError extends Error {
  readonly diagnostics: Diagnostic[];
  constructor(diagnostics: Diagnostic[], message?: string) {
    super(message ?? diagnostics.map(formatDiagnostic).join("\n"));
    this.name = "PtxLowerError";
    this.diagnostics = diagnostics;
  }
}
