#pragma once
// The divisors of a positive integer, for the sweeps that try every degree dividing a dimension.

#include <vector>

namespace vtrain::detail {

// The divisors of n (n >= 1) in ascending order, by trial up to the square root: a batch of 1e8
// sequences costs 1e4 steps, not 1e8. Empty for n < 1.
inline std::vector<int> divisors(int n) {
  std::vector<int> low, high;
  for (int d = 1; static_cast<long long>(d) * d <= n; ++d) {
    if (n % d) continue;
    low.push_back(d);
    if (d != n / d) high.push_back(n / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

}  // namespace vtrain::detail
