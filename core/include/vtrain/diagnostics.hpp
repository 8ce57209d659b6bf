#pragma once
// Errors a user can fix are data: a stable code, the JSON pointer of the field and a sentence.
// The core never throws across its public API, never prints and never exits.

#include <string>
#include <string_view>
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

// `text` as valid UTF-8: each byte that does not start or continue a well-formed sequence (a
// stray continuation, a cut sequence, an overlong form, a surrogate, a code point above U+10FFFF)
// becomes U+FFFD. Messages quote what the user gave (a CSV cell, a file name, the bytes a JSON
// parser stopped at), and every reply must serialize as JSON whatever those bytes were.
inline std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = byte(i);
    size_t n = 0;  // continuation bytes the lead byte announces
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the first continuation byte
    if (c < 0x80) n = 0;
    else if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c == 0xE0) n = 2, lo = 0xA0;
    else if (c == 0xED) n = 2, hi = 0x9F;
    else if (c >= 0xE1 && c <= 0xEF) n = 2;
    else if (c == 0xF0) n = 3, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) n = 3;
    else if (c == 0xF4) n = 3, hi = 0x8F;
    else n = 4;  // 0x80-0xC1, 0xF5-0xFF: never a lead byte
    size_t good = 0;
    if (n < 4)
      while (good < n && i + 1 + good < text.size() &&
             byte(i + 1 + good) >= (good == 0 ? lo : 0x80) && byte(i + 1 + good) <= (good == 0 ? hi : 0xBF))
        ++good;
    if (n < 4 && good == n) {
      out.append(text.substr(i, n + 1));
      i += n + 1;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      i += n < 4 ? good + 1 : 1;
    }
  }
  return out;
}

// Builds "pointer: message" so every message names its field even when shown alone.
inline Diagnostic make_diagnostic(std::string code, std::string pointer, const std::string& rule) {
  pointer = valid_utf8(pointer);
  std::string message = valid_utf8((pointer.empty() ? std::string("/") : pointer) + ": " + rule);
  return Diagnostic{std::move(code), std::move(pointer), std::move(message)};
}

}  // namespace vtrain
