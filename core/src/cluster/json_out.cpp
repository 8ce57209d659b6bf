#include "cluster/json_out.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

namespace vtrain::detail {

void JsonOut::comma() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (first_.back() == '0') out_ += ',';
    first_.back() = '0';
  }
}

JsonOut& JsonOut::begin_object() {
  comma();
  out_ += '{';
  first_ += '1';
  return *this;
}

JsonOut& JsonOut::end_object() {
  out_ += '}';
  first_.pop_back();
  return *this;
}

JsonOut& JsonOut::begin_array() {
  comma();
  out_ += '[';
  first_ += '1';
  return *this;
}

JsonOut& JsonOut::end_array() {
  out_ += ']';
  first_.pop_back();
  return *this;
}

JsonOut& JsonOut::key(const char* name) {
  comma();
  out_ += '"';
  out_ += name;
  out_ += "\":";
  after_key_ = true;
  return *this;
}

JsonOut& JsonOut::value(double v) {
  if (!std::isfinite(v)) return null();
  comma();
  char buf[64];
  char* end = nlohmann::detail::to_chars(buf, buf + sizeof buf, v);
  out_.append(buf, end);
  return *this;
}

JsonOut& JsonOut::value(int v) { return value(static_cast<long long>(v)); }

JsonOut& JsonOut::value(long long v) {
  comma();
  out_ += std::to_string(v);
  return *this;
}

JsonOut& JsonOut::value(bool v) {
  comma();
  out_ += v ? "true" : "false";
  return *this;
}

JsonOut& JsonOut::value(const std::string& s) {
  comma();
  out_ += nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return *this;
}

JsonOut& JsonOut::null() {
  comma();
  out_ += "null";
  return *this;
}

JsonOut& JsonOut::raw(const std::string& json) {
  comma();
  out_ += json;
  return *this;
}

JsonOut& JsonOut::numbers(const char* name, const std::vector<double>& v) {
  key(name).begin_array();
  for (double x : v) value(x);
  return end_array();
}

}  // namespace vtrain::detail
