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
 *
 * The pass reads the module's resolved instructions (`ParsedModule.resolved`, made while
 * parsing; src/ir/build.ts `ResolvedModule`), not the syntax tree, and keeps its per-function
 * facts in flat arrays: a module of 10^6 lines has 10^6 instructions.
 */
import { type ParsedModule, type ResolvedFunction, type ResolvedModule, FAMILY_SOURCES, OPK, REF, resolveModule, specialRegister } from "../src/ir/build.js";
import type { FamilyInst, OperandKind, RoutineSpec, SourceName } from "../src/ir/ir.js";
import { sourcesOf } from "../src/ir/ir.js";

/**
 * The routine identity of every family instruction of `mod` (those in `mod.insts`).
 * Kinds: immediates → `imm` with the (already truncated) value; registers → `s` or `v`
 * per the rules above. `guarded` is true when the instruction has a guard. Reads
 * `mod.resolved`; without it (after src/lower.ts `collectRoutines`, which keeps the answer),
 * resolves `mod.ast` again.
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

/**
 * Run the analysis on every function with a body, naming registers (the module is resolved
 * again from its tree for their keys and names; `routineSpecs` needs neither).
 */
export function analyzeUniformity(mod: ParsedModule): FunctionUniformity[] {
  const rm = resolveModule(mod.ast, mod.insts, true);
  return rm.functions.map((fn) => {
    const fu = analyze(fn, rm);
    const divergentKeys = new Set<string>();
    const divergentNames = new Set<string>();
    for (let r = 0; r <= fn.regCount; r++) {
      if (!fu.divergent[r]) continue;
      divergentKeys.add(r === fn.regCount ? CARRY : fn.regKeys![r]!);
      const n = r < fn.regCount ? fn.regNames![r] : undefined;
      if (n !== undefined) divergentNames.add(n);
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

/** The carry flag's key in `FunctionUniformity.divergentKeys` (its register number is `regCount`). */
const CARRY = "#cc";

/** Instruction kinds in `Facts.kind`. */
const PLAIN = 0;
const BRANCH = 1;
const EXIT = 2;
const BRX = 3;

/**
 * What the instructions of one function read and write, in flat arrays indexed by
 * instruction. Registers are numbers (see `ResolvedFunction`; the carry flag is number
 * `regCount`). The lists of instruction `i` are `defs[defAt[i] .. defAt[i + 1])`, and
 * likewise for `uses` and `cond`.
 */
interface Facts {
  count: number;
  line: Int32Array;
  kind: Uint8Array;
  /** The value it writes is divergent regardless of its register operands (rules 1 for special registers, 2). */
  intrinsic: Uint8Array;
  guarded: Uint8Array;
  /** The transfer's condition is divergent whatever the registers say (an undeclared guard). */
  condUnknown: Uint8Array;
  /** Branch target label (`strings` index), or -1. */
  target: Int32Array;
  defAt: Int32Array;
  defs: number[];
  useAt: Int32Array;
  uses: number[];
  /** Registers that decide where a transfer goes: the guard, and `brx.idx`'s index. */
  condAt: Int32Array;
  cond: number[];
}

/** The facts of every instruction of `fn`. */
function factsOf(fn: ResolvedFunction, rm: ResolvedModule): Facts {
  const code = fn.code;
  const strings = rm.strings;
  const n = fn.count;
  const carry = fn.regCount;
  const labels = new Set<number>();
  for (let i = 0; i < fn.labels.length; i += 2) labels.add(fn.labels[i]);
  const F: Facts = {
    count: n,
    line: new Int32Array(n),
    kind: new Uint8Array(n),
    intrinsic: new Uint8Array(n),
    guarded: new Uint8Array(n),
    condUnknown: new Uint8Array(n),
    target: new Int32Array(n).fill(-1),
    defAt: new Int32Array(n + 1),
    defs: [],
    useAt: new Int32Array(n + 1),
    uses: [],
    condAt: new Int32Array(n + 1),
    cond: [],
  };
  const { defs, uses, cond } = F;
  // The current instruction's operands: kind, and symbols `opSym[k] .. opSym[k + 1]` of sRef/sName.
  const opKind: number[] = [];
  const opSym: number[] = [];
  const sRef: number[] = [];
  const sName: number[] = [];
  let p = 0;
  for (let index = 0; index < n; index++) {
    const { opcode: op, modifiers: mods } = rm.kinds[code[p++]];
    const head = code[p++];
    const nOps = head >> 1;
    const guarded = (head & 1) === 1;
    const guard = guarded ? code[p++] : 0;
    const bra = op === "bra";
    if (bra || op === "brx") F.line[index] = code[p++];
    sRef.length = 0;
    sName.length = 0;
    for (let k = 0; k < nOps; k++) {
      const w = code[p++];
      opKind[k] = w & 15;
      opSym[k] = sRef.length;
      for (let j = w >> 4; j > 0; j--) {
        const r = code[p++];
        sRef.push(r);
        sName.push(r === REF.undeclared || bra ? code[p++] : -1);
      }
    }
    opSym[nOps] = sRef.length;
    F.defAt[index] = defs.length;
    F.useAt[index] = uses.length;
    F.condAt[index] = cond.length;
    let intrinsic = false;
    if (guarded) {
      F.guarded[index] = 1;
      if (guard >= 0) {
        cond.push(guard);
        uses.push(guard);
      } else {
        intrinsic = true;
        F.condUnknown[index] = 1;
      }
    }
    const kind0 = nOps > 0 ? opKind[0] : -1;
    const dest = nOps > 0 && hasDest(op, mods) && (op !== "call" || kind0 === OPK.list) && kind0 !== OPK.address && kind0 !== OPK.addressSym;
    if (dest) for (let j = opSym[0]; j < opSym[1]; j++) if (sRef[j] >= 0) defs.push(sRef[j]);
    if (writesCarry(mods)) defs.push(carry);
    if (readsCarry(op)) uses.push(carry);

    // Loads: uniform only from kernel parameters or constant memory, through a uniform address.
    let loadOk = false;
    if (op === "ld" || op === "ldu") {
      const space = mods.find((m) => m === "param" || m === "const" || m.startsWith("param::"));
      if (space === "const") loadOk = true;
      else if (space && fn.entry) loadOk = nOps > 1 && opKind[1] === OPK.addressSym && sRef[opSym[1]] === REF.kernelParam;
    }
    if (defs.length > F.defAt[index] && !PURE.has(op) && !loadOk) intrinsic = true;

    for (let j = opSym[dest ? 1 : 0]; j < opSym[nOps]; j++) {
      const r = sRef[j];
      if (r >= 0) {
        uses.push(r);
        continue;
      }
      if (r !== REF.undeclared) continue; // variables (addresses), functions: uniform
      const name = strings[sName[j]];
      if (specialRegister(name)) {
        if (!uniformSpecial(name)) intrinsic = true;
        continue;
      }
      if (labels.has(sName[j])) continue;
      intrinsic = true; // unknown name: in doubt
    }
    if (op === "brx") {
      for (let k = F.useAt[index]; k < uses.length; k++) cond.push(uses[k]);
      if (intrinsic) F.condUnknown[index] = 1;
    }
    if (intrinsic) F.intrinsic[index] = 1;

    if (bra) {
      F.kind[index] = BRANCH;
      if (kind0 === OPK.sym) F.target[index] = sName[opSym[0]];
    } else if (op === "brx") F.kind[index] = BRX;
    else if (op === "ret" || op === "exit" || op === "trap") F.kind[index] = EXIT;
  }
  F.defAt[n] = defs.length;
  F.useAt[n] = uses.length;
  F.condAt[n] = cond.length;
  return F;
}

// ==================================================================== control flow

interface Cfg {
  /** Block index of each instruction. */
  blockOf: Int32Array;
  /** The instructions of block b are `blockStart[b] .. blockStart[b + 1]`. */
  blockStart: Int32Array;
  succ: number[][];
  /** Immediate post-dominator of each block; `exit` is the virtual exit; -1 if none (cannot reach exit). */
  ipdom: number[];
  /** Number of blocks, and the virtual exit block. */
  exit: number;
  /** Blocks that do nothing but leave (an unguarded `ret` / `exit`). */
  exitOnly: Set<number>;
  /** The block a branch target label (`strings` index, -1 for none) starts, or `exit`. */
  blockAtLabel(name: number): number;
}

function buildCfg(fn: ResolvedFunction, F: Facts): Cfg {
  const n = F.count;
  // Leaders: the first instruction, every labelled instruction, every instruction after a transfer.
  const labelAt = new Map<number, number>(); // label → index of the next instruction
  const leader = new Uint8Array(n);
  for (let i = 0; i < fn.labels.length; i += 2) {
    const at = fn.labels[i + 1];
    labelAt.set(fn.labels[i], at);
    if (at < n) leader[at] = 1;
  }
  if (n > 0) leader[0] = 1;
  for (let i = 0; i + 1 < n; i++) if (F.kind[i] !== PLAIN) leader[i + 1] = 1;
  const blockOf = new Int32Array(n);
  const starts: number[] = [];
  for (let i = 0; i < n; i++) {
    if (leader[i]) starts.push(i);
    blockOf[i] = starts.length - 1;
  }
  const exit = starts.length;
  starts.push(n);
  const blockStart = Int32Array.from(starts);
  const blockAtLabel = (name: number): number => {
    const i = name < 0 ? undefined : labelAt.get(name);
    return i === undefined || i >= n ? exit : blockOf[i];
  };
  const succ: number[][] = [];
  for (let bi = 0; bi < exit; bi++) {
    const last = blockStart[bi + 1] - 1;
    const next = bi + 1 < exit ? bi + 1 : exit;
    const guarded = F.guarded[last] === 1;
    switch (F.kind[last]) {
      case BRANCH:
        succ.push(guarded ? [blockAtLabel(F.target[last]), next] : [blockAtLabel(F.target[last])]);
        break;
      case BRX: {
        const all = [...new Set([...labelAt.keys()].map(blockAtLabel))];
        succ.push(guarded ? [...all, next] : all);
        break;
      }
      case EXIT:
        succ.push(guarded ? [exit, next] : [exit]);
        break;
      default:
        succ.push([next]);
    }
  }
  const exitOnly = new Set<number>();
  for (let bi = 0; bi < exit; bi++) {
    const first = blockStart[bi];
    if (F.kind[first] === EXIT && !F.guarded[first]) exitOnly.add(bi);
  }
  return { blockOf, blockStart, succ, ipdom: postDominators(succ, exit), exit, exitOnly, blockAtLabel };
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

/** The fixed point for one function: divergent registers (by number, the carry flag last) and branches. */
function analyze(fn: ResolvedFunction, rm: ResolvedModule): { divergent: Uint8Array; divergentBranches: number[] } {
  const F = factsOf(fn, rm);
  const cfg = buildCfg(fn, F);
  const n = F.count;
  const nRegs = fn.regCount + 1;
  const { defs, uses } = F;
  const divergent = new Uint8Array(nRegs);

  // Who reads each register (instructions in order, once per read), and which are written.
  const defined = new Uint8Array(nRegs);
  for (const d of defs) defined[d] = 1;
  const userAt = new Int32Array(nRegs + 1);
  const firstUse: number[] = [];
  for (const u of uses) if (userAt[u + 1]++ === 0) firstUse.push(u);
  for (let r = 0; r < nRegs; r++) userAt[r + 1] += userAt[r];
  const users = new Int32Array(uses.length);
  const fill = userAt.slice(0, nRegs);
  for (let i = 0; i < n; i++) for (let k = F.useAt[i]; k < F.useAt[i + 1]; k++) users[fill[uses[k]]++] = i;

  const work: number[] = [];
  const markReg = (r: number) => {
    if (divergent[r]) return;
    divergent[r] = 1;
    for (let k = userAt[r]; k < userAt[r + 1]; k++) work.push(users[k]);
  };
  // Registers read but never written, and `.func` parameters, start divergent.
  for (const r of firstUse) if (!defined[r]) markReg(r);
  for (const r of fn.paramRegs) markReg(r);

  const inRegion = new Uint8Array(cfg.exit);
  const divergentInst = new Uint8Array(n);
  const branchDone = new Uint8Array(n);
  const divergentBranches: number[] = [];
  const anyDivergent = (list: number[], from: number, to: number) => {
    for (let k = from; k < to; k++) if (divergent[list[k]] === 1) return true;
    return false;
  };
  for (let i = n - 1; i >= 0; i--) work.push(i);
  while (work.length > 0) {
    const i = work.pop()!;
    if (divergentInst[i]) continue;
    const div = F.intrinsic[i] === 1 || inRegion[cfg.blockOf[i]] === 1 || anyDivergent(uses, F.useAt[i], F.useAt[i + 1]);
    if (!div) continue;
    divergentInst[i] = 1;
    for (let k = F.defAt[i]; k < F.defAt[i + 1]; k++) markReg(defs[k]);
    // A branch whose condition differs between lanes splits the warp: it opens a region.
    // (`@p ret` / `@p exit` need none: lanes that leave never see a value again. Neither does
    // `@p bra L` when L's block only returns — nvcc's `if (i >= n) return;` — for the same reason.)
    const kind = F.kind[i];
    const leaves = kind === BRANCH && cfg.exitOnly.has(cfg.blockAtLabel(F.target[i]));
    const branch = (kind === BRANCH && !leaves) || kind === BRX;
    if (branch && !branchDone[i] && (F.condUnknown[i] === 1 || anyDivergent(F.cond, F.condAt[i], F.condAt[i + 1]))) {
      branchDone[i] = 1;
      divergentBranches.push(F.line[i]);
      for (const b of divergentRegion(cfg, cfg.blockOf[i])) {
        if (inRegion[b]) continue;
        inRegion[b] = 1;
        for (let j = cfg.blockStart[b]; j < cfg.blockStart[b + 1]; j++) work.push(j);
      }
    }
  }
  return { divergent, divergentBranches };
}
