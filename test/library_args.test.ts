/**
 * The library refuses what it cannot do (issue 37 item 6): EVERY export of src/index.ts (the
 * package's only entry) is walked. Each function is called with bad arguments of each kind
 * that applies — wrong types, unknown names, non-integers, out-of-range numbers, unknown
 * option keys, an extra argument — and must throw (or reject with) a `TypeError` whose
 * message starts with `NAME: ARGUMENT` (or `NAME takes …` for an extra argument); and once
 * with good arguments, so that the checks do not refuse valid input. An export without a case
 * here fails the test; the non-functions are listed with why.
 */
import { describe, expect, it } from "vitest";
import type { RoutineSpec } from "../src/index.js";

const lib = (await import("../src/index.js")) as typeof import("../src/index.js");
const L = lib as unknown as Record<string, (...args: unknown[]) => unknown>;
const { concrete, u, TARGETS, PIR } = lib;

/** Exports that are not functions to call (or not ones to check), and why. */
const NOT_CHECKED: Record<string, string> = {
  FAMILIES: "a constant: the family names (formsOf's accepted names)",
  PROFILES: "a constant: the semantics profile names",
  MCPUS: "a constant: the AMDGPU processor names",
  TARGETS: "a constant: each processor's description (lowerRoutine's `t`)",
  RECORDS: "a constant: the AMDGPU ISA records by mnemonic (record's accepted names)",
  PIR: "a constant: the portable-IR prover target",
  concrete: "a constant: the concrete BV interpretation (an object of operations, each the algebra's, run in the checkers' inner loops)",
  PtxLowerError: "a class the library throws (lowerModule on a module with errors), not an entry point: test/library.test.ts checks it",
};

// Fixtures: good arguments.
const PTX = ".version 8.5\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 %r<4>;\nszext.clamp.s32 %r1, %r2, %r3;\nret;\n}\n";
const VECTORS = JSON.stringify({ id: "v1", ptx: "szext.clamp.s32 d, a, b;", in: { a: "0x000000f0", b: "0x00000005" }, out: { d: "0xfffffff0" } }) + "\n";
const mod = lib.parseModule(PTX, "k.ptx");
const SZEXT = { op: "szext", mode: "clamp", type: "s32" } as const;
const spec: RoutineSpec = { form: SZEXT, kinds: { a: { kind: "v" }, b: { kind: "v" } }, guarded: false };
const MATCH = [...lib.matchForms()].find((f) => f.mode === "any" && f.type === "b32")!;
const matchSpec: RoutineSpec = { form: MATCH, kinds: {}, guarded: false };
const VSH = lib.vshForms().next().value!;
const t = TARGETS.gfx942;
const routine = lib.lowerRoutine(spec, t, "isa");
const rule = lib.applicableRules(spec, t, "isa")[0]!;
const pir = lib.lowerPortable(spec, "isa").fn;
const pirArgs = Object.fromEntries(pir.params.map((p) => [p.name, u(0)]));
const vectors = lib.readVectors(VECTORS, "v.jsonl").vectors;
const [a, b] = [u(0xf0), u(5)];
const lanes = <T>(x: T): T[] => new Array<T>(32).fill(x);
const warp = { a: lanes(u(7)), membermask: lanes(u(0xffffffff)), active: lanes(true), executes: lanes(true) };
const inputs = { src: { a: lanes(a), b: lanes(b) }, active: u(0xffffffff) };
const wave = () => ({ wave: 64 as const, vgpr: new Map(), sgpr: new Map(), vcc: u(0, 64), exec: u(0, 64), scc: false });
const header = async () => "";
const js = { kind: "js" };
const diag = { loc: { file: "f.ptx", line: 1, col: 2 }, severity: "error", message: "m" };

/** Bad calls: the arguments, and the argument the message must name (`takes` for an extra argument). */
type Bad = [args: unknown[], names: string];
interface Case {
  bad: Bad[];
  /** A call with good arguments, checked; or why there is none here. */
  good: (() => unknown) | string;
}

const CASES: Record<string, Case> = {
  // The reference semantics and the algebra.
  traced: { bad: [[[42], "base"], [[{ k: () => 0 }], "base"], [[concrete, 1], "takes"]], good: () => expect(lib.traced(concrete).log).toEqual([]) },
  note: {
    bad: [[[{}, "x", 1], "bv"], [[concrete, 5, 1], "name"]],
    good: () => {
      const tb = lib.traced(concrete);
      expect(lib.note(tb, "x", 1)).toBe(1);
      expect(tb.log).toEqual([{ name: "x", value: 1 }]);
    },
  },
  u: { bad: [[[1.5], "x"], [["1"], "x"], [[2 ** 60], "x"], [[1, 0], "w"], [[1, 129], "w"], [[1, 8.5], "w"], [[1, 32, 0], "takes"]], good: () => expect(u(-1).x).toBe(0xffffffffn) },
  showCV: { bad: [[[42], "x"], [[{ w: 0, x: 0n }], "x"], [[{ w: 8, x: 256n }], "x"], [[{ w: 8, x: 1 }], "x"]], good: () => expect(lib.showCV(u(42))).toBe("#x0000002a (42)") },
  szext: {
    bad: [
      [[{}, SZEXT, a, b], "bv"],
      [[concrete, { op: "szext", mode: "clamp" }, a, b], "f"],
      [[concrete, { ...SZEXT, type: "u64" }, a, b], "f"],
      [[concrete, VSH, a, b], "f"],
      [[concrete, SZEXT, u(1, 8), b], "a"],
      [[concrete, SZEXT, a, 5], "b"],
      [[concrete, SZEXT, a, { w: 32, x: 5 }], "b"],
    ],
    good: () => expect(lib.szext(concrete, SZEXT, a, b).value.x).toBe(0xfffffff0n),
  },
  vsh: {
    bad: [
      [[concrete, SZEXT, "isa", a, b, a], "f"],
      [[concrete, VSH, "sm80", a, b, a], "profile"],
      [[concrete, VSH, "isa", a, b, undefined], "c"],
      [[concrete, { ...VSH, asel: "b7" }, "isa", a, b, a], "f"],
    ],
    good: () => expect(lib.vsh(concrete, VSH, "isa", a, b, u(0)).value.w).toBe(32),
  },
  partSelectSignExtend: {
    bad: [
      [[concrete, u(1), true, "b9", 33], "sel"],
      [[concrete, u(1), "yes", null, 33], "signed"],
      [[concrete, u(1), true, "b0", 4], "width"],
      [[concrete, u(1), true, "b0", 33.5], "width"],
      [[concrete, u(1), true, null, 1e9], "width"],
      [[concrete, u(1, 8), true, null, 33], "x"],
    ],
    good: () => expect(lib.partSelectSignExtend(concrete, u(0x80), true, "b0", 33)).toEqual(u(-128, 33)),
  },
  matchSync: {
    bad: [
      [[{}, MATCH, warp], "bv"],
      [[concrete, SZEXT, warp], "f"],
      [[concrete, MATCH, 5], "w"],
      [[concrete, MATCH, { ...warp, a: warp.a.slice(1) }], "w.a"],
      [[concrete, MATCH, { ...warp, a: lanes(u(1, 64)) }], "w.a[0]"],
      [[concrete, MATCH, { ...warp, executes: undefined }], "w.executes"],
    ],
    good: () => expect(lib.matchSync(concrete, MATCH, warp).d[0]).toEqual(u(0xffffffff)),
  },

  // Forms and routines.
  formsOf: { bad: [[["nope"], "family"], [[42], "family"], [[], "family"], [["szext", 1], "takes"]], good: () => expect([...lib.formsOf("szext")].length).toBe(4) },
  szextForms: { bad: [[["clamp"], "takes"]], good: () => expect([...lib.szextForms()].length).toBe(4) },
  vshForms: { bad: [[["vshl"], "takes"]], good: () => expect(lib.vshForms().next().done).toBe(false) },
  matchForms: { bad: [[[1], "takes"]], good: () => expect([...lib.matchForms()].length).toBe(12) },
  formName: { bad: [[[{ op: "nope" }], "f"], [[42], "f"], [[{ ...SZEXT, extra: 1 }], "f"]], good: () => expect(lib.formName(SZEXT)).toBe("szext.clamp.s32") },
  formId: { bad: [[[{ op: "vshl" }], "f"], [[null], "f"]], good: () => expect(lib.formId(SZEXT)).toBe("szext_clamp_s32") },
  sourcesOf: { bad: [[["szext"], "f"]], good: () => expect(lib.sourcesOf(SZEXT)).toEqual(["a", "b"]) },
  routineName: { bad: [[[{}, lib.formId], "r"], [[spec, "x"], "formId"]], good: () => expect(lib.routineName(spec, lib.formId)).toBe("szext_clamp_s32__v_v") },

  // Parsing, the module pipeline.
  parseModule: {
    bad: [[[42, "k.ptx"], "text"], [[[1, 2], "k.ptx"], "text"], [[PTX, 5], "file"], [["", undefined], "file"], [[PTX, "k.ptx", { keep: true }], "opts"], [[PTX, "k.ptx", { keepAst: "yes" }], "opts.keepAst"]],
    good: () => expect(lib.parseModule(Buffer.from(PTX), "k.ptx").insts.length).toBe(1),
  },
  formatDiagnostic: {
    bad: [[[{}], "d"], [[{ ...diag, loc: { ...diag.loc, line: 0 } }], "d.loc.line"], [[{ ...diag, loc: { ...diag.loc, col: 1.5 } }], "d.loc.col"], [[{ ...diag, severity: "fatal" }], "d.severity"]],
    good: () => expect(lib.formatDiagnostic(diag as never)).toBe("f.ptx:1:2: error: m"),
  },
  routineSpecs: { bad: [[[null], "mod"], [["x"], "mod"]], good: () => expect(lib.routineSpecs(mod).size).toBe(1) },
  collectRoutines: { bad: [[[42], "mod"], [[{}], "mod"]], good: () => expect(lib.collectRoutines(mod).length).toBe(1) },
  lowerModule: {
    bad: [
      [[42], "mod"],
      [[mod, 5], "options"],
      [[mod, { target: "wasm" }], "options.target"],
      [[mod, { mcpu: "gfx1" }], "options.mcpu"],
      [[mod, { profile: "sm80" }], "options.profile"],
      [[mod, { tagret: "js" }], "options"],
      [[mod, { command: "ptx-lower lower" }], "options.command"],
    ],
    good: async () => expect((await lib.lowerModule(mod, { target: "c", profile: "sm90" })).routines.length).toBe(1),
  },
  portSource: {
    bad: [
      [[42, "a.cu", { header }], "text"],
      [["", 5, { header }], "file"],
      [["", "a.cu"], "opts"],
      [["", "a.cu", {}], "opts.header"],
      [["", "a.cu", { header, language: "fortran" }], "opts.language"],
      [["", "a.cu", { header, hdr: "x.h" }], "opts"],
      [["", "a.cu", { header, hipMacros: [1] }], "opts.hipMacros[0]"],
      [[Buffer.from("int x;"), "a.cu", { header }], "text"],
      [["", "a.cu", { header, headerName: 3 }], "opts.headerName"],
      [["", "a.cu", { header, inlineHeader: "yes" }], "opts.inlineHeader"],
    ],
    good: async () => expect((await lib.portSource("int x;\n", "a.cu", { header })).text).toBe("int x;\n"),
  },
  readVectors: { bad: [[[42, "v.jsonl"], "text"], [[VECTORS, 5], "file"]], good: () => expect(lib.readVectors(VECTORS, "v.jsonl").vectors.length).toBe(1) },

  // AMDGPU.
  lowerRoutine: {
    bad: [
      [[{ ...spec, form: { op: "nope" } }, t, "isa"], "spec.form"],
      [[{ ...spec, form: { ...SZEXT, mode: "saturate" } }, t, "isa"], "spec.form"],
      [[{ ...spec, kinds: { c: { kind: "v" } } }, t, "isa"], "spec.kinds"],
      [[{ ...spec, kinds: { a: { kind: "imm", value: 5 } } }, t, "isa"], "spec.kinds.a"],
      [[{ ...spec, kinds: { a: { kind: "imm", value: -1n } } }, t, "isa"], "spec.kinds.a"],
      [[{ ...spec, kinds: { b: { kind: "imm", value: 1n << 32n } } }, t, "isa"], "spec.kinds.b"],
      [[{ ...spec, guarded: 1 }, t, "isa"], "spec.guarded"],
      [[spec, undefined, "isa"], "t"],
      [[spec, "gfx942", "isa"], "t"],
      [[spec, { ...t, wave: 32 }, "isa"], "t"],
      [[spec, t, "nope"], "profile"],
      [[spec, t, "isa", "nope"], "options"],
      [[spec, t, "isa", 5], "options"],
      [[spec, t, "isa", { boundry: "function" }], "options"],
      [[spec, t, "isa", { boundary: "module" }], "options.boundary"],
      // The caller's registers are checked by the implementation (targets/amdgpu/assign.ts, test/assign*.test.ts).
      [[spec, t, "isa", { regs: 5 }], "regs"],
      [[spec, t, "isa", { scratch: 3 }], "options.scratch"],
      // Register names as the assembler writes them: no leading zero, no space (a tester's finding).
      [[spec, t, "isa", { regs: { a: "v07", b: "v8", d: "v2" } }], "regs.a"],
      [[spec, t, "isa", { regs: { a: " v7", b: "v8", d: "v2" } }], "regs.a"],
      // A bigint budget is named as a bigint (4n), not as the number it prints as.
      [[spec, t, "isa", { regs: { a: "v7", b: "v8", d: "v2" }, scratch: { vgprs: 4n } }], "scratch.vgprs"],
      [[spec, t, "isa", "contract", 1], "takes"],
    ],
    good: () => {
      expect(lib.lowerRoutine(matchSpec, TARGETS.gfx1100, "sm90", "function").count).toBeGreaterThan(0);
      expect(lib.lowerRoutine(spec, t, "isa", { boundary: "function", regs: { a: "v7", b: "v8", d: "v2" } }).layout.src.a).toEqual({ k: "v", n: 7, count: 1 });
      // A 64-bit source takes a 64-bit immediate.
      const b64 = [...lib.matchForms()].find((f) => f.type === "b64")!;
      expect(lib.lowerRoutine({ form: b64, kinds: { a: { kind: "imm", value: 1n << 40n } }, guarded: false }, t, "isa").count).toBeGreaterThan(0);
    },
  },
  lowerWithRule: {
    bad: [[[spec, t, "isa", { name: "x" }], "rule"], [[spec, t, "isa", lib.applicableRules(matchSpec, t, "isa")[0]], "rule"], [[spec, t, "isa", rule, 5], "boundaryKind"], [[spec, t, "isa", rule, "contract", 1], "takes"], [[{}, t, "isa", rule], "spec"]],
    good: () => expect(lib.lowerWithRule(spec, t, "isa", rule).rule).toBe(rule.name),
  },
  applicableRules: { bad: [[[{}, t, "isa"], "spec"], [[spec, { mcpu: "gfx1" }, "isa"], "t"], [[spec, t, "sm80"], "profile"], [[spec, t, "isa", 1], "takes"]], good: () => expect(lib.applicableRules(spec, t, "isa").length).toBeGreaterThan(0) },
  printRoutine: {
    bad: [[["1x", routine], "name"], [["x y", routine], "name"], [["x", {}], "r"], [["x", { ...routine, lines: [{ op: "v_nope", ops: [] }] }], "r.lines[0].op"], [["x", routine, "extra"], "extra"], [["x", routine, [5]], "extra[0]"]],
    good: () => expect(lib.printRoutine("k", routine)).toContain("\nk:\n"),
  },
  run: {
    bad: [[[{}, [], wave()], "bv"], [[concrete, 5, wave()], "code"], [[concrete, [{ op: "v_nope", ops: [] }], wave()], "code[0].op"], [[concrete, [], {}], "st"], [[concrete, [], { ...wave(), wave: 16 }], "st"], [[concrete, [], wave(), { stepLimit: 0 }], "opts.stepLimit"], [[concrete, [], wave(), { steps: 1 }], "opts"]],
    good: () => expect(lib.run(concrete, [], wave()).status).toBe("ok"),
  },
  execRoutine: {
    bad: [
      [[{}, routine, inputs], "bv"],
      [[concrete, {}, inputs], "r"],
      [[concrete, routine, 5], "inp"],
      [[concrete, routine, { src: { a: a }, active: u(1) }], "inp.src.b"],
      [[concrete, routine, { src: { a: lanes(u(1, 8)), b: lanes(b) }, active: u(1) }], "inp.src.a[0]"],
      [[concrete, routine, { src: { a: lanes(a).slice(1), b: lanes(b) }, active: u(1) }], "inp.src.a"],
      [[concrete, routine, { ...inputs, active: 1 }], "inp.active"],
      [[concrete, routine, { ...inputs, pPrior: 5 }], "inp.pPrior"],
      [[concrete, lib.lowerRoutine({ ...spec, guarded: true }, t, "isa"), inputs], "inp.guard"],
      [[concrete, { ...routine, layout: {} }, inputs], "r"],
      [[concrete, routine, inputs, { salt: -1 }], "opts.salt"],
      [[concrete, routine, inputs, { stepLimit: 1.5 }], "opts.stepLimit"],
      [[concrete, routine, inputs, { bogus: 1 }], "opts"],
    ],
    good: () => expect(lib.execRoutine(concrete, routine, inputs).status).toBe("ok"),
  },
  record: { bad: [[["v_nope"], "mnemonic"], [[42], "mnemonic"]], good: () => expect(lib.record("v_bfe_i32").mnemonic).toBe("v_bfe_i32") },

  // The portable IR.
  lowerPortable: { bad: [[[{}, "isa"], "spec"], [[spec, "nope"], "profile"], [[spec], "profile"]], good: () => expect(lib.lowerPortable(matchSpec, "isa").fn.name).toBeTypeOf("string") },
  portableRulesFor: { bad: [[[{ form: SZEXT }], "spec.kinds"], [[42], "spec"]], good: () => expect(lib.portableRulesFor(spec).length).toBeGreaterThan(0) },
  evalPir: {
    bad: [[[{}, concrete, pirArgs], "fn"], [[pir, {}, pirArgs], "bv"], [[pir, concrete, {}], "args."], [[pir, concrete, { ...pirArgs, zz: u(0) }], "args"]],
    good: () => expect(Object.keys(lib.evalPir(pir, concrete, pirArgs))).toEqual(pir.results.map((r) => r.name)),
  },
  evalPirConcrete: {
    bad: [[["x", {}], "fn"], [[pir, 5], "args"], [[pir, Object.fromEntries(pir.params.map((p) => [p.name, 1]))], "args."]],
    good: () => expect(Object.keys(lib.evalPirConcrete(pir, Object.fromEntries(pir.params.map((p) => [p.name, 0n]))))).toEqual(pir.results.map((r) => r.name)),
  },
  printJsModule: {
    bad: [[[42], "routines"], [[[{ name: "1x", fn: pir, header: "" }]], "routines[0].name"], [[[{ name: "f", fn: {}, header: "" }]], "routines[0].fn"], [[[], { format: 1 }], "opts.format"], [[[], { pretty: true }], "opts"]],
    good: async () => expect(await lib.printJsModule([{ name: "f", fn: pir, header: "h" }], { format: false })).toContain("function f("),
  },
  printCModule: {
    bad: [[[{}], "routines"], [[[{ name: "f", fn: pir, header: 5 }]], "routines[0].header"], [[[], { static: "yes" }], "opts.static"], [[[{ name: "f", fn: pir, header: "" }], { guards: [] }], "opts.guards"]],
    good: () => expect(lib.printCModule([{ name: "f", fn: pir, header: "h" }], { format: false })).toContain(" f("),
  },

  // Checking and proving.
  verify: {
    bad: [
      [["x", [js]], "specs"],
      [[[{ spec, profile: "isa", warps: 0 }], [js]], "specs[0].warps"],
      [[[{ spec, profile: "isa", warps: -5 }], [js]], "specs[0].warps"],
      [[[{ spec, profile: "isa", warps: 1e9 }], [js]], "specs[0].warps"],
      [[[{ spec, profile: "isa", warps: 1.5 }], [js]], "specs[0].warps"],
      [[[{ spec: { ...spec, form: { op: "szext", mode: "x", type: "s32" } }, profile: "isa" }], [js]], "specs[0].spec.form"],
      [[[{ profile: "isa" }], [js]], "specs[0].spec"],
      [[[{ spec, profile: "sm80" }], [js]], "specs[0].profile"],
      [[[{ spec, profile: "isa", wraps: 5 }], [js]], "specs[0]"],
      [[[{ spec, profile: "isa" }], [{ kind: "amdgpu" }]], "targets[0].mcpu"],
      [[[{ spec, profile: "isa" }], [{ kind: "pir" }]], "targets[0]"],
      [[[{ spec, profile: "isa" }], js], "targets"],
      [[[{ spec, profile: "isa" }], [js], { seed: -1 }], "opts.seed"],
      // 0 is refused as the CLI's --seed refuses it (it would alias the generator's seed 0x6d2b79f5).
      [[[{ spec, profile: "isa" }], [js], { seed: 0 }], "opts.seed"],
      [[[{ spec, profile: "isa" }], [js], { random: 1e9 }], "opts.random"],
      [[[{ spec, profile: "isa" }], [js], { warps: 0 }], "opts.warps"],
      [[[{ spec, profile: "isa" }], [js], { compiledWarps: "half" }], "opts.compiledWarps"],
      [[[{ spec, profile: "isa" }], [js], { wraps: 5 }], "opts"],
    ],
    good: async () => {
      // A warp routine on 2 warps, a scalar one with no random cases (its fixed ones run): each row tested on what ran, n > 0.
      const rows = await lib.verify([{ spec: matchSpec, profile: "isa", warps: 2 }, { spec, profile: "sm90" }], [{ kind: "amdgpu", mcpu: "gfx1100" }], { random: 0, seed: 1 });
      expect(rows.length).toBeGreaterThan(1);
      for (const r of rows) expect(r.verdict.status === "tested" && r.verdict.n > 0, JSON.stringify(r.verdict)).toBe(true);
    },
  },
  runVectors: {
    bad: [
      [["x", "isa"], "vectors"],
      [[[{}], "isa"], "vectors[0]"],
      [[vectors, "nope"], "profile"],
      [[vectors, "isa", 5], "targets"],
      [[vectors, "isa", { amdgpu: ["gfx1"] }], "targets.amdgpu[0]"],
      [[vectors, "isa", { jss: true }], "targets"],
      [[vectors, "isa", [{ kind: "pir" }]], "targets[0]"],
    ],
    good: async () => expect((await lib.runVectors(vectors, "isa", { js: true, ref: true })).passed).toBe(2),
  },
  rulesFor: {
    bad: [[[spec, { kind: "llvm", mcpu: "gfx942" }, "isa"], "target"], [[spec, { kind: "hip", mcpu: "gfx942" }, "isa"], "target"], [[spec, PIR, "x"], "profile"], [[{ ...spec, form: { ...SZEXT, type: "u64" } }, PIR, "isa"], "spec.form"]],
    good: () => expect(lib.rulesFor(spec, { kind: "c" }, "isa").length).toBeGreaterThan(0),
  },
  proveRoutine: {
    bad: [
      [[{}, PIR, "isa", rule], "spec"],
      [[spec, { kind: "hip", mcpu: "gfx942" }, "isa", rule], "target"],
      [[spec, PIR, "nope", rule], "profile"],
      [[spec, PIR, "isa", { name: "x" }], "rule"],
      [[spec, PIR, "isa", lib.rulesFor(spec, PIR, "isa")[0], { timeoutMs: 0 }], "opts.timeoutMs"],
      [[spec, PIR, "isa", lib.rulesFor(spec, PIR, "isa")[0], { bugLanes: 17 }], "opts.bugLanes"],
      [[spec, PIR, "isa", lib.rulesFor(spec, PIR, "isa")[0], { timeout: 5 }], "opts"],
    ],
    good: "a proof loads z3 (seconds): test/library.test.ts proves through proveRoutine with rulesFor's rule",
  },
  proveMany: {
    bad: [
      [[42], "items"],
      [[[{ spec, target: PIR, profile: "isa", rule: "nope" }]], "items[0].rule"],
      [[[{ spec, target: { kind: "js" }, profile: "isa", rule: "x" }]], "items[0].target"],
      [[[{ spec, target: PIR, profile: "isa" }]], "items[0].rule"],
      [[[], { workers: 0 }], "opts.workers"],
      [[[], { workers: 1.5 }], "opts.workers"],
      [[[], { timeoutMs: -1 }], "opts.timeoutMs"],
      [[[], { env: {} }], "opts"],
    ],
    good: async () => expect(await lib.proveMany([], { workers: 1 })).toEqual([]),
  },
  matrixRows: { bad: [[["nope"], "family"], [["szext", 0], "every"], [["szext", 1.5], "every"], [["szext", "2"], "every"]], good: () => expect(lib.matrixRows("szext", 2).length).toBeGreaterThan(0) },
  amdgpu: { bad: [[[42], "mcpu"], [["gfx1"], "mcpu"], [[], "mcpu"], [["gfx942", 1], "takes"]], good: () => expect(lib.amdgpu("gfx942")).toEqual({ kind: "amdgpu", mcpu: "gfx942" }) },
};

/** Calls `f(...args)`; the TypeError it throws or rejects with (an Error if it returned). */
async function failure(f: (...args: unknown[]) => unknown, args: unknown[]): Promise<unknown> {
  try {
    await f(...args);
  } catch (e) {
    return e;
  }
  return new Error("returned");
}

describe("every export of src/index.ts has a case", () => {
  it("no export without one, no case without an export; the listed non-functions are what they say", () => {
    const keys = Object.keys(lib).sort();
    expect(keys.filter((k) => !(k in CASES) && !(k in NOT_CHECKED)), "exports without a case").toEqual([]);
    expect([...Object.keys(CASES), ...Object.keys(NOT_CHECKED)].filter((k) => !keys.includes(k)), "cases without an export").toEqual([]);
    for (const k of Object.keys(CASES)) expect(typeof L[k], k).toBe("function");
    for (const k of Object.keys(NOT_CHECKED)) expect(typeof L[k] !== "function" || /^class\b/.test(String(L[k])), `${k} is a plain function: give it a case`).toBe(true);
    // The constants the checks accept names from cannot be changed by a caller.
    for (const k of ["FAMILIES", "PROFILES", "MCPUS", "TARGETS", "PIR", "concrete"]) expect(Object.isFrozen(L[k]), `${k} frozen`).toBe(true);
    for (const x of Object.values(TARGETS)) expect(Object.isFrozen(x)).toBe(true);
  });
});

describe.each(Object.keys(CASES))("%s", (name) => {
  const c = CASES[name]!;
  it("refuses bad arguments with a TypeError naming the argument", async () => {
    for (const [args, arg] of c.bad) {
      const e = await failure(L[name]!, args);
      const where = `${name}(${args.map((x) => (typeof x === "object" && x !== null ? "{…}" : String(x))).join(", ")})`;
      expect(e, where).toBeInstanceOf(TypeError);
      expect((e as Error).message, where).toMatch(new RegExp(`^${name}${arg === "takes" ? " takes " : `: ${arg.replace(/[[\].]/g, "\\$&")}`}`));
    }
  });
  it(typeof c.good === "string" ? `good arguments: ${c.good}` : "accepts good arguments", async () => {
    if (typeof c.good === "function") await c.good();
  });
});

describe("verify never reports tested where nothing ran", () => {
  it("warps 0, -5 and 1e9 are refused before anything runs (1e9 used to end the process with a heap abort)", async () => {
    for (const warps of [0, -5, 1e9]) await expect(lib.verify([{ spec: matchSpec, profile: "isa", warps }], [{ kind: "js" }])).rejects.toThrow(/^verify: specs\[0\]\.warps must be an integer in \[1, 100000\]/);
  });
  it("a spec whose form is not a form is refused, not 'tested'", async () => {
    await expect(lib.verify([{ spec: { ...spec, form: { op: "szext" } as never }, profile: "isa" }], [{ kind: "js" }])).rejects.toThrow(/^verify: specs\[0\]\.spec\.form must be a legal szext form|^verify: specs\[0\]\.spec\.form must be a legal form/);
  });
  it("the messages list the registries' names", () => {
    expect(() => lib.formsOf("nope" as never)).toThrow(new TypeError(`formsOf: family must be one of ${lib.FAMILIES.join(", ")}, not 'nope'`));
    expect(() => lib.lowerRoutine(spec, undefined as never, "isa")).toThrow(`lowerRoutine: t must be one of TARGETS (TARGETS.gfx942, …: ${lib.MCPUS.join(", ")}), not undefined`);
    expect(() => lib.rulesFor(spec, { kind: "hip", mcpu: "gfx942" } as never, "isa")).toThrow(/proved by `ptx-lower verify --prove`/);
  });
});
