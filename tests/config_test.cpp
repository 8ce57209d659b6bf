#include <doctest/doctest.h>

#include "test_util.hpp"
#include "vtrain/config.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

// The diagnostics of a config that must be rejected.
Diagnostics errors_of(const json& j) {
  auto c = parse_sim_config(j);
  REQUIRE_FALSE(c.ok());
  return c.errors();
}

bool names(const Diagnostics& e, const std::string& pointer, const std::string& code) {
  for (const auto& d : e)
    if (d.pointer == pointer && d.code == code) return true;
  return false;
}

}  // namespace

TEST_CASE("config: the documented contract parses with every field") {
  json j = json::parse(R"({
    "model":   {"layers": 96, "hidden": 12288, "heads": 96, "seq_len": 2048, "vocab": 51200,
                "ffn_hidden": 49152, "kv_heads": 96, "mlp": "gelu", "tied_embeddings": true},
    "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 1024, "gpus_per_node": 8,
                "intra_node_GBps": 300, "inter_node_Gbps": 1600, "price_per_gpu_hour_usd": 4.10},
    "plan":    {"tp": 8, "pp": 8, "dp": 16, "micro_batch": 1, "global_batch": 1536,
                "recompute": "full", "sequence_parallel": false, "virtual_stages": 1,
                "zero_stage": 0, "dp_overlap": false, "attention": "flash"},
    "training": {"tokens": 300e9}
  })");
  SimConfig c = test::parse_ok(j);
  CHECK(c.model.layers == 96);
  CHECK(c.model.ffn_hidden == 49152);
  CHECK(c.cluster.inter_node_Gbps == 1600);
  CHECK(c.cluster.price_per_gpu_hour_usd == doctest::Approx(4.10));
  CHECK(c.plan.dp == 16);
  CHECK(c.plan.recompute == Recompute::full);
  CHECK(c.plan.attention == Attention::flash);
  CHECK(c.training.tokens == 300e9);
  CHECK(micro_batches_per_iteration(c.plan) == 96);
}

TEST_CASE("config: a model may be a preset name or a preset with overrides") {
  json j = test::small_config();
  j["model"] = "llama2-70b";
  j["plan"] = {{"tp", 8}, {"pp", 4}, {"dp", 1}, {"micro_batch", 1}, {"global_batch", 8}};
  j["cluster"]["num_gpus"] = 32;
  SimConfig c = test::parse_ok(j);
  CHECK(c.model.kv_heads == 8);
  CHECK(c.model.mlp == Mlp::swiglu);
  CHECK_FALSE(c.model.tied_embeddings);

  j["model"] = {{"preset", "llama2-70b"}, {"seq_len", 8192}};
  c = test::parse_ok(j);
  CHECK(c.model.seq_len == 8192);
  CHECK(c.model.hidden == 8192);
  CHECK(model_presets().size() >= 8);
}

TEST_CASE("config: omitted GPT fields follow the given ones, num_gpus defaults to tp*pp*dp") {
  json j = test::small_config();
  j["cluster"].erase("num_gpus");
  SimConfig c = test::parse_ok(j);
  CHECK(c.model.ffn_hidden == 4 * 2048);
  CHECK(c.model.kv_heads == 16);
  CHECK(c.cluster.num_gpus == 8);
}

TEST_CASE("config: a model given by its shape must give layers, hidden and heads; a preset gives them") {
  json j = test::small_config();
  j["model"] = json::object();
  const Diagnostics e = errors_of(j);
  for (const char* k : {"/model/layers", "/model/hidden", "/model/heads"}) CHECK(names(e, k, "missing"));
  j["model"] = {{"layers", 16}, {"hidden", 2048}};
  CHECK(names(errors_of(j), "/model/heads", "missing"));
  j["model"] = {{"preset", "gpt3-175b"}, {"seq_len", 4096}};
  CHECK(test::parse_ok(j).model.layers == 96);
}

TEST_CASE("config: every broken rule names its field") {
  json j = test::small_config();
  j["plan"]["tp"] = 3;
  j["cluster"]["num_gpus"] = 12;
  CHECK(names(errors_of(j), "/plan/tp", "divisibility"));

  // Stages may be uneven (3 stages of 16 layers: 6, 5, 5), but not empty, and interleaved
  // chunks must split evenly.
  j = test::small_config();
  j["plan"]["pp"] = 17;
  j["plan"]["dp"] = 1;
  j["plan"]["tp"] = 1;
  j["cluster"]["num_gpus"] = 17;
  CHECK(names(errors_of(j), "/plan/pp", "range"));
  j = test::small_config();
  j["plan"]["pp"] = 3;
  j["plan"]["virtual_stages"] = 2;
  j["cluster"]["num_gpus"] = 12;
  CHECK(names(errors_of(j), "/plan/virtual_stages", "divisibility"));
  j["plan"]["virtual_stages"] = 1;
  CHECK(parse_sim_config(j).ok());

  j = test::small_config();
  j["plan"]["global_batch"] = 30;
  CHECK(names(errors_of(j), "/plan/global_batch", "divisibility"));

  j = test::small_config();
  j["model"]["kv_heads"] = 3;
  CHECK(names(errors_of(j), "/model/kv_heads", "divisibility"));

  j = test::small_config();
  j["model"]["hidden"] = 2050;
  CHECK(names(errors_of(j), "/model/hidden", "divisibility"));

  j = test::small_config();
  j["cluster"]["num_gpus"] = 16;
  CHECK(names(errors_of(j), "/cluster/num_gpus", "product"));

  j = test::small_config();
  j["plan"]["virtual_stages"] = 16;
  CHECK(names(errors_of(j), "/plan/virtual_stages", "divisibility"));

  j = test::small_config();
  j["plan"]["virtual_stages"] = 2;
  j["plan"]["global_batch"] = 12;  // 3 micro-batches: not a multiple of pp = 2
  j["plan"]["micro_batch"] = 2;
  CHECK(names(errors_of(j), "/plan/virtual_stages", "divisibility"));
}

TEST_CASE("config: wrong types, ranges, enums and unknown keys are rejected") {
  json j = test::small_config();
  j["plan"]["tp"] = "two";
  CHECK(names(errors_of(j), "/plan/tp", "type"));

  j = test::small_config();
  j["model"]["layers"] = 0;
  CHECK(names(errors_of(j), "/model/layers", "range"));

  j = test::small_config();
  j["model"]["layers"] = 2.5;
  CHECK(names(errors_of(j), "/model/layers", "type"));

  j = test::small_config();
  j["cluster"]["price_per_gpu_hour_usd"] = -1;
  CHECK(names(errors_of(j), "/cluster/price_per_gpu_hour_usd", "range"));

  j = test::small_config();
  j["plan"]["recompute"] = "some";
  CHECK(names(errors_of(j), "/plan/recompute", "enum"));

  j = test::small_config();
  j["plan"]["tensor_parallel"] = 2;
  CHECK(names(errors_of(j), "/plan/tensor_parallel", "unknown_key"));

  j = test::small_config();
  j["model"] = "gpt-5";
  CHECK(names(errors_of(j), "/model", "unknown_preset"));

  j = test::small_config();
  j.erase("plan");
  CHECK(names(errors_of(j), "/plan", "missing"));

  CHECK(names(errors_of(json::array()), "", "type"));
}

TEST_CASE("config: messages start with the pointer they name") {
  json j = test::small_config();
  j["plan"]["tp"] = 3;
  j["plan"]["zero_stage"] = 2;
  j["bogus"] = 1;
  for (const auto& d : errors_of(j)) {
    CHECK(d.message.rfind(d.pointer.empty() ? "/" : d.pointer, 0) == 0);
    CHECK(d.message.size() > d.pointer.size() + 5);
  }
}

TEST_CASE("config: a pipeline too long to simulate is refused, not run") {
  json j = test::small_config();
  j["plan"]["global_batch"] = 100000000;
  j["plan"]["micro_batch"] = 1;
  CHECK(names(errors_of(j), "/plan/global_batch", "too_large"));
}

TEST_CASE("config: to_json round-trips") {
  SimConfig c = test::parse_ok(test::small_config());
  c.plan.sequence_parallel = true;
  c.plan.placement = Placement::tp_pp_dp;
  SimConfig back = test::parse_ok(to_json(c));
  CHECK(to_json(back) == to_json(c));
}

TEST_CASE("config: a description is kept for its readers and checked like any field") {
  json j = test::small_config();
  j["description"] = "GPT on one node, for a quick look";
  SimConfig c = test::parse_ok(j);
  CHECK(c.description == "GPT on one node, for a quick look");
  CHECK(to_json(c)["description"] == "GPT on one node, for a quick look");
  CHECK_FALSE(to_json(test::parse_ok(test::small_config())).contains("description"));

  j["description"] = 5;
  CHECK(names(errors_of(j), "/description", "type"));
  j["description"] = std::string(limits::description_chars + 1, 'x');
  CHECK(names(errors_of(j), "/description", "range"));
}

TEST_CASE("config: a rule broken by a plan field left out says the default that broke it") {
  json j = test::small_config();
  j["plan"].erase("global_batch");
  const Diagnostics e = errors_of(j);
  REQUIRE(names(e, "/plan/global_batch", "divisibility"));
  CHECK(e.front().message.find("(it was not given: its default is 1)") != std::string::npos);
  j["plan"]["global_batch"] = 3;
  const Diagnostics given = errors_of(j);
  REQUIRE(names(given, "/plan/global_batch", "divisibility"));
  CHECK(given.front().message.find("not given") == std::string::npos);
}

TEST_CASE("config: each section reads on its own, as the simulate config reads it") {
  auto llama = parse_model_config(json("llama2-70b"));
  REQUIRE(llama.ok());
  CHECK(llama.value().kv_heads == 8);
  auto shape = parse_model_config(json{{"layers", 4}, {"hidden", 1000}, {"heads", 3}});
  REQUIRE_FALSE(shape.ok());
  CHECK(names(shape.errors(), "/model/hidden", "divisibility"));
  auto missing = parse_model_config(json{{"hidden", 1024}});
  REQUIRE_FALSE(missing.ok());
  CHECK(names(missing.errors(), "/model/layers", "missing"));

  auto plan = parse_plan_config(json{{"tp", 4}, {"recompute", "selective"}, {"placement", "tp-pp-dp"}});
  REQUIRE(plan.ok());
  CHECK(plan.value().tp == 4);
  CHECK(plan.value().placement == Placement::tp_pp_dp);
  CHECK(names(parse_plan_config(json{{"tp", 0}}).errors(), "/plan/tp", "range"));
  CHECK(names(parse_plan_config(json{{"recompute", "most"}}).errors(), "/plan/recompute", "enum"));
  CHECK(names(parse_plan_config(json{{"tpp", 2}}).errors(), "/plan/tpp", "unknown_key"));

  auto cluster = parse_cluster_config(json{{"gpus_per_node", 4}, {"inter_node_Gbps", 400}});
  REQUIRE(cluster.ok());
  CHECK(cluster.value().gpus_per_node == 4);
  CHECK(names(parse_cluster_config(json{{"intra_node_GBps", 0}}).errors(), "/cluster/intra_node_GBps", "range"));
}

TEST_CASE("config: what a section's writer writes, its reader reads back unchanged") {
  const SimConfig c = test::parse_ok(json::parse(R"({
    "model": {"preset": "llama3-8b", "seq_len": 4096, "position": "alibi"},
    "cluster": {"gpu": "a100-sxm4-40gb", "num_gpus": 16, "gpus_per_node": 4, "inter_node_Gbps": 800},
    "plan": {"tp": 2, "pp": 2, "dp": 4, "global_batch": 64, "recompute": "selective", "precision": "fp16",
             "placement": "tp-pp-dp", "zero_stage": 1, "launch_blocking": true},
    "training": {"tokens": 1e9}, "output": {"operators": true}})"));
  CHECK(parse_model_config(to_json(c.model)).value() == c.model);
  CHECK(parse_plan_config(to_json(c.plan)).value() == c.plan);
  const SimConfig again = test::parse_ok(to_json(c));
  CHECK(again.model == c.model);
  CHECK(again.cluster == c.cluster);
  CHECK(again.plan == c.plan);
  CHECK(again.training.tokens == c.training.tokens);
  CHECK(again.output.operators);
}
