#pragma once
// One ordering for every list the scheduler sorts (jobs by arrival or deadline, plans by GPUs):
// a single sort keeps the WebAssembly module small.

#include <vector>

namespace vtrain::detail {

// The indices of `key`, by ascending key, ties in index order.
std::vector<int> order_by(const std::vector<double>& key);

}  // namespace vtrain::detail
