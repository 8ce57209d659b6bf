// Goodput: expected wall-clock days of a run with failures, restarts and checkpoints.

#include <cmath>
#include <vector>

#include <doctest/doctest.h>

#include "test_util.hpp"
#include "vtrain/explore.hpp"
#include "vtrain/reliability.hpp"

using namespace vtrain;

TEST_CASE("reliability: a failure rate of zero gives expected days equal to the ideal days") {
  ReliabilityConfig r;
  r.failures_per_gpu_hour = 0;
  const Goodput g = goodput(r, 30 * 86400.0, 175e9, 12288, 8);
  CHECK(g.finite);
  CHECK(g.expected_days == g.ideal_days);
  CHECK(g.ideal_days == doctest::Approx(30));
  CHECK(g.lost_share == 0);
  CHECK(g.failures == 0);
  CHECK(g.checkpoint_days == 0);

  // Through the simulator: the same.
  nlohmann::json j = test::small_config();
  j["training"]["tokens"] = 1e10;
  j["reliability"]["failures_per_gpu_hour"] = 0;
  const SimResult s = test::simulate_ok(test::parse_ok(j));
  CHECK(s.goodput.expected_days == s.training_days);
  CHECK(s.goodput.ideal_days == s.training_days);
}

TEST_CASE("reliability: the parts add up to the expected days, and failures lengthen a run") {
  ReliabilityConfig r;  // the defaults: Llama 3's failure rate
  const Goodput g = goodput(r, 30 * 86400.0, 175e9, 12288, 8);
  REQUIRE(g.finite);
  CHECK(g.expected_days > g.ideal_days);
  CHECK(g.ideal_days + g.checkpoint_days + g.lost_work_days + g.restart_days == doctest::Approx(g.expected_days));
  CHECK(g.failures == doctest::Approx(g.expected_days * 24 / g.job_mtbf_hours));
  // More GPUs fail more often: the same ideal time on twice the GPUs loses a larger share.
  const Goodput twice = goodput(r, 30 * 86400.0, 175e9, 2 * 12288, 8);
  CHECK(twice.lost_share > g.lost_share);
  // A node MTBF gives the rate per node.
  ReliabilityConfig n;
  n.node_mtbf_hours = 1000;
  CHECK(job_failure_rate_per_hour(n, 1024, 8) == doctest::Approx(128.0 / 1000));
}

TEST_CASE("reliability: the optimal (Young-Daly) interval minimizes the expected overhead among intervals tried") {
  for (const double write_s : {2.0, 30.0, 300.0}) {
    for (const double mtbf_s : {3600.0, 11000.0, 86400.0}) {
      for (const double restart_s : {0.0, 900.0}) {
        const double best = optimal_checkpoint_interval_s(write_s, mtbf_s, restart_s);
        REQUIRE(best > 0);
        const double at_best = expected_overhead(best, write_s, mtbf_s, restart_s);
        for (double f = 0.05; f <= 20; f *= 1.1) {
          if (std::abs(f - 1) < 1e-9) continue;
          CHECK(expected_overhead(best * f, write_s, mtbf_s, restart_s) >= at_best);
        }
      }
    }
  }
  // With a write and a restart far shorter than the MTBF it is Young's sqrt(2 C M).
  CHECK(optimal_checkpoint_interval_s(1.0, 1e6, 0) == doctest::Approx(std::sqrt(2e6)).epsilon(0.002));
  // An interval set by the config is the one used.
  ReliabilityConfig r;
  r.checkpoint_interval_minutes = 60;
  const Goodput g = goodput(r, 86400.0, 7e9, 1024, 8);
  CHECK_FALSE(g.interval_optimal);
  CHECK(g.checkpoint_interval_minutes == 60);
  ReliabilityConfig o;
  CHECK(goodput(o, 86400.0, 7e9, 1024, 8).expected_days < g.expected_days);
}

TEST_CASE("reliability: failures faster than progress give no finite time") {
  ReliabilityConfig r;
  r.failures_per_gpu_hour = 1;  // a failure every few seconds on 1024 GPUs
  const Goodput g = goodput(r, 86400.0, 7e9, 1024, 8);
  CHECK_FALSE(g.finite);
}

// Llama 3 405B's pre-training (Llama Team 2024, arXiv 2407.21783, section 3.3.4): 419 unexpected
// interruptions in a 54-day snapshot on 16,384 H100 GPUs, with "higher than 90% effective training
// time": at most a tenth of the time lost. With the defaults (that failure rate, its storage's 2 TB/s,
// a 405B model's checkpoint) the model's share lost is within a quarter of that tenth.
TEST_CASE("reliability: Llama 3 405B's interruption-driven loss is reproduced within a quarter") {
  ReliabilityConfig r;
  const Goodput g = goodput(r, 48 * 86400.0, 405e9, 16384, 8);
  REQUIRE(g.finite);
  CHECK(g.lost_share == doctest::Approx(0.10).epsilon(0.25));
  // The failures over 54 days of wall-clock time are the 419 reported.
  CHECK(g.failures * 54 / g.expected_days == doctest::Approx(419).epsilon(1e-9));
}

TEST_CASE("reliability: the section is read, checked and written back") {
  nlohmann::json j = test::small_config();
  j["reliability"] = {{"restart_minutes", 5}, {"storage_GBps", 100}, {"checkpoint_interval_minutes", 30}};
  const SimConfig c = test::parse_ok(j);
  CHECK(c.reliability.restart_minutes == 5);
  CHECK(c.reliability.checkpoint_interval_minutes == 30);
  CHECK(to_json(c)["reliability"]["storage_GBps"] == 100);
  j["reliability"] = {{"storage_GBps", 0}};
  auto bad = parse_sim_config(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors().front().pointer == "/reliability/storage_GBps");
  j["reliability"] = {{"restart_minute", 5}};
  bad = parse_sim_config(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors().front().pointer == "/reliability/restart_minute");
}

TEST_CASE("reliability: the explorer ranks by expected days") {
  nlohmann::json j = test::small_config();
  j["training"]["tokens"] = 1e10;
  j["reliability"]["failures_per_gpu_hour"] = 0.02;  // on 8 GPUs, a failure every 6.25 hours
  j["explore"] = {{"objective", "expected_time"}};
  auto req = parse_explore_request(j);
  REQUIRE(req.ok());
  auto res = explore(req.value());
  REQUIRE(res.ok());
  const ExploreResult& r = res.value();
  REQUIRE(r.best >= 0);
  for (const PlanEstimate& p : r.plans) {
    if (!p.feasible()) continue;
    CHECK(p.expected_days >= p.training_days);
    CHECK(r.plans[r.best].expected_days <= p.expected_days);
  }
}
