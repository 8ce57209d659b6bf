#pragma once
// A GPU profile: published hardware figures plus the parameters of the operator time model and
// the communication model. Loaded from profiles/<gpu>.json by one loader for native and WASM.

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "vtrain/diagnostics.hpp"
#include "vtrain/enums.hpp"
#include "vtrain/registry.hpp"

namespace vtrain {

// One GEMM tile shape the library may pick, with its efficiency relative to the best tile.
struct GemmTile {
  int m = 128;                // tile rows (elements)
  int n = 128;                // tile columns (elements)
  double efficiency = 1.0;    // throughput of this tile relative to gemm_max_efficiency (fraction)
};

// All-reduce time inside one node for a group of `gpus`:
//   max(min_time_us, latency_us + 2 (gpus - 1) / gpus x bytes / busbw_GBps),
// fitted to measurements at the profile's nominal intra-node bandwidth. All-gather and
// reduce-scatter take half the latency terms and half the bus traffic.
struct IntraNodeCollective {
  int gpus = 2;               // group size (GPUs)
  double min_time_us = 0;     // floor: small messages cost at least this (microseconds)
  double latency_us = 20;     // fixed cost of one all-reduce (microseconds)
  double busbw_GBps = 200;    // bus bandwidth of all-reduce (GB/s)
};

// The kinds of kernel a profile's operator table may time.
enum class MeasuredOp { gemm, attention_fwd, attention_bwd, memory };
template <>
struct EnumNames<MeasuredOp> {
  static constexpr const char* key = "operator_table_op";
  static constexpr EnumName<MeasuredOp> table[] = {
      {MeasuredOp::gemm, "gemm", "a GEMM of m x n x k, batch of them"},
      {MeasuredOp::attention_fwd, "attention_fwd",
       "causal flash attention forward: m queries, n keys, head dimension k, batch = micro-batch x heads"},
      {MeasuredOp::attention_bwd, "attention_bwd", "its backward, the same shape"},
      {MeasuredOp::memory, "memory", "a memory-bound kernel moving `bytes` through HBM"}};
};

// A measured operator time; takes precedence over the model for a kernel of exactly this kind and
// shape, and between two measured shapes that differ in one dimension (or, for memory-bound
// kernels, in bytes) the time is interpolated (see core/src/hardware/operator_lookup.hpp).
struct OperatorMeasurement {
  MeasuredOp op = MeasuredOp::gemm;  // the kind of kernel it times
  long long m = 0, n = 0, k = 0, batch = 1;  // shape (elements); GEMMs and attention
  double bytes = 0;           // HBM traffic (B); memory-bound kernels
  std::string kernel;         // which kernel was timed, e.g. "layer_norm" (a label; optional)
  double time_us = 0;         // measured kernel time (microseconds)
};

// The operator table indexed for the simulator's inner loop: built once when a profile is read.
struct OperatorLookup;

// How far the profile's predictions fell from one set of measured iteration times, as its
// provenance records it (calibration.cross_validation.held_out, else calibration.in_sample).
struct ProfileAccuracy {
  std::string set;            // the measurements: "single-node" (one node), "multi-node" (the two
                              // calibration sets) or "published" (papers' runs, never fitted)
  std::string framework;      // for published runs: the training framework, e.g. "Megatron-LM"
  int runs = 0;               // measured runs (count)
  double mape_percent = 0;    // mean absolute error of the predictions (%)
  bool held_out = false;      // predicted by fits that had not seen those runs
  bool never_fitted = false;  // runs kept to check the profile, which no fit used (its "published"
                              // record); false for the runs it was fitted to, cross-validated or not
  bool moe = false;           // the runs are of mixtures of experts (the record's "moe")
  int gpus_min = 0, gpus_max = 0;  // the GPU counts the runs span (count); 0: not recorded
  int hidden_min = 0, hidden_max = 0;  // the hidden sizes of their models; 0: not recorded
};

struct Profile {
  std::string name;                  // profile id, e.g. "a100-sxm4-80gb"
  std::string display_name;          // e.g. "NVIDIA A100 SXM4 80GB"
  // "calibrated": its fitted parameters were fitted to measured runs of this GPU; "projected": the
  // datasheet's figures with the rest carried from another GPU's fit by stated rules
  // (provenance.kind; a profile without one is calibrated where its provenance records a calibration)
  std::string kind = "projected";

  // hardware
  double peak_fp16_tflops = 312;     // dense fp16/bf16 tensor-core peak (TFLOP/s)
  double peak_fp32_tflops = 19.5;    // fp32 peak without tensor cores (TFLOP/s)
  double peak_fp8_tflops = 0;        // dense FP8 tensor-core peak (TFLOP/s); 0: no FP8 (A100), optional in a file
  double hbm_GiB = 80;               // memory capacity (GiB)
  double hbm_GBps = 2039;            // memory bandwidth (GB/s)
  int sm_count = 108;                // streaming multiprocessors (count)
  double collective_sms = 16;        // SMs a ring collective's kernels hold while they run (count): a thread
                                     // block per NCCL channel, two channels for each of a node's eight NICs
                                     // (NVIDIA/nccl#1453's logs); NCCL's blocks never share an SM with compute
                                     // (NVIDIA/nccl#689). Taken from the compute beside sharded collectives
  double board_power_W = 400;        // maximum board power (W)
  double intra_node_GBps = 300;      // per-GPU per-direction intra-node bandwidth (GB/s)
  double inter_node_Gbps = 1600;     // per-node network bandwidth, all NICs (Gbit/s)
  int gpus_per_node = 8;             // GPUs in one node (count)
  // The host, for optimizer offload (optional in a file; 0: not given, offload refused):
  double pcie_GBps = 0;              // host-device copy bandwidth per GPU, each direction, pinned memory (GB/s)
  double host_memory_GBps = 0;       // the node's CPU memory bandwidth that a streaming kernel reaches (GB/s)

  // operator time model
  double gemm_max_efficiency = 0.8;  // best fraction of peak a large GEMM reaches (fraction)
  double fp8_gemm_efficiency = 0;    // the same for FP8 GEMMs, of the FP8 peak; 0: gemm_max_efficiency
                                     // (optional in a file) (fraction)
  std::vector<GemmTile> gemm_tiles;  // candidate tiles (at least one)
  double gemm_k_half = 64;           // reduction length at which a tile runs at half speed (elements)
  double attention_fwd_efficiency = 0.6;  // fused attention forward, fraction of peak (fraction)
  double attention_bwd_efficiency = 0.5;  // fused attention backward, fraction of peak (fraction)
  double memory_efficiency = 0.75;   // fraction of HBM bandwidth memory-bound kernels reach (fraction)
  double kernel_overhead_us = 3;     // GPU time per kernel beyond its work (microseconds)
  double host_issue_us = 10;         // host time to issue one forward kernel (microseconds)
  double host_issue_backward_us = 10;  // host time per backward kernel, issued by autograd (microseconds)
  double host_layer_us = 0;          // host time of one layer's forward code beyond its kernels (microseconds)
  double host_microbatch_us = 0;     // host time per forward step of a stage: batch, schedule (microseconds)
  double iteration_overhead_ms = 0;  // host work once per iteration: data, loss, bookkeeping (ms)
  double optimizer_bytes_per_param = 36;  // HBM bytes the optimizer step moves per parameter (B)
  // Spread of the speed of GPUs of one model in a fleet (manufacturing, power management, clocks):
  // the standard deviation of a GPU's compute time relative to the mean (fraction; optional in a
  // file, 0: every GPU as fast as the others). A step that synchronizes n GPUs runs at the pace of
  // the slowest of them.
  double gpu_speed_spread = 0;

  // communication model
  std::vector<IntraNodeCollective> intra_node;  // per group size, sorted by gpus
  double collective_sync_us = 0;     // host timing jitter per rank; a collective issued while the GPU
                                     // waits on the host waits for the slowest rank (microseconds)
  double inter_node_latency_us = 9.6;  // per ring step across nodes (microseconds)
  double inter_node_base_latency_us = 10;  // once per collective across nodes (microseconds)
  double inter_node_efficiency = 0.8;  // achieved fraction of NIC bandwidth (fraction)
  double p2p_latency_us = 20;        // fixed cost of a pipeline send (microseconds)
  double p2p_intra_efficiency = 0.7; // achieved fraction of intra-node link bandwidth (fraction)

  // memory model
  double runtime_reserved_GiB = 2;   // CUDA context, library workspaces, allocator slack (GiB)

  std::vector<OperatorMeasurement> operator_table;
  // operator_table indexed (parse_profile builds it; after editing the table, index_operator_table).
  // Null: the simulator models every kernel.
  std::shared_ptr<const OperatorLookup> operator_lookup;
  nlohmann::json provenance;         // where each number comes from
  std::vector<ProfileAccuracy> accuracy;  // read from the provenance; empty when it records none
};

// Reads and checks a profile document; errors name the field by JSON pointer.
Outcome<Profile> parse_profile(const nlohmann::json& j);
nlohmann::json to_json(const Profile& p);

// Builds p.operator_lookup from p.operator_table (null when the table is empty).
void index_operator_table(Profile& p);

// Profiles compiled into the library (from profiles/*.json).
const Registry<Profile>& bundled_profiles();

// The error for a GPU no bundled profile is named after, at `pointer` (e.g. "/cluster/gpu"):
// code "unknown_gpu", with the bundled names.
Diagnostic unknown_gpu(const std::string& name, const std::string& pointer);

}  // namespace vtrain
