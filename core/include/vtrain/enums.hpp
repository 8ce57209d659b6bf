#pragma once
// One name table per enum. The JSON readers and writers, the measurement-file reader, the CLI and
// the schema the page reads (api::schema) all derive an enum's names from its table, so that a
// name is spelt in one place. Each table sits beside its enum as a specialization of EnumNames.

#include <cstddef>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace vtrain {

template <class E>
struct EnumName {
  E value;
  const char* name;   // as JSON, measurement files and command-line options spell it
  const char* label;  // a few words for a reader: what the choice is
};

// Specialized for each enum E with `static constexpr EnumName<E> table[]`, in the order a list
// of choices shows them, and `static constexpr const char* key`, the enum's name in the schema.
template <class E>
struct EnumNames;

template <class E>
concept NamedEnum = requires {
  EnumNames<E>::table;
  EnumNames<E>::key;
};

template <NamedEnum E>
constexpr const char* to_string(E v) {
  for (const auto& n : EnumNames<E>::table)
    if (n.value == v) return n.name;
  return "";  // not a value of the enum
}

// The value named `name`; false, leaving `out` as it is, when no value has that name.
template <NamedEnum E>
bool from_string(std::string_view name, E& out) {
  for (const auto& n : EnumNames<E>::table) {
    if (name == n.name) {
      out = n.value;
      return true;
    }
  }
  return false;
}

// The names in table order.
template <NamedEnum E>
std::vector<std::string> enum_names() {
  std::vector<std::string> out;
  for (const auto& n : EnumNames<E>::table) out.emplace_back(n.name);
  return out;
}

// The names as a message lists them: "a, b, c", or with `last` = " or ", "a, b or c".
template <NamedEnum E>
std::string enum_choices(const char* last = ", ") {
  std::string out;
  const std::size_t n = std::size(EnumNames<E>::table);
  for (std::size_t i = 0; i < n; ++i)
    out += std::string(i == 0 ? "" : i + 1 == n ? last : ", ") + EnumNames<E>::table[i].name;
  return out;
}

}  // namespace vtrain
