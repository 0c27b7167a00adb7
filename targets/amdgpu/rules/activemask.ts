/**
 * @fileoverview `activemask.b32` → AMDGPU (PTX ISA §9.7.13.11; src/sem/warp.ts: the mask of
 * executing lanes, in each executing lane): exec_lo, & the guard in a guarded routine
 * (guarded-off lanes keep the prior d). wave64: exec_lo is the PTX warp (exec[63:32] = 0).
 */
import type { ActivemaskForm } from "../../../src/ir/warp_forms.js";
import type { AmdRule } from "./rule.js";
import { EXEC_LO, executing, writeValue } from "./warp_common.js";

export const activemaskRules: AmdRule<ActivemaskForm>[] = [
  {
    name: "activemask_exec",
    prio: 0,
    why: "The executing lanes are exec (∩ the guard): one v_mov of exec_lo into v0 (1 cycle); guarded, an s_and with the guard and the guard rule's v_cndmask with the prior d (2–3 cycles). Exited lanes are not in exec, which is activemask's meaning.",
    when: () => true,
    emit: (_f, m) => {
      if (!m.layout.guard) m.emit("v_mov_b32", m.layout.d, EXEC_LO);
      else writeValue(m, executing(m));
    },
  },
];
