#include <algorithm>

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "vtrain/model.hpp"
#include "vtrain/optimal.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

// A small question that sweeps quickly: one day on 64 GPUs.
json small_request() {
  return json::parse(R"({
    "budget": {"days": 1},
    "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 64, "gpus_per_node": 8, "price_per_gpu_hour_usd": 2.0},
    "seq_len": 2048, "global_batch": 256, "family": "gpt", "scaling": "hoffmann2022"
  })");
}

OptimalResult run(const json& j) {
  auto req = parse_optimal_request(j);
  REQUIRE_MESSAGE(req.ok(), (req.ok() ? "" : req.errors().front().message));
  auto res = optimal(req.value());
  REQUIRE_MESSAGE(res.ok(), (res.ok() ? "" : res.errors().front().message));
  return res.value();
}

}  // namespace

TEST_CASE("optimal: candidates have head dimension 128 and widths in multiples of 256") {
  for (ModelFamily f : {ModelFamily::gpt, ModelFamily::llama}) {
    const auto models = candidate_models(f, 2048, 1e9, 1e12);
    REQUIRE(models.size() > 20);
    double last = 0;
    for (const auto& m : models) {
      CHECK(m.hidden % 256 == 0);
      CHECK(m.hidden / m.heads == 128);
      CHECK(m.heads % m.kv_heads == 0);
      const double n = count_parameters(m).total;
      CHECK(n >= last);
      last = n;
    }
  }
}

TEST_CASE("optimal: the achievable answer stays within a time budget and never beats the FLOP-only loss") {
  const OptimalResult r = run(small_request());
  REQUIRE(r.achievable >= 0);
  const CandidateResult& a = r.candidates[r.achievable];
  CHECK(a.days_achievable <= r.budget_days * (1 + 1e-9));
  CHECK(a.loss_achievable >= r.flop_only_loss);
  CHECK(a.plan.num_gpus <= 64);
  // It is the lowest loss among the candidates that have a plan.
  for (const auto& c : r.candidates)
    if (c.has_plan) CHECK(a.loss_achievable <= c.loss_achievable);
  // Real speed is below peak, so the FLOP-only tokens take longer than the budget.
  REQUIRE(r.flop_only_candidate >= 0);
  CHECK(r.candidates[r.flop_only_candidate].days_flop_only > r.budget_days);
  json j = to_json(r);
  CHECK(j["achievable"]["training_days"].get<double>() <= 1.0 + 1e-9);
  CHECK(j["curve"].size() == r.candidates.size());
}

TEST_CASE("optimal: a dollar budget is spent, not exceeded") {
  json q = small_request();
  q["budget"] = {{"usd", 20000}};
  const OptimalResult r = run(q);
  REQUIRE(r.achievable >= 0);
  const CandidateResult& a = r.candidates[r.achievable];
  CHECK(a.cost_achievable_usd <= 20000 * (1 + 1e-9));
  CHECK(a.loss_achievable >= r.flop_only_loss);
}

TEST_CASE("optimal: a dollar budget spent on balanced plans trains in days, not years, and says its rule") {
  json q = small_request();
  q["budget"] = {{"usd", 20000}};
  const OptimalResult cheapest = run(q);
  CHECK(to_json(cheapest)["plan_rule"] == json{{"objective", "cost"}});
  q["explore"] = {{"objective", "balanced"}};
  const OptimalResult balanced = run(q);
  CHECK(to_json(balanced)["plan_rule"] == json{{"objective", "balanced"}, {"time_slack", kBalancedSlack}});
  REQUIRE(cheapest.achievable >= 0);
  REQUIRE(balanced.achievable >= 0);
  // Each size takes a plan at most a quarter slower than its fastest, so the money is spent sooner.
  for (const CandidateResult& c : balanced.candidates) {
    if (!c.has_plan) continue;
    const auto same = std::find_if(cheapest.candidates.begin(), cheapest.candidates.end(),
                                   [&](const CandidateResult& x) { return x.params == c.params; });
    REQUIRE(same != cheapest.candidates.end());
    CHECK(c.plan.num_gpus >= same->plan.num_gpus);
    CHECK(c.days_achievable <= same->days_achievable * (1 + 1e-9));
    CHECK(c.cost_achievable_usd <= 20000 * (1 + 1e-9));
  }
  // A time budget has its own rule: the fastest plan.
  CHECK(to_json(run(small_request()))["plan_rule"] == json{{"objective", "time"}});
}

TEST_CASE("optimal: a GPU-hours budget is the same budget in dollars at the price, and needs the price") {
  json q = small_request();
  q["budget"] = {{"gpu_hours", 10000}};
  const OptimalResult r = run(q);
  CHECK(r.request.gpu_hours == 10000);
  CHECK(r.budget_usd == doctest::Approx(10000 * 2.0));
  json j = to_json(r);
  CHECK(j["budget"]["gpu_hours"].get<double>() == doctest::Approx(10000));
  CHECK(j["budget"]["usd"].get<double>() == doctest::Approx(20000));
  q["budget"] = {{"usd", 20000}};
  CHECK(to_json(run(q))["achievable"] == j["achievable"]);

  // Without a price there is no dollar figure to give: an error, not a price of $1.
  q["budget"] = {{"gpu_hours", 10000}};
  q["cluster"].erase("price_per_gpu_hour_usd");
  auto a = parse_optimal_request(q);
  REQUIRE_FALSE(a.ok());
  CHECK(a.errors().front().pointer == "/cluster/price_per_gpu_hour_usd");
}

TEST_CASE("optimal: days beside dollars are a deadline: the plan trains the most tokens within both") {
  json q = small_request();
  q["budget"] = {{"usd", 200000}};
  const OptimalResult money = run(q);
  q["budget"] = {{"usd", 200000}, {"days", 3}};
  const OptimalResult both = run(q);
  CHECK(both.request.deadline_days == 3);
  CHECK(both.budget_days == 3);
  CHECK(to_json(both)["budget"]["deadline_days"] == 3);
  CHECK(to_json(money)["budget"]["deadline_days"].is_null());
  REQUIRE(money.achievable >= 0);
  REQUIRE(both.achievable >= 0);
  // Money alone buys its tokens on the cheapest plans, which take longer than the deadline.
  CHECK(money.candidates[money.achievable].days_achievable > 3);
  REQUIRE(both.candidates.size() == money.candidates.size());
  for (size_t i = 0; i < both.candidates.size(); ++i) {
    const CandidateResult &c = both.candidates[i], &cheapest = money.candidates[i];
    if (!c.has_plan) continue;
    CHECK(c.days_achievable <= 3 * (1 + 1e-9));
    CHECK(c.cost_achievable_usd <= 200000 * (1 + 1e-9));
    // The size's cheapest plan is one of those it chose from: it buys no more within both limits.
    REQUIRE(cheapest.has_plan);
    const double capped = std::min(200000 / cheapest.usd_per_token, 3 * 86400.0 * cheapest.tokens_per_s);
    CHECK(c.tokens_achievable >= capped * (1 - 1e-9));
  }
  // The deadline costs loss, never gains it.
  CHECK(both.candidates[both.achievable].loss_achievable >= money.candidates[money.achievable].loss_achievable - 1e-12);
  // Both limits cap the FLOP-only budget too.
  CHECK(both.flops_budget <= money.flops_budget);

  // Days beside FLOPs, or two money amounts, are still one budget too many.
  q["budget"] = {{"flops", 1e21}, {"days", 3}};
  auto bad = parse_optimal_request(q);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors().front().pointer == "/budget");
  q["budget"] = {{"usd", 1e5}, {"gpu_hours", 1e4}};
  CHECK_FALSE(parse_optimal_request(q).ok());
}

TEST_CASE("optimal: a budget too small or too large for every candidate is an error on /budget") {
  json q = small_request();
  q["budget"] = {{"usd", 1}};
  auto req = parse_optimal_request(q);
  REQUIRE(req.ok());
  auto res = optimal(req.value());
  REQUIRE_FALSE(res.ok());
  CHECK(res.errors().front().pointer == "/budget");
  CHECK(res.errors().front().code == "no_candidates");
  CHECK(res.errors().front().message.find("too small") != std::string::npos);
  q["budget"] = {{"flops", 1e35}};
  res = optimal(parse_optimal_request(q).value());
  REQUIRE_FALSE(res.ok());
  CHECK(res.errors().front().pointer == "/budget");
  CHECK(res.errors().front().message.find("too large") != std::string::npos);
  // Sizes asked for explicitly: the error is theirs.
  q["candidates"] = {{"min_params", 1e3}, {"max_params", 2e3}};
  res = optimal(parse_optimal_request(q).value());
  REQUIRE_FALSE(res.ok());
  CHECK(res.errors().front().pointer == "/candidates");
}

TEST_CASE("optimal: with a fixed ratio the answer is the largest model whose ratio x N tokens fit") {
  json q = small_request();
  q["scaling"] = {{"tokens_per_param", 20}};
  const OptimalResult r = run(q);
  REQUIRE(r.achievable >= 0);
  const CandidateResult& a = r.candidates[r.achievable];
  CHECK(20 * a.params / a.tokens_per_s / 86400 <= r.budget_days);
  for (const auto& c : r.candidates)
    if (c.has_plan && c.params > a.params) CHECK(20 * c.params / c.tokens_per_s / 86400 > r.budget_days);
  CHECK(r.flop_only.tokens == doctest::Approx(20 * r.flop_only.params));
  // The ratio's tokens, loss, days and cost come with every candidate, computed once by the core.
  for (const auto& c : r.candidates) {
    CHECK(c.tokens_at_ratio == doctest::Approx(20 * c.params));
    CHECK(c.loss_at_ratio == doctest::Approx(loss(r.request.fit, c.params, 20 * c.params)));
    if (c.has_plan) CHECK(c.cost_at_ratio_usd == doctest::Approx(c.cost_achievable_usd * c.tokens_at_ratio / c.tokens_achievable));
  }
  CHECK(r.achievable_answer.tokens == a.tokens_at_ratio);
}

TEST_CASE("optimal: the answers are data in the result, and its JSON copies them") {
  const OptimalResult r = run(small_request());
  REQUIRE(r.achievable >= 0);
  REQUIRE(r.flop_only_candidate >= 0);
  const CandidateResult& c = r.candidates[r.achievable];
  const OptimalAnswer& a = r.achievable_answer;
  CHECK(a.candidate == r.achievable);
  CHECK(a.tokens == c.tokens_achievable);
  CHECK(a.training_days == doctest::Approx(c.days_achievable));
  CHECK(a.cost_usd == doctest::Approx(a.gpu_hours * 2.0));
  CHECK(r.alternative_answers.size() == r.alternatives.size());
  const CandidateResult& near = r.candidates[r.flop_only_candidate];
  CHECK(r.flop_only_nearest.params == near.params);
  CHECK(r.flop_only_nearest.tokens * near.params == doctest::Approx(r.flop_only.tokens * r.flop_only.params));
  CHECK(r.flop_only_days == doctest::Approx(r.flop_only.tokens / near.tokens_per_s / 86400));

  const json j = to_json(r);
  CHECK(j["achievable"]["params"] == a.params);
  CHECK(j["achievable"]["tokens"] == a.tokens);
  CHECK(j["achievable"]["loss"] == a.loss);
  CHECK(j["achievable"]["training_days"] == a.training_days);
  CHECK(j["achievable"]["cost_usd"] == a.cost_usd);
  CHECK(j["flop_only"]["training_days"] == r.flop_only_days);
  CHECK(j["flop_only"]["cost_usd"] == r.flop_only_cost_usd);
  // Its cost in GPU-hours at the cluster's price, as the achievable answer's.
  CHECK(r.flop_only_gpu_hours * r.request.cluster.price_per_gpu_hour_usd == doctest::Approx(r.flop_only_cost_usd));
  CHECK(j["flop_only"]["gpu_hours"] == r.flop_only_gpu_hours);
  CHECK(j["flop_only"]["nearest_candidate"]["tokens"] == r.flop_only_nearest.tokens);
  for (size_t i = 0; i < r.alternative_answers.size(); ++i)
    CHECK(j["alternatives"][i]["loss"] == r.alternative_answers[i].loss);

  // The budget in every unit: one day on 64 GPUs at $2 a GPU-hour and the A100's peak.
  const BudgetEquivalents& eq = r.budget_equivalents;
  CHECK(eq.gpu_hours == doctest::Approx(24 * 64));
  CHECK(eq.days == doctest::Approx(1));
  CHECK(eq.usd == doctest::Approx(24 * 64 * 2.0));
  CHECK(eq.flops == doctest::Approx(r.flops_budget));
  CHECK(j["budget"]["equivalent"]["usd"] == eq.usd);
}

TEST_CASE("optimal: bad requests name the field") {
  json q = small_request();
  q.erase("budget");
  auto a = parse_optimal_request(q);
  REQUIRE_FALSE(a.ok());
  CHECK(a.errors().front().pointer == "/budget");

  q = small_request();
  q["budget"] = {{"days", 1}, {"gpu_days", 5}};
  a = parse_optimal_request(q);
  REQUIRE_FALSE(a.ok());
  CHECK(a.errors().front().pointer == "/budget");

  // A bad budget value is one error, its own; not also "give exactly one".
  q = small_request();
  q["budget"] = {{"days", 0}};
  a = parse_optimal_request(q);
  REQUIRE_FALSE(a.ok());
  CHECK(a.errors().size() == 1);
  CHECK(a.errors().front().pointer == "/budget/days");

  q = small_request();
  q["plan"] = {{"tp", 8}};
  a = parse_optimal_request(q);
  REQUIRE_FALSE(a.ok());
  CHECK(a.errors().front().pointer == "/plan/tp");

  q = small_request();
  q["scaling"] = "kaplan2020";
  a = parse_optimal_request(q);
  REQUIRE_FALSE(a.ok());
  CHECK(a.errors().front().pointer == "/scaling");

  q = small_request();
  q["cluster"]["gpu"] = "v100";
  a = parse_optimal_request(q);
  REQUIRE_FALSE(a.ok());
  CHECK(a.errors().front().pointer == "/cluster/gpu");

  // The cluster and the plan's shared fields are read as simulate reads them.
  q = small_request();
  q["plan"] = {{"precision", "fp4"}};
  a = parse_optimal_request(q);
  REQUIRE_FALSE(a.ok());
  CHECK(a.errors().front().pointer == "/plan/precision");
  CHECK(a.errors().front().code == "enum");
  q = small_request();
  q["cluster"]["gpus"] = 8;
  a = parse_optimal_request(q);
  REQUIRE_FALSE(a.ok());
  CHECK(a.errors().front().pointer == "/cluster/gpus");
  CHECK(a.errors().front().code == "unknown_key");
  q = small_request();
  q["cluster"].erase("num_gpus");
  a = parse_optimal_request(q);
  REQUIRE_FALSE(a.ok());
  CHECK(a.errors().front().pointer == "/cluster/num_gpus");

  a = parse_optimal_request(json{{"preset", "nope"}});
  REQUIRE_FALSE(a.ok());
  CHECK(a.errors().front().pointer == "/preset");
}

TEST_CASE("optimal: a batch too large to sweep is refused at once, naming the field") {
  // A million sequences per batch: every candidate's plans hold hundreds of thousands of
  // micro-batches. The candidates' pipeline blocks are counted before any is simulated, and their
  // sum is held to explore's bound (before, each candidate had the whole bound: the request ran
  // for minutes and passed over the candidates whose sweep was refused as if no plan could train
  // them).
  json q = small_request();
  q["global_batch"] = 1000000;
  auto req = parse_optimal_request(q);
  REQUIRE(req.ok());
  auto res = optimal(req.value());
  REQUIRE_FALSE(res.ok());
  CHECK(res.errors().front().code == "too_large");
  CHECK(res.errors().front().pointer == "/global_batch");
}
