#pragma once
// Fitting a profile's parameters to measurements: the intra-node all-reduce curves from
// nccl-tests output, then the operator and communication parameters to measured iteration times.

#include <functional>
#include <utility>
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

struct FitOptions {
  int max_evaluations = 3000;      // objective evaluations per start (count)
  int restarts = 3;                // Nelder-Mead restarts from the best point so far (count)
  int starts = 1;                  // descents: from the given profile, then from fixed spread points (count)
  int threads = 1;                 // threads simulating a set's runs (count; 1 in builds without threads)
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
                        const ValidationSetup& setup, int threads, std::vector<SetError>* errors = nullptr);

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

// ---------------------------------------------------------------------------------------------
// The calibration of the bundled A100 profiles, as one call: the policy (a nominal start, the
// parameters that are set rather than fitted, the measurements checked after the fit, the 40 GB
// board derived from the 80 GB one and the provenance each profile records) lives here; a front
// end reads the files and prints the report.

// nccl-tests all-reduce output of one group size inside a node.
struct AllreduceMeasurements {
  int gpus = 2;          // group size (GPUs)
  std::string csv_text;  // size(B), count, type, time(ns), busbw, time(ns), busbw
};

struct CalibrationInputs {
  // Measured iteration times (vTrain's CSV text): the runs on one node and those across nodes,
  // the sets a result's accuracy cites ("single-node", "multi-node").
  std::string single_node_csv;
  std::string multi_node_csv;
  std::vector<AllreduceMeasurements> allreduce;  // one per group size; at least one
  std::string only;               // fit to the set of this name alone ("": both)
  bool has_start = false;         // start from `start` rather than the nominal A100 values
  Profile start;                  // with has_start: the fit's start (e.g. a profile file)
  double gpu_speed_spread = 0;    // the spread of GPU speed, fixed (fraction); 0: none, or the start's
  ValidationSetup setup;          // how the measured runs were set up
  int max_evaluations = 10000;    // objective evaluations per start (count)
  int starts = 1;                 // descents (count); more spread over the parameters' bounds
  int folds = 0;                  // cross-validation folds (count; 0: none)
  int threads = 1;                // (count)
  std::function<void(int evaluations, double objective)> progress;  // the fit's, optional
};

// One intra-node all-reduce curve fitted.
struct AllreduceReport {
  int gpus = 0;                   // group size (GPUs)
  int points = 0;                 // measurements (count)
  CollectiveFit fit;
};

// The published runs of one training framework (profiles/published) against the fitted profile:
// never fitted, they check that the fit carries to other models, stacks and scales.
struct PublishedAccuracy {
  std::string framework;          // e.g. "Megatron-LM"
  std::vector<std::string> files; // where they are in the repository
  int runs = 0;                   // (count)
  double mape_percent = 0;        // (%)
  double max_abs_error_percent = 0;  // (%)
  int gpus_min = 0, gpus_max = 0;    // the GPU counts the runs span (count)
  int hidden_min = 0, hidden_max = 0;  // the hidden sizes of their models
};

struct CalibrationReport {
  std::vector<AllreduceReport> allreduce;   // per group size, as given
  FitResult fit;                            // the fitted profile and its in-sample errors per set
  std::vector<FitParameter> parameters;     // what was fitted, within which bounds
  bool cross_validated = false;
  CrossValidation cross_validation;         // with cross_validated
  std::vector<PublishedAccuracy> published;
  std::vector<Profile> profiles;            // to write: a100-sxm4-80gb, then a100-sxm4-40gb, with provenance
  double seconds = 0;                       // wall time (s)
};

// Fits, cross-validates and checks the A100 profiles. Errors name the input: "/single-node/line/12/...",
// "/allreduce/8/line/3", "/only".
Outcome<CalibrationReport> calibrate(const CalibrationInputs& inputs);

}  // namespace vtrain
