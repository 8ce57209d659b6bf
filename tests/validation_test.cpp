#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "vtrain/calibration.hpp"
#include "vtrain/validation.hpp"

using namespace vtrain;

namespace {

// ../shared beside the repository, where the published measurements live (CI has it; a user's
// clone does not).
std::string shared_dir() { return std::string(VTRAIN_SOURCE_DIR) + "/../shared"; }

bool read(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

const char* kHeader =
    "# GPUs,global batch,micro batch,hidden size,attention heads,# layers,sequence length,"
    "tensor parallelism,data parallelism,pipeline parallelism,iteration time (ms)\n";

}  // namespace

TEST_CASE("validation: the measurement CSV parses with or without a byte-order mark") {
  const std::string body = std::string(kHeader) + "8,16,2,1024,16,12,1024,2,2,2,100.5\n4,8,1,2048,16,24,1024,4,1,1,200\n";
  auto plain = parse_measurements(body);
  REQUIRE(plain.ok());
  REQUIRE(plain.value().size() == 2);
  const MeasuredRun& r = plain.value()[0];
  CHECK(r.num_gpus == 8);
  CHECK(r.micro_batch == 2);
  CHECK(r.tp == 2);
  CHECK(r.dp == 2);
  CHECK(r.pp == 2);
  CHECK(r.measured_ms == 100.5);
  CHECK(r.line == 2);
  auto bom = parse_measurements("\xEF\xBB\xBF" + body);
  REQUIRE(bom.ok());
  CHECK(bom.value().size() == 2);

  // The multi-node file puts the model size first.
  auto multi = parse_measurements("Parameters (billion)," + std::string(kHeader) + "3.6,64,512,8,3072,32,30,2048,1,64,1,3566.5\r\n");
  REQUIRE(multi.ok());
  CHECK(multi.value()[0].params_billion == doctest::Approx(3.6));
  CHECK(multi.value()[0].dp == 64);
}

TEST_CASE("validation: bad measurement files are errors that name line and column") {
  auto missing = parse_measurements("# GPUs,global batch\n8,16\n");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.errors().front().code == "missing_column");

  auto bad = parse_measurements(std::string(kHeader) + "8,16,2,1024,16,12,1024,2,2,2,fast\n");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors().front().pointer == "/line/2/iteration time (ms)");

  auto product = parse_measurements(std::string(kHeader) + "8,16,2,1024,16,12,1024,2,2,1,100\n");
  REQUIRE(product.ok());
  auto report = validate_runs(product.value(), ValidationSetup{});
  REQUIRE_FALSE(report.ok());
  CHECK(report.errors().front().pointer == "/line/2/# GPUs");
}

TEST_CASE("validation: runs grouped by columns carry their bias and share of the error") {
  ValidationReport report;
  auto add = [&](int tp, int micro_batch, double error) {
    ValidationRow row;
    row.run.tp = tp;
    row.run.micro_batch = micro_batch;
    row.error_percent = error;
    report.rows.push_back(row);
  };
  add(1, 1, 2.0);
  add(1, 1, -4.0);
  add(8, 1, -15.0);
  add(8, 1, -17.0);
  add(8, 2, 2.0);  // summed absolute error: 40

  auto by_tp = group_errors(report, {"tp"});
  REQUIRE(by_tp.ok());
  const auto& g = by_tp.value();
  REQUIRE(g.size() == 2);
  CHECK(g[0].key == std::vector<int>{8});  // the largest share first
  CHECK(g[0].runs == 3);
  CHECK(g[0].mean_error_percent == doctest::Approx(-10.0));
  CHECK(g[0].mape_percent == doctest::Approx(34.0 / 3));
  CHECK(g[0].max_abs_error_percent == doctest::Approx(17.0));
  CHECK(g[0].share_of_error_percent == doctest::Approx(85.0));
  CHECK(g[1].key == std::vector<int>{1});
  CHECK(g[1].mean_error_percent == doctest::Approx(-1.0));
  CHECK(g[1].share_of_error_percent == doctest::Approx(15.0));

  auto by_two = group_errors(report, {"tp", "micro_batch"});
  REQUIRE(by_two.ok());
  REQUIRE(by_two.value().size() == 3);
  CHECK(by_two.value()[0].key == std::vector<int>{8, 1});
  CHECK(by_two.value()[0].mean_error_percent == doctest::Approx(-16.0));

  auto unknown = group_errors(report, {"tp", "speed"});
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.errors().front().pointer == "/by/1");
  CHECK(unknown.errors().front().code == "unknown_column");
  auto twice = group_errors(report, {"pp", "pp"});
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.errors().front().code == "repeated_column");
  CHECK_FALSE(group_errors(report, {}).ok());
}

TEST_CASE("validation: the all-reduce fit reproduces a latency-bandwidth curve") {
  std::vector<CollectivePoint> pts;
  for (double mib = 1; mib <= 1024; mib *= 1.5) {
    const double bytes = mib * 1048576;
    pts.push_back({bytes, std::max(40.0, 30.0 + 2.0 * 7 / 8 * bytes / 200e3)});
  }
  const CollectiveFit f = fit_allreduce(8, pts);
  CHECK(f.fit.busbw_GBps == doctest::Approx(200).epsilon(0.02));
  CHECK(f.fit.latency_us == doctest::Approx(30).epsilon(0.1));
  CHECK(f.mean_error_percent < 1.0);
}

// The accuracy floors of the bundled A100 profile on the calibration measurements.
TEST_CASE("validation: the bundled A100 profile meets its accuracy on the calibration sets") {
  struct Set {
    const char* file;
    double floor_mape_percent;
  };
  // Multi-node: the floor of 8%. Single-node: 7% guards the present accuracy (6.4%).
  const Set sets[] = {{"/validation/single_node_calibration.csv", 7.0},
                      {"/validation/multi_node_calibration.csv", 8.0}};
  for (const Set& s : sets) {
    std::string text;
    if (!read(shared_dir() + s.file, text)) {
      MESSAGE("skipped: " << shared_dir() << s.file << " not found (../shared is not beside this clone)");
      return;
    }
    auto runs = parse_measurements(text);
    REQUIRE(runs.ok());
    auto report = validate_runs(runs.value(), ValidationSetup{});
    REQUIRE(report.ok());
    CAPTURE(s.file);
    MESSAGE(s.file << ": " << report.value().rows.size() << " runs, MAPE " << report.value().mape_percent << "%");
    CHECK(report.value().rows.size() == runs.value().size());
    CHECK(report.value().mape_percent <= s.floor_mape_percent);
    for (const auto& row : report.value().rows) CHECK(std::isfinite(row.predicted_ms));
  }
}
