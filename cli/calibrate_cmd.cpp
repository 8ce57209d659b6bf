// vtrain calibrate: fit the A100 profiles to the measurements in ../shared and write them.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "vtrain/calibration.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/validation.hpp"

namespace vtrain::cli {

using nlohmann::json;

ParallelFor thread_pool(int threads) {
  if (threads <= 1) return {};
  return [threads](int n, const std::function<void(int)>& body) {
    std::atomic<int> next{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        for (int i = next++; i < n; i = next++) body(i);
      });
    for (auto& th : pool) th.join();
  };
}

std::string default_shared_dir() { return std::string(VTRAIN_SOURCE_DIR) + "/../shared"; }

bool load_measurement_sets(const std::string& shared, std::vector<MeasurementSet>& sets) {
  const std::pair<const char*, const char*> files[] = {
      {"single-node", "/validation/single_node_calibration.csv"},
      {"multi-node", "/validation/multi_node_calibration.csv"}};
  for (const auto& [name, rel] : files) {
    std::string text;
    if (!read_file(shared + rel, text)) {
      std::fprintf(stderr, "error: cannot read %s%s (is ../shared beside the repository?)\n", shared.c_str(), rel);
      return false;
    }
    auto runs = parse_measurements(text);
    if (!runs.ok()) {
      print_errors(runs.errors());
      return false;
    }
    sets.push_back({name, runs.value()});
  }
  return true;
}

namespace {

// The least and most of one column over a set's runs, e.g. &MeasuredRun::num_gpus.
json run_range(const std::vector<MeasuredRun>& runs, int MeasuredRun::*column) {
  int lo = 0, hi = 0;
  for (const MeasuredRun& r : runs) {
    lo = lo == 0 ? r.*column : std::min(lo, r.*column);
    hi = std::max(hi, r.*column);
  }
  return json::array({lo, hi});
}

json set_errors_json(const std::vector<SetError>& errors, const std::vector<MeasurementSet>& sets) {
  json j = json::array();
  for (const auto& e : errors) {
    json entry = {{"set", e.name}, {"runs", e.runs}, {"mape_percent", e.mape_percent},
                  {"max_abs_error_percent", e.max_abs_error_percent}};
    for (const auto& s : sets)
      if (s.name == e.name) {
        entry["gpus"] = run_range(s.runs, &MeasuredRun::num_gpus);
        entry["hidden"] = run_range(s.runs, &MeasuredRun::hidden);
      }
    j.push_back(entry);
  }
  return j;
}

// The fitted profile against the published runs in profiles/published, which no fit sees: the
// iteration-time files, grouped by the framework that trained them.
bool published_accuracy(const Profile& profile, json& out) {
  const struct {
    const char* framework;
    std::vector<const char*> files;
  } groups[] = {{"Megatron-LM", {"megatron-a100.csv", "narayanan-a100.csv"}},
                {"DeepSpeed", {"mt-nlg-a100.csv", "bloom-a100.csv"}},
                {"Megatron-DeepSpeed", {"vtrain-175b-a100.csv"}}};
  out = json::array();
  for (const auto& g : groups) {
    std::vector<MeasuredRun> runs;
    json files = json::array();
    for (const char* f : g.files) {
      const std::string rel = std::string("profiles/published/") + f;
      std::string text;
      if (!read_file(std::string(VTRAIN_SOURCE_DIR) + "/" + rel, text)) {
        std::fprintf(stderr, "error: cannot read %s\n", rel.c_str());
        return false;
      }
      auto parsed = parse_measurements(text);
      if (!parsed.ok()) {
        print_errors(parsed.errors());
        return false;
      }
      runs.insert(runs.end(), parsed.value().begin(), parsed.value().end());
      files.push_back(rel);
    }
    auto report = validate_runs(runs, ValidationSetup{}, &profile);
    if (!report.ok()) {
      print_errors(report.errors());
      return false;
    }
    out.push_back({{"set", "published"}, {"framework", g.framework}, {"runs", runs.size()},
                   {"mape_percent", report.value().mape_percent},
                   {"max_abs_error_percent", report.value().max_abs_error_percent},
                   {"gpus", run_range(runs, &MeasuredRun::num_gpus)},
                   {"hidden", run_range(runs, &MeasuredRun::hidden)}, {"files", files}});
    std::printf("published %-18s %3zu runs: MAPE %.2f%%, max %.1f%%\n", g.framework, runs.size(),
                report.value().mape_percent, report.value().max_abs_error_percent);
  }
  return true;
}

bool write_profile(const std::string& path, const Profile& p) {
  std::ofstream out(path);
  if (!out) return false;
  out << to_json(p).dump(2) << "\n";
  return static_cast<bool>(out);
}

}  // namespace

int run_calibrate(const Args& args) {
  const auto nominal_profile = [](const Profile& hw) {
    Profile p;  // the fitted parameters at their nominal defaults
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
    // cross-validation's folds scattered it across its range (README, "What the model fits").
    p.gemm_k_half = 256;
    // Not fitted either: NCCL's own tuning model gives a ring 9.6 us a step across the network
    // (src/graph/tuning.cc, ring, Simple protocol). Fitted, the per-step latency took what the
    // measurements charge once a collective (the tensor-parallel groups across two nodes) and
    // multiplied it by the steps of the 64-node rings (README, "What the model fits").
    p.inter_node_latency_us = 9.6;
    p.attention_fwd_efficiency = hw.attention_fwd_efficiency;
    p.attention_bwd_efficiency = hw.attention_bwd_efficiency;
    p.optimizer_bytes_per_param = hw.optimizer_bytes_per_param;
    p.runtime_reserved_GiB = hw.runtime_reserved_GiB;
    p.provenance = hw.provenance;
    return p;
  };
  const std::string shared = args.get("shared", default_shared_dir());
  const std::string out_dir = args.get("out-dir", std::string(VTRAIN_SOURCE_DIR) + "/profiles");
  int threads = 1, max_evals = 10000, starts = 1, folds = 0;  // folds 0: no cross-validation
  if (!threads_option(args, threads) || !whole_option(args, "max-evals", 1, 1000000, max_evals) ||
      !whole_option(args, "starts", 1, 1000000, starts) || !whole_option(args, "cv", 2, 100, folds))
    return 2;
  ValidationSetup setup;
  if (!apply_setup_options(args, setup)) return 2;
  // A fixed starting point makes the fit repeatable: the bundled profile's hardware figures and
  // provenance with every fitted parameter at its nominal value (--profile FILE starts elsewhere).
  const Profile* base = bundled_profiles().find("a100-sxm4-80gb");
  Profile start = nominal_profile(base ? *base : Profile{});
  bool has_custom = false;
  if (!load_profile_option(args, start, has_custom)) return 2;

  std::vector<MeasurementSet> sets;
  if (!load_measurement_sets(shared, sets)) return 2;
  if (args.has("only")) {  // fit to one set, e.g. --only single-node
    std::vector<MeasurementSet> kept;
    for (auto& s : sets)
      if (s.name == args.get("only")) kept.push_back(s);
    if (kept.empty()) {
      std::fprintf(stderr, "error: --only: no set named \"%s\" (single-node, multi-node)\n", args.get("only").c_str());
      return 2;
    }
    sets = kept;
  }
  const auto t0 = std::chrono::steady_clock::now();

  // 1. Intra-node all-reduce curves.
  json collective_report = json::array();
  std::vector<IntraNodeCollective> intra;
  for (int n = 2; n <= 8; ++n) {
    std::string text;
    const std::string path = shared + "/measurements/a100-nccl-allreduce/allreduce_" + std::to_string(n) + "gpu.csv";
    if (!read_file(path, text)) {
      std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
      return 2;
    }
    auto points = parse_allreduce_csv(text);
    if (!points.ok()) {
      print_errors(points.errors());
      return 1;
    }
    const CollectiveFit f = fit_allreduce(n, points.value());
    intra.push_back(f.fit);
    collective_report.push_back({{"gpus", n}, {"points", points.value().size()},
                                 {"mean_error_percent", f.mean_error_percent},
                                 {"max_error_percent", f.max_error_percent}});
    std::printf("all-reduce %d GPUs: floor %.1f us, latency %.1f us, busbw %.1f GB/s (error mean %.1f%%, max %.1f%%)\n",
                n, f.fit.min_time_us, f.fit.latency_us, f.fit.busbw_GBps, f.mean_error_percent, f.max_error_percent);
  }
  start.intra_node = intra;

  // 2. Operator and communication parameters against iteration times.
  FitOptions options;
  options.max_evaluations = max_evals;
  options.restarts = 4;
  options.starts = starts;
  options.parallel_for = thread_pool(threads);
  int last_print = -1;
  options.progress = [&](int evals, double objective) {
    if (evals / 100 != last_print) {
      last_print = evals / 100;
      std::fprintf(stderr, "\r  fit: %d evaluations, objective %.3f%%   ", evals, objective);
    }
  };
  const auto& params = default_fit_parameters();
  const FitResult fit = fit_profile(start, params, sets, setup, options);
  std::fprintf(stderr, "\n");
  for (const auto& e : fit.errors)
    std::printf("%-12s %4d runs: MAPE %.2f%%, max %.1f%%\n", e.name.c_str(), e.runs, e.mape_percent,
                e.max_abs_error_percent);
  json fitted = json::object();
  for (const auto& p : params) {
    const double v = get_parameter(fit.profile, p.name);
    fitted[p.name] = {{"value", v}, {"lower", p.lower}, {"upper", p.upper}};
    std::printf("  %-40s %.4g\n", p.name.c_str(), v);
  }

  json cv_report = nullptr;
  if (folds > 1) {
    FitOptions cv_options = options;
    cv_options.progress = {};
    const CrossValidation cv = cross_validate(start, params, sets, setup, folds, cv_options);
    cv_report = {{"folds", folds}, {"grouping", "whole model sizes (hidden size, layers) per fold"},
                 {"held_out", set_errors_json(cv.held_out, sets)}};
    for (const auto& e : cv.held_out)
      std::printf("%d-fold CV %-12s %4d runs: MAPE %.2f%%, max %.1f%%\n", folds, e.name.c_str(), e.runs,
                  e.mape_percent, e.max_abs_error_percent);
  }
  json published;
  if (!published_accuracy(fit.profile, published)) return 1;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("calibration took %.0f s\n", seconds);

  Profile out80 = fit.profile;
  json prov = out80.provenance.is_object() ? out80.provenance : json::object();
  prov["compute"] =
      "fitted by `vtrain calibrate` to the measured iteration times of ../shared/validation "
      "(single_node_calibration.csv, multi_node_calibration.csv: Megatron-DeepSpeed GPT runs on "
      "A100 SXM4 published with vTrain, Bang et al. MICRO'24); Nelder-Mead minimizing the mean of "
      "the two sets' MAPE; flash-attention efficiencies from Dao 2023 (FlashAttention-2, A100 "
      "causal, head dimension 128), not fitted";
  prov["communication"] =
      "intra_node: max(floor, latency + 2(n-1)/n bytes / busbw) fitted per group size to "
      "../shared/measurements/a100-nccl-allreduce (nccl-tests, 1 MiB to 1 GiB) with relative "
      "error weighted evenly over log(size); across nodes a ring of 2(k-1) steps (k nodes) at "
      "inter_node_latency_us each, 9.6 us from NCCL's tuning model (src/graph/tuning.cc, ring, "
      "Simple protocol, network), not fitted; the other parameters fitted with the compute ones";
  prov["calibration"] = {
      {"command", "vtrain calibrate" + std::string(folds > 1 ? " --cv " + std::to_string(folds) : "") +
                      (starts != 1 ? " --starts " + std::to_string(starts) : "")},
      {"fit", {{"starts", starts}, {"max_evaluations_per_start", max_evals}}},
      {"setup", {{"gpus_per_node", setup.gpus_per_node},
                 {"intra_node_GBps", setup.intra_node_GBps > 0 ? setup.intra_node_GBps : start.intra_node_GBps},
                 {"inter_node_Gbps", setup.inter_node_Gbps},
                 {"vocab", setup.vocab},
                 {"recompute", "full"},
                 {"attention", "unfused"},
                 {"precision", "fp16"}}},
      {"fitted_parameters", fitted},
      {"in_sample", set_errors_json(fit.errors, sets)},
      {"published", published},
      {"intra_node_fit", collective_report},
      {"evaluations", fit.evaluations}};
  if (!cv_report.is_null()) prov["calibration"]["cross_validation"] = cv_report;
  out80.provenance = prov;

  Profile out40 = out80;
  out40.name = "a100-sxm4-40gb";
  out40.display_name = "NVIDIA A100 SXM4 40GB";
  out40.hbm_GiB = 40;
  out40.hbm_GBps = 1555;
  out40.provenance["hardware"] =
      "NVIDIA A100 Tensor Core GPU datasheet (2021): as the 80 GB board but 40 GB HBM2 at 1555 GB/s";
  out40.provenance["calibration"]["note"] =
      "the fitted efficiencies of a100-sxm4-80gb, applied to this board's memory bandwidth";

  if (args.has("dry-run")) {
    std::printf("--dry-run: profiles not written\n");
    return 0;
  }
  for (const Profile* p : {&out80, &out40}) {
    const std::string path = out_dir + "/" + p->name + ".json";
    if (!write_profile(path, *p)) {
      std::fprintf(stderr, "error: cannot write %s\n", path.c_str());
      return 1;
    }
    std::printf("wrote %s\n", path.c_str());
  }
  return 0;
}

}  // namespace vtrain::cli
