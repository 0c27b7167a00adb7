/**
 * @fileoverview LLVM as the hazard oracle (issue 11 item 4(a)): lowered routines translated
 * to LLVM MIR with physical registers, wrapped in boundary producers and consumers, run
 * through `llc-19 -run-pass=post-RA-hazard-rec` (or `si-insert-waitcnts`) in batches, and
 * diffed: whatever LLVM inserts is what LLVM's `GCNHazardRecognizer` says the hardware needs.
 *
 * Recipe: ../shared/notes/hazards.md §1. Opcodes and operand order come from llvm-mc itself:
 * every distinct instruction text of a batch is assembled once with `llvm-mc-19 -show-inst`,
 * the MC opcode's real suffix (`_vi`, `_gfx9`, `_gfx10`, `_gfx11`, `_e32_gfx11`, …) is
 * dropped to get the pseudo, and VOP3-only opcodes shown without `_e64` (`V_BFE_I32_vi`,
 * `V_PERM_B32_gfx10`) get it back. MC register numbers are named by a calibration run per
 * processor. The implicit operands the MIR parser demands are a small table per opcode
 * class (`implicitOperands`); an opcode outside it fails loudly with the parser's message.
 *
 * Boundaries (issue 11 item 2, the contract's safe default): a routine is an inline
 * fragment, so each one is run as several MIR functions, each with one *producer* right
 * before it and one *consumer* right after it (`pairings`). Which producers and consumers is
 * the contract's to say, once: `boundaryOf` (targets/amdgpu/routine.ts → hazards.ts
 * `contractBoundary`) gives the units a VALU wrote at entry (`entryValu`), those a SALU wrote
 * (`entrySalu`: EXEC) and the virtual exit instructions (by `op`); `entryProducers` /
 * `exitConsumers` only map each to concrete MIR. LLVM's own functions
 * assume nothing is pending at entry (hazards.md §1), so without these the oracle cannot see
 * the boundary hazards (`checkVALUHazards`' gfx940 VALU-written SGPR → VALU read,
 * `checkRWLaneHazards`, `checkDPPHazards`, the v_readlane VGPR rule of `checkVALUHazards`).
 */
import { spawnSync } from "node:child_process";
import { runProcess } from "../../src/tools.js";
import { boundaryOf } from "./routine.js";
import type { AmdRoutine } from "./lower.js";
import type { MInst, MLine, MOp } from "./minst.js";
import { isLabel, printOp } from "./minst.js";
import { record } from "./isa/index.js";
import { operandText } from "./isa/syntax.js";
import type { Boundary as ContractBoundary, RegUnit } from "./hazards.js";
import { regKind } from "./hazards.js";
import type { Mcpu, Target } from "./regs.js";

/** The LLVM 19 tools the oracle runs. */
export const MIR_TOOLS = { llc: "llc-19", mc: "llvm-mc-19" };

/** The LLVM pass a run asks for. */
export type OraclePass = "post-RA-hazard-rec" | "si-insert-waitcnts";

/** Whether llc-19 and llvm-mc-19 run here (and are LLVM 19); the reason when not. */
export function mirToolsAvailable(): { ok: true } | { ok: false; reason: string } {
  for (const t of [MIR_TOOLS.llc, MIR_TOOLS.mc]) {
    const r = spawnSync(t, ["--version"], { encoding: "utf8" });
    if (r.error || r.status !== 0) return { ok: false, reason: `${t} not runnable (${r.error?.message ?? `exit ${r.status}`})` };
    if (!/LLVM version 19\./.test(r.stdout)) return { ok: false, reason: `${t} is not LLVM 19` };
  }
  return { ok: true };
}

/**
 * `-mcpu` and, on gfx10/gfx11, the wave size as `-mattr=+wavefrontsize32` (hazards.md §1)
 * or `+wavefrontsize64` (a wave64 target, e.g. `{ ...TARGETS.gfx1100, wave: 64 }`, for the
 * wave64-only rules such as `fixVALUMaskWriteHazard`).
 */
export function targetArgs(t: Pick<Target, "mcpu" | "wave">): string[] {
  const gfx10plus = t.mcpu === "gfx1030" || t.mcpu === "gfx1100";
  return [`-mcpu=${t.mcpu}`, ...(gfx10plus ? [`-mattr=+wavefrontsize${t.wave}`] : [])];
}

// ---------------------------------------------------------------------------------------
// llvm-mc: opcode names and operand lists

/** One MC operand as `-show-inst` prints it. */
export type McOperand = { k: "reg"; n: number } | { k: "imm"; value: string } | { k: "expr"; text: string };

/** What llvm-mc made of one instruction text: the pseudo opcode and its MC operands. */
export interface McInfo {
  /** The MC opcode as printed (`V_BFE_I32_vi`). */
  real: string;
  /** The pseudo (MIR) opcode (`V_BFE_I32_e64`). */
  pseudo: string;
  operands: McOperand[];
}

/** Opcodes that have neither an `_e32` nor an `_e64` pseudo although they are VALU. */
const NO_ENC_SUFFIX = /^(V_READFIRSTLANE_B32|V_READLANE_B32|V_WRITELANE_B32|V_NOP)$|_(e32|e64|dpp|sdwa|e64_dpp)$/;

/**
 * Real opcodes whose pseudo has another name: GFX10+'s keep the GFX9 name (`v_add_nc_u32` is
 * the pseudo `V_ADD_U32`; the carry-in adds `v_add_co_ci_u32` are `V_ADDC_U32`), and GFX9's
 * carry-in `v_addc_co_u32` is `V_ADDC_U32` too.
 */
const RENAMED: readonly [RegExp, string][] = [
  [/^V_(ADD|SUB|SUBREV)_NC_U32_/, "V_$1_U32_"],
  [/^V_ADD_CO_CI_U32_/, "V_ADDC_U32_"],
  [/^V_SUB_CO_CI_U32_/, "V_SUBB_U32_"],
  [/^V_SUBREV_CO_CI_U32_/, "V_SUBBREV_U32_"],
  // GFX9's carry-in VOP3B names (`v_addc_co_u32`, `v_subb_co_u32`, `v_subbrev_co_u32`).
  [/^V_ADDC_CO_U32_/, "V_ADDC_U32_"],
  [/^V_SUBB_CO_U32_/, "V_SUBB_U32_"],
  [/^V_SUBBREV_CO_U32_/, "V_SUBBREV_U32_"],
];

/**
 * The pseudo opcode of an MC opcode: the real suffix dropped (`_vi`, `_gfx9`, `_gfx10`,
 * `_gfx11`, `_gfx6_gfx7`, …); a VALU opcode left without an encoding suffix is VOP3-only
 * and gets `_e64` (hazards.md §1: `V_BFE_I32_vi` is the pseudo `V_BFE_I32_e64`).
 */
export function pseudoOf(real: string): string {
  let p = real.replace(/_(?:vi|si|ci|gfx\d\w*)$/, "");
  for (const [from, to] of RENAMED) p = p.replace(from, to);
  // GFX11 reals carry `_e64` (`V_WRITELANE_B32_e64_gfx11`); their pseudos have no suffix.
  p = p.replace(/^(V_READFIRSTLANE_B32|V_READLANE_B32|V_WRITELANE_B32)_e(32|64)$/, "$1");
  if (p.startsWith("V_") && !NO_ENC_SUFFIX.test(p)) return `${p}_e64`;
  return p;
}

/**
 * Parses `llvm-mc -show-inst` output: one entry per assembled instruction, in order.
 */
export function parseShowInst(stdout: string): { real: string; operands: McOperand[] }[] {
  const out: { real: string; operands: McOperand[] }[] = [];
  const chunks = stdout.split("<MCInst #").slice(1);
  for (const c of chunks) {
    const m = /^\d+\s+(\S+?)(?:>|\s|$)/.exec(c);
    if (!m) throw new Error(`llvm-mc -show-inst: cannot read ${c.slice(0, 80)}`);
    const operands: McOperand[] = [];
    // Operands up to the next instruction's text line (the chunk ends there).
    for (const o of c.matchAll(/<MCOperand (Reg|Imm|Expr|SFPImm|DFPImm):((?:\([^)]*\))|[^>]*)>/g)) {
      if (o[1] === "Reg") operands.push({ k: "reg", n: Number(o[2]) });
      else if (o[1] === "Expr") operands.push({ k: "expr", text: o[2]!.replace(/^\(|\)$/g, "") });
      else operands.push({ k: "imm", value: o[2]! });
    }
    out.push({ real: m[1]!, operands });
  }
  return out;
}

/** Lines of `input` (1-based) that llvm-mc rejected, with its message. */
function mcErrors(stderr: string): Map<number, string> {
  const bad = new Map<number, string>();
  for (const m of stderr.matchAll(/^<stdin>:(\d+):\d+: error: (.*)$/gm)) if (!bad.has(Number(m[1]))) bad.set(Number(m[1]), m[2]!);
  return bad;
}

/**
 * Assembles `texts` (one instruction each) in one llvm-mc run.
 * @returns per text its `McInfo`, or the assembler's error message.
 */
export async function mcAssemble(t: Pick<Target, "mcpu" | "wave">, texts: readonly string[]): Promise<Map<string, McInfo | { error: string }>> {
  const res = new Map<string, McInfo | { error: string }>();
  if (texts.length === 0) return res;
  const args = ["-triple=amdgcn-amd-amdhsa", ...targetArgs(t), "-show-inst"];
  const r = await runProcess(MIR_TOOLS.mc, args, texts.join("\n") + "\n");
  const bad = mcErrors(r.err);
  const insts = parseShowInst(r.out);
  let k = 0;
  texts.forEach((text, i) => {
    const e = bad.get(i + 1);
    if (e !== undefined) {
      res.set(text, { error: e });
      return;
    }
    const x = insts[k++];
    if (!x) throw new Error(`llvm-mc ${t.mcpu}: fewer instructions than lines (${r.err.slice(0, 400)})`);
    res.set(text, { real: x.real, pseudo: pseudoOf(x.real), operands: x.operands });
  });
  if (k !== insts.length) throw new Error(`llvm-mc ${t.mcpu}: ${insts.length} instructions for ${k} lines`);
  return res;
}

/** MC register number → MIR register name (`$vgpr2`, `$sgpr4_sgpr5`, `$vcc_lo`), per processor. */
const regTables = new Map<string, Map<number, string>>();

/** The MIR name of an operand register as llvm-mc writes it (`v[2:3]` → `$vgpr2_vgpr3`). */
export function mirReg(o: MOp): string {
  if (o.k === "v" || o.k === "s") {
    const p = o.k === "v" ? "vgpr" : "sgpr";
    return o.count === 1 ? `$${p}${o.n}` : `$${p}${o.n}_${p}${o.n + 1}`;
  }
  if (o.k === "imm" || o.k === "label") throw new Error(`not a register: ${printOp(o)}`);
  return `$${o.k}`;
}

/** Calibrates MC register numbers for a processor: v0..v63, pairs, s0..s101, pairs, vcc, exec, m0. */
export async function registerTable(t: Pick<Target, "mcpu" | "wave">): Promise<Map<number, string>> {
  const key = `${t.mcpu}/${t.wave}`;
  const have = regTables.get(key);
  if (have) return have;
  const lines: [string, string][] = [];
  for (let n = 0; n < 64; n++) lines.push([`v_mov_b32 v${n}, 0`, `$vgpr${n}`]);
  for (let n = 0; n < 63; n++) lines.push([`v_lshlrev_b64 v[${n}:${n + 1}], 0, v[${n}:${n + 1}]`, `$vgpr${n}_vgpr${n + 1}`]);
  for (let n = 0; n < 102; n++) lines.push([`s_mov_b32 s${n}, 0`, `$sgpr${n}`]);
  for (let n = 0; n < 101; n += 2) lines.push([`s_mov_b64 s[${n}:${n + 1}], 0`, `$sgpr${n}_sgpr${n + 1}`]);
  for (const x of ["vcc", "exec"]) lines.push([`s_mov_b64 ${x}, 0`, `$${x}`]);
  for (const x of ["vcc_lo", "vcc_hi", "exec_lo", "exec_hi", "m0"]) lines.push([`s_mov_b32 ${x}, 0`, `$${x}`]);
  const got = await mcAssemble(t, lines.map((l) => l[0]));
  const table = new Map<number, string>();
  for (const [text, name] of lines) {
    const x = got.get(text);
    if (!x || "error" in x) continue; // odd pairs on gfx90a/gfx942, vcc_hi in wave32, …
    const r = x.operands.find((o) => o.k === "reg");
    if (r && r.k === "reg") table.set(r.n, name);
  }
  regTables.set(key, table);
  return table;
}

// ---------------------------------------------------------------------------------------
// Implicit operands (what the MIR parser demands, in order)

/**
 * The implicit operands of a pseudo opcode, in the order the MIR parser checks them
 * (`MIParser::verifyImplicitOperands` names the first one missing). Classes: VALU reads
 * exec; VOPC e32 defines vcc (and `v_cmpx` exec); `V_CNDMASK_B32_e32`, carry-in VALU read
 * vcc; SALU that set SCC define it; `S_CSELECT`, `S_CBRANCH_SCC*` read it; saveexec defines
 * exec and SCC and reads exec. `undefined`: an opcode outside these classes.
 */
export function implicitOperands(op: string, gen: 9 | 10 | 11): string[] | undefined {
  if (/^(S_NOP|S_WAITCNT|S_WAITCNT_DEPCTR|S_DELAY_ALU|S_ENDPGM|S_BRANCH|S_MOV_B32|S_MOV_B64|S_SEXT_I32_I8|S_SEXT_I32_I16|S_BFM_B32|S_BFM_B64|S_FF1_I32_B32|S_FF1_I32_B64|S_BREV_B32|S_CMOVK_I32|S_MOVK_I32|S_SETPC_B64|S_GETPC_B64)$/.test(op)) return [];
  if (/^V_(READLANE|WRITELANE)_B32$/.test(op)) return [];
  // DS_BPERMUTE_B32 / DS_PERMUTE_B32: `Uses = [EXEC]` (DSInstructions.td); gfx9+ LDS needs no M0.
  if (/^DS_(BPERMUTE|PERMUTE)_B32$/.test(op)) return ["implicit $exec"];
  if (/^V_CMPX_\w+_e32$/.test(op)) return gen === 9 ? ["implicit-def $exec", "implicit-def $vcc", "implicit $exec"] : ["implicit-def $exec", "implicit $exec"];
  if (/^V_CMPX_\w+_e64$/.test(op)) return gen === 9 ? ["implicit-def $exec", "implicit $exec"] : ["implicit-def $exec", "implicit $exec"];
  if (/^V_CMP_\w+_e32$/.test(op)) return ["implicit-def $vcc", "implicit $exec"];
  if (/^V_(CNDMASK_B32|ADDC_U32|SUBB_U32|SUBBREV_U32|ADDC_CO_U32|SUBB_CO_U32|SUBBREV_CO_U32)_e32$/.test(op)) return /CNDMASK/.test(op) ? ["implicit $vcc", "implicit $exec"] : ["implicit-def $vcc", "implicit $vcc", "implicit $exec"];
  if (/^V_(ADD|SUB|SUBREV)_CO_U32_e32$/.test(op)) return ["implicit-def $vcc", "implicit $exec"];
  if (op.startsWith("V_")) return ["implicit $exec"];
  if (/^S_\w+_SAVEEXEC_B(32|64)$/.test(op)) return ["implicit-def $exec", "implicit-def $scc", "implicit $exec"];
  if (/^S_(CSELECT_B32|CSELECT_B64|CBRANCH_SCC0|CBRANCH_SCC1|ADDC_U32|SUBB_U32)$/.test(op)) return /ADDC|SUBB/.test(op) ? ["implicit-def $scc", "implicit $scc"] : ["implicit $scc"];
  if (/^S_CBRANCH_EXEC(Z|NZ)$/.test(op)) return ["implicit $exec"];
  if (/^S_CBRANCH_VCC(Z|NZ)$/.test(op)) return ["implicit $vcc", "implicit $exec"];
  if (/^S_(AND|OR|XOR|ANDN2|ORN2|NAND|NOR|XNOR|AND_NOT1|OR_NOT1)_B(32|64)$/.test(op)) return ["implicit-def $scc"];
  if (/^S_(LSHL|LSHR)_B(32|64)$|^S_ASHR_I(32|64)$|^S_BFE_[IU](32|64)$|^S_(ADD|SUB)_[IU]32$|^S_(MIN|MAX)_[IU]32$|^S_(NOT|WQM)_B(32|64)$|^S_BCNT[01]_I32_B(32|64)$|^S_ABS_I32$|^S_ABSDIFF_I32$|^S_LSHL[1-4]_ADD_U32$/.test(op)) return ["implicit-def $scc"];
  if (/^S_CMP_|^S_BITCMP/.test(op)) return ["implicit-def $scc"];
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Routines → MIR

/** The llvm-mc text of one instruction (branch targets spelled `.Lt`: only the opcode matters). */
export function mcText(i: MInst): string {
  const mn = i.op + (i.enc ? `_${i.enc}` : "");
  const ops = operandText(record(i.op), i.ops, (o) => (o.k === "label" ? ".Lt" : printOp(o)));
  return `${mn}${ops ? " " + ops : ""}`;
}

/** Explicit definitions of an instruction in MC operand order (VOPC e32: none, vcc is implicit). */
function defCount(i: MInst): number {
  const rec = record(i.op);
  if (rec.enc === "VOPC" && i.enc !== "e64") return 0;
  return rec.ops.filter((o) => o.out).length;
}

const BRANCH = /^s_(cbranch_\w+|branch)$/;

/** A block of MIR lines (instructions only) and its successors (block numbers). */
export interface MirBlock {
  insts: MirLine[];
  succs: number[];
}

/** One MIR instruction line and where it came from. */
export interface MirLine {
  text: string;
  /** `routine` with the instruction's index among the routine's instructions, or a boundary. */
  role: "producer" | "routine" | "consumer";
  index: number;
}

/** Thrown when an instruction cannot be translated (llvm-mc rejects it; an unknown opcode class). */
export class MirError extends Error {}

/**
 * Translates a routine's lines into MIR blocks: a block starts at each label and after each
 * branch; a conditional branch has its target and the fall-through as successors, `s_branch`
 * its target only. Block numbers start at `first`.
 * @throws MirError when llvm-mc rejected a line, or an opcode has no implicit-operand entry.
 */
export function routineBlocks(lines: readonly MLine[], t: Pick<Target, "mcpu" | "gen">, mc: Map<string, McInfo | { error: string }>, regs: Map<number, string>, first: number): MirBlock[] {
  // Split into blocks of (label?, instructions).
  type Raw = { label?: string; insts: { i: MInst; index: number }[] };
  const raw: Raw[] = [{ insts: [] }];
  let index = 0;
  for (const l of lines) {
    if (isLabel(l)) {
      raw.push({ label: l.label, insts: [] });
      continue;
    }
    raw[raw.length - 1]!.insts.push({ i: l, index: index++ });
    if (BRANCH.test(l.op)) raw.push({ insts: [] });
  }
  // Drop empty unlabelled blocks made by a branch followed by a label (keep block 0 and the last).
  const blocks = raw.filter((b, k) => k === 0 || k === raw.length - 1 || b.label !== undefined || b.insts.length > 0);
  const bbOf = new Map<string, number>();
  blocks.forEach((b, k) => b.label !== undefined && bbOf.set(b.label, first + k));
  return blocks.map((b, k) => {
    const succs: number[] = [];
    const last = b.insts[b.insts.length - 1]?.i;
    const fall = first + k + 1;
    const insts = b.insts.map(({ i, index }) => ({ text: mirInst(i, t, mc, regs, bbOf), role: "routine" as const, index }));
    if (last && BRANCH.test(last.op)) {
      const target = last.ops.find((o) => o.k === "label");
      const bb = target && target.k === "label" ? bbOf.get(target.name) : undefined;
      if (bb === undefined) throw new MirError(`branch to an unknown label: ${mcText(last)}`);
      succs.push(bb);
      if (last.op !== "s_branch") succs.push(fall);
    } else succs.push(fall); // the last block falls into the exit block
    return { insts, succs: [...new Set(succs)] };
  });
}

/** One instruction as a MIR line, from llvm-mc's MCInst. */
export function mirInst(i: MInst, t: Pick<Target, "mcpu" | "gen">, mc: Map<string, McInfo | { error: string }>, regs: Map<number, string>, bbOf: Map<string, number>): string {
  const text = mcText(i);
  const info = mc.get(text);
  if (!info) throw new MirError(`${t.mcpu}: not assembled: ${text}`);
  if ("error" in info) throw new MirError(`${t.mcpu}: llvm-mc rejects ${text}: ${info.error}`);
  const imp = implicitOperands(info.pseudo, t.gen);
  if (!imp) throw new MirError(`${t.mcpu}: no implicit-operand entry for ${info.pseudo} (${text}); add its class to implicitOperands`);
  const label = i.ops.find((o) => o.k === "label");
  const ops = info.operands.map((o) => {
    if (o.k === "imm") return o.value;
    if (o.k === "expr") {
      const bb = label && label.k === "label" ? bbOf.get(label.name) : undefined;
      if (bb === undefined) throw new MirError(`${t.mcpu}: expression operand without a block: ${text}`);
      return `%bb.${bb}`;
    }
    if (o.n === 0) return "$noreg";
    const name = regs.get(o.n);
    if (!name) throw new MirError(`${t.mcpu}: MC register ${o.n} not calibrated (${text})`);
    return name;
  });
  // The GFX10+ DPP reals carry FI as a last operand that the pseudo (`V_MOV_B32_dpp`, the GFX9
  // operand list) does not have: dropped when 0 (measured with llc-19: the pseudo with FI fails
  // to parse); FI = 1 has no MIR spelling here.
  if (/_dpp$/.test(info.pseudo) && t.gen !== 9) {
    const fi = ops.pop();
    if (fi !== "0") throw new MirError(`${t.mcpu}: ${text}: fi:1 has no MIR form in this oracle`);
  }
  const nd = defCount(i);
  if (nd > ops.length) throw new MirError(`${t.mcpu}: ${text}: ${nd} defs but ${ops.length} MC operands`);
  const defs = ops.slice(0, nd);
  const uses = [...ops.slice(nd), ...imp];
  return `${defs.length ? defs.join(", ") + " = " : ""}${info.pseudo}${uses.length ? " " + uses.join(", ") : ""}`;
}

// ---------------------------------------------------------------------------------------
// Boundaries

/**
 * A boundary instruction of the MIR: a producer before the routine or a consumer after it.
 * Which ones a routine gets is not decided here: the routine contract states it once
 * (targets/amdgpu/hazards.ts `contractBoundary`, via targets/amdgpu/routine.ts `boundaryOf`);
 * this file only maps each of its virtual instructions to concrete MIR.
 */
export interface MirBoundary {
  /** What it stands for, e.g. `s1 ← VALU (v_readfirstlane_b32)` or `DPP (v_mov_b32_dpp) reads v0`. */
  desc: string;
  /** The MIR line. */
  mir: string;
  /** The 32-bit registers it writes (producer) or reads (consumer), as `v0`, `s3`, `vcc_lo`. */
  regs: string[];
}

const TV = "$vgpr250";
const TS = "$sgpr100";

/** The boundary a routine was padded for (`AmdRoutine.boundary`: the contract's, from `boundaryOf`). */
export function routineBoundary(r: AmdRoutine): ContractBoundary {
  // A routine object built by hand (tests) may carry no boundary: the contract's, then.
  return r.boundary ?? boundaryOf(r.spec, r.layout, r.target);
}

/** `$vgpr3`, `$sgpr4`, `$vcc_lo` for a 32-bit unit. */
const unitReg = (u: RegUnit) => (/^v\d+$/.test(u) ? `$vgpr${u.slice(1)}` : /^s\d+$/.test(u) ? `$sgpr${u.slice(1)}` : `$${u}`);

/** A list of boundary instructions that keeps the first of each MIR text. */
function distinctByMir(): { out: MirBoundary[]; add: (x: MirBoundary) => void } {
  const out: MirBoundary[] = [];
  const seen = new Set<string>();
  return {
    out,
    add: (x) => {
      if (seen.has(x.mir)) return;
      seen.add(x.mir);
      out.push(x);
    },
  };
}

/**
 * Entry producers: the contract's `entryValu` units (a VALU wrote each in the instruction just
 * before the routine) and `entrySalu` units (EXEC, written by a SALU), as MIR. Per VGPR unit a
 * `V_MOV_B32_e32`; per SGPR unit a `V_READFIRSTLANE_B32` and a `V_CMP_EQ_U32_e64` (into the
 * aligned pair on wave64, the SGPR on wave32); the VCC units together by `V_CMP_EQ_U32_e32`
 * (implicit vcc) and `V_CMP_EQ_U32_e64` into vcc; EXEC by `S_MOV_B64` / `S_MOV_B32 exec_lo`.
 */
export function entryProducers(r: AmdRoutine): MirBoundary[] {
  const w64 = r.target.wave === 64;
  const b = routineBoundary(r);
  const { out, add } = distinctByMir();
  const vcc = b.entryValu.filter((u) => regKind(u) === "VCC");
  for (const u of b.entryValu) {
    const k = regKind(u);
    if (k === "VGPR") add({ desc: `${u} ← VALU (v_mov_b32_e32)`, mir: `${unitReg(u)} = V_MOV_B32_e32 0, implicit $exec`, regs: [u] });
    else if (k === "SGPR") {
      const n = Number(u.slice(1));
      add({ desc: `${u} ← VALU (v_readfirstlane_b32)`, mir: `$sgpr${n} = V_READFIRSTLANE_B32 ${TV}, implicit $exec`, regs: [u] });
      const e = n & ~1;
      if (w64) add({ desc: `s[${e}:${e + 1}] ← VALU (v_cmp_eq_u32_e64)`, mir: `$sgpr${e}_sgpr${e + 1} = V_CMP_EQ_U32_e64 0, ${TV}, implicit $exec`, regs: [`s${e}`, `s${e + 1}`] });
      else add({ desc: `${u} ← VALU (v_cmp_eq_u32_e64)`, mir: `$sgpr${n} = V_CMP_EQ_U32_e64 0, ${TV}, implicit $exec`, regs: [u] });
    } else if (k === "VCC" && u === vcc[0]) {
      add({ desc: `vcc ← VALU (v_cmp_eq_u32_e32)`, mir: `V_CMP_EQ_U32_e32 0, ${TV}, implicit-def $vcc, implicit $exec`, regs: vcc });
      add({ desc: `vcc ← VALU (v_cmp_eq_u32_e64)`, mir: `${w64 ? "$vcc" : "$vcc_lo"} = V_CMP_EQ_U32_e64 0, ${TV}, implicit $exec`, regs: vcc });
    } else if (k !== "VCC") throw new MirError(`entry producer for ${u}: no MIR mapping`);
  }
  if (b.entrySalu.some((u) => regKind(u) === "EXEC")) add({ desc: "exec ← SALU (s_mov)", mir: w64 ? "$exec = S_MOV_B64 -1" : "$exec_lo = S_MOV_B32 -1", regs: w64 ? ["exec_lo", "exec_hi"] : ["exec_lo"] });
  return out;
}

/**
 * Exit consumers: the contract's virtual `exit` instructions as MIR, by the `op` each names
 * and the units it reads. `v_mov_b32_dpp` → `V_MOV_B32_dpp` of each VGPR unit;
 * `v_readfirstlane_b32` (a lane read of the VGPR, src0) → `V_READFIRSTLANE_B32` and
 * `V_READLANE_B32` (the same read by the other lane-read instruction); `v_add_u32` (a VALU
 * operand) → `V_MOV_B32_e32` of each unit; `v_cndmask_b32` (a lane mask) →
 * `V_CNDMASK_B32_e64` with the mask, and `V_CNDMASK_B32_e32` (implicit vcc) when it is vcc;
 * `v_readlane_b32` / `v_writelane_b32` (lane select) → `V_READLANE_B32` / `V_WRITELANE_B32`
 * with each unit as the lane select.
 * @throws MirError for an exit `op` without a mapping (a contract change this must follow).
 */
export function exitConsumers(r: AmdRoutine): MirBoundary[] {
  const w64 = r.target.wave === 64;
  const { out, add } = distinctByMir();
  for (const c of routineBoundary(r).exit) {
    switch (c.op) {
      case "v_mov_b32_dpp":
        for (const u of c.srcs) add({ desc: `DPP (v_mov_b32_dpp) reads ${u}`, mir: `${TV} = V_MOV_B32_dpp ${TV}, ${unitReg(u)}, 177, 15, 15, 0, implicit $exec`, regs: [u] });
        break;
      case "v_readfirstlane_b32":
        for (const u of c.readlaneSrc) {
          add({ desc: `v_readlane_b32 reads ${u}`, mir: `${TS} = V_READLANE_B32 ${unitReg(u)}, 0`, regs: [u] });
          add({ desc: `v_readfirstlane_b32 reads ${u}`, mir: `${TS} = V_READFIRSTLANE_B32 ${unitReg(u)}, implicit $exec`, regs: [u] });
        }
        break;
      case "v_add_u32":
        for (const u of c.srcs) add({ desc: `VALU operand (v_mov_b32_e32) reads ${u}`, mir: `${TV} = V_MOV_B32_e32 ${unitReg(u)}, implicit $exec`, regs: [u] });
        break;
      case "v_cndmask_b32": {
        const isVcc = c.masks.every((u) => regKind(u) === "VCC");
        const mask = isVcc ? (w64 ? "$vcc" : "$vcc_lo") : c.masks.length === 2 ? `$sgpr${c.masks[0]!.slice(1)}_sgpr${c.masks[1]!.slice(1)}` : unitReg(c.masks[0]!);
        add({ desc: `lane mask (v_cndmask_b32_e64) reads ${mask.slice(1)}`, mir: `${TV} = V_CNDMASK_B32_e64 0, ${TV}, 0, ${TV}, ${mask}, implicit $exec`, regs: c.masks });
        if (isVcc) add({ desc: `lane mask (v_cndmask_b32_e32) reads vcc`, mir: `${TV} = V_CNDMASK_B32_e32 ${TV}, ${TV}, implicit $vcc, implicit $exec`, regs: c.masks });
        break;
      }
      case "v_readlane_b32":
        for (const u of c.laneSelect) add({ desc: `lane select (v_readlane_b32) reads ${u}`, mir: `${TS} = V_READLANE_B32 ${TV}, ${unitReg(u)}`, regs: [u] });
        break;
      case "v_writelane_b32":
        for (const u of c.laneSelect) add({ desc: `lane select (v_writelane_b32) reads ${u}`, mir: `${TV} = V_WRITELANE_B32 0, ${unitReg(u)}, ${TV}`, regs: [u] });
        break;
      default:
        throw new MirError(`exit consumer ${c.op} (${c.text}): no MIR mapping`);
    }
  }
  return out;
}

/** A (producer, consumer) pairing of one MIR function; either may be absent. */
export interface Pairing {
  producer?: MirBoundary;
  consumer?: MirBoundary;
}

/**
 * The boundary pairings a routine is run with: producers and consumers zipped (so every
 * producer and every consumer appears once), plus every (producer, consumer) pair that
 * touches the same register — an output the routine may leave as it came in (the empty
 * routine, a guarded prior) is producer → consumer directly, still the routine's problem.
 * Always at least one pairing.
 */
export function pairings(r: AmdRoutine): Pairing[] {
  const P = entryProducers(r);
  const C = exitConsumers(r);
  const n = Math.max(P.length, C.length, 1);
  const out: Pairing[] = [];
  const key = (p?: MirBoundary, c?: MirBoundary) => `${p?.mir ?? ""}|${c?.mir ?? ""}`;
  const seen = new Set<string>();
  for (let k = 0; k < n; k++) {
    const p = P[k % Math.max(P.length, 1)];
    const c = C[k % Math.max(C.length, 1)];
    seen.add(key(p, c));
    out.push({ ...(p ? { producer: p } : {}), ...(c ? { consumer: c } : {}) });
  }
  for (const p of P)
    for (const c of C)
      if (p.regs.some((x) => c.regs.includes(x)) && !seen.has(key(p, c))) {
        seen.add(key(p, c));
        out.push({ producer: p, consumer: c });
      }
  return out;
}

// ---------------------------------------------------------------------------------------
// Functions, modules, llc

/** One MIR function: a name, its blocks, and what it wraps. */
export interface MirFunction {
  name: string;
  blocks: MirBlock[];
  pairing: Pairing;
}

/**
 * A routine (its `lines`, possibly edited) as a MIR function with one pairing: block 0 holds
 * the producer, then the routine's blocks, then an exit block with the consumer and
 * `S_ENDPGM 0`.
 */
export function mirFunction(name: string, lines: readonly MLine[], t: Pick<Target, "mcpu" | "gen">, mc: Map<string, McInfo | { error: string }>, regs: Map<number, string>, pairing: Pairing): MirFunction {
  const body = routineBlocks(lines, t, mc, regs, 1);
  const exit = 1 + body.length;
  const entry: MirBlock = { insts: pairing.producer ? [{ text: pairing.producer.mir, role: "producer", index: 0 }] : [], succs: [1] };
  const last: MirBlock = { insts: [...(pairing.consumer ? [{ text: pairing.consumer.mir, role: "consumer" as const, index: 0 }] : []), { text: "S_ENDPGM 0", role: "consumer", index: 1 }], succs: [] };
  return { name, blocks: [entry, ...body.map((b) => ({ ...b, succs: b.succs.map((s) => Math.min(s, exit)) })), last], pairing };
}

/** The MIR text of one function. */
export function printMirFunction(f: MirFunction): string {
  const out = ["---", `name: ${f.name}`, "tracksRegLiveness: false", "body: |"];
  f.blocks.forEach((b, k) => {
    out.push(`  bb.${k}:`);
    if (b.succs.length) out.push(`    successors: ${b.succs.map((s) => `%bb.${s}`).join(", ")}`);
    for (const i of b.insts) out.push(`    ${i.text}`);
  });
  out.push("...");
  return out.join("\n") + "\n";
}

/** An instruction LLVM inserted, and where. */
export interface Inserted {
  /** The MIR line llc printed (`S_NOP 1`). */
  text: string;
  /** The original instruction right before it (`null`: at function entry). */
  after: MirLine | null;
  /** Its MIR text (or `entry`). */
  afterText: string;
  /** The original instruction right after it (the reader whose hazard it covers; `null`: none). */
  before: MirLine | null;
  /** The likely hazard (see `hazardCause`). */
  cause: HazardCause | null;
}

/**
 * The likely hazard an insertion covers: the reader is the original instruction right after
 * it; the producer an earlier original instruction (in layout order) that writes a register
 * the reader reads, the most hazard-like first (a VALU-written SGPR/VCC read by a VALU, a
 * VALU-written exec, a VALU-written VGPR read by DPP or a lane read, then SALU writes),
 * the nearest among equals. Not only the last writer: LLVM's checks look for the last VALU
 * write (`getWaitStatesSinceDef` with an `isVALU` predicate), past a later SALU write.
 * A heuristic for reports; LLVM does not say which check fired.
 */
export interface HazardCause {
  producer: MirLine | null;
  /** The register (32-bit unit: `v0`, `s4`, `vcc_lo`, `exec_lo`). */
  reg: string;
  /** `VALU`/`SALU` and the register class written: `VALU writes SGPR`, `VALU writes VCC`, … */
  producerKind: string;
  /** How the reader reads it: `VALU operand`, `lane mask`, `lane select`, `DPP`, `readlane VGPR`, `SALU operand`, `implicit exec`, … */
  readKind: string;
}

/** 32-bit register units of a MIR register name (`$sgpr4_sgpr5` → s4, s5; `$vcc` → vcc_lo, vcc_hi). */
export function regUnits(name: string): string[] {
  const n = name.replace(/^\$/, "");
  if (n === "vcc" || n === "exec") return [`${n}_lo`, `${n}_hi`];
  return n.split("_").every((x) => /^(vgpr|sgpr)\d+$/.test(x)) ? n.split("_").map((x) => x.replace("vgpr", "v").replace("sgpr", "s")) : [n];
}

/** Defined units, explicit read units and implicit read units of a MIR line. */
function regAccess(l: string): { defs: string[]; uses: string[]; implicitUses: string[]; useOps: string[] } {
  const eq = l.indexOf(" = ");
  const defs: string[] = [];
  if (eq >= 0) for (const m of l.slice(0, eq).matchAll(/\$[\w]+/g)) defs.push(...regUnits(m[0]));
  const rest = eq >= 0 ? l.slice(eq + 3) : l;
  const ops = rest.split(/,\s*/);
  ops[0] = ops[0]!.split(/\s+/).slice(1).join(" ");
  const uses: string[] = [];
  const implicitUses: string[] = [];
  const useOps: string[] = [];
  for (const o of ops) {
    const r = /\$[\w]+/.exec(o);
    if (/^implicit-def\b/.test(o.trim())) {
      if (r) defs.push(...regUnits(r[0]));
      continue;
    }
    if (/^implicit\b/.test(o.trim())) {
      if (r) implicitUses.push(...regUnits(r[0]));
      continue;
    }
    useOps.push(o.trim());
    if (r) uses.push(...regUnits(r[0]));
  }
  return { defs, uses, implicitUses, useOps };
}

function regClass(u: string): string {
  return u.startsWith("v") && /^v\d/.test(u) ? "VGPR" : u.startsWith("vcc") ? "VCC" : u.startsWith("exec") ? "EXEC" : u.startsWith("s") ? "SGPR" : u;
}

/** The likely cause of an insertion before `orig[at]` (see `HazardCause`). */
export function hazardCause(orig: readonly MirLine[], at: number): HazardCause | null {
  const reader = orig[at];
  if (!reader) return null;
  const ra = regAccess(reader.text);
  const opc = opcodeOf(reader.text);
  const readKind = (u: string, implicit: boolean): string => {
    if (implicit) return u.startsWith("exec") ? "implicit exec" : opc.startsWith("V_CNDMASK") ? "lane mask" : `implicit ${u}`;
    const idx = ra.useOps.findIndex((o) => /\$[\w]+/.test(o) && regUnits(/\$[\w]+/.exec(o)![0]).includes(u));
    if (/^V_(READLANE|WRITELANE)_B32/.test(opc)) return regClass(u) === "VGPR" ? "readlane VGPR" : idx === 1 ? "lane select" : "VALU operand";
    if (opc === "V_READFIRSTLANE_B32") return "readfirstlane VGPR";
    if (/_dpp$/.test(opc)) return regClass(u) === "VGPR" ? "DPP" : "VALU operand";
    if (opc.startsWith("V_CNDMASK") && regClass(u) !== "VGPR") return "lane mask";
    return opc.startsWith("V_") ? "VALU operand" : "SALU operand";
  };
  // Every unit the reader reads, with its nearest earlier writer; the most hazard-like wins.
  const rank = (pv: boolean, cls: string, kind: string): number => {
    if (pv && cls !== "VGPR" && kind !== "implicit exec" && opc.startsWith("V_")) return 0; // VALU-written SGPR/VCC read by a VALU
    if (pv && cls === "EXEC") return 1; // VALU-written exec (v_cmpx)
    if (pv && cls === "VGPR" && /DPP|readlane|readfirstlane/.test(kind)) return 2;
    if (!pv && kind !== "implicit exec") return 3; // SALU writes, read by anything
    if (!pv) return 4;
    return 5;
  };
  let best: (HazardCause & { r: number; d: number }) | null = null;
  for (const implicit of [false, true])
    for (const u of implicit ? ra.implicitUses : ra.uses)
      for (let k = at - 1; k >= 0; k--) {
        const p = orig[k]!;
        if (!regAccess(p.text).defs.includes(u)) continue;
        const po = opcodeOf(p.text);
        const kind = readKind(u, implicit);
        const r = rank(po.startsWith("V_"), regClass(u), kind);
        const cand = { producer: p, reg: u, producerKind: `${po.startsWith("V_") ? "VALU" : po.startsWith("S_") ? "SALU" : po} writes ${regClass(u)}`, readKind: kind, r, d: at - k };
        if (!best || r < best.r || (r === best.r && cand.d < best.d)) best = cand;
      }
  if (best) {
    const { r: _r, d: _d, ...c } = best;
    return c;
  }
  return { producer: null, reg: "?", producerKind: "unknown", readKind: "unknown" };
}

/** Instruction lines per function of llc's MIR output. */
export function parseMirOutput(text: string): Map<string, string[]> {
  const res = new Map<string, string[]>();
  for (const doc of text.split(/^---\s*$/m)) {
    const nm = /^name:\s+(\S+)/m.exec(doc);
    const bi = doc.search(/^body:\s+\|/m);
    if (!nm || bi < 0) continue;
    const lines: string[] = [];
    for (const raw of doc.slice(bi).split("\n").slice(1)) {
      const l = raw.trim();
      if (l === "" || l === "..." || l.startsWith(";") || /^bb\.\d+/.test(l) || /^(successors|liveins):/.test(l)) continue;
      if (!raw.startsWith("    ")) break; // left the body
      lines.push(l);
    }
    res.set(nm[1]!, lines);
  }
  return res;
}

/** The opcode of a MIR instruction line (`$vgpr0 = V_MOV_B32_e32 …` → `V_MOV_B32_e32`). */
export function opcodeOf(l: string): string {
  const eq = l.indexOf(" = ");
  return (eq >= 0 ? l.slice(eq + 3) : l).split(/[\s,]/)[0] ?? "";
}

/** The opcode and the defs of a MIR instruction line: what the diff matches on. */
function lineKey(l: string): string {
  const eq = l.indexOf(" = ");
  const head = eq >= 0 ? l.slice(eq + 3) : l;
  const opc = head.split(/[\s,]/)[0] ?? "";
  const defs = eq >= 0 ? l.slice(0, eq).replace(/\b(renamable|dead|killed|early-clobber|undef|internal)\s+/g, "").replace(/\s+/g, "") : "";
  return `${opc}|${defs}`;
}

/**
 * What llc inserted into a function: the longest common subsequence of the original lines
 * and llc's lines (by opcode and defs) is what was kept; every other output line is inserted,
 * positioned after the last kept original before it.
 */
export function diffInserted(f: MirFunction, out: readonly string[]): Inserted[] {
  const orig = f.blocks.flatMap((b) => b.insts);
  const a = orig.map((x) => lineKey(x.text));
  const b = out.map(lineKey);
  const n = a.length;
  const m = b.length;
  const L: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i]![j] = a[i] === b[j] ? L[i + 1]![j + 1]! + 1 : Math.max(L[i + 1]![j]!, L[i]![j + 1]!);
  const ins: (Inserted & { at: number })[] = [];
  const kept: number[] = [];
  let i = 0;
  let j = 0;
  let prev: MirLine | null = null;
  while (j < m) {
    if (i < n && a[i] === b[j] && L[i]![j] === L[i + 1]![j + 1]! + 1) {
      prev = orig[i]!;
      kept.push(i);
      i++;
      j++;
    } else if (i < n && L[i + 1]![j]! >= L[i]![j + 1]!) i++;
    else {
      ins.push({ text: out[j]!, after: prev, afterText: prev ? prev.text : "entry", before: null, cause: null, at: i });
      j++;
    }
  }
  if (L[0]![0]! !== n) throw new MirError(`${f.name}: llc dropped original instructions (${n - L[0]![0]!})`);
  return ins.map(({ at, ...x }) => {
    const k = kept.find((q) => q >= at);
    return { ...x, before: k === undefined ? null : orig[k]!, cause: k === undefined ? null : hazardCause(orig, k) };
  });
}

/** Runs one llc process on a module; rejects with llc's message on failure. */
export async function runLlc(t: Pick<Target, "mcpu" | "wave">, pass: OraclePass, mir: string): Promise<string> {
  const args = ["-mtriple=amdgcn-amd-amdhsa", ...targetArgs(t), `-run-pass=${pass}`, "-x", "mir", "-", "-o", "-"];
  const r = await runProcess(MIR_TOOLS.llc, args, mir);
  if (r.code !== 0) throw new MirError(`llc ${t.mcpu} ${pass}: exit ${r.code}: ${r.err.split("\n").slice(0, 6).join("\n")}`);
  return r.out;
}

/** The result of running functions through llc: per function name, what llc inserted, or why it failed. */
export type LlcResult = { inserted: Inserted[] } | { error: string };

/**
 * Runs functions through llc in batches (`batch` functions per process, processes in
 * parallel up to the cores). A batch that fails is split in halves until the failing
 * functions are isolated, so one bad translation costs only itself.
 * `si-insert-waitcnts`: the `S_WAITCNT 0` it adds at function entry is dropped.
 */
export async function runFunctions(t: Pick<Target, "mcpu" | "wave">, pass: OraclePass, fns: readonly MirFunction[], batch = 3000): Promise<Map<string, LlcResult>> {
  const res = new Map<string, LlcResult>();
  const one = async (group: readonly MirFunction[]): Promise<void> => {
    if (group.length === 0) return;
    let out: string;
    try {
      out = await runLlc(t, pass, group.map(printMirFunction).join(""));
    } catch (e) {
      if (group.length === 1) {
        res.set(group[0]!.name, { error: (e as Error).message });
        return;
      }
      const h = Math.ceil(group.length / 2);
      await Promise.all([one(group.slice(0, h)), one(group.slice(h))]);
      return;
    }
    const parsed = parseMirOutput(out);
    for (const f of group) {
      const lines = parsed.get(f.name);
      if (!lines) {
        res.set(f.name, { error: "missing from llc's output" });
        continue;
      }
      try {
        let ins = diffInserted(f, lines);
        if (pass === "si-insert-waitcnts") ins = ins.filter((x) => !(x.after === null && /^S_WAITCNT 0$/.test(x.text)));
        res.set(f.name, { inserted: ins });
      } catch (e) {
        res.set(f.name, { error: (e as Error).message });
      }
    }
  };
  const groups: MirFunction[][] = [];
  for (let k = 0; k < fns.length; k += batch) groups.push(fns.slice(k, k + batch));
  await Promise.all(groups.map(one));
  return res;
}

// ---------------------------------------------------------------------------------------
// The oracle on routines

/** A routine to check: its lines (as emitted, or edited) on a target with a contract. */
export interface OracleItem {
  /** A name for reports. */
  label: string;
  routine: AmdRoutine;
  /** The lines to run (default: the routine's own). */
  lines?: readonly MLine[];
}

/** One (routine, pairing) where LLVM inserted something, or could not be translated. */
export interface OracleFinding {
  pairing: Pairing;
  inserted: Inserted[];
  error?: string;
}

/** The oracle's verdict on one routine: `clean` when LLVM inserts nothing in any pairing. */
export interface OracleVerdict {
  item: OracleItem;
  functions: number;
  clean: boolean;
  findings: OracleFinding[];
}

/**
 * Runs routines through the oracle on one target: every routine × every pairing
 * (`pairings`) as a MIR function, batched through llc with `pass`.
 * Translation failures (llvm-mc rejects a line; an opcode outside `implicitOperands`) are
 * findings with `error`, never exceptions.
 */
export async function oracle(t: Target, items: readonly OracleItem[], pass: OraclePass = "post-RA-hazard-rec", batch = 3000): Promise<OracleVerdict[]> {
  const insts = items.flatMap((it) => (it.lines ?? it.routine.lines).filter((l): l is MInst => !isLabel(l)));
  const texts = [...new Set(insts.map(mcText))];
  const [mc, regs] = await Promise.all([mcAssemble(t, texts), registerTable(t)]);
  const fns: MirFunction[] = [];
  const per: { item: OracleItem; fns: MirFunction[]; error?: string }[] = [];
  items.forEach((item, k) => {
    const entry = { item, fns: [] as MirFunction[] } as { item: OracleItem; fns: MirFunction[]; error?: string };
    per.push(entry);
    try {
      pairings(item.routine).forEach((p, j) => entry.fns.push(mirFunction(`r${k}_${j}`, item.lines ?? item.routine.lines, t, mc, regs, p)));
      fns.push(...entry.fns);
    } catch (e) {
      entry.error = (e as Error).message;
    }
  });
  const got = await runFunctions(t, pass, fns, batch);
  return per.map(({ item, fns, error }) => {
    if (error) return { item, functions: 0, clean: false, findings: [{ pairing: {}, inserted: [], error }] };
    const findings: OracleFinding[] = [];
    for (const f of fns) {
      const r = got.get(f.name)!;
      if ("error" in r) findings.push({ pairing: f.pairing, inserted: [], error: r.error });
      else if (r.inserted.length) findings.push({ pairing: f.pairing, inserted: r.inserted });
    }
    return { item, functions: fns.length, clean: findings.length === 0, findings };
  });
}

/**
 * Runs one hand-built sequence (no contract needed) through llc with an optional pairing:
 * what LLVM inserted, in order. For tests and for checking a single site.
 * @throws MirError when a line does not translate or llc fails.
 */
export async function runSequence(t: Target, lines: readonly MLine[], pass: OraclePass = "post-RA-hazard-rec", pairing: Pairing = {}): Promise<Inserted[]> {
  const texts = [...new Set(lines.filter((l): l is MInst => !isLabel(l)).map(mcText))];
  const [mc, regs] = await Promise.all([mcAssemble(t, texts), registerTable(t)]);
  const f = mirFunction("seq", lines, t, mc, regs, pairing);
  const r = (await runFunctions(t, pass, [f])).get("seq")!;
  if ("error" in r) throw new MirError(r.error);
  return r.inserted;
}

/** The MIR text of a hand-built sequence with an optional pairing (what `runSequence` runs). */
export async function sequenceMir(t: Target, lines: readonly MLine[], pairing: Pairing = {}): Promise<string> {
  const texts = [...new Set(lines.filter((l): l is MInst => !isLabel(l)).map(mcText))];
  const [mc, regs] = await Promise.all([mcAssemble(t, texts), registerTable(t)]);
  return printMirFunction(mirFunction("seq", lines, t, mc, regs, pairing));
}

// ---------------------------------------------------------------------------------------
// Minimality

/** Whether an instruction is a wait the hazard pass counts: `s_nop N` (N + 1) or `s_waitcnt_depctr`. */
export function isWait(l: MLine): l is MInst {
  return !isLabel(l) && (l.op === "s_nop" || l.op === "s_waitcnt_depctr");
}

/** One weakened variant of a routine: one wait lowered by one (`s_nop N` → N − 1) or deleted. */
export interface WaitVariant {
  /** Index of the wait among the routine's lines. */
  line: number;
  /** The wait as written and what the variant has instead. */
  was: string;
  now: string | null;
  lines: MLine[];
}

/** One variant per wait: `s_nop N` (N ≥ 1) → `s_nop N−1`; `s_nop 0` and `s_waitcnt_depctr` deleted. */
export function waitVariants(lines: readonly MLine[]): WaitVariant[] {
  const out: WaitVariant[] = [];
  lines.forEach((l, k) => {
    if (!isWait(l)) return;
    const n = l.op === "s_nop" && l.ops[0]?.k === "imm" ? l.ops[0].value : 0n;
    if (l.op === "s_nop" && n > 0n) {
      const lower: MInst = { ...l, ops: [{ k: "imm", value: n - 1n }] };
      out.push({ line: k, was: mcText(l), now: mcText(lower), lines: lines.map((x, j) => (j === k ? lower : x)) });
    } else out.push({ line: k, was: mcText(l), now: null, lines: lines.filter((_, j) => j !== k) });
  });
  return out;
}

/** Minimality of one wait: `minimal` when LLVM adds a wait back to the weakened variant. */
export interface MinimalityResult {
  label: string;
  variant: WaitVariant;
  minimal: boolean;
  /** What LLVM inserted into the variant (all pairings), or a translation error. */
  findings: OracleFinding[];
}

/** Wait states an inserted line stands for: `S_NOP N` N + 1; any other instruction 1. */
export function insertedWaitStates(x: Inserted): number {
  const m = /^S_NOP (\d+)/.exec(x.text);
  return m ? Number(m[1]) + 1 : 1;
}

/**
 * Minimality (issue 11 "Done when"): for each routine with waits, each wait weakened by one
 * (`waitVariants`) is run through the oracle with every pairing, next to the routine as it
 * is; the wait is minimal when, in some pairing, LLVM inserts more wait states into the
 * variant than into the original (so a boundary wait LLVM adds to both does not count).
 */
export async function minimality(t: Target, items: readonly OracleItem[], pass: OraclePass = "post-RA-hazard-rec"): Promise<MinimalityResult[]> {
  const vs = items.flatMap((it) => waitVariants(it.lines ?? it.routine.lines).map((variant) => ({ it, variant })));
  const [base, got] = await Promise.all([
    oracle(t, items, pass),
    oracle(
      t,
      vs.map(({ it, variant }) => ({ label: it.label, routine: it.routine, lines: variant.lines })),
      pass,
    ),
  ]);
  const states = (v: OracleVerdict) => {
    const m = new Map<string, number>();
    for (const f of v.findings) if (!f.error) m.set(`${f.pairing.producer?.mir ?? ""}|${f.pairing.consumer?.mir ?? ""}`, f.inserted.reduce((n, x) => n + insertedWaitStates(x), 0));
    return m;
  };
  const baseOf = new Map(items.map((it, k) => [it, states(base[k]!)]));
  return got.map((g, k) => {
    const before = baseOf.get(vs[k]!.it)!;
    const after = states(g);
    const more = [...after].some(([key, n]) => n > (before.get(key) ?? 0));
    return { label: vs[k]!.it.label, variant: vs[k]!.variant, minimal: more && g.findings.every((f) => !f.error), findings: g.findings };
  });
}

/** A short text of one finding: the pairing and each insertion with its position. */
export function findingText(f: OracleFinding): string {
  const pc = `[${f.pairing.producer?.desc ?? "no producer"} | ${f.pairing.consumer?.desc ?? "no consumer"}]`;
  if (f.error) return `${pc} error: ${f.error}`;
  return `${pc} ${f.inserted.map((x) => `${x.text} after ${x.after ? `${x.after.role}${x.after.role === "routine" ? ` #${x.after.index}` : ""} ${x.afterText}` : "entry"}`).join("; ")}`;
}

export type { Mcpu };
