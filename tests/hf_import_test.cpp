// The Hugging Face config.json importer: the public configs of tests/data/hf against their
// published parameter counts (the core's own count of the imported model), the fields it emits,
// the warnings it gives and the inputs it refuses.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "fuzz/fuzz_check.hpp"
#include "test_util.hpp"
#include "vtrain/config.hpp"
#include "vtrain/hf_import.hpp"
#include "vtrain/model.hpp"

using namespace vtrain;
using nlohmann::json;

namespace {

json hf_file(const std::string& name) {
  std::ifstream in(std::string(VTRAIN_HF_DATA_DIR) + "/" + name);
  REQUIRE_MESSAGE(in.good(), name);
  std::stringstream s;
  s << in.rdbuf();
  return json::parse(s.str());
}

HfImport imported(const std::string& name) {
  auto r = import_hf_config(hf_file(name));
  if (!r.ok()) FAIL(name << ": " << r.errors()[0].message);
  return r.value();
}

bool has_warning(const HfImport& r, const std::string& code, const std::string& pointer) {
  for (const auto& w : r.warnings)
    if (w.code == code && w.pointer == pointer) return true;
  return false;
}

struct Published {
  const char* file;
  double params;  // the published parameter count (count)
  const char* source;
};

// Architectures whose every field the model section has today.
const Published kDense[] = {
    {"Llama-3.1-8B.json", 8030261248.0, "Llama 3.1 8B model card (meta-llama/Llama-3.1-8B); the released checkpoint's count"},
    {"Llama-3.1-70B.json", 70553706496.0, "Llama 3.1 70B model card; the released checkpoint's count"},
    {"Llama-3.1-405B.json", 405853388800.0, "Llama 3.1 405B model card; the released checkpoint's count"},
    {"Mistral-7B-v0.1.json", 7.24e9, "mistralai/Mistral-7B-v0.1 model page: 7.24B parameters"},
    {"Qwen2-7B.json", 7.62e9, "Qwen/Qwen2-7B model page: 7.62B parameters"},
    {"Qwen3-8B.json", 8.2e9, "Qwen/Qwen3-8B model card: Number of Parameters 8.2B"},
    {"gpt2.json", 124e6, "openai-community/gpt2 model card: the smallest GPT-2, 124M parameters"},
    {"gpt-neox-20b.json", 20.55e9,
     "Black et al. 2022, GPT-NeoX-20B: An Open-Source Autoregressive Language Model (20.55B parameters)"},
    {"falcon-7b.json", 6.92e9,
     "tiiuae/falcon-7b: the released tensors, the output layer tied to the embedding (6.92B; the card rounds to 7B)"},
    {"opt-6.7b.json", 6.66e9,
     "facebook/opt-6.7b: the released tensors (6.66B; Zhang et al. 2022, OPT, Table 1 names it 6.7B)"},
    {"bloom-7b1.json", 7069016064.0, "bigscience/bloom-7b1 model card: 7,069,016,064 parameters"},
};

// Need fields other branches add: /model/head_dim (Gemma), /model/moe (Mixtral, Qwen3 MoE),
// /model/moe and /model/mla (DeepSeek-V3).
const Published kWaiting[] = {
    {"gemma-7b.json", 8538074112.0,
     "Gemma Team 2024, Gemma: Open Models Based on Gemini Research and Technology, Table 2 (embedding "
     "786,825,216 + non-embedding 7,751,248,896)"},
    {"Mixtral-8x7B-v0.1.json", 46.7e9, "mistralai/Mixtral-8x7B-v0.1 model page: 46.7B parameters (Jiang et al. 2024: 47B)"},
    {"Qwen3-30B-A3B.json", 30.5e9, "Qwen/Qwen3-30B-A3B model card: 30.5B total, 3.3B activated"},
    {"DeepSeek-V3.json", 671e9,
     "deepseek-ai/DeepSeek-V3 model card: 671B total, 37B activated (685B with the multi-token prediction module)"},
};

void check_published_count(const Published& p) {
  const std::string file = p.file, source = p.source;
  CAPTURE(file);
  CAPTURE(source);
  const HfImport r = imported(p.file);
  auto model = parse_model_config(r.model);
  if (!model.ok()) FAIL(p.file << ": " << model.errors()[0].message);
  const double total = count_parameters(model.value()).total;
  CAPTURE(total);
  CHECK(std::abs(total - p.params) / p.params < 0.005);
}

}  // namespace

TEST_CASE("hf import: each dense architecture's public config gives its published parameter count within 0.5%") {
  for (const auto& p : kDense) check_published_count(p);
}

// The architectures whose shapes need /model/head_dim, /model/moe or /model/mla.
TEST_CASE("hf import: Gemma, Mixtral, Qwen3 MoE and DeepSeek-V3 give their published counts within 0.5%") {
  for (const auto& p : kWaiting) check_published_count(p);
}

TEST_CASE("hf import: the fields of head_dim, moe and mla are emitted under the agreed names") {
  const HfImport gemma = imported("gemma-7b.json");
  CHECK(gemma.architecture == "gemma");
  CHECK(gemma.model["head_dim"] == 256);  // 3072 / 16 = 192
  CHECK(gemma.model["mlp"] == "geglu");  // GeLU gates its MLP
  CHECK(gemma.model["tied_embeddings"] == true);
  CHECK_FALSE(has_warning(gemma, "assumption", "/hidden_act"));
  CHECK_FALSE(gemma.model.contains("moe"));

  const HfImport qwen3 = imported("Qwen3-8B.json");
  CHECK_FALSE(qwen3.model.contains("head_dim"));  // 128 = 4096 / 32

  const HfImport mixtral = imported("Mixtral-8x7B-v0.1.json");
  CHECK(mixtral.model["moe"] == json{{"experts", 8}, {"experts_per_token", 2}, {"expert_ffn_hidden", 14336},
                                     {"shared_experts", 0}, {"first_dense_layers", 0}, {"layer_frequency", 1},
                                     {"router", "softmax"}});
  CHECK(mixtral.model["ffn_hidden"] == 14336);
  CHECK_FALSE(mixtral.model.contains("head_dim"));

  const HfImport qwen_moe = imported("Qwen3-30B-A3B.json");
  CHECK(qwen_moe.model["head_dim"] == 128);  // 2048 / 32 = 64
  CHECK(qwen_moe.model["moe"] == json{{"experts", 128}, {"experts_per_token", 8}, {"expert_ffn_hidden", 768},
                                      {"shared_experts", 0}, {"first_dense_layers", 0}, {"layer_frequency", 1},
                                      {"router", "softmax"}});
  CHECK(qwen_moe.model["kv_heads"] == 4);

  const HfImport v3 = imported("DeepSeek-V3.json");
  CHECK(v3.architecture == "deepseek_v3");
  CHECK(v3.model["moe"] == json{{"experts", 256}, {"experts_per_token", 8}, {"expert_ffn_hidden", 2048},
                                {"shared_experts", 1}, {"shared_expert_ffn_hidden", 2048}, {"first_dense_layers", 3},
                                {"layer_frequency", 1}, {"router", "sigmoid"}});
  CHECK(v3.model["mla"] == json{{"q_lora_rank", 1536}, {"kv_lora_rank", 512}, {"qk_nope_head_dim", 128},
                                {"qk_rope_head_dim", 64}, {"v_head_dim", 128}});
  CHECK(v3.model["ffn_hidden"] == 18432);  // the three dense layers' MLP
  CHECK_FALSE(v3.model.contains("head_dim"));
  CHECK(has_warning(v3, "unmapped", "/num_nextn_predict_layers"));
  CHECK(has_warning(v3, "unmapped", "/topk_group"));
  CHECK(has_warning(v3, "unmapped", "/quantization_config"));
  CHECK(has_warning(v3, "unmapped", "/rope_scaling"));

  // DeepSeek-V2-Lite: no query compression (q_lora_rank null), softmax routing, two shared experts.
  json lite = hf_file("DeepSeek-V3.json");
  lite["architectures"] = {"DeepseekV2ForCausalLM"};
  lite["model_type"] = "deepseek_v2";
  lite["q_lora_rank"] = nullptr;
  lite["scoring_func"] = "softmax";
  lite["n_shared_experts"] = 2;
  lite["n_routed_experts"] = 64;
  lite["num_experts_per_tok"] = 6;
  lite["first_k_dense_replace"] = 1;
  lite["n_group"] = 1;
  lite["topk_group"] = 1;
  lite.erase("num_nextn_predict_layers");
  lite.erase("quantization_config");
  auto v2 = import_hf_config(lite);
  REQUIRE(v2.ok());
  CHECK(v2.value().model["mla"]["q_lora_rank"] == 0);
  CHECK(v2.value().model["moe"]["router"] == "softmax");
  CHECK(v2.value().model["moe"]["shared_experts"] == 2);
  CHECK(v2.value().model["moe"]["first_dense_layers"] == 1);
  CHECK_FALSE(has_warning(v2.value(), "unmapped", "/topk_group"));
  // Without routed experts it is dense: no /model/moe, and its MLA still.
  lite.erase("n_routed_experts");
  auto dense = import_hf_config(lite);
  REQUIRE(dense.ok());
  CHECK_FALSE(dense.value().model.contains("moe"));
  CHECK(dense.value().model.contains("mla"));

  // Qwen2 MoE: one shared expert of its own width, every second layer sparse, dense layers named.
  const json qwen2_moe = {{"architectures", {"Qwen2MoeForCausalLM"}}, {"model_type", "qwen2_moe"},
                          {"num_hidden_layers", 24}, {"hidden_size", 2048}, {"num_attention_heads", 16},
                          {"num_key_value_heads", 16}, {"vocab_size", 151936}, {"intermediate_size", 5632},
                          {"num_experts", 60}, {"num_experts_per_tok", 4}, {"moe_intermediate_size", 1408},
                          {"shared_expert_intermediate_size", 5632}, {"decoder_sparse_step", 2},
                          {"mlp_only_layers", {0, 1}}, {"max_position_embeddings", 8192}};
  auto q2 = import_hf_config(qwen2_moe);
  REQUIRE(q2.ok());
  CHECK(q2.value().model["moe"] == json{{"experts", 60}, {"experts_per_token", 4}, {"expert_ffn_hidden", 1408},
                                        {"shared_experts", 1}, {"shared_expert_ffn_hidden", 5632},
                                        {"first_dense_layers", 0}, {"layer_frequency", 2}, {"router", "softmax"}});
  CHECK(has_warning(q2.value(), "unmapped", "/mlp_only_layers"));
  CHECK(has_warning(q2.value(), "assumption", "/architectures/0"));  // the q/k/v biases
}

TEST_CASE("hf import: each family's layout and what it cannot represent") {
  const HfImport llama = imported("Llama-3.1-8B.json");
  CHECK(llama.model == json{{"name", "custom"}, {"layers", 32}, {"hidden", 4096}, {"heads", 32}, {"kv_heads", 8},
                            {"seq_len", 131072}, {"vocab", 128256}, {"ffn_hidden", 14336}, {"mlp", "swiglu"},
                            {"tied_embeddings", false}, {"norm", "rmsnorm"}, {"position", "rope"}, {"bias", false}});
  CHECK(has_warning(llama, "unmapped", "/rope_scaling"));
  CHECK(has_warning(llama, "assumption", "/max_position_embeddings"));
  // The llama3 preset is the same shape at its pretraining length.
  ModelConfig preset = model_presets().find("llama3-8b")->model;
  ModelConfig mine = parse_model_config(llama.model).value();
  mine.seq_len = preset.seq_len;
  mine.name = preset.name;
  CHECK(mine == preset);
  // Only the fields that matter are warned about: token ids, epsilons, dtype pass silently.
  CHECK(llama.warnings.size() == 2);

  const HfImport mistral = imported("Mistral-7B-v0.1.json");
  CHECK(has_warning(mistral, "unmapped", "/sliding_window"));
  CHECK_FALSE(has_warning(imported("Qwen2-7B.json"), "unmapped", "/sliding_window"));  // use_sliding_window false

  const HfImport gpt2 = imported("gpt2.json");
  CHECK(gpt2.model["ffn_hidden"] == 3072);  // n_inner absent: 4 x 768
  CHECK(gpt2.model["position"] == "learned");
  CHECK(gpt2.model["seq_len"] == 1024);
  CHECK(gpt2.model["bias"] == true);
  CHECK(gpt2.model["tied_embeddings"] == true);
  CHECK(gpt2.model["mlp"] == "gelu");
  CHECK(gpt2.warnings.empty());
  CHECK(parse_model_config(gpt2.model).value() == gpt_model("custom", 12, 768, 12, 50257, 1024));

  const HfImport neox = imported("gpt-neox-20b.json");
  CHECK(neox.model["rotary_fraction"] == 0.25);
  CHECK(neox.model["residual"] == "parallel_two_norms");
  CHECK_FALSE(has_warning(neox, "unmapped", "/rotary_pct"));
  CHECK_FALSE(has_warning(neox, "unmapped", "/use_parallel_residual"));
  CHECK(neox.model["tied_embeddings"] == false);
  json sequential = hf_file("gpt-neox-20b.json");
  sequential["use_parallel_residual"] = false;
  sequential["rotary_pct"] = 1.5;
  auto bad = import_hf_config(sequential);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors().front().pointer == "/rotary_pct");
  sequential.erase("rotary_pct");
  const json seq_model = import_hf_config(sequential).value().model;
  CHECK_FALSE(seq_model.contains("residual"));  // the default: one after the other

  const HfImport falcon = imported("falcon-7b.json");
  CHECK(falcon.model["kv_heads"] == 1);  // multi_query
  CHECK(falcon.model["seq_len"] == 2048);
  CHECK(has_warning(falcon, "assumption", "/max_position_embeddings"));
  CHECK(falcon.model["residual"] == "parallel");  // one norm feeds both
  CHECK_FALSE(has_warning(falcon, "unmapped", "/parallel_attn"));
  json falcon40 = hf_file("falcon-7b.json");
  falcon40["new_decoder_architecture"] = true;
  falcon40["num_kv_heads"] = 8;
  falcon40["num_attention_heads"] = 128;
  falcon40["hidden_size"] = 8192;
  CHECK(import_hf_config(falcon40).value().model["kv_heads"] == 8);
  CHECK(import_hf_config(falcon40).value().model["residual"] == "parallel_two_norms");

  const HfImport opt = imported("opt-6.7b.json");
  CHECK(opt.model["name"] == "facebook/opt-6.7b");
  CHECK(opt.model["ffn_hidden"] == 16384);
  CHECK(has_warning(opt, "assumption", "/activation_function"));  // ReLU
  json opt350 = hf_file("opt-6.7b.json");
  opt350["word_embed_proj_dim"] = 512;
  CHECK(has_warning(import_hf_config(opt350).value(), "unmapped", "/word_embed_proj_dim"));

  const HfImport bloom = imported("bloom-7b1.json");
  CHECK(bloom.model["hidden"] == 4096);  // n_embed
  CHECK(bloom.model["position"] == "alibi");
  CHECK(bloom.model["ffn_hidden"] == 16384);
  CHECK(has_warning(bloom, "unmapped", "/architectures/0"));  // the embedding LayerNorm

  // A field the importer does not know is named, whatever it is.
  json odd = hf_file("Llama-3.1-8B.json");
  odd["num_memory_tokens"] = 16;
  CHECK(has_warning(import_hf_config(odd).value(), "unmapped", "/num_memory_tokens"));
}

TEST_CASE("hf import: bad input is refused with a pointer into the file") {
  auto error_of = [](const json& j) {
    auto r = import_hf_config(j);
    REQUIRE_FALSE(r.ok());
    return r.errors()[0];
  };
  CHECK(error_of(json::array()).code == "type");
  CHECK(error_of(json(3)).pointer == "");

  json llama = hf_file("Llama-3.1-8B.json");
  json j = llama;
  j.erase("num_hidden_layers");
  Diagnostic e = error_of(j);
  CHECK(e.code == "missing");
  CHECK(e.pointer == "/num_hidden_layers");

  j = llama;
  j["num_attention_heads"] = -32;
  e = error_of(j);
  CHECK(e.code == "range");
  CHECK(e.pointer == "/num_attention_heads");

  j = llama;
  j["hidden_size"] = 4096.5;
  e = error_of(j);
  CHECK(e.code == "type");
  CHECK(e.pointer == "/hidden_size");

  j = llama;
  j["intermediate_size"] = "14336";
  CHECK(error_of(j).pointer == "/intermediate_size");

  j = llama;
  j["num_key_value_heads"] = 5;
  e = error_of(j);
  CHECK(e.code == "divisibility");
  CHECK(e.pointer == "/num_key_value_heads");

  j = llama;
  j["num_attention_heads"] = 30;
  j["num_key_value_heads"] = 30;
  e = error_of(j);  // 4096 / 30, and no head_dim
  CHECK(e.code == "divisibility");
  CHECK(e.pointer == "/num_attention_heads");

  // gpt2 names its own keys.
  json gpt2 = hf_file("gpt2.json");
  gpt2.erase("n_head");
  CHECK(error_of(gpt2).pointer == "/n_head");

  // An unknown class with an unknown model_type: an error at the class.
  j = llama;
  j["architectures"] = {"T5ForConditionalGeneration"};
  j["model_type"] = "t5";
  e = error_of(j);
  CHECK(e.code == "unknown_architecture");
  CHECK(e.pointer == "/architectures/0");
  CHECK(e.message.find("LlamaForCausalLM") != std::string::npos);
  j.erase("architectures");
  CHECK(error_of(j).pointer == "/model_type");

  // An unknown class whose model_type is one vtrain knows (a fine-tune's own class): read by the
  // model_type, with a warning at the class.
  j = llama;
  j["architectures"] = {"LlamaForSequenceClassification"};
  auto r = import_hf_config(j);
  REQUIRE(r.ok());
  CHECK(has_warning(r.value(), "assumption", "/architectures/0"));
  CHECK(r.value().model["layers"] == 32);

  // Mixtral without its experts.
  json mixtral = hf_file("Mixtral-8x7B-v0.1.json");
  mixtral.erase("num_local_experts");
  CHECK(error_of(mixtral).pointer == "/num_local_experts");
  mixtral = hf_file("Mixtral-8x7B-v0.1.json");
  mixtral["num_experts_per_tok"] = 9;
  CHECK(error_of(mixtral).pointer == "/num_experts_per_tok");
}

TEST_CASE("hf import: the JSON-text entry answers with the model and warnings, or errors, never throwing") {
  json reply = json::parse(api::import_hf(hf_file("Mistral-7B-v0.1.json").dump()));
  REQUIRE(reply["ok"] == true);
  CHECK(reply["result"]["model"]["layers"] == 32);
  CHECK(reply["result"]["architecture"] == "mistral");
  REQUIRE(reply["result"]["warnings"].is_array());
  for (const auto& w : reply["result"]["warnings"]) {
    CHECK(w["code"].is_string());
    CHECK(w["message"].get<std::string>().rfind(w["pointer"].get<std::string>() + ": ", 0) == 0);
  }
  for (const char* bad : {"", "{", "not json", "[1, 2]", "null", "{\"a\": 1, \"a\": 2}", "\"\\ud800\""}) {
    CAPTURE(bad);
    json e = json::parse(api::import_hf(bad));
    CHECK(e["ok"] == false);
    CHECK(e["errors"].size() >= 1);
  }
  CHECK(json::parse(api::import_hf("{\"a\": 1, \"a\": 2}"))["errors"][0]["pointer"] == "/a");
}

TEST_CASE("hf import: the fuzz checks hold for every public config, whole and cut short") {
  for (const char* name : {"Llama-3.1-8B.json", "Mixtral-8x7B-v0.1.json", "Qwen3-30B-A3B.json", "DeepSeek-V3.json",
                           "gemma-7b.json", "gpt2.json", "gpt-neox-20b.json", "falcon-7b.json", "opt-6.7b.json",
                           "bloom-7b1.json"}) {
    const std::string input = "h" + hf_file(name).dump();
    CAPTURE(std::string(name));
    auto whole = fuzz::check_input(reinterpret_cast<const uint8_t*>(input.data()), input.size(), 1.0);
    CHECK(whole.failure == "");
    CHECK(whole.answered);
    for (size_t cut : {input.size() / 2, size_t{2}}) {
      auto part = fuzz::check_input(reinterpret_cast<const uint8_t*>(input.data()), cut, 1.0);
      CHECK(part.failure == "");
      CHECK_FALSE(part.answered);
    }
  }
}
