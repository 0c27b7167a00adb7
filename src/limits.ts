/**
 * @fileoverview The checker's input-count bounds, stated once for the CLI's options
 * (bin/options.ts) and the library's argument checks (src/args.ts). A leaf module: the CLI
 * reads it before any command is loaded.
 */

/**
 * The most random warps per warp routine (`verify --warps`, the library's `verify` `warps`):
 * the checker holds a routine's warps in memory (about 5 KB each: 100,000 warps of one
 * match.sync routine take 0.5 GB and 15 s on the js target), and 1,000,000 exhaust Node's
 * default heap (an out-of-memory abort, not an error message).
 */
export const MAX_WARPS = 100_000;

/**
 * The most random scalar cases per routine beyond the fixed ones (the library's `verify`
 * `random`): the cases are held in memory too (a few hundred bytes each).
 */
export const MAX_RANDOM = 1_000_000;
