#include "cluster/engine.hpp"

#include "cluster/metrics.hpp"
#include "cluster/text.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>

namespace vtrain::detail {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr long long kMaxEvents = 2000000;  // a bound on the simulation's work (count)
// A job is done by its deadline when it finishes within this of it (s): the times are sums of
// many iteration times, so equality holds only to rounding.
constexpr double kDeadlineSlack_s = 1e-3;

struct Tracked {
  const CurvePoint* point = nullptr;  // what its GPUs run, while it holds any
  JobOutcome outcome;
};

const char* id(const JobSpec& j) { return j.id.c_str(); }

// The job's finish if it keeps its GPUs from `now` (s).
double finish_time(const JobState& s, const CurvePoint* p, double now) {
  if (s.gpus == 0 || !p) return kInf;
  return std::max(now, s.resume_s) + s.remaining_iterations * p->iteration_time_s;
}

}  // namespace

Outcome<PolicyResult> run_policy(const EngineInput& in, const PolicyInfo& info,
                                 const std::function<bool(double)>& progress) {
  const auto wall0 = std::chrono::steady_clock::now();
  const std::vector<JobSpec>& jobs = *in.jobs;
  const int n = static_cast<int>(jobs.size());
  const std::vector<int> counts = allocation_counts(in.cluster.num_gpus, in.cluster.gpus_per_node);
  std::unique_ptr<SchedulingPolicy> policy = info.make ? info.make() : nullptr;
  if (!policy)
    return Outcome<PolicyResult>::fail("internal", "/policies",
                                       text("/policies: policy \"%s\" could not be made", info.name.c_str()));

  ClusterState state;
  state.num_gpus = in.cluster.num_gpus;
  state.gpus_per_node = in.cluster.gpus_per_node;
  state.restart_pause_s = in.restart_pause_s;
  state.counts = &counts;
  state.jobs.resize(n);
  std::vector<Tracked> tracked(n);
  for (int i = 0; i < n; ++i) {
    JobState& s = state.jobs[i];
    s.spec = &jobs[i];
    s.curve = info.curve == CurveKind::best_plan ? &in.curves[i]->best : &in.curves[i]->data_parallel;
    s.remaining_iterations = static_cast<double>(jobs[i].iterations);
  }

  PolicyResult res;
  res.name = info.name;
  res.curve = info.curve;
  res.workload_jobs = n;
  if (n == 0) return res;

  auto fail = [&](const std::string& what) {
    return Outcome<PolicyResult>::fail("internal", "/policies",
                                       text("/policies: policy \"%s\" %s", info.name.c_str(), what.c_str()));
  };

  double now = jobs.front().arrival_s;
  int next_arrival = 0;
  int decided = 0;  // jobs rejected or finished (count)
  std::vector<int> gpus(n, 0);
  long long events = 0;
  for (;;) {
    if (++events > kMaxEvents)
      return Outcome<PolicyResult>::fail("too_large", "/period_s",
                                         text("/period_s: the simulation passed %lld scheduling events; use a "
                                              "longer period (or none)",
                                              kMaxEvents));
    state.now_s = now;
    // Arrivals: each decided on in workload order, seeing those admitted before it.
    while (next_arrival < n && jobs[next_arrival].arrival_s <= now) {
      JobState& s = state.jobs[next_arrival];
      s.phase = JobPhase::waiting;
      try {
        s.admitted = policy->admit(state, next_arrival);
      } catch (const std::exception& e) {
        return fail(std::string("failed deciding on a job: ") + e.what());
      }
      tracked[next_arrival].outcome.admitted = s.admitted;
      if (!s.admitted) {
        s.phase = JobPhase::rejected;
        ++decided;
      }
      ++next_arrival;
    }
    // Allocation.
    for (int i = 0; i < n; ++i) gpus[i] = state.jobs[i].gpus;
    try {
      policy->allocate(state, gpus);
    } catch (const std::exception& e) {
      return fail(std::string("failed allocating GPUs: ") + e.what());
    }
    if (static_cast<int>(gpus.size()) != n) return fail("returned an allocation of the wrong length");
    long long total = 0;
    for (int i = 0; i < n; ++i) {
      const JobState& s = state.jobs[i];
      if (gpus[i] == 0) continue;
      const bool active = s.admitted && (s.phase == JobPhase::waiting || s.phase == JobPhase::running);
      if (!active) return fail(text("gave GPUs to job \"%s\", which is not admitted and unfinished", id(jobs[i])));
      if (gpus[i] < 0 || !std::binary_search(counts.begin(), counts.end(), gpus[i]))
        return fail(text("gave job \"%s\" %d GPUs, not an allocation count", id(jobs[i]), gpus[i]));
      const CurvePoint* p = s.curve->at(gpus[i]);
      if (!p || !p->usable)
        return fail(text("gave job \"%s\" %d GPUs, on which no plan of it runs", id(jobs[i]), gpus[i]));
      total += gpus[i];
    }
    if (total > in.cluster.num_gpus)
      return fail(text("allocated %lld GPUs of %d", total, in.cluster.num_gpus));
    for (int i = 0; i < n; ++i) {
      JobState& s = state.jobs[i];
      if (gpus[i] == s.gpus) continue;
      Tracked& t = tracked[i];
      AllocationChange c;
      c.time_s = now;
      c.gpus = gpus[i];
      if (gpus[i] > 0) {
        t.point = s.curve->at(gpus[i]);
        c.plan = t.point->plan;
        c.plan_gpus = t.point->plan_gpus;
        c.iteration_time_s = t.point->iteration_time_s;
        // A job that has run before restarts from its checkpoint on the new GPUs.
        if (s.started) {
          s.resume_s = now + in.restart_pause_s;
          ++t.outcome.resizes;
        } else {
          s.resume_s = now;
          s.started = true;
          t.outcome.start_s = now;
        }
        c.resume_s = s.resume_s;
        s.phase = JobPhase::running;
      } else {
        t.point = nullptr;
        c.resume_s = now;
        s.phase = JobPhase::waiting;
      }
      s.gpus = gpus[i];
      t.outcome.allocations.push_back(c);
    }
    UsagePoint u;
    u.time_s = now;
    for (const JobState& s : state.jobs) {
      u.gpus_allocated += s.gpus;
      u.jobs_running += s.phase == JobPhase::running;
      u.jobs_waiting += s.admitted && s.phase == JobPhase::waiting;
    }
    if (res.timeline.empty() || res.timeline.back().gpus_allocated != u.gpus_allocated ||
        res.timeline.back().jobs_running != u.jobs_running || res.timeline.back().jobs_waiting != u.jobs_waiting)
      res.timeline.push_back(u);
    if (progress && !progress(static_cast<double>(decided) / n))
      return Outcome<PolicyResult>::fail("cancelled", "", "/: the run was cancelled");

    // The next event.
    double next = next_arrival < n ? jobs[next_arrival].arrival_s : kInf;
    bool active = false;
    for (int i = 0; i < n; ++i) {
      const JobState& s = state.jobs[i];
      active = active || (s.admitted && (s.phase == JobPhase::waiting || s.phase == JobPhase::running));
      next = std::min(next, finish_time(s, tracked[i].point, now));
    }
    if (in.period_s > 0 && active) next = std::min(next, (std::floor(now / in.period_s) + 1) * in.period_s);
    if (next == kInf) break;  // nothing will happen again: any job still waiting never runs

    // Progress up to it; the jobs done by then finish at their own time.
    for (int i = 0; i < n; ++i) {
      JobState& s = state.jobs[i];
      Tracked& t = tracked[i];
      if (s.phase != JobPhase::running) continue;
      const double done = finish_time(s, t.point, now);
      if (done <= next || (done - next) < 1e-9 * std::max(1.0, next)) {
        s.remaining_iterations = 0;
        s.phase = JobPhase::finished;
        s.gpus = 0;
        t.point = nullptr;
        JobOutcome& o = t.outcome;
        o.finished = true;
        o.finish_s = std::max(done, now);
        o.jct_s = o.finish_s - jobs[i].arrival_s;
        o.met_deadline = o.finish_s <= jobs[i].deadline_s + kDeadlineSlack_s;
        AllocationChange end;
        end.time_s = o.finish_s;
        end.resume_s = o.finish_s;
        o.allocations.push_back(end);
        ++decided;
      } else {
        const double from = std::max(now, s.resume_s);
        if (next > from) s.remaining_iterations -= (next - from) / t.point->iteration_time_s;
      }
    }
    now = std::max(now, next);
  }

  res.events = static_cast<int>(events);
  for (Tracked& t : tracked) res.jobs.push_back(std::move(t.outcome));
  summarize(res, jobs, in.cluster);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return res;
}

}  // namespace vtrain::detail
