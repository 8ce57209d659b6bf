#pragma once
// The readers of a config's sections, each at its own pointer (/model, /cluster, /plan,
// /training, /output). A simulate config, an explore request and a compute-optimal request are
// each composed of the sections they hold, read by these. Every reader records what is wrong in
// `errors` and leaves a field it cannot read at its value.

#include <nlohmann/json.hpp>

#include "common/json_reader.hpp"
#include "vtrain/config.hpp"

namespace vtrain::detail {

// A preset name, {"preset": NAME, ...overrides}, or a shape (layers, hidden and heads required).
void read_model(const nlohmann::json* j, ModelConfig& m, Diagnostics& errors);
void read_cluster(const nlohmann::json* j, ClusterConfig& c, Diagnostics& errors);
void read_plan(const nlohmann::json* j, PlanConfig& p, Diagnostics& errors);
void read_training(const nlohmann::json* j, TrainingConfig& t, Diagnostics& errors);
void read_reliability(const nlohmann::json* j, ReliabilityConfig& r, Diagnostics& errors);
void read_output(const nlohmann::json* j, OutputOptions& o, Diagnostics& errors);
// The top-level "description": a string of at most limits::description_chars bytes.
void read_description(ObjectReader& top, std::string& out, Diagnostics& errors);

// A section read on its own: its value, or its errors (and `check`'s, when given, for a value read).
template <class S>
Outcome<S> parse_section(const nlohmann::json& j, void (*read)(const nlohmann::json*, S&, Diagnostics&),
                         Diagnostics (*check)(const S&) = nullptr) {
  Diagnostics errors;
  S s;
  read(&j, s, errors);
  if (errors.empty() && check) errors = check(s);
  if (!errors.empty()) return errors;
  return s;
}

// Rules `plan` breaks with a field it left out get what the default was, since the user did not
// write the value the rule names ("(it was not given: its default is 1)"). `plan` is the JSON read.
void explain_plan_defaults(Diagnostics& rules, const nlohmann::json* plan);

}  // namespace vtrain::detail
