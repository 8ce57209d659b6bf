#include "vtrain/model.hpp"

namespace vtrain {

ParameterCounts count_parameters(const ModelConfig& m) {
  const double h = m.hidden;
  const double d = static_cast<double>(m.hidden) / m.heads;
  const double q = m.heads * d;
  const double kv = 2.0 * m.kv_heads * d;
  const double f = m.ffn_hidden;
  const double norm = m.norm == Norm::layernorm && m.bias ? 2 * h : h;
  ParameterCounts c;
  double attention = h * (q + kv) + q * h;
  double mlp = (m.mlp == Mlp::swiglu ? 3.0 : 2.0) * h * f;
  if (m.bias) {
    attention += q + kv + h;
    mlp += (m.mlp == Mlp::swiglu ? 2.0 * f : f) + h;
  }
  c.per_layer = attention + mlp + 2 * norm;
  c.embedding = static_cast<double>(m.vocab) * h;
  c.position = m.position == PositionEmbedding::learned ? static_cast<double>(m.seq_len) * h : 0.0;
  c.final_norm = norm;
  c.output = m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * h;
  c.total = m.layers * c.per_layer + c.embedding + c.position + c.final_norm + c.output;
  return c;
}

long long padded_vocab(const ModelConfig& m, int tp) {
  const long long multiple = static_cast<long long>(m.vocab_pad_multiple) * tp;
  return (m.vocab + multiple - 1) / multiple * multiple;
}

}  // namespace vtrain
