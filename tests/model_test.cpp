#include <doctest/doctest.h>

#include <cmath>

#include "iteration/kernels.hpp"
#include "iteration/memory.hpp"
#include "test_util.hpp"
#include "vtrain/model.hpp"

using namespace vtrain;
using nlohmann::json;

TEST_CASE("model: parameter counts match the published figures") {
  const ModelPreset* gpt3 = model_presets().find("gpt3-175b");
  REQUIRE(gpt3);
  CHECK(count_parameters(gpt3->model).total == doctest::Approx(175e9).epsilon(0.01));
  const ModelPreset* llama = model_presets().find("llama2-70b");
  REQUIRE(llama);
  // The released checkpoint holds 68,976,648,192 parameters.
  CHECK(count_parameters(llama->model).total == 68976648192.0);
  const ModelPreset* llama7 = model_presets().find("llama2-7b");
  CHECK(count_parameters(llama7->model).total == 6738415616.0);
  for (const auto& p : model_presets()) {
    CAPTURE(p.model.name);
    CHECK(count_parameters(p.model).total == doctest::Approx(p.published_params).epsilon(0.02));
  }
}

TEST_CASE("model: vocabulary padding follows Megatron (multiple of 128 x tp)") {
  ModelConfig m;
  m.vocab = 50257;
  CHECK(padded_vocab(m, 1) == 50304);
  CHECK(padded_vocab(m, 8) == 51200);
}

// Narayanan et al. 2021, eq. 3: FLOPs per iteration with full recomputation,
// 96 B s l h^2 (1 + s / 6h + V / 16 l h).
TEST_CASE("model: FLOPs match Narayanan et al. eq. 3 with full recomputation") {
  json j = test::small_config();
  j["model"] = {{"layers", 24}, {"hidden", 3072}, {"heads", 24}, {"seq_len", 2048}, {"vocab", 51200}};
  j["plan"] = {{"tp", 4}, {"pp", 2}, {"dp", 1}, {"micro_batch", 2}, {"global_batch", 16},
               {"recompute", "full"}, {"attention", "unfused"}};
  j["cluster"]["num_gpus"] = 8;
  SimResult r = test::simulate_ok(test::parse_ok(j));
  const double B = 16, s = 2048, l = 24, h = 3072, V = 51200;
  const double eq3 = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  CHECK(r.hardware_flops_per_iteration == doctest::Approx(eq3).epsilon(1e-9));
  // Without the recomputed forward: 72 B s l h^2 (1 + s / 6h) + 6 B s h V.
  const double model = 72 * B * s * l * h * h * (1 + s / (6 * h)) + 6 * B * s * h * V;
  CHECK(r.model_flops_per_iteration == doctest::Approx(model).epsilon(1e-9));
  CHECK(r.hfu / r.mfu == doctest::Approx(eq3 / model).epsilon(1e-9));

  j["plan"]["attention"] = "flash";  // fused kernels count the same model FLOPs
  SimResult f = test::simulate_ok(test::parse_ok(j));
  CHECK(f.model_flops_per_iteration == doctest::Approx(model).epsilon(1e-9));
}

// Korthikanti et al. 2022, Table 2: activation bytes per layer.
TEST_CASE("model: activation memory per layer follows Korthikanti et al.") {
  ModelConfig m;
  m.layers = 8, m.hidden = 4096, m.heads = 32, m.kv_heads = 32, m.seq_len = 2048, m.ffn_hidden = 4 * 4096;
  PlanConfig p;
  p.micro_batch = 4;
  p.attention = Attention::unfused;
  const double s = 2048, b = 4, h = 4096, a = 32;
  // no parallelism: s b h (34 + 5 a s / h)
  p.tp = 1;
  CHECK(detail::layer_activation_bytes(m, p, false) == doctest::Approx(s * b * h * (34 + 5 * a * s / h)));
  // tensor parallel t: s b h (10 + 24 / t + 5 a s / (h t))
  p.tp = 8;
  CHECK(detail::layer_activation_bytes(m, p, false) ==
        doctest::Approx(s * b * h * (10 + 24.0 / 8 + 5 * a * s / (h * 8))));
  // with sequence parallelism: s b h / t (34 + 5 a s / h)
  p.sequence_parallel = true;
  CHECK(detail::layer_activation_bytes(m, p, false) == doctest::Approx(s * b * h / 8 * (34 + 5 * a * s / h)));
  // selective recomputation drops the attention-core term: 34 s b h / t
  CHECK(detail::layer_activation_bytes(m, p, true) == doctest::Approx(s * b * h / 8 * 34));
}

TEST_CASE("model: weights, gradients and optimizer states per GPU") {
  json j = test::small_config();
  j["plan"] = {{"tp", 2}, {"pp", 1}, {"dp", 4}, {"micro_batch", 1}, {"global_batch", 8}, {"precision", "bf16"}};
  SimResult r = test::simulate_ok(test::parse_ok(j));
  const double GiB = 1024.0 * 1024 * 1024;
  const double local = r.parameters.per_layer * 16 / 2 + 51200.0 / 2 * 2048 + 1024.0 * 2048 + 2 * 2048;
  CHECK(r.memory.weights == doctest::Approx(local * 2 / GiB).epsilon(1e-6));
  CHECK(r.memory.gradients == doctest::Approx(local * 4 / GiB).epsilon(1e-6));  // fp32 main grads
  CHECK(r.memory.optimizer_states == doctest::Approx(local * 12 / GiB).epsilon(1e-6));
  j["plan"]["zero_stage"] = 1;  // optimizer states sharded over the 4 replicas
  SimResult z = test::simulate_ok(test::parse_ok(j));
  CHECK(z.memory.optimizer_states == doctest::Approx(r.memory.optimizer_states / 4).epsilon(1e-9));
}

TEST_CASE("model: recomputation trades memory for time") {
  json j = test::small_config();
  j["plan"]["recompute"] = "none";
  SimResult none = test::simulate_ok(test::parse_ok(j));
  j["plan"]["recompute"] = "full";
  SimResult full = test::simulate_ok(test::parse_ok(j));
  j["plan"]["recompute"] = "selective";
  j["plan"]["attention"] = "unfused";
  SimResult sel = test::simulate_ok(test::parse_ok(j));
  CHECK(full.memory.activations < sel.memory.activations);
  CHECK(full.iteration_time_s > none.iteration_time_s);
  CHECK(none.breakdown.recompute == 0);
  CHECK(full.breakdown.recompute > 0);
  CHECK(sel.breakdown.recompute > 0);
  CHECK(sel.breakdown.recompute < full.breakdown.recompute);
}

TEST_CASE("model: a plan that does not fit is simulated and flagged") {
  json j = test::small_config();
  j["model"] = "gpt3-175b";
  j["plan"] = {{"tp", 8}, {"pp", 1}, {"dp", 1}, {"micro_batch", 1}, {"global_batch", 4}};
  SimResult r = test::simulate_ok(test::parse_ok(j));
  CHECK_FALSE(r.fits_in_memory);
  CHECK(r.memory.total() > 80);
  CHECK(r.iteration_time_s > 0);
  CHECK(test::warning(r, WarningCode::out_of_memory, "/plan", "needs ") != nullptr);
}

TEST_CASE("model: a GEMM splits its reduction only where the split, with its summing pass, is faster") {
  Profile p = *bundled_profiles().find("a100-sxm4-80gb");
  p.gemm_k_half = 80;  // short reductions cost little: splitting looks attractive per tile
  p.kernel_overhead_us = 0;
  const double peak = p.peak_fp16_tflops * 1e12 * p.gemm_max_efficiency;
  const auto tile_eff = [&](double m, double n) {
    for (const GemmTile& t : p.gemm_tiles)
      if (t.m == m && t.n == n) return t.efficiency;
    return 0.0;
  };
  // 4096 x 6144 x 2048 fills the GPU with 1536 tiles of 128 x 128 (15 waves on 108 SMs). Split in
  // two, 256 x 128 tiles would fill the waves better, but the fp32 partial sums then cost an extra
  // pass over the output: the unsplit 128 x 128 kernel bounds the time.
  const double m = 4096, n = 6144, k = 2048;
  const double unsplit_128 =
      2 * m * n * k / (peak * tile_eff(128, 128) * (1536.0 / (15 * 108)) * (k / (k + p.gemm_k_half)));
  CHECK(detail::gemm_s(p, m, n, k, 1) <= unsplit_128 * (1 + 1e-9));
  // 256 x 256 x 16384 has 2 output tiles of 256 x 128 for 108 SMs: splitting the reduction is
  // much faster, even with the summing pass.
  const double K = 16384;
  const double unsplit_small = 2 * 256.0 * 256.0 * K / (peak * tile_eff(256, 128) * (2.0 / 108) * (K / (K + p.gemm_k_half)));
  CHECK(detail::gemm_s(p, 256, 256, K, 1) < 0.25 * unsplit_small);
}

TEST_CASE("model: ALiBi adds no parameters; its bias fills the scores, which the scores GEMM reads back") {
  const ModelPreset* bloom = model_presets().find("bloom-176b");
  REQUIRE(bloom);
  CHECK(bloom->model.position == PositionEmbedding::alibi);
  CHECK(count_parameters(bloom->model).position == 0);

  json j = test::small_config();  // tp 2, micro-batch 2, 16 heads, sequence 1024
  j["plan"]["attention"] = "unfused";
  j["output"] = {{"operators", true}, {"timeline", false}};
  j["model"]["position"] = "rope";
  const SimResult rope = test::simulate_ok(test::parse_ok(j));
  j["model"]["position"] = "alibi";
  const SimResult alibi = test::simulate_ok(test::parse_ok(j));
  CHECK(test::parse_ok(j).model.position == PositionEmbedding::alibi);
  CHECK(to_json(alibi)["config"]["model"]["position"] == "alibi");
  CHECK(test::operator_row(rope, "layer", "ALiBi bias") == nullptr);
  CHECK(test::operator_row(alibi, "layer", "rotary embedding") == nullptr);
  const OperatorTime* bias = test::operator_row(alibi, "layer", "ALiBi bias");
  REQUIRE(bias != nullptr);
  // One 16-bit write of the scores, 2 x 8 heads x 1024 x 1024, in the forward and the recompute.
  const double scores_bytes = 2.0 * 2 * 8 * 1024 * 1024;
  CHECK(bias->kernels == 2);
  CHECK(bias->hbm_bytes == doctest::Approx(2 * scores_bytes));
  CHECK(bias->backward_s == 0);
  // The scores GEMM adds to that buffer (beta = 1): it reads it back, in the forward only.
  const auto scores_gemm_bytes = [&](const char* position) {
    json k = j;
    k["model"]["position"] = position;
    const SimConfig c = test::parse_ok(k);
    const detail::LayerKernels lk = detail::build_kernels(c.model, c.plan);
    for (const detail::Kernel& g : lk.layer_fwd)
      if (std::string(g.op) == "attention scores") return g.bytes;
    return -1.0;
  };
  CHECK(scores_gemm_bytes("alibi") == doctest::Approx(scores_bytes));
  CHECK(scores_gemm_bytes("rope") == 0);
  const OperatorTime* with = test::operator_row(alibi, "layer", "attention scores");
  const OperatorTime* without = test::operator_row(rope, "layer", "attention scores");
  REQUIRE(with != nullptr);
  REQUIRE(without != nullptr);
  CHECK(with->forward_s >= without->forward_s);
  CHECK(with->backward_s == doctest::Approx(without->backward_s));
  // Flash attention applies the slopes inside its kernel: nothing extra.
  j["plan"]["attention"] = "flash";
  CHECK(test::operator_row(test::simulate_ok(test::parse_ok(j)), "layer", "ALiBi bias") == nullptr);
  // Learned positions have their table; ALiBi, like rotary, has none.
  j["model"]["position"] = "learned";
  CHECK(count_parameters(test::parse_ok(j).model).position > 0);
}
