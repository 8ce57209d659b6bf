// The layer variants of GPT-J, GPT-NeoX, PaLM and Gemma: the parallel residual (one reduction of
// attention and MLP together), GeGLU, and rotary embedding on part of each head.

#include <doctest/doctest.h>

#include "test_util.hpp"
#include "vtrain/api.hpp"
#include "vtrain/model.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

// 16 layers of width 2048 on tp 4 (one stage, one replica), rotary, no sequence parallelism.
json tp_config(const char* residual) {
  json j = test::small_config();
  test::set_parallelism(j, 4, 1, 1);
  j["plan"]["global_batch"] = 8;
  j["plan"]["recompute"] = "none";
  j["model"]["position"] = "rope";
  j["model"]["residual"] = residual;
  return j;
}

// Forward time of the layer's tensor-parallel collectives (one micro-batch), and their count.
std::pair<double, int> layer_tp_forward(const SimResult& r) {
  double s = 0;
  int kernels = 0;
  for (const OperatorTime& o : r.operators)
    if (o.block == "layer" && o.kind == OperatorKind::collective && o.forward_s > 0) {
      s += o.forward_s;
      kernels += 1;
    }
  return {s, kernels};
}

double layer_work_flops(const SimResult& r) {
  double f = 0;
  for (const OperatorTime& o : r.operators)
    if (o.block == "layer") f += o.work_flops;
  return f;
}

bool names(const Diagnostics& e, const std::string& pointer, const std::string& text) {
  for (const auto& d : e)
    if (d.pointer == pointer && d.message.find(text) != std::string::npos) return true;
  return false;
}

SimResult with_operators(json j) {
  SimConfig c = test::parse_ok(j);
  c.output.operators = true;
  return test::simulate_ok(c);
}

}  // namespace

TEST_CASE("layer variants: a parallel residual reduces attention and MLP once, with the same work") {
  const SimResult seq = with_operators(tp_config("sequential"));
  const SimResult par = with_operators(tp_config("parallel"));
  const SimResult two = with_operators(tp_config("parallel_two_norms"));
  // The same GEMM and attention work and model FLOPs.
  CHECK(layer_work_flops(par) == doctest::Approx(layer_work_flops(seq)).epsilon(1e-12));
  CHECK(par.model_flops_per_iteration == doctest::Approx(seq.model_flops_per_iteration).epsilon(1e-9));
  // One all-reduce of the summed outputs in the forward, where the sequential layer has two.
  const auto [seq_s, seq_n] = layer_tp_forward(seq);
  const auto [par_s, par_n] = layer_tp_forward(par);
  CHECK(seq_s > 0);
  CHECK(par_s == doctest::Approx(seq_s / 2).epsilon(1e-9));
  CHECK(seq.breakdown.tp_comm_exposed > par.breakdown.tp_comm_exposed);
  CHECK(par.iteration_time_s < seq.iteration_time_s);
  // GPT-NeoX's second norm: one more norm's time and parameters, nothing else.
  CHECK(two.iteration_time_s > par.iteration_time_s);
  CHECK(two.iteration_time_s < seq.iteration_time_s);
  const auto norm_params = [](const char* residual) {
    ModelConfig m = test::parse_ok(tp_config(residual)).model;
    return count_parameters(m).total;
  };
  CHECK(norm_params("parallel_two_norms") == norm_params("sequential"));
  CHECK(norm_params("sequential") - norm_params("parallel") == doctest::Approx(16 * 2 * 2048.0));  // a LayerNorm's weight and bias, 16 layers
  // Without tensor parallelism only element-wise kernels differ: within a few percent.
  json one = tp_config("parallel");
  test::set_parallelism(one, 1, 1, 1);
  json one_seq = one;
  one_seq["model"]["residual"] = "sequential";
  const double a = test::simulate_ok(test::parse_ok(one)).iteration_time_s;
  const double b = test::simulate_ok(test::parse_ok(one_seq)).iteration_time_s;
  CHECK(std::abs(a / b - 1) < 0.03);
}

TEST_CASE("layer variants: with sequence parallelism the parallel layer gathers its input once per norm") {
  json par = tp_config("parallel");
  par["plan"]["sequence_parallel"] = true;
  json two = tp_config("parallel_two_norms");
  two["plan"]["sequence_parallel"] = true;
  json seq = tp_config("sequential");
  seq["plan"]["sequence_parallel"] = true;
  // Sequential: two gathers and two reduce-scatters; parallel: one and one; two norms: two and one.
  CHECK(layer_tp_forward(with_operators(seq)).first ==
        doctest::Approx(2 * layer_tp_forward(with_operators(par)).first).epsilon(1e-9));
  CHECK(layer_tp_forward(with_operators(two)).first ==
        doctest::Approx(1.5 * layer_tp_forward(with_operators(par)).first).epsilon(1e-9));
}

TEST_CASE("layer variants: GeGLU is SwiGLU's GEMMs and bytes, named for its gate") {
  json j = test::small_config();
  j["model"]["mlp"] = "swiglu";
  j["model"]["ffn_hidden"] = 5632;
  const SimResult swiglu = with_operators(j);
  j["model"]["mlp"] = "geglu";
  const SimResult geglu = with_operators(j);
  CHECK(geglu.iteration_time_s == swiglu.iteration_time_s);
  CHECK(geglu.memory.total() == swiglu.memory.total());
  CHECK(test::operator_row(geglu, "layer", "GeGLU") != nullptr);
  CHECK(test::operator_row(geglu, "layer", "SwiGLU") == nullptr);
  ModelConfig g = test::parse_ok(j).model;
  ModelConfig s = g;
  s.mlp = Mlp::swiglu;
  CHECK(count_parameters(g).total == count_parameters(s).total);
  const ModelPreset* gemma = model_presets().find("gemma-7b");
  REQUIRE(gemma);
  CHECK(gemma->model.mlp == Mlp::geglu);
}

TEST_CASE("layer variants: rotary on part of each head turns that part, then joins it to the rest") {
  json j = tp_config("sequential");
  const SimResult full = with_operators(j);
  const OperatorTime* whole = test::operator_row(full, "layer", "rotary embedding");
  REQUIRE(whole != nullptr);
  const double whole_s = whole->forward_s;
  j["model"]["rotary_fraction"] = 0.25;
  const SimResult part = with_operators(j);
  const OperatorTime* quarter = test::operator_row(part, "layer", "rotary embedding");
  REQUIRE(quarter != nullptr);
  // The quarter turned (0.25) and the concatenation (1): 1.25 times the bytes of the whole turn.
  CHECK(quarter->hbm_bytes == doctest::Approx(1.25 * whole->hbm_bytes).epsilon(1e-12));
  CHECK(quarter->forward_s > whole_s);
  CHECK(part.warnings.empty());
  // Without rotary positions the fraction changes nothing, and says so.
  j["model"]["position"] = "learned";
  const SimResult learned = test::simulate_ok(test::parse_ok(j));
  CHECK(test::warning(learned, WarningCode::no_effect, "/model/rotary_fraction", "not rotary") != nullptr);
  j["model"]["rotary_fraction"] = 0;
  CHECK_FALSE(parse_sim_config(j).ok());
}

TEST_CASE("layer variants: the GPT-NeoX-20B and GPT-J 6B presets hold their published parameters") {
  const ModelPreset* neox = model_presets().find("gpt-neox-20b");
  const ModelPreset* gptj = model_presets().find("gpt-j-6b");
  REQUIRE(neox);
  REQUIRE(gptj);
  CHECK(count_parameters(neox->model).total == doctest::Approx(20554567680.0).epsilon(0.005));
  CHECK(count_parameters(gptj->model).total == doctest::Approx(6053381344.0).epsilon(0.005));
  CHECK(neox->model.residual == Residual::parallel_two_norms);
  CHECK(gptj->model.residual == Residual::parallel);
  CHECK(neox->model.rotary_fraction == 0.25);
}

TEST_CASE("layer variants: what a parallel residual is not modelled with is refused, naming the field") {
  json j = tp_config("parallel");
  j["plan"]["sequence_parallel"] = true;
  j["plan"]["tp_comm_overlap"] = true;
  auto c = parse_sim_config(j);
  REQUIRE_FALSE(c.ok());
  CHECK(names(c.errors(), "/plan/tp_comm_overlap", "parallel residual"));
  json moe = test::small_config();
  moe["model"]["residual"] = "parallel";
  moe["model"]["moe"] = {{"experts", 8}, {"experts_per_token", 2}, {"expert_ffn_hidden", 2048}};
  auto m = parse_sim_config(moe);
  REQUIRE_FALSE(m.ok());
  CHECK(names(m.errors(), "/model/residual", "sequential"));
  json unknown = test::small_config();
  unknown["model"]["residual"] = "side-by-side";
  auto u = parse_sim_config(unknown);
  REQUIRE_FALSE(u.ok());
  CHECK(names(u.errors(), "/model/residual", "parallel_two_norms"));
}

TEST_CASE("layer variants: eager element-wise kernels move the bytes of PyTorch's decomposition") {
  json j = test::small_config();
  j["model"]["norm"] = "rmsnorm";
  j["model"]["position"] = "rope";
  j["model"]["mlp"] = "swiglu";
  j["model"]["ffn_hidden"] = 5632;
  j["model"]["bias"] = false;
  const SimResult fused = with_operators(j);
  j["plan"]["fused_elementwise"] = false;
  const SimResult eager = with_operators(j);
  const auto row = [](const SimResult& r, const char* name) {
    const OperatorTime* o = test::operator_row(r, "layer", name);
    REQUIRE(o != nullptr);
    return *o;
  };
  // RMSNorm in fp32: 36 bytes an element forward (the fused kernel's 4), six kernels for one.
  const OperatorTime nf = row(fused, "input norm"), ne = row(eager, "input norm");
  CHECK(ne.kernels > nf.kernels);
  // Forward, recomputation (full) and backward (with the residual stream's add, 6 either way):
  CHECK(ne.hbm_bytes == doctest::Approx((36.0 + 36 + 66) / (4 + 4 + 14) * nf.hbm_bytes).epsilon(1e-12));
  CHECK(ne.forward_s == doctest::Approx(9 * nf.forward_s).epsilon(0.01));
  // Rotary as complex multiplication: 20 bytes an element (4 fused), each way.
  CHECK(row(eager, "rotary embedding").hbm_bytes == doctest::Approx(5 * row(fused, "rotary embedding").hbm_bytes).epsilon(1e-12));
  // SwiGLU as silu, then multiply: 10 bytes an element of the width forward (6 fused), 18 backward (10).
  CHECK(row(eager, "SwiGLU").hbm_bytes == doctest::Approx((10.0 + 10 + 18) / (6 + 6 + 10) * row(fused, "SwiGLU").hbm_bytes).epsilon(1e-12));
  CHECK(row(eager, "SwiGLU").forward_s == doctest::Approx(10.0 / 6 * row(fused, "SwiGLU").forward_s).epsilon(0.01));
  // The same GEMMs: the same model FLOPs, a longer iteration.
  CHECK(eager.model_flops_per_iteration == fused.model_flops_per_iteration);
  CHECK(row(eager, "q, k, v projection").forward_s == row(fused, "q, k, v projection").forward_s);
  CHECK(eager.iteration_time_s > fused.iteration_time_s);
  // LayerNorm is one native kernel either way.
  json ln = j;
  ln["model"]["norm"] = "layernorm";
  json ln_fused = ln;
  ln_fused["plan"]["fused_elementwise"] = true;
  CHECK(row(with_operators(ln), "input norm").forward_s == row(with_operators(ln_fused), "input norm").forward_s);
}
