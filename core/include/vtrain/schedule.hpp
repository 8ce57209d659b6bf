#pragma once
// Many training jobs on one cluster: each job's throughput at every GPU count it may be given
// (throughput curves), an event-driven simulation of the cluster under a scheduling policy, and
// the metrics that compare policies (deadlines met, job completion times, makespan, utilization).
// This is vTrain's second case study (Bang et al., MICRO'24, arXiv 2312.12391): ElasticFlow
// (Gu et al., ASPLOS'23) resizes jobs as if they scaled by data parallelism alone; given each
// job's best plan at every GPU count instead, the same policy meets more deadlines.
// Like the rest of the core nothing here prints, throws or exits; errors are diagnostics.

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vtrain/config.hpp"
#include "vtrain/diagnostics.hpp"

namespace vtrain {

// ---------------------------------------------------------------------------------------------
// Jobs and workloads

// One training job of a workload.
struct JobSpec {
  std::string id;                // name, unique within the workload
  double arrival_s = 0;          // submission time (s after the workload's start)
  double deadline_s = 0;         // time it should be done by (s after the workload's start)
  ModelConfig model;             // what it trains
  int global_batch = 1;          // sequences per iteration (count)
  int gpus = 1;                  // GPUs it asks for (count): 1, 2, 4 or whole nodes
  PlanConfig plan;               // its own plan on `gpus` GPUs (dp = gpus / (tp x pp)); the fields that are not
                                 // tp, pp, dp, micro_batch or recompute are shared by every plan it may run
  bool plan_given = false;       // tp and pp were given; else its plan is the best one on `gpus` GPUs
  long long iterations = 0;      // iterations to train (count); 0 until resolved from tokens or duration
  double tokens = 0;             // tokens to train on (count), when given instead of iterations
  double duration_s = 0;         // > 0: sized to run this long on `gpus` GPUs with its plan (s; trace mapping,
                                 // generator); its deadline is then deadline_factor durations after arrival
  double deadline_factor = 0;    // with duration_s: deadline - arrival over the duration (ratio)
  std::string origin;            // where it was read: a JSON pointer, or "/workload/csv" with csv_line
  int csv_line = 0;              // its line in a CSV (count), or 0
};

struct Workload {
  std::string name;              // example name, "trace", "generated" or "custom"
  std::string description;       // one line for readers
  std::vector<JobSpec> jobs;     // in arrival order
};

// How trace jobs of small models become LLM jobs (see docs/cluster-scheduling.md: "The ITP trace as LLM jobs").
struct TraceSize {
  int max_trace_gpus = 1;        // trace jobs asking for at most this many GPUs take this size (count)
  ModelConfig model;             // the LLM they train
  int global_batch = 1;          // its sequences per iteration (count)
};

struct TraceMapping {
  int gpu_scale = 8;             // cluster GPUs per trace GPU (ratio): the 195-job trace ran on 128 GPUs
  double time_scale = 1;         // simulated seconds per trace second (ratio): arrivals, durations, deadlines
  std::vector<TraceSize> sizes;  // by increasing max_trace_gpus; the last also takes every larger request
  PlanConfig plan;               // the plan fields every mapped job shares (sequence parallelism, ZeRO, ...)
};
TraceMapping default_trace_mapping();

// Settings of the seeded synthetic generator.
struct GeneratorMixEntry {
  ModelConfig model;             // what the jobs of this entry train
  int global_batch = 1;          // sequences per iteration (count)
  int gpus = 8;                  // GPUs they ask for (count)
  double weight = 1;             // share of the jobs (relative)
};
struct GeneratorSettings {
  unsigned long long seed = 1;           // the same seed gives the same workload
  int jobs = 64;                         // jobs to generate (count)
  double arrival_rate_per_hour = 4;      // Poisson arrivals (jobs per hour)
  double min_duration_h = 0.25;          // durations on the GPUs asked for, log-uniform between (h)
  double max_duration_h = 24;            // (h)
  double min_deadline_factor = 0.5;      // deadline - arrival over the duration, uniform between (ratio)
  double max_deadline_factor = 1.5;      // (ratio)
  std::vector<GeneratorMixEntry> mix;    // empty: the request mix of the 195-job ITP trace
};

// ---------------------------------------------------------------------------------------------
// Throughput curves

// GPU counts a job may hold: 1, 2, 4, ... below a node, then every multiple of a node, up to
// num_gpus (ascending).
std::vector<int> allocation_counts(int num_gpus, int gpus_per_node);

enum class CurveKind { best_plan, data_parallel };
const char* to_string(CurveKind k);

struct CurvePoint {
  int gpus = 0;                  // GPUs held (count), one of allocation_counts
  bool usable = false;           // some plan of this curve runs on at most `gpus` GPUs and fits in memory
  PlanConfig plan;               // the plan run on them
  int plan_gpus = 0;             // tp x pp x dp of that plan (count), at most `gpus`
  double iteration_time_s = 0;   // one iteration of that plan (s)
};

// A job's iteration time at every count it may hold, and the counts worth holding.
struct ThroughputCurve {
  CurveKind kind = CurveKind::best_plan;
  std::vector<CurvePoint> points;  // one per allocation count, ascending
  std::vector<int> levels;         // indices of the usable points faster than every smaller count and
                                   // no costlier in GPU-seconds an iteration than any larger one
  // The point of `gpus` (one of the allocation counts), or nullptr.
  const CurvePoint* at(int gpus) const;
};

struct JobCurves {
  ModelConfig model;             // the job shape: model, batch and shared plan fields
  int global_batch = 1;          // (count)
  PlanConfig fixed_plan;         // the job's own plan (given, or the best on its requested GPUs)
  ThroughputCurve best;          // the best plan the explorer finds on at most each count
  ThroughputCurve data_parallel; // the fixed plan's tp, pp and micro-batch with the most replicas that fit
  bool cached = false;           // the explorer's sweep came from the cache
};

struct CurveStats {
  int shapes = 0;                // distinct job shapes (model, batch, shared plan fields) (count)
  int swept = 0;                 // of them swept by the explorer now (count)
  long long plans_simulated = 0; // plans the sweeps simulated (count)
  double seconds = 0;            // wall time of the curves (s)
};

// Forgets every cached sweep (the next curves are computed afresh; for timing).
void clear_curve_cache();

// ---------------------------------------------------------------------------------------------
// Requests and results

struct ScheduleRequest {
  ClusterConfig cluster;                 // num_gpus: the cluster's size; price optional
  Workload workload;
  std::vector<std::string> policies;     // names in scheduling_policies(), in the order shown
  double restart_pause_s = 60;           // a resize's checkpoint-restart pause, progress kept (s)
  double period_s = 0;                   // also re-plan every period (s); 0: at arrivals and completions only
  std::string name;                      // a case preset's name, or empty
  std::string description;               // one line for readers
};

// From `time_s` on the job holds `gpus` GPUs and runs `plan`; it makes progress from resume_s.
struct AllocationChange {
  double time_s = 0;             // when the allocation starts (s)
  int gpus = 0;                  // GPUs held (count); 0: none (waiting, or done)
  PlanConfig plan;               // the plan run (meaningless when gpus is 0)
  int plan_gpus = 0;             // tp x pp x dp of the plan (count)
  double iteration_time_s = 0;   // one iteration of the plan (s)
  double resume_s = 0;           // progress starts again here: time_s, or time_s + the pause after a resize (s)
};

struct JobOutcome {
  bool admitted = false;         // the policy took the job
  bool finished = false;         // it trained all its iterations
  bool met_deadline = false;     // finished by its deadline (to the millisecond)
  double start_s = -1;           // first time it held GPUs (s; -1: never)
  double finish_s = -1;          // when it finished (s; -1: never)
  double jct_s = -1;             // finish - arrival (s; -1: not finished)
  int resizes = 0;               // allocation changes while it had started, each paying the pause (count)
  std::vector<AllocationChange> allocations;  // in time order; ends with gpus 0 at the finish
};

// The cluster between this point and the next.
struct UsagePoint {
  double time_s = 0;             // (s)
  int gpus_allocated = 0;        // GPUs held by jobs (count)
  int jobs_running = 0;          // jobs holding GPUs (count)
  int jobs_waiting = 0;          // admitted jobs holding none (count)
};

struct PolicyResult {
  std::string name;              // policy name
  CurveKind curve = CurveKind::data_parallel;  // the plans its jobs run
  int workload_jobs = 0;         // jobs in the workload (count)
  int admitted = 0;              // jobs the policy took (count)
  int finished = 0;              // jobs that trained all their iterations (count)
  int deadlines_met = 0;         // jobs finished by their deadline (count)
  double deadline_ratio = 0;     // deadlines_met / workload_jobs (fraction)
  double avg_jct_s = 0;          // mean completion time of finished jobs, finish - arrival (s)
  double p95_jct_s = 0;          // 95th percentile of the same, nearest rank (s)
  double makespan_s = 0;         // first arrival to last finish (s)
  double gpu_utilization = 0;    // GPU-seconds held over num_gpus x makespan (fraction)
  double gpu_hours = 0;          // GPU-hours held (GPU-hours)
  double cost_usd = 0;           // GPU-hours held x price (USD); 0 without a price
  int resizes = 0;               // resizes of all jobs (count)
  int events = 0;                // scheduling events simulated (count)
  std::vector<JobOutcome> jobs;  // per job of the workload, same order
  std::vector<UsagePoint> timeline;  // each change of the GPUs held
  double seconds = 0;            // wall time of the simulation (s)
};

// elasticflow-vtrain against elasticflow-dp, as the paper compares them.
struct PolicyComparison {
  bool valid = false;            // both policies ran
  std::string policy;            // "elasticflow-vtrain"
  std::string baseline;          // "elasticflow-dp"
  double deadlines_met_x = 0;    // deadlines met over the baseline's (ratio; 0 when the baseline met none)
  double admitted_x = 0;         // jobs admitted over the baseline's (ratio; 0 when it admitted none)
  double avg_jct_change = 0;     // average JCT over the baseline's, minus 1 (fraction)
  double p95_jct_change = 0;     // the same for the 95th percentile (fraction)
  double makespan_change = 0;    // the same for the makespan (fraction)
  double utilization_change = 0; // GPU utilization minus the baseline's (fraction of the cluster)
};

struct ScheduleResult {
  ScheduleRequest request;       // with every job resolved (plan, iterations, deadline)
  std::vector<JobCurves> curves; // one per distinct job shape and plan
  std::vector<int> job_curves;   // per job of the workload: its index in curves
  std::vector<PolicyResult> policies;
  PolicyComparison comparison;
  CurveStats curve_stats;
  double seconds = 0;            // wall time of the whole call (s)
};

// How to run. `progress` is called from the calling thread with the fraction done; returning
// false cancels (the outcome is then a "cancelled" diagnostic).
struct ScheduleControl {
  int threads = 1;               // the explorer's threads (count); 1 in builds without threads
  std::function<bool(double fraction_done)> progress;
};

// Reads a request: {"cluster", "workload", "policies", "restart_pause_s", "period_s"}, or
// {"case": NAME, ...} to start from a case preset and override its fields (JSON merge patch).
// The workload is {"example": NAME} | {"jobs": [...]} | {"csv": TEXT} | {"generate": {...}},
// with "first_jobs": N to keep the first N arrivals; a CSV with the ITP trace's columns is mapped
// by "mapping" (see TraceMapping).
Outcome<ScheduleRequest> parse_schedule_request(const nlohmann::json& j);

// Case presets by name ("vtrain-case2"), as request JSON.
std::vector<std::string> schedule_case_names();
const nlohmann::json* find_schedule_case(const std::string& name);

// Bundled workloads (examples/workloads/*.json) by name.
std::vector<std::string> workload_example_names();
const char* find_workload_example(const std::string& name);  // its JSON text, or nullptr

// Resolves each job (plan, iterations, deadline) and its curves, then simulates the cluster under
// every policy of the request.
Outcome<ScheduleResult> schedule(const ScheduleRequest& request, const ScheduleControl& control = {});

// Resolves a workload without simulating it: each job's plan, iterations and deadline (what
// `vtrain schedule --map-trace` prints).
Outcome<Workload> resolve_workload(const ScheduleRequest& request, const ScheduleControl& control = {});

// A trace in ElasticFlow's CSV format (job_id, submission_time, num_iteration, model_name,
// deadline, batch_size, num_gpu, duration) mapped to LLM jobs, not yet resolved.
Outcome<Workload> map_trace_csv(const std::string& csv_text, const TraceMapping& mapping, int num_gpus);

std::string to_json_text(const ScheduleResult& r);  // the whole result as JSON text
nlohmann::json to_json(const Workload& w);  // jobs as a workload file holds them
nlohmann::json plan_json(const PlanConfig& p);

}  // namespace vtrain
