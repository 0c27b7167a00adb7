/**
 * @fileoverview Caller-chosen registers (issue 37 item 6): a lowered routine moved from the
 * routine contract's fixed registers (targets/amdgpu/routine.ts `layoutOf`: sources from v0 /
 * s0 up, `d` in v0, scratch above the inputs) to the registers a caller names, or to virtual
 * registers (`%v0`, `%s2`) for the caller's register allocator.
 *
 * One renaming, applied once over the lowered machine IR (`MLine`s): every register unit of
 * the contract routine is mapped to one of the caller's (an input to the caller's register for
 * it, the contract's `d` to the caller's `d`, each scratch register to one of the caller's
 * scratch registers, pairs to aligned pairs). The checker (./exec.ts), the prover (./prove/),
 * the hazard checker (./hazards.ts) and LLVM's recognizer (./mir.ts) then run unchanged on the
 * renamed routine: they read the inputs from its `layout`, `d` from `layout.d`, and the
 * scratch set from `assigned` (./contract.ts `dVgpr`, `isScratch`, `regSpan`).
 *
 * The contract puts `d` in v0, which is also the first divergent source's register (or, in a
 * guarded routine with no divergent source, the prior d's). Where the caller's registers do
 * not keep that sharing, the renaming alone cannot be a function, and a copy is added:
 *   - the caller's `d` is free (no input is there): `v_mov_b32 D, A` first (A: the caller's
 *     register of the source the contract holds in v0), and the body's v0 becomes D;
 *   - the caller's `d` is another input's register (d aliases a source): the body's v0 becomes
 *     a scratch VGPR T (loaded by `v_mov_b32 T, A` where v0 was an input), and
 *     `v_mov_b32 D, T` last — unless the routine is straight-line and reads that source for the
 *     last time no later than it first writes v0, where D itself is used (no copy): the sequence
 *     never reads the source after writing d;
 *   - a 64-bit source in v[0:1] (match.sync .b64): a scratch pair, and the copy of d last.
 * The copies run under the routine's entry exec (the contract restores exec before its end),
 * so they write the active lanes only; d's inactive lanes are unchanged as the contract says.
 * A copy-in leaves the scratch register's inactive lanes unset: the reference never reads a
 * source in a lane that does not execute (src/sem/warp.ts: such a read is undefined). The
 * renamed routine is checked and proved as it is, not by argument (test/regs.test.ts).
 *
 * Virtual registers: the text names `%vN` / `%sN` (not accepted by llvm-mc); the lines keep
 * the contract's registers, which are the concrete allocation the hazard check, LLVM's
 * recognizer, the checker and the prover run on. A caller's allocator that keeps each virtual
 * register's live range in one physical register (pairs as aligned pairs), and preserves the
 * hazard distances (no instruction inserted between them), keeps those verdicts.
 *
 * Fixed in every assignment: `p` and a predicate `d` (vote's) in vcc / vcc_lo, `vcc` and `scc`
 * as scratch, `exec` as the active mask. Registers: v0–v255; s0–s101 (gfx9), s0–s105 (gfx10+).
 */
import type { SourceName } from "../../src/ir/ir.js";
import { show as shown } from "../../src/quote.js";
import type { AmdRoutine } from "./lower.js";
import { staticCycles } from "./lower.js";
import type { MLine, MOp } from "./minst.js";
import { isLabel, printOp, s as sreg, v as vreg } from "./minst.js";
import { boundaryOf, outputsOf, routineSources } from "./routine.js";
import type { Layout } from "./routine.js";
import { checkHazards, formatViolation, hazardTarget, insertWaits, shift64HighRegHits } from "./hazards.js";
import { record } from "./isa/index.js";
import { isRead } from "./isa/record.js";

/** The operands a caller places: the form's sources, `d`, and a guarded routine's `guard` and prior `d` (`dPrior`). */
export type OperandName = SourceName | "d" | "guard" | "dPrior";

/**
 * Where a caller wants the operands: a register per operand in llvm-mc's spelling (`v7`, `s4`,
 * 64-bit values and wave64 lane masks as aligned pairs `v[8:9]`, `s[4:5]`), or `"virtual"`.
 */
export type RegisterAssignment = Partial<Record<OperandName, string>> | "virtual";

/**
 * Scratch registers the routine may use besides its operands: per class, a budget (at most
 * that many; physical ones are then the lowest-numbered registers no operand holds) or the
 * registers themselves (`["v20", "v[24:31]"]`: any of them, in that order of preference).
 * Omitted: no limit (physical: the lowest free registers).
 */
export interface ScratchBudget {
  vgprs?: number | readonly string[];
  sgprs?: number | readonly string[];
}

/** What an assignment left on a routine (`AmdRoutine.assigned`): read by the checker, the prover and the printer. */
export interface Assigned {
  /** The text names virtual registers (`%v0`); the lines hold the concrete allocation checked. */
  virtual: boolean;
  /** The VGPR whose active lanes are `d` (null: `d` is a predicate in vcc, or not written). */
  dVgpr: number | null;
  /** The scratch registers (VGPR, SGPR numbers), the copies' temporaries included. */
  vScratch: number[];
  sScratch: number[];
  /** One past the highest VGPR / SGPR the routine names. */
  vSpan: number;
  sSpan: number;
  /** Copies the assignment added (0 for a pure renaming). */
  copies: number;
  /** The contract routine it was renamed from. */
  contract: AmdRoutine;
}

type Kind = "v" | "s";
interface Reg {
  k: Kind;
  n: number;
  count: number;
}

const MAX_V = 255;
const maxS = (gen: number) => (gen >= 10 ? 105 : 101);

/**
 * Parses `v7`, `s4`, `v[8:9]`, `s[4:5]` (and, for scratch lists, any range `v[20:31]`), as the
 * assembler writes them: no spaces, no leading zeros (`v07`, ` v7` are not register names here).
 */
export function parseReg(text: string, gen: number, range = false): Reg | null {
  const m = /^([vs])(?:(0|[1-9]\d*)|\[(0|[1-9]\d*):(0|[1-9]\d*)\])$/.exec(text);
  if (!m) return null;
  const k = m[1] as Kind;
  const lo = Number(m[2] ?? m[3]);
  const hi = Number(m[2] ?? m[4]);
  const top = k === "v" ? MAX_V : maxS(gen);
  if (!Number.isSafeInteger(lo) || hi < lo || hi > top || (!range && hi - lo > 1)) return null;
  return { k, n: lo, count: hi - lo + 1 };
}

const show = (r: Reg) => printOp(r.k === "v" ? vreg(r.n, r.count as 1 | 2) : sreg(r.n, r.count as 1 | 2));
const unitsOfReg = (r: Reg) => Array.from({ length: r.count }, (_, i) => `${r.k}${r.n + i}`);
const unitsOfOp = (o: MOp): string[] => (o.k === "v" || o.k === "s" ? Array.from({ length: o.count }, (_, i) => `${o.k}${o.n + i}`) : []);

/** Registers named by a routine's lines and layout, as units (`v3`, `s4`). */
function unitsOfLines(lines: readonly MLine[]): Set<string> {
  const u = new Set<string>();
  for (const l of lines) if (!isLabel(l)) for (const o of l.ops) for (const x of unitsOfOp(o)) u.add(x);
  return u;
}

/** The contract's register inputs of a routine: name, operand, and what it must be. */
interface Input {
  name: OperandName;
  op: MOp & { k: "v" | "s" };
  /** How to describe what it needs in an error. */
  need: string;
}

/**
 * The register operands a caller places for a contract routine: name, register class (`v`,
 * `s`) and count (2: an aligned pair), `d` included when it is a VGPR (a predicate d stays in
 * vcc). For building assignments (the CLI's help, tests).
 */
export function registerOperands(r: AmdRoutine): { name: OperandName; k: Kind; count: 1 | 2 }[] {
  const out = inputsOf(r).map((i) => ({ name: i.name, k: i.op.k, count: i.op.count }));
  const d = outputsOf(r.spec, r.target).d;
  return d?.k === "v" ? [...out, { name: "d", k: "v", count: 1 }] : out;
}

function inputsOf(r: AmdRoutine): Input[] {
  const l = r.layout;
  const out: Input[] = [];
  const W = r.target.wave;
  for (const name of routineSources(r.spec.form)) {
    const o = l.src[name];
    if (!o || (o.k !== "v" && o.k !== "s")) continue;
    const width = o.count * 32;
    const need = l.masks.includes(name)
      ? `a predicate, held as a lane mask in an SGPR${W === 64 ? " pair (aligned, s[N:N+1])" : ""}`
      : o.k === "v"
        ? `divergent (one value per lane): a VGPR${width === 64 ? " pair (aligned, v[N:N+1])" : ""}`
        : `uniform: an SGPR${width === 64 ? " pair (aligned, s[N:N+1])" : ""} (make it divergent, kind "v", to pass a VGPR)`;
    out.push({ name, op: o, need });
  }
  if (l.guard && (l.guard.k === "s" || l.guard.k === "v")) out.push({ name: "guard", op: l.guard, need: `the guard, a lane mask in an SGPR${W === 64 ? " pair (aligned, s[N:N+1])" : ""}` });
  if (l.dPrior?.k === "v") out.push({ name: "dPrior", op: l.dPrior, need: "the prior d (per lane): a VGPR" });
  return out;
}

/**
 * Moves a contract routine to the caller's registers (file comment). `r` must be a routine as
 * `lowerRoutine` returns it under the contract.
 * @throws TypeError naming the operand and what it accepts: an unknown or missing operand, a
 *   register of the wrong class (a divergent source or `d` in an SGPR, a lane mask in a VGPR),
 *   width or alignment (an odd 64-bit pair), out of range, inputs that overlap, scratch
 *   registers that hold an operand, a scratch budget smaller than the sequence needs, or (gfx90a)
 *   a caller's VGPR that a 64-bit shift reads as its count in v(8k+7).
 */
export function assignRegisters(r: AmdRoutine, regs: RegisterAssignment, scratch: ScratchBudget = {}, where = "lowerRoutine"): AmdRoutine {
  if (r.assigned) throw new TypeError(`${where}: the routine already has assigned registers`);
  checkScratchShape(scratch, where);
  const t = r.target;
  const vWindow = Array.from({ length: r.vEnd - r.layout.vScratch }, (_, i) => r.layout.vScratch + i);
  const sWindow = Array.from({ length: r.sEnd - r.layout.sScratch }, (_, i) => r.layout.sScratch + i);
  const outs = outputsOf(r.spec, t);
  const span = (lines: readonly MLine[], layout: Layout) => {
    const all = [...unitsOfLines(lines), ...Object.values(layout.src).flatMap(unitsOfOp), ...[layout.guard, layout.dPrior, layout.d].flatMap((o) => (o ? unitsOfOp(o) : []))];
    const top = (k: Kind) => Math.max(0, ...all.filter((u) => u[0] === k).map((u) => Number(u.slice(1)) + 1));
    return { v: top("v"), s: top("s") };
  };
  if (regs === "virtual") {
    const need = { v: vWindow.length, s: sWindow.length };
    for (const k of ["v", "s"] as const) {
      const b = scratch[k === "v" ? "vgprs" : "sgprs"];
      if (typeof b !== "number" && b !== undefined) throw new TypeError(`${where}: scratch.${k === "v" ? "vgprs" : "sgprs"} with virtual registers must be a budget (a count), not a list of registers`);
      if (typeof b === "number" && b < need[k]) throw new TypeError(`${where}: scratch budget too small: the sequence needs ${need[k]} scratch ${k === "v" ? "VGPR" : "SGPR"}${need[k] === 1 ? "" : "s"}, the budget is ${b}`);
    }
    const sp = span(r.lines, r.layout);
    return { ...r, assigned: { virtual: true, dVgpr: outs.d?.k === "v" ? outs.d.n : null, vScratch: vWindow, sScratch: sWindow, vSpan: sp.v, sSpan: sp.s, copies: 0, contract: r } };
  }
  if (typeof regs !== "object" || regs === null || Array.isArray(regs)) throw new TypeError(`${where}: regs must be an object of operand registers ({ a: "v7", d: "v2" }) or "virtual", not ${String(regs)}`);

  // --- the caller's operands ---------------------------------------------------------------
  const inputs = inputsOf(r);
  const dOut = outs.d;
  const known = [...inputs.map((i) => i.name), ...(dOut?.k === "v" ? ["d"] : [])];
  for (const key of Object.keys(regs)) {
    if (known.includes(key) || (key === "d" && dOut)) continue;
    const imm = r.layout.src[key as SourceName]?.k === "imm";
    throw new TypeError(
      `${where}: regs.${key}: ${imm ? `${key} is an immediate, folded into the routine: it has no register` : `the routine has no operand '${key}'`} (its register operands: ${known.join(", ") || "none"})`,
    );
  }
  const missing = known.filter((k) => regs[k as OperandName] === undefined);
  if (missing.length) throw new TypeError(`${where}: regs is missing ${missing.map((k) => `'${k}'`).join(", ")}: every register operand of the routine needs one (its operands: ${known.join(", ")})`);
  const parseAs = (name: OperandName, text: unknown, k: Kind | "mask", count: number, need: string): Reg => {
    if (typeof text !== "string") throw new TypeError(`${where}: regs.${name} must be a register name ('v7', 's[4:5]'), not ${String(text)}`);
    const p = parseReg(text, t.gen);
    if (!p) throw new TypeError(`${where}: regs.${name}: '${text}' is not a register (v0..v${MAX_V}, s0..s${maxS(t.gen)}, pairs as v[N:N+1] / s[N:N+1])`);
    const want: Kind = k === "mask" ? "s" : k;
    if (p.k !== want) {
      if (name === "d") throw new TypeError(`${where}: regs.d: d is divergent (one value per lane): it needs a VGPR, not the SGPR ${text}`);
      throw new TypeError(`${where}: regs.${name}: ${name} is ${need}, not ${text}`);
    }
    if (p.count !== count) throw new TypeError(`${where}: regs.${name}: ${name} is ${count * 32}-bit: ${count === 2 ? `an aligned pair ${want}[N:N+1]` : `one register, ${want}N`}, not ${text}`);
    if (count === 2 && p.n % 2 !== 0) throw new TypeError(`${where}: regs.${name}: the pair ${text} is odd-aligned: 64-bit values and lane masks take an even-aligned pair (${want}[${p.n - 1}:${p.n}] or ${want}[${p.n + 1}:${p.n + 2}])`);
    return p;
  };
  const caller = new Map<OperandName, Reg>();
  for (const i of inputs) caller.set(i.name, parseAs(i.name, regs[i.name], i.op.k, i.op.count, i.need));
  if (dOut) {
    if (dOut.k !== "v") {
      const mask = printOp(dOut);
      if (regs.d !== undefined && regs.d !== mask) throw new TypeError(`${where}: regs.d: d is a predicate, returned as a lane mask in ${mask} (fixed): pass '${mask}' or leave it out, not ${String(regs.d)}`);
    } else caller.set("d", parseAs("d", regs.d, "v", 1, "divergent: a VGPR"));
  }
  // Inputs never overlap one another (each holds its own value); d may be any input's register.
  const owner = new Map<string, OperandName>();
  for (const [name, reg] of caller) {
    if (name === "d") continue;
    for (const u of unitsOfReg(reg)) {
      const o = owner.get(u);
      if (o) throw new TypeError(`${where}: regs.${o} (${regs[o]}) and regs.${name} (${regs[name]}) overlap: each input needs registers of its own (only d may share an input's register)`);
      owner.set(u, name);
    }
  }
  const operandUnits = new Set([...owner.keys(), ...(caller.get("d") ? unitsOfReg(caller.get("d")!) : [])]);

  // --- the scratch pool ----------------------------------------------------------------------
  const pool = { v: scratchPool("v", scratch.vgprs, operandUnits, t.gen, where), s: scratchPool("s", scratch.sgprs, operandUnits, t.gen, where) };
  const claimed = { v: new Set<number>(), s: new Set<number>() };
  const claim = (k: Kind, n: number): boolean => {
    if (!pool[k].list.includes(n) || claimed[k].has(n)) return false;
    claimed[k].add(n);
    return true;
  };
  /** A free scratch register (an aligned pair when count is 2), or null. `avoid`: numbers to pass over while others remain. */
  const take = (k: Kind, count: 1 | 2, avoid?: (n: number) => boolean): number | null => {
    const free = pool[k].list.filter((n) => !claimed[k].has(n) && (count === 1 || (n % 2 === 0 && pool[k].list.includes(n + 1) && !claimed[k].has(n + 1))));
    const n = free.find((x) => !avoid?.(x)) ?? free[0];
    if (n === undefined) return null;
    for (let i = 0; i < count; i++) claimed[k].add(n + i);
    return n;
  };
  const short = (k: Kind, what: string): never => {
    const b = pool[k].budget;
    const cls = k === "v" ? "VGPRs" : "SGPRs";
    throw new TypeError(
      `${where}: scratch budget too small: the sequence needs ${what} beyond its operands (the contract's routine uses ${k === "v" ? vWindow.length : sWindow.length} scratch ${cls})` +
        (b !== undefined ? `, the budget is ${b}` : pool[k].given ? `, scratch.${k === "v" ? "vgprs" : "sgprs"} gives ${pool[k].list.length} usable` : `, and no ${cls} are left`),
    );
  };

  // --- the renaming --------------------------------------------------------------------------
  const phi = new Map<string, string>();
  const unit = (k: Kind, n: number) => `${k}${n}`;
  for (const i of inputs) {
    const c = caller.get(i.name)!;
    for (let j = 0; j < i.op.count; j++) phi.set(unit(i.op.k, i.op.n + j), unit(c.k, c.n + j));
  }
  const prefix: MLine[] = [];
  const suffix: MLine[] = [];
  const copy = (to: string, from: string): MLine => ({ op: "v_mov_b32", ops: [vreg(Number(to.slice(1))), vreg(Number(from.slice(1)))], enc: "e32", rule: "registers" });
  let dVgpr: number | null = null;
  const D = caller.get("d");
  if (D && dOut?.k === "v") {
    const d = `v${D.n}`;
    dVgpr = D.n;
    const c0 = inputs.find((i) => i.op.k === "v" && unitsOfOp(i.op).includes("v0"));
    const inputAt = owner.get(d);
    const toTemp = () => {
      // The contract's v0 (and the rest of its input, if any) becomes scratch; d is copied out last.
      const count = (c0?.op.count ?? 1) as 1 | 2;
      const n = take("v", count) ?? short("v", `a scratch VGPR${count === 2 ? " pair" : ""} for d (d shares ${inputAt ? `${inputAt}'s register ${d}` : "nothing"})`);
      for (let j = 0; j < count; j++) {
        const from = phi.get(`v${j}`);
        phi.set(`v${j}`, `v${n + j}`);
        if (c0 && from) prefix.push(copy(`v${n + j}`, from));
      }
      suffix.push(copy(d, `v${n}`));
    };
    if (c0) {
      if (phi.get("v0") === d) {
        // d in the register of the source the contract keeps in v0: the contract's own sharing.
      } else if (c0.op.count === 1 && !inputAt) {
        prefix.push(copy(d, phi.get("v0")!));
        phi.set("v0", d);
      } else toTemp();
    } else if (!inputAt) phi.set("v0", d);
    else {
      const u = [...phi].find(([, x]) => x === d)![0];
      if (readsBeforeWrite(r.lines, u, "v0")) phi.set("v0", d);
      else toTemp();
    }
  }
  // Pairs: both halves of every pair operand go to an aligned pair.
  for (const l of r.lines) {
    if (isLabel(l)) continue;
    for (const o of l.ops) {
      if ((o.k !== "v" && o.k !== "s") || o.count !== 2) continue;
      const lo = unit(o.k, o.n);
      const hi = unit(o.k, o.n + 1);
      const a = phi.get(lo);
      const b = phi.get(hi);
      if (a && b) continue;
      if (a || b) {
        // One half is an input (a uniform 32-bit membermask read as a wave64 lane mask; its other half is don't-care scratch).
        const known = Number((a ?? b)!.slice(1));
        const other = a ? known + 1 : known - 1;
        const name = inputs.find((i) => unitsOfOp(i.op).includes(a ? lo : hi))?.name ?? "an operand";
        const aligned = o.k === "s" || t.alignedVgprPairs;
        if ((aligned && (a ? known : other) % 2 !== 0) || other < 0 || !claim(o.k, other))
          throw new TypeError(
            `${where}: regs.${name}: ${regs[name as OperandName]} is read as half of the pair ${o.k}[${a ? known : other}:${a ? other : known}]${o.k === "s" ? " (a wave64 lane mask)" : ""}, whose other half is scratch: give ${aligned ? `an ${a ? "even" : "odd"} ` : "a "}${o.k === "v" ? "VGPR" : "SGPR"} whose neighbour ${o.k}${other} is free for scratch`,
          );
        phi.set(a ? hi : lo, unit(o.k, other));
        continue;
      }
      const n = take(o.k, 2) ?? short(o.k, `an aligned scratch ${o.k === "v" ? "VGPR" : "SGPR"} pair`);
      phi.set(lo, unit(o.k, n));
      phi.set(hi, unit(o.k, n + 1));
    }
  }
  // Every other register the lines name is contract scratch (or v0 when d is not written).
  const counts = new Set(gfx90aShiftCounts(r));
  for (const u of [...unitsOfLines(r.lines)].sort((x, y) => Number(x.slice(1)) - Number(y.slice(1)))) {
    if (phi.has(u)) continue;
    const k = u[0] as Kind;
    // gfx90a: a 64-bit shift's count must not land in v(8k+7) (LLVM fixShift64HighRegBug).
    const n = take(k, 1, counts.has(u) ? (x) => x % 8 === 7 : undefined) ?? short(k, `more scratch ${k === "v" ? "VGPRs" : "SGPRs"} than are left (${countScratch(r, k)} in the contract's window${k === "v" && (prefix.length || suffix.length) ? ", and one for the copy of d" : ""})`);
    phi.set(u, unit(k, n));
  }
  for (const k of ["v", "s"] as const) {
    const b = pool[k].budget;
    if (b !== undefined && claimed[k].size > b)
      throw new TypeError(`${where}: scratch budget too small: the sequence needs ${claimed[k].size} scratch ${k === "v" ? "VGPRs" : "SGPRs"} with these registers${k === "v" && (prefix.length || suffix.length) ? " (one for the copy of d)" : ""}, the budget is ${b}`);
  }

  const mapOp = (o: MOp): MOp => {
    if (o.k !== "v" && o.k !== "s") return o;
    const to = phi.get(unit(o.k, o.n))!;
    return { k: o.k, n: Number(to.slice(1)), count: o.count };
  };
  const body = r.lines.map((l): MLine => (isLabel(l) ? l : { ...l, ops: l.ops.map(mapOp) }));
  const layout: Layout = {
    ...r.layout,
    src: Object.fromEntries(Object.entries(r.layout.src).map(([k, o]) => [k, o.k === "v" || o.k === "s" ? callerOp(caller.get(k as OperandName)!) : o])),
    d: D && dOut?.k === "v" ? vreg(D.n) : r.layout.d,
    ...(r.layout.guard ? { guard: callerOp(caller.get("guard")!) } : {}),
    ...(r.layout.dPrior ? { dPrior: r.layout.dPrior.k === "v" ? callerOp(caller.get("dPrior")!) : r.layout.dPrior } : {}),
  };
  const boundary = isContractBoundary(r) ? boundaryOf(r.spec, layout, t) : r.boundary;
  const ht = hazardTarget(t);
  let lines = [...prefix, ...body, ...suffix];
  // The copies (and registers that moved) may need wait states the contract's did not.
  if (checkHazards(lines, ht, boundary).length) lines = insertWaits(lines, ht, boundary, "registers");
  const hits = shift64HighRegHits(lines, ht);
  if (hits.length) {
    const who = [...caller].find(([, c]) => c.k === "v" && hits.some((h) => h >= c.n && h < c.n + c.count));
    throw new TypeError(`${where}: ${who ? `regs.${who[0]}: ${regs[who[0]]}` : `v${hits[0]}`} is the count of a 64-bit shift on gfx90a in v(8k+7), which that processor reads wrongly (LLVM fixShift64HighRegBug): choose another VGPR`);
  }
  const bad = checkHazards(lines, ht, boundary);
  if (bad.length) throw new Error(`${where}: internal error: the renamed routine breaks a hazard rule: ${bad.map(formatViolation).join("; ")}`);
  const sp = span(lines, layout);
  const nonWait = (ls: readonly MLine[]) => ls.filter((l) => !isLabel(l) && "none" in record(l.op).sem);
  return {
    ...r,
    lines,
    layout,
    boundary,
    count: staticCycles(lines),
    waits: staticCycles(nonWait(lines)),
    assigned: { virtual: false, dVgpr, vScratch: [...claimed.v].sort((x, y) => x - y), sScratch: [...claimed.s].sort((x, y) => x - y), vSpan: sp.v, sSpan: sp.s, copies: prefix.length + suffix.length, contract: r },
  };
}

function callerOp(c: Reg): MOp {
  return c.k === "v" ? vreg(c.n, c.count as 1 | 2) : sreg(c.n, c.count as 1 | 2);
}

/** Whether the routine was padded for the contract's boundary (not LLVM's function entry). */
function isContractBoundary(r: AmdRoutine): boolean {
  return r.boundary.name !== "LLVM's function entry";
}

/** Scratch registers of a class the contract's routine uses (its window). */
function countScratch(r: AmdRoutine, k: Kind): number {
  return k === "v" ? r.vEnd - r.layout.vScratch : r.sEnd - r.layout.sScratch;
}

/** VGPR units read as a 64-bit shift's count. */
function gfx90aShiftCounts(r: AmdRoutine): string[] {
  if (r.target.mcpu !== "gfx90a") return [];
  return r.lines.flatMap((l) => (isLabel(l) || !record(l.op).hazard?.shift64 || l.ops[1]?.k !== "v" ? [] : [`v${(l.ops[1] as { n: number }).n}`]));
}

/**
 * Whether, in a straight-line routine (no label), every read of unit `src` comes no later than
 * the first write of unit `d` (an instruction reads its operands before it writes): then `d`
 * may take `src`'s register, as the sequence never reads the source after writing d.
 */
function readsBeforeWrite(lines: readonly MLine[], src: string, d: string): boolean {
  if (lines.some(isLabel)) return false;
  let firstWrite = Infinity;
  let lastRead = -1;
  lines.forEach((l, i) => {
    if (isLabel(l)) return;
    const rec = record(l.op);
    l.ops.forEach((o, j) => {
      const us = unitsOfOp(o);
      const spec = rec.ops[j];
      if (spec?.out && us.includes(d)) firstWrite = Math.min(firstWrite, i);
      // A source, or a destination whose old value is read (tied), is a read.
      if ((!spec || isRead(spec)) && us.includes(src)) lastRead = Math.max(lastRead, i);
    });
  });
  return lastRead <= firstWrite;
}

interface Pool {
  list: number[];
  budget?: number;
  given: boolean;
}

function checkScratchShape(scratch: unknown, where: string): void {
  if (typeof scratch !== "object" || scratch === null || Array.isArray(scratch)) throw new TypeError(`${where}: scratch must be an object ({ vgprs, sgprs }: a count or a list of registers each), not ${String(scratch)}`);
  for (const key of Object.keys(scratch)) if (key !== "vgprs" && key !== "sgprs") throw new TypeError(`${where}: scratch.${key}: unknown field (scratch takes vgprs and sgprs)`);
}

/** The scratch registers a class may use (file comment): a budget over the free ones, or the caller's list. */
function scratchPool(k: Kind, spec: number | readonly string[] | undefined, operands: Set<string>, gen: number, where: string): Pool {
  const field = `scratch.${k === "v" ? "vgprs" : "sgprs"}`;
  const top = k === "v" ? MAX_V : maxS(gen);
  if (spec === undefined || typeof spec === "number") {
    if (spec !== undefined && !(Number.isSafeInteger(spec) && spec >= 0)) throw new TypeError(`${where}: ${field} must be a non-negative integer (a budget) or a list of registers, not ${shown(spec)}`);
    const list = Array.from({ length: top + 1 }, (_, n) => n).filter((n) => !operands.has(`${k}${n}`));
    return { list, ...(spec !== undefined ? { budget: spec } : {}), given: false };
  }
  if (!Array.isArray(spec)) throw new TypeError(`${where}: ${field} must be a budget (a count) or a list of registers (['v20', 'v[24:31]']), not ${shown(spec)}`);
  const list: number[] = [];
  for (const x of spec) {
    const p = typeof x === "string" ? parseReg(x, gen, true) : null;
    if (!p || p.k !== k) throw new TypeError(`${where}: ${field}: '${String(x)}' is not ${k === "v" ? "a VGPR" : "an SGPR"} or a range of them (${k}20, ${k}[20:31])`);
    for (let i = 0; i < p.count; i++) {
      const u = `${k}${p.n + i}`;
      if (operands.has(u)) throw new TypeError(`${where}: ${field}: ${x} holds an operand (${u}): scratch registers are written by the routine`);
      if (!list.includes(p.n + i)) list.push(p.n + i);
    }
  }
  return { list, given: true };
}

/** A register as the routine's text names it: `%v3`, `%s[4:5]` under virtual registers. */
export function regText(r: Pick<AmdRoutine, "assigned">, o: MOp): string {
  return r.assigned?.virtual && (o.k === "v" || o.k === "s") ? `%${printOp(o)}` : printOp(o);
}

/** A set of register numbers as the header's ranges: `v3..v5, v9`. */
export function rangesText(k: Kind, ns: readonly number[], virtual = false): string {
  if (!ns.length) return "none";
  const p = virtual ? "%" : "";
  const out: string[] = [];
  const sorted = [...ns].sort((a, b) => a - b);
  let lo = sorted[0]!;
  let prev = lo;
  const flush = () => out.push(lo === prev ? `${p}${k}${lo}` : `${p}${k}${lo}..${p}${k}${prev}`);
  for (const n of sorted.slice(1)) {
    if (n === prev + 1) prev = n;
    else {
      flush();
      lo = prev = n;
    }
  }
  flush();
  return out.join(", ");
}

/**
 * The renaming certificate of a routine in a caller's registers: whether its lines are the
 * contract routine's (`r.assigned.contract`) with every VGPR/SGPR unit mapped by one injective
 * map φ — the same instructions, encodings and non-register operands line by line, each pair
 * to an aligned pair — that takes the contract's layout to the routine's (each source, guard,
 * prior d, `d`) and the contract's scratch units into the routine's scratch set, where no
 * instruction names a register by number in a register (no `movrel`, `s_set_gpr_idx`, M0
 * indexing: none is in the table). Machine-checked here, line by line.
 *
 * What it carries: the interpreter (./interp.ts) reaches registers only through the operands
 * and the fixed special registers (vcc, exec, scc), which φ leaves alone, so a run of the
 * renamed routine from φ(S) is φ of the contract routine's run from S, for every state S.
 * The contract routine's proof (its sources, d and the "nothing else changes" conditions,
 * ./contract.ts, for every initial state) is then the renamed routine's proof with each
 * register read through φ. The hazard rules are not carried (distances are, but registers
 * by number are not: gfx90a's v(8k+7), a pair's other half on wave64): the renamed routine is
 * hazard-checked on its own. A routine with copies, or whose `d` shares a source's
 * register, has no certificate (φ is not injective there): it is proved as it is.
 */
export function renamingCertificate(r: AmdRoutine): { ok: true; map: Map<string, string> } | { ok: false; why: string } {
  const a = r.assigned;
  if (!a) return { ok: false, why: "the routine is in the contract's registers" };
  const c = a.contract;
  if (a.virtual) return r.lines === c.lines ? { ok: true, map: new Map() } : { ok: false, why: "virtual registers over other lines" };
  if (r.lines.length !== c.lines.length) return { ok: false, why: `${r.lines.length} lines, the contract routine has ${c.lines.length} (copies or waits added)` };
  const phi = new Map<string, string>();
  const inv = new Map<string, string>();
  const bind = (x: MOp, y: MOp | undefined): string | null => {
    if (!y || x.k !== y.k) return `operand ${printOp(x)} became ${y ? printOp(y) : "nothing"}`;
    if (x.k !== "v" && x.k !== "s") return JSON.stringify(x, (_k, v) => (typeof v === "bigint" ? `${v}` : v)) === JSON.stringify(y, (_k, v) => (typeof v === "bigint" ? `${v}` : v)) ? null : `operand ${printOp(x)} became ${printOp(y)}`;
    const yy = y as { n: number; count: number };
    if (x.count !== yy.count) return `${printOp(x)} became ${printOp(y)}`;
    if (x.count === 2 && yy.n % 2 !== 0) return `the pair ${printOp(x)} became the odd-aligned ${printOp(y)}`;
    for (let i = 0; i < x.count; i++) {
      const u = `${x.k}${x.n + i}`;
      const w = `${x.k}${yy.n + i}`;
      if ((phi.get(u) ?? w) !== w) return `${u} is renamed both ${phi.get(u)} and ${w}`;
      if ((inv.get(w) ?? u) !== u) return `${w} is the image of both ${inv.get(w)} and ${u} (not injective)`;
      phi.set(u, w);
      inv.set(w, u);
    }
    return null;
  };
  for (let i = 0; i < c.lines.length; i++) {
    const x = c.lines[i]!;
    const y = r.lines[i]!;
    if (isLabel(x) || isLabel(y)) {
      if (!(isLabel(x) && isLabel(y) && x.label === y.label)) return { ok: false, why: `line ${i}: a label differs` };
      continue;
    }
    if (x.op !== y.op || x.enc !== y.enc || x.ops.length !== y.ops.length) return { ok: false, why: `line ${i}: ${x.op} became ${y.op}` };
    if (/movrel|gpr_idx/.test(x.op)) return { ok: false, why: `line ${i}: ${x.op} indexes registers by number` };
    for (let j = 0; j < x.ops.length; j++) {
      const why = bind(x.ops[j]!, y.ops[j]);
      if (why) return { ok: false, why: `line ${i}: ${why}` };
    }
  }
  // The layout: each input and d where the renaming puts it (the operands the lines never name: bound here).
  const pairs: [string, MOp | undefined, MOp | undefined][] = [
    ...Object.entries(c.layout.src).map(([k, o]): [string, MOp | undefined, MOp | undefined] => [k, o, r.layout.src[k as SourceName]]),
    ["guard", c.layout.guard, r.layout.guard],
    ["dPrior", c.layout.dPrior, r.layout.dPrior],
  ];
  const dOut = outputsOf(c.spec, c.target).d;
  if (dOut) pairs.push(["d", dOut, outputsOf(r.spec, r.target, r.layout).d]);
  for (const [name, x, y] of pairs) {
    if (!x && !y) continue;
    if (!x || !y) return { ok: false, why: `${name} is in one layout only` };
    const why = bind(x, y);
    if (why) return { ok: false, why: `${name}: ${why}` };
  }
  // Scratch: the contract's scratch units (and v0 where d is not written) go into the scratch set.
  for (const [u, w] of phi) {
    const k = u[0] as Kind;
    const n = Number(u.slice(1));
    const contractScratch = k === "v" ? n >= c.layout.vScratch && n < c.vEnd : n >= c.layout.sScratch && n < c.sEnd;
    if (!contractScratch) continue;
    if (!(k === "v" ? a.vScratch : a.sScratch).includes(Number(w.slice(1)))) return { ok: false, why: `the contract's scratch ${u} became ${w}, outside the scratch set` };
  }
  return { ok: true, map: phi };
}
