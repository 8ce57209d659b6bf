// The JavaScript library on its own, for sites that do not bundle it themselves:
// build/web/lib/vtrain.js and its worker (the WebAssembly module inlined). Host both on the
// page's origin (browsers only start workers from their own origin) and import vtrain.js.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  worker: { format: 'es' },
  build: {
    outDir: fileURLToPath(new URL('../build/web/lib', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: false,
    lib: { entry: fileURLToPath(new URL('./lib/vtrain.js', import.meta.url)), formats: ['es'], fileName: 'vtrain' },
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
});
