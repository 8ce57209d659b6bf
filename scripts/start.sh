#!/usr/bin/env bash
# `npm start`: install what is missing, build, run an example simulation, then serve the web
# calculator (build/web) on http://127.0.0.1:4173 until interrupted.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
./build/native/vtrain simulate gpt3-175b
echo
bash scripts/build-web.sh
echo
echo "vtrain calculator: http://127.0.0.1:4173/  (Ctrl-C stops it)"
# exec: Ctrl-C and kill reach Vite itself, so no server is left behind.
exec node_modules/.bin/vite preview --config web/vite.config.js --host 127.0.0.1 --port 4173 --strictPort
