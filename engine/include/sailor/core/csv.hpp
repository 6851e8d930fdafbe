// A strict CSV reader (RFC 4180): a header line, then rows with as many fields as the header;
// fields quoted with " may hold commas, line breaks and doubled quotes (""); lines end in LF or
// CRLF; the text is UTF-8. Anything else is an InputError naming the file, the line and the
// column (the field's number, 1-based, and its header name), what was found and what was
// expected: "gcp/vms.csv:12:9 (Price): got ..., expected ...". Not a CSV dialect guesser: no
// other separators, no trimming of spaces, no comment lines.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "sailor/core/error.hpp"

namespace sailor {

struct CsvRow {
  int line = 0;                     // 1-based line of the row's first character
  std::vector<std::string> fields;  // one per header column, quotes removed
};

struct CsvTable {
  std::string name;  // how errors name the file ("gcp/vms.csv")
  std::vector<std::string> header;
  std::vector<CsvRow> rows;

  // Index of the column named `column`, -1 where the header has none.
  int column(std::string_view column) const;
  // The field name errors use for line `line`, column index `index` (0-based):
  // "gcp/vms.csv:12:9 (Price)".
  std::string where(int line, int index) const;
  // An InputError at that line and column.
  InputError error(int line, int index, const std::string& value,
                   const std::string& expected) const;
};

// Parses `text` (the whole file). `name` is how errors name it. An optional UTF-8 byte order
// mark at the start is dropped. A last line without its line ending is accepted.
CsvTable parseCsv(std::string_view text, const std::string& name);

// Reads and parses the file at `path` (at most max_bytes; see json_util::readText).
CsvTable readCsv(const std::string& path, const std::string& name,
                 std::size_t max_bytes = std::size_t{256} << 20);

}  // namespace sailor
