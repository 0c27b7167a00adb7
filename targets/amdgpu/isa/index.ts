/**
 * @fileoverview The AMDGPU instruction table: every record by mnemonic.
 */
import type { IsaRecord } from "./record.js";
import { DPP } from "./dpp.js";
import { DS } from "./ds.js";
import { SOP1 } from "./sop1.js";
import { SOP2 } from "./sop2.js";
import { SOPC } from "./sopc.js";
import { SOPK } from "./sopk.js";
import { SOPP } from "./sopp.js";
import { VOP1 } from "./vop1.js";
import { VOP2 } from "./vop2.js";
import { VOP3 } from "./vop3.js";
import { VOPC } from "./vopc.js";

const TABLE = [...SOP1, ...SOP2, ...SOPC, ...SOPK, ...SOPP, ...VOP1, ...VOP2, ...VOP3, ...VOPC, ...DS, ...DPP] as const;

/**
 * A mnemonic of the table, exactly as AMD and llvm-mc spell it (`"v_bfe_i32"`): the union of
 * the records' mnemonics, so that a misspelt mnemonic in a rule is a compile error. Text
 * from outside (llc's assembly, MIR) is narrowed with `isMnemonic`.
 */
export type Mnemonic = (typeof TABLE)[number]["mnemonic"];
// The union must stay literal: one record with a `string` mnemonic would widen it silently.
const _literal: string extends Mnemonic ? never : true = true;
void _literal;

export const RECORDS: ReadonlyMap<Mnemonic, IsaRecord> = new Map(TABLE.map((r) => [r.mnemonic, r]));

/** Whether `s` names a record of the table (narrows text parsed from llc, llvm-mc or MIR). */
export function isMnemonic(s: string): s is Mnemonic {
  return RECORDS.has(s as Mnemonic);
}

/** The record of `mnemonic`; throws for an instruction outside the table. */
export function record(mnemonic: Mnemonic): IsaRecord {
  const r = RECORDS.get(mnemonic);
  if (!r) throw new Error(`no AMDGPU record for ${mnemonic}`);
  return r;
}
