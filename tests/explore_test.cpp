#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "test_util.hpp"
#include "vtrain/api.hpp"
#include "vtrain/explore.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

// A small model on at most 32 GPUs: every valid plan, a few thousand, in well under a second.
json small_request() {
  return json::parse(R"({
    "model": {"layers": 16, "hidden": 2048, "heads": 16, "seq_len": 1024, "vocab": 51200},
    "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 32, "gpus_per_node": 8, "price_per_gpu_hour_usd": 2.5},
    "plan": {"tp": 2, "pp": 2, "dp": 8, "micro_batch": 2, "global_batch": 64, "recompute": "selective"},
    "training": {"tokens": 1e10}
  })");
}

ExploreRequest parse_ok(const json& j) {
  auto r = parse_explore_request(j);
  if (!r.ok()) throw std::runtime_error(r.errors().front().message);
  return r.value();
}

ExploreResult explore_ok(const ExploreRequest& req, int threads = 1) {
  ExploreControl control;
  control.threads = threads;
  auto r = explore(req, control);
  if (!r.ok()) throw std::runtime_error(r.errors().front().message);
  return r.value();
}

// The first diagnostic of a request that must fail, parsing or sweeping.
Diagnostic first_error(const json& j) {
  auto req = parse_explore_request(j);
  if (!req.ok()) return req.errors().front();
  auto r = explore(req.value());
  REQUIRE_FALSE(r.ok());
  return r.errors().front();
}

PlanEstimate point(double days, double gpu_hours, bool feasible = true) {
  PlanEstimate e;
  e.simulated = true;
  e.fits_in_memory = feasible;
  e.training_days = days;
  e.gpu_hours = gpu_hours;
  e.cost_usd = 4.1 * gpu_hours;
  return e;
}

}  // namespace

TEST_CASE("explore: the Pareto frontier of a hand-made set") {
  const std::vector<PlanEstimate> plans = {
      point(10, 100),        // 0: on it
      point(20, 50),         // 1: on it
      point(15, 80),         // 2: on it
      point(15, 90),         // 3: as fast as 2, dearer
      point(30, 50),         // 4: as cheap as 1, slower
      point(10, 100),        // 5: equal to 0: both on it
      point(5, 200),         // 6: the fastest
      point(40, 40),         // 7: the cheapest
      point(1, 1, false),    // 8: best of all but does not fit: never on it
      point(25, 45),         // 9: on it
      point(26, 45),         // 10: as cheap as 9, slower
  };
  CHECK(pareto_frontier(plans) == std::vector<int>{6, 0, 5, 2, 1, 9, 7});
  CHECK(pareto_frontier({}).empty());
  CHECK(pareto_frontier({point(3, 3)}) == std::vector<int>{0});
}

TEST_CASE("explore: every plan is valid, and its numbers are simulate()'s with cost = GPUs x hours x price") {
  const ExploreRequest req = parse_ok(small_request());
  const ExploreResult r = explore_ok(req);
  REQUIRE(r.plans.size() > 500);
  CHECK(r.stats.plans == static_cast<long long>(r.plans.size()));
  const Profile* prof = bundled_profiles().find("a100-sxm4-80gb");
  std::set<std::tuple<int, int, int, int, int, int, bool, int>> seen;
  long long simulated = 0;
  for (const PlanEstimate& e : r.plans) {
    const PlanConfig& p = e.plan;
    CAPTURE(to_json(e).dump());
    CHECK(seen.insert({p.tp, p.pp, p.dp, p.micro_batch, p.virtual_stages, static_cast<int>(p.recompute),
                       p.sequence_parallel, p.zero_stage})
              .second);
    SimConfig c = req.config;
    c.plan = p;
    c.cluster.num_gpus = e.num_gpus;
    c.output.timeline = false;
    CHECK(check_sim_config(c).empty());
    CHECK(e.num_gpus == p.tp * p.pp * p.dp);
    CHECK(e.within_gpu_limit);
    CHECK(e.num_gpus <= 32);
    CHECK(p.tp <= 8);  // within a node unless asked
    CHECK(e.simulated == e.fits_in_memory);
    if (!e.simulated) continue;
    ++simulated;
    const double hours = e.training_days * 24;
    CHECK(e.cost_usd == doctest::Approx(e.num_gpus * hours * 2.5).epsilon(1e-12));
    CHECK(e.gpu_hours == doctest::Approx(e.num_gpus * hours).epsilon(1e-12));
    CHECK(e.energy_MWh == doctest::Approx(e.gpu_hours * prof->board_power_W / 1e6).epsilon(1e-12));
    // Memoized kernels, block orders and pipelines change nothing: the very numbers of simulate().
    const SimResult s = test::simulate_ok(c);
    CHECK(e.iteration_time_s == s.iteration_time_s);
    CHECK(e.mfu == s.mfu);
    CHECK(e.cost_usd == s.cost_usd);
    CHECK(e.memory_GiB == s.memory.total());
    CHECK(e.fits_in_memory == s.fits_in_memory);
  }
  CHECK(simulated == r.stats.simulated);
  CHECK(simulated > 100);
  // The block count held against /explore/max_blocks: two blocks per micro-batch, stage and chunk.
  double blocks = 0;
  for (const auto& e : r.plans)
    if (e.simulated)
      blocks += 2.0 * e.plan.pp * e.plan.virtual_stages * (e.plan.global_batch / (e.plan.dp * e.plan.micro_batch));
  CHECK(r.stats.blocks == blocks);
  // Counting only lists the same plans and blocks, and simulates none.
  ExploreControl count;
  count.count_only = true;
  auto counted = explore(req, count);
  REQUIRE(counted.ok());
  CHECK(counted.value().stats.blocks == blocks);
  CHECK(counted.value().stats.plans == r.stats.plans);
  CHECK(counted.value().stats.simulated == 0);
  REQUIRE(r.baseline >= 0);
  CHECK(r.plans[r.baseline].plan == req.config.plan);
}

TEST_CASE("explore: plans whose tensor-parallel groups do not divide a node get simulate()'s numbers too") {
  // 24 heads: tp 3 and 6 are valid, and whether a group straddles a node depends on pp x dp.
  json j = small_request();
  j["model"]["hidden"] = 2304;
  j["model"]["heads"] = 24;
  j["cluster"]["num_gpus"] = 24;
  j["plan"] = {{"tp", 3}, {"pp", 1}, {"dp", 8}, {"micro_batch", 1}, {"global_batch", 48}, {"recompute", "full"}};
  j["explore"] = {{"tp", {3, 6}}, {"recompute", {"full"}}, {"micro_batch", {1}}};
  const ExploreRequest req = parse_ok(j);
  const ExploreResult r = explore_ok(req);
  int straddling = 0, within = 0;
  for (const PlanEstimate& e : r.plans) {
    if (!e.simulated) continue;
    SimConfig c = req.config;
    c.plan = e.plan;
    c.cluster.num_gpus = e.num_gpus;
    c.output.timeline = false;
    const SimResult s = test::simulate_ok(c);
    CAPTURE(to_json(e).dump());
    CHECK(e.iteration_time_s == s.iteration_time_s);
    (s.details.tp_nodes > 1 ? straddling : within) += 1;
  }
  // The sweep holds both kinds; a kernel cache that kept entries across GPU counts would mix them.
  CHECK(straddling > 0);
  CHECK(within > 0);
}

TEST_CASE("explore: the case-study preset is vTrain's 294-plan grid with the baseline among them") {
  const ExploreRequest req = parse_ok(json{{"case", "mt-nlg"}});
  CHECK(req.name == "mt-nlg");
  CHECK(req.config.cluster.num_gpus == 3360);
  CHECK(req.config.cluster.price_per_gpu_hour_usd == 4.10);
  CHECK(req.config.training.tokens == 270e9);
  const ExploreResult r = explore_ok(req);
  REQUIRE(r.plans.size() == 294);
  std::set<std::tuple<int, int, int>> grid;
  int over = 0;
  for (const PlanEstimate& e : r.plans) {
    grid.insert({e.plan.tp, e.plan.dp, e.plan.pp});
    CHECK(e.plan.micro_batch == 1);
    CHECK(e.plan.recompute == Recompute::full);
    CHECK(e.simulated);  // the preset times every plan, as the paper's figure does
    CHECK(e.within_gpu_limit == (e.num_gpus <= 3360));
    over += !e.within_gpu_limit;
    if (!e.within_gpu_limit) CHECK_FALSE(e.pareto);
  }
  CHECK(grid.size() == 294);
  for (int t : {4, 8, 16})
    for (int d : {1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 16, 20, 24, 30})
      for (int p : {3, 5, 7, 15, 21, 35, 105}) CHECK(grid.count({t, d, p}) == 1);
  CHECK(over == 57);  // e.g. (16, 30, 105) needs 50400 GPUs: simulated, shown, never ranked
  REQUIRE(r.baseline >= 0);
  const PlanEstimate& base = r.plans[r.baseline];
  CHECK(base.plan.tp == 8);
  CHECK(base.plan.dp == 12);
  CHECK(base.plan.pp == 35);
  CHECK(base.num_gpus == 3360);
  CHECK(base.feasible());
  // tp = 16 spans two nodes; it is modelled, not forbidden.
  bool tp16 = false;
  for (const PlanEstimate& e : r.plans) tp16 = tp16 || (e.plan.tp == 16 && e.simulated && e.iteration_time_s > 0);
  CHECK(tp16);
  REQUIRE(r.best_cost >= 0);
  CHECK(r.plans[r.best_cost].cost_usd < base.cost_usd);  // the paper's finding: (8, 12, 35) is not the cheapest
}

TEST_CASE("explore: the best plan is never worse than the baseline on the objective") {
  for (const json& request : {small_request(), json{{"case", "mt-nlg"}}}) {
    // Time and cost: best_time and best_cost, ranked in every sweep.
    ExploreRequest req = parse_ok(request);
    const ExploreResult r = explore_ok(req);
    REQUIRE(r.baseline >= 0);
    const PlanEstimate& base = r.plans[r.baseline];
    REQUIRE(base.feasible());
    REQUIRE(r.best == r.best_cost);  // cost is the default objective
    CHECK(r.plans[r.best_time].training_days <= base.training_days);
    CHECK(r.plans[r.best_cost].cost_usd <= base.cost_usd);
    CHECK(r.plans[r.best_time].pareto);
    CHECK(r.plans[r.best_cost].pareto);
    // Cost under a deadline the baseline meets.
    req.options.objective = Objective::deadline;
    req.options.deadline_days = base.training_days;
    const ExploreResult d = explore_ok(req);
    REQUIRE(d.best >= 0);
    CHECK(d.plans[d.best].feasible());
    CHECK(d.plans[d.best].training_days <= base.training_days);
    CHECK(d.plans[d.best].cost_usd <= base.cost_usd);
    req.options.objective = Objective::time;
    CHECK(explore_ok(req).best == r.best_time);
  }
}

TEST_CASE("explore: the balanced objective is the cheapest plan within a quarter more days than the fastest") {
  for (const json& request : {small_request(), json{{"case", "mt-nlg"}}}) {
    ExploreRequest req = parse_ok(request);
    req.options.objective = Objective::balanced;
    const ExploreResult r = explore_ok(req);
    REQUIRE(r.best >= 0);
    const PlanEstimate& fast = r.plans[r.best_time];
    const PlanEstimate& best = r.plans[r.best];
    CHECK(best.feasible());
    CHECK(best.training_days <= fast.training_days * (1 + kBalancedSlack));
    CHECK(best.gpu_hours <= fast.gpu_hours);
    // No plan that can run within that time is cheaper.
    for (const PlanEstimate& e : r.plans)
      if (e.feasible() && e.training_days <= fast.training_days * (1 + kBalancedSlack)) CHECK(e.gpu_hours >= best.gpu_hours);
    CHECK(to_json(r)["question"]["time_slack"] == kBalancedSlack);
  }
  // The case study: neither extreme. The cheapest plan trains for over a year on 140 GPUs.
  ExploreRequest req = parse_ok(json{{"case", "mt-nlg"}, {"explore", {{"objective", "balanced"}}}});
  const ExploreResult r = explore_ok(req);
  CHECK(r.best != r.best_time);
  CHECK(r.best != r.best_cost);
  CHECK(r.plans[r.best_cost].training_days > 365);
  CHECK(r.plans[r.best].cost_usd < r.plans[r.best_time].cost_usd);
}

TEST_CASE("explore: restricting the space and explicit lists") {
  json j = small_request();
  j["explore"] = {{"tp", 4}, {"pp", {1, 2}}, {"recompute", {"none"}}, {"zero_stage", {0}}, {"virtual_stages", {1}}};
  const ExploreResult r = explore_ok(parse_ok(j));
  for (const PlanEstimate& e : r.plans) {
    if (static_cast<int>(&e - &r.plans[0]) == r.baseline) continue;  // the baseline is always listed
    CHECK(e.plan.tp == 4);
    CHECK((e.plan.pp == 1 || e.plan.pp == 2));
    CHECK(e.plan.recompute == Recompute::none);
    CHECK(e.plan.zero_stage == 0);
  }
  // An explicit dp list crosses every value: plans beyond the GPU limit are listed and flagged.
  json k = small_request();
  k["explore"] = {{"tp", {8}}, {"pp", {4}}, {"dp", {1, 2}}, {"micro_batch", {1}}, {"recompute", {"full"}},
                  {"sequence_parallel", {false}}, {"zero_stage", {0}}, {"virtual_stages", {1}}};
  const ExploreResult over = explore_ok(parse_ok(k));
  int beyond = 0;
  for (const PlanEstimate& e : over.plans) beyond += !e.within_gpu_limit;
  CHECK(beyond == 1);  // (8, 2, 4): 64 GPUs
  // tp across nodes only when asked.
  json n = small_request();
  n["explore"] = {{"tp_across_nodes", true}, {"pp", {1}}, {"micro_batch", {1}}, {"recompute", {"full"}},
                  {"virtual_stages", {1}}};
  bool tp16 = false;
  for (const PlanEstimate& e : explore_ok(parse_ok(n)).plans) tp16 = tp16 || e.plan.tp == 16;
  CHECK(tp16);
  // By default only depths that divide the 16 layers; an uneven one (3: stages of 6, 5, 5) where
  // the list asks for it, never interleaved, and never more stages than layers.
  std::set<int> default_pps;
  for (const PlanEstimate& e : explore_ok(parse_ok(small_request())).plans) default_pps.insert(e.plan.pp);
  CHECK(default_pps.count(3) == 0);
  json u = small_request();
  u["explore"] = {{"pp", {3}}, {"micro_batch", {1}}, {"recompute", {"full"}}};
  int uneven = 0;
  for (const PlanEstimate& e : explore_ok(parse_ok(u)).plans) {
    if (e.plan.pp != 3) continue;
    ++uneven;
    CHECK(e.plan.virtual_stages == 1);
    CHECK(e.simulated == e.fits_in_memory);
  }
  CHECK(uneven > 0);
  u["explore"]["pp"] = {17};
  CHECK(first_error(u).pointer == "/explore/pp/0");
}

TEST_CASE("explore: the combinations of the values tried that break a rule are counted") {
  // 2 micro-batch sizes x 2 chunk counts x 2 replica counts = 8 combinations of one tp, pp,
  // recompute and ZeRO stage. Micro-batch 64 fills the batch of 64 on one replica: with 2 replicas
  // it is too large, and interleaving needs the single micro-batch to be a multiple of pp.
  json j = small_request();
  j["plan"] = {{"global_batch", 64}};
  j["explore"] = {{"tp", {2}}, {"sequence_parallel", {false}}, {"micro_batch", {1, 64}}, {"pp", {2}},
                  {"virtual_stages", {1, 4}}, {"dp", {1, 2}}, {"recompute", {"full"}}, {"zero_stage", {0}}};
  const ExploreResult r = explore_ok(parse_ok(j));
  CHECK(r.baseline == -1);
  CHECK(r.plans.size() == 5);
  CHECK(r.stats.skipped_invalid == 3);
  CHECK(to_json(r)["stats"]["skipped_invalid"] == 3);
  // Left to the defaults, the lists hold combinations that break a rule too, and they are counted.
  CHECK(explore_ok(parse_ok(small_request())).stats.skipped_invalid > 0);
}

TEST_CASE("explore: impossible requests are errors naming the field") {
  json j = small_request();
  j["cluster"]["num_gpus"] = 0;
  CHECK(first_error(j).pointer == "/cluster/num_gpus");

  j = small_request();
  j["explore"] = {{"tp", {2, 3}}};
  Diagnostic d = first_error(j);
  CHECK(d.pointer == "/explore/tp/1");
  CHECK(d.code == "divisibility");

  j = small_request();
  j["explore"] = {{"dp", 3}};
  CHECK(first_error(j).pointer == "/explore/dp");

  j = small_request();
  j["explore"] = {{"tp_max", 4}};
  d = first_error(j);
  CHECK(d.pointer == "/explore/tp_max");
  CHECK(d.code == "unknown_key");

  j = small_request();
  j["plan"] = {{"global_batch", 8}};  // no baseline: the space alone
  j["explore"] = {{"dp", {4}}, {"micro_batch", {4}}};  // each divides 8, together they do not
  d = first_error(j);
  CHECK(d.code == "no_plan");
  CHECK(d.pointer == "/explore");

  j = small_request();
  j["explore"] = {{"max_plans", 100}};
  d = first_error(j);
  CHECK(d.code == "too_large");
  CHECK(d.message.find("/explore/max_plans") != std::string::npos);

  j = small_request();
  j["explore"] = {{"objective", "deadline"}};
  CHECK(first_error(j).pointer == "/explore/deadline_days");

  // A deadline beside another objective would be silently unused.
  j = small_request();
  j["explore"] = {{"objective", "time"}, {"deadline_days", 30}};
  d = first_error(j);
  CHECK(d.pointer == "/explore/deadline_days");
  CHECK(d.message.find("\"time\"") != std::string::npos);

  j = small_request();
  j["training"].erase("tokens");
  CHECK(first_error(j).pointer == "/training/tokens");

  CHECK(first_error(json{{"case", "gpt-5"}}).pointer == "/case");

  // The sections are read by simulate's own readers: their errors are simulate's.
  for (const auto& [section, key, value] : {std::tuple{"cluster", "gpus_per_node", json(0)},
                                            std::tuple{"plan", "recompute", json("most")},
                                            std::tuple{"model", "bias", json(1)},
                                            std::tuple{"training", "tokens", json(-1)}}) {
    j = small_request();
    j[section][key] = value;
    json config = test::small_config();
    config[section] = j[section];
    auto sim = parse_sim_config(config);
    REQUIRE_FALSE(sim.ok());
    d = first_error(j);
    CHECK(d.pointer == sim.errors().front().pointer);
    CHECK(d.message == sim.errors().front().message);
  }
}

TEST_CASE("explore: progress reaches 1, and returning false cancels") {
  const ExploreRequest req = parse_ok(small_request());
  std::vector<double> seen;
  ExploreControl control;
  control.progress = [&](double f) {
    seen.push_back(f);
    return true;
  };
  REQUIRE(explore(req, control).ok());
  REQUIRE(!seen.empty());
  for (size_t i = 1; i < seen.size(); ++i) CHECK(seen[i] >= seen[i - 1]);
  CHECK(seen.back() == 1.0);

  int calls = 0;
  control.progress = [&](double) { return ++calls < 3; };
  auto r = explore(req, control);
  REQUIRE_FALSE(r.ok());
  CHECK(r.errors().front().code == "cancelled");
}

TEST_CASE("explore: a cancellation is seen between the plans of one pipeline shape, not after it") {
  // One pipeline shape (pp 2, one chunk, 4 micro-batches), many plans: tp, recompute, sequence
  // parallelism and ZeRO. The simulation phase (the last 95%) reports as its plans go.
  json j = small_request();
  j["explore"] = {{"pp", {2}}, {"virtual_stages", {1}}, {"dp", {8}}, {"micro_batch", {2}}};
  const ExploreRequest req = parse_ok(j);
  std::vector<double> seen;
  ExploreControl control;
  control.progress = [&](double f) {
    seen.push_back(f);
    return true;
  };
  const auto done = explore(req, control);
  REQUIRE(done.ok());
  REQUIRE(done.value().stats.simulated >= 4);
  int inside = 0;  // reports strictly within the one group's simulation
  for (double f : seen) inside += f > 0.05 && f < 1.0;
  CHECK(inside >= 2);

  // Cancelled at the first report inside the group: the sweep stops there.
  control.progress = [&](double f) { return !(f > 0.05 && f < 1.0); };
  auto r = explore(req, control);
  REQUIRE_FALSE(r.ok());
  CHECK(r.errors().front().code == "cancelled");
}

TEST_CASE("explore: several threads give exactly the answer of one") {
  const ExploreRequest req = parse_ok(small_request());
  const json one = to_json(explore_ok(req, 1));
  const json three = to_json(explore_ok(req, 3));
  CHECK(one["plans"] == three["plans"]);
  CHECK(one["pareto"] == three["pareto"]);
  CHECK(one["best"] == three["best"]);
}

TEST_CASE("explore: api::explore answers with the JSON contract") {
  json reply = json::parse(api::explore(small_request().dump()));
  REQUIRE(reply["ok"] == true);
  const json& r = reply["result"];
  for (const char* key : {"plans", "pareto", "best_time", "best_cost", "best", "baseline", "question", "stats"})
    CHECK_MESSAGE(r.contains(key), key);
  for (const char* key : {"tp", "pp", "dp", "virtual_stages", "micro_batch", "recompute", "sequence_parallel",
                          "zero_stage", "num_gpus", "iteration_time_s", "training_days", "gpu_hours", "cost_usd",
                          "energy_MWh", "mfu", "memory_GiB", "fits_in_memory", "feasible", "pareto"})
    CHECK_MESSAGE(r["plans"][0].contains(key), key);
  // Whether a plan can run is the core's word, not a rule each reader writes again.
  for (const json& p : r["plans"])
    CHECK(p["feasible"] == (p["simulated"] == true && p["fits_in_memory"] == true && p["within_gpu_limit"] == true));
  CHECK(r["pareto"].size() >= 1);
  CHECK(r["pareto"][0].contains("index"));
  CHECK(r["plans"][r["best_cost"]["index"].get<int>()]["pareto"] == true);

  reply = json::parse(api::explore(R"({"case": "mt-nlg", "explore": {"tp": [5]}})"));
  REQUIRE(reply["ok"] == false);
  CHECK(reply["errors"][0]["pointer"] == "/explore/tp/0");
  reply = json::parse(api::explore("{nope"));
  CHECK(reply["errors"][0]["code"] == "syntax");
}

TEST_CASE("explore: without a price the cheapest plan is the one of fewest GPU-hours, and no cost is given") {
  json j = small_request();
  const ExploreResult priced = explore_ok(parse_ok(j));
  j["cluster"].erase("price_per_gpu_hour_usd");
  const ExploreResult unpriced = explore_ok(parse_ok(j));
  // GPU-hours rank alike at every price: the same cheapest plan and frontier.
  CHECK(unpriced.best_cost == priced.best_cost);
  CHECK(unpriced.pareto == priced.pareto);
  const json out = to_json(unpriced);
  CHECK(out["best_cost"]["cost_usd"].is_null());
  CHECK(out["best_cost"]["gpu_hours"].get<double>() > 0);
  // Every plan, simulated or not, gives no dollar figure (plans[0] alone could be unsimulated,
  // whose cost is null anyway).
  int simulated = 0;
  for (const json& p : out["plans"]) {
    CHECK(p["cost_usd"].is_null());
    if (p["simulated"].get<bool>()) {
      ++simulated;
      CHECK(p["gpu_hours"].get<double>() > 0);
    }
  }
  CHECK(simulated > 0);
  CHECK(to_json(priced)["best_cost"]["cost_usd"].get<double>() ==
        doctest::Approx(2.5 * out["best_cost"]["gpu_hours"].get<double>()));
}
