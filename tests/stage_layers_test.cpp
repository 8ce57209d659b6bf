// Pipeline stages with the layer counts a plan lists (plan.stage_layers): the even split it
// replaces, the slowest stage it makes, stages of only the embedding or the head, its errors, and
// the explorer's sweep beside a listed baseline.

#include <doctest/doctest.h>

#include "test_util.hpp"
#include "vtrain/api.hpp"
#include "vtrain/explore.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

// 16 layers on 3 stages of 2 GPUs (tp 2, dp 1).
json three_stages() {
  json j = test::small_config();
  test::set_parallelism(j, 2, 3, 1);
  j["plan"]["global_batch"] = 16;
  return j;
}

double compute_s(const Breakdown& b) { return b.forward + b.backward + b.recompute; }

bool names(const Diagnostics& e, const std::string& pointer, const std::string& code, const std::string& text) {
  for (const auto& d : e)
    if (d.pointer == pointer && d.code == code && d.message.find(text) != std::string::npos) return true;
  return false;
}

Diagnostics errors_of(const json& j) {
  auto c = parse_sim_config(j);
  REQUIRE_FALSE(c.ok());
  return c.errors();
}

}  // namespace

TEST_CASE("stage_layers: listing the split the plan would take anyway changes nothing but the warning") {
  const json j = three_stages();
  json listed = j;
  listed["plan"]["stage_layers"] = {6, 5, 5};  // DeepSpeed's uniform partition of 16 over 3
  const SimResult a = test::simulate_ok(test::parse_ok(j));
  const SimResult b = test::simulate_ok(test::parse_ok(listed));
  CHECK(b.iteration_time_s == a.iteration_time_s);
  REQUIRE(b.stage_memory.size() == 3);
  for (size_t s = 0; s < 3; ++s) CHECK(b.stage_memory[s].total() == a.stage_memory[s].total());
  CHECK(b.details.layers_per_stage == 6);
  CHECK_FALSE(b.details.even_stages);
  // The split the plan fell into is warned about; the one it chose is not.
  CHECK(test::warning(a, WarningCode::uneven_stages, "/plan/pp") != nullptr);
  CHECK(test::warning(b, WarningCode::uneven_stages, "/plan/pp") == nullptr);

  json even = j;
  test::set_parallelism(even, 2, 4, 1);
  json even_listed = even;
  even_listed["plan"]["stage_layers"] = {4, 4, 4, 4};
  const SimResult e = test::simulate_ok(test::parse_ok(even));
  const SimResult f = test::simulate_ok(test::parse_ok(even_listed));
  CHECK(f.iteration_time_s == e.iteration_time_s);
  CHECK(f.details.even_stages);
}

TEST_CASE("stage_layers: each stage computes and holds its own layers, and the slowest sets the pace") {
  json j = three_stages();
  j["plan"]["stage_layers"] = {4, 4, 8};
  const SimResult r = test::simulate_ok(test::parse_ok(j));
  REQUIRE(r.stage_breakdowns.size() == 3);
  REQUIRE(r.stage_memory.size() == 3);
  // Twice the layers: about twice the compute (the head adds to the last), more weights.
  const double ratio = compute_s(r.stage_breakdowns[2]) / compute_s(r.stage_breakdowns[1]);
  CHECK(ratio > 1.9);
  CHECK(ratio < 2.6);
  CHECK(r.stage_memory[2].weights > 1.9 * r.stage_memory[1].weights);
  CHECK(r.details.layers_per_stage == 8);
  // Eight layers on one stage: slower than the balanced 6, 5, 5, no faster than 2 stages of 8.
  const SimResult balanced = test::simulate_ok(test::parse_ok(three_stages()));
  CHECK(r.iteration_time_s > 1.1 * balanced.iteration_time_s);
  json two = three_stages();
  test::set_parallelism(two, 2, 2, 1);
  const SimResult halves = test::simulate_ok(test::parse_ok(two));
  CHECK(r.iteration_time_s > 0.95 * halves.iteration_time_s);
  // The layers of one stage move to another: its MoE-free parameter count follows.
  json moved = j;
  moved["plan"]["stage_layers"] = {8, 4, 4};
  const SimResult m = test::simulate_ok(test::parse_ok(moved));
  CHECK(m.stage_memory[0].weights > r.stage_memory[0].weights);
  CHECK(m.stage_memory[2].weights < r.stage_memory[2].weights);
}

TEST_CASE("stage_layers: a first stage of the embedding alone, a last of the head alone") {
  json j = three_stages();
  j["plan"]["stage_layers"] = {0, 8, 8};
  const SimResult r = test::simulate_ok(test::parse_ok(j));
  REQUIRE(r.stage_breakdowns.size() == 3);
  CHECK(compute_s(r.stage_breakdowns[0]) > 0);
  CHECK(compute_s(r.stage_breakdowns[0]) < 0.2 * compute_s(r.stage_breakdowns[1]));
  j["plan"]["stage_layers"] = {8, 8, 0};
  const SimResult h = test::simulate_ok(test::parse_ok(j));
  CHECK(compute_s(h.stage_breakdowns[2]) > 0);
  CHECK(compute_s(h.stage_breakdowns[2]) < compute_s(h.stage_breakdowns[1]));
  CHECK(std::isfinite(h.iteration_time_s));
}

TEST_CASE("stage_layers: a list that does not describe the stages is refused, naming the rule") {
  json j = three_stages();
  j["plan"]["stage_layers"] = {8, 8};
  CHECK(names(errors_of(j), "/plan/stage_layers", "range", "one layer count for each of the /plan/pp (3) stages, got 2"));
  j["plan"]["stage_layers"] = {6, 6, 6};
  CHECK(names(errors_of(j), "/plan/stage_layers", "range", "add up to /model/layers (16), got 18"));
  j["plan"]["stage_layers"] = {8, 0, 8};
  CHECK(names(errors_of(j), "/plan/stage_layers", "range", "only for the first or the last stage"));
  j["plan"]["stage_layers"] = {6, -1, 11};
  CHECK(names(errors_of(j), "/plan/stage_layers/1", "range", "between 0 and"));
  j["plan"]["stage_layers"] = 16;
  CHECK(names(errors_of(j), "/plan/stage_layers", "type", "must be an array of whole numbers"));
  json v = test::small_config();
  test::set_parallelism(v, 2, 2, 1);
  v["plan"]["virtual_stages"] = 2;
  v["plan"]["stage_layers"] = {8, 8};
  CHECK(names(errors_of(v), "/plan/stage_layers", "range", "virtual_stages above 1"));
}

TEST_CASE("stage_layers: a config's JSON carries the list, and reads back to the same plan") {
  json j = three_stages();
  j["plan"]["stage_layers"] = {5, 6, 5};
  const SimConfig c = test::parse_ok(j);
  const json out = to_json(c);
  CHECK(out["plan"]["stage_layers"] == json({5, 6, 5}));
  CHECK(test::parse_ok(out).plan == c.plan);
  // Left out: an empty list, the even split.
  CHECK(to_json(test::parse_ok(three_stages()))["plan"]["stage_layers"] == json::array());
}

TEST_CASE("stage_layers: the explorer splits its plans evenly and keeps the listed plan as the baseline") {
  json j = three_stages();
  j["plan"]["stage_layers"] = {4, 4, 8};
  j["training"] = {{"tokens", 1e9}};
  auto req = parse_explore_request(j);
  REQUIRE(req.ok());
  auto res = explore(req.value());
  REQUIRE(res.ok());
  const ExploreResult& r = res.value();
  REQUIRE(r.baseline >= 0);
  CHECK(r.plans[r.baseline].plan.stage_layers == std::vector<int>{4, 4, 8});
  const SimResult s = test::simulate_ok(test::parse_ok(j));
  CHECK(r.plans[r.baseline].iteration_time_s == s.iteration_time_s);
  int listed = 0;
  for (const PlanEstimate& e : r.plans) listed += e.plan.stage_layers.empty() ? 0 : 1;
  CHECK(listed == 1);
  CHECK(r.plans.size() > 10);
}
