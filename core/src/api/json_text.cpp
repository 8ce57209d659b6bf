#include "vtrain/json_text.hpp"

#include <set>
#include <string>
#include <vector>

#include "common/json_reader.hpp"

namespace vtrain {

namespace {

using nlohmann::json;

// One open object or array while parsing: where the next value goes, and the keys seen so far.
struct Frame {
  bool array = false;
  long index = 0;      // array: index of the element being read
  std::string key;     // object: key of the member being read
  std::set<std::string> keys;
};

std::string pointer_of(const std::vector<Frame>& frames, size_t upto) {
  std::string p;
  for (size_t i = 0; i < upto; ++i)
    p = frames[i].array ? p + "/" + std::to_string(frames[i].index) : detail::join_pointer(p, frames[i].key);
  return p;
}

// nlohmann's what() reads "[json.exception.parse_error.101] parse error at line 1, column 5: ...";
// the bracketed identifier means nothing to a user.
std::string plain_message(const char* what) {
  std::string m = what;
  if (!m.empty() && m[0] == '[') {
    const size_t close = m.find("] ");
    if (close != std::string::npos) m = m.substr(close + 2);
  }
  return m;
}

}  // namespace

Diagnostics parse_json_text(std::string_view text, json& out) {
  std::vector<Frame> frames;
  Diagnostics duplicate;
  auto element_done = [&] {
    if (!frames.empty() && frames.back().array) ++frames.back().index;
  };
  json::parser_callback_t watch = [&](int, json::parse_event_t event, json& parsed) {
    switch (event) {
      case json::parse_event_t::object_start: frames.emplace_back(); break;
      case json::parse_event_t::array_start:
        frames.emplace_back();
        frames.back().array = true;
        break;
      case json::parse_event_t::key: {
        Frame& f = frames.back();
        f.key = parsed.get<std::string>();
        if (!f.keys.insert(f.key).second && duplicate.empty()) {
          const std::string p = pointer_of(frames, frames.size());
          duplicate.push_back(make_diagnostic("duplicate_key", p, "is given twice in the same object"));
        }
        break;
      }
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        frames.pop_back();
        element_done();
        break;
      case json::parse_event_t::value: element_done(); break;
    }
    return true;
  };
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return {make_diagnostic("syntax", "", "not valid JSON: the text is empty")};
  try {
    out = json::parse(text.begin(), text.end(), watch, true, false);
  } catch (const json::exception& e) {
    return {make_diagnostic("syntax", "", "not valid JSON: " + plain_message(e.what()))};
  }
  return duplicate;
}

std::string dump_json(const json& j, int indent) { return j.dump(indent, ' ', false, json::error_handler_t::replace); }

std::string errors_reply(const Diagnostics& errors) {
  json list = json::array();
  for (const auto& d : errors) list.push_back({{"code", d.code}, {"pointer", d.pointer}, {"message", d.message}});
  return dump_json(json{{"ok", false}, {"errors", list}});
}

}  // namespace vtrain
