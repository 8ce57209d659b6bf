// A Hugging Face config.json read into the model section of a simulate config. Each family's
// fields are read under the names its transformers class uses (and their aliases); what the
// simulator has no field for is named in a warning, never dropped silently.

#include "vtrain/hf_import.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "common/json_reader.hpp"
#include "vtrain/config.hpp"
#include "vtrain/json_text.hpp"

namespace vtrain {

using nlohmann::json;

namespace {

enum class Family { llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek, gemma, gemma2, gpt2, neox, falcon, opt, bloom };

struct Architecture {
  const char* class_name;  // architectures[0]
  const char* model_type;  // model_type
  Family family;
};

// The classes the importer knows, with the model_type each class writes.
constexpr Architecture kArchitectures[] = {
    {"LlamaForCausalLM", "llama", Family::llama},
    {"MistralForCausalLM", "mistral", Family::mistral},
    {"MixtralForCausalLM", "mixtral", Family::mixtral},
    {"Qwen2ForCausalLM", "qwen2", Family::qwen2},
    {"Qwen2MoeForCausalLM", "qwen2_moe", Family::qwen2_moe},
    {"Qwen3ForCausalLM", "qwen3", Family::qwen3},
    {"Qwen3MoeForCausalLM", "qwen3_moe", Family::qwen3_moe},
    {"DeepseekV3ForCausalLM", "deepseek_v3", Family::deepseek},
    {"DeepseekV2ForCausalLM", "deepseek_v2", Family::deepseek},
    {"GemmaForCausalLM", "gemma", Family::gemma},
    {"Gemma2ForCausalLM", "gemma2", Family::gemma2},
    {"GPT2LMHeadModel", "gpt2", Family::gpt2},
    {"GPTNeoXForCausalLM", "gpt_neox", Family::neox},
    {"FalconForCausalLM", "falcon", Family::falcon},
    {"RWForCausalLM", "RefinedWebModel", Family::falcon},
    {"RWForCausalLM", "RefinedWeb", Family::falcon},
    {"OPTForCausalLM", "opt", Family::opt},
    {"BloomForCausalLM", "bloom", Family::bloom},
};

// Fields that change neither the work nor the memory of training: token ids, initialisation,
// epsilons, dropout rates of 0 at pretraining scale, inference caches, the checkpoint's own
// bookkeeping. They are read and not warned about.
constexpr const char* kIgnored[] = {
    "_name_or_path", "architectures", "model_type", "auto_map", "transformers_version", "torch_dtype", "dtype",
    "bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id", "sep_token_id", "decoder_start_token_id",
    "use_cache", "initializer_range", "initializer_factor", "init_std", "rms_norm_eps", "layer_norm_eps",
    "layer_norm_epsilon", "rope_theta", "rotary_emb_base", "attention_dropout", "hidden_dropout", "resid_pdrop",
    "embd_pdrop", "attn_pdrop", "dropout", "activation_dropout", "classifier_dropout", "attention_probs_dropout_prob",
    "hidden_dropout_prob", "layerdrop", "summary_activation", "summary_first_dropout", "summary_proj_to_labels",
    "summary_type", "summary_use_proj", "task_specific_params", "scale_attn_weights", "reorder_and_upcast_attn",
    "scale_attn_by_inverse_layer_idx", "pretraining_tp", "router_aux_loss_coef", "output_router_logits",
    "router_jitter_noise", "norm_topk_prob", "routed_scaling_factor", "aux_loss_alpha", "seq_aux",
    "attention_softmax_in_fp32", "masked_softmax_fusion", "skip_bias_add", "skip_bias_add_qkv", "slow_but_exact",
    "offset_alibi", "apply_residual_connection_post_layernorm", "prefix", "_remove_final_layer_norm",
    "do_layer_norm_before", "attn_logit_softcapping", "final_logit_softcapping", "query_pre_attn_scalar",
    "cache_implementation", "max_window_layers", "use_sliding_window", "ep_size", "return_dict",
    "output_hidden_states", "output_attentions", "is_decoder", "is_encoder_decoder", "id2label", "label2id",
    "n_ctx", "use_qk_norm", "layer_types", "hidden_activation", "rope_interleave"};

constexpr const char* kFamilyNames[] = {"llama", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
                                        "deepseek_v3", "gemma", "gemma2", "gpt2", "gpt_neox", "falcon", "opt", "bloom"};

// Llama's descendants: a gated MLP, RMSNorm, rotary positions, no biases, untied by default.
bool llama_like(Family f) { return f <= Family::gemma2; }

// printf into a string: one call per message keeps the WebAssembly module small.
std::string say(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string say(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

// Reads the file field by field, remembering which keys were read.
class Reader {
 public:
  explicit Reader(const json& hf) : hf_(hf) {}

  Diagnostics errors, warnings;

  static std::string at(const char* key) { return detail::join_pointer("", key); }

  // The value of `key`, or null when absent or JSON null (which transformers writes for "unset").
  const json* get(const char* key) {
    seen_.push_back(key);
    auto it = hf_.find(key);
    return it == hf_.end() || it->is_null() ? nullptr : &*it;
  }
  bool given(const char* key) {
    auto it = hf_.find(key);
    return it != hf_.end() && !it->is_null();
  }

  // A whole number in [lo, hi] under the first of `keys` (null-terminated) the file gives. Absent:
  // -1, and `missing` true; wrong: -1, with the error recorded.
  long long whole(const char* const* keys, long long lo, long long hi, bool* missing = nullptr) {
    const json* v = nullptr;
    const char* key = nullptr;
    for (; *keys; ++keys) {
      const json* x = get(*keys);
      if (x && !v) v = x, key = *keys;
    }
    if (missing) *missing = v == nullptr;
    if (!v) return -1;
    const double d = v->is_number() ? v->get<double>() : 0.5;
    if (!std::isfinite(d) || d != std::floor(d)) {
      error("type", key, "must be a whole number, got %s", v->dump().c_str());
      return -1;
    }
    if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
      error("range", key, "must be between %lld and %lld, got %.10g", lo, hi, d);
      return -1;
    }
    return static_cast<long long>(d);
  }
  long long whole(const char* key, long long lo, long long hi, bool* missing = nullptr) {
    const char* keys[] = {key, nullptr};
    return whole(keys, lo, hi, missing);
  }

  bool flag(const char* key, bool fallback) {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_boolean()) {
      error("type", key, "must be true or false");
      return fallback;
    }
    return v->get<bool>();
  }

  std::string text(const char* key) {
    const json* v = get(key);
    if (!v) return "";
    if (!v->is_string()) {
      error("type", key, "must be a string");
      return "";
    }
    return v->get<std::string>();
  }

  // A diagnostic at `key`, its rule printf's `format` of the arguments.
  void error(const char* code, const char* key, const char* format, ...) __attribute__((format(printf, 4, 5))) {
    va_list args;
    va_start(args, format);
    add(errors, code, key, format, args);
    va_end(args);
  }
  void unmapped(const char* key, const char* format, ...) __attribute__((format(printf, 3, 4))) {
    va_list args;
    va_start(args, format);
    add(warnings, "unmapped", key, format, args);
    va_end(args);
  }
  void assume(const char* key, const char* format, ...) __attribute__((format(printf, 3, 4))) {
    va_list args;
    va_start(args, format);
    add(warnings, "assumption", key, format, args);
    va_end(args);
  }

  // Every field the file gives that no rule read: named, since it may change the model's shape.
  void warn_unread() {
    for (auto it = hf_.begin(); it != hf_.end(); ++it) {
      const char* k = it.key().c_str();
      bool known = false;
      for (const char* s : seen_) known = known || std::strcmp(s, k) == 0;
      for (const char* s : kIgnored) known = known || std::strcmp(s, k) == 0;
      if (!known)
        unmapped(k, "is not read: vtrain has no field for it (check that it does not change the model's size or work)");
    }
  }

 private:
  static void add(Diagnostics& to, const char* code, const char* key, const char* format, va_list args) {
    char buf[512];
    std::vsnprintf(buf, sizeof buf, format, args);
    to.push_back(make_diagnostic(code, at(key), buf));
  }

  const json& hf_;
  std::vector<const char*> seen_;
};

// architectures[0], or model_type when the class is not one of kArchitectures.
const Architecture* find_architecture(Reader& r) {
  std::string class_name;
  if (const json* a = r.get("architectures")) {
    if (!a->is_array() || a->empty() || !(*a)[0].is_string())
      r.error("type", "architectures", "must be a list of class names, such as [\"LlamaForCausalLM\"]");
    else
      class_name = (*a)[0].get<std::string>();
  }
  const std::string model_type = r.text("model_type");
  if (!r.errors.empty()) return nullptr;
  for (const auto& a : kArchitectures)
    if (class_name == a.class_name) return &a;
  for (const auto& a : kArchitectures) {
    if (model_type != a.model_type) continue;
    if (!class_name.empty())
      r.warnings.push_back(make_diagnostic(
          "assumption", "/architectures/0",
          say("\"%s\" is not a class vtrain knows: read by model_type \"%s\" as %s's layout", class_name.c_str(),
              model_type.c_str(), a.class_name)));
    return &a;
  }
  std::string known;
  for (const auto& a : kArchitectures)
    if (known.find(a.class_name) == std::string::npos) (known += known.empty() ? "" : ", ") += a.class_name;
  const std::string what = !class_name.empty()   ? say("\"%s\"", class_name.c_str())
                           : !model_type.empty() ? say("model_type \"%s\"", model_type.c_str())
                                                 : "no architecture";
  const char* pointer = !class_name.empty() ? "/architectures/0" : !model_type.empty() ? "/model_type" : "/architectures";
  r.errors.push_back(make_diagnostic("unknown_architecture", pointer,
                                     what + " is not an architecture vtrain reads (it reads " + known +
                                         ", or a model_type of theirs)"));
  return nullptr;
}

// The required sizes' keys, null-terminated: the family's own name first (the one an error names).
struct SizeKeys {
  const char* layers[3];
  const char* hidden[3];
  const char* heads[3];
};

SizeKeys size_keys(Family f) {
  if (f == Family::gpt2) return {{"n_layer", "num_hidden_layers"}, {"n_embd", "hidden_size"}, {"n_head", "num_attention_heads"}};
  if (f == Family::bloom)
    return {{"n_layer", "num_hidden_layers"}, {"hidden_size", "n_embed"}, {"n_head", "num_attention_heads"}};
  if (f == Family::falcon)
    return {{"num_hidden_layers", "n_layer"}, {"hidden_size"}, {"num_attention_heads", "n_head"}};
  return {{"num_hidden_layers"}, {"hidden_size"}, {"num_attention_heads"}};
}

// Sets the members of `o` from {key, value} pairs.
void put(json& o, std::initializer_list<std::pair<const char*, long long>> members) {
  for (const auto& [k, v] : members) o[k] = v;
}

}  // namespace

Outcome<HfImport> import_hf_config(const json& hf) {
  if (!hf.is_object())
    return Outcome<HfImport>::fail("type", "", say("/: a Hugging Face config.json must be a JSON object, got %s", hf.type_name()));
  Reader r(hf);
  const Architecture* arch = find_architecture(r);
  if (!arch) return r.errors;
  const Family f = arch->family;
  const bool gated = llama_like(f);

  // ---------------------------------------------------------------- the sizes
  const SizeKeys keys = size_keys(f);
  bool no_layers = false, no_hidden = false, no_heads = false, no_vocab = false;
  const long long layers = r.whole(keys.layers, 1, limits::layers, &no_layers);
  const long long h = r.whole(keys.hidden, 1, limits::hidden, &no_hidden);
  const long long n = r.whole(keys.heads, 1, limits::heads, &no_heads);
  const long long vocab = r.whole("vocab_size", 1, limits::vocab, &no_vocab);
  auto require = [&](bool missing, const char* const* names, const char* what) {
    if (missing)
      r.error("missing", names[0], "is required: %s%s%s%s", what, names[1] ? " (also read as " : "",
                                       names[1] ? names[1] : "", names[1] ? ")" : "");
  };
  const char* vocab_keys[] = {"vocab_size", nullptr};
  require(no_layers, keys.layers, "the number of transformer layers");
  require(no_hidden, keys.hidden, "the model's width");
  require(no_heads, keys.heads, "the number of attention heads");
  require(no_vocab, vocab_keys, "the vocabulary size");

  // Key/value heads: grouped-query attention's, Falcon's multi-query (one) or its new decoder's.
  long long kv = n;
  const char* kv_key = "num_key_value_heads";
  if (f == Family::falcon) {
    const bool new_decoder = r.flag("new_decoder_architecture", false);
    const bool multi_query = r.flag("multi_query", true);
    const long long given = r.whole("num_kv_heads", 1, limits::heads);
    if (new_decoder) {
      kv_key = "num_kv_heads";
      if (given > 0) kv = given;
    } else if (multi_query) {
      kv_key = "multi_query";
      kv = 1;
    }
  } else if (gated) {
    const long long given = r.whole("num_key_value_heads", 1, limits::heads);
    if (given > 0) kv = given;
  }

  // The per-head width, where the file gives one (Gemma, Qwen3); DeepSeek's MLA has its own.
  const long long head_dim = f == Family::deepseek ? (r.get("head_dim"), -1) : r.whole("head_dim", 1, limits::hidden);

  // Sequence length: the longest the position scheme takes.
  bool no_seq = false;
  const char* seq_keys[] = {"max_position_embeddings", "n_positions", "seq_length", "max_sequence_length", nullptr};
  long long seq_len = r.whole(seq_keys, 1, limits::seq_len, &no_seq);
  const char* seq_key = seq_keys[0];
  for (const char* const* k = seq_keys; *k; ++k)
    if (r.given(*k)) {
      seq_key = *k;
      break;
    }

  // MLP width: the family's key; BLOOM's MLP is 4 x hidden whatever n_inner says.
  const char* ffn_key = f == Family::gpt2 ? "n_inner" : f == Family::opt ? "ffn_dim" : f == Family::falcon ? "ffn_hidden_size"
                      : f == Family::bloom ? "n_inner" : "intermediate_size";
  bool no_ffn = true;
  long long ffn = -1;
  if (f == Family::bloom) r.get(ffn_key);
  else ffn = r.whole(ffn_key, 1, limits::ffn_hidden, &no_ffn);

  if (!r.errors.empty()) return r.errors;

  // ---------------------------------------------------------------- rules between the sizes
  const bool own_head_dim = head_dim > 0 && (h % n != 0 || head_dim != h / n);
  if (!own_head_dim && h % n != 0)
    r.error("divisibility", keys.heads[0], "must divide the width %s (%lld), or the file must give head_dim", keys.hidden[0], h);
  if (kv > n)
    r.error("range", kv_key, "must not exceed the attention heads (%lld), got %lld", n, kv);
  else if (n % kv != 0)
    r.error("divisibility", kv_key, "must divide the attention heads (%lld), got %lld", n, kv);
  if (!r.errors.empty()) return r.errors;

  HfImport out;
  out.architecture = kFamilyNames[static_cast<int>(f)];
  json& m = out.model;
  m = json::object();
  const std::string name = r.text("_name_or_path");
  m["name"] = name.empty() ? "custom" : name;
  put(m, {{"layers", layers}, {"hidden", h}, {"heads", n}, {"kv_heads", kv}, {"vocab", vocab}});

  // ---------------------------------------------------------------- position and length
  const char* position = f == Family::gpt2 || f == Family::opt                        ? "learned"
                         : f == Family::bloom || (f == Family::falcon && r.flag("alibi", false)) ? "alibi"
                                                                                             : "rope";
  const bool learned = f == Family::gpt2 || f == Family::opt;
  m["position"] = position;
  if (no_seq) {
    seq_len = 2048;
    r.assume(f == Family::gpt2 ? "n_positions" : "max_position_embeddings",
             "is not given: seq_len is 2048 (transformers' default for this class); set /model/seq_len to the length "
             "you train at");
  } else if (!learned) {
    r.assume(seq_key, "is the longest sequence the model takes (%lld tokens): seq_len is set to it; set "
                          "/model/seq_len to the length you train at",
                          seq_len);
  }
  m["seq_len"] = seq_len;
  if (const json* scaling = r.get("rope_scaling")) {
    std::string kind;
    double original = 0;
    if (scaling->is_object()) {
      for (const char* k : {"rope_type", "type"})
        if (scaling->contains(k) && (*scaling)[k].is_string()) kind = " (" + (*scaling)[k].get<std::string>() + ")";
      if (scaling->contains("original_max_position_embeddings") && (*scaling)["original_max_position_embeddings"].is_number())
        original = (*scaling)["original_max_position_embeddings"].get<double>();
    }
    if (original > 0)
      r.unmapped("rope_scaling", "stretches the rotary frequencies%s, which costs nothing to simulate; the model was "
                                 "pretrained at %.10g tokens (original_max_position_embeddings)",
                 kind.c_str(), original);
    else
      r.unmapped("rope_scaling", "stretches the rotary frequencies%s, which costs nothing to simulate", kind.c_str());
  }
  // Attention and MLP side by side: GPT-NeoX with a norm for each, Falcon with one (its new
  // decoder, 40B and 180B, with one for each).
  if (f == Family::neox) {
    const json* pct = r.get("rotary_pct");
    if (pct && pct->is_number()) {
      const double v = pct->get<double>();
      if (v > 0 && v <= 1) m["rotary_fraction"] = v;
      else r.error("range", "rotary_pct", "must be greater than 0 and at most 1, got %.10g", v);
    }
    if (r.flag("use_parallel_residual", true)) m["residual"] = "parallel_two_norms";
  }
  if (f == Family::falcon && r.flag("parallel_attn", true))
    m["residual"] = r.flag("new_decoder_architecture", false) ? "parallel_two_norms" : "parallel";
  if (const json* window = r.get("sliding_window")) {
    const json* use = r.given("use_sliding_window") ? &hf["use_sliding_window"] : nullptr;
    const bool off = use && use->is_boolean() && !use->get<bool>();
    if (!off && window->is_number() && window->get<double>() < static_cast<double>(seq_len))
      r.unmapped("sliding_window", "limits attention to the last %.10g tokens: vtrain simulates attention over "
                                       "the whole sequence (%lld tokens)",
                                       window->get<double>(), seq_len);
  }

  // ---------------------------------------------------------------- MLP
  long long ffn_hidden = 4 * h;
  if (ffn > 0) {
    ffn_hidden = ffn;
  } else if (no_ffn && f != Family::gpt2 && f != Family::bloom && f != Family::falcon) {
    r.assume(ffn_key, "is not given: ffn_hidden is 4 x the width (%lld)", 4 * h);
  }
  if (ffn_hidden > limits::ffn_hidden) {
    r.error("range", ffn_key, "gives an MLP wider than %d", limits::ffn_hidden);
    return r.errors;
  }
  m["ffn_hidden"] = ffn_hidden;
  const char* act_key = r.given("hidden_act") ? "hidden_act" : r.given("activation_function") ? "activation_function" : "hidden_activation";
  const std::string act = r.text(act_key);
  const bool gelu_gate = gated && !act.empty() && act.rfind("gelu", 0) == 0;
  m["mlp"] = !gated ? "gelu" : gelu_gate ? "geglu" : "swiglu";
  if (gated && !gelu_gate && !act.empty() && act != "silu" && act != "swish")
    r.assume(act_key, "\"%s\" gates the MLP: simulated as the gated MLP \"swiglu\", the same three GEMMs", act.c_str());
  if (!gated && !act.empty() && act.rfind("gelu", 0) != 0)
    r.assume(act_key, "\"%s\" is simulated as \"gelu\": the same two GEMMs; only the element-wise activation differs", act.c_str());

  // ---------------------------------------------------------------- norms, biases, embeddings
  m["norm"] = gated ? "rmsnorm" : "layernorm";
  bool bias = f == Family::gpt2 || f == Family::bloom;
  if (f == Family::neox) bias = r.flag("attention_bias", true);
  if (f == Family::opt) bias = r.flag("enable_bias", true);
  if (f == Family::falcon) bias = r.flag("bias", false);
  if (gated) {
    const bool attention_bias = r.flag("attention_bias", false);
    const bool mlp_bias = r.flag("mlp_bias", false);
    bias = attention_bias && mlp_bias;
    if (attention_bias != mlp_bias)
      r.unmapped(attention_bias ? "attention_bias" : "mlp_bias",
                 "gives biases to only the %s's linear layers: vtrain's /model/bias is all or none; bias is false",
                     attention_bias ? "attention" : "MLP");
    if (f == Family::qwen2 || f == Family::qwen2_moe)
      r.warnings.push_back(make_diagnostic(
          "assumption", "/architectures/0",
          say("Qwen2's query, key and value projections carry biases (%lld parameters a layer) and no other layer "
              "does: bias is false, leaving them out",
              h + 2 * kv * (h / n))));
  }
  m["bias"] = bias;
  const bool tied_default = f == Family::gemma || f == Family::gemma2 || f == Family::gpt2 || f == Family::falcon ||
                            f == Family::opt || f == Family::bloom;
  m["tied_embeddings"] = r.flag("tie_word_embeddings", tied_default);
  if (f == Family::bloom)
    r.warnings.push_back(make_diagnostic(
        "unmapped", "/architectures/0",
        say("BLOOM normalizes the word embeddings (a LayerNorm of 2 x %lld parameters) before the first layer: vtrain "
            "has no such norm and leaves it out",
            h)));
  if (f == Family::opt) {
    const long long proj = r.whole("word_embed_proj_dim", 1, limits::hidden);
    if (proj > 0 && proj != h)
      r.unmapped("word_embed_proj_dim", "embeds words at width %lld and projects them to %lld: vtrain embeds at "
                                            "the model's width and leaves the two projections out",
                                            proj, h);
  }
  if (r.get("quantization_config"))
    r.unmapped("quantization_config",
               "describes how the checkpoint is stored, not how it trains: /plan/precision sets the training precision");

  // ---------------------------------------------------------------- head_dim, mixture of experts, MLA
  if (own_head_dim) m["head_dim"] = head_dim;
  // Experts: the keys of the family's experts, top-k, expert width, shared experts (count or
  // width), dense leading layers and layer frequency.
  const char* experts_key = f == Family::mixtral ? "num_local_experts"
                            : f == Family::qwen2_moe || f == Family::qwen3_moe ? "num_experts"
                            : f == Family::deepseek ? "n_routed_experts"
                                                    : nullptr;
  if (experts_key) {
    bool no_experts = false;
    const long long experts = r.whole(experts_key, 1, limits::experts, &no_experts);
    // DeepSeek without routed experts is dense (DeepSeek-V2's dense variants); the others need them.
    const bool moe = f != Family::deepseek || !no_experts;
    const char* width_key = f == Family::mixtral ? "intermediate_size" : "moe_intermediate_size";
    bool no_top = false, no_width = false;
    const long long top_k = r.whole("num_experts_per_tok", 1, limits::experts, &no_top);
    const long long width = f == Family::mixtral ? ffn_hidden : r.whole(width_key, 1, limits::ffn_hidden, &no_width);
    long long shared = 0, shared_width = 0, first = 0, frequency = 1;
    const char* router = "softmax";
    if (f == Family::qwen2_moe || f == Family::qwen3_moe) {
      shared_width = std::max(0LL, r.whole("shared_expert_intermediate_size", 0, limits::ffn_hidden));
      shared = shared_width > 0;
      frequency = std::max(1LL, r.whole("decoder_sparse_step", 1, limits::layers));
      if (const json* dense = r.get("mlp_only_layers"); dense && dense->is_array() && !dense->empty())
        r.unmapped("mlp_only_layers", "makes layers %s dense: /model/moe places its layers by first_dense_layers "
                                          "and layer_frequency only, so they are simulated as MoE layers",
                                          dense->dump().c_str());
    } else if (f == Family::deepseek) {
      shared = std::max(0LL, r.whole("n_shared_experts", 0, limits::experts));
      shared_width = shared > 0 ? width : 0;
      first = std::max(0LL, r.whole("first_k_dense_replace", 0, limits::layers));
      frequency = std::max(1LL, r.whole("moe_layer_freq", 1, limits::layers));
      const std::string scoring = r.text("scoring_func");
      if (scoring == "sigmoid") router = "sigmoid";
      else if (!scoring.empty() && scoring != "softmax")
        r.unmapped("scoring_func", "\"%s\" is not a router vtrain knows: simulated as \"softmax\"", scoring.c_str());
      const long long groups = r.whole("n_group", 1, limits::experts);
      const long long group_top = r.whole("topk_group", 1, limits::experts);
      r.get("topk_method");
      if (moe && group_top > 0 && group_top < groups)
        r.unmapped("topk_group", "limits each token to experts in %lld of %lld groups (node-limited routing): the "
                                     "all-to-all is sized as if the experts were chosen freely",
                                     group_top, groups);
    }
    if (moe) {
      if (no_experts) r.error("missing", experts_key, "is required for a mixture-of-experts model: experts per layer");
      if (no_top) r.error("missing", "num_experts_per_tok", "is required for a mixture-of-experts model: experts each token goes to");
      if (no_width) r.error("missing", width_key, "is required for a mixture-of-experts model: one expert's MLP width");
      if (r.errors.empty() && top_k > experts)
        r.error("range", "num_experts_per_tok", "must not exceed the experts (%lld), got %lld", experts, top_k);
      if (!r.errors.empty()) return r.errors;
      json& e = m["moe"];
      put(e, {{"experts", experts}, {"experts_per_token", top_k}, {"expert_ffn_hidden", width}, {"shared_experts", shared},
              {"first_dense_layers", first}, {"layer_frequency", frequency}});
      if (shared > 0) e["shared_expert_ffn_hidden"] = shared_width;
      e["router"] = router;
    }
  }
  if (f == Family::deepseek) {
    const char* mla_keys[] = {"kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"};
    json& a = m["mla"];
    a["q_lora_rank"] = std::max(0LL, r.whole("q_lora_rank", 1, limits::hidden));
    for (const char* k : mla_keys) {
      bool missing = false;
      const long long v = r.whole(k, 1, limits::hidden, &missing);
      if (missing) r.error("missing", k, "is required for DeepSeek's multi-head latent attention");
      a[k] = v;
    }
    const long long mtp = r.whole("num_nextn_predict_layers", 0, limits::layers);
    if (mtp > 0)
      r.unmapped("num_nextn_predict_layers",
                 "adds %lld multi-token prediction module(s) after the last layer: vtrain leaves them out", mtp);
  }
  if (!r.errors.empty()) return r.errors;

  r.warn_unread();
  out.warnings = std::move(r.warnings);
  return out;
}

namespace api {

std::string import_hf(std::string_view config_json) {
  json j;
  Diagnostics errors = parse_json_text(config_json, j);
  if (!errors.empty()) return errors_reply(errors);
  auto imported = import_hf_config(j);
  if (!imported.ok()) return errors_reply(imported.errors());
  // The warnings in the form of an error reply's errors.
  json reply = json::parse(errors_reply(imported.value().warnings));
  json& result = reply["result"];
  result["model"] = std::move(imported.value().model);
  result["architecture"] = imported.value().architecture;
  result["warnings"] = std::move(reply["errors"]);
  reply.erase("errors");
  reply["ok"] = true;
  return dump_json(reply);
}

}  // namespace api

}  // namespace vtrain
