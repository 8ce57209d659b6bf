#include "vtrain/model.hpp"

#include <utility>

namespace vtrain {

ModelConfig gpt_model(std::string name, int layers, int hidden, int heads, int vocab, int seq_len) {
  ModelConfig m;
  m.name = std::move(name);
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = heads;
  m.seq_len = seq_len;
  m.vocab = vocab;
  m.ffn_hidden = 4 * hidden;
  m.mlp = Mlp::gelu;
  m.tied_embeddings = true;
  m.norm = Norm::layernorm;
  m.position = PositionEmbedding::learned;
  m.bias = true;
  return m;
}

ModelConfig llama_model(std::string name, int layers, int hidden, int heads, int kv_heads, int ffn_hidden, int vocab,
                        int seq_len) {
  ModelConfig m;
  m.name = std::move(name);
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.seq_len = seq_len;
  m.vocab = vocab;
  m.ffn_hidden = ffn_hidden;
  m.mlp = Mlp::swiglu;
  m.tied_embeddings = false;
  m.norm = Norm::rmsnorm;
  m.position = PositionEmbedding::rope;
  m.bias = false;
  return m;
}

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
