#pragma once
// Throughput curves of a workload's jobs, from the explorer's sweep of each job shape.

#include <functional>
#include <vector>

#include "vtrain/schedule.hpp"

namespace vtrain::detail {

// Computes the curves of every job (sweeping each distinct shape once, or taking it from the
// cache) and fills in each job's plan when it did not give one. `progress` gets the fraction of
// the curves done.
Diagnostics resolve_curves(std::vector<JobSpec>& jobs, const ClusterConfig& cluster, int threads,
                           const std::function<bool(double)>& progress, std::vector<JobCurves>& curves,
                           std::vector<int>& job_curves, CurveStats& stats);

// An error about `field` of a job (e.g. "gpus"), at the job's pointer, or its CSV line.
Diagnostic job_error(const JobSpec& job, const std::string& field, const std::string& code, const std::string& rule);

}  // namespace vtrain::detail
