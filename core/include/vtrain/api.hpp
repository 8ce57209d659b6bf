#pragma once
// The few large calls every front end uses (CLI, WebAssembly): JSON text in, JSON text out.
// Every reply is {"ok": true, "result": ...} or {"ok": false, "errors": [{code, pointer, message}]}.
// Nothing here throws, prints or exits.

#include <functional>
#include <string>
#include <string_view>

namespace vtrain::api {

std::string simulate(std::string_view config_json);
std::string validate_config(std::string_view config_json);  // result: the normalized config
std::string presets();                                      // model presets and example configs
std::string profiles();                                     // bundled GPU profiles
std::string version();

// Every valid parallel plan of a request (see vtrain/explore.hpp): a simulate config with an
// optional "explore" object, or {"case": NAME, ...overrides}. `progress` gets the fraction done
// and may return false to cancel; `threads` > 1 only in native builds.
std::string explore(std::string_view request_json, const std::function<bool(double fraction_done)>& progress = {},
                    int threads = 1);

// Compute-optimal sizing (see vtrain/optimal.hpp). `progress` gets the fraction done and may
// return false to cancel; `threads` > 1 only in native builds.
std::string optimal(std::string_view request_json, const std::function<bool(double)>& progress = {},
                    int threads = 1);

// Many jobs on one cluster (see vtrain/schedule.hpp): each policy's metrics, per-job allocations
// and GPU usage over time. `progress` gets the fraction done and may return false to cancel;
// `threads` > 1 only in native builds.
std::string schedule(std::string_view request_json, const std::function<bool(double)>& progress = {},
                     int threads = 1);

}  // namespace vtrain::api
