#pragma once
// The event-driven cluster simulator: jobs arrive, a policy admits them and gives them GPUs at
// every event (arrival, completion, period), and each job trains at the speed of the plan its
// GPUs run; a resize pauses it for a checkpoint-restart.

#include <functional>
#include <vector>

#include "vtrain/schedule.hpp"
#include "vtrain/schedule_policy.hpp"

namespace vtrain::detail {

struct EngineInput {
  const std::vector<JobSpec>* jobs = nullptr;         // resolved, in arrival order
  std::vector<const JobCurves*> curves;               // per job
  ClusterConfig cluster;
  double restart_pause_s = 60;                        // (s)
  double period_s = 0;                                // (s); 0: none
};

// Runs the workload under `policy`. `progress` gets the fraction of jobs decided on and done.
Outcome<PolicyResult> run_policy(const EngineInput& in, const PolicyInfo& policy,
                                 const std::function<bool(double)>& progress);

}  // namespace vtrain::detail
