/**
 * @fileoverview A parser of llvm-mc / llc AMDGPU assembly syntax, for the subset the
 * interpreter runs: one instruction per line, `mnemonic[_e32|_e64] op, op, …`, labels
 * (`.LBB0_1:`), comments (`;`, `//`). It turns LLVM's output into `MLine`s
 * (targets/amdgpu/minst.ts) so that code nobody here wrote can be run by the project's
 * interpreter (targets/amdgpu/oracle/llvm.ts).
 *
 * Operands: `v5`, `v[4:5]`, `s3`, `s[2:3]`, `vcc`, `vcc_lo`, `exec`, `exec_lo`, integer
 * constants (decimal, signed, or hex), labels. Everything the interpreter cannot represent
 * is rejected with an `AsmError` that names it: SDWA/DPP/VOPD encodings, operand modifiers
 * (`sext()`, `neg()`, `abs()`, `|x|`, `-v1`), trailing modifiers (`clamp`, `op_sel:…`,
 * `offset:…`), float constants, and registers outside the model (`m0`, `ttmp*`, `null`, `v[0:3]` wider than a pair).
 *
 * Renamed mnemonics (GFX11 spellings of the same operation) are mapped to the table's name:
 * `s_and_not1_*` → `s_andn2_*`, `s_or_not1_*` → `s_orn2_*`, `s_ctz_i32_*` → `s_ff1_i32_*`.
 *
 * One modifier is modelled: `op_sel:[x,y]` of `v_pk_mov_b32` (gfx90a's 64-bit move), which
 * becomes a trailing immediate operand x | y << 1, as its record expects (isa/vop3.ts).
 */
import type { Mnemonic } from "./isa/index.js";
import { isMnemonic, record } from "./isa/index.js";
import type { MInst, MLine, MOp } from "./minst.js";
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
export const IGNORED_MNEMONICS: ReadonlySet<string> = new Set(["s_clause", "s_setpc_b64", "s_endpgm", "s_sleep", "s_set_inst_prefetch_distance"]);

/**
 * Waits whose operand llvm-mc writes symbolically (`s_waitcnt lgkmcnt(0)`,
 * `s_delay_alu instid0(VALU_DEP_1) | …`): the operand becomes the immediate 0 (wait for
 * everything; the counters are not modelled, only the instruction's one issue cycle).
 */
const SYMBOLIC_WAITS: ReadonlySet<string> = new Set(["s_waitcnt", "s_waitcnt_vscnt", "s_waitcnt_expcnt", "s_waitcnt_lgkmcnt", "s_waitcnt_vmcnt", "s_delay_alu"]);

/** Whether `mn`'s record carries `op_sel:[x,y]` as a last immediate operand `opsel` (x | y << 1). */
const hasOpselOperand = (mn: string): boolean => isMnemonic(mn) && record(mn).ops.some((o) => o.name === "opsel");

export interface ParseOptions {
  /** Drop `IGNORED_MNEMONICS` instead of returning them (default true). */
  dropIgnored?: boolean;
  /** The `rule` recorded on every parsed instruction (default "asm"). */
  rule?: string;
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
  if (/^(sext|neg|abs)\(/.test(t) || /^\|.*\|$/.test(t) || /^-[vs]/.test(t)) throw new Error(`operand modifier in ${t} is not modelled`);
  throw new Error(`operand ${t} is not modelled`);
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
      const numeric = /^(0x[0-9a-f]+|\d+)$/i.test(s) ? BigInt(s) : 0n;
      out.push({ op: mn === "s_delay_alu" || mn === "s_waitcnt" ? mn : "s_waitcnt", ops: [{ k: "imm", value: numeric }], rule });
      return;
    }
    if (/_(sdwa|dpp|dpp8)$/.test(mn) || mn.startsWith("v_dual_")) throw new AsmError(`encoding of ${mn} is not modelled (SDWA/DPP/VOPD)`, lineNo, raw);
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
    if (tail) {
      const os = /^op_sel:\[([01]),([01])\]$/.exec(tail[2]!.trim());
      if (!os || opsel === undefined) throw new AsmError(`modifier "${tail[2]}" is not modelled`, lineNo, raw);
      opsel = BigInt(os[1]!) | (BigInt(os[2]!) << 1n);
      fields[fields.length - 1] = tail[1]!;
    }
    const ops: MOp[] = [];
    for (const f of fields) {
      if (/^[a-z_]+:/.test(f) || /^(clamp|glc|slc|dlc|off|offen|idxen)$/.test(f)) throw new AsmError(`modifier "${f}" is not modelled`, lineNo, raw);
      try {
        ops.push(parseOperand(f));
      } catch (err) {
        throw new AsmError((err as Error).message, lineNo, raw);
      }
    }
    if (opsel !== undefined) ops.push({ k: "imm", value: opsel });
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
 */
export function functionBody(asm: string, name: string): string {
  const lines = asm.split("\n");
  const start = lines.findIndex((l) => l.replace(/;.*$/, "").trim() === `${name}:`);
  if (start < 0) throw new Error(`function ${name} not found in assembly`);
  const body: string[] = [];
  for (let i = start + 1; i < lines.length; i++) {
    const l = lines[i]!.replace(/;.*$/, "").trim();
    if (/^\.Lfunc_end\d+:$/.test(l) || l.startsWith(".globl") || l.startsWith(".size")) break;
    body.push(lines[i]!);
  }
  return body.join("\n");
}
