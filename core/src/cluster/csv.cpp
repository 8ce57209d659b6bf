#include "cluster/csv.hpp"

#include <cmath>

#include <nlohmann/json.hpp>

#include "vtrain/json_text.hpp"

namespace vtrain::detail {

namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
  return s.substr(b, e - b);
}

bool blank(const CsvRow& r) { return r.cells.size() == 1 && r.cells[0].text.empty(); }

}  // namespace

CsvTable read_csv(const std::string& input) {
  CsvTable t;
  size_t i = 0;
  if (input.compare(0, 3, "\xEF\xBB\xBF") == 0) i = 3;
  int line = 1;
  CsvRow row;
  row.line = 1;
  std::string cell;
  bool quoted = false, was_quoted = false;
  int quote_line = 0;
  auto end_cell = [&] {
    row.cells.push_back({was_quoted ? cell : trim(cell), static_cast<int>(row.cells.size()) + 1});
    cell.clear();
    was_quoted = false;
  };
  auto end_row = [&] {
    end_cell();
    if (!blank(row)) t.rows.push_back(std::move(row));
    row = CsvRow{};
    row.line = line;
  };
  for (; i < input.size(); ++i) {
    const char c = input[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < input.size() && input[i + 1] == '"') {
          cell += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        cell += c;
      }
      continue;
    }
    if (c == '"' && trim(cell).empty()) {
      quoted = was_quoted = true;
      quote_line = line;
      cell.clear();
    } else if (c == ',') {
      end_cell();
    } else if (c == '\r' && i + 1 < input.size() && input[i + 1] == '\n') {
      continue;
    } else if (c == '\n') {
      ++line;
      end_row();
    } else {
      cell += c;
    }
  }
  if (quoted) {
    t.error = "line " + std::to_string(quote_line) + ": a quoted field is not closed";
    return t;
  }
  end_row();
  return t;
}

bool csv_number(const std::string& text, double& out) {
  // JSON's number syntax, read by the JSON reader the module already holds.
  nlohmann::json v;
  if (text.empty() || !parse_json_text(text, v).empty() || !v.is_number()) return false;
  out = v.get<double>();
  return std::isfinite(out);
}

}  // namespace vtrain::detail
