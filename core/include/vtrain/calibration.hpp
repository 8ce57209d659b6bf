#pragma once
// Fitting a profile's parameters to measurements: the intra-node all-reduce curves from
// nccl-tests output, then the operator and communication parameters to measured iteration times.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "vtrain/diagnostics.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/validation.hpp"

namespace vtrain {

struct CollectivePoint {
  double bytes = 0;    // message size (B)
  double time_us = 0;  // measured time, mean of out-of-place and in-place (microseconds)
};

// Reads nccl-tests all-reduce output in CSV form: size(B), count, type, time(ns), busbw(GB/s),
// time(ns), busbw(GB/s).
Outcome<std::vector<CollectivePoint>> parse_allreduce_csv(std::string_view text);

struct CollectiveFit {
  IntraNodeCollective fit;
  double mean_error_percent = 0;  // weighted evenly over log(size)
  double max_error_percent = 0;
};

// Fits max(floor, latency + 2(n-1)/n bytes / busbw) minimizing relative error evenly over
// log(size), so small and large messages count alike.
CollectiveFit fit_allreduce(int gpus, const std::vector<CollectivePoint>& points);

// A profile parameter the iteration-time fit may move, within physical bounds.
struct FitParameter {
  std::string name;   // JSON pointer into the profile, e.g. "/compute/host_issue_us"
  double lower = 0;
  double upper = 1;
};

const std::vector<FitParameter>& default_fit_parameters();
double get_parameter(const Profile& p, const std::string& name);
void set_parameter(Profile& p, const std::string& name, double value);

struct MeasurementSet {
  std::string name;                // e.g. "single-node"
  std::vector<MeasuredRun> runs;
};

// Runs body(i) for i in [0, n); the CLI passes a threaded version.
using ParallelFor = std::function<void(int n, const std::function<void(int)>& body)>;

struct FitOptions {
  int max_evaluations = 3000;      // objective evaluations per start (count)
  int restarts = 3;                // Nelder-Mead restarts from the best point so far
  int starts = 1;                  // descents: from the given profile, then from fixed spread points
  ParallelFor parallel_for;        // optional
  std::function<void(int evaluations, double objective)> progress;  // optional
};

struct SetError {
  std::string name;
  int runs = 0;
  double mape_percent = 0;
  double max_abs_error_percent = 0;
};

struct FitResult {
  Profile profile;                 // start profile with the fitted parameters
  std::vector<SetError> errors;    // per set, in-sample
  double objective = 0;            // mean of the sets' MAPE (percent)
  int evaluations = 0;
};

// Mean over sets of each set's MAPE for `profile` (percent), and per-set errors.
double evaluate_profile(const Profile& profile, const std::vector<MeasurementSet>& sets,
                        const ValidationSetup& setup, const ParallelFor& parallel_for,
                        std::vector<SetError>* errors = nullptr);

// Nelder-Mead over the parameters (bounded by a logistic map) minimizing evaluate_profile.
FitResult fit_profile(const Profile& start, const std::vector<FitParameter>& params,
                      const std::vector<MeasurementSet>& sets, const ValidationSetup& setup,
                      const FitOptions& options);

// Cross-validation: runs grouped by model size (hidden, layers); groups are dealt to `folds`
// folds; each fold is predicted by a fit on the others.
struct CrossValidation {
  int folds = 0;
  std::vector<SetError> held_out;  // per set, over all held-out predictions
};
CrossValidation cross_validate(const Profile& start, const std::vector<FitParameter>& params,
                               const std::vector<MeasurementSet>& sets, const ValidationSetup& setup,
                               int folds, const FitOptions& options);

}  // namespace vtrain
