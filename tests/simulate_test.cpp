#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>

#include "iteration/communication.hpp"
#include "iteration/kernels.hpp"
#include "test_util.hpp"
#include "vtrain/calibration.hpp"
#include "vtrain/examples.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

// The numbers of a result that the golden file pins, for native and WASM alike.
json fingerprint(const SimResult& r) {
  return json{{"iteration_time_s", r.iteration_time_s},
              {"mfu", r.mfu},
              {"breakdown_s", to_json(r.breakdown)},
              {"memory_GiB", to_json(r.memory)},
              {"training_days", r.training_days},
              {"cost_usd", r.cost_usd}};
}

// Every number in a JSON tree is finite.
bool all_finite(const json& j) {
  if (j.is_number_float()) return std::isfinite(j.get<double>());
  if (j.is_structured())
    for (const auto& x : j)
      if (!all_finite(x)) return false;
  return true;
}

void compare(const json& expected, const json& actual, const std::string& where) {
  if (expected.is_object()) {
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      const std::string key = where + "/" + it.key();
      REQUIRE_MESSAGE(actual.contains(it.key()), key);
      compare(it.value(), actual[it.key()], where + "/" + it.key());
    }
  } else if (expected.is_number()) {
    CAPTURE(where);
    // Both builds use -ffp-contract=off; allow only printing round-off.
    CHECK(actual.get<double>() == doctest::Approx(expected.get<double>()).epsilon(1e-12));
  }
}

}  // namespace

TEST_CASE("simulate: golden whole runs give the same numbers natively and under Node") {
  json results = json::object();
  for (const auto& e : example_configs()) {
    SimConfig c = test::parse_ok(json::parse(e.json_text));
    c.output.timeline = false;
    results[e.name] = fingerprint(test::simulate_ok(c));
  }
  const std::string path = std::string(VTRAIN_GOLDEN_DIR) + "/simulate.json";
  if (const char* update = std::getenv("VTRAIN_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(path) << results.dump(2) << "\n";
    MESSAGE("wrote " << path);
  }
  std::ifstream in(path);
  REQUIRE_MESSAGE(in.good(), "missing " << path << " (run the tests with VTRAIN_UPDATE_GOLDEN=1)");
  std::stringstream ss;
  ss << in.rdbuf();
  json golden = json::parse(ss.str());
  CHECK(golden.size() == results.size());
  compare(golden, results, "");
}

TEST_CASE("simulate: every example runs, fits, and reports finite numbers") {
  REQUIRE(example_configs().size() >= 3);
  for (const auto& e : example_configs()) {
    CAPTURE(e.name);
    const SimConfig c = test::parse_ok(json::parse(e.json_text));
    SimResult r = test::simulate_ok(c);
    CHECK(r.fits_in_memory);
    // A fine-grained mixture of experts runs far below peak: Megatron Bridge's Qwen3 30B-A3B on
    // 16 H100s is published at 206 model TFLOP/s, 10.4% of the FP8 peak.
    CHECK(r.mfu > (c.model.moe.experts > 0 ? 0.05 : 0.2));
    CHECK(r.mfu < 0.75);
    CHECK(r.hfu >= r.mfu);
    CHECK(all_finite(to_json(r)));
  }
}

TEST_CASE("simulate: the direct JSON writer gives the same document as the JSON tree") {
  for (const auto& e : example_configs()) {
    CAPTURE(e.name);
    SimResult r = test::simulate_ok(test::parse_ok(json::parse(e.json_text)));
    REQUIRE(r.timeline_included);
    CHECK(json::parse(to_json_text(r)) == to_json(r));
    r.timeline_included = false;
    CHECK(json::parse(to_json_text(r)) == to_json(r));
  }
}

TEST_CASE("simulate: the asynchronous TP backward collective hides behind the weight-gradient GEMM") {
  json j = test::small_config();
  test::set_parallelism(j, 8, 1, 1);
  for (const bool sp : {false, true}) {
    CAPTURE(sp);
    j["plan"]["sequence_parallel"] = sp;
    j["plan"]["tp_async_backward"] = false;
    const SimResult blocking = test::simulate_ok(test::parse_ok(j));
    j["plan"]["tp_async_backward"] = true;
    const SimResult async = test::simulate_ok(test::parse_ok(j));
    // Only the input-gradient collectives of the column-parallel layers change: the layer's
    // backward list shrinks, its compute does not, and the exposed TP time falls.
    CHECK(async.details.layer_backward_s < blocking.details.layer_backward_s);
    CHECK(async.details.layer_forward_s == blocking.details.layer_forward_s);
    CHECK(async.breakdown.backward == doctest::Approx(blocking.breakdown.backward));
    CHECK(async.breakdown.tp_comm_exposed < blocking.breakdown.tp_comm_exposed);
    CHECK(async.iteration_time_s < blocking.iteration_time_s);
  }
  // Without tensor parallelism there is nothing to overlap.
  json one = test::small_config();
  one["plan"]["tp"] = 1;
  one["plan"]["dp"] = 4;
  one["plan"]["tp_async_backward"] = false;
  const double off = test::simulate_ok(test::parse_ok(one)).iteration_time_s;
  one["plan"]["tp_async_backward"] = true;
  CHECK(test::simulate_ok(test::parse_ok(one)).iteration_time_s == off);
  // The setting is read and written back.
  CHECK(test::parse_ok(j).plan.tp_async_backward);
  CHECK(to_json(test::parse_ok(j))["plan"]["tp_async_backward"] == true);
}

TEST_CASE("simulate: cost is GPUs x hours x price and days follow from iterations") {
  json j = test::small_config();
  j["training"] = {{"tokens", 1e9}};
  j["cluster"]["price_per_gpu_hour_usd"] = 2.5;
  SimResult r = test::simulate_ok(test::parse_ok(j));
  const double iterations = 1e9 / (32.0 * 1024);
  CHECK(r.iterations == doctest::Approx(iterations));
  CHECK(r.training_days == doctest::Approx(iterations * r.iteration_time_s / 86400));
  CHECK(r.gpu_hours == doctest::Approx(8 * iterations * r.iteration_time_s / 3600));
  CHECK(r.cost_usd == doctest::Approx(r.gpu_hours * 2.5));
  CHECK(r.energy_MWh == doctest::Approx(r.gpu_hours * 400 / 1e6));
}

TEST_CASE("simulate: more data parallelism shortens the iteration, more work lengthens it") {
  json j = test::small_config();
  j["plan"] = {{"tp", 1}, {"pp", 1}, {"dp", 2}, {"micro_batch", 2}, {"global_batch", 64}};
  j["cluster"].erase("num_gpus");
  const double t2 = test::simulate_ok(test::parse_ok(j)).iteration_time_s;
  j["plan"]["dp"] = 8;
  const double t8 = test::simulate_ok(test::parse_ok(j)).iteration_time_s;
  CHECK(t8 < t2);
  j["model"]["layers"] = 32;
  CHECK(test::simulate_ok(test::parse_ok(j)).iteration_time_s > t8);
}

TEST_CASE("simulate: an unknown GPU is an error naming /cluster/gpu") {
  json j = test::small_config();
  j["cluster"]["gpu"] = "h100-sxm5";
  auto r = simulate(test::parse_ok(j));
  REQUIRE_FALSE(r.ok());
  CHECK(r.errors().front().pointer == "/cluster/gpu");
}

TEST_CASE("simulate: tensor parallelism across nodes is modelled and slower than inside one") {
  json j = test::small_config();
  j["model"] = {{"layers", 16}, {"hidden", 4096}, {"heads", 32}, {"seq_len", 2048}, {"vocab", 51200}};
  j["plan"] = {{"tp", 16}, {"pp", 1}, {"dp", 1}, {"micro_batch", 1}, {"global_batch", 8}};
  j["cluster"] = {{"num_gpus", 16}, {"gpus_per_node", 16}};
  SimResult one_node = test::simulate_ok(test::parse_ok(j));
  j["cluster"]["gpus_per_node"] = 8;
  SimResult two_nodes = test::simulate_ok(test::parse_ok(j));
  CHECK(two_nodes.details.tp_nodes == 2);
  CHECK(two_nodes.breakdown.tp_comm_exposed > one_node.breakdown.tp_comm_exposed);
}

TEST_CASE("simulate: bandwidth settings move communication time") {
  json j = test::small_config();
  j["plan"] = {{"tp", 8}, {"pp", 1}, {"dp", 4}, {"micro_batch", 1}, {"global_batch", 8}};
  j["cluster"] = {{"num_gpus", 32}};
  SimResult base = test::simulate_ok(test::parse_ok(j));
  j["cluster"]["intra_node_GBps"] = 150;
  SimResult slow_nvlink = test::simulate_ok(test::parse_ok(j));
  CHECK(slow_nvlink.breakdown.tp_comm_exposed > base.breakdown.tp_comm_exposed);
  j["cluster"].erase("intra_node_GBps");
  j["cluster"]["inter_node_Gbps"] = 200;
  SimResult slow_net = test::simulate_ok(test::parse_ok(j));
  CHECK(slow_net.breakdown.dp_comm_exposed > base.breakdown.dp_comm_exposed);
  CHECK(base.config.cluster.intra_node_GBps == 300);  // resolved from the profile
}

TEST_CASE("simulate: odd but valid configs give finite results") {
  std::vector<json> plans = {
      {{"tp", 1}, {"pp", 1}, {"dp", 1}, {"micro_batch", 1}, {"global_batch", 1}},
      {{"tp", 1}, {"pp", 16}, {"dp", 1}, {"micro_batch", 1}, {"global_batch", 1}},
      {{"tp", 16}, {"pp", 1}, {"dp", 1}, {"micro_batch", 64}, {"global_batch", 64}},
  };
  for (const auto& plan : plans) {
    json j = test::small_config();
    j["plan"] = plan;
    j["cluster"] = {{"gpus_per_node", 3}};
    CAPTURE(plan.dump());
    SimResult r = test::simulate_ok(test::parse_ok(j));
    CHECK(all_finite(to_json(r)));
    CHECK(r.iteration_time_s > 0);
  }
}

TEST_CASE("simulate: a profile whose rates nearly vanish is an error, not an infinite cost") {
  Profile slow = *bundled_profiles().find("a100-sxm4-80gb");
  slow.gemm_max_efficiency = 1e-300;  // valid to the reader (above 0), absurd to the arithmetic
  json j = test::small_config();
  j["training"]["tokens"] = 1e18;
  j["cluster"]["price_per_gpu_hour_usd"] = 2.0;
  auto r = simulate(test::parse_ok(j), &slow);
  REQUIRE_FALSE(r.ok());
  CHECK(r.errors().front().code == "non_finite");
  CHECK(r.errors().front().pointer == "/cluster/gpu");
  // The same config with the bundled profile is fine.
  CHECK(simulate(test::parse_ok(j)).ok());
}

TEST_CASE("simulate: a result carries the profile's recorded error on measured runs like it") {
  const Profile* bundled = bundled_profiles().find("a100-sxm4-80gb");
  REQUIRE(bundled);
  const json& cal = bundled->provenance["calibration"];
  const json& held = cal["cross_validation"]["held_out"];
  REQUIRE(held.size() == 2);

  // One node: the single-node set's held-out error; across nodes: the multi-node set's.
  json j = test::small_config();  // 8 GPUs, 8 per node
  SimResult one = test::simulate_ok(test::parse_ok(j));
  CHECK(one.accuracy.set == "single-node");
  CHECK(one.accuracy.held_out);
  for (const json& e : held) {
    if (e["set"] == "single-node") {
      CHECK(one.accuracy.runs == e["runs"].get<int>());
      CHECK(one.accuracy.mape_percent == e["mape_percent"].get<double>());
    }
  }
  CHECK(to_json(one)["accuracy"]["set"] == "single-node");
  j["cluster"]["gpus_per_node"] = 4;
  SimResult two = test::simulate_ok(test::parse_ok(j));
  CHECK(two.accuracy.set == "multi-node");
  CHECK(two.accuracy.mape_percent > 0);

  // A profile whose calibration kept only its in-sample errors says so; one with none has none,
  // and entries not shaped as calibrate writes them are not read.
  json pj = to_json(*bundled);
  pj["provenance"]["calibration"].erase("cross_validation");
  auto in_sample = parse_profile(pj);
  REQUIRE(in_sample.ok());
  SimResult fitted = test::simulate_ok(test::parse_ok(test::small_config()), &in_sample.value());
  CHECK_FALSE(fitted.accuracy.held_out);
  CHECK(fitted.accuracy.mape_percent == cal["in_sample"][0]["mape_percent"].get<double>());
  pj["provenance"]["calibration"].erase("published");
  pj["provenance"]["calibration"]["in_sample"] = json::array({{{"set", "single-node"}, {"runs", "many"}},
                                                              {{"set", "single-node"}, {"runs", 3}, {"mape_percent", -1}}});
  auto odd = parse_profile(pj);
  REQUIRE(odd.ok());
  CHECK(odd.value().accuracy.empty());
  pj["provenance"] = json::object();
  auto none = parse_profile(pj);
  REQUIRE(none.ok());
  SimResult unknown = test::simulate_ok(test::parse_ok(test::small_config()), &none.value());
  CHECK(unknown.accuracy.runs == 0);
  CHECK_FALSE(to_json(unknown).contains("accuracy"));
}

TEST_CASE("simulate: a profile checked on published runs alone reports them on one node as across nodes") {
  // The H100's profile records no single- or multi-node calibration set, only NVIDIA's published
  // runs (8 to 1024 GPUs): a plan on one node gets their error, not "no measured runs".
  const Profile* h100 = bundled_profiles().find("h100-sxm5-80gb");
  REQUIRE(h100 != nullptr);
  REQUIRE_FALSE(h100->accuracy.empty());
  for (const ProfileAccuracy& a : h100->accuracy) CHECK(a.set == "published");
  for (const int gpus : {8, 64}) {
    CAPTURE(gpus);
    json j = test::small_config();  // tp 2, pp 2 on 8 GPUs
    j["cluster"]["gpu"] = "h100-sxm5-80gb";
    j["cluster"]["num_gpus"] = gpus;
    j["plan"]["dp"] = gpus / 4;
    j["plan"]["global_batch"] = gpus * 4;
    const SimResult r = test::simulate_ok(test::parse_ok(j));
    CHECK(r.accuracy.set == "published");
    CHECK(r.accuracy.runs == h100->accuracy[0].runs);
    CHECK(r.accuracy.mape_percent == h100->accuracy[0].mape_percent);
    CHECK(r.accuracy.gpus_min <= 8);
  }
}

TEST_CASE("simulate: a plan's accuracy is that of the recorded runs of its kind of model, then of its scale") {
  // The H100 records its cross-validated calibration (dense FP8 runs) and three checks no fit saw:
  // Grok-1's MoE runs, Llama 3 405B's dense ones and Qwen3-235B's MoE ones. A dense plan gets the
  // calibration's error, then the dense check, then the MoE ones; a MoE plan Grok-1's (it spans the
  // plan's GPUs, which Qwen3-235B's 256 do not), then Qwen3-235B's, then the dense records in order.
  const Profile* h100 = bundled_profiles().find("h100-sxm5-80gb");
  REQUIRE(h100 != nullptr);
  int moe_records = 0;
  for (const ProfileAccuracy& a : h100->accuracy) moe_records += a.moe ? 1 : 0;
  REQUIRE(moe_records == 2);
  REQUIRE(h100->accuracy.size() == 4);
  REQUIRE_FALSE(h100->accuracy[0].moe);

  json j = test::small_config();
  j["cluster"]["gpu"] = "h100-sxm5-80gb";
  const SimResult dense = test::simulate_ok(test::parse_ok(j));
  CHECK_FALSE(dense.accuracy.moe);
  CHECK_FALSE(dense.accuracy.never_fitted);
  CHECK(dense.accuracy.mape_percent == h100->accuracy[0].mape_percent);
  REQUIRE(dense.accuracy_also.size() == 3);
  CHECK_FALSE(dense.accuracy_also[0].moe);
  CHECK(dense.accuracy_also[0].never_fitted);
  CHECK(dense.accuracy_also[1].moe);
  CHECK(dense.accuracy_also[2].moe);

  j["model"]["moe"] = {{"experts", 8}, {"experts_per_token", 2}, {"expert_ffn_hidden", 2048}};
  j["plan"]["ep"] = 2;
  const SimResult moe = test::simulate_ok(test::parse_ok(j));
  CHECK(moe.accuracy.moe);
  CHECK(moe.accuracy.never_fitted);
  CHECK(moe.accuracy.framework.find("grok-1") != std::string::npos);
  REQUIRE(moe.accuracy_also.size() == 3);
  CHECK(moe.accuracy_also[0].moe);
  CHECK(moe.accuracy_also[0].framework.find("qwen3-235b") != std::string::npos);
  CHECK(moe.accuracy_also[1].mape_percent == h100->accuracy[0].mape_percent);
  CHECK_FALSE(moe.accuracy_also[2].moe);
  CHECK(to_json(moe)["accuracy"]["moe"] == true);

  // A dense plan as wide as Llama 3 405B on 2048 GPUs is beyond the calibration's hidden sizes
  // (4096 to 12288) and within the Llama 3 405B runs' (1024 to 16384 GPUs, hidden 16384): theirs first.
  json wide = test::small_config();
  wide["cluster"]["gpu"] = "h100-sxm5-80gb";
  wide["model"]["hidden"] = 16384;
  wide["model"]["heads"] = 128;
  test::set_parallelism(wide, 2, 2, 512);
  wide["plan"]["global_batch"] = 2048;
  const SimResult big = test::simulate_ok(test::parse_ok(wide));
  CHECK(big.accuracy.framework.find("llama3.1-405b") != std::string::npos);
  CHECK(big.accuracy.never_fitted);
  REQUIRE(big.accuracy_also.size() == 3);
  CHECK(big.accuracy_also[0].mape_percent == h100->accuracy[0].mape_percent);
  // As wide on 64 GPUs: no record spans it, and the calibration's comes first as recorded.
  test::set_parallelism(wide, 2, 2, 16);
  wide["plan"]["global_batch"] = 64;
  CHECK(test::simulate_ok(test::parse_ok(wide)).accuracy.mape_percent == h100->accuracy[0].mape_percent);

  // The A100 records no MoE runs: a MoE plan beyond its calibration still gets Megatron-LM's.
  json a = test::small_config();
  a["cluster"]["num_gpus"] = 4096;
  a["plan"]["dp"] = 1024;
  a["plan"]["global_batch"] = 4096;
  a["model"]["moe"] = j["model"]["moe"];
  a["plan"]["ep"] = 2;
  const SimResult a100 = test::simulate_ok(test::parse_ok(a));
  CHECK(a100.accuracy.framework == "Megatron-LM");
  CHECK_FALSE(a100.accuracy.moe);
}

TEST_CASE("simulate: beyond the calibration runs' GPU counts the accuracy is that of the published runs") {
  const Profile* bundled = bundled_profiles().find("a100-sxm4-80gb");
  REQUIRE(bundled != nullptr);
  const json& cal = bundled->provenance["calibration"];
  const json& multi = cal["cross_validation"]["held_out"][1];
  REQUIRE(multi["set"] == "multi-node");
  const int most = multi["gpus"][1].get<int>();
  CHECK(most == 512);
  const json& published = cal["published"];
  REQUIRE(published.size() == 3);

  // dp scales the small plan (tp 2, pp 2) to the GPU count asked for.
  const auto at = [](int gpus) {
    json j = test::small_config();
    j["cluster"]["num_gpus"] = gpus;
    j["plan"]["dp"] = gpus / 4;
    j["plan"]["global_batch"] = gpus * 4;
    return test::simulate_ok(test::parse_ok(j));
  };
  const SimResult within = at(most);
  CHECK(within.accuracy.set == "multi-node");
  CHECK(within.accuracy.gpus_min == multi["gpus"][0].get<int>());
  CHECK(within.accuracy.gpus_max == most);
  CHECK(within.accuracy_also.empty());

  const SimResult beyond = at(2 * most);
  CHECK(beyond.accuracy.set == "published");
  CHECK(beyond.accuracy.framework == "Megatron-LM");
  CHECK(beyond.accuracy.held_out);
  // The other published runs follow, in the profile's order.
  REQUIRE(beyond.accuracy_also.size() == 2);
  CHECK(beyond.accuracy_also[0].framework == "DeepSpeed");
  CHECK(beyond.accuracy_also[1].framework == "Megatron-DeepSpeed");
  for (size_t i = 0; i < published.size(); ++i) {
    const json& e = published[i];
    const ProfileAccuracy& a = i == 0 ? beyond.accuracy : beyond.accuracy_also[i - 1];
    CHECK(a.framework == e["framework"].get<std::string>());
    CHECK(a.runs == e["runs"].get<int>());
    CHECK(a.mape_percent == e["mape_percent"].get<double>());
    CHECK(a.gpus_min == e["gpus"][0].get<int>());
    CHECK(a.gpus_max == e["gpus"][1].get<int>());
  }
  // A model wider than the calibration runs' is beyond them too, even on one node.
  const json& single = cal["cross_validation"]["held_out"][0];
  REQUIRE(single["set"] == "single-node");
  const int widest = single["hidden"][1].get<int>();
  CHECK(widest == 2048);
  json wide = test::small_config();  // 8 GPUs, hidden 2048
  CHECK(test::simulate_ok(test::parse_ok(wide)).accuracy.set == "single-node");
  wide["model"]["hidden"] = 2 * widest;
  const SimResult wider = test::simulate_ok(test::parse_ok(wide));
  CHECK(wider.accuracy.set == "published");
  CHECK(wider.accuracy.hidden_max == published[0]["hidden"][1].get<int>());
  CHECK(multi["hidden"][1].get<int>() == 8192);

  const json out = to_json(beyond);
  CHECK(out["accuracy"]["framework"] == "Megatron-LM");
  CHECK(out["accuracy"]["gpus"] == published[0]["gpus"]);
  CHECK(out["accuracy"]["hidden"] == published[0]["hidden"]);
  CHECK(out["accuracy_also"][0]["framework"] == "DeepSpeed");

  // A profile without published runs keeps the multi-node figure at any scale; one whose
  // calibration recorded no GPU counts has no scale to be beyond.
  json pj = to_json(*bundled);
  pj["provenance"]["calibration"].erase("published");
  auto unpublished = parse_profile(pj);
  REQUIRE(unpublished.ok());
  json big = test::small_config();
  big["cluster"]["num_gpus"] = 4096;
  big["plan"]["dp"] = 1024;
  big["plan"]["global_batch"] = 4096;
  CHECK(test::simulate_ok(test::parse_ok(big), &unpublished.value()).accuracy.set == "multi-node");
  pj = to_json(*bundled);
  for (json& e : pj["provenance"]["calibration"]["cross_validation"]["held_out"]) e.erase("gpus"), e.erase("hidden");
  auto no_counts = parse_profile(pj);
  REQUIRE(no_counts.ok());
  const SimResult old = test::simulate_ok(test::parse_ok(big), &no_counts.value());
  CHECK(old.accuracy.set == "multi-node");
  CHECK(old.accuracy.held_out);
  CHECK_FALSE(to_json(old)["accuracy"].contains("gpus"));
}

TEST_CASE("simulate: the operators of a layer add up to the layer's forward, recompute and backward time") {
  json j = test::small_config();
  j["plan"]["grad_accumulation_fusion"] = false;
  j["plan"]["tp_async_backward"] = false;
  j["plan"]["attention"] = "unfused";
  j["output"] = {{"operators", true}, {"timeline", false}};
  const SimResult r = test::simulate_ok(test::parse_ok(j));
  REQUIRE(!r.operators.empty());
  CHECK(r.details.layers_per_stage == 8);
  double fwd = 0, rec = 0, bwd = 0;
  std::vector<std::string> seen;
  int last_block = 0;
  for (const OperatorTime& o : r.operators) {
    CAPTURE(o.name);
    CHECK(!o.name.empty());
    const std::string key = o.block + "/" + o.name;
    CHECK(std::find(seen.begin(), seen.end(), key) == seen.end());  // one row per operator
    seen.push_back(key);
    const int block = o.block == "embedding" ? 0 : o.block == "layer" ? 1 : o.block == "head" ? 2 : -1;
    REQUIRE(block >= 0);
    CHECK(block >= last_block);  // model order: embedding, layer, head
    last_block = block;
    CHECK(o.kernels > 0);
    CHECK(o.total_s() > 0);
    if (o.kind == OperatorKind::gemm) CHECK(o.work_flops > 0);
    if (o.kind == OperatorKind::memory) CHECK(o.hbm_bytes > 0);
    if (o.kind == OperatorKind::collective) CHECK(o.comm_bytes > 0);
    if (o.block == "layer") fwd += o.forward_s, rec += o.recompute_s, bwd += o.backward_s;
  }
  CHECK(fwd == doctest::Approx(r.details.layer_forward_s).epsilon(1e-9));
  CHECK(rec == doctest::Approx(r.details.layer_recompute_s).epsilon(1e-9));
  CHECK(bwd == doctest::Approx(r.details.layer_backward_s).epsilon(1e-9));
  const auto find = [&](const std::string& block, const std::string& name) { return test::operator_row(r, block, name); };
  // Unfused accumulation is a row of its own; the fused causal softmax is one kernel a phase.
  CHECK(find("layer", "gradient accumulation") != nullptr);
  REQUIRE(find("layer", "softmax") != nullptr);
  CHECK(find("layer", "softmax")->kernels == 3);
  // A projection's backward (input and weight gradients) costs about twice its forward.
  const OperatorTime* mlp = find("layer", "MLP down projection");
  REQUIRE(mlp != nullptr);
  CHECK(mlp->backward_s > 1.5 * mlp->forward_s);
  CHECK(mlp->recompute_s == doctest::Approx(mlp->forward_s));
  // Two all-reduces a layer in each of forward, recompute and backward.
  REQUIRE(find("layer", "tensor-parallel all-reduce") != nullptr);
  CHECK(find("layer", "tensor-parallel all-reduce")->kernels == 6);
  CHECK(find("head", "logits projection") != nullptr);
  CHECK(find("embedding", "token embedding lookup") != nullptr);
  CHECK(to_json(r).contains("operators"));

  // Flash attention is one operator; without the option there are no rows at all.
  j["plan"]["attention"] = "flash";
  j["plan"]["grad_accumulation_fusion"] = true;
  const SimResult f = test::simulate_ok(test::parse_ok(j));
  CHECK(std::none_of(f.operators.begin(), f.operators.end(), [](const OperatorTime& o) { return o.name == "softmax"; }));
  CHECK(std::none_of(f.operators.begin(), f.operators.end(), [](const OperatorTime& o) { return o.name == "gradient accumulation"; }));
  CHECK(std::any_of(f.operators.begin(), f.operators.end(), [](const OperatorTime& o) { return o.kind == OperatorKind::attention; }));
  j.erase("output");
  const SimResult plain = test::simulate_ok(test::parse_ok(j));
  CHECK(plain.operators.empty());
  CHECK(!to_json(plain).contains("operators"));
  CHECK(plain.iteration_time_s == f.iteration_time_s);
}

TEST_CASE("simulate: Megatron's fused causal softmax covers sequences up to 16384, PyTorch's kernels beyond") {
  json j = test::small_config();  // tp 2, micro-batch 2: 16 heads give 16 attention rows a rank
  j["plan"]["attention"] = "unfused";
  j["output"] = {{"operators", true}, {"timeline", false}};
  const auto softmax_kernels = [&](int seq) {
    j["model"]["seq_len"] = seq;
    const SimResult r = test::simulate_ok(test::parse_ok(j));
    const OperatorTime* softmax = test::operator_row(r, "layer", "softmax");
    REQUIRE(softmax != nullptr);
    return softmax->kernels;
  };
  // One kernel in each of forward, recompute and backward while the kernel applies.
  for (int seq : {1024, 2048, 4096, 16384}) {
    CAPTURE(seq);
    CHECK(softmax_kernels(seq) == 3);
  }
  // Past its range: cast, scale, mask, softmax and cast back, each a kernel.
  CHECK(softmax_kernels(32768) > 3);
}

TEST_CASE("simulate: a pipeline depth that does not divide the layers gives uneven stages") {
  // 16 layers on 3 stages: 6, 5, 5 (DeepSpeed's uniform partition), beside the even 4 stages of 4.
  json j = test::small_config();
  test::set_parallelism(j, 2, 3, 1);
  j["plan"]["global_batch"] = 16;
  const SimResult r = test::simulate_ok(test::parse_ok(j));
  CHECK(r.details.layers_per_stage == 6);
  CHECK_FALSE(r.details.even_stages);
  REQUIRE(r.stage_breakdowns.size() == 3);
  REQUIRE(r.stage_memory.size() == 3);
  // The stage with the extra layer computes more and holds more weights than the middle one.
  const auto compute = [](const Breakdown& b) { return b.forward + b.backward + b.recompute; };
  CHECK(compute(r.stage_breakdowns[0]) > 1.15 * compute(r.stage_breakdowns[1]));
  CHECK(compute(r.stage_breakdowns[0]) < 1.25 * compute(r.stage_breakdowns[1]));
  CHECK(r.stage_memory[0].weights > r.stage_memory[1].weights);
  CHECK(test::warning(r, WarningCode::uneven_stages, "/plan/pp", "stage 0 holds 6 layers, the others 5") != nullptr);
  // Between the even neighbours: slower than 4 stages of 4, faster than 2 stages of 8.
  const auto time_at = [&](int pp) {
    json e = j;
    e["plan"]["pp"] = pp;
    e["cluster"]["num_gpus"] = 2 * pp;
    return test::simulate_ok(test::parse_ok(e)).iteration_time_s;
  };
  CHECK(r.iteration_time_s > time_at(4));
  CHECK(r.iteration_time_s < time_at(2));
  json even = j;
  even["plan"]["pp"] = 4;
  even["cluster"]["num_gpus"] = 8;
  const SimResult e = test::simulate_ok(test::parse_ok(even));
  CHECK(e.details.layers_per_stage == 4);
  CHECK(e.details.even_stages);
  CHECK(e.warnings.empty());
}

TEST_CASE("simulate: more sequences per micro-batch never shorten the iteration, host-bound or not") {
  // A host that issues forward kernels slowly and backward kernels quickly: the head's backward
  // leaves the GPU a backlog that drains while the host issues the last layer's recomputation.
  Profile p = *bundled_profiles().find("a100-sxm4-80gb");
  p.host_issue_us = 100;
  p.host_issue_backward_us = 4;
  p.host_layer_us = 0;
  p.collective_sync_us = 20;
  json j = test::small_config();
  j["model"]["vocab"] = 50257;
  j["cluster"].erase("num_gpus");  // each plan below is set whole
  for (int tp : {1, 2, 4, 8})
    for (int hidden : {1024, 2048})
      for (int layers : {12, 20}) {
        double previous = 0;
        for (int mb : {1, 2, 4, 8}) {
          // Below 4 attention rows per rank Megatron's fused softmax gives way to PyTorch's kernels:
          // other kernels, not the same ones with more work.
          if (16 / tp * mb % 4 != 0) continue;
          j["model"]["hidden"] = hidden;
          j["model"]["layers"] = layers;
          j["plan"] = {{"tp", tp}, {"pp", 1}, {"dp", 1}, {"micro_batch", mb}, {"global_batch", 2 * mb},
                       {"recompute", "full"}, {"attention", "unfused"}, {"tp_async_backward", false}};
          const double t = test::simulate_ok(test::parse_ok(j), &p).iteration_time_s;
          CAPTURE(tp);
          CAPTURE(hidden);
          CAPTURE(layers);
          CAPTURE(mb);
          CHECK(t >= previous);
          previous = t;
        }
      }
}

TEST_CASE("simulate: the loss is Megatron's cross-entropy, one fp32 pass over the logits per step") {
  json j = test::small_config();  // tp 2, micro-batch 2, sequence 1024, vocabulary 51200
  j["output"] = {{"operators", true}, {"timeline", false}};
  const SimResult r = test::simulate_ok(test::parse_ok(j));
  const OperatorTime* it = test::operator_row(r, "head", "cross-entropy loss");
  REQUIRE(it != nullptr);
  // Forward: cast to fp32 (2 + 4 bytes a logit), max (4), subtract (8), exp (8), sum (4), divide
  // (8); backward: scale in place (8), back to 16 bits (4 + 2).
  const double logits = 2.0 * 1024 * (51200 / 2);
  CHECK(it->kernels == 8);
  CHECK(it->hbm_bytes == doctest::Approx((6 + 4 + 8 + 8 + 4 + 8 + 8 + 6) * logits));
  CHECK(it->forward_s > it->backward_s);
}

TEST_CASE("simulate: sequence parallelism at tp 1 and ZeRO-1 at dp 1 run, with a warning that they change nothing") {
  json j = test::small_config();
  test::set_parallelism(j, 1, 1, 1);
  j["plan"]["global_batch"] = 2;
  const SimResult plain = test::simulate_ok(test::parse_ok(j));
  j["plan"]["sequence_parallel"] = true;
  j["plan"]["zero_stage"] = 1;
  const SimResult r = test::simulate_ok(test::parse_ok(j));
  CHECK(r.iteration_time_s == plain.iteration_time_s);
  CHECK(r.memory.total() == plain.memory.total());
  CHECK(test::warning(r, WarningCode::no_effect, "/plan/sequence_parallel", "at tp 1 it changes nothing") != nullptr);
  CHECK(test::warning(r, WarningCode::no_effect, "/plan/zero_stage", "at dp 1 it changes nothing") != nullptr);
  CHECK(plain.warnings.empty());
}

TEST_CASE("simulate: selective recomputation with flash attention runs as none, with a warning that says why") {
  json j = test::small_config();
  j["plan"]["attention"] = "flash";
  j["plan"]["recompute"] = "none";
  const SimResult none = test::simulate_ok(test::parse_ok(j));
  j["plan"]["recompute"] = "selective";
  const SimResult selective = test::simulate_ok(test::parse_ok(j));
  CHECK(selective.iteration_time_s == none.iteration_time_s);
  CHECK(selective.details.layer_recompute_s == 0);
  // Only the softmax statistics are not kept: well under a percent of the memory.
  CHECK(selective.memory.total() <= none.memory.total());
  CHECK(selective.memory.total() > 0.99 * none.memory.total());
  CHECK(test::warning(selective, WarningCode::no_effect, "/plan/recompute", "so it runs as none") != nullptr);
  CHECK(test::warning(none, WarningCode::no_effect, "/plan/recompute") == nullptr);
  // Without flash attention selective recomputation rebuilds the scores, and says nothing.
  j["plan"]["attention"] = "unfused";
  const SimResult unfused = test::simulate_ok(test::parse_ok(j));
  CHECK(unfused.details.layer_recompute_s > 0);
  CHECK(test::warning(unfused, WarningCode::no_effect, "/plan/recompute") == nullptr);
}

TEST_CASE("simulate: a group of GPUs that does not divide a node spans two nodes only where the ranks put it there") {
  json j = test::small_config();
  j["model"]["hidden"] = 2304;  // 24 heads: tensor parallelism 3 divides them
  j["model"]["heads"] = 24;
  j["plan"]["micro_batch"] = 1;
  auto run = [&](int tp, int pp, int dp) {
    test::set_parallelism(j, tp, pp, dp);
    j["plan"]["global_batch"] = 3 * dp;  // three micro-batches a replica
    return test::simulate_ok(test::parse_ok(j));
  };
  // tp 3 x dp 2 on 6 GPUs of one 8-GPU node: ranks 0-2 and 3-5, dp pairs {0,3} {1,4} {2,5}.
  const SimResult one_node = run(3, 1, 2);
  CHECK(one_node.details.tp_nodes == 1);
  CHECK(one_node.details.dp_nodes == 1);
  CHECK(test::warning(one_node, WarningCode::tp_across_nodes, "/plan/tp", "") == nullptr);
  // tp 3 x dp 4 on 12 GPUs: the third group, ranks 6-8, straddles the first node's end, and so
  // does the dp group {2, 5, 8, 11}.
  const SimResult two_nodes = run(3, 1, 4);
  CHECK(two_nodes.details.tp_nodes == 2);
  CHECK(two_nodes.details.dp_nodes == 2);
  CHECK(test::warning(two_nodes, WarningCode::tp_across_nodes, "/plan/tp", "spans 2 nodes") != nullptr);
  // Each rank's work is the same; the straddling group's collectives cross the network.
  CHECK(two_nodes.stage_breakdowns[0].tp_comm_exposed > 2 * one_node.stage_breakdowns[0].tp_comm_exposed);
  // Groups that tile the nodes evenly are unchanged: tp 4 within a node, dp across them.
  const SimResult even = run(4, 1, 4);
  CHECK(even.details.tp_nodes == 1);
  CHECK(even.details.dp_nodes == 2);
}

TEST_CASE("simulate: a pipeline transfer crosses the network where a pair of partner ranks lies on two nodes") {
  json j = test::small_config();
  j["model"]["hidden"] = 2304;  // 24 heads: tensor parallelism 3 divides them
  j["model"]["heads"] = 24;
  j["plan"]["micro_batch"] = 1;
  auto p2p = [&](int tp, int pp, int dp, const char* placement, int gpus_per_node) {
    test::set_parallelism(j, tp, pp, dp);
    j["plan"]["global_batch"] = 4 * dp;
    j["plan"]["placement"] = placement;
    j["cluster"]["gpus_per_node"] = gpus_per_node;
    return test::simulate_ok(test::parse_ok(j)).details.p2p_send_s;
  };
  // tp 3 x pp 2 on 6 GPUs: both stages on one 8-GPU node, as on one 16-GPU node.
  CHECK(p2p(3, 2, 1, "tp-dp-pp", 8) == p2p(3, 2, 1, "tp-dp-pp", 16));
  // tp 2 x pp 3 x dp 2 with replicas outermost: the second replica's ranks 6-11 cross the
  // first node's end between its stages 0 (ranks 6, 7) and 1 (ranks 8, 9). Beyond the fixed
  // cost of a send, the bytes take more than twice as long on a GPU's share of the NICs.
  const double fixed_s = bundled_profiles().find("a100-sxm4-80gb")->p2p_latency_us * 1e-6;
  CHECK(p2p(2, 3, 2, "tp-pp-dp", 8) - fixed_s > 2 * (p2p(2, 3, 2, "tp-pp-dp", 16) - fixed_s));
  // tp 2 x pp 2 x dp 2 fills one node exactly in either order.
  CHECK(p2p(2, 2, 2, "tp-pp-dp", 8) == p2p(2, 2, 2, "tp-pp-dp", 16));
}

TEST_CASE("simulate: each warning gives its kind and the field it is about, in the result and in its JSON") {
  json j = test::small_config();
  test::set_parallelism(j, 16, 1, 1);  // a tensor-parallel group over two 8-GPU nodes
  j["plan"]["global_batch"] = 2;
  const SimResult across = test::simulate_ok(test::parse_ok(j));
  CHECK(test::warning(across, WarningCode::tp_across_nodes, "/plan/tp", "spans 2 nodes") != nullptr);
  const json w = to_json(across)["warnings"];
  REQUIRE(w.size() == across.warnings.size());
  CHECK(w[0] == json{{"code", "tp_across_nodes"}, {"pointer", "/plan/tp"}, {"message", across.warnings[0].message}});
  CHECK(json::parse(to_json_text(across))["warnings"] == w);

  // Too many blocks for a timeline: the result has none and says why.
  json many = test::small_config();
  test::set_parallelism(many, 1, 64, 1);
  many["model"]["layers"] = 64;
  many["plan"]["micro_batch"] = 1;
  many["plan"]["global_batch"] = 2048;
  const SimResult big = test::simulate_ok(test::parse_ok(many));
  CHECK_FALSE(big.timeline_included);
  CHECK(test::warning(big, WarningCode::timeline_omitted, "/output/timeline", "250000") != nullptr);
  many["output"] = {{"timeline", false}};
  CHECK(test::simulate_ok(test::parse_ok(many)).warnings.empty());
}

TEST_CASE("simulate: with launch blocking the host waits for every kernel, and nothing overlaps") {
  json j = test::small_config();
  j["plan"]["dp_overlap"] = true;
  j["plan"]["p2p_overlap"] = true;
  j["plan"]["tp_async_backward"] = true;
  j["output"] = {{"operators", true}, {"timeline", false}};
  const SimResult free_running = test::simulate_ok(test::parse_ok(j));
  j["plan"]["launch_blocking"] = true;
  const SimResult blocking = test::simulate_ok(test::parse_ok(j));
  CHECK(blocking.iteration_time_s > free_running.iteration_time_s);
  CHECK(test::parse_ok(j).plan.launch_blocking);
  CHECK(to_json(blocking)["config"]["plan"]["launch_blocking"] == true);

  // Every kernel's issue is GPU idle time that the queue hid before: at least the layers' kernels,
  // each micro-batch, at the cheaper of the two per-kernel host costs.
  const Profile* prof = bundled_profiles().find("a100-sxm4-80gb");
  REQUIRE(prof != nullptr);
  double layer_kernels = 0;
  for (const OperatorTime& o : blocking.operators)
    if (o.block == "layer") layer_kernels += o.kernels;
  const double per_kernel_s = std::min(prof->host_issue_us, prof->host_issue_backward_us) * 1e-6;
  const double issued_s = blocking.micro_batches * blocking.details.layers_per_stage * layer_kernels * per_kernel_s;
  CHECK(blocking.breakdown.host_overhead - free_running.breakdown.host_overhead >= issued_s);

  // The overlaps asked for have no effect, and the result says so.
  CHECK(test::warning(blocking, WarningCode::no_effect, "/plan/launch_blocking",
                      "(dp_overlap), the pipeline sends' overlap (p2p_overlap) and the asynchronous "
                      "tensor-parallel backward (tp_async_backward) have no effect") != nullptr);
  j["plan"]["dp_overlap"] = false;
  j["plan"]["p2p_overlap"] = false;
  j["plan"]["tp_async_backward"] = false;
  const SimResult plain = test::simulate_ok(test::parse_ok(j));
  CHECK(plain.iteration_time_s == doctest::Approx(blocking.iteration_time_s).epsilon(1e-12));
  CHECK(test::warning(plain, WarningCode::no_effect, "/plan/launch_blocking") == nullptr);
}

TEST_CASE("simulate: ZeRO-1 that all-reduces the gradients whole keeps the sharded optimizer and pays the all-reduce") {
  json j = test::small_config();
  test::set_parallelism(j, 2, 1, 4);  // dp 4
  j["plan"]["global_batch"] = 32;
  const auto run = [&](int stage, bool whole) {
    j["plan"]["zero_stage"] = stage;
    j["plan"]["zero_all_reduce"] = whole;
    return test::simulate_ok(test::parse_ok(j));
  };
  const SimResult replicated = run(0, false), scattered = run(1, false), whole = run(1, true);
  CHECK(test::parse_ok(j).plan.zero_all_reduce);
  CHECK(to_json(whole)["config"]["plan"]["zero_all_reduce"] == true);
  // The reduction is the replicated optimizer's all-reduce, not ZeRO-1's reduce-scatter ...
  CHECK(whole.details.dp_reduce_s == doctest::Approx(replicated.details.dp_reduce_s));
  CHECK(whole.details.dp_reduce_s > 1.5 * scattered.details.dp_reduce_s);
  // ... the optimizer states stay sharded, and the updated weights are still all-gathered.
  CHECK(whole.memory.optimizer_states == doctest::Approx(scattered.memory.optimizer_states));
  CHECK(whole.memory.optimizer_states < 0.5 * replicated.memory.optimizer_states);
  CHECK(whole.iteration_time_s > scattered.iteration_time_s);
  CHECK(whole.iteration_time_s > replicated.iteration_time_s - replicated.details.optimizer_step_s);
  // At stage 0 the option changes nothing, and the result says so.
  const SimResult noop = run(0, true);
  CHECK(noop.iteration_time_s == replicated.iteration_time_s);
  CHECK(test::warning(noop, WarningCode::no_effect, "/plan/zero_all_reduce",
                      "zero_all_reduce, a way of ZeRO stage 1's, changes nothing") != nullptr);
}

TEST_CASE("simulate: a collective across nodes pays a fixed start and NCCL's latency for each ring step") {
  const Profile& prof = *bundled_profiles().find("a100-sxm4-80gb");
  // The per-step latency is NCCL's own (src/graph/tuning.cc: ring, Simple, network), not fitted.
  CHECK(prof.inter_node_latency_us == 9.6);
  for (const auto& param : default_fit_parameters()) CHECK(param.name != "/communication/inter_node_latency_us");
  const detail::Fabric fabric = detail::make_fabric(prof, ClusterConfig{});
  const double step_s = prof.inter_node_latency_us * 1e-6, base_s = prof.inter_node_base_latency_us * 1e-6;
  for (int nodes : {2, 16, 256}) {
    CAPTURE(nodes);
    const detail::GroupShape g{nodes, 1, nodes};  // one member a node
    // A byte's worth of data: the time is the latency alone, the start once and each step.
    CHECK(detail::collective_s(prof, fabric, g, detail::CollectiveKind::all_reduce, 1) ==
          doctest::Approx(base_s + 2.0 * (nodes - 1) * step_s).epsilon(1e-3));
    CHECK(detail::collective_s(prof, fabric, g, detail::CollectiveKind::reduce_scatter, 1) ==
          doctest::Approx(base_s + (nodes - 1) * step_s).epsilon(1e-3));
    CHECK(detail::collective_s(prof, fabric, g, detail::CollectiveKind::all_gather, 1) ==
          doctest::Approx(base_s + (nodes - 1) * step_s).epsilon(1e-3));
  }
}

TEST_CASE("simulate: an overlapped gradient reduction takes Megatron-Core's buckets, each as soon as it is full") {
  // max(40 M, 1 M x dp) parameters a bucket; the last holds the rest.
  const detail::Buckets small = detail::gradient_buckets(2e9, 8, 2.0);
  CHECK(small.bytes == doctest::Approx(80e6));
  CHECK(small.count == 25);
  CHECK(small.last_bytes == doctest::Approx(80e6));
  const detail::Buckets wide = detail::gradient_buckets(2e9, 512, 2.0);
  CHECK(wide.bytes == doctest::Approx(1.024e9));
  CHECK(wide.count == 2);
  CHECK(wide.last_bytes == doctest::Approx(0.976e9));
  const detail::Buckets one = detail::gradient_buckets(1e6, 8, 4.0);
  CHECK(one.count == 1);
  CHECK(one.bytes == doctest::Approx(1e6));
  CHECK(one.last_bytes == doctest::Approx(1e6));

  // The closed form is the queue run bucket by bucket, whether the stream or the backward is late.
  unsigned seed = 7;
  const auto uniform = [&seed](double lo, double hi) {
    seed = seed * 1103515245u + 12345u;
    return lo + (hi - lo) * ((seed >> 8) % 100000) / 100000.0;
  };
  for (int trial = 0; trial < 2000; ++trial) {
    const double bytes = uniform(1e6, 4e9);
    const detail::Buckets b = detail::gradient_buckets(bytes, static_cast<int>(uniform(1, 1024)), 2.0);
    const double start = uniform(0, 1), end = start + uniform(0, 0.5);
    const double free_at = uniform(0, 1.5), bucket_s = uniform(0, 0.05), last_s = uniform(0, 0.05);
    double queue = free_at, filled = 0;
    for (int i = 0; i < static_cast<int>(b.count); ++i) {
      const bool last = i + 1 == static_cast<int>(b.count);
      filled += last ? b.last_bytes : b.bytes;
      const double ready = start + (end - start) * filled / bytes;
      queue = std::max(queue, ready) + (last ? last_s : bucket_s);
    }
    CAPTURE(trial);
    CHECK(detail::bucketed_reduction_end(free_at, start, end, b, bucket_s, last_s) ==
          doctest::Approx(queue).epsilon(1e-9));
  }

  // A plan's result with its gradients reduced after the backward, and overlapped with it.
  const auto after_and_overlapped = [](json c, const Profile* profile = nullptr) {
    c["plan"]["dp_overlap"] = false;
    const SimResult after = test::simulate_ok(test::parse_ok(c), profile);
    c["plan"]["dp_overlap"] = true;
    return std::pair{after, test::simulate_ok(test::parse_ok(c), profile)};
  };

  // Overlap never costs time where the per-bucket latency is large: 16-node data-parallel groups
  // of a small model's stages (each layer's gradients a bucket of their own took longer here).
  const auto [after, overlapped] = after_and_overlapped(json::parse(R"({"model": "gpt3-2.7b",
    "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 256, "gpus_per_node": 4},
    "plan": {"tp": 4, "pp": 4, "dp": 16, "micro_batch": 2, "global_batch": 512, "recompute": "selective",
             "attention": "flash"}})"));
  CHECK(after.details.dp_nodes == 16);
  CHECK(overlapped.iteration_time_s < after.iteration_time_s);
  CHECK(overlapped.breakdown.dp_comm_exposed < after.breakdown.dp_comm_exposed);
  CHECK(test::warning(overlapped, WarningCode::overlap_slower, "/plan/dp_overlap") == nullptr);

  // Across 256 nodes Megatron-Core's buckets grow with dp (256 M parameters), so the few there are
  // pay little latency, and overlap hides much of the reduction (overlapped, it took 2.1 times as
  // long as not with one collective per layer, and 1.01 times with a fitted per-step latency 7.8
  // times NCCL's).
  const json wide_plan = json::parse(R"({"model": "llama2-13b",
    "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 2048, "gpus_per_node": 8},
    "plan": {"tp": 8, "pp": 1, "dp": 256, "micro_batch": 1, "global_batch": 512, "recompute": "full",
             "attention": "flash"}})");
  const auto [wide_after, wide_overlapped] = after_and_overlapped(wide_plan);
  CHECK(wide_after.details.dp_nodes == 256);
  CHECK(wide_overlapped.iteration_time_s < 0.9 * wide_after.iteration_time_s);
  CHECK(test::warning(wide_overlapped, WarningCode::overlap_slower, "/plan/dp_overlap") == nullptr);

  // On a network whose every collective costs 100 ms to start, the buckets cost more than they
  // hide: the result says by how much and why.
  Profile slow_start = *bundled_profiles().find("a100-sxm4-80gb");
  slow_start.inter_node_base_latency_us = 100000;
  const auto [slow_after, slow_overlapped] = after_and_overlapped(wide_plan, &slow_start);
  REQUIRE(slow_overlapped.iteration_time_s > 1.001 * slow_after.iteration_time_s);
  char longer[64];
  std::snprintf(longer, sizeof longer, "makes the iteration %.1f ms longer",
                (slow_overlapped.iteration_time_s - slow_after.iteration_time_s) * 1e3);
  CHECK(test::warning(slow_overlapped, WarningCode::overlap_slower, "/plan/dp_overlap", longer) != nullptr);
  CHECK(test::warning(slow_overlapped, WarningCode::overlap_slower, "/plan/dp_overlap",
                      "(7 a model chunk, over 256 nodes)") != nullptr);
  CHECK(test::warning(slow_after, WarningCode::overlap_slower, "/plan/dp_overlap") == nullptr);
}

TEST_CASE("simulate: a profile's measured GEMM time replaces the model's for exactly that kind and shape") {
  // A model without biases: the q, k, v projection's forward is its GEMM alone.
  json j = test::small_config();
  j["model"]["bias"] = false;
  j["output"] = {{"operators", true}};
  const SimConfig c = test::parse_ok(j);
  const Profile& bundled = *bundled_profiles().find("a100-sxm4-80gb");
  const SimResult modelled = test::simulate_ok(c, &bundled);
  const OperatorTime* qkv = test::operator_row(modelled, "layer", "q, k, v projection");
  REQUIRE(qkv != nullptr);
  // The GEMM's shape on one tensor-parallel rank: tokens x (q, k and v widths) x hidden.
  const double tokens = 2.0 * 1024, width = 3.0 * 2048 / 2, hidden = 2048;
  REQUIRE(qkv->forward_s == doctest::Approx(detail::gemm_s(bundled, tokens, width, hidden, 1)));

  // The table is read from the profile document, and its entry takes precedence.
  json doc = to_json(bundled);
  doc["operator_table"] = json::array({{{"op", "gemm"}, {"m", tokens}, {"n", width}, {"k", hidden}, {"time_us", 1234.5}},
                                       {{"op", "gemm"}, {"m", 7}, {"n", 7}, {"k", 7}, {"time_us", 1}}});
  auto measured = parse_profile(doc);
  REQUIRE(measured.ok());
  REQUIRE(measured.value().operator_table.size() == 2);
  CHECK(measured.value().operator_table[0].op == MeasuredOp::gemm);
  CHECK(to_json(measured.value())["operator_table"][0]["op"] == "gemm");
  CHECK(to_json(measured.value())["operator_table"][0]["time_us"] == 1234.5);
  const SimResult timed = test::simulate_ok(c, &measured.value());
  const OperatorTime* measured_qkv = test::operator_row(timed, "layer", "q, k, v projection");
  REQUIRE(measured_qkv != nullptr);
  CHECK(measured_qkv->forward_s == doctest::Approx(1234.5e-6));
  // Every other operator keeps its modelled time: the entry of a shape no kernel has changes nothing.
  const OperatorTime* down = test::operator_row(timed, "layer", "MLP down projection");
  CHECK(down->forward_s == test::operator_row(modelled, "layer", "MLP down projection")->forward_s);
  CHECK(timed.iteration_time_s > modelled.iteration_time_s);

  // An entry must say which kind of kernel it times, by a name the profile reader knows.
  doc["operator_table"][0]["op"] = "attention";
  auto unknown = parse_profile(doc);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.errors().front().pointer == "/operator_table/0/op");
  CHECK(unknown.errors().front().code == "enum");
}
