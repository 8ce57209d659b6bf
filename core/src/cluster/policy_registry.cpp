// The table of scheduling policies: one line per policy.

#include "cluster/policies.hpp"

namespace vtrain {

namespace {

std::vector<PolicyInfo>& registry() {
  static std::vector<PolicyInfo> all = {
      {"fifo", "each job on the GPUs and plan it asked for, in arrival order, never resized",
       CurveKind::data_parallel, detail::make_fifo_policy},
      {"edf", "each job on the GPUs and plan it asked for, earliest deadline first, never resized",
       CurveKind::data_parallel, detail::make_edf_policy},
      {"elasticflow-dp",
       "ElasticFlow's admission control and elastic allocation; jobs scale their own plan by data parallelism",
       CurveKind::data_parallel, detail::make_elasticflow_policy},
      {"elasticflow-vtrain",
       "ElasticFlow's admission control and elastic allocation; jobs run the best plan for the GPUs they hold",
       CurveKind::best_plan, detail::make_elasticflow_policy},
  };
  return all;
}

}  // namespace

const std::vector<PolicyInfo>& scheduling_policies() { return registry(); }

const PolicyInfo* find_scheduling_policy(const std::string& name) {
  for (const PolicyInfo& p : registry())
    if (p.name == name) return &p;
  return nullptr;
}

void register_scheduling_policy(PolicyInfo info) {
  for (PolicyInfo& p : registry())
    if (p.name == info.name) {
      p = std::move(info);
      return;
    }
  registry().push_back(std::move(info));
}

}  // namespace vtrain
