// The JSON form of explore's answer (vtrain/explore.hpp): every number is copied from the result.

#include <cmath>

#include <nlohmann/json.hpp>

#include "vtrain/explore.hpp"

namespace vtrain {

using nlohmann::json;

json to_json(const PlanEstimate& e) {
  const PlanConfig& p = e.plan;
  json j{{"tp", p.tp},
         {"pp", p.pp},
         {"dp", p.dp},
         {"virtual_stages", p.virtual_stages},
         {"micro_batch", p.micro_batch},
         {"recompute", to_string(p.recompute)},
         {"sequence_parallel", p.sequence_parallel},
         {"zero_stage", p.zero_stage},
         {"num_gpus", e.num_gpus},
         {"iteration_time_s", nullptr},
         {"training_days", nullptr},
         {"expected_days", nullptr},
         {"gpu_hours", nullptr},
         {"cost_usd", nullptr},
         {"energy_MWh", nullptr},
         {"mfu", nullptr},
         {"memory_GiB", e.memory_GiB},
         {"fits_in_memory", e.fits_in_memory},
         {"within_gpu_limit", e.within_gpu_limit},
         {"simulated", e.simulated},
         {"feasible", e.feasible()},
         {"pareto", e.pareto}};
  if (p.shard_group != 0) j["shard_group"] = p.shard_group;
  if (p.ep != 1) j["ep"] = p.ep;
  if (p.etp != 0) j["etp"] = p.etp;
  if (p.cp != 1) j["cp"] = p.cp;  // context parallelism, where the plan has it
  if (e.simulated) {
    j["iteration_time_s"] = e.iteration_time_s;
    j["training_days"] = e.training_days;
    if (std::isfinite(e.expected_days)) j["expected_days"] = e.expected_days;
    j["gpu_hours"] = e.gpu_hours;
    j["cost_usd"] = e.cost_usd;
    j["energy_MWh"] = e.energy_MWh;
    j["mfu"] = e.mfu;
  }
  return j;
}

json to_json(const ExploreResult& r) {
  const SimConfig& c = r.request.config;
  auto plan_json = [&](int i) -> json {
    if (i < 0) return nullptr;
    json j = to_json(r.plans[i]);
    if (!r.energy_known) j["energy_MWh"] = nullptr;
    if (!r.priced) j["cost_usd"] = nullptr;
    return j;
  };
  auto indexed = [&](int i) -> json {
    json j = plan_json(i);
    if (i >= 0) j["index"] = i;
    return j;
  };
  json plans = json::array();
  for (int i = 0; i < static_cast<int>(r.plans.size()); ++i) plans.push_back(plan_json(i));
  json pareto = json::array();
  for (int i : r.pareto) pareto.push_back(indexed(i));
  const ExploreOptions& o = r.request.options;
  json question{{"model", c.model.name},
                {"parameters", r.parameters},
                {"tokens", c.training.tokens},
                {"global_batch", c.plan.global_batch},
                {"seq_len", c.model.seq_len},
                {"gpu", c.cluster.gpu},
                {"max_gpus", c.cluster.num_gpus},
                {"gpus_per_node", c.cluster.gpus_per_node},
                {"price_per_gpu_hour_usd", c.cluster.price_per_gpu_hour_usd},
                {"objective", to_string(o.objective)},
                {"deadline_days", o.objective == Objective::deadline ? json(o.deadline_days) : json(nullptr)}};
  if (o.objective == Objective::balanced) question["time_slack"] = kBalancedSlack;
  if (!r.request.name.empty()) question["case"] = r.request.name;
  const ExploreStats& s = r.stats;
  return json{{"question", question},
              {"plans", plans},
              {"pareto", pareto},
              {"best_time", indexed(r.best_time)},
              {"best_cost", indexed(r.best_cost)},
              {"best", indexed(r.best)},
              {"baseline", indexed(r.baseline)},
              {"stats",
               {{"plans", s.plans},
                {"within_gpu_limit", s.within_gpu_limit},
                {"fit", s.fit},
                {"simulated", s.simulated},
                {"feasible", s.feasible},
                {"skipped_invalid", s.skipped_invalid},
                {"pipeline_blocks", s.blocks},
                {"pipelines_run", s.pipelines_run},
                {"pipelines_reused", s.pipelines_reused},
                {"threads", s.threads},
                {"seconds", s.seconds}}}};
}

}  // namespace vtrain
