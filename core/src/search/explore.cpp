#include "vtrain/explore.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <tuple>

#include <nlohmann/json.hpp>

#include "common/divisors.hpp"
#include "common/json_reader.hpp"
#include "common/parallel.hpp"
#include "model/sections.hpp"
#include "search/fields.hpp"
#include "iteration/memory.hpp"
#include "iteration/sim_scratch.hpp"
#include "vtrain/examples.hpp"
#include "vtrain/model.hpp"
#include "vtrain/simulate.hpp"


namespace vtrain {

using nlohmann::json;
using detail::ObjectReader;

namespace {

// A plan's GPUs as an int: tp x pp x dp, or one past limits::num_gpus where the product is larger
// (the config's rules then refuse the plan by its degrees).
int gpus_or_past_limit(const PlanConfig& p) {
  return static_cast<int>(std::min<long long>(plan_gpus(p), limits::num_gpus + 1LL));
}

}  // namespace

namespace {

// ---------------------------------------------------------------------------------------------
// Case presets

// vTrain's first case study (Bang et al., MICRO'24, arXiv 2312.12391): MT-NLG 530B as Microsoft
// and NVIDIA trained it, (t, d, p) = (8, 12, 35) on 3360 A100s, against every (t, d, p) of the
// paper's grid. The grid is the one of the authors' published configs (config/case_study_1 of
// github.com/VIA-Research/vTrain: 3 x 14 x 7 = 294 files); 57 of its points need more than 3360
// GPUs and are listed, simulated and flagged, never ranked. The price is AWS p4d.24xlarge
// on-demand ($32.77 per hour for 8 A100s) rounded to $4.10 per GPU-hour.
ExploreCase mt_nlg_case() {
  const char* example = "mt-nlg-530b";
  json j = json::parse(example_configs().find(example)->json_text);
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
  return {"mt-nlg", "vTrain case study: MT-NLG 530B, the paper's (t, d, p) grid", example, j.dump()};
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
  detail::FieldReader fields{r};
  detail::explore_option_fields(fields, o);
  r.finish();
  const bool objective_given = r.has("objective");
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
    const int slots = pipeline_slots(m, c.plan);
    return p > slots ? "is more than the pipeline's layers (" + std::to_string(slots) + ")" : std::string();
  }, errors);
  check_each(o.virtual_stages, given("virtual_stages"), "/explore/virtual_stages", [&](int v) -> std::string {
    const int slots = pipeline_slots(m, c.plan);
    return slots % v ? "does not divide the pipeline's layers (" + std::to_string(slots) + ")" : std::string();
  }, errors);
  check_each(o.dp, given("dp"), "/explore/dp", [&](int d) -> std::string {
    return G % d ? "does not divide /plan/global_batch (" + std::to_string(G) + ")" : std::string();
  }, errors);
  check_each(o.cp, given("cp"), "/explore/cp", [&](int cp) -> std::string {
    if (cp > 1 && m.seq_len % (2LL * cp))
      return "times 2 does not divide /model/seq_len (" + std::to_string(m.seq_len) + ")";
    if (cp > 1 && !fused_attention(c.plan.attention)) return "needs fused attention (/plan/attention)";
    return {};
  }, errors);
  check_each(o.micro_batch, given("micro_batch"), "/explore/micro_batch", [&](int b) -> std::string {
    return G % b ? "does not divide /plan/global_batch (" + std::to_string(G) + ")" : std::string();
  }, errors);
}

}  // namespace

const Registry<ExploreCase>& explore_cases() {
  static const Registry<ExploreCase> all({mt_nlg_case()});
  return all;
}

Outcome<ExploreRequest> parse_explore_request(const json& input) {
  if (!input.is_object()) return Outcome<ExploreRequest>::fail("type", "", "/: the request must be a JSON object");
  ExploreRequest req;
  auto from_case = detail::request_from(input, "case", "case", explore_cases(), req.name);
  if (!from_case.ok()) return from_case.errors();
  const json& j = from_case.value();

  // The sections of a simulate config, read by its readers; /cluster/num_gpus is the most GPUs a
  // plan may use (the baseline's count when the request gives none), and the plan is the baseline.
  Diagnostics errors;
  ObjectReader top(&j, "", errors);
  detail::read_description(top, req.description, errors);
  SimConfig& c = req.config;
  const json* model = top.child("model");
  const json* cluster = top.child("cluster");
  const json* plan = top.child("plan");
  req.has_baseline = plan && plan->is_object() && (plan->contains("tp") || plan->contains("pp") || plan->contains("dp") ||
                                                     plan->contains("cp"));
  if (plan && plan->is_object() && !plan->contains("global_batch"))
    errors.push_back(make_diagnostic("missing", "/plan/global_batch",
                                     "is required: the sequences per iteration every plan trains with"));
  if (!model) errors.push_back(make_diagnostic("missing", "/model", "is required (a preset name or an object)"));
  else detail::read_model(model, c.model, errors);
  if (!plan) errors.push_back(make_diagnostic("missing", "/plan", "is required"));
  detail::read_cluster(cluster, c.cluster, errors);
  detail::read_plan(plan, c.plan, errors);
  detail::read_training(top.child("training"), c.training, errors);
  detail::read_reliability(top.child("reliability"), c.reliability, errors);
  detail::read_output(top.child("output"), c.output, errors);
  const json* explore = top.child("explore");
  top.finish();
  if (!errors.empty()) return errors;
  // The baseline's rules, on its own GPUs.
  SimConfig baseline = c;
  baseline.cluster.num_gpus = gpus_or_past_limit(c.plan);
  Diagnostics rules = check_sim_config(baseline);
  detail::explain_plan_defaults(rules, plan);
  if (!rules.empty()) return rules;
  const bool max_given = cluster && cluster->contains("num_gpus");
  if (!max_given && !req.has_baseline)
    errors.push_back(make_diagnostic("missing", "/cluster/num_gpus", "is required: the most GPUs a plan may use"));
  if (!max_given) c.cluster.num_gpus = baseline.cluster.num_gpus;
  if (c.training.tokens <= 0)
    errors.push_back(make_diagnostic("missing", "/training/tokens",
                                     "is required: the tokens to train on give each plan's days and cost"));
  if (!bundled_profiles().find(c.cluster.gpu)) errors.push_back(unknown_gpu(c.cluster.gpu, "/cluster/gpu"));
  parse_options(explore, c, req.options, errors);
  if (!errors.empty()) return errors;
  return req;
}

// ---------------------------------------------------------------------------------------------
// The sweep

namespace {

using detail::divisors;

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

// The progress of a sweep whose items are uneven (a pipeline shape may hold thousands of plans):
// the body advances it after each plan, so that a cancellation is seen within a plan, not after
// the item. Only the calling thread (thread 0) calls `progress`, when the fraction done has grown
// by `step` since its last report; a false answer cancels the sweep for every thread.
class SweepProgress {
 public:
  SweepProgress(double total_work, std::function<bool(double)> progress, double step)
      : total_(total_work), progress_(std::move(progress)), step_(step) {}

  // Adds `work` done by `thread`. Returns false once the sweep is cancelled: stop.
  bool advance(double work, int thread) {
    done_.fetch_add(static_cast<long long>(work * 1024), std::memory_order_relaxed);
    if (thread == 0) report(false);
    return !cancelled_.load(std::memory_order_relaxed);
  }
  // Reports from the calling thread (final: the fraction 1, unthrottled). False once cancelled.
  bool report(bool final) {
    if (cancelled_.load(std::memory_order_relaxed)) return false;
    if (!progress_) return true;
    const double fraction =
        final ? 1.0 : total_ > 0 ? std::min(1.0, done_.load(std::memory_order_relaxed) / 1024.0 / total_) : 1.0;
    if (!final && fraction - last_reported_ < step_) return true;
    last_reported_ = fraction;
    if (!progress_(fraction)) cancelled_ = true;
    return !cancelled_;
  }

 private:
  double total_;
  std::function<bool(double)> progress_;
  double step_;
  double last_reported_ = -1;        // touched by the calling thread only
  std::atomic<long long> done_{0};   // work done, in 1/1024 units
  std::atomic<bool> cancelled_{false};
};

// Runs body(item, thread, progress) for every item on `threads` threads (parallel_for); the body
// advances `progress` by each item's work as it goes (see SweepProgress). Returns false when
// cancelled.
bool for_each_item(int items, int threads, const std::vector<double>& work,
                   const std::function<void(int, int, SweepProgress&)>& body,
                   const std::function<bool(double)>& progress, double step) {
  double total = 0;
  for (double w : work) total += w;
  SweepProgress sp(total, progress, step);
  const auto run = [&](int i, int thread) { body(i, thread, sp); };
  if (!detail::parallel_for(items, threads, run, [&] { return sp.report(false); })) return false;
  return sp.report(true);
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
  e.expected_days = r.goodput.finite ? r.goodput.expected_days : INFINITY;
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
  } else if (o.objective == Objective::expected_time) {
    for (int i : feasible) {
      if (!std::isfinite(plans[i].expected_days)) continue;
      if (res.best < 0 || plans[i].expected_days < plans[res.best].expected_days ||
          (plans[i].expected_days == plans[res.best].expected_days && faster(plans[i], i, plans[res.best], res.best)))
        res.best = i;
    }
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

namespace {

// The space of a request: its plans, in units of one pipeline shape that differ in recompute and
// ZeRO stage only.
struct Space {
  std::vector<Unit> units;
  std::vector<PlanEstimate> plans;
  long long skipped_invalid = 0;  // combinations of the values tried that break a rule (count)
};

// The combinations of degrees a request allows, walked in enumeration order: (tp, sequence
// parallel, micro-batch, pp, virtual stages, dp). The value lists are built once (divisors of the
// batch and the layers are not recomputed per combination).
struct SpaceWalk {
  const ExploreRequest& request;
  std::vector<int> tps, cps, pps, mbs;
  std::vector<int> batch_divisors;           // of the global batch: the default dp values
  std::vector<std::vector<int>> default_vs;  // per entry of pps: 1 and the divisors of layers / pp above 1
  std::vector<Recompute> recs;
  long long zero_stages = 2;

  explicit SpaceWalk(const ExploreRequest& r) : request(r) {
    const ExploreOptions& o = r.options;
    const ModelConfig& m = r.config.model;
    const int max_gpus = r.config.cluster.num_gpus, gpn = r.config.cluster.gpus_per_node;
    const int G = r.config.plan.global_batch, L = pipeline_slots(m, r.config.plan);
    std::vector<int> tp_all;
    for (int t : divisors(m.heads))
      if (m.kv_heads % t == 0 && m.ffn_hidden % t == 0 && t <= max_gpus && (t <= gpn || o.tp_across_nodes))
        tp_all.push_back(t);
    tps = or_default(o.tp, tp_all);
    // Context parallelism for long sequences: each of 2 x cp chunks whole, with fused attention.
    std::vector<int> cp_all{1};
    if (m.seq_len >= kLongSequence && fused_attention(r.config.plan.attention) && r.config.plan.zero_stage != 3)
      for (int c = 2; c <= kMaxDefaultCp && c <= max_gpus; c *= 2)
        if (m.seq_len % (2 * c) == 0) cp_all.push_back(c);
    cps = or_default(o.cp, cp_all);
    pps = or_default(o.pp, divisors(L));
    batch_divisors = divisors(G);
    mbs = or_default(o.micro_batch, batch_divisors);
    recs = or_default(o.recompute, {Recompute::none, Recompute::selective, Recompute::full});
    zero_stages = o.zero_stage.empty() ? 2 : static_cast<long long>(o.zero_stage.size());
    for (int pp : pps) {
      std::vector<int> vs{1};
      if (pp > 1)
        for (int v : divisors(L / pp))
          if (v > 1) vs.push_back(v);
      default_vs.push_back(std::move(vs));
    }
  }
  // A degree of 1 makes sequence parallelism and ZeRO-1 no-ops: one plan stands for both values.
  std::vector<bool> sps_for(int tp) const {
    std::vector<bool> all = or_default(request.options.sequence_parallel, {false, true});
    if (tp > 1) return all;
    return std::vector<bool>{std::find(all.begin(), all.end(), false) != all.end() ? false : all.front()};
  }
  std::vector<int> zeros_for(int dp) const {
    std::vector<int> all = or_default(request.options.zero_stage, {0, 1});
    if (dp > 1) return all;
    return std::vector<int>{std::find(all.begin(), all.end(), 0) != all.end() ? 0 : all.front()};
  }
  // The shard groups a plan with ZeRO stage z and dp replicas is tried with: ZeRO-3 only, those
  // dividing dp (0: all of it, the one value when the request names none).
  std::vector<int> groups_for(int z, int dp) const {
    const std::vector<int>& asked = request.options.shard_group;
    if (asked.empty()) return {0};
    std::vector<int> out;
    for (int group : asked)
      if (group == 0 || (z == 3 && group <= dp && dp % group == 0)) out.push_back(group);
    return out;
  }
  // The expert-parallel degrees (ep, etp) a plan of tp x cp x dp GPUs a stage is tried with: a
  // mixture of experts' ep dividing its experts, etp x ep dividing those GPUs (Megatron-Core's
  // rule); (1, 0) for a dense model.
  std::vector<std::pair<int, int>> experts_for(int tp, int cp, int dp) const {
    const ModelConfig& m = request.config.model;
    if (!is_moe(m)) return {{1, 0}};
    std::vector<std::pair<int, int>> out;
    const std::vector<int> eps = or_default(request.options.ep, divisors(m.moe.experts));
    const std::vector<int> etps = or_default(request.options.etp, {0});
    const long long gpus = static_cast<long long>(tp) * cp * dp;
    for (int etp : etps) {
      const long long et = etp > 0 ? etp : tp;
      if (m.moe.expert_ffn_hidden % et != 0) continue;
      for (int ep : eps)
        if (m.moe.experts % ep == 0 && gpus % (et * ep) == 0) out.emplace_back(ep, etp);
    }
    return out;
  }
  // The plans a combination of (pp, virtual stages, dp) stands for, when a rule rules it out.
  long long plans_of(int dp) const { return static_cast<long long>(recs.size()) * (dp > 1 ? zero_stages : 1); }

  // Calls unit(tp, cp, sp, mb, pp, v, dp) for every combination the loops' rules allow, and adds the
  // plans of those they rule out to `skipped`. `tried` counts the combinations looked at; the walk
  // stops (returning false) when it passes `max_tried` or when unit returns false.
  template <class Unit>
  bool walk(long long& tried, long long max_tried, long long& skipped, Unit unit) const {
    const ExploreOptions& o = request.options;
    const int max_gpus = request.config.cluster.num_gpus;
    const int G = request.config.plan.global_batch, L = pipeline_slots(request.config.model, request.config.plan);
    std::vector<int> dps;
    for (int tp : tps) {
     for (int cp : cps) {
      for (bool sp : sps_for(tp)) {
        for (int mb : mbs) {
          for (size_t ip = 0; ip < pps.size(); ++ip) {
            const int pp = pps[ip];
            if (++tried > max_tried) return false;
            const std::vector<int>& vs = o.virtual_stages.empty() ? default_vs[ip] : o.virtual_stages;
            dps = o.dp;
            if (dps.empty())
              for (int d : batch_divisors)
                if (static_cast<double>(tp) * cp * pp * d <= max_gpus) dps.push_back(d);  // exact: below 2^53
            tried += static_cast<long long>(vs.size()) * dps.size();
            if (tried > max_tried) return false;
            for (int v : vs) {
              if ((v > 1 && L % (static_cast<long long>(pp) * v) != 0) || (v > 1 && pp == 1) || pp > L) {
                for (int dp : dps) skipped += plans_of(dp * cp);
                continue;
              }
              for (int dp : dps) {
                if (G % (static_cast<long long>(dp) * mb) != 0 || (v > 1 && (G / (static_cast<long long>(dp) * mb)) % pp != 0)) {
                  skipped += plans_of(dp * cp);
                  continue;
                }
                if (!unit(tp, cp, sp, mb, pp, v, dp)) return false;
              }
            }
          }
        }
      }
     }
    }
    return true;
  }
};

// The combinations of degrees a request may make the sweep look at before it is refused (count):
// counting them takes well under a second, natively and in WebAssembly.
constexpr long long kMaxCombinations = 50000000;

std::string restrict_hint() {
  return "restrict it with /explore/tp, /cp, /pp, /dp, /micro_batch, /virtual_stages, /recompute, /sequence_parallel "
         "or /zero_stage";
}

// Phase 0: the plans the space holds, counted without building one (every rule of the loops, and
// tensor parallelism dividing the heads and the MLP; the other rules of a config can only lower
// the count). A space past /explore/max_plans is refused from this count, before its plans take
// the memory and the time.
Diagnostics count_plans(const SpaceWalk& space) {
  const ExploreOptions& o = space.request.options;
  const ModelConfig& m = space.request.config.model;
  long long tried = 0, skipped = 0, plans = 0;
  bool over = false;
  const bool walked = space.walk(tried, kMaxCombinations, skipped, [&](int tp, int cp, bool, int, int, int, int dp) {
    if (m.heads % tp != 0 || m.kv_heads % tp != 0 || m.ffn_hidden % tp != 0) return true;
    long long per_recompute = 0;
    for (int z : space.zeros_for(dp * cp)) per_recompute += static_cast<long long>(space.groups_for(z, dp).size());
    plans += static_cast<long long>(space.recs.size()) * per_recompute *
             static_cast<long long>(space.experts_for(tp, cp, dp).size());
    over = plans > o.max_plans;
    return !over;
  });
  if (over)
    return {make_diagnostic("too_large", "/explore",
                            "the space holds more than " + std::to_string(o.max_plans) +
                                " plans (/explore/max_plans); " + restrict_hint() + " (counted before enumerating)")};
  if (!walked)
    return {make_diagnostic("too_large", "/explore",
                            "the space combines more than " + detail::describe_number(kMaxCombinations) +
                                " values of the degrees to try, counted before enumerating them; " + restrict_hint())};
  return {};
}

// Phase 1: every valid plan, in (tp, sequence parallel, micro-batch, pp, virtual stages, dp) units.
Outcome<Space> enumerate_plans(const ExploreRequest& request) {
  const PlanConfig& base = request.config.plan;
  const int max_gpus = request.config.cluster.num_gpus;
  const int G = base.global_batch, L = pipeline_slots(request.config.model, base);
  const SpaceWalk walk(request);
  if (Diagnostics refused = count_plans(walk); !refused.empty()) return refused;

  Space space;
  auto& units = space.units;
  auto& plans = space.plans;
  SimConfig candidate = request.config;
  long long tried = 0;
  walk.walk(tried, kMaxCombinations, space.skipped_invalid, [&](int tp, int cp, bool sp, int mb, int pp, int v, int dp) {
    const int M = G / (dp * mb);
    Unit u;
    u.first = static_cast<int>(plans.size());
    u.pp = pp;
    u.virtual_stages = v;
    u.micro_batches = M;
    const std::vector<std::pair<int, int>> expert_degrees = walk.experts_for(tp, cp, dp);
    for (Recompute rc : walk.recs) {
      for (int z : walk.zeros_for(dp * cp)) {
       for (int group : walk.groups_for(z, dp)) {
        for (const auto& [ep, etp] : expert_degrees) {
        PlanEstimate e;
        e.plan = base;
        e.plan.stage_layers.clear();  // the swept plans split the layers as evenly as they allow
        e.plan.tp = tp;
        e.plan.cp = cp;
        e.plan.pp = pp;
        e.plan.dp = dp;
        e.plan.micro_batch = mb;
        e.plan.virtual_stages = v;
        e.plan.recompute = rc;
        e.plan.sequence_parallel = sp;
        e.plan.zero_stage = z;
        e.plan.shard_group = group;
        e.plan.ep = ep;
        e.plan.etp = etp;
        e.num_gpus = gpus_or_past_limit(e.plan);
        e.within_gpu_limit = e.num_gpus <= max_gpus;
        candidate.plan = e.plan;
        candidate.cluster.num_gpus = e.num_gpus;
        if (!check_sim_config(candidate).empty()) {  // a rule the loops above miss
          ++space.skipped_invalid;
          continue;
        }
        plans.push_back(e);
        }
       }
      }
    }
    u.count = static_cast<int>(plans.size()) - u.first;
    if (u.count > 0) units.push_back(u);
    return true;
  });
  if (plans.empty()) {
    return Outcome<Space>::fail(
        "no_plan", "/explore",
        "/explore: no valid plan: no combination of the allowed degrees divides /model/layers (" +
            std::to_string(L) + ") and /plan/global_batch (" + std::to_string(G) + ") within /cluster/num_gpus (" +
            std::to_string(max_gpus) + ")");
  }
  return space;
}

// `progress` over [lo, hi] of the whole sweep.
std::function<bool(double)> scaled(const ExploreControl& control, double lo, double hi) {
  if (!control.progress) return {};
  return [&control, lo, hi](double f) { return control.progress(lo + (hi - lo) * f); };
}

// Phase 2: memory first (cheap): it decides which plans are simulated and bounds the work.
// Progress reports it as the first 5% of the sweep.
bool estimate_memory(Space& space, const ModelConfig& m, const Profile& prof, int threads,
                     const ExploreControl& control) {
  std::vector<double> memory_work(space.units.size());
  for (size_t i = 0; i < space.units.size(); ++i) memory_work[i] = space.units[i].count;
  auto memory_body = [&](int i, int thread, SweepProgress& sp) {
    const Unit& u = space.units[i];
    for (int k = u.first; k < u.first + u.count; ++k) {
      PlanEstimate& e = space.plans[k];
      e.memory_GiB = plan_memory_GiB(m, e.plan, prof);
      e.fits_in_memory = e.memory_GiB <= prof.hbm_GiB;
      if (!sp.advance(1, thread)) return;
    }
  };
  return for_each_item(static_cast<int>(space.units.size()), threads, memory_work, memory_body,
                       scaled(control, 0.0, 0.05), 0.1);
}

// Phase 3: the pipeline blocks each unit would simulate (its work, with a plan's fixed cost worth
// about 200 blocks) and in all.
double plan_blocks(const PlanConfig& p, int G) {
  return 2.0 * p.pp * p.virtual_stages * (G / (p.dp * p.micro_batch));
}
double plan_work(const PlanConfig& p, int G) { return plan_blocks(p, G) + 200; }

double count_blocks(Space& space, const ExploreOptions& o, int G) {
  double blocks = 0;
  for (Unit& u : space.units) {
    u.work = 0;
    for (int k = u.first; k < u.first + u.count; ++k) {
      const PlanEstimate& e = space.plans[k];
      if (!e.fits_in_memory && !o.simulate_unfit) continue;
      u.work += plan_work(e.plan, G);
      blocks += plan_blocks(e.plan, G);
    }
  }
  return blocks;
}

// Phase 4: the plans to time, simulated. Units of one pipeline shape run on one thread in a row:
// they share its block order. Progress reports it as the last 95%.
Diagnostics simulate_plans(const ExploreRequest& request, const Profile& prof, int threads,
                           const ExploreControl& control, Space& space, ExploreStats& stats) {
  const ExploreOptions& o = request.options;
  auto& units = space.units;
  const int G = request.config.plan.global_batch;
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
  auto sim_body = [&](int item, int thread, SweepProgress& sp) {
    SimConfig c = request.config;
    c.output.timeline = false;
    for (int i : groups[group_order[item]]) {
      for (int k = units[i].first; k < units[i].first + units[i].count; ++k) {
        PlanEstimate& e = space.plans[k];
        if (!e.fits_in_memory && !o.simulate_unfit) continue;
        // Counted as it starts (the work count_blocks gave it): a cancellation is seen before each plan.
        if (!sp.advance(plan_work(e.plan, G), thread)) return;
        c.plan = e.plan;
        c.cluster.num_gpus = e.num_gpus;
        try {
          auto r = simulate(c, &prof, scratch[thread].get());
          if (r.ok()) fill_from(e, r.value());
          else if (failures[thread].empty()) failures[thread] = r.errors();
        } catch (const std::exception& ex) {
          if (failures[thread].empty())
            failures[thread].push_back(make_diagnostic("internal", "", std::string("simulation failed: ") + ex.what()));
        }
      }
    }
  };
  if (!for_each_item(static_cast<int>(groups.size()), threads, ordered_work, sim_body, scaled(control, 0.05, 1.0),
                     0.005 / 0.95))
    return {make_diagnostic("cancelled", "", "the sweep was cancelled")};
  for (const auto& f : failures)
    if (!f.empty()) return f;
  for (const auto& s : scratch) {
    stats.pipelines_run += s->pipelines_run;
    stats.pipelines_reused += s->pipelines_reused;
  }
  return {};
}

// Phase 5: the baseline, found among the plans, or simulated and added.
Diagnostics place_baseline(const ExploreRequest& request, const Profile& prof, ExploreResult& res) {
  if (!request.has_baseline) return {};
  const PlanConfig& base = request.config.plan;
  auto& plans = res.plans;
  for (int i = 0; i < static_cast<int>(plans.size()); ++i) {
    if (plans[i].plan == base) {
      res.baseline = i;
      break;
    }
  }
  PlanEstimate* b = res.baseline >= 0 ? &plans[res.baseline] : nullptr;
  if (b && b->simulated) return {};
  PlanEstimate e;
  e.plan = base;
  e.num_gpus = gpus_or_past_limit(base);
  e.within_gpu_limit = e.num_gpus <= request.config.cluster.num_gpus;
  SimConfig c = request.config;
  c.plan = base;
  c.cluster.num_gpus = e.num_gpus;
  c.output.timeline = false;
  auto r = simulate(c, &prof);
  if (!r.ok()) return r.errors();
  fill_from(e, r.value());
  if (b) {
    *b = e;
  } else {
    res.baseline = static_cast<int>(plans.size());
    plans.push_back(e);
  }
  return {};
}

}  // namespace

Outcome<ExploreResult> explore(const ExploreRequest& request, const ExploreControl& control) {
  const auto t0 = std::chrono::steady_clock::now();
  const Profile* prof = bundled_profiles().find(request.config.cluster.gpu);
  if (!prof) return Diagnostics{unknown_gpu(request.config.cluster.gpu, "/cluster/gpu")};
  ExploreResult res;
  res.request = request;
  res.parameters = count_parameters(request.config.model).total;
  res.priced = request.config.cluster.price_per_gpu_hour_usd > 0;  // else cost is GPU-hours alone
  res.energy_known = prof->board_power_W > 0;

  auto space = enumerate_plans(request);
  if (!space.ok()) return space.errors();
  Space& sp = space.value();
  const int threads = detail::usable_threads(control.threads);
  if (!estimate_memory(sp, request.config.model, *prof, threads, control))
    return Outcome<ExploreResult>::fail("cancelled", "", "/: the sweep was cancelled");
  const double blocks = count_blocks(sp, request.options, request.config.plan.global_batch);
  ExploreStats& st = res.stats;
  st.skipped_invalid = sp.skipped_invalid;
  if (control.count_only) {
    st.plans = static_cast<long long>(sp.plans.size());
    st.blocks = blocks;
    res.plans = std::move(sp.plans);
    return res;
  }
  if (blocks > request.options.max_blocks) {
    return Outcome<ExploreResult>::fail(
        "too_large", "/explore",
        "/explore: the sweep would simulate " + detail::describe_number(blocks) +
            " pipeline blocks, more than /explore/max_blocks (" + detail::describe_number(request.options.max_blocks) +
            "); restrict the space (/explore/tp, /pp, /dp, /micro_batch, /virtual_stages, ...)");
  }
  if (Diagnostics failed = simulate_plans(request, *prof, threads, control, sp, st); !failed.empty()) return failed;
  res.plans = std::move(sp.plans);
  if (Diagnostics failed = place_baseline(request, *prof, res); !failed.empty()) return failed;

  rank(res);
  st.plans = static_cast<long long>(res.plans.size());
  st.blocks = blocks;
  for (const auto& e : res.plans) {
    st.within_gpu_limit += e.within_gpu_limit;
    st.fit += e.fits_in_memory;
    st.simulated += e.simulated;
    st.feasible += e.feasible();
  }
  st.threads = threads;
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace vtrain
