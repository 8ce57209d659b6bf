#pragma once
// A small writer of JSON text: a schedule result holds thousands of numbers, and writing them
// straight to text keeps both its time and the WebAssembly module's size down (a tree of
// nlohmann::json built field by field costs several times more of each). Numbers are written as
// nlohmann::json writes them.

#include <string>
#include <vector>  // numbers()

namespace vtrain::detail {

class JsonOut {
 public:
  JsonOut& begin_object();
  JsonOut& end_object();
  JsonOut& begin_array();
  JsonOut& end_array();
  JsonOut& key(const char* name);           // the next value's key
  JsonOut& value(double v);                 // null when not finite
  JsonOut& value(int v);
  JsonOut& value(long long v);
  JsonOut& value(bool v);
  JsonOut& value(const std::string& s);     // escaped; invalid UTF-8 replaced
  JsonOut& value(const char* s) { return value(std::string(s)); }
  JsonOut& null();
  JsonOut& raw(const std::string& json);    // an already written JSON value
  // key(name).value(v), for each kind.
  template <class T>
  JsonOut& field(const char* name, const T& v) {
    key(name);
    return value(v);
  }
  JsonOut& numbers(const char* name, const std::vector<double>& v);  // an array of numbers (null where not finite)
  std::string take() { return std::move(out_); }

 private:
  void comma();
  std::string out_;
  std::string first_;  // per open container, '1' while nothing is written in it yet
  bool after_key_ = false;
};

}  // namespace vtrain::detail
