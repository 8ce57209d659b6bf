#pragma once
// A GPU measured by vtrain-profile (tools/vtrain-profile): the shapes the simulator asks it to
// time, and its measurements turned into a profile: the measured shapes' times as the profile's
// operator_table, and the operator and communication parameters fitted to them for every shape
// in between and beyond (docs/profiler.md).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vtrain/config.hpp"
#include "vtrain/diagnostics.hpp"
#include "vtrain/profile.hpp"

namespace vtrain {

// One model and plan whose kernels' shapes are to be measured.
struct ShapeCase {
  ModelConfig model;
  PlanConfig plan;
};

// The grid `vtrain profile-shapes` prints without configs: GPT-style (GeLU, biases) and
// LLaMA-style (SwiGLU, RoPE) layers of hidden 2048, 4096 and 8192 at sequence 2048 and 4096,
// tensor-parallel degrees 1 to 8, micro-batches 1, 2 and 4, flash attention.
std::vector<ShapeCase> default_shape_cases();

// The shapes of every case's kernels on one tensor-parallel rank, as the profiler reads them:
// {"format": "vtrain-profile-shapes", "version": 1, "gemm": [{m, n, k, batch}], "attention":
// [{seq, head_dim, batch_heads}], "memory": {"bytes": [...]}, "optimizer": {"params": [...]},
// "collectives": {"bytes": [...]}}; GEMMs and attention shapes unique and sorted, memory traffic,
// parameter counts and message sizes a log-spaced range covering the cases'.
nlohmann::json profile_shapes(const std::vector<ShapeCase>& cases);

// Measurements a profile's model would give for `shapes` (profile_shapes' output), each time
// scaled by 1 + u, u uniform in [-noise, noise] from a fixed generator seeded by `seed`:
// synthetic data to exercise the measurement-to-profile path without a GPU, labelled
// "synthetic": true and with the profile it came from. `gpus`: the group sizes of collectives.
nlohmann::json synthesize_measurements(const Profile& from, const nlohmann::json& shapes, double noise,
                                       unsigned seed, const std::vector<int>& gpus);

// One fitted parameter and how well the fitted model reproduces the measurements it was fitted to.
struct MeasuredFitPart {
  std::string what;             // e.g. "gemm", "memory", "attention_fwd", "all_reduce/8"
  int points = 0;               // measurements (count)
  double mean_error_percent = 0;  // of the fitted model against them (%)
  double max_error_percent = 0;   // (%)
};

struct MeasuredProfileReport {
  Profile profile;              // the base with the fitted parameters, operator_table and provenance
  std::vector<MeasuredFitPart> parts;
  bool synthetic = false;       // the measurements were synthesized (never labelled measured)
  std::vector<std::string> notes;  // what was measured but not used, and why
};

// Turns vtrain-profile measurements into a profile: `base` gives the hardware figures (peak,
// bandwidths) and every parameter the measurements do not determine. Fitted, in this order:
// memory_efficiency and kernel_overhead_us (memory-bound kernels, time = overhead + bytes / rate),
// gemm_max_efficiency, the tiles' efficiencies and gemm_k_half (16-bit GEMMs, the tile/wave model),
// attention_fwd/bwd_efficiency (flash attention), optimizer_bytes_per_param (fused Adam), the
// intra-node all-reduce curve per group size and p2p_intra_efficiency / p2p_latency_us (send/recv).
// provenance.kind is "measured", or "synthetic" for synthesized measurements. Errors name the
// field by JSON pointer into the measurements.
Outcome<MeasuredProfileReport> profile_from_measurements(const nlohmann::json& measurements, const Profile& base,
                                                         const std::string& name);

}  // namespace vtrain
