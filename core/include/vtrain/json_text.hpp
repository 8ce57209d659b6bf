#pragma once
// Reads JSON text strictly, for every input a user writes: a syntax error names its line and
// column, and a key given twice in one object is an error at that key's pointer (the JSON
// standard leaves duplicates undefined, and a silent last-one-wins hides typos).

#include <string_view>

#include <nlohmann/json.hpp>

#include "vtrain/diagnostics.hpp"

namespace vtrain {

// Parses `text` into `out`. Returns no errors, or one: code "syntax" at the root, or code
// "duplicate_key" at the repeated key's pointer. `out` is unspecified when an error is returned.
Diagnostics parse_json_text(std::string_view text, nlohmann::json& out);

}  // namespace vtrain
