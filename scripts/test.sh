#!/usr/bin/env bash
# Everything `npm test` runs: install what is missing, build both targets, run the doctest suites
# natively and under Node, then the JavaScript tests (CLI, WebAssembly module).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
echo "== doctest (native)"
ctest --preset native
echo "== doctest (WebAssembly under Node)"
ctest --preset wasm
echo "== JavaScript tests"
node --test tests/js/
