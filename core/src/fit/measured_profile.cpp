// vtrain-profile's measurements to a profile (vtrain/measured.hpp): the shape grid the profiler
// sweeps, synthetic measurements from a profile's model, and the fit of a profile's operator and
// communication parameters to measurements, with the measured shapes as its operator_table.
#include "vtrain/measured.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <set>

#include "fit/simplex.hpp"
#include "iteration/communication.hpp"
#include "iteration/kernels.hpp"
#include "vtrain/calibration.hpp"
#include "vtrain/model.hpp"

namespace vtrain {

using nlohmann::json;

namespace {

constexpr double E = 2.0;  // bytes per 16-bit element

// The memory-bound kernels the profiler times, as their names appear in its measurements.
const char* const kMemoryKernels[] = {"layer_norm", "rms_norm", "gelu", "swiglu", "softmax", "dropout", "add", "memcpy"};
const char* const kCollectives[] = {"all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv"};

// Powers of `step` from the one at or below lo to the one at or above hi.
std::vector<double> log_range(double lo, double hi, double step) {
  std::vector<double> v;
  if (!(lo > 0) || !(hi >= lo)) return v;
  double x = std::pow(step, std::floor(std::log(lo) / std::log(step) + 1e-9));
  for (; x < hi * step; x *= step) {
    v.push_back(x);
    if (x >= hi) break;
  }
  return v;
}

// Flash attention's FLOPs and HBM bytes as the simulator counts them (causal; k, v heads = heads).
double attention_work(bool backward, double seq, double d, double bh) {
  return (backward ? 0.5 * 10.0 : 0.5 * 4.0) * bh * seq * seq * d;
}
double attention_bytes(bool backward, double seq, double d, double bh) {
  return (backward ? 2.0 : 1.0) * E * seq * bh * 4.0 * d;
}
double attention_model_s(const Profile& p, bool backward, double seq, double d, double bh, double efficiency) {
  const double peak = p.peak_fp16_tflops * 1e12;
  const double hbm = p.hbm_GBps * 1e9 * p.memory_efficiency;
  return std::max(attention_work(backward, seq, d, bh) / (peak * efficiency), attention_bytes(backward, seq, d, bh) / hbm) +
         p.kernel_overhead_us * 1e-6;
}

// Deterministic noise: a 64-bit linear congruential generator (Knuth's MMIX constants).
struct Noise {
  std::uint64_t state;
  double amplitude;
  double operator()() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const double u = static_cast<double>(state >> 11) / 9007199254740992.0;  // [0, 1)
    return 1.0 + amplitude * (2.0 * u - 1.0);
  }
};

struct Point {
  double x = 0;       // bytes, or a shape's index
  double time_s = 0;
};

// Weighted least squares of t = a + b x with weights 1/t^2 (relative error).
void affine_fit(const std::vector<Point>& pts, double& a, double& b) {
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const Point& p : pts) {
    const double w = 1.0 / (p.time_s * p.time_s);
    sw += w, sx += w * p.x, sy += w * p.time_s, sxx += w * p.x * p.x, sxy += w * p.x * p.time_s;
  }
  const double det = sw * sxx - sx * sx;
  if (pts.size() < 2 || det <= 0) {
    a = 0;
    b = pts.empty() ? 0 : pts.front().time_s / pts.front().x;
    return;
  }
  b = (sw * sxy - sx * sy) / det;
  a = (sy - b * sx) / sw;
}

// Minimizes f over [lo, hi] by golden-section search (f unimodal there).
double golden(const std::function<double(double)>& f, double lo, double hi) {
  const double g = (std::sqrt(5.0) - 1) / 2;
  double a = lo, b = hi, c = b - g * (b - a), d = a + g * (b - a);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < 80; ++i) {
    if (fc < fd) b = d, d = c, fd = fc, c = b - g * (b - a), fc = f(c);
    else a = c, c = d, fc = fd, d = a + g * (b - a), fd = f(d);
  }
  return (a + b) / 2;
}

using Vec = std::vector<double>;

// Nelder-Mead from x0 with initial step `step`, at most `max_evals` evaluations.
Vec simplex_minimize(const std::function<double(const Vec&)>& f, Vec x0, double step, int max_evals) {
  int evals = 0;
  double best = 0;
  return fit::nelder_mead(f, std::move(x0), step, max_evals, evals, best, {1e-12, 1e-9});
}

double logistic(double z) { return 1.0 / (1.0 + std::exp(-z)); }
double logit(double p) {
  p = std::clamp(p, 1e-6, 1 - 1e-6);
  return std::log(p / (1 - p));
}

// Mean and largest relative error (percent) of predictions against measurements.
MeasuredFitPart errors_of(const std::string& what, const std::vector<std::pair<double, double>>& predicted_measured) {
  MeasuredFitPart part;
  part.what = what;
  part.points = static_cast<int>(predicted_measured.size());
  for (const auto& [p, m] : predicted_measured) {
    const double e = std::abs(p / m - 1) * 100;
    part.mean_error_percent += e / part.points;
    part.max_error_percent = std::max(part.max_error_percent, e);
  }
  return part;
}

// The model's profile: the base's parameters, no table (the fit compares the model with the measurements).
Profile model_only(const Profile& p) {
  Profile m = p;
  m.operator_table.clear();
  m.operator_lookup.reset();
  return m;
}

detail::Fabric node_fabric(const Profile& p) {
  ClusterConfig c;
  c.gpus_per_node = p.gpus_per_node;
  return detail::make_fabric(p, c);
}

}  // namespace

std::vector<ShapeCase> default_shape_cases() {
  std::vector<ShapeCase> out;
  for (const bool llama : {false, true}) {
    for (const int hidden : {2048, 4096, 8192}) {
      for (const int seq : {2048, 4096}) {
        for (const int tp : {1, 2, 4, 8}) {
          for (const int mb : {1, 2, 4}) {
            ShapeCase c;
            c.model.name = llama ? "llama-style" : "gpt-style";
            c.model.layers = 1;
            c.model.hidden = hidden;
            c.model.heads = c.model.kv_heads = hidden / 128;
            c.model.seq_len = seq;
            c.model.bias = !llama;
            c.model.mlp = llama ? Mlp::swiglu : Mlp::gelu;
            c.model.norm = llama ? Norm::rmsnorm : Norm::layernorm;
            c.model.position = llama ? PositionEmbedding::rope : PositionEmbedding::learned;
            c.model.vocab = llama ? 32000 : 51200;
            // LLaMA's MLP width: 8/3 of the hidden size rounded up to a multiple of 256.
            c.model.ffn_hidden = llama ? (8 * hidden / 3 + 255) / 256 * 256 : 4 * hidden;
            c.plan.tp = tp;
            c.plan.micro_batch = mb;
            c.plan.global_batch = mb;
            c.plan.recompute = Recompute::none;
            c.plan.attention = Attention::flash;
            out.push_back(c);
          }
        }
      }
    }
  }
  return out;
}

json profile_shapes(const std::vector<ShapeCase>& cases) {
  std::set<std::array<long long, 4>> gemms;
  std::set<std::array<long long, 3>> attention;
  double mem_lo = 0, mem_hi = 0, comm_lo = 0, comm_hi = 0, params_hi = 0;
  for (const ShapeCase& c : cases) {
    const detail::LayerKernels lk = detail::build_kernels(c.model, c.plan);
    for (const auto* list : {&lk.layer_fwd, &lk.layer_bwd, &lk.layer_recompute, &lk.embed_fwd, &lk.embed_bwd,
                             &lk.head_fwd, &lk.head_bwd}) {
      for (const detail::Kernel& k : *list) {
        if (k.kind == detail::KernelKind::gemm) {
          gemms.insert({std::llround(k.m), std::llround(k.n), std::llround(k.k), std::llround(k.batch)});
        } else if (k.kind == detail::KernelKind::attention_fwd) {
          attention.insert({std::llround(k.m), std::llround(k.k), std::llround(k.batch)});
        } else if (k.kind == detail::KernelKind::memory && k.bytes > 0) {
          mem_lo = mem_lo == 0 ? k.bytes : std::min(mem_lo, k.bytes);
          mem_hi = std::max(mem_hi, k.bytes);
        } else if (k.kind == detail::KernelKind::collective && k.comm_bytes > 0) {
          comm_lo = comm_lo == 0 ? k.comm_bytes : std::min(comm_lo, k.comm_bytes);
          comm_hi = std::max(comm_hi, k.comm_bytes);
        }
      }
    }
    // A layer's parameters on one rank: the optimizer step and gradient reduction work on multiples of it.
    const double h = c.model.hidden, f = c.model.ffn_hidden;
    params_hi = std::max(params_hi, (4 * h * h + (gated(c.model.mlp) ? 3 : 2) * h * f) / c.plan.tp);
  }
  json g = json::array(), a = json::array();
  for (const auto& s : gemms) g.push_back({{"m", s[0]}, {"n", s[1]}, {"k", s[2]}, {"batch", s[3]}});
  for (const auto& s : attention) a.push_back({{"seq", s[0]}, {"head_dim", s[1]}, {"batch_heads", s[2]}});
  // Message sizes from 4 KiB (latency-bound) up to 1 GiB, past the largest gradient bucket's share.
  const json collective_bytes = log_range(std::min(comm_lo > 0 ? comm_lo : 4096.0, 4096.0), std::max(comm_hi, 1073741824.0), 4.0);
  return {{"format", "vtrain-profile-shapes"},
          {"version", 1},
          {"cases", cases.size()},
          {"gemm", g},
          {"attention", a},
          {"memory", {{"kernels", kMemoryKernels}, {"bytes", log_range(std::max(mem_lo, 65536.0), mem_hi, 4.0)}}},
          {"optimizer", {{"params", log_range(1048576.0, std::max(params_hi, 1048576.0), 4.0)}}},
          {"collectives", {{"ops", kCollectives}, {"bytes", collective_bytes}}}};
}

json synthesize_measurements(const Profile& from, const json& shapes, double noise, unsigned seed,
                             const std::vector<int>& gpus) {
  const Profile p = model_only(from);
  Noise rnd{0x9E3779B97F4A7C15ull ^ seed, noise};
  const auto us = [&](double s) { return s * 1e6 * rnd(); };
  json gemm = json::array(), attention = json::array(), memory = json::array(), optimizer = json::array(),
       collectives = json::array();
  if (shapes.contains("gemm"))
    for (const json& s : shapes["gemm"]) {
      const double m = s["m"], n = s["n"], k = s["k"], b = s.value("batch", 1.0);
      gemm.push_back({{"dtype", "bf16"}, {"m", s["m"]}, {"n", s["n"]}, {"k", s["k"]}, {"batch", s.value("batch", 1)},
                      {"time_us", us(detail::gemm_s(p, m, n, k, b))}});
    }
  if (shapes.contains("attention"))
    for (const json& s : shapes["attention"])
      for (const bool bwd : {false, true}) {
        const double seq = s["seq"], d = s["head_dim"], bh = s["batch_heads"];
        attention.push_back({{"direction", bwd ? "bwd" : "fwd"}, {"seq", s["seq"]}, {"head_dim", s["head_dim"]},
                             {"batch_heads", s["batch_heads"]}, {"causal", true},
                             {"time_us", us(attention_model_s(p, bwd, seq, d, bh,
                                                              bwd ? p.attention_bwd_efficiency : p.attention_fwd_efficiency))}});
      }
  const double hbm = p.hbm_GBps * 1e9 * p.memory_efficiency, overhead = p.kernel_overhead_us * 1e-6;
  if (shapes.contains("memory"))
    for (const char* kernel : kMemoryKernels)
      for (const json& b : shapes["memory"]["bytes"])
        memory.push_back({{"kernel", kernel}, {"bytes", b}, {"time_us", us(b.get<double>() / hbm + overhead)}});
  if (shapes.contains("optimizer"))
    for (const json& n : shapes["optimizer"]["params"])
      optimizer.push_back({{"kernel", "adam"}, {"params", n},
                           {"time_us", us(n.get<double>() * p.optimizer_bytes_per_param / hbm + 8 * overhead)}});
  const detail::Fabric fabric = node_fabric(p);
  if (shapes.contains("collectives"))
    for (const int g : gpus)
      for (const json& b : shapes["collectives"]["bytes"]) {
        const double bytes = b;
        const detail::GroupShape group{g, g, 1};
        const std::pair<const char*, double> ops[] = {
            {"all_reduce", detail::collective_s(p, fabric, group, detail::CollectiveKind::all_reduce, bytes)},
            {"all_gather", detail::collective_s(p, fabric, group, detail::CollectiveKind::all_gather, bytes)},
            {"reduce_scatter", detail::collective_s(p, fabric, group, detail::CollectiveKind::reduce_scatter, bytes)}};
        for (const auto& [op, s] : ops) collectives.push_back({{"op", op}, {"gpus", g}, {"bytes", b}, {"time_us", us(s)}});
        if (g == 2)
          collectives.push_back({{"op", "send_recv"}, {"gpus", 2}, {"bytes", b},
                                 {"time_us", us(detail::p2p_s(p, fabric, true, bytes))}});
      }
  return {{"format", "vtrain-measurements"},
          {"version", 1},
          {"profiler_version", "synthetic"},
          {"synthetic", true},
          {"synthesized_from",
           {{"profile", from.name},
            {"noise", noise},
            {"seed", seed},
            {"rule", "each time the profile's model times 1 + u, u uniform in [-noise, noise] (64-bit LCG)"}}},
          {"machine", {{"gpu_name", from.display_name + " (synthetic)"}, {"gpu_count", gpus.empty() ? 1 : gpus.back()},
                       {"sm_count", from.sm_count}}},
          {"gemm", gemm},
          {"attention", attention},
          {"memory", memory},
          {"optimizer", optimizer},
          {"collectives", collectives}};
}

namespace {

// Reads `key` of measurement `i` of list `list` as a positive number; false with an error otherwise.
bool positive(const json& row, const std::string& at, const char* key, double& out, Diagnostics& e) {
  if (!row.contains(key) || !row[key].is_number()) {
    e.push_back(make_diagnostic("missing", at + "/" + key, "must be a number"));
    return false;
  }
  out = row[key].get<double>();
  if (!(out > 0) || !std::isfinite(out)) {
    e.push_back(make_diagnostic("range", at + "/" + key, "must be greater than 0"));
    return false;
  }
  return true;
}

const json& list_of(const json& m, const char* key, Diagnostics& e) {
  static const json empty = json::array();
  if (!m.contains(key)) return empty;
  if (!m[key].is_array()) {
    e.push_back(make_diagnostic("type", std::string("/") + key, "must be an array"));
    return empty;
  }
  return m[key];
}

struct GemmPoint {
  double m, n, k, batch, time_s;
};

}  // namespace

Outcome<MeasuredProfileReport> profile_from_measurements(const json& meas, const Profile& base, const std::string& name) {
  Diagnostics e;
  if (!meas.is_object()) return Outcome<MeasuredProfileReport>::fail("type", "", "must be a JSON object of measurements");
  if (meas.value("format", std::string()) != "vtrain-measurements")
    return Outcome<MeasuredProfileReport>::fail("format", "/format",
                                                "must be \"vtrain-measurements\" (the file vtrain-profile writes)");
  MeasuredProfileReport r;
  r.synthetic = meas.value("synthetic", false);

  // Read every list first, so that all bad rows are reported at once.
  std::vector<GemmPoint> gemm16;
  std::string gemm_dtype;
  int fp8 = 0;
  std::map<std::string, std::vector<GemmPoint>> by_dtype;
  const json& gemm = list_of(meas, "gemm", e);
  for (size_t i = 0; i < gemm.size(); ++i) {
    const std::string at = "/gemm/" + std::to_string(i);
    GemmPoint g{0, 0, 0, 1, 0};
    bool ok = positive(gemm[i], at, "m", g.m, e) & positive(gemm[i], at, "n", g.n, e) &
              positive(gemm[i], at, "k", g.k, e) & positive(gemm[i], at, "time_us", g.time_s, e);
    if (gemm[i].contains("batch")) ok = positive(gemm[i], at, "batch", g.batch, e) && ok;
    g.time_s *= 1e-6;
    const std::string dtype = gemm[i].value("dtype", std::string("bf16"));
    if (ok) by_dtype[dtype].push_back(g);
  }
  for (const char* d : {"bf16", "fp16"})
    if (gemm16.empty() && by_dtype.count(d)) gemm16 = by_dtype[d], gemm_dtype = d;
  for (const auto& [d, v] : by_dtype)
    if (d != gemm_dtype) fp8 += static_cast<int>(v.size());

  struct AttentionPoint {
    bool bwd;
    double seq, d, bh, time_s;
  };
  std::vector<AttentionPoint> attention;
  const json& att = list_of(meas, "attention", e);
  for (size_t i = 0; i < att.size(); ++i) {
    const std::string at = "/attention/" + std::to_string(i);
    AttentionPoint a{false, 0, 0, 0, 0};
    const std::string dir = att[i].value("direction", std::string());
    if (dir != "fwd" && dir != "bwd") {
      e.push_back(make_diagnostic("enum", at + "/direction", "must be \"fwd\" or \"bwd\""));
      continue;
    }
    a.bwd = dir == "bwd";
    if (positive(att[i], at, "seq", a.seq, e) & positive(att[i], at, "head_dim", a.d, e) &
        positive(att[i], at, "batch_heads", a.bh, e) & positive(att[i], at, "time_us", a.time_s, e)) {
      a.time_s *= 1e-6;
      attention.push_back(a);
    }
  }
  std::vector<Point> memory;
  std::vector<std::string> memory_kernel;
  int multi_kernel = 0;
  const json& mem = list_of(meas, "memory", e);
  for (size_t i = 0; i < mem.size(); ++i) {
    const std::string at = "/memory/" + std::to_string(i);
    Point p;
    if (positive(mem[i], at, "bytes", p.x, e) & positive(mem[i], at, "time_us", p.time_s, e)) {
      p.time_s *= 1e-6;
      if (mem[i].contains("kernels") && mem[i]["kernels"].is_number() && mem[i]["kernels"].get<double>() > 1) {
        ++multi_kernel;  // e.g. eager SwiGLU: two kernels, not one moving those bytes
        continue;
      }
      memory.push_back(p);
      memory_kernel.push_back(mem[i].value("kernel", std::string()));
    }
  }
  std::vector<Point> adam;
  const json& opt = list_of(meas, "optimizer", e);
  for (size_t i = 0; i < opt.size(); ++i) {
    const std::string at = "/optimizer/" + std::to_string(i);
    Point p;
    if (positive(opt[i], at, "params", p.x, e) & positive(opt[i], at, "time_us", p.time_s, e)) {
      p.time_s *= 1e-6;
      adam.push_back(p);
    }
  }
  std::map<std::pair<std::string, int>, std::vector<CollectivePoint>> collectives;
  const json& coll = list_of(meas, "collectives", e);
  for (size_t i = 0; i < coll.size(); ++i) {
    const std::string at = "/collectives/" + std::to_string(i);
    const std::string op = coll[i].value("op", std::string());
    if (std::find_if(std::begin(kCollectives), std::end(kCollectives), [&](const char* c) { return op == c; }) ==
        std::end(kCollectives)) {
      e.push_back(make_diagnostic("enum", at + "/op",
                                  "must be one of all_reduce, all_gather, reduce_scatter, all_to_all, send_recv"));
      continue;
    }
    double gpus = 0;
    CollectivePoint c;
    if (positive(coll[i], at, "gpus", gpus, e) & positive(coll[i], at, "bytes", c.bytes, e) &
        positive(coll[i], at, "time_us", c.time_us, e))
      collectives[{op, static_cast<int>(gpus)}].push_back(c);
  }
  if (!e.empty()) return e;
  if (memory.size() < 2)
    return Outcome<MeasuredProfileReport>::fail(
        "missing", "/memory", "needs at least two memory-bound kernel times (they give the kernel overhead and the "
                              "memory efficiency every other fit uses)");

  Profile p = model_only(base);
  // 1. Memory-bound kernels: time = overhead + bytes / (HBM bandwidth x efficiency).
  {
    double a = 0, b = 0;
    affine_fit(memory, a, b);
    p.kernel_overhead_us = std::clamp(a * 1e6, 0.0, 1e3);
    p.memory_efficiency = std::clamp(1.0 / (b * p.hbm_GBps * 1e9), 0.01, 1.0);
    const double hbm = p.hbm_GBps * 1e9 * p.memory_efficiency;
    std::vector<std::pair<double, double>> pm;
    for (const Point& m : memory) pm.push_back({m.x / hbm + p.kernel_overhead_us * 1e-6, m.time_s});
    r.parts.push_back(errors_of("memory", pm));
  }
  // 2. 16-bit GEMMs: the tile/wave model's efficiencies, relative error evenly over the shapes.
  if (!gemm16.empty()) {
    // The most efficient tile stays the reference (efficiency 1); the others are fitted relative to it.
    size_t ref = 0;
    for (size_t i = 0; i < p.gemm_tiles.size(); ++i)
      if (p.gemm_tiles[i].efficiency > p.gemm_tiles[ref].efficiency) ref = i;
    const auto apply = [&](const Vec& x, Profile& q) {
      q.gemm_max_efficiency = 0.05 + 0.95 * logistic(x[0]);
      q.gemm_k_half = std::exp(x[1]);
      size_t j = 2;
      for (size_t i = 0; i < q.gemm_tiles.size(); ++i)
        q.gemm_tiles[i].efficiency = i == ref ? 1.0 : 0.05 + 0.95 * logistic(x[j++]);
    };
    Profile q = p;
    const auto objective = [&](const Vec& x) {
      apply(x, q);
      double s = 0;
      for (const GemmPoint& g : gemm16) {
        const double d = std::log(detail::gemm_s(q, g.m, g.n, g.k, g.batch) / g.time_s);
        s += d * d;
      }
      return s / gemm16.size();
    };
    Vec x = {logit((p.gemm_max_efficiency - 0.05) / 0.95), std::log(std::max(1.0, p.gemm_k_half))};
    for (size_t i = 0; i < p.gemm_tiles.size(); ++i)
      if (i != ref) x.push_back(logit((std::min(p.gemm_tiles[i].efficiency, 0.999) - 0.05) / 0.95));
    for (int round = 0; round < 4; ++round) x = simplex_minimize(objective, x, round == 0 ? 0.5 : 0.2, 1500);
    apply(x, p);
    std::vector<std::pair<double, double>> pm;
    for (const GemmPoint& g : gemm16) pm.push_back({detail::gemm_s(p, g.m, g.n, g.k, g.batch), g.time_s});
    r.parts.push_back(errors_of("gemm_" + gemm_dtype, pm));
  } else {
    r.notes.push_back("no 16-bit GEMM measurements: the GEMM parameters are the base profile's");
  }
  if (multi_kernel > 0)
    r.notes.push_back(std::to_string(multi_kernel) +
                      " memory-bound times of several kernels each (e.g. eager SwiGLU) are kept in the measurements "
                      "but not fitted: the model times one kernel per row");
  if (fp8 > 0)
    r.notes.push_back(std::to_string(fp8) +
                      " GEMM times in other formats (FP8) are kept in the measurements but not used: the simulator "
                      "trains in 16 bits");
  // 3. Flash attention, forward and backward: one efficiency each.
  for (const bool bwd : {false, true}) {
    std::vector<AttentionPoint> pts;
    for (const auto& a : attention)
      if (a.bwd == bwd) pts.push_back(a);
    if (pts.empty()) continue;
    const auto err = [&](double eff) {
      double s = 0;
      for (const auto& a : pts) {
        const double d = std::log(attention_model_s(p, bwd, a.seq, a.d, a.bh, eff) / a.time_s);
        s += d * d;
      }
      return s;
    };
    const double eff = golden(err, 0.02, 1.0);
    (bwd ? p.attention_bwd_efficiency : p.attention_fwd_efficiency) = eff;
    std::vector<std::pair<double, double>> pm;
    for (const auto& a : pts) pm.push_back({attention_model_s(p, bwd, a.seq, a.d, a.bh, eff), a.time_s});
    r.parts.push_back(errors_of(bwd ? "attention_bwd" : "attention_fwd", pm));
  }
  // 4. The fused Adam step: HBM bytes per parameter at the fitted memory rate.
  const double hbm = p.hbm_GBps * 1e9 * p.memory_efficiency;
  if (!adam.empty()) {
    std::vector<double> per_param;
    for (const Point& a : adam)
      per_param.push_back(std::max(0.0, a.time_s - 8 * p.kernel_overhead_us * 1e-6) * hbm / a.x);
    std::sort(per_param.begin(), per_param.end());
    p.optimizer_bytes_per_param = std::clamp(per_param[per_param.size() / 2], 1.0, 1e3);  // the median
    std::vector<std::pair<double, double>> pm;
    for (const Point& a : adam)
      pm.push_back({a.x * p.optimizer_bytes_per_param / hbm + 8 * p.kernel_overhead_us * 1e-6, a.time_s});
    r.parts.push_back(errors_of("optimizer", pm));
  }
  // 5. Collectives inside the node: the all-reduce curve per group size; all-gather and
  // reduce-scatter, which the simulator derives from it, checked against it; send/recv.
  std::vector<IntraNodeCollective> intra;
  for (auto& [key, pts] : collectives) {
    if (key.first != "all_reduce" || key.second < 2 || pts.size() < 3) continue;
    std::sort(pts.begin(), pts.end(), [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
    const CollectiveFit f = fit_allreduce(key.second, pts);
    intra.push_back(f.fit);
    MeasuredFitPart part{"all_reduce/" + std::to_string(key.second), static_cast<int>(pts.size()),
                         f.mean_error_percent, f.max_error_percent};
    r.parts.push_back(part);
  }
  if (!intra.empty()) {
    // Measured group sizes only: the simulator interpolates between them (and takes the nearest
    // beyond them) rather than mixing in the base GPU's curves.
    std::sort(intra.begin(), intra.end(), [](const auto& a, const auto& b) { return a.gpus < b.gpus; });
    std::string sizes;
    for (const auto& c : intra) sizes += (sizes.empty() ? "" : ", ") + std::to_string(c.gpus);
    r.notes.push_back("intra-node collectives measured among " + sizes +
                      " GPUs; other group sizes are interpolated between them, the nearest beyond");
    p.intra_node = intra;
  }
  const detail::Fabric fabric = node_fabric(p);
  for (const char* op : {"all_gather", "reduce_scatter"})
    for (const auto& [key, pts] : collectives) {
      if (key.first != op || intra.empty()) continue;
      const detail::GroupShape group{key.second, key.second, 1};
      std::vector<std::pair<double, double>> pm;
      for (const auto& c : pts)
        pm.push_back({detail::collective_s(p, fabric, group,
                                           key.first == "all_gather" ? detail::CollectiveKind::all_gather
                                                                     : detail::CollectiveKind::reduce_scatter,
                                           c.bytes),
                      c.time_us * 1e-6});
      r.parts.push_back(errors_of(key.first + "/" + std::to_string(key.second) + " (from the all-reduce fit)", pm));
    }
  for (const auto& [key, pts] : collectives) {
    if (key.first != "send_recv" || pts.size() < 2) continue;
    std::vector<Point> xs;
    for (const auto& c : pts) xs.push_back({c.bytes, c.time_us * 1e-6});
    double a = 0, b = 0;
    affine_fit(xs, a, b);
    p.p2p_latency_us = std::clamp(a * 1e6, 0.0, 1e4);
    p.p2p_intra_efficiency = std::clamp(1.0 / (b * p.intra_node_GBps * 1e9), 0.01, 1.0);
    std::vector<std::pair<double, double>> pm;
    for (const Point& x : xs) pm.push_back({detail::p2p_s(p, fabric, true, x.x), x.time_s});
    r.parts.push_back(errors_of("send_recv", pm));
    break;
  }
  for (const auto& [key, pts] : collectives)
    if (key.first == "all_to_all") {
      r.notes.push_back("all-to-all times are kept in the measurements but not used: no modelled plan uses all-to-all");
      break;
    }

  // The measured shapes, as the simulator looks them up.
  for (const GemmPoint& g : gemm16) {
    OperatorMeasurement m;
    m.op = MeasuredOp::gemm;
    m.m = std::llround(g.m), m.n = std::llround(g.n), m.k = std::llround(g.k), m.batch = std::llround(g.batch);
    m.time_us = g.time_s * 1e6;
    p.operator_table.push_back(m);
  }
  for (const auto& a : attention) {
    OperatorMeasurement m;
    m.op = a.bwd ? MeasuredOp::attention_bwd : MeasuredOp::attention_fwd;
    m.m = m.n = std::llround(a.seq), m.k = std::llround(a.d), m.batch = std::llround(a.bh);
    m.time_us = a.time_s * 1e6;
    p.operator_table.push_back(m);
  }
  for (size_t i = 0; i < memory.size(); ++i) {
    OperatorMeasurement m;
    m.op = MeasuredOp::memory;
    m.bytes = memory[i].x;
    m.kernel = memory_kernel[i];
    m.time_us = memory[i].time_s * 1e6;
    p.operator_table.push_back(m);
  }
  index_operator_table(p);

  const json machine = meas.value("machine", json::object());
  p.name = name.empty() ? base.name + (r.synthetic ? "-synthetic" : "-measured") : name;
  const std::string gpu = machine.value("gpu_name", std::string());
  p.display_name = (gpu.empty() ? base.display_name : gpu) + (r.synthetic ? "" : " (measured)");
  if (machine.contains("sm_count") && machine["sm_count"].is_number_integer() && machine["sm_count"].get<int>() > 0)
    p.sm_count = machine["sm_count"].get<int>();
  json fit = json::array();
  for (const auto& part : r.parts)
    fit.push_back({{"what", part.what}, {"points", part.points}, {"mean_error_percent", part.mean_error_percent},
                   {"max_error_percent", part.max_error_percent}});
  p.provenance = {{"kind", r.synthetic ? "synthetic" : "measured"},
                  {"source", r.synthetic ? "vtrain profile-shapes --synthesize: the base profile's model with noise, "
                                           "not a measurement"
                                         : "vtrain-profile measurements of this GPU (tools/vtrain-profile)"},
                  {"base_profile", base.name},
                  {"profiler_version", meas.value("profiler_version", std::string())},
                  {"machine", machine},
                  {"settings", meas.value("settings", json::object())},
                  {"fit", fit},
                  {"notes", r.notes}};
  if (r.synthetic) p.provenance["synthesized_from"] = meas.value("synthesized_from", json::object());
  r.profile = std::move(p);
  return r;
}

}  // namespace vtrain
