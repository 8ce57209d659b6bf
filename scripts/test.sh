#!/usr/bin/env bash
# Everything `npm test` runs: install what is missing, build both targets, run the doctest suites
# natively and under Node (and under the sanitizers with a short fuzzing run, where clang is
# installed), then the JavaScript tests (CLI, WebAssembly module, JS library), then
# build the web page and drive it in Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
echo "== doctest (native)"
ctest --preset native
echo "== doctest (WebAssembly under Node)"
ctest --preset wasm
echo "== doctest under ASan+UBSan, then 3000 fuzzed inputs (clang; skipped with a message without it)"
bash scripts/fuzz.sh --check
echo "== golden numbers from the native CLI"
node scripts/golden.mjs
echo "== JavaScript tests"
node --test tests/js/
echo "== web page"
bash scripts/build-web.sh
echo "== end-to-end tests in Chromium (screenshots in build/screenshots)"
# One file at a time: each starts its own server and browser, and the timed floors need the cores.
node --test --test-concurrency=1 tests/e2e/
