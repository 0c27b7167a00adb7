/**
 * @fileoverview The ptx-lower library API. Nothing here prints or exits: bad input comes
 * back as diagnostics (`Diagnostic`, `formatDiagnostic`), lowering gaps as thrown errors.
 * Every function checks its arguments first (src/api.ts, src/check/api.ts, with the checks
 * of src/args.ts): a wrong one is a `TypeError` naming the function, the argument and what
 * it accepts. test/library_args.test.ts walks every export.
 */
export type { BV, CV, Defined, Traced } from "./sem/bv.js";
export { concrete } from "./sem/bv.js";
export { traced, note, u, showCV, szext, vsh, partSelectSignExtend, matchSync } from "./api.js";
export type { MatchWarp, MatchResult } from "./sem/match_sync.js";

// The targets, through the composition root (src/compose.ts): no other file under src/ imports targets/.
export type { Mcpu, Target, AmdRoutine, WaveState } from "./compose.js";
export { MCPUS, TARGETS, RECORDS } from "./compose.js";
export { lowerRoutine, lowerWithRule, applicableRules, printRoutine, run, execRoutine, record, lowerPortable, portableRulesFor, evalPir, evalPirConcrete, printJsModule, printCModule } from "./api.js";

export type { Form, SzextForm, VshForm, MatchForm, Family, Profile, Sel, VshTail, MatchDest } from "./ir/forms.js";
export { FAMILIES, PROFILES } from "./ir/forms.js";
export { formsOf, szextForms, vshForms, matchForms, formName, formId } from "./api.js";
export type { FamilyInst, PtxOperand, Loc, RoutineSpec, OperandKind, SourceName } from "./ir/ir.js";
export { routineName, sourcesOf } from "./api.js";
export type { ParsedModule } from "./ir/build.js";
export { parseModule } from "./api.js";
export type { Diagnostic } from "./diag.js";
export { PtxLowerError } from "./diag.js";
export { formatDiagnostic, routineSpecs } from "./api.js";

export type { LowerOptions, LoweredModule, ModuleRoutine, OutputTarget } from "./lower.js";
export { lowerModule, collectRoutines } from "./api.js";
export type { PortIntrinsic, PortOptions, PortResult, PortStatement } from "./port/rewrite.js";
export { portSource } from "./api.js";

export type { Vector, VectorReport, CheckTargets } from "./check/vectors.js";
export { readVectors } from "./api.js";
export type { VerifyRow, VerifyTarget, Verdict, VerifyOptions } from "./check/verify.js";
// One target vocabulary ({ kind: "amdgpu", mcpu } | { kind: "js" } | { kind: "c" }, and
// "ref" / "pir" where they mean something) and checked arguments: src/check/api.ts.
export type { LibraryTarget } from "./check/api.js";
export { verify, runVectors, proveRoutine, rulesFor } from "./check/api.js";

// Proof (z3): one routine, or many on a worker pool with identical queries shared.
export type { ProveTarget, ProveOptions, AnyRule } from "./check/prove.js";
export type { Verdict as ProofVerdict } from "./check/prove.js";
export { PIR, amdgpu } from "./check/api.js";
export type { ProveItem, ItemResult, ManyOptions } from "./check/prove_worker.js";
export { proveMany, matrixRows } from "./check/api.js";
