#!/usr/bin/env bash
# Builds the native CLI and tests (build/native) and the WebAssembly module and tests (build/wasm).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
for preset in native wasm; do
  [ -f "build/$preset/build.ninja" ] || cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
done
