#pragma once
// Reads one JSON object field by field, recording a diagnostic for every wrong type, value out of
// range and key it does not know. Shared by the config, profile and request loaders.

#include <algorithm>
#include <cmath>
#include <concepts>
#include <vector>
#include <initializer_list>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "vtrain/diagnostics.hpp"
#include "vtrain/enums.hpp"
#include "vtrain/registry.hpp"

namespace vtrain::detail {

using nlohmann::json;

inline std::string join_pointer(const std::string& base, const std::string& key) {
  std::string escaped;
  for (char ch : key) {
    if (ch == '~') escaped += "~0";
    else if (ch == '/') escaped += "~1";
    else escaped += ch;
  }
  return base + "/" + escaped;
}

inline std::string describe_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

class ObjectReader {
 public:
  // `j` may be null (absent object): every read then keeps its default.
  ObjectReader(const json* j, std::string pointer, Diagnostics& errors)
      : j_(j), pointer_(std::move(pointer)), errors_(errors) {
    if (j_ && !j_->is_object()) {
      fail("type", pointer_, "must be an object");
      j_ = nullptr;
    }
  }

  bool present() const { return j_ != nullptr; }
  bool has(const char* key) const { return j_ && j_->contains(key); }
  const std::string& pointer() const { return pointer_; }
  std::string at(const char* key) const { return join_pointer(pointer_, key); }

  // Returns the raw child (and marks the key known), or nullptr when absent.
  const json* child(const char* key) {
    known_.insert(key);
    if (!j_) return nullptr;
    auto it = j_->find(key);
    return it == j_->end() ? nullptr : &*it;
  }

  template <std::integral I>
  void read(const char* key, I& out, long long min_value, long long max_value) {
    const json* v = child(key);
    if (!v) return;
    double d = 0;
    if (!number(*v, key, d)) return;
    if (d != std::floor(d)) {
      fail("type", at(key), "must be a whole number, got " + describe_number(d));
      return;
    }
    if (d < static_cast<double>(min_value) || d > static_cast<double>(max_value)) {
      fail("range", at(key), "must be between " + std::to_string(min_value) + " and " +
                                 std::to_string(max_value) + ", got " + describe_number(d));
      return;
    }
    out = static_cast<I>(d);
  }

  // Reads a real number in [min_value, max_value]; `exclusive_min` makes the lower bound strict.
  void read(const char* key, double& out, double min_value, double max_value,
            bool exclusive_min = false) {
    const json* v = child(key);
    if (!v) return;
    double d = 0;
    if (!number(*v, key, d)) return;
    bool low = exclusive_min ? d <= min_value : d < min_value;
    if (low || d > max_value) {
      std::string rule = exclusive_min ? "must be greater than " + describe_number(min_value)
                                       : "must be at least " + describe_number(min_value);
      fail("range", at(key), rule + " and at most " + describe_number(max_value) + ", got " +
                                 describe_number(d));
      return;
    }
    out = d;
  }

  void read(const char* key, bool& out) {
    const json* v = child(key);
    if (!v) return;
    if (!v->is_boolean()) {
      fail("type", at(key), "must be true or false");
      return;
    }
    out = v->get<bool>();
  }

  void read(const char* key, std::string& out) {
    const json* v = child(key);
    if (!v) return;
    if (!v->is_string()) {
      fail("type", at(key), "must be a string");
      return;
    }
    out = v->get<std::string>();
  }

  // Reads one of the names of E's table (vtrain/enums.hpp).
  template <NamedEnum E>
  void read_enum(const char* key, E& out) {
    const json* v = child(key);
    if (!v) return;
    if (!v->is_string()) {
      fail("type", at(key), "must be one of " + enum_choices<E>());
      return;
    }
    const std::string s = v->get<std::string>();
    if (!from_string(s, out)) fail("enum", at(key), "must be one of " + enum_choices<E>() + ", got \"" + s + "\"");
  }

  // Reports every key that no read asked for.
  void finish() {
    if (!j_) return;
    for (auto it = j_->begin(); it != j_->end(); ++it) {
      if (!known_.count(it.key())) {
        std::string allowed;
        for (const auto& k : known_) allowed += (allowed.empty() ? "" : ", ") + k;
        fail("unknown_key", join_pointer(pointer_, it.key()),
             "unknown key; known keys here are " + allowed);
      }
    }
  }

  // Reports every key a read asked for that the object does not give (an object where every
  // field is required, such as a profile's sections).
  void require_every_read() {
    if (!j_) return;
    for (const auto& k : known_)
      if (!j_->contains(k)) fail("missing", join_pointer(pointer_, k), "is required");
  }

  void fail(const std::string& code, const std::string& pointer, const std::string& rule) {
    errors_.push_back(make_diagnostic(code, pointer, rule));
  }

 private:
  bool number(const json& v, const char* key, double& out) {
    if (!v.is_number()) {
      fail("type", at(key), "must be a number");
      return false;
    }
    out = v.get<double>();
    if (!std::isfinite(out)) {
      fail("range", at(key), "must be a finite number");
      return false;
    }
    return true;
  }

  const json* j_;
  std::string pointer_;
  Diagnostics& errors_;
  std::set<std::string> known_;
};

// Lists: one value or an array of them; repeated values are kept once; each entry's error names
// its index. `convert(entry, pointer, single, value)` checks one entry, reporting through `r`.
template <typename T, typename Convert>
void read_list(ObjectReader& r, const char* key, std::vector<T>& out, Convert convert) {
  const json* v = r.child(key);
  if (!v) return;
  const std::string ptr = r.at(key);
  const bool single = !v->is_array();
  const json list = single ? json::array({*v}) : *v;
  if (list.empty()) r.fail("range", ptr, "must hold at least one value");
  for (size_t i = 0; i < list.size(); ++i) {
    T value{};
    if (!convert(list[i], single ? ptr : ptr + "/" + std::to_string(i), single, value)) continue;
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);
  }
}

// Reads `key` as one whole number or an array of them, each in [lo, hi].
inline void read_int_list(ObjectReader& r, const char* key, std::vector<int>& out, long long lo, long long hi) {
  read_list(r, key, out, [&](const json& x, const std::string& at, bool single, int& value) {
    if (!x.is_number() || x.get<double>() != std::floor(x.get<double>())) {
      r.fail("type", at, "must be a whole number" + std::string(single ? " or an array of them" : ""));
      return false;
    }
    const double d = x.get<double>();
    if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
      r.fail("range", at, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                              detail::describe_number(d));
      return false;
    }
    value = static_cast<int>(d);
    return true;
  });
}

// Reads `key` as an array of whole numbers in [lo, hi], in order and with repeats (a sequence,
// not a set of choices); an empty array is the empty sequence.
inline void read_int_sequence(ObjectReader& r, const char* key, std::vector<int>& out, long long lo, long long hi) {
  const json* v = r.child(key);
  if (!v) return;
  const std::string ptr = r.at(key);
  if (!v->is_array()) {
    r.fail("type", ptr, "must be an array of whole numbers");
    return;
  }
  std::vector<int> values;
  bool ok = true;
  for (size_t i = 0; i < v->size(); ++i) {
    const json& x = (*v)[i];
    const std::string at = ptr + "/" + std::to_string(i);
    if (!x.is_number() || x.get<double>() != std::floor(x.get<double>())) {
      r.fail("type", at, "must be a whole number");
      ok = false;
      continue;
    }
    const double d = x.get<double>();
    if (d < static_cast<double>(lo) || d > static_cast<double>(hi)) {
      r.fail("range", at, "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
                              detail::describe_number(d));
      ok = false;
      continue;
    }
    values.push_back(static_cast<int>(d));
  }
  if (ok) out = std::move(values);
}

inline void read_bool_list(ObjectReader& r, const char* key, std::vector<bool>& out) {
  read_list(r, key, out, [&](const json& x, const std::string& at, bool, bool& value) {
    if (!x.is_boolean()) {
      r.fail("type", at, "must be true or false");
      return false;
    }
    value = x.get<bool>();
    return true;
  });
}

// Reads `key` as one name of E's table or an array of them.
template <NamedEnum E>
void read_enum_list(ObjectReader& r, const char* key, std::vector<E>& out) {
  read_list(r, key, out, [&](const json& x, const std::string& at, bool, E& value) {
    const std::string s = x.is_string() ? x.get<std::string>() : std::string();
    if (!from_string(s, value)) {
      r.fail(x.is_string() ? "enum" : "type", at,
             "must be one of " + enum_choices<E>() + (s.empty() ? std::string() : ", got \"" + s + "\""));
      return false;
    }
    return true;
  });
}

// A request that starts from a registry's entry, {"<key>": NAME, ...overrides}: the entry's request
// (its `request_json`) with the rest of `input` merged over it (JSON merge patch), and NAME in
// `name`. Without `key`, `input` itself. `what` names an entry in an error ("case", "preset").
template <class T>
Outcome<json> request_from(const json& input, const char* key, const char* what, const Registry<T>& registry,
                           std::string& name) {
  if (!input.contains(key)) return input;
  const json& given = input[key];
  const T* entry = given.is_string() ? registry.find(given.get<std::string>()) : nullptr;
  if (!entry) {
    const std::string pointer = std::string("/") + key;
    return Outcome<json>::fail(
        given.is_string() ? std::string("unknown_") + what : "type", pointer,
        pointer + ": " + (given.is_string() ? "unknown " + std::string(what) + " \"" + given.get<std::string>() + "\"; " : "") +
            what + "s are " + registry.names_text());
  }
  name = given.get<std::string>();
  json patch = input;
  patch.erase(key);
  json j = json::parse(entry->request_json);
  j.merge_patch(patch);
  return j;
}

// Bounds of a field, as a section's field list (model/fields.hpp) gives them.
struct IntBounds {
  long long min = 0, max = 0;  // whole numbers in [min, max]
};
struct RealBounds {
  double min = 0, max = 0;     // real numbers in [min, max]
  bool exclusive_min = false;  // (min, max] instead
};

// Reads the fields a field list names (v.field(key, member, bounds), v.list(...)) through an ObjectReader.
struct FieldReader {
  ObjectReader& r;
  template <std::integral I>
  void field(const char* key, I& out, IntBounds b) {
    r.read(key, out, b.min, b.max);
  }
  void field(const char* key, double& out, RealBounds b) { r.read(key, out, b.min, b.max, b.exclusive_min); }
  void field(const char* key, bool& out) { r.read(key, out); }
  void field(const char* key, std::string& out) { r.read(key, out); }
  template <NamedEnum E>
  void field(const char* key, E& out) {
    r.read_enum(key, out);
  }
  void list(const char* key, std::vector<int>& out, IntBounds b) { read_int_list(r, key, out, b.min, b.max); }
  void sequence(const char* key, std::vector<int>& out, IntBounds b) { read_int_sequence(r, key, out, b.min, b.max); }
  void list(const char* key, std::vector<bool>& out) { read_bool_list(r, key, out); }
  template <NamedEnum E>
  void list(const char* key, std::vector<E>& out) {
    read_enum_list(r, key, out);
  }
};

// Writes the fields a field list names into a JSON object, enums by their names.
struct FieldWriter {
  json& j;
  template <class T, class... Bounds>
  void field(const char* key, const T& v, Bounds...) {
    if constexpr (NamedEnum<T>) j[key] = to_string(v);
    else j[key] = v;
  }
  void sequence(const char* key, const std::vector<int>& v, IntBounds) { j[key] = v; }
};

}  // namespace vtrain::detail
