/**
 * @fileoverview Type-level test (checked by `tsc --noEmit -p .`, which CI runs): a family
 * definition lacking any piece does not compile, and neither does a target rule table or an
 * opcode map lacking a family. Each `@ts-expect-error` fails the build if that piece stops
 * being required; test/family_registry.test.ts compiles this file without the directives
 * and checks that the compiler names each missing piece.
 */
import type { Family, AnyFamily, RuleTable } from "../../src/family/types.js";
import type { Form, SzextForm } from "../../src/ir/form_types.js";
import type { FamilyName } from "../../src/families/index.js";
import type { AmdRule } from "../../targets/amdgpu/rules/rule.js";
import type { PortableRule } from "../../targets/portable/rules/index.js";
import { szext } from "../../src/families/szext.js";
import { video } from "../../src/families/video.js";
import { vop } from "../../src/families/vop.js";
import { match } from "../../src/families/match.js";
import { warp } from "../../src/families/warp.js";
import { szextRules } from "../../targets/amdgpu/rules/szext.js";
import { vshRules } from "../../targets/amdgpu/rules/vsh.js";
import { szextRules as pSzext } from "../../targets/portable/rules/szext.js";
import { vshRules as pVsh } from "../../targets/portable/rules/vsh.js";
import { warpRules as pWarp } from "../../targets/portable/rules/warp.js";

type Sz = Family<"szext", SzextForm, "scalar">;

// The complete definition compiles.
export const complete: Sz = szext;

const { name: _0, ...no_name } = szext;
// @ts-expect-error — piece 'name' is missing
export const missing_name: Sz = no_name;

const { ops: _1, ...no_ops } = szext;
// @ts-expect-error — piece 'ops' is missing
export const missing_ops: Sz = no_ops;

const { spelled: _2, ...no_spelled } = szext;
// @ts-expect-error — piece 'spelled' is missing
export const missing_spelled: Sz = no_spelled;

const { shape: _3, ...no_shape } = szext;
// @ts-expect-error — piece 'shape' is missing
export const missing_shape: Sz = no_shape;

const { profileSensitive: _4, ...no_profileSensitive } = szext;
// @ts-expect-error — piece 'profileSensitive' is missing
export const missing_profileSensitive: Sz = no_profileSensitive;

const { forms: _5, ...no_forms } = szext;
// @ts-expect-error — piece 'forms' is missing
export const missing_forms: Sz = no_forms;

const { formName: _6, ...no_formName } = szext;
// @ts-expect-error — piece 'formName' is missing
export const missing_formName: Sz = no_formName;

const { formId: _7, ...no_formId } = szext;
// @ts-expect-error — piece 'formId' is missing
export const missing_formId: Sz = no_formId;

const { sources: _8, ...no_sources } = szext;
// @ts-expect-error — piece 'sources' is missing
export const missing_sources: Sz = no_sources;

const { writes: _9, ...no_writes } = szext;
// @ts-expect-error — piece 'writes' is missing
export const missing_writes: Sz = no_writes;

const { asmOpcode: _10, ...no_asmOpcode } = szext;
// @ts-expect-error — piece 'asmOpcode' is missing
export const missing_asmOpcode: Sz = no_asmOpcode;

const { syntax: _11, ...no_syntax } = szext;
// @ts-expect-error — piece 'syntax' is missing
export const missing_syntax: Sz = no_syntax;

const { validate: _12, ...no_validate } = szext;
// @ts-expect-error — piece 'validate' is missing
export const missing_validate: Sz = no_validate;

const { semantics: _13, ...no_semantics } = szext;
// @ts-expect-error — piece 'semantics' is missing
export const missing_semantics: Sz = no_semantics;

const { cases: _14, ...no_cases } = szext;
// @ts-expect-error — piece 'cases' is missing
export const missing_cases: Sz = no_cases;

const { sample: _15, ...no_sample } = szext;
// @ts-expect-error — piece 'sample' is missing
export const missing_sample: Sz = no_sample;

const { verifyKinds: _16, ...no_verifyKinds } = szext;
// @ts-expect-error — piece 'verifyKinds' is missing
export const missing_verifyKinds: Sz = no_verifyKinds;

const { mainKind: _17, ...no_mainKind } = szext;
// @ts-expect-error — piece 'mainKind' is missing
export const missing_mainKind: Sz = no_mainKind;

const { proveSpecs: _18, ...no_proveSpecs } = szext;
// @ts-expect-error — piece 'proveSpecs' is missing
export const missing_proveSpecs: Sz = no_proveSpecs;

// A target's rule table without a family's rules.
// @ts-expect-error — piece 'match' is missing (AMDGPU rule table)
export const amdTable: RuleTable<{ [K in FamilyName]: AmdRule }> = { szext: szextRules as AmdRule[], video: vshRules as AmdRule[], vop: [], warp: [] };
// @ts-expect-error — piece 'match' is missing (portable rule table)
export const portableTable: RuleTable<{ [K in FamilyName]: PortableRule }> = { szext: pSzext, video: pVsh, vop: [], warp: pWarp };

// An opcode without a family (the shape of src/families/index.ts BY_OP).
// @ts-expect-error — piece 'vshr' is missing (opcode map)
export const byOp: { readonly [Op in Form["op"]]: AnyFamily } = { szext, vshl: video, vadd: vop, vsub: vop, vabsdiff: vop, vmin: vop, vmax: vop, vset: vop, match, shfl: warp, vote: warp, redux: warp, activemask: warp, "bar.warp": warp };
