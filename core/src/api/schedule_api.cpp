// api::schedule: JSON text in, JSON text out, as the other calls of vtrain/api.hpp.

#include <exception>

#include <nlohmann/json.hpp>

#include "cluster/json_out.hpp"
#include "vtrain/api.hpp"
#include "vtrain/json_text.hpp"
#include "vtrain/schedule.hpp"

namespace vtrain::api {

namespace {

std::string reply_errors(const Diagnostics& errors) {
  detail::JsonOut o;
  o.begin_object().field("ok", false).key("errors").begin_array();
  for (const auto& d : errors)
    o.begin_object().field("code", d.code).field("pointer", d.pointer).field("message", d.message).end_object();
  o.end_array().end_object();
  return o.take();
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
    return "{\"ok\":true,\"result\":" + to_json_text(result.value()) + "}";
  } catch (const std::exception& e) {
    return reply_errors({make_diagnostic("internal", "", std::string("the scheduler failed: ") + e.what())});
  }
}

}  // namespace vtrain::api
