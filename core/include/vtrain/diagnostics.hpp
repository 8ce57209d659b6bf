#pragma once
// Errors a user can fix are data: a stable code, the JSON pointer of the field and a sentence.
// The core never throws across its public API, never prints and never exits.

#include <string>
#include <utility>
#include <vector>

namespace vtrain {

struct Diagnostic {
  std::string code;     // stable identifier, e.g. "divisibility", "range", "unknown_key"
  std::string pointer;  // JSON pointer of the offending field, e.g. "/plan/tp"
  std::string message;  // human sentence that starts with the pointer
};

using Diagnostics = std::vector<Diagnostic>;

// Value-or-errors. Holds a T exactly when errors() is empty.
template <class T>
class Outcome {
 public:
  Outcome(T value) : value_(std::move(value)), ok_(true) {}  // NOLINT: implicit by design
  Outcome(Diagnostics errors) : errors_(std::move(errors)), ok_(false) {}  // NOLINT
  static Outcome fail(std::string code, std::string pointer, std::string message) {
    return Outcome(Diagnostics{{std::move(code), std::move(pointer), std::move(message)}});
  }
  bool ok() const { return ok_; }
  const T& value() const& { return value_; }
  T& value() & { return value_; }
  T&& value() && { return std::move(value_); }
  const Diagnostics& errors() const { return errors_; }

 private:
  T value_{};
  Diagnostics errors_;
  bool ok_;
};

// Builds "pointer: message" so every message names its field even when shown alone.
inline Diagnostic make_diagnostic(std::string code, std::string pointer, const std::string& rule) {
  std::string message = (pointer.empty() ? std::string("/") : pointer) + ": " + rule;
  return Diagnostic{std::move(code), std::move(pointer), std::move(message)};
}

}  // namespace vtrain
