#pragma once
// Measured iteration times (the CSV format of vTrain's published measurements) and the accuracy of
// the simulator against them.

#include <string>
#include <string_view>
#include <vector>

#include "vtrain/config.hpp"
#include "vtrain/diagnostics.hpp"
#include "vtrain/profile.hpp"

namespace vtrain {

struct MeasuredRun {
  int line = 0;                 // line in the file (1-based, header is line 1)
  double params_billion = 0;    // model size column where the file has one (billions)
  int num_gpus = 0;             // GPUs (count)
  int global_batch = 0;         // sequences per iteration
  int micro_batch = 0;          // sequences per micro-batch
  int hidden = 0;               // model width
  int heads = 0;                // attention heads
  int layers = 0;               // transformer layers
  int seq_len = 0;              // tokens per sequence
  int tp = 1, dp = 1, pp = 1;   // parallel degrees
  double measured_ms = 0;       // measured iteration time (ms)
};

// Parses the CSV text (header names as published; a UTF-8 byte-order mark is allowed). Errors name
// the line and column, e.g. pointer "/line/12/hidden size".
Outcome<std::vector<MeasuredRun>> parse_measurements(std::string_view csv_text);

// How the measured runs were set up (Megatron-DeepSpeed GPT runs, as their configurations state).
struct ValidationSetup {
  std::string gpu = "a100-sxm4-80gb";  // profile
  int gpus_per_node = 8;               // GPUs per node (count)
  double intra_node_GBps = 0;          // 0: the profile's (GB/s)
  double inter_node_Gbps = 800;        // per-node network bandwidth (Gbit/s)
  int vocab = 50257;                   // vocabulary (entries)
  Recompute recompute = Recompute::full;
  Attention attention = Attention::unfused;
  Precision precision = Precision::fp16;
  bool dp_overlap = false;             // no gradient bucketing: reduction after the backward pass
};

SimConfig config_for_run(const MeasuredRun& run, const ValidationSetup& setup);

struct ValidationRow {
  MeasuredRun run;
  double predicted_ms = 0;
  double error_percent = 0;     // (predicted - measured) / measured x 100
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  double mape_percent = 0;      // mean of |error_percent|
  double max_abs_error_percent = 0;
};

// Simulates every run with `profile` (nullptr: the bundled one named by setup.gpu).
Outcome<ValidationReport> validate_runs(const std::vector<MeasuredRun>& runs, const ValidationSetup& setup,
                                        const Profile* profile = nullptr);

}  // namespace vtrain
