/**
 * @fileoverview Uniformity analysis: for every source operand of every family instruction,
 * is it an immediate, a uniform register (the same value in every active lane of the warp,
 * so it can live in an SGPR) or a divergent one (a VGPR)? The answer picks the routine
 * (`RoutineSpec`, src/ir/ir.ts) each occurrence is lowered to.
 *
 * Rules. A register is *divergent* if any instruction that writes it (PTX registers are not
 * SSA: every write in the function counts, flow-insensitively) produces a divergent value;
 * otherwise it is *uniform*. A write is divergent when
 *   1. it reads a divergent register (any operand, including address bases and the carry
 *      flag of `addc/subc/madc`), or a divergent special register: everything except
 *      `%ctaid %nctaid %ntid %gridid %clusterid %nclusterid %cluster_ctaid %cluster_nctaid
 *      %cluster_ctarank %cluster_nctarank %is_explicit_cluster %total_smem_size
 *      %aggr_smem_size %dynamic_smem_size %envregN %reserved_smem_offset_* %current_graph_exec`
 *      (so `%tid`, `%laneid`, `%warpid`, `%clock`, `%lanemask_*` … are divergent);
 *   2. its opcode is not a plain ALU operation (the `PURE` list below): results of `shfl`,
 *      `vote`, `match`, `atom`, `activemask`, `call`, texture and surface reads, and any
 *      opcode this file does not know are divergent. `ld` is uniform only for `ld.param`
 *      from a kernel (`.entry`) parameter and `ld.const`, each through a uniform address;
 *      every other load (global, shared, local, generic, `.param` of a `.func`) is divergent;
 *   3. it is guarded by a divergent predicate (some lanes keep the old value);
 *   4. it lies in the region of a divergent branch: for a guarded `bra`/`brx`/`ret`/`exit`
 *      whose predicate is divergent, every basic block reachable from the branch without
 *      passing through the branch block's immediate post-dominator (the join). Loops are
 *      covered: a divergent exit condition puts the whole loop body in the region. If the
 *      branch cannot reach the function's end (an endless loop), everything reachable from it
 *      is in the region.
 * Registers that are read but never written in the function, and the parameters of a
 * `.func` (their values come from callers), are divergent. Immediates, kernel parameters,
 * addresses of variables and labels are uniform. Divergence only grows, so the analysis
 * iterates to a fixed point (a worklist over def-use edges).
 *
 * This is conservative ("when in doubt, divergent"): a uniform answer is safe to put in an
 * SGPR; a divergent answer may be pessimistic.
 */
import { type ParsedModule, type ResolvedFunction, type ResolvedModule, FAMILY_SOURCES, OPK, REF, resolveModule, specialRegister } from "../src/ir/build.js";
import type { FamilyInst, OperandKind, RoutineSpec, SourceName } from "../src/ir/ir.js";
import { sourcesOf } from "../src/ir/ir.js";

/**
 * The routine identity of every family instruction of `mod` (those in `mod.insts`).
 * Kinds: immediates → `imm` with the (already truncated) value; registers → `s` or `v`
 * per the rules above. `guarded` is true when the instruction has a guard.
 */
export function routineSpecs(mod: ParsedModule): Map<FamilyInst, RoutineSpec> {
  const out = new Map<FamilyInst, RoutineSpec>();
  const wanted = new Set(mod.insts);
  const rm = resolvedOf(mod);
  for (const fn of rm.functions) {
    if (fn.family.length === 0) continue;
    const fu = analyze(fn, rm);
    fn.family.forEach((fi, k) => {
      if (!wanted.has(fi)) return;
      const kinds: Partial<Record<SourceName, OperandKind>> = {};
      for (const name of sourcesOf(fi.form)) {
        const o = fi[name];
        if (!o) continue;
        if (o.kind === "imm") kinds[name] = { kind: "imm", value: o.value };
        else {
          const r = o.kind === "reg" ? fn.familyRefs[k * FAMILY_SOURCES.length + FAMILY_SOURCES.indexOf(name)] : REF.undeclared;
          kinds[name] = r >= 0 && !fu.divergent[r] ? { kind: "s" } : { kind: "v" };
        }
      }
      out.set(fi, { form: fi.form, kinds, guarded: fi.guard !== null });
    });
  }
  return out;
}

/** The module's resolved instructions: from the parse, or from the tree. */
function resolvedOf(mod: ParsedModule): ResolvedModule {
  return mod.resolved ?? resolveModule(mod.ast, mod.insts);
}

/** The analysis result for one function. */
export interface FunctionUniformity {
  name: string;
  /** Declaration keys (`SymInfo.key`) of the divergent registers (and `#cc`, the carry flag). */
  divergentKeys: Set<string>;
  /** Names of the divergent registers as written (for reports and tests). */
  divergentNames: Set<string>;
  /** Lines of the branches found divergent. */
  divergentBranches: number[];
}

/** Run the analysis on every function with a body. */
export function analyzeUniformity(mod: ParsedModule): FunctionUniformity[] {
  const rm = resolvedOf(mod);
  return rm.functions.map((fn) => {
    const fu = analyze(fn, rm);
    const divergentKeys = new Set<string>();
    const divergentNames = new Set<string>();
    for (let r = 0; r <= fn.regKeys.length; r++) {
      if (!fu.divergent[r]) continue;
      divergentKeys.add(r === fn.regKeys.length ? CARRY : fn.regKeys[r]);
      const n = fu.names[r];
      if (n >= 0) divergentNames.add(rm.strings[n]);
    }
    return { name: fn.name, divergentKeys, divergentNames, divergentBranches: fu.divergentBranches };
  });
}

// ==================================================================== instruction model

/** Uniform special registers; every other special register is divergent. */
const UNIFORM_SPECIALS = new Set([
  "%ctaid", "%nctaid", "%ntid", "%gridid", "%clusterid", "%nclusterid", "%cluster_ctaid", "%cluster_nctaid",
  "%cluster_ctarank", "%cluster_nctarank", "%is_explicit_cluster", "%total_smem_size", "%aggr_smem_size",
  "%dynamic_smem_size", "%current_graph_exec", "%reserved_smem_offset_begin", "%reserved_smem_offset_end",
  "%reserved_smem_offset_cap", "%reserved_smem_offset_0", "%reserved_smem_offset_1",
]);

function uniformSpecial(name: string): boolean {
  return UNIFORM_SPECIALS.has(name) || name.startsWith("%envreg");
}

/** Plain ALU opcodes: the result depends only on the operands. */
const PURE = new Set([
  "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min", "max", "popc", "clz",
  "bfind", "fns", "brev", "bfe", "bfi", "bmsk", "szext", "dp4a", "dp2a", "and", "or", "xor", "not", "cnot", "lop3",
  "shf", "shl", "shr", "mov", "prmt", "cvt", "cvta", "setp", "set", "selp", "slct", "testp", "copysign", "rcp",
  "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "fma", "addc", "subc", "madc", "vshl", "vshr", "vadd", "vsub",
  "vabsdiff", "vmin", "vmax", "vset", "vmad", "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2",
  "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4", "isspacep", "mapa",
]);

/** Opcodes whose first operand is not written. */
const NO_DEST = new Set([
  "st", "red", "bra", "brx", "ret", "exit", "trap", "brkpt", "membar", "fence", "prefetch", "prefetchu", "nanosleep",
  "pmevent", "cp", "stmatrix", "griddepcontrol", "setmaxnreg", "sust", "sured", "wmma.store", "discard", "applypriority",
  "createpolicy.none",
]);

function hasDest(op: string, modifiers: readonly string[]): boolean {
  if (op === "bar" || op === "barrier") return modifiers.includes("red");
  if (op === "wmma" && modifiers[0] === "store") return false;
  return !NO_DEST.has(op);
}

/** `add.cc`, `addc.cc`, … write the carry flag; `addc/subc/madc` read it. */
function writesCarry(modifiers: readonly string[]): boolean {
  return modifiers.includes("cc");
}
function readsCarry(op: string): boolean {
  return op === "addc" || op === "subc" || op === "madc";
}

/** The carry flag's key in `FunctionUniformity.divergentKeys` (its register number is `regKeys.length`). */
const CARRY = "#cc";

/**
 * What one instruction reads and writes: registers by number (`ResolvedFunction.regKeys`;
 * the carry flag is number `regKeys.length`).
 */
interface InstFacts {
  index: number;
  block: number;
  line: number;
  defs: number[];
  uses: number[];
  /** The value it writes is divergent regardless of its register operands (rules 1 for special registers, 2). */
  intrinsic: boolean;
  guarded: boolean;
  /** Registers that decide where a transfer goes: the guard, and `brx.idx`'s index. */
  cond: number[];
  /** The transfer's condition is divergent whatever the registers say (an undeclared guard). */
  condUnknown: boolean;
  kind: "plain" | "branch" | "exit" | "brx";
  /** Branch target label (`strings` index), or -1. */
  target: number;
}

/**
 * The facts of every instruction of `fn`, and the name each register is written with (the
 * last one among the operands; -1 for none), by register number.
 */
function factsOf(fn: ResolvedFunction, rm: ResolvedModule): { insts: InstFacts[]; names: Int32Array } {
  const code = fn.code;
  const strings = rm.strings;
  const carry = fn.regKeys.length;
  const names = new Int32Array(carry + 1).fill(-1);
  const labels = new Set<number>();
  for (let i = 0; i < fn.labels.length; i += 2) labels.add(fn.labels[i]);
  const insts: InstFacts[] = [];
  const opAt: number[] = [];
  let p = 0;
  for (let index = 0; index < fn.count; index++) {
    const op = strings[code[p]];
    const mods = rm.modifierLists[code[p + 1]];
    const guard = code[p + 3];
    const nOps = code[p + 4];
    const f: InstFacts = { index, block: 0, line: code[p + 2], defs: [], uses: [], intrinsic: false, guarded: guard !== REF.noGuard, cond: [], condUnknown: false, kind: "plain", target: -1 };
    p += 5;
    for (let k = 0; k < nOps; k++) {
      opAt[k] = p;
      const n = code[p + 1];
      for (let j = 0; j < n; j++) {
        const r = code[p + 3 + 2 * j];
        if (r >= 0) names[r] = code[p + 2 + 2 * j];
      }
      p += 2 + 2 * n;
    }
    if (guard !== REF.noGuard) {
      if (guard >= 0) {
        f.cond.push(guard);
        f.uses.push(guard);
      } else {
        f.intrinsic = true;
        f.condUnknown = true;
      }
    }
    const kind0 = nOps > 0 ? code[opAt[0]] : -1;
    const dest = nOps > 0 && hasDest(op, mods) && (op !== "call" || kind0 === OPK.list) && kind0 !== OPK.address && kind0 !== OPK.addressSym;
    if (dest) {
      const q = opAt[0];
      for (let j = 0, n = code[q + 1]; j < n; j++) if (code[q + 3 + 2 * j] >= 0) f.defs.push(code[q + 3 + 2 * j]);
    }
    if (writesCarry(mods)) f.defs.push(carry);
    if (readsCarry(op)) f.uses.push(carry);

    // Loads: uniform only from kernel parameters or constant memory, through a uniform address.
    let loadOk = false;
    if (op === "ld" || op === "ldu") {
      const space = mods.find((m) => m === "param" || m === "const" || m.startsWith("param::"));
      if (space === "const") loadOk = true;
      else if (space && fn.entry) loadOk = nOps > 1 && code[opAt[1]] === OPK.addressSym && code[opAt[1] + 3] === REF.kernelParam;
    }
    if (f.defs.length > 0 && !PURE.has(op) && !loadOk) f.intrinsic = true;

    for (let k = dest ? 1 : 0; k < nOps; k++) {
      const q = opAt[k];
      for (let j = 0, n = code[q + 1]; j < n; j++) {
        const r = code[q + 3 + 2 * j];
        if (r >= 0) {
          f.uses.push(r);
          continue;
        }
        if (r !== REF.undeclared) continue; // variables (addresses), functions: uniform
        const name = strings[code[q + 2 + 2 * j]];
        if (specialRegister(name)) {
          if (!uniformSpecial(name)) f.intrinsic = true;
          continue;
        }
        if (labels.has(code[q + 2 + 2 * j])) continue;
        f.intrinsic = true; // unknown name: in doubt
      }
    }
    if (op === "brx") {
      f.cond.push(...f.uses);
      if (f.intrinsic) f.condUnknown = true;
    }

    if (op === "bra") {
      f.kind = "branch";
      f.target = kind0 === OPK.sym ? code[opAt[0] + 2] : -1;
    } else if (op === "brx") f.kind = "brx";
    else if (op === "ret" || op === "exit" || op === "trap") f.kind = "exit";
    insts.push(f);
  }
  return { insts, names };
}

// ==================================================================== control flow

interface Cfg {
  /** Block index of each instruction. */
  blockOf: number[];
  /** Instructions (indices into `insts`) of each block. */
  blocks: number[][];
  succ: number[][];
  /** Immediate post-dominator of each block; `exit` is the virtual exit; -1 if none (cannot reach exit). */
  ipdom: number[];
  exit: number;
  /** Blocks that do nothing but leave (an unguarded `ret` / `exit`). */
  exitOnly: Set<number>;
  /** The block a branch target label (`strings` index, -1 for none) starts, or `exit`. */
  blockAtLabel(name: number): number;
}

function buildCfg(fn: ResolvedFunction, insts: InstFacts[]): Cfg {
  // Leaders: the first instruction, every labelled instruction, every instruction after a transfer.
  const labelAt = new Map<number, number>(); // label → index of the next instruction
  const leader: boolean[] = new Array(insts.length).fill(false);
  for (let i = 0; i < fn.labels.length; i += 2) {
    const n = fn.labels[i + 1];
    labelAt.set(fn.labels[i], n);
    if (n < insts.length) leader[n] = true;
  }
  if (insts.length > 0) leader[0] = true;
  for (let i = 0; i + 1 < insts.length; i++) if (insts[i].kind !== "plain") leader[i + 1] = true;
  const blockOf: number[] = new Array(insts.length);
  const blocks: number[][] = [];
  for (let i = 0; i < insts.length; i++) {
    if (leader[i]) blocks.push([]);
    blockOf[i] = blocks.length - 1;
    blocks[blocks.length - 1].push(i);
    insts[i].block = blocks.length - 1;
  }
  const exit = blocks.length;
  const blockAtLabel = (name: number): number => {
    const i = name < 0 ? undefined : labelAt.get(name);
    return i === undefined || i >= insts.length ? exit : blockOf[i];
  };
  const succ: number[][] = blocks.map((b, bi) => {
    const last = insts[b[b.length - 1]];
    const next = bi + 1 < blocks.length ? bi + 1 : exit;
    const guarded = last.guarded;
    switch (last.kind) {
      case "branch":
        return guarded ? [blockAtLabel(last.target), next] : [blockAtLabel(last.target)];
      case "brx": {
        const all = [...new Set([...labelAt.keys()].map(blockAtLabel))];
        return guarded ? [...all, next] : all;
      }
      case "exit":
        return guarded ? [exit, next] : [exit];
      default:
        return [next];
    }
  });
  const exitOnly = new Set<number>();
  blocks.forEach((b, bi) => {
    const first = insts[b[0]!]!;
    if (first.kind === "exit" && !first.guarded) exitOnly.add(bi);
  });
  return { blockOf, blocks, succ, ipdom: postDominators(succ, exit), exit, exitOnly, blockAtLabel };
}

/** Immediate post-dominators (Cooper, Harvey & Kennedy on the reverse graph); -1 where undefined. */
function postDominators(succ: number[][], exit: number): number[] {
  const nNodes = exit + 1;
  const pred: number[][] = Array.from({ length: nNodes }, () => []);
  for (let b = 0; b < succ.length; b++) for (const s of succ[b]) pred[s].push(b);
  // Post-order of the reverse graph from exit (iterative DFS over predecessors).
  const order: number[] = [];
  const seen = new Uint8Array(nNodes);
  const stack: { node: number; i: number }[] = [{ node: exit, i: 0 }];
  seen[exit] = 1;
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.i < pred[top.node].length) {
      const p = pred[top.node][top.i++];
      if (!seen[p]) {
        seen[p] = 1;
        stack.push({ node: p, i: 0 });
      }
    } else {
      order.push(top.node);
      stack.pop();
    }
  }
  const po = new Int32Array(nNodes).fill(-1);
  order.forEach((node, i) => (po[node] = i));
  const idom = new Int32Array(nNodes).fill(-1);
  idom[exit] = exit;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (po[a] < po[b]) a = idom[a];
      while (po[b] < po[a]) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let k = order.length - 1; k >= 0; k--) {
      const b = order[k];
      if (b === exit) continue;
      let nd = -1;
      for (const s of succ[b]) {
        if (po[s] < 0 || idom[s] < 0) continue;
        nd = nd < 0 ? s : intersect(s, nd);
      }
      if (nd !== idom[b]) {
        idom[b] = nd;
        changed = true;
      }
    }
  }
  return Array.from(idom.subarray(0, exit));
}

/** Blocks reachable from `b`'s successors without passing through its join (ipdom). */
function divergentRegion(cfg: Cfg, b: number): number[] {
  const stop = cfg.ipdom[b];
  const out: number[] = [];
  const seen = new Set<number>([cfg.exit]);
  if (stop >= 0) seen.add(stop);
  const work = [...cfg.succ[b]];
  while (work.length > 0) {
    const x = work.pop()!;
    if (seen.has(x)) continue;
    seen.add(x);
    out.push(x);
    for (const s of cfg.succ[x]) work.push(s);
  }
  return out;
}

// ==================================================================== the fixed point

/** The fixed point for one function: divergent registers (by number), names, divergent branches. */
function analyze(fn: ResolvedFunction, rm: ResolvedModule): { divergent: Uint8Array; names: Int32Array; divergentBranches: number[] } {
  const { insts, names } = factsOf(fn, rm);
  const cfg = buildCfg(fn, insts);
  const divergent = new Uint8Array(fn.regKeys.length + 1);

  // Registers read but never written, and `.func` parameters, start divergent.
  const defined = new Uint8Array(fn.regKeys.length + 1);
  const users = new Map<number, number[]>();
  for (const f of insts) {
    for (const d of f.defs) defined[d] = 1;
    for (const u of f.uses) {
      const list = users.get(u);
      if (list) list.push(f.index);
      else users.set(u, [f.index]);
    }
  }
  const work: number[] = [];
  const markReg = (r: number) => {
    if (divergent[r]) return;
    divergent[r] = 1;
    for (const i of users.get(r) ?? []) work.push(i);
  };
  for (const r of users.keys()) if (!defined[r]) markReg(r);
  for (const r of fn.paramRegs) markReg(r);

  const inRegion = new Uint8Array(cfg.blocks.length);
  const divergentInst = new Uint8Array(insts.length);
  const branchDone = new Uint8Array(insts.length);
  const divergentBranches: number[] = [];
  for (let i = insts.length - 1; i >= 0; i--) work.push(i);
  while (work.length > 0) {
    const i = work.pop()!;
    if (divergentInst[i]) continue;
    const f = insts[i];
    const div = f.intrinsic || inRegion[f.block] === 1 || f.uses.some((u) => divergent[u] === 1);
    if (!div) continue;
    divergentInst[i] = 1;
    for (const d of f.defs) markReg(d);
    // A branch whose condition differs between lanes splits the warp: it opens a region.
    // (`@p ret` / `@p exit` need none: lanes that leave never see a value again. Neither does
    // `@p bra L` when L's block only returns — nvcc's `if (i >= n) return;` — for the same reason.)
    const leaves = f.kind === "branch" && cfg.exitOnly.has(cfg.blockAtLabel(f.target));
    const branch = (f.kind === "branch" && !leaves) || f.kind === "brx";
    if (branch && !branchDone[i] && (f.condUnknown || f.cond.some((k) => divergent[k] === 1))) {
      branchDone[i] = 1;
      divergentBranches.push(f.line);
      for (const b of divergentRegion(cfg, f.block)) {
        if (inRegion[b]) continue;
        inRegion[b] = 1;
        for (const j of cfg.blocks[b]) work.push(j);
      }
    }
  }
  return { divergent, names, divergentBranches };
}
