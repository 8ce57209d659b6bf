#include "vtrain/optimal.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/divisors.hpp"
#include "common/json_reader.hpp"
#include "model/sections.hpp"
#include "search/fields.hpp"
#include "vtrain/model.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/simulate.hpp"

namespace vtrain {

using nlohmann::json;
using detail::FieldReader;
using detail::ObjectReader;

namespace {

// vTrain's third case study (Bang et al., MICRO'24): which GPT a 30-day budget on 3360 A100s
// trains best at 20 tokens per parameter.
OptimalPreset vtrain_case3() {
  const char* description = "vTrain's third case study: a 30-day budget on 3360 A100s, 20 tokens per parameter";
  const json request = json::parse(R"({
    "budget": {"days": 30},
    "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 3360, "gpus_per_node": 8, "price_per_gpu_hour_usd": 4.10},
    "seq_len": 2048,
    "global_batch": 1920,
    "family": "gpt",
    "scaling": {"tokens_per_param": 20},
    "plan": {"attention": "flash", "precision": "bf16"}
  })");
  json with_description = request;
  with_description["description"] = description;
  return {"vtrain-case3", description, with_description.dump()};
}

double round_up(double v, double m) { return std::ceil(v / m) * m; }

// `width_per_layer`: hidden size over layers, the model's aspect ratio (GPT-3: 128, Llama 2: 102).
ModelConfig candidate(ModelFamily family, int hidden, double width_per_layer, int seq_len) {
  const int heads = hidden / 128;  // head dimension 128
  const int layers = std::max(2, 2 * static_cast<int>(std::lround(hidden / width_per_layer / 2)));
  const std::string shape = "-h" + std::to_string(hidden) + "-l" + std::to_string(layers);
  if (family == ModelFamily::gpt) return gpt_model("gpt" + shape, layers, hidden, heads, 51200, seq_len);
  // Grouped-query attention with 8 KV heads from 48 heads up, as Llama 2's 70B has it.
  const int kv_heads = heads > 32 && heads % 8 == 0 ? 8 : heads;
  const int ffn_hidden = static_cast<int>(round_up(8.0 * hidden / 3.0, 256));
  return llama_model("llama" + shape, layers, hidden, heads, kv_heads, ffn_hidden, 32000, seq_len);
}

}  // namespace

const Registry<OptimalPreset>& optimal_presets() {
  static const Registry<OptimalPreset> all({vtrain_case3()});
  return all;
}

std::vector<ModelConfig> candidate_models(ModelFamily family, int seq_len, double min_params, double max_params) {
  // Hidden sizes in multiples of 256 (1024 from 4096 up, so that heads split 8 ways), about 12%
  // apart.
  std::vector<int> hidden;
  for (double h = 1024; h <= 65536; h *= 1.08) {
    const int step = h < 4096 ? 256 : 1024;
    const int v = static_cast<int>(std::lround(h / step)) * step;
    if (hidden.empty() || v > hidden.back()) hidden.push_back(v);
  }
  // Two usual aspect ratios per width; they interleave the sizes.
  std::vector<ModelConfig> out;
  for (int h : hidden) {
    for (double ratio : {128.0, 102.4}) {
      ModelConfig m = candidate(family, h, ratio, seq_len);
      const double n = count_parameters(m).total;
      bool seen = false;
      for (const auto& o : out) seen = seen || (o.hidden == m.hidden && o.layers == m.layers);
      if (!seen && n >= min_params && n <= max_params) out.push_back(m);
    }
  }
  std::sort(out.begin(), out.end(), [](const ModelConfig& a, const ModelConfig& b) {
    return count_parameters(a).total < count_parameters(b).total;
  });
  return out;
}

Outcome<OptimalRequest> parse_optimal_request(const json& input) {
  if (!input.is_object()) return Outcome<OptimalRequest>::fail("type", "", "/: the request must be a JSON object");
  OptimalRequest req;
  req.fit = hoffmann2022();
  auto from_preset = detail::request_from(input, "preset", "preset", optimal_presets(), req.name);
  if (!from_preset.ok()) return from_preset.errors();
  const json& j = from_preset.value();
  Diagnostics e;
  ObjectReader top(&j, "", e);
  FieldReader request_fields{top};
  top.read("description", req.description);
  optimal_request_fields(request_fields, req);
  {
    const json* b = top.child("budget");
    if (!b) {
      e.push_back(make_diagnostic("missing", "/budget",
                                  "is required: {\"days\": D} on the cluster, {\"gpu_days\": X}, {\"usd\": X}, "
                                  "{\"gpu_hours\": X} or {\"flops\": X}"));
    } else {
      ObjectReader r(b, "/budget", e);
      FieldReader fields{r};
      detail::BudgetAmounts amounts;
      budget_fields(fields, amounts);
      r.finish();
      const double gpu_days = amounts.gpu_days, gpu_hours = amounts.gpu_hours;
      req.days = amounts.days;
      req.usd = amounts.usd;
      req.flops = amounts.flops;
      // Counted by key, so that a bad value is reported once, as the field's own error. Days
      // beside dollars or GPU-hours are a deadline: the money must be spent within them.
      int given = 0;
      for (const char* k : {"days", "gpu_days", "usd", "gpu_hours", "flops"}) given += r.has(k);
      const bool deadline = r.has("days") && (r.has("usd") || r.has("gpu_hours"));
      if (b->is_object() && given - deadline != 1)
        e.push_back(make_diagnostic("budget", "/budget",
                                    "must give exactly one of days, gpu_days, usd, gpu_hours, flops (days may go "
                                    "beside usd or gpu_hours as a deadline)"));
      if (req.days > 0 || gpu_days > 0) req.budget = BudgetKind::time;
      if (req.usd > 0 || gpu_hours > 0) req.budget = BudgetKind::money;
      if (req.flops > 0) req.budget = BudgetKind::flops;
      if (deadline) req.deadline_days = req.days, req.days = 0;
      // Filled below, once the cluster is read.
      if (gpu_days > 0) req.days = -gpu_days;
      if (gpu_hours > 0) req.gpu_hours = gpu_hours;
    }
  }
  // The cluster and the plan's shared fields, read as simulate reads them; /cluster/num_gpus is
  // the most GPUs a plan may use, and the plan's degrees and batch are chosen per candidate.
  {
    const json* cluster = top.child("cluster");
    detail::read_cluster(cluster, req.cluster, e);
    if (!(cluster && cluster->is_object() && cluster->contains("num_gpus")))
      e.push_back(make_diagnostic("missing", "/cluster/num_gpus", "is required: the most GPUs a plan may use"));
    const json* plan = top.child("plan");
    if (plan && plan->is_object())
      for (const char* k : {"tp", "pp", "dp", "micro_batch", "global_batch", "virtual_stages"})
        if (plan->contains(k))
          e.push_back(make_diagnostic("explored", std::string("/plan/") + k,
                                      "is chosen per candidate; restrict it with /explore instead"));
    detail::read_plan(plan, req.plan, e);
    req.plan.global_batch = req.global_batch;
    if (!bundled_profiles().find(req.cluster.gpu)) e.push_back(unknown_gpu(req.cluster.gpu, "/cluster/gpu"));
  }
  {
    const json* s = top.child("scaling");
    if (s && s->is_string()) {
      const ScalingFit* f = scaling_fits().find(s->get<std::string>());
      if (f) req.fit = *f;
      else e.push_back(make_diagnostic("unknown_fit", "/scaling", "unknown fit; fits are " + scaling_fits().names_text()));
    } else if (s) {
      ObjectReader r(s, "/scaling", e);
      if (r.has("tokens_per_param")) {
        req.ratio_rule = true;
        r.read("tokens_per_param", req.tokens_per_param, 0.0, limits::tokens_per_param, true);
        std::string loss_fit = req.fit.name;
        r.read("loss_fit", loss_fit);
        if (const ScalingFit* f = scaling_fits().find(loss_fit)) req.fit = *f;
        else e.push_back(make_diagnostic("unknown_fit", "/scaling/loss_fit", "unknown fit; fits are " + scaling_fits().names_text()));
      } else {
        req.fit.name = "custom";
        req.fit.citation = "given in the request";
        FieldReader fields{r};
        scaling_fit_fields(fields, req.fit);
        for (const char* k : {"A", "B", "alpha", "beta"})
          if (!r.has(k)) e.push_back(make_diagnostic("missing", r.at(k), "is required for a custom fit (or give tokens_per_param)"));
      }
      r.finish();
    }
  }
  {
    ObjectReader r(top.child("candidates"), "/candidates", e);
    FieldReader fields{r};
    candidate_fields(fields, req);
    r.finish();
    if (req.max_params > 0 && req.min_params >= req.max_params)
      e.push_back(make_diagnostic("range", "/candidates/max_params", "must exceed /candidates/min_params"));
  }
  {
    // Each candidate's plan space, as explore reads it; the other keys of /explore are chosen
    // per candidate.
    ObjectReader r(top.child("explore"), "/explore", e);
    FieldReader fields{r};
    detail::OnlyFields candidate_space{fields, detail::candidate_space_key};
    explore_option_fields(candidate_space, req.explore);
    r.finish();
    // A money budget's plan per size: the cheapest (cost) or the cheapest near the fastest (balanced).
    if (req.explore.objective != Objective::cost && req.explore.objective != Objective::balanced)
      e.push_back(make_diagnostic("enum", "/explore/objective",
                                  std::string("must be cost or balanced (the plan each size takes against a money "
                                              "budget), got \"") + to_string(req.explore.objective) + "\""));
  }
  top.finish();
  if (!e.empty()) return e;
  // Budgets given in GPU-days or GPU-hours.
  if (req.days < 0) req.days = -req.days / req.cluster.num_gpus;
  // A budget in GPU-hours is spent like one in dollars, and the answer's costs are in dollars, so
  // both need the price.
  if (req.budget == BudgetKind::money && req.cluster.price_per_gpu_hour_usd <= 0)
    return Outcome<OptimalRequest>::fail(
        "missing", "/cluster/price_per_gpu_hour_usd",
        std::string("/cluster/price_per_gpu_hour_usd: is required for a budget in ") +
            (req.gpu_hours > 0 ? "GPU-hours (the answer's costs are in dollars)" : "dollars"));
  if (req.gpu_hours > 0) req.usd = req.gpu_hours * req.cluster.price_per_gpu_hour_usd;
  return req;
}

namespace {

// Phase 1: the budget as FLOPs at peak (what the scaling law spends), the days and dollars it
// limits, and its amount in every unit.
void convert_budget(const OptimalRequest& req, const Profile& prof, OptimalResult& res) {
  const double G = req.cluster.num_gpus;
  const double peak = prof.peak_fp16_tflops * 1e12;
  const double price = req.cluster.price_per_gpu_hour_usd;
  BudgetEquivalents& eq = res.budget_equivalents;
  switch (req.budget) {
    case BudgetKind::time:
      res.budget_days = req.days;
      res.flops_budget = req.days * 86400.0 * G * peak;
      eq.gpu_hours = req.days * 24.0 * G;
      break;
    case BudgetKind::money:
      res.budget_usd = req.usd;
      res.budget_gpu_hours = res.budget_usd / price;
      res.flops_budget = req.usd / price * 3600.0 * peak;
      eq.gpu_hours = res.budget_gpu_hours;
      if (req.deadline_days > 0) {
        // A deadline caps what the money buys at the cluster's peak as well.
        res.budget_days = req.deadline_days;
        res.flops_budget = std::min(res.flops_budget, req.deadline_days * 86400.0 * G * peak);
      }
      break;
    case BudgetKind::flops:
      res.flops_budget = req.flops;
      res.budget_days = req.flops / (G * peak) / 86400.0;
      eq.gpu_hours = req.flops / (peak * 3600.0);
      break;
  }
  eq.days = eq.gpu_hours / (24.0 * G);
  eq.usd = eq.gpu_hours * price;
  eq.flops = eq.gpu_hours * 3600.0 * peak;
}

// Phase 2: the candidate architectures around the FLOP-only optimum, or within the sizes asked.
Outcome<std::vector<ModelConfig>> candidates_for(const OptimalRequest& req, const OptimalResult& res) {
  const double lo = req.min_params > 0 ? req.min_params : res.flop_only.params / 16.0;
  const double hi = req.max_params > 0 ? req.max_params : res.flop_only.params * 1.4;
  std::vector<ModelConfig> models = candidate_models(req.family, req.seq_len, lo, hi);
  if (models.empty()) {
    if (req.min_params > 0 || req.max_params > 0)
      return Outcome<std::vector<ModelConfig>>::fail("no_candidates", "/candidates",
                                                     "/candidates: no candidate architecture lies between the sizes asked");
    // The range came from the budget: it buys a model far from the candidates' sizes.
    const std::vector<ModelConfig> all = candidate_models(req.family, req.seq_len, 0, 1e300);
    const double smallest = count_parameters(all.front()).total;
    const bool small = hi < smallest;
    auto sig3 = [](double x) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.3g", x);
      return std::string(buf);
    };
    return Outcome<std::vector<ModelConfig>>::fail(
        "no_candidates", "/budget",
        "/budget: its FLOP-only optimum, " + sig3(res.flop_only.params) + " parameters, is too " +
            (small ? "small" : "large") + " for the candidate architectures (" + sig3(smallest) + " to " +
            sig3(count_parameters(all.back()).total) + " parameters); give a " +
            (small ? "larger" : "smaller") + " budget, or /candidates/min_params and max_params");
  }
  if (models.size() > limits::optimal_candidates)
    return Outcome<std::vector<ModelConfig>>::fail(
        "too_large", "/candidates",
        "/candidates: more than " + std::to_string(limits::optimal_candidates) +
            " candidate sizes; narrow min_params and max_params");
  return models;
}

// What a plan's speed and price buy of the budget.
struct Pricing {
  const OptimalRequest& req;
  double budget_days = 0;      // (days; 0: none)
  double tokens_per_iter = 0;  // (count)
  // A plan's price per token (USD).
  double usd_per_token(int gpus, double iteration_s) const {
    return gpus * req.cluster.price_per_gpu_hour_usd * iteration_s / 3600.0 / tokens_per_iter;
  }
  // The tokens the budget buys at a price per token and a speed: money at its price (capped by a
  // deadline at its speed), or days at its speed.
  double tokens_bought(double per_token_usd, double tokens_per_s) const {
    if (req.budget != BudgetKind::money) return budget_days * 86400.0 * tokens_per_s;
    const double bought = req.usd / per_token_usd;
    return req.deadline_days > 0 ? std::min(bought, req.deadline_days * 86400.0 * tokens_per_s) : bought;
  }
};

// Phase 3: a candidate's sweep, its plans against the budget's objective.
ExploreRequest sweep_request(const OptimalRequest& req, const ModelConfig& model, double tokens_per_iter) {
  const double G = req.cluster.num_gpus;
  // Against days each size takes its fastest plan; against money its cheapest, or the cheapest
  // within the balanced slack of its fastest (/explore/objective).
  const Objective objective = req.budget == BudgetKind::money ? req.explore.objective : Objective::time;
  ExploreRequest er;
  er.config.model = model;
  er.config.cluster = req.cluster;
  er.config.plan = req.plan;
  er.config.plan.global_batch = req.global_batch;
  er.config.training.tokens = tokens_per_iter;  // one iteration: cost and time per iteration
  er.config.output.timeline = false;
  er.has_baseline = false;
  er.options = req.explore;
  er.options.objective = objective;
  if (er.options.virtual_stages.empty()) er.options.virtual_stages = {1};
  if (er.options.zero_stage.empty()) er.options.zero_stage = {1};
  if (er.options.sequence_parallel.empty()) er.options.sequence_parallel = {true};
  if (er.options.recompute.empty()) er.options.recompute = {Recompute::selective, Recompute::full};
  if (er.options.micro_batch.empty()) er.options.micro_batch = {1, 2};
  if (er.options.tp.empty())
    for (int t = 1; t <= req.cluster.gpus_per_node; t *= 2)
      if (model.heads % t == 0 && model.kv_heads % t == 0) er.options.tp.push_back(t);
  if (objective == Objective::time && er.options.dp.empty()) {
    // Against a wall-clock budget the fastest plan uses most of the GPUs: keep the replica
    // counts with which some (tp, pp) fills at least three quarters of them.
    const std::vector<int> pps = detail::divisors(model.layers);
    for (int d : detail::divisors(req.global_batch)) {
      bool fills = false;
      for (int t : er.options.tp)
        for (int pp : pps) {
          const double g = static_cast<double>(t) * pp * d;
          if (g <= G && 4 * g >= 3 * G) fills = true;
        }
      if (fills) er.options.dp.push_back(d);
    }
  }
  return er;
}

// Phase 4: listing every candidate's plans and their memory is cheap, so the pipeline blocks the
// whole sweep would simulate are added up first: explore's bound on them (4e9) then holds for the
// sweep as a whole, and a huge batch is refused before anything is simulated.
Diagnostics check_sweep_size(const std::vector<ExploreRequest>& sweeps, const OptimalRequest& req,
                             const OptimalControl& control) {
  double blocks = 0;
  size_t counted_sizes = 0;
  for (const ExploreRequest& er : sweeps) {
    ExploreControl count;
    count.threads = control.threads;
    count.count_only = true;
    // The count is part of the sweep: it may be cancelled like the rest.
    if (control.progress) count.progress = [&](double) { return control.progress(0); };
    auto counted = explore(er, count);
    if (!counted.ok() && !counted.errors().empty() && counted.errors()[0].code == "cancelled") return counted.errors();
    if (counted.ok()) blocks += counted.value().stats.blocks;
    ++counted_sizes;
    // Past the bound the answer is known: the other sizes need not be counted.
    if (blocks > req.explore.max_blocks) break;
  }
  if (blocks <= req.explore.max_blocks) return {};
  if (counted_sizes < sweeps.size())
    return {make_diagnostic("too_large", "/global_batch",
                            "the sweep's first " + std::to_string(counted_sizes) + " of " +
                                std::to_string(sweeps.size()) + " candidate sizes would already simulate " +
                                detail::describe_number(blocks) + " pipeline blocks, more than the " +
                                detail::describe_number(req.explore.max_blocks) +
                                " a sweep may; lower /global_batch, narrow /candidates/min_params and max_params, or "
                                "restrict /explore/tp, /explore/micro_batch or /explore/recompute")};
  return {make_diagnostic("too_large", "/global_batch",
                          "the sweep over " + std::to_string(sweeps.size()) + " candidate sizes would simulate " +
                              detail::describe_number(blocks) + " pipeline blocks, more than the " +
                              detail::describe_number(req.explore.max_blocks) +
                              " a sweep may; lower /global_batch, narrow /candidates/min_params and max_params, or "
                              "restrict /explore/tp, /explore/micro_batch or /explore/recompute")};
}

// Money and a deadline: the plan that trains the most tokens within both, the cheaper of equals.
// Tokens a plan buys: the money's at its price per token, capped by its speed.
int most_tokens_within(const ExploreResult& ex, const Pricing& pricing) {
  int best = -1;
  double most = 0;
  for (int k = 0; k < static_cast<int>(ex.plans.size()); ++k) {
    const PlanEstimate& e = ex.plans[k];
    if (!e.feasible() || !(e.iteration_time_s > 0)) continue;
    const double tokens = pricing.tokens_bought(pricing.usd_per_token(e.num_gpus, e.iteration_time_s),
                                                pricing.tokens_per_iter / e.iteration_time_s);
    const bool more = tokens > most * (1 + 1e-12);
    const bool cheaper_equal =
        best >= 0 && !more && tokens >= most * (1 - 1e-12) && e.gpu_hours < ex.plans[best].gpu_hours;
    if (best < 0 || more || cheaper_equal) {
      most = std::max(most, tokens);
      best = k;
    }
  }
  return best;
}

// Phase 5: one candidate from its sweep: its best plan, simulated again for its work per token,
// and what the budget buys of it in both views.
CandidateResult size_candidate(const ModelConfig& model, const ExploreRequest& er, const ExploreResult* swept,
                               const Pricing& pricing, const Profile& prof, const OptimalResult& res) {
  const OptimalRequest& req = pricing.req;
  const double tokens_per_iter = pricing.tokens_per_iter;
  CandidateResult c;
  c.model = model;
  c.params = count_parameters(c.model).total;
  // A candidate with no valid plan (e.g. a batch no plan divides) is simply not trainable here.
  const int best = !swept                                                      ? -1
                   : req.budget == BudgetKind::money && req.deadline_days > 0 ? most_tokens_within(*swept, pricing)
                                                                              : swept->best;
  if (best >= 0) {
    c.has_plan = true;
    c.plan = swept->plans[best];
    SimConfig sc = er.config;
    sc.plan = c.plan.plan;
    sc.cluster.num_gpus = c.plan.num_gpus;
    auto sim = simulate(sc, &prof);
    if (sim.ok()) {
      const SimResult& r = sim.value();
      c.iteration_time_s = r.iteration_time_s;
      c.flops_per_token = r.model_flops_per_iteration / tokens_per_iter;
      c.recompute_flops_per_token = (r.hardware_flops_per_iteration - r.model_flops_per_iteration) / tokens_per_iter;
      c.tokens_per_s = tokens_per_iter / r.iteration_time_s;
      c.usd_per_token = pricing.usd_per_token(c.plan.num_gpus, r.iteration_time_s);
    } else {
      c.has_plan = false;
    }
  }
  // FLOP-only view of this size: the tokens the budget buys at peak, and their real cost.
  c.tokens_flop_only = res.flops_budget / (6.0 * c.params);
  c.loss_flop_only = loss(req.fit, c.params, c.tokens_flop_only);
  if (req.ratio_rule) {
    c.tokens_at_ratio = req.tokens_per_param * c.params;
    c.loss_at_ratio = loss(req.fit, c.params, c.tokens_at_ratio);
  }
  if (c.has_plan) {
    c.days_flop_only = c.tokens_flop_only / c.tokens_per_s / 86400.0;
    c.cost_flop_only_usd = c.tokens_flop_only * c.usd_per_token;
    // Achievable view: the tokens the budget buys at this plan's real speed or price.
    c.tokens_achievable = pricing.tokens_bought(c.usd_per_token, c.tokens_per_s);
    c.days_achievable = c.tokens_achievable / c.tokens_per_s / 86400.0;
    c.cost_achievable_usd = c.tokens_achievable * c.usd_per_token;
    c.loss_achievable = loss(req.fit, c.params, c.tokens_achievable);
    c.within_budget_ratio = c.tokens_achievable >= req.tokens_per_param * c.params;
    if (req.ratio_rule) {
      c.days_at_ratio = c.tokens_at_ratio / c.tokens_per_s / 86400.0;
      c.cost_at_ratio_usd = c.tokens_at_ratio * c.usd_per_token;
    }
  }
  return c;
}

// Phase 6: the candidate nearest the FLOP-only optimum (which shows what that answer really
// costs), the achievable optimum and the next best: lowest loss within the budget, or with a
// fixed ratio the largest models whose ratio x N tokens fit in it.
void rank_candidates(OptimalResult& res) {
  const OptimalRequest& req = res.request;
  double best_gap = 1e300;
  for (size_t i = 0; i < res.candidates.size(); ++i) {
    const double gap = std::abs(std::log(res.candidates[i].params / res.flop_only.params));
    if (res.candidates[i].has_plan && gap < best_gap) best_gap = gap, res.flop_only_candidate = static_cast<int>(i);
  }
  std::vector<int> order;
  for (size_t i = 0; i < res.candidates.size(); ++i) {
    const CandidateResult& c = res.candidates[i];
    if (c.has_plan && (!req.ratio_rule || c.within_budget_ratio)) order.push_back(static_cast<int>(i));
  }
  std::sort(order.begin(), order.end(), [&](int a, int b) {
    const CandidateResult &x = res.candidates[a], &y = res.candidates[b];
    if (req.ratio_rule) return x.params > y.params;
    return x.loss_achievable < y.loss_achievable;
  });
  if (!order.empty()) {
    res.achievable = order.front();
    for (size_t i = 1; i < order.size() && i <= 4; ++i) res.alternatives.push_back(order[i]);
  }
}

// Candidate i trained on `tokens`, at its plan.
OptimalAnswer answer(const OptimalResult& res, int i, double tokens) {
  const CandidateResult& c = res.candidates[i];
  OptimalAnswer a;
  a.candidate = i;
  a.params = c.params;
  a.tokens = tokens;
  a.loss = loss(res.request.fit, a.params, tokens);
  if (c.has_plan) {
    a.training_days = tokens / c.tokens_per_s / 86400.0;
    a.cost_usd = tokens * c.usd_per_token;
    a.gpu_hours = tokens * c.usd_per_token / std::max(1e-300, res.request.cluster.price_per_gpu_hour_usd);
  }
  return a;
}

// Phase 7: the answers: the FLOP-only one at its nearest candidate, the achievable one and the next best.
void fill_answers(OptimalResult& res) {
  const OptimalRequest& q = res.request;
  if (res.flop_only_candidate >= 0) {
    const CandidateResult& c = res.candidates[res.flop_only_candidate];
    res.flop_only_nearest =
        answer(res, res.flop_only_candidate, res.flop_only.tokens * res.flop_only.params / c.params);
    res.flop_only_days = res.flop_only.tokens / c.tokens_per_s / 86400.0;
    res.flop_only_cost_usd = res.flop_only.tokens * c.usd_per_token;
    res.flop_only_gpu_hours = res.flop_only_cost_usd / std::max(1e-300, q.cluster.price_per_gpu_hour_usd);
    res.flop_only_mfu = c.plan.mfu;
  }
  const auto tokens_of = [&](int i) {
    const CandidateResult& c = res.candidates[i];
    return q.ratio_rule ? q.tokens_per_param * c.params : c.tokens_achievable;
  };
  if (res.achievable >= 0) res.achievable_answer = answer(res, res.achievable, tokens_of(res.achievable));
  for (int i : res.alternatives) res.alternative_answers.push_back(answer(res, i, tokens_of(i)));
}

}  // namespace

Outcome<OptimalResult> optimal(const OptimalRequest& req, const OptimalControl& control) {
  const auto t0 = std::chrono::steady_clock::now();
  const Profile* prof = bundled_profiles().find(req.cluster.gpu);
  if (!prof) return Diagnostics{unknown_gpu(req.cluster.gpu, "/cluster/gpu")};
  OptimalResult res;
  res.request = req;
  convert_budget(req, *prof, res);
  res.flop_only = req.ratio_rule ? compute_optimal_ratio(req.tokens_per_param, res.flops_budget)
                                 : compute_optimal(req.fit, res.flops_budget);
  res.flop_only_loss = loss(req.fit, res.flop_only.params, res.flop_only.tokens);

  auto models = candidates_for(req, res);
  if (!models.ok()) return models.errors();
  const Pricing pricing{req, res.budget_days, static_cast<double>(req.global_batch) * req.seq_len};
  std::vector<ExploreRequest> sweeps;
  for (const ModelConfig& m : models.value()) sweeps.push_back(sweep_request(req, m, pricing.tokens_per_iter));
  if (Diagnostics too_large = check_sweep_size(sweeps, req, control); !too_large.empty()) return too_large;

  const size_t n = sweeps.size();
  for (size_t i = 0; i < n; ++i) {
    ExploreRequest& er = sweeps[i];
    er.options.max_blocks = 1e300;  // the sweep as a whole was held to the bound above
    ExploreControl ec;
    ec.threads = control.threads;
    const double base = static_cast<double>(i) / n, span = 1.0 / n;
    if (control.progress) ec.progress = [&](double f) { return control.progress(base + span * f); };
    auto swept = explore(er, ec);
    if (!swept.ok() && swept.errors().front().code == "cancelled") return swept.errors();
    if (swept.ok()) res.plans_simulated += swept.value().stats.simulated;
    res.candidates.push_back(
        size_candidate(models.value()[i], er, swept.ok() ? &swept.value() : nullptr, pricing, *prof, res));
  }
  rank_candidates(res);
  fill_answers(res);
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace vtrain
