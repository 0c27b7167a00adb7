export interface ProverServices {}
