#!/usr/bin/env bash
# Builds the web calculator into build/web, the JavaScript library on its own into build/web/lib,
# and the library's npm package into build/package (npm pack build/package makes its tarball),
# from web/ and the WebAssembly module in build/wasm (run scripts/build.sh first).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f build/wasm/vtrain.mjs ]; then
  echo "build-web: build/wasm/vtrain.mjs is missing; run scripts/build.sh first" >&2
  exit 1
fi
node_modules/.bin/vite build --config web/vite.config.js --logLevel warn
node_modules/.bin/vite build --config web/vite.lib.config.js --logLevel warn
node scripts/build-package.mjs >/dev/null
echo "build-web: build/web (the page), build/web/lib (the library on its own), build/package (its npm package)"
