/**
 * Type-level test (compiled by `tsc --noEmit -p .`, never run): mnemonics are the record
 * table's, so a misspelt one in a rule is a compile error, and text from outside needs
 * `isMnemonic` first. Each `@ts-expect-error` fails the build if the line stops being an error.
 */
import type { Mnemonic } from "../../targets/amdgpu/isa/index.js";
import { isMnemonic, record } from "../../targets/amdgpu/isa/index.js";
import type { Builder } from "../../targets/amdgpu/routine.js";
import type { MInst } from "../../targets/amdgpu/minst.js";

export function emits(m: Builder): void {
  m.emit("v_mov_b32", m.d(), m.src("a"));
  m.emit(m.w("s_and_saveexec"), m.mask(), m.exec());
  // @ts-expect-error — "v_mov_b23" is not a record's mnemonic
  m.emit("v_mov_b23", m.d(), m.src("a"));
  // @ts-expect-error — s_orn2_b32/_b64 have no record (only the asm alias names them)
  m.emit(m.w("s_orn2"), m.mask(), m.exec(), m.exec());
}

export function fromText(text: string): Mnemonic | null {
  // @ts-expect-error — a string is not a Mnemonic until isMnemonic narrows it
  record(text);
  return isMnemonic(text) ? text : null;
}

// @ts-expect-error — an MInst's op is a Mnemonic, not any string
export const bad: MInst = { op: "v_frob_b32", ops: [], rule: "test" };
