// PIR: vshl .clamp written with JavaScript's own count masking (x << (b & 31)): b = 32 shifts
// by 0 instead of giving 0. JS's masking must never stand in for the ISA's meaning.
import { scalarRoutine } from "../../../targets/portable/stage.js";
import type { BrokenCase } from "./case.js";
import { v } from "./case.js";

export const broken: BrokenCase = {
  target: "pir",
  spec: {
    form: { op: "vshl", dtype: "u32", atype: "u32", sat: false, mode: "clamp", asel: null, bsel: null, tail: { kind: "op2", op2: "add" } },
    kinds: { a: v, b: v, c: v },
    guarded: false,
  },
  profile: "sm90",
  why: "(b & 31) is JS's masking, not .clamp",
  expect: { kind: "value" },
  rule: {
    name: "pir_vshl_clamp_add_js_mask",
    prio: 0,
    why: "broken on purpose: " + "(b & 31) is JS's masking, not .clamp",
    when: () => true,
    build: (spec) => scalarRoutine(spec, (P, { a, b, c }) => P.add(P.bin("shl", a, P.and(b, P.c(31, 32))), c)),
  },
};
