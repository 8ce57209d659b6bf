#pragma once
// Reads a Hugging Face `config.json` (the file beside a model's weights) into the model section of
// a simulate config (`/model`, the form parse_model_config reads), naming in a warning every field
// of the file it could not map and every assumption it made. No network: the caller gives the text.
//
// The architecture is `architectures[0]` (LlamaForCausalLM, ...), or `model_type` when that class is
// not one the importer knows; docs/hugging-face.md lists them and what maps to what. Errors and
// warnings point into the Hugging Face file (`/num_attention_heads`), not into the config made.

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "vtrain/diagnostics.hpp"

namespace vtrain {

struct HfImport {
  nlohmann::json model;  // the /model object: layers, hidden, heads, ..., and moe, mla, head_dim where the file has them
  std::string architecture;  // the family it was read as: "llama", "mixtral", "deepseek_v3", "gpt2", ...
  Diagnostics warnings;  // code "unmapped" (a field present but not represented) or "assumption" (a value chosen)
};

// Reads a parsed config.json. Errors: "type" (not an object, a size that is not a whole number),
// "range" (a size below 1 or above the config's limits), "missing" (no layer count, width, heads or
// vocabulary), "unknown_architecture" (at /architectures/0, or /model_type without architectures),
// "divisibility" (heads not dividing the width without a head_dim, kv heads not dividing heads).
Outcome<HfImport> import_hf_config(const nlohmann::json& hf);

namespace api {
// JSON text in, {"ok": true, "result": {"model": {...}, "architecture": "...", "warnings": [{code,
// pointer, message}]}} or {"ok": false, "errors": [...]} out; never throws.
std::string import_hf(std::string_view config_json);
}  // namespace api

}  // namespace vtrain
