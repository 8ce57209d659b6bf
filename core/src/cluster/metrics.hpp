#pragma once
// The metrics of one policy's run, from its jobs' outcomes and its usage timeline.

#include <vector>

#include "vtrain/schedule.hpp"

namespace vtrain::detail {

// Fills the counts, job completion times, makespan, utilization, GPU-hours and cost of `r`
// from r.jobs and r.timeline.
void summarize(PolicyResult& r, const std::vector<JobSpec>& jobs, const ClusterConfig& cluster);

}  // namespace vtrain::detail
