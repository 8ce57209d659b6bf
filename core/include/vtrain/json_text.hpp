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

// The JSON text of `j` (`indent` as nlohmann's dump). A string holding bytes that are not UTF-8
// (a CSV cell or a file name quoted in a message) is written with U+FFFD in their place: the
// serializer never throws.
std::string dump_json(const nlohmann::json& j, int indent = -1);

// The error reply of every entry: {"ok": false, "errors": [{code, pointer, message}, ...]}.
std::string errors_reply(const Diagnostics& errors);

}  // namespace vtrain
