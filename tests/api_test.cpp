#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "vtrain/api.hpp"
#include "vtrain/config.hpp"
#include "vtrain/json_text.hpp"
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
  CHECK(profiles["result"].size() == 5);
  for (const char* gpu : {"h100-sxm5-80gb", "h200-sxm-141gb", "b200-sxm-180gb"}) CHECK(vtrain::bundled_profiles().find(gpu));
  CHECK(vtrain::bundled_profiles().find("a100-sxm4-80gb"));
  CHECK(vtrain::bundled_profiles().find("a100-sxm4-40gb"));
  CHECK(vtrain::bundled_profiles().find("a100-sxm4-40gb")->hbm_GiB == 40);
}

TEST_CASE("api: a profile survives a JSON round trip and rejects unknown keys") {
  const vtrain::Profile* p = vtrain::bundled_profiles().find("a100-sxm4-80gb");
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

TEST_CASE("api: a profile must give every field; one left out is named, not filled with the A100's") {
  const vtrain::Profile* p = vtrain::bundled_profiles().find("a100-sxm4-80gb");
  REQUIRE(p);
  for (const char* section : {"hardware", "compute", "communication", "memory"}) {
    json j = vtrain::to_json(*p);
    const std::string key = j[section].begin().key();
    j[section].erase(key);
    auto missing_field = vtrain::parse_profile(j);
    REQUIRE_FALSE(missing_field.ok());
    CHECK(missing_field.errors().front().pointer == std::string("/") + section + "/" + key);
    CHECK(missing_field.errors().front().code == "missing");
    j.erase(section);
    auto missing_section = vtrain::parse_profile(j);
    REQUIRE_FALSE(missing_section.ok());
    CHECK(missing_section.errors().front().pointer == std::string("/") + section);
  }
}

TEST_CASE("api: JSON text is read strictly: line and column of a syntax error, a repeated key by pointer") {
  json reply = json::parse(vtrain::api::simulate("{\"model\": \"gpt3-175b\",\n \"plan\": {\"tp\": 8,}}"));
  REQUIRE(reply["ok"] == false);
  CHECK(reply["errors"][0]["code"] == "syntax");
  CHECK(reply["errors"][0]["message"].get<std::string>().find("line 2, column 19") != std::string::npos);

  reply = json::parse(vtrain::api::simulate(R"({"model": "gpt3-175b", "plan": {"tp": 8, "pp": 8, "tp": 4}})"));
  REQUIRE(reply["ok"] == false);
  CHECK(reply["errors"][0]["code"] == "duplicate_key");
  CHECK(reply["errors"][0]["pointer"] == "/plan/tp");

  // Inside arrays the pointer counts elements; the same key in two objects is no repeat.
  json out;
  vtrain::Diagnostics d = vtrain::parse_json_text(R"({"a": [{"x": 1}, {"x": 2, "y": [1, {"z": 0, "z": 1}]}]})", out);
  REQUIRE(d.size() == 1);
  CHECK(d[0].pointer == "/a/1/y/1/z");
  CHECK(vtrain::parse_json_text(R"({"a": [{"x": 1}, {"x": 2}], "x": 3})", out).empty());
  CHECK(out["a"][1]["x"] == 2);
  // Keys that need escaping in a pointer are escaped.
  d = vtrain::parse_json_text(R"({"a/b": {"~": 1, "~": 2}})", out);
  REQUIRE(d.size() == 1);
  CHECK(d[0].pointer == "/a~1b/~0");
  CHECK(vtrain::parse_json_text("  \n", out).front().message == "/: not valid JSON: the text is empty");
}

namespace {

// A simulate config of a small GPT with `section`'s field `key` set to `value`.
json config_with(const std::string& section, const std::string& key, const json& value) {
  json c = json::parse(R"({"model": {"layers": 8, "hidden": 1024, "heads": 8}, "plan": {"global_batch": 8}})");
  c[section][key] = value;
  return c;
}

bool simulate_reads(const json& config) {
  return json::parse(vtrain::api::validate_config(config.dump()))["ok"] == true;
}

}  // namespace

TEST_CASE("api: the schema states the choices, bounds and defaults the readers hold to") {
  const json reply = json::parse(vtrain::api::schema());
  REQUIRE(reply["ok"] == true);
  const json& s = reply["result"];
  CHECK(s["version"] == json::parse(vtrain::api::version())["result"]["version"]);
  // Every choice of every enum field is read; a name not among them is refused with the choices.
  for (const char* section : {"model", "plan"}) {
    for (const auto& item : s["config"][section]["fields"].items()) {
      const std::string key = item.key();
      const json& field = item.value();
      CAPTURE(key);
      CHECK(s["config"][section]["order"].size() == s["config"][section]["fields"].size());
      if (field.contains("enum")) {
        const json& choices = s["enums"][field["enum"].get<std::string>()];
        REQUIRE(choices.size() >= 2);
        for (const json& c : choices) CHECK(simulate_reads(config_with(section, key, c["name"])));
        const json refused = json::parse(vtrain::api::validate_config(config_with(section, key, "nope").dump()));
        REQUIRE(refused["ok"] == false);
        CHECK(refused["errors"][0]["code"] == "enum");
        for (const json& c : choices)
          CHECK(refused["errors"][0]["message"].get<std::string>().find(c["name"].get<std::string>()) != std::string::npos);
      } else if (field["type"] == "integer" && std::string(section) == "plan" && key != "zero_stage") {
        // The bounds are the reader's: one past the maximum is a range error on the field.
        const json too_big = json::parse(vtrain::api::validate_config(
            config_with(section, key, field["maximum"].get<long long>() + 1).dump()));
        REQUIRE(too_big["ok"] == false);
        CHECK(too_big["errors"][0]["pointer"] == "/" + std::string(section) + "/" + key);
        CHECK(too_big["errors"][0]["code"] == "range");
        CHECK_FALSE(simulate_reads(config_with(section, key, field["minimum"].get<long long>() - 1)));
      }
    }
  }
  // The plan's defaults are PlanConfig's: a config that gives each one explicitly reads the same.
  json explicit_plan = config_with("plan", "global_batch", 8);
  for (const auto& [key, field] : s["config"]["plan"]["fields"].items())
    if (key != "global_batch") explicit_plan["plan"][key] = field["default"];
  CHECK(json::parse(vtrain::api::validate_config(explicit_plan.dump()))["result"]["plan"] ==
        json::parse(vtrain::api::validate_config(config_with("plan", "global_batch", 8).dump()))["result"]["plan"]);

  // The registries are the library's.
  const json& reg = s["registries"];
  CHECK(reg["gpus"].size() == vtrain::bundled_profiles().size());
  for (const json& g : reg["gpus"]) {
    const vtrain::Profile* p = vtrain::bundled_profiles().find(g["name"].get<std::string>());
    REQUIRE(p);
    // A sentence's label: the display name without its vendor.
    CHECK(p->display_name.ends_with(g["label"].get<std::string>()));
    CHECK(g["label"].get<std::string>().rfind("NVIDIA", 0) == std::string::npos);
  }
  const json presets = json::parse(vtrain::api::presets())["result"];
  REQUIRE(reg["model_presets"].size() == presets["models"].size());
  for (size_t i = 0; i < presets["models"].size(); ++i) CHECK(reg["model_presets"][i]["name"] == presets["models"][i]["name"]);
  CHECK(reg["explore_cases"][0]["name"] == "mt-nlg");
  CHECK(reg["explore_cases"][0]["example"] == "mt-nlg-530b");
  CHECK(reg["scaling_fits"].size() == 2);
  CHECK(reg["optimal_presets"][0]["name"] == "vtrain-case3");
  CHECK(s["limits"]["tp"] == vtrain::limits::tp);
  CHECK(s["optimal"]["candidates"]["hidden"] == json::array({1024, 65536}));
}
