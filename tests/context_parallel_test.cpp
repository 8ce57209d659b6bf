// Context parallelism (plan.cp), multi-head latent attention (model.mla) and the per-head width
// (model.head_dim): docs/context-parallel.md.
#include <doctest/doctest.h>

#include <string>

#include "iteration/kernels.hpp"
#include "iteration/memory.hpp"
#include "test_util.hpp"
#include "vtrain/api.hpp"
#include "vtrain/model.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

// Llama 3 8B at a long sequence on H100s, fused attention: the shape context parallelism is for.
json long_config(int tp, int cp, int dp, int seq_len = 32768) {
  json j = json::parse(R"({
    "model": {"preset": "llama3-8b"},
    "cluster": {"gpu": "h100-sxm5-80gb", "gpus_per_node": 8},
    "plan": {"micro_batch": 1, "recompute": "none", "sequence_parallel": true, "precision": "bf16"}
  })");
  j["model"]["seq_len"] = seq_len;
  j["plan"]["tp"] = tp;
  j["plan"]["cp"] = cp;
  j["plan"]["dp"] = dp;
  j["plan"]["global_batch"] = 8;
  return j;
}

double sum_kinds(const std::vector<detail::Kernel>& ks, detail::KernelKind kind, double detail::Kernel::*field) {
  double s = 0;
  for (const auto& k : ks)
    if (k.kind == kind) s += k.*field;
  return s;
}

bool has_error(const Diagnostics& d, const std::string& pointer) {
  for (const auto& e : d)
    if (e.pointer == pointer) return true;
  return false;
}

}  // namespace

TEST_CASE("context parallel: cp 2 halves each rank's attention FLOPs and leaves the totals unchanged") {
  const SimConfig one = test::parse_ok(long_config(1, 1, 2));
  const SimConfig two = test::parse_ok(long_config(1, 2, 1));
  const auto k1 = detail::build_kernels(one.model, one.plan);
  const auto k2 = detail::build_kernels(two.model, two.plan);
  for (auto kind : {detail::KernelKind::attention_fwd, detail::KernelKind::attention_bwd}) {
    const double model1 = sum_kinds(k1.layer_fwd, kind, &detail::Kernel::model_flops) +
                          sum_kinds(k1.layer_bwd, kind, &detail::Kernel::model_flops);
    const double model2 = sum_kinds(k2.layer_fwd, kind, &detail::Kernel::model_flops) +
                          sum_kinds(k2.layer_bwd, kind, &detail::Kernel::model_flops);
    const double work1 = sum_kinds(k1.layer_fwd, kind, &detail::Kernel::work_flops) +
                         sum_kinds(k1.layer_bwd, kind, &detail::Kernel::work_flops);
    const double work2 = sum_kinds(k2.layer_fwd, kind, &detail::Kernel::work_flops) +
                         sum_kinds(k2.layer_bwd, kind, &detail::Kernel::work_flops);
    CHECK(model2 == doctest::Approx(model1 / 2));
    CHECK(work2 == doctest::Approx(work1 / 2));  // the causal balance: each rank does half the work
  }
  // Attention runs in cp steps: two forward kernels a layer, one exchange between them.
  int steps = 0, exchanges = 0;
  for (const auto& k : k2.layer_fwd) {
    steps += k.kind == detail::KernelKind::attention_fwd;
    exchanges += k.kind == detail::KernelKind::ring_p2p;
  }
  CHECK(steps == 2);
  CHECK(exchanges == 1);
  // The model's FLOPs per iteration and the tokens are those of the plan without context parallelism.
  const SimResult r1 = test::simulate_ok(one);
  const SimResult r2 = test::simulate_ok(two);
  CHECK(r2.model_flops_per_iteration == doctest::Approx(r1.model_flops_per_iteration).epsilon(1e-12));
  CHECK(r2.tokens_per_s * r2.iteration_time_s == doctest::Approx(r1.tokens_per_s * r1.iteration_time_s));
  // Activations per rank are about halved; the weights are not split.
  CHECK(r2.memory.activations < 0.55 * r1.memory.activations);
  CHECK(r2.memory.weights == doctest::Approx(r1.memory.weights));
}

TEST_CASE("context parallel: cp 1 is the plan without the field") {
  json with = test::small_config();
  with["plan"]["cp"] = 1;
  const SimResult a = test::simulate_ok(test::parse_ok(test::small_config()));
  const SimResult b = test::simulate_ok(test::parse_ok(with));
  CHECK(a.iteration_time_s == b.iteration_time_s);
  CHECK(a.memory.total() == b.memory.total());
  CHECK(a.breakdown.cp_comm_exposed == 0);
  const auto k = detail::build_kernels(test::parse_ok(with).model, test::parse_ok(with).plan);
  for (const auto& x : k.layer_fwd) CHECK(x.kind != detail::KernelKind::ring_p2p);
}

TEST_CASE("context parallel: the ring sends each rank's K/V chunk cp - 1 times forward, K/V and gradients back") {
  // Llama 3 8B: 8 KV heads of 128; at tp 1 a rank's chunk is s/cp tokens x 8 x (128 + 128) x 2 bytes.
  for (int cp : {2, 4, 8}) {
    CAPTURE(cp);
    const SimConfig c = test::parse_ok(long_config(1, cp, 1));
    const auto k = detail::build_kernels(c.model, c.plan);
    const double chunk = 32768.0 / cp * 8 * 256 * 2;
    CHECK(sum_kinds(k.layer_fwd, detail::KernelKind::ring_p2p, &detail::Kernel::comm_bytes) ==
          doctest::Approx((cp - 1) * chunk));
    // backward: K/V for steps 1..cp-1, their gradients around the ring and the last one home
    CHECK(sum_kinds(k.layer_bwd, detail::KernelKind::ring_p2p, &detail::Kernel::comm_bytes) ==
          doctest::Approx((2.0 * (cp - 1) + 1) * chunk));
  }
  // Within a node the exchange hides behind attention at a long sequence; across nodes, at a short
  // one, it shows.
  const SimResult inside = test::simulate_ok(test::parse_ok(long_config(1, 8, 1, 131072)));
  CHECK(inside.breakdown.cp_comm_exposed < 0.01 * inside.iteration_time_s);
  json across = long_config(8, 4, 1, 8192);
  const SimResult spread = test::simulate_ok(test::parse_ok(across));
  CHECK(spread.breakdown.cp_comm_exposed > 0);
}

TEST_CASE("context parallel: the gradient reduction runs over dp x cp") {
  // cp 2 x dp 1 reduces its gradients over two ranks, as dp 2 does; cp 1 x dp 1 reduces nothing.
  const SimResult solo = test::simulate_ok(test::parse_ok(long_config(1, 1, 1)));
  const SimResult cp2 = test::simulate_ok(test::parse_ok(long_config(1, 2, 1)));
  CHECK(solo.details.dp_reduce_s == 0);
  CHECK(cp2.details.dp_reduce_s > 0);
}

TEST_CASE("context parallel: bad degrees name the field") {
  json j = long_config(1, 3, 1, 32768);  // 2 x 3 does not divide 32768
  auto r = parse_sim_config(j);
  REQUIRE_FALSE(r.ok());
  CHECK(has_error(r.errors(), "/plan/cp"));
  j = long_config(1, 2, 1);
  j["plan"]["attention"] = "unfused";
  r = parse_sim_config(j);
  REQUIRE_FALSE(r.ok());
  CHECK(has_error(r.errors(), "/plan/cp"));
  j = long_config(1, 0, 1);
  r = parse_sim_config(j);
  REQUIRE_FALSE(r.ok());
  CHECK(has_error(r.errors(), "/plan/cp"));
  j = long_config(1, 2, 1);
  j["cluster"]["num_gpus"] = 1;  // tp x cp x pp x dp is 2
  r = parse_sim_config(j);
  REQUIRE_FALSE(r.ok());
  CHECK(has_error(r.errors(), "/cluster/num_gpus"));
  CHECK(r.errors().front().message.find("/plan/cp") != std::string::npos);
}

TEST_CASE("context parallel: the config round-trips cp, head_dim and mla") {
  json j = long_config(2, 2, 1);
  j["model"] = {{"layers", 4}, {"hidden", 1024}, {"heads", 8}, {"seq_len", 8192}, {"head_dim", 256}};
  j["model"]["mla"] = {{"q_lora_rank", 0}, {"kv_lora_rank", 256}};
  j["model"].erase("head_dim");
  const SimConfig c = test::parse_ok(j);
  REQUIRE(c.model.mla);
  CHECK(c.model.mla->q_lora_rank == 0);
  CHECK(c.model.mla->kv_lora_rank == 256);
  CHECK(c.model.mla->qk_rope_head_dim == 64);  // DeepSeek-V3's where not given
  const json out = to_json(c);
  CHECK(out["plan"]["cp"] == 2);
  CHECK(out["model"]["mla"]["kv_lora_rank"] == 256);
  CHECK(test::parse_ok(out).model == c.model);
  // null removes a preset's latent attention
  j["model"]["mla"] = nullptr;
  CHECK_FALSE(test::parse_ok(j).model.mla);
}

TEST_CASE("head_dim: presets with wider heads match their published parameter counts within 0.5%") {
  // Qwen3 32B's heads are 128 wide where hidden / heads is 80; Gemma 7B's 256, not 192.
  for (const char* name : {"qwen3-8b", "qwen3-32b", "gemma-7b"}) {
    CAPTURE(name);
    const ModelPreset* p = model_presets().find(name);
    REQUIRE(p);
    CHECK(p->model.head_dim > 0);
    CHECK(count_parameters(p->model).total == doctest::Approx(p->published_params).epsilon(0.005));
  }
  // Gemma 7B's paper states its non-embedding parameters exactly; with tied embeddings the total
  // differs only by its final norm (3,072) and the embedding rows the paper counts beyond the vocabulary.
  const ModelPreset* gemma = model_presets().find("gemma-7b");
  const ParameterCounts c = count_parameters(gemma->model);
  CHECK(gemma->model.layers * c.per_layer == doctest::Approx(7751248896.0).epsilon(1e-5));
}

TEST_CASE("head_dim: the q, k, v projections are heads x head_dim wide, the output projection back to hidden") {
  json j = test::small_config();
  j["model"]["head_dim"] = 256;  // 16 heads x 256 = 4096 > hidden 2048
  const SimConfig c = test::parse_ok(j);
  const auto k = detail::build_kernels(c.model, c.plan);
  const detail::Kernel* qkv = nullptr;
  const detail::Kernel* out = nullptr;
  for (const auto& x : k.layer_fwd) {
    if (x.kind != detail::KernelKind::gemm) continue;
    if (std::string(x.op) == "q, k, v projection") qkv = &x;
    if (std::string(x.op) == "attention output projection") out = &x;
  }
  REQUIRE(qkv);
  REQUIRE(out);
  CHECK(qkv->n == 3.0 * 16 * 256 / 2);  // tp 2
  CHECK(qkv->k == 2048);
  CHECK(out->n == 2048);
  CHECK(out->k == 16 * 256 / 2);
  // 16 x 256 for q, k, v and the output: 4 x 2048 x 4096 weights, plus biases
  const ModelConfig& m = c.model;
  CHECK(attention_weights(m) == 4.0 * 2048 * 4096);
  // hidden need not divide by heads when head_dim is given
  j["model"]["hidden"] = 2040;
  CHECK(parse_sim_config(j).ok());
  j["model"].erase("head_dim");
  auto bad = parse_sim_config(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(has_error(bad.errors(), "/model/hidden"));
  j["model"]["head_dim"] = -1;
  bad = parse_sim_config(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(has_error(bad.errors(), "/model/head_dim"));
}

TEST_CASE("mla: DeepSeek-V3's attention has its published parameter count per layer") {
  // config.json of deepseek-ai/DeepSeek-V3: hidden 7168, 128 heads, q_lora_rank 1536, kv_lora_rank
  // 512, qk_nope_head_dim 128, qk_rope_head_dim 64, v_head_dim 128. Per layer: q_a 7168 x 1536,
  // q_a_layernorm 1536, q_b 1536 x 128 x 192, kv_a 7168 x 576, kv_a_layernorm 512, kv_b 512 x 128 x
  // 256, o 128 x 128 x 7168: 187,107,328 parameters.
  ModelConfig m = llama_model("deepseek-v3-dense", 61, 7168, 128, 128, 18432, 129280, 4096);
  m.mla = MlaConfig{};
  CHECK(attention_weights(m) == 187107328.0 - 1536 - 512);
  const ParameterCounts c = count_parameters(m);
  const double mlp = 3.0 * 7168 * 18432, norms = 2.0 * 7168;
  CHECK(c.per_layer == 187107328.0 + mlp + norms);
  // Without query compression (DeepSeek-V2-Lite: hidden 2048, 16 heads, kv_lora_rank 512).
  ModelConfig lite = llama_model("v2-lite", 27, 2048, 16, 16, 10944, 102400, 4096);
  lite.mla = MlaConfig{0, 512, 128, 64, 128};
  CHECK(attention_weights(lite) == 2048.0 * 16 * 192 + 2048.0 * 576 + 512.0 * 16 * 256 + 16.0 * 128 * 2048);
}

TEST_CASE("mla: latent attention runs its low-rank GEMMs and attends with its own head widths") {
  json j = long_config(4, 1, 2, 4096);
  j["model"] = {{"layers", 8}, {"hidden", 7168}, {"heads", 128}, {"seq_len", 4096}, {"vocab", 129280},
                {"ffn_hidden", 18432}, {"mlp", "swiglu"}, {"norm", "rmsnorm"}, {"position", "rope"},
                {"bias", false}, {"tied_embeddings", false}, {"mla", json::object()}};
  const SimConfig c = test::parse_ok(j);
  const auto k = detail::build_kernels(c.model, c.plan);
  std::vector<std::string> gemms;
  const detail::Kernel* attn = nullptr;
  for (const auto& x : k.layer_fwd) {
    if (x.kind == detail::KernelKind::gemm) gemms.push_back(x.op);
    if (x.kind == detail::KernelKind::attention_fwd) attn = &x;
  }
  const std::vector<std::string> expected = {"query down projection", "key/value down projection",
                                             "query up projection", "key/value up projection",
                                             "attention output projection", "MLP gate and up projections",
                                             "MLP down projection"};
  CHECK(gemms == expected);
  REQUIRE(attn);
  CHECK(attn->k == 192);  // nope + rope
  // 2 x (b x heads/tp) x s^2 x (192 + 128)
  CHECK(attn->model_flops == doctest::Approx(2.0 * 32 * 4096.0 * 4096 * 320));
  const SimResult r = test::simulate_ok(c);
  CHECK(r.parameters.per_layer == doctest::Approx(187107328.0 + 3.0 * 7168 * 18432 + 2 * 7168));
  // a bad field names its pointer
  j["model"]["mla"] = {{"kv_lora_rank", 0}};
  auto bad = parse_sim_config(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(has_error(bad.errors(), "/model/mla/kv_lora_rank"));
  j["model"]["mla"] = {{"rank", 1}};
  bad = parse_sim_config(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(has_error(bad.errors(), "/model/mla/rank"));
  j["model"]["mla"] = json::object();
  j["model"]["kv_heads"] = 8;
  bad = parse_sim_config(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(has_error(bad.errors(), "/model/kv_heads"));
  j["model"]["kv_heads"] = 128;
  j["model"]["head_dim"] = 128;
  bad = parse_sim_config(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(has_error(bad.errors(), "/model/head_dim"));
}

TEST_CASE("context parallel: the explorer tries cp for long sequences, not for short ones") {
  json req = long_config(1, 1, 1, 32768);
  req["cluster"]["num_gpus"] = 16;
  req["plan"] = {{"global_batch", 16}, {"precision", "bf16"}};
  req["training"] = {{"tokens", 1e9}};
  req["explore"] = {{"tp", {1, 2}}, {"pp", {1}}, {"micro_batch", {1}}, {"recompute", {"none"}},
                    {"sequence_parallel", {true}}, {"zero_stage", {1}}};
  const std::string text = api::explore(req.dump());
  const json out = json::parse(text);
  REQUIRE(out["ok"] == true);
  bool saw_cp = false;
  for (const auto& p : out["result"]["plans"]) saw_cp = saw_cp || p.value("cp", 1) > 1;
  CHECK(saw_cp);
  req["model"]["seq_len"] = 4096;
  const json short_out = json::parse(api::explore(req.dump()));
  REQUIRE(short_out["ok"] == true);
  for (const auto& p : short_out["result"]["plans"]) CHECK_FALSE(p.contains("cp"));
}
