// The seeded synthetic workload: Poisson arrivals, a model mix, log-uniform durations on the GPUs
// each job asks for, and deadlines a uniform factor of the duration after arrival.

#include "cluster/generator.hpp"

#include <cmath>

namespace vtrain::detail {

namespace {

// splitmix64 (Steele, Lea and Flood 2014): the same stream on every platform, which the standard
// library's distributions do not promise.
struct Random {
  unsigned long long state;
  unsigned long long next() {
    unsigned long long z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

}  // namespace

std::vector<GeneratorMixEntry> default_generator_mix(const TraceMapping& mapping) {
  // The share of each request size in the 195-job ITP trace (1, 2, 4, 8 and 16 GPUs: 118, 1, 45,
  // 28 and 3 jobs), each with the LLM the trace mapping gives it.
  const int trace_gpus[] = {1, 2, 4, 8, 16};
  const double jobs[] = {118, 1, 45, 28, 3};
  std::vector<GeneratorMixEntry> mix;
  for (int k = 0; k < 5; ++k) {
    const TraceSize* size = &mapping.sizes.back();
    for (const TraceSize& s : mapping.sizes)
      if (trace_gpus[k] <= s.max_trace_gpus) {
        size = &s;
        break;
      }
    GeneratorMixEntry e;
    e.model = size->model;
    e.global_batch = size->global_batch;
    e.gpus = trace_gpus[k] * mapping.gpu_scale;
    e.weight = jobs[k];
    mix.push_back(e);
  }
  return mix;
}

std::vector<JobSpec> generate_jobs(const GeneratorSettings& g, const PlanConfig& shared_plan, bool mix_given) {
  Random rng{g.seed};
  double total = 0;
  for (const auto& e : g.mix) total += e.weight;
  std::vector<JobSpec> jobs;
  double t = 0;
  const double log_lo = std::log(g.min_duration_h), log_hi = std::log(g.max_duration_h);
  for (int i = 0; i < g.jobs; ++i) {
    if (i > 0) t += -std::log(1.0 - rng.uniform()) / g.arrival_rate_per_hour * 3600.0;
    double pick = rng.uniform() * total;
    size_t k = 0;
    while (k + 1 < g.mix.size() && pick >= g.mix[k].weight) pick -= g.mix[k++].weight;
    const GeneratorMixEntry& e = g.mix[k];
    JobSpec job;
    job.id = "gen-" + std::to_string(i + 1);
    job.arrival_s = std::round(t);
    job.model = e.model;
    job.global_batch = e.global_batch;
    job.gpus = e.gpus;
    job.plan = shared_plan;
    job.plan.global_batch = e.global_batch;
    job.duration_s = std::round(std::exp(log_lo + (log_hi - log_lo) * rng.uniform()) * 3600.0);
    job.deadline_factor = g.min_deadline_factor + (g.max_deadline_factor - g.min_deadline_factor) * rng.uniform();
    job.origin = mix_given ? "/workload/generate/mix/" + std::to_string(k) : "/workload/generate";
    jobs.push_back(std::move(job));
  }
  return jobs;
}

}  // namespace vtrain::detail
