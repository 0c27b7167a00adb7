// Every test runs with the targets registered, as the CLI and the library entry do.
import "../src/compose.js";
process.env.PTXL_VERIFY_PASSES ??= "1";
