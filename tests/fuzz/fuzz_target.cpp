// libFuzzer target over the core's text entries (see fuzz_check.hpp for the input format and the
// promises checked). Built by the `fuzz` preset; run by scripts/fuzz.sh (see docs/fuzzing.md).

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_check.hpp"

namespace {

// Seconds a sweep may run before its progress callback cancels it (VTRAIN_FUZZ_BUDGET_S, default
// 0.25): a slow input still runs every phase that reports progress, and one that runs away before
// reporting trips the fuzzer's -timeout. A quarter second (not one) because a sweep that reaches the
// budget is cut at the same place either way, and the inputs that do (big explore spaces under the
// sanitizers) took most of a one-second harness's time: from the seeds, 413 inputs a second per
// process against 244 with one second, over 2.5 minutes (edges reached 8,761 and 9,097).
double budget_s() {
  static const double budget = [] {
    const char* v = std::getenv("VTRAIN_FUZZ_BUDGET_S");
    const double b = v ? std::atof(v) : 0.25;
    return b > 0 ? b : 0.25;
  }();
  return budget;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string failure = vtrain::fuzz::check_input(data, size, budget_s()).failure;
  if (!failure.empty()) {
    std::fprintf(stderr, "vtrain fuzz finding: %s\n", failure.c_str());
    std::abort();
  }
  return 0;
}
