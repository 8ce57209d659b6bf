#pragma once
// Design-space explorer: every valid parallel plan for one model, cluster, batch and token count,
// with its time, cost and memory, the time-cost Pareto frontier and the best plan for an objective.
// Like the rest of the core it never prints, throws or exits; errors are diagnostics.

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vtrain/config.hpp"
#include "vtrain/diagnostics.hpp"
#include "vtrain/enums.hpp"
#include "vtrain/registry.hpp"
#include "vtrain/profile.hpp"

namespace vtrain {

// What `best` minimizes: time (the fastest plan), cost (the cheapest), deadline (the cheapest
// within deadline_days) or balanced (the cheapest within kBalancedSlack more days than the
// fastest: a little time traded for money, never months; the cheapest plan alone often runs on a
// few GPUs for a year).
// expected_time ranks by the expected days once failures, restarts and checkpoints are counted
// (/reliability): a plan on more GPUs fails more often.
enum class Objective { time, cost, deadline, balanced, expected_time };
template <>
struct EnumNames<Objective> {
  static constexpr const char* key = "objective";
  static constexpr EnumName<Objective> table[] = {
      {Objective::time, "time", "the fastest plan"},
      {Objective::cost, "cost", "the cheapest plan"},
      {Objective::deadline, "deadline", "the cheapest plan within deadline_days"},
      {Objective::balanced, "balanced", "the cheapest plan within a quarter more days than the fastest"},
      {Objective::expected_time, "expected_time", "the fewest expected days, failures and checkpoints counted"}};
};

// The sequence length (tokens) from which the explorer tries context parallelism by default, and
// the largest degree it tries then.
inline constexpr int kLongSequence = 16384;
inline constexpr int kMaxDefaultCp = 32;

// How much longer than the fastest plan the balanced objective lets a plan train (fraction).
inline constexpr double kBalancedSlack = 0.25;

// The space to enumerate and how to rank it. An empty list means every valid value.
struct ExploreOptions {
  std::vector<int> tp;                  // tensor-parallel degrees; default: divisors of heads within a node
  bool tp_across_nodes = false;         // the default tp list also holds degrees above gpus_per_node
  std::vector<int> pp;                  // pipeline stages; default: divisors of layers
  std::vector<int> virtual_stages;      // model chunks per stage; default: 1 and every count dividing layers / pp
  std::vector<int> dp;                  // data-parallel replicas; default: divisors of the batch within num_gpus
  std::vector<int> cp;                  // context-parallel degrees; default: 1, and from a sequence of
                                        // kLongSequence tokens on (fused attention) the powers of two up to
                                        // kMaxDefaultCp whose 2 x cp chunks divide it
  std::vector<int> micro_batch;         // sequences per micro-batch; default: divisors of the per-replica batch
  std::vector<Recompute> recompute;     // default: none, selective, full
  std::vector<bool> sequence_parallel;  // default: false and true (only false when tp = 1)
  std::vector<int> zero_stage;          // default: 0 and 1 (only 0 when dp = 1); 2 and 3 when listed
  std::vector<int> shard_group;         // ZeRO-3's shard groups (GPUs; 0: all of dp); default: 0. Values
                                        // not dividing a plan's dp are left out for it
  std::vector<int> ep;                  // a mixture of experts' expert-parallel degrees; default: the divisors of
                                        // /model/moe/experts (1 for a dense model); those etp x ep does not divide
                                        // tp x dp for are left out for a plan
  std::vector<int> etp;                 // expert tensor-parallel degrees (0: tp); default: 0
  Objective objective = Objective::cost;  // what `best` minimizes
  double deadline_days = 0;             // objective deadline: the most training days allowed (days)
  bool simulate_unfit = false;          // also time plans that do not fit in memory (else left unsimulated)
  long long max_plans = 1000000;        // a larger space is an error asking to restrict it (count)
  double max_blocks = 4e9;              // the same for the pipeline blocks to simulate (count)
};

// One question: model, cluster, token count and batch, the space and the objective.
struct ExploreRequest {
  // model, cluster (num_gpus: the most GPUs a plan may use), training (tokens to train on); plan:
  // the baseline, whose global_batch and unexplored fields (attention, precision, ...) every plan
  // shares.
  SimConfig config;
  bool has_baseline = true;  // the config's plan names tp, pp or dp
  ExploreOptions options;
  std::string name;          // a case preset's name, or empty
  std::string description;   // a case preset's one-line description, or empty
};

// One plan's estimate. Time and cost fields are 0 when the plan was not simulated.
struct PlanEstimate {
  PlanConfig plan;
  int num_gpus = 0;               // tp x pp x dp (count)
  bool within_gpu_limit = true;   // num_gpus <= the cluster's num_gpus
  bool fits_in_memory = true;
  bool simulated = false;         // time and cost were simulated
  bool pareto = false;            // on the (training days, cost) Pareto frontier of feasible plans
  double memory_GiB = 0;          // per GPU of the fullest stage (GiB)
  double iteration_time_s = 0;    // (s)
  double training_days = 0;       // (days)
  double expected_days = 0;       // with failures, restarts and checkpoints (days); infinite: no progress
  double gpu_hours = 0;           // GPUs x hours (GPU-hours)
  double cost_usd = 0;            // GPU-hours x price (USD)
  double energy_MWh = 0;          // GPU-hours at board power (MWh)
  double mfu = 0;                 // model FLOP utilization (fraction)
  // Simulated, fits in memory and within the GPU limit: a plan that could run.
  bool feasible() const { return simulated && fits_in_memory && within_gpu_limit; }
};

struct ExploreStats {
  long long plans = 0;             // plans listed (count)
  long long within_gpu_limit = 0;  // of them within the GPU limit (count)
  long long fit = 0;               // of them fitting in memory (count)
  long long simulated = 0;         // of them simulated (count)
  long long feasible = 0;          // simulated, fitting and within the limit (count)
  long long skipped_invalid = 0;   // combinations of the given values that break a rule (count)
  double blocks = 0;               // pipeline blocks of the plans simulated, as bounded by max_blocks (count)
  long long pipelines_run = 0;     // pipeline simulations performed (count)
  long long pipelines_reused = 0;  // plans that reused the previous plan's pipeline (count)
  int threads = 1;                 // threads used (count)
  double seconds = 0;              // wall time of the sweep (s)
};

struct ExploreResult {
  ExploreRequest request;
  double parameters = 0;            // the model's parameters (count)
  bool priced = false;              // the cluster has a price: plans have a cost (else GPU-hours rank them)
  bool energy_known = false;        // the profile gives a board power: plans have an energy
  std::vector<PlanEstimate> plans;  // enumeration order; the baseline is among them
  std::vector<int> pareto;          // indices into plans, fastest first
  int best_time = -1;               // fewest training days among feasible plans (-1: none)
  int best_cost = -1;               // lowest cost among feasible plans
  int best = -1;                    // best for the request's objective (-1: none meets it)
  int baseline = -1;                // the request's baseline plan (-1: the request has none)
  ExploreStats stats;
};

// How to run a sweep. `progress` is called from the calling thread with the fraction done;
// returning false cancels the sweep (the outcome is then a "cancelled" diagnostic).
struct ExploreControl {
  int threads = 1;  // worker threads (count); 1 in builds without threads
  std::function<bool(double fraction_done)> progress;
  // List the plans and their memory only: the result's plans are not simulated, and its stats
  // give the pipeline blocks a sweep would simulate (max_blocks is not applied).
  bool count_only = false;
};

// Reads an explore request: a simulate config with an optional "explore" object, or
// {"case": NAME, ...} to start from a case preset and override its fields (JSON merge patch).
Outcome<ExploreRequest> parse_explore_request(const nlohmann::json& j);

// A sweep as it was published (a case study): {"case": NAME, ...overrides} runs it.
struct ExploreCase {
  std::string name;          // e.g. "mt-nlg"
  std::string label;         // one line for a list of cases
  std::string example;       // the example config whose model and plan it starts from
  std::string request_json;  // the whole request (JSON text)
};

const Registry<ExploreCase>& explore_cases();

// Enumerates, checks and simulates every plan of the request's space.
Outcome<ExploreResult> explore(const ExploreRequest& request, const ExploreControl& control = {});

// Indices of the feasible plans on the Pareto frontier of (training days, cost), fastest first:
// those no other feasible plan matches in both and beats in one. Cost compares as GPU-hours
// (cost / price). Equal plans are all on it.
std::vector<int> pareto_frontier(const std::vector<PlanEstimate>& plans);

nlohmann::json to_json(const ExploreResult& r);
nlohmann::json to_json(const PlanEstimate& p);

}  // namespace vtrain
