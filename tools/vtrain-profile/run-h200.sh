#!/usr/bin/env bash
# One prepared run of vtrain-profile on a machine with one H200 (or any NVIDIA GPU): about 8 minutes
# of measurements, then the profile made from them. Output in $OUT (default ./profile-out):
#   shapes.json            the grid measured (vtrain profile-shapes)
#   measurements.json      the profiler's measurements (format vtrain-measurements)
#   profile.log            its progress and notes
#   nvidia-smi.txt, env.txt  the machine
#   <gpu>-measured.json    the profile, when build/native/vtrain and a bundled H200 profile are present
# Needs python3 with PyTorch built for CUDA. Uses torchrun over every visible GPU when there are several.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${OUT:-$PWD/profile-out}
budget=${BUDGET_S:-400}            # the sweep's budget; the whole run stays inside ~8 minutes
vtrain=${VTRAIN:-$root/build/native/vtrain}
mkdir -p "$out"
start=$(date +%s)

if [ -x "$vtrain" ]; then
  "$vtrain" profile-shapes > "$out/shapes.json"
else
  echo "note: $vtrain not built: the committed default grid (tools/vtrain-profile/shapes-default.json)"
  cp "$here/shapes-default.json" "$out/shapes.json"
fi
nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || echo "note: nvidia-smi not found"
nvidia-smi -q -d CLOCK,POWER,PERFORMANCE >> "$out/nvidia-smi.txt" 2>&1 || true
if ! python3 -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)" 2>/dev/null; then
  echo "error: python3 cannot import torch with CUDA here; install PyTorch for CUDA (docs/profiler.md)" | tee "$out/profile.log"
  exit 1
fi
python3 -c "import torch, platform; print('torch', torch.__version__, 'cuda', torch.version.cuda, 'python', platform.python_version())" > "$out/env.txt"
gpus=$(python3 -c "import torch; print(torch.cuda.device_count())")
if [ "$gpus" -gt 1 ] && command -v torchrun > /dev/null; then
  launch=(torchrun --standalone --nproc-per-node "$gpus")
else
  launch=(python3)
fi
# A hard stop well inside 10 minutes whatever happens.
timeout --signal=INT 520 "${launch[@]}" "$here/vtrain_profile.py" --shapes "$out/shapes.json" \
  --out "$out/measurements.json" --budget-s "$budget" 2>&1 | tee "$out/profile.log"
status=${PIPESTATUS[0]}
if [ "$status" -ne 0 ] || [ ! -s "$out/measurements.json" ]; then
  echo "error: the profiler stopped (status $status); see $out/profile.log"
  exit 1
fi
if [ -x "$vtrain" ]; then
  base=${BASE:-$("$vtrain" profiles --json | python3 -c "import json,sys; n=[p['name'] for p in json.load(sys.stdin) if 'h200' in p['name']]; print(n[0] if n else '')")}
  if [ -n "$base" ]; then
    "$vtrain" calibrate --from-profile "$out/measurements.json" --base "$base" --out "$out/$base-measured.json" \
      | tee -a "$out/profile.log"
  else
    echo "note: no bundled H200 profile to start from (BASE=NAME or a file names one); measurements kept"
  fi
fi
echo "done in $(( $(date +%s) - start )) s; output in $out"
