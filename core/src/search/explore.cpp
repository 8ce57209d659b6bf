#include "vtrain/explore.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <tuple>

#include <nlohmann/json.hpp>

#include "common/json_reader.hpp"
#include "iteration/memory.hpp"
#include "iteration/sim_scratch.hpp"
#include "vtrain/examples.hpp"
#include "vtrain/model.hpp"
#include "vtrain/simulate.hpp"

// Browsers run the WebAssembly module without threads unless it is built for them.
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
#define VTRAIN_SINGLE_THREADED 1
#else
#include <thread>
#endif

namespace vtrain {

using nlohmann::json;
using detail::ObjectReader;

const char* to_string(Objective o) {
  switch (o) {
    case Objective::time: return "time";
    case Objective::cost: return "cost";
    case Objective::deadline: return "deadline";
    case Objective::balanced: return "balanced";
  }
  return "cost";
}

namespace {

// ---------------------------------------------------------------------------------------------
// Case presets

// vTrain's first case study (Bang et al., MICRO'24, arXiv 2312.12391): MT-NLG 530B as Microsoft
// and NVIDIA trained it, (t, d, p) = (8, 12, 35) on 3360 A100s, against every (t, d, p) of the
// paper's grid. The grid is the one of the authors' published configs (config/case_study_1 of
// github.com/VIA-Research/vTrain: 3 x 14 x 7 = 294 files); 57 of its points need more than 3360
// GPUs and are listed, simulated and flagged, never ranked. The price is AWS p4d.24xlarge
// on-demand ($32.77 per hour for 8 A100s) rounded to $4.10 per GPU-hour.
json build_mt_nlg_case() {
  json j = json::parse(find_example("mt-nlg-530b")->json_text);
  j["description"] =
      "vTrain case study 1: MT-NLG 530B, 270 B tokens, global batch 1920, micro-batch 1, full "
      "recomputation, on at most 3360 A100s; the paper's (t, d, p) grid";
  j["cluster"]["num_gpus"] = 3360;
  j["cluster"]["price_per_gpu_hour_usd"] = 4.10;
  j["training"]["tokens"] = 270e9;
  j["explore"] = {{"tp", {4, 8, 16}},
                  {"dp", {1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 16, 20, 24, 30}},
                  {"pp", {3, 5, 7, 15, 21, 35, 105}},
                  {"virtual_stages", {1}},
                  {"micro_batch", {1}},
                  {"recompute", {"full"}},
                  {"sequence_parallel", {false}},
                  {"zero_stage", {0}},
                  {"simulate_unfit", true}};
  return j;
}

struct NamedCase {
  std::string name;
  json request;
};

const std::vector<NamedCase>& cases() {
  static const std::vector<NamedCase> all = {{"mt-nlg", build_mt_nlg_case()}};
  return all;
}

// ---------------------------------------------------------------------------------------------
// Request parsing

// Values given for a degree must each be usable on their own; a list is checked entry by entry.
void check_each(const std::vector<int>& values, const json* given, const std::string& ptr,
                const std::function<std::string(int)>& rule, Diagnostics& errors) {
  const bool single = given && !given->is_array();
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string broken = rule(values[i]);
    if (broken.empty()) continue;
    // The value's position in the given array (duplicates were dropped while reading).
    size_t pos = i;
    if (given && given->is_array())
      for (size_t k = 0; k < given->size(); ++k)
        if ((*given)[k].is_number() && (*given)[k].get<double>() == values[i]) {
          pos = k;
          break;
        }
    errors.push_back(make_diagnostic("divisibility", single ? ptr : ptr + "/" + std::to_string(pos),
                                     detail::describe_number(values[i]) + " " + broken));
  }
}

void parse_options(const json* j, const SimConfig& c, ExploreOptions& o, Diagnostics& errors) {
  ObjectReader r(j, "/explore", errors);
  read_int_list(r, "tp", o.tp, 1, limits::tp);
  r.read("tp_across_nodes", o.tp_across_nodes);
  read_int_list(r, "pp", o.pp, 1, limits::pp);
  read_int_list(r, "virtual_stages", o.virtual_stages, 1, limits::virtual_stages);
  read_int_list(r, "dp", o.dp, 1, limits::dp);
  read_int_list(r, "micro_batch", o.micro_batch, 1, limits::micro_batch);
  read_recompute_list(r, "recompute", o.recompute);
  read_bool_list(r, "sequence_parallel", o.sequence_parallel);
  read_int_list(r, "zero_stage", o.zero_stage, 0, 1);
  const bool objective_given = r.has("objective");
  r.read_enum("objective", o.objective,
              {{"time", Objective::time}, {"cost", Objective::cost}, {"deadline", Objective::deadline},
               {"balanced", Objective::balanced}});
  r.read("deadline_days", o.deadline_days, 0.0, 1e9, true);
  r.read("simulate_unfit", o.simulate_unfit);
  int max_plans = static_cast<int>(o.max_plans);
  r.read("max_plans", max_plans, 1, 100000000);
  o.max_plans = max_plans;
  r.read("max_blocks", o.max_blocks, 0.0, 1e15, true);
  r.finish();
  if (!r.present()) return;
  if (o.deadline_days > 0 && !objective_given) o.objective = Objective::deadline;
  if (o.objective == Objective::deadline && o.deadline_days <= 0)
    errors.push_back(make_diagnostic("missing", "/explore/deadline_days",
                                     "is required when /explore/objective is \"deadline\" (the most training "
                                     "days allowed)"));
  if (objective_given && o.objective != Objective::deadline && o.deadline_days > 0)
    errors.push_back(make_diagnostic("value", "/explore/deadline_days",
                                     std::string("applies only when /explore/objective is \"deadline\", not \"") +
                                         to_string(o.objective) + "\"; remove it or ask for the deadline"));

  const ModelConfig& m = c.model;
  const int G = c.plan.global_batch;
  auto given = [&](const char* key) { return j->contains(key) ? &(*j)[key] : nullptr; };
  check_each(o.tp, given("tp"), "/explore/tp", [&](int t) -> std::string {
    if (m.heads % t) return "does not divide /model/heads (" + std::to_string(m.heads) + ")";
    if (m.kv_heads % t) return "does not divide /model/kv_heads (" + std::to_string(m.kv_heads) + ")";
    if (m.ffn_hidden % t) return "does not divide /model/ffn_hidden (" + std::to_string(m.ffn_hidden) + ")";
    return {};
  }, errors);
  // Depths that do not divide the layers give uneven stages: tried only where asked for.
  check_each(o.pp, given("pp"), "/explore/pp", [&](int p) -> std::string {
    return p > m.layers ? "is more than /model/layers (" + std::to_string(m.layers) + ")" : std::string();
  }, errors);
  check_each(o.virtual_stages, given("virtual_stages"), "/explore/virtual_stages", [&](int v) -> std::string {
    return m.layers % v ? "does not divide /model/layers (" + std::to_string(m.layers) + ")" : std::string();
  }, errors);
  check_each(o.dp, given("dp"), "/explore/dp", [&](int d) -> std::string {
    return G % d ? "does not divide /plan/global_batch (" + std::to_string(G) + ")" : std::string();
  }, errors);
  check_each(o.micro_batch, given("micro_batch"), "/explore/micro_batch", [&](int b) -> std::string {
    return G % b ? "does not divide /plan/global_batch (" + std::to_string(G) + ")" : std::string();
  }, errors);
}

}  // namespace

std::vector<std::string> explore_case_names() {
  std::vector<std::string> names;
  for (const auto& c : cases()) names.push_back(c.name);
  return names;
}

const json* find_explore_case(const std::string& name) {
  for (const auto& c : cases())
    if (c.name == name) return &c.request;
  return nullptr;
}

Outcome<ExploreRequest> parse_explore_request(const json& input) {
  if (!input.is_object()) return Outcome<ExploreRequest>::fail("type", "", "/: the request must be a JSON object");
  ExploreRequest req;
  json j = input;
  if (j.contains("case")) {
    const json& name = j["case"];
    const json* preset = name.is_string() ? find_explore_case(name.get<std::string>()) : nullptr;
    if (!preset) {
      std::string known;
      for (const auto& n : explore_case_names()) known += (known.empty() ? "" : ", ") + n;
      return Outcome<ExploreRequest>::fail(
          name.is_string() ? "unknown_case" : "type", "/case",
          "/case: " + (name.is_string() ? "unknown case \"" + name.get<std::string>() + "\"; " : std::string()) +
              "cases are " + known);
    }
    req.name = name.get<std::string>();
    json patch = j;
    patch.erase("case");
    j = *preset;
    j.merge_patch(patch);
  }
  if (j.contains("description")) {
    if (j["description"].is_string()) req.description = j["description"].get<std::string>();
    j.erase("description");
  }

  Diagnostics errors;
  json explore_obj;
  const bool has_explore = j.contains("explore");
  if (has_explore) {
    explore_obj = j["explore"];
    j.erase("explore");
  }
  // For exploring, /cluster/num_gpus is the most GPUs a plan may use, not the baseline's count.
  int max_gpus = 0;
  const bool max_given = j.contains("cluster") && j["cluster"].is_object() && j["cluster"].contains("num_gpus");
  if (max_given) {
    const json v = j["cluster"]["num_gpus"];
    j["cluster"].erase("num_gpus");
    if (!v.is_number() || v.get<double>() != std::floor(v.get<double>()))
      errors.push_back(make_diagnostic("type", "/cluster/num_gpus", "must be a whole number (the most GPUs a plan may use)"));
    else if (v.get<double>() < 1 || v.get<double>() > limits::num_gpus)
      errors.push_back(make_diagnostic("range", "/cluster/num_gpus",
                                       "must be between 1 and " + std::to_string(limits::num_gpus) +
                                           " (the most GPUs a plan may use), got " +
                                           detail::describe_number(v.get<double>())));
    else
      max_gpus = static_cast<int>(v.get<double>());
  }
  const json* plan = j.contains("plan") ? &j["plan"] : nullptr;
  req.has_baseline = plan && plan->is_object() && (plan->contains("tp") || plan->contains("pp") || plan->contains("dp"));
  if (plan && plan->is_object() && !plan->contains("global_batch"))
    errors.push_back(make_diagnostic("missing", "/plan/global_batch",
                                     "is required: the sequences per iteration every plan trains with"));
  auto config = parse_sim_config(j);
  if (!config.ok()) {
    errors.insert(errors.end(), config.errors().begin(), config.errors().end());
    return errors;
  }
  req.config = config.value();
  if (!max_given && !req.has_baseline)
    errors.push_back(make_diagnostic("missing", "/cluster/num_gpus", "is required: the most GPUs a plan may use"));
  if (max_given) req.config.cluster.num_gpus = max_gpus;
  if (req.config.training.tokens <= 0)
    errors.push_back(make_diagnostic("missing", "/training/tokens",
                                     "is required: the tokens to train on give each plan's days and cost"));
  if (!find_profile(req.config.cluster.gpu))
    errors.push_back(make_diagnostic("unknown_gpu", "/cluster/gpu",
                                     "no profile named \"" + req.config.cluster.gpu + "\"; bundled profiles are " +
                                         bundled_profile_names()));
  parse_options(has_explore ? &explore_obj : nullptr, req.config, req.options, errors);
  if (!errors.empty()) return errors;
  return req;
}

// ---------------------------------------------------------------------------------------------
// The sweep

namespace {

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int d = 1; static_cast<long long>(d) * d <= n; ++d) {
    if (n % d) continue;
    out.push_back(d);
    if (d != n / d) out.push_back(n / d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Plans that differ only in recompute and ZeRO stage: evaluated together, in this order, so that
// those running the same pipeline follow each other and share it.
struct Unit {
  int first = 0;       // index of its first plan
  int count = 0;       // plans (count)
  int pp = 1, virtual_stages = 1, micro_batches = 1;  // the pipeline's shape
  double work = 0;     // estimated cost, in pipeline blocks plus a constant per plan
};

// The value list of one degree, the given one or every valid value.
template <class T>
std::vector<T> or_default(const std::vector<T>& given, std::vector<T> all) {
  return given.empty() ? all : given;
}

// Runs body(item, thread) for every item on `threads` threads, the calling thread being thread 0;
// items are taken in order. Between items the calling thread reports the fraction of the work
// done when it has grown by `step` since the last report; a false answer stops the sweep.
// Returns false when cancelled.
bool for_each_item(int items, int threads, const std::vector<double>& work,
                   const std::function<void(int, int)>& body,
                   const std::function<bool(double)>& progress, double step) {
  double total = 0;
  for (double w : work) total += w;
  std::atomic<int> next{0};
  std::atomic<long long> done{0};  // work done, in 1/1024 units
  std::atomic<bool> stop{false};
  auto worker = [&](int thread, bool report) {
    double last_reported = -1;
    for (;;) {
      if (stop.load(std::memory_order_relaxed)) return;
      const int i = next.fetch_add(1);
      if (i >= items) return;
      body(i, thread);
      done.fetch_add(static_cast<long long>(work[i] * 1024));
      if (report && progress) {
        const double fraction = total > 0 ? std::min(1.0, done.load() / 1024.0 / total) : 1.0;
        if (fraction - last_reported >= step) {
          last_reported = fraction;
          if (!progress(fraction)) stop = true;
        }
      }
    }
  };
#ifdef VTRAIN_SINGLE_THREADED
  (void)threads;
  worker(0, true);
#else
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t, false);
  worker(0, true);
  for (auto& th : pool) th.join();
#endif
  if (stop.load()) return false;
  return !progress || progress(1.0);
}

// Peak memory per GPU of a plan, as simulate() computes it (GiB).
double plan_memory_GiB(const ModelConfig& m, const PlanConfig& p, const Profile& prof) {
  const std::vector<double> local = detail::stage_local_parameters(m, p);
  double worst = -1;
  for (const MemoryBreakdown& mb : detail::stage_memory(m, p, prof, local)) worst = std::max(worst, mb.total());
  return worst;
}

void fill_from(PlanEstimate& e, const SimResult& r) {
  e.simulated = true;
  e.iteration_time_s = r.iteration_time_s;
  e.training_days = r.training_days;
  e.gpu_hours = r.gpu_hours;
  e.cost_usd = r.cost_usd;
  e.energy_MWh = r.energy_MWh;
  e.mfu = r.mfu;
  e.memory_GiB = r.memory.total();
  e.fits_in_memory = r.fits_in_memory;
}

}  // namespace

std::vector<int> pareto_frontier(const std::vector<PlanEstimate>& plans) {
  std::vector<int> feasible;
  for (int i = 0; i < static_cast<int>(plans.size()); ++i)
    if (plans[i].feasible()) feasible.push_back(i);
  std::sort(feasible.begin(), feasible.end(), [&](int a, int b) {
    if (plans[a].training_days != plans[b].training_days) return plans[a].training_days < plans[b].training_days;
    if (plans[a].gpu_hours != plans[b].gpu_hours) return plans[a].gpu_hours < plans[b].gpu_hours;
    return a < b;
  });
  // Sweep by days: a plan is on the frontier when it is the cheapest of its days and cheaper than
  // every faster plan. Equal plans are all on it.
  std::vector<int> frontier;
  double cheapest_before = INFINITY;
  for (size_t g = 0; g < feasible.size();) {
    size_t h = g;
    double group_min = INFINITY;
    while (h < feasible.size() && plans[feasible[h]].training_days == plans[feasible[g]].training_days) {
      group_min = std::min(group_min, plans[feasible[h]].gpu_hours);
      ++h;
    }
    for (size_t k = g; k < h; ++k) {
      const PlanEstimate& e = plans[feasible[k]];
      if (e.gpu_hours == group_min && e.gpu_hours < cheapest_before) frontier.push_back(feasible[k]);
    }
    cheapest_before = std::min(cheapest_before, group_min);
    g = h;
  }
  return frontier;
}

namespace {

// Whether plan a ranks before b for fewest days (then cost, then enumeration order).
bool faster(const PlanEstimate& a, int ia, const PlanEstimate& b, int ib) {
  if (a.training_days != b.training_days) return a.training_days < b.training_days;
  if (a.gpu_hours != b.gpu_hours) return a.gpu_hours < b.gpu_hours;
  return ia < ib;
}

// Whether plan a ranks before b for lowest cost (then days, then enumeration order). Cost is
// ranked by GPU-hours, which it equals times the price, so a price of 0 still ranks plans.
bool cheaper(const PlanEstimate& a, int ia, const PlanEstimate& b, int ib) {
  if (a.gpu_hours != b.gpu_hours) return a.gpu_hours < b.gpu_hours;
  if (a.training_days != b.training_days) return a.training_days < b.training_days;
  return ia < ib;
}

void rank(ExploreResult& res) {
  auto& plans = res.plans;
  res.pareto = pareto_frontier(plans);
  for (int i : res.pareto) plans[i].pareto = true;
  std::vector<int> feasible;
  for (int i = 0; i < static_cast<int>(plans.size()); ++i)
    if (plans[i].feasible()) feasible.push_back(i);
  for (int i : feasible) {
    if (res.best_time < 0 || faster(plans[i], i, plans[res.best_time], res.best_time)) res.best_time = i;
    if (res.best_cost < 0 || cheaper(plans[i], i, plans[res.best_cost], res.best_cost)) res.best_cost = i;
  }
  const ExploreOptions& o = res.request.options;
  if (o.objective == Objective::time) {
    res.best = res.best_time;
  } else if (o.objective == Objective::cost) {
    res.best = res.best_cost;
  } else {
    // A deadline: the one given, or for balanced the fastest plan's days and the slack.
    const double limit = o.objective == Objective::deadline
                             ? o.deadline_days
                             : (res.best_time >= 0 ? plans[res.best_time].training_days * (1 + kBalancedSlack) : 0);
    for (int i : feasible)
      if (plans[i].training_days <= limit && (res.best < 0 || cheaper(plans[i], i, plans[res.best], res.best)))
        res.best = i;
  }
}

}  // namespace

Outcome<ExploreResult> explore(const ExploreRequest& request, const ExploreControl& control) {
  const auto t0 = std::chrono::steady_clock::now();
  const Profile* prof = find_profile(request.config.cluster.gpu);
  if (!prof)
    return Outcome<ExploreResult>::fail("unknown_gpu", "/cluster/gpu",
                                        "/cluster/gpu: no profile named \"" + request.config.cluster.gpu + "\"");
  const ExploreOptions& o = request.options;
  const ModelConfig& m = request.config.model;
  const PlanConfig& base = request.config.plan;
  const int max_gpus = request.config.cluster.num_gpus;
  const int gpn = request.config.cluster.gpus_per_node;
  const int G = base.global_batch, L = m.layers;

  ExploreResult res;
  res.request = request;

  // Enumerate, in (tp, sequence parallel, micro-batch, pp, virtual stages, dp) units whose plans
  // differ in recompute and ZeRO stage only.
  std::vector<int> tp_all;
  for (int t : divisors(m.heads))
    if (m.kv_heads % t == 0 && m.ffn_hidden % t == 0 && t <= max_gpus && (t <= gpn || o.tp_across_nodes))
      tp_all.push_back(t);
  const std::vector<int> tps = or_default(o.tp, tp_all);
  const std::vector<int> pps = or_default(o.pp, divisors(L));
  const std::vector<int> mbs = or_default(o.micro_batch, divisors(G));
  const std::vector<Recompute> recs =
      or_default(o.recompute, {Recompute::none, Recompute::selective, Recompute::full});
  // A degree of 1 makes sequence parallelism and ZeRO-1 no-ops: one plan stands for both values.
  auto sps_for = [&](int tp) {
    std::vector<bool> all = or_default(o.sequence_parallel, {false, true});
    if (tp > 1) return all;
    return std::vector<bool>{std::find(all.begin(), all.end(), false) != all.end() ? false : all.front()};
  };
  auto zeros_for = [&](int dp) {
    std::vector<int> all = or_default(o.zero_stage, {0, 1});
    if (dp > 1) return all;
    return std::vector<int>{std::find(all.begin(), all.end(), 0) != all.end() ? 0 : all.front()};
  };

  std::vector<Unit> units;
  auto& plans = res.plans;
  SimConfig candidate = request.config;
  for (int tp : tps) {
    for (bool sp : sps_for(tp)) {
      for (int mb : mbs) {
        for (int pp : pps) {
          std::vector<int> vs = o.virtual_stages;
          if (vs.empty()) {
            vs.push_back(1);
            if (pp > 1)
              for (int v : divisors(L / pp))
                if (v > 1) vs.push_back(v);
          }
          std::vector<int> dps = o.dp;
          if (dps.empty())
            for (int d : divisors(G))
              if (static_cast<long long>(tp) * pp * d <= max_gpus) dps.push_back(d);
          for (int v : vs) {
            if ((v > 1 && L % (static_cast<long long>(pp) * v) != 0) || (v > 1 && pp == 1) || pp > L) continue;
            for (int dp : dps) {
              if (G % (static_cast<long long>(dp) * mb) != 0) continue;
              const int M = G / (dp * mb);
              if (v > 1 && M % pp != 0) continue;
              Unit u;
              u.first = static_cast<int>(plans.size());
              u.pp = pp;
              u.virtual_stages = v;
              u.micro_batches = M;
              for (Recompute rc : recs) {
                for (int z : zeros_for(dp)) {
                  PlanEstimate e;
                  e.plan = base;
                  e.plan.tp = tp;
                  e.plan.pp = pp;
                  e.plan.dp = dp;
                  e.plan.micro_batch = mb;
                  e.plan.virtual_stages = v;
                  e.plan.recompute = rc;
                  e.plan.sequence_parallel = sp;
                  e.plan.zero_stage = z;
                  e.num_gpus = tp * pp * dp;
                  e.within_gpu_limit = e.num_gpus <= max_gpus;
                  candidate.plan = e.plan;
                  candidate.cluster.num_gpus = e.num_gpus;
                  if (!check_sim_config(candidate).empty()) continue;  // a rule the loops above miss
                  plans.push_back(e);
                }
              }
              u.count = static_cast<int>(plans.size()) - u.first;
              if (u.count > 0) units.push_back(u);
              if (static_cast<long long>(plans.size()) > o.max_plans) {
                return Outcome<ExploreResult>::fail(
                    "too_large", "/explore",
                    "/explore: the space holds more than " + std::to_string(o.max_plans) +
                        " plans (/explore/max_plans); restrict it with /explore/tp, /pp, /dp, /micro_batch, "
                        "/virtual_stages, /recompute, /sequence_parallel or /zero_stage");
              }
            }
          }
        }
      }
    }
  }
  if (plans.empty()) {
    return Outcome<ExploreResult>::fail(
        "no_plan", "/explore",
        "/explore: no valid plan: no combination of the allowed degrees divides /model/layers (" +
            std::to_string(L) + ") and /plan/global_batch (" + std::to_string(G) + ") within /cluster/num_gpus (" +
            std::to_string(max_gpus) + ")");
  }

  // Memory first (cheap): it decides which plans are simulated and bounds the work.
  int threads = std::max(1, control.threads);
#ifdef VTRAIN_SINGLE_THREADED
  threads = 1;
#endif
  std::vector<double> memory_work(units.size());
  for (size_t i = 0; i < units.size(); ++i) memory_work[i] = units[i].count;
  auto memory_body = [&](int i, int) {
    for (int k = units[i].first; k < units[i].first + units[i].count; ++k) {
      PlanEstimate& e = plans[k];
      e.memory_GiB = plan_memory_GiB(m, e.plan, *prof);
      e.fits_in_memory = e.memory_GiB <= prof->hbm_GiB;
    }
  };
  // Memory is a small part of the sweep: progress reports it as the first 5%. Reports come every
  // half percent of the whole.
  auto scaled = [&](double lo, double hi) {
    return control.progress ? std::function<bool(double)>([&, lo, hi](double f) { return control.progress(lo + (hi - lo) * f); })
                            : std::function<bool(double)>();
  };
  if (!for_each_item(static_cast<int>(units.size()), threads, memory_work, memory_body, scaled(0.0, 0.05), 0.1))
    return Outcome<ExploreResult>::fail("cancelled", "", "/: the sweep was cancelled");

  double blocks = 0;
  for (Unit& u : units) {
    u.work = 0;
    for (int k = u.first; k < u.first + u.count; ++k) {
      const PlanEstimate& e = plans[k];
      if (!e.fits_in_memory && !o.simulate_unfit) continue;
      const double b = 2.0 * e.plan.pp * e.plan.virtual_stages * (G / (e.plan.dp * e.plan.micro_batch));
      u.work += b + 200;  // a plan's fixed cost is worth about 200 blocks
      blocks += b;
    }
  }
  if (control.count_only) {
    res.stats.plans = static_cast<long long>(plans.size());
    res.stats.blocks = blocks;
    return res;
  }
  if (blocks > o.max_blocks) {
    return Outcome<ExploreResult>::fail(
        "too_large", "/explore",
        "/explore: the sweep would simulate " + detail::describe_number(blocks) +
            " pipeline blocks, more than /explore/max_blocks (" + detail::describe_number(o.max_blocks) +
            "); restrict the space (/explore/tp, /pp, /dp, /micro_batch, /virtual_stages, ...)");
  }

  // Units of one pipeline shape run on one thread in a row: they share its block order.
  std::vector<int> by_shape(units.size());
  for (size_t i = 0; i < units.size(); ++i) by_shape[i] = static_cast<int>(i);
  auto shape = [&](int i) { return std::tuple(units[i].pp, units[i].virtual_stages, units[i].micro_batches); };
  std::stable_sort(by_shape.begin(), by_shape.end(), [&](int a, int b) { return shape(a) < shape(b); });
  std::vector<std::vector<int>> groups;
  std::vector<double> sim_work;
  for (size_t k = 0; k < by_shape.size(); ++k) {
    if (k == 0 || shape(by_shape[k]) != shape(by_shape[k - 1])) {
      groups.emplace_back();
      sim_work.push_back(0);
    }
    groups.back().push_back(by_shape[k]);
    sim_work.back() += units[by_shape[k]].work;
  }
  // Largest first, so that no thread is left with a large group at the end.
  std::vector<int> group_order(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) group_order[g] = static_cast<int>(g);
  std::stable_sort(group_order.begin(), group_order.end(), [&](int a, int b) { return sim_work[a] > sim_work[b]; });
  std::vector<double> ordered_work;
  for (int g : group_order) ordered_work.push_back(sim_work[g]);

  std::vector<std::unique_ptr<SimScratch>> scratch;
  for (int t = 0; t < threads; ++t) scratch.push_back(std::make_unique<SimScratch>());
  std::vector<Diagnostics> failures(threads);
  auto sim_body = [&](int item, int thread) {
    SimConfig c = request.config;
    c.output.timeline = false;
    for (int i : groups[group_order[item]]) {
      for (int k = units[i].first; k < units[i].first + units[i].count; ++k) {
        PlanEstimate& e = plans[k];
        if (!e.fits_in_memory && !o.simulate_unfit) continue;
        c.plan = e.plan;
        c.cluster.num_gpus = e.num_gpus;
        try {
          auto r = simulate(c, prof, scratch[thread].get());
          if (r.ok()) fill_from(e, r.value());
          else if (failures[thread].empty()) failures[thread] = r.errors();
        } catch (const std::exception& ex) {
          if (failures[thread].empty())
            failures[thread].push_back(make_diagnostic("internal", "", std::string("simulation failed: ") + ex.what()));
        }
      }
    }
  };
  if (!for_each_item(static_cast<int>(groups.size()), threads, ordered_work, sim_body, scaled(0.05, 1.0),
                     0.005 / 0.95))
    return Outcome<ExploreResult>::fail("cancelled", "", "/: the sweep was cancelled");
  for (const auto& f : failures)
    if (!f.empty()) return f;
  for (const auto& s : scratch) {
    res.stats.pipelines_run += s->pipelines_run;
    res.stats.pipelines_reused += s->pipelines_reused;
  }

  // The baseline: found among the plans, or simulated and added.
  if (request.has_baseline) {
    for (int i = 0; i < static_cast<int>(plans.size()); ++i) {
      if (plans[i].plan == base) {
        res.baseline = i;
        break;
      }
    }
    PlanEstimate* b = res.baseline >= 0 ? &plans[res.baseline] : nullptr;
    if (!b || !b->simulated) {
      PlanEstimate e;
      e.plan = base;
      e.num_gpus = base.tp * base.pp * base.dp;
      e.within_gpu_limit = e.num_gpus <= max_gpus;
      SimConfig c = request.config;
      c.plan = base;
      c.cluster.num_gpus = e.num_gpus;
      c.output.timeline = false;
      auto r = simulate(c, prof);
      if (!r.ok()) return r.errors();
      fill_from(e, r.value());
      if (b) {
        *b = e;
      } else {
        res.baseline = static_cast<int>(plans.size());
        plans.push_back(e);
      }
    }
  }

  rank(res);
  ExploreStats& st = res.stats;
  st.plans = static_cast<long long>(plans.size());
  st.blocks = blocks;
  for (const auto& e : plans) {
    st.within_gpu_limit += e.within_gpu_limit;
    st.fit += e.fits_in_memory;
    st.simulated += e.simulated;
    st.feasible += e.feasible();
  }
  st.threads = threads;
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

// ---------------------------------------------------------------------------------------------
// JSON

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
         {"gpu_hours", nullptr},
         {"cost_usd", nullptr},
         {"energy_MWh", nullptr},
         {"mfu", nullptr},
         {"memory_GiB", e.memory_GiB},
         {"fits_in_memory", e.fits_in_memory},
         {"within_gpu_limit", e.within_gpu_limit},
         {"simulated", e.simulated},
         {"pareto", e.pareto}};
  if (e.simulated) {
    j["iteration_time_s"] = e.iteration_time_s;
    j["training_days"] = e.training_days;
    j["gpu_hours"] = e.gpu_hours;
    j["cost_usd"] = e.cost_usd;
    j["energy_MWh"] = e.energy_MWh;
    j["mfu"] = e.mfu;
  }
  return j;
}

json to_json(const ExploreResult& r) {
  const SimConfig& c = r.request.config;
  const Profile* prof = find_profile(c.cluster.gpu);
  const bool energy = prof && prof->board_power_W > 0;
  const bool priced = c.cluster.price_per_gpu_hour_usd > 0;  // else cost is GPU-hours alone
  auto plan_json = [&](int i) -> json {
    if (i < 0) return nullptr;
    json j = to_json(r.plans[i]);
    if (!energy) j["energy_MWh"] = nullptr;
    if (!priced) j["cost_usd"] = nullptr;
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
                {"parameters", count_parameters(c.model).total},
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
                {"pipeline_blocks", s.blocks},
                {"pipelines_run", s.pipelines_run},
                {"pipelines_reused", s.pipelines_reused},
                {"threads", s.threads},
                {"seconds", s.seconds}}}};
}

}  // namespace vtrain
