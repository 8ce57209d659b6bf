#include "vtrain/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <tuple>

#include "vtrain/simulate.hpp"

namespace vtrain {

namespace {

using Vec = std::vector<double>;

// Minimizes f from x0 with the Nelder-Mead simplex; `step` is the initial simplex size.
Vec nelder_mead(const std::function<double(const Vec&)>& f, Vec x0, double step, int max_evals, int& evals,
                double& best_value) {
  const int n = static_cast<int>(x0.size());
  std::vector<Vec> s(n + 1, x0);
  for (int i = 0; i < n; ++i) s[i + 1][i] += step;
  Vec fv(n + 1);
  for (int i = 0; i <= n; ++i) fv[i] = f(s[i]);
  evals += n + 1;
  std::vector<int> order(n + 1);
  while (evals < max_evals) {
    for (int i = 0; i <= n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](int a, int b) { return fv[a] < fv[b]; });
    std::vector<Vec> s2;
    Vec f2;
    for (int i : order) {
      s2.push_back(s[i]);
      f2.push_back(fv[i]);
    }
    s.swap(s2);
    fv.swap(f2);
    if (std::abs(fv[n] - fv[0]) <= 1e-7 * (std::abs(fv[0]) + 1e-12)) break;
    Vec c(n, 0.0);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) c[j] += s[i][j] / n;
    auto along = [&](double t) {
      Vec r(n);
      for (int j = 0; j < n; ++j) r[j] = c[j] + t * (s[n][j] - c[j]);
      return r;
    };
    const Vec xr = along(-1.0);
    const double fr = f(xr);
    ++evals;
    if (fr < fv[0]) {
      const Vec xe = along(-2.0);
      const double fe = f(xe);
      ++evals;
      if (fe < fr) s[n] = xe, fv[n] = fe;
      else s[n] = xr, fv[n] = fr;
    } else if (fr < fv[n - 1]) {
      s[n] = xr, fv[n] = fr;
    } else {
      const Vec xc = along(fr < fv[n] ? -0.5 : 0.5);
      const double fc = f(xc);
      ++evals;
      if (fc < std::min(fr, fv[n])) {
        s[n] = xc, fv[n] = fc;
      } else {
        for (int i = 1; i <= n; ++i) {
          for (int j = 0; j < n; ++j) s[i][j] = s[0][j] + 0.5 * (s[i][j] - s[0][j]);
          fv[i] = f(s[i]);
        }
        evals += n;
      }
    }
  }
  const int best = static_cast<int>(std::min_element(fv.begin(), fv.end()) - fv.begin());
  best_value = fv[best];
  return s[best];
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
    if (cells.size() < 6 || !(cells[0] > 0) || !(cells[3] > 0) || !(cells[5] > 0))
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

double get_parameter(const Profile& p, const std::string& name) {
  double* f = field(const_cast<Profile&>(p), name);
  return f ? *f : 0.0;
}

void set_parameter(Profile& p, const std::string& name, double value) {
  if (double* f = field(p, name)) *f = value;
}

double evaluate_profile(const Profile& profile, const std::vector<MeasurementSet>& sets,
                        const ValidationSetup& setup, const ParallelFor& parallel_for,
                        std::vector<SetError>* errors) {
  double total = 0;
  if (errors) errors->clear();
  for (const auto& set : sets) {
    std::vector<double> err(set.runs.size(), 0.0);
    auto body = [&](int i) {
      auto r = simulate(config_for_run(set.runs[i], setup), &profile);
      err[i] = r.ok() ? (r.value().iteration_time_s * 1e3 - set.runs[i].measured_ms) / set.runs[i].measured_ms * 100
                      : 1e6;
    };
    const int n = static_cast<int>(set.runs.size());
    if (parallel_for) parallel_for(n, body);
    else
      for (int i = 0; i < n; ++i) body(i);
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
    const double v = evaluate_profile(work, sets, setup, options.parallel_for);
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
  result.objective = evaluate_profile(result.profile, sets, setup, options.parallel_for, &result.errors);
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

}  // namespace vtrain
