// vtrain calibrate: reads the measurements (../shared beside the working directory, or --shared),
// has the core fit the A100 profiles to them (vtrain/calibration.hpp: calibrate), prints what it
// found and writes the profiles (to ./profiles, or --out-dir).

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli.hpp"
#include "vtrain/calibration.hpp"
#include "vtrain/gpu_calibration.hpp"
#include "vtrain/profile.hpp"

namespace vtrain::cli {

namespace {

// The files of ../shared the calibration reads, into `in`; false (with why printed) when one is missing.
bool read_measurements(const std::string& shared, CalibrationInputs& in) {
  const std::pair<const char*, std::string*> sets[] = {
      {"/validation/single_node_calibration.csv", &in.single_node_csv},
      {"/validation/multi_node_calibration.csv", &in.multi_node_csv}};
  for (const auto& [rel, text] : sets) {
    if (!read_file(shared + rel, *text)) {
      std::fprintf(stderr, "error: cannot read %s%s (is ../shared beside the repository? --shared DIR names it)\n",
                   shared.c_str(), rel);
      return false;
    }
  }
  for (int n = 2; n <= 8; ++n) {
    AllreduceMeasurements m;
    m.gpus = n;
    const std::string path = shared + "/measurements/a100-nccl-allreduce/allreduce_" + std::to_string(n) + "gpu.csv";
    if (!read_file(path, m.csv_text)) {
      std::fprintf(stderr, "error: cannot read %s\n", path.c_str());
      return false;
    }
    in.allreduce.push_back(std::move(m));
  }
  return true;
}

void print_report(const CalibrationReport& r) {
  for (const AllreduceReport& a : r.allreduce)
    std::printf("all-reduce %d GPUs: floor %.1f us, latency %.1f us, busbw %.1f GB/s (error mean %.1f%%, max %.1f%%)\n",
                a.gpus, a.fit.fit.min_time_us, a.fit.fit.latency_us, a.fit.fit.busbw_GBps, a.fit.mean_error_percent,
                a.fit.max_error_percent);
  for (const auto& e : r.fit.errors)
    std::printf("%-12s %4d runs: MAPE %.2f%%, max %.1f%%\n", e.name.c_str(), e.runs, e.mape_percent,
                e.max_abs_error_percent);
  for (const auto& p : r.parameters) std::printf("  %-40s %.4g\n", p.name.c_str(), get_parameter(r.fit.profile, p.name));
  if (r.cross_validated)
    for (const auto& e : r.cross_validation.held_out)
      std::printf("%d-fold CV %-12s %4d runs: MAPE %.2f%%, max %.1f%%\n", r.cross_validation.folds, e.name.c_str(),
                  e.runs, e.mape_percent, e.max_abs_error_percent);
  for (const PublishedAccuracy& a : r.published)
    std::printf("published %-18s %3d runs: MAPE %.2f%%, max %.1f%%\n", a.framework.c_str(), a.runs, a.mape_percent,
                a.max_abs_error_percent);
  std::printf("calibration took %.0f s\n", r.seconds);
}

bool write_profile(const std::string& path, const Profile& p) {
  std::ofstream out(path);
  if (!out) return false;
  out << to_json(p).dump(2) << "\n";
  return static_cast<bool>(out);
}

}  // namespace

// vtrain calibrate --gpu NAME (any but the A100s): the GPU's published runs fitted from a start
// (--profile FILE, else the bundled profile of that name).
int run_calibrate_gpu(const Args& args) {
  GpuCalibrationInputs in;
  in.folds = 0;
  if (!threads_option(args, in.threads) || !whole_option(args, "max-evals", 1, 1000000, in.max_evaluations) ||
      !whole_option(args, "cv", 2, 100, in.folds))
    return 2;
  bool has_start = false;
  if (!load_profile_option(args, in.start, has_start)) return 2;
  const std::string gpu = args.get("gpu");
  if (!has_start) {
    const Profile* bundled = bundled_profiles().find(gpu);
    if (!bundled) {
      print_errors({unknown_gpu(gpu, "/gpu")});
      return 2;
    }
    in.start = *bundled;
  }
  in.start.name = gpu;
  int last_print = -1;
  in.progress = [&](int evals, double objective) {
    if (evals / 100 != last_print) {
      last_print = evals / 100;
      std::fprintf(stderr, "\r  fit: %d evaluations, objective %.3f%%   ", evals, objective);
    }
  };
  auto report = calibrate_gpu(in);
  std::fprintf(stderr, "\n");
  if (!report.ok()) {
    print_errors(report.errors());
    return 1;
  }
  const GpuCalibrationReport& r = report.value();
  for (const auto& f : r.files) std::printf("runs of %s from %s\n", gpu.c_str(), f.c_str());
  for (const auto& e : r.fit.errors)
    std::printf("%-16s %4d runs: MAPE %.2f%%, max %.1f%% (in sample)\n", e.name.c_str(), e.runs, e.mape_percent,
                e.max_abs_error_percent);
  for (const auto& p : r.parameters) std::printf("  %-40s %.4g\n", p.name.c_str(), get_parameter(r.profile, p.name));
  if (r.cross_validated)
    for (const auto& e : r.cross_validation.held_out)
      std::printf("%d-fold CV %-16s %4d runs: MAPE %.2f%%, max %.1f%% (held out, grouped by model)\n",
                  r.cross_validation.folds, e.name.c_str(), e.runs, e.mape_percent, e.max_abs_error_percent);
  for (const auto& e : r.checks)
    std::printf("check %-30s %4d runs: MAPE %.2f%%, max %.1f%% (held out: no fit saw them)\n", e.name.c_str(), e.runs,
                e.mape_percent, e.max_abs_error_percent);
  std::printf("calibration took %.0f s\n", r.seconds);
  if (args.has("dry-run")) {
    std::printf("--dry-run: profile not written\n");
    return 0;
  }
  const std::string out_dir = args.get("out-dir", "profiles");
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  const std::string path = out_dir + "/" + gpu + ".json";
  if (!write_profile(path, r.profile)) {
    std::fprintf(stderr, "error: cannot write %s\n", path.c_str());
    return 1;
  }
  std::printf("wrote %s\n", path.c_str());
  return 0;
}

int run_calibrate(const Args& args) {
  if (args.has("gpu") && args.get("gpu").rfind("a100-", 0) != 0) return run_calibrate_gpu(args);
  CalibrationInputs in;
  if (!threads_option(args, in.threads) || !whole_option(args, "max-evals", 1, 1000000, in.max_evaluations) ||
      !whole_option(args, "starts", 1, 1000000, in.starts) || !whole_option(args, "cv", 2, 100, in.folds))
    return 2;
  if (!apply_setup_options(args, in.setup)) return 2;
  if (!load_profile_option(args, in.start, in.has_start)) return 2;
  if (!number_option(args, "gpu-speed-spread", in.gpu_speed_spread, false)) return 2;
  if (in.gpu_speed_spread < 0 || in.gpu_speed_spread > limits::gpu_speed_spread) {
    std::fprintf(stderr, "error: --gpu-speed-spread: must be from 0 to %g, got %g\n", limits::gpu_speed_spread,
                 in.gpu_speed_spread);
    return 2;
  }
  in.only = args.get("only");
  // Relative to where the command runs: from a checkout's root, ../shared beside it and the
  // bundled profiles; anywhere else, the folders given.
  if (!read_measurements(args.get("shared", "../shared"), in)) return 2;
  int last_print = -1;
  in.progress = [&](int evals, double objective) {
    if (evals / 100 != last_print) {
      last_print = evals / 100;
      std::fprintf(stderr, "\r  fit: %d evaluations, objective %.3f%%   ", evals, objective);
    }
  };
  auto report = calibrate(in);
  std::fprintf(stderr, "\n");
  if (!report.ok()) {
    print_errors(report.errors());
    return report.errors().front().code == "unknown_set" ? 2 : 1;
  }
  print_report(report.value());
  if (args.has("dry-run")) {
    std::printf("--dry-run: profiles not written\n");
    return 0;
  }
  const std::string out_dir = args.get("out-dir", "profiles");
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  for (const Profile& p : report.value().profiles) {
    const std::string path = out_dir + "/" + p.name + ".json";
    if (!write_profile(path, p)) {
      std::fprintf(stderr, "error: cannot write %s\n", path.c_str());
      return 1;
    }
    std::printf("wrote %s\n", path.c_str());
  }
  return 0;
}

}  // namespace vtrain::cli
