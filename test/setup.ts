// Every test runs with the targets registered, as the CLI and the library entry do.
import "../src/compose.js";
process.env.PTXL_VERIFY_PASSES ??= "1";
// clang-19/llc-19 outputs shared by the test files (src/tools.ts cachedTool): the same header or
// module compiled by several files (or twice in one) is compiled once (keyed by the tool's --version, arguments and text).
process.env.PTXL_COMPILE_CACHE ??= (await import("node:path")).join((await import("node:os")).tmpdir(), `ptx-lower-compile-cache-${process.getuid?.() ?? 0}`);
