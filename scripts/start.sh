#!/usr/bin/env bash
# `npm start`: install what is missing, build, and run an example simulation.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
./build/native/vtrain simulate gpt3-175b
