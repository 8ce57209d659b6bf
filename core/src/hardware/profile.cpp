#include "vtrain/profile.hpp"

#include <algorithm>
#include <cmath>

#include "common/embedded.hpp"
#include "common/json_reader.hpp"
#include "vtrain/config.hpp"

namespace vtrain {

using nlohmann::json;
using detail::ObjectReader;


namespace {

// The errors a calibration recorded: held-out ones first, then the published runs' (which no fit
// sees), then the in-sample ones. The provenance is free-form: entries not shaped as
// `vtrain calibrate` writes them are not read.
// A recorded [least, most] pair of positive whole numbers; anything else leaves both 0 (unknown).
void range(const json& e, const char* key, int& lo, int& hi) {
  lo = hi = 0;
  if (!e.contains(key)) return;
  const json& r = e[key];
  if (!r.is_array() || r.size() != 2 || !r[0].is_number_integer() || !r[1].is_number_integer()) return;
  const long long a = r[0].get<long long>(), b = r[1].get<long long>();
  if (a < 1 || b < a || b > 1000000000) return;
  lo = static_cast<int>(a);
  hi = static_cast<int>(b);
}

std::vector<ProfileAccuracy> recorded_accuracy(const json& prov) {
  std::vector<ProfileAccuracy> out;
  if (!prov.is_object() || !prov.contains("calibration") || !prov["calibration"].is_object()) return out;
  const json& cal = prov["calibration"];
  auto read = [&](const json* list, bool held_out, bool never_fitted) {
    if (!list || !list->is_array()) return;
    for (const json& e : *list) {
      if (!e.is_object() || !e.contains("set") || !e["set"].is_string() || !e.contains("runs") ||
          !e["runs"].is_number_integer() || !e.contains("mape_percent") || !e["mape_percent"].is_number())
        continue;
      ProfileAccuracy a;
      a.set = e["set"].get<std::string>();
      a.runs = e["runs"].get<int>();
      a.mape_percent = e["mape_percent"].get<double>();
      a.held_out = held_out;
      a.never_fitted = never_fitted;
      if (e.contains("framework") && e["framework"].is_string()) a.framework = e["framework"].get<std::string>();
      a.moe = e.contains("moe") && e["moe"].is_boolean() && e["moe"].get<bool>();
      range(e, "gpus", a.gpus_min, a.gpus_max);
      range(e, "hidden", a.hidden_min, a.hidden_max);
      if (a.runs <= 0 || !(a.mape_percent >= 0) || !std::isfinite(a.mape_percent)) continue;
      bool known = false;
      for (const auto& b : out) known = known || (b.set == a.set && b.framework == a.framework);
      if (!known) out.push_back(a);
    }
  };
  if (cal.contains("cross_validation") && cal["cross_validation"].is_object() &&
      cal["cross_validation"].contains("held_out"))
    read(&cal["cross_validation"]["held_out"], true, false);
  if (cal.contains("published")) read(&cal["published"], true, true);
  if (cal.contains("in_sample")) read(&cal["in_sample"], false, false);
  return out;
}

}  // namespace

Outcome<Profile> parse_profile(const json& j) {
  Diagnostics e;
  Profile p;
  ObjectReader top(&j, "", e);
  if (!top.present()) return e;
  top.read("name", p.name);
  top.read("display_name", p.display_name);
  if (p.name.empty()) e.push_back(make_diagnostic("missing", "/name", "is required"));
  // Every field is required: a value left out would silently be the A100's.
  const auto require = [&](ObjectReader& r, const char* section) {
    if (!top.has(section))
      e.push_back(make_diagnostic("missing", r.pointer(),
                                  "is required (a profile gives every field: start from a copy of a bundled one)"));
    r.require_every_read();
  };
  {
    ObjectReader r(top.child("hardware"), "/hardware", e);
    r.read("peak_fp16_tflops", p.peak_fp16_tflops, 0.0, 1e6, true);
    r.read("peak_fp32_tflops", p.peak_fp32_tflops, 0.0, 1e6, true);
    r.read("hbm_GiB", p.hbm_GiB, 0.0, 1e6, true);
    r.read("hbm_GBps", p.hbm_GBps, 0.0, 1e7, true);
    r.read("sm_count", p.sm_count, 1, 100000);
    r.read("collective_sms", p.collective_sms, 0.0, 100000.0);
    r.read("board_power_W", p.board_power_W, 0.0, 1e6);
    r.read("intra_node_GBps", p.intra_node_GBps, 0.0, 1e6, true);
    r.read("inter_node_Gbps", p.inter_node_Gbps, 0.0, 1e8, true);
    r.read("gpus_per_node", p.gpus_per_node, 1, limits::gpus_per_node);
    require(r, "hardware");
    r.read("peak_fp8_tflops", p.peak_fp8_tflops, 0.0, 1e6);  // optional: GPUs without FP8 leave it out
    r.read("pcie_GBps", p.pcie_GBps, 0.0, 1e5);              // optional: optimizer offload needs both
    r.read("host_memory_GBps", p.host_memory_GBps, 0.0, 1e6);
    r.finish();
  }
  {
    ObjectReader r(top.child("compute"), "/compute", e);
    r.read("gemm_max_efficiency", p.gemm_max_efficiency, 0.0, 1.0, true);
    if (const json* tiles = r.child("gemm_tiles")) {
      if (!tiles->is_array() || tiles->empty()) {
        r.fail("type", r.at("gemm_tiles"), "must be a non-empty array of {m, n, efficiency}");
      } else {
        p.gemm_tiles.clear();
        for (size_t i = 0; i < tiles->size(); ++i) {
          GemmTile t;
          ObjectReader tr(&(*tiles)[i], r.at("gemm_tiles") + "/" + std::to_string(i), e);
          tr.read("m", t.m, 1, 4096);
          tr.read("n", t.n, 1, 4096);
          tr.read("efficiency", t.efficiency, 0.0, 1.0, true);
          tr.finish();
          p.gemm_tiles.push_back(t);
        }
      }
    }
    r.read("gemm_k_half", p.gemm_k_half, 0.0, 1e6);
    r.read("attention_fwd_efficiency", p.attention_fwd_efficiency, 0.0, 1.0, true);
    r.read("attention_bwd_efficiency", p.attention_bwd_efficiency, 0.0, 1.0, true);
    r.read("memory_efficiency", p.memory_efficiency, 0.0, 1.0, true);
    r.read("kernel_overhead_us", p.kernel_overhead_us, 0.0, 1e6);
    r.read("host_issue_us", p.host_issue_us, 0.0, 1e6);
    r.read("host_issue_backward_us", p.host_issue_backward_us, 0.0, 1e6);
    r.read("host_layer_us", p.host_layer_us, 0.0, 1e7);
    r.read("host_microbatch_us", p.host_microbatch_us, 0.0, 1e7);
    r.read("iteration_overhead_ms", p.iteration_overhead_ms, 0.0, 1e6);
    r.read("optimizer_bytes_per_param", p.optimizer_bytes_per_param, 0.0, 1e4);
    require(r, "compute");
    r.read("fp8_gemm_efficiency", p.fp8_gemm_efficiency, 0.0, 1.0);  // optional: GPUs without FP8 leave it out
    r.read("gpu_speed_spread", p.gpu_speed_spread, 0.0, 0.2);          // optional: 0, no stragglers
    r.finish();
  }
  {
    ObjectReader r(top.child("communication"), "/communication", e);
    if (const json* list = r.child("intra_node")) {
      if (!list->is_array() || list->empty()) {
        r.fail("type", r.at("intra_node"), "must be a non-empty array of {gpus, latency_us, busbw_GBps}");
      } else {
        p.intra_node.clear();
        for (size_t i = 0; i < list->size(); ++i) {
          IntraNodeCollective c;
          ObjectReader cr(&(*list)[i], r.at("intra_node") + "/" + std::to_string(i), e);
          cr.read("gpus", c.gpus, 2, 4096);
          cr.read("min_time_us", c.min_time_us, 0.0, 1e7);
          cr.read("latency_us", c.latency_us, 0.0, 1e7);
          cr.read("busbw_GBps", c.busbw_GBps, 0.0, 1e6, true);
          cr.finish();
          p.intra_node.push_back(c);
        }
        std::sort(p.intra_node.begin(), p.intra_node.end(),
                  [](const auto& a, const auto& b) { return a.gpus < b.gpus; });
      }
    }
    r.read("collective_sync_us", p.collective_sync_us, 0.0, 1e6);
    r.read("inter_node_latency_us", p.inter_node_latency_us, 0.0, 1e6);
    r.read("inter_node_base_latency_us", p.inter_node_base_latency_us, 0.0, 1e6);
    r.read("inter_node_efficiency", p.inter_node_efficiency, 0.0, 1.0, true);
    r.read("p2p_latency_us", p.p2p_latency_us, 0.0, 1e6);
    r.read("p2p_intra_efficiency", p.p2p_intra_efficiency, 0.0, 1.0, true);
    r.finish();
    require(r, "communication");
  }
  {
    ObjectReader r(top.child("memory"), "/memory", e);
    r.read("runtime_reserved_GiB", p.runtime_reserved_GiB, 0.0, 1e4);
    r.finish();
    require(r, "memory");
  }
  if (const json* table = top.child("operator_table")) {
    if (!table->is_array()) {
      top.fail("type", "/operator_table", "must be an array");
    } else {
      for (size_t i = 0; i < table->size(); ++i) {
        OperatorMeasurement m;
        const std::string at = "/operator_table/" + std::to_string(i);
        ObjectReader mr(&(*table)[i], at, e);
        mr.read_enum("op", m.op);
        m.time_us = -1;
        m.batch = 1;
        mr.read("m", m.m, 1, 1000000000000LL);
        mr.read("n", m.n, 1, 1000000000000LL);
        mr.read("k", m.k, 1, 1000000000000LL);
        mr.read("batch", m.batch, 1, 1000000000000LL);
        mr.read("bytes", m.bytes, 0.0, 1e15, true);
        mr.read("kernel", m.kernel);
        mr.read("time_us", m.time_us, 0.0, 1e12, true);
        mr.finish();
        if (m.time_us < 0) e.push_back(make_diagnostic("missing", at + "/time_us", "is required"));
        if (m.op == MeasuredOp::memory) {
          if (m.bytes <= 0)
            e.push_back(make_diagnostic("missing", at + "/bytes", "is required for a memory-bound kernel"));
        } else {
          for (const char* key : {"m", "n", "k"})
            if ((key[0] == 'm' ? m.m : key[0] == 'n' ? m.n : m.k) <= 0)
              e.push_back(make_diagnostic("missing", at + "/" + key, std::string("is required for ") + to_string(m.op)));
        }
        p.operator_table.push_back(m);
      }
    }
  }
  index_operator_table(p);
  if (const json* prov = top.child("provenance")) {
    p.provenance = *prov;
    p.accuracy = recorded_accuracy(*prov);
    if (prov->is_object() && prov->contains("kind")) {
      const json& k = (*prov)["kind"];
      if (!k.is_string() || (k != "calibrated" && k != "projected" && k != "measured" && k != "synthetic"))
        top.fail("enum", "/provenance/kind", "must be \"calibrated\", \"projected\", \"measured\" or \"synthetic\"");
      else
        p.kind = k.get<std::string>();
    } else if (prov->is_object() && prov->contains("calibration")) {
      p.kind = "calibrated";
    }
  }
  top.finish();
  if (!e.empty()) return e;
  return p;
}

json to_json(const Profile& p) {
  json tiles = json::array();
  for (const auto& t : p.gemm_tiles) tiles.push_back({{"m", t.m}, {"n", t.n}, {"efficiency", t.efficiency}});
  json intra = json::array();
  for (const auto& c : p.intra_node)
    intra.push_back({{"gpus", c.gpus},
                     {"min_time_us", c.min_time_us},
                     {"latency_us", c.latency_us},
                     {"busbw_GBps", c.busbw_GBps}});
  json table = json::array();
  for (const auto& m : p.operator_table) {
    json row = {{"op", to_string(m.op)}};
    if (m.op == MeasuredOp::memory) {
      row["bytes"] = m.bytes;
    } else {
      row["m"] = m.m, row["n"] = m.n, row["k"] = m.k, row["batch"] = m.batch;
    }
    if (!m.kernel.empty()) row["kernel"] = m.kernel;
    row["time_us"] = m.time_us;
    table.push_back(std::move(row));
  }
  json j = {
      {"name", p.name},
      {"display_name", p.display_name},
      {"hardware",
       {{"peak_fp16_tflops", p.peak_fp16_tflops},
        {"peak_fp32_tflops", p.peak_fp32_tflops},
        {"hbm_GiB", p.hbm_GiB},
        {"hbm_GBps", p.hbm_GBps},
        {"sm_count", p.sm_count},
        {"collective_sms", p.collective_sms},
        {"board_power_W", p.board_power_W},
        {"intra_node_GBps", p.intra_node_GBps},
        {"inter_node_Gbps", p.inter_node_Gbps},
        {"gpus_per_node", p.gpus_per_node}}},
      {"compute",
       {{"gemm_max_efficiency", p.gemm_max_efficiency},
        {"gemm_tiles", tiles},
        {"gemm_k_half", p.gemm_k_half},
        {"attention_fwd_efficiency", p.attention_fwd_efficiency},
        {"attention_bwd_efficiency", p.attention_bwd_efficiency},
        {"memory_efficiency", p.memory_efficiency},
        {"kernel_overhead_us", p.kernel_overhead_us},
        {"host_issue_us", p.host_issue_us},
        {"host_issue_backward_us", p.host_issue_backward_us},
        {"host_layer_us", p.host_layer_us},
        {"host_microbatch_us", p.host_microbatch_us},
        {"iteration_overhead_ms", p.iteration_overhead_ms},
        {"optimizer_bytes_per_param", p.optimizer_bytes_per_param}}},
      {"communication",
       {{"intra_node", intra},
        {"collective_sync_us", p.collective_sync_us},
        {"inter_node_latency_us", p.inter_node_latency_us},
        {"inter_node_base_latency_us", p.inter_node_base_latency_us},
        {"inter_node_efficiency", p.inter_node_efficiency},
        {"p2p_latency_us", p.p2p_latency_us},
        {"p2p_intra_efficiency", p.p2p_intra_efficiency}}},
      {"memory", {{"runtime_reserved_GiB", p.runtime_reserved_GiB}}},
      {"operator_table", table},
      {"provenance", p.provenance.is_null() ? json::object() : p.provenance}};
  if (p.peak_fp8_tflops > 0) j["hardware"]["peak_fp8_tflops"] = p.peak_fp8_tflops;
  if (p.pcie_GBps > 0) j["hardware"]["pcie_GBps"] = p.pcie_GBps;
  if (p.host_memory_GBps > 0) j["hardware"]["host_memory_GBps"] = p.host_memory_GBps;
  if (p.fp8_gemm_efficiency > 0) j["compute"]["fp8_gemm_efficiency"] = p.fp8_gemm_efficiency;
  if (p.gpu_speed_spread > 0) j["compute"]["gpu_speed_spread"] = p.gpu_speed_spread;
  return j;
}

const Registry<Profile>& bundled_profiles() {
  // Bundled profiles are checked by the test suite; one that fails to parse is a build bug.
  static const Registry<Profile> profiles([] {
    std::vector<Profile> v;
    for (const detail::EmbeddedFile& f : detail::embedded_profiles()) {
      json j = json::parse(f.text, nullptr, false);
      if (j.is_discarded()) continue;
      auto parsed = parse_profile(j);
      if (parsed.ok()) v.push_back(std::move(parsed).value());
    }
    return v;
  }());
  return profiles;
}

Diagnostic unknown_gpu(const std::string& name, const std::string& pointer) {
  return make_diagnostic("unknown_gpu", pointer,
                         "no profile named \"" + name + "\"; bundled profiles are " + bundled_profiles().names_text());
}

}  // namespace vtrain
