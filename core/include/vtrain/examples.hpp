#pragma once
// Example whole-run configs compiled into the library (from examples/*.json).

#include <string>
#include <vector>

namespace vtrain {

struct ExampleConfig {
  std::string name;         // file stem, e.g. "gpt3-175b"
  std::string description;  // the config's "description" field
  std::string json_text;    // the config without its description
};

const std::vector<ExampleConfig>& example_configs();
const ExampleConfig* find_example(const std::string& name);

}  // namespace vtrain
