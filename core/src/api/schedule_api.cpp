// api::schedule: JSON text in, JSON text out, as the other calls of vtrain/api.hpp.

#include <exception>

#include <nlohmann/json.hpp>

#include "vtrain/api.hpp"
#include "vtrain/json_text.hpp"
#include "vtrain/schedule.hpp"

namespace vtrain::api {

namespace {

std::string reply_errors(const Diagnostics& errors) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& d : errors) list.push_back({{"code", d.code}, {"pointer", d.pointer}, {"message", d.message}});
  return nlohmann::json{{"ok", false}, {"errors", list}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

std::string schedule(std::string_view request_json, const std::function<bool(double)>& progress, int threads) {
  try {
    nlohmann::json j;
    Diagnostics errors = parse_json_text(request_json, j);
    if (!errors.empty()) return reply_errors(errors);
    auto request = parse_schedule_request(j);
    if (!request.ok()) return reply_errors(request.errors());
    ScheduleControl control;
    control.threads = threads;
    control.progress = progress;
    auto result = vtrain::schedule(request.value(), control);
    if (!result.ok()) return reply_errors(result.errors());
    return nlohmann::json{{"ok", true}, {"result", to_json(result.value())}}.dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const std::exception& e) {
    return reply_errors({make_diagnostic("internal", "", std::string("the scheduler failed: ") + e.what())});
  }
}

}  // namespace vtrain::api
