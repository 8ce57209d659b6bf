#pragma once
// A named collection compiled into the library (profiles, example configs, model presets, scaling
// fits, explore cases, compute-optimal presets): one type, so that looking an entry up by name,
// listing the names and naming them in an error are written once.

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vtrain {

// The name an entry is looked up by: its `name` field, unless an overload for its type says
// otherwise (a model preset is named by its model).
template <class T>
const std::string& registry_name(const T& entry) {
  return entry.name;
}

template <class T>
class Registry {
 public:
  Registry() = default;
  explicit Registry(std::vector<T> entries) : entries_(std::move(entries)) {}

  // The entry named `name`, or nullptr.
  const T* find(std::string_view name) const {
    for (const T& e : entries_)
      if (registry_name(e) == name) return &e;
    return nullptr;
  }

  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const T& e : entries_) out.push_back(registry_name(e));
    return out;
  }

  // "a, b, c", for a message that lists what is known.
  std::string names_text() const {
    std::string out;
    for (const T& e : entries_) out += (out.empty() ? "" : ", ") + registry_name(e);
    return out;
  }

  const std::vector<T>& entries() const { return entries_; }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const T& front() const { return entries_.front(); }
  const T& back() const { return entries_.back(); }
  const T& operator[](std::size_t i) const { return entries_[i]; }

 private:
  std::vector<T> entries_;
};

}  // namespace vtrain
