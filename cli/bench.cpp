// vtrain bench: wall time of single-plan simulations (the explorer's inner loop).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "vtrain/config.hpp"
#include "vtrain/examples.hpp"
#include "vtrain/explore.hpp"
#include "vtrain/schedule.hpp"
#include "vtrain/simulate.hpp"

namespace vtrain::cli {

using nlohmann::json;

namespace {

struct BenchCase {
  const char* name;
  const char* example;
};

// Median wall time of one simulate() call without timeline, in seconds.
double time_plan(const SimConfig& c, int& runs) {
  std::vector<double> samples;
  const auto budget = std::chrono::milliseconds(400);
  const auto begin = std::chrono::steady_clock::now();
  while (samples.size() < 5 || (std::chrono::steady_clock::now() - begin < budget && samples.size() < 2000)) {
    const auto t0 = std::chrono::steady_clock::now();
    auto r = simulate(c);
    const auto t1 = std::chrono::steady_clock::now();
    if (!r.ok()) return -1;
    samples.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  runs = static_cast<int>(samples.size());
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// Median wall time of a whole sweep, in seconds; `result` is the last run's.
double time_sweep(const ExploreRequest& req, int threads, int runs, ExploreResult& result, Diagnostics& errors) {
  std::vector<double> samples;
  for (int i = 0; i < runs; ++i) {
    ExploreControl control;
    control.threads = threads;
    const auto t0 = std::chrono::steady_clock::now();
    auto r = explore(req, control);
    const auto t1 = std::chrono::steady_clock::now();
    if (!r.ok()) {
      errors = r.errors();
      return -1;
    }
    result = std::move(r.value());
    samples.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// The explorer's floors: vTrain's 294-plan case study, and every valid plan of GPT-3 175B on up
// to 1024 GPUs.
bool bench_sweeps(int threads, bool quiet, json& rows) {
  struct Sweep {
    const char* name;
    json request;
    double floor_s;
    int runs;
  };
  const Sweep sweeps[] = {
      {"explore --case mt-nlg (vTrain case study 1)", json{{"case", "mt-nlg"}}, 0.5, 5},
      {"explore gpt3-175b (every plan, <= 1024 GPUs)", json::parse(find_example("gpt3-175b")->json_text), 5.0, 3}};
  bool all_ok = true;
  for (const auto& sw : sweeps) {
    auto req = parse_explore_request(sw.request);
    if (!req.ok()) {
      print_errors(req.errors());
      return false;
    }
    ExploreResult result;
    Diagnostics errors;
    const double t = time_sweep(req.value(), threads, sw.runs, result, errors);
    if (t < 0) {
      print_errors(errors);
      return false;
    }
    const bool ok = t <= sw.floor_s;
    all_ok = all_ok && ok;
    rows.push_back({{"case", sw.name},
                    {"plans", result.stats.plans},
                    {"simulated", result.stats.simulated},
                    {"seconds", t},
                    {"runs", sw.runs},
                    {"threads", threads},
                    {"floor_s", sw.floor_s},
                    {"meets_floor", ok}});
    if (!quiet)
      std::printf("%-46s %7lld plans (%lld simulated) in %6.3f s on %d threads (median of %d)  floor %.1f s: %s\n",
                  sw.name, result.stats.plans, result.stats.simulated, t, threads, sw.runs, sw.floor_s,
                  ok ? "ok" : "MISSED");
  }
  return all_ok;
}

// The cluster scheduler's floor: vTrain's second case study, 128 jobs on 1024 GPUs under all four
// policies, throughput curves included (the cache is emptied before each run).
bool bench_schedule(int threads, bool quiet, json& rows) {
  const double floor_s = 2.0;
  const int runs = 3;
  auto req = parse_schedule_request(json{{"case", "vtrain-case2"}, {"workload", {{"first_jobs", 128}}}});
  if (!req.ok()) {
    print_errors(req.errors());
    return false;
  }
  std::vector<double> samples;
  ScheduleResult last;
  for (int i = 0; i < runs; ++i) {
    clear_curve_cache();
    ScheduleControl control;
    control.threads = threads;
    const auto t0 = std::chrono::steady_clock::now();
    auto r = schedule(req.value(), control);
    const auto t1 = std::chrono::steady_clock::now();
    if (!r.ok()) {
      print_errors(r.errors());
      return false;
    }
    last = std::move(r.value());
    samples.push_back(std::chrono::duration<double>(t1 - t0).count());
  }
  std::sort(samples.begin(), samples.end());
  const double t = samples[samples.size() / 2];
  double policies_s = 0;
  for (const PolicyResult& p : last.policies) policies_s += p.seconds;
  const bool ok = t <= floor_s;
  const char* name = "schedule --case vtrain-case2 --jobs 128";
  rows.push_back({{"case", name},
                  {"jobs", last.request.workload.jobs.size()},
                  {"policies", last.policies.size()},
                  {"seconds", t},
                  {"curve_seconds", last.curve_stats.seconds},
                  {"policy_seconds", policies_s},
                  {"runs", runs},
                  {"threads", threads},
                  {"floor_s", floor_s},
                  {"meets_floor", ok}});
  if (!quiet)
    std::printf("%-46s %4zu jobs, 4 policies, 1024 GPUs in %6.3f s (curves %.3f s) on %d threads (median of %d)  floor %.1f s: %s\n",
                name, last.request.workload.jobs.size(), t, last.curve_stats.seconds, threads, runs, floor_s,
                ok ? "ok" : "MISSED");

  // One throughput curve of GPT-3 175B over every count up to 1024 GPUs.
  const double curve_floor_s = 1.0;
  auto one = parse_schedule_request(json::parse(R"({
    "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 1024, "gpus_per_node": 8},
    "workload": {"jobs": [{"arrival_s": 0, "deadline_s": 1e6, "model": "gpt3-175b", "global_batch": 1536,
                           "gpus": 128, "iterations": 100}]},
    "policies": ["fifo"]})"));
  if (!one.ok()) {
    print_errors(one.errors());
    return false;
  }
  std::vector<double> curve_samples;
  long long plans = 0;
  for (int i = 0; i < runs; ++i) {
    clear_curve_cache();
    ScheduleControl control;
    control.threads = threads;
    auto r = schedule(one.value(), control);
    if (!r.ok()) {
      print_errors(r.errors());
      return false;
    }
    curve_samples.push_back(r.value().curve_stats.seconds);
    plans = r.value().curve_stats.plans_simulated;
  }
  std::sort(curve_samples.begin(), curve_samples.end());
  const double tc = curve_samples[curve_samples.size() / 2];
  const bool curve_ok = tc <= curve_floor_s;
  const char* curve_name = "throughput curve of gpt3-175b, 1..1024 GPUs";
  rows.push_back({{"case", curve_name},
                  {"plans_simulated", plans},
                  {"seconds", tc},
                  {"runs", runs},
                  {"threads", threads},
                  {"floor_s", curve_floor_s},
                  {"meets_floor", curve_ok}});
  if (!quiet)
    std::printf("%-46s %7lld plans simulated in %6.3f s on %d threads (median of %d)  floor %.1f s: %s\n", curve_name,
                plans, tc, threads, runs, curve_floor_s, curve_ok ? "ok" : "MISSED");
  return ok && curve_ok;
}

}  // namespace

int run_bench(const Args& args) {
  int threads = 1;
  if (!threads_option(args, threads)) return 2;
  const BenchCase cases[] = {{"mt-nlg-530b (8,12,35) gbs 1920 mbs 1", "mt-nlg-530b"},
                             {"gpt3-175b (8,16,8) gbs 1536 mbs 1", "gpt3-175b"}};
  json rows = json::array();
  const double floor_s = 1e-3;
  bool all_ok = true;
  for (const auto& bc : cases) {
    const ExampleConfig* e = find_example(bc.example);
    if (!e) return 1;
    auto parsed = parse_sim_config(json::parse(e->json_text));
    if (!parsed.ok()) {
      print_errors(parsed.errors());
      return 1;
    }
    SimConfig c = parsed.value();
    c.output.timeline = false;
    int runs = 0;
    const double t = time_plan(c, runs);
    if (t < 0) return 1;
    const bool ok = t <= floor_s;
    all_ok = all_ok && ok;
    rows.push_back({{"case", bc.name}, {"seconds_per_plan", t}, {"runs", runs}, {"floor_s", floor_s}, {"meets_floor", ok}});
    if (!args.has("json"))
      std::printf("%-40s %9.1f us per plan (median of %d)  floor %.0f us: %s\n", bc.name, t * 1e6, runs,
                  floor_s * 1e6, ok ? "ok" : "MISSED");
  }
  json sweeps = json::array();
  all_ok = bench_sweeps(threads, args.has("json"), sweeps) && all_ok;
  json scheduling = json::array();
  all_ok = bench_schedule(threads, args.has("json"), scheduling) && all_ok;
  if (args.has("json"))
    std::printf("%s\n", json{{"simulate", rows}, {"explore", sweeps}, {"schedule", scheduling}}.dump(2).c_str());
  return all_ok ? 0 : 1;
}

}  // namespace vtrain::cli
