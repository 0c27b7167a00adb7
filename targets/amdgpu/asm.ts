/**
 * @fileoverview A parser of llvm-mc / llc AMDGPU assembly syntax, for the subset the
 * interpreter runs: one instruction per line, `mnemonic[_e32|_e64] op, op, …`, labels
 * (`.LBB0_1:`), comments (`;`, `//`). It turns LLVM's output into `MLine`s
 * (targets/amdgpu/minst.ts) so that code nobody here wrote can be run by the project's
 * interpreter (targets/amdgpu/oracle/llvm.ts).
 *
 * Operands: `v5`, `v[4:5]`, `s3`, `s[2:3]`, `vcc`, `vcc_lo`, `exec`, `exec_lo`, integer
 * constants (decimal, signed, or hex), labels. Everything the interpreter cannot represent
 * is rejected with an `AsmError` that names it: SDWA/VOPD encodings and DPP forms without a
 * record, operand modifiers (`sext()`, `neg()`, `abs()`, `|x|`, `-v1`), trailing modifiers
 * of records without encoding fields (`clamp`, `op_sel:…`), float constants, and registers
 * outside the model (`m0`, `ttmp*`, `v[0:3]` wider than a pair).
 *
 * Records with encoding fields (`ctrl` operands: DS `offset:N`, the DPP controls and masks,
 * `bound_ctrl`, `fi`, the permlanes' `op_sel:[fi,bc]`) take their trailing modifiers as those
 * operands (isa/syntax.ts); `bound_ctrl:0`, the generation-only DPP controls and symbolic
 * `s_waitcnt` counters need `ParseOptions.gen`.
 *
 * Renamed mnemonics (GFX11 spellings of the same operation) are mapped to the table's name:
 * `s_and_not1_*` → `s_andn2_*`, `s_or_not1_*` → `s_orn2_*`, `s_ctz_i32_*` → `s_ff1_i32_*`.
 *
 * One modifier is modelled: `op_sel:[x,y]` of `v_pk_mov_b32` (gfx90a's 64-bit move), which
 * becomes a trailing immediate operand x | y << 1, as its record expects (isa/vop3.ts).
 */
import type { Mnemonic } from "./isa/index.js";
import { isMnemonic, record } from "./isa/index.js";
import type { Gen } from "./isa/record.js";
import { waitcntSimm16 } from "./isa/sopp.js";
import { parseModifiers } from "./isa/syntax.js";
import type { MInst, MLine, MOp, SrcMod } from "./minst.js";
import { isLabel } from "./minst.js";

/** A parsed line: its mnemonic is whatever the text said (see `recorded`). */
export type AsmLine = MLine<string>;

export class AsmError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly text: string,
  ) {
    super(`line ${line}: ${message}: ${text.trim()}`);
  }
}

/** GFX11 renames: the same instruction under the name the record table uses. */
export const MNEMONIC_ALIASES: Readonly<Record<string, string>> = {
  s_and_not1_b32: "s_andn2_b32",
  s_and_not1_b64: "s_andn2_b64",
  s_or_not1_b32: "s_orn2_b32",
  s_or_not1_b64: "s_orn2_b64",
  s_and_not1_saveexec_b32: "s_andn2_saveexec_b32",
  s_and_not1_saveexec_b64: "s_andn2_saveexec_b64",
  s_ctz_i32_b32: "s_ff1_i32_b32",
  s_ctz_i32_b64: "s_ff1_i32_b64",
};

/**
 * Instructions outside the interpreter's model that end or pace a function but compute
 * nothing it checks: the return, the end of a program, clause markers, prefetch hints. The
 * waits (`s_nop`, `s_waitcnt*`, `s_delay_alu`) are records (isa/sopp.ts) and are kept: the
 * hazard check and the cycle counts need them.
 */
export const IGNORED_MNEMONICS: ReadonlySet<string> = new Set(["s_clause", "s_setpc_b64", "s_endpgm", "s_sleep", "s_set_inst_prefetch_distance", "s_inst_prefetch"]);

/**
 * Waits whose operand llvm-mc writes symbolically (`s_waitcnt lgkmcnt(0)`,
 * `s_delay_alu instid0(VALU_DEP_1) | …`). `s_waitcnt`'s counters become its SIMM16 for the
 * generation given (isa/sopp.ts `waitcntSimm16`: the LDS wait model reads lgkmcnt from it);
 * without a generation only a text that waits for lgkmcnt(0) (or names no counter) can be
 * encoded, as 0. The other waits' operands become 0 (only their issue cycles count).
 */
const SYMBOLIC_WAITS: ReadonlySet<string> = new Set(["s_waitcnt", "s_waitcnt_vscnt", "s_waitcnt_expcnt", "s_waitcnt_lgkmcnt", "s_waitcnt_vmcnt", "s_delay_alu"]);

/** Whether `mn`'s record carries `op_sel:[x,y]` as a last immediate operand `opsel` (x | y << 1). */
const hasOpselOperand = (mn: string): boolean => isMnemonic(mn) && record(mn).ops.some((o) => o.name === "opsel");

export interface ParseOptions {
  /** Drop `IGNORED_MNEMONICS` instead of returning them (default true). */
  dropIgnored?: boolean;
  /** The `rule` recorded on every parsed instruction (default "asm"). */
  rule?: string;
  /**
   * The ISA generation of the code: needed to encode a symbolic `s_waitcnt` exactly and to
   * read `bound_ctrl:0` (whose bit differs on gfx11) and the generation-only DPP controls.
   */
  gen?: Gen;
}

/**
 * SIMM16 of a symbolic wait (`s_waitcnt vmcnt(0) lgkmcnt(1)`, `&`/`,` separators allowed;
 * `s_waitcnt_lgkmcnt null, N`; the other `s_waitcnt_*cnt` forms, which wait for no LGKM
 * result) on generation `gen`. Without a generation: a wait that does not name lgkmcnt
 * becomes 0xffff (every field at its maximum on every generation: no lgkmcnt wait), one that
 * waits for lgkmcnt(0) becomes 0 (as before: every counter waited for), anything else is an
 * error.
 */
function waitcntOperand(mn: string, text: string, gen: Gen | undefined): bigint {
  if (mn === "s_waitcnt" && /^(0x[0-9a-f]+|\d+)$/i.test(text)) return BigInt(text);
  const c: { vmcnt?: number; expcnt?: number; lgkmcnt?: number } = {};
  if (mn === "s_waitcnt") for (const m of text.matchAll(/(vmcnt|expcnt|lgkmcnt)\((\d+)\)/g)) c[m[1] as "vmcnt"] = Number(m[2]);
  else if (mn === "s_waitcnt_lgkmcnt") {
    const m = /(0x[0-9a-f]+|\d+)\s*$/i.exec(text);
    if (!m) throw new Error(`${mn} ${text}: no count`);
    c.lgkmcnt = Number(BigInt(m[1]!));
  }
  if (c.lgkmcnt === undefined) return gen === undefined ? 0xffffn : waitcntSimm16(c, gen);
  if (gen !== undefined) return waitcntSimm16(c, gen);
  if (c.lgkmcnt === 0) return 0n;
  throw new Error(`${mn} ${text}: encoding it needs the processor generation`);
}

const SPECIAL: Record<string, MOp> = {
  vcc: { k: "vcc" },
  vcc_lo: { k: "vcc_lo" },
  exec: { k: "exec" },
  exec_lo: { k: "exec_lo" },
  // Wave64 only (the interpreter refuses them on wave32): clang uses exec_hi for lanes 32–63.
  vcc_hi: { k: "vcc_hi" },
  exec_hi: { k: "exec_hi" },
  // gfx10+: SGPR_NULL (a discarded destination, 0 as a source).
  null: { k: "null" },
};

/**
 * The inline float constants (AMD Vega ISA §3.6.2 / RDNA3 §3.3.7 "Inline constants"): in an
 * integer operand they stand for their IEEE bits, single precision in a 32-bit operand and
 * double in a 64-bit one. 1/(2π) is written `0.15915494` by llvm-mc.
 */
function inlineFloat(t: string): MOp | null {
  const known = ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0", "0.15915494"];
  if (!known.includes(t)) return null;
  const x = t === "0.15915494" ? 1 / (2 * Math.PI) : Number(t);
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat32(0, x);
  const f32 = BigInt(dv.getUint32(0));
  dv.setFloat64(0, x);
  return { k: "imm", value: f32, fp64: dv.getBigUint64(0) };
}

/** Parses one operand. Throws a plain Error with the reason; the caller adds the line. */
export function parseOperand(text: string): MOp {
  const t = text.trim();
  let m: RegExpExecArray | null;
  if ((m = /^([vs])(\d+)$/.exec(t))) return { k: m[1] as "v" | "s", n: Number(m[2]), count: 1 };
  if ((m = /^([vs])\[(\d+):(\d+)\]$/.exec(t))) {
    const lo = Number(m[2]);
    const count = Number(m[3]) - lo + 1;
    if (count === 1 || count === 2) return { k: m[1] as "v" | "s", n: lo, count };
    throw new Error(`register tuple ${t} is wider than the interpreter's pairs`);
  }
  if (SPECIAL[t]) return SPECIAL[t]!;
  if (/^-?\d+$/.test(t)) return { k: "imm", value: BigInt(t) };
  if (/^-?0x[0-9a-f]+$/i.test(t)) return { k: "imm", value: t.startsWith("-") ? -BigInt(t.slice(1)) : BigInt(t) };
  if (/^\.?[A-Za-z_][\w.$]*$/.test(t) && /^(\.L|[A-Za-z_])/.test(t) && !/^(m0|scc|ttmp\d+|flat_scratch\w*|src_\w+|off)$/.test(t))
    return { k: "label", name: t };
  const fp = inlineFloat(t);
  if (fp) return fp;
  if (/^-?\d*\.\d+$/.test(t) || /^-?\d+\.\d*$/.test(t)) throw new Error(`float constant ${t} is not modelled`);
  // VOP3 source modifiers (minst.ts SrcMod): `-x`, `|x|`, `-|x|`, `neg(K)`, `abs(K)`, `neg(abs(K))`.
  const mod = srcModOf(t);
  if (mod) return mod;
  if (/^(sext|neg|abs)\(/.test(t) || /^\|.*\|$/.test(t) || /^-[vs]/.test(t)) throw new Error(`operand modifier in ${t} is not modelled`);
  throw new Error(`operand ${t} is not modelled`);
}

/** A register or constant with a VOP3 abs/neg source modifier, or null. */
function srcModOf(t: string): MOp | null {
  let m: RegExpExecArray | null;
  let inner: string;
  let mod: SrcMod;
  if ((m = /^-\|(.+)\|$/.exec(t)) || (m = /^neg\(abs\((.+)\)\)$/.exec(t))) [inner, mod] = [m[1]!, "negabs"];
  else if ((m = /^\|(.+)\|$/.exec(t)) || (m = /^abs\((.+)\)$/.exec(t))) [inner, mod] = [m[1]!, "abs"];
  else if ((m = /^-([vs](?:\d+|\[\d+:\d+\]))$/.exec(t)) || (m = /^neg\((.+)\)$/.exec(t))) [inner, mod] = [m[1]!, "neg"];
  else return null;
  const o = parseOperand(inner);
  if (o.k !== "v" && o.k !== "s" && o.k !== "imm") throw new Error(`operand modifier in ${t} is not modelled`);
  if (o.k === "imm" && o.fp64 !== undefined) throw new Error(`operand modifier on a float constant in ${t} is not modelled`);
  return { ...o, mod };
}

/** Splits the operand field at top-level commas (commas inside `[]`/`()` stay). */
function splitOperands(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of s) {
    if (ch === "[" || ch === "(") depth++;
    if (ch === "]" || ch === ")") depth--;
    if (ch === "," && depth === 0) {
      out.push(cur.trim());
      cur = "";
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/**
 * Parses assembly text into lines. Directives (`.text`, `.p2align` …), comments and blank
 * lines are skipped; a label line `name:` becomes an `MLabel`.
 * @throws AsmError for anything outside the subset (see the file overview).
 */
export function parseAsm(text: string, opts: ParseOptions = {}): AsmLine[] {
  const drop = opts.dropIgnored ?? true;
  const rule = opts.rule ?? "asm";
  const out: AsmLine[] = [];
  text.split("\n").forEach((raw, i) => {
    const lineNo = i + 1;
    let s = raw.replace(/(;|\/\/).*$/, "").trim();
    if (!s) return;
    const lab = /^([.\w$]+):$/.exec(s);
    if (lab) {
      out.push({ label: lab[1]! });
      return;
    }
    if (s.startsWith(".")) return; // directive
    const sp = s.search(/\s/);
    let mn = (sp < 0 ? s : s.slice(0, sp)).toLowerCase();
    s = sp < 0 ? "" : s.slice(sp).trim();
    if (IGNORED_MNEMONICS.has(mn)) {
      if (!drop) out.push({ op: mn, ops: [], rule });
      return;
    }
    if (SYMBOLIC_WAITS.has(mn)) {
      let value = /^(0x[0-9a-f]+|\d+)$/i.test(s) ? BigInt(s) : 0n;
      if (mn !== "s_delay_alu")
        try {
          value = waitcntOperand(mn, s, opts.gen);
        } catch (err) {
          throw new AsmError((err as Error).message, lineNo, raw);
        }
      out.push({ op: mn === "s_delay_alu" || mn === "s_waitcnt" ? mn : "s_waitcnt", ops: [{ k: "imm", value }], rule });
      return;
    }
    // A recorded DPP mnemonic (`v_mov_b32_dpp`, isa/dpp.ts) is kept; other DPP/SDWA/VOPD forms are not modelled.
    if ((/_(sdwa|dpp|dpp8)$/.test(mn) && !isMnemonic(mn)) || mn.startsWith("v_dual_")) throw new AsmError(`encoding of ${mn} is not modelled (SDWA/DPP/VOPD)`, lineNo, raw);
    let enc: MInst<string>["enc"];
    const e = /_(e32|e64)$/.exec(mn);
    if (e) {
      enc = e[1] as "e32" | "e64";
      mn = mn.slice(0, -4);
    }
    mn = MNEMONIC_ALIASES[mn] ?? mn;
    // Trailing modifiers follow the last operand after whitespace (`… v2 clamp`, `op_sel:[0,1]`).
    const fields = splitOperands(s);
    const last = fields.length ? fields[fields.length - 1]! : "";
    const tail = /^(\S+)\s+(.+)$/.exec(last);
    let opsel: bigint | undefined;
    if (hasOpselOperand(mn)) opsel = 0n;
    // Records with encoding fields (DS offset, DPP controls, permlane op_sel): the words after
    // the last operand are their modifiers (isa/syntax.ts), appended as the `ctrl` operands.
    let ctrls: bigint[] | undefined;
    if (isMnemonic(mn) && record(mn).ops.some((o) => o.ctrl)) {
      try {
        const vals = parseModifiers(record(mn), tail ? tail[2]!.trim().split(/\s+/) : [], opts.gen);
        ctrls = [...vals.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
      } catch (err) {
        throw new AsmError((err as Error).message, lineNo, raw);
      }
      if (tail) fields[fields.length - 1] = tail[1]!;
    } else if (tail) {
      const os = /^op_sel:\[([01]),([01])\]$/.exec(tail[2]!.trim());
      if (!os || opsel === undefined) throw new AsmError(`modifier "${tail[2]}" is not modelled`, lineNo, raw);
      opsel = BigInt(os[1]!) | (BigInt(os[2]!) << 1n);
      fields[fields.length - 1] = tail[1]!;
    }
    const ops: MOp[] = [];
    for (const f of fields) {
      if (/^[a-z_]+:/.test(f) || /^(clamp|glc|slc|dlc|off|offen|idxen)$/.test(f)) throw new AsmError(`modifier "${f}" is not modelled`, lineNo, raw);
      let o: MOp;
      try {
        o = parseOperand(f);
      } catch (err) {
        throw new AsmError((err as Error).message, lineNo, raw);
      }
      // A source modifier only where the record takes one (isa/record.ts `srcMods`).
      if ((o.k === "v" || o.k === "s" || o.k === "imm") && o.mod && !(isMnemonic(mn) && record(mn).srcMods)) throw new AsmError(`operand modifier in ${f} is not modelled`, lineNo, raw);
      ops.push(o);
    }
    if (opsel !== undefined) ops.push({ k: "imm", value: opsel });
    if (ctrls) for (const value of ctrls) ops.push({ k: "imm", value });
    const inst: MInst<string> = { op: mn, ops, rule };
    if (enc) inst.enc = enc;
    out.push(inst);
  });
  return out;
}

/**
 * Parsed lines narrowed to the record table: `lines` when every mnemonic has a record (the
 * interpreter, the hazard model and the cycle counts can take them), else the distinct
 * mnemonics that have none, in order of first use.
 */
export function recorded(lines: readonly AsmLine[]): { lines: MLine[] } | { missing: string[] } {
  const missing = [...new Set(lines.filter((l): l is MInst<string> => !isLabel(l) && !isMnemonic(l.op)).map((l) => l.op))];
  if (missing.length) return { missing };
  return { lines: lines.map((l) => (isLabel(l) ? l : { ...l, op: l.op as Mnemonic })) };
}

/**
 * The body of function `name` in llc's output: the lines from `name:` to its `.Lfunc_end`
 * label (or the next `.globl`), without the function label itself.
 * @throws Error when `asm` has no label `name:`
 */
export function functionBody(asm: string, name: string): string {
  const body = functionBodies(asm)(name);
  if (body === undefined) throw new Error(`function ${name} not found in assembly`);
  return body;
}

/**
 * Every function body of `asm` by label (as `functionBody` gives one), after one pass over
 * the text: extracting N functions from one compile is linear in its size, not N times it.
 * A label inside a body (a basic block) gives the rest of that body, as `functionBody` does.
 * @returns the body of label `name`, or undefined when `asm` has no such label
 */
export function functionBodies(asm: string): (name: string) => string | undefined {
  const lines = asm.split("\n");
  const spans = new Map<string, { from: number; to: number }>();
  /** Labels whose body is being collected. */
  let open: { from: number; to: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.replace(/;.*$/, "").trim();
    if (/^\.Lfunc_end\d+:$/.test(l) || l.startsWith(".globl") || l.startsWith(".size")) {
      for (const o of open) o.to = i;
      open = [];
    }
    if (l.endsWith(":") && !spans.has(l.slice(0, -1))) {
      const span = { from: i + 1, to: lines.length };
      spans.set(l.slice(0, -1), span);
      open.push(span);
    }
  }
  return (name) => {
    const s = spans.get(name);
    return s && lines.slice(s.from, s.to).join("\n");
  };
}
