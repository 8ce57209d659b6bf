#pragma once
// Compute-optimal model sizing: the model a scaling law prefers for a budget if GPUs ran at peak
// (FLOP-only), against the model that really trains best within the budget once each candidate's
// best parallel plan is simulated (achievable).

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vtrain/config.hpp"
#include "vtrain/diagnostics.hpp"
#include "vtrain/explore.hpp"
#include "vtrain/model.hpp"
#include "vtrain/scaling.hpp"

namespace vtrain {

// What a budget limits: wall-clock days, money (dollars or GPU-hours at a price) or FLOPs.
enum class BudgetKind { time, money, flops };
template <>
struct EnumNames<BudgetKind> {
  static constexpr const char* key = "budget_kind";
  static constexpr EnumName<BudgetKind> table[] = {
      {BudgetKind::time, "time", "days on the cluster"},
      {BudgetKind::money, "money", "dollars, or GPU-hours at the price"},
      {BudgetKind::flops, "flops", "FLOPs at the GPUs' peak"}};
};

struct OptimalRequest {
  BudgetKind budget = BudgetKind::time;
  double days = 0;             // time budget: wall-clock days on up to cluster.num_gpus GPUs (days)
  double usd = 0;              // money budget at cluster.price_per_gpu_hour_usd (USD)
  double gpu_hours = 0;        // the money budget as given in GPU-hours (GPU-hours; 0: given otherwise)
  double deadline_days = 0;    // money budget: the wall-clock days it must also fit in (days; 0: none)
  double flops = 0;            // compute budget, spent at peak in the FLOP-only view (FLOP)
  ClusterConfig cluster;       // GPU type, the most GPUs, bandwidths, price
  int seq_len = 2048;          // tokens per sequence
  int global_batch = 1536;     // sequences per iteration, every candidate (count)
  ModelFamily family = ModelFamily::gpt;
  bool ratio_rule = false;     // fixed tokens per parameter instead of a parametric fit
  double tokens_per_param = 20;  // the ratio rule's tokens per parameter (count)
  ScalingFit fit;              // parametric fit (also gives the losses shown under the ratio rule)
  double min_params = 0;       // candidate range; 0: around the FLOP-only optimum (count)
  double max_params = 0;
  PlanConfig plan;             // fields every candidate's plans share (attention, precision, ...)
  ExploreOptions explore;      // each candidate's plan space
  std::string name;            // a preset's name, or empty
  std::string description;
};

struct CandidateResult {
  ModelConfig model;
  double params = 0;               // total parameters (count)
  bool has_plan = false;           // a feasible plan exists within the GPU limit
  PlanEstimate plan;               // its best plan for the budget's objective
  double flops_per_token = 0;      // model FLOPs per token, forward + backward (FLOP)
  double recompute_flops_per_token = 0;  // extra FLOPs of recomputation per token (FLOP)
  double iteration_time_s = 0;     // at the best plan (s)
  double tokens_per_s = 0;         // at the best plan (tokens/s)
  double usd_per_token = 0;        // at the best plan and the cluster's price (USD)
  // achievable view: tokens the budget buys at this plan's speed (or price), and the loss
  double tokens_achievable = 0;    // (count)
  double loss_achievable = 0;      // by the request's fit
  double days_achievable = 0;      // (days)
  double cost_achievable_usd = 0;  // (USD)
  // FLOP-only view: tokens C / (6 N), the loss that promises, and how long they really take
  double tokens_flop_only = 0;     // (count)
  double loss_flop_only = 0;       // by the request's fit
  double days_flop_only = 0;       // real days to train tokens_flop_only at the best plan (days)
  double cost_flop_only_usd = 0;   // (USD)
  // ratio rule: ratio x params tokens, their loss, and their days and cost at the best plan
  double tokens_at_ratio = 0;      // (count)
  double loss_at_ratio = 0;        // by the request's fit (without a plan too)
  double days_at_ratio = 0;        // (days)
  double cost_at_ratio_usd = 0;    // (USD)
  bool within_budget_ratio = false;  // ratio rule: ratio x params tokens fit in the budget
};

// One answer: a candidate trained on some tokens, and what that takes at its best plan.
struct OptimalAnswer {
  int candidate = -1;              // index into OptimalResult::candidates
  double params = 0;               // parameters (count)
  double tokens = 0;               // tokens it trains on (count)
  double loss = 0;                 // L(params, tokens) by the request's fit
  double training_days = 0;        // the tokens at the candidate's plan (days; 0: it has none)
  double cost_usd = 0;             // (USD)
  double gpu_hours = 0;            // cost at the cluster's price (GPU-hours)
};

// The budget in each unit at the cluster's GPUs, price and peak, as the amount given converts
// (a deadline beside money does not enter).
struct BudgetEquivalents {
  double gpu_hours = 0;            // (GPU-hours)
  double days = 0;                 // on every GPU of the cluster (days)
  double usd = 0;                  // at the price (USD; 0 without one)
  double flops = 0;                // at the GPUs' peak (FLOP)
};

struct OptimalResult {
  OptimalRequest request;
  double flops_budget = 0;         // the budget as FLOPs at peak (FLOP)
  double budget_days = 0;          // wall-clock limit (days; 0: none)
  double budget_usd = 0;           // money limit (USD; 0: none)
  double budget_gpu_hours = 0;     // the money limit at the price (GPU-hours; 0: no money limit)
  BudgetEquivalents budget_equivalents;
  ComputeOptimum flop_only;        // the scaling law's optimum at peak
  double flop_only_loss = 0;       // L(N*, D*)
  int flop_only_candidate = -1;    // the candidate nearest N* in parameters
  // At that candidate: the FLOP-only budget's tokens for its size, and D* tokens at its plan.
  OptimalAnswer flop_only_nearest;
  double flop_only_days = 0;       // D* tokens at the nearest candidate's speed (days)
  double flop_only_cost_usd = 0;   // (USD)
  double flop_only_gpu_hours = 0;  // that cost at the cluster's price (GPU-hours)
  double flop_only_mfu = 0;        // of the nearest candidate's plan (fraction)
  int achievable = -1;             // the best candidate within the budget (-1: none)
  OptimalAnswer achievable_answer; // its answer (candidate -1: none)
  std::vector<int> alternatives;   // next best candidates by the same criterion
  std::vector<OptimalAnswer> alternative_answers;  // their answers, in the same order
  std::vector<CandidateResult> candidates;  // by parameters
  double seconds = 0;              // wall time (s)
  long long plans_simulated = 0;   // (count)
};

struct OptimalControl {
  int threads = 1;
  std::function<bool(double fraction_done)> progress;
};

Outcome<OptimalRequest> parse_optimal_request(const nlohmann::json& j);

// A request as it was published (a case study): {"preset": NAME, ...overrides} runs it.
struct OptimalPreset {
  std::string name;          // e.g. "vtrain-case3"
  std::string description;   // one line: what it asks
  std::string request_json;  // the whole request (JSON text)
};

const Registry<OptimalPreset>& optimal_presets();

// The candidate architectures of a family between two sizes (hidden in multiples of 256, head
// dimension 128, layers from the family's aspect ratio).
std::vector<ModelConfig> candidate_models(ModelFamily family, int seq_len, double min_params, double max_params);

Outcome<OptimalResult> optimal(const OptimalRequest& request, const OptimalControl& control = {});

nlohmann::json to_json(const OptimalResult& r);

}  // namespace vtrain
