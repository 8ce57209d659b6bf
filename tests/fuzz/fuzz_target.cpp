// libFuzzer target over the core's text entries (see fuzz_check.hpp for the input format and the
// promises checked). Built by the `fuzz` preset; run by scripts/fuzz.sh (see docs/fuzzing.md).

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // A sweep is cancelled after a second of progress reports: a slow input still runs every phase
  // that reports progress, and one that runs away before reporting trips the fuzzer's -timeout.
  const std::string failure = vtrain::fuzz::check_input(data, size, 1.0).failure;
  if (!failure.empty()) {
    std::fprintf(stderr, "vtrain fuzz finding: %s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
