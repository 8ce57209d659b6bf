// vtrain in the browser: the simulator in Web Workers. See types.d.ts for every document.
import type { Vtrain } from './types.js';

export * from './types.js';
export { VtrainError } from './protocol.js';

export interface CreateOptions {
  /** Supplies each worker, e.g. from another URL; by default the library's worker.js. */
  spawn?: () => Worker;
}

/** Starts the simulator in a worker and resolves once it is loaded. */
export declare function createVtrain(options?: CreateOptions): Promise<Vtrain>;
