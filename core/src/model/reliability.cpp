#include "vtrain/reliability.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vtrain {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

double job_failure_rate_per_hour(const ReliabilityConfig& r, int num_gpus, int gpus_per_node) {
  if (r.node_mtbf_hours > 0) {
    const double nodes = std::ceil(static_cast<double>(num_gpus) / std::max(1, gpus_per_node));
    return nodes / r.node_mtbf_hours;
  }
  return r.failures_per_gpu_hour * num_gpus;
}

// A failure strikes a segment of `interval` training and `write` checkpoint at a uniform time in
// it and loses, on average, half of it; every failure also costs `restart`. Wall-clock time W over
// ideal time T: W = T (1 + C/tau) + W (R + (tau + C)/2) / M.
double expected_overhead(double interval_s, double write_s, double mtbf_s, double restart_s) {
  if (!(interval_s > 0) && write_s > 0) return kInf;
  const double with_checkpoints = interval_s > 0 ? 1 + write_s / interval_s : 1;
  if (!std::isfinite(mtbf_s)) return with_checkpoints - 1;
  const double progress = 1 - (restart_s + (interval_s + write_s) / 2) / mtbf_s;
  if (!(progress > 0)) return kInf;
  return with_checkpoints / progress - 1;
}

// d/dtau of ln(W/T) = 0 gives tau^2 + 2 C tau = 2 C (M - R - C/2), so tau = sqrt(2 C (M - R)) - C.
double optimal_checkpoint_interval_s(double write_s, double mtbf_s, double restart_s) {
  if (!std::isfinite(mtbf_s)) return kInf;
  if (!(write_s > 0)) return 0;  // free checkpoints: as often as possible
  const double room = mtbf_s - restart_s;
  if (!(room > 0)) return 0;
  return std::sqrt(2 * write_s * room) - write_s;
}

Goodput goodput(const ReliabilityConfig& r, double ideal_s, double parameters, int num_gpus, int gpus_per_node) {
  Goodput g;
  g.ideal_days = ideal_s / 86400.0;
  g.checkpoint_GB = r.checkpoint_GB > 0 ? r.checkpoint_GB : parameters * kCheckpointBytesPerParam / 1e9;
  g.checkpoint_write_s = g.checkpoint_GB / r.storage_GBps;
  const double rate_h = job_failure_rate_per_hour(r, num_gpus, gpus_per_node);
  const double mtbf_s = rate_h > 0 ? 3600.0 / rate_h : kInf;
  g.job_mtbf_hours = rate_h > 0 ? 1.0 / rate_h : 0;
  const double restart_s = r.restart_minutes * 60.0;
  g.interval_optimal = !(r.checkpoint_interval_minutes > 0);
  double interval_s = g.interval_optimal ? optimal_checkpoint_interval_s(g.checkpoint_write_s, mtbf_s, restart_s)
                                         : r.checkpoint_interval_minutes * 60.0;
  if (!std::isfinite(interval_s)) {
    // No failures: no checkpoint is needed, and none is counted.
    g.checkpoint_interval_minutes = 0;
    g.expected_days = g.ideal_days;
    return g;
  }
  g.checkpoint_interval_minutes = interval_s / 60.0;
  const double overhead = expected_overhead(interval_s, g.checkpoint_write_s, mtbf_s, restart_s);
  if (!std::isfinite(overhead)) {
    g.finite = false;
    g.expected_days = 0;
    g.lost_share = 1;
    return g;
  }
  const double wall_s = ideal_s * (1 + overhead);
  g.expected_days = wall_s / 86400.0;
  g.checkpoint_days = interval_s > 0 ? ideal_s * g.checkpoint_write_s / interval_s / 86400.0 : 0;
  g.lost_work_days = wall_s * (interval_s + g.checkpoint_write_s) / (2 * mtbf_s) / 86400.0;
  g.restart_days = wall_s * restart_s / mtbf_s / 86400.0;
  g.failures = wall_s / mtbf_s;
  g.lost_share = wall_s > 0 ? (wall_s - ideal_s) / wall_s : 0;
  // A run so long that its wall-clock time leaves the range of a double has no finite time either.
  for (const double v : {g.expected_days, g.checkpoint_days, g.lost_work_days, g.restart_days, g.failures, g.lost_share})
    if (!std::isfinite(v)) {
      g.finite = false;
      g.expected_days = g.checkpoint_days = g.lost_work_days = g.restart_days = g.failures = 0;
      g.lost_share = 1;
    }
  return g;
}

}  // namespace vtrain
