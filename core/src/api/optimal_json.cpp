// The JSON form of a compute-optimal answer (vtrain/optimal.hpp): every number is copied from the
// result, where it was computed.

#include <nlohmann/json.hpp>

#include "vtrain/model.hpp"
#include "vtrain/optimal.hpp"

namespace vtrain {

using nlohmann::json;

namespace {

json model_json(const ModelConfig& m) {
  json j = to_json(m);
  j["params"] = count_parameters(m).total;
  return j;
}

json candidate_json(const OptimalRequest& req, const CandidateResult& c) {
  json j = {{"model", model_json(c.model)}, {"params", c.params}, {"has_plan", c.has_plan},
            {"tokens_flop_only", c.tokens_flop_only}, {"loss_flop_only", c.loss_flop_only}};
  if (req.ratio_rule) {
    j["tokens_at_ratio"] = c.tokens_at_ratio;
    j["loss_at_ratio"] = c.loss_at_ratio;
  }
  if (!c.has_plan) return j;
  j["plan"] = to_json(c.plan);
  j["iteration_time_s"] = c.iteration_time_s;
  j["mfu"] = c.plan.mfu;
  j["num_gpus"] = c.plan.num_gpus;
  j["tokens_per_s"] = c.tokens_per_s;
  j["flops_per_token"] = c.flops_per_token;
  j["recompute_flops_per_token"] = c.recompute_flops_per_token;
  j["tokens_achievable"] = c.tokens_achievable;
  j["loss_achievable"] = c.loss_achievable;
  j["days_achievable"] = c.days_achievable;
  j["cost_achievable_usd"] = c.cost_achievable_usd;
  j["days_flop_only"] = c.days_flop_only;
  j["cost_flop_only_usd"] = c.cost_flop_only_usd;
  if (req.ratio_rule) {
    j["days_at_ratio"] = c.days_at_ratio;
    j["cost_at_ratio_usd"] = c.cost_at_ratio_usd;
    j["within_budget_at_ratio"] = c.within_budget_ratio;
  }
  return j;
}

// One answer card: its candidate's curve entry with the answer's parameters, tokens, loss, days and cost.
json answer_json(const OptimalResult& r, const OptimalAnswer& a) {
  const CandidateResult& c = r.candidates[a.candidate];
  json j = candidate_json(r.request, c);
  j["params"] = a.params;
  j["tokens"] = a.tokens;
  j["loss"] = a.loss;
  if (c.has_plan) {
    j["training_days"] = a.training_days;
    j["cost_usd"] = a.cost_usd;
    j["gpu_hours"] = a.gpu_hours;
  }
  return j;
}

}  // namespace

json to_json(const OptimalResult& r) {
  const OptimalRequest& q = r.request;
  json scaling = q.ratio_rule
                     ? json{{"rule", "tokens_per_param"}, {"tokens_per_param", q.tokens_per_param},
                            {"loss_fit", q.fit.name}}
                     : json{{"rule", "fit"}, {"fit", q.fit.name}};
  scaling["citation"] = q.fit.citation;
  scaling["E"] = q.fit.E, scaling["A"] = q.fit.A, scaling["B"] = q.fit.B;
  scaling["alpha"] = q.fit.alpha, scaling["beta"] = q.fit.beta;
  const BudgetEquivalents& eq = r.budget_equivalents;
  const bool priced = q.cluster.price_per_gpu_hour_usd > 0;
  json j = {{"budget", {{"kind", to_string(q.budget)},
                        {"days", r.budget_days},
                        {"usd", r.budget_usd},
                        {"gpu_hours", q.budget == BudgetKind::money ? json(r.budget_gpu_hours) : json(nullptr)},
                        {"deadline_days", q.deadline_days > 0 ? json(q.deadline_days) : json(nullptr)},
                        {"flops", r.flops_budget},
                        {"gpus", q.cluster.num_gpus},
                        {"gpu", q.cluster.gpu},
                        {"equivalent", {{"gpu_hours", eq.gpu_hours},
                                        {"days", eq.days},
                                        {"usd", priced ? json(eq.usd) : json(nullptr)},
                                        {"flops", eq.flops}}}}},
            {"scaling", scaling},
            {"seq_len", q.seq_len},
            {"global_batch", q.global_batch},
            {"family", to_string(q.family)},
            {"plan_rule", q.budget != BudgetKind::money ? json{{"objective", "time"}}
                          : q.deadline_days > 0 ? json{{"objective", "most_tokens"}}
                          : q.explore.objective == Objective::balanced
                              ? json{{"objective", "balanced"}, {"time_slack", kBalancedSlack}}
                              : json{{"objective", "cost"}}},
            {"seconds", r.seconds},
            {"plans_simulated", r.plans_simulated}};
  if (!q.name.empty()) j["preset"] = q.name;
  if (!q.description.empty()) j["description"] = q.description;
  json flop_only = {{"params", r.flop_only.params}, {"tokens", r.flop_only.tokens}, {"loss", r.flop_only_loss}};
  if (r.flop_only_candidate >= 0) {
    flop_only["nearest_candidate"] = answer_json(r, r.flop_only_nearest);
    flop_only["training_days"] = r.flop_only_days;
    flop_only["cost_usd"] = r.flop_only_cost_usd;
    flop_only["gpu_hours"] = r.flop_only_gpu_hours;
    flop_only["mfu"] = r.flop_only_mfu;
  }
  j["flop_only"] = flop_only;
  j["achievable"] = r.achievable >= 0 ? answer_json(r, r.achievable_answer) : json(nullptr);
  json alts = json::array();
  for (const OptimalAnswer& a : r.alternative_answers) alts.push_back(answer_json(r, a));
  j["alternatives"] = alts;
  json curve = json::array();
  for (const auto& c : r.candidates) curve.push_back(candidate_json(q, c));
  j["curve"] = curve;
  return j;
}

}  // namespace vtrain
