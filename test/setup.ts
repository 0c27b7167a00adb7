// Every test runs with the targets registered, as the CLI and the library entry do.
import "../src/compose.js";
process.env.PTXL_VERIFY_PASSES ??= "1";
// clang-19/llc-19 outputs shared by the test files (src/tools.ts cachedTool): the same header or
// module compiled by several files (or twice in one) is compiled once (keyed by the tool's --version, arguments and text).
process.env.PTXL_COMPILE_CACHE ??= (await import("node:path")).join((await import("node:os")).tmpdir(), `ptx-lower-compile-cache-${process.getuid?.() ?? 0}`);
// Two test files run at a time on CI's two cores: verify's hip/llvm rows stay in the test's own
// thread (targets/llvm/compiled_pool.ts; test/compiled_pool.test.ts runs the pool itself).
process.env.PTXL_JOBS ??= "1";
