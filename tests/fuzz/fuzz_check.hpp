#pragma once
// One fuzzed input run through the core's text entries, and the promises each reply must keep.
// Shared by the libFuzzer target (tests/fuzz/fuzz_target.cpp) and the doctest suite, which
// replays the inputs the fuzzer has found (tests/fuzz/regressions/).
//
// An input is one selector byte, then the text handed to the entry it names:
//   's' api::simulate        'v' api::validate_config   'e' api::explore
//   'o' api::optimal         'S' api::schedule          'c' a measurements CSV (vtrain validate)
//   'a' an nccl-tests all-reduce CSV (vtrain calibrate) 't' an ITP trace CSV (schedule --map-trace)
//   'h' a Hugging Face config.json (api::import_hf)
// Any other first byte picks one of the first eight by its value modulo 8.

#include <cstddef>
#include <cstdint>
#include <string>

namespace vtrain::fuzz {

struct Verdict {
  std::string failure;  // "" when every promise holds, else what broke
  bool answered = false;  // the entry answered with a result (not an error)
};

// Runs `data` through its entry and checks its answer. A sweep that runs longer than `budget_s`
// seconds is cancelled from its progress callback (a cancelled reply is a valid error), so that a
// slow input costs the fuzzer little; time spent before the first progress report is not bounded
// here (the fuzzer's -timeout is).
Verdict check_input(const uint8_t* data, size_t size, double budget_s);

// The entry an input's selector byte names, e.g. "simulate".
const char* entry_name(uint8_t selector);

}  // namespace vtrain::fuzz
