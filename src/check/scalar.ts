/**
 * @fileoverview The differential checker for scalar forms (szext, vshl/vshr): the reference
 * semantics against one lowering's executor, over the cases of src/check/inputs.ts.
 */
import type { Form, Profile } from "../ir/forms.js";
import type { CV } from "../sem/bv.js";
import { concrete, u } from "../sem/bv.js";
import type { BV, Defined } from "../sem/bv.js";
import type { ScalarSemantics } from "../family/types.js";
import { familyOf } from "../families/index.js";
import { formName } from "../ir/forms.js";
import { guarded } from "../sem/guard.js";
import type { ScalarCase } from "./inputs.js";

/** The reference semantics of a scalar form (its family's), at the given profile, run on `bv`. */
export function scalarSemantics<V, B>(bv: BV<V, B>, f: Form, profile: Profile, a: V, b: V, c: V): Defined<V, B> {
  const fam = familyOf(f);
  if (fam.shape !== "scalar") throw new Error(`${formName(f)} is a warp form`);
  return (fam.semantics as ScalarSemantics<Form>)(bv, f, profile, a, b, c);
}

/** The expected d of a case: the reference, or the prior d where the guard is false. */
export function expectedScalar(f: Form, profile: Profile, x: ScalarCase): bigint {
  return guarded(
    x.g,
    () => scalarSemantics(concrete, f, profile, u(x.a), u(x.b), u(x.c)).value.x,
    () => x.dPrior!,
  );
}

/** Runs cases through an executor; returns d per case. */
export type ScalarExecutor = (cases: ScalarCase[]) => Promise<bigint[]>;

/** Result of checking one lowering on a case list. */
export interface ScalarCheck {
  n: number;
  /** First failing case, if any. */
  failure?: { case: ScalarCase; expected: bigint; got: bigint | string };
  /** Largest dynamic instruction count seen (AMDGPU only). */
  maxSteps?: number;
}

/** A failure that is not a wrong value (contract, step limit, crash). */
export class CheckFailure extends Error {
  constructor(
    readonly at: ScalarCase,
    message: string,
  ) {
    super(message);
  }
}

/** Checks `exec` against the reference on `cases`; stops at the first mismatch. */
export async function checkScalar(f: Form, profile: Profile, exec: ScalarExecutor, cases: ScalarCase[]): Promise<ScalarCheck> {
  let got: bigint[];
  try {
    got = await exec(cases);
  } catch (e) {
    if (e instanceof CheckFailure) return { n: 0, failure: { case: e.at, expected: expectedScalar(f, profile, e.at), got: e.message } };
    throw e;
  }
  for (let i = 0; i < cases.length; i++) {
    const want = expectedScalar(f, profile, cases[i]!);
    if (got[i] !== want) return { n: i, failure: { case: cases[i]!, expected: want, got: got[i]! } };
  }
  return { n: cases.length };
}
