// Embind registrations only: a few large calls, JSON text in and out (see vtrain/api.hpp).

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <functional>

#include "vtrain/api.hpp"
#include "vtrain/hf_import.hpp"

namespace {
std::string simulate(const std::string& config) { return vtrain::api::simulate(config); }
std::string validate_config(const std::string& config) { return vtrain::api::validate_config(config); }
std::string presets() { return vtrain::api::presets(); }
std::string profiles() { return vtrain::api::profiles(); }
std::string version() { return vtrain::api::version(); }
std::string schema() { return vtrain::api::schema(); }
std::string import_hf(const std::string& config) { return vtrain::api::import_hf(config); }

// on_progress(fraction) is a JS function, or undefined; it returning false cancels the sweep.
std::function<bool(double)> progress_callback(const emscripten::val& on_progress) {
  if (on_progress.typeOf().as<std::string>() != "function") return {};
  return [on_progress](double fraction) {
    const emscripten::val go = on_progress(fraction);
    return go.isUndefined() || go.as<bool>();
  };
}

std::string explore(const std::string& request, const emscripten::val& on_progress) {
  return vtrain::api::explore(request, progress_callback(on_progress));
}
std::string optimal(const std::string& request, const emscripten::val& on_progress) {
  return vtrain::api::optimal(request, progress_callback(on_progress));
}
std::string schedule(const std::string& request, const emscripten::val& on_progress) {
  return vtrain::api::schedule(request, progress_callback(on_progress));
}
}  // namespace

EMSCRIPTEN_BINDINGS(vtrain) {
  emscripten::function("simulate", &simulate);
  emscripten::function("validateConfig", &validate_config);
  emscripten::function("explore", &explore);
  emscripten::function("optimal", &optimal);
  emscripten::function("schedule", &schedule);
  emscripten::function("presets", &presets);
  emscripten::function("profiles", &profiles);
  emscripten::function("version", &version);
  emscripten::function("schema", &schema);
  emscripten::function("importHf", &import_hf);
}
