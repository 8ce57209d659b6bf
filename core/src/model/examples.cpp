#include "vtrain/examples.hpp"

#include <nlohmann/json.hpp>

#include "common/embedded.hpp"

namespace vtrain {


const Registry<ExampleConfig>& example_configs() {
  static const Registry<ExampleConfig> examples([] {
    std::vector<ExampleConfig> v;
    for (const detail::EmbeddedFile& f : detail::embedded_examples()) {
      nlohmann::json j = nlohmann::json::parse(f.text, nullptr, false);
      if (!j.is_object()) continue;
      ExampleConfig e;
      e.name = f.name;
      if (j.contains("description") && j["description"].is_string()) e.description = j["description"].get<std::string>();
      j.erase("description");
      e.json_text = j.dump();
      v.push_back(std::move(e));
    }
    return v;
  }());
  return examples;
}

}  // namespace vtrain
