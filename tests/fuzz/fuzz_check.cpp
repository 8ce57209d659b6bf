#include "fuzz_check.hpp"

#include <chrono>
#include <cmath>
#include <exception>
#include <string_view>

#include <nlohmann/json.hpp>

#include "vtrain/api.hpp"
#include "vtrain/calibration.hpp"
#include "vtrain/hf_import.hpp"
#include "vtrain/json_text.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/schedule.hpp"
#include "vtrain/validation.hpp"

namespace vtrain::fuzz {

namespace {

using nlohmann::json;

enum class Entry { simulate, validate_config, explore, optimal, schedule, measurements, allreduce, trace, import_hf };

Entry entry_of(uint8_t selector) {
  switch (selector) {
    case 's': return Entry::simulate;
    case 'v': return Entry::validate_config;
    case 'e': return Entry::explore;
    case 'o': return Entry::optimal;
    case 'S': return Entry::schedule;
    case 'c': return Entry::measurements;
    case 'a': return Entry::allreduce;
    case 't': return Entry::trace;
    case 'h': return Entry::import_hf;  // named only: other bytes keep their meaning
    default: return static_cast<Entry>(selector % 8);
  }
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// A key whose numbers are a time, a memory, a cost or an amount of work: never negative.
bool non_negative_key(std::string_view k) {
  for (std::string_view unit : {"_s", "_ms", "_us", "_days", "_GiB", "_GB", "_bytes", "_usd", "_hours", "_MWh",
                                "_flops", "_per_s", "_per_iteration"})
    if (ends_with(k, unit)) return true;
  return k == "seconds" || k == "gpu_hours" || k == "iterations" || k == "tokens" || k == "total";
}

// Keys an answer leaves null on purpose: a plan's figures when it was not simulated, its cost when
// the cluster has no price, its energy when the profile has no board power, a plan or an index of
// none, a scheduled job's times that never came, a comparison without a baseline, expected days
// that are not finite.
bool nullable_key(std::string_view k) {
  for (std::string_view n : {"iteration_time_s", "training_days", "gpu_hours", "cost_usd", "energy_MWh", "mfu",
                             "deadline_days", "best", "best_time", "best_cost", "baseline", "budget_usd",
                             "price_per_gpu_hour_usd", "usd", "achievable", "plan", "plans", "comparison",
                             "deadlines_met_x", "admitted_x", "start_s", "finish_s", "jct_s",
                             // expected days with failures: none for a plan not simulated, or when
                             // failures come faster than the run progresses (goodput.finite false)
                             "expected_days", "checkpoint_days", "lost_work_days", "restart_days", "failures"})
    if (k == n) return true;
  return false;
}

bool valid_utf8(std::string_view s) {
  try {
    (void)json(std::string(s)).dump();
    return true;
  } catch (const json::exception&) {
    return false;
  }
}

struct Walker {
  double capacity_GiB = 0;  // the GPU's memory, when the answer names one GPU
  std::string failure;

  void fail(const std::string& where, const std::string& what) {
    if (failure.empty()) failure = (where.empty() ? std::string("/") : where) + ": " + what;
  }

  // `non_negative`: a key above names a unit of time, memory, cost or work.
  void walk(const json& j, const std::string& where, std::string_view key, bool non_negative) {
    if (!failure.empty()) return;
    if (j.is_null()) {
      if (!nullable_key(key)) fail(where, "null where a number or value was expected (NaN or infinity?)");
      return;
    }
    if (j.is_number()) {
      const double x = j.get<double>();
      if (!std::isfinite(x)) fail(where, "not a finite number");
      if (non_negative && x < 0) fail(where, "negative: " + std::to_string(x));
      if ((key == "mfu" || key == "hfu") && !(x > 0 && x <= 1)) fail(where, "outside (0, 1]: " + std::to_string(x));
      return;
    }
    if (j.is_string()) {
      if (!valid_utf8(j.get_ref<const std::string&>())) fail(where, "a string that is not UTF-8");
      return;
    }
    if (j.is_array()) {
      for (size_t i = 0; i < j.size(); ++i) walk(j[i], where + "/" + std::to_string(i), key, non_negative);
      return;
    }
    if (!j.is_object()) return;
    const bool unsimulated = j.contains("simulated") && j["simulated"].is_boolean() && !j["simulated"].get<bool>();
    // A plan that fits never holds more than the GPU's memory.
    if (j.contains("fits_in_memory") && j["fits_in_memory"].is_boolean() && j["fits_in_memory"].get<bool>()) {
      double capacity = capacity_GiB;
      if (j.contains("memory_capacity_GiB") && j["memory_capacity_GiB"].is_number())
        capacity = j["memory_capacity_GiB"].get<double>();
      double used = -1;
      if (j.contains("memory_GiB")) {
        const json& m = j["memory_GiB"];
        if (m.is_number()) used = m.get<double>();
        else if (m.is_object() && m.contains("total") && m["total"].is_number()) used = m["total"].get<double>();
      }
      if (capacity > 0 && used > capacity * (1 + 1e-12))
        fail(where, "fits in memory with " + std::to_string(used) + " GiB on a GPU of " + std::to_string(capacity) +
                        " GiB");
    }
    for (const auto& [k, v] : j.items()) {
      if (unsimulated && (k == "mfu" || k == "hfu")) continue;
      walk(v, where + "/" + k, k, non_negative || non_negative_key(k));
    }
  }
};

// The GPU the answer is about, when it names one: its memory bounds every plan that fits.
double capacity_of(const json& result) {
  const json* gpu = nullptr;
  if (result.contains("question") && result["question"].is_object() && result["question"].contains("gpu"))
    gpu = &result["question"]["gpu"];
  else if (result.contains("config") && result["config"].is_object() && result["config"].contains("cluster"))
    gpu = &result["config"]["cluster"]["gpu"];
  if (!gpu || !gpu->is_string()) return 0;
  const Profile* p = bundled_profiles().find(gpu->get<std::string>());
  return p ? p->hbm_GiB : 0;
}

std::string check_diagnostics(const Diagnostics& errors) {
  if (errors.empty()) return "an error reply without an error";
  for (const Diagnostic& d : errors) {
    if (d.code.empty()) return "an error without a code: " + d.message;
    if (d.code == "internal") return "an internal error: " + d.message;
    if (!d.pointer.empty() && d.pointer[0] != '/') return "an error whose pointer is not a JSON pointer: " + d.pointer;
    if (d.message.empty()) return "an error without a message (code " + d.code + ")";
    if (!valid_utf8(d.message) || !valid_utf8(d.pointer) || !valid_utf8(d.code))
      return "an error whose text is not UTF-8 (code " + d.code + ")";
  }
  return "";
}

// One reply of the JSON-text API: valid JSON, the documented shape, every error with a code and
// a pointer, every number finite and in its range.
std::string check_reply(const std::string& reply, bool& answered) {
  json j;
  try {
    j = json::parse(reply);
  } catch (const json::exception& e) {
    return std::string("the reply is not valid JSON: ") + e.what();
  }
  if (!j.is_object() || !j.contains("ok") || !j["ok"].is_boolean()) return "the reply has no boolean \"ok\"";
  if (!j["ok"].get<bool>()) {
    if (!j.contains("errors") || !j["errors"].is_array() || j["errors"].empty())
      return "an error reply without errors";
    Diagnostics list;
    for (const json& e : j["errors"]) {
      if (!e.is_object() || !e.contains("code") || !e["code"].is_string() || !e.contains("pointer") ||
          !e["pointer"].is_string() || !e.contains("message") || !e["message"].is_string())
        return "an error without a string code, pointer and message";
      list.push_back({e["code"].get<std::string>(), e["pointer"].get<std::string>(), e["message"].get<std::string>()});
    }
    return check_diagnostics(list);
  }
  if (!j.contains("result")) return "an ok reply without a result";
  answered = true;
  Walker w;
  w.capacity_GiB = capacity_of(j["result"]);
  w.walk(j["result"], "/result", "", false);
  return w.failure;
}

template <class T>
std::string check_outcome(const Outcome<T>& o) {
  return o.ok() ? "" : check_diagnostics(o.errors());
}

std::string check_measurements(std::string_view text, bool& answered) {
  auto runs = parse_measurements(text);
  if (!runs.ok()) return check_diagnostics(runs.errors());
  for (const std::string& c : unread_columns(text))
    if (!valid_utf8(c)) return "an unread column named by bytes that are not UTF-8 (serialize with replacement)";
  ValidationSetup setup;
  auto report = validate_runs(runs.value(), setup);
  if (!report.ok()) return check_diagnostics(report.errors());
  const ValidationReport& r = report.value();
  answered = true;
  if (!std::isfinite(r.mape_percent) || !std::isfinite(r.max_abs_error_percent))
    return "a report whose error is not finite";
  for (const ValidationRow& row : r.rows) {
    if (!std::isfinite(row.predicted_ms) || row.predicted_ms < 0)
      return "line " + std::to_string(row.run.line) + ": predicted " + std::to_string(row.predicted_ms) + " ms";
    if (!std::isfinite(row.error_percent)) return "line " + std::to_string(row.run.line) + ": error not finite";
  }
  return "";
}

std::string check_allreduce(std::string_view text, bool& answered) {
  auto points = parse_allreduce_csv(text);
  if (!points.ok()) return check_diagnostics(points.errors());
  answered = true;
  for (const CollectivePoint& p : points.value())
    if (!std::isfinite(p.bytes) || !std::isfinite(p.time_us) || p.bytes < 0 || p.time_us < 0)
      return "an all-reduce point with a negative or infinite size or time";
  return "";
}

std::string check_trace(std::string_view text, bool& answered) {
  auto workload = map_trace_csv(std::string(text), default_trace_mapping(), 1024);
  if (!workload.ok()) return check_diagnostics(workload.errors());
  answered = true;
  // Written as the CLI writes it (`schedule --map-trace`): a cell that is not UTF-8 gets U+FFFD.
  try {
    const json written = json::parse(dump_json(to_json(workload.value())));
    (void)written;
  } catch (const json::exception& e) {
    return std::string("the mapped workload cannot be written as JSON: ") + e.what();
  }
  return "";
}

}  // namespace

const char* entry_name(uint8_t selector) {
  static const char* names[] = {"simulate", "validate_config", "explore", "optimal",
                                "schedule", "measurements CSV", "all-reduce CSV", "trace CSV", "import_hf"};
  return names[static_cast<int>(entry_of(selector))];
}

Verdict check_input(const uint8_t* data, size_t size, double budget_s) {
  Verdict v;
  if (size == 0) return v;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const auto start = std::chrono::steady_clock::now();
  auto progress = [&](double) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < budget_s;
  };
  bool& ok = v.answered;
  std::string& failure = v.failure;
  try {
    switch (entry_of(data[0])) {
      case Entry::simulate: failure = check_reply(api::simulate(text), ok); break;
      case Entry::validate_config: failure = check_reply(api::validate_config(text), ok); break;
      case Entry::explore: failure = check_reply(api::explore(text, progress), ok); break;
      case Entry::optimal: failure = check_reply(api::optimal(text, progress), ok); break;
      case Entry::schedule: failure = check_reply(api::schedule(text, progress), ok); break;
      case Entry::measurements: failure = check_measurements(text, ok); break;
      case Entry::allreduce: failure = check_allreduce(text, ok); break;
      case Entry::trace: failure = check_trace(text, ok); break;
      case Entry::import_hf: failure = check_reply(vtrain::api::import_hf(text), ok); break;
    }
  } catch (const std::exception& e) {
    failure = std::string("an exception escaped: ") + e.what();
  } catch (...) {
    failure = "an exception escaped";
  }
  if (!failure.empty()) failure = std::string(entry_name(data[0])) + ": " + failure;
  return v;
}

}  // namespace vtrain::fuzz
