// The page's build: `vite build --config web/vite.config.js` writes build/web; `vite preview` serves it.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('..', import.meta.url));

export default defineConfig({
  root: web,
  base: './',
  // The worker imports the module from build/wasm, outside web/.
  server: { host: '127.0.0.1', port: 5173, fs: { allow: [repo] } },
  preview: { host: '127.0.0.1', port: 4173, strictPort: true },
  worker: { format: 'es' },
  build: {
    outDir: fileURLToPath(new URL('../build/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Plotly is one large chunk, loaded after the first result.
    chunkSizeWarningLimit: 6000,
    reportCompressedSize: false,
    // Plotly's minified bundle is slow to re-bundle; that is expected, not worth a warning.
    rolldownOptions: { checks: { bundlerTimings: false } },
  },
});
