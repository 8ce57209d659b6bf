#pragma once
// Inputs of one simulation: model, cluster, plan and training, kept apart as separate structs.
// JSON field names equal the C++ member names; every field has its unit in the comment.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "vtrain/diagnostics.hpp"
#include "vtrain/enums.hpp"
#include "vtrain/registry.hpp"
#include "vtrain/reliability.hpp"

namespace vtrain {

enum class Mlp { gelu, swiglu, geglu };
// A gated MLP: three weight matrices (gate, up, down) and an activation of two inputs.
inline bool gated(Mlp m) { return m != Mlp::gelu; }
// How a layer's attention and MLP meet the residual stream: one after the other (GPT-2, Llama),
// or side by side from the same input, summed before their one tensor-parallel reduction (GPT-J
// and PaLM with one norm; GPT-NeoX and Pythia with a norm for each).
enum class Residual { sequential, parallel, parallel_two_norms };
enum class Norm { layernorm, rmsnorm };
enum class PositionEmbedding { learned, rope, alibi };
enum class Recompute { none, selective, full };
enum class Attention { flash, unfused, triton };
// Whether the attention kernels are fused (flash): FlashAttention-2 or FlashAttention in Triton.
inline bool fused_attention(Attention a) { return a != Attention::unfused; }
enum class Precision { fp16, bf16, fp8 };
enum class Placement { tp_dp_pp, tp_pp_dp };
// How a mixture-of-experts layer scores its experts (docs/moe.md).
enum class Router { softmax, sigmoid };

template <>
struct EnumNames<Mlp> {
  static constexpr const char* key = "mlp";
  static constexpr EnumName<Mlp> table[] = {{Mlp::gelu, "gelu", "GeLU (2 GEMMs)"},
                                            {Mlp::swiglu, "swiglu", "SwiGLU (gated, 3 GEMMs)"},
                                            {Mlp::geglu, "geglu", "GeGLU (gated, 3 GEMMs)"}};
};
template <>
struct EnumNames<Residual> {
  static constexpr const char* key = "residual";
  static constexpr EnumName<Residual> table[] = {
      {Residual::sequential, "sequential", "sequential (attention, then MLP)"},
      {Residual::parallel, "parallel", "parallel, one norm (GPT-J, PaLM)"},
      {Residual::parallel_two_norms, "parallel_two_norms", "parallel, two norms (GPT-NeoX, Pythia)"}};
};
template <>
struct EnumNames<Norm> {
  static constexpr const char* key = "norm";
  static constexpr EnumName<Norm> table[] = {{Norm::layernorm, "layernorm", "LayerNorm"},
                                             {Norm::rmsnorm, "rmsnorm", "RMSNorm"}};
};
template <>
struct EnumNames<PositionEmbedding> {
  static constexpr const char* key = "position";
  static constexpr EnumName<PositionEmbedding> table[] = {
      {PositionEmbedding::learned, "learned", "learned"},
      {PositionEmbedding::rope, "rope", "rotary (RoPE)"},
      {PositionEmbedding::alibi, "alibi", "ALiBi (bias on the scores)"}};
};
template <>
struct EnumNames<Recompute> {
  static constexpr const char* key = "recompute";
  static constexpr EnumName<Recompute> table[] = {
      {Recompute::none, "none", "none"},
      {Recompute::selective, "selective", "selective (the attention core)"},
      {Recompute::full, "full", "full (every layer's forward)"}};
};
template <>
struct EnumNames<Attention> {
  static constexpr const char* key = "attention";
  static constexpr EnumName<Attention> table[] = {
      {Attention::flash, "flash", "fused (flash)"},
      {Attention::unfused, "unfused", "unfused"},
      {Attention::triton, "triton", "fused, FlashAttention in Triton (llm-foundry's triton)"}};
};
template <>
struct EnumNames<Precision> {
  static constexpr const char* key = "precision";
  static constexpr EnumName<Precision> table[] = {{Precision::fp16, "fp16", "fp16 (16-bit gradients)"},
                                                  {Precision::bf16, "bf16", "bf16 (fp32 gradient buffers)"},
                                                  {Precision::fp8, "fp8", "fp8 (Transformer Engine: FP8 linear layers, bf16 elsewhere)"}};
};
template <>
struct EnumNames<Placement> {
  static constexpr const char* key = "placement";
  static constexpr EnumName<Placement> table[] = {{Placement::tp_dp_pp, "tp-dp-pp", "tp, dp, pp"},
                                                  {Placement::tp_pp_dp, "tp-pp-dp", "tp, pp, dp"}};
};

template <>
struct EnumNames<Router> {
  static constexpr const char* key = "router";
  static constexpr EnumName<Router> table[] = {
      {Router::softmax, "softmax", "softmax over the experts' scores (Mixtral, Qwen)"},
      {Router::sigmoid, "sigmoid", "sigmoid scores with a balancing bias (DeepSeek-V3, aux-loss-free)"}};
};

// How the nodes' network is built (/cluster/network/topology): one non-blocking switch between
// all nodes, a rail-optimized two-tier leaf-spine fabric (GPU i of each node on the leaf of rail i,
// nodes_per_leaf nodes a leaf), or a three-tier Clos (leaf, spine, core; nodes_per_pod nodes under
// one spine group).
enum class Topology { flat, leaf_spine, clos3 };
template <>
struct EnumNames<Topology> {
  static constexpr const char* key = "topology";
  static constexpr EnumName<Topology> table[] = {
      {Topology::flat, "flat", "one non-blocking switch"},
      {Topology::leaf_spine, "leaf_spine", "rail-optimized leaf-spine (two tiers)"},
      {Topology::clos3, "clos3", "rail-optimized three-tier Clos (leaf, spine, core)"}};
};
// The algorithm of an inter-node all-reduce: NCCL's ring, its (double binary) tree, or whichever of
// them (and in-network reduction, where the fabric has it) is predicted fastest, as NCCL's tuner
// chooses by message size and node count.
enum class NetAlgorithm { auto_select, ring, tree };
template <>
struct EnumNames<NetAlgorithm> {
  static constexpr const char* key = "net_algorithm";
  static constexpr EnumName<NetAlgorithm> table[] = {
      {NetAlgorithm::auto_select, "auto", "the fastest, by message size and node count (NCCL's choice)"},
      {NetAlgorithm::ring, "ring", "ring"},
      {NetAlgorithm::tree, "tree", "double binary tree"}};
};

// Largest value of each field (in the field's unit). The JSON readers and the measurement files
// reject anything above, so that every product the simulator forms stays in range; the schema
// (api::schema) reports them.
namespace limits {
inline constexpr int layers = 100000;
inline constexpr int hidden = 10000000;
inline constexpr int heads = 100000;
inline constexpr int seq_len = 100000000;
inline constexpr int vocab = 100000000;
inline constexpr int ffn_hidden = 100000000;
inline constexpr int num_gpus = 100000000;
inline constexpr int gpus_per_node = 4096;
inline constexpr int tp = 1000000;
inline constexpr int pp = 1000000;
inline constexpr int dp = 100000000;
inline constexpr int cp = 100000;
inline constexpr int head_dim = 100000;
inline constexpr int lora_rank = 10000000;
inline constexpr int micro_batch = 100000000;
inline constexpr int global_batch = 1000000000;
inline constexpr int virtual_stages = 100000;
inline constexpr int experts = 100000;            // routed experts of a MoE layer
inline constexpr double capacity_factor = 1000;   // a MoE layer's expert capacity over the mean load
inline constexpr int vocab_pad_multiple = 1000000;
inline constexpr double intra_node_GBps = 1e6;
inline constexpr double inter_node_Gbps = 1e8;
inline constexpr double price_per_gpu_hour_usd = 1e6;
inline constexpr double gpu_speed_spread = 0.2;  // a fifth of the mean
inline constexpr int nodes_per_leaf = 1000000;
inline constexpr int nodes_per_pod = 100000000;
inline constexpr double oversubscription = 1000;
inline constexpr double hop_latency_us = 1e6;
inline constexpr double tokens = 1e18;
// reliability (/reliability)
inline constexpr double failures_per_gpu_hour = 1e3;
inline constexpr double node_mtbf_hours = 1e9;
inline constexpr double restart_minutes = 1e7;
inline constexpr double checkpoint_GB = 1e12;
inline constexpr double storage_GBps = 1e9;
inline constexpr double checkpoint_interval_minutes = 1e9;
// Smallest values that can be physical: a link slower than the first PCIe lane (0.25 GB/s) or
// than 10 Mbit/s Ethernet has carried no GPU's traffic, and a run trains on whole tokens. A
// value below is an error naming the bound (0.1 GB/s, 0.01 Gbit/s and 1 token).
inline constexpr double min_intra_node_GBps = 0.1;
inline constexpr double min_inter_node_Gbps = 0.01;
inline constexpr double min_tokens = 1;
// explore requests (/explore)
inline constexpr double deadline_days = 1e9;
// The plans of one sweep are held in memory (and each is a row of its answer): the default bound
// is also the largest one. The pipeline blocks bound its time: 4e10 is ten times the default.
inline constexpr long long max_plans = 1000000;
inline constexpr double max_blocks = 4e10;
// compute-optimal requests
inline constexpr double budget_days = 1e6;
inline constexpr double budget_gpu_days = 1e12;
inline constexpr double budget_usd = 1e15;
inline constexpr double budget_gpu_hours = 1e15;
inline constexpr double budget_flops = 1e35;
inline constexpr int optimal_seq_len = 1000000;
inline constexpr int optimal_global_batch = 100000000;
inline constexpr double tokens_per_param = 1e6;
inline constexpr double fit_E = 100;       // the loss floor of a custom scaling fit
inline constexpr double fit_A = 1e12;
inline constexpr double fit_B = 1e12;
inline constexpr double fit_exponent = 5;  // alpha and beta
inline constexpr double params = 1e15;     // a candidate size bound (parameters)
inline constexpr size_t optimal_candidates = 200;  // candidate sizes of one compute-optimal request
inline constexpr size_t description_chars = 4096;
}  // namespace limits

// A mixture-of-experts model's expert layers (/model/moe, docs/moe.md). experts 0: a dense model
// (the config has no /model/moe, or null).
struct MoeConfig {
  int experts = 0;                   // routed experts per MoE layer (count)
  int experts_per_token = 0;         // routed experts each token passes through, top-k (count)
  int expert_ffn_hidden = 0;         // one routed expert's MLP inner width (elements); its kind is /model/mlp
  int shared_experts = 0;            // experts every token passes through (count)
  int shared_expert_ffn_hidden = 0;  // one shared expert's MLP inner width (elements); 0: expert_ffn_hidden
  int first_dense_layers = 0;        // leading layers that are dense, with /model/ffn_hidden (count)
  int layer_frequency = 1;           // every Nth layer after first_dense_layers is a MoE layer (count)
  Router router = Router::softmax;   // how the router scores the experts
  double capacity_factor = 0;        // each expert's capacity over its mean load (ratio); 0: dropless
  bool operator==(const MoeConfig&) const = default;
};

// Multi-head latent attention (DeepSeek-V2/V3, /model/mla): queries through a low-rank bottleneck
// (hidden -> q_lora_rank -> heads x (nope + rope)), keys and values from one compressed latent
// (hidden -> kv_lora_rank + rope; kv_lora_rank -> heads x (nope + v)), each latent normalized.
struct MlaConfig {
  int q_lora_rank = 1536;       // query bottleneck (elements); 0: a plain query projection (DeepSeek-V2-Lite)
  int kv_lora_rank = 512;       // key/value latent (elements)
  int qk_nope_head_dim = 128;   // per-head query/key width without rotary positions (elements)
  int qk_rope_head_dim = 64;    // per-head query/key width with rotary positions (elements; the key's is shared by all heads)
  int v_head_dim = 128;         // per-head value width (elements)
  bool operator==(const MlaConfig&) const = default;
};

struct ModelConfig {
  std::string name = "custom";      // preset name, or "custom"
  int layers = 96;                  // transformer layers (count)
  int hidden = 12288;               // model width h (elements)
  int heads = 96;                   // attention heads (count)
  int kv_heads = 96;                // key/value heads (count); < heads is grouped-query attention
  int head_dim = 0;                 // per-head width of queries, keys and values (elements); 0: hidden / heads
  int seq_len = 2048;               // sequence length (tokens)
  int vocab = 51200;                // vocabulary (entries, before padding)
  int ffn_hidden = 49152;           // MLP inner width (elements)
  Mlp mlp = Mlp::gelu;              // MLP activation: gelu (2 GEMMs), swiglu or geglu (gated, 3 weight matrices)
  Residual residual = Residual::sequential;  // attention then MLP, or both from the same input
  bool tied_embeddings = true;      // output layer shares the input embedding matrix
  Norm norm = Norm::layernorm;      // normalization kind
  PositionEmbedding position = PositionEmbedding::learned;  // learned table, rotary or ALiBi (the last two
                                                            // without parameters)
  double rotary_fraction = 1.0;     // rotary: the share of each head's width it turns (GPT-NeoX, GPT-J: 0.25)
  bool bias = true;                 // linear layers and norms carry biases
  int vocab_pad_multiple = 128;     // vocabulary padded to a multiple of this times tp (entries)
  MoeConfig moe;                    // expert layers; experts 0: dense
  std::optional<MlaConfig> mla;     // multi-head latent attention; absent: multi-head / grouped-query attention
  bool operator==(const ModelConfig&) const = default;
};

// The network between the nodes. Defaults: NVIDIA's DGX A100 SuperPOD reference architecture, a
// rail-optimized, non-blocking (1:1) fat tree of HDR InfiniBand switches with 20 nodes a scalable
// unit (one leaf switch a rail), 140 nodes under one spine layer. The profile's fitted inter-node
// latency holds the hops within a leaf; hop_latency_us is each further switch a message crosses.
struct NetworkConfig {
  Topology topology = Topology::leaf_spine;
  int nodes_per_leaf = 20;            // nodes whose NICs of one rail share a leaf switch (count)
  int nodes_per_pod = 140;            // clos3: nodes under one spine group (count)
  double oversubscription = 1;        // a leaf's downlink over uplink bandwidth (ratio); 1: non-blocking
  double core_oversubscription = 1;   // clos3: a pod's bandwidth into its spines over its spines' uplinks to
                                      // the core (ratio); 1: non-blocking (Meta's Llama 3 cluster: 7)
  double hop_latency_us = 0;          // latency of each switch beyond the leaf (us)
  bool sharp = false;                 // in-network reduction (SHARP) of all-reduces in the switches
  NetAlgorithm algorithm = NetAlgorithm::ring;  // inter-node all-reduce algorithm
  bool operator==(const NetworkConfig&) const = default;
};

struct ClusterConfig {
  std::string gpu = "a100-sxm4-80gb";  // profile name
  int num_gpus = 1024;                 // GPUs used by the plan (count); must equal tp*cp*pp*dp
  int gpus_per_node = 8;               // GPUs sharing the intra-node fabric (count)
  double intra_node_GBps = 0;          // per-GPU, per-direction intra-node link bandwidth (GB/s); 0: profile's
  double inter_node_Gbps = 0;          // per-node network bandwidth, all NICs (Gbit/s); 0: profile's
  double price_per_gpu_hour_usd = 0;   // price of one GPU for one hour (USD); 0: no cost reported
  double gpu_speed_spread = 0;         // standard deviation of a GPU's compute time over the mean in this
                                       // fleet (fraction): a step runs at the pace of its slowest GPU; 0: the
                                       // profile's (0 in the bundled ones: every GPU as fast)
  NetworkConfig network;               // the fabric between the nodes (/cluster/network)
  bool operator==(const ClusterConfig&) const = default;
};

struct PlanConfig {
  int tp = 1;                          // tensor-parallel degree (GPUs)
  int pp = 1;                          // pipeline-parallel degree (stages)
  int dp = 1;                          // data-parallel degree (replicas)
  int cp = 1;                          // context-parallel degree (GPUs): each holds seq_len / cp tokens of every
                                       // sequence (two chunks, for the causal balance); attention exchanges K/V in a ring
  int micro_batch = 1;                 // sequences per micro-batch
  int global_batch = 1;                // sequences per iteration, all replicas
  Recompute recompute = Recompute::full;  // activation recomputation
  bool sequence_parallel = false;      // shard norms/dropout over tp (all-gather + reduce-scatter)
  int virtual_stages = 1;              // model chunks per pipeline stage (> 1: interleaved 1F1B)
  std::vector<int> stage_layers;       // transformer layers of each pipeline stage, first to last (pp
                                       // entries summing to the layers; the first and last may be 0, a
                                       // stage of only the embedding or only the head). Empty: as even as
                                       // the layers allow, the first layers % pp stages one more
  bool embedding_as_layer = false;     // the pipeline split counts the embedding as one layer (Megatron-Core's
                                       // account_for_embedding_in_pipeline_split; DeepSpeed's partition that
                                       // counts embeddings): the first model chunk holds one layer fewer
  bool head_as_layer = false;          // the same for the output layer and loss (account_for_loss_in_pipeline_split):
                                       // the last model chunk holds one layer fewer
  int zero_stage = 0;                  // 0: replicated optimizer; 1: optimizer states sharded over dp;
                                       // 2: gradients too (reduce-scatter); 3: parameters too (FSDP
                                       // FULL_SHARD: each layer all-gathered before its forward and backward)
  bool zero_all_reduce = false;        // with ZeRO stage 1, the gradients are all-reduced whole (DeepSpeed's
                                       // bf16 optimizer) rather than reduce-scattered
  bool dp_overlap = false;             // overlap the gradient reduction with the last backward
  Attention attention = Attention::flash;  // fused (flash) or unfused attention kernels
  Precision precision = Precision::bf16;   // 16-bit format of weights and activations; fp8: the linear
                                           // layers' GEMMs in FP8 (Transformer Engine), the rest bf16
  Placement placement = Placement::tp_dp_pp;  // rank order, innermost first
  bool p2p_overlap = false;            // pipeline sends run beside compute instead of blocking it
  bool grad_accumulation_fusion = true;  // weight-gradient GEMMs accumulate into the gradient buffer
  bool tp_async_backward = true;       // the backward all-reduce (or reduce-scatter) of a column-parallel
                                       // layer's input gradient runs beside its weight-gradient GEMM
  bool tp_comm_overlap = false;        // Transformer Engine's userbuffers: with sequence parallelism, every
                                       // tensor-parallel all-gather and reduce-scatter of a layer runs in
                                       // chunks beside the GEMM it feeds or drains (NeMo's tp_comm_overlap)
  bool fused_elementwise = true;       // norms, rotary embedding and the gated activation as one fused kernel
                                       // each; false: eager PyTorch's sequence of kernels, in fp32 where the
                                       // code casts up (torchtitan without torch.compile, Hugging Face models)
  bool launch_blocking = false;        // CUDA_LAUNCH_BLOCKING=1: the host waits for each kernel to finish
                                       // before it issues the next, so nothing overlaps
  // Sharded data parallelism (zero_stage 3), docs/sharded-data-parallel.md:
  int shard_group = 0;                 // ranks one copy of the states is sharded over (GPUs); 0: all of dp.
                                       // Less than dp: hybrid sharding (HSDP), replicated across dp / shard_group
  bool shard_prefetch = true;          // the next layer's all-gather runs beside the current layer's compute
  bool reshard_after_forward = true;   // false: FSDP SHARD_GRAD_OP, the gathered parameters kept for the backward
  bool recompute_gather = false;       // recomputation gathers the layer's parameters once more (DeepSpeed
                                       // ZeRO-3 with activation checkpointing)
  bool shard_flat_ring = false;        // the gathers and reduce-scatters run as one flat ring over the shard
                                       // group, each GPU's network share carrying the whole buffer, rather
                                       // than node-aware (hierarchical) collectives
  bool shard_device_sync = false;      // the host synchronizes the whole device before each unit computes, so
                                       // every collective in flight, the last reduce-scatter included, ends
                                       // first (DeepSpeed ZeRO-3 v0.3.13 to v0.5.x: fetch_sub_module's
                                       // torch.cuda.synchronize)
  bool optimizer_offload = false;      // ZeRO-Offload (DeepSpeed offload_optimizer device cpu): each rank's
                                       // shard of the fp32 master weights, Adam moments and gradients lives
                                       // in host memory; the gradients cross PCIe down, the CPU runs Adam,
                                       // the updated 16-bit weights cross back (docs/sharded-data-parallel.md)
  // Mixture of experts (docs/moe.md): the expert layers' GPUs of a stage, tp x dp, regrouped as
  // etp x ep x edp (Megatron-Core's expert_tensor_parallel_size x expert_model_parallel_size x the
  // expert data-parallel degree).
  int ep = 1;                          // expert-parallel degree (GPUs): each holds experts / ep of every MoE layer
  int etp = 0;                         // expert tensor-parallel degree (GPUs); 0: the same as tp
  bool moe_permute_sync = false;       // the MoE layer's token permutation and unpermutation each make the
                                       // host wait for the GPU (Megatron-Core 0.10's permute and unpermute:
                                       // masked_select, whose output size the host reads), docs/moe.md
  bool grad_reduce_fp32 = true;        // bf16 and fp8: gradients accumulated and reduced in fp32 buffers;
                                       // false: in bf16 (Megatron-Core's grad_reduce_in_fp32 off, as NeMo's
                                       // performance recipes run)
  bool operator==(const PlanConfig&) const = default;
};

struct TrainingConfig {
  double tokens = 0;  // tokens to train on (count); 0: no training time reported
};

struct OutputOptions {
  bool timeline = true;    // include the per-stage block timeline in the result
  bool operators = false;  // include each operator's GPU time (one micro-batch, one GPU)
};

struct SimConfig {
  std::string description;  // what the config is, for its readers; the simulator does not use it
  ModelConfig model;
  ClusterConfig cluster;
  PlanConfig plan;
  TrainingConfig training;
  ReliabilityConfig reliability;  // failures, restarts and checkpoints (the expected days of training)
  OutputOptions output;
};

// Named model shapes published by their authors.
struct ModelPreset {
  ModelConfig model;
  std::string description;  // one line: what the model is
  std::string source;       // citation of the published shape
  double published_params;  // parameter count the authors state (count)
  double published_active_params = 0;  // a mixture of experts: parameters a token passes through (count); 0: dense
};

inline const std::string& registry_name(const ModelPreset& p) { return p.model.name; }
const Registry<ModelPreset>& model_presets();

// Parses and checks a whole simulate config. Unknown keys, wrong types and broken rules come
// back as diagnostics naming the field. Bandwidths left at 0 are filled from the profile later.
Outcome<SimConfig> parse_sim_config(const nlohmann::json& j);

// The sections on their own, as the simulate config holds them (pointers /model, /cluster, /plan).
// A model is a preset name, {"preset": NAME, ...overrides} or a shape; it is checked as well.
Outcome<ModelConfig> parse_model_config(const nlohmann::json& j);
Outcome<ClusterConfig> parse_cluster_config(const nlohmann::json& j);
Outcome<PlanConfig> parse_plan_config(const nlohmann::json& j);

// Rules between a model's fields (heads dividing hidden, kv_heads dividing heads).
Diagnostics check_model(const ModelConfig& m);
// Rules between fields (the model's, then the plan's against the model and the cluster). Empty
// when the config is valid.
Diagnostics check_sim_config(const SimConfig& c);

// tp x cp x pp x dp: the GPUs a plan uses (count), exact whatever the degrees (no int overflow: a
// product past what a long long holds is returned as its largest value).
long long plan_gpus(const PlanConfig& p);

// Whether the model has expert layers, and the plan's expert tensor-parallel degree (etp, or tp).
inline bool is_moe(const ModelConfig& m) { return m.moe.experts > 0; }
inline int expert_tp(const PlanConfig& p) { return p.etp > 0 ? p.etp : p.tp; }
// The places the pipeline split divides: the transformer layers, plus the embedding and the head
// where the plan counts them as layers.
inline int pipeline_slots(const ModelConfig& m, const PlanConfig& p) {
  return m.layers + (p.embedding_as_layer ? 1 : 0) + (p.head_as_layer ? 1 : 0);
}

// Serializes a config with every field explicit (the form a saved link reproduces).
nlohmann::json to_json(const SimConfig& c);
nlohmann::json to_json(const ModelConfig& m);
nlohmann::json to_json(const PlanConfig& p);

// Derived counts of a valid config.
int micro_batches_per_iteration(const PlanConfig& p);  // global_batch / (dp * micro_batch)

// Bytes per element of the gradient buffers: 2 with fp16 (16-bit gradients), 4 with bf16 and fp8
// (Megatron's fp32 main gradients), 2 where those are kept and reduced in bf16 (grad_reduce_fp32 false).
inline double gradient_bytes(const PlanConfig& p) {
  return p.precision == Precision::fp16 || !p.grad_reduce_fp32 ? 2.0 : 4.0;
}

// Per-head width of queries and keys, and of values (elements): head_dim, or hidden / heads; with
// multi-head latent attention, nope + rope and v_head_dim.
inline double qk_head_dim(const ModelConfig& m) {
  if (m.mla) return static_cast<double>(m.mla->qk_nope_head_dim) + m.mla->qk_rope_head_dim;
  return m.head_dim > 0 ? static_cast<double>(m.head_dim) : static_cast<double>(m.hidden) / m.heads;
}
inline double v_head_dim(const ModelConfig& m) {
  if (m.mla) return m.mla->v_head_dim;
  return m.head_dim > 0 ? static_cast<double>(m.head_dim) : static_cast<double>(m.hidden) / m.heads;
}

}  // namespace vtrain
