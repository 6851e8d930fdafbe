// The strict CSV reader (RFC 4180, UTF-8). Declared in sailor/core/csv.hpp.
//
// Map:
//   Parser            walks the bytes once: fields, quotes, line endings, UTF-8
//   parseCsv          the header, then each row checked against its width
//   readCsv           the file's text (bounded), then parseCsv
//   CsvTable::where   "file:line:column (header name)" for errors
#include "sailor/core/csv.hpp"

#include <set>

#include "sailor/core/json_util.hpp"

namespace sailor {

int CsvTable::column(std::string_view column) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == column) return static_cast<int>(i);
  return -1;
}

std::string CsvTable::where(int line, int index) const {
  std::string w = name + ":" + std::to_string(line) + ":" + std::to_string(index + 1);
  if (index >= 0 && static_cast<size_t>(index) < header.size())
    w += " (" + header[static_cast<size_t>(index)] + ")";
  return w;
}

InputError CsvTable::error(int line, int index, const std::string& value,
                           const std::string& expected) const {
  return InputError(where(line, index), value, expected);
}

namespace {

// One pass over the text. Each record is a vector of fields and the line it starts on. Errors
// go through the table so that they name the header's column where the header is known.
class Parser {
 public:
  Parser(std::string_view text, CsvTable& table) : s_(text), t_(table) {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") i_ = 3;
  }

  bool atEnd() const { return i_ >= s_.size(); }

  // The next record (the caller checks atEnd() first).
  CsvRow record() {
    CsvRow row;
    row.line = line_;
    for (;;) {
      const int index = static_cast<int>(row.fields.size());
      row.fields.push_back(atEnd() || s_[i_] != '"' ? unquoted(index) : quoted(index));
      if (atEnd()) return row;
      const char c = s_[i_];
      if (c == ',') {
        ++i_;
        continue;
      }
      // unquoted() and quoted() stop only at a comma, a line ending or the end.
      i_ += c == '\r' ? 2 : 1;
      ++line_;
      return row;
    }
  }

 private:
  // Appends the UTF-8 character at i_ to out, or throws naming the bytes.
  void takeChar(std::string& out, int index) {
    const size_t len = utf8CharLength(s_, i_);
    if (len == 0)
      throw t_.error(line_, index,
                     "the byte " + printableLine(s_.substr(i_, 1)) + " in \"" +
                         printableLine(s_.substr(field_start_, i_ - field_start_ + 1), 60) + "\"",
                     "UTF-8 text");
    out.append(s_.substr(i_, len));
    i_ += len;
  }

  // A line ending at i_: LF or CRLF; a lone CR is an error.
  bool atLineEnd(int index) const {
    if (s_[i_] == '\n') return true;
    if (s_[i_] != '\r') return false;
    if (i_ + 1 < s_.size() && s_[i_ + 1] == '\n') return true;
    throw t_.error(line_, index, "a carriage return not followed by a line feed",
                   "lines ending in LF or CRLF");
  }

  std::string unquoted(int index) {
    std::string out;
    field_start_ = i_;
    while (!atEnd() && s_[i_] != ',' && !atLineEnd(index)) {
      if (s_[i_] == '"')
        throw t_.error(line_, index,
                       "a quote inside the unquoted field \"" +
                           std::string(s_.substr(field_start_, i_ - field_start_ + 1)) + "\"",
                       "a field quoted whole, with each quote inside it doubled (\"\")");
      takeChar(out, index);
    }
    return out;
  }

  std::string quoted(int index) {
    std::string out;
    const int open_line = line_;
    field_start_ = i_;
    ++i_;
    for (;;) {
      if (atEnd())
        throw t_.error(open_line, index,
                       "the end of the file inside a quoted field (its quote opens on line " +
                           std::to_string(open_line) + ")",
                       "a closing quote");
      const char c = s_[i_];
      if (c == '"') {
        if (i_ + 1 < s_.size() && s_[i_ + 1] == '"') {
          out += '"';
          i_ += 2;
          continue;
        }
        ++i_;
        break;
      }
      if (c == '\n') ++line_;
      takeChar(out, index);
    }
    if (!atEnd() && s_[i_] != ',' && !atLineEnd(index))
      throw t_.error(line_, index,
                     "\"" + printableLine(s_.substr(i_, 1)) + "\" after the closing quote",
                     "a comma or the end of the line");
    return out;
  }

  std::string_view s_;
  CsvTable& t_;
  size_t i_ = 0;
  size_t field_start_ = 0;
  int line_ = 1;
};

std::string headerText(const std::vector<std::string>& header) {
  std::string h;
  for (const auto& c : header) h += (h.empty() ? "" : ",") + c;
  return h;
}

}  // namespace

CsvTable parseCsv(std::string_view text, const std::string& name) {
  CsvTable t;
  t.name = name;
  Parser p(text, t);
  if (p.atEnd()) throw t.error(1, 0, "an empty file", "a header line naming the columns");
  CsvRow header = p.record();
  std::set<std::string> seen;
  for (size_t i = 0; i < header.fields.size(); ++i) {
    const std::string& h = header.fields[i];
    if (h.empty() || !seen.insert(h).second)
      throw t.error(header.line, static_cast<int>(i),
                    h.empty() ? "an empty column name" : "the column name \"" + h + "\" again",
                    "a header of distinct, non-empty column names");
  }
  t.header = std::move(header.fields);
  const size_t width = t.header.size();
  while (!p.atEnd()) {
    CsvRow row = p.record();
    if (row.fields.size() < width)
      throw t.error(
          row.line, static_cast<int>(row.fields.size()),
          "the end of the row after " + std::to_string(row.fields.size()) + " field" +
              (row.fields.size() == 1 ? "" : "s"),
          std::to_string(width) + " fields, as the header has (" + headerText(t.header) + ")");
    if (row.fields.size() > width)
      throw t.error(
          row.line, static_cast<int>(width), std::to_string(row.fields.size()) + " fields",
          std::to_string(width) + " fields, as the header has (" + headerText(t.header) + ")");
    t.rows.push_back(std::move(row));
  }
  return t;
}

CsvTable readCsv(const std::string& path, const std::string& name, std::size_t max_bytes) {
  return parseCsv(json_util::readText(path, "a CSV file", max_bytes), name);
}

}  // namespace sailor
