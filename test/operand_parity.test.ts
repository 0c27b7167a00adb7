/**
 * ptxas 13.0 parity over a matrix of operand shapes (the front end's per-role template rules):
 * every family instruction with one operand replaced by a variant — negations `-x` and `!x`,
 * 64-bit, float and predicate registers, special registers with and without components or
 * fields, addresses, variables, vectors, float and integer literals, unknown names — and, for
 * every subset of operands, `-x` on each (with and without a guard). Each module is checked
 * by ptxas (the oracle) and by `parseModule`; the sets of error messages must be equal, but
 * for the cases listed in KNOWN (each with why it is left). Where ptxas accepts a negation
 * (`-a, -b`, which it cancels), the cubin must equal the negation-free module's and ptx-lower
 * must lower it, with its warning. The same for mutations of each form's modifiers
 * (`modCases`). Skipped, saying so, where ptxas is absent.
 */
import { execFile, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { parseModule } from "../src/ir/build.js";

const PTXAS = spawnSync("ptxas", ["--version"], { encoding: "utf8" }).status === 0;
if (!PTXAS) console.log("operand_parity.test.ts: ptxas not on PATH; skipping");
const run = promisify(execFile);

const TEMPLATES: [string, string[]][] = [
  ["szext.clamp.s32", ["d", "a", "b"]],
  ["vshl.u32.u32.u32.clamp.add", ["d", "a", "b", "c"]],
  ["vshr.s32.s32.u32.wrap", ["d", "a", "b"]],
  ["match.any.sync.b32", ["d", "a", "m"]],
  ["match.all.sync.b32", ["d|p", "a", "m"]],
  ["shfl.sync.idx.b32", ["d", "a", "b", "c", "m"]],
  ["shfl.sync.up.b32", ["d|p", "a", "b", "c", "m"]],
  ["vote.sync.any.pred", ["p", "q", "m"]],
  ["vote.sync.ballot.b32", ["d", "q", "m"]],
  ["redux.sync.add.u32", ["d", "a", "m"]],
  ["redux.sync.min.s32", ["d", "a", "m"]],
  ["activemask.b32", ["d"]],
  ["bar.warp.sync", ["m"]],
];
const VARIANTS = ["-a", "-w", "-q", "-f", "%tid", "%tid.b0", "%laneid.x", "%laneid", "[a]", "[kp]", "kp", "kp.b0", "_", "!a", "!q", "5", "-5", "0f3f800000", "a.b0", "a.h1", "zz", "-zz", "w", "f", "q", "%lanemask_eq", "-%laneid", "{a, b}", "a.x", "-a.b0", "!zz"];
/** Left as they are: ptxas says "must be register" for `!` of an undeclared name where vote reads a predicate; ptx-lower says "Arguments mismatch" (with the same negation and Unknown symbol errors). */
const KNOWN = new Set(["vote.sync.any.pred !zz, q, m", "vote.sync.any.pred p, !zz, m", "vote.sync.ballot.b32 d, !zz, m"]);

const moduleText = (stmt: string) =>
  `.version 8.7\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u32 kp)\n{\n.reg .b32 d, a, b, c, m;\n.reg .pred p, q;\n.reg .b64 w;\n.reg .f32 f;\n${stmt};\nret;\n}\n`;

function cases(): string[] {
  const out = new Set<string>();
  for (const [op, ops] of TEMPLATES) {
    for (let i = 0; i < ops.length; i++) for (const v of VARIANTS) out.add(`${op} ${ops.map((x, k) => (k === i ? v : x)).join(", ")}`);
    for (let mask = 1; mask < 1 << ops.length; mask++) {
      const o = ops.map((x, k) => ((mask >> k) & 1 ? (x.includes("|") ? null : `-${x}`) : x));
      if (o.includes(null)) continue;
      for (const g of ["", "@p "]) out.add(`${g}${op} ${o.join(", ")}`);
    }
  }
  return [...out];
}

/**
 * Modifier mutations of each form: one dropped, repeated, swapped with its neighbour, inserted
 * or substituted from POOL. `bar` without `.warp` first is the CTA barrier, no family
 * instruction (ptx-lower checks none of those), so its mutations are left out; KNOWN_MODS are
 * left as they are: ptxas counts a second shuffle or vote modifier before it matches the types,
 * ptx-lower only after.
 */
const MOD_FORMS: [string, string][] = [
  ["szext.clamp.s32", "d, a, b"],
  ["vshl.u32.u32.u32.clamp.add", "d, a, b, c"],
  ["match.any.sync.b32", "d, a, m"],
  ["match.all.sync.b32", "d|p, a, m"],
  ["shfl.sync.idx.b32", "d|p, a, b, c, m"],
  ["vote.sync.any.pred", "p, q, m"],
  ["vote.sync.ballot.b32", "d, q, m"],
  ["redux.sync.add.u32", "d, a, m"],
  ["redux.sync.min.f32", "f, f, m"],
  ["activemask.b32", "d"],
  ["bar.warp.sync", "m"],
];
const POOL = ["sync", "aligned", "clamp", "wrap", "sat", "up", "idx", "any", "uni", "ballot", "add", "min", "and", "abs", "NaN", "b32", "s32", "f32", "pred", "b64", "warp", "shf", "ftz", "rn", "relaxed"];
const KNOWN_MODS = new Set(["shfl.sync.idx.up d|p, a, b, c, m", "shfl.sync.idx.idx d|p, a, b, c, m", "vote.sync.ballot.ballot d, q, m"]);

function modCases(): string[] {
  const out = new Set<string>();
  for (const [op, args] of MOD_FORMS) {
    const [head, ...mods] = op.split(".");
    const muts: string[][] = [];
    for (let i = 0; i < mods.length; i++) muts.push(mods.filter((_, k) => k !== i));
    for (let i = 0; i < mods.length; i++) muts.push([...mods.slice(0, i + 1), mods[i]!, ...mods.slice(i + 1)]);
    for (let i = 0; i + 1 < mods.length; i++) muts.push(mods.map((x, k) => (k === i ? mods[i + 1]! : k === i + 1 ? mods[i]! : x)));
    for (const p of POOL) {
      for (let i = 0; i <= mods.length; i++) muts.push([...mods.slice(0, i), p, ...mods.slice(i)]);
      for (let i = 0; i < mods.length; i++) muts.push(mods.map((x, k) => (k === i ? p : x)));
    }
    for (const m of muts) if (head !== "bar" || m[0] === "warp") out.add(`${head}${m.length ? "." + m.join(".") : ""} ${args}`);
  }
  return [...out];
}
const modModule = (stmt: string) => `.version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n.reg .b32 d, a, b, c, m;\n.reg .pred p, q;\n.reg .f32 f;\n${stmt};\nret;\n}\n`;

/**
 * Register types and literals in every operand (on sm_100a, for redux `.f32`). Left as they are
 * (`knownType`): ptxas 13.0 also takes a `.f16x2` register as vote.any's predicate d and a,
 * which ptx-lower refuses (a `.f16x2` register has no predicate meaning; where it stands for
 * 32 bits — szext, vshl/vshr, match.b32's a, shfl, ballot's and activemask's d — ptx-lower
 * takes it as ptxas does); ptxas accepts a `.f64` literal as
 * redux `.f32`'s a (converted to `.f32`), which ptx-lower refuses rather than guess the
 * conversion of a NaN; and a literal before `|p` is a syntax error in both, near another token.
 */
const TYPE_FORMS: [string, string[]][] = [
  ["szext.clamp.s32", ["d", "a", "b"]],
  ["vshl.u32.u32.u32.clamp.add", ["d", "a", "b", "c"]],
  ["match.any.sync.b32", ["d", "a", "m"]],
  ["match.any.sync.b64", ["d", "w", "m"]],
  ["match.all.sync.b32", ["d|p", "a", "m"]],
  ["shfl.sync.idx.b32", ["d|p", "a", "b", "c", "m"]],
  ["vote.sync.any.pred", ["p", "q", "m"]],
  ["vote.sync.ballot.b32", ["d", "q", "m"]],
  ["redux.sync.add.u32", ["d", "a", "m"]],
  ["redux.sync.min.f32", ["f", "f", "m"]],
  ["activemask.b32", ["d"]],
  ["bar.warp.sync", ["m"]],
];
const TYPE_VARIANTS = ["rb8", "rb16", "ru16", "rs16", "rf16", "rh2", "ru32", "rs32", "rb32", "rf32", "rb64", "ru64", "rf64", "rpred", "0x1ffffffff", "-1", "0d3ff0000000000000", "1.5", "0f7fc00000", "0x8000000000000000", "(1+2)", "kp", "gv"];
const typeModule = (stmt: string) =>
  `.version 8.7\n.target sm_100a\n.address_size 64\n.global .u32 gv;\n.visible .entry k(.param .u32 kp)\n{\n.reg .b32 d, a, b, c, m, rb32;\n.reg .pred p, q;\n.reg .f32 f;\n.reg .b64 w;\n` +
  `.reg .b8 rb8;\n.reg .b16 rb16;\n.reg .u16 ru16;\n.reg .s16 rs16;\n.reg .f16 rf16;\n.reg .f16x2 rh2;\n.reg .u32 ru32;\n.reg .s32 rs32;\n.reg .f32 rf32;\n.reg .b64 rb64;\n.reg .u64 ru64;\n.reg .f64 rf64;\n.reg .pred rpred;\n${stmt};\nret;\n}\n`;
function typeCases(): string[] {
  const out: string[] = [];
  for (const [op, ops] of TYPE_FORMS) for (let i = 0; i < ops.length; i++) for (const v of TYPE_VARIANTS) out.push(`${op} ${ops.map((x, k) => (k === i ? (x.includes("|") ? `${v}|p` : v) : x)).join(", ")}`);
  return out;
}
const knownType = (stmt: string, theirs: string[], mine: string[]): boolean =>
  (theirs.length === 0 && /^vote\.sync\.any\.pred .*\brh2\b/.test(stmt) && mine.length === 1 && /Arguments mismatch/.test(mine[0]!)) ||
  (theirs.length === 0 && /^redux\.sync\.min\.f32 f, (0d3ff0000000000000|1\.5), m$/.test(stmt)) ||
  (/^\S+ [^ ,]+\|p/.test(stmt) && theirs.length === 1 && mine.length === 1 && /^Parsing error near/.test(theirs[0]!) && /^Parsing error near/.test(mine[0]!));

const errorsOf = (stderr: string) => [...new Set(stderr.split("\n").filter((l) => /; (error|fatal)/.test(l)).map((l) => l.replace(/.*; (error|fatal)\s*: /, "")))].sort();

/** One case after both tools saw it: ptxas's errors (`ok`: it compiled; the cubin is `cubin`), ptx-lower's module and errors. */
interface Seen {
  stmt: string;
  theirs: string[];
  ok: boolean;
  cubin: string;
  mod: ReturnType<typeof parseModule>;
  mine: string[];
  /** A scratch path of this worker's, for the judge's own ptxas runs. */
  scratch: string;
}

/**
 * Runs every statement of `all` (as `moduleOf(stmt)`) through ptxas (`-arch`, six at a time)
 * and `parseModule`, and hands each case to `judge`, which returns its problems.
 */
async function againstPtxas(all: string[], moduleOf: (stmt: string) => string, arch: string, judge: (c: Seen) => Promise<string[]> | string[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "ptx-lower-parity-"));
  const problems: string[] = [];
  try {
    let next = 0;
    const worker = async (w: number) => {
      for (let i = next++; i < all.length; i = next++) {
        const stmt = all[i]!;
        const text = moduleOf(stmt);
        const path = join(dir, `w${w}.ptx`);
        const cubin = join(dir, `w${w}.cubin`);
        writeFileSync(path, text);
        let stderr = "";
        let ok = true;
        try {
          await run("ptxas", [`-arch=${arch}`, path, "-o", cubin], { timeout: 30_000 });
        } catch (e) {
          stderr = String((e as { stderr?: string }).stderr ?? "");
          ok = false;
        }
        const mod = parseModule(text, path);
        const mine = [...new Set(mod.diagnostics.filter((d) => d.severity === "error").map((d) => d.message))].sort();
        problems.push(...(await judge({ stmt, theirs: errorsOf(stderr), ok, cubin, mod, mine, scratch: join(dir, `w${w}s`) })));
      }
    };
    await Promise.all(Array.from({ length: 6 }, (_, w) => worker(w)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return problems;
}

const same = (c: Seen) => JSON.stringify(c.theirs) === JSON.stringify(c.mine);
const differ = (c: Seen) => `${c.stmt}\n  ptxas: ${c.theirs.join(" | ")}\n  ptx-lower: ${c.mine.join(" | ")}`;

describe.skipIf(!PTXAS)("operand shapes: ptx-lower's errors are ptxas 13.0's", () => {
  it("on every case of the matrix (but KNOWN), and '-' that ptxas accepts is lowered as the cubin shows", async () => {
    let accepted = 0;
    const problems = await againstPtxas(cases(), moduleText, "sm_90", async (c) => {
      if (KNOWN.has(c.stmt)) return same(c) ? [`${c.stmt}: listed in KNOWN but now agrees; take it out`] : [];
      const out = same(c) ? [] : [differ(c)];
      if (c.ok && /-[a-z]/.test(c.stmt)) {
        accepted++;
        writeFileSync(`${c.scratch}.ptx`, moduleText(c.stmt.replace(/-([a-z])/g, "$1")));
        await run("ptxas", ["-arch=sm_90", `${c.scratch}.ptx`, "-o", `${c.scratch}.cubin`], { timeout: 30_000 });
        if (!readFileSync(c.cubin).equals(readFileSync(`${c.scratch}.cubin`))) out.push(`${c.stmt}: ptxas's cubin differs from the one without '-'`);
        if (c.mod.insts.length !== 1 || !c.mod.diagnostics.some((d) => d.severity === "warning" && /cancels/.test(d.message))) out.push(`${c.stmt}: accepted by ptxas, not lowered with the warning`);
      }
      return out;
    });
    expect(problems, problems.join("\n")).toEqual([]);
    expect(accepted).toBeGreaterThanOrEqual(18);
  }, 600_000);
});

describe.skipIf(!PTXAS)("modifier spellings: ptx-lower's errors are ptxas 13.0's", () => {
  it("on every mutation of every form's modifiers (but KNOWN_MODS)", async () => {
    const all = modCases();
    const problems = await againstPtxas(all, modModule, "sm_100a", (c) =>
      KNOWN_MODS.has(c.stmt) ? (same(c) ? [`${c.stmt}: listed in KNOWN_MODS but now agrees; take it out`] : []) : same(c) ? [] : [differ(c)],
    );
    expect(problems, problems.join("\n")).toEqual([]);
    expect(all.length).toBeGreaterThan(1000);
  }, 600_000);
});

describe.skipIf(!PTXAS)("register types and literals: ptx-lower's errors are ptxas 13.0's", () => {
  it("in every operand of every form (but the known gaps)", async () => {
    const all = typeCases();
    let known = 0;
    const problems = await againstPtxas(all, typeModule, "sm_100a", (c) => {
      if (same(c)) return [];
      if (knownType(c.stmt, c.theirs, c.mine)) {
        known++;
        return [];
      }
      return [differ(c)];
    });
    expect(problems, problems.join("\n")).toEqual([]);
    console.log(`register types and literals: ${all.length} modules, ${all.length - known} agree with ptxas, ${known} known gaps`);
  }, 600_000);
});
