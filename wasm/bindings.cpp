// Embind registrations only: a few large calls, JSON text in and out (see vtrain/api.hpp).

#include <emscripten/bind.h>

#include "vtrain/api.hpp"

namespace {
std::string simulate(const std::string& config) { return vtrain::api::simulate(config); }
std::string validate_config(const std::string& config) { return vtrain::api::validate_config(config); }
std::string presets() { return vtrain::api::presets(); }
std::string profiles() { return vtrain::api::profiles(); }
std::string version() { return vtrain::api::version(); }
}  // namespace

EMSCRIPTEN_BINDINGS(vtrain) {
  emscripten::function("simulate", &simulate);
  emscripten::function("validateConfig", &validate_config);
  emscripten::function("presets", &presets);
  emscripten::function("profiles", &profiles);
  emscripten::function("version", &version);
}
