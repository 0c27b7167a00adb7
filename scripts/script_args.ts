/**
 * @fileoverview The command line of a script under scripts/: `node:util` `parseArgs` with the
 * scripts' conventions — a bad option prints `NAME: error: MESSAGE` and the usage and exits 2
 * (never a stack trace); `--help`/`-h` prints the usage and exits 0.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";

/** Prints `NAME: error: MESSAGE` and the usage on stderr; exits 2. */
export function scriptUsageError(name: string, usage: string, message: string): never {
  process.stderr.write(`${name}: error: ${message}\n${usage}\n`);
  process.exit(2);
}

/**
 * Parses `process.argv` with `options` (plus `--help`/`-h`); see the file comment.
 * @returns the parsed option values.
 */
export function scriptArgs<const O extends NonNullable<ParseArgsConfig["options"]>>(name: string, usage: string, options: O): ReturnType<typeof parseArgs<{ options: O }>>["values"] {
  let values: Record<string, unknown>;
  try {
    values = parseArgs({ options: { help: { type: "boolean", short: "h" }, ...options } }).values;
  } catch (e) {
    scriptUsageError(name, usage, (e as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  return values as ReturnType<typeof parseArgs<{ options: O }>>["values"];
}
