// The page's Content-Security-Policy: everything from the page's own origin, nothing remote, no
// eval. WebAssembly needs 'wasm-unsafe-eval' (compiling the simulator is not eval of text); the
// favicon and Plotly's image export use data: and blob: URLs; Plotly writes its own <style> and
// style attributes, which need 'unsafe-inline' for styles (styles only: scripts stay strict). vite.config.js writes it into the
// built page as a <meta> and sends it as a header from `vite preview` (which also covers the
// worker, whose policy comes from its own response).
export const CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');
