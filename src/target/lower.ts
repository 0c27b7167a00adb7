/**
 * @fileoverview What src/lower.ts (the main job) needs from the output targets: each target
 * lowers and prints a module's routines. Implemented by targets/amdgpu/module.ts and
 * targets/portable/module.ts (JS and C), registered by src/compose.ts.
 */
import type { Profile } from "../ir/forms.js";
import type { FamilyInst, RoutineSpec } from "../ir/ir.js";

/**
 * Types the targets contribute to the public API, by declaration merging (a target adds a
 * field: targets/amdgpu/module.ts `mcpu` and `amdgpu`, targets/portable/module.ts `pir`),
 * so that src/ names them without importing targets/.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface TargetTypes {}

/** An AMDGPU processor name (`gfx942`); a string where no AMDGPU target is compiled in. */
export type McpuName = TargetTypes extends { mcpu: infer M } ? M : string;

/** Target-specific details of a lowered routine (`amdgpu`: the sequence; `pir`: the portable IR). */
export type RoutineDetails = { [K in Exclude<keyof TargetTypes, "mcpu">]?: TargetTypes[K] };

/** One routine of a module and the occurrences it serves. */
export interface ModuleRoutine {
  name: string;
  spec: RoutineSpec;
  insts: FamilyInst[];
}

/** A lowered routine: the rule used, the static count where the target has one, and the target's details. */
export type LoweredRoutine = { name: string; spec: RoutineSpec; rule: string; insts: FamilyInst[]; count?: number } & RoutineDetails;

/** A module to lower for one target. */
export interface ModuleLowering {
  routines: readonly ModuleRoutine[];
  profile: Profile;
  /** AMDGPU processor (AMDGPU only; default gfx942). */
  mcpu?: string;
  /** The banner lines (the target comments them out in its own syntax). */
  banner: string[];
  /** The `file:line:col  text` of each occurrence, for the `serves:` lines. */
  served(insts: FamilyInst[]): string[];
  /**
   * The language of the source the output serves (HIP header only; default `cuda`): `cuda`,
   * HIP device functions and the CUDA-signature drop-ins (C++); `opencl`, OpenCL C for
   * AMDGPU, no drop-ins (targets/hip/print.ts `HipPrintOptions`). Other targets ignore it.
   */
  language?: "cuda" | "opencl";
  /** Define `ptxl_warpSize` (CUDA's 32), what `ptx-lower port` rewrites `warpSize` to (HIP header only; default false). */
  warpSize?: boolean;
  /**
   * AMDGPU only: every routine's operands in these registers (targets/amdgpu/assign.ts
   * `RegisterAssignment`: `{ a: "v7", b: "s4", d: "v2" }`, or `"virtual"`), instead of the
   * routine contract's.
   */
  regs?: OperandRegisters;
  /** AMDGPU only, with `regs`: the scratch budget or registers (targets/amdgpu/assign.ts `ScratchBudget`). */
  scratch?: ScratchRegisters;
}

/** Operand registers by operand name (`a`, `b`, `c`, `membermask`, `d`, `guard`, `dPrior`), or `"virtual"`. */
export type OperandRegisters = Readonly<Record<string, string>> | "virtual";

/** Scratch registers per class: a budget (a count), or the registers (`["v20", "v[24:31]"]`). */
export interface ScratchRegisters {
  vgprs?: number | readonly string[];
  sgprs?: number | readonly string[];
}

/** The output targets of `lowerModule` (src/lower.ts), in `--target all` order. */
export const OUTPUT_TARGETS = ["amdgpu", "js", "c", "hip", "llvm"] as const;
export type OutputTarget = (typeof OUTPUT_TARGETS)[number];

/** One output target. */
export interface OutputTargetService {
  readonly name: string;
  /** The banner's description of the target (`amdgpu gfx942 (wave64)`, `js`). */
  describe(mcpu?: string): string;
  /**
   * Why this target has no lowering of a routine yet, or null: the message of the warning
   * `lowerModule` gives at each occurrence it leaves out (issue 15: the warp-level family on
   * AMDGPU, HIP and LLVM IR — `no AMDGPU lowering for shfl.sync yet (issue 15)`). Absent: every
   * routine is lowered.
   */
  missing?(spec: RoutineSpec): string | null;
  lowerModule(m: ModuleLowering): Promise<{ text: string; routines: LoweredRoutine[] }>;
  /**
   * Loads the target's implementation where it is imported at its first use
   * (src/compose_outputs.ts): `lowerModule` does so itself; `describe` and `missing` need it
   * done first (src/lower.ts awaits it). Absent: nothing to load.
   */
  load?(): Promise<void>;
}

export interface LowerServices {
  /** The output targets, in `--target all` order. */
  readonly targets: readonly OutputTargetService[];
  /** The AMDGPU processors. */
  readonly mcpus: readonly string[];
}

