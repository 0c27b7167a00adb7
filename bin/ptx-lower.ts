#!/usr/bin/env node
/**
 * @fileoverview The `ptx-lower` command line: commander definitions only; the actions are
 * in bin/commands.ts and bin/port.ts over the library. Exit codes: 0 success, 1 bad input or
 * a failed check (diagnostics on stderr), 2 internal error.
 *
 * Start-up: this file imports only what the definitions read (commander, bin/options.ts,
 * bin/port_args.ts, bin/output.ts); each action imports its command and the targets it
 * uses when it runs — `lower` and `port` the output targets alone (src/compose_outputs.ts,
 * each target loaded at its first use), the checking commands every target
 * (src/compose.ts) — so that `--help` loads no target and `lower --target amdgpu` no
 * JavaScript or C printer (`npm run bench -- --only startup` measures it).
 */
import { OUTPUT_TARGETS } from "../src/target/lower.js";
import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Command, InvalidArgumentError, Option } from "commander";
import { FAMILY_INSTRUCTIONS, fraction, MAX_SEED, MAX_WARPS, positiveInt, regsOption, scratchOption } from "./options.js";

/** `--family`'s values, each with its instructions: `szext, video (vshl/vshr), …` (bin/options.ts FAMILY_INSTRUCTIONS). */
function familyChoices(): string {
  return Object.entries(FAMILY_INSTRUCTIONS)
    .map(([f, ops]) => (f === ops ? f : `${f} (${ops})`))
    .join(", ");
}
import { OutputError, UsageError, reasonOf } from "./output.js";
import type { PortCommandOptions } from "./port.js";
import type { Predefined } from "./port_args.js";
import { checkPtxTarget, parseDefine, parseUndef, PORT_EXTENSIONS, sourceNotPtx } from "./port_args.js";
import { escapeLine } from "../src/diag.js";

// Standard output: a reader that went away (`| head -1`) ends the command quietly; any other
// write error (`> /dev/full`) is one line and exit 1, never a stack trace.
for (const [stream, name] of [[process.stdout, "<stdout>"], [process.stderr, "<stderr>"]] as const)
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE" && stream === process.stdout) {
      try {
        process.stderr.write(`ptx-lower: error: cannot write ${name}: ${escapeLine(reasonOf(e))}\n`);
      } catch {
        // stderr is gone too
      }
      process.exit(1);
    }
    process.exit(e.code === "EPIPE" ? (typeof process.exitCode === "number" ? process.exitCode : 0) : 1);
  });
/** docs/vectors.md of this installation (bin/ and dist/bin/ are both two levels below it). */
const VECTORS_DOC = (() => {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const up of ["..", "../.."]) {
    const p = resolve(here, up, "docs", "vectors.md");
    if (existsSync(p)) return p;
  }
  return "docs/vectors.md";
})();
/** The arguments after `ptx-lower`, as given: recorded in output banners. */
const ARGV = process.argv.slice(2);

const choice = (name: string, values: readonly string[]) => (x: string) => {
  if (!values.includes(x)) throw new InvalidArgumentError(`${name} must be one of ${values.join(", ")}`);
  return x;
};
/** Turns a parser's UsageError into commander's invalid-argument error. */
const wrap = <T>(f: (x: string) => T) => (x: string): T => {
  try {
    return f(x);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
};
/** A string option's checker (throwing a UsageError) as commander's argument parser. */
const wrapString = (f: (x: string) => string) => (x: string) => {
  try {
    return f(x);
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
};
/**
 * `lower`, `verify` and `report` read PTX: a C/C++/CUDA/OpenCL source given to one of them
 * is one line saying that `port` is the command for sources (bin/port.ts `sourceNotPtx`).
 * @returns true when some input was one (the exit code is then 1).
 */
function refuseSources(files: readonly string[]): boolean {
  const lines = files.map(sourceNotPtx).filter((l): l is string => l !== null);
  for (const l of lines) process.stderr.write(l + "\n");
  if (lines.length) process.exitCode = 1;
  return lines.length > 0;
}
/**
 * commander's usage error as ptx-lower prints it: `ptx-lower: error: …` with the input in it
 * escaped (a line feed in an argument is `\x0a`), and commander's own second line, its
 * suggestion (`(Did you mean --target?)`), kept as a line of its own.
 */
function commanderError(str: string): string {
  const m = /^([^]*?)\n(\(Did you mean [^\n]*\?\))$/.exec(str.trimEnd());
  const [first, hint] = m ? [m[1]!, m[2]!] : [str.trimEnd(), null];
  return `ptx-lower: ${escapeLine(first.replace(/^(?!error: )/, "error: "))}\n${hint === null ? "" : `${escapeLine(hint)}\n`}`;
}
const MCPU = ["gfx900", "gfx90a", "gfx942", "gfx1030", "gfx1100", "all"];
const semantics = () => new Option("--semantics <profile>", "semantics profile: isa (the ISA, repaired) or sm90 (ptxas's sm_75+ emulation)").argParser(choice("--semantics", ["isa", "sm90"]));

const program = new Command("ptx-lower")
  .description(
    "Lower PTX szext, vshl/vshr, vadd/vsub/vabsdiff/vmin/vmax/vset, match.sync and the warp-level shfl/vote/redux/activemask/bar.warp.sync to AMDGPU assembly, JavaScript, C, HIP and LLVM IR; " +
      "check (or prove) each lowering against the PTX meaning; port the inline PTX and warp intrinsics of CUDA sources to HIP.",
  )
  .version("0.1.0")
  // A usage error is one line, `ptx-lower: error: …` (input in it escaped), then where to look.
  .configureOutput({ outputError: (str, write) => write(commanderError(str)) })
  .showHelpAfterError("see 'ptx-lower --help'")
  .exitOverride();

program
  .command("lower")
  .description(`lower every ${Object.values(FAMILY_INSTRUCTIONS).join(" / ")} occurrence of a PTX module`)
  .argument("<file>", "a .ptx file, or - for standard input")
  .addOption(new Option("--target <target>", "output: amdgpu, js, c, hip (a header of __device__ functions), llvm (an IR module), or all").default("amdgpu").argParser(choice("--target", [...OUTPUT_TARGETS, "all"])))
  .addOption(new Option("--mcpu <name>", "AMDGPU processor, or all, for the amdgpu output (js, c, hip and llvm serve every processor: --mcpu with one of them alone is unused, a warning)").default("gfx942").argParser(choice("--mcpu", MCPU)))
  .addOption(semantics().default("isa"))
  .option("-o, --output <path>", "output file; with several outputs a directory (created if missing; a new name ending in an output's extension, e.g. out.s, is refused: write out.s/); - for standard output")
  .option("--regs <list>", "amdgpu: every routine's operands in these registers instead of the routine contract's: OPERAND=REGISTER,... (a=v7,b=s4,d=v2; d may be a source's register; 64-bit values and wave64 lane masks as aligned pairs a=v[8:9], s[4:5]; a guarded routine's guard and dPrior too), or virtual (%vN/%sN names for a register allocator)", wrap(regsOption))
  .option("--scratch <list>", "amdgpu, with --regs: the scratch registers a routine may use besides its operands: budgets v=N,s=N, or registers and ranges v[20:31],s40 (default: no limit; the lowest registers no operand holds)", wrap(scratchOption))
  .action(async (file: string, o, cmd: Command) => {
    if (refuseSources([file])) return;
    await import("../src/compose_outputs.js");
    const { lowerCommand } = await import("./commands.js");
    process.exitCode = await lowerCommand(file, { ...o, argv: ARGV, mcpuGiven: cmd.getOptionValueSource("mcpu") === "cli" });
  });

program
  .command("check")
  .description("run test vectors (.jsonl; the format: docs/vectors.md) on the reference and every lowering")
  .argument("<vectors>", "a .jsonl vector file (format: docs/vectors.md)")
  .addOption(new Option("--target <target>", "ref, amdgpu, js, c, hip (the header compiled by clang-19), llvm (the module compiled by llc-19), or all").default("all").argParser(choice("--target", ["ref", "amdgpu", "js", "c", "hip", "llvm", "all"])))
  .addOption(semantics().default("isa"))
  .addOption(new Option("--mcpu <name>", "AMDGPU processor, or all").default("all").argParser(choice("--mcpu", MCPU)))
  .addHelpText("after", `\nThe vector format (one JSON object a line: id, ptx, in, out, warp, semantics) is documented in\ndocs/vectors.md, in the package (${VECTORS_DOC}).`)
  .action(async (file: string, o, cmd: Command) => {
    await import("../src/compose.js");
    const { checkCommand } = await import("./commands.js");
    process.exitCode = await checkCommand(file, { ...o, mcpuGiven: cmd.getOptionValueSource("mcpu") === "cli" });
  });

program
  .command("verify")
  .description("check (or with --prove, prove) every lowering of the forms in FILE, or of whole families")
  .argument("[file]", "a .ptx file whose forms are verified")
  .addOption(new Option("--family <family>", `${familyChoices()} (default: all)`).argParser(choice("--family", Object.keys(FAMILY_INSTRUCTIONS))))
  .option("--all", "every legal form, not a seeded sample")
  .addOption(semantics())
  .addOption(new Option("--mcpu <name>", "AMDGPU processor, or all").default("all").argParser(choice("--mcpu", MCPU)))
  .addOption(new Option("--target <target>", "amdgpu, js, c, hip (the header compiled by clang-19 for each --mcpu), llvm (the module compiled by llc-19), or all").default("all").argParser(choice("--target", ["amdgpu", "js", "c", "hip", "llvm", "all"])))
  .option("--prove", "prove with z3 instead of testing (verdicts proved / refuted / unknown); a verdict stored under proofs/ by the same prover source is reused, 'proved (stored)'")
  .option("--fresh", "with --prove: prove every verdict again (no stored verdict used)")
  .option("--recheck <fraction>", "with --prove: the fraction of the stored verdicts used that is proved again, a sample seeded by --seed, 0 to 1 (default: 0.02)", wrap(fraction("--recheck")))
  .option("--proof-cache <file>", "with --prove: a proof cache file (prove:all's --resume format) read after proofs/, each verdict proved appended to it")
  .option("--allow-empty", "succeed when nothing matches (no occurrence in FILE, or none of --family); an error otherwise")
  .option("--json", "print the results as one JSON document")
  .option("--seed <n>", `seed of the random inputs (and of --recheck's sample), 1 to ${MAX_SEED}`, wrap(positiveInt("--seed", { max: MAX_SEED, why: "the random generator keeps 32 bits of state" })), 1)
  .option("--warps <n>", `random warps per warp routine (match.sync, shfl, vote, redux, …), at most ${MAX_WARPS} (default 200, --thorough 10,000; hip and llvm rows: a tenth of it, at least 1,000 or all of them when fewer)`, wrap(positiveInt("--warps", { max: MAX_WARPS, why: "the warps are held in memory" })))
  .option("--thorough", "more inputs: 10,000 random warps per warp routine (hip and llvm rows: 1,000) and 4,000 random scalar cases per routine beside the edge cases (default: 200 warps on every row, 400 random scalar cases)")
  .addHelpText("after", "\nEnvironment: PTXL_JOBS=N, the threads the hip and llvm rows run on (default: every core; 1: this thread).\n")
  .action(async (file: string | undefined, o) => {
    if (file !== undefined && refuseSources([file])) return;
    // PTXL_JOBS checked before any work (a usage error, not an internal one mid-run).
    const { compiledJobs } = await import("../src/jobs.js");
    try {
      compiledJobs();
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    await import("../src/compose.js");
    const { verifyCommand } = await import("./commands.js");
    process.exitCode = await verifyCommand(file, o);
  });

program
  .command("report")
  .description("what ptx-lower finds and produces in PTX modules: occurrences, rules, counts, verdicts, and a census of other instructions")
  .argument("<files...>", ".ptx files")
  .addOption(new Option("--mcpu <name>", "AMDGPU processor, or all").default("all").argParser(choice("--mcpu", MCPU)))
  .addOption(semantics().default("isa"))
  .option("--json", "one JSON document for all files (schema: docs/report.schema.json)")
  .option("--html <file>", "also write the report as one self-contained HTML page: totals and charts, a sortable, filterable table per module, each occurrence's PTX beside every target's code")
  .action(async (files: string[], o) => {
    if (refuseSources(files)) return;
    await import("../src/compose.js");
    const { reportCommand } = await import("./commands.js");
    process.exitCode = await reportCommand(files, o);
  });

program
  .command("hwgen")
  .description("write a CUDA program that runs each vector on an NVIDIA GPU and prints what it observed, as vectors")
  .argument("[vectors]", "a .jsonl vector file (format: docs/vectors.md)")
  .requiredOption("-o, --output <file>", "the .cu file to write (- for standard output)")
  .option("--probe", "instead: write probe vectors (.jsonl) for the open points of the shfl readings (b in 32..63 and negative, stray c bits), expected under both readings; run them with hwgen")
  .action(async (file: string | undefined, o) => {
    await import("../src/compose.js");
    const { hwgenCommand } = await import("./commands.js");
    process.exitCode = await hwgenCommand(file, o);
  });

/** `-D`/`-U` values in command-line order (they interleave: commander keeps one list per option). */
const predefined: Predefined[] = [];
const porting = (parse: (x: string) => Predefined) => (x: string) => {
  try {
    predefined.push(parse(x));
  } catch (e) {
    throw new InvalidArgumentError((e as Error).message);
  }
  return predefined;
};
const collect = (x: string, prev: string[] | undefined) => [...(prev ?? []), x];

program
  .command("port")
  .description("rewrite the inline PTX (asm statements) and CUDA warp intrinsics of CUDA sources, or of whole source trees, into calls of the HIP header's functions, under #if defined(__HIP__)")
  .argument("<paths...>", `sources (${PORT_EXTENSIONS.join(" ")}; .cl is OpenCL C) or directories, searched recursively for them (symbolic links not followed); - for standard input`)
  .option("-o, --output <path>", "output file for one input (its header STEM.hip.h is written beside it), a directory for several inputs or a directory (the tree is mirrored there; each ported file's header STEM.hip.h beside it, NAME.hip.h where two files share a stem); without it one input goes to standard output with the header inlined")
  .option("--json", "one JSON document for all files on standard output (schema: docs/port.schema.json); without -o nothing is written")
  .option("--html <file>", "also write one self-contained HTML page: totals and charts, a sortable, filterable table per file, the original beside the ported text with the rewrites marked and each left statement's reason; without -o nothing else is written")
  .addOption(
    new Option(
      "--semantics <profile>",
      "semantics profile of the header: sm90 (what the replaced asm computed on NVIDIA hardware, where ptxas emulates vshl/vshr for sm_75 and later) or isa (the PTX ISA's meaning, the default of 'lower --target hip' headers); stated in the header's banner",
    )
      .default("sm90")
      .argParser(choice("--semantics", ["isa", "sm90"])),
  )
  .addOption(new Option("--language <language>", "cuda or opencl: the language of every input named directly and of standard input, whatever its name (default: by extension; .cl is opencl)").argParser(choice("--language", ["cuda", "opencl"])))
  .addOption(new Option("--ptx-target <sm_XX>", "check every asm statement under this PTX target (e.g. sm_100a) instead of the first one ptxas accepts").argParser(wrapString(checkPtxTarget)))
  .option("--hip-macro <NAME>", "a macro that a HIP build defines (e.g. GGML_USE_HIP): code under it is a HIP path, left as written (repeatable)", collect)
  .option("-D, --define <NAME[=VALUE]>", "define a macro for the #if evaluation, as a compiler does (repeatable; in order with -U)", porting(parseDefine))
  .option("-U, --undefine <NAME>", "undefine a macro for the #if evaluation (repeatable; in order with -D)", porting(parseUndef))
  .option("--rename-shared", "in a file with a HIP path, also rename the intrinsic calls and warpSize in code both builds compile")
  .option("--copy-all", "with -o DIR: also write the files with nothing to rewrite (unchanged), so the mirror holds every source")
  .option("--shared-header <NAME>", "with -o DIR: one header DIR/NAME with every function once, included by every ported file (by its relative path)")
  .option("--header <path>", "where the header of the one input goes (instead of STEM.hip.h beside the output); also the way past an existing STEM.hip.h that port did not write")
  .option("-j, --jobs <n>", "worker threads for many files (default: every core)", wrap(positiveInt("--jobs")))
  .action(async (files: string[], o) => {
    const { define: _d, undefine: _u, hipMacro, header, ...rest } = o as Record<string, unknown>;
    await import("../src/compose_outputs.js");
    const { portCommand } = await import("./port.js");
    process.exitCode = await portCommand(files, { ...(rest as PortCommandOptions), hipMacro: hipMacro as string[] | undefined, headerPath: header as string | undefined, predefined: [...predefined] });
  });

// Each command's usage errors point at its own help.
for (const c of program.commands) c.showHelpAfterError(`see 'ptx-lower ${c.name()} --help'`);

program.parseAsync(process.argv).catch((e: unknown) => {
  const err = e as { code?: string; exitCode?: number; message?: string };
  if (err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help") {
    // `--help`: 0; help shown because no command was given: commander's 1.
    process.exitCode = err.exitCode ?? 0;
  } else if (err.code?.startsWith("commander.")) {
    process.exitCode = 1;
  } else if (e instanceof OutputError && e.quiet) {
    // EPIPE on an output: the reader went away; quietly, like standard output.
  } else if (e instanceof UsageError) {
    const m = escapeLine(e.message);
    process.stderr.write(/^\S*: error: |^error: /.test(m) ? `${m}\n` : `ptx-lower: error: ${m}\n`);
    process.exitCode = 1;
  } else {
    process.stderr.write(`ptx-lower: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 2;
  }
});
