// Mixtures of experts (docs/moe.md): the config's /model/moe and /plan/ep, the MoE layer's work,
// traffic and memory, and the parameter counts of the Mixtral presets.
#include <doctest/doctest.h>

#include <cmath>

#include "test_util.hpp"
#include "vtrain/model.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

json with(json j, int ep, int k) {
  j["plan"]["ep"] = ep;
  j["model"]["moe"]["experts_per_token"] = k;
  return j;
}

json base() {
  return json::parse(R"({
    "model": {"layers": 8, "hidden": 1024, "heads": 8, "kv_heads": 8, "seq_len": 2048, "vocab": 32000,
              "ffn_hidden": 3584, "mlp": "swiglu", "norm": "rmsnorm", "position": "rope", "bias": false,
              "tied_embeddings": false,
              "moe": {"experts": 8, "experts_per_token": 2, "expert_ffn_hidden": 3584}},
    "cluster": {"gpu": "h100-sxm5-80gb", "num_gpus": 8, "gpus_per_node": 8},
    "plan": {"tp": 1, "pp": 1, "dp": 8, "micro_batch": 1, "global_batch": 64, "recompute": "none"},
    "output": {"timeline": false, "operators": true}
  })");
}

double op_time(const SimResult& r, const std::string& block, const std::string& name) {
  double t = 0;
  for (const OperatorTime& o : r.operators)
    if (o.block == block && o.name == name) t += o.forward_s + o.backward_s + o.recompute_s;
  return t;
}

double op_bytes(const SimResult& r, const std::string& name) {
  double b = 0;
  for (const OperatorTime& o : r.operators)
    if (o.name == name) b += o.comm_bytes;
  return b;
}

std::string first_pointer(const json& j) {
  auto c = parse_sim_config(j);
  return c.ok() ? std::string() : c.errors().front().pointer;
}

}  // namespace

TEST_CASE("moe: one expert with top-1 routing is the dense model apart from the router") {
  json moe = base();
  moe["model"]["moe"] = {{"experts", 1}, {"experts_per_token", 1}, {"expert_ffn_hidden", 3584}};
  json dense = base();
  dense["model"].erase("moe");
  const SimResult a = test::simulate_ok(test::parse_ok(moe));
  const SimResult d = test::simulate_ok(test::parse_ok(dense));
  // Parameters: the dense model's plus one router row of hidden weights a layer.
  CHECK(a.parameters.total == doctest::Approx(d.parameters.total + 8 * 1024.0));
  CHECK(a.parameters.active == doctest::Approx(a.parameters.total));
  // Model FLOPs: the dense model's plus the router GEMM (2 x tokens x hidden x experts, forward and backward).
  const double tokens = 64.0 * 2048;
  CHECK(a.model_flops_per_iteration == doctest::Approx(d.model_flops_per_iteration + 3 * 2 * tokens * 1024 * 8));
  // The expert GEMMs take as long as the dense MLP's; the rest of the MoE layer is the router and
  // the token (un)permutation: a few percent of the GPU time (their kernels' issue costs the host
  // more, this small model being host-bound), never an all-to-all.
  CHECK(op_bytes(a, "expert-parallel all-to-all") == 0);
  CHECK(op_time(a, "moe layer", "expert up projections") ==
        doctest::Approx(op_time(d, "layer", "MLP gate and up projections")).epsilon(0.01));
  CHECK(op_time(a, "moe layer", "expert down projections") ==
        doctest::Approx(op_time(d, "layer", "MLP down projection")).epsilon(0.01));
  CHECK(a.iteration_time_s > d.iteration_time_s);
  const double gpu_a = a.breakdown.forward + a.breakdown.backward, gpu_d = d.breakdown.forward + d.breakdown.backward;
  CHECK(gpu_a > gpu_d);
  CHECK(gpu_a < 1.05 * gpu_d);
  CHECK(a.memory.weights == doctest::Approx(d.memory.weights).epsilon(0.01));
}

TEST_CASE("moe: ep 1 has no all-to-all; ep 8 sends the tokens' copies") {
  const SimResult one = test::simulate_ok(test::parse_ok(with(base(), 1, 2)));
  const SimResult eight = test::simulate_ok(test::parse_ok(with(base(), 8, 2)));
  CHECK(one.details.moe);
  CHECK(one.details.moe_all_to_all_s == 0);
  CHECK(op_bytes(one, "expert-parallel all-to-all") == 0);
  CHECK(eight.details.moe_all_to_all_s > 0);
  CHECK(op_bytes(eight, "expert-parallel all-to-all") > 0);
  // Each GPU holds one expert of eight instead of all eight: far less weight memory.
  CHECK(eight.memory.weights < 0.4 * one.memory.weights);
  // The experts' gradients are reduced over tp x dp / ep = 1 GPU: nothing to reduce.
  CHECK(eight.details.edp == 1);
  CHECK(one.details.edp == 8);
  CHECK(eight.details.expert_reduce_s == 0);
  CHECK(one.details.expert_reduce_s > 0);
}

TEST_CASE("moe: the all-to-all volume scales with the experts per token") {
  const SimResult k1 = test::simulate_ok(test::parse_ok(with(base(), 8, 1)));
  const SimResult k2 = test::simulate_ok(test::parse_ok(with(base(), 8, 2)));
  const SimResult k4 = test::simulate_ok(test::parse_ok(with(base(), 8, 4)));
  // tokens x experts per token x hidden x 2 bytes, times the busiest rank's load over the mean
  const double tokens = 2048;
  for (const auto* r : {&k1, &k2, &k4}) CHECK(r->details.moe_load_imbalance >= 1.0);
  CHECK(k1.details.moe_dispatch_bytes == doctest::Approx(tokens * 1 * 1024 * 2 * k1.details.moe_load_imbalance));
  CHECK(k2.details.moe_dispatch_bytes == doctest::Approx(tokens * 2 * 1024 * 2 * k2.details.moe_load_imbalance));
  CHECK(k4.details.moe_dispatch_bytes == doctest::Approx(tokens * 4 * 1024 * 2 * k4.details.moe_load_imbalance));
  CHECK(op_bytes(k4, "expert-parallel all-to-all") > 1.9 * op_bytes(k2, "expert-parallel all-to-all"));
  CHECK(k4.details.moe_all_to_all_s > k2.details.moe_all_to_all_s);
  // MFU counts active parameters: more experts per token, more model FLOPs.
  CHECK(k2.parameters.active > k1.parameters.active);
  CHECK(k2.model_flops_per_iteration > k1.model_flops_per_iteration);
  // A capacity factor pads every expert to that multiple of its mean load.
  json padded = with(base(), 8, 2);
  padded["model"]["moe"]["capacity_factor"] = 1.5;
  const SimResult p = test::simulate_ok(test::parse_ok(padded));
  CHECK(p.details.moe_load_imbalance == 1.5);
  CHECK(p.details.moe_dispatch_bytes == doctest::Approx(tokens * 2 * 1024 * 2 * 1.5));
  CHECK(p.model_flops_per_iteration == doctest::Approx(k2.model_flops_per_iteration));
}

TEST_CASE("moe: across nodes the all-to-all is slower than within one") {
  json inside = with(base(), 8, 2);
  json across = inside;
  across["cluster"]["gpus_per_node"] = 4;  // ep 8 over two nodes
  const SimResult a = test::simulate_ok(test::parse_ok(inside));
  const SimResult b = test::simulate_ok(test::parse_ok(across));
  CHECK(a.details.ep_nodes == 1);
  CHECK(b.details.ep_nodes == 2);
  CHECK(b.details.moe_all_to_all_s > 2 * a.details.moe_all_to_all_s);
}

TEST_CASE("moe: the Mixtral presets' parameter counts are the published ones within 0.5%") {
  for (const char* name : {"mixtral-8x7b", "mixtral-8x22b"}) {
    const ModelPreset* p = model_presets().find(name);
    REQUIRE(p);
    const ParameterCounts c = count_parameters(p->model);
    CHECK(std::abs(c.total / p->published_params - 1) < 0.005);
    CHECK(std::abs(c.active / p->published_active_params - 1) < 0.005);
    CHECK(c.moe_layers == p->model.layers);
  }
}

TEST_CASE("moe: the Qwen3 MoE and DeepSeek-V3 presets' parameter counts are the published ones (total within 0.5%, active to two digits)") {
  // Published: 30.5B total, 3.3B active; 235B, 22B; 671B, 37B.
  for (const char* name : {"qwen3-30b-a3b", "qwen3-235b-a22b", "deepseek-v3"}) {
    const ModelPreset* p = model_presets().find(name);
    REQUIRE(p);
    CAPTURE(name);
    const ParameterCounts c = count_parameters(p->model);
    CHECK(std::abs(c.total / p->published_params - 1) < 0.005);
    // Two digits (3.35B, embedding and output layer counted, is written 3.3B).
    CHECK(std::abs(c.active / p->published_active_params - 1) < 0.02);
    CHECK(c.moe_layers == p->model.layers - p->model.moe.first_dense_layers);
  }
}

TEST_CASE("moe: first dense layers and a layer frequency choose the MoE layers") {
  ModelConfig m = model_presets().find("mixtral-8x7b")->model;
  m.moe.first_dense_layers = 3;
  m.moe.layer_frequency = 2;
  CHECK(moe_layers_in(m, 0, 32) == 15);  // layers 3, 5, ..., 31
  CHECK(!is_moe_layer(m, 2));
  CHECK(is_moe_layer(m, 3));
  CHECK(!is_moe_layer(m, 4));
  CHECK(moe_layers_in(m, 0, 4) == 1);
  CHECK(moe_layers_in(m, 4, 4) == 2);  // 5 and 7
  const ParameterCounts c = count_parameters(m);
  CHECK(c.total == doctest::Approx(17 * c.per_layer + 15 * c.per_moe_layer + c.embedding + c.final_norm + c.output));
  // A pipeline whose stages hold different numbers of MoE layers simulates.
  json j = base();
  j["model"]["moe"]["first_dense_layers"] = 3;
  j["plan"]["pp"] = 2;
  j["plan"]["dp"] = 4;
  j["plan"]["ep"] = 4;
  const SimResult r = test::simulate_ok(test::parse_ok(j));
  CHECK(r.parameters.moe_layers == 5);
  CHECK(r.stage_memory[1].weights > r.stage_memory[0].weights * 0.9);
}

TEST_CASE("moe: bad expert fields and plans are errors naming their pointer") {
  json j = base();
  j["model"]["moe"]["experts_per_token"] = 9;
  CHECK(first_pointer(j) == "/model/moe/experts_per_token");
  j = base();
  j["model"]["moe"].erase("expert_ffn_hidden");
  CHECK(first_pointer(j) == "/model/moe/expert_ffn_hidden");
  j = base();
  j["model"]["moe"]["experts"] = 0;
  CHECK(first_pointer(j) == "/model/moe/experts");
  j = base();
  j["model"]["moe"]["router"] = "tanh";
  CHECK(first_pointer(j) == "/model/moe/router");
  j = base();
  j["model"]["moe"]["first_dense_layers"] = 8;
  CHECK(first_pointer(j) == "/model/moe/first_dense_layers");
  j = base();
  j["plan"]["ep"] = 3;  // does not divide the 8 experts
  CHECK(first_pointer(j) == "/plan/ep");
  j = base();
  j["plan"]["dp"] = 4;
  j["plan"]["tp"] = 2;
  j["plan"]["ep"] = 8;  // etp (= tp 2) x ep 8 does not divide tp x dp = 8
  j["cluster"]["num_gpus"] = 8;
  CHECK(first_pointer(j) == "/plan/ep");
  j = base();
  j["plan"]["zero_stage"] = 3;
  j["plan"]["shard_group"] = 4;  // hybrid sharding of a mixture of experts is not modelled
  CHECK(first_pointer(j) == "/plan/shard_group");
  j = base();
  j["model"].erase("moe");
  j["plan"]["ep"] = 2;  // a dense model has no experts to split
  CHECK(first_pointer(j) == "/plan/ep");
  // null is a dense model; the config round-trips with the expert fields explicit.
  j = base();
  j["model"]["moe"] = nullptr;
  CHECK(!is_moe(test::parse_ok(j).model));
  const SimConfig c = test::parse_ok(base());
  const json out = to_json(c);
  CHECK(out["model"]["moe"]["experts"] == 8);
  CHECK(out["plan"]["ep"] == 1);
  CHECK(test::parse_ok(out).model == c.model);
}

// Context parallelism in a mixture of experts (Megatron-Core): each of the cp ranks routes the
// tokens of its part of the sequence, and the expert layers' etp x ep x edp grid is carved out of
// the stage's tp x cp x dp GPUs, so the experts' gradients are reduced over the cp ranks too.
TEST_CASE("moe: context parallelism splits the routed tokens and joins the expert data-parallel group") {
  json one = with(base(), 4, 2);  // 8 GPUs: dp 8, ep 4, edp 2
  one["model"]["moe"]["capacity_factor"] = 1.0;  // every expert at its mean load, whatever the token count
  json two = one;
  two["plan"]["cp"] = 2;
  two["plan"]["dp"] = 4;  // 8 GPUs: cp 2 x dp 4, ep 4, edp 2 (the cp ranks among them)
  const SimResult a = test::simulate_ok(test::parse_ok(one));
  const SimResult b = test::simulate_ok(test::parse_ok(two));
  CHECK(a.details.edp == 2);
  CHECK(b.details.edp == 2);
  // Each cp rank dispatches the copies of half the sequence's tokens, and its experts take half the
  // rows: less time, though more than half of it (a smaller GEMM fills the GPU less well).
  CHECK(b.details.moe_dispatch_bytes == doctest::Approx(a.details.moe_dispatch_bytes / 2));
  const double up_a = op_time(a, "moe layer", "expert up projections"), up_b = op_time(b, "moe layer", "expert up projections");
  CHECK(up_b < 0.75 * up_a);
  CHECK(up_b >= 0.5 * up_a);
  // The same work in all: cp moves the sequence's halves to other GPUs, it does not change the FLOPs.
  CHECK(b.model_flops_per_iteration == doctest::Approx(a.model_flops_per_iteration));
  // ep times etp must divide tp x cp x dp: ep 8 with cp 2 x dp 4 is one expert a GPU.
  json eight = two;
  eight["plan"]["ep"] = 8;
  const SimResult c = test::simulate_ok(test::parse_ok(eight));
  CHECK(c.details.edp == 1);
  CHECK(c.details.expert_reduce_s == 0);
  // ... and ep 16 cannot fit in 8.
  json sixteen = two;
  sixteen["model"]["moe"]["experts"] = 16;
  sixteen["plan"]["ep"] = 16;
  auto refused = parse_sim_config(sixteen);
  REQUIRE_FALSE(refused.ok());
  bool named = false;
  for (const auto& d : refused.errors())
    named = named || (d.pointer == "/plan/ep" && d.message.find("/plan/tp x /plan/cp x /plan/dp (8)") != std::string::npos);
  CHECK(named);
}

TEST_CASE("moe: a permutation that makes the host wait costs host time, no GPU time, once per MoE layer") {
  json j = with(base(), 8, 2);
  const SimResult free_running = test::simulate_ok(test::parse_ok(j));
  j["plan"]["moe_permute_sync"] = true;
  const SimResult synced = test::simulate_ok(test::parse_ok(j));
  // The same kernels: their GPU time and the FLOPs are unchanged.
  CHECK(synced.model_flops_per_iteration == free_running.model_flops_per_iteration);
  CHECK(synced.breakdown.forward == doctest::Approx(free_running.breakdown.forward).epsilon(1e-12));
  CHECK(synced.breakdown.backward == doctest::Approx(free_running.breakdown.backward).epsilon(1e-12));
  CHECK(op_time(synced, "moe layer", "expert up projections") == op_time(free_running, "moe layer", "expert up projections"));
  // The GPU waits for the host after each wait: the difference is host overhead, and it is there.
  CHECK(synced.iteration_time_s > free_running.iteration_time_s);
  CHECK(synced.iteration_time_s - synced.breakdown.host_overhead ==
        doctest::Approx(free_running.iteration_time_s - free_running.breakdown.host_overhead).epsilon(1e-9));
  // More MoE layers, more waits: the extra time grows with the layers.
  json deep = j;
  deep["model"]["layers"] = 16;
  json deep_free = deep;
  deep_free["plan"]["moe_permute_sync"] = false;
  const double extra8 = synced.iteration_time_s - free_running.iteration_time_s;
  const double extra16 = test::simulate_ok(test::parse_ok(deep)).iteration_time_s -
                         test::simulate_ok(test::parse_ok(deep_free)).iteration_time_s;
  CHECK(extra16 > 1.5 * extra8);
  // A dense model has no permutation: the field is named as having no effect.
  json dense = base();
  dense["model"].erase("moe");
  dense["plan"]["moe_permute_sync"] = true;
  const SimResult d = test::simulate_ok(test::parse_ok(dense));
  bool warned = false;
  for (const auto& w : d.warnings) warned = warned || w.pointer == "/plan/moe_permute_sync";
  CHECK(warned);
}

namespace {

const OperatorTime* find_op(const SimResult& r, const std::string& block, const std::string& name) {
  for (const OperatorTime& o : r.operators)
    if (o.block == block && o.name == name) return &o;
  return nullptr;
}

}  // namespace

// FSDP with expert parallelism (torchtitan, NeMo AutoModel, Megatron-FSDP): each MoE layer's
// attention, norms, router and shared experts are sharded over the data-parallel ranks as a dense
// layer is; its routed experts over the ranks that hold the same experts (the expert data-parallel
// group), and not at all where that group is one GPU.
TEST_CASE("moe: sharded parameters gather a MoE layer's dense part over dp and its experts over edp") {
  json j = with(base(), 4, 2);  // 8 GPUs: dp 8, ep 4, edp 2
  j["model"]["moe"]["first_dense_layers"] = 2;
  j["plan"]["zero_stage"] = 3;
  const SimConfig c = test::parse_ok(j);
  const SimResult r = test::simulate_ok(c);
  CHECK(r.details.edp == 2);
  const ParameterCounts n = count_parameters(c.model);
  const double dense_part = n.per_moe_layer - 8 * n.expert;  // attention, norms, router (tp 1)
  const double experts = 8.0 / 4 * n.expert;
  // Gathered before the forward and again before the backward (reshard after forward), 16-bit.
  const OperatorTime* g = find_op(r, "moe layer", "sharded parameter all-gather");
  REQUIRE(g != nullptr);
  CHECK(g->comm_bytes == doctest::Approx(2 * (dense_part + experts) * 2));
  CHECK(g->forward_s > 0);
  CHECK(g->backward_s == doctest::Approx(g->forward_s));
  // The dense layers keep theirs.
  const OperatorTime* dense = find_op(r, "layer", "sharded parameter all-gather");
  REQUIRE(dense != nullptr);
  CHECK(dense->comm_bytes == doctest::Approx(2 * n.per_layer * 2));
  // The experts' gradients are reduced layer by layer with the rest: nothing after the backward.
  CHECK(r.details.expert_reduce_s == 0);
  CHECK(r.details.dp_reduce_s == 0);

  // ep 8: one copy of each expert in the group, so the experts are each rank's own, never gathered.
  json own = j;
  own["plan"]["ep"] = 8;
  const SimResult o = test::simulate_ok(test::parse_ok(own));
  CHECK(o.details.edp == 1);
  const OperatorTime* og = find_op(o, "moe layer", "sharded parameter all-gather");
  REQUIRE(og != nullptr);
  CHECK(og->comm_bytes == doctest::Approx(2 * dense_part * 2));
  CHECK(og->forward_s < g->forward_s);
  const OperatorTime* ors = find_op(o, "moe layer", "sharded gradient reduce-scatter");
  const OperatorTime* grs = find_op(r, "moe layer", "sharded gradient reduce-scatter");
  REQUIRE(ors != nullptr);
  REQUIRE(grs != nullptr);
  CHECK(ors->backward_s < grs->backward_s);

  // Memory: the 16-bit weights held are a slice of everything plus the units gathered, less than
  // ZeRO-1's whole copy; the optimizer states are the same split (the experts' over edp).
  json zero1 = j;
  zero1["plan"]["zero_stage"] = 1;
  const SimResult z1 = test::simulate_ok(test::parse_ok(zero1));
  CHECK(r.memory.weights < 0.8 * z1.memory.weights);
  CHECK(r.memory.optimizer_states == doctest::Approx(z1.memory.optimizer_states).epsilon(0.01));
  // Each micro-batch gathers and reduces its layers, so sharding costs time over ZeRO-1 here.
  CHECK(r.iteration_time_s >= z1.iteration_time_s);
}
