#include "cluster/order.hpp"

#include <algorithm>

namespace vtrain::detail {

namespace {

struct ByKey {
  const std::vector<double>* key;
  bool operator()(int a, int b) const { return (*key)[a] < (*key)[b] || ((*key)[a] == (*key)[b] && a < b); }
};

}  // namespace

std::vector<int> order_by(const std::vector<double>& key) {
  std::vector<int> idx(key.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int>(i);
  std::sort(idx.begin(), idx.end(), ByKey{&key});
  return idx;
}

}  // namespace vtrain::detail
