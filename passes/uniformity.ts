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
import { type FlatFunction, type NameScope, type ParsedModule, flattenModule, specialRegister } from "../src/ir/build.js";
import type { Instruction, Operand } from "../src/ptx/ast.js";
import type { FamilyInst, OperandKind, PtxOperand, RoutineSpec, SourceName } from "../src/ir/ir.js";
import { sourcesOf } from "../src/ir/ir.js";

/**
 * The routine identity of every family instruction of `mod` (those in `mod.insts`).
 * Kinds: immediates → `imm` with the (already truncated) value; registers → `s` or `v`
 * per the rules above. `guarded` is true when the instruction has a guard.
 */
export function routineSpecs(mod: ParsedModule): Map<FamilyInst, RoutineSpec> {
  const out = new Map<FamilyInst, RoutineSpec>();
  const byLoc = new Map<string, FamilyInst>();
  for (const fi of mod.insts) byLoc.set(`${fi.loc.line}:${fi.loc.col}`, fi);
  for (const fu of analyzeUniformity(mod)) {
    for (const { inst, scope } of fu.instructions) {
      const fi = byLoc.get(`${inst.loc.line}:${inst.loc.col}`);
      if (!fi) continue;
      const kinds: Partial<Record<SourceName, OperandKind>> = {};
      for (const name of sourcesOf(fi.form)) {
        const o = fi[name];
        if (o) kinds[name] = kindOf(o, scope, fu);
      }
      out.set(fi, { form: fi.form, kinds, guarded: fi.guard !== null });
    }
  }
  return out;
}

function kindOf(o: PtxOperand, scope: NameScope, fu: FunctionUniformity): OperandKind {
  if (o.kind === "imm") return { kind: "imm", value: o.value };
  if (o.kind === "sink") return { kind: "v" };
  const info = scope.lookup(o.name);
  if (!info || info.kind !== "reg") return { kind: "v" };
  return fu.divergentKeys.has(info.key) ? { kind: "v" } : { kind: "s" };
}

/** The analysis result for one function. */
export interface FunctionUniformity {
  name: string;
  /** Declaration keys (`SymInfo.key`) of the divergent registers. */
  divergentKeys: Set<string>;
  /** Names of the divergent registers as written (for reports and tests). */
  divergentNames: Set<string>;
  /** Lines of the branches found divergent. */
  divergentBranches: number[];
  /** Every instruction with its scope, in program order. */
  instructions: { inst: Instruction; scope: NameScope }[];
}

/** Run the analysis on every function with a body. */
export function analyzeUniformity(mod: ParsedModule): FunctionUniformity[] {
  return flattenModule(mod.ast).functions.map(analyzeFunction);
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

function hasDest(inst: Instruction): boolean {
  const op = inst.opcode;
  if (op === "bar" || op === "barrier") return inst.modifiers.includes("red");
  if (op === "wmma" && inst.modifiers[0] === "store") return false;
  return !NO_DEST.has(op);
}

/** `add.cc`, `addc.cc`, … write the carry flag; `addc/subc/madc` read it. */
function writesCarry(inst: Instruction): boolean {
  return inst.modifiers.includes("cc");
}
function readsCarry(inst: Instruction): boolean {
  return inst.opcode === "addc" || inst.opcode === "subc" || inst.opcode === "madc";
}

const CARRY = "#cc";

/** What one instruction reads and writes, with names resolved to declaration keys. */
interface InstFacts {
  index: number;
  block: number;
  defs: string[];
  uses: string[];
  /** The value it writes is divergent regardless of its register operands (rules 1 for special registers, 2). */
  intrinsic: boolean;
  guarded: boolean;
  /** Registers that decide where a transfer goes: the guard, and `brx.idx`'s index. */
  cond: string[];
  /** The transfer's condition is divergent whatever the registers say (an undeclared guard). */
  condUnknown: boolean;
  kind: "plain" | "branch" | "exit" | "brx";
  /** Branch target label. */
  target: string | null;
}

function collectSyms(o: Operand, out: Operand[]): void {
  switch (o.kind) {
    case "sym":
      out.push(o);
      break;
    case "pair":
      collectSyms(o.first, out);
      collectSyms(o.second, out);
      break;
    case "vector":
    case "list":
      for (const e of o.elems) collectSyms(e, out);
      break;
    case "address":
      if (o.base) collectSyms(o.base, out);
      for (const e of o.elems) collectSyms(e, out);
      break;
    default:
      break;
  }
}

function facts(inst: Instruction, scope: NameScope, index: number, fn: FlatFunction): InstFacts {
  const f: InstFacts = { index, block: 0, defs: [], uses: [], intrinsic: false, guarded: inst.guard !== null, cond: [], condUnknown: false, kind: "plain", target: null };
  const op = inst.opcode;
  if (inst.guard) {
    const g = scope.lookup(inst.guard.reg);
    if (g && g.kind === "reg") {
      f.cond.push(g.key);
      f.uses.push(g.key);
    } else {
      f.intrinsic = true;
      f.condUnknown = true;
    }
  }
  const ops = inst.operands;
  const destOps: Operand[] = [];
  const srcOps: Operand[] = [];
  const dest = ops.length > 0 && hasDest(inst) && (op !== "call" || ops[0].kind === "list") && ops[0].kind !== "address";
  if (dest) collectSyms(ops[0], destOps);
  for (let i = dest ? 1 : 0; i < ops.length; i++) collectSyms(ops[i], srcOps);
  for (const o of destOps) {
    if (o.kind !== "sym") continue;
    const info = scope.lookup(o.name);
    if (info && info.kind === "reg") f.defs.push(info.key);
  }
  if (writesCarry(inst)) f.defs.push(CARRY);
  if (readsCarry(inst)) f.uses.push(CARRY);

  // Loads: uniform only from kernel parameters or constant memory, through a uniform address.
  let loadOk = false;
  if (op === "ld" || op === "ldu") {
    const space = inst.modifiers.find((m) => m === "param" || m === "const" || m.startsWith("param::"));
    if (space === "const") loadOk = true;
    else if (space && fn.fn.entry) {
      const addr = ops[1];
      const base = addr && addr.kind === "address" && addr.base && addr.base.kind === "sym" ? scope.lookup(addr.base.name) : null;
      loadOk = base !== null && base.kind === "var" && base.kernelParam;
    }
  }
  if (f.defs.length > 0 && !PURE.has(op) && !loadOk) f.intrinsic = true;

  for (const o of srcOps) {
    if (o.kind !== "sym") continue;
    const info = scope.lookup(o.name);
    if (info) {
      if (info.kind === "reg") f.uses.push(info.key);
      continue; // variables (addresses), functions: uniform
    }
    if (specialRegister(o.name)) {
      if (!uniformSpecial(o.name)) f.intrinsic = true;
      continue;
    }
    if (fn.labels.has(o.name)) continue;
    f.intrinsic = true; // unknown name: in doubt
  }
  if (op === "brx") {
    f.cond.push(...f.uses);
    if (f.intrinsic) f.condUnknown = true;
  }

  if (op === "bra") {
    f.kind = "branch";
    const t = ops[0];
    f.target = t && t.kind === "sym" ? t.name : null;
  } else if (op === "brx") f.kind = "brx";
  else if (op === "ret" || op === "exit" || op === "trap") f.kind = "exit";
  return f;
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
  /** The block a branch target label starts, or `exit`. */
  blockAtLabel(name: string | null): number;
}

function buildCfg(fn: FlatFunction, insts: InstFacts[]): Cfg {
  // Leaders: the first instruction, every labelled instruction, every instruction after a transfer.
  const labelAt = new Map<string, number>(); // label → index of the next instruction
  const leader: boolean[] = new Array(insts.length).fill(false);
  let n = 0;
  for (const item of fn.items) {
    if (item.kind === "label") {
      labelAt.set(item.name, n);
      if (n < insts.length) leader[n] = true;
    } else n++;
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
  const blockAtLabel = (name: string | null): number => {
    const i = name === null ? undefined : labelAt.get(name);
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

function analyzeFunction(fn: FlatFunction): FunctionUniformity {
  const instructions: { inst: Instruction; scope: NameScope }[] = [];
  for (const item of fn.items) if (item.kind === "inst") instructions.push({ inst: item.inst, scope: item.scope });
  const insts = instructions.map(({ inst, scope }, i) => facts(inst, scope, i, fn));
  const cfg = buildCfg(fn, insts);

  const divergent = new Set<string>();
  const names = new Map<string, string>(); // key → name, for reports
  for (const { inst, scope } of instructions) {
    const syms: Operand[] = [];
    for (const o of inst.operands) collectSyms(o, syms);
    for (const o of syms) {
      if (o.kind !== "sym") continue;
      const info = scope.lookup(o.name);
      if (info && info.kind === "reg") names.set(info.key, o.name);
    }
  }

  // Registers read but never written, and `.func` parameters, start divergent.
  const defined = new Set<string>();
  const users = new Map<string, number[]>();
  for (const f of insts) {
    for (const d of f.defs) defined.add(d);
    for (const u of f.uses) {
      const list = users.get(u);
      if (list) list.push(f.index);
      else users.set(u, [f.index]);
    }
  }
  const work: number[] = [];
  const markReg = (key: string) => {
    if (divergent.has(key)) return;
    divergent.add(key);
    for (const i of users.get(key) ?? []) work.push(i);
  };
  for (const key of users.keys()) if (!defined.has(key)) markReg(key);
  const fscope = instructions[0]?.scope;
  if (fscope && !fn.fn.entry) {
    for (const p of [...fn.fn.rets, ...fn.fn.params]) {
      for (const d of p.declarators) {
        const info = fscope.lookup(d.name);
        if (info && info.kind === "reg") markReg(info.key);
      }
    }
  }

  const inRegion = new Uint8Array(cfg.blocks.length);
  const divergentInst = new Uint8Array(insts.length);
  const branchDone = new Uint8Array(insts.length);
  const divergentBranches: number[] = [];
  for (let i = insts.length - 1; i >= 0; i--) work.push(i);
  while (work.length > 0) {
    const i = work.pop()!;
    if (divergentInst[i]) continue;
    const f = insts[i];
    const div = f.intrinsic || inRegion[f.block] === 1 || f.uses.some((u) => divergent.has(u));
    if (!div) continue;
    divergentInst[i] = 1;
    for (const d of f.defs) markReg(d);
    // A branch whose condition differs between lanes splits the warp: it opens a region.
    // (`@p ret` / `@p exit` need none: lanes that leave never see a value again. Neither does
    // `@p bra L` when L's block only returns — nvcc's `if (i >= n) return;` — for the same reason.)
    const leaves = f.kind === "branch" && cfg.exitOnly.has(cfg.blockAtLabel(f.target));
    const branch = (f.kind === "branch" && !leaves) || f.kind === "brx";
    if (branch && !branchDone[i] && (f.condUnknown || f.cond.some((k) => divergent.has(k)))) {
      branchDone[i] = 1;
      divergentBranches.push(instructions[i].inst.loc.line);
      for (const b of divergentRegion(cfg, f.block)) {
        if (inRegion[b]) continue;
        inRegion[b] = 1;
        for (const j of cfg.blocks[b]) work.push(j);
      }
    }
  }

  const divergentNames = new Set<string>();
  for (const k of divergent) {
    const n = names.get(k);
    if (n) divergentNames.add(n);
  }
  return { name: fn.fn.name, divergentKeys: divergent, divergentNames, divergentBranches, instructions };
}
