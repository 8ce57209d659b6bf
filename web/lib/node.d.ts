// vtrain in Node: the same calls as in the browser, run in the calling thread. See types.d.ts.
import type { Vtrain } from './types.js';

export * from './types.js';
export { VtrainError } from './protocol.js';

export interface LoadOptions {
  /** A folder holding vtrain.mjs and vtrain.wasm, in place of the library's own. */
  dir?: string;
}

/** Loads the WebAssembly module and returns the simulator. */
export declare function loadVtrain(options?: LoadOptions): Promise<Vtrain>;
