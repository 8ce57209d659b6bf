// edf: each job gets the GPUs and plan it asked for, earliest deadline first among the waiting
// jobs, never resized.

#include "cluster/policies.hpp"

#include "cluster/order.hpp"

namespace vtrain::detail {

namespace {

class EarliestDeadlineFirst : public SchedulingPolicy {
 public:
  bool admit(const ClusterState& state, int job) override { return runs_as_asked(state, job); }
  void allocate(const ClusterState& state, std::vector<int>& gpus) override {
    std::vector<int> waiting;
    std::vector<double> deadline;
    for (size_t i = 0; i < state.jobs.size(); ++i)
      if (state.jobs[i].phase == JobPhase::waiting) {
        waiting.push_back(static_cast<int>(i));
        deadline.push_back(state.jobs[i].spec->deadline_s);
      }
    std::vector<int> order;
    for (int k : order_by(deadline)) order.push_back(waiting[k]);
    start_in_order(state, order, gpus);
  }
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_edf_policy() { return std::make_unique<EarliestDeadlineFirst>(); }

}  // namespace vtrain::detail
