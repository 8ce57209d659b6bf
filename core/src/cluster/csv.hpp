#pragma once
// A small CSV reader for job lists: quoted fields, CRLF, a UTF-8 byte-order mark; every cell keeps
// the line and column it came from, so that an error can name them.

#include <string>
#include <vector>

namespace vtrain::detail {

struct CsvCell {
  std::string text;  // unquoted, surrounding spaces removed
  int column = 1;    // 1-based column number (count)
};

struct CsvRow {
  int line = 1;                // 1-based line number where the row starts (count)
  std::vector<CsvCell> cells;
};

struct CsvTable {
  std::vector<CsvRow> rows;    // the header first; blank lines left out
  std::string error;           // a syntax error ("line 3: unterminated quoted field"), or empty
};

CsvTable read_csv(const std::string& text);

// Reads a cell as a finite number in JSON's syntax (1, 2.5, 1e9); false when it is not one.
bool csv_number(const std::string& text, double& out);

}  // namespace vtrain::detail
