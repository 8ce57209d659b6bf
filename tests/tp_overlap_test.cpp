// Transformer Engine's userbuffers overlap of the tensor-parallel collectives (plan.tp_comm_overlap):
// docs/config.md, docs/gpus.md.
#include <doctest/doctest.h>

#include <string>

#include "iteration/kernels.hpp"
#include "test_util.hpp"
#include "vtrain/api.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

// Llama 3 70B on 64 H100s in FP8 with sequence parallelism: the shape NVIDIA's userbuffers
// configurations are written for.
json overlap_config(int tp, bool sp, bool overlap, const char* precision = "fp8") {
  json j = json::parse(R"({
    "model": {"preset": "llama3-70b"},
    "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 64, "gpus_per_node": 8},
    "plan": {"pp": 8, "micro_batch": 1, "global_batch": 64, "virtual_stages": 5, "recompute": "none",
             "attention": "flash", "dp_overlap": true, "zero_stage": 1}
  })");
  j["plan"]["tp"] = tp;
  j["plan"]["dp"] = 64 / 8 / tp;
  j["plan"]["sequence_parallel"] = sp;
  j["plan"]["tp_comm_overlap"] = overlap;
  j["plan"]["precision"] = precision;
  return j;
}

double collective_bytes(const std::vector<detail::Kernel>& ks) {
  double s = 0;
  for (const auto& k : ks)
    if (k.kind == detail::KernelKind::collective) s += k.comm_bytes;
  return s;
}

}  // namespace

TEST_CASE("tp_comm_overlap: the tensor-parallel collectives hide behind their GEMMs, the GEMMs slow") {
  SimConfig plain_config = test::parse_ok(overlap_config(4, true, false));
  SimConfig ub_config = test::parse_ok(overlap_config(4, true, true));
  plain_config.output.operators = ub_config.output.operators = true;
  const SimResult plain = test::simulate_ok(plain_config);
  const SimResult ub = test::simulate_ok(ub_config);
  // Exposed tensor-parallel time falls to a fraction: only what outlasts a GEMM, and a chunk.
  CHECK(plain.breakdown.tp_comm_exposed > 0);
  CHECK(ub.breakdown.tp_comm_exposed < 0.35 * plain.breakdown.tp_comm_exposed);
  CHECK(ub.iteration_time_s < plain.iteration_time_s);
  // The SMs the reduce-scatter pipelines take slow the row-parallel GEMMs beside them.
  const OperatorTime* down_plain = test::operator_row(plain, "layer", "MLP down projection");
  const OperatorTime* down_ub = test::operator_row(ub, "layer", "MLP down projection");
  REQUIRE(down_plain);
  REQUIRE(down_ub);
  CHECK(down_ub->forward_s > down_plain->forward_s);
  CHECK(down_ub->forward_s < 1.25 * down_plain->forward_s);
  // The work is the same: FLOPs unchanged.
  CHECK(ub.model_flops_per_iteration == doctest::Approx(plain.model_flops_per_iteration).epsilon(1e-12));
}

TEST_CASE("tp_comm_overlap: FP8 activations travel as FP8, and the backward gathers the input again") {
  const SimConfig bf16 = test::parse_ok(overlap_config(4, true, true, "bf16"));
  const SimConfig fp8 = test::parse_ok(overlap_config(4, true, true, "fp8"));
  const auto kb = detail::build_kernels(bf16.model, bf16.plan);
  const auto kf = detail::build_kernels(fp8.model, fp8.plan);
  // Forward: two all-gathers and two reduce-scatters of T x h, 2 bytes each in bf16, 1 in FP8.
  const double T = 8192, h = 8192;
  CHECK(collective_bytes(kb.layer_fwd) == doctest::Approx(4 * 2 * T * h));
  CHECK(collective_bytes(kf.layer_fwd) == doctest::Approx(4 * 1 * T * h));
  // Backward in bf16: two gathers of the output gradients, two of the inputs again (for the weight
  // gradients) and two reduce-scatters of the input gradients.
  CHECK(collective_bytes(kb.layer_bwd) == doctest::Approx(6 * 2 * T * h));
  const SimConfig plain = test::parse_ok(overlap_config(4, true, false, "bf16"));
  const auto kp = detail::build_kernels(plain.model, plain.plan);
  CHECK(collective_bytes(kp.layer_bwd) == doctest::Approx(4 * 2 * T * h));
}

TEST_CASE("tp_comm_overlap: nothing to overlap at tp 1, and without sequence parallelism a warning") {
  const SimResult one = test::simulate_ok(test::parse_ok(overlap_config(1, false, true)));
  const SimResult one_plain = test::simulate_ok(test::parse_ok(overlap_config(1, false, false)));
  CHECK(one.iteration_time_s == doctest::Approx(one_plain.iteration_time_s).epsilon(1e-12));

  const SimResult no_sp = test::simulate_ok(test::parse_ok(overlap_config(4, false, true)));
  const SimResult no_sp_plain = test::simulate_ok(test::parse_ok(overlap_config(4, false, false)));
  CHECK(no_sp.iteration_time_s == doctest::Approx(no_sp_plain.iteration_time_s).epsilon(1e-12));
  CHECK(test::warning(no_sp, WarningCode::no_effect, "/plan/tp_comm_overlap"));
}

TEST_CASE("tp_comm_overlap: a collective longer than its GEMM is exposed by the difference and one chunk") {
  // On a slow link the all-gather outlasts the q, k, v GEMM: exposed = C - G + G / chunks.
  SimConfig c = test::parse_ok(overlap_config(4, true, true, "bf16"));
  c.cluster.intra_node_GBps = 1;
  auto r = simulate(c);
  REQUIRE(r.ok());
  auto k = detail::build_kernels(c.model, c.plan);
  int gathers = 0;
  for (size_t i = 0; i < k.layer_fwd.size(); ++i) {
    const auto& g = k.layer_fwd[i];
    if (g.kind != detail::KernelKind::collective || g.beside_from < 0) continue;
    CHECK(g.beside_from == static_cast<int>(i) - 1);  // beside the GEMM just before it
    CHECK(k.layer_fwd[g.beside_from].kind == detail::KernelKind::gemm);
    CHECK(g.overlap_chunks >= 4);
    ++gathers;
  }
  CHECK(gathers == 4);
  CHECK(r.value().breakdown.tp_comm_exposed > 0);
}
