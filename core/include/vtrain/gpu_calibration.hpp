#pragma once
// Fitting a GPU's profile to the published runs of that GPU (profiles/published/*.csv rows whose
// "GPU" column names it): the few parameters a datasheet cannot give, from a start (the profile
// projected from the A100's fit by scripts/project-profiles.mjs), with cross-validation grouped
// by model. The A100 profiles have their own calibration (vtrain/calibration.hpp).

#include <functional>
#include <string>
#include <vector>

#include "vtrain/calibration.hpp"
#include "vtrain/diagnostics.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/validation.hpp"

namespace vtrain {

// The parameters fitted to a GPU's published runs: the efficiencies of 16-bit and of FP8 GEMMs,
// of memory-bound kernels and of the network. The rest
// stays as projected: a few published throughputs cannot separate host costs or latencies.
const std::vector<FitParameter>& gpu_fit_parameters();

// The published runs measured on `gpu` (less those marked "held out"), one set per precision ("published-fp8", "published-bf16",
// ...), and the files they come from (repository paths); and the held-out runs, which check the fit,
// one set per file (named by its path).
struct GpuMeasurements {
  std::vector<MeasurementSet> sets;
  std::vector<std::string> files;
  std::vector<MeasurementSet> checks;
};
Outcome<GpuMeasurements> published_runs_of(const std::string& gpu);

struct GpuCalibrationInputs {
  Profile start;                  // the start; its name is the GPU whose runs are fitted
  int folds = 5;                  // cross-validation folds (count; < 2: none)
  int max_evaluations = 2000;     // objective evaluations per start (count)
  int threads = 1;                // (count)
  std::function<void(int evaluations, double objective)> progress;  // optional
};

struct GpuCalibrationReport {
  FitResult fit;                            // fitted profile, in-sample errors per set
  std::vector<FitParameter> parameters;     // what was fitted, within which bounds
  bool cross_validated = false;
  CrossValidation cross_validation;         // held-out errors per set
  std::vector<std::string> files;           // the published files the runs come from
  std::vector<SetError> checks;             // the fitted profile's error on the held-out runs, per file
                                            // (SetError::name: its path), which no fit saw
  Profile profile;                          // to write: the fitted profile with provenance kind "calibrated"
  double seconds = 0;                       // wall time (s)
};

// Errors: "/gpu" when no published run names the start's GPU.
Outcome<GpuCalibrationReport> calibrate_gpu(const GpuCalibrationInputs& inputs);

}  // namespace vtrain
