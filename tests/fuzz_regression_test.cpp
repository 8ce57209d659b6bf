// Replays the inputs the fuzzer has found (tests/fuzz/regressions/, one input per file, in the
// format of tests/fuzz/fuzz_check.hpp) through the same checks as the fuzzing target, natively and
// under WebAssembly (whose test runner reads the folder through Node's file system).

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.hpp"

namespace {

std::vector<std::filesystem::path> regression_files() {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(VTRAIN_FUZZ_REGRESSIONS_DIR, ec))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("fuzz regressions: every input found keeps the API's promises") {
  const auto files = regression_files();
  // The folder ships with the issue's reproducers: an empty list means it was not found.
  REQUIRE(files.size() >= 10);
  for (const auto& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string name = path.filename().string();
    INFO(name);
    REQUIRE(!data.empty());
    const auto v = vtrain::fuzz::check_input(reinterpret_cast<const uint8_t*>(data.data()), data.size(), 30.0);
    CHECK(v.failure == "");
    // An input named error-* is refused with an error: a bound, not a cancelled or a long answer.
    if (name.rfind("error-", 0) == 0) CHECK_FALSE(v.answered);
  }
}

// The findings one by one, each at its root.

#include <chrono>

#include <nlohmann/json.hpp>

#include "vtrain/api.hpp"
#include "vtrain/diagnostics.hpp"
#include "vtrain/validation.hpp"

namespace {

nlohmann::json reply_of(const std::string& text) { return nlohmann::json::parse(text); }

// The first error of a reply, or an empty object.
nlohmann::json first_error(const nlohmann::json& r) {
  return !r["ok"].get<bool>() && !r["errors"].empty() ? r["errors"][0] : nlohmann::json::object();
}

const char* const kGpt3 = R"("model": "gpt3-175b", "plan": {"tp": 8, "pp": 8, "dp": 16, "global_batch": 1536})";

}  // namespace

TEST_CASE("valid_utf8 keeps well-formed text and replaces each stray byte by U+FFFD") {
  using vtrain::valid_utf8;
  const std::string r = "\xEF\xBF\xBD";
  CHECK(valid_utf8("plain, \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80") == "plain, \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  CHECK(valid_utf8("\xFF") == r);
  CHECK(valid_utf8("a\xC3") == "a" + r);              // a sequence cut by the end
  CHECK(valid_utf8("\xC3\x28") == r + "(");           // a lead byte without its continuation
  CHECK(valid_utf8("\xC0\xAF") == r + r);             // an overlong '/'
  CHECK(valid_utf8("\xED\xA0\x80") == r + r + r);     // a UTF-16 surrogate written as UTF-8
  CHECK(valid_utf8("\xF4\x90\x80\x80") == r + r + r + r);  // above U+10FFFF
  CHECK(vtrain::make_diagnostic("syntax", "", "got '\xE9'").message == "/: got '" + r + "'");
}

TEST_CASE("a byte that is not UTF-8 gets a syntax error reply, never an exception") {
  for (const std::string& text : {std::string("\xFF"), std::string("{\"model\":\"gpt3-175b\"\xC3\xA9}")}) {
    for (const std::string& reply : {vtrain::api::simulate(text), vtrain::api::explore(text), vtrain::api::optimal(text),
                                     vtrain::api::validate_config(text), vtrain::api::schedule(text)}) {
      const auto e = first_error(reply_of(reply));
      CHECK(e["code"] == "syntax");
      CHECK(e["pointer"] == "");
    }
  }
}

TEST_CASE("tp x pp x dp past any cluster is an error at /plan/dp, not a wrapped /cluster/num_gpus") {
  const auto e = first_error(
      reply_of(vtrain::api::simulate(R"({"model": "gpt3-175b", "plan": {"tp": 8, "pp": 96, "dp": 1000000, "global_batch": 1000000}})")));
  CHECK(e["code"] == "range");
  CHECK(e["pointer"] == "/plan/dp");
  CHECK(e["message"].get<std::string>().find("768000000 GPUs") != std::string::npos);
  const auto huge = reply_of(vtrain::api::simulate(
      R"({"model": "gpt3-175b", "plan": {"tp": 1000000, "pp": 1000000, "dp": 100000000, "global_batch": 100000000}})"));
  for (const auto& err : huge["errors"]) CHECK(err["pointer"] != "/cluster/num_gpus");
}

TEST_CASE("physically absurd inputs are refused with the bound; a run beyond any real one is warned of") {
  auto e = first_error(reply_of(vtrain::api::simulate(
      std::string("{") + kGpt3 + R"(, "cluster": {"intra_node_GBps": 1e-9}})")));
  CHECK(e["pointer"] == "/cluster/intra_node_GBps");
  CHECK(e["message"].get<std::string>().find("at least 0.1") != std::string::npos);
  e = first_error(reply_of(vtrain::api::simulate(std::string("{") + kGpt3 + R"(, "cluster": {"inter_node_Gbps": 1e-9}})")));
  CHECK(e["pointer"] == "/cluster/inter_node_Gbps");
  CHECK(e["message"].get<std::string>().find("at least 0.01") != std::string::npos);
  e = first_error(reply_of(vtrain::api::simulate(std::string("{") + kGpt3 + R"(, "training": {"tokens": 1e-300}})")));
  CHECK(e["pointer"] == "/training/tokens");
  // Slow but possible: accepted, with a warning past ten years of training.
  const auto slow = reply_of(vtrain::api::simulate(std::string("{") + kGpt3 + R"(, "training": {"tokens": 1e16}})"));
  REQUIRE(slow["ok"] == true);
  CHECK(slow["result"]["training_days"].get<double>() > 3652.5);
  bool warned = false;
  for (const auto& w : slow["result"]["warnings"]) warned = warned || (w["code"] == "beyond_real_run" && w["pointer"] == "/training/tokens");
  CHECK(warned);
  const auto usual = reply_of(vtrain::api::simulate(std::string("{") + kGpt3 + R"(, "training": {"tokens": 3e11}})"));
  for (const auto& w : usual["result"]["warnings"]) CHECK(w["code"] != "beyond_real_run");
}

TEST_CASE("explore refuses a space too large from its count, without enumerating it") {
  // 83160 layers and a batch of 720720 sequences: 128 and 240 divisors.
  const std::string model = R"("model": {"layers": 83160, "hidden": 1024, "heads": 16, "seq_len": 128, "vocab": 1000, "ffn_hidden": 4096})";
  const auto t0 = std::chrono::steady_clock::now();
  const auto e = first_error(reply_of(vtrain::api::explore(
      "{" + model + R"(, "cluster": {"num_gpus": 100000000}, "plan": {"global_batch": 720720}, "training": {"tokens": 1e9}})")));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(e["code"] == "too_large");
  CHECK(e["pointer"] == "/explore");
  CHECK(e["message"].get<std::string>().find("counted before enumerating") != std::string::npos);
  CHECK(seconds < 10);  // a tenth of a second natively: ten times that and more is a sanity bound
  // The caps themselves are capped.
  const auto capped = first_error(reply_of(vtrain::api::explore(
      std::string("{") + kGpt3 + R"(, "training": {"tokens": 3e11}, "explore": {"max_plans": 100000000, "max_blocks": 1e15}})")));
  CHECK(capped["code"] == "range");
  CHECK(capped["pointer"] == "/explore/max_plans");
}

TEST_CASE("a measurement file naming a column twice is an error") {
  const std::string header =
      "hidden size,attention heads,sequence length,# layers,global batch,micro batch,# GPUs,tensor parallelism,"
      "data parallelism,pipeline parallelism,iteration time (ms)";
  const auto runs = vtrain::parse_measurements(header + ",hidden size\n12288,96,2048,96,1536,1,1024,8,16,8,60000,4096\n");
  REQUIRE_FALSE(runs.ok());
  CHECK(runs.errors()[0].code == "duplicate_column");
  CHECK(runs.errors()[0].pointer == "/header/hidden size");
  CHECK(vtrain::parse_measurements(header + "\n12288,96,2048,96,1536,1,1024,8,16,8,60000\n").ok());
}
