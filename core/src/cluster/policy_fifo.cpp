// fifo: each job gets the GPUs and plan it asked for, in arrival order, never resized.

#include "cluster/policies.hpp"

namespace vtrain::detail {

namespace {

class Fifo : public SchedulingPolicy {
 public:
  bool admit(const ClusterState& state, int job) override { return runs_as_asked(state, job); }
  void allocate(const ClusterState& state, std::vector<int>& gpus) override {
    std::vector<int> order(state.jobs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);  // the workload is in arrival order
    start_in_order(state, order, gpus);
  }
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_fifo_policy() { return std::make_unique<Fifo>(); }

}  // namespace vtrain::detail
