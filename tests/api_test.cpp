#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "vtrain/api.hpp"
#include "vtrain/profile.hpp"

using nlohmann::json;

TEST_CASE("api: simulate answers a preset config with the result contract") {
  json reply = json::parse(vtrain::api::simulate(
      R"({"model": "gpt3-175b", "plan": {"tp": 8, "pp": 8, "dp": 16, "global_batch": 1536},
          "cluster": {"price_per_gpu_hour_usd": 4.1}, "training": {"tokens": 3e11}})"));
  REQUIRE(reply["ok"] == true);
  const json& r = reply["result"];
  for (const char* key : {"iteration_time_s", "breakdown_s", "mfu", "hfu", "tokens_per_s", "memory_GiB",
                          "fits_in_memory", "training_days", "cost_usd", "timeline"})
    CHECK_MESSAGE(r.contains(key), key);
  double sum = 0;
  for (const auto& [k, v] : r["breakdown_s"].items()) sum += v.get<double>();
  CHECK(sum == doctest::Approx(r["iteration_time_s"].get<double>()).epsilon(1e-12));
  for (const char* part : {"weights", "gradients", "optimizer_states", "activations", "buffers"})
    CHECK(r["memory_GiB"].contains(part));
  CHECK(r["timeline"].size() == 8);
  const json& stage = r["timeline"][0];
  CHECK(stage["kind"][0] == "forward");
  CHECK(stage["micro_batch"][0] == 0);
  CHECK(stage["start_s"].size() == stage["kind"].size());
  CHECK(stage["duration_s"].size() == stage["kind"].size());
}

TEST_CASE("api: errors come back as data with code and pointer") {
  json reply = json::parse(vtrain::api::simulate("{\"model\": \"gpt3-175b\", \"plan\": {\"tp\": 7}}"));
  CHECK(reply["ok"] == false);
  CHECK(reply["errors"][0]["pointer"] == "/plan/tp");
  CHECK(reply["errors"][0]["code"] == "divisibility");

  reply = json::parse(vtrain::api::simulate("{not json"));
  CHECK(reply["ok"] == false);
  CHECK(reply["errors"][0]["code"] == "syntax");

  reply = json::parse(vtrain::api::validate_config(
      R"({"model": "gpt3-175b", "plan": {"tp": 8}, "cluster": {"gpu": "tpu-v9"}})"));
  CHECK(reply["ok"] == false);
  CHECK(reply["errors"][0]["pointer"] == "/cluster/gpu");
}

TEST_CASE("api: presets, examples and profiles are listed") {
  json presets = json::parse(vtrain::api::presets());
  REQUIRE(presets["ok"] == true);
  CHECK(presets["result"]["models"].size() >= 8);
  CHECK(presets["result"]["examples"].size() >= 3);
  json profiles = json::parse(vtrain::api::profiles());
  REQUIRE(profiles["ok"] == true);
  CHECK(profiles["result"].size() == 2);
  CHECK(vtrain::find_profile("a100-sxm4-80gb"));
  CHECK(vtrain::find_profile("a100-sxm4-40gb"));
  CHECK(vtrain::find_profile("a100-sxm4-40gb")->hbm_GiB == 40);
}

TEST_CASE("api: a profile survives a JSON round trip and rejects unknown keys") {
  const vtrain::Profile* p = vtrain::find_profile("a100-sxm4-80gb");
  REQUIRE(p);
  json j = vtrain::to_json(*p);
  auto back = vtrain::parse_profile(j);
  REQUIRE(back.ok());
  CHECK(vtrain::to_json(back.value()) == j);
  j["compute"]["gemm_speed"] = 1;
  auto bad = vtrain::parse_profile(j);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors().front().pointer == "/compute/gemm_speed");
}
