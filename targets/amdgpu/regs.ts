/**
 * @fileoverview The five AMDGPU processors ptx-lower targets, their operand rules, and the
 * warp ↔ wavefront mapping, stated once.
 *
 * Mapping: one PTX warp is one wavefront, laneid i = wave lane i for i in 0..31. On wave64
 * processors lanes 32..63 are inactive: `exec[63:32]` is 0 at every routine entry, so a
 * 32-bit membermask read as a 64-bit lane mask may have any high half.
 *
 * Operand rules (AMD "Vega", "CDNA3", "RDNA2", "RDNA3" ISA manuals, VOP3 encoding and
 * constant-bus sections; confirmed with llvm-mc-19, ../shared/notes/amdgpu.md §7):
 *   gfx9 family (gfx900, gfx90a, gfx942): no literal in VOP3; one scalar operand (SGPR or
 *     literal) per VALU instruction; gfx90a/gfx942 need even-aligned VGPR pairs.
 *   gfx10+ (gfx1030, gfx1100): one literal in VOP3; two scalar operands.
 */

export type Mcpu = "gfx900" | "gfx90a" | "gfx942" | "gfx1030" | "gfx1100";
export const MCPUS: readonly Mcpu[] = Object.freeze(["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100"]);

export interface Target {
  mcpu: Mcpu;
  /** Wave size: 64 on the gfx9 family, 32 (the default mode) on gfx10/gfx11. */
  wave: 32 | 64;
  /** ISA generation. */
  gen: 9 | 10 | 11;
  /** VOP3 may carry one 32-bit literal. */
  vop3Literal: boolean;
  /** Scalar operands (SGPRs and literals) one VALU instruction may read. */
  constantBus: 1 | 2;
  /** VGPR pairs must start at an even register. */
  alignedVgprPairs: boolean;
  /** SDWA operand selects exist (GFX9 and GFX10; RDNA3 has none). */
  sdwa: boolean;
}

export const TARGETS: Record<Mcpu, Target> = {
  gfx900: { mcpu: "gfx900", wave: 64, gen: 9, vop3Literal: false, constantBus: 1, alignedVgprPairs: false, sdwa: true },
  gfx90a: { mcpu: "gfx90a", wave: 64, gen: 9, vop3Literal: false, constantBus: 1, alignedVgprPairs: true, sdwa: true },
  gfx942: { mcpu: "gfx942", wave: 64, gen: 9, vop3Literal: false, constantBus: 1, alignedVgprPairs: true, sdwa: true },
  gfx1030: { mcpu: "gfx1030", wave: 32, gen: 10, vop3Literal: true, constantBus: 2, alignedVgprPairs: false, sdwa: true },
  gfx1100: { mcpu: "gfx1100", wave: 32, gen: 11, vop3Literal: true, constantBus: 2, alignedVgprPairs: false, sdwa: false },
};
// The library exports MCPUS and TARGETS: frozen, so that no caller can change what the checks accept.
for (const t of Object.values(TARGETS)) Object.freeze(t);
Object.freeze(TARGETS);

export function isMcpu(x: string): x is Mcpu {
  return (MCPUS as readonly string[]).includes(x);
}

/** Inline integer constants (no literal needed): −16..64 (AMD ISA manuals, "inline constants"). */
export function isInlineConstant(value: bigint): boolean {
  const s = BigInt.asIntN(32, value);
  return s >= -16n && s <= 64n;
}
