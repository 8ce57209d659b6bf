#include "cluster/metrics.hpp"

#include "cluster/order.hpp"

#include <algorithm>
#include <cmath>

namespace vtrain::detail {

void summarize(PolicyResult& r, const std::vector<JobSpec>& jobs, const ClusterConfig& cluster) {
  r.workload_jobs = static_cast<int>(jobs.size());
  r.admitted = r.finished = r.deadlines_met = r.resizes = 0;
  std::vector<double> jcts;
  double first = jobs.empty() ? 0 : jobs.front().arrival_s, last = first;
  for (const JobSpec& j : jobs) first = std::min(first, j.arrival_s);
  for (const JobOutcome& o : r.jobs) {
    r.admitted += o.admitted;
    r.resizes += o.resizes;
    if (!o.finished) continue;
    ++r.finished;
    r.deadlines_met += o.met_deadline;
    jcts.push_back(o.jct_s);
    last = std::max(last, o.finish_s);
  }
  r.deadline_ratio = jobs.empty() ? 0 : static_cast<double>(r.deadlines_met) / jobs.size();
  r.avg_jct_s = r.p95_jct_s = 0;
  if (!jcts.empty()) {
    double sum = 0;
    for (double v : jcts) sum += v;
    r.avg_jct_s = sum / jcts.size();
    // Nearest rank: the smallest value with at least 95% of the values at or below it.
    const std::vector<int> order = order_by(jcts);
    const size_t rank = static_cast<size_t>(std::ceil(0.95 * jcts.size()));
    r.p95_jct_s = jcts[order[std::max<size_t>(rank, 1) - 1]];
  }
  r.makespan_s = last - first;
  // GPU-seconds held: the timeline is a step function from each point to the next.
  double held_s = 0;
  for (size_t k = 0; k < r.timeline.size(); ++k) {
    const double from = r.timeline[k].time_s;
    const double to = k + 1 < r.timeline.size() ? r.timeline[k + 1].time_s : last;
    if (to > from) held_s += r.timeline[k].gpus_allocated * (to - from);
  }
  r.gpu_hours = held_s / 3600.0;
  r.cost_usd = r.gpu_hours * cluster.price_per_gpu_hour_usd;
  r.gpu_utilization = r.makespan_s > 0 ? held_s / (static_cast<double>(cluster.num_gpus) * r.makespan_s) : 0;
}

}  // namespace vtrain::detail
