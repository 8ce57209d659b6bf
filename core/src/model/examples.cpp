#include "vtrain/examples.hpp"

#include <nlohmann/json.hpp>

namespace vtrain {

struct EmbeddedExample {
  const char* name;
  const char* text;
};
extern const EmbeddedExample kEmbeddedExamples[];
extern const int kEmbeddedExampleCount;

const Registry<ExampleConfig>& example_configs() {
  static const Registry<ExampleConfig> examples([] {
    std::vector<ExampleConfig> v;
    for (int i = 0; i < kEmbeddedExampleCount; ++i) {
      nlohmann::json j = nlohmann::json::parse(kEmbeddedExamples[i].text, nullptr, false);
      if (!j.is_object()) continue;
      ExampleConfig e;
      e.name = kEmbeddedExamples[i].name;
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
