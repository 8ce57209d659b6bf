import type { Diagnostic } from './types.js';

/** The error every call throws for an input the simulator rejects, a cancelled call or a failure. */
export declare class VtrainError extends Error {
  constructor(errors: Diagnostic[]);
  readonly name: 'VtrainError';
  /** Every diagnostic, each with its code, JSON pointer and sentence. */
  readonly errors: Diagnostic[];
  /** The first diagnostic's code, e.g. "divisibility", "cancelled". */
  readonly code: string;
  /** The first diagnostic's JSON pointer, e.g. "/plan/tp"; '' for the whole input. */
  readonly pointer: string;
}
