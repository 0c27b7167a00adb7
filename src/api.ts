/**
 * @fileoverview The library's public functions, each with its arguments checked (src/args.ts)
 * before the implementation runs: src/index.ts exports these, not the implementations, which
 * the CLI, the checkers and the provers call unchecked (their inner loops call some of them
 * millions of times). A wrong argument is a `TypeError` naming the function, the argument and
 * what it accepts; so is an extra argument. The checking entry points (`verify`,
 * `runVectors`, `proveRoutine`, `rulesFor`, `proveMany`, `matrixRows`) are in
 * src/check/api.ts.
 */
import * as A from "./args.js";
import * as bvImpl from "./sem/bv.js";
import { szext as szextImpl } from "./sem/szext.js";
import { vsh as vshImpl, partSelectSignExtend as partSelectSignExtendImpl } from "./sem/vsh.js";
import { WARP, matchSync as matchSyncImpl } from "./sem/match_sync.js";
import * as C from "./compose.js";
import * as F from "./ir/forms.js";
import * as IR from "./ir/ir.js";
import { parseModule as parseModuleImpl } from "./ir/build.js";
import type { ParsedModule } from "./ir/build.js";
import { formatDiagnostic as formatDiagnosticImpl } from "./diag.js";
import { routineSpecs as routineSpecsImpl } from "../passes/uniformity.js";
import type { LowerOptions } from "./lower.js";
import { OUTPUT_TARGETS, collectRoutines as collectRoutinesImpl, lowerModule as lowerModuleImpl } from "./lower.js";
import type { PortLanguage, PortOptions } from "./port/rewrite.js";
import { portSource as portSourceImpl } from "./port/rewrite.js";
import { readVectors as readVectorsImpl } from "./check/vectors.js";

// ---------------------------------------------------------------------------------------
// The reference semantics and the concrete algebra (src/sem)

/** Wraps an interpretation so that `note` records into a fresh log (src/sem/bv.ts). @throws TypeError for a `base` that is not a BV interpretation. */
export const traced: typeof bvImpl.traced = function traced(base) {
  A.arity("traced", arguments, 1);
  A.bv(base, "traced: base");
  return bvImpl.traced(base);
};

/** Records `value` under `name` on a traced interpretation; returns `value` (src/sem/bv.ts). @throws TypeError for a wrong `bv` or `name`. */
export const note: typeof bvImpl.note = function note(bv, name, value) {
  A.arity("note", arguments, 3);
  A.bv(bv, "note: bv");
  A.string(name, "note: name");
  return bvImpl.note(bv, name, value);
} as typeof bvImpl.note;

/**
 * A concrete value of `w` bits (default 32): `x` taken modulo 2^w (negative numbers wrap).
 * @throws TypeError for an `x` that is not a bigint or a safe integer, a `w` outside 1..128.
 */
export const u: typeof bvImpl.u = function u(x, w = 32) {
  A.arity("u", arguments, 2);
  if (typeof x !== "bigint" && !(typeof x === "number" && Number.isSafeInteger(x))) A.fail("u: x", "a bigint or a safe integer", x);
  A.int(w, "u: w", 1, 128, "the widths of the bit-vector algebra");
  return bvImpl.u(x, w);
};

/** Formats a concrete value in Alive2's style, `#x0000002a (42)`, or a boolean. @throws TypeError for anything else. */
export const showCV: typeof bvImpl.showCV = function showCV(x) {
  A.arity("showCV", arguments, 1);
  if (typeof x !== "boolean") A.cv(x, "showCV: x");
  return bvImpl.showCV(x);
};

/**
 * `szext.mode.type d, a, b` over any interpretation (src/sem/szext.ts): `a`, `b` 32-bit values.
 * @throws TypeError for a wrong interpretation, a form that is not a legal szext form, or a value that is not 32 bits wide.
 */
export const szext: typeof szextImpl = function szext(bv, f, a, b) {
  A.arity("szext", arguments, 4);
  A.bv(bv, "szext: bv");
  A.form(f, "szext: f", ["szext"]);
  A.value(bv, a, "szext: a", [32]);
  A.value(bv, b, "szext: b", [32]);
  return szextImpl(bv, f, a, b);
};

/**
 * `vshl`/`vshr` over any interpretation (src/sem/vsh.ts): `a`, `b`, `c` 32-bit values (`c` read only where the tail uses it).
 * @throws TypeError for a wrong interpretation, form, profile or value.
 */
export const vsh: typeof vshImpl = function vsh(bv, f, profile, a, b, c) {
  A.arity("vsh", arguments, 6);
  A.bv(bv, "vsh: bv");
  A.form(f, "vsh: f", ["video"]);
  A.profile(profile, "vsh: profile");
  A.value(bv, a, "vsh: a", [32]);
  A.value(bv, b, "vsh: b", [32]);
  A.value(bv, c, "vsh: c", [32]);
  return vshImpl(bv, f, profile, a, b, c);
};

/**
 * The ISA's partSelectSignExtend: the field `sel` of the 32-bit `x` (the whole word for null),
 * sign- or zero-extended to `width` bits (33 in the ISA; at least the field's width, at most 128).
 * @throws TypeError for a wrong argument.
 */
export const partSelectSignExtend: typeof partSelectSignExtendImpl = function partSelectSignExtend(bv, x, signed, sel, width) {
  A.arity("partSelectSignExtend", arguments, 5);
  A.bv(bv, "partSelectSignExtend: bv");
  A.value(bv, x, "partSelectSignExtend: x", [32]);
  A.boolean(signed, "partSelectSignExtend: signed");
  A.sel(sel, "partSelectSignExtend: sel");
  A.int(width, "partSelectSignExtend: width", sel === null ? 32 : sel[0] === "b" ? 8 : 16, 128, "the field's width to 128 bits");
  return partSelectSignExtendImpl(bv, x, signed, sel, width);
};

/**
 * `match.any/all.sync` over one warp (src/sem/match_sync.ts): `w.a` 32 lane values of the
 * form's type's width, `w.membermask` 32 u32 values, `w.active`/`w.executes` 32 booleans.
 * @throws TypeError for a wrong argument.
 */
export const matchSync: typeof matchSyncImpl = function matchSync(bv, f, w) {
  A.arity("matchSync", arguments, 3);
  A.bv(bv, "matchSync: bv");
  const form = A.form(f, "matchSync: f", ["match"]) as F.MatchForm;
  if (!A.isObject(w)) A.fail("matchSync: w", "a MatchWarp ({ a, membermask, active, executes }, 32 lanes each)", w);
  const width = form.type === "b64" ? 64 : 32;
  const lanes = (k: string, each: (x: unknown, where: string) => void) => {
    const xs = A.array(w[k as keyof typeof w], `matchSync: w.${k}`, `an array of ${WARP} lanes`);
    if (xs.length !== WARP) throw new TypeError(`matchSync: w.${k} must be an array of ${WARP} lanes (one per laneid), not ${xs.length}`);
    xs.forEach((x, i) => each(x, `matchSync: w.${k}[${i}]`));
  };
  lanes("a", (x, where) => A.value(bv, x, where, [width]));
  lanes("membermask", (x, where) => A.value(bv, x, where, [32]));
  for (const k of ["active", "executes"]) lanes(k, (x, where) => void (x === undefined && A.fail(where, "a boolean of the interpretation", x)));
  return matchSyncImpl(bv, f, w);
};

// ---------------------------------------------------------------------------------------
// Forms and routines

/** Every legal form of a family, in the family's order. @throws TypeError for a name that is not a family's (FAMILIES). */
export const formsOf: typeof F.formsOf = function formsOf(family) {
  A.arity("formsOf", arguments, 1);
  A.family(family, "formsOf: family");
  return F.formsOf(family);
} as typeof F.formsOf;

/** Every legal szext form. @throws TypeError when given an argument (it takes none). */
export const szextForms: typeof F.szextForms = function szextForms() {
  A.arity("szextForms", arguments, 0);
  return F.szextForms();
} as typeof F.szextForms;

/** Every legal vshl/vshr form (15,680). @throws TypeError when given an argument (it takes none). */
export const vshForms: typeof F.vshForms = function vshForms() {
  A.arity("vshForms", arguments, 0);
  return F.vshForms();
} as typeof F.vshForms;

/** Every legal match.sync form. @throws TypeError when given an argument (it takes none). */
export const matchForms: typeof F.matchForms = function matchForms() {
  A.arity("matchForms", arguments, 0);
  return F.matchForms();
} as typeof F.matchForms;

/** Canonical PTX spelling of a form (`vshl.u32.s32.u32.sat.clamp.add`). @throws TypeError for something that is not a legal form. */
export const formName: typeof F.formName = function formName(f) {
  A.arity("formName", arguments, 1);
  return F.formName(A.form(f, "formName: f"));
};

/** An identifier-safe name for a form (`szext_clamp_s32`). @throws TypeError for something that is not a legal form. */
export const formId: typeof F.formId = function formId(f) {
  A.arity("formId", arguments, 1);
  return F.formId(A.form(f, "formId: f"));
};

/** The source operands a form reads, in PTX order. @throws TypeError for something that is not a legal form. */
export const sourcesOf: typeof IR.sourcesOf = function sourcesOf(f) {
  A.arity("sourcesOf", arguments, 1);
  return IR.sourcesOf(A.form(f, "sourcesOf: f"));
};

/** A routine's identifier from its form and kinds (`szext_clamp_s32__v_imm8`); `formId` names the form. @throws TypeError for a wrong argument. */
export const routineName: typeof IR.routineName = function routineName(r, formId) {
  A.arity("routineName", arguments, 2);
  A.spec(r, "routineName: r");
  A.func(formId, "routineName: formId", "a function from a form to its identifier (formId)");
  return IR.routineName(r, formId);
};

// ---------------------------------------------------------------------------------------
// Parsing, diagnostics, the module pipeline

/**
 * Parses and validates a PTX module (src/ir/build.ts). Never throws on bad PTX: errors come
 * back as `diagnostics`. `opts.keepAst`: keep the syntax tree (default for texts up to 1 MiB).
 * @throws TypeError for a `text` that is not a string or a Uint8Array, a `file` that is not a string, or wrong options.
 */
export const parseModule: typeof parseModuleImpl = function parseModule(text, file, opts) {
  A.arity("parseModule", arguments, 3);
  if (typeof text !== "string" && !(text instanceof Uint8Array)) A.fail("parseModule: text", "a string or a Uint8Array (Buffer)", text);
  A.string(file, "parseModule: file", "a string (the name diagnostics give the module)");
  A.options<NonNullable<Parameters<typeof parseModuleImpl>[2]>>(opts, "parseModule: opts", { keepAst: A.opt.boolean });
  return parseModuleImpl(text, file, opts);
};

/** `file:line:col: severity: message`. @throws TypeError for something that is not a Diagnostic. */
export const formatDiagnostic: typeof formatDiagnosticImpl = function formatDiagnostic(d) {
  A.arity("formatDiagnostic", arguments, 1);
  A.diagnostic(d, "formatDiagnostic: d");
  return formatDiagnosticImpl(d);
};

/** The routine identity of each family instruction of a module (passes/uniformity.ts). @throws TypeError for something that is not a ParsedModule. */
export const routineSpecs: typeof routineSpecsImpl = function routineSpecs(mod) {
  A.arity("routineSpecs", arguments, 1);
  A.parsedModule(mod, "routineSpecs: mod");
  return routineSpecsImpl(mod);
};

/** A module's routines, one per (form, operand kinds), with the occurrences each serves. @throws TypeError for something that is not a ParsedModule. */
/**
 * The caller's parsed module as the lowering's own object: the same properties (a lazy `ast`
 * stays lazy), each configurable, so that the passes' release of `resolved` (passes/group.ts)
 * leaves the caller's module as it was, frozen or not.
 */
function lowerersView(mod: ParsedModule): ParsedModule {
  const d: PropertyDescriptorMap = Object.getOwnPropertyDescriptors(mod);
  for (const p of Object.values(d)) {
    p.configurable = true;
    if ("value" in p) p.writable = true;
  }
  return Object.defineProperties(Object.create(Object.getPrototypeOf(mod) as object | null) as ParsedModule, d);
}

export const collectRoutines: typeof collectRoutinesImpl = function collectRoutines(mod) {
  A.arity("collectRoutines", arguments, 1);
  A.parsedModule(mod, "collectRoutines: mod");
  return collectRoutinesImpl(lowerersView(mod));
};

const LOWER_OPTIONS: A.OptionChecks<LowerOptions> = {
  target: A.opt.oneOf(OUTPUT_TARGETS),
  mcpu: (x, w) => void A.mcpu(x, w),
  profile: (x, w) => void A.profile(x, w),
  command: (x, w) => void A.array(x, w, 'an array of argv words (["ptx-lower", "lower", "x.ptx"])', (e, we) => A.string(e, we)),
  sourceName: A.opt.string,
  // The caller's registers: checked against each routine by targets/amdgpu/assign.ts (a TypeError naming the routine and operand).
  regs: () => undefined,
  scratch: () => undefined,
};

/**
 * Lowers every supported occurrence of `mod` for one target (src/lower.ts). `options` default
 * to `{ target: "amdgpu", mcpu: "gfx942", profile: "isa" }`.
 * @throws TypeError naming the argument for a `mod` that is not a parsed module, an unknown
 *   option, target, mcpu or profile; PtxLowerError when the module has error diagnostics.
 */
export const lowerModule: typeof lowerModuleImpl = async function lowerModule(mod, options) {
  A.arity("lowerModule", arguments, 2);
  A.parsedModule(mod, "lowerModule: mod");
  A.options(options, "lowerModule: options", LOWER_OPTIONS);
  return lowerModuleImpl(lowerersView(mod), options);
};

const PORT_LANGUAGES = ["cuda", "opencl"] as const satisfies readonly PortLanguage[];
const allLanguages: PortLanguage extends (typeof PORT_LANGUAGES)[number] ? true : never = true;
void allLanguages;

const PORT_OPTIONS: A.OptionChecks<PortOptions> = {
  header: (x, w) => A.func(x, w, "a function (the routines module → the header's text)"),
  headerName: A.opt.string,
  inlineHeader: A.opt.boolean,
  language: A.opt.oneOf(PORT_LANGUAGES),
  ptxTarget: A.opt.string,
  hipMacros: (x, w) => void A.array(x, w, "an array of macro names", (e, we) => A.string(e, we)),
  predefined: (x, w) =>
    void A.array(x, w, "an array of { define, value } / { undef }", (e, we) => {
      if (!(A.isObject(e) && ((typeof e.define === "string" && typeof e.value === "string") || typeof e.undef === "string"))) A.fail(we, "{ define, value } or { undef } (strings)", e);
    }),
  renameShared: A.opt.boolean,
};

/**
 * Ports one CUDA/OpenCL source (src/port/rewrite.ts): its PTX asm statements rewritten to calls
 * of the routines `opts.header` prints.
 * @throws TypeError for a wrong argument (`opts.header` is required).
 */
export const portSource: typeof portSourceImpl = async function portSource(text, file, opts) {
  A.arity("portSource", arguments, 3);
  A.string(text, "portSource: text", "a string (the source's text)");
  A.string(file, "portSource: file", "a string (the name locations give)");
  if (opts === undefined) A.fail("portSource: opts", "an object ({ header, … })", opts);
  A.options(opts, "portSource: opts", PORT_OPTIONS);
  if (opts.header === undefined) A.fail("portSource: opts.header", "a function (the routines module → the header's text)", undefined);
  return portSourceImpl(text, file, opts);
};

/**
 * Reads a `.jsonl` vector file (src/check/vectors.ts): bad lines become diagnostics.
 * @throws TypeError for a `text` or `file` that is not a string.
 */
export const readVectors: typeof readVectorsImpl = function readVectors(text, file) {
  A.arity("readVectors", arguments, 2);
  A.string(text, "readVectors: text", "a string (the .jsonl file's text)");
  A.string(file, "readVectors: file", "a string (the name diagnostics give the file)");
  return readVectorsImpl(text, file);
};

// ---------------------------------------------------------------------------------------
// AMDGPU: lowering, printing, running

type Target = C.Target;

/** A processor's description: one of `TARGETS` (`TARGETS.gfx942`). */
function amdTarget(x: unknown, where: string): Target {
  const m = A.isObject(x) ? x.mcpu : undefined;
  const accepts = `one of TARGETS (TARGETS.gfx942, …: ${C.MCPUS.join(", ")})`;
  if (typeof m !== "string" || !(C.MCPUS as readonly string[]).includes(m)) A.fail(where, accepts, x);
  const t = C.TARGETS[m as C.Mcpu];
  if (x !== t && JSON.stringify(x) !== JSON.stringify(t)) A.fail(where, `${accepts}, unchanged`, x);
  return t;
}

/** A routine `lowerRoutine`/`lowerWithRule` returned (checked on its spec, target and lines). */
function amdRoutine(x: unknown, where: string): void {
  const accepts = "an AmdRoutine (what lowerRoutine returns)";
  if (!A.isObject(x) || !Array.isArray(x.lines) || !A.isObject(x.layout) || !A.isObject(x.layout.src) || !A.isObject(x.layout.d) || typeof x.rule !== "string" || typeof x.vEnd !== "number" || typeof x.sEnd !== "number") A.fail(where, accepts, x);
  A.spec(x.spec, `${where}.spec`);
  amdTarget(x.target, `${where}.target`);
  code(x.lines, `${where}.lines`);
}

/** A sequence of AMDGPU lines: labels `{ label }` and instructions `{ op, ops }` whose op is a record's mnemonic. */
function code(x: unknown, where: string): void {
  A.array(x, where, "an array of AMDGPU lines ({ label } or { op, ops }, e.g. a routine's lines)", (l, w) => {
    if (A.isObject(l) && typeof l.label === "string") return;
    if (!A.isObject(l) || typeof l.op !== "string" || !Array.isArray(l.ops)) A.fail(w, "a label { label } or an instruction { op, ops, rule }", l);
    if (!C.RECORDS.has(l.op as never)) A.fail(`${w}.op`, `a mnemonic of RECORDS (${C.RECORDS.size} of them, e.g. v_bfe_i32)`, l.op);
  });
}

const BOUNDARY_KINDS = ["contract", "function"] as const;

/** `lowerRoutine`'s options object (the caller's registers: targets/amdgpu/assign.ts). */
type LowerRoutineOptions = Exclude<Parameters<typeof C.lowerRoutine>[3], string | undefined>;

/**
 * `lowerRoutine`'s options, each checked; `regs` and `scratch` (the caller's registers and
 * scratch budget) are checked by the implementation against the routine (targets/amdgpu/assign.ts).
 */
const LOWER_ROUTINE_OPTIONS = {
  boundary: A.opt.oneOf(BOUNDARY_KINDS),
  regs: () => undefined,
  scratch: () => undefined,
} satisfies A.OptionChecks<LowerRoutineOptions>;

/** `lowerRoutine`'s fourth argument: a boundary kind, or the options object (`{ boundary, regs, scratch }`). */
function lowerRoutineOptions(x: unknown, where: string): void {
  if (x === undefined || (typeof x === "string" && (BOUNDARY_KINDS as readonly string[]).includes(x))) return;
  if (!A.isObject(x)) A.fail(where, `one of ${BOUNDARY_KINDS.join(", ")} (the boundary kind) or an object with any of ${Object.keys(LOWER_ROUTINE_OPTIONS).join(", ")}`, x);
  A.options(x, where, LOWER_ROUTINE_OPTIONS);
}

/**
 * Lowers a routine for an AMDGPU processor with the cheapest applicable rule (targets/amdgpu/lower.ts).
 * `t`: one of `TARGETS`; `options`: the boundary kind (`contract`, the default, or `function`),
 * or `{ boundary?, regs?, scratch? }` (the caller's registers: README "Library").
 * @throws TypeError for a spec whose form is not a legal form, kinds that are not operand kinds,
 *   a `t` that is not one of TARGETS, an unknown profile, boundary kind or option, an illegal
 *   register assignment or scratch budget; Error when no rule applies (a coverage gap).
 */
export const lowerRoutine: typeof C.lowerRoutine = function lowerRoutine(spec, t, profile, options) {
  A.arity("lowerRoutine", arguments, 4);
  A.spec(spec, "lowerRoutine: spec");
  amdTarget(t, "lowerRoutine: t");
  A.profile(profile, "lowerRoutine: profile");
  lowerRoutineOptions(options, "lowerRoutine: options");
  return C.lowerRoutine(spec, t, profile, options);
};

/**
 * Lowers a routine with one given rule (one of `applicableRules(spec, t, profile)`).
 * @throws TypeError for a wrong argument or a rule that does not apply.
 */
export const lowerWithRule: typeof C.lowerWithRule = function lowerWithRule(spec, t, profile, rule, boundaryKind) {
  A.arity("lowerWithRule", arguments, 5);
  A.spec(spec, "lowerWithRule: spec");
  amdTarget(t, "lowerWithRule: t");
  A.profile(profile, "lowerWithRule: profile");
  const rules = C.applicableRules(spec, t, profile);
  if (!rules.includes(rule)) A.fail("lowerWithRule: rule", `one of applicableRules(spec, t, profile) (${rules.map((r) => r.name).join(", ") || "none apply"})`, A.isObject(rule) ? `rule ${String(rule.name)}` : rule);
  if (boundaryKind !== undefined) A.oneOf(boundaryKind, "lowerWithRule: boundaryKind", BOUNDARY_KINDS);
  return C.lowerWithRule(spec, t, profile, rule, boundaryKind);
};

/** The AMDGPU rules that apply to a routine on a processor (empty: a coverage gap). @throws TypeError for a wrong argument. */
export const applicableRules: typeof C.applicableRules = function applicableRules(spec, t, profile) {
  A.arity("applicableRules", arguments, 3);
  A.spec(spec, "applicableRules: spec");
  amdTarget(t, "applicableRules: t");
  A.profile(profile, "applicableRules: profile");
  return C.applicableRules(spec, t, profile);
};

/**
 * Prints a routine under the label `name` (an assembler symbol: letters, digits, `_`, `.`, `$`,
 * not starting with a digit), with its contract header and `extra` comment lines.
 * @throws TypeError for a wrong argument.
 */
export const printRoutine: typeof C.printRoutine = function printRoutine(name, r, extra) {
  A.arity("printRoutine", arguments, 3);
  if (typeof name !== "string" || !/^[A-Za-z_.$][\w.$]*$/.test(name)) A.fail("printRoutine: name", "an assembler symbol ([A-Za-z_.$][A-Za-z0-9_.$]*)", name);
  amdRoutine(r, "printRoutine: r");
  if (extra !== undefined) A.array(extra, "printRoutine: extra", "an array of comment lines", (e, w) => A.string(e, w));
  return C.printRoutine(name, r, extra);
};

/** A wave's state (`WaveState`): `wave` 32 or 64, `vgpr`/`sgpr` Maps, `vcc`, `exec`, `scc`. */
function waveState(x: unknown, where: string): void {
  const accepts = "a WaveState ({ wave: 32 | 64, vgpr: Map, sgpr: Map, vcc, exec, scc })";
  if (!A.isObject(x) || (x.wave !== 32 && x.wave !== 64) || !(x.vgpr instanceof Map) || !(x.sgpr instanceof Map) || x.vcc === undefined || x.exec === undefined || x.scc === undefined) A.fail(where, accepts, x);
}

type RunOptions = NonNullable<Parameters<typeof C.run>[3]>;
const RUN_OPTIONS: A.OptionChecks<RunOptions> = {
  stepLimit: A.opt.int(1, 1e9, "dynamic instructions"),
  trace: A.opt.boolean,
  hazards: (x, w) => {
    if (!A.isObject(x) || !A.isObject(x.target) || !A.isObject(x.boundary)) A.fail(w, "{ target, boundary } (a HazardTarget and a routine's boundary)", x);
  },
};

/**
 * Runs AMDGPU lines on a wave state (mutated in place) until they fall off the end (targets/amdgpu/interp.ts).
 * @throws TypeError for a wrong argument; InterpError for a fault in the code run.
 */
export const run: typeof C.run = function run(bv, code_, st, opts) {
  A.arity("run", arguments, 4);
  A.bv(bv, "run: bv");
  code(code_, "run: code");
  waveState(st, "run: st");
  A.options(opts, "run: opts", RUN_OPTIONS);
  return C.run(bv, code_, st, opts);
};

type ExecOptions = NonNullable<Parameters<typeof C.execRoutine>[3]>;
const EXEC_OPTIONS: A.OptionChecks<ExecOptions> = { stepLimit: A.opt.int(1, 1e9, "dynamic instructions"), trace: A.opt.boolean, salt: A.opt.int(0, 2 ** 32 - 1, "a u32") };

/**
 * Runs a lowered routine once on `inp` (targets/amdgpu/exec.ts): `inp.src` the sources by name
 * (a value, or 32 lane values), `inp.active` the lanes that execute; guarded routines also
 * `guard`, `dPrior` (and `pPrior`), 32 lanes each.
 * @throws TypeError for a wrong argument.
 */
export const execRoutine: typeof C.execRoutine = function execRoutine(bv, r, inp, opts) {
  A.arity("execRoutine", arguments, 4);
  A.bv(bv, "execRoutine: bv");
  amdRoutine(r, "execRoutine: r");
  if (!A.isObject(inp) || !A.isObject(inp.src)) A.fail("execRoutine: inp", "RoutineInputs ({ src: { a, b, … }, active, guard?, dPrior?, pPrior? })", inp);
  /** 32 lanes, each checked. */
  const lanes = (x: unknown, where: string, what: string, each: (e: unknown, where: string) => void) => {
    if (!Array.isArray(x) || x.length !== WARP) A.fail(where, `an array of ${WARP} lanes (${what})`, x);
    x.forEach((e, i) => each(e, `${where}[${i}]`));
  };
  const masks = (r.layout as { masks?: readonly string[] }).masks ?? [];
  for (const name of IR.sourcesOf(r.spec.form)) {
    if (r.spec.kinds[name]?.kind === "imm") continue;
    const where = `execRoutine: inp.src.${name}`;
    // A lane-mask source (its bit 0 per lane) may be any width; the others are the source's width.
    const widths = masks.includes(name) ? [1, 32, 64] : [C.sourceWidth(r.spec.form, name)];
    const x = inp.src[name];
    if (Array.isArray(x)) lanes(x, where, "one value per lane", (e, w) => A.value(bv, e, w, widths));
    else A.value(bv, x, where, widths);
  }
  A.value(bv, inp.active, "execRoutine: inp.active", [32]);
  const bool = (e: unknown, w: string) => void ((e === undefined || e === null || typeof e === "number" || typeof e === "string") && A.fail(w, "a boolean of the interpretation", e));
  if (r.spec.guarded) {
    lanes(inp.guard, "execRoutine: inp.guard", "the routine is guarded", bool);
    lanes(inp.dPrior, "execRoutine: inp.dPrior", "the routine is guarded", (e, w) => A.value(bv, e, w, [32]));
  }
  if (inp.pPrior !== undefined) lanes(inp.pPrior, "execRoutine: inp.pPrior", "the prior p per lane", bool);
  A.options(opts, "execRoutine: opts", EXEC_OPTIONS);
  return C.execRoutine(bv, r, inp, opts);
};

/** The ISA record of an AMDGPU mnemonic (`v_bfe_i32`). @throws TypeError for a mnemonic outside RECORDS. */
export const record: typeof C.record = function record(mnemonic) {
  A.arity("record", arguments, 1);
  if (!C.RECORDS.has(mnemonic)) A.fail("record: mnemonic", `a mnemonic of RECORDS (${C.RECORDS.size} of them, e.g. v_bfe_i32)`, mnemonic);
  return C.record(mnemonic);
};

// ---------------------------------------------------------------------------------------
// The portable IR (JS and C)

/** Lowers a routine to the portable IR with its selected rule. @throws TypeError for a wrong spec or profile; Error when no rule applies. */
export const lowerPortable: typeof C.lowerPortable = function lowerPortable(spec, profile) {
  A.arity("lowerPortable", arguments, 2);
  A.spec(spec, "lowerPortable: spec");
  A.profile(profile, "lowerPortable: profile");
  return C.lowerPortable(spec, profile);
};

/** Every portable rule that applies to a routine, highest priority first. @throws TypeError for a wrong spec. */
export const portableRulesFor: typeof C.portableRulesFor = function portableRulesFor(spec) {
  A.arity("portableRulesFor", arguments, 1);
  A.spec(spec, "portableRulesFor: spec");
  return C.portableRulesFor(spec);
};

type Pir = Parameters<typeof C.evalPir>[0];

/** A portable-IR function (`lowerPortable(spec, profile).fn`). */
function pirFunction(x: unknown, where: string): Pir {
  if (!A.isObject(x) || typeof x.name !== "string" || !Array.isArray(x.params) || !Array.isArray(x.results) || !Array.isArray(x.body)) A.fail(where, "a portable-IR function (lowerPortable(spec, profile).fn)", x);
  return x as unknown as Pir;
}

/** Each parameter of `fn` given in `args`, and no other name. */
function pirArgs(fn: Pir, x: unknown, where: string): void {
  const names = fn.params.map((p) => p.name);
  if (!A.isObject(x)) A.fail(where, `an object with one argument per parameter (${names.join(", ")})`, x);
  for (const n of names) if (x[n] === undefined) A.fail(`${where}.${n}`, `a value: ${fn.name} takes ${names.join(", ")}`, undefined);
  for (const k of Object.keys(x)) if (!names.includes(k)) throw new TypeError(`${where} has '${k}', which is no parameter of ${fn.name} (${names.join(", ")})`);
}

/**
 * Runs a portable-IR function over an interpretation (targets/portable/pir.ts): one argument per parameter.
 * @throws TypeError for a wrong argument.
 */
export const evalPir: typeof C.evalPir = function evalPir(fn, bv, args) {
  A.arity("evalPir", arguments, 3);
  pirArgs(pirFunction(fn, "evalPir: fn"), args, "evalPir: args");
  A.bv(bv, "evalPir: bv");
  return C.evalPir(fn, bv, args);
};

/**
 * Runs a portable-IR function concretely: each parameter a bigint or a boolean (or an array of them).
 * @throws TypeError for a wrong argument.
 */
export const evalPirConcrete: typeof C.evalPirConcrete = function evalPirConcrete(fn, args) {
  A.arity("evalPirConcrete", arguments, 2);
  pirArgs(pirFunction(fn, "evalPirConcrete: fn"), args, "evalPirConcrete: args");
  for (const [k, v] of Object.entries(args)) {
    const ok = (e: unknown) => typeof e === "bigint" || typeof e === "boolean";
    if (!(ok(v) || (Array.isArray(v) && v.every(ok)))) A.fail(`evalPirConcrete: args.${k}`, "a bigint, a boolean, or an array of them", v);
  }
  return C.evalPirConcrete(fn, args);
};

/** Routines to print: `{ name, fn, header }` each. */
function printable(x: unknown, where: string): void {
  A.array(x, where, "an array of { name, fn, header } (fn: lowerPortable(spec, profile).fn)", (r, w) => {
    if (!A.isObject(r)) A.fail(w, "{ name, fn, header }", r);
    if (typeof r.name !== "string" || !/^[A-Za-z_$][\w$]*$/.test(r.name)) A.fail(`${w}.name`, "an identifier", r.name);
    pirFunction(r.fn, `${w}.fn`);
    A.string(r.header, `${w}.header`, "a string (the routine's comment)");
  });
}

type JsOpts = NonNullable<Parameters<typeof C.printJsModule>[1]>;
type COpts = NonNullable<Parameters<typeof C.printCModule>[1]>;

/** Prints an ES module with one function per routine (targets/js/print.ts). @throws TypeError for a wrong argument. */
export const printJsModule: typeof C.printJsModule = async function printJsModule(routines, opts) {
  A.arity("printJsModule", arguments, 2);
  printable(routines, "printJsModule: routines");
  A.options<JsOpts>(opts, "printJsModule: opts", { banner: A.opt.string, format: A.opt.boolean });
  return C.printJsModule(routines, opts);
};

/** Prints a C file with one function per routine (targets/c/print.ts). @throws TypeError for a wrong argument. */
export const printCModule: typeof C.printCModule = function printCModule(routines, opts) {
  A.arity("printCModule", arguments, 2);
  printable(routines, "printCModule: routines");
  const o = A.options<COpts>(opts, "printCModule: opts", {
    banner: A.opt.string,
    static: A.opt.boolean,
    inline: A.opt.boolean,
    guards: (x, w) => void A.array(x, w, "an array of macro names, one per routine", (e, we) => A.string(e, we)),
    helperGuardPrefix: A.opt.string,
    format: A.opt.boolean,
  });
  if (o.guards && o.guards.length !== routines.length) A.fail("printCModule: opts.guards", `one macro per routine (${routines.length})`, `${o.guards.length} of them`);
  return C.printCModule(routines, opts);
};
