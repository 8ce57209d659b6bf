#include "vtrain/model.hpp"

#include <utility>

#include <nlohmann/json.hpp>

#include "model/fields.hpp"
#include "model/sections.hpp"

namespace vtrain {

using nlohmann::json;
using detail::ObjectReader;

namespace {

// The layout every family shares: a name and the sizes.
ModelConfig shape(std::string name, int layers, int hidden, int heads, int kv_heads, int ffn_hidden, int vocab,
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
  return m;
}

}  // namespace

ModelConfig gpt_model(std::string name, int layers, int hidden, int heads, int vocab, int seq_len) {
  ModelConfig m = shape(std::move(name), layers, hidden, heads, heads, 4 * hidden, vocab, seq_len);
  m.mlp = Mlp::gelu;
  m.tied_embeddings = true;
  m.norm = Norm::layernorm;
  m.position = PositionEmbedding::learned;
  m.bias = true;
  return m;
}

ModelConfig llama_model(std::string name, int layers, int hidden, int heads, int kv_heads, int ffn_hidden, int vocab,
                        int seq_len) {
  ModelConfig m = shape(std::move(name), layers, hidden, heads, kv_heads, ffn_hidden, vocab, seq_len);
  m.mlp = Mlp::swiglu;
  m.tied_embeddings = false;
  m.norm = Norm::rmsnorm;
  m.position = PositionEmbedding::rope;
  m.bias = false;
  return m;
}

namespace {

// One MLP of width `f` (its biases with `bias`): 2 or 3 weight matrices.
double mlp_parameters(const ModelConfig& m, double f) {
  const double h = m.hidden;
  double mlp = (gated(m.mlp) ? 3.0 : 2.0) * h * f;
  if (m.bias) mlp += (gated(m.mlp) ? 2.0 * f : f) + h;
  return mlp;
}

}  // namespace

bool is_moe_layer(const ModelConfig& m, int layer) {
  if (!is_moe(m) || layer < m.moe.first_dense_layers) return false;
  return (layer - m.moe.first_dense_layers) % m.moe.layer_frequency == 0;
}

int moe_layers_in(const ModelConfig& m, int first, int count) {
  if (!is_moe(m) || count <= 0) return 0;
  // Layers i >= F with (i - F) % N == 0, in [first, first + count).
  const long long F = m.moe.first_dense_layers, N = m.moe.layer_frequency;
  const auto upto = [&](long long end) {  // MoE layers in [0, end)
    return end <= F ? 0LL : (end - F + N - 1) / N;
  };
  return static_cast<int>(upto(static_cast<long long>(first) + count) - upto(first));
}

double shared_expert_width(const ModelConfig& m) {
  const int f = m.moe.shared_expert_ffn_hidden > 0 ? m.moe.shared_expert_ffn_hidden : m.moe.expert_ffn_hidden;
  return static_cast<double>(m.moe.shared_experts) * f;
}

double attention_weights(const ModelConfig& m) {
  const double h = m.hidden;
  if (m.mla) {
    const MlaConfig& a = *m.mla;
    const double heads = m.heads, qk = static_cast<double>(a.qk_nope_head_dim) + a.qk_rope_head_dim;
    const double query = a.q_lora_rank > 0 ? h * a.q_lora_rank + a.q_lora_rank * heads * qk : h * heads * qk;
    const double kv = h * (static_cast<double>(a.kv_lora_rank) + a.qk_rope_head_dim) +
                      a.kv_lora_rank * heads * (static_cast<double>(a.qk_nope_head_dim) + a.v_head_dim);
    return query + kv + heads * a.v_head_dim * h;
  }
  const double d = qk_head_dim(m);
  return h * (m.heads + 2.0 * m.kv_heads) * d + m.heads * d * h;
}

ParameterCounts count_parameters(const ModelConfig& m) {
  const double h = m.hidden;
  const double d = qk_head_dim(m);
  const double q = m.heads * d;
  const double kv = 2.0 * m.kv_heads * d;
  const double f = m.ffn_hidden;
  const double norm = m.norm == Norm::layernorm && m.bias ? 2 * h : h;
  ParameterCounts c;
  double attention = h * (q + kv) + q * h;
  if (m.mla) {
    // the projections, and the RMSNorms of the two latents
    attention = attention_weights(m) + m.mla->kv_lora_rank + m.mla->q_lora_rank;
    if (m.bias) attention += h;  // the output projection's
  } else if (m.bias) {
    attention += q + kv + h;
  }
  const double norms = m.residual == Residual::parallel ? 1 : 2;  // GPT-J's one norm feeds both
  c.per_layer = attention + mlp_parameters(m, f) + norms * norm;
  c.embedding = static_cast<double>(m.vocab) * h;
  c.position = m.position == PositionEmbedding::learned ? static_cast<double>(m.seq_len) * h : 0.0;
  c.final_norm = norm;
  c.output = m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab) * h;
  const double edges = c.embedding + c.position + c.final_norm + c.output;
  if (!is_moe(m)) {
    c.total = m.layers * c.per_layer + edges;
    c.active = c.total;
    return c;
  }
  const MoeConfig& e = m.moe;
  c.moe_layers = moe_layers_in(m, 0, m.layers);
  c.router = h * e.experts;  // the router's linear layer (no bias); sigmoid routing adds a bias per expert
  if (e.router == Router::sigmoid) c.router += e.experts;
  c.expert = mlp_parameters(m, e.expert_ffn_hidden);
  c.shared_expert = e.shared_experts > 0 ? mlp_parameters(m, shared_expert_width(m)) : 0.0;
  c.per_moe_layer = attention + 2 * norm + c.router + e.experts * c.expert + c.shared_expert;
  const double dense_layers = m.layers - c.moe_layers;
  c.total = dense_layers * c.per_layer + c.moe_layers * c.per_moe_layer + edges;
  c.active = c.total - c.moe_layers * (e.experts - e.experts_per_token) * c.expert;
  return c;
}

long long padded_vocab(const ModelConfig& m, int tp) {
  const long long multiple = static_cast<long long>(m.vocab_pad_multiple) * tp;
  return (m.vocab + multiple - 1) / multiple * multiple;
}

namespace {

std::vector<ModelPreset> build_presets() {
  std::vector<ModelPreset> p;
  const char* gpt3 = "Brown et al. 2020, Language Models are Few-Shot Learners, Table 2.1";
  p.push_back({gpt_model("gpt3-2.7b", 32, 2560, 32, 50257, 2048), "GPT-3 2.7B", gpt3, 2.7e9});
  p.push_back({gpt_model("gpt3-6.7b", 32, 4096, 32, 50257, 2048), "GPT-3 6.7B", gpt3, 6.7e9});
  p.push_back({gpt_model("gpt3-175b", 96, 12288, 96, 50257, 2048), "GPT-3 175B", gpt3, 175.0e9});
  p.push_back({gpt_model("mt-nlg-530b", 105, 20480, 128, 50257, 2048), "Megatron-Turing NLG 530B",
               "Smith et al. 2022, Using DeepSpeed and Megatron to Train Megatron-Turing NLG 530B, "
               "section 2.3",
               530.0e9});
  p.push_back({gpt_model("megatron-1t", 128, 25600, 160, 51200, 2048), "Megatron-LM 1T (weak-scaling study)",
               "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU "
               "Clusters, Table 1",
               1008.0e9});
  {
    ModelConfig m = gpt_model("bloom-176b", 70, 14336, 112, 250880, 2048);
    m.position = PositionEmbedding::alibi;
    p.push_back({m, "BLOOM 176B", "BigScience 2022, BLOOM: A 176B-Parameter Open-Access "
                                  "Multilingual Language Model, Table 3",
                 176247271424.0});
  }
  {
    // Attention and MLP side by side from two norms of the same input, rotary on a quarter of each
    // head, untied output embedding.
    ModelConfig m = gpt_model("gpt-neox-20b", 44, 6144, 64, 50432, 2048);
    m.residual = Residual::parallel_two_norms;
    m.position = PositionEmbedding::rope;
    m.rotary_fraction = 0.25;
    m.tied_embeddings = false;
    p.push_back({m, "GPT-NeoX-20B",
                 "Black et al. 2022, GPT-NeoX-20B: An Open-Source Autoregressive Language Model, arXiv 2204.06745, "
                 "Table 1 (20,554,567,680 parameters)",
                 20554567680.0});
  }
  {
    // One norm feeds attention and MLP; rotary on 64 of each head's 256 dimensions.
    ModelConfig m = gpt_model("gpt-j-6b", 28, 4096, 16, 50400, 2048);
    m.residual = Residual::parallel;
    m.position = PositionEmbedding::rope;
    m.rotary_fraction = 0.25;
    m.tied_embeddings = false;
    p.push_back({m, "GPT-J 6B",
                 "Wang and Komatsuzaki 2021, GPT-J-6B: A 6 Billion Parameter Autoregressive Language Model "
                 "(github.com/kingoflolz/mesh-transformer-jax: 6,053,381,344 parameters)",
                 6053381344.0});
  }
  const char* llama2 = "Touvron et al. 2023, Llama 2: Open Foundation and Fine-Tuned Chat Models, "
                       "Table 1; parameter counts of the released checkpoints";
  p.push_back({llama_model("llama2-7b", 32, 4096, 32, 32, 11008, 32000, 4096), "Llama 2 7B", llama2,
               6738415616.0});
  p.push_back({llama_model("llama2-13b", 40, 5120, 40, 40, 13824, 32000, 4096), "Llama 2 13B", llama2,
               13015864320.0});
  p.push_back({llama_model("llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096), "Llama 2 70B", llama2,
               68976648192.0});
  const char* llama3 = "Dubey et al. 2024, The Llama 3 Herd of Models, Table 3; parameter counts "
                       "of the released checkpoints";
  p.push_back({llama_model("llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192), "Llama 3 8B", llama3,
               8030261248.0});
  p.push_back({llama_model("llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192), "Llama 3 70B", llama3,
               70553706496.0});
  // Llama 3.1 8B and 70B are Llama 3's shapes (their 128K context is a rope scaling, not a shape).
  p.push_back({llama_model("llama3.1-8b", 32, 4096, 32, 8, 14336, 128256, 8192), "Llama 3.1 8B", llama3,
               8030261248.0});
  p.push_back({llama_model("llama3.1-70b", 80, 8192, 64, 8, 28672, 128256, 8192), "Llama 3.1 70B", llama3,
               70553706496.0});
  p.push_back({llama_model("llama3.1-405b", 126, 16384, 128, 8, 53248, 128256, 8192), "Llama 3.1 405B",
               llama3, 405853388800.0});
  // Mixtral (Jiang et al. 2024, Mixtral of Experts, arXiv 2401.04088, Table 1; Mistral AI's
  // announcement of Mixtral 8x22B): Mistral 7B's layout with every MLP replaced by eight SwiGLU
  // experts, two of them per token, softmax routing, no capacity limit.
  const auto mixtral = [](std::string name, int layers, int hidden, int heads, int ffn, int vocab, int seq) {
    ModelConfig m = llama_model(std::move(name), layers, hidden, heads, 8, ffn, vocab, seq);
    m.moe.experts = 8;
    m.moe.experts_per_token = 2;
    m.moe.expert_ffn_hidden = ffn;
    return m;
  };
  p.push_back({mixtral("mixtral-8x7b", 32, 4096, 32, 14336, 32000, 4096), "Mixtral 8x7B (46.7B, 12.9B active)",
               "Jiang et al. 2024, Mixtral of Experts, arXiv 2401.04088, Table 1 and section 2 (46.7B parameters, "
               "12.9B active per token); sequence 4096 as NVIDIA's NeMo recipes train it",
               46.7e9, 12.9e9});
  p.push_back({mixtral("mixtral-8x22b", 56, 6144, 48, 16384, 32000, 4096), "Mixtral 8x22B (141B, 39B active)",
               "Mistral AI 2024, Cheaper, Better, Faster, Stronger (Mixtral 8x22B: 141B parameters, 39B active); "
               "shape of the released config.json (56 layers, hidden 6144, 48 heads, 8 key/value heads, expert "
               "width 16384, vocabulary 32000)",
               141e9, 39e9});
  {
    // Grok-1 (xAI's open release, github.com/xai-org/grok-1, README and model.py): 64 layers,
    // embedding 6144, 48 query and 8 key/value heads, eight GeGLU experts of width 32768 (widening
    // factor 8) in every layer, two per token, RMSNorm, rotary positions, vocabulary 131072 and the
    // input embedding reused as the output layer; context 8192.
    ModelConfig m = llama_model("grok-1", 64, 6144, 48, 8, 32768, 131072, 8192);
    m.mlp = Mlp::geglu;
    m.tied_embeddings = true;
    m.moe.experts = 8;
    m.moe.experts_per_token = 2;
    m.moe.expert_ffn_hidden = 32768;
    p.push_back({m, "Grok-1 (314B, 8 experts, 2 a token)",
                 "xAI 2024, Grok-1 open release (github.com/xai-org/grok-1): 314B parameters, a mixture of 8 "
                 "experts with 2 a token, 64 layers, 48 query and 8 key/value heads, embedding 6144, "
                 "vocabulary 131072, rotary embeddings, context 8192; widening factor 8 and GeGLU of its model.py",
                 314e9});
  }
  // Models whose heads are wider than hidden / heads (head_dim).
  const char* qwen3 = "Qwen Team 2025, Qwen3 Technical Report, arXiv 2505.09388, Table 1; head_dim, widths and "
                      "vocabulary of the released config.json; parameter counts of the model cards";
  {
    ModelConfig m = llama_model("qwen3-8b", 36, 4096, 32, 8, 12288, 151936, 4096);
    m.head_dim = 128;
    p.push_back({m, "Qwen3 8B", qwen3, 8.2e9});
  }
  {
    ModelConfig m = llama_model("qwen3-32b", 64, 5120, 64, 8, 25600, 151936, 4096);
    m.head_dim = 128;
    p.push_back({m, "Qwen3 32B", qwen3, 32.8e9});
  }
  // Qwen3's mixtures of experts: 128 narrow SwiGLU experts in every layer, eight of them per
  // token, no shared expert (the released config.json: moe_intermediate_size, num_experts,
  // num_experts_per_tok; ffn_hidden is the unused dense width).
  const auto qwen3_moe = [](std::string name, int layers, int hidden, int heads, int ffn, int expert_ffn) {
    ModelConfig m = llama_model(std::move(name), layers, hidden, heads, 4, ffn, 151936, 4096);
    m.head_dim = 128;
    m.moe.experts = 128;
    m.moe.experts_per_token = 8;
    m.moe.expert_ffn_hidden = expert_ffn;
    return m;
  };
  p.push_back({qwen3_moe("qwen3-30b-a3b", 48, 2048, 32, 6144, 768), "Qwen3 30B-A3B (30.5B, 3.3B active)", qwen3,
               30.5e9, 3.3e9});
  p.push_back({qwen3_moe("qwen3-235b-a22b", 94, 4096, 64, 12288, 1536), "Qwen3 235B-A22B (235B, 22B active)", qwen3,
               235e9, 22e9});
  {
    // DeepSeek-V3 (DeepSeek-AI 2024, arXiv 2412.19437, section 4.2 and the released config.json):
    // 61 layers, the first 3 dense, then 256 routed experts of width 2048 (8 a token, sigmoid
    // scores) and one shared expert; multi-head latent attention. Multi-token prediction's extra
    // module (14 B parameters of the released 685 B) is not part of the model here.
    ModelConfig m = llama_model("deepseek-v3", 61, 7168, 128, 128, 18432, 129280, 4096);
    m.mla = MlaConfig{};
    m.moe.experts = 256;
    m.moe.experts_per_token = 8;
    m.moe.expert_ffn_hidden = 2048;
    m.moe.shared_experts = 1;
    m.moe.shared_expert_ffn_hidden = 2048;
    m.moe.first_dense_layers = 3;
    m.moe.router = Router::sigmoid;
    p.push_back({m, "DeepSeek-V3 (671B, 37B active)",
                 "DeepSeek-AI 2024, DeepSeek-V3 Technical Report, arXiv 2412.19437, section 4.2 (671B total "
                 "parameters, 37B activated for each token); shape of the released config.json",
                 671e9, 37e9});
  }
  {
    ModelConfig m = llama_model("gemma-7b", 28, 3072, 16, 16, 24576, 256000, 8192);
    m.mlp = Mlp::geglu;
    m.head_dim = 256;
    m.tied_embeddings = true;
    p.push_back({m, "Gemma 7B",
                 "Gemma Team 2024, Gemma: Open Models Based on Gemini Research and Technology, arXiv 2403.08295, "
                 "Tables 1 and 2 (786,825,216 embedding and 7,751,248,896 non-embedding parameters)",
                 8538074112.0});
  }
  return p;
}

}  // namespace

const Registry<ModelPreset>& model_presets() {
  static const Registry<ModelPreset> presets(build_presets());
  return presets;
}

namespace detail {

void read_model(const json* j, ModelConfig& m, Diagnostics& errors) {
  if (j && j->is_string()) {
    const std::string name = j->get<std::string>();
    if (const ModelPreset* p = model_presets().find(name)) {
      m = p->model;
    } else {
      errors.push_back(make_diagnostic("unknown_preset", "/model",
                                       "unknown model preset \"" + name + "\"; presets are " + model_presets().names_text()));
    }
    return;
  }
  ObjectReader r(j, "/model", errors);
  if (!r.present()) return;
  // {"preset": "llama2-70b", "seq_len": 8192} starts from the preset and overrides fields.
  if (const json* preset = r.child("preset")) {
    if (!preset->is_string()) {
      r.fail("type", r.at("preset"), "must be a preset name");
    } else if (const ModelPreset* p = model_presets().find(preset->get<std::string>())) {
      m = p->model;
    } else {
      r.fail("unknown_preset", r.at("preset"),
             "unknown model preset \"" + preset->get<std::string>() + "\"");
    }
  }
  // /model/moe: an object of expert fields over the preset's (or a dense model's), or null: dense.
  if (const json* moe = r.child("moe")) {
    if (moe->is_null()) {
      m.moe = MoeConfig{};
    } else {
      const bool had_moe = is_moe(m);
      read_section(moe, "/model/moe", m.moe, errors, [](auto& v, auto& s) { moe_fields(v, s); });
      if (moe->is_object() && !had_moe)
        for (const char* k : {"experts", "experts_per_token", "expert_ffn_hidden"})
          if (!moe->contains(k))
            errors.push_back(make_diagnostic("missing", join_pointer("/model/moe", k), "is required for a mixture of experts"));
    }
  }
  const bool ffn_given = r.has("ffn_hidden");
  const bool kv_given = r.has("kv_heads");
  const bool from_preset = r.has("preset");
  FieldReader reader{r};
  model_fields(reader, m);
  // Latent attention: an object over the preset's (or DeepSeek-V3's) ranks; null removes it.
  if (const json* mla = r.child("mla")) {
    if (mla->is_null()) {
      m.mla.reset();
    } else {
      MlaConfig a = m.mla.value_or(MlaConfig{});
      read_section(mla, "/model/mla", a, errors, [](auto& v, auto& s) { mla_fields(v, s); });
      m.mla = a;
    }
  }
  // Without a preset, omitted shape fields follow the GPT convention of the given ones; the
  // shape itself has no default.
  if (!from_preset) {
    for (const char* k : {"layers", "hidden", "heads"})
      if (!r.has(k)) r.fail("missing", r.at(k), "is required for a model given by its shape (or give \"preset\")");
    if (!ffn_given) m.ffn_hidden = 4 * m.hidden;
    if (!kv_given) m.kv_heads = m.heads;
    if (!r.has("name")) m.name = "custom";
  } else if (r.has("hidden") && !ffn_given && m.mlp == Mlp::gelu) {
    m.ffn_hidden = 4 * m.hidden;
  }
  r.finish();
}

}  // namespace detail

Outcome<ModelConfig> parse_model_config(const json& j) {
  return detail::parse_section(j, &detail::read_model, &check_model);
}

Diagnostics check_model(const ModelConfig& m) {
  Diagnostics e;
  if (m.mla && m.head_dim != 0)
    e.push_back(make_diagnostic("range", "/model/head_dim",
                                "must be 0 with /model/mla: latent attention gives its own head widths "
                                "(qk_nope_head_dim + qk_rope_head_dim, v_head_dim)"));
  else if (!m.mla && m.head_dim == 0 && m.hidden % m.heads != 0)
    e.push_back(make_diagnostic("divisibility", "/model/hidden",
                                "must be divisible by /model/heads (" + std::to_string(m.heads) +
                                    "), or give /model/head_dim"));
  if (m.mla && m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim < 1)
    e.push_back(make_diagnostic("range", "/model/mla/qk_nope_head_dim",
                                "plus /model/mla/qk_rope_head_dim must be at least 1 (the query/key head width)"));
  if (m.mla && m.kv_heads != m.heads)
    e.push_back(make_diagnostic("range", "/model/kv_heads",
                                "must equal /model/heads (" + std::to_string(m.heads) +
                                    ") with /model/mla: latent attention expands keys and values to every head"));
  if (m.kv_heads > m.heads)
    e.push_back(make_diagnostic("range", "/model/kv_heads", "must not exceed /model/heads (" + std::to_string(m.heads) + ")"));
  else if (m.heads % m.kv_heads != 0)
    e.push_back(make_diagnostic("divisibility", "/model/kv_heads",
                                "must divide /model/heads (" + std::to_string(m.heads) + ")"));
  if (is_moe(m)) {
    const MoeConfig& x = m.moe;
    if (x.experts_per_token > x.experts)
      e.push_back(make_diagnostic("range", "/model/moe/experts_per_token",
                                  "must be at most /model/moe/experts (" + std::to_string(x.experts) +
                                      "): a token passes through distinct experts"));
    if (x.first_dense_layers >= m.layers)
      e.push_back(make_diagnostic("range", "/model/moe/first_dense_layers",
                                  "must be less than /model/layers (" + std::to_string(m.layers) +
                                      "): a mixture of experts needs at least one MoE layer"));
  }
  if (m.residual != Residual::sequential && (is_moe(m) || m.mla))
    e.push_back(make_diagnostic("range", "/model/residual",
                                std::string("must be \"sequential\" with ") +
                                    (is_moe(m) ? "/model/moe" : "/model/mla") +
                                    ": a parallel residual is modelled for dense layers with multi-head or grouped-query attention"));
  return e;
}

json to_json(const ModelConfig& m) {
  json j = detail::section_json(m, [](auto& v, const auto& s) { detail::model_fields(v, s); });
  if (is_moe(m)) j["moe"] = detail::section_json(m.moe, [](auto& v, const auto& s) { detail::moe_fields(v, s); });
  if (m.mla) j["mla"] = detail::section_json(*m.mla, [](auto& v, const auto& s) { detail::mla_fields(v, s); });
  return j;
}

}  // namespace vtrain
