#!/usr/bin/env bash
# Fuzzes the core's text entries with libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer
# (tests/fuzz/; docs/fuzzing.md). Needs clang and its libFuzzer runtime: without them it says so
# and exits 0.
#
#   bash scripts/fuzz.sh --check        npm test's part: the doctest suite under ASan+UBSan, then
#                                       3000 fuzzed inputs from the seeds (a fixed seed, seconds)
#   bash scripts/fuzz.sh --runs N [FLAG...]
#                                       N inputs (-1: until stopped), growing the corpus kept in
#                                       build/fuzz/corpus; FLAGs go to libFuzzer (e.g. -jobs=1,
#                                       -max_total_time=3600)
#
# A finding stops the run: libFuzzer writes the input to build/fuzz/findings/ (crash-*, leak-*,
# timeout-*, oom-*); copy it to tests/fuzz/regressions/ once fixed, where the doctest suite replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

mode=""
runs=""
flags=()
while [ $# -gt 0 ]; do
  case "$1" in
    --check) mode=check ;;
    --runs) runs="$2"; mode=long; shift ;;
    *) flags+=("$1") ;;
  esac
  shift
done
if [ -z "$mode" ]; then
  sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi

# clang, and a libFuzzer runtime it links (Debian: libclang-rt-14-dev, a recommendation of clang-14).
if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz: skipped: clang++ is not installed (the sanitizer build and the fuzzer need clang)"
  exit 0
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf '%s\n' '#include <cstddef>' '#include <cstdint>' \
  'extern "C" int LLVMFuzzerTestOneInput(const uint8_t*, size_t) { return 0; }' > "$probe/probe.cpp"
if ! clang++ -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" 2>"$probe/err"; then
  echo "fuzz: skipped: clang++ cannot link libFuzzer with ASan and UBSan (install libclang-rt-14-dev):"
  sed 's/^/  /' "$probe/err" | head -5
  exit 0
fi

cmake --preset fuzz >/dev/null
if [ "$mode" = check ]; then
  cmake --build --preset fuzz
  echo "== doctest under AddressSanitizer and UndefinedBehaviorSanitizer"
  ctest --preset fuzz
else
  cmake --build --preset fuzz --target vtrain_fuzz
fi
bin=$root/build/fuzz/tests/fuzz/vtrain_fuzz

# The seed corpus, rebuilt each run from the repository: the example configs as simulate,
# validate and explore inputs, the explore and schedule cases, the job lists, the published
# measurements, the fuzzer's own seeds (the optimal preset, an nccl-tests file, a trace; written
# with `vtrain presets --json`'s requests) and, where ../shared is present,
# nccl-tests files and the ITP trace. Each file is a selector byte and the text
# (tests/fuzz/fuzz_check.hpp).
seeds=$root/build/fuzz/seeds
rm -rf "$seeds"
mkdir -p "$seeds"
seed() { { printf '%s' "$1"; cat "$2"; } > "$seeds/$3"; }
for f in examples/*.json; do
  n=$(basename "$f" .json)
  seed s "$f" "simulate-$n"
  seed v "$f" "validate-$n"
  seed e "$f" "explore-$n"
done
for f in examples/workloads/*.json; do seed S "$f" "schedule-$(basename "$f" .json)"; done
for f in profiles/published/*.csv; do seed c "$f" "measurements-$(basename "$f" .csv)"; done
for f in tests/data/hf/*.json; do seed h "$f" "import-hf-$(basename "$f" .json)"; done
printf 'e{"case": "mt-nlg"}' > "$seeds/explore-case-mt-nlg"
printf 'S{"case": "vtrain-case2", "jobs": 8}' > "$seeds/schedule-case-vtrain-case2"
cp tests/fuzz/seeds/* "$seeds/"
shared=$root/../shared
if [ -d "$shared/measurements/a100-nccl-allreduce" ]; then
  for f in "$shared"/measurements/a100-nccl-allreduce/*.csv; do seed a "$f" "allreduce-$(basename "$f" .csv)"; done
  [ -f "$shared/traces/itp_195job.csv" ] && head -n 40 "$shared/traces/itp_195job.csv" > "$probe/trace.csv" &&
    seed t "$probe/trace.csv" trace-itp-195job-head
else
  echo "fuzz: ../shared is absent: no nccl-tests or trace seeds from it (the fuzzer's own seeds stand in)"
fi
echo "fuzz: $(ls "$seeds" | wc -l) seeds, $(ls tests/fuzz/regressions | wc -l) regression inputs"

common=(-dict="$root/tests/fuzz/vtrain.dict" -max_len=16384 -timeout=30 -rss_limit_mb=3072
        -print_final_stats=1 -artifact_prefix="$root/build/fuzz/findings/")
mkdir -p "$root/build/fuzz/findings"
if [ "$mode" = check ]; then
  echo "== fuzzing: 3000 inputs from the seeds"
  corpus=$probe/corpus
  mkdir -p "$corpus"
  status=0
  "$bin" "${common[@]}" -seed=1 -runs=3000 "$corpus" "$seeds" tests/fuzz/regressions >"$probe/log" 2>&1 || status=$?
  if [ $status -ne 0 ]; then
    tail -n 60 "$probe/log"
    echo "fuzz: a finding (exit status $status); the input is in build/fuzz/findings/"
  else
    grep -E '^(#[0-9]+ +(INITED|DONE)|stat::number_of_executed_units|stat::peak_rss_mb|Done)' "$probe/log" || true
  fi
  exit $status
fi
corpus=$root/build/fuzz/corpus
mkdir -p "$corpus"
start=$(date -u +%FT%TZ)
cd "$root/build/fuzz"  # -jobs writes fuzz-N.log here
status=0
"$bin" "${common[@]}" -runs="$runs" "${flags[@]}" "$corpus" "$seeds" "$root/tests/fuzz/regressions" || status=$?
echo "fuzz: started $start, ended $(date -u +%FT%TZ), exit status $status"
echo "fuzz: corpus build/fuzz/corpus: $(ls "$corpus" | wc -l) inputs, $(du -sk "$corpus" | cut -f1) KiB"
exit $status
