#!/usr/bin/env bash
# What a spread of GPU speed does to the fits and to the runs no fit sees (docs/large-scale.md,
# "Stragglers"): for each spread given, the A100 calibration with that spread fixed, the H100
# projected from it and calibrated (5-fold cross-validation), and the published sets validated with
# the profiles it gives. Needs ../shared (the A100 calibration sets) and a native build.
#
#   bash scripts/spread-sweep.sh 0 0.01 0.015
set -euo pipefail
cd "$(dirname "$0")/.."
vtrain=build/native/vtrain
if [ ! -d ../shared/validation ]; then
  echo "spread-sweep: ../shared/validation is absent (it is beside the repository's own checkout); nothing to do"
  exit 0
fi
[ -x "$vtrain" ] || { echo "spread-sweep: build first (cmake --build --preset native)" >&2; exit 2; }
spreads=("$@")
[ ${#spreads[@]} -gt 0 ] || spreads=(0 0.015)
for spread in "${spreads[@]}"; do
  dir=$(mktemp -d)
  echo "== gpu_speed_spread $spread"
  "$vtrain" calibrate --threads 2 --gpu-speed-spread "$spread" --out-dir "$dir" 2>/dev/null |
    grep -E "MAPE|gemm_max_efficiency|collective_sync_us" | sed 's/^/  A100 /'
  node scripts/project-profiles.mjs --base "$dir/a100-sxm4-80gb.json" --h100 "$dir/h100-projected.json" \
    --dir "$dir" >/dev/null
  "$vtrain" calibrate --gpu h100-sxm5-80gb --profile "$dir/h100-projected.json" --cv 5 --out-dir "$dir" \
    --threads 2 2>/dev/null | grep -E "MAPE|gemm_efficiency|gemm_max" | sed 's/^/  H100 /'
  for f in nemo-h100 long-context-h100 llama3-405b-h100 grok-h100; do
    printf '  %-20s' "$f"
    "$vtrain" validate "profiles/published/$f.csv" --summary --profile "$dir/h100-sxm5-80gb.json" | grep MAPE
  done
  "$vtrain" validate profiles/published/llama3-405b-h100.csv profiles/published/grok-h100.csv --scale 1000 \
    --summary --profile "$dir/h100-sxm5-80gb.json" | tail -2 | sed "s/^ */  H100 above 1000 GPUs: /"
  rm -rf "$dir"
done
