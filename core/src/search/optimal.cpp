#include "vtrain/optimal.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "common/json_reader.hpp"
#include "vtrain/model.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/simulate.hpp"

namespace vtrain {

using nlohmann::json;
using detail::ObjectReader;

namespace {

struct NamedPreset {
  std::string name;
  json request;
};

const std::vector<NamedPreset>& presets() {
  static const std::vector<NamedPreset> p = {
      {"vtrain-case3",
       json::parse(R"({
         "description": "vTrain's third case study: a 30-day budget on 3360 A100s, 20 tokens per parameter",
         "budget": {"days": 30},
         "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 3360, "gpus_per_node": 8, "price_per_gpu_hour_usd": 4.10},
         "seq_len": 2048,
         "global_batch": 1920,
         "family": "gpt",
         "scaling": {"tokens_per_param": 20},
         "plan": {"attention": "flash", "precision": "bf16"}
       })")}};
  return p;
}

double round_up(double v, double m) { return std::ceil(v / m) * m; }

// `width_per_layer`: hidden size over layers, the model's aspect ratio (GPT-3: 128, Llama 2: 102).
ModelConfig candidate(ModelFamily family, int hidden, double width_per_layer, int seq_len) {
  ModelConfig m;
  m.hidden = hidden;
  m.heads = hidden / 128;  // head dimension 128
  m.seq_len = seq_len;
  if (family == ModelFamily::gpt) {
    m.name = "gpt-h" + std::to_string(hidden);
    m.layers = std::max(2, 2 * static_cast<int>(std::lround(hidden / width_per_layer / 2)));
    m.kv_heads = m.heads;
    m.ffn_hidden = 4 * hidden;
    m.vocab = 51200;
    m.mlp = Mlp::gelu;
    m.tied_embeddings = true;
    m.norm = Norm::layernorm;
    m.position = PositionEmbedding::learned;
    m.bias = true;
  } else {
    m.name = "llama-h" + std::to_string(hidden);
    m.layers = std::max(2, 2 * static_cast<int>(std::lround(hidden / width_per_layer / 2)));
    m.kv_heads = m.heads > 32 && m.heads % 8 == 0 ? 8 : m.heads;
    m.ffn_hidden = static_cast<int>(round_up(8.0 * hidden / 3.0, 256));
    m.vocab = 32000;
    m.mlp = Mlp::swiglu;
    m.tied_embeddings = false;
    m.norm = Norm::rmsnorm;
    m.position = PositionEmbedding::rope;
    m.bias = false;
  }
  m.name += "-l" + std::to_string(m.layers);
  return m;
}

const char* to_string(BudgetKind k) {
  switch (k) {
    case BudgetKind::time: return "time";
    case BudgetKind::money: return "money";
    case BudgetKind::flops: return "flops";
  }
  return "time";
}

}  // namespace

std::vector<std::string> optimal_preset_names() {
  std::vector<std::string> n;
  for (const auto& p : presets()) n.push_back(p.name);
  return n;
}

const json* find_optimal_preset(const std::string& name) {
  for (const auto& p : presets())
    if (p.name == name) return &p.request;
  return nullptr;
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
  json j = input;
  if (j.contains("preset")) {
    const json& name = j["preset"];
    const json* preset = name.is_string() ? find_optimal_preset(name.get<std::string>()) : nullptr;
    if (!preset) {
      std::string known;
      for (const auto& n : optimal_preset_names()) known += (known.empty() ? "" : ", ") + n;
      return Outcome<OptimalRequest>::fail("unknown_preset", "/preset", "/preset: unknown preset; presets are " + known);
    }
    req.name = name.get<std::string>();
    json patch = j;
    patch.erase("preset");
    j = *preset;
    j.merge_patch(patch);
  }
  Diagnostics e;
  ObjectReader top(&j, "", e);
  top.read("description", req.description);
  top.read("seq_len", req.seq_len, 1, 1000000);
  top.read("global_batch", req.global_batch, 1, 100000000);
  top.read_enum("family", req.family, {{"gpt", ModelFamily::gpt}, {"llama", ModelFamily::llama}});
  {
    const json* b = top.child("budget");
    if (!b) {
      e.push_back(make_diagnostic("missing", "/budget",
                                  "is required: {\"days\": D} on the cluster, {\"gpu_days\": X}, {\"usd\": X}, "
                                  "{\"gpu_hours\": X} or {\"flops\": X}"));
    } else {
      ObjectReader r(b, "/budget", e);
      double gpu_days = 0, gpu_hours = 0;
      r.read("days", req.days, 0.0, 1e6, true);
      r.read("gpu_days", gpu_days, 0.0, 1e12, true);
      r.read("usd", req.usd, 0.0, 1e15, true);
      r.read("gpu_hours", gpu_hours, 0.0, 1e15, true);
      r.read("flops", req.flops, 0.0, 1e35, true);
      r.finish();
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
  // The cluster, read the way simulate reads it (num_gpus: the most GPUs a plan may use).
  {
    json probe = {{"model", {{"layers", 8}, {"hidden", 1024}, {"heads", 8}}},
                  {"plan", {{"global_batch", req.global_batch}}}};
    if (const json* c = top.child("cluster")) probe["cluster"] = *c;
    if (const json* p = top.child("plan")) {
      if (p->is_object()) {
        for (const char* k : {"tp", "pp", "dp", "micro_batch", "global_batch", "virtual_stages"})
          if (p->contains(k))
            e.push_back(make_diagnostic("explored", std::string("/plan/") + k,
                                        "is chosen per candidate; restrict it with /explore instead"));
        for (auto it = p->begin(); it != p->end(); ++it) probe["plan"][it.key()] = it.value();
        probe["plan"]["global_batch"] = req.global_batch;
      } else {
        e.push_back(make_diagnostic("type", "/plan", "must be an object"));
      }
    }
    int max_gpus = 0;
    if (probe.contains("cluster") && probe["cluster"].is_object() && probe["cluster"].contains("num_gpus")) {
      const json v = probe["cluster"]["num_gpus"];
      if (v.is_number_integer() && v.get<long long>() >= 1 && v.get<long long>() <= limits::num_gpus) max_gpus = v.get<int>();
      else e.push_back(make_diagnostic("range", "/cluster/num_gpus",
                                       "must be a whole number from 1 to " + std::to_string(limits::num_gpus)));
      probe["cluster"].erase("num_gpus");
    } else {
      e.push_back(make_diagnostic("missing", "/cluster/num_gpus", "is required: the most GPUs a plan may use"));
    }
    if (e.empty()) {
      auto c = parse_sim_config(probe);
      if (!c.ok()) {
        e.insert(e.end(), c.errors().begin(), c.errors().end());
      } else {
        req.cluster = c.value().cluster;
        req.cluster.num_gpus = max_gpus;
        req.plan = c.value().plan;
        if (!find_profile(req.cluster.gpu))
          e.push_back(make_diagnostic("unknown_gpu", "/cluster/gpu",
                                      "no profile named \"" + req.cluster.gpu + "\"; bundled profiles are " +
                                          bundled_profile_names()));
      }
    }
  }
  {
    const json* s = top.child("scaling");
    if (s && s->is_string()) {
      const ScalingFit* f = find_fit(s->get<std::string>());
      if (f) req.fit = *f;
      else e.push_back(make_diagnostic("unknown_fit", "/scaling", "unknown fit; fits are hoffmann2022, besiroglu2024"));
    } else if (s) {
      ObjectReader r(s, "/scaling", e);
      if (r.has("tokens_per_param")) {
        req.ratio_rule = true;
        r.read("tokens_per_param", req.tokens_per_param, 0.0, 1e6, true);
        std::string loss_fit = req.fit.name;
        r.read("loss_fit", loss_fit);
        if (const ScalingFit* f = find_fit(loss_fit)) req.fit = *f;
        else e.push_back(make_diagnostic("unknown_fit", "/scaling/loss_fit", "unknown fit; fits are hoffmann2022, besiroglu2024"));
      } else {
        req.fit.name = "custom";
        req.fit.citation = "given in the request";
        r.read("E", req.fit.E, 0.0, 100.0);
        r.read("A", req.fit.A, 0.0, 1e12, true);
        r.read("B", req.fit.B, 0.0, 1e12, true);
        r.read("alpha", req.fit.alpha, 0.0, 5.0, true);
        r.read("beta", req.fit.beta, 0.0, 5.0, true);
        for (const char* k : {"A", "B", "alpha", "beta"})
          if (!r.has(k)) e.push_back(make_diagnostic("missing", r.at(k), "is required for a custom fit (or give tokens_per_param)"));
      }
      r.finish();
    }
  }
  {
    ObjectReader r(top.child("candidates"), "/candidates", e);
    r.read("min_params", req.min_params, 0.0, 1e15);
    r.read("max_params", req.max_params, 0.0, 1e15);
    r.finish();
    if (req.max_params > 0 && req.min_params >= req.max_params)
      e.push_back(make_diagnostic("range", "/candidates/max_params", "must exceed /candidates/min_params"));
  }
  {
    ObjectReader r(top.child("explore"), "/explore", e);
    ExploreOptions& o = req.explore;
    detail::read_int_list(r, "tp", o.tp, 1, limits::tp);
    detail::read_int_list(r, "micro_batch", o.micro_batch, 1, limits::micro_batch);
    detail::read_int_list(r, "virtual_stages", o.virtual_stages, 1, limits::virtual_stages);
    detail::read_recompute_list(r, "recompute", o.recompute);
    r.read("tp_across_nodes", o.tp_across_nodes);
    // A money budget's plan per size: the cheapest (cost) or the cheapest near the fastest (balanced).
    r.read_enum("objective", o.objective, {{"cost", Objective::cost}, {"balanced", Objective::balanced}});
    r.finish();
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

Outcome<OptimalResult> optimal(const OptimalRequest& req, const OptimalControl& control) {
  const auto t0 = std::chrono::steady_clock::now();
  const Profile* prof = find_profile(req.cluster.gpu);
  if (!prof) return Outcome<OptimalResult>::fail("unknown_gpu", "/cluster/gpu", "/cluster/gpu: unknown profile");
  OptimalResult res;
  res.request = req;
  const double G = req.cluster.num_gpus;
  const double peak = prof->peak_fp16_tflops * 1e12;
  const double price = req.cluster.price_per_gpu_hour_usd;
  switch (req.budget) {
    case BudgetKind::time:
      res.budget_days = req.days;
      res.flops_budget = req.days * 86400.0 * G * peak;
      break;
    case BudgetKind::money:
      res.budget_usd = req.usd;
      res.flops_budget = req.usd / price * 3600.0 * peak;
      if (req.deadline_days > 0) {
        // A deadline caps what the money buys at the cluster's peak as well.
        res.budget_days = req.deadline_days;
        res.flops_budget = std::min(res.flops_budget, req.deadline_days * 86400.0 * G * peak);
      }
      break;
    case BudgetKind::flops:
      res.flops_budget = req.flops;
      res.budget_days = req.flops / (G * peak) / 86400.0;
      break;
  }
  res.flop_only = req.ratio_rule ? compute_optimal_ratio(req.tokens_per_param, res.flops_budget)
                                 : compute_optimal(req.fit, res.flops_budget);
  res.flop_only_loss = loss(req.fit, res.flop_only.params, res.flop_only.tokens);

  const double lo = req.min_params > 0 ? req.min_params : res.flop_only.params / 16.0;
  const double hi = req.max_params > 0 ? req.max_params : res.flop_only.params * 1.4;
  const std::vector<ModelConfig> models = candidate_models(req.family, req.seq_len, lo, hi);
  if (models.empty()) {
    if (req.min_params > 0 || req.max_params > 0)
      return Outcome<OptimalResult>::fail("no_candidates", "/candidates",
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
    return Outcome<OptimalResult>::fail(
        "range", "/budget",
        "/budget: its FLOP-only optimum, " + sig3(res.flop_only.params) + " parameters, is too " +
            (small ? "small" : "large") + " for the candidate architectures (" + sig3(smallest) + " to " +
            sig3(count_parameters(all.back()).total) + " parameters); give a " +
            (small ? "larger" : "smaller") + " budget, or /candidates/min_params and max_params");
  }
  if (models.size() > 200)
    return Outcome<OptimalResult>::fail("too_large", "/candidates",
                                        "/candidates: more than 200 candidate sizes; narrow min_params and max_params");

  const double tokens_per_iter = static_cast<double>(req.global_batch) * req.seq_len;
  // Against days each size takes its fastest plan; against money its cheapest, or the cheapest
  // within the balanced slack of its fastest (/explore/objective).
  const Objective objective = req.budget == BudgetKind::money ? req.explore.objective : Objective::time;
  // A plan's price per token, and the tokens the budget buys at a price per token and a speed:
  // money at its price (capped by a deadline at its speed), or days at its speed.
  const auto usd_per_token = [&](int gpus, double iteration_s) {
    return gpus * price * iteration_s / 3600.0 / tokens_per_iter;
  };
  const auto tokens_bought = [&](double per_token_usd, double tokens_per_s) {
    if (req.budget != BudgetKind::money) return res.budget_days * 86400.0 * tokens_per_s;
    const double bought = req.usd / per_token_usd;
    return req.deadline_days > 0 ? std::min(bought, req.deadline_days * 86400.0 * tokens_per_s) : bought;
  };
  // Each candidate's sweep: its plans against the budget's objective.
  auto sweep_request = [&](const ModelConfig& model) {
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
      std::vector<int> pps;
      for (int d = 1; d <= model.layers; ++d)
        if (model.layers % d == 0) pps.push_back(d);
      for (int d = 1; d <= req.global_batch; ++d) {
        if (req.global_batch % d != 0) continue;
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
  };
  std::vector<ExploreRequest> sweeps;
  for (const ModelConfig& m : models) sweeps.push_back(sweep_request(m));
  // Listing every candidate's plans and their memory is cheap: the pipeline blocks the whole sweep
  // would simulate are added up first, so that explore's bound on them (4e9) holds for the sweep
  // as a whole and a huge batch is refused before anything is simulated.
  double blocks = 0;
  for (const ExploreRequest& er : sweeps) {
    ExploreControl count;
    count.threads = control.threads;
    count.count_only = true;
    auto counted = explore(er, count);
    if (counted.ok()) blocks += counted.value().stats.blocks;
  }
  if (blocks > req.explore.max_blocks)
    return Outcome<OptimalResult>::fail(
        "too_large", "/global_batch",
        "/global_batch: the sweep over " + std::to_string(models.size()) + " candidate sizes would simulate " +
            detail::describe_number(blocks) + " pipeline blocks, more than the " +
            detail::describe_number(req.explore.max_blocks) +
            " a sweep may; lower /global_batch, narrow /candidates/min_params and max_params, or "
            "restrict /explore/tp, /explore/micro_batch or /explore/recompute");
  for (size_t i = 0; i < models.size(); ++i) {
    CandidateResult c;
    c.model = models[i];
    c.params = count_parameters(c.model).total;
    ExploreRequest& er = sweeps[i];
    er.options.max_blocks = 1e300;  // the sweep as a whole was held to the bound above
    ExploreControl ec;
    ec.threads = control.threads;
    const double base = static_cast<double>(i) / models.size(), span = 1.0 / models.size();
    if (control.progress) ec.progress = [&](double f) { return control.progress(base + span * f); };
    auto swept = explore(er, ec);
    if (!swept.ok()) {
      const auto& d = swept.errors().front();
      if (d.code == "cancelled") return swept.errors();
      // A candidate with no valid plan (e.g. a batch no plan divides) is simply not trainable here.
      res.candidates.push_back(c);
      continue;
    }
    const ExploreResult& ex = swept.value();
    res.plans_simulated += ex.stats.simulated;
    int best = ex.best;
    if (req.budget == BudgetKind::money && req.deadline_days > 0) {
      // Money and a deadline: the plan that trains the most tokens within both, the cheaper of
      // equals. Tokens a plan buys: the money's at its price per token, capped by its speed.
      best = -1;
      double most = 0;
      for (int k = 0; k < static_cast<int>(ex.plans.size()); ++k) {
        const PlanEstimate& e = ex.plans[k];
        if (!e.feasible() || !(e.iteration_time_s > 0)) continue;
        const double tokens = tokens_bought(usd_per_token(e.num_gpus, e.iteration_time_s),
                                            tokens_per_iter / e.iteration_time_s);
        const bool more = tokens > most * (1 + 1e-12);
        const bool cheaper_equal =
            best >= 0 && !more && tokens >= most * (1 - 1e-12) && e.gpu_hours < ex.plans[best].gpu_hours;
        if (best < 0 || more || cheaper_equal) {
          most = std::max(most, tokens);
          best = k;
        }
      }
    }
    if (best >= 0) {
      c.has_plan = true;
      c.plan = ex.plans[best];
      SimConfig sc = er.config;
      sc.plan = c.plan.plan;
      sc.cluster.num_gpus = c.plan.num_gpus;
      auto sim = simulate(sc, prof);
      if (sim.ok()) {
        const SimResult& r = sim.value();
        c.iteration_time_s = r.iteration_time_s;
        c.flops_per_token = r.model_flops_per_iteration / tokens_per_iter;
        c.recompute_flops_per_token = (r.hardware_flops_per_iteration - r.model_flops_per_iteration) / tokens_per_iter;
        c.tokens_per_s = tokens_per_iter / r.iteration_time_s;
        c.usd_per_token = usd_per_token(c.plan.num_gpus, r.iteration_time_s);
      } else {
        c.has_plan = false;
      }
    }
    // FLOP-only view of this size: the tokens the budget buys at peak, and their real cost.
    c.tokens_flop_only = res.flops_budget / (6.0 * c.params);
    c.loss_flop_only = loss(req.fit, c.params, c.tokens_flop_only);
    if (c.has_plan) {
      c.days_flop_only = c.tokens_flop_only / c.tokens_per_s / 86400.0;
      c.cost_flop_only_usd = c.tokens_flop_only * c.usd_per_token;
      // Achievable view: the tokens the budget buys at this plan's real speed or price.
      c.tokens_achievable = tokens_bought(c.usd_per_token, c.tokens_per_s);
      c.days_achievable = c.tokens_achievable / c.tokens_per_s / 86400.0;
      c.cost_achievable_usd = c.tokens_achievable * c.usd_per_token;
      c.loss_achievable = loss(req.fit, c.params, c.tokens_achievable);
      c.within_budget_ratio = c.tokens_achievable >= req.tokens_per_param * c.params;
    }
    res.candidates.push_back(c);
  }

  // The candidate nearest the FLOP-only optimum shows what that answer really costs.
  double best_gap = 1e300;
  for (size_t i = 0; i < res.candidates.size(); ++i) {
    const double gap = std::abs(std::log(res.candidates[i].params / res.flop_only.params));
    if (res.candidates[i].has_plan && gap < best_gap) best_gap = gap, res.flop_only_candidate = static_cast<int>(i);
  }
  // The achievable optimum: lowest loss within the budget, or with a fixed ratio the largest model
  // whose ratio x N tokens fit in it.
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
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

namespace {

json model_json(const ModelConfig& m) {
  json j = to_json(m);
  j["params"] = count_parameters(m).total;
  return j;
}

json candidate_json(const OptimalRequest& req, const CandidateResult& c) {
  json j = {{"model", model_json(c.model)}, {"params", c.params}, {"has_plan", c.has_plan},
            {"tokens_flop_only", c.tokens_flop_only}, {"loss_flop_only", c.loss_flop_only}};
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
    j["tokens_at_ratio"] = req.tokens_per_param * c.params;
    j["days_at_ratio"] = req.tokens_per_param * c.params / c.tokens_per_s / 86400.0;
    j["within_budget_at_ratio"] = c.within_budget_ratio;
  }
  return j;
}

// One answer card: parameters, tokens, loss, plan, days and cost.
json answer(const OptimalResult& r, const CandidateResult& c, double params, double tokens) {
  json j = candidate_json(r.request, c);
  j["params"] = params;
  j["tokens"] = tokens;
  j["loss"] = loss(r.request.fit, params, tokens);
  if (c.has_plan) {
    j["training_days"] = tokens / c.tokens_per_s / 86400.0;
    j["cost_usd"] = tokens * c.usd_per_token;
    j["gpu_hours"] = tokens * c.usd_per_token / std::max(1e-300, r.request.cluster.price_per_gpu_hour_usd);
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
  json j = {{"budget", {{"kind", to_string(q.budget)},
                        {"days", r.budget_days},
                        {"usd", r.budget_usd},
                        {"gpu_hours", q.budget == BudgetKind::money ? json(r.budget_usd / q.cluster.price_per_gpu_hour_usd) : json(nullptr)},
                        {"deadline_days", q.deadline_days > 0 ? json(q.deadline_days) : json(nullptr)},
                        {"flops", r.flops_budget},
                        {"gpus", q.cluster.num_gpus},
                        {"gpu", q.cluster.gpu}}},
            {"scaling", scaling},
            {"seq_len", q.seq_len},
            {"global_batch", q.global_batch},
            {"family", q.family == ModelFamily::gpt ? "gpt" : "llama"},
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
    const CandidateResult& c = r.candidates[r.flop_only_candidate];
    flop_only["nearest_candidate"] = answer(r, c, c.params, r.flop_only.tokens * r.flop_only.params / c.params);
    flop_only["training_days"] = r.flop_only.tokens / c.tokens_per_s / 86400.0;
    flop_only["cost_usd"] = r.flop_only.tokens * c.usd_per_token;
    flop_only["mfu"] = c.plan.mfu;
  }
  j["flop_only"] = flop_only;
  if (r.achievable >= 0) {
    const CandidateResult& c = r.candidates[r.achievable];
    const double tokens = q.ratio_rule ? q.tokens_per_param * c.params : c.tokens_achievable;
    j["achievable"] = answer(r, c, c.params, tokens);
  } else {
    j["achievable"] = nullptr;
  }
  json alts = json::array();
  for (int i : r.alternatives) {
    const CandidateResult& c = r.candidates[i];
    alts.push_back(answer(r, c, c.params, q.ratio_rule ? q.tokens_per_param * c.params : c.tokens_achievable));
  }
  j["alternatives"] = alts;
  json curve = json::array();
  for (const auto& c : r.candidates) curve.push_back(candidate_json(q, c));
  j["curve"] = curve;
  return j;
}

}  // namespace vtrain
