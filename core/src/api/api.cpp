#include "vtrain/api.hpp"

#include <nlohmann/json.hpp>

#include "vtrain/config.hpp"
#include "vtrain/examples.hpp"
#include "vtrain/explore.hpp"
#include "vtrain/json_text.hpp"
#include "vtrain/optimal.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/schema.hpp"
#include "vtrain/simulate.hpp"
#include "vtrain/version.hpp"

namespace vtrain::api {

using nlohmann::json;

namespace {

std::string ok_reply(json result) { return dump_json(json{{"ok", true}, {"result", std::move(result)}}); }

// Parses text into JSON; a syntax error is reported at the root with its line and column, a
// key given twice at its pointer.
bool parse_text(std::string_view text, json& out, Diagnostics& errors) {
  Diagnostics found = parse_json_text(text, out);
  errors.insert(errors.end(), found.begin(), found.end());
  return found.empty();
}

}  // namespace

std::string simulate(std::string_view config_json) {
  Diagnostics errors;
  json j;
  if (!parse_text(config_json, j, errors)) return errors_reply(errors);
  auto config = parse_sim_config(j);
  if (!config.ok()) return errors_reply(config.errors());
  auto result = vtrain::simulate(config.value());
  if (!result.ok()) return errors_reply(result.errors());
  return "{\"ok\":true,\"result\":" + to_json_text(result.value()) + "}";
}

std::string validate_config(std::string_view config_json) {
  Diagnostics errors;
  json j;
  if (!parse_text(config_json, j, errors)) return errors_reply(errors);
  auto config = parse_sim_config(j);
  if (!config.ok()) return errors_reply(config.errors());
  if (!bundled_profiles().find(config.value().cluster.gpu))
    return errors_reply({unknown_gpu(config.value().cluster.gpu, "/cluster/gpu")});
  return ok_reply(to_json(config.value()));
}

std::string presets() {
  json models = json::array();
  for (const auto& p : model_presets()) {
    json m = to_json(p.model);
    models.push_back({{"name", p.model.name},
                      {"description", p.description},
                      {"source", p.source},
                      {"published_params", p.published_params},
                      {"model", m}});
    if (p.published_active_params > 0) models.back()["published_active_params"] = p.published_active_params;
  }
  json examples = json::array();
  for (const auto& e : example_configs()) {
    examples.push_back({{"name", e.name}, {"description", e.description}, {"config", json::parse(e.json_text)}});
  }
  json optimal_presets = json::array();
  for (const auto& p : vtrain::optimal_presets())
    optimal_presets.push_back({{"name", p.name}, {"request", json::parse(p.request_json)}});
  return ok_reply(json{{"models", models}, {"examples", examples}, {"optimal", optimal_presets}});
}

std::string profiles() {
  json list = json::array();
  for (const auto& p : bundled_profiles()) list.push_back(to_json(p));
  return ok_reply(list);
}

std::string version() { return ok_reply(json{{"version", kVersion}}); }

std::string schema() { return ok_reply(vtrain::schema()); }

namespace {

// A sweep's call: its request read by `parse`, run by `run` on `threads` threads with `progress`,
// and its result's JSON.
template <class Control, class Parse, class Run>
std::string sweep_reply(std::string_view request_json, const std::function<bool(double)>& progress, int threads,
                        Parse parse, Run run) {
  Diagnostics errors;
  json j;
  if (!parse_text(request_json, j, errors)) return errors_reply(errors);
  auto request = parse(j);
  if (!request.ok()) return errors_reply(request.errors());
  Control control;
  control.threads = threads;
  control.progress = progress;
  auto result = run(request.value(), control);
  if (!result.ok()) return errors_reply(result.errors());
  return ok_reply(to_json(result.value()));
}

}  // namespace

std::string explore(std::string_view request_json, const std::function<bool(double)>& progress, int threads) {
  return sweep_reply<ExploreControl>(request_json, progress, threads, parse_explore_request,
                                     [](const ExploreRequest& r, const ExploreControl& c) { return vtrain::explore(r, c); });
}

std::string optimal(std::string_view request_json, const std::function<bool(double)>& progress, int threads) {
  return sweep_reply<OptimalControl>(request_json, progress, threads, parse_optimal_request,
                                     [](const OptimalRequest& r, const OptimalControl& c) { return vtrain::optimal(r, c); });
}

}  // namespace vtrain::api
