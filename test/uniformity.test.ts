/**
 * passes/uniformity.ts: the operand kinds (immediate / uniform SGPR / divergent VGPR) of
 * every family instruction, following the rules in the pass's file comment.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { formatDiagnostic } from "../src/diag.js";
import { parseModule } from "../src/ir/build.js";
import { formId } from "../src/ir/forms.js";
import { routineName } from "../src/ir/ir.js";
import { analyzeUniformity, routineSpecs } from "../passes/uniformity.js";

const SHARED = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "shared", "ptx");

const DECLS = `
	.reg .pred 	%p<8>;
	.reg .b32 	%r<40>;
	.reg .b64 	%rd<16>;`;

/** A kernel (or `.func` when `header` says so) with the given body. */
function mod(body: string, header = ".visible .entry k(.param .u32 k_n, .param .u64 k_ptr)"): string {
  return `.version 8.7\n.target sm_90\n.address_size 64\n.const .align 4 .u32 table[4];\n.global .u32 counter;\n${header}\n{${DECLS}\n${body}\n}\n`;
}

/** Routine names of the family instructions, in order. */
function routines(src: string): string[] {
  const m = parseModule(src, "u.ptx");
  // Warnings allowed (an unknown opcode gets one); no errors.
  expect(m.diagnostics.filter((d) => d.severity === "error").map(formatDiagnostic)).toEqual([]);
  const specs = routineSpecs(m);
  expect(specs.size).toBe(m.insts.length);
  return m.insts.map((i) => routineName(specs.get(i)!, formId));
}

/** The kind letters (`s`, `v`, `imm…`) of the last family instruction's sources. */
function kinds(body: string, header?: string): string {
  const names = routines(mod(body, header));
  const last = names[names.length - 1];
  return last.slice(last.indexOf("__") + 2);
}

describe("sources of uniform values", () => {
  it("immediates are folded in with their truncated value", () => {
    expect(kinds("szext.clamp.s32 %r1, 5, 0x100000007;")).toBe("imm5_imm7");
    expect(kinds("match.any.sync.b64 %r1, -1, 0xffffffff;")).toBe("imm0xffffffffffffffff_imm0xffffffff");
  });

  it("kernel parameters loaded with ld.param are uniform", () => {
    expect(kinds("ld.param.u32 %r1, [k_n];\nld.param.u32 %r2, [k_n+4];\nszext.wrap.u32 %r3, %r1, %r2;")).toBe("s_s");
  });

  it("uniform special registers and ALU results of uniform values are uniform", () => {
    expect(
      kinds(`mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mad.lo.s32 %r3, %r1, %r2, 7;
	shl.b32 %r4, %r3, 2;
	mov.u32 %r5, %nctaid.y;
	selp.b32 %r6, %r4, %r5, %p1;
	setp.lt.u32 %p1, %r3, %r5;
	vshl.u32.u32.u32.clamp.add %r7, %r4, %r5, %r6;`),
    ).toBe("s_s_s");
  });

  it("loads from constant memory through a uniform address are uniform", () => {
    expect(kinds("mov.u64 %rd1, table;\nld.const.u32 %r1, [%rd1+4];\nszext.clamp.u32 %r2, %r1, 3;")).toBe("s_imm3");
  });

  it("the carry flag carries divergence from add.cc to addc", () => {
    expect(kinds("ld.param.u32 %r1, [k_n];\nadd.cc.u32 %r2, %r1, 1;\naddc.u32 %r3, %r1, 0;\nszext.clamp.u32 %r4, %r3, %r2;")).toBe("s_s");
    expect(kinds("mov.u32 %r1, %tid.x;\nadd.cc.u32 %r2, %r1, 1;\nld.param.u32 %r5, [k_n];\naddc.u32 %r3, %r5, 0;\nszext.clamp.u32 %r4, %r3, %r5;")).toBe("v_s");
  });
});

describe("sources of divergent values", () => {
  it.each([
    ["%tid", "mov.u32 %r1, %tid.x;"],
    ["%laneid", "mov.u32 %r1, %laneid;"],
    ["%lanemask_lt", "mov.u32 %r1, %lanemask_lt;"],
    ["%clock", "mov.u32 %r1, %clock;"],
    ["activemask", "activemask.b32 %r1;"],
    ["ld.global (uniform address)", "ld.param.u64 %rd1, [k_ptr];\nld.global.u32 %r1, [%rd1];"],
    ["ld.shared", "ld.shared.u32 %r1, [%r2];"],
    ["generic ld", "ld.param.u64 %rd1, [k_ptr];\nld.u32 %r1, [%rd1];"],
    ["ld.const (divergent address)", "mov.u32 %r2, %tid.x;\nld.const.u32 %r1, [%r2];"],
    ["atom", "atom.global.add.u32 %r1, [counter], 1;"],
    ["shfl", "shfl.sync.idx.b32 %r1|%p1, %r2, 0, 31, -1;"],
    ["vote", "vote.sync.ballot.b32 %r1, %p1, -1;"],
    ["match", "match.any.sync.b32 %r1, 5, -1;"],
    ["an unknown opcode", "frobnicate.b32 %r1, 3;"],
    ["a register never written", ""],
  ])("%s", (_what, def) => {
    expect(kinds(`${def}\nszext.clamp.s32 %r3, %r1, 4;`)).toBe("v_imm4");
  });

  it("divergence flows through ALU chains, in any program order (fixed point)", () => {
    expect(
      kinds(`bra.uni $L2;
$L1:
	add.s32 %r5, %r4, 1;
	szext.clamp.s32 %r6, %r5, %r9;
	ret;
$L2:
	mov.u32 %r9, 3;
	mov.u32 %r1, %tid.x;
	mul.lo.s32 %r2, %r1, 3;
	xor.b32 %r3, %r2, 1;
	mov.b32 %r4, %r3;
	bra.uni $L1;`),
    ).toBe("v_s");
  });

  it("a register is divergent if any of its writes is (registers are not SSA)", () => {
    expect(kinds("mov.u32 %r1, 7;\nszext.clamp.s32 %r3, %r1, 4;\nmov.u32 %r1, %tid.x;")).toBe("v_imm4");
  });

  it("ld.param inside a .func reads the caller's (divergent) values, and .func register parameters are divergent", () => {
    const header = ".visible .func (.reg .b32 d) f(.reg .b32 a, .param .b32 f_p)";
    expect(kinds("ld.param.b32 %r1, [f_p];\nszext.clamp.s32 d, %r1, 3;", header)).toBe("v_imm3");
    expect(kinds("szext.clamp.s32 d, a, 3;", header)).toBe("v_imm3");
    expect(kinds("mov.u32 %r1, %ctaid.x;\nszext.clamp.s32 d, %r1, 3;", header)).toBe("s_imm3");
  });
});

describe("control flow", () => {
  it("a write under a divergent guard is divergent; under a uniform guard it is not", () => {
    const divergentGuard = "mov.u32 %r1, %tid.x;\nsetp.eq.u32 %p1, %r1, 0;\nmov.u32 %r2, 5;\n@%p1 mov.u32 %r2, 6;";
    expect(kinds(`${divergentGuard}\nszext.clamp.s32 %r3, %r2, 4;`)).toBe("v_imm4");
    const uniformGuard = "ld.param.u32 %r1, [k_n];\nsetp.eq.u32 %p1, %r1, 0;\nmov.u32 %r2, 5;\n@%p1 mov.u32 %r2, 6;";
    expect(kinds(`${uniformGuard}\nszext.clamp.s32 %r3, %r2, 4;`)).toBe("s_imm4");
  });

  const ifThen = (guardSrc: string) => `${guardSrc}
	setp.eq.u32 %p1, %r1, 0;
	mov.u32 %r2, 5;
	@%p1 bra $L__join;
	mov.u32 %r2, 6;
	mov.u32 %r4, 9;
	szext.clamp.s32 %r5, %r4, 1;
$L__join:
	mov.u32 %r3, 7;
	szext.clamp.s32 %r6, %r2, %r3;`;

  it("writes between a divergent branch and its join are divergent, writes after the join are not", () => {
    // Inside the region %r4 is uniform among the lanes there, but it is written under divergence.
    expect(routines(mod(ifThen("mov.u32 %r1, %laneid;")))).toEqual(["szext_clamp_s32__v_imm1", "szext_clamp_s32__v_s"]);
    expect(analyzeUniformity(parseModule(mod(ifThen("mov.u32 %r1, %laneid;")), "u.ptx"))[0].divergentBranches).toEqual([14]);
  });

  it("a uniform branch does not make anything divergent", () => {
    expect(routines(mod(ifThen("ld.param.u32 %r1, [k_n];")))).toEqual(["szext_clamp_s32__s_imm1", "szext_clamp_s32__s_s"]);
  });

  it("a loop with a divergent exit makes its body's writes divergent", () => {
    const src = mod(`mov.u32 %r1, %tid.x;
	mov.u32 %r2, 0;
$L__loop:
	add.s32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, %r1;
	@%p1 bra $L__loop;
	mov.u32 %r3, 4;
	szext.clamp.s32 %r4, %r2, %r3;`);
    expect(routines(src)).toEqual(["szext_clamp_s32__v_s"]);
  });

  it("a loop with a uniform trip count keeps its counter uniform", () => {
    const src = mod(`ld.param.u32 %r1, [k_n];
	mov.u32 %r2, 0;
$L__loop:
	add.s32 %r2, %r2, 1;
	setp.lt.u32 %p1, %r2, %r1;
	@%p1 bra $L__loop;
	szext.clamp.s32 %r4, %r2, %r1;`);
    expect(routines(src)).toEqual(["szext_clamp_s32__s_s"]);
  });

  it("a divergent branch nested in a uniform one reaches only its own region", () => {
    const src = mod(`ld.param.u32 %r1, [k_n];
	mov.u32 %r9, %tid.x;
	setp.eq.u32 %p1, %r1, 0;
	setp.eq.u32 %p2, %r9, 0;
	@%p1 bra $L__out;
	@%p2 bra $L__in;
	mov.u32 %r2, 1;
$L__in:
	mov.u32 %r3, 2;
	szext.clamp.s32 %r4, %r3, %r2;
$L__out:
	mov.u32 %r5, 3;
	szext.clamp.s32 %r6, %r5, %r3;`);
    expect(routines(src)).toEqual(["szext_clamp_s32__s_v", "szext_clamp_s32__s_s"]);
  });

  it("an early divergent exit (@p ret) opens no region: the lanes that leave see nothing", () => {
    const src = mod(`mov.u32 %r1, %tid.x;
	setp.ge.u32 %p1, %r1, 16;
	@%p1 ret;
	ld.param.u32 %r2, [k_n];
	szext.clamp.s32 %r4, %r2, 3;`);
    expect(routines(src)).toEqual(["szext_clamp_s32__s_imm3"]);
  });

  it("a divergent indirect branch (brx.idx) opens a region over its targets", () => {
    const src = mod(`mov.u32 %r1, %laneid;
	mov.u32 %r2, 1;
ts: .branchtargets $L__a, $L__b;
	brx.idx %r1, ts;
$L__a:
	mov.u32 %r2, 3;
	bra.uni $L__b;
$L__b:
	szext.clamp.s32 %r4, %r2, 3;`);
    expect(routines(src)).toEqual(["szext_clamp_s32__v_imm3"]);
  });
});

describe("routine specs", () => {
  it("records guards and only the sources a form reads", () => {
    const m = parseModule(
      mod(`ld.param.u32 %r1, [k_n];
	@%p1 vshl.u32.u32.u32.clamp %r2, %r1, 3, %r9;
	vshl.u32.u32.u32.clamp.add %r2, %r1, 3, %r9;
	@!%p1 match.all.sync.b32 %r3|%p2, %r1, -1;`),
      "u.ptx",
    );
    const specs = routineSpecs(m);
    const [none, add, all] = m.insts.map((i) => specs.get(i)!);
    expect(none).toMatchObject({ guarded: true, kinds: { a: { kind: "s" }, b: { kind: "imm", value: 3n } } });
    expect(none.kinds.c).toBeUndefined(); // the 4th operand of tail = none is not read
    expect(add).toMatchObject({ guarded: false, kinds: { a: { kind: "s" }, b: { kind: "imm", value: 3n }, c: { kind: "v" } } });
    expect(all).toMatchObject({ guarded: true, kinds: { a: { kind: "s" }, membermask: { kind: "imm", value: 0xffffffffn } } });
  });

  it("resolves registers by scope: an inner block's register shadows the outer one", () => {
    const src = mod(`mov.u32 %r1, %tid.x;
	{
	.reg .b32 %r1;
	mov.u32 %r1, %ctaid.x;
	szext.clamp.s32 %r2, %r1, 3;
	}
	szext.clamp.s32 %r2, %r1, 3;`);
    expect(routines(src)).toEqual(["szext_clamp_s32__s_imm3", "szext_clamp_s32__v_imm3"]);
  });

  it("gives the expected routines for the real nvcc modules", () => {
    const of = (f: string) => routines(readFileSync(join(SHARED, f), "utf8"));
    // mask `mov.u32 %r3, -1` is uniform; `activemask` is divergent; values loaded per thread are divergent.
    // The activemask and shfl.sync are the warp-level family's (issue 15): activemask reads no source;
    // c05's leader broadcast reads a per-thread lane index b and the match result as its membermask.
    expect(of("c01_match_any_b32.sm_90.ptx")).toEqual([
      "match_any_sync_b32__v_s",
      "activemask_b32__",
      "match_any_sync_b32__v_v",
      "match_any_sync_b32__v_s",
      "match_any_sync_b32__v_s",
    ]);
    expect(of("c03_match_all.sm_90.ptx")).toEqual(["match_all_sync_b32_dp__v_s", "match_all_sync_b64_dp__v_s", "activemask_b32__", "match_all_sync_b32_dp__v_v"]);
    expect(of("c05_warp_aggregated_atomic.sm_90.ptx")).toEqual(["activemask_b32__", "match_any_sync_b64__v_v", "shfl_sync_idx_b32_dp__v_v_s_v"]);
    expect(of("c09_szext_forms.sm_90.ptx").slice(4)).toEqual(["szext_wrap_s32__imm5_v", "szext_clamp_u32__v_imm7", "szext_wrap_u32__imm0xffffffff_imm0"]);
    const c08 = of("c08_vshl_vshr_forms.sm_90.ptx");
    expect(c08).toHaveLength(17);
    expect(c08[16]).toBe("vshl_u32_u32_clamp_add__v_imm4_v");
  });

  it("an early exit (`@p bra` to a block that only returns) leaves the rest uniform", () => {
    const m = parseModule(
      [
        ".version 9.0", ".target sm_90", ".address_size 64",
        ".visible .entry k(.param .u32 n)", "{", "  .reg .pred %p<2>;", "  .reg .b32 %r<8>;",
        "  ld.param.u32 %r1, [n];", "  mov.u32 %r2, %tid.x;", "  setp.ge.u32 %p1, %r2, %r1;", "  @%p1 bra $L_end;",
        "  mov.u32 %r3, -1;", "  match.all.sync.b32 %r4|%p1, %r2, %r3;", "  setp.eq.u32 %p1, %r2, 0;", "  @%p1 bra $L_mid;",
        "  mov.u32 %r5, 7;", "$L_mid:", "  match.any.sync.b32 %r6, %r2, %r5;",
        "$L_end:", "  ret;", "}",
      ].join("\n"),
      "k.ptx",
    );
    const specs = routineSpecs(m);
    expect(specs.get(m.insts[0]!)!.kinds.membermask).toEqual({ kind: "s" });
    // %r5 is written only on one side of a divergent branch and read after the join.
    expect(specs.get(m.insts[1]!)!.kinds.membermask).toEqual({ kind: "v" });
  });

  it("finds the divergent branch of the histogram kernel", () => {
    const m = parseModule(readFileSync(join(SHARED, "c05_warp_aggregated_atomic.sm_90.ptx"), "utf8"), "c05.ptx");
    const [h] = analyzeUniformity(m);
    expect(h.name).toBe("histogram");
    // Line 36 (`@%p1 bra $L__BB0_4`, a block that only returns) is an early exit, not a split.
    expect(h.divergentBranches.sort((a, b) => a - b)).toEqual([55]);
    expect(h.divergentNames.has("%r1")).toBe(true); // %tid.x
    expect(h.divergentNames.has("%r9")).toBe(false); // %ntid.x
    expect(h.divergentNames.has("%r10")).toBe(false); // %ctaid.x
  });
});
