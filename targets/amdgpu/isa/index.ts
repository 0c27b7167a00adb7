/**
 * @fileoverview The AMDGPU instruction table: every record by mnemonic.
 */
import type { IsaRecord } from "./record.js";
import { SOP1 } from "./sop1.js";
import { SOP2 } from "./sop2.js";
import { SOPC } from "./sopc.js";
import { SOPK } from "./sopk.js";
import { SOPP } from "./sopp.js";
import { VOP1 } from "./vop1.js";
import { VOP2 } from "./vop2.js";
import { VOP3 } from "./vop3.js";
import { VOPC } from "./vopc.js";

/** A mnemonic of the table, exactly as AMD and llvm-mc spell it (`"v_bfe_i32"`). */
export type Mnemonic = string;

export const RECORDS: ReadonlyMap<Mnemonic, IsaRecord> = new Map(
  [...SOP1, ...SOP2, ...SOPC, ...SOPK, ...SOPP, ...VOP1, ...VOP2, ...VOP3, ...VOPC].map((r) => [r.mnemonic, r]),
);

/** The record of `mnemonic`; throws for an instruction outside the table. */
export function record(mnemonic: Mnemonic): IsaRecord {
  const r = RECORDS.get(mnemonic);
  if (!r) throw new Error(`no AMDGPU record for ${mnemonic}`);
  return r;
}
