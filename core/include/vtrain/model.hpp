#pragma once
// Model arithmetic that needs no profile: parameter counts and sizes derived from the shape.

#include "vtrain/config.hpp"

namespace vtrain {

struct ParameterCounts {
  double per_layer = 0;        // one transformer layer (count)
  double embedding = 0;        // input token embedding, unpadded vocabulary (count)
  double position = 0;         // learned position table (count)
  double final_norm = 0;       // norm before the output layer (count)
  double output = 0;           // untied output projection (count)
  double total = 0;            // whole model (count)
};

// Counts with the model's own vocabulary (no padding), as papers state them.
ParameterCounts count_parameters(const ModelConfig& m);

// Vocabulary as Megatron allocates it: padded to a multiple of vocab_pad_multiple * tp.
long long padded_vocab(const ModelConfig& m, int tp);

// 2 for fp16/bf16 (bytes per element of weights and activations).
constexpr double kHalfBytes = 2.0;

}  // namespace vtrain
