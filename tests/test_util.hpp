#pragma once
// Helpers shared by the test suites.

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "vtrain/config.hpp"
#include "vtrain/simulate.hpp"

namespace vtrain::test {

// A small valid config: GPT-style 16 layers on 8 GPUs; tests edit fields from here.
inline nlohmann::json small_config() {
  return nlohmann::json::parse(R"({
    "model": {"layers": 16, "hidden": 2048, "heads": 16, "seq_len": 1024, "vocab": 51200},
    "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 8, "gpus_per_node": 8},
    "plan": {"tp": 2, "pp": 2, "dp": 2, "micro_batch": 2, "global_batch": 32, "recompute": "full"}
  })");
}

// Sets the plan's parallel degrees and the cluster's GPU count to their product.
inline void set_parallelism(nlohmann::json& j, int tp, int pp, int dp) {
  j["plan"]["tp"] = tp;
  j["plan"]["pp"] = pp;
  j["plan"]["dp"] = dp;
  j["cluster"]["num_gpus"] = tp * pp * dp;
}

// GPT-3 175B on A100s at scale: tensor parallelism 8 in a node, `pp` stages, `dp` replicas, two
// micro-batches a stage.
inline nlohmann::json gpt3_at_scale(int pp, int dp) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "model": "gpt3-175b",
    "cluster": {"gpu": "a100-sxm4-80gb", "gpus_per_node": 8},
    "plan": {"tp": 8, "micro_batch": 1, "recompute": "full", "dp_overlap": true}
  })");
  set_parallelism(j, 8, pp, dp);
  j["plan"]["global_batch"] = dp * pp * 2;
  return j;
}

inline SimConfig parse_ok(const nlohmann::json& j) {
  auto c = parse_sim_config(j);
  if (!c.ok()) throw std::runtime_error(c.errors().front().message);
  return c.value();
}

inline SimResult simulate_ok(const SimConfig& c, const Profile* profile = nullptr) {
  auto r = simulate(c, profile);
  if (!r.ok()) throw std::runtime_error(r.errors().front().message);
  return r.value();
}

// The warning of `code` about the field `pointer` whose message contains `text`, or nullptr.
inline const SimWarning* warning(const SimResult& r, WarningCode code, const std::string& pointer,
                                 const std::string& text = "") {
  const auto it = std::find_if(r.warnings.begin(), r.warnings.end(), [&](const SimWarning& w) {
    return w.code == code && w.pointer == pointer && w.message.find(text) != std::string::npos;
  });
  return it == r.warnings.end() ? nullptr : &*it;
}

// The row of `simulate --operators` for (block, operator name), or nullptr.
inline const OperatorTime* operator_row(const SimResult& r, const std::string& block, const std::string& name) {
  const auto it = std::find_if(r.operators.begin(), r.operators.end(),
                               [&](const OperatorTime& o) { return o.block == block && o.name == name; });
  return it == r.operators.end() ? nullptr : &*it;
}

}  // namespace vtrain::test
