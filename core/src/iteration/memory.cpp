#include "iteration/memory.hpp"

#include <algorithm>
#include <cmath>

#include "iteration/communication.hpp"
#include "iteration/kernels.hpp"
#include "iteration/sharding.hpp"
#include "vtrain/model.hpp"

namespace vtrain::detail {

namespace {
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
constexpr double E = kHalfBytes;

// Micro-batches (times chunks) whose activations a stage holds at its peak under 1F1B.
double in_flight(int stage, const PlanConfig& p, int m) {
  const int v = p.virtual_stages;
  if (v == 1) return std::min(m, p.pp - stage);
  const int warm = (p.pp - stage - 1) * 2 + (v - 1) * p.pp;
  return std::min(m * v, warm + 1);
}
}  // namespace

int chunk_layers(const ModelConfig& m, const PlanConfig& p, int stage, int chunk) {
  if (!p.stage_layers.empty()) return p.stage_layers[static_cast<size_t>(stage)];
  const int slots = pipeline_slots(m, p), chunks = p.pp * p.virtual_stages, idx = chunk * p.pp + stage;
  int n = p.virtual_stages == 1 ? slots / p.pp + (stage < slots % p.pp ? 1 : 0) : slots / chunks;
  if (idx == 0 && p.embedding_as_layer) --n;
  if (idx == chunks - 1 && p.head_as_layer) --n;
  return n;
}

int stage_layers(const ModelConfig& m, const PlanConfig& p, int stage) {
  if (!p.stage_layers.empty()) return p.stage_layers[static_cast<size_t>(stage)];
  int n = 0;
  for (int c = 0; c < p.virtual_stages; ++c) n += chunk_layers(m, p, stage, c);
  return n;
}

int chunk_first_layer(const ModelConfig& m, const PlanConfig& p, int stage, int chunk) {
  if (!p.stage_layers.empty()) {
    int first = 0;
    for (int s = 0; s < stage; ++s) first += p.stage_layers[static_cast<size_t>(s)];
    return first;
  }
  // The slots of the model chunks before this one, less the embedding's where it takes one.
  const int slots = pipeline_slots(m, p), idx = chunk * p.pp + stage;
  const int before = p.virtual_stages == 1 ? stage * (slots / p.pp) + std::min(stage, slots % p.pp)
                                           : idx * (slots / (p.pp * p.virtual_stages));
  return before - (idx > 0 && p.embedding_as_layer ? 1 : 0);
}

int chunk_moe_layers(const ModelConfig& m, const PlanConfig& p, int stage, int chunk) {
  return moe_layers_in(m, chunk_first_layer(m, p, stage, chunk), chunk_layers(m, p, stage, chunk));
}

int stage_moe_layers(const ModelConfig& m, const PlanConfig& p, int stage) {
  int n = 0;
  for (int c = 0; c < p.virtual_stages; ++c) n += chunk_moe_layers(m, p, stage, c);
  return n;
}

int expert_dp(const ModelConfig& m, const PlanConfig& p) {
  if (!is_moe(m)) return p.dp;
  return static_cast<int>(static_cast<long long>(p.tp) * p.cp * p.dp / (static_cast<long long>(expert_tp(p)) * p.ep));
}

std::vector<double> stage_expert_parameters(const ModelConfig& m, const PlanConfig& p) {
  std::vector<double> out(p.pp, 0.0);
  if (!is_moe(m)) return out;
  const double local = moe_layer_parameters(m, p).experts;
  for (int s = 0; s < p.pp; ++s) out[s] = stage_moe_layers(m, p, s) * local;
  return out;
}

std::vector<double> stage_local_parameters(const ModelConfig& m, const PlanConfig& p) {
  const ParameterCounts c = count_parameters(m);
  const double t = p.tp;
  const double vocab_rows = static_cast<double>(padded_vocab(m, p.tp)) / t;
  std::vector<double> out(p.pp);
  if (!is_moe(m)) {
    for (int s = 0; s < p.pp; ++s)
      out[s] = static_cast<double>(stage_layers(m, p, s)) * c.per_layer / t;
  } else {
    // A MoE layer: attention, norms and shared experts split over tp; the router whole on every
    // rank; experts / ep routed experts, each split over etp.
    const double moe_dense = moe_layer_parameters(m, p).dense;
    const std::vector<double> experts = stage_expert_parameters(m, p);
    for (int s = 0; s < p.pp; ++s) {
      const int moe = stage_moe_layers(m, p, s);
      const int dense = stage_layers(m, p, s) - moe;
      out[s] = dense * c.per_layer / t + moe * moe_dense + experts[s];
    }
  }
  out.front() += vocab_rows * m.hidden + c.position;
  out.back() += c.final_norm;
  // Untied models own an output matrix; tied ones keep a copy on the last stage when pp > 1.
  if (!m.tied_embeddings || p.pp > 1) out.back() += vocab_rows * m.hidden;
  return out;
}

double layer_activation_bytes(const ModelConfig& m, const PlanConfig& p, bool without_attention_core) {
  const double t = p.tp;
  // Tokens of the micro-batch on this rank: a cp-th of each sequence with context parallelism.
  const double s_rank = p.cp > 1 ? static_cast<double>(m.seq_len) / p.cp : m.seq_len;
  const double T = static_cast<double>(p.micro_batch) * s_rank;
  const double h = m.hidden, dqk = qk_head_dim(m), dv = v_head_dim(m);
  const bool sp = p.sequence_parallel && p.tp > 1;
  const double Tn = sp ? T / t : T;  // tokens in the norm/dropout regions on this rank
  const double heads_t = m.heads / t, f_t = m.ffn_hidden / t;
  const double kv_t = m.mla ? heads_t : m.kv_heads >= p.tp ? m.kv_heads / t : 1.0;
  const bool dropout = m.bias;
  // A linear layer keeps its input for the weight-gradient GEMM: in FP8 (Transformer Engine) it
  // keeps the FP8 cast it already made for the forward GEMM, one byte an element.
  const double Lin = p.precision == Precision::fp8 ? 1.0 : E;
  double bytes = 0;
  bytes += (E + Lin) * Tn * h;                        // norm input, projection input (attention)
  if (m.mla) {
    // the latents: norm inputs and up-projection inputs
    const double q_lora = m.mla->q_lora_rank, kv_lora = m.mla->kv_lora_rank;
    bytes += (E + Lin) * T * (q_lora + kv_lora);
  }
  bytes += E * T * (heads_t * dqk + kv_t * (dqk + dv));  // q, k, v
  if (!without_attention_core) {
    if (fused_attention(p.attention)) {
      bytes += 4.0 * p.micro_batch * heads_t * s_rank;  // softmax statistics (fp32)
    } else {
      const double scores = static_cast<double>(p.micro_batch) * heads_t * m.seq_len * m.seq_len;
      bytes += scores * (dropout ? 2 * E + 1 : E);    // softmax output (+ dropout mask and output)
    }
  }
  bytes += Lin * T * heads_t * dv;                    // context (output projection input)
  if (dropout) bytes += Tn * h;                       // dropout mask
  bytes += (E + Lin) * Tn * h;                        // norm input, MLP input
  bytes += E * T * f_t * (gated(m.mlp) ? 2 : 1);  // activation input
  bytes += Lin * T * f_t;                             // down-projection input
  if (dropout) bytes += Tn * h;                       // dropout mask
  return bytes;
}

double stage_linear_weights(const ModelConfig& m, const PlanConfig& p, int stage) {
  const double h = m.hidden;
  const double gates = gated(m.mlp) ? 3.0 : 2.0;
  const double attention = attention_weights(m);
  const double per_layer = attention + h * static_cast<double>(m.ffn_hidden) * gates;
  if (!is_moe(m)) return static_cast<double>(stage_layers(m, p, stage)) * per_layer / p.tp;
  const int moe = stage_moe_layers(m, p, stage);
  const int dense = stage_layers(m, p, stage) - moe;
  const double experts = static_cast<double>(m.moe.experts) / p.ep * h * m.moe.expert_ffn_hidden * gates / expert_tp(p);
  const double moe_layer = (attention + h * shared_expert_width(m) * gates) / p.tp + experts;
  return dense * per_layer / p.tp + moe * moe_layer;
}

// Activation bytes a MoE layer saves, one micro-batch, one GPU: the dense layer's less its MLP,
// plus the router's scores, the experts' inputs, activations and down-projection inputs at the
// busiest rank's load, the permuted copies the combine's backward needs, and the shared experts'.
double moe_layer_activation_bytes(const ModelConfig& m, const PlanConfig& p, bool without_attention_core) {
  const double t = p.tp;
  const double T = static_cast<double>(p.micro_batch) * m.seq_len / p.cp;  // tokens a rank holds
  const double Lin = p.precision == Precision::fp8 ? 1.0 : E;
  const double gate = gated(m.mlp) ? 2.0 : 1.0;
  const double f_t = m.ffn_hidden / t;
  double bytes = layer_activation_bytes(m, p, without_attention_core) - E * T * f_t * gate - Lin * T * f_t;
  const MoeLoad l = moe_load(m, p);
  const double tokens = l.rows * m.moe.experts / p.ep;  // tokens this rank's experts take
  const double fe_t = static_cast<double>(m.moe.expert_ffn_hidden) / expert_tp(p);
  bytes += 4.0 * l.router_tokens * m.moe.experts;              // router scores (fp32)
  bytes += Lin * tokens * m.hidden;                             // expert inputs
  bytes += E * tokens * fe_t * gate + Lin * tokens * fe_t;     // activation input, down-projection input
  bytes += E * l.router_tokens * m.moe.experts_per_token * m.hidden;  // the copies, for the combine
  const double sf_t = shared_expert_width(m) / t;
  if (sf_t > 0) bytes += Lin * T * m.hidden + E * T * sf_t * gate + Lin * T * sf_t;
  return bytes;
}

std::vector<MemoryBreakdown> stage_memory(const ModelConfig& m, const PlanConfig& p,
                                          const Profile& prof, const std::vector<double>& local_params) {
  const int micro_batches = micro_batches_per_iteration(p);
  const double T = static_cast<double>(p.micro_batch) * m.seq_len / p.cp;  // tokens a rank holds
  const bool sp = p.sequence_parallel && p.tp > 1;
  const double layer_input = E * T * m.hidden / (sp ? p.tp : 1);
  const double full = layer_activation_bytes(m, p, false);
  double per_layer = full;
  double working = 0;  // one layer's activations rebuilt during its backward
  if (p.recompute == Recompute::full) {
    per_layer = layer_input;
    working = full;
  } else if (p.recompute == Recompute::selective) {
    per_layer = layer_activation_bytes(m, p, true);
    working = full - per_layer;
  }
  // A MoE layer's own (the same as a dense one's with full recomputation: its input).
  const bool moe_model = is_moe(m);
  const double moe_full = moe_model ? moe_layer_activation_bytes(m, p, false) : 0.0;
  double moe_per_layer = moe_full;
  if (moe_model) {
    if (p.recompute == Recompute::full) {
      moe_per_layer = layer_input;
      working = std::max(working, moe_full);
    } else if (p.recompute == Recompute::selective) {
      moe_per_layer = moe_layer_activation_bytes(m, p, true);
      working = std::max(working, moe_full - moe_per_layer);
    }
  }
  const std::vector<double> experts = stage_expert_parameters(m, p);
  const double edp = expert_dp(m, p);
  const MoeLoad load = moe_load(m, p);
  const double vocab_t = static_cast<double>(padded_vocab(m, p.tp)) / p.tp;
  const double grad_bytes = gradient_bytes(p);
  std::vector<MemoryBreakdown> out(p.pp);
  const double chunks_per_stage = p.virtual_stages;
  for (int s = 0; s < p.pp; ++s) {
    MemoryBreakdown& mb = out[s];
    const double n = local_params[s];
    mb.weights = n * E / GiB;
    // FP8: each linear layer's weight also in FP8 and FP8 transposed (1 + 1 bytes)
    if (p.precision == Precision::fp8) mb.weights += stage_linear_weights(m, p, s) * 2.0 / GiB;
    mb.gradients = n * grad_bytes / GiB;
    const int shard = shard_size(p);
    mb.optimizer_states = n * 12.0 / (p.zero_stage >= 1 ? shard : 1) / GiB;
    if (p.zero_stage >= 2 && shard > 1) {
      // ZeRO-2: this rank's shard of the gradients, and the bucket being reduced at full size.
      mb.optimizer_states = n * 12.0 / shard / GiB;
      mb.gradients = (n * grad_bytes / shard + gradient_buckets(n * grad_bytes, p.dp * p.cp, grad_bytes).bytes) / GiB;
    }
    if (moe_model && p.zero_stage >= 1) {
      // The routed experts' states are split over their own (expert) data-parallel group.
      const double ex = experts[s], rest = n - ex;
      mb.optimizer_states = (rest * 12.0 / shard + ex * 12.0 / edp) / GiB;
      if (p.zero_stage >= 2)
        mb.gradients = (rest * grad_bytes / shard + ex * grad_bytes / edp +
                        gradient_buckets(n * grad_bytes, p.dp, grad_bytes).bytes) / GiB;
    }
    double shard_unit = 0;  // ZeRO-3: the parameters of the largest unit gathered whole
    if (shards_parameters(p)) {
      // ZeRO-3 / FSDP: every unit's flat parameter is padded to a multiple of the shard group, and
      // each rank holds one slice of it. Gathered at once: the unit running and the one prefetched
      // (their 16-bit weights, and one unit's full gradients before its reduce-scatter), and the
      // edge unit (embedding, head), which FSDP keeps gathered from its forward to its backward.
      // A MoE layer's dense part is sharded as a dense layer is, its routed experts over the expert
      // data-parallel group (resident, never gathered, where that group is one GPU).
      const double layer = layer_parameters(m, p);
      const double edge = stage_edge_parameters(m, p, s);
      const double moe_layers = moe_model ? stage_moe_layers(m, p, s) : 0.0;
      const double dense_layers = static_cast<double>(stage_layers(m, p, s)) - moe_layers;
      const MoeLayerParameters moe = moe_layer_parameters(m, p);
      const double moe_gathered = moe.gathered;
      const double slice = dense_layers * std::ceil(layer / shard) +
                           moe_layers * (std::ceil(moe.dense / shard) + moe.experts / edp) + std::ceil(edge / shard);
      shard_unit = std::max(dense_layers > 0 ? layer : 0.0, moe_layers > 0 ? moe_gathered : 0.0);
      const double units = p.shard_prefetch ? 2.0 : 1.0;
      const double gathered =
          p.reshard_after_forward ? units * shard_unit + edge : dense_layers * layer + moe_layers * moe_gathered + edge;
      mb.weights = (slice + gathered) * E / GiB;
      mb.gradients = (slice + shard_unit) * grad_bytes / GiB;
      mb.optimizer_states = slice * 12.0 / GiB;
    }
    if (p.optimizer_offload) {
      // ZeRO-Offload: the optimizer states and this rank's gradient shard live in host memory. The
      // GPU keeps the gradients on their way there: ZeRO-3's unit before its reduce-scatter,
      // ZeRO-2's bucket, or with ZeRO-1 all of them (reduced after the backward).
      mb.optimizer_states = 0;
      if (shards_parameters(p))
        mb.gradients = shard_unit * grad_bytes / GiB;
      else if (p.zero_stage >= 2 && shard > 1)
        mb.gradients = gradient_buckets(n * grad_bytes, p.dp * p.cp, grad_bytes).bytes / GiB;
    }

    if (moe_model) {
      // in_flight counts chunks a stage holds; the stage's layers are spread over its chunks.
      const double moe = stage_moe_layers(m, p, s) / chunks_per_stage;
      const double dense = stage_layers(m, p, s) / chunks_per_stage - moe;
      mb.activations = (in_flight(s, p, micro_batches) * (dense * per_layer + moe * moe_per_layer) + working) / GiB;
    } else {
      mb.activations = (in_flight(s, p, micro_batches) * (stage_layers(m, p, s) / chunks_per_stage) * per_layer + working) / GiB;
    }
    double buffers = prof.runtime_reserved_GiB * GiB;
    buffers += 2 * layer_input;  // pipeline send/receive buffers
    // A MoE layer's dispatch: the permuted copies it sends and the tokens it receives.
    if (moe_model) buffers += E * load.router_tokens * m.moe.experts_per_token * m.hidden + E * load.rows * m.moe.experts / p.ep * m.hidden;
    if (s == p.pp - 1) buffers += T * vocab_t * (E + 4.0);  // logits and fp32 softmax
    mb.buffers = buffers / GiB;
  }
  return out;
}

}  // namespace vtrain::detail
