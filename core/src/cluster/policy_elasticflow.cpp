// ElasticFlow (Gu et al., ASPLOS'23): admission control and elastic allocation for deadlines.
// A job is admitted only when it and every job admitted before can still finish by their
// deadlines, each at its minimum satisfactory share (share_planner.hpp). At each event every
// admitted job first gets that share; the GPUs left go, a step at a time, to the job whose
// throughput rises most per GPU added (ElasticFlow's diminishing returns), a step being the next
// count at which the job runs faster. Throughputs of different jobs compare as each job's
// fraction done per second (iterations per second over its iterations), a resize's pause spread
// over the time it has left. The same unit serves elasticflow-dp and
// elasticflow-vtrain: they differ in the curve the jobs run (data-parallel scaling of each job's
// own plan, or the best plan at every count).

#include <algorithm>
#include <limits>

#include "cluster/order.hpp"
#include "cluster/policies.hpp"
#include "cluster/share_planner.hpp"

namespace vtrain::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool active(const JobState& s) {
  return s.admitted && (s.phase == JobPhase::waiting || s.phase == JobPhase::running);
}

ShareJob share_job(const JobState& s) {
  ShareJob j;
  j.curve = s.curve;
  j.remaining_iterations = s.remaining_iterations;
  j.deadline_s = s.spec->deadline_s;
  j.gpus = s.gpus;
  j.started = s.started;
  j.resume_s = s.resume_s;
  return j;
}

// Jobs in deadline order, ties in arrival order.
std::vector<int> by_deadline(const ClusterState& state, const std::vector<int>& jobs) {
  std::vector<double> deadline;
  for (int i : jobs) deadline.push_back(state.jobs[i].spec->deadline_s);
  std::vector<int> order;
  for (int k : order_by(deadline)) order.push_back(jobs[k]);
  return order;
}

// Plans `jobs` in deadline order; per job whether it meets its deadline and its share now.
std::vector<Share> plan_all(const ClusterState& state, const std::vector<int>& order) {
  FreeGpus free(state.now_s, state.num_gpus);
  std::vector<Share> shares;
  for (int i : order) shares.push_back(plan_share(share_job(state.jobs[i]), state.now_s, state.restart_pause_s, free));
  return shares;
}

// The job's completion time from now holding `gpus` (s): the pause when that changes what a
// started job holds, then its remaining iterations.
double time_to_finish(const ClusterState& state, const JobState& s, int gpus) {
  if (gpus == 0) return kInf;
  const double wait = gpus == s.gpus ? std::max(0.0, s.resume_s - state.now_s) : (s.started ? state.restart_pause_s : 0.0);
  return wait + s.remaining_iterations * s.curve->at(gpus)->iteration_time_s;
}

// The job's throughput holding `gpus`, as the fraction of the job done per second over the time
// it has left (1/s).
double throughput(const ClusterState& state, const JobState& s, int gpus) {
  const double t = time_to_finish(state, s, gpus);
  return t == kInf ? 0.0 : s.remaining_iterations / static_cast<double>(s.spec->iterations) / t;
}

// The smallest level above `gpus`, or 0.
int next_level(const ThroughputCurve& c, int gpus) {
  for (int i : c.levels)
    if (c.points[i].gpus > gpus) return c.points[i].gpus;
  return 0;
}

class ElasticFlow : public SchedulingPolicy {
 public:
  bool admit(const ClusterState& state, int job) override {
    std::vector<int> others;
    for (size_t i = 0; i < state.jobs.size(); ++i)
      if (static_cast<int>(i) != job && active(state.jobs[i])) others.push_back(static_cast<int>(i));
    std::vector<int> with = others;
    with.push_back(job);
    with = by_deadline(state, with);
    const std::vector<Share> planned = plan_all(state, with);
    bool job_meets = false, others_meet = true;
    std::vector<int> late;
    for (size_t k = 0; k < with.size(); ++k) {
      if (with[k] == job) job_meets = planned[k].meets_deadline;
      else if (!planned[k].meets_deadline) late.push_back(with[k]);
    }
    if (!job_meets) return false;
    if (late.empty()) return true;
    // Jobs already late without it do not hold it back; one it would make late does.
    const std::vector<int> order = by_deadline(state, others);
    const std::vector<Share> before = plan_all(state, order);
    for (int i : late) {
      const size_t k = static_cast<size_t>(std::find(order.begin(), order.end(), i) - order.begin());
      if (before[k].meets_deadline) others_meet = false;
    }
    return others_meet;
  }

  void allocate(const ClusterState& state, std::vector<int>& gpus) override {
    std::vector<int> jobs;
    for (size_t i = 0; i < state.jobs.size(); ++i) {
      gpus[i] = 0;
      if (active(state.jobs[i])) jobs.push_back(static_cast<int>(i));
    }
    const std::vector<int> order = by_deadline(state, jobs);
    const std::vector<Share> shares = plan_all(state, order);
    int free = state.num_gpus;
    for (size_t k = 0; k < order.size(); ++k) {
      gpus[order[k]] = shares[k].meets_deadline ? shares[k].gpus_now : 0;
      free -= gpus[order[k]];
    }
    // The rest, a step at a time, to the job whose throughput rises most per GPU added.
    for (;;) {
      int best = -1, best_to = 0;
      double best_gain = 0;
      for (int i : order) {
        const JobState& s = state.jobs[i];
        const int to = next_level(*s.curve, gpus[i]);
        if (to == 0 || to - gpus[i] > free) continue;
        const double gain = (throughput(state, s, to) - throughput(state, s, gpus[i])) / (to - gpus[i]);
        if (gain > best_gain) {
          best = i;
          best_to = to;
          best_gain = gain;
        }
      }
      if (best < 0) break;
      free -= best_to - gpus[best];
      gpus[best] = best_to;
    }
  }
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_elasticflow_policy() { return std::make_unique<ElasticFlow>(); }

}  // namespace vtrain::detail
