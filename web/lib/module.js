// Where the WebAssembly module lies: the build's, in the repository. The package
// (scripts/build-package.mjs) ships vtrain.mjs and vtrain.wasm in its wasm/ folder and a copy of
// this file that points there; nothing else differs.
export { default as createModule } from '../../build/wasm/vtrain.mjs';
/** vtrain.wasm, relative to this file, for Node (which is handed the bytes). */
export const WASM_FILE = '../../build/wasm/vtrain.wasm';
