// vtrain in Node: the same calls as lib/vtrain.js, run in the calling thread (for tests and scripts).
//
//   import { loadVtrain } from 'vtrain/node';   (in the repository: './web/lib/node.js')
//   const vtrain = await loadVtrain();
//   const result = await vtrain.simulate({ model: 'gpt3-175b', plan: { tp: 8, pp: 8, dp: 16, global_batch: 1536 } });
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { callModule, unwrap, VtrainError } from './protocol.js';

export { VtrainError };

// The module and its wasm file: the library's own (module.js), or those in `dir`.
async function moduleFiles(dir) {
  if (!dir) {
    const { createModule, WASM_FILE } = await import('./module.js');
    return { create: createModule, wasm: fileURLToPath(new URL(WASM_FILE, import.meta.url)) };
  }
  const { default: create } = await import(pathToFileURL(path.join(dir, 'vtrain.mjs')).href);
  return { create, wasm: path.join(dir, 'vtrain.wasm') };
}

/** Loads the WebAssembly module (the library's, or vtrain.mjs in `options.dir`) and returns {simulate, explore, ...}. */
export async function loadVtrain(options = {}) {
  const { create, wasm } = await moduleFiles(options.dir);
  // Node's fetch cannot read file URLs for this glue: hand it the bytes.
  const mod = await create({ wasmBinary: await readFile(wasm) });
  const call = async (name, input, opts = {}) => {
    if (opts.signal && opts.signal.aborted) {
      throw new VtrainError([{ code: 'cancelled', pointer: '', message: 'the run was cancelled' }]);
    }
    // The call runs in this thread, so only onProgress itself can abort the signal meanwhile.
    return unwrap(callModule(mod, name, input, opts.onProgress, () => Boolean(opts.signal && opts.signal.aborted)));
  };
  return {
    version: await call('version'),
    simulate: (config, opts) => call('simulate', config, opts),
    validateConfig: (config, opts) => call('validateConfig', config, opts),
    explore: (request, opts) => call('explore', request, opts),
    optimal: (request, opts) => call('optimal', request, opts),
    schedule: (request, opts) => call('schedule', request, opts),
    importHf: (configJson, opts) => call('importHf', configJson, opts),
    presets: (opts) => call('presets', undefined, opts),
    profiles: (opts) => call('profiles', undefined, opts),
    schema: (opts) => call('schema', undefined, opts),
    warmUp: async () => {},
    terminate() {},
  };
}
