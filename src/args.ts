/**
 * @fileoverview The library's argument checks, written once: every public entry point
 * (src/api.ts, src/check/api.ts) checks its arguments with these before doing anything, and
 * a wrong one is a `TypeError` whose message names the function, the argument and what it
 * accepts — `formsOf: family must be one of szext, match, video, vop, warp, not 'nope'`. Accepted
 * names come from the registries (families, profiles, processors), never from a copy.
 *
 * `where` is always `"function: argument"` (with a path into it, `verify: specs[0].warps`).
 */
import type { Form, Profile } from "./ir/form_types.js";
import { PROFILES, SELS } from "./ir/form_types.js";
import type { OperandKind, RoutineSpec, SourceName } from "./ir/ir.js";
import type { FamilyName } from "./families/index.js";
import { FAMILY_NAMES, familyByOp, familyNamed, isFamilyOpcode } from "./families/index.js";
import { outputTargets } from "./target/registry.js";
import { sourceWidth } from "./compose.js";

// `show` lives in ./quote.ts (a leaf module: targets/amdgpu/assign.ts words its errors with it too).
export { show } from "./quote.js";
import { show } from "./quote.js";

/** Throws `TypeError: WHERE must be ACCEPTS, not GOT`. */
export function fail(where: string, accepts: string, got: unknown): never {
  throw new TypeError(`${where} must be ${accepts}, not ${show(got)}`);
}

/** A plain object (not null, not an array). */
export function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * At most `max` arguments: an extra one is a caller's mistake (`szextForms("clamp")` does not
 * filter), never silently ignored. `fn` names the function.
 */
export function arity(fn: string, args: ArrayLike<unknown>, max: number): void {
  if (args.length > max) throw new TypeError(`${fn} takes ${max === 0 ? "no arguments" : `at most ${max} argument${max === 1 ? "" : "s"}`}, not ${args.length} (argument ${max + 1} is ${show(args[max])})`);
}

export function string(x: unknown, where: string, what = "a string"): string {
  if (typeof x !== "string") fail(where, what, x);
  return x;
}

export function boolean(x: unknown, where: string): boolean {
  if (typeof x !== "boolean") fail(where, "a boolean", x);
  return x;
}

export function func(x: unknown, where: string, what = "a function"): void {
  if (typeof x !== "function") fail(where, what, x);
}

/**
 * An integer number in [min, max] (`why` says what bounds it, for the message).
 * NaN, ±Infinity, 1.5 and `5n` are refused.
 */
export function int(x: unknown, where: string, min: number, max: number, why?: string): number {
  const range = max === Number.MAX_SAFE_INTEGER ? `an integer ≥ ${min}` : `an integer in [${min}, ${max}]${why ? ` (${why})` : ""}`;
  if (typeof x !== "number" || !Number.isInteger(x) || x < min || x > max) fail(where, range, x);
  return x;
}

/** One of `names` (listed in the message). */
export function oneOf<T extends string>(x: unknown, where: string, names: readonly T[]): T {
  if (typeof x !== "string" || !(names as readonly string[]).includes(x)) fail(where, `one of ${names.join(", ")}`, x);
  return x as T;
}

/** An array; `each` checks every element (`where[i]`). */
export function array(x: unknown, where: string, what: string, each?: (e: unknown, where: string) => void): unknown[] {
  if (!Array.isArray(x)) fail(where, what, x);
  if (each) x.forEach((e, i) => each(e, `${where}[${i}]`));
  return x;
}

/** One check per option; every key of `T` must have one (a new option without a check does not compile). */
export type OptionChecks<T> = { readonly [K in keyof Required<T>]-?: (x: unknown, where: string) => void };

/**
 * An options object (or undefined): a key it does not know is refused (a misspelt option
 * would otherwise be ignored), and each given value is checked.
 */
export function options<T>(x: unknown, where: string, checks: OptionChecks<T>): T {
  if (x === undefined) return {} as T;
  const keys = Object.keys(checks);
  if (!isObject(x)) fail(where, `an object with any of ${keys.join(", ")}`, x);
  for (const k of Object.keys(x)) if (!Object.hasOwn(checks, k)) throw new TypeError(`${where} has no option '${k}': it takes ${keys.join(", ")}`);
  for (const k of keys) if (x[k] !== undefined) (checks as Record<string, (x: unknown, where: string) => void>)[k]!(x[k], `${where}.${k}`);
  return x as T;
}

/** `options` checks, for reuse: an optional integer in [min, max], a boolean, a string, a function. */
export const opt = {
  int: (min: number, max: number, why?: string) => (x: unknown, w: string) => void int(x, w, min, max, why),
  boolean: (x: unknown, w: string) => void boolean(x, w),
  string: (x: unknown, w: string) => void string(x, w),
  func: (x: unknown, w: string) => void func(x, w),
  oneOf: (names: readonly string[]) => (x: unknown, w: string) => void oneOf(x, w, names),
};

// ---------------------------------------------------------------------------------------
// The registries' names

/** A family name (the registry's, src/families/index.ts). */
export function family(x: unknown, where: string): FamilyName {
  return oneOf(x, where, FAMILY_NAMES);
}

/** A semantics profile. */
export function profile(x: unknown, where: string): Profile {
  return oneOf(x, where, PROFILES);
}

/** An AMDGPU processor of the registered output targets. */
export function mcpu(x: unknown, where: string): string {
  return oneOf(x, where, outputTargets().mcpus);
}

/** A byte/half selector, or null (the whole word). */
export function sel(x: unknown, where: string): void {
  if (x !== null && !(SELS as readonly unknown[]).includes(x)) fail(where, `null or one of ${SELS.join(", ")}`, x);
}

// ---------------------------------------------------------------------------------------
// Forms and routines

/** Every legal form of a family by its identifier, built at the first check of one of its forms. */
const legal = new Map<FamilyName, Map<string, Form>>();

function legalForms(name: FamilyName): Map<string, Form> {
  let m = legal.get(name);
  if (!m) {
    const fam = familyNamed(name);
    m = new Map([...(fam.forms() as Iterable<Form>)].map((f) => [fam.formId(f), f]));
    legal.set(name, m);
  }
  return m;
}

/** Structural equality of plain data (forms: strings, booleans, null, nested objects). */
function same(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (!isObject(x) || !isObject(y)) return false;
  const kx = Object.keys(x).filter((k) => x[k] !== undefined);
  const ky = Object.keys(y).filter((k) => y[k] !== undefined);
  return kx.length === ky.length && kx.every((k) => same(x[k], y[k]));
}

/**
 * A legal form (one that `formsOf(family)` yields, compared field by field), of `families`
 * where given (`szext` takes an szext form).
 */
export function form(x: unknown, where: string, families?: readonly FamilyName[]): Form {
  const accepts = `a legal ${families ? families.join("/") + " " : ""}form (one of formsOf(${families ? families.map((f) => `'${f}'`).join(" | ") : "family"}))`;
  const op = isObject(x) ? x.op : undefined;
  if (typeof op !== "string" || !isFamilyOpcode(op)) throw new TypeError(`${where} must be ${accepts}, not ${show(x)}: its op is none of the families' opcodes`);
  const fam = familyByOp(op);
  if (families && !families.includes(fam.name as FamilyName)) throw new TypeError(`${where} must be ${accepts}, not a ${fam.name} form (${show(x)})`);
  let id: string | undefined;
  try {
    id = fam.formId(x);
  } catch {
    id = undefined;
  }
  const canonical = id === undefined ? undefined : legalForms(fam.name as FamilyName).get(id);
  if (!canonical || !same(x, canonical)) fail(where, accepts, x);
  return x as Form;
}

/**
 * A source operand's kind: `{ kind: "v" }`, `{ kind: "s" }` or `{ kind: "imm", value }`, the
 * value a bigint in [0, 2^width) (`width` bits: the source's width; an immediate is truncated
 * to it, as ptxas does, before it is a routine's).
 */
export function operandKind(x: unknown, where: string, width = 64): OperandKind {
  const accepts = `an operand kind ({ kind: 'v' }, { kind: 's' } or { kind: 'imm', value } with a bigint value in [0, 2^${width}))`;
  if (!isObject(x)) fail(where, accepts, x);
  if (x.kind === "v" || x.kind === "s") return x as OperandKind;
  if (x.kind === "imm" && typeof x.value === "bigint" && x.value >= 0n && x.value < 1n << BigInt(width)) return x as OperandKind;
  return fail(where, accepts, x);
}

/**
 * A routine's identity `{ form, kinds, guarded }`: a legal form (of `families` where given),
 * a kind for each source it names (only the form's sources; an omitted one is `v`), a boolean.
 */
export function spec(x: unknown, where: string, families?: readonly FamilyName[]): RoutineSpec {
  const accepts = "a RoutineSpec ({ form, kinds, guarded }, e.g. a lowered routine's spec)";
  if (!isObject(x)) fail(where, accepts, x);
  const f = form(x.form, `${where}.form`, families);
  if (!isObject(x.kinds)) fail(`${where}.kinds`, "an object of operand kinds by source name", x.kinds);
  const sources = familyByOp(f.op).sources(f) as string[];
  for (const [k, v] of Object.entries(x.kinds)) {
    if (v === undefined) continue;
    if (!sources.includes(k)) throw new TypeError(`${where}.kinds has '${k}', which ${familyByOp(f.op).formName(f)} does not read: its sources are ${sources.join(", ") || "none"}`);
    operandKind(v, `${where}.kinds.${k}`, sourceWidth(f, k as SourceName));
  }
  boolean(x.guarded, `${where}.guarded`);
  return x as unknown as RoutineSpec;
}

/** A ParsedModule (what `parseModule` returns). */
export function parsedModule(x: unknown, where: string): void {
  if (!isObject(x) || !Array.isArray(x.diagnostics) || !Array.isArray(x.insts) || typeof x.file !== "string") fail(where, "a ParsedModule (what parseModule returns)", x);
}

/** A Diagnostic `{ loc: { file, line, col }, severity, message }`. */
export function diagnostic(x: unknown, where: string): void {
  const accepts = "a Diagnostic ({ loc: { file, line, col }, severity: 'error' | 'warning', message })";
  if (!isObject(x) || !isObject(x.loc)) fail(where, accepts, x);
  string(x.loc.file, `${where}.loc.file`);
  int(x.loc.line, `${where}.loc.line`, 1, Number.MAX_SAFE_INTEGER);
  int(x.loc.col, `${where}.loc.col`, 1, Number.MAX_SAFE_INTEGER);
  oneOf(x.severity, `${where}.severity`, ["error", "warning"]);
  string(x.message, `${where}.message`);
}

// ---------------------------------------------------------------------------------------
// Bit-vector interpretations and values

/** The members every `BV` interpretation has (src/sem/bv.ts `BV`). */
const BV_MEMBERS = ["k", "width", "add", "sub", "mul", "and", "or", "xor", "not", "neg", "shl", "lshr", "ashr", "eq", "ult", "ule", "slt", "sle", "ite", "iteB", "andB", "orB", "notB", "eqB", "extract", "zext", "sext", "concat", "bitAt", "fromB", "asBigint", "asBool"] as const satisfies readonly (keyof import("./sem/bv.js").BV<unknown, unknown>)[];
// Every member of `BV` is listed (a member added to the interface and not here does not compile).
const allMembers: Exclude<keyof import("./sem/bv.js").BV<unknown, unknown>, (typeof BV_MEMBERS)[number] | "true" | "false"> extends never ? true : never = true;
void allMembers;

/** A bit-vector interpretation (`concrete`, `traced(concrete)`, a symbolic one): every `BV` operation. */
export function bv(x: unknown, where: string): void {
  const missing = typeof x === "object" && x !== null ? BV_MEMBERS.find((m) => typeof (x as Record<string, unknown>)[m] !== "function") : "k";
  if (missing !== undefined) fail(where, `a BV interpretation (concrete, traced(concrete), …)${typeof x === "object" && x !== null ? `; it has no ${missing}` : ""}`, x);
}

/**
 * A value of interpretation `b` (already checked) whose width is one of `widths` bits; where
 * the interpretation is concrete (`asBigint` answers), a bigint in [0, 2^width).
 */
export function value(b: { width(v: unknown): number; asBigint(v: unknown): unknown }, x: unknown, where: string, widths: readonly number[]): void {
  let w: unknown;
  let n: unknown;
  try {
    w = x === undefined || x === null ? undefined : b.width(x);
    n = typeof w === "number" ? b.asBigint(x) : undefined;
  } catch {
    w = undefined;
  }
  const inRange = n === undefined || (typeof n === "bigint" && n >= 0n && typeof w === "number" && n >> BigInt(w) === 0n);
  if (typeof w !== "number" || !widths.includes(w) || !inRange) fail(where, `a ${widths.join(" or ")}-bit value of the interpretation (u(x) for concrete)`, x);
}

/** A concrete value `{ w, x }` (what `u` makes): w in 1..128, x a bigint in [0, 2^w). */
export function cv(x: unknown, where: string): void {
  const accepts = "a concrete value { w, x } (u(x, w): w in 1..128, x a bigint in [0, 2^w))";
  if (!isObject(x) || typeof x.w !== "number" || !Number.isInteger(x.w) || x.w < 1 || x.w > 128 || typeof x.x !== "bigint" || x.x < 0n || x.x >> BigInt(x.w) !== 0n) fail(where, accepts, x);
}
