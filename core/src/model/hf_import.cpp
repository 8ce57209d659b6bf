// A Hugging Face config.json read into the model section of a simulate config. Each family's
// fields are read under the names its transformers class uses (and their aliases); what the
// simulator has no field for is named in a warning, never dropped silently.

#include "vtrain/hf_import.hpp"

#include <cmath>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
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
const std::set<std::string>& ignored_fields() {
  static const std::set<std::string> names = {
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
  return names;
}

const char* family_name(Family f) {
  switch (f) {
    case Family::llama: return "llama";
    case Family::mistral: return "mistral";
    case Family::mixtral: return "mixtral";
    case Family::qwen2: return "qwen2";
    case Family::qwen2_moe: return "qwen2_moe";
    case Family::qwen3: return "qwen3";
    case Family::qwen3_moe: return "qwen3_moe";
    case Family::deepseek: return "deepseek_v3";
    case Family::gemma: return "gemma";
    case Family::gemma2: return "gemma2";
    case Family::gpt2: return "gpt2";
    case Family::neox: return "gpt_neox";
    case Family::falcon: return "falcon";
    case Family::opt: return "opt";
    case Family::bloom: return "bloom";
  }
  return "";
}

// Llama's descendants: a gated MLP, RMSNorm, rotary positions, no biases, untied by default.
bool llama_like(Family f) {
  switch (f) {
    case Family::llama: case Family::mistral: case Family::mixtral: case Family::qwen2: case Family::qwen2_moe:
    case Family::qwen3: case Family::qwen3_moe: case Family::deepseek: case Family::gemma: case Family::gemma2:
      return true;
    default: return false;
  }
}

std::string number_text(double v) { return detail::describe_number(v); }

// Reads the file field by field, remembering which keys were read.
class Reader {
 public:
  explicit Reader(const json& hf) : hf_(hf) {}

  Diagnostics errors, warnings;

  static std::string at(const std::string& key) { return detail::join_pointer("", key); }

  // The value of `key`, or null when absent or JSON null (which transformers writes for "unset").
  const json* get(const char* key) {
    seen_.insert(key);
    auto it = hf_.find(key);
    return it == hf_.end() || it->is_null() ? nullptr : &*it;
  }

  // A whole number in [lo, hi] under the first of `keys` the file gives. Absent: nullopt, and
  // `missing` true; wrong: nullopt, with the error recorded.
  std::optional<long long> whole(const std::vector<const char*>& keys, long long lo, long long hi,
                                 bool* missing = nullptr) {
    const json* v = nullptr;
    const char* key = nullptr;
    for (const char* k : keys) {
      const json* x = get(k);
      if (x && !v) v = x, key = k;
    }
    if (missing) *missing = v == nullptr;
    if (!v) return std::nullopt;
    if (!v->is_number()) {
      error("type", key, "must be a whole number, got " + v->dump());
      return std::nullopt;
    }
    const double d = v->get<double>();
    if (!std::isfinite(d) || d != std::floor(d)) {
      error("type", key, "must be a whole number, got " + number_text(d));
      return std::nullopt;
    }
    if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
      error("range", key, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                              number_text(d));
      return std::nullopt;
    }
    return static_cast<long long>(d);
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

  void error(const char* code, const std::string& key, const std::string& rule) {
    errors.push_back(make_diagnostic(code, at(key), rule));
  }
  void unmapped(const std::string& key, const std::string& rule) {
    warnings.push_back(make_diagnostic("unmapped", at(key), rule));
  }
  void assume(const std::string& key, const std::string& rule) {
    warnings.push_back(make_diagnostic("assumption", at(key), rule));
  }

  // Every field the file gives that no rule read: named, since it may change the model's shape.
  void warn_unread() {
    for (auto it = hf_.begin(); it != hf_.end(); ++it) {
      if (seen_.count(it.key()) || ignored_fields().count(it.key())) continue;
      unmapped(it.key(), "is not read: vtrain has no field for it (check that it does not change the model's size or work)");
    }
  }

 private:
  const json& hf_;
  std::set<std::string> seen_;
};

// architectures[0], or model_type when the class is not one of kArchitectures.
const Architecture* find_architecture(Reader& r) {
  std::string class_name, model_type;
  if (const json* a = r.get("architectures")) {
    if (!a->is_array() || a->empty() || !(*a)[0].is_string())
      r.error("type", "architectures", "must be a list of class names, such as [\"LlamaForCausalLM\"]");
    else
      class_name = (*a)[0].get<std::string>();
  }
  model_type = r.text("model_type");
  if (!r.errors.empty()) return nullptr;
  for (const auto& a : kArchitectures)
    if (class_name == a.class_name) return &a;
  for (const auto& a : kArchitectures) {
    if (model_type != a.model_type) continue;
    if (!class_name.empty())
      r.warnings.push_back(make_diagnostic(
          "assumption", "/architectures/0",
          "\"" + class_name + "\" is not a class vtrain knows: read by model_type \"" + model_type + "\" as " +
              a.class_name + "'s layout"));
    return &a;
  }
  std::string known;
  for (const auto& a : kArchitectures)
    if (known.find(a.class_name) == std::string::npos) known += (known.empty() ? "" : ", ") + std::string(a.class_name);
  const std::string what = !class_name.empty()   ? "\"" + class_name + "\""
                           : !model_type.empty() ? "model_type \"" + model_type + "\""
                                                 : "no architecture";
  const char* pointer = !class_name.empty() ? "/architectures/0" : !model_type.empty() ? "/model_type" : "/architectures";
  r.errors.push_back(make_diagnostic("unknown_architecture", pointer,
                                     what + " is not an architecture vtrain reads (it reads " + known +
                                         ", or a model_type of theirs)"));
  return nullptr;
}

// The required sizes' keys: the family's own name first (the one an error names), then aliases.
struct SizeKeys {
  std::vector<const char*> layers, hidden, heads;
};

SizeKeys size_keys(Family f) {
  if (f == Family::gpt2) return {{"n_layer", "num_hidden_layers"}, {"n_embd", "hidden_size"}, {"n_head", "num_attention_heads"}};
  if (f == Family::bloom)
    return {{"n_layer", "num_hidden_layers"}, {"hidden_size", "n_embed"}, {"n_head", "num_attention_heads"}};
  if (f == Family::falcon)
    return {{"num_hidden_layers", "n_layer"}, {"hidden_size"}, {"num_attention_heads", "n_head"}};
  return {{"num_hidden_layers"}, {"hidden_size"}, {"num_attention_heads"}};
}

}  // namespace

Outcome<HfImport> import_hf_config(const json& hf) {
  if (!hf.is_object())
    return Outcome<HfImport>::fail("type", "", "/: a Hugging Face config.json must be a JSON object, got " +
                                                   std::string(hf.type_name()));
  Reader r(hf);
  const Architecture* arch = find_architecture(r);
  if (!arch) return r.errors;
  const Family f = arch->family;
  const bool gated = llama_like(f);

  // ---------------------------------------------------------------- the sizes
  const SizeKeys keys = size_keys(f);
  bool no_layers = false, no_hidden = false, no_heads = false, no_vocab = false;
  const auto layers = r.whole(keys.layers, 1, limits::layers, &no_layers);
  const auto hidden = r.whole(keys.hidden, 1, limits::hidden, &no_hidden);
  const auto heads = r.whole(keys.heads, 1, limits::heads, &no_heads);
  const auto vocab = r.whole({"vocab_size"}, 1, limits::vocab, &no_vocab);
  auto require = [&](bool missing, const std::vector<const char*>& names, const char* what) {
    if (!missing) return;
    std::string aliases;
    for (auto it = names.begin() + 1; it != names.end(); ++it) aliases += (aliases.empty() ? "" : " or ") + std::string(*it);
    r.error("missing", *names.begin(),
            std::string("is required: ") + what + (aliases.empty() ? "" : " (also read as " + aliases + ")"));
  };
  require(no_layers, keys.layers, "the number of transformer layers");
  require(no_hidden, keys.hidden, "the model's width");
  require(no_heads, keys.heads, "the number of attention heads");
  require(no_vocab, {"vocab_size"}, "the vocabulary size");

  // Key/value heads: grouped-query attention's, Falcon's multi-query (one) or its new decoder's.
  std::optional<long long> kv_heads;
  const char* kv_key = "num_key_value_heads";
  if (f == Family::falcon) {
    const bool new_decoder = r.flag("new_decoder_architecture", false);
    const bool multi_query = r.flag("multi_query", true);
    if (new_decoder) {
      kv_key = "num_kv_heads";
      kv_heads = r.whole({"num_kv_heads"}, 1, limits::heads);
    } else if (multi_query) {
      kv_key = "multi_query";
      kv_heads = 1;
    }
    r.get("num_kv_heads");
  } else if (gated) {
    kv_heads = r.whole({"num_key_value_heads"}, 1, limits::heads);
  }
  if (!kv_heads) kv_heads = heads;

  // The per-head width, where the file gives one that is not hidden / heads (Gemma, Qwen3).
  std::optional<long long> head_dim;
  if (f != Family::deepseek) head_dim = r.whole({"head_dim"}, 1, limits::hidden);
  else r.get("head_dim");

  // Sequence length: the longest the position scheme takes.
  bool no_seq = false;
  const char* seq_keys_text = "max_position_embeddings";
  auto seq_len = r.whole({"max_position_embeddings", "n_positions", "seq_length", "max_sequence_length"}, 1,
                         limits::seq_len, &no_seq);
  for (const char* k : {"max_position_embeddings", "n_positions", "seq_length", "max_sequence_length"})
    if (hf.contains(k) && !hf[k].is_null()) {
      seq_keys_text = k;
      break;
    }

  // MLP width.
  std::optional<long long> ffn;
  bool no_ffn = true;
  const char* ffn_key = "intermediate_size";
  switch (f) {
    case Family::gpt2: ffn_key = "n_inner"; ffn = r.whole({"n_inner"}, 1, limits::ffn_hidden, &no_ffn); break;
    case Family::opt: ffn_key = "ffn_dim"; ffn = r.whole({"ffn_dim"}, 1, limits::ffn_hidden, &no_ffn); break;
    case Family::falcon: ffn_key = "ffn_hidden_size"; ffn = r.whole({"ffn_hidden_size"}, 1, limits::ffn_hidden, &no_ffn); break;
    case Family::bloom: r.get("n_inner"); break;  // BLOOM's MLP is 4 x hidden whatever n_inner says
    default: ffn = r.whole({"intermediate_size"}, 1, limits::ffn_hidden, &no_ffn); break;
  }

  if (!r.errors.empty()) return r.errors;

  // ---------------------------------------------------------------- rules between the sizes
  const long long h = *hidden, n = *heads, kv = *kv_heads;
  const bool own_head_dim = head_dim && (h % n != 0 || *head_dim != h / n);
  if (!own_head_dim && h % n != 0)
    r.error("divisibility", *keys.heads.begin(),
            "must divide the width " + std::string(*keys.hidden.begin()) + " (" + std::to_string(h) +
                "), or the file must give head_dim");
  if (kv > n)
    r.error("range", kv_key, "must not exceed the attention heads (" + std::to_string(n) + "), got " + std::to_string(kv));
  else if (n % kv != 0)
    r.error("divisibility", kv_key, "must divide the attention heads (" + std::to_string(n) + "), got " + std::to_string(kv));
  if (!r.errors.empty()) return r.errors;

  HfImport out;
  out.architecture = family_name(f);
  json& m = out.model;
  m = json::object();
  const std::string name = r.text("_name_or_path");
  m["name"] = name.empty() ? "custom" : name;
  m["layers"] = *layers;
  m["hidden"] = h;
  m["heads"] = n;
  m["kv_heads"] = kv;
  m["vocab"] = *vocab;

  // ---------------------------------------------------------------- position and length
  std::string position = "rope";
  if (f == Family::gpt2 || f == Family::opt) position = "learned";
  if (f == Family::bloom) position = "alibi";
  if (f == Family::falcon && r.flag("alibi", false)) position = "alibi";
  m["position"] = position;
  if (no_seq) {
    const long long fallback = 2048;
    r.assume(f == Family::gpt2 ? "n_positions" : "max_position_embeddings",
             "is not given: seq_len is " + std::to_string(fallback) +
                 " (transformers' default for this class); set /model/seq_len to the length you train at");
    seq_len = fallback;
  } else if (position != "learned") {
    r.assume(seq_keys_text, "is the longest sequence the model takes (" + std::to_string(*seq_len) +
                                " tokens): seq_len is set to it; set /model/seq_len to the length you train at");
  }
  m["seq_len"] = *seq_len;
  if (const json* scaling = r.get("rope_scaling")) {
    std::string kind, original;
    if (scaling->is_object()) {
      for (const char* k : {"rope_type", "type"})
        if (scaling->contains(k) && (*scaling)[k].is_string()) kind = (*scaling)[k].get<std::string>();
      if (scaling->contains("original_max_position_embeddings") && (*scaling)["original_max_position_embeddings"].is_number())
        original = number_text((*scaling)["original_max_position_embeddings"].get<double>());
    }
    r.unmapped("rope_scaling", "stretches the rotary frequencies" + (kind.empty() ? std::string() : " (" + kind + ")") +
                                   ", which costs nothing to simulate" +
                                   (original.empty() ? std::string()
                                                     : "; the model was pretrained at " + original +
                                                           " tokens (original_max_position_embeddings)"));
  }
  if (f == Family::neox) {
    const json* pct = r.get("rotary_pct");
    if (pct && pct->is_number() && pct->get<double>() != 1.0)
      r.unmapped("rotary_pct", "rotates " + number_text(pct->get<double>() * 100) +
                                   "% of each head's dimensions: vtrain has no partial rotary embedding and simulates "
                                   "rope over the whole head (an element-wise cost either way)");
    if (r.flag("use_parallel_residual", true))
      r.unmapped("use_parallel_residual",
                 "attention and MLP read the same input (parallel residual): vtrain simulates them one after the "
                 "other, with the same work and parameters");
  }
  if (f == Family::falcon && r.flag("parallel_attn", true))
    r.unmapped("parallel_attn",
               "attention and MLP read the same input (parallel attention): vtrain simulates them one after the "
               "other, with the same work and parameters");
  if (const json* window = r.get("sliding_window")) {
    const json* use = hf.contains("use_sliding_window") ? &hf["use_sliding_window"] : nullptr;
    const bool off = use && use->is_boolean() && !use->get<bool>();
    if (!off && window->is_number() && window->get<double>() < static_cast<double>(*seq_len))
      r.unmapped("sliding_window", "limits attention to the last " + number_text(window->get<double>()) +
                                       " tokens: vtrain simulates attention over the whole sequence (" +
                                       std::to_string(*seq_len) + " tokens)");
  }

  // ---------------------------------------------------------------- MLP
  long long ffn_hidden = 4 * h;
  if (ffn) {
    ffn_hidden = *ffn;
  } else if (no_ffn && f != Family::gpt2 && f != Family::bloom && f != Family::falcon) {
    r.assume(ffn_key, "is not given: ffn_hidden is 4 x the width (" + std::to_string(4 * h) + ")");
  }
  if (ffn_hidden > limits::ffn_hidden) {
    r.error("range", ffn_key, "gives an MLP wider than " + std::to_string(limits::ffn_hidden));
    return r.errors;
  }
  m["ffn_hidden"] = ffn_hidden;
  std::string act = r.text("hidden_act");
  if (act.empty()) act = r.text("activation_function");
  if (act.empty()) act = r.text("hidden_activation");
  if (gated) {
    m["mlp"] = "swiglu";
    if (!act.empty() && act != "silu" && act != "swish")
      r.assume(hf.contains("hidden_act") ? "hidden_act" : "hidden_activation",
               "\"" + act + "\" gates the MLP (GeGLU): simulated as the gated MLP \"swiglu\", the same three GEMMs");
  } else {
    m["mlp"] = "gelu";
    if (!act.empty() && act.rfind("gelu", 0) != 0)
      r.assume(hf.contains("activation_function") ? "activation_function" : "hidden_act",
               "\"" + act + "\" is simulated as \"gelu\": the same two GEMMs; only the element-wise activation differs");
  }

  // ---------------------------------------------------------------- norms, biases, embeddings
  m["norm"] = gated ? "rmsnorm" : "layernorm";
  bool bias = false;
  switch (f) {
    case Family::gpt2: case Family::bloom: bias = true; break;
    case Family::neox: bias = r.flag("attention_bias", true); break;
    case Family::opt: bias = r.flag("enable_bias", true); break;
    case Family::falcon: bias = r.flag("bias", false); break;
    default: {
      const bool attention_bias = r.flag("attention_bias", false);
      const bool mlp_bias = r.flag("mlp_bias", false);
      bias = attention_bias && mlp_bias;
      if (attention_bias != mlp_bias)
        r.unmapped(attention_bias ? "attention_bias" : "mlp_bias",
                   "gives biases to only the " + std::string(attention_bias ? "attention" : "MLP") +
                       "'s linear layers: vtrain's /model/bias is all or none; bias is false");
      if (f == Family::qwen2 || f == Family::qwen2_moe)
        r.warnings.push_back(make_diagnostic(
            "assumption", "/architectures/0",
            "Qwen2's query, key and value projections carry biases (" + std::to_string(n * (h / n) + 2 * kv * (h / n)) +
                " parameters a layer) and no other layer does: bias is false, leaving them out"));
      break;
    }
  }
  m["bias"] = bias;
  bool tied_default = false;
  switch (f) {
    case Family::gemma: case Family::gemma2: case Family::gpt2: case Family::falcon: case Family::opt:
    case Family::bloom: tied_default = true; break;
    default: break;
  }
  m["tied_embeddings"] = r.flag("tie_word_embeddings", tied_default);
  if (f == Family::bloom)
    r.warnings.push_back(make_diagnostic("unmapped", "/architectures/0",
                                         "BLOOM normalizes the word embeddings (a LayerNorm of 2 x " + std::to_string(h) +
                                             " parameters) before the first layer: vtrain has no such norm and leaves it out"));
  if (f == Family::opt) {
    const auto proj = r.whole({"word_embed_proj_dim"}, 1, limits::hidden);
    if (proj && *proj != h)
      r.unmapped("word_embed_proj_dim", "embeds words at width " + std::to_string(*proj) + " and projects them to " +
                                            std::to_string(h) + ": vtrain embeds at the model's width and leaves the "
                                                                "two projections out");
  }
  if (r.get("quantization_config"))
    r.unmapped("quantization_config",
               "describes how the checkpoint is stored, not how it trains: /plan/precision sets the training precision");

  // ---------------------------------------------------------------- head_dim, mixture of experts, MLA
  if (own_head_dim) m["head_dim"] = *head_dim;
  json moe;
  if (f == Family::mixtral) {
    const auto experts = r.whole({"num_local_experts"}, 1, limits::ffn_hidden);
    const auto top_k = r.whole({"num_experts_per_tok"}, 1, limits::ffn_hidden);
    if (!experts) r.error("missing", "num_local_experts", "is required for a Mixtral model: experts per layer");
    if (!top_k) r.error("missing", "num_experts_per_tok", "is required for a Mixtral model: experts each token goes to");
    if (experts && top_k)
      moe = {{"experts", *experts}, {"experts_per_token", *top_k}, {"expert_ffn_hidden", ffn_hidden},
             {"shared_experts", 0}, {"first_dense_layers", 0}, {"layer_frequency", 1}, {"router", "softmax"}};
  } else if (f == Family::qwen2_moe || f == Family::qwen3_moe) {
    const auto experts = r.whole({"num_experts"}, 1, limits::ffn_hidden);
    const auto top_k = r.whole({"num_experts_per_tok"}, 1, limits::ffn_hidden);
    const auto width = r.whole({"moe_intermediate_size"}, 1, limits::ffn_hidden);
    const auto shared = r.whole({"shared_expert_intermediate_size"}, 0, limits::ffn_hidden);
    const auto step = r.whole({"decoder_sparse_step"}, 1, limits::layers);
    if (!experts) r.error("missing", "num_experts", "is required for a Qwen MoE model: experts per layer");
    if (!top_k) r.error("missing", "num_experts_per_tok", "is required for a Qwen MoE model: experts each token goes to");
    if (!width) r.error("missing", "moe_intermediate_size", "is required for a Qwen MoE model: one expert's MLP width");
    if (experts && top_k && width) {
      moe = {{"experts", *experts}, {"experts_per_token", *top_k}, {"expert_ffn_hidden", *width},
             {"shared_experts", shared && *shared > 0 ? 1 : 0}, {"first_dense_layers", 0},
             {"layer_frequency", step ? *step : 1}, {"router", "softmax"}};
      if (shared && *shared > 0) moe["shared_expert_ffn_hidden"] = *shared;
    }
    if (const json* dense = r.get("mlp_only_layers"); dense && dense->is_array() && !dense->empty())
      r.unmapped("mlp_only_layers", "makes layers " + dense->dump() +
                                        " dense: /model/moe places its layers by first_dense_layers and layer_frequency "
                                        "only, so they are simulated as MoE layers");
  } else if (f == Family::deepseek) {
    const auto experts = r.whole({"n_routed_experts"}, 1, limits::ffn_hidden);
    if (experts) {
      const auto top_k = r.whole({"num_experts_per_tok"}, 1, limits::ffn_hidden);
      const auto width = r.whole({"moe_intermediate_size"}, 1, limits::ffn_hidden);
      const auto shared = r.whole({"n_shared_experts"}, 0, limits::ffn_hidden);
      const auto first = r.whole({"first_k_dense_replace"}, 0, limits::layers);
      const auto freq = r.whole({"moe_layer_freq"}, 1, limits::layers);
      if (!top_k) r.error("missing", "num_experts_per_tok", "is required with n_routed_experts: experts each token goes to");
      if (!width) r.error("missing", "moe_intermediate_size", "is required with n_routed_experts: one expert's MLP width");
      const std::string scoring = r.text("scoring_func");
      if (!scoring.empty() && scoring != "softmax" && scoring != "sigmoid")
        r.unmapped("scoring_func", "\"" + scoring + "\" is not a router vtrain knows: simulated as \"softmax\"");
      if (top_k && width) {
        moe = {{"experts", *experts}, {"experts_per_token", *top_k}, {"expert_ffn_hidden", *width},
               {"shared_experts", shared ? *shared : 0}, {"first_dense_layers", first ? *first : 0},
               {"layer_frequency", freq ? *freq : 1}, {"router", scoring == "sigmoid" ? "sigmoid" : "softmax"}};
        if (shared && *shared > 0) moe["shared_expert_ffn_hidden"] = *width;
      }
      const auto groups = r.whole({"n_group"}, 1, limits::ffn_hidden);
      const auto group_top = r.whole({"topk_group"}, 1, limits::ffn_hidden);
      r.get("topk_method");
      if (groups && group_top && *group_top < *groups)
        r.unmapped("topk_group", "limits each token to experts in " + std::to_string(*group_top) + " of " +
                                     std::to_string(*groups) + " groups (node-limited routing): the all-to-all is "
                                                               "sized as if the experts were chosen freely");
    } else {
      for (const char* k : {"num_experts_per_tok", "moe_intermediate_size", "n_shared_experts", "first_k_dense_replace",
                            "moe_layer_freq", "scoring_func", "n_group", "topk_group", "topk_method"})
        r.get(k);
    }
    const auto kv_rank = r.whole({"kv_lora_rank"}, 1, limits::hidden);
    const auto q_rank = r.whole({"q_lora_rank"}, 1, limits::hidden);
    const auto nope = r.whole({"qk_nope_head_dim"}, 1, limits::hidden);
    const auto rope = r.whole({"qk_rope_head_dim"}, 1, limits::hidden);
    const auto v_dim = r.whole({"v_head_dim"}, 1, limits::hidden);
    if (kv_rank && nope && rope && v_dim) {
      m["mla"] = {{"q_lora_rank", q_rank ? *q_rank : 0}, {"kv_lora_rank", *kv_rank}, {"qk_nope_head_dim", *nope},
                  {"qk_rope_head_dim", *rope}, {"v_head_dim", *v_dim}};
    } else if (r.errors.empty()) {
      r.error("missing", !kv_rank ? "kv_lora_rank" : !nope ? "qk_nope_head_dim" : !rope ? "qk_rope_head_dim" : "v_head_dim",
              "is required for DeepSeek's multi-head latent attention");
    }
    if (const auto mtp = r.whole({"num_nextn_predict_layers"}, 0, limits::layers); mtp && *mtp > 0)
      r.unmapped("num_nextn_predict_layers",
                 "adds " + std::to_string(*mtp) + " multi-token prediction module(s) after the last layer: vtrain "
                                                  "leaves them out");
  }
  if (!r.errors.empty()) return r.errors;
  if (!moe.is_null()) {
    if (moe["experts_per_token"].get<long long>() > moe["experts"].get<long long>()) {
      r.error("range", "num_experts_per_tok",
              "must not exceed the experts (" + std::to_string(moe["experts"].get<long long>()) + ")");
      return r.errors;
    }
    m["moe"] = moe;
  }

  r.warn_unread();
  out.warnings = std::move(r.warnings);
  return out;
}

namespace api {

std::string import_hf(std::string_view config_json) {
  try {
    json j;
    Diagnostics errors = parse_json_text(config_json, j);
    if (!errors.empty()) return errors_reply(errors);
    auto imported = import_hf_config(j);
    if (!imported.ok()) return errors_reply(imported.errors());
    json warnings = json::array();
    for (const auto& d : imported.value().warnings)
      warnings.push_back({{"code", d.code}, {"pointer", d.pointer}, {"message", d.message}});
    return dump_json(json{{"ok", true},
                          {"result",
                           {{"model", imported.value().model},
                            {"architecture", imported.value().architecture},
                            {"warnings", warnings}}}});
  } catch (const std::exception& e) {
    return errors_reply({make_diagnostic("internal", "", std::string("the importer stopped: ") + e.what())});
  }
}

}  // namespace api

}  // namespace vtrain
