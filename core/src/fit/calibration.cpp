#include "vtrain/calibration.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "common/parallel.hpp"
#include "fit/simplex.hpp"
#include "vtrain/simulate.hpp"

namespace vtrain {

namespace {

using Vec = std::vector<double>;

// The simplex stops where the mean error moves by less than 1e-7 of itself.
Vec nelder_mead(const std::function<double(const Vec&)>& f, Vec x0, double step, int max_evals, int& evals,
                double& best_value) {
  return fit::nelder_mead(f, std::move(x0), step, max_evals, evals, best_value, {1e-19, 1e-7});
}

// Bounded parameter <-> unconstrained coordinate.
double to_unit(double v, const FitParameter& p) {
  const double u = std::clamp((v - p.lower) / (p.upper - p.lower), 1e-6, 1 - 1e-6);
  return std::log(u / (1 - u));
}
double from_unit(double z, const FitParameter& p) {
  return p.lower + (p.upper - p.lower) / (1 + std::exp(-z));
}

double* field(Profile& p, const std::string& name) {
  static const std::map<std::string, double Profile::*> fields = {
      {"/compute/gemm_max_efficiency", &Profile::gemm_max_efficiency},
      {"/compute/fp8_gemm_efficiency", &Profile::fp8_gemm_efficiency},
      {"/compute/gemm_k_half", &Profile::gemm_k_half},
      {"/compute/attention_fwd_efficiency", &Profile::attention_fwd_efficiency},
      {"/compute/attention_bwd_efficiency", &Profile::attention_bwd_efficiency},
      {"/compute/memory_efficiency", &Profile::memory_efficiency},
      {"/compute/kernel_overhead_us", &Profile::kernel_overhead_us},
      {"/compute/host_issue_us", &Profile::host_issue_us},
      {"/compute/host_issue_backward_us", &Profile::host_issue_backward_us},
      {"/compute/host_layer_us", &Profile::host_layer_us},
      {"/compute/host_microbatch_us", &Profile::host_microbatch_us},
      {"/compute/iteration_overhead_ms", &Profile::iteration_overhead_ms},
      {"/compute/optimizer_bytes_per_param", &Profile::optimizer_bytes_per_param},
      {"/communication/collective_sync_us", &Profile::collective_sync_us},
      {"/communication/inter_node_latency_us", &Profile::inter_node_latency_us},
      {"/communication/inter_node_base_latency_us", &Profile::inter_node_base_latency_us},
      {"/communication/inter_node_efficiency", &Profile::inter_node_efficiency},
      {"/communication/p2p_latency_us", &Profile::p2p_latency_us},
      {"/communication/p2p_intra_efficiency", &Profile::p2p_intra_efficiency},
  };
  auto it = fields.find(name);
  if (it != fields.end()) return &(p.*(it->second));
  // "/compute/gemm_tiles/<i>/efficiency"
  const std::string prefix = "/compute/gemm_tiles/", suffix = "/efficiency";
  if (name.rfind(prefix, 0) == 0 && name.size() > prefix.size() + suffix.size() &&
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
    const size_t i = std::strtoul(name.c_str() + prefix.size(), nullptr, 10);
    if (i < p.gemm_tiles.size()) return &p.gemm_tiles[i].efficiency;
  }
  return nullptr;
}

}  // namespace

Outcome<std::vector<CollectivePoint>> parse_allreduce_csv(std::string_view text) {
  std::vector<CollectivePoint> points;
  size_t pos = 0;
  int line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    if (line_no == 1 || line.find_first_not_of(" \r\t") == std::string::npos) continue;
    std::vector<double> cells;
    size_t start = 0;
    while (start <= line.size()) {
      size_t comma = line.find(',', start);
      if (comma == std::string::npos) comma = line.size();
      cells.push_back(std::strtod(line.substr(start, comma - start).c_str(), nullptr));
      start = comma + 1;
    }
    // Sizes and times are positive and finite ("1e999" reads as infinity).
    const auto positive = [](double v) { return v > 0 && std::isfinite(v); };
    if (cells.size() < 6 || !positive(cells[0]) || !positive(cells[3]) || !positive(cells[5]))
      return Outcome<std::vector<CollectivePoint>>::fail(
          "value", "/line/" + std::to_string(line_no),
          "/line/" + std::to_string(line_no) + ": expected size(B),count,type,time(ns),busbw,time(ns),busbw");
    points.push_back({cells[0], (cells[3] + cells[5]) / 2e3});
  }
  if (points.empty()) return Outcome<std::vector<CollectivePoint>>::fail("empty", "", "/: no measurements");
  return points;
}

CollectiveFit fit_allreduce(int gpus, const std::vector<CollectivePoint>& points) {
  const double k = 2.0 * (gpus - 1) / gpus;
  auto model = [&](const Vec& x, double bytes) {
    return std::max(x[0], x[1] + k * bytes / (x[2] * 1e3));  // microseconds; busbw in GB/s
  };
  // Weight 1/size makes each octave of sizes count the same on linearly spaced samples.
  double wsum = 0;
  for (const auto& pt : points) wsum += 1.0 / pt.bytes;
  auto objective = [&](const Vec& x) {
    if (x[0] < 0 || x[1] < 0 || x[2] <= 1) return 1e9;
    double e = 0;
    for (const auto& pt : points) e += std::abs(std::log(model(x, pt.bytes) / pt.time_us)) / pt.bytes;
    return e / wsum;
  };
  Vec x = {points.front().time_us, points.front().time_us * 0.5, 200.0};
  int evals = 0;
  double best = 0;
  for (int r = 0; r < 6; ++r) x = nelder_mead(objective, x, 0.2 * std::max(1.0, std::abs(x[0])), evals + 4000, evals, best);
  CollectiveFit f;
  f.fit.gpus = gpus;
  f.fit.min_time_us = x[0];
  f.fit.latency_us = x[1];
  f.fit.busbw_GBps = x[2];
  double mean = 0;
  for (const auto& pt : points) {
    const double e = std::abs(model(x, pt.bytes) / pt.time_us - 1) * 100;
    mean += e / pt.bytes;
    f.max_error_percent = std::max(f.max_error_percent, e);
  }
  f.mean_error_percent = mean / wsum;
  return f;
}

const std::vector<FitParameter>& default_fit_parameters() {
  static const std::vector<FitParameter> params = {
      {"/compute/gemm_max_efficiency", 0.5, 0.95},
      {"/compute/memory_efficiency", 0.75, 0.95},
      {"/compute/kernel_overhead_us", 0.0, 8.0},
      {"/compute/host_issue_us", 1.0, 200.0},
      {"/compute/host_issue_backward_us", 1.0, 200.0},
      {"/compute/host_layer_us", 0.0, 5000.0},
      {"/compute/host_microbatch_us", 0.0, 20000.0},
      {"/compute/iteration_overhead_ms", 0.0, 100.0},
      {"/communication/collective_sync_us", 0.0, 200.0},
      {"/communication/inter_node_base_latency_us", 0.0, 300.0},
      {"/communication/inter_node_efficiency", 0.3, 1.0},
      {"/communication/p2p_latency_us", 0.0, 3000.0},
      {"/communication/p2p_intra_efficiency", 0.3, 1.0},
  };
  return params;
}

// "/compute/attention_efficiency": fused attention's forward efficiency, the backward's moved with
// it in the ratio the profile has (iteration times constrain the two only together).
constexpr const char* kAttentionTogether = "/compute/attention_efficiency";

double get_parameter(const Profile& p, const std::string& name) {
  if (name == kAttentionTogether) return p.attention_fwd_efficiency;
  double* f = field(const_cast<Profile&>(p), name);
  return f ? *f : 0.0;
}

void set_parameter(Profile& p, const std::string& name, double value) {
  if (name == kAttentionTogether) {
    if (p.attention_fwd_efficiency > 0) p.attention_bwd_efficiency *= value / p.attention_fwd_efficiency;
    p.attention_fwd_efficiency = value;
    return;
  }
  if (double* f = field(p, name)) *f = value;
}

double evaluate_profile(const Profile& profile, const std::vector<MeasurementSet>& sets,
                        const ValidationSetup& setup, int threads, std::vector<SetError>* errors) {
  double total = 0;
  if (errors) errors->clear();
  for (const auto& set : sets) {
    std::vector<double> err(set.runs.size(), 0.0);
    auto body = [&](int i, int) {
      auto r = simulate(config_for_run(set.runs[i], setup), &profile);
      err[i] = r.ok() ? (r.value().iteration_time_s * 1e3 - set.runs[i].measured_ms) / set.runs[i].measured_ms * 100
                      : 1e6;
    };
    const int n = static_cast<int>(set.runs.size());
    detail::parallel_for(n, threads, body);
    double sum = 0, mx = 0;
    for (double e : err) {
      sum += std::abs(e);
      mx = std::max(mx, std::abs(e));
    }
    const double mape = n ? sum / n : 0;
    total += mape;
    if (errors) errors->push_back({set.name, n, mape, mx});
  }
  return sets.empty() ? 0 : total / sets.size();
}

namespace {

// A repeatable point of the unconstrained space for start `index` (1, 2, ...): each coordinate a
// bounded parameter at a fraction in [0.05, 0.95] of its range, from a fixed integer hash, so that
// every platform and every run draws the same starts.
Vec start_point(int index, size_t n) {
  uint64_t state = 0x9E3779B97F4A7C15ull * static_cast<uint64_t>(index);
  Vec z(n);
  for (size_t i = 0; i < n; ++i) {
    state += 0x9E3779B97F4A7C15ull;  // splitmix64
    uint64_t x = state;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    const double u = 0.05 + 0.9 * static_cast<double>(x >> 11) * 0x1.0p-53;
    z[i] = std::log(u / (1 - u));
  }
  return z;
}

}  // namespace

FitResult fit_profile(const Profile& start, const std::vector<FitParameter>& params,
                      const std::vector<MeasurementSet>& sets, const ValidationSetup& setup,
                      const FitOptions& options) {
  FitResult result;
  result.profile = start;
  Profile work = start;
  int evals = 0;
  auto objective = [&](const Vec& x) {
    for (size_t i = 0; i < params.size(); ++i) set_parameter(work, params[i].name, from_unit(x[i], params[i]));
    const double v = evaluate_profile(work, sets, setup, options.threads);
    if (options.progress) options.progress(evals, v);
    return v;
  };
  // One descent: a coarse coordinate search first (the objective is piecewise smooth, max-plus
  // timelines, and the simplex alone can settle in a poor basin from a poor start), then
  // Nelder-Mead restarted from its best point.
  auto descend = [&](Vec z, double& best) {
    const int budget_end = evals + options.max_evaluations;
    best = objective(z);
    ++evals;
    for (int round = 0; round < 2; ++round) {
      for (size_t i = 0; i < params.size(); ++i) {
        double chosen = z[i];
        for (double u = -4.0; u <= 4.0; u += 1.0) {
          z[i] = u;
          const double v = objective(z);
          ++evals;
          if (v < best) {
            best = v;
            chosen = u;
          }
        }
        z[i] = chosen;
      }
    }
    const int per_round = std::max(1, options.max_evaluations / std::max(1, options.restarts));
    for (int r = 0; r < options.restarts && evals < budget_end; ++r)
      z = nelder_mead(objective, z, r == 0 ? 1.0 : 0.5, std::min(budget_end, evals + per_round), evals, best);
    return z;
  };
  // The given profile is the first start; the others spread over the bounded box, since the
  // objective has several basins and the nominal start does not always reach the deepest.
  Vec z0(params.size());
  for (size_t i = 0; i < params.size(); ++i) z0[i] = to_unit(get_parameter(start, params[i].name), params[i]);
  Vec best_z;
  double best_value = 0;
  for (int s = 0; s < std::max(1, options.starts); ++s) {
    double value = 0;
    const Vec z = descend(s == 0 ? z0 : start_point(s, params.size()), value);
    if (s == 0 || value < best_value) best_z = z, best_value = value;
  }
  for (size_t i = 0; i < params.size(); ++i) set_parameter(result.profile, params[i].name, from_unit(best_z[i], params[i]));
  result.objective = evaluate_profile(result.profile, sets, setup, options.threads, &result.errors);
  result.evaluations = evals;
  return result;
}

CrossValidation cross_validate(const Profile& start, const std::vector<FitParameter>& params,
                               const std::vector<MeasurementSet>& sets, const ValidationSetup& setup,
                               int folds, const FitOptions& options) {
  // Groups are whole model sizes; deal them to folds in a fixed order.
  std::map<std::tuple<size_t, int, int>, int> group_fold;
  int next = 0;
  for (size_t si = 0; si < sets.size(); ++si)
    for (const auto& run : sets[si].runs) {
      auto key = std::make_tuple(si, run.hidden, run.layers);
      if (!group_fold.count(key)) group_fold[key] = next++ % folds;
    }
  CrossValidation cv;
  cv.folds = folds;
  std::vector<std::vector<double>> held(sets.size());
  for (int f = 0; f < folds; ++f) {
    std::vector<MeasurementSet> train(sets.size()), test(sets.size());
    for (size_t si = 0; si < sets.size(); ++si) {
      train[si].name = test[si].name = sets[si].name;
      for (const auto& run : sets[si].runs)
        (group_fold[std::make_tuple(si, run.hidden, run.layers)] == f ? test : train)[si].runs.push_back(run);
    }
    std::vector<MeasurementSet> train_nonempty;
    for (auto& t : train)
      if (!t.runs.empty()) train_nonempty.push_back(t);
    const FitResult fit = fit_profile(start, params, train_nonempty, setup, options);
    for (size_t si = 0; si < sets.size(); ++si) {
      for (const auto& run : test[si].runs) {
        auto r = simulate(config_for_run(run, setup), &fit.profile);
        if (r.ok()) held[si].push_back((r.value().iteration_time_s * 1e3 - run.measured_ms) / run.measured_ms * 100);
      }
    }
  }
  for (size_t si = 0; si < sets.size(); ++si) {
    SetError e;
    e.name = sets[si].name;
    e.runs = static_cast<int>(held[si].size());
    for (double v : held[si]) {
      e.mape_percent += std::abs(v);
      e.max_abs_error_percent = std::max(e.max_abs_error_percent, std::abs(v));
    }
    if (e.runs) e.mape_percent /= e.runs;
    cv.held_out.push_back(e);
  }
  return cv;
}

// ---------------------------------------------------------------------------------------------
// The calibration of the bundled A100 profiles

namespace {

using nlohmann::json;

// The fitted parameters at their nominal values, with the hardware figures and provenance of `hw`:
// a fixed start makes the fit repeatable.
Profile nominal_profile(const Profile& hw, double spread) {
  Profile p;
  p.name = hw.name;
  p.display_name = hw.display_name;
  p.peak_fp16_tflops = hw.peak_fp16_tflops;
  p.peak_fp32_tflops = hw.peak_fp32_tflops;
  p.hbm_GiB = hw.hbm_GiB;
  p.hbm_GBps = hw.hbm_GBps;
  p.sm_count = hw.sm_count;
  p.board_power_W = hw.board_power_W;
  p.intra_node_GBps = hw.intra_node_GBps;
  p.inter_node_Gbps = hw.inter_node_Gbps;
  p.gpus_per_node = hw.gpus_per_node;
  p.gemm_tiles = {{256, 128, 1.0}, {128, 128, 0.95}, {128, 64, 0.85}, {64, 64, 0.7}};
  // Not fitted: left free, it trades off against the peak and memory-bound fractions, and the
  // cross-validation's folds scattered it across its range (docs/accuracy.md, "What the model fits").
  p.gemm_k_half = 256;
  // Not fitted either: NCCL's own tuning model gives a ring 9.6 us a step across the network
  // (src/graph/tuning.cc, ring, Simple protocol). Fitted, the per-step latency took what the
  // measurements charge once a collective (the tensor-parallel groups across two nodes) and
  // multiplied it by the steps of the 64-node rings (docs/accuracy.md, "What the model fits").
  p.inter_node_latency_us = 9.6;
  // Not fitted: the spread of GPU speed, which the calibration sets (2 to 512 GPUs) cannot tell
  // from the GEMM rate (docs/large-scale.md, "Stragglers"); 0 unless calibrate is given one.
  p.gpu_speed_spread = spread;
  p.attention_fwd_efficiency = hw.attention_fwd_efficiency;
  p.attention_bwd_efficiency = hw.attention_bwd_efficiency;
  p.optimizer_bytes_per_param = hw.optimizer_bytes_per_param;
  p.runtime_reserved_GiB = hw.runtime_reserved_GiB;
  p.provenance = hw.provenance;
  return p;
}

// Errors of a parsed input, named by where the input is: "/single-node/line/12/hidden size".
void prefixed(const Diagnostics& found, const std::string& prefix, Diagnostics& errors) {
  for (Diagnostic d : found) {
    d.pointer = prefix + d.pointer;
    d.message = prefix + d.message;
    errors.push_back(std::move(d));
  }
}

// The least and most of one column over runs, e.g. &MeasuredRun::num_gpus.
std::pair<int, int> run_range(const std::vector<MeasuredRun>& runs, int MeasuredRun::*column) {
  int lo = 0, hi = 0;
  for (const MeasuredRun& r : runs) {
    lo = lo == 0 ? r.*column : std::min(lo, r.*column);
    hi = std::max(hi, r.*column);
  }
  return {lo, hi};
}

json set_errors_json(const std::vector<SetError>& errors, const std::vector<MeasurementSet>& sets) {
  json j = json::array();
  for (const auto& e : errors) {
    json entry = {{"set", e.name}, {"runs", e.runs}, {"mape_percent", e.mape_percent},
                  {"max_abs_error_percent", e.max_abs_error_percent}};
    for (const auto& s : sets)
      if (s.name == e.name) {
        const auto [gpus_lo, gpus_hi] = run_range(s.runs, &MeasuredRun::num_gpus);
        const auto [hidden_lo, hidden_hi] = run_range(s.runs, &MeasuredRun::hidden);
        entry["gpus"] = json::array({gpus_lo, gpus_hi});
        entry["hidden"] = json::array({hidden_lo, hidden_hi});
      }
    j.push_back(entry);
  }
  return j;
}

// The fitted profile against the published runs (profiles/published), which no fit sees: the
// iteration-time files, grouped by the framework that trained them.
Outcome<std::vector<PublishedAccuracy>> published_accuracy(const Profile& profile) {
  const struct {
    const char* framework;
    std::vector<const char*> files;
  } groups[] = {{"Megatron-LM", {"megatron-a100", "narayanan-a100"}},
                {"DeepSpeed", {"mt-nlg-a100", "bloom-a100"}},
                {"Megatron-DeepSpeed", {"vtrain-175b-a100"}}};
  std::vector<PublishedAccuracy> out;
  Diagnostics errors;
  for (const auto& g : groups) {
    PublishedAccuracy a;
    a.framework = g.framework;
    std::vector<MeasuredRun> runs;
    for (const char* name : g.files) {
      const PublishedMeasurements* file = published_measurements().find(name);
      if (!file) {
        errors.push_back(make_diagnostic("missing", std::string("/published/") + name, "is not among the published files"));
        continue;
      }
      auto parsed = parse_measurements(file->csv_text);
      if (!parsed.ok()) {
        prefixed(parsed.errors(), "/published/" + file->name, errors);
        continue;
      }
      runs.insert(runs.end(), parsed.value().begin(), parsed.value().end());
      a.files.push_back(file->path);
    }
    if (!errors.empty()) continue;
    auto report = validate_runs(runs, ValidationSetup{}, &profile);
    if (!report.ok()) return report.errors();
    a.runs = static_cast<int>(runs.size());
    a.mape_percent = report.value().mape_percent;
    a.max_abs_error_percent = report.value().max_abs_error_percent;
    std::tie(a.gpus_min, a.gpus_max) = run_range(runs, &MeasuredRun::num_gpus);
    std::tie(a.hidden_min, a.hidden_max) = run_range(runs, &MeasuredRun::hidden);
    out.push_back(a);
  }
  if (!errors.empty()) return errors;
  return out;
}

// Phase 1 of calibrate(): the measurements, parsed; errors name the input.
Outcome<std::vector<MeasurementSet>> measurement_sets(const CalibrationInputs& in) {
  std::vector<MeasurementSet> sets;
  Diagnostics errors;
  for (const auto& [name, text] : {std::pair<const char*, const std::string*>{"single-node", &in.single_node_csv},
                                   std::pair<const char*, const std::string*>{"multi-node", &in.multi_node_csv}}) {
    auto runs = parse_measurements(*text);
    if (!runs.ok()) prefixed(runs.errors(), std::string("/") + name, errors);
    else sets.push_back({name, runs.value()});
  }
  if (!errors.empty()) return errors;
  if (in.only.empty()) return sets;
  std::vector<MeasurementSet> kept;
  for (auto& s : sets)
    if (s.name == in.only) kept.push_back(s);
  if (kept.empty())
    return Outcome<std::vector<MeasurementSet>>::fail(
        "unknown_set", "/only", "/only: no set named \"" + in.only + "\" (single-node, multi-node)");
  return kept;
}

// Phase 2: the intra-node all-reduce curves, one per group size.
Outcome<std::vector<AllreduceReport>> fit_allreduce_curves(const std::vector<AllreduceMeasurements>& given) {
  if (given.empty())
    return Outcome<std::vector<AllreduceReport>>::fail("missing", "/allreduce", "/allreduce: no all-reduce measurements");
  std::vector<AllreduceReport> out;
  for (const AllreduceMeasurements& m : given) {
    auto points = parse_allreduce_csv(m.csv_text);
    if (!points.ok()) {
      Diagnostics errors;
      prefixed(points.errors(), "/allreduce/" + std::to_string(m.gpus), errors);
      return errors;
    }
    out.push_back({m.gpus, static_cast<int>(points.value().size()), fit_allreduce(m.gpus, points.value())});
  }
  return out;
}

// The option that fixed the spread of GPU speed, as the command line gives it ("" without one).
std::string spread_option(const CalibrationInputs& in) {
  if (in.gpu_speed_spread <= 0) return "";
  char buf[48];
  std::snprintf(buf, sizeof buf, " --gpu-speed-spread %g", in.gpu_speed_spread);
  return buf;
}

// Phase 4: what each profile records of how it was made.
json calibration_provenance(const CalibrationInputs& in, const Profile& start, const CalibrationReport& r,
                            const std::vector<MeasurementSet>& sets) {
  json fitted = json::object();
  for (const auto& p : r.parameters)
    fitted[p.name] = {{"value", get_parameter(r.fit.profile, p.name)}, {"lower", p.lower}, {"upper", p.upper}};
  json collectives = json::array();
  for (const AllreduceReport& a : r.allreduce)
    collectives.push_back({{"gpus", a.gpus}, {"points", a.points}, {"mean_error_percent", a.fit.mean_error_percent},
                           {"max_error_percent", a.fit.max_error_percent}});
  json published = json::array();
  for (const PublishedAccuracy& a : r.published)
    published.push_back({{"set", "published"}, {"framework", a.framework}, {"runs", a.runs},
                         {"mape_percent", a.mape_percent}, {"max_abs_error_percent", a.max_abs_error_percent},
                         {"gpus", json::array({a.gpus_min, a.gpus_max})},
                         {"hidden", json::array({a.hidden_min, a.hidden_max})}, {"files", a.files}});
  const ValidationSetup& setup = in.setup;
  json cal = {
      {"command", "vtrain calibrate" + std::string(in.folds > 1 ? " --cv " + std::to_string(in.folds) : "") +
                      (in.starts != 1 ? " --starts " + std::to_string(in.starts) : "") + spread_option(in)},
      {"fit", {{"starts", in.starts}, {"max_evaluations_per_start", in.max_evaluations}}},
      {"setup", {{"gpus_per_node", setup.gpus_per_node},
                 {"intra_node_GBps", setup.intra_node_GBps > 0 ? setup.intra_node_GBps : start.intra_node_GBps},
                 {"inter_node_Gbps", setup.inter_node_Gbps},
                 {"vocab", setup.vocab},
                 {"recompute", to_string(setup.recompute)},
                 {"attention", to_string(setup.attention)},
                 {"precision", to_string(setup.precision)}}},
      {"fitted_parameters", fitted},
      {"in_sample", set_errors_json(r.fit.errors, sets)},
      {"published", published},
      {"intra_node_fit", collectives},
      {"evaluations", r.fit.evaluations}};
  if (r.cross_validated)
    cal["cross_validation"] = {{"folds", in.folds},
                               {"grouping", "whole model sizes (hidden size, layers) per fold"},
                               {"held_out", set_errors_json(r.cross_validation.held_out, sets)}};
  return cal;
}

// Phase 5: the 80 GB profile with its provenance, and the 40 GB board derived from it.
std::vector<Profile> calibrated_profiles(const Profile& fitted, const json& calibration) {
  Profile out80 = fitted;
  json prov = out80.provenance.is_object() ? out80.provenance : json::object();
  prov["compute"] =
      "fitted by `vtrain calibrate` to the measured iteration times of ../shared/validation "
      "(single_node_calibration.csv, multi_node_calibration.csv: Megatron-DeepSpeed GPT runs on "
      "A100 SXM4 published with vTrain, Bang et al. MICRO'24); Nelder-Mead minimizing the mean of "
      "the two sets' MAPE; flash-attention efficiencies from Dao 2023 (FlashAttention-2, A100 "
      "causal, head dimension 128), not fitted";
  if (fitted.gpu_speed_spread > 0)
    prov["compute"] = prov["compute"].get<std::string>() + "; gpu_speed_spread " +
                      std::to_string(fitted.gpu_speed_spread) + " given to calibrate, not fitted";
  prov["communication"] =
      "intra_node: max(floor, latency + 2(n-1)/n bytes / busbw) fitted per group size to "
      "../shared/measurements/a100-nccl-allreduce (nccl-tests, 1 MiB to 1 GiB) with relative "
      "error weighted evenly over log(size); across nodes a ring of 2(k-1) steps (k nodes) at "
      "inter_node_latency_us each, 9.6 us from NCCL's tuning model (src/graph/tuning.cc, ring, "
      "Simple protocol, network), not fitted; the other parameters fitted with the compute ones";
  prov["calibration"] = calibration;
  out80.provenance = prov;

  Profile out40 = out80;
  out40.name = "a100-sxm4-40gb";
  out40.display_name = "NVIDIA A100 SXM4 40GB";
  out40.hbm_GiB = 40;
  out40.hbm_GBps = 1555;
  out40.provenance["hardware"] =
      "NVIDIA A100 Tensor Core GPU datasheet (2021): as the 80 GB board but 40 GB HBM2 at 1555 GB/s; the DGX "
      "A100 host as the 80 GB profile's (307 GB/s streamed, 12.5 GB/s of PCIe a GPU)";
  out40.provenance["calibration"]["note"] =
      "the fitted efficiencies of a100-sxm4-80gb, applied to this board's memory bandwidth";
  return {out80, out40};
}

}  // namespace

Outcome<CalibrationReport> calibrate(const CalibrationInputs& in) {
  const auto t0 = std::chrono::steady_clock::now();
  // A fixed starting point makes the fit repeatable: the bundled profile's hardware figures and
  // provenance with every fitted parameter at its nominal value (or the start given).
  const Profile* bundled = bundled_profiles().find("a100-sxm4-80gb");
  Profile start = in.has_start ? in.start : nominal_profile(bundled ? *bundled : Profile{}, in.gpu_speed_spread);
  if (in.gpu_speed_spread > 0) start.gpu_speed_spread = in.gpu_speed_spread;  // over a start file's own
  auto sets = measurement_sets(in);
  if (!sets.ok()) return sets.errors();
  CalibrationReport report;
  auto allreduce = fit_allreduce_curves(in.allreduce);
  if (!allreduce.ok()) return allreduce.errors();
  report.allreduce = allreduce.value();

  // Phase 3: the operator and communication parameters against iteration times, then (with
  // folds) the cross-validation and the published runs no fit sees.
  start.intra_node.clear();
  for (const AllreduceReport& a : report.allreduce) start.intra_node.push_back(a.fit.fit);
  FitOptions options;
  options.max_evaluations = in.max_evaluations;
  options.restarts = 4;
  options.starts = in.starts;
  options.threads = in.threads;
  options.progress = in.progress;
  report.parameters = default_fit_parameters();
  report.fit = fit_profile(start, report.parameters, sets.value(), in.setup, options);
  if (in.folds > 1) {
    FitOptions cv_options = options;
    cv_options.progress = {};
    report.cross_validated = true;
    report.cross_validation = cross_validate(start, report.parameters, sets.value(), in.setup, in.folds, cv_options);
  }
  auto published = published_accuracy(report.fit.profile);
  if (!published.ok()) return published.errors();
  report.published = published.value();
  report.profiles = calibrated_profiles(report.fit.profile, calibration_provenance(in, start, report, sets.value()));
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace vtrain
