export interface LowerServices {}
