// schedule(): resolve the workload's jobs against their throughput curves, then simulate the
// cluster under each policy of the request.

#include <chrono>
#include <cmath>

#include "cluster/curves.hpp"
#include "cluster/engine.hpp"
#include "cluster/workload_read.hpp"
#include "vtrain/schedule.hpp"
#include "vtrain/schedule_policy.hpp"

namespace vtrain {

namespace {

// Iterations and deadline of each job from its tokens or its duration on its own plan.
Diagnostics size_jobs(std::vector<JobSpec>& jobs, const std::vector<JobCurves>& curves,
                      const std::vector<int>& job_curves) {
  Diagnostics errors;
  for (size_t i = 0; i < jobs.size(); ++i) {
    JobSpec& job = jobs[i];
    const JobCurves& c = curves[job_curves[i]];
    const CurvePoint* own = c.data_parallel.at(job.gpus);
    const double per_iteration_tokens = static_cast<double>(job.global_batch) * job.model.seq_len;
    if (job.tokens > 0) {
      job.iterations = std::max(1LL, static_cast<long long>(std::ceil(job.tokens / per_iteration_tokens)));
    } else if (job.duration_s > 0) {
      // As many iterations as fill the duration on its own GPUs and plan; the deadline keeps its
      // proportion to that time.
      job.iterations = std::max(1LL, std::llround(job.duration_s / own->iteration_time_s));
      job.deadline_s = job.arrival_s + job.deadline_factor * job.iterations * own->iteration_time_s;
    }
    if (job.iterations > 1000000000000LL)
      errors.push_back(detail::job_error(job, "", "range",
                                         "would train " + std::to_string(job.iterations) + " iterations; at most 1e12"));
    job.tokens = job.iterations * per_iteration_tokens;
  }
  return errors;
}

PolicyComparison compare(const std::vector<PolicyResult>& results, const std::string& policy,
                         const std::string& baseline) {
  PolicyComparison c;
  c.policy = policy;
  c.baseline = baseline;
  const PolicyResult *p = nullptr, *b = nullptr;
  for (const PolicyResult& r : results) {
    if (r.name == policy) p = &r;
    if (r.name == baseline) b = &r;
  }
  if (!p || !b) return c;
  c.valid = true;
  auto change = [](double v, double base) { return base > 0 ? v / base - 1 : 0.0; };
  c.deadlines_met_x = b->deadlines_met > 0 ? static_cast<double>(p->deadlines_met) / b->deadlines_met : 0;
  c.admitted_x = b->admitted > 0 ? static_cast<double>(p->admitted) / b->admitted : 0;
  c.avg_jct_change = change(p->avg_jct_s, b->avg_jct_s);
  c.p95_jct_change = change(p->p95_jct_s, b->p95_jct_s);
  c.makespan_change = change(p->makespan_s, b->makespan_s);
  c.utilization_change = p->gpu_utilization - b->gpu_utilization;
  return c;
}

struct Resolved {
  std::vector<JobCurves> curves;
  std::vector<int> job_curves;
  CurveStats stats;
};

Diagnostics resolve(ScheduleRequest& req, const ScheduleControl& control, const std::function<bool(double)>& progress,
                    Resolved& out) {
  Diagnostics errors = detail::resolve_curves(req.workload.jobs, req.cluster, control.threads, progress, out.curves,
                                              out.job_curves, out.stats);
  if (!errors.empty()) return errors;
  return size_jobs(req.workload.jobs, out.curves, out.job_curves);
}

}  // namespace

Outcome<Workload> resolve_workload(const ScheduleRequest& request, const ScheduleControl& control) {
  ScheduleRequest req = request;
  Resolved r;
  Diagnostics errors = resolve(req, control, control.progress, r);
  if (!errors.empty()) return errors;
  for (JobSpec& j : req.workload.jobs) {
    // A workload file states seconds: a deadline to the second is what a trace gives.
    if (j.duration_s > 0) j.deadline_s = std::round(j.deadline_s);
    j.duration_s = 0;
    j.deadline_factor = 0;
    j.plan_given = true;
  }
  return req.workload;
}

Outcome<ScheduleResult> schedule(const ScheduleRequest& request, const ScheduleControl& control) {
  const auto t0 = std::chrono::steady_clock::now();
  ScheduleResult res;
  res.request = request;
  ScheduleRequest& req = res.request;
  // Curves are most of the work when they are not cached; the policies share the rest.
  const double curve_share = 0.8;
  auto part = [&](double lo, double hi) -> std::function<bool(double)> {
    if (!control.progress) return {};
    return [&, lo, hi](double f) { return control.progress(lo + (hi - lo) * f); };
  };
  Resolved r;
  Diagnostics errors = resolve(req, control, part(0, curve_share), r);
  if (!errors.empty()) return errors;
  res.curves = std::move(r.curves);
  res.job_curves = std::move(r.job_curves);
  res.curve_stats = r.stats;

  detail::EngineInput in;
  in.jobs = &req.workload.jobs;
  for (int c : res.job_curves) in.curves.push_back(&res.curves[c]);
  in.cluster = req.cluster;
  in.restart_pause_s = req.restart_pause_s;
  in.period_s = req.period_s;
  const double n = static_cast<double>(req.policies.size());
  for (size_t k = 0; k < req.policies.size(); ++k) {
    const PolicyInfo* info = find_scheduling_policy(req.policies[k]);
    if (!info)
      return Outcome<ScheduleResult>::fail("unknown_policy", "/policies/" + std::to_string(k),
                                           "/policies/" + std::to_string(k) + ": unknown policy \"" +
                                               req.policies[k] + "\"");
    auto p = detail::run_policy(in, *info,
                                part(curve_share + (1 - curve_share) * k / n, curve_share + (1 - curve_share) * (k + 1) / n));
    if (!p.ok()) return p.errors();
    res.policies.push_back(std::move(p.value()));
  }
  res.comparison = compare(res.policies, "elasticflow-vtrain", "elasticflow-dp");
  if (control.progress && !control.progress(1.0))
    return Outcome<ScheduleResult>::fail("cancelled", "", "/: the run was cancelled");
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

Outcome<Workload> map_trace_csv(const std::string& csv_text, const TraceMapping& mapping, int num_gpus) {
  ClusterConfig cluster;
  cluster.num_gpus = num_gpus;
  Workload w;
  w.name = "trace";
  Diagnostics errors;
  detail::read_job_csv(csv_text, "/workload/csv", cluster, mapping, w.jobs, errors);
  if (errors.empty()) detail::finish_job_list(w.jobs, "/workload", errors);
  if (!errors.empty()) return errors;
  return w;
}

}  // namespace vtrain
