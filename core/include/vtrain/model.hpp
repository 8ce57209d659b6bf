#pragma once
// Model arithmetic that needs no profile: parameter counts and sizes derived from the shape.

#include <string>

#include "vtrain/config.hpp"

namespace vtrain {

// The layouts the model builders know; presets, compute-optimal candidates and measured runs are
// built by them.
enum class ModelFamily { gpt, llama };
template <>
struct EnumNames<ModelFamily> {
  static constexpr const char* key = "family";
  static constexpr EnumName<ModelFamily> table[] = {
      {ModelFamily::gpt, "gpt", "GPT (GeLU, learned positions)"},
      {ModelFamily::llama, "llama", "Llama (SwiGLU, RoPE, GQA)"}};
};

// GPT-3's layout (Brown et al. 2020): a GeLU MLP of 4 x hidden, learned positions, LayerNorm,
// biases and dropout, the output layer tied to the input embedding.
ModelConfig gpt_model(std::string name, int layers, int hidden, int heads, int vocab, int seq_len);

// Llama's layout (Touvron et al. 2023): a SwiGLU MLP of `ffn_hidden`, rotary positions, RMSNorm,
// no biases, an untied output layer; `kv_heads` < heads is grouped-query attention.
ModelConfig llama_model(std::string name, int layers, int hidden, int heads, int kv_heads, int ffn_hidden, int vocab,
                        int seq_len);

struct ParameterCounts {
  double per_layer = 0;        // one transformer layer (count)
  double embedding = 0;        // input token embedding, unpadded vocabulary (count)
  double position = 0;         // learned position table (count)
  double final_norm = 0;       // norm before the output layer (count)
  double output = 0;           // untied output projection (count)
  double total = 0;            // whole model (count)
  double active = 0;           // what one token passes through: total less the routed experts it skips (count)
  // A mixture of experts (docs/moe.md); per_layer is then a dense layer's.
  int moe_layers = 0;          // MoE layers (count)
  double per_moe_layer = 0;    // one MoE layer, every expert (count)
  double router = 0;           // one MoE layer's router (count)
  double expert = 0;           // one routed expert (count)
  double shared_expert = 0;    // one MoE layer's shared experts, together (count)
};

// Whether layer `layer` (0-based) is a MoE layer: at or after first_dense_layers, every
// layer_frequency-th one.
bool is_moe_layer(const ModelConfig& m, int layer);
// MoE layers among layers [first, first + count).
int moe_layers_in(const ModelConfig& m, int first, int count);
// Inner width of a MoE layer's shared experts taken as one MLP (elements): shared_experts x width.
double shared_expert_width(const ModelConfig& m);
// The linear weights of one layer's attention (count): the q, k, v and output projections, or
// multi-head latent attention's down- and up-projections and its output projection.
double attention_weights(const ModelConfig& m);

// Counts with the model's own vocabulary (no padding), as papers state them.
ParameterCounts count_parameters(const ModelConfig& m);

// Vocabulary as Megatron allocates it: padded to a multiple of vocab_pad_multiple * tp.
long long padded_vocab(const ModelConfig& m, int tp);

// 2 for fp16/bf16 (bytes per element of weights and activations).
constexpr double kHalfBytes = 2.0;

}  // namespace vtrain
