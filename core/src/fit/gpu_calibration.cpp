#include "vtrain/gpu_calibration.hpp"

#include <algorithm>
#include <chrono>
#include <map>

#include <nlohmann/json.hpp>

namespace vtrain {

using nlohmann::json;

const std::vector<FitParameter>& gpu_fit_parameters() {
  static const std::vector<FitParameter> params = {
      {"/compute/gemm_max_efficiency", 0.4, 0.85},
      {"/compute/fp8_gemm_efficiency", 0.3, 0.75},
      {"/compute/memory_efficiency", 0.5, 0.95},
      // The host's cost per kernel issued in the forward: the training stack's Python, not the GPU's.
      {"/compute/host_issue_us", 1.0, 100.0},
      {"/communication/inter_node_efficiency", 0.3, 1.0},
  };
  return params;
}

Outcome<GpuMeasurements> published_runs_of(const std::string& gpu) {
  GpuMeasurements out;
  std::map<std::string, size_t> set_of;  // precision name -> index in out.sets
  Diagnostics errors;
  for (const PublishedMeasurements& file : published_measurements()) {
    auto parsed = parse_measurements(file.csv_text);
    if (!parsed.ok()) {
      for (auto d : parsed.errors()) {
        d.pointer = "/published/" + file.name + d.pointer;
        errors.push_back(d);
      }
      continue;
    }
    bool used = false;
    for (const MeasuredRun& r : parsed.value()) {
      if (r.gpu != gpu || r.layer_time) continue;
      if (r.held_out) {  // held-out runs only check the fit
        if (out.checks.empty() || out.checks.back().name != file.path) out.checks.push_back({file.path, {}});
        out.checks.back().runs.push_back(r);
        continue;
      }
      const std::string name = std::string("published-") + (r.has_precision ? to_string(r.precision) : "fp16");
      auto it = set_of.find(name);
      if (it == set_of.end()) {
        it = set_of.emplace(name, out.sets.size()).first;
        out.sets.push_back({name, {}});
      }
      out.sets[it->second].runs.push_back(r);
      used = true;
    }
    if (used) out.files.push_back(file.path);
  }
  if (!errors.empty()) return errors;
  if (out.sets.empty())
    return Diagnostics{make_diagnostic("no_runs", "/gpu",
                                       "no published run names \"" + gpu + "\" in its GPU column (profiles/published)")};
  return out;
}

namespace {

// The GPU counts and hidden sizes a set's runs span: {least, most} each, as a record's "gpus" and "hidden".
struct RunSpan {
  int gpus_lo = 0, gpus_hi = 0, hidden_lo = 0, hidden_hi = 0;
  void add(const MeasuredRun& r) {
    gpus_lo = gpus_lo == 0 ? r.num_gpus : std::min(gpus_lo, r.num_gpus);
    gpus_hi = std::max(gpus_hi, r.num_gpus);
    hidden_lo = hidden_lo == 0 ? r.hidden : std::min(hidden_lo, r.hidden);
    hidden_hi = std::max(hidden_hi, r.hidden);
  }
};

json set_entry(const SetError& e, const std::vector<MeasurementSet>& sets) {
  RunSpan span;
  for (const auto& s : sets)
    if (s.name == e.name)
      for (const MeasuredRun& r : s.runs) span.add(r);
  // "published-fp8" -> framework "NeMo/Megatron-Core fp8": the summary reads "10 published NeMo/Megatron-Core fp8 runs"
  const std::string precision = e.name.rfind("published-", 0) == 0 ? e.name.substr(10) : e.name;
  return {{"set", "published"},          {"framework", "NeMo/Megatron-Core " + precision},
          {"runs", e.runs},              {"mape_percent", e.mape_percent},
          {"max_abs_error_percent", e.max_abs_error_percent},
          {"gpus", {span.gpus_lo, span.gpus_hi}},  {"hidden", {span.hidden_lo, span.hidden_hi}}};
}

// A check's record: what its runs are (their models and precisions, whether mixtures of experts),
// how many, how far off, never fitted. "grok-1 bf16/fp8 MoE": the words of "18 published grok-1
// bf16/fp8 MoE runs".
json check_entry(const SetError& e, const MeasurementSet& s, const ValidationSetup& setup) {
  std::vector<std::string> models, precisions;
  const auto add = [](std::vector<std::string>& v, const std::string& x) {
    if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
  };
  bool moe = false;
  RunSpan span;
  for (const MeasuredRun& r : s.runs) {
    add(models, r.model.empty() ? "GPT" : r.model);
    add(precisions, r.has_precision ? to_string(r.precision) : "fp16");
    moe = moe || config_for_run(r, setup).model.moe.experts > 0;
    span.add(r);
  }
  const auto join = [](const std::vector<std::string>& v, const char* sep) {
    std::string out;
    for (const std::string& x : v) out += (out.empty() ? "" : sep) + x;
    return out;
  };
  return {{"set", "published"},
          {"file", e.name},
          {"framework", join(models, ", ") + " " + join(precisions, "/") + (moe ? " MoE" : "")},
          {"moe", moe},
          {"runs", e.runs},
          {"mape_percent", e.mape_percent},
          {"max_abs_error_percent", e.max_abs_error_percent},
          {"gpus", {span.gpus_lo, span.gpus_hi}},
          {"hidden", {span.hidden_lo, span.hidden_hi}}};
}

}  // namespace

Outcome<GpuCalibrationReport> calibrate_gpu(const GpuCalibrationInputs& in) {
  const auto t0 = std::chrono::steady_clock::now();
  auto measured = published_runs_of(in.start.name);
  if (!measured.ok()) return measured.errors();
  const std::vector<MeasurementSet>& sets = measured.value().sets;
  ValidationSetup setup;  // every setting comes from the files' columns; the GPU from the start
  setup.gpu = in.start.name;
  setup.gpus_per_node = in.start.gpus_per_node;
  setup.inter_node_Gbps = in.start.inter_node_Gbps;
  FitOptions options;
  options.max_evaluations = in.max_evaluations;
  options.threads = in.threads;
  options.progress = in.progress;
  GpuCalibrationReport report;
  report.files = measured.value().files;
  report.parameters = gpu_fit_parameters();
  report.fit = fit_profile(in.start, report.parameters, sets, setup, options);
  if (in.folds > 1) {
    FitOptions cv_options = options;
    cv_options.progress = {};
    report.cross_validated = true;
    report.cross_validation = cross_validate(in.start, report.parameters, sets, setup, in.folds, cv_options);
  }
  Profile p = report.fit.profile;
  // The held-out runs, predicted by the fitted profile: checks that no fit saw.
  const std::vector<MeasurementSet>& checks = measured.value().checks;
  if (!checks.empty()) evaluate_profile(p, checks, setup, in.threads, &report.checks);
  json prov = in.start.provenance.is_object() ? in.start.provenance : json::object();
  json fitted = json::object();
  for (const FitParameter& f : report.parameters)
    fitted[f.name] = {{"value", get_parameter(p, f.name)}, {"lower", f.lower}, {"upper", f.upper}};
  json in_sample = json::array(), held_out = json::array();
  for (const SetError& e : report.fit.errors) in_sample.push_back(set_entry(e, sets));
  for (const SetError& e : report.cross_validation.held_out) held_out.push_back(set_entry(e, sets));
  json cal = {{"command", "vtrain calibrate --gpu " + in.start.name + " --profile <projection> --cv " +
                              std::to_string(in.folds)},
              {"start", "the projection from the A100 (scripts/project-profiles.mjs)"},
              {"files", report.files},
              {"fitted_parameters", fitted},
              {"evaluations", report.fit.evaluations},
              {"in_sample", in_sample}};
  if (!report.checks.empty()) {
    json published = json::array();
    for (size_t i = 0; i < report.checks.size(); ++i)
      published.push_back(check_entry(report.checks[i], checks[i], setup));
    cal["published"] = published;
  }
  if (report.cross_validated)
    cal["cross_validation"] = {{"folds", in.folds},
                               {"grouping", "whole model sizes (hidden size, layers) per fold"},
                               {"held_out", held_out}};
  prov["kind"] = "calibrated";
  prov["calibration"] = cal;
  std::string names;
  for (size_t i = 0; i < report.parameters.size(); ++i) {
    const std::string& n = report.parameters[i].name;
    names += (i == 0 ? "" : i + 1 == report.parameters.size() ? " and " : ", ") + n.substr(n.rfind('/') + 1);
  }
  prov["compute"] = names + " fitted by `vtrain calibrate --gpu` to the published runs of this GPU "
                    "(calibration.files); the rest as projected: " +
                    (prov.contains("rules") && prov["rules"].is_string() ? prov["rules"].get<std::string>()
                                                                        : std::string("the start's values"));
  p.provenance = prov;
  p.kind = "calibrated";
  report.profile = p;
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return report;
}

}  // namespace vtrain
