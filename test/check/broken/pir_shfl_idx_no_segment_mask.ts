// PIR shfl.sync.idx: c's segment mask (bits 12..8) ignored, the source lane b[4:0] taken over
// the whole warp: a width-16 broadcast (CUDA's `__shfl_sync(m, v, k, 16)`, c = 0x101f) reads
// lane k of the first half in the second half too, not lane 16 + k.
import type { PStmt } from "../../../targets/portable/pir.js";
import { u32 } from "../../../targets/portable/pir.js";
import type { BrokenCase } from "./case.js";
import { imm, s, v } from "./case.js";
import { warpLevelRoutine } from "../../../targets/portable/rules/warp.js";

export const broken: BrokenCase = {
  target: "pir",
  spec: { form: { op: "shfl", sync: true, mode: "idx", type: "b32", dest: "d" }, kinds: { a: v, b: s, c: imm(0x101f), membermask: imm(0xffffffff) }, guarded: false },
  profile: "isa",
  why: "the segment mask c[12:8] is ignored: lane b[4:0] of the whole warp, not of the lane's segment",
  expect: { kind: "value", what: "Value mismatch (d[" },
  rule: {
    name: "pir_shfl_idx_whole_warp",
    prio: 0,
    why: "broken on purpose: the segment mask c[12:8] is ignored",
    when: () => true,
    build: (spec) =>
      warpLevelRoutine(spec, (P, x) => {
        const k = P.ref("k", u32);
        const src = P.and(x.src("b", x.i), P.c(31, 32));
        const pre: PStmt[] = [
          { s: "var", name: "got", value: x.src("a", P.c(0, 32)) },
          { s: "for", index: "k", n: 32, body: [{ s: "set", name: "got", value: P.select(P.cmp("eq", src, k), x.src("a", k), P.ref("got", u32)) }] },
        ];
        return { pre, d: P.ref("got", u32) };
      }),
  },
};
