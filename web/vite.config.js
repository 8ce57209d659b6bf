// The page's build: `vite build --config web/vite.config.js` writes build/web; `vite preview` serves it.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';
import { CSP } from './csp.js';

const web = fileURLToPath(new URL('.', import.meta.url));
const repo = fileURLToPath(new URL('..', import.meta.url));

// The policy as a <meta> of the built page (a static host sends no headers of its own), and as a
// header of the preview server for the page and its worker. The library on its own (/lib/) is
// for other sites, under their policies, and is served without it.
const contentSecurityPolicy = {
  name: 'vtrain-csp',
  transformIndexHtml: {
    order: 'post',
    handler: (html, ctx) => (ctx.bundle ? html.replace('<meta charset="utf-8" />', `<meta charset="utf-8" />\n    <meta http-equiv="Content-Security-Policy" content="${CSP}" />`) : html),
  },
  configurePreviewServer(server) {
    server.middlewares.use((req, res, next) => {
      if (!/^\/lib\//.test(req.url || '')) res.setHeader('Content-Security-Policy', CSP);
      next();
    });
  },
};

export default defineConfig({
  root: web,
  plugins: [contentSecurityPolicy],
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
