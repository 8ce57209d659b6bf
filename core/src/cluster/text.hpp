#pragma once
// printf-style sentences for diagnostics: one call per message instead of a chain of string
// concatenations, each of which costs the WebAssembly module code.

#include <string>

namespace vtrain::detail {

std::string text(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace vtrain::detail
