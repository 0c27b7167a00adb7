/**
 * Caller-chosen registers (issue 37 item 6, targets/amdgpu/assign.ts): a seeded sample of
 * routines over every family and all five processors, each lowered with random legal register
 * assignments — `d` sharing a source's register, `d` in a free VGPR, aligned 64-bit pairs,
 * uniform sources and lane masks in SGPRs, virtual registers, scratch budgets and lists — and
 * each renamed routine
 *   - checked: run by the AMDGPU interpreter with its operands placed in the chosen registers,
 *     against the reference, on the family's seeded cases, the contract's "nothing else
 *     changes" read from the assignment (its `d` register, its scratch set);
 *   - hazard-free: the project's hazard checker under the renamed boundary, and LLVM's
 *     recognizer (llc-19 post-RA-hazard-rec, through targets/amdgpu/mir.ts) adds nothing;
 *   - proved: by the AMDGPU prover on the renamed routine itself where the assignment added a
 *     copy or shares d with a source, and otherwise by the prover on the contract routine plus
 *     the renaming certificate (`renamingCertificate`: an injective, pair-preserving map of
 *     every register, checked line by line, that takes the contract's layout to the caller's).
 * The illegal assignments are TypeErrors naming the operand. Skips the LLVM part, saying why,
 * where llc-19 / llvm-mc-19 are absent.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FAMILIES, PROFILES, formName } from "../src/ir/forms.js";
import type { Profile } from "../src/ir/forms.js";
import { familyOf } from "../src/families/index.js";
import type { RoutineSpec } from "../src/ir/ir.js";
import { Rng } from "../src/check/random.js";
import { matrixOfSpecs } from "../scripts/hazard-oracle.js";
import type { AmdRoutine } from "../targets/amdgpu/lower.js";
import { lowerRoutine, printRoutine } from "../targets/amdgpu/lower.js";
import { MCPUS, TARGETS } from "../targets/amdgpu/regs.js";
import type { Mcpu } from "../targets/amdgpu/regs.js";
import type { RegisterAssignment, ScratchBudget } from "../targets/amdgpu/assign.js";
import { registerOperands, renamingCertificate } from "../targets/amdgpu/assign.js";
import { checkHazards, formatViolation, hazardTarget } from "../targets/amdgpu/hazards.js";
import { findingText, mirToolsAvailable, oracle } from "../targets/amdgpu/mir.js";
import { checkLoweredRoutine } from "../targets/amdgpu/verify.js";
import { proveLoweredRoutine } from "../targets/amdgpu/prove/model.js";
import { loadZ3 } from "../src/check/smt.js";
import { isLabel } from "../targets/amdgpu/minst.js";

const SEED = 0x37;
const have = mirToolsAvailable();
if (!have.ok) console.log(`regs: LLVM's recognizer skipped, ${have.reason}`);

/** A random legal assignment for a contract routine (VGPRs within v0..v63, which the LLVM oracle calibrates). */
function randomAssignment(rng: Rng, r: AmdRoutine, style: "alias" | "fresh" | "virtual" | "any"): { regs: RegisterAssignment; scratch?: ScratchBudget; what: string } {
  if (style === "virtual") return { regs: "virtual", scratch: { vgprs: r.vEnd - r.layout.vScratch + rng.below(3), sgprs: r.sEnd - r.layout.sScratch + rng.below(3) }, what: "virtual" };
  const ops = registerOperands(r);
  const used = { v: new Set<number>(), s: new Set<number>() };
  const operands = { v: new Set<number>(), s: new Set<number>() };
  const top = { v: 64, s: 96 };
  const pick = (k: "v" | "s", count: 1 | 2): number => {
    for (;;) {
      let n = rng.below(top[k] - 1);
      // Pairs aligned; a wave64 SGPR and (where pairs are aligned) a VGPR even, as the sequence may read it as a pair's low half.
      if (count === 2 || (k === "s" && r.target.wave === 64) || (k === "v" && r.target.alignedVgprPairs)) n &= ~1;
      if (r.target.mcpu === "gfx90a" && k === "v" && n % 8 === 7) continue; // a shift count there is refused (tested below)
      if (used[k].has(n) || used[k].has(n + 1)) continue;
      used[k].add(n);
      used[k].add(n + 1); // keep the neighbour free: a wave64 lane mask read as a pair, a pair's high half, a 32-bit source read as a pair's low half
      for (let i = 0; i < count; i++) operands[k].add(n + i);
      return n;
    }
  };
  const regs: Record<string, string> = {};
  for (const o of ops) {
    if (o.name === "d") continue;
    const n = pick(o.k, o.count);
    regs[o.name] = o.count === 2 ? `${o.k}[${n}:${n + 1}]` : `${o.k}${n}`;
  }
  let what = "fresh d";
  if (ops.some((o) => o.name === "d")) {
    const shared = ops.filter((o) => o.k === "v" && o.count === 1 && o.name !== "d");
    if ((style === "alias" || (style === "any" && rng.chance(0.5))) && shared.length) {
      const s = shared[rng.below(shared.length)]!;
      regs.d = regs[s.name]!;
      what = `d = ${s.name}`;
    } else regs.d = `v${pick("v", 1)}`;
  } else what = "no VGPR d";
  // Scratch: none given, a generous budget, or an explicit list of free registers.
  const c = rng.below(3);
  const free = (k: "v" | "s", n: number) => {
    const out: string[] = [];
    // The operands' free neighbours first (a 32-bit source or lane mask the sequence reads as half of a pair), then the lowest free registers.
    for (const x of used[k]) if (!operands[k].has(x)) out.push(`${k}${x}`);
    for (let x = 0; out.length < n + used[k].size && x < top[k]; x++) if (!used[k].has(x)) out.push(`${k}${x}`);
    return out;
  };
  const scratch: ScratchBudget | undefined = c === 0 ? undefined : c === 1 ? { vgprs: r.vEnd - r.layout.vScratch + 3, sgprs: r.sEnd - r.layout.sScratch + 4 } : { vgprs: free("v", r.vEnd - r.layout.vScratch + 4), sgprs: free("s", r.sEnd - r.layout.sScratch + 6) };
  return { regs, ...(scratch ? { scratch } : {}), what };
}

interface Item {
  label: string;
  contract: AmdRoutine;
  r: AmdRoutine;
  profile: Profile;
  what: string;
}

/** The seeded sample: per family a share of its specs, each on a processor and profile of the seed, with 4 assignments. */
function sample(): Item[] {
  const rng = new Rng(SEED);
  const items: Item[] = [];
  const byFamily = new Map<string, RoutineSpec[]>();
  for (const s of matrixOfSpecs(FAMILIES, 1, 0)) {
    const f = familyOf(s.form).name;
    byFamily.set(f, [...(byFamily.get(f) ?? []), s]);
  }
  // 40 routines × 5 assignments. Warp-level and match.sync proofs are the slow ones (up to 25 s
  // each here: the family's proof, the same for the contract routine): there one routine per
  // family gets copy cases (proved as they are), the others renamings only (by certificate).
  const perFamily: Record<string, number> = { szext: 15, video: 14, match: 5, warp: 6 };
  let m = 0;
  for (const [fam, specs] of byFamily) {
    const n = perFamily[fam] ?? 8;
    for (let i = 0; i < n; i++) {
      const mcpu = MCPUS[m++ % MCPUS.length]! as Mcpu;
      const profile = PROFILES[rng.below(PROFILES.length)]!;
      let spec = specs[rng.below(specs.length)]!;
      let contract = lowerRoutine(spec, TARGETS[mcpu], profile);
      // match.sync's loops (the waterfall over membermask / a values): their proof is the loop
      // induction of test/prove.test.ts, a minute per routine on a loaded machine; left out here.
      while (fam === "match" && contract.lines.some(isLabel)) contract = lowerRoutine((spec = specs[rng.below(specs.length)]!), TARGETS[mcpu], profile);
      const slow = fam === "warp" || fam === "match";
      const styles = !slow || i < 1 ? (["alias", "fresh", "virtual", "any", "any"] as const) : (["pure", "virtual", "pure", "pure", "virtual"] as const);
      for (const style of styles) {
        let a = randomAssignment(rng, contract, style === "pure" ? "fresh" : style);
        // A renaming (no copy): d in the register of the source the contract keeps in v0, where there is one.
        const a0 = contract.layout.src.a;
        if (style === "pure" && typeof a.regs === "object" && a.regs.d !== undefined && a0?.k === "v" && a0.count === 1 && a0.n === 0) a = { ...a, regs: { ...a.regs, d: a.regs.a! }, what: "d = a" };
        const r = lowerRoutine(spec, TARGETS[mcpu], profile, { regs: a.regs, ...(a.scratch ? { scratch: a.scratch } : {}) });
        items.push({ label: `${formName(spec.form)} ${JSON.stringify(spec.kinds, (_k, x) => (typeof x === "bigint" ? `${x}` : x))}${spec.guarded ? " guarded" : ""} ${mcpu} ${profile} [${a.what}] ${JSON.stringify(a.regs)}`, contract, r, profile, what: a.what });
      }
    }
  }
  return items;
}

describe("caller-chosen registers: a seeded sample, every family, all five processors", () => {
  const t0 = performance.now();
  const items = sample();
  const tSample = performance.now() - t0;

  it("covers the issue's cases", () => {
    expect(items.length).toBeGreaterThanOrEqual(200);
    for (const f of FAMILIES) expect(items.filter((x) => familyOf(x.r.spec.form).name === f).length, f).toBeGreaterThan(20);
    for (const mcpu of MCPUS) expect(items.filter((x) => x.r.target.mcpu === mcpu).length, mcpu).toBeGreaterThan(20);
    expect(items.filter((x) => x.what.startsWith("d = ")).length).toBeGreaterThan(30);
    expect(items.filter((x) => x.what === "virtual").length).toBeGreaterThan(30);
    expect(items.filter((x) => Object.values(x.r.layout.src).some((o) => o.k === "s")).length).toBeGreaterThan(30);
    expect(items.filter((x) => [...Object.values(x.r.layout.src), x.r.layout.guard].some((o) => o && (o.k === "v" || o.k === "s") && o.count === 2)).length).toBeGreaterThan(10);
    expect(items.filter((x) => (x.r.assigned?.copies ?? 0) > 0).length).toBeGreaterThan(30);
  });

  it("each renamed routine is in the caller's registers, hazard-free by the project's checker", () => {
    for (const x of items) {
      const text = printRoutine("r", x.r);
      if (x.r.assigned!.virtual) {
        if (x.r.lines.some((l) => !isLabel(l) && l.ops.some((o) => o.k === "v"))) expect(text, x.label).toMatch(/%v\d/);
        expect(text.split("\n").filter((l) => l.startsWith("  ")).some((l) => /\b[vs]\d|\b[vs]\[/.test(l.replace(/%[vs](\d+|\[\d+:\d+\])/g, ""))), x.label).toBe(false);
      } else for (const [k, o] of Object.entries(x.r.layout.src)) if (o.k === "v" || o.k === "s") expect(text, `${x.label}: ${k}`).toContain(`${k} = ${o.k}${o.count === 2 ? `[${o.n}:${o.n + 1}]` : o.n}`);
      const bad = checkHazards(x.r.lines, hazardTarget(x.r.target), x.r.boundary);
      expect(bad.map(formatViolation), x.label).toEqual([]);
    }
  });

  it("each is checked: the interpreter, operands in the chosen registers, against the reference", async () => {
    const failures: string[] = [];
    for (const x of items) {
      const cases = familyOf(x.r.spec.form).cases(x.r.spec, { seed: SEED, random: 8, compact: true, warps: 8 });
      const v = await checkLoweredRoutine(x.r, x.profile, cases);
      if (v.status !== "tested") failures.push(`${x.label}: ${v.status === "refuted" ? v.counterexample.slice(0, 600) : JSON.stringify(v)}`);
    }
    expect(failures.slice(0, 3)).toEqual([]);
  });

  it.skipIf(!have.ok)("LLVM's recognizer adds nothing to any of them (virtual registers: on their concrete allocation)", async () => {
    for (const mcpu of MCPUS) {
      const mine = items.filter((x) => x.r.target.mcpu === mcpu).map((x, i) => ({ label: `${i} ${x.label}`, routine: x.r }));
      const got = await oracle(TARGETS[mcpu], mine);
      expect(got.filter((g) => !g.clean).slice(0, 3).map((g) => `${g.item.label}: ${g.findings.slice(0, 2).map(findingText).join(" / ")}`), mcpu).toEqual([]);
    }
  });

  it("each is proved: as it is, or the contract routine proved and the renaming certified", async () => {
    const env = await loadZ3();
    const contractProofs = new Map<AmdRoutine, Promise<string>>();
    const proveContract = (r: AmdRoutine) => {
      let p = contractProofs.get(r);
      if (!p) contractProofs.set(r, (p = proveLoweredRoutine(r, profileOf(r), { env, bugFinder: false }).then((v) => (v.verdict === "proved" ? "proved" : `${v.verdict}: ${"reason" in v ? v.reason : ""}`))));
      return p;
    };
    const profiles = new Map(items.map((x) => [x.contract, x.profile]));
    const profileOf = (r: AmdRoutine) => profiles.get(r)!;
    const failures: string[] = [];
    const times: [number, string][] = [];
    let direct = 0;
    let certified = 0;
    const t1 = performance.now();
    for (const x of items) {
      const cert = renamingCertificate(x.r);
      if (cert.ok) {
        certified++;
        const t2 = performance.now();
        const v = await proveContract(x.contract);
        times.push([performance.now() - t2, `contract ${x.label}`]);
        if (v !== "proved") failures.push(`${x.label}: the contract routine: ${v}`);
      } else {
        direct++;
        const t2 = performance.now();
        const v = await proveLoweredRoutine(x.r, x.profile, { env, bugFinder: false });
        times.push([performance.now() - t2, `direct ${x.label}`]);
        if (v.verdict !== "proved") failures.push(`${x.label} (${cert.why}): ${v.verdict} ${"reason" in v ? v.reason : "counterexample" in v ? String((v as { counterexample?: string }).counterexample).slice(0, 800) : ""}`);
      }
    }
    console.log(`regs: ${items.length} routines (sampled in ${(tSample / 1000).toFixed(1)} s): ${certified} proved by certificate over ${contractProofs.size} contract proofs, ${direct} proved as they are, in ${((performance.now() - t1) / 1000).toFixed(1)} s`);
    if (process.env.PTXL_REGS_TIMES) console.log(times.sort((p, q) => q[0] - p[0]).slice(0, 25).map(([ms, l]) => `${ms.toFixed(0)} ms ${l}`).join("\n"));
    expect(failures.slice(0, 3)).toEqual([]);
    expect(direct).toBeGreaterThan(30);
    expect(certified).toBeGreaterThan(60);
  }, 600_000);

  it("the certificate has teeth: a renaming that breaks injectivity, the layout or a line is refused", () => {
    const x = items.find((y) => renamingCertificate(y.r).ok && !y.r.assigned!.virtual && y.r.lines.some((l) => !isLabel(l) && l.ops.some((o) => o.k === "v")))!;
    expect(x).toBeDefined();
    const lines = x.r.lines.map((l) => (isLabel(l) ? l : { ...l, ops: l.ops.map((o) => (o.k === "v" && o.count === 1 ? { ...o, n: 200 } : o)) }));
    expect(renamingCertificate({ ...x.r, lines }).ok).toBe(false);
    const src = Object.fromEntries(Object.entries(x.r.layout.src).map(([k, o]) => [k, o.k === "v" ? { ...o, n: o.n + 2 } : o]));
    if (Object.values(x.r.layout.src).some((o) => o.k === "v")) expect(renamingCertificate({ ...x.r, layout: { ...x.r.layout, src } }).ok).toBe(false);
  });
});

describe("illegal assignments are TypeErrors naming the problem", () => {
  const szext = (kinds: RoutineSpec["kinds"], guarded = false): RoutineSpec => ({ form: { op: "szext", mode: "clamp", type: "s32" } as RoutineSpec["form"], kinds, guarded });
  const V = { kind: "v" } as const;
  const S = { kind: "s" } as const;
  const low = (spec: RoutineSpec, regs: RegisterAssignment, mcpu: Mcpu = "gfx942", scratch?: ScratchBudget) => () => lowerRoutine(spec, TARGETS[mcpu], "isa", { regs, ...(scratch ? { scratch } : {}) });
  it("a divergent d in an SGPR", () => expect(low(szext({ a: V, b: V }), { a: "v1", b: "v2", d: "s4" })).toThrow(/regs\.d: d is divergent .* needs a VGPR, not the SGPR s4/));
  it("a divergent source in an SGPR; a uniform one in a VGPR", () => {
    expect(low(szext({ a: V, b: V }), { a: "s1", b: "v2", d: "v0" })).toThrow(/regs\.a: a is divergent .*a VGPR.*not s1/);
    expect(low(szext({ a: V, b: S }), { a: "v1", b: "v2", d: "v0" })).toThrow(/regs\.b: b is uniform: an SGPR/);
  });
  it("an odd-aligned 64-bit pair, a pair for a 32-bit operand, one register for a 64-bit one", () => {
    const m64: RoutineSpec = { form: { op: "match", mode: "any", type: "b64", dest: "d" } as RoutineSpec["form"], kinds: { a: V, membermask: V }, guarded: false };
    expect(low(m64, { a: "v[3:4]", membermask: "v6", d: "v0" })).toThrow(/regs\.a: the pair v\[3:4\] is odd-aligned/);
    expect(low(m64, { a: "v3", membermask: "v6", d: "v0" })).toThrow(/regs\.a: a is 64-bit: an aligned pair/);
    expect(low(szext({ a: V, b: V }), { a: "v[2:3]", b: "v4", d: "v0" })).toThrow(/regs\.a: a is 32-bit: one register/);
    const guarded = szext({ a: V, b: V }, true);
    expect(low(guarded, { a: "v1", b: "v2", guard: "s[5:6]", dPrior: "v3", d: "v3" })).toThrow(/regs\.guard: the pair s\[5:6\] is odd-aligned/);
  });
  it("overlapping inputs; scratch holding an operand; unknown, missing and immediate operands; not a register", () => {
    expect(low(szext({ a: V, b: V }), { a: "v1", b: "v1", d: "v0" })).toThrow(/regs\.a \(v1\) and regs\.b \(v1\) overlap/);
    expect(low(szext({ a: V, b: V }), { a: "v1", b: "v2", d: "v0" }, "gfx942", { vgprs: ["v2"] })).toThrow(/scratch\.vgprs: v2 holds an operand/);
    expect(low(szext({ a: V, b: V }), { a: "v1", b: "v2", c: "v3", d: "v0" })).toThrow(/regs\.c: the routine has no operand 'c'/);
    expect(low(szext({ a: V, b: { kind: "imm", value: 8n } }), { a: "v1", b: "v2", d: "v0" })).toThrow(/regs\.b: b is an immediate/);
    expect(low(szext({ a: V, b: V }), { a: "v1", d: "v0" })).toThrow(/regs is missing 'b'/);
    expect(low(szext({ a: V, b: V }), { a: "v1", b: "v256", d: "v0" })).toThrow(/regs\.b: 'v256' is not a register/);
    expect(low(szext({ a: V, b: V }), { a: "v1", b: "s102", d: "v0" })).toThrow(/regs\.b: 's102' is not a register/);
  });
  it("a scratch budget too small for the sequence", () => {
    const spec = szext({ a: V, b: V });
    const need = lowerRoutine(spec, TARGETS.gfx942, "isa");
    expect(need.vEnd - need.layout.vScratch).toBeGreaterThan(0);
    expect(low(spec, { a: "v1", b: "v2", d: "v0" }, "gfx942", { vgprs: 0 })).toThrow(/scratch budget too small: .*VGPR.*the budget is 0/);
    expect(low(spec, "virtual", "gfx942", { vgprs: 0 })).toThrow(/scratch budget too small: the sequence needs \d+ scratch VGPRs?, the budget is 0/);
    expect(low(spec, { a: "v1", b: "v2", d: "v0" }, "gfx942", { vgprs: need.vEnd - need.layout.vScratch })).not.toThrow();
    expect(low(spec, { a: "v1", b: "v2", d: "v2" }, "gfx942", { vgprs: -1 })).toThrow(/scratch\.vgprs must be a non-negative integer/);
  });
  it("wave64: a uniform membermask in an odd SGPR (read as a lane mask pair)", () => {
    const spec: RoutineSpec = { form: { op: "match", mode: "any", type: "b32", dest: "d" } as RoutineSpec["form"], kinds: { a: V, membermask: S }, guarded: false };
    const r = lowerRoutine(spec, TARGETS.gfx942, "isa");
    if (r.lines.some((l) => !isLabel(l) && l.ops.some((o) => o.k === "s" && o.count === 2 && o.n === 0))) expect(low(spec, { a: "v1", membermask: "s5", d: "v1" })).toThrow(/regs\.membermask: s5 is read as half of the pair s\[5:6\] \(a wave64 lane mask\)/);
    expect(low(spec, { a: "v1", membermask: "s4", d: "v1" })).not.toThrow();
  });
  it("the contract stays the default, and its output is unchanged by an empty options object", () => {
    const spec = szext({ a: V, b: V });
    expect(printRoutine("r", lowerRoutine(spec, TARGETS.gfx1100, "isa", {}))).toBe(printRoutine("r", lowerRoutine(spec, TARGETS.gfx1100, "isa")));
    expect(lowerRoutine(spec, TARGETS.gfx1100, "isa").assigned).toBeUndefined();
  });
});

describe("lower --target amdgpu --regs / --scratch", () => {
  const ROOT = new URL("..", import.meta.url).pathname;
  const ptx = [".version 8.0", ".target sm_90", ".address_size 64", ".visible .entry k(.param .u32 p)", "{", " .reg .b32 %r<4>;", " ld.param.u32 %r1, [p];", " mov.u32 %r2, %tid.x;", " szext.clamp.s32 %r3, %r2, %r1;", " st.param.b32 [p], %r3;", " ret;", "}", ""].join("\n");
  const cli = (...args: string[]) => spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "bin", "ptx-lower.ts"), "lower", "-", ...args], { input: ptx, encoding: "utf8", cwd: ROOT });
  it("places the operands, and llvm-mc-19 accepts the text", () => {
    const r = cli("--target", "amdgpu", "--mcpu", "gfx1100", "--regs", "a=v7,b=s4,d=v2", "--scratch", "v[20:23]");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("; in: a = v7, b = s4\n; out: d = v2; exec unchanged\n; scratch: VGPR v20, SGPR none, vcc_lo, scc\n");
    expect(r.stdout).toMatch(/v_mov_b32_e32 v2, v7\n/);
    if (have.ok) {
      const mc = spawnSync("llvm-mc-19", ["-arch=amdgcn", "-mcpu=gfx1100", "-o", "/dev/null"], { input: r.stdout, encoding: "utf8" });
      expect(mc.stderr).toBe("");
      expect(mc.status).toBe(0);
    }
  });
  it("an illegal assignment, or --regs with another target, is an error naming it (exit 1)", () => {
    const bad = cli("--regs", "a=v7,b=s4,d=s2");
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^ptx-lower: error: --regs: routine szext_clamp_s32__v_s \(.*szext\.clamp\.s32 %r3, %r2, %r1;\): regs\.d: d is divergent .* needs a VGPR, not the SGPR s2\n$/);
    const js = cli("--target", "js", "--regs", "virtual");
    expect(js.status).toBe(1);
    expect(js.stderr).toMatch(/--regs places AMDGPU registers: it takes --target amdgpu, not js/);
  });
});
