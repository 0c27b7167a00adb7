/**
 * @fileoverview SOPP records: branches (AMD "Vega" ISA manual §12.5, "RDNA3" §16.5).
 */
import type { BranchSem, IsaRecord } from "./record.js";
import { nonzero } from "./util.js";

const branch = (mnemonic: string, desc: string, uses: readonly ("exec" | "scc" | "vcc")[], taken: BranchSem): IsaRecord => ({
  mnemonic,
  enc: "SOPP",
  desc,
  ops: [{ name: "simm16", w: 16 }],
  uses,
  sem: { branch: taken },
});

export const SOPP: IsaRecord[] = [
  branch("s_branch", "PC = label", [], (bv) => bv.true),
  branch("s_cbranch_scc0", "if (SCC == 0) PC = label", ["scc"], (bv, io) => bv.notB(io.scc())),
  branch("s_cbranch_scc1", "if (SCC == 1) PC = label", ["scc"], (_bv, io) => io.scc()),
  branch("s_cbranch_execz", "if (EXEC == 0) PC = label", ["exec"], (bv, io) => bv.notB(nonzero(bv, io.exec()))),
  branch("s_cbranch_execnz", "if (EXEC != 0) PC = label", ["exec"], (bv, io) => nonzero(bv, io.exec())),
];
