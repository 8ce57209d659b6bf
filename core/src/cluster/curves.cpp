#include "cluster/curves.hpp"

#include "cluster/order.hpp"
#include "cluster/text.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <cstdio>
#include <memory>
#include <mutex>
#include <tuple>

#include <nlohmann/json.hpp>

#include "common/divisors.hpp"
#include "vtrain/explore.hpp"

namespace vtrain {

std::vector<int> allocation_counts(int num_gpus, int gpus_per_node) {
  std::vector<int> out;
  for (int c = 1; c < gpus_per_node && c <= num_gpus; c *= 2) out.push_back(c);
  for (long long c = gpus_per_node; c <= num_gpus; c += gpus_per_node) out.push_back(static_cast<int>(c));
  return out;
}

const char* to_string(CurveKind k) { return k == CurveKind::best_plan ? "best_plan" : "data_parallel"; }

const CurvePoint* ThroughputCurve::at(int gpus) const {
  auto it = std::lower_bound(points.begin(), points.end(), gpus,
                             [](const CurvePoint& p, int g) { return p.gpus < g; });
  return it != points.end() && it->gpus == gpus ? &*it : nullptr;
}

namespace {

using detail::text;
using nlohmann::json;

// A plan the explorer found to fit, with its time.
struct SweptPlan {
  PlanConfig plan;
  int gpus = 0;                  // tp x pp x dp (count)
  double iteration_time_s = 0;   // (s)
};

// One sweep of a job shape on up to max_gpus GPUs: its plans that fit, by GPU count.
struct Sweep {
  int max_gpus = 0;              // (count)
  std::vector<SweptPlan> plans;  // ascending GPUs, then enumeration order
  long long simulated = 0;       // plans simulated (count)
};

// Sweeps are kept across calls: the page and the CLI ask for the same shapes again and again.
std::mutex cache_mutex;
std::vector<std::pair<std::string, std::shared_ptr<const Sweep>>>& cache() {
  static std::vector<std::pair<std::string, std::shared_ptr<const Sweep>>> sweeps;
  return sweeps;
}

std::shared_ptr<const Sweep>* cached_sweep(const std::string& key) {
  for (auto& [k, s] : cache())
    if (k == key) return &s;
  return nullptr;
}
constexpr size_t kMaxCachedSweeps = 256;

using detail::divisors;

// The explorer's request for a job: tp, pp, dp, micro-batch and recomputation free, the other plan
// fields the job's own. A given plan's pp joins the depths tried even when it leaves the stages
// uneven, and a given tp beyond a node opens tp across nodes, so that its own plan is in the space.
ExploreRequest sweep_request(const JobSpec& job, const ClusterConfig& cluster) {
  ExploreRequest req;
  req.config.model = job.model;
  req.config.cluster = cluster;
  req.config.plan = job.plan;
  req.config.plan.global_batch = job.global_batch;
  req.config.plan.dp = 1;
  req.config.training.tokens = static_cast<double>(job.global_batch) * job.model.seq_len;  // unused: times only
  req.config.output.timeline = false;
  req.has_baseline = false;
  ExploreOptions& o = req.options;
  o.virtual_stages = {job.plan.virtual_stages};
  o.sequence_parallel = {job.plan.sequence_parallel};
  o.zero_stage = {job.plan.zero_stage};
  if (job.plan_given) {
    o.pp = divisors(job.model.layers);
    if (std::find(o.pp.begin(), o.pp.end(), job.plan.pp) == o.pp.end()) o.pp.push_back(job.plan.pp);
    o.tp_across_nodes = job.plan.tp > cluster.gpus_per_node;
  }
  return req;
}

std::string shape_key(const ExploreRequest& req) {
  const PlanConfig& p = req.config.plan;
  const ClusterConfig& c = req.config.cluster;
  char buf[256];
  std::snprintf(buf, sizeof buf, "|%d|%.17g|%.17g|%d|%d|%d|%d|%d%d%d%d%d%d%d|%s|%s|%s|%d|", c.gpus_per_node,
                c.intra_node_GBps, c.inter_node_Gbps, p.global_batch, p.sequence_parallel, p.zero_stage,
                p.virtual_stages, p.zero_all_reduce, p.dp_overlap, p.p2p_overlap, p.grad_accumulation_fusion,
                p.tp_async_backward, p.tp_comm_overlap, p.launch_blocking, to_string(p.attention), to_string(p.precision),
                to_string(p.placement), req.options.tp_across_nodes);
  std::string key = c.gpu;
  key += buf;
  std::snprintf(buf, sizeof buf, "%.17g|", c.gpu_speed_spread);
  key += buf;
  key += to_json(req.config.model).dump();
  for (int pp : req.options.pp) {
    key += ',';
    key += std::to_string(pp);
  }
  return key;
}

Outcome<std::shared_ptr<const Sweep>> sweep(const ExploreRequest& req, int threads,
                                            const std::function<bool(double)>& progress, bool& cached) {
  const std::string key = shape_key(req);
  const int max_gpus = req.config.cluster.num_gpus;
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    const std::shared_ptr<const Sweep>* hit = cached_sweep(key);
    if (hit && (*hit)->max_gpus >= max_gpus) {
      cached = true;
      return *hit;
    }
  }
  cached = false;
  ExploreControl control;
  control.threads = threads;
  control.progress = progress;
  auto r = explore(req, control);
  if (!r.ok()) return r.errors();
  auto s = std::make_shared<Sweep>();
  s->max_gpus = max_gpus;
  s->simulated = r.value().stats.simulated;
  for (const PlanEstimate& e : r.value().plans)
    if (e.feasible()) s->plans.push_back({e.plan, e.num_gpus, e.iteration_time_s});
  std::vector<double> gpus;
  for (const SweptPlan& p : s->plans) gpus.push_back(p.gpus);
  std::vector<SweptPlan> sorted;
  for (int i : detail::order_by(gpus)) sorted.push_back(s->plans[i]);
  s->plans = std::move(sorted);
  std::lock_guard<std::mutex> lock(cache_mutex);
  if (std::shared_ptr<const Sweep>* old = cached_sweep(key)) {
    *old = s;
  } else {
    if (cache().size() >= kMaxCachedSweeps) cache().clear();
    cache().emplace_back(key, s);
  }
  return std::shared_ptr<const Sweep>(s);
}

// The counts worth holding: faster than every smaller count, and spending no more GPU-seconds an
// iteration than any larger one. ElasticFlow's minimum share (the fewest GPUs that meet a
// deadline) and its step-by-step handout of the rest both assume diminishing returns. A best-plan
// curve breaks that where memory forces a plan onto few GPUs (a 70B model on 16 GPUs spends 27%
// more GPU-seconds an iteration than on 32) or where a count fits only a lopsided plan (13B on 24
// GPUs, 25% more than on 32): as a minimum share such a count meets the deadline with GPU-time
// the other jobs lose, and the admission test then turns jobs away that fit.
void find_levels(ThroughputCurve& c) {
  std::vector<int> faster;
  double best = 0;
  for (int i = 0; i < static_cast<int>(c.points.size()); ++i) {
    const CurvePoint& p = c.points[i];
    if (!p.usable) continue;
    if (faster.empty() || p.iteration_time_s < best) {
      faster.push_back(i);
      best = p.iteration_time_s;
    }
  }
  // From the largest count down, keep those no costlier per iteration than every larger one kept.
  c.levels.clear();
  double least_gpu_s = std::numeric_limits<double>::infinity();
  for (auto it = faster.rbegin(); it != faster.rend(); ++it) {
    const CurvePoint& p = c.points[*it];
    const double gpu_s = p.gpus * p.iteration_time_s;
    if (gpu_s <= least_gpu_s) {
      c.levels.push_back(*it);
      least_gpu_s = gpu_s;
    }
  }
  std::reverse(c.levels.begin(), c.levels.end());
}

bool same_family(const PlanConfig& a, const PlanConfig& b) {
  return a.tp == b.tp && a.pp == b.pp && a.micro_batch == b.micro_batch && a.recompute == b.recompute &&
         a.virtual_stages == b.virtual_stages && a.sequence_parallel == b.sequence_parallel &&
         a.zero_stage == b.zero_stage;
}

// At each count, the fastest plan on at most that many GPUs; for the data-parallel curve, only
// plans of the family of `fixed`.
ThroughputCurve prefix_best(const Sweep& s, const std::vector<int>& counts, CurveKind kind, const PlanConfig& fixed) {
  auto keep = [&](const PlanConfig& p) { return kind == CurveKind::best_plan || same_family(p, fixed); };
  ThroughputCurve c;
  c.kind = kind;
  const SweptPlan* best = nullptr;
  size_t k = 0;
  for (int n : counts) {
    for (; k < s.plans.size() && s.plans[k].gpus <= n; ++k)
      if (keep(s.plans[k].plan) && (!best || s.plans[k].iteration_time_s < best->iteration_time_s))
        best = &s.plans[k];
    CurvePoint p;
    p.gpus = n;
    if (best) {
      p.usable = true;
      p.plan = best->plan;
      p.plan_gpus = best->gpus;
      p.iteration_time_s = best->iteration_time_s;
    }
    c.points.push_back(p);
  }
  find_levels(c);
  return c;
}

ThroughputCurve best_curve(const Sweep& s, const std::vector<int>& counts) {
  return prefix_best(s, counts, CurveKind::best_plan, PlanConfig{});
}

// The fixed plan's tp, pp, micro-batch and recomputation with as many replicas as pay off.
ThroughputCurve data_parallel_curve(const Sweep& s, const PlanConfig& fixed, const std::vector<int>& counts) {
  return prefix_best(s, counts, CurveKind::data_parallel, fixed);
}

std::string describe_gpus(int n) { return text(n == 1 ? "%d GPU" : "%d GPUs", n); }

}  // namespace

void clear_curve_cache() {
  std::lock_guard<std::mutex> lock(cache_mutex);
  cache().clear();
}

namespace detail {

Diagnostic job_error(const JobSpec& job, const std::string& field, const std::string& code, const std::string& rule) {
  if (job.csv_line > 0)
    return make_diagnostic(code, job.origin, text("line %d (%s): %s", job.csv_line, field.c_str(), rule.c_str()));
  // Generated jobs name the mix entry they come from, or the generator.
  if (job.origin.empty() || job.origin == "/workload/generate")
    return make_diagnostic(code, job.origin.empty() ? "/workload" : job.origin,
                           text("job \"%s\": %s", job.id.c_str(), rule.c_str()));
  return make_diagnostic(code, field.empty() ? job.origin : text("%s/%s", job.origin.c_str(), field.c_str()), rule);
}

Diagnostics resolve_curves(std::vector<JobSpec>& jobs, const ClusterConfig& cluster, int threads,
                           const std::function<bool(double)>& progress, std::vector<JobCurves>& curves,
                           std::vector<int>& job_curves, CurveStats& stats) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<int> counts = allocation_counts(cluster.num_gpus, cluster.gpus_per_node);
  // Distinct shapes first, so that progress can be shared among them.
  std::vector<ExploreRequest> requests;
  std::vector<std::string> keys;
  std::vector<int> shape_of(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) {
    ExploreRequest req = sweep_request(jobs[i], cluster);
    const std::string key = shape_key(req);
    auto it = std::find(keys.begin(), keys.end(), key);
    if (it == keys.end()) {
      keys.push_back(key);
      requests.push_back(std::move(req));
      shape_of[i] = static_cast<int>(keys.size()) - 1;
    } else {
      shape_of[i] = static_cast<int>(it - keys.begin());
    }
  }
  stats = CurveStats{};
  stats.shapes = static_cast<int>(requests.size());
  std::vector<std::shared_ptr<const Sweep>> sweeps(requests.size());
  std::vector<bool> from_cache(requests.size());
  for (size_t s = 0; s < requests.size(); ++s) {
    const double lo = static_cast<double>(s) / requests.size(), hi = static_cast<double>(s + 1) / requests.size();
    std::function<bool(double)> scaled;
    if (progress) scaled = [&, lo, hi](double f) { return progress(lo + (hi - lo) * f); };
    bool cached = false;
    auto r = sweep(requests[s], threads, scaled, cached);
    if (!r.ok()) {
      Diagnostics errors = r.errors();
      if (!errors.empty() && errors.front().code == "cancelled") return errors;
      // The sweep's own pointers name the explorer's request; the job is what the user wrote.
      int first = 0;
      while (shape_of[first] != static_cast<int>(s)) ++first;
      Diagnostics out;
      for (const Diagnostic& d : errors)
        out.push_back(job_error(jobs[first], "", d.code, "its plans could not be swept: " + d.message));
      return out;
    }
    sweeps[s] = r.value();
    from_cache[s] = cached;
    if (!cached) {
      ++stats.swept;
      stats.plans_simulated += sweeps[s]->simulated;
    }
  }

  Diagnostics errors;
  curves.clear();
  job_curves.assign(jobs.size(), -1);
  std::vector<std::pair<int, PlanConfig>> made;  // (shape, fixed plan) of each curve
  for (size_t i = 0; i < jobs.size(); ++i) {
    JobSpec& job = jobs[i];
    const Sweep& sw = *sweeps[shape_of[i]];
    ThroughputCurve best = best_curve(sw, counts);
    const CurvePoint* own = best.at(job.gpus);
    if (!own || !own->usable) {
      errors.push_back(job_error(job, "gpus", "no_plan",
                                 "no plan of this model and batch fits in memory on " + describe_gpus(job.gpus)));
      continue;
    }
    if (!job.plan_given) {
      // The best plan on the GPUs asked for, what a user tunes for them: one using them all where
      // there is one (its dp is then the job's gpus / (tp x pp), as a workload file states it).
      const SweptPlan* exact = nullptr;
      for (const SweptPlan& p : sw.plans)
        if (p.gpus == job.gpus && (!exact || p.iteration_time_s < exact->iteration_time_s)) exact = &p;
      job.plan = exact ? exact->plan : own->plan;
    } else {
      bool found = false;
      for (const SweptPlan& p : sw.plans)
        if (same_family(p.plan, job.plan) && p.plan.dp == job.plan.dp) found = true;
      if (!found) {
        errors.push_back(job_error(job, "plan", "out_of_memory",
                                   text("does not fit in memory on %s (tp %d, pp %d, dp %d)",
                                        describe_gpus(job.gpus).c_str(), job.plan.tp, job.plan.pp, job.plan.dp)));
        continue;
      }
    }
    int index = -1;
    for (size_t c = 0; c < made.size(); ++c)
      if (made[c].first == shape_of[i] && same_family(made[c].second, job.plan) && made[c].second.dp == job.plan.dp)
        index = static_cast<int>(c);
    if (index < 0) {
      JobCurves jc;
      jc.model = job.model;
      jc.global_batch = job.global_batch;
      jc.fixed_plan = job.plan;
      jc.best = std::move(best);
      jc.data_parallel = data_parallel_curve(sw, job.plan, counts);
      jc.cached = from_cache[shape_of[i]];
      curves.push_back(std::move(jc));
      made.emplace_back(shape_of[i], job.plan);
      index = static_cast<int>(curves.size()) - 1;
    }
    job_curves[i] = index;
  }
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return errors;
}

}  // namespace detail
}  // namespace vtrain
