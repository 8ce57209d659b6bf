#pragma once
// Example whole-run configs compiled into the library (from examples/*.json).

#include <string>

#include "vtrain/registry.hpp"

namespace vtrain {

struct ExampleConfig {
  std::string name;         // file stem, e.g. "gpt3-175b"
  std::string description;  // the config's "description" field
  std::string json_text;    // the config without its description
};

const Registry<ExampleConfig>& example_configs();

}  // namespace vtrain
