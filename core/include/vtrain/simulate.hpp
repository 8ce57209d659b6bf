#pragma once
// Predicts one training iteration: builds the per-stage execution graph from the profile, runs
// the pipeline simulation, and derives time, utilization, memory and cost.

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vtrain/config.hpp"
#include "vtrain/diagnostics.hpp"
#include "vtrain/model.hpp"
#include "vtrain/profile.hpp"
#include "vtrain/reliability.hpp"

namespace vtrain {

// Where one stage's iteration time goes (seconds); the parts add up to the iteration time.
struct Breakdown {
  double forward = 0;                 // forward kernels (with embedding and loss)
  double backward = 0;                // backward kernels
  double recompute = 0;               // recomputed forward kernels
  double optimizer = 0;               // optimizer step
  double pipeline_bubble = 0;         // idle: pipeline fill/drain and waiting for slower stages
  double tp_comm_exposed = 0;         // tensor-parallel collectives on the compute stream
  double cp_comm_exposed = 0;         // context-parallel K/V ring exchange not hidden by attention
  double pp_comm_exposed = 0;         // waiting for (or blocked on) pipeline transfers
  double dp_comm_exposed = 0;         // gradient reduction (and ZeRO all-gather) not hidden
  double embedding_comm_exposed = 0;  // tied-embedding gradient all-reduce, first and last stage
  double host_overhead = 0;           // GPU idle while the host issues kernels
  double straggler_wait = 0;          // waiting for the slowest GPU the step synchronizes
  double total() const;
};

struct MemoryBreakdown {
  double weights = 0;            // 16-bit parameters, with fp8 also the linear layers' FP8 copies (GiB)
  double gradients = 0;          // gradient buffers (GiB)
  double optimizer_states = 0;   // fp32 master weights and Adam moments (GiB)
  double activations = 0;        // saved activations of in-flight micro-batches (GiB)
  double buffers = 0;            // logits, communication buffers, runtime reserve (GiB)
  double total() const;
};

enum class BlockKind { forward, recompute, backward, pp_send, dp_comm, embedding_comm, optimizer, shard_comm };
template <>
struct EnumNames<BlockKind> {
  static constexpr const char* key = "block_kind";
  static constexpr EnumName<BlockKind> table[] = {
      {BlockKind::forward, "forward", "forward pass of a micro-batch"},
      {BlockKind::recompute, "recompute", "recomputed forward"},
      {BlockKind::backward, "backward", "backward pass of a micro-batch"},
      {BlockKind::pp_send, "pp_send", "pipeline transfer"},
      {BlockKind::dp_comm, "dp_comm", "data-parallel gradient reduction or ZeRO all-gather"},
      {BlockKind::embedding_comm, "embedding_comm", "tied-embedding gradient all-reduce"},
      {BlockKind::optimizer, "optimizer", "optimizer step"},
      {BlockKind::shard_comm, "shard_comm",
       "sharded parameters' all-gathers and gradient reduce-scatters of a micro-batch's forward or backward "
       "(ZeRO-3, FSDP), on the communication stream beside it: from the first collective's start to the last's end"}};
};

// What a result notes about its config beyond the numbers, by kind, so that a program can act on
// one without reading the sentence.
enum class WarningCode {
  uneven_stages,     // pp does not divide the layers: some stages hold one layer more
  no_effect,         // a setting that the rest of the plan leaves without effect
  tp_across_nodes,   // a tensor-parallel group spans nodes: its collectives cross the network
  out_of_memory,     // the plan needs more memory than the GPU has
  timeline_omitted,  // too many blocks to return a timeline
  overlap_slower,    // the overlapped gradient reduction ends later than one after the backward would
  beyond_real_run,   // the training run would take longer than any run has (kLongestRealRunDays)
};
template <>
struct EnumNames<WarningCode> {
  static constexpr const char* key = "warning_code";
  static constexpr EnumName<WarningCode> table[] = {
      {WarningCode::uneven_stages, "uneven_stages", "pp does not divide the layers: some stages hold one more"},
      {WarningCode::no_effect, "no_effect", "a setting the rest of the plan leaves without effect"},
      {WarningCode::tp_across_nodes, "tp_across_nodes", "a tensor-parallel group spans nodes"},
      {WarningCode::out_of_memory, "out_of_memory", "the plan needs more memory than the GPU has"},
      {WarningCode::timeline_omitted, "timeline_omitted", "too many blocks to return a timeline"},
      {WarningCode::overlap_slower, "overlap_slower",
       "the overlapped gradient reduction ends later than one after the backward"},
      {WarningCode::beyond_real_run, "beyond_real_run", "the training run would take longer than any run has"}};
};

// Training days past which a result is beyond any real run (days): ten years, where the longest
// published LLM pre-training runs took months.
inline constexpr double kLongestRealRunDays = 3652.5;

struct SimWarning {
  WarningCode code;
  std::string pointer;  // the config field it is about, as a JSON pointer (/plan/pp)
  std::string message;  // a sentence for a reader, lower-case first word
};

struct TimelineBlock {
  BlockKind kind;
  int micro_batch;   // -1 where not per micro-batch
  int chunk;         // virtual stage (model chunk) on this stage
  double start_s;    // from the start of the iteration (s)
  double duration_s; // (s)
};

// Component times that explain the totals (seconds, per GPU).
struct SimDetails {
  double layer_forward_s = 0;    // one layer, one micro-batch
  double layer_backward_s = 0;
  double layer_recompute_s = 0;
  double p2p_send_s = 0;         // one activation transfer between stages (slowest link)
  double dp_reduce_s = 0;        // gradient reduction of the largest stage
  double optimizer_step_s = 0;   // slowest stage
  double embedding_allreduce_s = 0;
  int tp_nodes = 1;              // nodes one tensor-parallel group spans
  int dp_nodes = 1;              // nodes one data-parallel group spans
  // The slowest GPU (profile's gpu_speed_spread > 0): a step that synchronizes n GPUs runs at the
  // pace of the slowest, its compute longer by spread x the expected maximum of n standard normal
  // draws. The wait, by the group whose synchronization adds it (adding up to straggler_wait_s):
  double gpu_speed_spread = 0;         // the profile's (fraction)
  double straggler_wait_s = 0;         // the whole wait (the busiest stage's breakdown part)
  double straggler_compute_s = 0;      // the busiest stage's compute it stretches (forward, backward,
                                       // recomputation, optimizer)
  double straggler_slowest_sigmas = 0; // expected maximum of n standard normal draws, n the GPUs
  double straggler_tensor_s = 0;       // the slowest of a layer's tensor- and context-parallel group
  double straggler_pipeline_s = 0;     // beyond it, the slowest of a replica's pipeline stages
  double straggler_data_s = 0;         // beyond it, the slowest replica at the gradient synchronization
  int layers_per_stage = 0;      // transformer layers on each pipeline stage (the most, where uneven)
  bool even_stages = true;       // every stage holds layers_per_stage layers (pp x virtual stages divides them)
  // A mixture of experts (docs/moe.md), per MoE layer, one micro-batch, one GPU:
  bool moe = false;                  // the model has expert layers (the fields below are set)
  double moe_layer_forward_s = 0;    // a MoE layer's forward
  double moe_layer_backward_s = 0;   // its backward
  double moe_dispatch_bytes = 0;     // what one GPU sends and receives in one all-to-all (B), padded by the load
  double moe_all_to_all_s = 0;       // the four all-to-alls (dispatch, combine; forward and backward) of a layer
  double moe_expert_tokens = 0;      // tokens of the busiest expert (count), the grouped GEMMs' rows
  double moe_load_imbalance = 1;     // the busiest EP rank's tokens over the mean (ratio)
  int ep_nodes = 1;                  // nodes one expert-parallel group spans
  int edp = 1;                       // expert data-parallel degree: tp x dp / (etp x ep) (GPUs)
  double expert_reduce_s = 0;        // the expert gradients' reduction over the expert data-parallel group
  // Optimizer offload (plan.optimizer_offload), the slowest stage's step, one GPU:
  bool offload = false;              // the fields below are set
  double offload_gradient_copy_s = 0;  // its gradient shard to host memory over PCIe, all of it
  double offload_gradient_exposed_s = 0;  // of that, what runs after the gradient reduction ends
  double offload_cpu_step_s = 0;     // Adam on the CPU, bound by the host memory the node's GPUs share
  double offload_parameter_copy_s = 0;  // the updated 16-bit weights back over PCIe
  double offload_host_GiB = 0;       // host memory this GPU's shard holds: fp32 weights, moments, gradients (GiB)
};

// What an operator's kernels are bound by.
enum class OperatorKind { gemm, attention, memory, collective };
template <>
struct EnumNames<OperatorKind> {
  static constexpr const char* key = "operator_kind";
  static constexpr EnumName<OperatorKind> table[] = {
      {OperatorKind::gemm, "gemm", "GEMMs"},
      {OperatorKind::attention, "attention", "a fused attention kernel"},
      {OperatorKind::memory, "memory", "memory-bound kernels"},
      {OperatorKind::collective, "collective", "a tensor-parallel collective"}};
};

// One operator of the model (a norm, a projection, the softmax, a tensor-parallel collective, ...)
// for one micro-batch on one GPU: the GPU time of the kernels it launches, by phase. The layer's
// operators summed over its layers and micro-batches make up the breakdown's forward, recompute,
// backward and (before any wait for other ranks) tensor-parallel communication.
struct OperatorTime {
  std::string block;        // "layer" (each transformer layer), "embedding" (first stage), "head" (last stage)
  std::string name;
  OperatorKind kind = OperatorKind::memory;  // what its kernels are bound by
  int kernels = 0;          // kernels it launches per micro-batch, all phases
  double forward_s = 0;
  double recompute_s = 0;
  double backward_s = 0;
  double work_flops = 0;    // FLOPs its GEMM and attention kernels execute, all phases
  double hbm_bytes = 0;     // bytes its memory-bound kernels move, all phases
  double comm_bytes = 0;    // collective buffer bytes, all phases
  int measured_kernels = 0;      // kernels timed by the profile's operator_table at their shape (count)
  int interpolated_kernels = 0;  // kernels timed between two of its measured shapes (count)
  double total_s() const { return forward_s + recompute_s + backward_s; }
  // Where its time came from: "measured" (every kernel at a measured shape), "interpolated" (every
  // kernel from the table, some between measured shapes), "modelled" (none from the table) or "mixed".
  const char* time_source() const {
    const int table = measured_kernels + interpolated_kernels;
    if (table == 0) return "modelled";
    if (table < kernels) return "mixed";
    return interpolated_kernels > 0 ? "interpolated" : "measured";
  }
};

struct SimResult {
  SimConfig config;              // as simulated, bandwidths resolved
  int micro_batches = 1;         // per iteration per replica
  double iteration_time_s = 0;
  Breakdown breakdown;           // of breakdown_stage
  int breakdown_stage = 0;       // the busiest stage
  std::vector<Breakdown> stage_breakdowns;
  double model_flops_per_iteration = 0;     // FLOPs of forward + backward, all GPUs
  double hardware_flops_per_iteration = 0;  // plus recomputation
  double mfu = 0;                // model FLOPs / (time x GPUs x peak); fp8 plans: the FP8 peak
  double hfu = 0;                // hardware FLOPs / (time x GPUs x peak)
  double tokens_per_s = 0;
  double tflops_per_gpu = 0;     // achieved model TFLOP/s per GPU
  ParameterCounts parameters;
  MemoryBreakdown memory;        // of memory_stage (the largest)
  int memory_stage = 0;
  std::vector<MemoryBreakdown> stage_memory;
  double memory_capacity_GiB = 0;
  bool fits_in_memory = true;
  // training (when config.training.tokens > 0)
  double iterations = 0;
  double training_days = 0;
  double gpu_hours = 0;
  double cost_usd = 0;           // when a price is given
  double energy_MWh = 0;         // GPU-hours at board power
  Goodput goodput;               // training_days (ideal) against the expected days with failures,
                                 // restarts and checkpoints (config.reliability)
  SimDetails details;
  // How close the profile's predictions came to measured runs like this one (runs 0: none
  // recorded): the calibration runs on one node for a plan on one node, those across nodes for a
  // plan within their GPU counts; beyond them, the published Megatron-LM runs, with the other
  // published runs (other frameworks) in accuracy_also.
  ProfileAccuracy accuracy;
  std::vector<ProfileAccuracy> accuracy_also;
  // The profile's provenance.kind: "calibrated" (fitted to measured runs of this GPU) or
  // "projected" (datasheet figures, the rest carried from another GPU's fit by stated rules)
  const char* profile_kind = "calibrated";
  std::vector<OperatorTime> operators;  // when config.output.operators: in the order they first run
  bool timeline_included = false;
  std::vector<std::vector<TimelineBlock>> timeline;  // per stage
  std::vector<SimWarning> warnings;
};

// Reusable buffers for many simulations (the explorer's inner loop); optional.
struct SimScratch;

// Simulates a checked config. `profile` overrides the bundled profile named by /cluster/gpu.
Outcome<SimResult> simulate(const SimConfig& config, const Profile* profile = nullptr);

nlohmann::json to_json(const SimResult& r, bool include_timeline = true);
// The same document as to_json(r).dump(), written directly: the timeline of a long pipeline has
// tens of thousands of blocks, and building it as a JSON tree first costs 30x more.
std::string to_json_text(const SimResult& r);
nlohmann::json to_json(const Breakdown& b);
nlohmann::json to_json(const MemoryBreakdown& m);
nlohmann::json to_json(const Goodput& g);

}  // namespace vtrain
