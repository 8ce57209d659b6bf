// vtrain-profile's measurements to a profile: the shape grid, synthesized measurements, and the
// fit that recovers a known profile's parameters from them (tests/data: synthetic, not measured).
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "iteration/kernels.hpp"
#include "test_util.hpp"
#include "vtrain/measured.hpp"
#include "vtrain/profile.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

const std::string kData = std::string(VTRAIN_GOLDEN_DIR) + "/../data/";

json read_json(const std::string& path) {
  std::ifstream f(path);
  REQUIRE_MESSAGE(f.good(), "cannot read " << path);
  std::stringstream s;
  s << f.rdbuf();
  return json::parse(s.str());
}

Profile known_profile() {
  auto p = parse_profile(read_json(kData + "synthetic-known-profile.json"));
  REQUIRE(p.ok());
  return p.value();
}

// The shapes of the four example runs the sample was synthesized for.
json sample_shapes() {
  std::vector<ShapeCase> cases;
  for (const char* name : {"llama3-8b", "gpt3-175b", "llama2-70b", "mt-nlg-530b"}) {
    const SimConfig c = test::parse_ok(read_json(std::string(VTRAIN_GOLDEN_DIR) + "/../../examples/" + name + ".json"));
    cases.push_back({c.model, c.plan});
  }
  return profile_shapes(cases);
}

}  // namespace

TEST_CASE("profile shapes: every GEMM and attention shape of the cases, once, and ranges that cover their kernels") {
  const std::vector<ShapeCase> cases = default_shape_cases();
  CHECK(cases.size() == 144);
  const json s = profile_shapes(cases);
  CHECK(s["format"] == "vtrain-profile-shapes");
  // The q, k, v projection of hidden 4096 at tensor parallelism 2, micro-batch 2, sequence 2048.
  const json qkv = {{"m", 4096}, {"n", 3 * 4096 / 2}, {"k", 4096}, {"batch", 1}};
  CHECK(std::find(s["gemm"].begin(), s["gemm"].end(), qkv) != s["gemm"].end());
  std::set<std::string> unique;
  for (const json& g : s["gemm"]) unique.insert(g.dump());
  CHECK(unique.size() == s["gemm"].size());
  // Flash attention: 32 heads at tp 1 and micro-batch 4 are 128 attention problems of 4096 x 128.
  const json att = {{"seq", 4096}, {"head_dim", 128}, {"batch_heads", 128}};
  CHECK(std::find(s["attention"].begin(), s["attention"].end(), att) != s["attention"].end());
  const json& bytes = s["memory"]["bytes"];
  REQUIRE(bytes.size() >= 2);
  for (size_t i = 1; i < bytes.size(); ++i) CHECK(bytes[i].get<double>() == 4 * bytes[i - 1].get<double>());
  // The largest memory-bound kernel of the grid: the logits' fp32 softmax pass, 8 bytes per logit.
  CHECK(bytes.back().get<double>() >= 8.0 * 4 * 4096 * 51200);
  CHECK(s["collectives"]["bytes"].front() == 4096);
  CHECK(s["collectives"]["bytes"].back().get<double>() >= 1073741824.0);
}

TEST_CASE("measured profile: the committed synthetic sample is what profile-shapes --synthesize writes") {
  const json sample = read_json(kData + "synthetic-measurements.json");
  CHECK(sample["synthetic"] == true);
  const json again = synthesize_measurements(known_profile(), sample_shapes(), 0.02, 7, {2, 4, 8});
  CHECK(again == sample);
}

TEST_CASE("measured profile: the fit recovers the known profile's parameters from the noisy synthetic sample") {
  const Profile known = known_profile();
  const Profile& base = *bundled_profiles().find("a100-sxm4-80gb");
  auto fitted = profile_from_measurements(read_json(kData + "synthetic-measurements.json"), base, "");
  REQUIRE(fitted.ok());
  const MeasuredProfileReport& r = fitted.value();
  const Profile& p = r.profile;
  CHECK(r.synthetic);
  CHECK(p.name == "a100-sxm4-80gb-synthetic");
  CHECK(p.provenance["kind"] == "synthetic");  // never labelled measured
  CHECK(p.provenance["base_profile"] == "a100-sxm4-80gb");
  // The base starts far from the known values; the fit lands near them (2% noise on every time).
  REQUIRE(std::abs(base.kernel_overhead_us - known.kernel_overhead_us) > 3);
  CHECK(p.kernel_overhead_us == doctest::Approx(known.kernel_overhead_us).epsilon(0.15));
  CHECK(p.memory_efficiency == doctest::Approx(known.memory_efficiency).epsilon(0.02));
  CHECK(p.gemm_max_efficiency == doctest::Approx(known.gemm_max_efficiency).epsilon(0.03));
  CHECK(p.attention_fwd_efficiency == doctest::Approx(known.attention_fwd_efficiency).epsilon(0.03));
  CHECK(p.attention_bwd_efficiency == doctest::Approx(known.attention_bwd_efficiency).epsilon(0.03));
  CHECK(p.optimizer_bytes_per_param == doctest::Approx(known.optimizer_bytes_per_param).epsilon(0.03));
  CHECK(p.p2p_intra_efficiency == doctest::Approx(known.p2p_intra_efficiency).epsilon(0.05));
  CHECK(p.p2p_latency_us == doctest::Approx(known.p2p_latency_us).epsilon(0.15));
  REQUIRE(p.intra_node.size() == 3);  // 2, 4 and 8 GPUs measured; the others interpolated
  for (const IntraNodeCollective& k : known.intra_node) {
    const auto it = std::find_if(p.intra_node.begin(), p.intra_node.end(), [&](const auto& c) { return c.gpus == k.gpus; });
    REQUIRE(it != p.intra_node.end());
    CAPTURE(k.gpus);
    CHECK(it->busbw_GBps == doctest::Approx(k.busbw_GBps).epsilon(0.05));
    CHECK(it->latency_us == doctest::Approx(k.latency_us).epsilon(0.2));
  }
  // The GEMM model's parameters trade off against each other; what must hold is that the fitted
  // model times shapes it was not fitted to as the known one does.
  Profile model = p;
  model.operator_table.clear();
  index_operator_table(model);
  double worst = 0;
  for (const double m : {1000.0, 3000.0, 12288.0})
    for (const double n : {1536.0, 5120.0, 28672.0})
      for (const double k : {2048.0, 7168.0}) {
        const double a = detail::gemm_s(model, m, n, k, 1), b = detail::gemm_s(known, m, n, k, 1);
        worst = std::max(worst, std::abs(a / b - 1));
      }
  MESSAGE("worst GEMM error off the sample: " << worst);
  CHECK(worst < 0.05);
  for (const MeasuredFitPart& part : r.parts) {
    CAPTURE(part.what);
    CHECK(part.points > 0);
    CHECK(part.mean_error_percent < 3.0);  // the noise is at most 2% on each time
  }
  // Every measured 16-bit GEMM, attention and memory-bound time is in the operator table, and used.
  const json sample = read_json(kData + "synthetic-measurements.json");
  CHECK(p.operator_table.size() == sample["gemm"].size() + sample["attention"].size() + sample["memory"].size());
  REQUIRE(p.operator_lookup != nullptr);
  const json& g = sample["gemm"][0];
  detail::TimeSource source = detail::TimeSource::modelled;
  CHECK(detail::gemm_s(p, g["m"], g["n"], g["k"], g["batch"], 0, false, &source) ==
        doctest::Approx(g["time_us"].get<double>() * 1e-6));
  CHECK(source == detail::TimeSource::measured);
  // The profile reads back as written.
  auto back = parse_profile(to_json(p));
  REQUIRE(back.ok());
  CHECK(back.value().operator_table.size() == p.operator_table.size());
}

TEST_CASE("measured profile: measurements of a GPU are labelled measured; bad files are named by pointer") {
  json m = read_json(kData + "synthetic-measurements.json");
  m["synthetic"] = false;
  m["machine"] = {{"gpu_name", "NVIDIA H200"}, {"sm_count", 132}};
  const Profile& base = *bundled_profiles().find("a100-sxm4-80gb");
  auto measured = profile_from_measurements(m, base, "h200-mine");
  REQUIRE(measured.ok());
  CHECK(measured.value().profile.provenance["kind"] == "measured");
  CHECK(measured.value().profile.name == "h200-mine");
  CHECK(measured.value().profile.display_name == "NVIDIA H200 (measured)");
  CHECK(measured.value().profile.sm_count == 132);

  json bad = m;
  bad["format"] = "something";
  CHECK(profile_from_measurements(bad, base, "").errors().front().pointer == "/format");
  bad = m;
  bad["gemm"][3].erase("m");
  bad["collectives"][1]["op"] = "broadcast";
  auto errors = profile_from_measurements(bad, base, "");
  REQUIRE_FALSE(errors.ok());
  CHECK(errors.errors()[0].pointer == "/gemm/3/m");
  CHECK(errors.errors()[1].pointer == "/collectives/1/op");
  bad = m;
  bad["memory"] = json::array();
  CHECK(profile_from_measurements(bad, base, "").errors().front().pointer == "/memory");
  // Rows of several kernels (eager SwiGLU) are kept out of the fit, with a note.
  json multi = m;
  multi["memory"][0]["kernels"] = 2;
  auto noted = profile_from_measurements(multi, base, "");
  REQUIRE(noted.ok());
  CHECK(noted.value().profile.operator_table.size() + 1 == measured.value().profile.operator_table.size());
}
