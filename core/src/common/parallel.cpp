#include "common/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <vector>

// Browsers run the WebAssembly module without threads unless it is built for them.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define VTRAIN_SINGLE_THREADED 1
#else
#include <thread>
#endif

namespace vtrain::detail {

int usable_threads(int asked) {
#ifdef VTRAIN_SINGLE_THREADED
  (void)asked;
  return 1;
#else
  return std::max(1, asked);
#endif
}

bool parallel_for(int items, int threads, const std::function<void(int, int)>& body,
                  const std::function<bool()>& go_on) {
  std::atomic<int> next{0};
  std::atomic<bool> stop{false};
  auto worker = [&](int thread) {
    while (!stop.load(std::memory_order_relaxed)) {
      const int i = next.fetch_add(1);
      if (i >= items) return;
      body(i, thread);
      if (thread == 0 && go_on && !go_on()) stop = true;
    }
  };
#ifndef VTRAIN_SINGLE_THREADED
  std::vector<std::thread> pool;
  for (int t = 1; t < usable_threads(threads); ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& th : pool) th.join();
#else
  (void)threads;
  worker(0);
#endif
  return !stop.load();
}

}  // namespace vtrain::detail
