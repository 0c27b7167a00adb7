/**
 * The library leaves what it is given as it was: lowerModule and collectRoutines release the
 * parsed module's resolved instructions (passes/group.ts) from their own view of it, not from
 * the caller's object, and take a frozen module (a tester's finding: `resolved` was deleted
 * from the caller's module, and a frozen one failed with "Cannot delete property").
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { collectRoutines, lowerModule, parseModule } from "../src/index.js";

const SRC = readFileSync(join(import.meta.dirname, "..", "examples", "bitfields.sm_90.ptx"), "utf8");

it("lowerModule and collectRoutines leave the caller's parsed module as it was, and take a frozen one", async () => {
  const m = parseModule(SRC, "bitfields.ptx");
  const keys = Object.keys(m);
  expect(keys).toContain("resolved");
  const r = await lowerModule(m, { target: "amdgpu" });
  expect(Object.keys(m)).toEqual(keys);
  expect(collectRoutines(m).length).toBe(r.routines.length);
  expect(Object.keys(m)).toEqual(keys);
  const frozen = Object.freeze(parseModule(SRC, "bitfields.ptx"));
  expect((await lowerModule(frozen, { target: "c" })).routines.map((x) => x.name)).toEqual(r.routines.map((x) => x.name));
  expect(collectRoutines(frozen).length).toBe(r.routines.length);
});
