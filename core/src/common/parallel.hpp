#pragma once
// One way to spread independent items over threads, for the explorer's sweeps and the
// calibration's evaluations alike.

#include <functional>

namespace vtrain::detail {

// The threads a sweep may use when `asked` for: at least 1, and 1 in builds without threads (the
// WebAssembly module runs in one).
int usable_threads(int asked);

// Runs body(item, thread) for every item in [0, items) on `threads` threads, the calling thread
// being thread 0; items are taken in order. After each item the calling thread has run, it asks
// `go_on()` (when given), and false stops every thread from taking another item. Returns false
// when it was stopped.
bool parallel_for(int items, int threads, const std::function<void(int item, int thread)>& body,
                  const std::function<bool()>& go_on = {});

}  // namespace vtrain::detail
