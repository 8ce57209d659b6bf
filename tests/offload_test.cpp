// Optimizer offload (plan.optimizer_offload, ZeRO-Offload): the optimizer states in host memory,
// the gradients down and the weights back over PCIe, Adam on the CPU.
#include <doctest/doctest.h>

#include "test_util.hpp"
#include "vtrain/profile.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

// A 13B GPT on one node of A100s, data-parallel with ZeRO stage `zero`.
json offload_config(int zero, bool offload, int dp = 8) {
  json j = test::small_config();
  j["model"] = {{"layers", 40}, {"hidden", 5120}, {"heads", 40}, {"seq_len", 2048}, {"vocab", 50257}};
  test::set_parallelism(j, 1, 1, dp);
  j["plan"]["micro_batch"] = 4;
  j["plan"]["global_batch"] = 256;
  j["plan"]["zero_stage"] = zero;
  j["plan"]["dp_overlap"] = true;
  j["plan"]["optimizer_offload"] = offload;
  j["output"]["timeline"] = false;
  return j;
}

SimResult run(const json& j, const Profile* prof = nullptr) { return test::simulate_ok(test::parse_ok(j), prof); }

}  // namespace

TEST_CASE("offload: the optimizer states leave the GPU, the work stays the same") {
  for (int zero : {1, 2, 3}) {
    CAPTURE(zero);
    const SimResult on = run(offload_config(zero, true)), off = run(offload_config(zero, false));
    CHECK(on.model_flops_per_iteration == off.model_flops_per_iteration);
    CHECK(on.hardware_flops_per_iteration == off.hardware_flops_per_iteration);
    CHECK(on.memory.optimizer_states == 0);
    CHECK(off.memory.optimizer_states > 0);
    CHECK(on.memory.weights == doctest::Approx(off.memory.weights));
    CHECK(on.memory.total() < off.memory.total());
    // ZeRO-1 reduces the gradients after the backward: they stay; ZeRO-2 and -3 keep a bucket or a unit.
    if (zero == 1) CHECK(on.memory.gradients == doctest::Approx(off.memory.gradients));
    if (zero >= 2) CHECK(on.memory.gradients < off.memory.gradients / 4);
    REQUIRE(on.details.offload);
    CHECK_FALSE(off.details.offload);
    // The host holds the shard's fp32 weights, moments and gradients: 16 bytes a parameter.
    CHECK(on.details.offload_host_GiB * 1024.0 * 1024.0 * 1024.0 ==
          doctest::Approx(off.memory.optimizer_states * 1024.0 * 1024.0 * 1024.0 * 16.0 / 12.0).epsilon(0.01));
    // The step is the parts the details name; the gradient copy's exposed part is no more than all of it.
    const SimDetails& d = on.details;
    CHECK(d.offload_gradient_exposed_s <= d.offload_gradient_copy_s);
    CHECK(on.breakdown.optimizer == doctest::Approx(d.offload_gradient_exposed_s + d.offload_cpu_step_s +
                                                    d.offload_parameter_copy_s));
    // ZeRO-1 reduces after the backward, so nothing hides the copy; ZeRO-2 with overlap and ZeRO-3
    // reduce during it, and the copies follow the reductions.
    if (zero == 1) CHECK(d.offload_gradient_exposed_s == doctest::Approx(d.offload_gradient_copy_s));
    else CHECK(d.offload_gradient_exposed_s < d.offload_gradient_copy_s / 2);
  }
}

TEST_CASE("offload: a host with unbounded PCIe and memory costs nothing; a slower one never speeds a step up") {
  Profile fast = *bundled_profiles().find("a100-sxm4-80gb");
  fast.pcie_GBps = 1e9;
  fast.host_memory_GBps = 1e9;
  const SimResult instant = run(offload_config(2, true), &fast);
  CHECK(instant.breakdown.optimizer < 1e-6);
  const SimResult on_gpu = run(offload_config(2, false), &fast);
  CHECK(instant.iteration_time_s <= on_gpu.iteration_time_s);

  Profile slow = *bundled_profiles().find("a100-sxm4-80gb");
  const SimResult bundled = run(offload_config(2, true));
  slow.pcie_GBps /= 2;
  const SimResult half_pcie = run(offload_config(2, true), &slow);
  CHECK(half_pcie.iteration_time_s > bundled.iteration_time_s);
  CHECK(half_pcie.details.offload_parameter_copy_s == doctest::Approx(2 * bundled.details.offload_parameter_copy_s));
  slow.host_memory_GBps /= 2;
  const SimResult half_host = run(offload_config(2, true), &slow);
  CHECK(half_host.details.offload_cpu_step_s == doctest::Approx(2 * bundled.details.offload_cpu_step_s));
}

TEST_CASE("offload: each GPU's CPU step falls as 1/dp once the nodes are full") {
  // Two nodes: each GPU's shard halves, and each GPU's share of its node's host memory is the same.
  const SimResult one = run(offload_config(2, true, 8)), two = run(offload_config(2, true, 16));
  CHECK(two.details.offload_cpu_step_s == doctest::Approx(one.details.offload_cpu_step_s / 2).epsilon(0.01));
  CHECK(two.details.offload_host_GiB == doctest::Approx(one.details.offload_host_GiB / 2).epsilon(0.01));
  // One GPU alone has the whole host: its step moves 8 times the bytes at 8 times the bandwidth.
  const SimResult alone = run(offload_config(2, true, 1));
  CHECK(alone.details.offload_cpu_step_s == doctest::Approx(one.details.offload_cpu_step_s).epsilon(0.01));
}

TEST_CASE("offload: refused without a sharded optimizer or a host in the profile") {
  auto bad = parse_sim_config(offload_config(0, true));
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors().front().pointer == "/plan/optimizer_offload");
  CHECK(bad.errors().front().message.find("zero_stage") != std::string::npos);

  Profile no_host = *bundled_profiles().find("a100-sxm4-80gb");
  no_host.pcie_GBps = 0;
  auto refused = simulate(test::parse_ok(offload_config(2, true)), &no_host);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.errors().front().pointer == "/plan/optimizer_offload");
  CHECK(refused.errors().front().message.find("pcie_GBps") != std::string::npos);
  // Without offload the same profile simulates.
  CHECK(simulate(test::parse_ok(offload_config(2, false)), &no_host).ok());
}
