// The slowest GPU: a step that synchronizes n GPUs runs at the pace of the slowest of them, its
// compute longer by the profile's gpu_speed_spread times the expected maximum of n standard
// normal draws (docs/large-scale.md, "Stragglers").

#include <cmath>
#include <vector>

#include <doctest/doctest.h>

#include "iteration/kernels.hpp"
#include "test_util.hpp"
#include "vtrain/profile.hpp"

using namespace vtrain;

namespace {

Profile with_spread(double spread) {
  Profile p = *bundled_profiles().find("a100-sxm4-80gb");
  p.gpu_speed_spread = spread;
  return p;
}

}  // namespace

TEST_CASE("stragglers: the expected slowest of n standard normal draws") {
  // Exact values (numerical integration of n x phi(x) Phi(x)^(n-1)) against the function: the table
  // to 8 draws, the asymptotic expansion beyond, above the exact expectation by at most 0.1, and by
  // at most 0.03 from 1,024 draws on.
  const std::vector<std::pair<int, double>> exact = {
      {1, 0.0}, {2, 0.5642}, {8, 1.4236}, {9, 1.4850}, {16, 1.7660}, {64, 2.3437}, {1024, 3.2482}, {16384, 3.9714}};
  for (const auto& entry : exact) {
    const int n = entry.first;  // not a structured binding: CAPTURE's lambda cannot take one in C++20
    const double e = entry.second;
    CAPTURE(n);
    const double error = detail::expected_max_normal(n) - e;
    CHECK(error > -1e-4);
    CHECK(error < (n <= 8 ? 1e-4 : n < 1024 ? 0.1 : 0.031));
  }
  // It grows with the number of draws, without a step where the table ends.
  double last = 0;
  for (int n = 2; n <= 1 << 20; n = n < 64 ? n + 1 : n * 2) {
    CAPTURE(n);
    const double e = detail::expected_max_normal(n);
    CHECK(e > last);
    CHECK(e - last < 0.6);
    last = e;
  }
}

TEST_CASE("stragglers: with no spread the slowest GPU adds nothing") {
  const Profile none = with_spread(0);
  for (const nlohmann::json& j :
       {test::gpt3_at_scale(8, 1), test::gpt3_at_scale(8, 16), test::gpt3_at_scale(16, 64)}) {
    const SimResult r = test::simulate_ok(test::parse_ok(j), &none);
    CHECK(r.breakdown.straggler_wait == 0);
    CHECK(r.details.straggler_wait_s == 0);
    CHECK(r.breakdown.total() == doctest::Approx(r.iteration_time_s).epsilon(1e-12));
  }
}

TEST_CASE("stragglers: the wait grows with the GPUs synchronized and adds up") {
  const double spread = 0.015;
  const Profile none = with_spread(0), some = with_spread(spread);
  double last_share = 0;
  for (const int dp : {1, 4, 16, 64, 256}) {
    CAPTURE(dp);
    const SimConfig c = test::parse_ok(test::gpt3_at_scale(8, dp));
    const SimResult base = test::simulate_ok(c, &none);
    const SimResult r = test::simulate_ok(c, &some);
    const SimDetails& d = r.details;
    // The step is longer by exactly the wait, which is the spread x E[max of n] x the compute.
    CHECK(r.iteration_time_s == doctest::Approx(base.iteration_time_s + d.straggler_wait_s).epsilon(1e-12));
    CHECK(d.straggler_slowest_sigmas == doctest::Approx(detail::expected_max_normal(8 * 8 * dp)));
    CHECK(d.straggler_wait_s ==
          doctest::Approx(spread * d.straggler_slowest_sigmas * d.straggler_compute_s).epsilon(1e-12));
    const Breakdown& b = r.breakdown;
    CHECK(d.straggler_compute_s >= b.forward + b.backward + b.recompute + b.optimizer - 1e-12);
    // Its parts, by the synchronization that adds each, add up to it; no replicas, no data part.
    CHECK(d.straggler_tensor_s + d.straggler_pipeline_s + d.straggler_data_s ==
          doctest::Approx(d.straggler_wait_s).epsilon(1e-12));
    CHECK(d.straggler_tensor_s == doctest::Approx(spread * detail::expected_max_normal(8) * d.straggler_compute_s));
    CHECK(d.straggler_pipeline_s > 0);
    CHECK((dp == 1) == (d.straggler_data_s == 0));
    // The breakdown carries it, and still adds up to the iteration.
    CHECK(b.straggler_wait == d.straggler_wait_s);
    CHECK(b.total() == doctest::Approx(r.iteration_time_s).epsilon(1e-12));
    // More GPUs to wait for: a larger share of the step.
    const double share = d.straggler_wait_s / d.straggler_compute_s;
    CHECK(share > last_share);
    last_share = share;
  }
  // One GPU waits for no one.
  nlohmann::json one = test::small_config();
  test::set_parallelism(one, 1, 1, 1);
  one["plan"]["global_batch"] = 4;
  CHECK(test::simulate_ok(test::parse_ok(one), &some).details.straggler_wait_s == 0);
}

TEST_CASE("stragglers: a cluster's spread overrides the profile's") {
  nlohmann::json j = test::gpt3_at_scale(8, 16);
  const SimResult base = test::simulate_ok(test::parse_ok(j));
  CHECK(base.details.straggler_wait_s == 0);  // the bundled profiles have no spread
  j["cluster"]["gpu_speed_spread"] = 0.015;
  const SimConfig c = test::parse_ok(j);
  const SimResult r = test::simulate_ok(c);
  const Profile some = with_spread(0.015);
  CHECK(r.iteration_time_s == test::simulate_ok(test::parse_ok(test::gpt3_at_scale(8, 16)), &some).iteration_time_s);
  CHECK(r.details.gpu_speed_spread == 0.015);
  CHECK(r.iteration_time_s > base.iteration_time_s);
  // It round-trips through the config, and out of bounds it names the field.
  CHECK(to_json(c)["cluster"]["gpu_speed_spread"] == 0.015);
  j["cluster"]["gpu_speed_spread"] = 0.3;
  auto bad = parse_sim_config(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors().front().pointer == "/cluster/gpu_speed_spread");
}

TEST_CASE("stragglers: a profile's spread is read, written and bounded") {
  nlohmann::json j = to_json(with_spread(0.015));
  CHECK(j["compute"]["gpu_speed_spread"] == 0.015);
  auto back = parse_profile(j);
  REQUIRE(back.ok());
  CHECK(back.value().gpu_speed_spread == 0.015);
  // Left out: no spread.
  j["compute"].erase("gpu_speed_spread");
  CHECK(parse_profile(j).value().gpu_speed_spread == 0);
  j["compute"]["gpu_speed_spread"] = 0.5;
  auto bad = parse_profile(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors().front().pointer == "/compute/gpu_speed_spread");
  j["compute"]["gpu_speed_spread"] = -0.01;
  CHECK_FALSE(parse_profile(j).ok());
}
