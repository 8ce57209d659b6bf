#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "vtrain/api.hpp"
#include "vtrain/validation.hpp"

using nlohmann::json;

// Mutated inputs, thousands of them from a fixed seed: whatever comes in, the answer is a result
// with finite numbers or errors that name the field. A crash, an exception, a NaN (written as
// null) or an error without its JSON pointer fails the case and prints the input.

namespace {

// SplitMix64: the same sequence on every platform and in WebAssembly.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

// The path of the first null or non-finite number under `j`, or "" when there is none. Keys in
// `nullable` may be null (explore: no baseline, best plan or deadline), and so may every number of
// a plan marked "simulated": false (its time and cost were not computed).
std::string first_bad_number(const json& j, const std::vector<std::string>& nullable, const std::string& path = "") {
  if (j.is_null()) {
    const std::string key = path.substr(path.rfind('/') + 1);
    return std::find(nullable.begin(), nullable.end(), key) != nullable.end() ? "" : (path.empty() ? "/" : path);
  }
  if (j.is_number_float() && !std::isfinite(j.get<double>())) return path;
  if (j.is_object() && j.contains("simulated") && j["simulated"] == false) return "";
  if (j.is_object())
    for (const auto& [k, v] : j.items())
      if (auto p = first_bad_number(v, nullable, path + "/" + k); !p.empty()) return p;
  if (j.is_array())
    for (std::size_t i = 0; i < j.size(); ++i)
      if (auto p = first_bad_number(j[i], nullable, path + "/" + std::to_string(i)); !p.empty()) return p;
  return "";
}

// Every error names its field: a pointer, and a message that starts with it.
void check_errors_name_fields(const json& errors, const std::string& input) {
  REQUIRE_MESSAGE(errors.is_array(), input);
  CHECK_MESSAGE(!errors.empty(), input);
  for (const json& e : errors) {
    REQUIRE_MESSAGE(e.contains("pointer"), input);
    const std::string pointer = e["pointer"].get<std::string>();
    const std::string message = e["message"].get<std::string>();
    CHECK_MESSAGE(!e["code"].get<std::string>().empty(), input);
    if (!pointer.empty()) CHECK_MESSAGE(message.rfind(pointer + ":", 0) == 0, (message + "\n" + input));
  }
}

// Mutates `base` `cases` times (one to three fields of its sections: a value from `values`, a
// plausible number, or the field removed; now and then a whole section replaced), sends each to
// `call` and checks the answer. Returns how many answers were results.
int fuzz_requests(const json& base, const std::vector<json>& values, std::uint64_t seed, int cases,
                  std::string (*call)(std::string_view), const std::vector<std::string>& nullable) {
  std::vector<std::pair<std::string, std::string>> leaves;
  for (const auto& [section, fields] : base.items())
    for (const auto& [key, value] : fields.items()) leaves.push_back({section, key});
  Rng rng{seed};
  int answered = 0;
  for (int i = 0; i < cases; ++i) {
    json c = base;
    for (std::size_t m = 0, n = 1 + rng.below(3); m < n; ++m) {
      const auto& [section, key] = leaves[rng.below(leaves.size())];
      if (!c[section].is_object()) continue;
      const std::size_t how = rng.below(10);
      if (how < 7) c[section][key] = values[rng.below(values.size())];
      else if (how < 9 && c[section][key].is_number()) c[section][key] = 0.5 * (1 + rng.below(8192));
      else c[section].erase(key);
    }
    if (rng.below(20) == 0) c[leaves[rng.below(leaves.size())].first] = values[rng.below(values.size())];
    const std::string input = c.dump();
    const json reply = json::parse(call(input), nullptr, false);
    REQUIRE_MESSAGE(!reply.is_discarded(), input);
    if (reply["ok"] == true) {
      ++answered;
      const std::string bad = first_bad_number(reply["result"], nullable);
      CHECK_MESSAGE(bad.empty(), (bad + "\n" + input));
    } else {
      check_errors_name_fields(reply["errors"], input);
    }
  }
  return answered;
}

std::string explore_call(std::string_view request) { return vtrain::api::explore(request); }

// A published measurement file, as the library carries it (profiles/published/NAME.csv).
std::string published_text(const char* name) {
  const vtrain::PublishedMeasurements* file = vtrain::published_measurements().find(name);
  REQUIRE_MESSAGE(file != nullptr, name);
  REQUIRE(!file->csv_text.empty());
  return file->csv_text;
}

}  // namespace

TEST_CASE("robustness: mutated simulate configs get a finite result or errors that name the field") {
  const json base = json::parse(R"({
    "model": {"name": "m", "layers": 24, "hidden": 2048, "heads": 16, "kv_heads": 16, "ffn_hidden": 8192,
              "vocab": 50257, "seq_len": 2048, "mlp": "gelu", "norm": "layernorm", "position": "learned",
              "bias": true, "tied_embeddings": true, "vocab_pad_multiple": 128},
    "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 64, "gpus_per_node": 8, "price_per_gpu_hour_usd": 4.1,
                "intra_node_GBps": 300, "inter_node_Gbps": 1600},
    "plan": {"tp": 2, "pp": 2, "dp": 16, "micro_batch": 2, "global_batch": 512, "recompute": "selective",
             "sequence_parallel": true, "attention": "flash", "precision": "bf16", "dp_overlap": true,
             "zero_stage": 1, "virtual_stages": 1, "p2p_overlap": true, "tp_async_backward": true,
             "grad_accumulation_fusion": true, "placement": "tp-pp-dp"},
    "training": {"tokens": 1e11}, "output": {"timeline": true, "operators": true}})");
  REQUIRE(json::parse(vtrain::api::simulate(base.dump()))["ok"] == true);

  const std::vector<json> values = {0, -1, 1, 2, 3, 7, 8, 64, 1000, 65536, 1e9, 2147483647, 2147483648.0,
                                    9.0e15, 1e300, -1e300, 1e-300, 0.5, 1.5, "x", "", nullptr, true, false,
                                    json::array(), json::object(), "flash", "none", "full", "gpt3-175b"};
  // A goodput's days are null when the run has no finite expected time (goodput.finite false).
  const int answered = fuzz_requests(base, values, 1, 2000, &vtrain::api::simulate,
                                     {"expected_days", "checkpoint_days", "lost_work_days", "restart_days", "failures"});
  // Both sides are exercised: some mutations stay valid, most break a rule.
  CHECK(answered > 100);
  CHECK(answered < 1900);
}

TEST_CASE("robustness: mutated measurement files are read or refused by line and column, never NaN") {
  const std::vector<std::string> texts = {published_text("narayanan-a100"), published_text("megatron-a100"),
                                          published_text("korthikanti-layer-a100")};
  for (const auto& t : texts) REQUIRE(vtrain::parse_measurements(t).ok());
  const std::vector<std::string> pieces = {"0", "-1", "1e308", "nan", "inf", "", " ", "\"", "\"a,b\"", ",",
                                           "\n", "\r\n", "yes", "no", "x", "1.5", "99999999999", "\xef\xbb\xbf",
                                           "full", "bf16", "2147483648", "1e-300"};
  Rng rng{7};
  int read = 0;
  for (int i = 0; i < 1000; ++i) {
    std::string t = texts[rng.below(texts.size())];
    for (std::size_t m = 0, n = 1 + rng.below(4); m < n; ++m) {
      const std::size_t pos = rng.below(t.size() + 1);
      switch (rng.below(4)) {
        case 0: t.insert(pos, pieces[rng.below(pieces.size())]); break;
        case 1: if (pos < t.size()) t.erase(pos, 1 + rng.below(8)); break;
        case 2: if (pos < t.size()) t[pos] = "0123456789,.-\n\"xe"[rng.below(17)]; break;
        default: {  // one cell replaced
          const std::size_t a = t.rfind(',', pos), b = t.find_first_of(",\n", pos);
          if (a != std::string::npos && b != std::string::npos && b > a)
            t.replace(a + 1, b - a - 1, pieces[rng.below(pieces.size())]);
        }
      }
    }
    auto runs = vtrain::parse_measurements(t);
    if (!runs.ok()) {
      for (const auto& d : runs.errors()) {
        CHECK_MESSAGE(!d.pointer.empty(), (d.message + "\n" + t));
        CHECK_MESSAGE(d.message.rfind(d.pointer + ":", 0) == 0, d.message);
      }
      continue;
    }
    auto report = vtrain::validate_runs(runs.value(), vtrain::ValidationSetup{}, nullptr);
    if (!report.ok()) {
      for (const auto& d : report.errors()) CHECK_MESSAGE(!d.pointer.empty(), (d.message + "\n" + t));
      continue;
    }
    ++read;
    CHECK_MESSAGE(std::isfinite(report.value().mape_percent), t);
    for (const auto& row : report.value().rows) {
      CHECK_MESSAGE(std::isfinite(row.predicted_ms), t);
      CHECK_MESSAGE(row.predicted_ms > 0, t);
    }
  }
  CHECK(read > 50);
  CHECK(read < 950);
}

TEST_CASE("robustness: mutated explore requests get finite plans or errors that name the field") {
  const json base = json::parse(R"({
    "model": {"layers": 16, "hidden": 2048, "heads": 16, "seq_len": 1024, "vocab": 51200},
    "cluster": {"gpu": "a100-sxm4-80gb", "num_gpus": 32, "gpus_per_node": 8, "price_per_gpu_hour_usd": 2.5},
    "plan": {"global_batch": 64, "recompute": "selective"},
    "training": {"tokens": 1e10},
    "explore": {"tp": [1, 2, 4], "pp": [1, 2], "micro_batch": [1, 2], "objective": "cost", "simulate_unfit": false,
                "max_plans": 10000, "max_blocks": 1e7}})");
  REQUIRE(json::parse(vtrain::api::explore(base.dump()))["ok"] == true);

  const std::vector<json> values = {0, -1, 1, 2, 3, 8, 1e9, 2147483648.0, 1e300, 0.5, "x", "", nullptr, true,
                                    json::array(), json::array({0}), json::array({3, 5}), json::object(),
                                    "time", "deadline", 30, 1e-300};
  const int answered = fuzz_requests(base, values, 11, 150, &explore_call,
                                     {"baseline", "best", "best_time", "best_cost", "deadline_days"});
  CHECK(answered > 10);
  CHECK(answered < 140);
}
