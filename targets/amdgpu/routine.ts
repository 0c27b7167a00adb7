/**
 * @fileoverview The routine contract (ABI) of AMDGPU routines, the builder rules emit
 * through, and operand legalisation.
 *
 * Contract (design.md appendix, unchanged): a routine is an inline fragment that falls
 * through at its end. Divergent sources are in VGPRs from v0 upward in PTX operand order
 * (a, b, c, membermask), 64-bit values in even-aligned pairs; uniform sources in SGPRs from
 * s0 upward (pairs aligned). `d` is returned in v0 and `p` as a lane mask in vcc (wave64) /
 * vcc_lo (wave32). `exec` at entry is the active mask and is the same at exit. A guarded
 * routine also takes the guard as a lane mask in the first free SGPR (pair) after the
 * uniform sources, and the prior `d` in the first free VGPR after the divergent sources;
 * lanes whose guard is false get the prior `d` in v0 and keep their bit of `p`. Scratch:
 * the VGPRs and SGPRs listed in the routine's header (a window above the inputs), vcc and
 * scc. Nothing else is written.
 *
 * Predicates (issue 15: vote's `a` and `.pred` d). A predicate source, divergent or uniform,
 * is a lane mask (bit i = lane i's predicate) in the next SGPR (pair, aligned on wave64) after
 * the uniform sources, before the guard; an immediate one is folded. A predicate `d` is a lane
 * mask in vcc (wave64) / vcc_lo (wave32), as `p` is, and a guarded routine's lanes whose guard
 * is false keep their bit of it (the prior d is vcc at entry). Why masks and not 0/1 in a
 * VGPR: a PTX predicate is one bit per lane, which AMDGPU keeps in lane masks (VOPC writes
 * vcc, v_cndmask and s_and_saveexec read one; LLVM lowers i1 the same way), so a vote is SALU
 * work on the mask and its producer and consumer need no v_cndmask / v_cmp to convert.
 */
import type { Form } from "../../src/ir/forms.js";
import { familyOf, formWrites } from "../../src/ir/forms.js";
import type { OperandKind, RoutineSpec, SourceName } from "../../src/ir/ir.js";
import { sourcesOf } from "../../src/ir/ir.js";
import type { WarpForm } from "../../src/ir/warp_forms.js";
import { warpPredicateDest, warpPredicateSource } from "../../src/ir/warp_forms.js";
import type { Mnemonic } from "./isa/index.js";
import { record } from "./isa/index.js";
import type { MInst, MLine, MOp } from "./minst.js";
import { imm, isLabel, printOp, s, v } from "./minst.js";
import type { Target } from "./regs.js";
import type { Boundary } from "./hazards.js";
import { contractBoundary } from "./hazards.js";
import { isInlineConstant } from "./regs.js";

/** A warp-level form: a member of the warp family (the registry, src/families/index.ts). */
export function isWarpForm(f: Form): f is WarpForm {
  return familyOf(f) === "warp";
}

/** The sources a routine's form reads, in PTX order (the registry's). */
export function routineSources(f: Form): SourceName[] {
  return sourcesOf(f);
}

/** The results a routine's form writes (the registry's). */
export function routineWrites(f: Form): { d: boolean; p: boolean } {
  return formWrites(f);
}

/** Sources that are predicates, held as lane masks (file comment): vote's `a`. */
export function predicateSources(f: Form): SourceName[] {
  return isWarpForm(f) && warpPredicateSource(f) ? ["a"] : [];
}

/** `d` is a predicate, returned as a lane mask in vcc / vcc_lo (file comment). */
export function predicateDest(f: Form): boolean {
  return isWarpForm(f) && warpPredicateDest(f);
}

/** Where each input of a routine lives. */
export interface Layout {
  /** Source operands: a VGPR (pair), an SGPR (pair) or an immediate. */
  src: Partial<Record<SourceName, MOp>>;
  /** Sources held as lane masks (predicates; `src` gives the SGPR (pair)). */
  masks: SourceName[];
  /** v0, or vcc / vcc_lo for a predicate d. */
  d: MOp;
  /** Guard lane mask and prior d, for guarded routines. */
  guard?: MOp;
  dPrior?: MOp;
  /** First VGPR / SGPR of the scratch window. */
  vScratch: number;
  sScratch: number;
}

/**
 * The contract's outputs of a routine: `d` in v0 (unless sunk), `p` in vcc / vcc_lo (`.all`
 * with p). With a `layout` (a caller's registers, targets/amdgpu/assign.ts), `d` is its `d`.
 */
export function outputsOf(spec: RoutineSpec, t: Target, layout?: Layout): { d?: MOp; p?: MOp } {
  const w = routineWrites(spec.form);
  const mask: MOp = { k: t.wave === 64 ? "vcc" : "vcc_lo" };
  return { ...(w.d ? { d: predicateDest(spec.form) ? mask : (layout?.d ?? v(0)) } : {}), ...(w.p ? { p: mask } : {}) };
}

/**
 * The hazard boundary of a routine under the contract (targets/amdgpu/hazards.ts
 * `contractBoundary`): its register inputs — sources, guard mask, prior d, and prior p (or a
 * prior predicate d) in vcc when a guarded routine writes one — and its outputs.
 */
export function boundaryOf(spec: RoutineSpec, layout: Layout, t: Target): Boundary {
  const outs = outputsOf(spec, t, layout);
  const ins: MOp[] = Object.values(layout.src).filter((o) => o.k !== "imm");
  if (layout.guard) ins.push(layout.guard);
  if (layout.dPrior?.k === "v") ins.push(layout.dPrior);
  // A guarded routine's prior p, or its prior predicate d, is vcc at entry.
  const priorMask = spec.guarded ? (outs.p ?? (outs.d?.k === "v" ? undefined : outs.d)) : undefined;
  if (priorMask) ins.push(priorMask);
  return contractBoundary(ins, [outs.d, outs.p].filter((o): o is MOp => o !== undefined), t.wave);
}

/** Width in bits of a source operand of a form. */
export function sourceWidth(f: Form, name: SourceName): 32 | 64 {
  return f.op === "match" && f.type === "b64" && name === "a" ? 64 : 32;
}

/** Computes the contract's register layout for a routine. */
export function layoutOf(spec: RoutineSpec, t: Target): Layout {
  let vn = 0;
  let sn = 0;
  const src: Layout["src"] = {};
  const masks = predicateSources(spec.form);
  for (const name of routineSources(spec.form)) {
    const kind: OperandKind = spec.kinds[name] ?? { kind: "v" };
    if (masks.includes(name) && kind.kind !== "imm") continue; // after the uniform sources
    const count = sourceWidth(spec.form, name) === 64 ? 2 : 1;
    if (kind.kind === "imm") src[name] = imm(kind.value);
    else if (kind.kind === "v") {
      if (count === 2) vn += vn & 1;
      src[name] = v(vn, count);
      vn += count;
    } else {
      if (count === 2) sn += sn & 1;
      src[name] = s(sn, count);
      sn += count;
    }
  }
  const mc = t.wave === 64 ? 2 : 1;
  for (const name of masks) {
    if (spec.kinds[name]?.kind === "imm") continue;
    if (mc === 2) sn += sn & 1;
    src[name] = s(sn, mc);
    sn += mc;
  }
  const predD = predicateDest(spec.form);
  const vccMask: MOp = { k: t.wave === 64 ? "vcc" : "vcc_lo" };
  const layout: Layout = { src, masks: masks.filter((n) => spec.kinds[n]?.kind !== "imm"), d: predD ? vccMask : v(0), vScratch: 0, sScratch: 0 };
  if (spec.guarded) {
    if (mc === 2) sn += sn & 1;
    layout.guard = s(sn, mc);
    sn += mc;
    if (predD) layout.dPrior = vccMask;
    else {
      layout.dPrior = v(vn);
      vn += 1;
    }
  }
  layout.vScratch = Math.max(vn, 1);
  layout.sScratch = sn;
  return layout;
}

/**
 * What rules emit through: contract registers, scratch allocation, wave-size spelling, and
 * generation-specific mnemonics. `finish()` legalises operands for the target.
 */
export class Builder {
  readonly lines: MLine[] = [];
  readonly layout: Layout;
  private vNext: number;
  private sNext: number;
  private labels = 0;
  vUsed = 0;
  sUsed = 0;

  constructor(
    readonly spec: RoutineSpec,
    readonly t: Target,
    readonly rule: string,
  ) {
    this.layout = layoutOf(spec, t);
    this.vNext = this.layout.vScratch;
    this.sNext = this.layout.sScratch;
  }

  get wave(): 32 | 64 {
    return this.t.wave;
  }
  /** A source operand as laid out by the contract. */
  src(name: SourceName): MOp {
    const o = this.layout.src[name];
    if (!o) throw new Error(`${this.rule}: form has no source ${name}`);
    return o;
  }
  kind(name: SourceName): OperandKind["kind"] {
    return this.spec.kinds[name]?.kind ?? "v";
  }
  immOf(name: SourceName): bigint | undefined {
    const k = this.spec.kinds[name];
    return k?.kind === "imm" ? k.value : undefined;
  }
  /** Where the body writes d: v0, or a scratch VGPR while the guard wrapper still needs v0. */
  dBody: MOp | null = null;
  d(): MOp {
    return this.dBody ?? this.layout.d;
  }
  private inV = new Map<SourceName, MOp>();
  /**
   * Source `name` in a VGPR: itself when divergent, else copied once into a scratch VGPR
   * (for sequences that read a uniform or literal source more often than the gfx9 operand
   * rules allow; one v_mov instead of one per use).
   */
  vgprOf(name: SourceName): MOp {
    const o = this.src(name);
    if (o.k === "v") return o;
    let t = this.inV.get(name);
    if (!t) {
      t = this.vtmp(o.k === "s" ? o.count : 1);
      if (o.k === "s" && o.count === 2) {
        this.emit("v_mov_b32", v(t.k === "v" ? t.n : 0), s(o.n));
        this.emit("v_mov_b32", v(t.k === "v" ? t.n + 1 : 0), s(o.n + 1));
      } else this.emit("v_mov_b32", t, o);
      this.inV.set(name, t);
    }
    return t;
  }
  vtmp(count: 1 | 2 = 1): MOp {
    if (count === 2) this.vNext += this.vNext & 1;
    const o = v(this.vNext, count);
    this.vNext += count;
    this.vUsed = this.vNext;
    return o;
  }
  stmp(count: 1 | 2 = 1): MOp {
    if (count === 2) this.sNext += this.sNext & 1;
    const o = s(this.sNext, count);
    this.sNext += count;
    this.sUsed = this.sNext;
    return o;
  }
  /** A scratch lane mask: an SGPR pair in wave64, one SGPR in wave32. */
  mask(): MOp {
    return this.stmp(this.wave === 64 ? 2 : 1);
  }
  vcc(): MOp {
    return { k: this.wave === 64 ? "vcc" : "vcc_lo" };
  }
  exec(): MOp {
    return { k: this.wave === 64 ? "exec" : "exec_lo" };
  }
  /** A lane-mask mnemonic for the wave size: `w("s_and")` → `s_and_b64` / `s_and_b32`. */
  w<B extends string>(base: B): `${B}_b32` | `${B}_b64` {
    return `${base}_b${this.wave}`;
  }
  /** The carry-less add / sub of this generation. */
  get vAdd(): "v_add_u32" | "v_add_nc_u32" {
    return this.t.gen === 9 ? "v_add_u32" : "v_add_nc_u32";
  }
  get vSub(): "v_sub_u32" | "v_sub_nc_u32" {
    return this.t.gen === 9 ? "v_sub_u32" : "v_sub_nc_u32";
  }
  newLabel(): string {
    return `.L${this.labels++}`;
  }
  place(label: string): void {
    this.lines.push({ label });
  }
  emit(op: Mnemonic, ...ops: MOp[]): void {
    record(op); // unknown mnemonics fail at emission, not at run time
    this.lines.push({ op, ops, rule: this.rule });
  }
  /** Emitted lines after operand legalisation (see `legalize`). */
  finish(): MLine[] {
    return legalize(this, this.lines);
  }
}

const VALU = new Set(["VOP1", "VOP2", "VOP3", "VOPC", "VOP3B"]);

function isScalarOperand(o: MOp): boolean {
  return o.k === "s" || o.k === "vcc" || o.k === "vcc_lo" || o.k === "vcc_hi" || o.k === "exec" || o.k === "exec_lo" || o.k === "exec_hi" || (o.k === "imm" && !isInlineConstant(o.value));
}

/**
 * Makes each VALU instruction legal for the target, so that llvm-mc accepts it:
 * picks the `_e32` encoding where it exists and fits (src1 a VGPR; VOPC into vcc;
 * v_cndmask on vcc), else `_e64`; on the gfx9 family moves a VOP3 literal into a scratch
 * VGPR (no VOP3 literal) and keeps one scalar operand per instruction (the constant bus;
 * an implicit vcc read counts), moving the others into VGPRs with v_mov_b32.
 */
export function legalize(m: Builder, lines: MLine[]): MLine[] {
  const out: MLine[] = [];
  for (const line of lines) {
    if (isLabel(line)) {
      out.push(line);
      continue;
    }
    const rec = record(line.op);
    // Cross-lane reads (v_readlane/v_readfirstlane) write an SGPR and have their own operand rules.
    if (!VALU.has(rec.enc) || rec.crossLane) {
      out.push(line);
      continue;
    }
    const ops = [...line.ops];
    const srcIdx = rec.ops.map((sp, i) => (sp.out ? -1 : i)).filter((i) => i >= 0);
    const isMaskOp = (i: number) => rec.ops[i]!.w === "wave";
    const movIn = (i: number) => {
      const o = ops[i]!;
      const t = m.vtmp(o.k === "s" && o.count === 2 ? 2 : 1);
      if (t.k === "v" && t.count === 2 && o.k === "s") {
        out.push({ op: "v_mov_b32", ops: [v(t.n), s(o.n)], enc: "e32", rule: line.rule });
        out.push({ op: "v_mov_b32", ops: [v(t.n + 1), s(o.n + 1)], enc: "e32", rule: line.rule });
      } else out.push({ op: "v_mov_b32", ops: [t, o], enc: "e32", rule: line.rule });
      ops[i] = t;
    };
    // Encoding: e32 needs src1 in a VGPR, VOPC's sdst = vcc, cndmask's mask = vcc.
    const encoding = (): "e32" | "e64" | undefined => {
      if (rec.enc !== "VOP1" && rec.enc !== "VOP2" && rec.enc !== "VOPC") return undefined;
      const vccName = m.wave === 64 ? "vcc" : "vcc_lo";
      const src1 = srcIdx[1] !== undefined ? ops[srcIdx[1]] : undefined;
      const okSrc1 = src1 === undefined || src1.k === "v";
      const okDst = rec.enc !== "VOPC" || ops[0]!.k === vccName;
      const okMask = line.op !== "v_cndmask_b32" || ops[3]!.k === vccName;
      return okSrc1 && okDst && okMask ? "e32" : "e64";
    };
    const enc = encoding();
    const vop3 = enc === "e64" || rec.enc === "VOP3" || rec.enc === "VOP3B";
    // Literals: none in VOP3 on gfx9; at most one anywhere.
    let literals = 0;
    for (const i of srcIdx) {
      const o = ops[i]!;
      if (o.k === "imm" && !isInlineConstant(o.value)) {
        if ((vop3 && !m.t.vop3Literal) || literals >= 1) movIn(i);
        else literals++;
      }
    }
    // Constant bus: distinct scalar operands (an SGPR read twice counts once).
    const seen = new Set<string>();
    if (enc === "e32" && line.op === "v_cndmask_b32") seen.add(m.wave === 64 ? "vcc" : "vcc_lo");
    // Lane masks cannot move to a VGPR: they claim the bus first.
    for (const i of [...srcIdx].sort((x, y) => Number(isMaskOp(y)) - Number(isMaskOp(x)))) {
      const o = ops[i]!;
      if (!isScalarOperand(o)) continue;
      const key = printOp(o);
      if (seen.has(key)) continue;
      if (seen.size >= m.t.constantBus && !isMaskOp(i)) movIn(i);
      else seen.add(key);
    }
    // Moves may have put src1 in a VGPR: e32 (never stricter on operands) when it now fits.
    const fixed: MInst = { op: line.op, ops, rule: line.rule };
    const finalEnc = encoding();
    if (finalEnc) fixed.enc = finalEnc;
    out.push(fixed);
  }
  return out;
}
