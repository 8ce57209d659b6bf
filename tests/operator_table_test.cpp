// A profile's measured operator times (operator_table): exact shapes replace the model's time,
// shapes between two measured ones are interpolated, everything else stays modelled, and the
// operator list says which is which.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "iteration/kernels.hpp"
#include "test_util.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/simulate.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

// The small GPT-style config without biases (the q, k, v projection's forward is its GEMM alone).
SimConfig no_bias_config() {
  json j = test::small_config();
  j["model"]["bias"] = false;
  j["plan"]["micro_batch"] = 4;  // 4096 tokens: no backward GEMM of the layer has the forward's shape
  j["output"] = {{"operators", true}};
  return test::parse_ok(j);
}

Profile with_table(const json& table) {
  json doc = to_json(*bundled_profiles().find("a100-sxm4-80gb"));
  doc["operator_table"] = table;
  auto p = parse_profile(doc);
  if (!p.ok()) throw std::runtime_error(p.errors().front().pointer + " " + p.errors().front().message);
  return p.value();
}

// The q, k, v projection's forward GEMM in the small config on one tensor-parallel rank.
constexpr double kTokens = 4.0 * 1024, kWidth = 3.0 * 2048 / 2, kHidden = 2048;

}  // namespace

TEST_CASE("operator table: one measured GEMM shape changes exactly that operator's time and no other") {
  const SimConfig c = no_bias_config();
  const SimResult modelled = test::simulate_ok(c, bundled_profiles().find("a100-sxm4-80gb"));
  const Profile measured = with_table(json::array(
      {{{"op", "gemm"}, {"m", kTokens}, {"n", kWidth}, {"k", kHidden}, {"time_us", 777.0}}}));
  REQUIRE(measured.operator_lookup != nullptr);
  const SimResult timed = test::simulate_ok(c, &measured);
  REQUIRE(timed.operators.size() == modelled.operators.size());
  int changed = 0;
  for (size_t i = 0; i < timed.operators.size(); ++i) {
    const OperatorTime& a = modelled.operators[i];
    const OperatorTime& b = timed.operators[i];
    REQUIRE(a.name == b.name);
    CAPTURE(a.block);
    CAPTURE(a.name);
    if (a.block == "layer" && a.name == "q, k, v projection") {
      ++changed;
      CHECK(b.forward_s == doctest::Approx(777e-6));
      CHECK(b.forward_s != doctest::Approx(a.forward_s));
      // Its backward GEMMs have other shapes: still modelled.
      CHECK(b.backward_s == a.backward_s);
      CHECK(b.measured_kernels == 2);  // the forward and its recompute
      CHECK(b.interpolated_kernels == 0);
      CHECK(std::string(b.time_source()) == "mixed");
      continue;
    }
    CHECK(b.forward_s == a.forward_s);
    CHECK(b.recompute_s == a.recompute_s);
    CHECK(b.backward_s == a.backward_s);
    CHECK(std::string(b.time_source()) == "modelled");
  }
  CHECK(changed == 1);
  // The recompute pass runs the same forward GEMM: the measured time there too.
  const OperatorTime* qkv = test::operator_row(timed, "layer", "q, k, v projection");
  CHECK(qkv->recompute_s == doctest::Approx(777e-6));
  CHECK(timed.iteration_time_s != modelled.iteration_time_s);
  // The result's JSON says where each operator's time came from.
  const json j = to_json(timed);
  bool seen = false;
  for (const json& o : j["operators"]) {
    if (o["block"] == "layer" && o["name"] == "q, k, v projection") {
      seen = true;
      CHECK(o["time_source"] == "mixed");
      CHECK(o["measured_kernels"] == 2);
    } else {
      CHECK(o["time_source"] == "modelled");
    }
  }
  CHECK(seen);
}

TEST_CASE("operator table: a GEMM between two measured shapes differing in one dimension is interpolated") {
  const SimConfig c = no_bias_config();
  // Measured at half and twice the tokens: the time is linear in m between them.
  const Profile p = with_table(json::array(
      {{{"op", "gemm"}, {"m", kTokens / 2}, {"n", kWidth}, {"k", kHidden}, {"time_us", 100.0}},
       {{"op", "gemm"}, {"m", kTokens * 2}, {"n", kWidth}, {"k", kHidden}, {"time_us", 400.0}}}));
  double t = 0;
  detail::TimeSource source = detail::TimeSource::modelled;
  const double s = detail::gemm_s(p, kTokens, kWidth, kHidden, 1, 0, false, &source);
  t = 100.0 + (kTokens - kTokens / 2) / (kTokens * 2 - kTokens / 2) * 300.0;
  CHECK(s == doctest::Approx(t * 1e-6));
  CHECK(source == detail::TimeSource::interpolated);
  const SimResult r = test::simulate_ok(c, &p);
  const OperatorTime* qkv = test::operator_row(r, "layer", "q, k, v projection");
  CHECK(qkv->forward_s == doctest::Approx(t * 1e-6));
  CHECK(qkv->interpolated_kernels == 2);
  // At a measured end, the measurement; beyond the range, or differing in two dimensions, the model.
  source = detail::TimeSource::modelled;
  CHECK(detail::gemm_s(p, kTokens * 2, kWidth, kHidden, 1, 0, false, &source) == doctest::Approx(400e-6));
  CHECK(source == detail::TimeSource::measured);
  const Profile& bundled = *bundled_profiles().find("a100-sxm4-80gb");
  source = detail::TimeSource::modelled;
  CHECK(detail::gemm_s(p, kTokens * 4, kWidth, kHidden, 1, 0, false, &source) ==
        detail::gemm_s(bundled, kTokens * 4, kWidth, kHidden, 1));
  CHECK(source == detail::TimeSource::modelled);
  CHECK(detail::gemm_s(p, kTokens, kWidth * 2, kHidden, 1, 0, false, &source) ==
        detail::gemm_s(bundled, kTokens, kWidth * 2, kHidden, 1));
  CHECK(source == detail::TimeSource::modelled);
}

TEST_CASE("operator table: memory-bound kernels by bytes, flash attention by shape") {
  const SimConfig c = no_bias_config();  // flash attention: 4 x 8 heads per rank, 1024 tokens, head dim 128
  const SimResult modelled = test::simulate_ok(c, bundled_profiles().find("a100-sxm4-80gb"));
  // Memory-bound: 2 us plus 1 ns per kB, over a range that holds every kernel of the config.
  const double lo = 1, hi = 1e12;
  const Profile p = with_table(json::array(
      {{{"op", "memory"}, {"bytes", lo}, {"kernel", "add"}, {"time_us", 2.0}},
       {{"op", "memory"}, {"bytes", hi}, {"kernel", "add"}, {"time_us", 2.0 + hi / 1e6}},
       {{"op", "attention_fwd"}, {"m", 1024}, {"n", 1024}, {"k", 128}, {"batch", 32}, {"time_us", 55.0}}}));
  const SimResult r = test::simulate_ok(c, &p);
  for (size_t i = 0; i < r.operators.size(); ++i) {
    const OperatorTime& o = r.operators[i];
    const OperatorTime& m = modelled.operators[i];
    CAPTURE(o.name);
    if (o.kind == OperatorKind::memory) {
      CHECK(std::string(o.time_source()) == "interpolated");
      CHECK(o.forward_s + o.backward_s + o.recompute_s ==
            doctest::Approx(o.kernels * 2e-6 + (o.hbm_bytes - o.kernels * lo) / (hi - lo)).epsilon(1e-9));
    } else if (o.kind == OperatorKind::gemm || o.kind == OperatorKind::collective) {
      CHECK(o.total_s() == m.total_s());
      CHECK(std::string(o.time_source()) == "modelled");
    }
  }
  const OperatorTime* attention = test::operator_row(r, "layer", "flash attention");
  REQUIRE(attention != nullptr);
  CHECK(attention->forward_s == doctest::Approx(55e-6));
  CHECK(attention->recompute_s == doctest::Approx(55e-6));
  CHECK(attention->backward_s == test::operator_row(modelled, "layer", "flash attention")->backward_s);
  CHECK(std::string(attention->time_source()) == "mixed");
}

TEST_CASE("operator table: entries are checked by field and written back as read") {
  const Profile p = with_table(json::array(
      {{{"op", "memory"}, {"bytes", 4096}, {"kernel", "layer_norm"}, {"time_us", 3.0}},
       {{"op", "attention_bwd"}, {"m", 2048}, {"n", 2048}, {"k", 128}, {"batch", 32}, {"time_us", 900.0}}}));
  const json back = to_json(p)["operator_table"];
  CHECK(back[0] == json{{"op", "memory"}, {"bytes", 4096.0}, {"kernel", "layer_norm"}, {"time_us", 3.0}});
  CHECK(back[1]["batch"] == 32);
  json doc = to_json(p);
  doc["operator_table"][0].erase("bytes");
  auto no_bytes = parse_profile(doc);
  REQUIRE_FALSE(no_bytes.ok());
  CHECK(no_bytes.errors().front().pointer == "/operator_table/0/bytes");
  doc = to_json(p);
  doc["operator_table"][1].erase("k");
  auto no_k = parse_profile(doc);
  REQUIRE_FALSE(no_k.ok());
  CHECK(no_k.errors().front().pointer == "/operator_table/1/k");
  doc = to_json(p);
  doc["operator_table"][1].erase("time_us");
  auto no_time = parse_profile(doc);
  REQUIRE_FALSE(no_time.ok());
  CHECK(no_time.errors().front().pointer == "/operator_table/1/time_us");
  // A profile without a table has no index: the simulator models every kernel.
  CHECK(bundled_profiles().find("a100-sxm4-80gb")->operator_lookup == nullptr);
}
