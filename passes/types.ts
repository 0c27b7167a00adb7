/**
 * @fileoverview The shape of a pass: a name and a function from its input to its output.
 * The pipeline's order is the lists in passes/index.ts.
 */

/** A pass over a value of type `T` (in place or by returning a new one). */
export interface Pass<I, O = I> {
  /** The pass's name (the `PTXL_VERIFY_PASSES` diagnostics name it). */
  readonly name: string;
  run(x: I): O;
}
